/* SPDX-License-Identifier: GPL-2.0-or-later */
/* s4n_api.h - slirp4netns's API socket: published ports as JSON requests
 * (served by the control thread, ctl.c; the JSON is parsed and built here)
 */
#ifndef SLIPWAY_S4N_API_H
#define SLIPWAY_S4N_API_H

#include <stddef.h>
#include <stdint.h>

#include "ctl/ctl_proto.h"
#include "cli/conf.h"
#include "svc/fwd.h"

/* EP_CTL index (shard 0's loop, main.c): the slirp4netns exit fd */
#define CTL_IDX_EXIT_FD 0
/* at most this many connections at once: a new one closes the oldest */
#define S4N_API_CONNS 16
/* a larger request is answered with an error */
#define S4N_API_REQ_MAX 4096
/* room for add_hostfwd's guest_addr text (an address inet_pton() took) */
#define S4N_API_GA_MAX 64

/**
 * s4n_api_listen() - the API's listening socket
 * @path:	socket path (must not exist)
 *
 * Return: the socket (non-blocking), or -1 (logged)
 */
int s4n_api_listen(const char *path);

/**
 * s4n_req_parse() - parse one request
 * @req:	request bytes (not NUL-terminated)
 * @len:	their length
 * @r:		out: what shard 0 is to run (a forwards operation)
 * @ga:		out: add_hostfwd: the guest_addr text, for its error reply
 * @galen:	room in @ga (S4N_API_GA_MAX)
 * @reply:	out: the reply to send at once, or NULL if out of memory
 *
 * Context: any thread (nothing of a shard's is touched)
 * Return: 0: run @r on shard 0, then answer with s4n_reply(); 1: answer
 * with @reply
 */
int s4n_req_parse(const char *req, size_t len, struct ctl_req *r, char *ga,
		  size_t galen, char **reply);

/**
 * s4n_reply() - the reply to a request shard 0 ran
 * @r:		the request, from s4n_req_parse()
 * @ga:		its guest_addr text, from s4n_req_parse()
 * @ret:	add: what fwd_add() returned (the id, or -errno); remove:
 *		what fwd_remove() returned
 * @list:	list: the published ports (NULL if out of memory)
 * @n:		entries in @list
 * @conf:	configuration
 *
 * Return: NUL-terminated reply (free() it), or NULL if out of memory
 */
char *s4n_reply(const struct ctl_req *r, const char *ga, int ret,
		const struct fwd_rule *list, unsigned n,
		const struct conf *conf);

/**
 * s4n_reply_too_large() - the reply to a request above S4N_API_REQ_MAX
 *
 * Return: NUL-terminated reply (free() it), or NULL if out of memory
 */
char *s4n_reply_too_large(void);

#endif /* SLIPWAY_S4N_API_H */

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* s4n_api.h - slirp4netns's API socket: published ports as JSON requests */
#ifndef SLIPWAY_S4N_API_H
#define SLIPWAY_S4N_API_H

#include <stddef.h>
#include <stdint.h>

struct shard;
struct s4n_api;

/* EP_CTL indexes (main thread): the exit fd, the API socket, connections */
#define CTL_IDX_EXIT_FD 0
#define CTL_IDX_API 1
#define CTL_IDX_API_CONN 2
/* at most this many connections at once: a new one closes the oldest */
#define S4N_API_CONNS 16
/* a larger request is answered with an error */
#define S4N_API_REQ_MAX 4096

/**
 * s4n_api_init() - listen on the API socket
 * @sh:		shard 0 (the main thread's loop, where the ports live)
 * @path:	socket path (must not exist)
 *
 * #syscalls socket bind listen epoll_ctl
 * Return: the API state, or NULL (logged)
 */
struct s4n_api *s4n_api_init(struct shard *sh, const char *path);

/**
 * s4n_api_event() - an EP_CTL event of the API (index CTL_IDX_API or a
 * connection's)
 * @a:		API state
 * @idx:	EP_IDX() of the event
 *
 * Context: main thread
 */
void s4n_api_event(struct s4n_api *a, uint32_t idx);

/**
 * s4n_api_fini() - close every connection and the socket, remove its path
 * @a:		API state, or NULL
 */
void s4n_api_fini(struct s4n_api *a);

/**
 * s4n_api_handle() - answer one request
 * @sh:		shard 0
 * @req:	request bytes (not NUL-terminated)
 * @len:	their length
 *
 * Return: the reply, NUL-terminated (free() it), or NULL if out of memory
 */
char *s4n_api_handle(struct shard *sh, const char *req, size_t len);

#endif /* SLIPWAY_S4N_API_H */

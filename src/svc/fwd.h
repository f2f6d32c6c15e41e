/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwd.h - published ports: add, remove and list them at run time */
#ifndef SLIPWAY_FWD_H
#define SLIPWAY_FWD_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "shard/listen.h"

struct core;
struct fwd_spec;
struct shard;

/*
 * The forward API. Context: the main thread only (shard 0's loop, where
 * published ports live: they are accepted there and the connections handed
 * to other shards through their mailboxes, with the guest address and port
 * by value, so removing a port never races with a shard). No locks. The
 * control thread (ctl.c: the control socket and the slirp4netns API
 * socket) never calls it: it has shard 0 run a job for it
 * (shard_api_call_ask() in shard_api.h).
 */

/**
 * fwd_add() - publish a host port at run time
 * @sh:		shard 0
 * @r:		the port (@id ignored)
 *
 * Return: the new port's id (> 0), or -EINVAL (bad rule: protocol, port 0,
 *	   guest address outside the guest's network), -EAFNOSUPPORT (an IPv6
 *	   guest address with IPv6 off), -EADDRINUSE (a port of ours or
 *	   another program's), -EACCES (privileged port), -EADDRNOTAVAIL (no
 *	   such host address), -ENOMEM, or another -errno from socket(),
 *	   bind() or listen()
 */
int fwd_add(struct shard *sh, const struct fwd_rule *r);

/**
 * fwd_remove() - stop publishing a port: close its socket; connections it
 * accepted go on, a UDP port's flows are forgotten
 * @sh:		shard 0
 * @id:		what fwd_add() returned (or fwd_list() says)
 *
 * Return: 0, or -ENOENT
 */
int fwd_remove(struct shard *sh, unsigned id);

/**
 * fwd_list() - the published ports, in the order of their ids
 * @sh:		shard 0
 * @out:	filled with up to @max entries (may be NULL with @max 0)
 * @max:	room in @out
 *
 * Return: how many ports there are (may be more than @max)
 */
unsigned fwd_list(const struct shard *sh, struct fwd_rule *out, unsigned max);

/**
 * fwd_open_rule() - open a rule's socket as a start-up port is (spliced
 * loopback clients, no address checks but fwd_add()'s), quietly
 * @sh:		shard 0
 * @r:		the port (@id ignored)
 *
 * Context: main thread (shard 0's loop); fwdauto.c
 * Return: the new port's id (> 0), or -errno
 */
int fwd_open_rule(struct shard *sh, const struct fwd_rule *r);

/**
 * fwd_find_auto() - the id of the port "auto" opened for a range and port
 * @sh:		shard 0
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @tag:	its fwd_rule.auto_tag
 * @port:	its host port
 *
 * Return: the id, or 0
 */
unsigned fwd_find_auto(const struct shard *sh, int proto, unsigned tag,
		       uint16_t port);

/**
 * fwd_rule_str() - "tcp 127.0.0.1:8080 -> 10.0.2.100:80", for messages
 * @r:		port
 * @buf:	out
 * @len:	size of @buf
 *
 * Return: @buf
 */
const char *fwd_rule_str(const struct fwd_rule *r, char *buf, size_t len);

/*
 * The shard side of fwd.c: set-up, shard 0's accept and resume, and the
 * count. Context: the shards' own threads
 * (never the control thread).
 */
int fwd_init(struct shard *sh);
void fwd_prepare(void);
void fwd_rule_from(const struct shard *sh, const struct fwd_spec *s, int proto,
		   unsigned p, struct fwd_rule *r);
void fwd_accept(struct shard *sh, uint32_t idx, uint32_t events);
void fwd_resume(struct shard *sh);
unsigned fwd_count(const struct shard *sh);

#endif /* SLIPWAY_FWD_H */

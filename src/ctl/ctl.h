/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ctl.h - the control socket (--ctl) and the metrics endpoint (--metrics) */
#ifndef SLIPWAY_CTL_H
#define SLIPWAY_CTL_H

#include <stdint.h>

#include "host/conf.h"
#include "host/shard.h"

struct ctl;

/**
 * ctl_init() - listen on --ctl and --metrics, in shard 0's epoll set
 * @sh:		shard 0 (its thread is the main thread)
 * @conf:	configuration
 *
 * Context: start-up, before the shard threads run
 * Return: the server, or NULL on failure (logged); with neither option,
 * an idle server
 */
struct ctl *ctl_init(struct shard *sh, const struct conf *conf);

/**
 * ctl_event() - an EP_CTLSRV event (the shard's ctl_event hook)
 * @arg:	server
 * @idx:	EP_IDX() of the event
 * @events:	epoll events
 *
 * Context: shard 0
 */
void ctl_event(void *arg, uint32_t idx, uint32_t events);

/**
 * ctl_fini() - close every connection and listener, remove the socket
 * @c:		server, or NULL
 *
 * Context: after the other shards stopped
 */
void ctl_fini(struct ctl *c);

/**
 * ctl_client_main() - slipway ctl PATH CMD [ARGS] [--json]
 * @argc:	arguments after "slipway"
 * @argv:	"ctl", PATH, CMD...
 *
 * Return: exit status: 0, 1 (no answer or an error reply), 2 (bad usage)
 */
int ctl_client_main(int argc, char **argv);

/**
 * ctl_dirfd() - the directory of the control socket's file (the sandbox
 * keeps the right to remove it from there)
 * @c:		server, or NULL
 *
 * Return: its O_PATH fd, or -1
 */
int ctl_dirfd(const struct ctl *c);

#endif /* SLIPWAY_CTL_H */

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ctl.h - the control socket (--ctl), the metrics endpoint (--metrics) and
 * the slirp4netns API socket (-a), served by the control thread */
#ifndef SLIPWAY_CTL_H
#define SLIPWAY_CTL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "cli/conf.h"
#include "ctl/ctl_client.h"

struct ctl;
struct shard;

#define CTL_IDENT_GUEST_MAX 256
#define CTL_IDENT_NAME_MAX 128

/**
 * struct ctl_ident - who this instance is, for the version reply (and
 * through it `slipway ls`)
 * @mode:	"slipway", "pasta", "passt" or "slirp4netns"
 * @guest:	the namespace path, "pid:N", or the VM's socket path; ""
 *		when not known
 * @name:	the container or VM name, best effort; "" when not known
 */
struct ctl_ident {
	const char *mode;
	char guest[CTL_IDENT_GUEST_MAX];
	char name[CTL_IDENT_NAME_MAX];
};

/**
 * ctl_init() - listen on the control socket (--ctl, SLIPWAY_CTL, or the
 * default per-instance path under the runtime directory) and on --metrics,
 * in the control thread's own epoll set
 * @sh:		shard 0 (its group's shards answer flow snapshots, shard 0
 *		runs the forward API)
 * @conf:	configuration
 * @id:		who we are (copied), or NULL
 *
 * A default socket that cannot be made is no failure: without it the
 * gateway runs on (one line at the info level says why).
 *
 * Context: start-up, before any thread runs, before the sandbox
 * Return: the server, or NULL on failure (logged); with no socket to
 * serve, an idle server (no thread) unless ctl_api_init() gives it the API
 * socket
 */
struct ctl *ctl_init(struct shard *sh, const struct conf *conf,
		     const struct ctl_ident *id);

/**
 * ctl_api_init() - listen on the slirp4netns API socket too (s4n_api.h),
 * in the control thread's epoll set
 * @c:		server
 * @path:	socket path (must not exist; removed by ctl_fini())
 *
 * Context: start-up, before ctl_start()
 * Return: 0, or -1 (logged)
 */
int ctl_api_init(struct ctl *c, const char *path);

/**
 * ctl_active() - is there anything for a control thread to serve?
 * @c:		server, or NULL
 *
 * Return: true with --ctl, --metrics or the API socket
 */
bool ctl_active(const struct ctl *c);

/**
 * ctl_start() - start the control thread ("slipway-ctl"), if ctl_active()
 * @c:		server
 * @start:	barrier the thread waits at, with the shards, until the
 *		seccomp filter is installed
 *
 * Context: main thread, after the sandbox is entered, before the seccomp
 * filter is installed
 * Return: 0, or -errno (logged)
 */
int ctl_start(struct ctl *c, pthread_barrier_t *start);

/**
 * ctl_stop() - stop the control thread and join it
 * @c:		server, or NULL
 *
 * Context: main thread, once shard 0's loop ended, before the other shards
 * are stopped
 */
void ctl_stop(struct ctl *c);

/**
 * ctl_fini() - close every connection and listener, remove the sockets
 * @c:		server, or NULL
 *
 * Context: after ctl_stop() and after the other shards stopped
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

/**
 * ctl_api_dirfd() - the directory of the API socket's file (the sandbox
 * keeps the right to remove it from there)
 * @c:		server, or NULL
 *
 * Return: its O_PATH fd, or -1
 */
int ctl_api_dirfd(const struct ctl *c);

#endif /* SLIPWAY_CTL_H */

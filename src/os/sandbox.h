/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sandbox.h - give up what the running gateway does not need */
#ifndef SLIPWAY_SANDBOX_H
#define SLIPWAY_SANDBOX_H

#include <stdbool.h>
#include <sys/types.h>

#define SANDBOX_PATHS_MAX 8

/**
 * enum sandbox_access - what the running gateway may still do in a directory
 * @SANDBOX_READ:	read files (resolv.conf, re-read when it changes)
 * @SANDBOX_WRITE:	create and truncate files (--stats-file)
 * @SANDBOX_REMOVE:	remove files (our socket file, at exit)
 */
enum sandbox_access { SANDBOX_READ, SANDBOX_WRITE, SANDBOX_REMOVE };

/**
 * struct sandbox_conf - what the sandbox keeps and relaxes
 * @off:		--no-sandbox: none of it
 * @seccomp_log:	--seccomp-log: a call off the list is logged, not fatal
 * @runas:		--runas given: become @uid, @gid (when root)
 * @uid:		user to become
 * @gid:		group to become
 * @keep_fs:		the host filesystem must stay reachable by path (the
 *			datagram edge connects to its guest's socket path):
 *			no empty mount namespace, Landlock only
 * @ro_dir:		directories kept readable at their paths (in the empty
 *			mount namespace: bind-mounted read-only there)
 * @n_ro:		entries in @ro_dir
 * @dirfd:		directories opened (O_PATH) before the sandbox, which
 *			the gateway uses only through that fd
 * @dirfd_access:	what it does there, per @dirfd
 * @n_dirfd:		entries in @dirfd
 * @kill_pid:		the command's process, the only one kill() may reach
 *			once seccomp is on (with SIGTERM), or 0
 * @who:		a helper process's name (its summary is logged at debug
 *			level, under that name), or NULL: the gateway
 * @keep_net_bind:	keep CAP_NET_BIND_SERVICE if we have it (slirp4netns
 *			mode: its API publishes ports below 1024, as
 *			slirp4netns's sandbox allows; a --migrate-from
 *			destination that publishes one after the sandbox)
 * @keep_net_admin:	keep CAP_NET_ADMIN if we have it (the repair helper
 *			only, repair_helper.c: TCP_REPAIR needs it; never
 *			the gateway)
 * @no_userns:		never a user namespace of our own (a capability kept
 *			must still reach the host's sockets): the empty
 *			mount namespace only as root, else Landlock
 */
struct sandbox_conf {
	bool off;
	bool seccomp_log;
	bool runas;
	uid_t uid;
	gid_t gid;
	bool keep_fs;
	const char *ro_dir[SANDBOX_PATHS_MAX];
	unsigned n_ro;
	int dirfd[SANDBOX_PATHS_MAX];
	enum sandbox_access dirfd_access[SANDBOX_PATHS_MAX];
	unsigned n_dirfd;
	pid_t kill_pid;
	const char *who;
	bool keep_net_bind;
	bool keep_net_admin;
	bool no_userns;
};

/**
 * sandbox_enter() - filesystem, user, capabilities, no new privileges
 * @c:	configuration
 *
 * Context: main thread, after set-up and before any other thread exists
 * (a user namespace cannot be entered by a threaded process; capabilities
 * are per thread and inherited by the threads started later).
 *
 * Return: 0, or negative errno (logged): the caller gives up
 */
int sandbox_enter(const struct sandbox_conf *c);

/**
 * sandbox_seccomp() - the system call allowlist, for every thread
 * @c:	configuration
 *
 * Context: after sandbox_enter(), once every thread has started
 * Return: 0, or negative errno (logged)
 */
int sandbox_seccomp(const struct sandbox_conf *c);

/**
 * sandbox_sanitized() - is this a sanitizer build (no seccomp filter: the
 * sanitizer's run-time makes calls no allowlist names)?
 *
 * Return: true if it is
 */
bool sandbox_sanitized(void);

#endif /* SLIPWAY_SANDBOX_H */

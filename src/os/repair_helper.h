/* SPDX-License-Identifier: GPL-2.0-or-later */
/* repair_helper.h - the repair helper: a process of its own that holds
 * CAP_NET_ADMIN and does nothing but turn TCP_REPAIR on and off */
#ifndef SLIPWAY_REPAIR_HELPER_H
#define SLIPWAY_REPAIR_HELPER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/filter.h>

/* sockets one request carries (the kernel's SCM_MAX_FD is 253) */
#define REPAIRH_BATCH 250
/* instructions of the helper's own seccomp filter, at most */
#define REPAIRH_PROG_MAX 32
/* how long the gateway waits for an answer, in seconds */
#define REPAIRH_TIMEOUT_S 5

/**
 * struct repairh_req - a request: one SOCK_SEQPACKET message, the sockets
 * attached (SCM_RIGHTS)
 * @op:		TCP_REPAIR_ON, TCP_REPAIR_OFF or TCP_REPAIR_OFF_NO_WP, for
 *		every socket attached
 * @n:		how many are attached: 1 to REPAIRH_BATCH
 */
struct repairh_req {
	int32_t op;
	uint32_t n;
};

/**
 * struct repairh_rep - the answer's header; @n results follow (int32_t,
 * 0 or a positive errno each, in the order the sockets came)
 * @err:	0, or EINVAL: the request was malformed (then every result
 *		is EINVAL too)
 * @n:		sockets the helper received
 */
struct repairh_rep {
	int32_t err;
	uint32_t n;
};

/**
 * struct repairh_hello - the helper's first message, once its sandbox is on
 * @err:	0, or EPERM: it has no CAP_NET_ADMIN (it exits then)
 * @pid:	its process ID
 */
struct repairh_hello {
	int32_t err;
	int32_t pid;
};

/**
 * struct repairh_opts - what the helper takes from the configuration
 * @runas:	--runas given (as root): become @uid and @gid, and keep
 *		CAP_NET_ADMIN through it
 * @uid:	user
 * @gid:	group
 */
struct repairh_opts {
	bool runas;
	uid_t uid;
	gid_t gid;
};

/**
 * repairh_start() - fork the repair helper
 * @o:		options
 * @pid:	out: the helper's process ID
 *
 * Context: set-up, before the sandbox and before any thread exists
 * Return: our end of its socket (blocking, close-on-exec, with a receive
 * timeout of REPAIRH_TIMEOUT_S), or -errno (-EPERM: the helper has no
 * CAP_NET_ADMIN); logged
 */
int repairh_start(const struct repairh_opts *o, pid_t *pid);

/**
 * repairh_call() - one request to the helper, and its answer
 * @sock:	our end of the helper's socket
 * @op:		TCP_REPAIR_ON, TCP_REPAIR_OFF or TCP_REPAIR_OFF_NO_WP
 * @fds:	the sockets (they stay ours: the helper closes its copies)
 * @n:		how many: 1 to REPAIRH_BATCH
 * @res:	out: one result per socket, 0 or -errno
 *
 * Context: any thread, one request at a time on @sock (the caller locks)
 * Return: 0 (see @res), or -errno: the helper is gone or answered nonsense
 * (-ECONNRESET, -EPIPE, -ETIMEDOUT, -EPROTO), and no result is known
 */
int repairh_call(int sock, int op, const int *fds, unsigned n, int *res);

/**
 * repairh_filter_build() - the helper's seccomp filter
 * @f:		program out, REPAIRH_PROG_MAX instructions
 *
 * recvmsg, sendmsg, close, exit_group; getsockopt only SOL_SOCKET's
 * SO_DOMAIN, SO_TYPE, SO_PROTOCOL; setsockopt only IPPROTO_TCP's
 * TCP_REPAIR. Anything else kills the helper.
 *
 * Return: number of instructions
 */
unsigned repairh_filter_build(struct sock_filter *f);

#endif /* SLIPWAY_REPAIR_HELPER_H */

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nsh.h - the namespace socket helper: makes sockets inside the guest's namespace */
#ifndef SLIPWAY_NSH_H
#define SLIPWAY_NSH_H

#include <stdint.h>
#include <sys/types.h>

/* most descriptors one reply carries */
#define NSH_MAX_FDS 16

/**
 * enum nsh_op - what a request asks the helper for
 * @NSH_OP_SOCKETS:	@count unconnected non-blocking TCP sockets of @family
 * @NSH_OP_LISTEN:	one non-blocking TCP socket of @family listening on the
 *			namespace's loopback address (127.0.0.1 or ::1), @port
 * @NSH_OP_DIAG:	one NETLINK_SOCK_DIAG socket (its namespace is the
 *			helper's: fwdauto.c lists the guest's sockets with it)
 * @NSH_OP_SOCKSTAT:	the namespace's /proc/net/sockstat (@family AF_INET)
 *			or sockstat6 (AF_INET6), open read-only
 * @NSH_OP_UDP:		one non-blocking UDP socket of @family bound to the
 *			namespace's loopback address, @port (-U, udpns.c)
 * @NSH_OP_NUM:		number of operations
 */
enum nsh_op {
	NSH_OP_SOCKETS = 1,
	NSH_OP_LISTEN,
	NSH_OP_DIAG,
	NSH_OP_SOCKSTAT,
	NSH_OP_UDP,
	NSH_OP_NUM
};

/**
 * struct nsh_req - one request to the helper (one SOCK_SEQPACKET message)
 * @op:		enum nsh_op
 * @family:	AF_INET or AF_INET6
 * @count:	NSH_OP_SOCKETS: 1 to NSH_MAX_FDS
 * @port:	NSH_OP_LISTEN, NSH_OP_UDP: port to bind, host order
 * @pad:	zero
 * @seq:	echoed in the reply
 */
struct nsh_req {
	uint32_t op;
	int32_t family;
	uint32_t count;
	uint16_t port;
	uint16_t pad;
	uint32_t seq;
};

/**
 * struct nsh_rsp - the helper's reply; the sockets ride along (SCM_RIGHTS)
 * @err:	0, or the positive errno of the first failure (then @nfds may
 *		still be above 0: the sockets made before it)
 * @nfds:	descriptors attached
 * @op:		the request's op
 * @family:	the request's family
 * @seq:	the request's seq
 */
struct nsh_rsp {
	int32_t err;
	uint32_t nfds;
	uint32_t op;
	int32_t family;
	uint32_t seq;
};

/**
 * nsh_fds_reset() - keep only stdio and @sock (moved to @fd) in a helper
 * @sock:	the helper's socket to slipway
 * @fd:		where the socket moves to (above standard error)
 *
 * Context: a helper process (nsh.c, resolvh.c), before it serves
 * #syscalls:setup openat dup2 close close_range
 * Return: 0, or -1 if the socket could not be kept
 */
int nsh_fds_reset(int sock, int fd);

/**
 * nsh_fds_send() - send one message with descriptors attached (SCM_RIGHTS)
 * @sock:	the socket
 * @buf:	the message
 * @len:	its length
 * @fds:	descriptors to attach (they stay the caller's)
 * @nfds:	how many: 0 to NSH_MAX_FDS
 *
 * Context: a helper process (nsh.c, netns.c's namespace child)
 * #syscalls:setup sendmsg
 * Return: bytes sent, or -errno
 */
ssize_t nsh_fds_send(int sock, const void *buf, size_t len, const int *fds,
		     unsigned nfds);

/**
 * nsh_fds_recv() - receive one message and the descriptors it carries
 * @sock:	the socket
 * @buf:	the message out
 * @len:	room in @buf
 * @flags:	recvmsg() flags (MSG_CMSG_CLOEXEC, MSG_DONTWAIT)
 * @fds:	@max entries: the descriptors received
 * @max:	most descriptors expected, 1 to NSH_MAX_FDS (more: MSG_CTRUNC)
 * @nfds:	out: how many are in @fds
 * @msg_flags:	out: the message's flags (MSG_TRUNC, MSG_CTRUNC)
 *
 * Ownership: the caller owns @fds[0..*@nfds-1] whatever is returned.
 * #syscalls recvmsg close
 * Return: bytes received (0: the peer is gone), or -errno
 */
ssize_t nsh_fds_recv(int sock, void *buf, size_t len, int flags, int *fds,
		     unsigned max, unsigned *nfds, int *msg_flags);

/**
 * nsh_spawn() - start the helper in the calling process's namespaces
 * @sock:	the helper's end of a SOCK_SEQPACKET socketpair to slipway
 *
 * Forks twice, so the helper belongs neither to the caller nor to what the
 * caller execs next (the command), and waits for the middle process. The
 * helper closes every other descriptor, leaves the session (no terminal
 * signals), serves requests and exits when slipway's end closes. The
 * caller keeps its copy of @sock and should close it. Failing to fork is
 * not fatal: slipway then reads EOF and carries everything through the tap.
 *
 * Context: the namespace child (netns.c), after the tap fds are sent
 * #syscalls:setup fork setsid wait4
 */
void nsh_spawn(int sock);

/**
 * nsh_send() - send a request to the helper
 * @fd:		slipway's end of the socketpair
 * @req:	request
 *
 * #syscalls sendto
 * Return: 0, or -errno (-EPIPE: the helper is gone)
 */
int nsh_send(int fd, const struct nsh_req *req);

/**
 * nsh_recv() - receive one reply and the sockets it carries
 * @fd:		slipway's end of the socketpair (non-blocking is fine)
 * @rsp:	the reply
 * @fds:	NSH_MAX_FDS entries: the sockets, close-on-exec
 *
 * Ownership: on return > 0, the caller owns @fds[0..ret-1].
 * #syscalls recvmsg close
 * Return: descriptors received (0 or more), -EAGAIN if nothing is there,
 *	   -ECONNRESET if the helper is gone, -EMFILE if the reply's
 *	   descriptors could not all be received (out of descriptors; the
 *	   reply is consumed), -EPROTO on a malformed reply
 */
int nsh_recv(int fd, struct nsh_rsp *rsp, int *fds);

#endif /* SLIPWAY_NSH_H */

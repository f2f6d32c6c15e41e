/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nsh.c - the namespace socket helper: makes sockets inside the guest's namespace */

/**
 * DOC: Theory of Operation
 *
 * A socket belongs to the network namespace its creator was in when it
 * called socket(), for its whole life, whoever uses it later. slipway stays
 * in the host's namespaces, so to reach the guest's loopback (splice.c) it
 * needs sockets made inside the guest's namespace. It cannot make them
 * itself: setns() into a network namespace needs CAP_SYS_ADMIN both over
 * the namespace and in the caller's own user namespace, which rootless
 * slipway lacks (measured: EPERM for an unprivileged user against its own
 * unshare -Urn namespace), and a process with threads may not change its
 * user namespace at all.
 *
 * So the namespace child of netns.c, already inside the guest's user (when
 * rootless) and network namespaces, starts this helper before it execs the
 * command (create mode) or exits (--netns). The helper serves requests on a
 * SOCK_SEQPACKET socketpair, one message each way: struct nsh_req asks for
 * N unconnected TCP sockets of a family, for one socket listening on
 * the namespace's loopback, or for a NETLINK_SOCK_DIAG socket (fwdauto.c
 * lists the guest's listening sockets with it), or for its /proc/net/sockstat
 * or sockstat6, opened there; struct nsh_rsp answers, with the sockets
 * attached (SCM_RIGHTS). The helper keeps nothing: every socket it sends
 * is closed on its side. slipway connects, reads and writes the sockets
 * in its own event loop.
 *
 * Lifetime: the helper exits when slipway's end of the socketpair closes
 * (slipway exited, however it ended), or on a signal. It is detached from
 * the caller (double fork) so it is no child of the command, and in a
 * session of its own so the terminal's SIGINT does not reach it.
 */

#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "os/nsh.h"
#include "util/util.h"

#define NSH_FD 3 /* the helper's socket, after nsh_fds_reset() */

/**
 * nsh_fds_reset() - keep only stdio and the socket to slipway
 * @sock:	the socket to slipway
 * @fd:		where the socket moves to (above standard error)
 *
 * Standard input and output become /dev/null (the helper must not hold a
 * pipe that someone waits on), standard error stays for messages, the
 * socket moves to @fd and everything else is closed. Shared by the helper
 * processes (this one and resolvh.c's).
 *
 * Context: helper only
 * #syscalls:setup openat dup2 close close_range
 * Return: 0, or -1 if the socket could not be kept
 */
int nsh_fds_reset(int sock, int fd)
{
	int nul = open("/dev/null", O_RDWR | O_CLOEXEC), i;

	if (nul >= 0) {
		if (sock != STDIN_FILENO)
			dup2(nul, STDIN_FILENO);
		if (sock != STDOUT_FILENO)
			dup2(nul, STDOUT_FILENO);
	}
	if (sock != fd && dup2(sock, fd) != fd)
		return -1;
	if (syscall(SYS_close_range, fd + 1, ~0U, 0)) {
		long max = sysconf(_SC_OPEN_MAX);

		if (max < 0 || max > 65536)
			max = 65536;
		for (i = fd + 1; i < max; i++)
			close(i);
	}
	return 0;
}

/**
 * nsh_fds_send() - send one message with descriptors attached (SCM_RIGHTS)
 * @sock:	the socket
 * @buf:	the message
 * @len:	its length
 * @fds:	descriptors to attach
 * @nfds:	how many: 0 (none attached) to NSH_MAX_FDS
 *
 * Sends with MSG_NOSIGNAL and retries on EINTR. Shared by the helpers
 * that pass descriptors to slipway: this one, and netns.c's namespace
 * child. The descriptors stay the caller's to close.
 *
 * Context: helper processes
 * #syscalls:setup sendmsg
 * Return: bytes sent, or -errno
 */
ssize_t nsh_fds_send(int sock, const void *buf, size_t len, const int *fds,
		     unsigned nfds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * NSH_MAX_FDS)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	ASSERT(nfds <= NSH_MAX_FDS);
	if (nfds) {
		struct cmsghdr *cm;

		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		cm = CMSG_FIRSTHDR(&mh);
		ASSERT(cm);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
	}
	do
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

/**
 * nsh_fds_recv() - receive one message and the descriptors it carries
 * @sock:	the socket
 * @buf:	the message out
 * @len:	room in @buf
 * @flags:	recvmsg() flags (MSG_CMSG_CLOEXEC, MSG_DONTWAIT)
 * @fds:	@max entries: the descriptors received
 * @max:	most descriptors expected, 1 to NSH_MAX_FDS: the control
 *		buffer has room for this many (more: MSG_CTRUNC)
 * @nfds:	out: how many are in @fds
 * @msg_flags:	out: the message's flags (MSG_TRUNC, MSG_CTRUNC)
 *
 * Retries on EINTR. Shared by slipway's side of both helpers: this one
 * (nsh_recv()) and netns.c's namespace child (netns_recv()).
 *
 * Ownership: the caller owns @fds[0..*@nfds-1] whatever is returned;
 * descriptors beyond @max are closed here.
 * #syscalls recvmsg close
 * Return: bytes received (0: the peer is gone), or -errno (then *@nfds
 * is 0)
 */
ssize_t nsh_fds_recv(int sock, void *buf, size_t len, int flags, int *fds,
		     unsigned max, unsigned *nfds, int *msg_flags)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * NSH_MAX_FDS)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = CMSG_SPACE(sizeof(int) * max),
	};
	struct cmsghdr *cm;
	unsigned n = 0;
	ssize_t ret;

	ASSERT(max >= 1 && max <= NSH_MAX_FDS);
	*nfds = 0;
	do
		ret = recvmsg(sock, &mh, flags);
	while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return -errno;

	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		size_t cnt, j;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		cnt = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (j = 0; j < cnt; j++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + j * sizeof(fd), sizeof(fd));
			if (n < max)
				fds[n++] = fd;
			else
				close(fd);
		}
	}
	*nfds = n;
	*msg_flags = mh.msg_flags;
	return ret;
}

/**
 * nsh_socket_lo() - a socket on the loopback address, even with lo down
 * @family:	AF_INET or AF_INET6 (then made IPv6-only)
 * @type:	SOCK_STREAM (then listening) or SOCK_DGRAM
 * @port:	port to bind, host order
 *
 * Freebind, as the guest may bring lo up later (--no-config). A stream
 * socket gets SO_REUSEADDR before it binds.
 *
 * Context: helper only
 * #syscalls:setup socket setsockopt bind listen close
 * Return: the socket (non-blocking, close-on-exec), or -errno (then
 * nothing is open)
 */
static int nsh_socket_lo(int family, int type, uint16_t port)
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6,
				   .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct sockaddr_in s4 = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int one = 1, s, e, ret;

	s = socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	if (type == SOCK_STREAM)
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	s4.sin_port = s6.sin6_port = htons(port);
	if (family == AF_INET6) {
		setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		setsockopt(s, IPPROTO_IPV6, IPV6_FREEBIND, &one, sizeof(one));
		ret = bind(s, (struct sockaddr *)&s6, sizeof(s6));
	} else {
		setsockopt(s, IPPROTO_IP, IP_FREEBIND, &one, sizeof(one));
		ret = bind(s, (struct sockaddr *)&s4, sizeof(s4));
	}
	if (ret || (type == SOCK_STREAM && listen(s, 1024))) {
		e = errno;
		close(s);
		return -e;
	}
	return s;
}

/**
 * nsh_make() - carry out one request
 * @req:	the request, as received
 * @len:	bytes received
 * @fds:	NSH_MAX_FDS entries: the sockets made
 * @nfds:	how many were made
 *
 * Context: helper only
 * #syscalls:setup socket setsockopt bind listen close openat
 * Return: 0, or the positive errno of the first failure
 */
static int nsh_make(const struct nsh_req *req, long len, int *fds,
		    unsigned *nfds)
{
	unsigned i;
	int fd;

	*nfds = 0;
	if (len != (long)sizeof(*req) ||
	    (req->family != AF_INET && req->family != AF_INET6))
		return EINVAL;
	switch (req->op) {
	case NSH_OP_SOCKETS:
		if (!req->count || req->count > NSH_MAX_FDS)
			return EINVAL;
		for (i = 0; i < req->count; i++) {
			fd = socket(req->family,
				    SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
				    0);
			if (fd < 0)
				return errno;
			fds[(*nfds)++] = fd;
		}
		return 0;
	case NSH_OP_LISTEN:
	case NSH_OP_UDP:
		if (!req->port)
			return EINVAL;
		fd = nsh_socket_lo(req->family,
				   req->op == NSH_OP_LISTEN ? SOCK_STREAM :
							      SOCK_DGRAM,
				   req->port);
		if (fd < 0)
			return -fd;
		fds[(*nfds)++] = fd;
		return 0;
	case NSH_OP_DIAG:
		fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
			    NETLINK_SOCK_DIAG);
		if (fd < 0)
			return errno;
		fds[(*nfds)++] = fd;
		return 0;
	case NSH_OP_SOCKSTAT:
		/* /proc/self/net is the namespace of whoever opens it */
		fd = open(req->family == AF_INET ? "/proc/self/net/sockstat" :
						   "/proc/self/net/sockstat6",
			  O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return errno;
		fds[(*nfds)++] = fd;
		return 0;
	default:
		return EINVAL;
	}
}

/**
 * nsh_serve() - answer requests until slipway goes away
 *
 * Context: helper only; never returns
 * #syscalls:setup recvfrom sendmsg close exit_group
 */
static _Noreturn void nsh_serve(void)
{
	for (;;) {
		struct nsh_req req;
		struct nsh_rsp rsp;
		int fds[NSH_MAX_FDS];
		unsigned nfds, i;
		ssize_t n;

		do
			n = recv(NSH_FD, &req, sizeof(req), 0);
		while (n < 0 && errno == EINTR);
		if (n <= 0)
			_exit(0); /* slipway is gone */

		memset(&rsp, 0, sizeof(rsp));
		rsp.err = nsh_make(&req, (long)n, fds, &nfds);
		rsp.nfds = nfds;
		if ((size_t)n >= sizeof(req)) {
			rsp.op = req.op;
			rsp.family = req.family;
			rsp.seq = req.seq;
		}
		n = nsh_fds_send(NSH_FD, &rsp, sizeof(rsp), fds, nfds);
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		if (n < 0)
			_exit(0);
	}
}

/**
 * nsh_spawn() - start the helper in the calling process's namespaces
 * @sock:	the helper's end of a SOCK_SEQPACKET socketpair to slipway
 *
 * Context: the namespace child (netns.c), after the tap fds are sent
 * #syscalls:setup fork setsid prctl wait4 exit_group
 */
void nsh_spawn(int sock)
{
	pid_t pid, mid;
	int st;

	mid = fork();
	if (mid < 0) {
		fprintf(stderr,
			"slipway: warning: cannot start the namespace socket "
			"helper (%s): published ports are served through the "
			"tap only\n",
			strerror(errno));
		return;
	}
	if (mid == 0) {
		setsid();
		pid = fork();
		if (pid != 0)
			_exit(pid < 0);
		prctl(PR_SET_NAME, "slipway-nsh");
		signal(SIGPIPE, SIG_IGN);
		if (nsh_fds_reset(sock, NSH_FD))
			_exit(1);
		nsh_serve();
	}
	while (waitpid(mid, &st, 0) < 0 && errno == EINTR)
		;
}

/**
 * nsh_send() - send a request to the helper
 * @fd:		slipway's end of the socketpair
 * @req:	request
 *
 * #syscalls sendto
 * Return: 0, or -errno (-EPIPE: the helper is gone)
 */
int nsh_send(int fd, const struct nsh_req *req)
{
	ssize_t n;

	do
		n = send(fd, req, sizeof(*req), MSG_NOSIGNAL | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(*req) ? 0 : -EPROTO;
}

/**
 * nsh_recv() - receive one reply and the sockets it carries
 * @fd:		slipway's end of the socketpair
 * @rsp:	the reply
 * @fds:	NSH_MAX_FDS entries: the sockets, close-on-exec
 *
 * Ownership: on return > 0, the caller owns @fds[0..ret-1]; on errors
 * every received descriptor is closed here.
 * #syscalls recvmsg close
 * Return: descriptors received, -EAGAIN if nothing is there, -ECONNRESET
 *	   if the helper is gone, -EMFILE if the reply's descriptors could not
 *	   all be received (the reply is consumed), -EPROTO on a malformed reply
 */
int nsh_recv(int fd, struct nsh_rsp *rsp, int *fds)
{
	unsigned n, i;
	int mflags;
	ssize_t len;

	len = nsh_fds_recv(fd, rsp, sizeof(*rsp),
			   MSG_CMSG_CLOEXEC | MSG_DONTWAIT, fds, NSH_MAX_FDS,
			   &n, &mflags);
	if (len < 0)
		return len == -EAGAIN ? -EAGAIN : -ECONNRESET;
	if (len == 0)
		return -ECONNRESET;
	if (len != (ssize_t)sizeof(*rsp) || rsp->nfds < n ||
	    (mflags & MSG_TRUNC)) {
		for (i = 0; i < n; i++)
			close(fds[i]);
		return -EPROTO;
	}
	/* the kernel could not give us all of them: out of descriptors */
	if (rsp->nfds != n || (mflags & MSG_CTRUNC)) {
		for (i = 0; i < n; i++)
			close(fds[i]);
		return -EMFILE;
	}
	return (int)n;
}

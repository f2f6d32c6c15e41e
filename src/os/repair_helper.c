/* SPDX-License-Identifier: GPL-2.0-or-later */
/* repair_helper.c - the repair helper: a process of its own that holds
 * CAP_NET_ADMIN and does nothing but turn TCP_REPAIR on and off */

/**
 * DOC: Theory of Operation
 *
 * Why a helper
 * ------------
 *
 * --migrate-repair moves TCP sockets as their kernel state (repair.c), and
 * repair mode needs CAP_NET_ADMIN. The gateway parses guest frames,
 * vhost-user messages and migration streams: it must hold no capability
 * at all, let alone the one that rewrites the host's firewall. So the
 * capability lives here, in the model of passt's passt-repair: a small
 * process forked at start-up (before the sandbox, the user switch and any
 * thread), twice and in a session of its own like the other helpers, that
 * keeps only CAP_NET_ADMIN and only its end of a SOCK_SEQPACKET
 * socketpair with the gateway.
 *
 * Its sandbox
 * -----------
 *
 * Its sandbox: no new privileges; the gateway's filesystem sandbox (an
 * empty mount namespace as root, Landlock otherwise: never a user
 * namespace of its own, where the capability would no longer reach the
 * host's sockets); every capability but CAP_NET_ADMIN gone from every set
 * (with --runas: the user and group switched, the capability kept through
 * the switch); not dumpable; and a seccomp filter of its own
 * (repairh_filter_build()) that allows recvmsg, sendmsg, close and
 * exit_group, getsockopt only for SOL_SOCKET's SO_DOMAIN, SO_TYPE and
 * SO_PROTOCOL, and setsockopt only for TCP_REPAIR. It never opens a file.
 * These hold even with --no-sandbox: the helper needs nothing more
 * (a sanitizer build has no filter, as the gateway has none there).
 *
 * Protocol
 * --------
 *
 * Once its sandbox is on it sends a struct repairh_hello (its pid; EPERM if
 * it has no CAP_NET_ADMIN, and it exits). Then each request is one message:
 * a struct repairh_req (the operation: TCP_REPAIR_ON, TCP_REPAIR_OFF or
 * TCP_REPAIR_OFF_NO_WP) with 1 to REPAIRH_BATCH sockets attached
 * (SCM_RIGHTS). For each socket it checks that it is a TCP socket
 * (SO_DOMAIN AF_INET or AF_INET6, SO_TYPE SOCK_STREAM, SO_PROTOCOL
 * IPPROTO_TCP: any other socket, unix and MPTCP ones included, is refused
 * with EPROTOTYPE, and a pipe or a file with ENOTSOCK), sets TCP_REPAIR,
 * closes its copy, and answers with a struct repairh_rep and one result per
 * socket. A malformed request (wrong size, a count that does not match the
 * sockets attached, an unknown operation) is answered EINVAL for every
 * socket that came, with nothing done. Only TCP_REPAIR itself needs the
 * capability: the queue selection and sequence numbers, the options, the
 * window, the timestamp and the queues' contents need only the socket in
 * repair mode, and the gateway does them (repair.c).
 *
 * When either side goes
 * ---------------------
 *
 * The helper exits when the gateway's end closes (the gateway exited or
 * died) or when an answer cannot be sent. The gateway notices a helper
 * that is gone (EOF, EPIPE, or no answer in REPAIRH_TIMEOUT_S): repair.c
 * logs it once and every later repair fails, so a migration leaves each
 * flow where it was.
 *
 * What a compromised gateway can do
 * ---------------------------------
 *
 * What a compromised gateway can still do through it: put its own TCP
 * sockets in repair mode, as the migration itself must (and so forge its
 * own connections' sequence numbers, or bind a port that another socket
 * holds, which repair mode's forced reuse allows). It cannot reach the
 * helper otherwise: the socket carries only these requests, seccomp
 * denies the gateway ptrace() and kill() of anything but its command,
 * and the helper is not dumpable.
 */

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/seccomp.h>

#include "os/nsh.h"
#include "os/repair_helper.h"
#include "os/sandbox.h"
#include "util/log.h"
#include "util/util.h"

#define REPAIRH_FD 3	      /* the helper's socket, after nsh_fds_reset() */
#define REPAIRH_START_MS 5000 /* how long the gateway waits for the hello */

#if defined(__x86_64__)
#define REPAIRH_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define REPAIRH_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "repair helper: add this architecture's AUDIT_ARCH_* value"
#endif

/* the low 32 bits of a 64-bit argument */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define REPAIRH_ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#else
#define REPAIRH_ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)
#endif

#define REPAIRH_LD(off) \
	((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off)))
#define REPAIRH_JEQ(v, t, f) \
	((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (v), (t), (f)))
#define REPAIRH_RET(v) ((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, (v)))

/**
 * repairh_filter_build() - the helper's seccomp filter
 * @f:		program out, REPAIRH_PROG_MAX instructions
 *
 * Laid out as blocks that each end in their own verdict, so that every
 * jump is short and forward: the architecture; getsockopt() with its
 * level and option; setsockopt() with its level and option; the calls
 * allowed by number alone; kill.
 *
 * Return: number of instructions
 */
unsigned repairh_filter_build(struct sock_filter *f)
{
	const uint32_t kill = SECCOMP_RET_KILL_PROCESS,
		       allow = SECCOMP_RET_ALLOW;
	unsigned i = 0;

	f[i++] = REPAIRH_LD(offsetof(struct seccomp_data, arch));
	f[i++] = REPAIRH_JEQ(REPAIRH_AUDIT_ARCH, 1, 0);
	f[i++] = REPAIRH_RET(kill);
	f[i++] = REPAIRH_LD(offsetof(struct seccomp_data, nr));
	/* getsockopt(fd, SOL_SOCKET, SO_DOMAIN | SO_TYPE | SO_PROTOCOL) */
	f[i++] = REPAIRH_JEQ(SYS_getsockopt, 0, 8);
	f[i++] = REPAIRH_LD(REPAIRH_ARG_LO(1));
	f[i++] = REPAIRH_JEQ(SOL_SOCKET, 0, 4);
	f[i++] = REPAIRH_LD(REPAIRH_ARG_LO(2));
	f[i++] = REPAIRH_JEQ(SO_DOMAIN, 3, 0);
	f[i++] = REPAIRH_JEQ(SO_TYPE, 2, 0);
	f[i++] = REPAIRH_JEQ(SO_PROTOCOL, 1, 0);
	f[i++] = REPAIRH_RET(kill);
	f[i++] = REPAIRH_RET(allow);
	/* setsockopt(fd, IPPROTO_TCP, TCP_REPAIR) (the nr is still in A) */
	f[i++] = REPAIRH_JEQ(SYS_setsockopt, 0, 6);
	f[i++] = REPAIRH_LD(REPAIRH_ARG_LO(1));
	f[i++] = REPAIRH_JEQ(IPPROTO_TCP, 0, 2);
	f[i++] = REPAIRH_LD(REPAIRH_ARG_LO(2));
	f[i++] = REPAIRH_JEQ(TCP_REPAIR, 1, 0);
	f[i++] = REPAIRH_RET(kill);
	f[i++] = REPAIRH_RET(allow);
	/* the rest: by number alone */
	f[i++] = REPAIRH_JEQ(SYS_recvmsg, 4, 0);
	f[i++] = REPAIRH_JEQ(SYS_sendmsg, 3, 0);
	f[i++] = REPAIRH_JEQ(SYS_close, 2, 0);
	f[i++] = REPAIRH_JEQ(SYS_exit_group, 1, 0);
	f[i++] = REPAIRH_RET(kill);
	f[i++] = REPAIRH_RET(allow);
	ASSERT(i <= REPAIRH_PROG_MAX);
	return i;
}

/**
 * repairh_one() - TCP_REPAIR on one socket, if it is a TCP socket
 * @fd:		the socket (the helper's copy)
 * @op:		TCP_REPAIR_ON, TCP_REPAIR_OFF or TCP_REPAIR_OFF_NO_WP
 *
 * Context: helper only
 * #syscalls:setup getsockopt setsockopt
 * Return: 0, or a positive errno (EPROTOTYPE: not a TCP socket; ENOTSOCK:
 * not a socket; EPERM: no capability, or a listening socket)
 */
static int repairh_one(int fd, int op)
{
	int dom = -1, type = -1, proto = -1;
	socklen_t l1 = sizeof(dom), l2 = sizeof(type), l3 = sizeof(proto);

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &l1) ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l2) ||
	    getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &l3))
		return errno;
	if ((dom != AF_INET && dom != AF_INET6) || type != SOCK_STREAM ||
	    proto != IPPROTO_TCP)
		return EPROTOTYPE;
	if (setsockopt(fd, IPPROTO_TCP, TCP_REPAIR, &op, sizeof(op)))
		return errno;
	return 0;
}

/**
 * repairh_serve() - answer requests until the gateway goes
 *
 * Context: helper only, its filter installed; never returns
 * #syscalls:setup recvmsg sendmsg close exit_group
 */
static _Noreturn void repairh_serve(void)
{
	for (;;) {
		union {
			char buf[CMSG_SPACE(sizeof(int) * REPAIRH_BATCH)];
			struct cmsghdr align;
		} u;
		struct repairh_req req = { 0 };
		struct iovec iov = { &req, sizeof(req) };
		struct msghdr mh = { .msg_iov = &iov,
				     .msg_iovlen = 1,
				     .msg_control = u.buf,
				     .msg_controllen = sizeof(u.buf) };
		int32_t res[REPAIRH_BATCH];
		struct repairh_rep rep = { 0 };
		struct iovec out[2] = { { &rep, sizeof(rep) }, { res, 0 } };
		struct msghdr om = { .msg_iov = out, .msg_iovlen = 2 };
		int fds[REPAIRH_BATCH];
		unsigned nfd = 0, i;
		struct cmsghdr *cm;
		ssize_t n;

		n = recvmsg(REPAIRH_FD, &mh, MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(0); /* the gateway is gone */
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			size_t k;

			if (cm->cmsg_level != SOL_SOCKET ||
			    cm->cmsg_type != SCM_RIGHTS)
				continue;
			k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (i = 0; i < k && nfd < REPAIRH_BATCH; i++)
				memcpy(&fds[nfd++],
				       CMSG_DATA(cm) + i * sizeof(int),
				       sizeof(int));
		}
		if (n != sizeof(req) ||
		    (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || req.n != nfd ||
		    (req.op != TCP_REPAIR_ON && req.op != TCP_REPAIR_OFF &&
		     req.op != TCP_REPAIR_OFF_NO_WP))
			rep.err = EINVAL;
		for (i = 0; i < nfd; i++) {
			res[i] = rep.err ? EINVAL : repairh_one(fds[i], req.op);
			close(fds[i]);
		}
		rep.n = nfd;
		out[1].iov_len = nfd * sizeof(res[0]);
		do
			n = sendmsg(REPAIRH_FD, &om, MSG_NOSIGNAL);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			_exit(0);
	}
}

/**
 * repairh_has_cap() - is CAP_NET_ADMIN in our effective set?
 *
 * Context: helper only
 * #syscalls:setup capget
 * Return: true if it is
 */
static bool repairh_has_cap(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[0].effective & (1U << CAP_NET_ADMIN);
}

/**
 * repairh_run() - the helper: its sandbox and filter, the hello, then serve
 * @o:		options
 *
 * Context: helper only; never returns
 * #syscalls:setup prctl getpid seccomp sendmsg exit_group
 */
static _Noreturn void repairh_run(const struct repairh_opts *o)
{
	static struct sock_filter f[REPAIRH_PROG_MAX];
	struct sandbox_conf sb = {
		.who = "repair helper",
		.runas = o->runas,
		.uid = o->uid,
		.gid = o->gid,
		.keep_net_admin = true,
		.no_userns = true,
	};
	struct repairh_hello h = { .pid = (int32_t)getpid() };
	struct iovec iov = { &h, sizeof(h) };
	const struct msghdr hm = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct sock_fprog prog = { .filter = f };

	if (sandbox_enter(&sb))
		h.err = EPERM;
	/* the gateway runs as the same user: it may not trace us */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (!h.err && !repairh_has_cap()) {
		err("repair helper: no CAP_NET_ADMIN (--migrate-repair needs "
		    "it for TCP_REPAIR: run slipway as root, or with that "
		    "capability)");
		h.err = EPERM;
	}
	prog.len = (unsigned short)repairh_filter_build(f);
	/* as the gateway's: none in a sanitizer build (its run-time makes
	 * calls of its own, sigaltstack() for one) */
	if (sandbox_sanitized())
		debug("repair helper: no seccomp filter in a sanitizer build");
	else if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)) {
		err_perror("repair helper: cannot install its seccomp filter");
		h.err = EPERM;
	}
	if (sendmsg(REPAIRH_FD, &hm, MSG_NOSIGNAL) != sizeof(h) || h.err)
		_exit(1);
	repairh_serve();
}

/**
 * repairh_start() - fork the repair helper
 * @o:		options
 * @pid:	out: the helper's process ID
 *
 * Context: set-up, before the sandbox and before any thread exists
 * #syscalls:setup socketpair fork setsid prctl rt_sigprocmask wait4 poll
 * #syscalls:setup recvfrom setsockopt close exit_group
 * Return: our end of its socket (blocking, close-on-exec, with send and
 * receive timeouts of REPAIRH_TIMEOUT_S), or -errno (-EPERM: the helper
 * has no CAP_NET_ADMIN); logged
 */
int repairh_start(const struct repairh_opts *o, pid_t *pid)
{
	struct timeval tv = { .tv_sec = REPAIRH_TIMEOUT_S };
	struct repairh_hello h = { 0 };
	struct pollfd pfd;
	int sv[2], st, ret;
	sigset_t none;
	pid_t mid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		ret = -errno;
		err_perror("repair helper: socketpair");
		return ret;
	}
	mid = fork();
	if (mid < 0) {
		ret = -errno;
		err_perror("repair helper: fork");
		close(sv[0]);
		close(sv[1]);
		return ret;
	}
	if (mid == 0) {
		setsid();
		if (fork() != 0)
			_exit(0);
		prctl(PR_SET_NAME, "slipway-repair");
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (nsh_fds_reset(sv[1], REPAIRH_FD))
			_exit(1);
		repairh_run(o);
	}
	close(sv[1]);
	while (waitpid(mid, &st, 0) < 0 && errno == EINTR)
		;
	pfd = (struct pollfd){ .fd = sv[0], .events = POLLIN };
	if (poll(&pfd, 1, REPAIRH_START_MS) != 1 ||
	    recv(sv[0], &h, sizeof(h), 0) != sizeof(h)) {
		err("repair helper: it did not start (see above)");
		close(sv[0]);
		return -ECONNRESET;
	}
	if (h.err) {
		/* its reason is logged above */
		close(sv[0]);
		return -h.err;
	}
	setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(sv[0], SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	*pid = (pid_t)h.pid;
	info("repair helper: pid %d, CAP_NET_ADMIN only, for TCP_REPAIR",
	     (int)h.pid);
	return sv[0];
}

/**
 * repairh_call() - one request to the helper, and its answer
 * @sock:	our end of the helper's socket
 * @op:		TCP_REPAIR_ON, TCP_REPAIR_OFF or TCP_REPAIR_OFF_NO_WP
 * @fds:	the sockets (they stay ours: the helper closes its copies)
 * @n:		how many: 1 to REPAIRH_BATCH
 * @res:	out: one result per socket, 0 or -errno
 *
 * Context: any thread, one request at a time on @sock (the caller locks)
 * #syscalls sendmsg recvmsg
 * Return: 0 (see @res), or -errno: the helper is gone or answered nonsense
 * (-ECONNRESET, -EPIPE, -ETIMEDOUT, -EPROTO), and no result is known
 */
int repairh_call(int sock, int op, const int *fds, unsigned n, int *res)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * REPAIRH_BATCH)];
		struct cmsghdr align;
	} u;
	struct repairh_req req = { .op = op, .n = n };
	struct iovec iov = { &req, sizeof(req) };
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = u.buf,
			     .msg_controllen = CMSG_SPACE(sizeof(int) * n) };
	int32_t got[REPAIRH_BATCH];
	struct repairh_rep rep;
	struct iovec in[2] = { { &rep, sizeof(rep) }, { got, sizeof(got) } };
	struct msghdr im = { .msg_iov = in, .msg_iovlen = 2 };
	struct cmsghdr *cm;
	unsigned i;
	ssize_t r;

	ASSERT(n >= 1 && n <= REPAIRH_BATCH);
	memset(u.buf, 0, sizeof(u.buf));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int) * n);
	memcpy(CMSG_DATA(cm), fds, sizeof(int) * n);
	do
		r = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return errno == EAGAIN ? -ETIMEDOUT : -errno;
	do
		r = recvmsg(sock, &im, MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return errno == EAGAIN ? -ETIMEDOUT : -errno;
	if (r == 0)
		return -ECONNRESET;
	if ((size_t)r != sizeof(rep) + n * sizeof(got[0]) || rep.n != n ||
	    (im.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
		return -EPROTO;
	for (i = 0; i < n; i++)
		res[i] = got[i] > 0 ? -got[i] : got[i] ? -EPROTO : 0;
	return 0;
}

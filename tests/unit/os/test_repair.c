/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_repair.c - a TCP socket into its repair record and back
 * (os/repair.c), on real sockets in a network namespace of its own, with
 * TCP_REPAIR itself done by the repair helper (os/repair_helper.c)
 *
 * Needs root (the namespace, and CAP_NET_ADMIN for the helper): exits 77
 * (skipped) without it. Once the helper runs, the test process gives up
 * CAP_NET_ADMIN itself, as the gateway holds no capability: every dump and
 * restore below works without it.
 *
 * The namespace's ephemeral range is ten ports, so connections to two
 * servers share local ports, as they do on any host with many flows.
 * test_shared_port moves one of two connections that share a port while
 * the other stays: the restored socket must bind that port again (repair
 * mode forces reuse; SO_REUSEADDR set after it had undone that, and a
 * migration in CI found EADDRINUSE). Then both
 * queues must come back byte-exact: what the peer sent that we had not
 * read, and what we sent that the peer had not yet acknowledged (here:
 * held by a zero window), and the connection must carry data both ways.
 *
 * The helper itself: it holds CAP_NET_ADMIN and nothing else, under a
 * seccomp filter; it turns repair mode on and off for TCP sockets only
 * (UDP, unix, MPTCP sockets and pipes are refused, one result per socket
 * of a batch), refuses a malformed request, and once it is gone a dump or
 * a restore fails cleanly and the socket stays as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <netinet/tcp.h>

#include "helpers.h"
#include "core/mig.h"
#include "os/repair.h"
#include "os/repair_helper.h"
#include "os/sandbox.h"
#include "util/log.h"

#define NCONN 8
#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

enum log_level log_max_level = LOG_WARN;

/* the helper: its pid, and our end of its socket (repair.c owns it) */
static pid_t helper_pid;
static int helper_fd = -1;

/**
 * logmsg() - stub: to standard error
 * @lvl:	severity
 * @with_errno:	unused
 * @fmt:	printf format
 */
void logmsg(enum log_level lvl, bool with_errno, const char *fmt, ...)
{
	va_list ap;

	(void)with_errno;
	if (lvl > log_max_level)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/**
 * logmsg_rl() - stub: logmsg(), not limited
 * @rl:		unused
 * @lvl:	severity
 * @with_errno:	unused
 * @fmt:	printf format
 */
void logmsg_rl(struct log_rl *rl, enum log_level lvl, bool with_errno,
	       const char *fmt, ...)
{
	va_list ap;

	(void)rl;
	(void)with_errno;
	if (lvl > log_max_level)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/**
 * caps() - our effective, or another process's, capability sets
 * @pid:	0: ourselves
 * @eff:	out: effective (low 32 bits)
 * @prm:	out: permitted
 */
static void caps(pid_t pid, uint32_t *eff, uint32_t *prm)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3,
						pid };
	struct __user_cap_data_struct d[2];

	assert_int_equal(syscall(SYS_capget, &hdr, d), 0);
	*eff = d[0].effective;
	*prm = d[0].permitted;
}

/**
 * drop_net_admin() - give up CAP_NET_ADMIN ourselves, as the gateway has
 *
 * Return: 0, or -1
 */
static int drop_net_admin(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3,
						0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &hdr, d))
		return -1;
	d[0].effective &= ~(1U << CAP_NET_ADMIN);
	d[0].permitted &= ~(1U << CAP_NET_ADMIN);
	d[0].inheritable &= ~(1U << CAP_NET_ADMIN);
	if (syscall(SYS_capset, &hdr, d))
		return -1;
	return prctl(PR_CAPBSET_DROP, CAP_NET_ADMIN, 0, 0, 0);
}

/**
 * status_field() - a line of /proc/PID/status
 * @pid:	process
 * @key:	e.g. "CapEff:"
 * @out:	its value, trimmed
 * @size:	room in @out
 */
static void status_field(pid_t pid, const char *key, char *out, size_t size)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	assert_non_null(f);
	*out = '\0';
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, strlen(key)))
			continue;
		snprintf(out, size, "%s", line + strlen(key) + 1);
		out[strcspn(out, "\n")] = '\0';
	}
	fclose(f);
}

/**
 * in_repair() - is the socket in repair mode?
 * @fd:	TCP socket
 *
 * Return: TCP_REPAIR's value
 */
static int in_repair(int fd)
{
	int v = -1;
	socklen_t l = sizeof(v);

	assert_int_equal(getsockopt(fd, IPPROTO_TCP, TCP_REPAIR, &v, &l), 0);
	return v;
}

/* the namespace's loopback up, and its ephemeral range ten ports */
static int ns_setup(void)
{
	struct ifreq ifr = { .ifr_flags = IFF_UP };
	int s, fd;

	if (geteuid() || unshare(CLONE_NEWNET))
		return -1;
	s = socket(AF_INET, SOCK_DGRAM, 0);
	strcpy(ifr.ifr_name, "lo");
	if (s < 0 || ioctl(s, SIOCSIFFLAGS, &ifr))
		return -1;
	close(s);
	fd = open("/proc/sys/net/ipv4/ip_local_port_range", O_WRONLY);
	if (fd < 0 || write(fd, "40000 40009", 11) != 11)
		return -1;
	close(fd);
	return 0;
}

static struct sockaddr_in lo_addr(uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	return a;
}

/* a listener whose connections take little without reading: what we
 * send them stays partly in our send queue, unacknowledged */
static int listener(uint16_t port)
{
	struct sockaddr_in a = lo_addr(port);
	int s = socket(AF_INET, SOCK_STREAM, 0), rcvbuf = 16384;

	assert_true(s >= 0);
	setsockopt(s, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(s, 64), 0);
	return s;
}

static uint16_t local_port(int s)
{
	struct sockaddr_in a;
	socklen_t l = sizeof(a);

	assert_int_equal(getsockname(s, (struct sockaddr *)&a, &l), 0);
	return ntohs(a.sin_port);
}

static int conn(uint16_t port)
{
	struct sockaddr_in a = lo_addr(port);
	int s = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(s >= 0);
	assert_int_equal(connect(s, (struct sockaddr *)&a, sizeof(a)), 0);
	return s;
}

static void fill(uint8_t *b, size_t n, uint8_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(seed + i * 7 + (i >> 8));
}

/* read exactly @n bytes (blocking on poll), compare with @want */
static void read_all(int s, const uint8_t *want, size_t n)
{
	static uint8_t got[1 << 20];
	size_t have = 0;

	assert_true(n <= sizeof(got));
	while (have < n) {
		struct pollfd p = { .fd = s, .events = POLLIN };
		ssize_t r;

		assert_int_equal(poll(&p, 1, 5000), 1);
		r = recv(s, got + have, n - have, MSG_DONTWAIT);
		if (r < 0 && errno == EAGAIN)
			continue;
		assert_true(r > 0);
		have += (size_t)r;
	}
	assert_memory_equal(got, want, n);
}

static void test_shared_port(void **state)
{
	static uint8_t rec[1 << 21], to_c[40000], from_c[300000], more[5000];
	int c1[NCONN], c2[NCONN], a1 = -1, peer, fd, i, j, pick = -1,
				  other = -1;
	/* outside the ephemeral range, which stays the connections' */
	uint16_t p1 = 30001, p2 = 30002;
	int l1 = listener(p1), l2 = listener(p2);
	struct mig_repair rp;
	struct mig_rec r;
	const uint8_t *p = rec;
	size_t len = 0, sent = 0;

	(void)state;
	for (i = 0; i < NCONN; i++) {
		c1[i] = conn(p1);
		c2[i] = conn(p2);
	}
	for (i = 0; i < NCONN && pick < 0; i++)
		for (j = 0; j < NCONN; j++)
			if (local_port(c1[i]) == local_port(c2[j])) {
				pick = i;
				other = j;
				break;
			}
	assert_true(pick >= 0); /* eight of ten ports each: some are shared */
	/* the accepted end of c1[pick] */
	for (i = 0; i < NCONN; i++) {
		struct sockaddr_in a;
		socklen_t l = sizeof(a);
		int s = accept(l1, (struct sockaddr *)&a, &l);

		assert_true(s >= 0);
		if (ntohs(a.sin_port) == local_port(c1[pick]))
			a1 = s;
	}
	assert_true(a1 >= 0);
	peer = a1;
	/* the peer sends; we do not read: our receive queue holds it */
	fill(to_c, sizeof(to_c), 1);
	assert_int_equal(send(peer, to_c, sizeof(to_c), 0), sizeof(to_c));
	/* we send more than the peer takes without reading */
	fill(from_c, sizeof(from_c), 2);
	while (sent < sizeof(from_c)) {
		ssize_t n = send(c1[pick], from_c + sent, sizeof(from_c) - sent,
				 MSG_DONTWAIT);

		if (n <= 0)
			break;
		sent += (size_t)n;
	}
	assert_true(sent > 0);
	usleep(20000); /* the queues settle (loopback) */

	fd = c1[pick];
	assert_int_equal(repair_dump(fd, rec, sizeof(rec), 0, &len), 0);
	assert_true(len > 0);
	/* c1[pick] is closed; c2[other] still holds the port */
	assert_int_equal(mig_next(&p, rec + len, &r), 1);
	assert_int_equal(r.type, MIG_REC_REPAIR);
	assert_null(mig_get_repair(&r, &rp));
	fd = repair_restore(&rp);
	if (fd < 0)
		fail_msg("repair_restore: %s", strerror(-fd));
	assert_int_equal(local_port(fd), local_port(c2[other]));

	/* everything the peer sent is still ours to read, and everything we
	 * sent reaches it, in order */
	read_all(fd, to_c, sizeof(to_c));
	read_all(peer, from_c, sent);
	/* and the connection goes on both ways */
	fill(more, sizeof(more), 3);
	assert_int_equal(send(fd, more, sizeof(more), 0), sizeof(more));
	read_all(peer, more, sizeof(more));
	fill(more, sizeof(more), 4);
	assert_int_equal(send(peer, more, sizeof(more), 0), sizeof(more));
	read_all(fd, more, sizeof(more));

	close(fd);
	close(peer);
	for (i = 0; i < NCONN; i++) {
		if (i != pick)
			close(c1[i]);
		close(c2[i]);
	}
	close(l1);
	close(l2);
}

/**
 * test_helper_caps() - the helper holds CAP_NET_ADMIN alone, under its
 * filter, with no new privileges; we hold no CAP_NET_ADMIN
 * @state:	unused
 */
static void test_helper_caps(void **state)
{
	char v[64];
	uint32_t eff, prm;

	(void)state;
	status_field(helper_pid, "CapEff:", v, sizeof(v));
	assert_string_equal(v, "0000000000001000");
	status_field(helper_pid, "CapPrm:", v, sizeof(v));
	assert_string_equal(v, "0000000000001000");
	status_field(helper_pid, "CapBnd:", v, sizeof(v));
	assert_string_equal(v, "0000000000001000");
	status_field(helper_pid, "CapInh:", v, sizeof(v));
	assert_string_equal(v, "0000000000000000");
	status_field(helper_pid, "NoNewPrivs:", v, sizeof(v));
	assert_string_equal(v, "1");
	status_field(helper_pid, "Seccomp:", v, sizeof(v));
	assert_string_equal(v, sandbox_sanitized() ? "0" : "2");
	caps(0, &eff, &prm);
	assert_false(eff & (1U << CAP_NET_ADMIN));
	assert_false(prm & (1U << CAP_NET_ADMIN));
}

/**
 * test_helper_refuses() - TCP sockets only, one result each; a malformed
 * request changes nothing
 * @state:	unused
 */
static void test_helper_refuses(void **state)
{
	int fds[6], res[6], p[2], u[2], tcp, mp, i, r;
	struct repairh_req req = { TCP_REPAIR_ON, 2 };
	struct repairh_rep rep;
	int32_t got[6];
	struct iovec iov = { &req, sizeof(req) };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} cb;
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = cb.buf,
			     .msg_controllen = sizeof(cb.buf) };
	struct iovec in[2] = { { &rep, sizeof(rep) }, { got, sizeof(got) } };
	struct msghdr im = { .msg_iov = in, .msg_iovlen = 2 };
	struct cmsghdr *cm;

	(void)state;
	tcp = socket(AF_INET6, SOCK_STREAM, 0);
	mp = socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP);
	assert_true(tcp >= 0);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, u), 0);
	fds[0] = socket(AF_INET, SOCK_DGRAM, 0);
	fds[1] = u[0];
	fds[2] = p[0];
	fds[3] = tcp;
	fds[4] = mp >= 0 ? mp : socket(AF_INET, SOCK_RAW, IPPROTO_TCP);
	fds[5] = listener(30004);
	assert_int_equal(repairh_call(helper_fd, TCP_REPAIR_ON, fds, 6, res),
			 0);
	assert_int_equal(res[0], -EPROTOTYPE);
	assert_int_equal(res[1], -EPROTOTYPE);
	assert_int_equal(res[2], -ENOTSOCK);
	assert_int_equal(res[3], 0);
	assert_int_equal(in_repair(tcp), 1);
	if (fds[4] >= 0)
		assert_int_equal(res[4], -EPROTOTYPE);
	assert_int_equal(res[5], -EPERM); /* listening: the kernel's no */
	assert_int_equal(in_repair(fds[5]), 0);
	assert_int_equal(
		repairh_call(helper_fd, TCP_REPAIR_OFF_NO_WP, &tcp, 1, res), 0);
	assert_int_equal(res[0], 0);
	assert_int_equal(in_repair(tcp), 0);

	/* a request whose count is not what came: EINVAL, nothing done */
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &tcp, sizeof(int));
	assert_int_equal(sendmsg(helper_fd, &mh, 0), sizeof(req));
	r = (int)recvmsg(helper_fd, &im, 0);
	assert_int_equal(r, sizeof(rep) + sizeof(int32_t));
	assert_int_equal(rep.err, EINVAL);
	assert_int_equal(rep.n, 1);
	assert_int_equal(got[0], EINVAL);
	assert_int_equal(in_repair(tcp), 0);
	/* an operation that is none of the three */
	req.op = 7;
	req.n = 1;
	assert_int_equal(sendmsg(helper_fd, &mh, 0), sizeof(req));
	r = (int)recvmsg(helper_fd, &im, 0);
	assert_int_equal(r, sizeof(rep) + sizeof(int32_t));
	assert_int_equal(rep.err, EINVAL);
	assert_int_equal(in_repair(tcp), 0);

	for (i = 0; i < 6; i++)
		if (fds[i] >= 0 && i != 1 && i != 2)
			close(fds[i]);
	close(p[0]);
	close(p[1]);
	close(u[0]);
	close(u[1]);
}

/**
 * filter_child() - in a child under the helper's filter, make one call
 * @what:	0: getsockopt SO_DOMAIN, 1: setsockopt TCP_REPAIR, 2:
 *		setsockopt TCP_NODELAY, 3: getsockopt SO_RCVBUF, 4: socket,
 *		5: openat, 6: setsockopt SOL_SOCKET with TCP_REPAIR's number
 *
 * Return: the child's wait status
 */
static int filter_child(int what)
{
	static struct sock_filter f[REPAIRH_PROG_MAX];
	int st = 0, s = socket(AF_INET, SOCK_STREAM, 0), v = 0;
	socklen_t l = sizeof(v);
	pid_t pid;

	assert_true(s >= 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct sock_fprog prog = { .filter = f };

		prog.len = (unsigned short)repairh_filter_build(f);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
			_exit(100);
		switch (what) {
		case 0:
			getsockopt(s, SOL_SOCKET, SO_DOMAIN, &v, &l);
			break;
		case 1:
			setsockopt(s, IPPROTO_TCP, TCP_REPAIR, &v, sizeof(v));
			break;
		case 2:
			setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &v, sizeof(v));
			break;
		case 3:
			getsockopt(s, SOL_SOCKET, SO_RCVBUF, &v, &l);
			break;
		case 4:
			syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
			break;
		case 5:
			syscall(SYS_openat, AT_FDCWD, "/", O_RDONLY);
			break;
		case 6:
			setsockopt(s, SOL_SOCKET, TCP_REPAIR, &v, sizeof(v));
			break;
		}
		syscall(SYS_exit_group, 0);
	}
	close(s);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return st;
}

/**
 * test_helper_filter() - the helper's own seccomp filter, by the kernel
 * @state:	unused
 */
static void test_helper_filter(void **state)
{
	int ok[] = { 0, 1 }, bad[] = { 2, 3, 4, 5, 6 };
	unsigned i;
	int st;

	(void)state;
	if (sandbox_sanitized())
		skip(); /* the sanitizer's run-time makes calls of its own */
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		st = filter_child(ok[i]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		st = filter_child(bad[i]);
		assert_true(WIFSIGNALED(st));
		assert_int_equal(WTERMSIG(st), SIGSYS);
	}
}

/**
 * test_helper_gone() - a helper killed: dumps and restores fail, the
 * socket stays as it was and usable, and the helper's death is noticed
 * @state:	unused
 */
static void test_helper_gone(void **state)
{
	static uint8_t rec[1 << 16];
	uint16_t port = 30003;
	int l = listener(port), c, a, st;
	struct mig_repair rp = { 0 };
	size_t len = 0;
	char b = 'x';

	(void)state;
	c = conn(port);
	a = accept(l, NULL, NULL);
	assert_true(a >= 0);
	assert_int_equal(kill(helper_pid, SIGKILL), 0);
	/* not our child (it left our session): wait until it is gone */
	for (st = 0; st < 500 && !kill(helper_pid, 0); st++)
		usleep(10000);
	st = repair_dump(c, rec, sizeof(rec), 0, &len);
	assert_true(st == -EPIPE || st == -ECONNRESET);
	assert_int_equal(in_repair(c), 0);
	assert_int_equal(send(c, &b, 1, 0), 1);
	assert_int_equal(recv(a, &b, 1, 0), 1);
	/* and from then on, at once */
	rp.mss = 1460;
	assert_true(repair_restore(&rp) < 0);
	assert_int_equal(repair_dump(c, rec, sizeof(rec), 0, &len), -EPERM);
	close(a);
	close(c);
	close(l);
}

/**
 * main() - run the repair tests in a network namespace of their own
 *
 * Return: 0 if all passed, 77 without the privileges, else the number of
 * failures
 */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_helper_caps),
		cmocka_unit_test(test_shared_port),
		cmocka_unit_test(test_helper_refuses),
		cmocka_unit_test(test_helper_filter),
		cmocka_unit_test(test_helper_gone),
	};
	const struct repairh_opts o = { 0 };
	int ret;

	if (ns_setup()) {
		printf("SKIP: needs root for a network namespace and repair "
		       "mode\n");
		return 77;
	}
	helper_fd = repairh_start(&o, &helper_pid);
	if (helper_fd < 0) {
		printf("repair helper: %s\n", strerror(-helper_fd));
		return 1;
	}
	repair_init(helper_fd);
	if (drop_net_admin()) {
		perror("cannot drop CAP_NET_ADMIN");
		return 1;
	}
	ret = cmocka_run_group_tests_name("repair", tests, NULL, NULL);
	repair_fini();
	return ret;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_seccomp.c - the generated allowlist, as the BPF program slipway loads
 *
 * The program built by seccomp_filter_build() is run two ways: by a small
 * interpreter of the instructions it uses, over every system call number
 * (each listed one allowed, every other denied, a foreign architecture
 * killed; the calls with argument rules allowed only with the arguments
 * those name), and by the kernel, in forked children that install it: an
 * allowed call returns, a call off the list (ptrace, mount, an x32-ABI
 * number) or with refused arguments (an ioctl request, a socket family,
 * PROT_EXEC, kill() of another process, a setsockopt() level and option
 * that no code after set-up uses) kills the child with SIGSYS, and in log
 * mode returns. Set-up-only calls are not on the list.
 *
 * setsockopt()'s pairs come from the calls in the source (seccomp-gen.sh);
 * test_sockopt_list() pins them, so that a new one is seen in review: add
 * it to sockopt_expected[] (and to the man page's list) when it is meant.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/if_tun.h>
#include <linux/seccomp.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <cmocka.h>

#include "os/seccomp.h"
#include "seccomp_allow.h"
#include "util/util.h"

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#endif

/* the same sanitizer test as sandbox.c: the children would trip on it */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif
#ifndef UNDER_SANITIZER
#define UNDER_SANITIZER 0
#endif

/**
 * bpf_run() - interpret the classic BPF subset seccomp_filter_build() emits
 * @f:		program
 * @len:	instructions
 * @d:		the call
 *
 * Return: the program's return value (fails the test on anything else)
 */
static uint32_t bpf_run(const struct sock_filter *f, unsigned len,
			const struct seccomp_data *d)
{
	uint32_t a = 0;
	unsigned pc = 0, steps = 0;

	while (pc < len && steps++ < len) {
		const struct sock_filter *i = &f[pc];

		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			assert_true(i->k + 4 <= sizeof(*d));
			memcpy(&a, (const char *)d + i->k, 4);
			pc++;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += 1 + (a == i->k ? i->jt : i->jf);
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += 1 + ((a & i->k) ? i->jt : i->jf);
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			pc += 1 + (a >= i->k ? i->jt : i->jf);
			break;
		case BPF_JMP | BPF_JA:
			pc += 1 + i->k;
			break;
		case BPF_RET | BPF_K:
			return i->k;
		default:
			fail_msg("unexpected instruction 0x%x at %u", i->code,
				 pc);
		}
	}
	fail_msg("ran off the end of the program (pc %u of %u)", pc, len);
	return 0;
}

/**
 * listed() - is @nr in the generated allowlist?
 * @nr:	system call number
 *
 * Return: true if it is
 */
static bool listed(long nr)
{
	size_t i;

	for (i = 0; i < sizeof(seccomp_allow) / sizeof(seccomp_allow[0]); i++)
		if (seccomp_allow[i].nr == nr)
			return true;
	return false;
}

/* the calls allowed only with some arguments (seccomp.c) */
static const long arg_checked[] = {
	SYS_ioctl, SYS_socket, SYS_mmap,       SYS_mprotect,
	SYS_kill,  SYS_tgkill, SYS_setsockopt,
};

/* iptables' set call (linux/netfilter_ipv4/ip_tables.h): never ours */
#define IPT_SO_SET_REPLACE 64

/**
 * struct sockopt_pair - a (level, option) pair for setsockopt()
 * @level:	level
 * @opt:	option
 */
struct sockopt_pair {
	int level, opt;
};

/* what the code after set-up sets (seccomp-gen.sh reads the calls): a new
 * pair fails test_sockopt_list() until it is added here, on purpose */
static const struct sockopt_pair sockopt_expected[] = {
	{ SOL_SOCKET, SO_REUSEADDR },
	{ SOL_SOCKET, SO_LINGER },
	{ SOL_SOCKET, SO_PEEK_OFF },
	{ SOL_SOCKET, SO_BINDTODEVICE },
	{ SOL_SOCKET, SO_SNDTIMEO },
	{ SOL_SOCKET, SO_SNDBUF },
	{ SOL_SOCKET, SO_RCVBUF },
	{ SOL_SOCKET, SO_SNDBUFFORCE },
	{ SOL_SOCKET, SO_RCVBUFFORCE },
	{ IPPROTO_TCP, TCP_NODELAY },
	{ IPPROTO_TCP, TCP_REPAIR_QUEUE },
	{ IPPROTO_TCP, TCP_QUEUE_SEQ },
	{ IPPROTO_TCP, TCP_REPAIR_OPTIONS },
	{ IPPROTO_TCP, TCP_REPAIR_WINDOW },
	{ IPPROTO_TCP, TCP_TIMESTAMP },
	{ IPPROTO_IP, IP_RECVERR },
	{ IPPROTO_IPV6, IPV6_V6ONLY },
	{ IPPROTO_IPV6, IPV6_RECVERR },
	{ SOL_UDP, UDP_GRO },
	{ SOL_SOCKET, SO_RXQ_OVFL },
};

/* pairs that must stay refused: what a compromised gateway would want */
static const struct sockopt_pair sockopt_refused[] = {
	{ IPPROTO_IP, IP_TRANSPARENT },
	{ IPPROTO_IPV6, IPV6_TRANSPARENT },
	{ SOL_SOCKET, SO_MARK },
	{ IPPROTO_IP, IPT_SO_SET_REPLACE },
	{ IPPROTO_TCP, TCP_REPAIR },
	{ SOL_SOCKET, SO_DEBUG },
	{ IPPROTO_IP, IP_HDRINCL },
	{ IPPROTO_IP, IP_FREEBIND },
	{ IPPROTO_IPV6, IPV6_FREEBIND },
	{ SOL_SOCKET, SO_ATTACH_FILTER },
	{ IPPROTO_TCP, TCP_ULP },
	{ SOL_SOCKET, SO_PRIORITY },
	/* a listed option's number at another level */
	{ IPPROTO_IP, SO_LINGER },
	{ IPPROTO_TCP, SO_REUSEADDR },
	{ SOL_SOCKET, TCP_REPAIR_OPTIONS },
	{ IPPROTO_IPV6, IP_RECVERR },
	{ IPPROTO_IP, TCP_REPAIR_WINDOW },
};

#define KILL_PID 4321
#define SELF 1234

/**
 * checked() - is @nr one of arg_checked[]?
 * @nr:	system call number
 *
 * Return: true if it is
 */
static bool checked(long nr)
{
	size_t i;

	for (i = 0; i < sizeof(arg_checked) / sizeof(arg_checked[0]); i++)
		if (arg_checked[i] == nr)
			return true;
	return false;
}

/**
 * build() - the program, as sandbox.c has it built
 * @f:		program out
 * @deny:	action for a call refused
 * @kill_pid:	the command's PID, or 0
 *
 * Return: instructions
 */
static unsigned build(struct sock_filter *f, uint32_t deny, pid_t kill_pid)
{
	struct seccomp_opts o = {
		.deny = deny,
		.kill_pid = kill_pid,
		.self = SELF,
	};

	return seccomp_filter_build(f, &o);
}

/**
 * run() - what the program says to one call
 * @f:		program
 * @len:	instructions
 * @nr:		system call
 * @a0:		first argument
 * @a1:		second argument
 * @a2:		third argument
 *
 * Return: the program's verdict
 */
static uint32_t run(const struct sock_filter *f, unsigned len, long nr,
		    uint64_t a0, uint64_t a1, uint64_t a2)
{
	struct seccomp_data d;

	memset(&d, 0, sizeof(d));
	d.arch = ARCH;
	d.nr = (int)nr;
	d.args[0] = a0;
	d.args[1] = a1;
	d.args[2] = a2;
	return bpf_run(f, len, &d);
}

/**
 * test_every_number() - each number in the list is allowed, every other
 * denied with the action asked for; another architecture is killed
 * @state:	unused
 */
static void test_every_number(void **state)
{
	static struct sock_filter f[SECCOMP_PROG_MAX];
	struct seccomp_data d;
	unsigned len, n = 0;
	long nr;

	(void)state;
	len = build(f, SECCOMP_RET_KILL_PROCESS, KILL_PID);
	assert_true(len > 4 && len < SECCOMP_PROG_MAX);
	memset(&d, 0, sizeof(d));
	d.arch = ARCH;
	for (nr = 0; nr < 1024; nr++) {
		n += listed(nr);
		if (checked(nr))
			continue; /* test_args() */
		d.nr = (int)nr;
		assert_int_equal(bpf_run(f, len, &d),
				 listed(nr) ? SECCOMP_RET_ALLOW :
					      SECCOMP_RET_KILL_PROCESS);
	}
	assert_int_equal(n, seccomp_allow_count());
	d.nr = 0x40000000 | SYS_getpid; /* x32 */
	assert_int_equal(bpf_run(f, len, &d), SECCOMP_RET_KILL_PROCESS);
	d.nr = -1;
	assert_int_equal(bpf_run(f, len, &d), SECCOMP_RET_KILL_PROCESS);

	len = build(f, SECCOMP_RET_LOG, 0);
	d.nr = SYS_ptrace;
	assert_int_equal(bpf_run(f, len, &d), SECCOMP_RET_LOG);
	d.nr = SYS_getpid;
	d.arch = AUDIT_ARCH_I386;
	assert_int_equal(bpf_run(f, len, &d), SECCOMP_RET_KILL_PROCESS);
}

/**
 * test_args() - the argument rules: what passes, what is refused
 * @state:	unused
 */
static void test_args(void **state)
{
	static struct sock_filter f[SECCOMP_PROG_MAX];
	const uint32_t A = SECCOMP_RET_ALLOW, K = SECCOMP_RET_KILL_PROCESS;
	unsigned len;

	(void)state;
	assert_true(listed(SYS_ioctl) && listed(SYS_socket) &&
		    listed(SYS_kill));
	assert_int_equal(seccomp_arg_count(), 7);
	len = build(f, K, KILL_PID);
	/* ioctl: the requests in use, nothing else (TUNSETIFF: set-up) */
	assert_int_equal(run(f, len, SYS_ioctl, 5, SIOCOUTQ, 0), A);
	assert_int_equal(run(f, len, SYS_ioctl, 5, SIOCGIFINDEX, 0), A);
	assert_int_equal(run(f, len, SYS_ioctl, 5, TCGETS, 0), A);
	assert_int_equal(run(f, len, SYS_ioctl, 5, TUNSETIFF, 0), K);
	assert_int_equal(run(f, len, SYS_ioctl, 5, TIOCSTI, 0), K);
	assert_int_equal(run(f, len, SYS_ioctl, 5, 0, 0), K);
	/* the kernel reads only the low 32 bits of the request: so do we */
	assert_int_equal(run(f, len, SYS_ioctl, 5, (1ULL << 32) | SIOCOUTQ, 0),
			 A);
	assert_int_equal(run(f, len, SYS_ioctl, 5, (1ULL << 32) | TIOCSTI, 0),
			 K);
	/* socket families */
	assert_int_equal(run(f, len, SYS_socket, AF_INET, SOCK_STREAM, 0), A);
	assert_int_equal(run(f, len, SYS_socket, AF_INET6, SOCK_DGRAM, 0), A);
	assert_int_equal(run(f, len, SYS_socket, AF_UNIX, SOCK_DGRAM, 0), A);
	assert_int_equal(run(f, len, SYS_socket, AF_NETLINK, SOCK_RAW, 0), K);
	assert_int_equal(run(f, len, SYS_socket, AF_PACKET, SOCK_RAW, 0), K);
	assert_int_equal(run(f, len, SYS_socket, AF_VSOCK, SOCK_STREAM, 0), K);
	/* no executable mappings */
	assert_int_equal(run(f, len, SYS_mmap, 0, 4096, PROT_READ | PROT_WRITE),
			 A);
	assert_int_equal(run(f, len, SYS_mmap, 0, 4096, PROT_NONE), A);
	assert_int_equal(run(f, len, SYS_mmap, 0, 4096, PROT_READ | PROT_EXEC),
			 K);
	assert_int_equal(run(f, len, SYS_mprotect, 0, 4096, PROT_READ), A);
	assert_int_equal(run(f, len, SYS_mprotect, 0, 4096, PROT_EXEC), K);
	/* kill: SIGTERM to the command, nothing else */
	assert_int_equal(run(f, len, SYS_kill, KILL_PID, SIGTERM, 0), A);
	assert_int_equal(run(f, len, SYS_kill, KILL_PID, SIGKILL, 0), K);
	assert_int_equal(run(f, len, SYS_kill, 1, SIGTERM, 0), K);
	assert_int_equal(run(f, len, SYS_kill, (uint32_t)-1, SIGTERM, 0), K);
	assert_int_equal(run(f, len, SYS_kill, 0, SIGTERM, 0), K);
	/* tgkill: our own threads */
	assert_int_equal(run(f, len, SYS_tgkill, SELF, 77, SIGABRT), A);
	assert_int_equal(run(f, len, SYS_tgkill, 1, 1, SIGTERM), K);
	/* no command: no kill() at all, not even to "pid 0", our group */
	len = build(f, K, 0);
	assert_int_equal(run(f, len, SYS_kill, 0, SIGTERM, 0), K);
	assert_int_equal(run(f, len, SYS_socket, AF_INET, SOCK_STREAM, 0), A);
	/* --seccomp-log: logged instead */
	len = build(f, SECCOMP_RET_LOG, KILL_PID);
	assert_int_equal(run(f, len, SYS_socket, AF_NETLINK, SOCK_RAW, 0),
			 SECCOMP_RET_LOG);
}

/**
 * pair_listed() - is (@level, @opt) in the generated seccomp_sockopt[]?
 * @level:	level
 * @opt:	option
 *
 * Return: true if it is
 */
static bool pair_listed(int level, int opt)
{
	unsigned i;

	for (i = 0; i < SECCOMP_SOCKOPT_N; i++)
		if (seccomp_sockopt[i].level == level &&
		    seccomp_sockopt[i].opt == opt)
			return true;
	return false;
}

/**
 * test_sockopt_list() - the generated pairs are exactly the expected ones
 * @state:	unused
 */
static void test_sockopt_list(void **state)
{
	unsigned i, j;

	(void)state;
	for (i = 0; i < SECCOMP_SOCKOPT_N; i++) {
		bool known = false;

		for (j = 0; j < ARRAY_SIZE(sockopt_expected); j++)
			known |= seccomp_sockopt[i].level ==
					 sockopt_expected[j].level &&
				 seccomp_sockopt[i].opt ==
					 sockopt_expected[j].opt;
		if (!known)
			fail_msg("setsockopt %s: a new pair; if it is meant, "
				 "add "
				 "it to sockopt_expected[] and to the man page",
				 seccomp_sockopt[i].name);
	}
	for (j = 0; j < ARRAY_SIZE(sockopt_expected); j++)
		if (!pair_listed(sockopt_expected[j].level,
				 sockopt_expected[j].opt))
			fail_msg("sockopt_expected[%u] is no longer used: "
				 "remove "
				 "it (and from the man page)",
				 j);
	for (j = 0; j < ARRAY_SIZE(sockopt_refused); j++)
		assert_false(pair_listed(sockopt_refused[j].level,
					 sockopt_refused[j].opt));
}

/**
 * test_sockopt_args() - setsockopt() passes with a listed pair only
 * @state:	unused
 */
static void test_sockopt_args(void **state)
{
	static struct sock_filter f[SECCOMP_PROG_MAX];
	const uint32_t A = SECCOMP_RET_ALLOW, K = SECCOMP_RET_KILL_PROCESS;
	unsigned len, i;

	(void)state;
	assert_true(listed(SYS_setsockopt));
	len = build(f, K, KILL_PID);
	for (i = 0; i < SECCOMP_SOCKOPT_N; i++)
		assert_int_equal(run(f, len, SYS_setsockopt, 5,
				     (uint32_t)seccomp_sockopt[i].level,
				     (uint32_t)seccomp_sockopt[i].opt),
				 A);
	for (i = 0; i < ARRAY_SIZE(sockopt_refused); i++)
		assert_int_equal(run(f, len, SYS_setsockopt, 5,
				     (uint32_t)sockopt_refused[i].level,
				     (uint32_t)sockopt_refused[i].opt),
				 K);
	/* only the low 32 bits count, as for the kernel's int */
	assert_int_equal(run(f, len, SYS_setsockopt, 5,
			     (1ULL << 32) | SOL_SOCKET, SO_LINGER),
			 A);
	assert_int_equal(run(f, len, SYS_setsockopt, 5, SOL_SOCKET,
			     (1ULL << 32) | SO_MARK),
			 K);
	/* --seccomp-log */
	len = build(f, SECCOMP_RET_LOG, KILL_PID);
	assert_int_equal(run(f, len, SYS_setsockopt, 5, IPPROTO_IP,
			     IP_TRANSPARENT),
			 SECCOMP_RET_LOG);
}

/**
 * test_list_shape() - what must and must not be on the list
 * @state:	unused
 */
static void test_list_shape(void **state)
{
	(void)state;
	/* the data path and the base list */
	assert_true(listed(SYS_epoll_wait));
	assert_true(listed(SYS_read));
	assert_true(listed(SYS_futex));
	assert_true(listed(SYS_exit_group));
	/* set-up only (#syscalls:setup), or nobody's */
	assert_false(listed(SYS_mount));
	assert_false(listed(SYS_unshare));
	assert_false(listed(SYS_setns));
	assert_false(listed(SYS_execve));
	assert_false(listed(SYS_ptrace));
	assert_false(listed(SYS_clone));
	/* made while shards, the DNS forwarder and the control thread are
	 * set up, never after */
	assert_false(listed(SYS_epoll_create1));
	assert_false(listed(SYS_timerfd_create));
	assert_false(listed(SYS_inotify_init1));
	assert_false(listed(SYS_eventfd2));
	/* resolv.conf is watched by its reader (resolvh.c), not by us */
	assert_false(listed(SYS_inotify_add_watch));
	assert_false(listed(SYS_inotify_rm_watch));
#ifdef SYS_readlink
	assert_false(listed(SYS_readlink));
#endif
}

/* a PID no process has (above PID_MAX_LIMIT) */
#define NO_PID 0x3ffffff0

/**
 * in_child() - run @what in a child that installed the filter first
 * @log:	--seccomp-log mode
 * @what:	0: getpid, 1: ptrace, 2: mount, 3: x32 getpid, 4: ioctl
 *		TUNSETIFF, 5: ioctl SIOCOUTQ, 6: mmap PROT_EXEC, 7: mmap
 *		PROT_READ, 8: socket AF_NETLINK, 9: socket AF_INET, 10: kill
 *		of the parent (signal 0), 11: kill of the command (NO_PID),
 *		12: mprotect PROT_EXEC, 13: setsockopt IP_TRANSPARENT, 14:
 *		setsockopt SO_LINGER, 15: setsockopt SO_MARK, 16: setsockopt
 *		TCP_REPAIR
 *
 * Return: the child's wait status (exit 0: the call returned as expected)
 */
static int in_child(bool log, int what)
{
	int st = 0;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		long r = 0;
		void *p;

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    seccomp_install(log, NO_PID))
			_exit(100);
		switch (what) {
		case 0:
			r = syscall(SYS_getpid) == getpid() ? 0 : -1;
			break;
		case 1:
			r = syscall(SYS_ptrace, PTRACE_PEEKUSER, 1, NULL, NULL);
			r = 0;
			break;
		case 2:
			r = syscall(SYS_mount, "none", "/nonexistent", "tmpfs",
				    0, NULL);
			r = 0;
			break;
		case 3:
			syscall(0x40000000 | SYS_getpid);
			break;
		case 4:
			r = syscall(SYS_ioctl, -1, TUNSETIFF, NULL) < 0 &&
					    errno == EBADF ?
				    0 :
				    -1;
			break;
		case 5:
			r = syscall(SYS_ioctl, -1, SIOCOUTQ, NULL) < 0 &&
					    errno == EBADF ?
				    0 :
				    -1;
			break;
		case 6:
		case 7:
			p = mmap(NULL, 4096,
				 what == 6 ? PROT_READ | PROT_EXEC : PROT_READ,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			r = p == MAP_FAILED ? -1 : 0;
			break;
		case 8:
			r = syscall(SYS_socket, AF_NETLINK, SOCK_RAW, 0) < 0;
			r = 0;
			break;
		case 9:
			r = syscall(SYS_socket, AF_INET, SOCK_DGRAM, 0) < 0;
			break;
		case 10:
			r = syscall(SYS_kill, getppid(), 0);
			r = 0;
			break;
		case 11:
			r = syscall(SYS_kill, NO_PID, SIGTERM) < 0 &&
					    errno == ESRCH ?
				    0 :
				    -1;
			break;
		case 13:
		case 14:
		case 15:
		case 16: {
			static const int lv[] = { IPPROTO_IP, SOL_SOCKET,
						  SOL_SOCKET, IPPROTO_TCP };
			static const int op[] = { IP_TRANSPARENT, SO_LINGER,
						  SO_MARK, TCP_REPAIR };
			struct linger lg = { 0, 0 };
			int one = 1;

			r = syscall(SYS_setsockopt, -1, lv[what - 13],
				    op[what - 13],
				    what == 14 ? (void *)&lg : (void *)&one,
				    what == 14 ? sizeof(lg) : sizeof(one)) <
						    0 &&
					    errno == EBADF ?
				    0 :
				    -1;
			break;
		}
		case 12:
			p = mmap(NULL, 4096, PROT_READ,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			r = p != MAP_FAILED &&
					    !mprotect(p, 4096,
						      PROT_READ | PROT_EXEC) ?
				    0 :
				    -1;
			break;
		}
		_exit(r ? 101 : 0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return st;
}

/**
 * expect_exit0() - the child made its call and exited 0
 * @st:	wait status
 */
static void expect_exit0(int st)
{
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/**
 * expect_sigsys() - the kernel killed the child for its call
 * @st:	wait status
 */
static void expect_sigsys(int st)
{
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSYS);
}

/**
 * test_kernel() - the kernel agrees: allowed calls return, others kill
 * @state:	unused
 */
static void test_kernel(void **state)
{
	(void)state;
	if (UNDER_SANITIZER)
		skip(); /* the sanitizer's run-time makes calls of its own */
	expect_exit0(in_child(false, 0));
	expect_sigsys(in_child(false, 1));
	expect_sigsys(in_child(false, 2));
	expect_sigsys(in_child(false, 3));
	/* argument rules */
	expect_sigsys(in_child(false, 4));
	expect_exit0(in_child(false, 5));
	expect_sigsys(in_child(false, 6));
	expect_exit0(in_child(false, 7));
	expect_sigsys(in_child(false, 8));
	expect_exit0(in_child(false, 9));
	expect_sigsys(in_child(false, 10));
	expect_exit0(in_child(false, 11));
	expect_sigsys(in_child(false, 12));
	expect_sigsys(in_child(false, 13));
	expect_exit0(in_child(false, 14));
	expect_sigsys(in_child(false, 15));
	expect_sigsys(in_child(false, 16));
	/* --seccomp-log: logged, and the call goes on */
	expect_exit0(in_child(true, 1));
	expect_exit0(in_child(true, 8));
	expect_exit0(in_child(true, 13));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_number),
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_sockopt_list),
		cmocka_unit_test(test_sockopt_args),
		cmocka_unit_test(test_list_shape),
		cmocka_unit_test(test_kernel),
	};

	return cmocka_run_group_tests_name("seccomp", tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_seccomp.c - the generated allowlist, as the BPF program slipway loads
 *
 * The program built by seccomp_filter_build() is run two ways: by a small
 * interpreter of the instructions it uses, over every system call number
 * (each listed one allowed, every other denied, a foreign architecture
 * killed), and by the kernel, in forked children that install it: an
 * allowed call returns, a call off the list (ptrace, mount, an x32-ABI
 * number) kills the child with SIGSYS, and in log mode returns.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/seccomp.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <cmocka.h>

#include "host/seccomp.h"
#include "seccomp_allow.h"

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
		case BPF_JMP | BPF_JGE | BPF_K:
			pc += 1 + (a >= i->k ? i->jt : i->jf);
			break;
		case BPF_JMP | BPF_JA:
			pc += 1 + i->k;
			break;
		case BPF_RET | BPF_K:
			return i->k;
		default:
			fail_msg("unexpected instruction 0x%x at %u", i->code, pc);
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
	len = seccomp_filter_build(f, SECCOMP_RET_KILL_PROCESS);
	assert_true(len > 4 && len < SECCOMP_PROG_MAX);
	memset(&d, 0, sizeof(d));
	d.arch = ARCH;
	for (nr = 0; nr < 1024; nr++) {
		d.nr = (int)nr;
		assert_int_equal(bpf_run(f, len, &d),
				 listed(nr) ? SECCOMP_RET_ALLOW :
					      SECCOMP_RET_KILL_PROCESS);
		n += listed(nr);
	}
	assert_int_equal(n, seccomp_allow_count());
	d.nr = 0x40000000 | SYS_getpid; /* x32 */
	assert_int_equal(bpf_run(f, len, &d), SECCOMP_RET_KILL_PROCESS);
	d.nr = -1;
	assert_int_equal(bpf_run(f, len, &d), SECCOMP_RET_KILL_PROCESS);

	len = seccomp_filter_build(f, SECCOMP_RET_LOG);
	d.nr = SYS_ptrace;
	assert_int_equal(bpf_run(f, len, &d), SECCOMP_RET_LOG);
	d.nr = SYS_getpid;
	d.arch = AUDIT_ARCH_I386;
	assert_int_equal(bpf_run(f, len, &d), SECCOMP_RET_KILL_PROCESS);
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
}

/**
 * in_child() - run @what in a child that installed the filter first
 * @log:	--seccomp-log mode
 * @what:	0: getpid, 1: ptrace, 2: mount, 3: x32 getpid
 *
 * Return: the child's wait status
 */
static int in_child(bool log, int what)
{
	int st = 0;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		long r = 0;

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    seccomp_install(log))
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
		}
		_exit(r ? 101 : 0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return st;
}

/**
 * test_kernel() - the kernel agrees: allowed calls return, others kill
 * @state:	unused
 */
static void test_kernel(void **state)
{
	int st;

	(void)state;
	if (UNDER_SANITIZER)
		skip(); /* the sanitizer's run-time makes calls of its own */
	st = in_child(false, 0);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	st = in_child(false, 1);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSYS);
	st = in_child(false, 2);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSYS);
	st = in_child(false, 3);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSYS);
	/* --seccomp-log: logged, and the call goes on */
	st = in_child(true, 1);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_number),
		cmocka_unit_test(test_list_shape),
		cmocka_unit_test(test_kernel),
	};

	return cmocka_run_group_tests_name("seccomp", tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seccomp.c - the system call allowlist as a BPF program, and installing it */

/**
 * DOC: Theory of Operation
 *
 * The allowlist is build output: tools/seccomp-gen.sh collects the names on
 * every "#syscalls" line in src/ (those tagged "#syscalls:setup" are made
 * only before the sandbox and stay out) plus a base list for what libc does
 * on our behalf, and writes seccomp_allow.h. Here the numbers are sorted
 * and laid out as a binary search over classic BPF:
 *
 *	load arch; arch == ours ? next : kill
 *	load nr
 *	node:	nr >= pivot ? (jump over the left half) : left half
 *	leaf:	up to SECCOMP_LEAF tests nr == n -> allow; else deny
 *
 * Conditional jumps in classic BPF reach at most 255 instructions forward,
 * so every leaf carries its own "return allow" and "return deny", and a
 * node skips its left half with an unconditional jump (32-bit offset): the
 * program stays valid however long the list grows, and a call costs about
 * log2(n) + 4 instructions.
 */

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/seccomp.h>

#include "host/seccomp.h"
#include "seccomp_allow.h"
#include "util/util.h"

#if defined(__x86_64__)
#define SECCOMP_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SECCOMP_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "seccomp: add this architecture's AUDIT_ARCH_* value"
#endif

#define SECCOMP_LEAF 4 /* numbers tested one by one at the bottom */
#define SECCOMP_NR_MAX ARRAY_SIZE(seccomp_allow)

/**
 * seccomp_cmp() - qsort order of system call numbers
 * @a:	one
 * @b:	other
 *
 * Return: <0, 0, >0
 */
static int seccomp_cmp(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/**
 * seccomp_nrs() - the allowlist's numbers, sorted, duplicates removed
 * @nr:		output, SECCOMP_NR_MAX entries
 *
 * Return: how many
 */
static unsigned seccomp_nrs(long *nr)
{
	unsigned i, n = 0;

	for (i = 0; i < SECCOMP_NR_MAX; i++)
		nr[i] = seccomp_allow[i].nr;
	qsort(nr, SECCOMP_NR_MAX, sizeof(*nr), seccomp_cmp);
	for (i = 0; i < SECCOMP_NR_MAX; i++)
		if (!n || nr[n - 1] != nr[i])
			nr[n++] = nr[i];
	return n;
}

unsigned seccomp_allow_count(void)
{
	long nr[SECCOMP_NR_MAX];

	return seccomp_nrs(nr);
}

/**
 * seccomp_tree_len() - instructions seccomp_tree() emits for @n numbers
 * @n:	count
 *
 * Return: instructions
 */
static unsigned seccomp_tree_len(unsigned n)
{
	if (n <= SECCOMP_LEAF)
		return n + 2;
	return 2 + seccomp_tree_len(n / 2) + seccomp_tree_len(n - n / 2);
}

/**
 * seccomp_tree() - emit the search over @nr[0..@n) (the number is in A)
 * @f:		where to write
 * @nr:		sorted numbers
 * @n:		how many (at least 1)
 * @deny:	return value for a miss
 *
 * Return: instructions written
 */
static unsigned seccomp_tree(struct sock_filter *f, const long *nr, unsigned n,
			     uint32_t deny)
{
	unsigned i, l, left;

	if (n <= SECCOMP_LEAF) {
		for (i = 0; i < n; i++) {
			struct sock_filter jeq = BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							  (uint32_t)nr[i],
							  (uint8_t)(n - i), 0);
			f[i] = jeq;
		}
		f[n] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, deny);
		f[n + 1] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
							SECCOMP_RET_ALLOW);
		return n + 2;
	}
	left = n / 2;
	l = seccomp_tree_len(left);
	/* nr >= pivot: to the jump over the left half; else into it */
	f[0] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K,
					    (uint32_t)nr[left], 0, 1);
	f[1] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, l);
	i = 2 + seccomp_tree(f + 2, nr, left, deny);
	return i + seccomp_tree(f + i, nr + left, n - left, deny);
}

unsigned seccomp_filter_build(struct sock_filter *f, uint32_t deny)
{
	long nr[SECCOMP_NR_MAX];
	unsigned n = seccomp_nrs(nr), i = 0;

	f[i++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		offsetof(struct seccomp_data, arch));
	f[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					      SECCOMP_AUDIT_ARCH, 1, 0);
	f[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
					      SECCOMP_RET_KILL_PROCESS);
	f[i++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		offsetof(struct seccomp_data, nr));
	if (!n) {
		f[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, deny);
		return i;
	}
	return i + seccomp_tree(f + i, nr, n, deny);
}

/**
 * seccomp_install() - install the allowlist in every thread of the process
 * @log:	log calls outside the list instead of killing the process
 *
 * #syscalls:setup seccomp
 * Return: 0, or negative errno
 */
int seccomp_install(bool log)
{
	static struct sock_filter f[SECCOMP_PROG_MAX];
	struct sock_fprog prog;
	long ret;

	_Static_assert(SECCOMP_NR_MAX * 2 + 8 < SECCOMP_PROG_MAX,
		       "SECCOMP_PROG_MAX too small for the allowlist");
	prog.len = (unsigned short)seccomp_filter_build(f,
		log ? SECCOMP_RET_LOG : SECCOMP_RET_KILL_PROCESS);
	prog.filter = f;
	ret = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		      SECCOMP_FILTER_FLAG_TSYNC, &prog);
	if (ret < 0)
		return -errno;
	if (ret > 0) /* the thread that could not take it */
		return -EBUSY;
	return 0;
}

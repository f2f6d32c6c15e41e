/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seccomp.c - the system call allowlist as a BPF program, and installing it */

/**
 * DOC: Theory of Operation
 *
 * The allowlist as a binary search
 * --------------------------------
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
 * so every leaf carries its own "return allow" and its own jump (32-bit
 * offset) to the argument section, and a node skips its left half with an
 * unconditional jump: the program stays valid however long the list
 * grows, and a call costs about log2(n) + 4 instructions.
 *
 * Argument checks
 * ---------------
 *
 * A few listed calls are allowed only with some arguments
 * (seccomp_arg_rules[]): they stay out of the search, so a miss there
 * falls through to a short section after it:
 *
 *	args:	nr == ioctl ? check : next rule ... ; return deny
 *	check:	load args[i] (low 32 bits); one of v1 v2 ... ? : return deny
 *		(or: any bit of mask set ? return deny :) ...; return allow
 *
 * The checked calls are rare at run time (a socket per flow, an ioctl per
 * ACK batch), so the data path's calls pay nothing, and these a few
 * instructions more. Only integer and flag arguments are checked (the
 * kernel reads only their low 32 bits too); pointers cannot be. A call
 * that is on no #syscalls line stays denied whatever its rule says.
 *
 *	ioctl	SIOCOUTQ (sock_tcp.c: bytes a socket has not sent),
 *		SIOCGIFINDEX (if_nametoindex() for a "%scope" in resolv.conf),
 *		TCGETS (stdio's isatty() on a --stats-file that is a terminal)
 *	socket	AF_UNIX, AF_INET, AF_INET6 (no netlink, packet, vsock...)
 *	setsockopt	only the (level, option) pairs that code after set-up
 *		passes it, as seccomp-gen.sh reads them from the calls
 *		(seccomp_sockopt[]): no IP_TRANSPARENT, SO_MARK, IPT_SO_*,
 *		TCP_REPAIR (the repair helper's) or anything else nobody
 *		here sets. The level is checked first, then the option
 *		among that level's (an option number means something else
 *		at another level):
 *
 *		load args[1]; == level1 ? (load args[2]; one of level1's
 *		options ? on : deny) : next level ...; deny
 *	mmap, mprotect	never PROT_EXEC: no new code at run time
 *	kill	SIGTERM to the command's process only (main.c), and not at
 *		all without one
 *	tgkill	our own process only (abort() signalling itself)
 */

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <linux/sockios.h>

#include "os/seccomp.h"
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
#define SECCOMP_ARG_VALS 4  /* values one argument may take */
#define SECCOMP_ARG_CONDS 2 /* arguments checked in one call */

/* the low 32 bits of a 64-bit argument */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SECCOMP_ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#else
#define SECCOMP_ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)
#endif

/**
 * enum seccomp_arg_op - what one argument must be
 * @SECCOMP_ARG_NONE:	(unused condition slot)
 * @SECCOMP_ARG_IN:	one of the values
 * @SECCOMP_ARG_NOBITS:	none of the bits of the first value set
 * @SECCOMP_ARG_KILL_PID: the pid given at build time (none: denied)
 * @SECCOMP_ARG_SELF:	our own process ID
 * @SECCOMP_ARG_SOCKOPT: with the next argument, a (level, option) pair of
 *			seccomp_sockopt[] (generated)
 */
enum seccomp_arg_op {
	SECCOMP_ARG_NONE,
	SECCOMP_ARG_IN,
	SECCOMP_ARG_NOBITS,
	SECCOMP_ARG_KILL_PID,
	SECCOMP_ARG_SELF,
	SECCOMP_ARG_SOCKOPT,
};

/**
 * struct seccomp_arg_cond - one argument's condition
 * @op:		enum seccomp_arg_op
 * @arg:	argument index (0-5)
 * @n:		values in @v (SECCOMP_ARG_IN)
 * @v:		values, or the mask
 */
struct seccomp_arg_cond {
	uint8_t op;
	uint8_t arg;
	uint8_t n;
	uint32_t v[SECCOMP_ARG_VALS];
};

/**
 * struct seccomp_arg_rule - a call allowed only if all its conditions hold
 * @nr:		system call number
 * @c:		conditions (unused ones are SECCOMP_ARG_NONE)
 */
struct seccomp_arg_rule {
	long nr;
	struct seccomp_arg_cond c[SECCOMP_ARG_CONDS];
};

/* see the Theory of Operation for why each value is here */
static const struct seccomp_arg_rule seccomp_arg_rules[] = {
	{ SYS_ioctl,
	  { { SECCOMP_ARG_IN, 1, 3, { SIOCOUTQ, SIOCGIFINDEX, TCGETS } } } },
	{ SYS_socket,
	  { { SECCOMP_ARG_IN, 0, 3, { AF_UNIX, AF_INET, AF_INET6 } } } },
	{ SYS_mmap, { { SECCOMP_ARG_NOBITS, 2, 1, { PROT_EXEC } } } },
	{ SYS_mprotect, { { SECCOMP_ARG_NOBITS, 2, 1, { PROT_EXEC } } } },
	{ SYS_kill,
	  { { SECCOMP_ARG_KILL_PID, 0, 0, { 0 } },
	    { SECCOMP_ARG_IN, 1, 1, { SIGTERM } } } },
	{ SYS_tgkill, { { SECCOMP_ARG_SELF, 0, 0, { 0 } } } },
	{ SYS_setsockopt, { { SECCOMP_ARG_SOCKOPT, 1, 0, { 0 } } } },
};

/**
 * seccomp_arg_rule() - the argument rule of a call
 * @nr:	system call number
 *
 * Return: the rule, or NULL if the call has none
 */
static const struct seccomp_arg_rule *seccomp_arg_rule(long nr)
{
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(seccomp_arg_rules); i++)
		if (seccomp_arg_rules[i].nr == nr)
			return &seccomp_arg_rules[i];
	return NULL;
}

/**
 * seccomp_listed() - is @nr on the generated list?
 * @nr:	system call number
 *
 * Return: true if it is
 */
static bool seccomp_listed(long nr)
{
	unsigned i;

	for (i = 0; i < SECCOMP_NR_MAX; i++)
		if (seccomp_allow[i].nr == nr)
			return true;
	return false;
}

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
 * @plain:	only those without an argument rule
 *
 * Return: how many
 */
static unsigned seccomp_nrs(long *nr, bool plain)
{
	unsigned i, m = 0, n = 0;

	for (i = 0; i < SECCOMP_NR_MAX; i++)
		if (!plain || !seccomp_arg_rule(seccomp_allow[i].nr))
			nr[m++] = seccomp_allow[i].nr;
	qsort(nr, m, sizeof(*nr), seccomp_cmp);
	for (i = 0; i < m; i++)
		if (!n || nr[n - 1] != nr[i])
			nr[n++] = nr[i];
	return n;
}

unsigned seccomp_allow_count(void)
{
	long nr[SECCOMP_NR_MAX];

	return seccomp_nrs(nr, false);
}

unsigned seccomp_arg_count(void)
{
	unsigned i, n = 0;

	for (i = 0; i < ARRAY_SIZE(seccomp_arg_rules); i++)
		n += seccomp_listed(seccomp_arg_rules[i].nr);
	return n;
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
 * @miss:	instructions from @f to the argument section
 *
 * Return: instructions written
 */
static unsigned seccomp_tree(struct sock_filter *f, const long *nr, unsigned n,
			     unsigned miss)
{
	unsigned i, l, left;

	if (n <= SECCOMP_LEAF) {
		for (i = 0; i < n; i++) {
			struct sock_filter jeq = BPF_JUMP(
				BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr[i],
				(uint8_t)(n - i), 0);
			f[i] = jeq;
		}
		f[n] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA,
						    miss - n - 1);
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
	i = 2 + seccomp_tree(f + 2, nr, left, miss - 2);
	return i + seccomp_tree(f + i, nr + left, n - left, miss - i);
}

/**
 * seccomp_sockopt_cond() - emit the setsockopt() pairs check: on to the
 * next condition, or deny
 * @f:		where to write
 * @arg:	the level's argument (the option's is the next)
 * @deny:	the action for a pair off the list
 *
 * Return: instructions written
 */
static unsigned seccomp_sockopt_cond(struct sock_filter *f, uint8_t arg,
				     uint32_t deny)
{
	unsigned i, j, k, len = 2, at = 0;
	bool first;

	/* the length first: the options jump past its end */
	for (i = 0; i < SECCOMP_SOCKOPT_N; i++) {
		for (j = 0, first = true; j < i && first; j++)
			first = seccomp_sockopt[j].level !=
				seccomp_sockopt[i].level;
		len += first ? 4 : 1;
	}
	f[at++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					       SECCOMP_ARG_LO(arg));
	for (i = 0; i < SECCOMP_SOCKOPT_N; i++) {
		int level = seccomp_sockopt[i].level;

		for (j = 0, first = true; j < i && first; j++)
			first = seccomp_sockopt[j].level != level;
		if (!first)
			continue;
		for (j = i, k = 0; j < SECCOMP_SOCKOPT_N; j++)
			k += seccomp_sockopt[j].level == level;
		/* another level: past this one's block (A keeps the level) */
		f[at++] = (struct sock_filter)BPF_JUMP(
			BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)level, 0,
			(uint8_t)(k + 2));
		f[at++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						       SECCOMP_ARG_LO(arg + 1));
		for (j = i; j < SECCOMP_SOCKOPT_N; j++) {
			if (seccomp_sockopt[j].level != level)
				continue;
			ASSERT(len - at - 1 <= 255);
			f[at] = (struct sock_filter)BPF_JUMP(
				BPF_JMP | BPF_JEQ | BPF_K,
				(uint32_t)seccomp_sockopt[j].opt,
				(uint8_t)(len - at - 1), 0);
			at++;
		}
		f[at++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, deny);
	}
	f[at++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, deny);
	ASSERT(at == len);
	return len;
}

/**
 * seccomp_cond() - emit one argument check: on to the next one, or deny
 * @f:		where to write
 * @c:		condition
 * @o:		build options (the pids)
 *
 * Return: instructions written
 */
static unsigned seccomp_cond(struct sock_filter *f,
			     const struct seccomp_arg_cond *c,
			     const struct seccomp_opts *o)
{
	uint32_t v[SECCOMP_ARG_VALS];
	unsigned i = 0, j, n = c->n;

	if (c->op == SECCOMP_ARG_SOCKOPT)
		return seccomp_sockopt_cond(f, c->arg, o->deny);
	memcpy(v, c->v, sizeof(v));
	if (c->op == SECCOMP_ARG_KILL_PID || c->op == SECCOMP_ARG_SELF) {
		v[0] = (uint32_t)(c->op == SECCOMP_ARG_SELF ? o->self :
							      o->kill_pid);
		n = 1;
	}
	f[i++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      SECCOMP_ARG_LO(c->arg));
	if (c->op == SECCOMP_ARG_NOBITS) {
		f[i++] = (struct sock_filter)BPF_JUMP(
			BPF_JMP | BPF_JSET | BPF_K, v[0], 0, 1);
	} else {
		for (j = 0; j < n; j++)
			f[i++] = (struct sock_filter)BPF_JUMP(
				BPF_JMP | BPF_JEQ | BPF_K, v[j],
				(uint8_t)(n - j), 0);
	}
	f[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, o->deny);
	return i;
}

/**
 * seccomp_args() - emit the argument section (the number is in A)
 * @f:		where to write
 * @o:		build options
 *
 * Return: instructions written
 */
static unsigned seccomp_args(struct sock_filter *f,
			     const struct seccomp_opts *o)
{
	unsigned r, c, i = 0, len;

	for (r = 0; r < ARRAY_SIZE(seccomp_arg_rules); r++) {
		const struct seccomp_arg_rule *a = &seccomp_arg_rules[r];
		struct sock_filter *jeq = &f[i];

		if (!seccomp_listed(a->nr))
			continue;
		/* no command to stop: no kill() at all */
		if (a->c[0].op == SECCOMP_ARG_KILL_PID && o->kill_pid <= 0)
			continue;
		i++;
		len = 0;
		for (c = 0; c < SECCOMP_ARG_CONDS; c++)
			if (a->c[c].op != SECCOMP_ARG_NONE)
				len += seccomp_cond(&f[i + len], &a->c[c], o);
		f[i + len] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
							  SECCOMP_RET_ALLOW);
		len++;
		ASSERT(len <= 255);
		*jeq = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						    (uint32_t)a->nr, 0,
						    (uint8_t)len);
		i += len;
	}
	f[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, o->deny);
	return i;
}

unsigned seccomp_filter_build(struct sock_filter *f,
			      const struct seccomp_opts *o)
{
	long nr[SECCOMP_NR_MAX];
	unsigned n = seccomp_nrs(nr, true), i = 0;

	f[i++] = (struct sock_filter)BPF_STMT(
		BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	f[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					      SECCOMP_AUDIT_ARCH, 1, 0);
	f[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
					      SECCOMP_RET_KILL_PROCESS);
	f[i++] = (struct sock_filter)BPF_STMT(
		BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	if (n)
		i += seccomp_tree(f + i, nr, n, seccomp_tree_len(n));
	return i + seccomp_args(f + i, o);
}

/**
 * seccomp_install() - install the allowlist in every thread of the process
 * @log:	log calls outside the list instead of killing the process
 * @kill_pid:	the only process kill() may reach (SIGTERM), or 0: none
 *
 * #syscalls:setup seccomp
 * Return: 0, or negative errno
 */
int seccomp_install(bool log, pid_t kill_pid)
{
	static struct sock_filter f[SECCOMP_PROG_MAX];
	struct seccomp_opts o = {
		.deny = log ? SECCOMP_RET_LOG : SECCOMP_RET_KILL_PROCESS,
		.kill_pid = kill_pid,
		.self = getpid(),
	};
	struct sock_fprog prog;
	long ret;

	_Static_assert(
		SECCOMP_NR_MAX * 2 + 8 +
				ARRAY_SIZE(seccomp_arg_rules) *
					(2 + SECCOMP_ARG_CONDS *
						     (2 + SECCOMP_ARG_VALS)) +
				4 * SECCOMP_SOCKOPT_N + 2 <
			SECCOMP_PROG_MAX,
		"SECCOMP_PROG_MAX too small for the allowlist");
	prog.len = (unsigned short)seccomp_filter_build(f, &o);
	prog.filter = f;
	ret = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		      SECCOMP_FILTER_FLAG_TSYNC, &prog);
	if (ret < 0)
		return -errno;
	if (ret > 0) /* the thread that could not take it */
		return -EBUSY;
	return 0;
}

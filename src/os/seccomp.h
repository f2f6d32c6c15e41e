/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seccomp.h - the system call allowlist as a BPF program */
#ifndef SLIPWAY_SECCOMP_H
#define SLIPWAY_SECCOMP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/filter.h>

#define SECCOMP_PROG_MAX 1024 /* instructions, far above what the list needs */

/**
 * struct seccomp_opts - what the program depends on besides the list
 * @deny:	action for a call not on the list, or with arguments its rule
 *		refuses: SECCOMP_RET_KILL_PROCESS, or SECCOMP_RET_LOG
 *		(--seccomp-log)
 * @kill_pid:	the one process kill() may reach, with SIGTERM (the
 *		command's), or 0: kill() is refused
 * @self:	our process ID (tgkill() may reach only our own threads)
 */
struct seccomp_opts {
	uint32_t deny;
	pid_t kill_pid;
	pid_t self;
};

/**
 * seccomp_filter_build() - the allowlist (generated from the #syscalls
 * lines, see tools/seccomp-gen.sh) as a classic BPF program, with the
 * argument checks of seccomp.c's seccomp_arg_rules[]
 * @f:		program out, SECCOMP_PROG_MAX instructions
 * @o:		options
 *
 * A call from another architecture (or ABI, such as x32) kills the process
 * whatever @o->deny says.
 *
 * Return: number of instructions
 */
unsigned seccomp_filter_build(struct sock_filter *f,
			      const struct seccomp_opts *o);

/**
 * seccomp_allow_count() - how many calls the allowlist has on this
 * architecture
 *
 * Return: the count
 */
unsigned seccomp_allow_count(void);

/**
 * seccomp_arg_count() - how many of them are allowed only with some
 * arguments
 *
 * Return: the count
 */
unsigned seccomp_arg_count(void);

/**
 * seccomp_install() - install the allowlist in every thread of the process
 * @log:	log calls outside the list instead of killing the process
 * @kill_pid:	the only process kill() may reach (SIGTERM), or 0: none
 *
 * No new privileges must be set already.
 *
 * Return: 0, or negative errno
 */
int seccomp_install(bool log, pid_t kill_pid);

#endif /* SLIPWAY_SECCOMP_H */

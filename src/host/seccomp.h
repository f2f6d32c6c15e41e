/* SPDX-License-Identifier: GPL-2.0-or-later */
/* seccomp.h - the system call allowlist as a BPF program */
#ifndef SLIPWAY_SECCOMP_H
#define SLIPWAY_SECCOMP_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/filter.h>

#define SECCOMP_PROG_MAX 1024 /* instructions, far above what the list needs */

/**
 * seccomp_filter_build() - the allowlist (generated from the #syscalls
 * lines, see tools/seccomp-gen.sh) as a classic BPF program
 * @f:		program out, SECCOMP_PROG_MAX instructions
 * @deny:	action for a call not on the list: SECCOMP_RET_KILL_PROCESS,
 *		or SECCOMP_RET_LOG (--seccomp-log)
 *
 * A call from another architecture (or ABI, such as x32) kills the process
 * whatever @deny says.
 *
 * Return: number of instructions
 */
unsigned seccomp_filter_build(struct sock_filter *f, uint32_t deny);

/**
 * seccomp_allow_count() - how many calls the allowlist has on this
 * architecture
 *
 * Return: the count
 */
unsigned seccomp_allow_count(void);

/**
 * seccomp_install() - install the allowlist in every thread of the process
 * @log:	log calls outside the list instead of killing the process
 *
 * No new privileges must be set already.
 *
 * Return: 0, or negative errno
 */
int seccomp_install(bool log);

#endif /* SLIPWAY_SECCOMP_H */

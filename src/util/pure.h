/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pure.h - the calls core/ and util/ may not name, poisoned at compile time
 *
 * Every .c file of libcore.a (core/ and util/siphash.c) is built with this
 * header forced first (-include, src/meson.build) and -DSLIPWAY_CORE_BUILD,
 * so naming any of these is a compile error there, and no file can miss
 * it. The poison must follow the declarations in the system headers, so
 * this header includes first the only ones the core may use (the C
 * library's pure parts); a core file including another system header
 * after it fails to build if that header names a poisoned call. Other
 * layers never see it. The
 * list covers what a protocol core could reach for by habit: allocation,
 * socket and file I/O, clocks and sleeps, randomness, printing and process
 * exits. tools/check-core-purity.sh checks the objects after the fact
 * (the `core-purity` meson test): it also catches a call the compiler emits
 * itself or one spelled through a name missing here.
 */
#ifndef SLIPWAY_PURE_H
#define SLIPWAY_PURE_H

#ifdef SLIPWAY_CORE_BUILD
/* the system headers the core may use, declared before the poison */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* allocation */
#pragma GCC poison malloc free calloc realloc reallocarray aligned_alloc
#pragma GCC poison posix_memalign strdup strndup alloca
/* sockets, files, polling */
#pragma GCC poison socket send recv sendto recvfrom sendmsg recvmsg
#pragma GCC poison sendmmsg recvmmsg connect bind listen accept accept4
#pragma GCC poison read write readv writev pread pwrite open openat close
#pragma GCC poison ioctl fcntl mmap munmap splice pipe poll ppoll select
#pragma GCC poison epoll_wait epoll_ctl
/* clocks and sleeps: time is the caller's @now_ns */
#pragma GCC poison clock_gettime gettimeofday time clock nanosleep sleep
#pragma GCC poison usleep
/* randomness: secrets are given at core_init() */
#pragma GCC poison rand random srand getrandom
/* printing: the core counts, the layers above log */
#pragma GCC poison printf fprintf sprintf snprintf vprintf vfprintf
#pragma GCC poison vsnprintf dprintf puts fputs fwrite perror strerror syslog
/* process and environment */
#pragma GCC poison abort exit _exit getenv
#endif

#endif /* SLIPWAY_PURE_H */

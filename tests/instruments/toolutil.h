/* SPDX-License-Identifier: GPL-2.0-or-later */
/* toolutil.h - what the test instruments (swverify, swrr, swconn, ...) share */
#ifndef SLIPWAY_TOOLUTIL_H
#define SLIPWAY_TOOLUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* the program's name, for messages: each tool defines it */
extern const char tool_name[];

/**
 * usage_error() - report a command line error and exit with status 2
 * @fmt:	printf format
 */
_Noreturn void usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/**
 * parse_uint() - parse a decimal number within bounds
 * @opt:	option name, for the message
 * @s:		text
 * @lo:		smallest value allowed
 * @hi:		largest value allowed
 *
 * Return: the value; exits with status 2 if invalid
 */
unsigned int parse_uint(const char *opt, const char *s, unsigned long lo,
			unsigned long hi);

/**
 * tool_resolve() - turn ADDR and PORT into a TCP socket address (numeric or
 * a name)
 * @addr:	host
 * @port:	port
 * @passive:	for bind()
 * @ss:		result
 * @len:	result length
 *
 * Return: true on success; on failure a message was printed
 */
bool tool_resolve(const char *addr, const char *port, bool passive,
		  struct sockaddr_storage *ss, socklen_t *len);

/**
 * now_ns() - CLOCK_MONOTONIC in nanoseconds
 *
 * Return: the time
 */
uint64_t now_ns(void);

/**
 * cmp_u64() - qsort() comparator for uint64_t
 * @a:	first
 * @b:	second
 *
 * Return: <0, 0 or >0
 */
int cmp_u64(const void *a, const void *b);

/**
 * pct_us() - nearest-rank percentile of sorted samples, in microseconds
 * @s:	samples in nanoseconds, sorted ascending
 * @n:	number of samples, at least 1
 * @p:	percentile, 0 < @p <= 100
 *
 * Return: the sample at rank ceil(@p / 100 * @n), in microseconds
 */
double pct_us(const uint64_t *s, size_t n, double p);

#endif /* SLIPWAY_TOOLUTIL_H */

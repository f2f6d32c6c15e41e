/* SPDX-License-Identifier: GPL-2.0-or-later */
/* toolutil.c - what the test instruments (swverify, swrr, swconn, ...) share */

#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "toolutil.h"

/**
 * usage_error() - report a command line error and exit with status 2
 * @fmt:	printf format
 */
_Noreturn void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", tool_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", tool_name);
	exit(2);
}

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
			unsigned long hi)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < lo || v > hi)
		usage_error("%s: expected a number from %lu to %lu, got '%s'",
			    opt, lo, hi, s);
	return (unsigned int)v;
}

/**
 * tool_resolve() - turn ADDR and PORT into a TCP socket address
 * @addr:	host
 * @port:	port
 * @passive:	for bind()
 * @ss:		result
 * @len:	result length
 *
 * Return: true on success; on failure a message was printed
 */
bool tool_resolve(const char *addr, const char *port, bool passive,
		  struct sockaddr_storage *ss, socklen_t *len)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;
	int rc;

	if (passive)
		hints.ai_flags = AI_PASSIVE;
	rc = getaddrinfo(addr, port, &hints, &res);
	if (rc) {
		fprintf(stderr, "%s: %s port %s: %s\n", tool_name, addr, port,
			gai_strerror(rc));
		return false;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return true;
}

/**
 * now_ns() - CLOCK_MONOTONIC in nanoseconds
 *
 * Return: the time
 */
uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/**
 * cmp_u64() - qsort() comparator for uint64_t
 * @a:	first
 * @b:	second
 *
 * Return: <0, 0 or >0
 */
int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/**
 * pct_us() - nearest-rank percentile of sorted samples, in microseconds
 * @s:	samples in nanoseconds, sorted ascending
 * @n:	number of samples, at least 1
 * @p:	percentile, 0 < @p <= 100
 *
 * Return: the sample at rank ceil(@p / 100 * @n), in microseconds
 */
double pct_us(const uint64_t *s, size_t n, double p)
{
	size_t rank = (size_t)((p / 100.0) * (double)n);

	if ((double)rank < (p / 100.0) * (double)n)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return (double)s[rank - 1] / 1e3;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* toolutil.c - what the test instruments (swverify, swrr, swconn, ...) share */

#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

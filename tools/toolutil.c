/* SPDX-License-Identifier: GPL-2.0-or-later */
/* toolutil.c - what the test instruments (swverify, swrr, swconn) share */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.c - log lines to stderr, assertion failures */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"
#include "util/util.h"

enum log_level log_max_level = LOG_WARN;

static const char *const log_prefix[] = {
	[LOG_ERR] = "error", [LOG_WARN] = "warning", [LOG_INFO] = "info",
	[LOG_DEBUG] = "debug", [LOG_TRACE] = "trace",
};
_Static_assert(ARRAY_SIZE(log_prefix) == LOG_LEVEL_NUM, "log_prefix");

/**
 * vlog() - format and write one line to stderr with a single write()
 * @lvl:	severity
 * @with_errno:	append ": strerror(errno)"
 * @fmt:	printf format
 * @ap:		arguments
 *
 * #syscalls write
 */
static void __attribute__((format(printf, 3, 0)))
vlog(enum log_level lvl, bool with_errno, const char *fmt, va_list ap)
{
	char buf[1024];
	int e = errno, n;

	n = snprintf(buf, sizeof(buf), "slipway: %s: ", log_prefix[lvl]);
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	if (n >= (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	if (with_errno)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, ": %s",
			      strerror(e));
	if (n >= (int)sizeof(buf) - 1)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(STDERR_FILENO, buf, (size_t)n) < 0) {
		/* nowhere left to report it */
	}
	errno = e;
}

/**
 * logmsg() - write one log line to stderr if @lvl is enabled
 * @lvl:	severity
 * @with_errno:	append ": strerror(errno)"
 * @fmt:	printf format
 */
void logmsg(enum log_level lvl, bool with_errno, const char *fmt, ...)
{
	va_list ap;

	if (lvl > log_max_level)
		return;
	va_start(ap, fmt);
	vlog(lvl, with_errno, fmt, ap);
	va_end(ap);
}

/**
 * die() - log an error and exit(1); only for start-up and configuration
 * @fmt:	printf format
 */
void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_ERR, false, fmt, ap);
	va_end(ap);
	exit(1);
}

/**
 * die_perror() - like die(), appending strerror(errno)
 * @fmt:	printf format
 */
void die_perror(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_ERR, true, fmt, ap);
	va_end(ap);
	exit(1);
}

/**
 * assert_fail() - report a broken internal invariant and abort
 * @expr:	text of the failed expression
 * @file:	source file
 * @line:	source line
 * @func:	function name
 */
void assert_fail(const char *expr, const char *file, int line,
		 const char *func)
{
	fprintf(stderr, "slipway: ASSERTION FAILED: %s at %s:%d (%s)\n", expr,
		file, line, func);
	abort();
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.c - log lines to stderr, assertion failures */

#include <errno.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/log.h"
#include "util/util.h"

enum log_level log_max_level = LOG_WARN;

static const char *const log_prefix[] = {
	[LOG_ERR] = "error",   [LOG_WARN] = "warning", [LOG_INFO] = "info",
	[LOG_DEBUG] = "debug", [LOG_TRACE] = "trace",
};
_Static_assert(ARRAY_SIZE(log_prefix) == LOG_LEVEL_NUM, "log_prefix");

/**
 * vlog() - format and write one line to stderr with a single write()
 * @lvl:	severity
 * @with_errno:	append ": strerror(errno)"
 * @dropped:	lines a rate limit dropped before this one (said if not 0)
 * @fmt:	printf format
 * @ap:		arguments
 *
 * #syscalls write
 */
static void __attribute__((format(printf, 4, 0)))
vlog(enum log_level lvl, bool with_errno, uint32_t dropped, const char *fmt,
     va_list ap)
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
	if (n >= (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	if (dropped)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n,
			      " (%u more like it not logged)", dropped);
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
	vlog(lvl, with_errno, 0, fmt, ap);
	va_end(ap);
}

/**
 * logmsg_rl() - logmsg(), at most once per LOG_RL_NS for one call site
 * @rl:		the call site's state
 * @lvl:	severity (a disabled one costs no clock read)
 * @with_errno:	append ": strerror(errno)"
 * @fmt:	printf format
 *
 * Context: any thread; see struct log_rl for the races it allows
 * #syscalls clock_gettime
 */
void logmsg_rl(struct log_rl *rl, enum log_level lvl, bool with_errno,
	       const char *fmt, ...)
{
	uint64_t last, now;
	struct timespec ts;
	int e = errno;
	va_list ap;

	if (lvl > log_max_level)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	if (!now)
		now = 1; /* 0 means "never" */
	last = atomic_load_explicit(&rl->last_ns, memory_order_relaxed);
	if ((last && now - last < LOG_RL_NS) ||
	    !atomic_compare_exchange_strong_explicit(&rl->last_ns, &last, now,
						     memory_order_relaxed,
						     memory_order_relaxed)) {
		atomic_fetch_add_explicit(&rl->suppressed, 1,
					  memory_order_relaxed);
		errno = e;
		return;
	}
	errno = e;
	va_start(ap, fmt);
	vlog(lvl, with_errno,
	     atomic_exchange_explicit(&rl->suppressed, 0, memory_order_relaxed),
	     fmt, ap);
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
	vlog(LOG_ERR, false, 0, fmt, ap);
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
	vlog(LOG_ERR, true, 0, fmt, ap);
	va_end(ap);
	exit(1);
}

/**
 * assert_fail() - report a broken internal invariant and abort
 * @expr:	text of the failed expression
 * @file:	source file
 * @line:	source line
 * @func:	function name
 *
 * #syscalls write
 */
void assert_fail(const char *expr, const char *file, int line, const char *func)
{
	fprintf(stderr, "slipway: ASSERTION FAILED: %s at %s:%d (%s)\n", expr,
		file, line, func);
	abort();
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.h - logging interface; implemented in ctl/log.c, never used by core/ */
#ifndef SLIPWAY_LOG_H
#define SLIPWAY_LOG_H

#include <stdbool.h>

enum log_level { LOG_ERR, LOG_WARN, LOG_INFO, LOG_DEBUG, LOG_TRACE, LOG_LEVEL_NUM };

extern enum log_level log_max_level;

/**
 * logmsg() - write one log line to stderr if @lvl is enabled
 * @lvl:	severity
 * @with_errno:	append ": strerror(errno)"
 * @fmt:	printf format
 */
void logmsg(enum log_level lvl, bool with_errno, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * die() - log an error and exit(1); only for start-up and configuration
 * @fmt:	printf format
 */
_Noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/**
 * die_perror() - like die(), appending strerror(errno)
 * @fmt:	printf format
 */
_Noreturn void die_perror(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

#define err(...) logmsg(LOG_ERR, false, __VA_ARGS__)
#define warn(...) logmsg(LOG_WARN, false, __VA_ARGS__)
#define info(...) logmsg(LOG_INFO, false, __VA_ARGS__)
#define debug(...)                                            \
	do {                                                  \
		if (log_max_level >= LOG_DEBUG)               \
			logmsg(LOG_DEBUG, false, __VA_ARGS__); \
	} while (0)
#define trace(...)                                            \
	do {                                                  \
		if (log_max_level >= LOG_TRACE)               \
			logmsg(LOG_TRACE, false, __VA_ARGS__); \
	} while (0)
#define err_perror(...) logmsg(LOG_ERR, true, __VA_ARGS__)
#define warn_perror(...) logmsg(LOG_WARN, true, __VA_ARGS__)

#endif /* SLIPWAY_LOG_H */

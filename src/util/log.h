/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.h - logging interface; implemented in obs/log.c, never used by core/ */
#ifndef SLIPWAY_LOG_H
#define SLIPWAY_LOG_H

#include <stdbool.h>
#include <stdint.h>

enum log_level {
	LOG_ERR,
	LOG_WARN,
	LOG_INFO,
	LOG_DEBUG,
	LOG_TRACE,
	LOG_LEVEL_NUM
};

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

/* one line per call site per this many nanoseconds at most (log_rl_*()) */
#define LOG_RL_NS (5ULL * 1000000000ULL)

/**
 * struct log_rl - the state of one rate-limited call site
 * @last_ns:	when its last line was written (CLOCK_MONOTONIC), 0: never
 * @suppressed:	lines dropped since then
 *
 * One static instance per call site (the *_rl() macros make it), shared by
 * every thread that reaches the site: both fields are atomics, and the
 * compare-and-swap on @last_ns lets one thread write per interval. A line
 * dropped by a thread while another one takes @suppressed for its report
 * is counted in the next report instead: a benign race.
 */
struct log_rl {
	_Atomic uint64_t last_ns;
	_Atomic uint32_t suppressed;
};

/**
 * logmsg_rl() - logmsg(), at most once per LOG_RL_NS for one call site
 * @rl:		the call site's state
 * @lvl:	severity (a disabled one costs no clock read)
 * @with_errno:	append ": strerror(errno)"
 * @fmt:	printf format
 *
 * A written line that follows dropped ones says how many were dropped.
 *
 * Context: any thread (never core/, which does not log)
 */
void logmsg_rl(struct log_rl *rl, enum log_level lvl, bool with_errno,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#define LOG_RL(lvl, with_errno, ...)                                        \
	do {                                                                \
		static struct log_rl log_rl_site_;                          \
		logmsg_rl(&log_rl_site_, (lvl), (with_errno), __VA_ARGS__); \
	} while (0)

#define err(...) logmsg(LOG_ERR, false, __VA_ARGS__)
#define warn(...) logmsg(LOG_WARN, false, __VA_ARGS__)
#define info(...) logmsg(LOG_INFO, false, __VA_ARGS__)
#define debug(...)                                             \
	do {                                                   \
		if (log_max_level >= LOG_DEBUG)                \
			logmsg(LOG_DEBUG, false, __VA_ARGS__); \
	} while (0)
#define trace(...)                                             \
	do {                                                   \
		if (log_max_level >= LOG_TRACE)                \
			logmsg(LOG_TRACE, false, __VA_ARGS__); \
	} while (0)
#define err_perror(...) logmsg(LOG_ERR, true, __VA_ARGS__)
#define warn_perror(...) logmsg(LOG_WARN, true, __VA_ARGS__)
/* rate-limited forms: for anything a guest or a peer can repeat at will */
#define warn_rl(...) LOG_RL(LOG_WARN, false, __VA_ARGS__)
#define warn_perror_rl(...) LOG_RL(LOG_WARN, true, __VA_ARGS__)
#define info_rl(...) LOG_RL(LOG_INFO, false, __VA_ARGS__)
#define debug_rl(...) LOG_RL(LOG_DEBUG, false, __VA_ARGS__)

#endif /* SLIPWAY_LOG_H */

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.h - small helpers shared by every layer (no system calls) */
#ifndef SLIPWAY_UTIL_H
#define SLIPWAY_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define container_of(p, type, m) \
	((type *)(void *)((char *)(p)-offsetof(type, m)))

/**
 * assert_fail() - report a broken internal invariant and abort
 * @expr:	text of the failed expression
 * @file:	source file
 * @line:	source line
 * @func:	function name
 *
 * Implemented outside util/ (it writes to stderr); never returns.
 */
_Noreturn void assert_fail(const char *expr, const char *file, int line,
			   const char *func);

/* ASSERT() - our own invariants only, never input validation; on in every build */
#define ASSERT(e)                                                      \
	do {                                                           \
		if (unlikely(!(e)))                                    \
			assert_fail(#e, __FILE__, __LINE__, __func__); \
	} while (0)

/*
 * ASSERT_KEPT() - ASSERT() for a checker that returns NULL when its rules
 * hold, else the rule broken (tcp_flow_bad()): that rule is the message
 */
#define ASSERT_KEPT(why)                                                 \
	do {                                                             \
		const char *why_ = (why);                                \
		if (unlikely(why_))                                      \
			assert_fail(why_, __FILE__, __LINE__, __func__); \
	} while (0)

/*
 * DEBUG_CHECKS - 1 in debug builds (meson: buildtype=debug, or any
 * sanitizer; -DSLIPWAY_DEBUG), else 0: invariant checks that cost time on
 * the data path run only there (if (DEBUG_CHECKS) ..., still compiled)
 */
#ifdef SLIPWAY_DEBUG
#define DEBUG_CHECKS 1
#else
#define DEBUG_CHECKS 0
#endif

/**
 * rd16() - read a big-endian 16-bit field from unaligned bytes
 * @p:	pointer to the first byte
 *
 * Return: host-order value
 */
static inline uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

/**
 * rd32() - read a big-endian 32-bit field from unaligned bytes
 * @p:	pointer to the first byte
 *
 * Return: host-order value
 */
static inline uint32_t rd32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | p[3];
}

/**
 * wr16() - write a 16-bit value big-endian to unaligned bytes
 * @p:	destination
 * @v:	host-order value
 */
static inline void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/**
 * wr32() - write a 32-bit value big-endian to unaligned bytes
 * @p:	destination
 * @v:	host-order value
 */
static inline void wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Sequence-space comparisons (RFC 793 modular arithmetic) */
#define SEQ_LT(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) < 0)
#define SEQ_LE(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) <= 0)
#define SEQ_GT(a, b) SEQ_LT(b, a)
#define SEQ_GE(a, b) SEQ_LE(b, a)

#endif /* SLIPWAY_UTIL_H */

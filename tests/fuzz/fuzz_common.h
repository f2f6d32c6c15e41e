/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_common.h - what fuzz_common.c gives every fuzz target */
#ifndef SLIPWAY_FUZZ_COMMON_H
#define SLIPWAY_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "core/core.h"

/**
 * fz_fail() - report a broken check and trap (the fuzzer keeps the input)
 * @expr:	text of the check
 * @file:	source file
 * @line:	source line
 */
_Noreturn void fz_fail(const char *expr, const char *file, int line);

/**
 * fz_check_frames() - check the frames a core queued (TCP, ICMP, ARP)
 * @c:		core
 * @fx:		effects batch
 * @from:	first frame to check
 */
void fz_check_frames(const struct core *c, const struct fx *fx, unsigned from);

#define FZ_CHECK(e)                                    \
	do {                                           \
		if (!(e))                              \
			fz_fail(#e, __FILE__, __LINE__); \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* SLIPWAY_FUZZ_COMMON_H */

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* impair.h - a seeded impairment stage at the edge, for fault tests */
#ifndef SLIPWAY_IMPAIR_H
#define SLIPWAY_IMPAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/impair_conf.h"

struct impair;

/**
 * impair_new() - the stage of one shard
 * @c:		configuration (must stay valid)
 * @shard:	shard index, added to the seed
 *
 * Return: the stage, or NULL if out of memory
 */
struct impair *impair_new(const struct impair_conf *c, unsigned shard);

/**
 * impair_free() - release a stage and every frame it holds
 * @im:		stage, or NULL
 */
void impair_free(struct impair *im);

/**
 * impair_frame() - one frame crosses the edge: pass it on as it is, or
 * let the stage have it
 * @im:		stage
 * @dir:	IMPAIR_UP or IMPAIR_DOWN
 * @p:		frame (virtio-net header first)
 * @len:	its length
 * @hdr_len:	virtio-net header length
 * @now_ns:	monotonic time
 * @ctr:	counters (IMPAIR_*)
 *
 * Return: false to pass it on now, true if the stage took it (dropped,
 * or held as a copy for impair_due())
 */
bool impair_frame(struct impair *im, int dir, const uint8_t *p, size_t len,
		  unsigned hdr_len, uint64_t now_ns, uint64_t *ctr);

/**
 * impair_due() - the next held frame whose time has come
 * @im:		stage
 * @now_ns:	monotonic time
 * @dir:	out: its direction
 * @len:	out: its length
 *
 * Return: the frame (valid until the next call), or NULL if none is due
 */
const uint8_t *impair_due(struct impair *im, uint64_t now_ns, int *dir,
			  size_t *len);

/**
 * impair_next_ns() - when the next held frame is due
 * @im:		stage
 *
 * Return: its time, or UINT64_MAX if none is held
 */
uint64_t impair_next_ns(const struct impair *im);

#endif /* SLIPWAY_IMPAIR_H */

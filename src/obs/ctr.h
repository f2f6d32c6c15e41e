/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ctr.h - counter output (the list itself is util/ctr.h) */
#ifndef SLIPWAY_OBS_CTR_H
#define SLIPWAY_OBS_CTR_H

#include <stdint.h>
#include <stdio.h>

#include "util/ctr.h"

/**
 * ctr_dump_json() - write counters as one JSON object
 * @out:	stream
 * @shards:	per-shard counter arrays
 * @nshards:	number of shards
 * @extra:	extra members (already JSON, without braces), or NULL
 *
 * Totals are summed over shards; per-shard values follow under "shards".
 */
void ctr_dump_json(FILE *out, uint64_t *const *shards, unsigned nshards,
		   const char *extra);

#endif /* SLIPWAY_OBS_CTR_H */

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ctr.c - counter names and JSON output */

#include <stdbool.h>
#include <stdio.h>

#include "obs/ctr.h"
#include "util/util.h"

#define CTR_NAME(name, desc) [CTR_##name] = #name,
const char *const ctr_names[CTR_NUM] = { CTR_LIST(CTR_NAME) };
#undef CTR_NAME
#define CTR_DESC(name, desc) [CTR_##name] = desc,
const char *const ctr_descs[CTR_NUM] = { CTR_LIST(CTR_DESC) };
#undef CTR_DESC

/**
 * ctr_read() - read a counter another thread may be writing
 * @p:	counter
 *
 * Return: value (relaxed atomic load)
 */
static uint64_t ctr_read(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/**
 * ctr_dump_json() - write counters as one JSON object
 * @out:	stream
 * @shards:	per-shard counter arrays
 * @nshards:	number of shards
 * @extra:	extra members (already JSON, without braces), or NULL
 */
void ctr_dump_json(FILE *out, uint64_t *const *shards, unsigned nshards,
		   const char *extra)
{
	unsigned i, s;

	fputs("{", out);
	if (extra)
		fprintf(out, "%s,", extra);
	fputs("\"counters\":{", out);
	for (i = 0; i < CTR_NUM; i++) {
		uint64_t sum = 0;

		for (s = 0; s < nshards; s++)
			sum += ctr_read(&shards[s][i]);
		fprintf(out, "%s\"%s\":%llu", i ? "," : "", ctr_names[i],
			(unsigned long long)sum);
	}
	fputs("},\"shards\":[", out);
	for (s = 0; s < nshards; s++) {
		bool first = true;

		fprintf(out, "%s{", s ? "," : "");
		for (i = 0; i < CTR_NUM; i++) {
			uint64_t v = ctr_read(&shards[s][i]);

			if (!v)
				continue;
			fprintf(out, "%s\"%s\":%llu", first ? "" : ",",
				ctr_names[i], (unsigned long long)v);
			first = false;
		}
		fputs("}", out);
	}
	fputs("]}\n", out);
	fflush(out);
}

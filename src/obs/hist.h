/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hist.h - log-linear histograms: one writer, no allocation, merged on read
 *
 * DOC: Theory of Operation
 *
 * Values (frame sizes in bytes, batch latencies in nanoseconds) fall into
 * buckets whose width grows with the value, as in HdrHistogram with two
 * significant digits: values below 256 have a bucket each; above, every
 * power of two [2^k, 2^(k+1)) is cut into 128 equal buckets, so a bucket is
 * never wider than 1/128 of its lowest value (under 0.8% error). Values of
 * 2^40 (18 minutes in ns) and above share the last bucket; the exact
 * maximum is kept apart.
 *
 * Writer: the shard that owns the histogram, and only it. hist_record() is
 * a handful of instructions (a count-leading-zeros, a shift, four
 * load/stores): each store is a relaxed atomic one, which compiles to a
 * plain move, so a reader on another thread is no data race (TSan agrees).
 * Readers: hist_merge() sums any number of histograms with relaxed loads
 * into a plain one; a merge racing with the writer may miss the latest
 * values, never tear one (each word is aligned and written whole). The
 * count of a merged histogram is the sum of its buckets, so percentiles
 * are consistent with it.
 */
#ifndef SLIPWAY_HIST_H
#define SLIPWAY_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 7 /* 128 buckets per power of two */
#define HIST_SUB (1U << HIST_SUB_BITS)
#define HIST_LINEAR (2U * HIST_SUB) /* values below this: exact */
#define HIST_MAX_BITS 40	    /* values >= 2^40 share the last bucket */
#define HIST_BUCKETS \
	(HIST_LINEAR + (HIST_MAX_BITS - HIST_SUB_BITS - 1) * HIST_SUB)

/**
 * struct hist - one histogram
 * @count:	values recorded
 * @sum:	their sum (wraps after 2^64)
 * @min:	smallest value (UINT64_MAX while empty)
 * @max:	largest value
 * @b:		per-bucket counts
 */
struct hist {
	uint64_t count;
	uint64_t sum;
	uint64_t min;
	uint64_t max;
	uint64_t b[HIST_BUCKETS];
};

/**
 * enum hist_id - the histograms each shard keeps
 * @HIST_EDGE_RX_BYTES:	frames read from the edge: bytes (no vnet header)
 * @HIST_EDGE_TX_BYTES:	frames written to the edge: bytes (no vnet header)
 * @HIST_BATCH_NS:	one edge receive batch: from the read to its last
 *			effect flushed, nanoseconds
 * @HIST_ID_NUM:	count
 */
enum hist_id {
	HIST_EDGE_RX_BYTES,
	HIST_EDGE_TX_BYTES,
	HIST_BATCH_NS,
	HIST_ID_NUM
};

extern const char *const hist_names[HIST_ID_NUM];
extern const char *const hist_descs[HIST_ID_NUM];

/**
 * hist_bucket() - the bucket a value falls into
 * @v:	value
 *
 * Return: index below HIST_BUCKETS
 */
static inline unsigned hist_bucket(uint64_t v)
{
	unsigned k, shift;

	if (v < HIST_LINEAR)
		return (unsigned)v;
	if (v >> HIST_MAX_BITS)
		return HIST_BUCKETS - 1;
	k = 63U - (unsigned)__builtin_clzll(v); /* 2^k <= v, k >= 8 */
	shift = k - HIST_SUB_BITS;
	return HIST_LINEAR + (k - HIST_SUB_BITS - 1) * HIST_SUB +
	       (unsigned)(v >> shift) - HIST_SUB;
}

/**
 * hist_wr() - a relaxed atomic store (a plain move) of a single-writer word
 * @p:	word
 * @v:	value
 */
static inline void hist_wr(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/**
 * hist_record() - record one value
 * @h:	histogram
 * @v:	value
 *
 * Context: the histogram's one writer (its shard)
 */
static inline void hist_record(struct hist *h, uint64_t v)
{
	uint64_t *b = &h->b[hist_bucket(v)];

	hist_wr(b, *b + 1);
	hist_wr(&h->count, h->count + 1);
	hist_wr(&h->sum, h->sum + v);
	if (v < h->min)
		hist_wr(&h->min, v);
	if (v > h->max)
		hist_wr(&h->max, v);
}

/**
 * hist_init() - an empty histogram
 * @h:	histogram
 */
void hist_init(struct hist *h);

/**
 * hist_bucket_low() - the smallest value of a bucket
 * @i:	bucket index
 *
 * Return: value
 */
uint64_t hist_bucket_low(unsigned i);

/**
 * hist_bucket_high() - the largest value of a bucket
 * @i:	bucket index
 *
 * Return: value (UINT64_MAX for the last bucket)
 */
uint64_t hist_bucket_high(unsigned i);

/**
 * hist_merge() - add a histogram another thread may be writing to @dst
 * @dst:	sum (plain; owned by the caller)
 * @src:	histogram to add (read with relaxed loads)
 *
 * Context: any thread
 */
void hist_merge(struct hist *dst, const struct hist *src);

/**
 * hist_quantile() - the value at a quantile of a (merged) histogram
 * @h:	histogram nobody writes
 * @q:	quantile, 0..1 (0.5: median; 0.999: p99.9)
 *
 * The value reported is the highest of the bucket holding the rank
 * ceil(q * count), clamped to [min, max]: at most one bucket width (under
 * 0.8%) above the true value.
 *
 * Return: value, 0 for an empty histogram
 */
uint64_t hist_quantile(const struct hist *h, double q);

#endif /* SLIPWAY_HIST_H */

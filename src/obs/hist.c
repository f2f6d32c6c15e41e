/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hist.c - log-linear histograms: bucket bounds, merging, quantiles
 *
 * The writer's side is inline in hist.h. No system calls here.
 */

#include <string.h>

#include "obs/hist.h"

const char *const hist_names[] = {
	[HIST_EDGE_RX_BYTES] = "edge_rx_frame_bytes",
	[HIST_EDGE_TX_BYTES] = "edge_tx_frame_bytes",
	[HIST_BATCH_NS] = "edge_batch_ns",
};
_Static_assert(sizeof(hist_names) / sizeof(hist_names[0]) == HIST_ID_NUM,
	       "hist_names must name every histogram");

const char *const hist_descs[] = {
	[HIST_EDGE_RX_BYTES] = "size of frames read from the edge (guest to "
			       "host), bytes without the virtio-net header",
	[HIST_EDGE_TX_BYTES] = "size of frames written to the edge (host to "
			       "guest), bytes without the virtio-net header",
	[HIST_BATCH_NS] = "time to handle one edge receive batch, from the "
			  "read to its effects flushed, nanoseconds",
};
_Static_assert(sizeof(hist_descs) / sizeof(hist_descs[0]) == HIST_ID_NUM,
	       "hist_descs must describe every histogram");

/**
 * hist_init() - an empty histogram
 * @h:	histogram
 */
void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

/**
 * hist_bucket_low() - the smallest value of a bucket
 * @i:	bucket index
 *
 * Return: value
 */
uint64_t hist_bucket_low(unsigned i)
{
	unsigned octave, k;

	if (i < HIST_LINEAR)
		return i;
	octave = (i - HIST_LINEAR) / HIST_SUB; /* 0: [256, 512) */
	k = octave + HIST_SUB_BITS + 1;
	return (uint64_t)(HIST_SUB + (i - HIST_LINEAR) % HIST_SUB)
	       << (k - HIST_SUB_BITS);
}

/**
 * hist_bucket_high() - the largest value of a bucket
 * @i:	bucket index
 *
 * Return: value (UINT64_MAX for the last bucket)
 */
uint64_t hist_bucket_high(unsigned i)
{
	if (i >= HIST_BUCKETS - 1)
		return UINT64_MAX;
	return hist_bucket_low(i + 1) - 1;
}

/**
 * rd() - a relaxed atomic load of a word another thread writes
 * @p:	word
 *
 * Return: value
 */
static uint64_t rd(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/**
 * hist_merge() - add a histogram another thread may be writing to @dst
 * @dst:	sum (plain; owned by the caller)
 * @src:	histogram to add (read with relaxed loads)
 */
void hist_merge(struct hist *dst, const struct hist *src)
{
	uint64_t n = 0, v;
	unsigned i;

	for (i = 0; i < HIST_BUCKETS; i++) {
		v = rd(&src->b[i]);
		dst->b[i] += v;
		n += v;
	}
	/* the buckets decide the count: a value recorded between the loop
	 * and these loads is in neither, or in the sum alone */
	dst->count += n;
	dst->sum += rd(&src->sum);
	if (!n)
		return;
	v = rd(&src->min);
	if (v < dst->min)
		dst->min = v;
	v = rd(&src->max);
	if (v > dst->max)
		dst->max = v;
}

/**
 * hist_quantile() - the value at a quantile of a (merged) histogram
 * @h:	histogram nobody writes
 * @q:	quantile, 0..1
 *
 * Return: value, 0 for an empty histogram
 */
uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, seen = 0, v;
	unsigned i;

	if (!h->count)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	rank = (uint64_t)(q * (double)h->count);
	if ((double)rank < q * (double)h->count)
		rank++;
	if (!rank)
		rank = 1;
	for (i = 0; i < HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank)
			break;
	}
	if (i == HIST_BUCKETS)
		return h->max;
	v = hist_bucket_high(i);
	if (v > h->max)
		v = h->max;
	if (v < h->min)
		v = h->min;
	return v;
}

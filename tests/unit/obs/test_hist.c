/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_hist.c - log-linear histograms (obs/hist.c): bucket bounds, the
 * error bound, quantiles against sorted data, merging, edge values
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <cmocka.h>

#include "obs/hist.h"

static struct hist ha, hb, hm;

/**
 * test_buckets() - every value lies within its bucket's bounds, buckets
 * are contiguous and no wider than 1/128 of their lowest value
 * @state:	unused
 */
static void test_buckets(void **state)
{
	uint64_t v, prev_high = UINT64_MAX;
	unsigned i;

	(void)state;
	for (v = 0; v < 300000; v++) {
		i = hist_bucket(v);
		assert_true(i < HIST_BUCKETS);
		assert_true(hist_bucket_low(i) <= v);
		assert_true(hist_bucket_high(i) >= v);
	}
	for (i = 0; i < HIST_BUCKETS - 1; i++) {
		uint64_t lo = hist_bucket_low(i), hi = hist_bucket_high(i);

		assert_true(lo <= hi);
		assert_int_equal(lo, prev_high + 1); /* wraps to 0 first */
		prev_high = hi;
		if (lo >= HIST_LINEAR)
			assert_true((hi - lo + 1) * 128 <= lo);
		else
			assert_int_equal(lo, hi);
		/* the bounds map back to the bucket */
		assert_int_equal(hist_bucket(lo), i);
		assert_int_equal(hist_bucket(hi), i);
	}
	/* large values: sampled powers of two and neighbours */
	for (i = 8; i < 64; i++) {
		uint64_t p = 1ULL << i;

		assert_true(hist_bucket(p - 1) <= hist_bucket(p));
		if (i < HIST_MAX_BITS) {
			assert_true(hist_bucket_low(hist_bucket(p)) == p);
			assert_true(hist_bucket(p - 1) + 1 == hist_bucket(p));
		} else {
			assert_int_equal(hist_bucket(p), HIST_BUCKETS - 1);
		}
	}
	assert_int_equal(hist_bucket(UINT64_MAX), HIST_BUCKETS - 1);
	assert_int_equal(hist_bucket_high(HIST_BUCKETS - 1), UINT64_MAX);
}

/**
 * cmp_u64() - qsort comparison
 * @a:	first
 * @b:	second
 *
 * Return: <0, 0, >0
 */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/**
 * rng_next() - xorshift64*: fixed seed, same values every run
 * @s:	state
 *
 * Return: 64 pseudo-random bits
 */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/**
 * check_quantiles() - quantiles of @h against the exact ones of @v
 * @h:	histogram of @v
 * @v:	values (sorted here)
 * @n:	how many
 */
static void check_quantiles(const struct hist *h, uint64_t *v, size_t n)
{
	static const double qs[] = { 0.01, 0.5, 0.9, 0.99, 0.999 };
	size_t i;

	qsort(v, n, sizeof(*v), cmp_u64);
	assert_int_equal(h->count, n);
	assert_int_equal(h->min, v[0]);
	assert_int_equal(h->max, v[n - 1]);
	assert_int_equal(hist_quantile(h, 0), v[0]);
	assert_int_equal(hist_quantile(h, 1), v[n - 1]);
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		size_t rank = (size_t)ceil(qs[i] * (double)n);
		uint64_t exact = v[rank - 1], got = hist_quantile(h, qs[i]);

		/* never below, at most one bucket width (1/128) above */
		assert_true(got >= exact);
		assert_true(got - exact <= exact / 128 + (exact < 256 ? 0 : 1));
	}
}

/**
 * test_quantiles() - uniform sizes, log-spread latencies, a constant
 * @state:	unused
 */
static void test_quantiles(void **state)
{
	static uint64_t v[100000];
	uint64_t s = 88172645463325252ULL;
	size_t i, n = sizeof(v) / sizeof(v[0]);

	(void)state;
	hist_init(&ha);
	for (i = 0; i < n; i++) {
		v[i] = 42 + rng_next(&s) % 65494; /* frame sizes */
		hist_record(&ha, v[i]);
	}
	check_quantiles(&ha, v, n);

	hist_init(&ha);
	for (i = 0; i < n; i++) {
		v[i] = rng_next(&s) >> (rng_next(&s) % 40 + 24); /* < 2^40 */
		hist_record(&ha, v[i]);
	}
	check_quantiles(&ha, v, n);

	hist_init(&ha);
	for (i = 0; i < 1000; i++)
		hist_record(&ha, 1514);
	for (i = 0; i < 5; i++)
		assert_int_equal(hist_quantile(&ha, 0.1 + 0.2 * (double)i),
				 1514);
	assert_int_equal(ha.sum, 1514000);
}

/**
 * test_merge() - two histograms merged equal one fed both, empty ones
 * change nothing
 * @state:	unused
 */
static void test_merge(void **state)
{
	struct hist *one = malloc(sizeof(*one));
	uint64_t s = 7;
	unsigned i;

	(void)state;
	assert_non_null(one);
	hist_init(&ha);
	hist_init(&hb);
	hist_init(&hm);
	hist_init(one);
	for (i = 0; i < 20000; i++) {
		uint64_t x = rng_next(&s) % 100000;

		hist_record(i & 1 ? &ha : &hb, x);
		hist_record(one, x);
	}
	hist_merge(&hm, &ha);
	hist_merge(&hm, &hb);
	assert_int_equal(hm.count, one->count);
	assert_int_equal(hm.sum, one->sum);
	assert_int_equal(hm.min, one->min);
	assert_int_equal(hm.max, one->max);
	assert_memory_equal(hm.b, one->b, sizeof(hm.b));
	/* an empty histogram changes nothing */
	hist_init(&ha);
	hist_merge(&hm, &ha);
	assert_int_equal(hm.min, one->min);
	assert_int_equal(hm.count, one->count);
	assert_int_equal(hist_quantile(&ha, 0.5), 0);
	free(one);
}

/**
 * test_edges() - zero, the largest values, single values
 * @state:	unused
 */
static void test_edges(void **state)
{
	(void)state;
	hist_init(&ha);
	assert_int_equal(ha.min, UINT64_MAX);
	hist_record(&ha, 0);
	assert_int_equal(hist_quantile(&ha, 0.5), 0);
	assert_int_equal(ha.min, 0);
	hist_record(&ha, UINT64_MAX);
	assert_int_equal(ha.max, UINT64_MAX);
	assert_int_equal(ha.b[HIST_BUCKETS - 1], 1);
	assert_int_equal(hist_quantile(&ha, 0.99), UINT64_MAX);
	hist_init(&ha);
	hist_record(&ha, 300);
	/* one value: every quantile is it (clamped to min/max) */
	assert_int_equal(hist_quantile(&ha, 0.5), 300);
	assert_int_equal(hist_quantile(&ha, 0.999), 300);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_quantiles),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

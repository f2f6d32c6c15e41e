/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_csum.c - Internet checksum: csum_partial(), csum_fold(), csum_pseudo4()
 *
 * csum_partial() sums native-order 32-bit words and swaps once at the end;
 * it is checked against ref_sum16() (helpers.c), which adds one big-endian
 * 16-bit word at a time, on buffers of every small length, odd and even,
 * at every alignment, with running sums that need folding.
 */
#include "helpers.h"

/**
 * rng_next() - xorshift64*: a fixed-seed generator, same bytes every run
 * @s:	state (not zero)
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
 * fill_random() - fill a buffer with pseudo-random bytes
 * @s:		generator state
 * @buf:	buffer
 * @len:	length
 */
static void fill_random(uint64_t *s, uint8_t *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)rng_next(s);
}

/**
 * test_rfc1071_example() - the worked example of RFC 1071 section 3
 * @state:	unused
 */
static void test_rfc1071_example(void **state)
{
	static const uint8_t ex[8] = { 0x00, 0x01, 0xf2, 0x03,
				       0xf4, 0xf5, 0xf6, 0xf7 };
	uint8_t buf[16];
	size_t off;

	(void)state;
	assert_int_equal(csum_fold(csum_partial(ex, sizeof(ex), 0)), 0xddf2);
	assert_int_equal((uint16_t)~csum_fold(csum_partial(ex, sizeof(ex), 0)),
			 0x220d);
	/* same sum at every alignment */
	for (off = 0; off < 8; off++) {
		memcpy(buf + off, ex, sizeof(ex));
		assert_int_equal(csum_fold(csum_partial(buf + off, 8, 0)),
				 0xddf2);
	}
	/* the example's partial sums: 0001 + f203 = f204, + f4f5 = 1e6f9 */
	assert_int_equal(csum_fold(csum_partial(ex, 4, 0)), 0xf204);
	assert_int_equal(csum_fold(csum_partial(ex, 6, 0)), 0xe6fa);
}

/**
 * test_ip_header_example() - a real IPv4 header checksums to 0xb861
 * @state:	unused
 */
static void test_ip_header_example(void **state)
{
	uint8_t h[20] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40,
			  0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8,
			  0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7 };

	(void)state;
	assert_int_equal((uint16_t)~csum_fold(csum_partial(h, 20, 0)), 0xb861);
	wr16(h + 10, 0xb861);
	assert_int_equal(csum_fold(csum_partial(h, 20, 0)), 0xffff);
}

/**
 * test_small_lengths() - lengths 0 to 9 by hand: odd bytes pad on the right
 * @state:	unused
 */
static void test_small_lengths(void **state)
{
	static const uint8_t b[9] = { 0x12, 0x34, 0x56, 0x78, 0x9a,
				      0xbc, 0xde, 0xf0, 0xab };

	(void)state;
	assert_int_equal(csum_fold(csum_partial(b, 0, 0)), 0);
	assert_int_equal(csum_fold(csum_partial(b, 0, 0x1234)), 0x1234);
	assert_int_equal(csum_fold(csum_partial(b, 1, 0)), 0x1200);
	assert_int_equal(csum_fold(csum_partial(b, 2, 0)), 0x1234);
	assert_int_equal(csum_fold(csum_partial(b, 3, 0)), 0x6834);
	assert_int_equal(csum_fold(csum_partial(b, 4, 0)), 0x68ac);
	/* 0x68ac + 0x9a00 = 0x102ac -> 0x02ad */
	assert_int_equal(csum_fold(csum_partial(b, 5, 0)), 0x02ad);
	assert_int_equal(csum_fold(csum_partial(b, 6, 0)), 0x0369);
	/* 0x0369 + 0xde00 = 0xe169; + 0xf0 = 0xe259; + 0xab00 = 0x18d59 */
	assert_int_equal(csum_fold(csum_partial(b, 7, 0)), 0xe169);
	assert_int_equal(csum_fold(csum_partial(b, 8, 0)), 0xe259);
	assert_int_equal(csum_fold(csum_partial(b, 9, 0)), 0x8d5a);
}

/**
 * test_random_vs_reference() - every length to 300 and random large ones,
 * every start alignment, random running sums
 * @state:	unused
 */
static void test_random_vs_reference(void **state)
{
	static uint8_t buf[70000];
	uint64_t rng = 0x9e3779b97f4a7c15ULL;
	size_t len, off;
	unsigned n;

	(void)state;
	fill_random(&rng, buf, sizeof(buf));
	for (len = 0; len <= 300; len++) {
		for (off = 0; off < 8; off++) {
			uint32_t sum = (uint32_t)rng_next(&rng);

			assert_int_equal(
				csum_fold(csum_partial(buf + off, len, 0)),
				ref_sum16(buf + off, len, 0));
			assert_int_equal(
				csum_fold(csum_partial(buf + off, len, sum)),
				ref_sum16(buf + off, len, sum));
		}
	}
	for (n = 0; n < 200; n++) {
		uint32_t sum = (uint32_t)rng_next(&rng);

		len = rng_next(&rng) % 65536;
		off = rng_next(&rng) % 16;
		assert_int_equal(csum_fold(csum_partial(buf + off, len, sum)),
				 ref_sum16(buf + off, len, sum));
	}
}

/**
 * test_carries() - all-ones data folds many carries; all-zero data stays 0
 * @state:	unused
 */
static void test_carries(void **state)
{
	static uint8_t buf[65536 + 8];
	size_t lens[] = { 1, 2, 3, 4, 5, 7, 8, 9, 1499, 1500, 65535, 65536 };
	size_t i;

	(void)state;
	memset(buf, 0xff, sizeof(buf));
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		assert_int_equal(csum_fold(csum_partial(buf, lens[i], 0)),
				 ref_sum16(buf, lens[i], 0));
		assert_int_equal(
			csum_fold(csum_partial(buf + 1, lens[i], 0xffffffffU)),
			ref_sum16(buf + 1, lens[i], 0xffffffffU));
	}
	assert_int_equal(csum_fold(csum_partial(buf, 65536, 0)), 0xffff);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(csum_fold(csum_partial(buf + 3, 65535, 0)), 0);
}

/**
 * test_chaining() - summing in even-length pieces equals one pass
 * @state:	unused
 */
static void test_chaining(void **state)
{
	uint64_t rng = 42;
	uint8_t buf[1024];
	size_t split;

	(void)state;
	fill_random(&rng, buf, sizeof(buf));
	for (split = 0; split <= 1000; split += 2) {
		uint32_t a = csum_partial(buf, split, 0);

		assert_int_equal(
			csum_fold(csum_partial(buf + split, 1001 - split, a)),
			csum_fold(csum_partial(buf, 1001, 0)));
	}
}

/**
 * test_fold() - csum_fold() folds carries twice and never complements
 * @state:	unused
 */
static void test_fold(void **state)
{
	(void)state;
	assert_int_equal(csum_fold(0), 0);
	assert_int_equal(csum_fold(0xffff), 0xffff);
	assert_int_equal(csum_fold(0x10000), 0x0001);
	assert_int_equal(csum_fold(0x1ffff), 0x0001);
	assert_int_equal(csum_fold(0xffffffffU), 0xffff);
	assert_int_equal(csum_fold(0x12345678), 0x68ac);
}

/**
 * test_pseudo4() - pseudo-header sums by hand and against the reference
 * @state:	unused
 */
static void test_pseudo4(void **state)
{
	uint64_t rng = 7;
	unsigned n;

	(void)state;
	/* 0a00 + 0202 + 0a00 + 020f + 0006 + 0028 = 183f */
	assert_int_equal(csum_fold(csum_pseudo4(GW4, GUEST4, 6, 40)), 0x183f);
	/* 4 x ffff + 00ff + ffff folds to 00ff */
	assert_int_equal(
		csum_fold(csum_pseudo4(0xffffffffU, 0xffffffffU, 255, 0xffff)),
		0x00ff);
	assert_int_equal(csum_fold(csum_pseudo4(0, 0, 0, 0)), 0);
	for (n = 0; n < 1000; n++) {
		uint32_t s = (uint32_t)rng_next(&rng);
		uint32_t d = (uint32_t)rng_next(&rng);
		uint16_t len = (uint16_t)rng_next(&rng);
		uint8_t proto = (uint8_t)rng_next(&rng);

		assert_int_equal(csum_fold(csum_pseudo4(s, d, proto, len)),
				 ref_pseudo4(s, d, proto, len));
	}
}

/**
 * test_tcp_segment() - pseudo-header plus segment verifies to 0xffff
 * @state:	unused
 *
 * A SYN from 10.0.2.15:40000 to 10.0.2.2:80 with an MSS option, checksum
 * computed with the core's functions, verified with the reference.
 */
static void test_tcp_segment(void **state)
{
	uint8_t th[24] = { 0x9c, 0x40, 0x00, 0x50, 0x11, 0x22, 0x33, 0x44,
			   0,	 0,    0,    0,	   0x60, 0x02, 0xfa, 0xf0,
			   0,	 0,    0,    0,	   2,	 4,    0x05, 0xb4 };
	uint32_t s;

	(void)state;
	s = csum_pseudo4(GUEST4, GW4, IPPROTO_TCP_, sizeof(th));
	s = csum_partial(th, sizeof(th), s);
	wr16(th + 16, (uint16_t)~csum_fold(s));
	assert_int_equal(l4_csum_ok(GUEST4, GW4, IPPROTO_TCP_, th, sizeof(th)),
			 0xffff);
	/* an odd-length segment: the pad byte is not part of the sum */
	{
		uint8_t odd[25];

		memcpy(odd, th, 24);
		odd[24] = 0x5a;
		wr16(odd + 16, 0);
		s = csum_partial(odd, 25,
				 csum_pseudo4(GUEST4, GW4, IPPROTO_TCP_, 25));
		wr16(odd + 16, (uint16_t)~csum_fold(s));
		assert_int_equal(l4_csum_ok(GUEST4, GW4, IPPROTO_TCP_, odd, 25),
				 0xffff);
	}
}

/**
 * main() - run the checksum tests
 *
 * Return: 0 if all passed, else the number of failures
 */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc1071_example),
		cmocka_unit_test(test_ip_header_example),
		cmocka_unit_test(test_small_lengths),
		cmocka_unit_test(test_random_vs_reference),
		cmocka_unit_test(test_carries),
		cmocka_unit_test(test_chaining),
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_pseudo4),
		cmocka_unit_test(test_tcp_segment),
	};

	return cmocka_run_group_tests_name("csum", tests, NULL, NULL);
}

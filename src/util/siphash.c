/* SPDX-License-Identifier: GPL-2.0-or-later */
/* siphash.c - SipHash-2-4 (Aumasson and Bernstein), written from the paper */

#include <string.h>

#include "siphash.h"

#define ROTL64(x, b) (((x) << (b)) | ((x) >> (64 - (b))))

/**
 * ld64le() - load 8 little-endian bytes
 * @p:	source
 *
 * Return: value
 */
static uint64_t ld64le(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/**
 * sipround() - one SipRound over the four state words
 * @v:	state, updated in place
 */
static void sipround(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = ROTL64(v[1], 13);
	v[1] ^= v[0];
	v[0] = ROTL64(v[0], 32);
	v[2] += v[3];
	v[3] = ROTL64(v[3], 16);
	v[3] ^= v[2];
	v[0] += v[3];
	v[3] = ROTL64(v[3], 21);
	v[3] ^= v[0];
	v[2] += v[1];
	v[1] = ROTL64(v[1], 17);
	v[1] ^= v[2];
	v[2] = ROTL64(v[2], 32);
}

/**
 * siphash24() - SipHash-2-4 of a byte string
 * @key:	16-byte secret key
 * @data:	bytes to hash
 * @len:	length of @data
 *
 * Return: 64-bit hash
 */
uint64_t siphash24(const uint8_t key[16], const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t k0 = ld64le(key), k1 = ld64le(key + 8);
	uint64_t v[4] = { k0 ^ 0x736f6d6570736575ULL,
			  k1 ^ 0x646f72616e646f6dULL,
			  k0 ^ 0x6c7967656e657261ULL,
			  k1 ^ 0x7465646279746573ULL };
	uint8_t tail[8] = { 0 };
	uint64_t m;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		m = ld64le(p + i);
		v[3] ^= m;
		sipround(v);
		sipround(v);
		v[0] ^= m;
	}
	memcpy(tail, p + i, len - i);
	m = ld64le(tail) | ((uint64_t)(len & 0xff) << 56);
	v[3] ^= m;
	sipround(v);
	sipround(v);
	v[0] ^= m;
	v[2] ^= 0xff;
	for (i = 0; i < 4; i++)
		sipround(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

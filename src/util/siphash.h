/* SPDX-License-Identifier: GPL-2.0-or-later */
/* siphash.h - SipHash-2-4 keyed hash (flow table buckets, TCP ISNs) */
#ifndef SLIPWAY_SIPHASH_H
#define SLIPWAY_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

/**
 * siphash24() - SipHash-2-4 of a byte string
 * @key:	16-byte secret key
 * @data:	bytes to hash
 * @len:	length of @data
 *
 * Return: 64-bit hash
 */
uint64_t siphash24(const uint8_t key[16], const void *data, size_t len);

#endif /* SLIPWAY_SIPHASH_H */

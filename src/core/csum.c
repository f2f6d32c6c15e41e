/* SPDX-License-Identifier: GPL-2.0-or-later */
/* csum.c - Internet checksum (RFC 1071) */

#include <string.h>

#include "csum.h"

/**
 * csum_partial() - add bytes to a running one's complement sum
 * @buf:	data
 * @len:	length in bytes
 * @sum:	running sum
 *
 * Sums 16-bit big-endian words into a 64-bit accumulator, eight bytes at a
 * time; odd trailing byte padded with zero.
 *
 * Return: new running sum (unfolded)
 */
uint32_t csum_partial(const void *buf, size_t len, uint32_t sum)
{
	const uint8_t *p = buf;
	uint64_t acc = 0;
	uint32_t w;

	while (len >= 4) {
		memcpy(&w, p, 4);
		acc += w; /* native-order words; swapped once at the end */
		p += 4;
		len -= 4;
	}
	/* acc holds native-order sums: fold to 16 bits, then to big-endian */
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	{
		uint16_t s = (uint16_t)acc;
		const uint8_t *b = (const uint8_t *)&s;
		uint32_t be = ((uint32_t)b[0] << 8) | b[1];

		acc = (uint64_t)be + sum;
	}
	if (len >= 2) {
		acc += ((uint32_t)p[0] << 8) | p[1];
		p += 2;
		len -= 2;
	}
	if (len)
		acc += (uint32_t)p[0] << 8;
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint32_t)acc;
}

/**
 * csum_fold() - fold a running sum to 16 bits, not complemented
 * @sum:	running sum
 *
 * Return: folded sum
 */
uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/**
 * csum_pseudo4() - running sum of the IPv4 pseudo-header
 * @saddr_be:	source address, network order
 * @daddr_be:	destination address, network order
 * @proto:	IP protocol number
 * @len:	transport length (header + payload)
 *
 * Return: running sum
 */
uint32_t csum_pseudo4(uint32_t saddr_be, uint32_t daddr_be, uint8_t proto,
		      uint16_t len)
{
	uint8_t ph[12];

	memcpy(ph, &saddr_be, 4);
	memcpy(ph + 4, &daddr_be, 4);
	ph[8] = 0;
	ph[9] = proto;
	ph[10] = (uint8_t)(len >> 8);
	ph[11] = (uint8_t)len;
	return csum_partial(ph, sizeof(ph), 0);
}

/**
 * csum_pseudo6() - running sum of the IPv6 pseudo-header (RFC 8200 8.1)
 * @saddr:	source address, 16 bytes
 * @daddr:	destination address, 16 bytes (the final one)
 * @proto:	next header value of the upper layer
 * @len:	upper-layer packet length (header + payload)
 *
 * Return: running sum
 */
uint32_t csum_pseudo6(const uint8_t *saddr, const uint8_t *daddr, uint8_t proto,
		      uint32_t len)
{
	uint8_t ph[40];

	memcpy(ph, saddr, 16);
	memcpy(ph + 16, daddr, 16);
	ph[32] = (uint8_t)(len >> 24);
	ph[33] = (uint8_t)(len >> 16);
	ph[34] = (uint8_t)(len >> 8);
	ph[35] = (uint8_t)len;
	ph[36] = ph[37] = ph[38] = 0;
	ph[39] = proto;
	return csum_partial(ph, sizeof(ph), 0);
}

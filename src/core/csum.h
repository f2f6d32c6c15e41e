/* SPDX-License-Identifier: GPL-2.0-or-later */
/* csum.h - Internet checksum (RFC 1071) */
#ifndef SLIPWAY_CSUM_H
#define SLIPWAY_CSUM_H

#include <stddef.h>
#include <stdint.h>

/**
 * csum_partial() - add bytes to a running one's complement sum
 * @buf:	data
 * @len:	length in bytes
 * @sum:	running sum
 *
 * Return: new running sum (unfolded)
 */
uint32_t csum_partial(const void *buf, size_t len, uint32_t sum);

/**
 * csum_fold() - fold a running sum to 16 bits, not complemented
 * @sum:	running sum
 *
 * Return: folded sum
 */
uint16_t csum_fold(uint32_t sum);

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
		      uint16_t len);

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
		      uint32_t len);

#endif /* SLIPWAY_CSUM_H */

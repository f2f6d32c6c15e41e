/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sockaddr.h - socket addresses from and to the flows' 16-byte addresses
 * (IPv4 v4-mapped), and address text */
#ifndef SLIPWAY_SOCKADDR_H
#define SLIPWAY_SOCKADDR_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

/**
 * addr_pton() - an IPv4 or IPv6 address in text, as the table keeps it
 * @s:		text
 * @a:		out: the address; IPv4 v4-mapped (v4-mapped text is neither)
 *
 * Return: AF_INET, AF_INET6, or 0 if it is neither
 */
int addr_pton(const char *s, struct in6_addr *a);

/**
 * sockaddr_from() - a socket address for a flow address and port
 * @ss:		out: struct sockaddr_in for an IPv4 (v4-mapped) address,
 *		struct sockaddr_in6 for an IPv6 one
 * @addr:	address, ADDR_LEN bytes
 * @port:	port, host order
 *
 * Return: the length of the address in @ss
 */
socklen_t sockaddr_from(struct sockaddr_storage *ss, const uint8_t *addr,
			uint16_t port);

/**
 * sockaddr_to() - a flow address and port from a socket address: the
 * inverse of sockaddr_from() (inline: repair.c's unit test uses it
 * without sockaddr.c)
 * @ss:		address (AF_INET, or AF_INET6, v4-mapped or not)
 * @a:		out: 16 bytes, IPv4 v4-mapped
 * @port:	out: host order
 *
 * Return: true if @ss is of either family (else @a and @port are not set)
 */
static inline bool sockaddr_to(const struct sockaddr_storage *ss, uint8_t *a,
			       uint16_t *port)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const void *)ss;

		memset(a, 0, 10);
		a[10] = a[11] = 0xff;
		memcpy(a + 12, &s4->sin_addr, 4);
		*port = ntohs(s4->sin_port);
		return true;
	}
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)ss;

		memcpy(a, &s6->sin6_addr, 16);
		*port = ntohs(s6->sin6_port);
		return true;
	}
	return false;
}

#endif /* SLIPWAY_SOCKADDR_H */

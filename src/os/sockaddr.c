/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sockaddr.c - socket addresses from and to the flows' 16-byte addresses,
 * and address text */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "core/core.h"
#include "os/sockaddr.h"

/**
 * addr_pton() - an IPv4 or IPv6 address in text, as the table keeps it
 * @s:		text
 * @a:		out: the address; IPv4 v4-mapped (zero if @s is neither)
 *
 * A v4-mapped IPv6 text is neither: it would pass for IPv4. Shared by
 * the control API (s4n_api.c) and the address mappings (conf_net.c).
 *
 * Return: AF_INET, AF_INET6, or 0 if it is neither
 */
int addr_pton(const char *s, struct in6_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, &a->s6_addr[12]) == 1) {
		a->s6_addr[10] = a->s6_addr[11] = 0xff;
		return AF_INET;
	}
	if (inet_pton(AF_INET6, s, a) == 1 && !IN6_IS_ADDR_V4MAPPED(a))
		return AF_INET6;
	return 0;
}

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
			uint16_t port)
{
	memset(ss, 0, sizeof(*ss));
	if (addr_is4(addr)) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		s4->sin_addr.s_addr = addr_to4(addr);
		return sizeof(*s4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		memcpy(&s6->sin6_addr, addr, ADDR_LEN);
		return sizeof(*s6);
	}
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* selfport.h - slipway's own listening ports, kept out of the guest's reach */
#ifndef SLIPWAY_SELFPORT_H
#define SLIPWAY_SELFPORT_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

struct listener;

/* which addresses a listening socket on a port takes connections on */
#define SELF_ANY4 0x01	/* every IPv4 address (0.0.0.0, dual-stack ::) */
#define SELF_LO4 0x02	/* an IPv4 loopback address */
#define SELF_ADDR4 0x04 /* one other IPv4 address */
#define SELF_ANY6 0x08	/* every IPv6 address (::) */
#define SELF_LO6 0x10	/* ::1 */
#define SELF_ADDR6 0x20 /* one other IPv6 address */

#define SELFPORT_PINS 4

/**
 * struct selfport - slipway's own listening ports, per protocol
 * @map:	per protocol (0 TCP, 1 UDP) and port, the SELF_* bits of the
 *		listening sockets on that port; written by the main thread
 *		only, read by every shard (relaxed atomics: a shard seeing
 *		a port's old bits for a moment is harmless, see selfport.c)
 * @pin:	listeners that stay for the whole run (--metrics): their
 *		bits are kept when selfport_sync() recomputes a port
 * @npins:	entries in @pin
 */
struct selfport {
	uint8_t map[2][65536];
	struct {
		int proto;
		uint16_t port;
		uint8_t bits;
	} pin[SELFPORT_PINS];
	unsigned npins;
};

uint8_t selfport_class(int family, const struct in6_addr *addr);
void selfport_add(struct selfport *s, int proto, uint16_t port, uint8_t bits);
void selfport_sync(struct selfport *s, int proto, uint16_t port,
		   const struct listener *t, unsigned n);
void selfport_pin(struct selfport *s, int proto,
		  const struct sockaddr_storage *ss);
bool selfport_reached(const struct selfport *s, int proto,
		      const struct sockaddr_storage *dst);

#endif /* SLIPWAY_SELFPORT_H */

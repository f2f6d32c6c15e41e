/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dns_fwd.h - DNS forwarder: the guest's queries to the host's resolvers */
#ifndef SLIPWAY_DNS_FWD_H
#define SLIPWAY_DNS_FWD_H

#include <stddef.h>
#include <stdint.h>

struct flow_rec;
struct shard;

/**
 * dns_fwd_init() - read the upstreams, open sockets, register with epoll
 * @sh:		shard (its core's conf.dns4_be is the guest-facing address;
 *		conf.dns4_upstream_be is set here for DNS over TCP)
 * @resolv:	resolv.conf path (normally /etc/resolv.conf), watched for
 *		changes
 *
 * Epoll events use EP_DATA(EP_DNS, n) with n chosen by the forwarder.
 *
 * Return: 0, or -errno (logged)
 */
int dns_fwd_init(struct shard *sh, const char *resolv);

/**
 * dns_fwd_query() - forward one query from the guest
 * @sh:		shard
 * @q:		the DNS message (a loan: copy what must outlive the call)
 * @len:	its length
 * @gaddr:	the guest's address (16 bytes, IPv4 v4-mapped)
 * @gport:	the guest's port
 *
 * The answer goes back with udp_send() from port 53 of the DNS address of
 * the query's family (conf.dns4_be or conf.dns6).
 */
void dns_fwd_query(struct shard *sh, const uint8_t *q, size_t len,
		   const uint8_t *gaddr, uint16_t gport);

/**
 * dns_fwd_event() - an epoll event for one of the forwarder's fds
 * @sh:		shard
 * @n:		the index given in EP_DATA(EP_DNS, n)
 * @events:	epoll events
 */
void dns_fwd_event(struct shard *sh, uint32_t n, uint32_t events);

/**
 * dns_fwd_fini() - close and free everything
 * @sh:	shard
 */
void dns_fwd_fini(struct shard *sh);

uint32_t dns_fwd_snap_cap(const struct shard *sh);
uint32_t dns_fwd_snap(struct shard *sh, struct flow_rec *buf, uint32_t cap,
		      uint32_t *total);

#endif /* SLIPWAY_DNS_FWD_H */

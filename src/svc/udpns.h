/* SPDX-License-Identifier: GPL-2.0-or-later */
/* udpns.h - -U: UDP ports on the guest's loopback forwarded to the host's */
#ifndef SLIPWAY_UDPNS_H
#define SLIPWAY_UDPNS_H

#include <stdint.h>

struct shard;

/**
 * udpns_init() - open the -U ports on the guest's loopback
 * @sh:		shard 0, splice_init() done (the namespace helper)
 *
 * Context: start-up, main thread
 * Return: 0 (also when there is no -U), or -errno (logged)
 */
int udpns_init(struct shard *sh);

/**
 * udpns_fini() - close every -U socket and free the tables
 * @sh:		shard 0
 */
void udpns_fini(struct shard *sh);

/**
 * udpns_event() - an EP_UDPNS epoll event
 * @sh:		shard 0
 * @idx:	EP_IDX() of the event
 * @events:	epoll events
 */
void udpns_event(struct shard *sh, uint32_t idx, uint32_t events);

#endif /* SLIPWAY_UDPNS_H */

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* udpns.h - -U: UDP ports on the guest's loopback forwarded to the host's */
#ifndef SLIPWAY_UDPNS_H
#define SLIPWAY_UDPNS_H

#include <stdint.h>

struct flow_rec;
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

/**
 * udpns_snap_cap() - how many -U flows a shard can have: the room they
 * need in a flow snapshot (shard_hooks.snap)
 * @sh:		shard
 *
 * Context: the control thread; reads only the configuration and the
 * shard's index
 * Return: entries (0 but on shard 0 with -U ports)
 */
uint32_t udpns_snap_cap(const struct shard *sh);

/**
 * udpns_snap() - the -U flows as flow records (ctl flows,
 * shard_hooks.snap): kind FLOW_KIND_UDPNS, the guest's end the peer, the
 * remote end the host loopback port, the -U port in @ns_port
 * @sh:		shard
 * @buf:	records out
 * @cap:	entries @buf holds
 * @total:	out: flows there are (may exceed @cap)
 *
 * Context: the shard's own thread
 * Return: records written
 */
uint32_t udpns_snap(struct shard *sh, struct flow_rec *buf, uint32_t cap,
		    uint32_t *total);
void udpns_sweep(struct shard *sh);

#endif /* SLIPWAY_UDPNS_H */

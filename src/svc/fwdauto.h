/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdauto.h - "auto" ports: follow the sockets bound on the other side */
#ifndef SLIPWAY_FWDAUTO_H
#define SLIPWAY_FWDAUTO_H

#include <stddef.h>
#include <stdint.h>

struct shard;

/**
 * fwdauto_init() - set up auto ports: open the sock_diag sockets (one in
 * the host's namespace, one in the guest's) and the scan timer, and open
 * the ports bound now
 * @sh:		shard 0, after fwd_init() and splice_init()
 *
 * Context: start-up, before the sandbox
 * Return: 0 (also when no option says auto), or -errno (logged)
 */
int fwdauto_init(struct shard *sh);

/**
 * fwdauto_event() - the scan timer fired: list the bound ports, open and
 * close ports to match
 * @sh:		shard 0
 * @idx:	unused (EP_FWD_AUTO has one fd, the timer)
 * @events:	unused
 *
 * Context: main thread (shard 0's loop), EP_FWD_AUTO
 */
void fwdauto_event(struct shard *sh, uint32_t idx, uint32_t events);

/**
 * fwdauto_fini() - close and free what fwdauto_init() made
 * @sh:		shard 0
 */
void fwdauto_fini(struct shard *sh);

/**
 * diag_bound_ports() - the ports sockets of one family and protocol are
 * bound to, from a sock_diag dump (also the migration's check of a
 * restored socket's local port: migrate.c)
 * @fd:		NETLINK_SOCK_DIAG socket of the namespace
 * @family:	AF_INET or AF_INET6
 * @proto:	IPPROTO_TCP (listening sockets) or IPPROTO_UDP (unconnected)
 * @seq:	this dump's sequence number
 * @buf:	room for the answers
 * @len:	its bytes
 * @map:	65,536 bits, set for the ports found
 *
 * Return: 0, or -errno (the map is then incomplete)
 */
int diag_bound_ports(int fd, int family, int proto, uint32_t seq, uint8_t *buf,
		     size_t len, uint64_t *map);

#endif /* SLIPWAY_FWDAUTO_H */

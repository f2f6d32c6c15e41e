/* SPDX-License-Identifier: GPL-2.0-or-later */
/* listen.h - a published port as the runtime keeps it: its rule and its
 * listening socket (the tables are shard 0's; svc/fwd.c fills them, the
 * runtime reads them: UDP listeners' datagrams, the self-port table) */
#ifndef SLIPWAY_LISTEN_H
#define SLIPWAY_LISTEN_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

/**
 * struct fwd_rule - one published port (one host port), as the forward API
 * sees it
 * @id:		identifier, > 0: what fwd_add() returned (ignored by it)
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @host_family: AF_INET, AF_INET6, or AF_UNSPEC: every address of both
 *		families (one dual-stack socket)
 * @host_addr:	bind address; IPv4 as v4-mapped (::ffff:a.b.c.d); unused
 *		with AF_UNSPEC. 0.0.0.0 and :: are allowed (all addresses of
 *		that family)
 * @host_port:	host port, 1 to 65535
 * @guest_set:	@guest_addr is given; false: the guest's configured address
 *		of each client's family (10.0.2.15, or the IPv6 one)
 * @guest_addr:	with @guest_set: where connections go in the guest, IPv4
 *		as v4-mapped; an address in the guest's network, not the
 *		gateway's, the DNS forwarder's, the network or broadcast
 *		address. Clients of the other family appear to it as the
 *		gateway's address of its family
 * @guest_port:	guest port, 1 to 65535
 * @splice:	loopback TCP clients are spliced to the guest's loopback
 *		(start-up -t ports; fwd_add() never sets it: its ports always
 *		go through the edge, so the guest sees clients as the
 *		gateway, as with slirp4netns)
 * @ifname:	bind the socket to this interface (SO_BINDTODEVICE), or ""
 * @auto_tag:	0; or, for a port "auto" opened (fwdauto.c), 1 + the index
 *		of its range in the configuration
 */
struct fwd_rule {
	unsigned id;
	int proto;
	int host_family;
	struct in6_addr host_addr;
	uint16_t host_port;
	bool guest_set;
	struct in6_addr guest_addr;
	uint16_t guest_port;
	bool splice;
	char ifname[16];
	unsigned auto_tag;
};

/**
 * struct listener - one published-port socket (a slot of a port table)
 * @fd:		socket, or -1: a free slot
 * @family:	AF_INET (IPv4 clients only) or AF_INET6 (IPv6 clients, and
 *		IPv4 ones too when bound without an address)
 * @rule:	what it publishes, with its id
 * @paused:	TCP: out of fds, out of the epoll set's interest until
 *		shard_listen_resume()
 * @gro:	UDP: the socket has UDP_GRO (sock_udp_listen_prep())
 * @drops:	UDP: its receive-queue drops as last seen (SO_RXQ_OVFL)
 */
struct listener {
	int fd;
	int family;
	struct fwd_rule rule;
	bool paused;
	bool gro;
	uint32_t drops;
};

#endif /* SLIPWAY_LISTEN_H */

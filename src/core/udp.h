/* SPDX-License-Identifier: GPL-2.0-or-later */
/* udp.h - UDP and ICMP echo flows between the guest and host sockets */
#ifndef SLIPWAY_UDP_H
#define SLIPWAY_UDP_H

#include "core.h"

#define UDP_HLEN 8
/* datagrams in one UDP GSO frame at most (the kernel's UDP_MAX_SEGMENTS) */
#define UDP_GSO_SEGS_MAX 128

/**
 * enum udp_kind - what a datagram flow rides on at the host
 * @UDPK_OUT:	guest-opened: a connected host UDP socket
 * @UDPK_PUB:	published port (-u): the listening socket, replies by sendto
 * @UDPK_ICMP:	ICMP echo: a connected host ping socket (ports: echo id, 0)
 * @UDPK_NUM:	count
 */
enum udp_kind { UDPK_OUT, UDPK_PUB, UDPK_ICMP, UDPK_NUM };

/**
 * struct udp_flow - one datagram flow
 * @guest_addr:	guest-side address (ADDR_LEN bytes, IPv4 v4-mapped)
 * @remote_addr: remote address as the guest sees it; same family
 * @used:	slot in use
 * @kind:	enum udp_kind
 * @guest_port:	guest-side port (ICMP: the guest's echo id)
 * @remote_port: remote port as the guest sees it (ICMP: 0)
 * @sock:	host socket (owned by host; PUB: the listener, not owned)
 * @next:	hash chain / free list (index + 1, 0 = end)
 * @last_ns:	last datagram either way (idle expiry)
 * @from_guest:	datagrams from the guest
 * @to_guest:	datagrams to the guest
 * @opened_ns:	creation time
 * @bytes_from_guest: payload bytes from the guest
 * @bytes_to_guest: payload bytes to the guest
 *
 * Where the host socket talks to (the remote address and port, or host
 * loopback for the gateway) travels in the FX_DGRAM_OPEN intent and is
 * not kept here.
 */
struct udp_flow {
	uint8_t guest_addr[ADDR_LEN];
	uint8_t remote_addr[ADDR_LEN];
	uint8_t used;
	uint8_t kind;
	uint16_t guest_port;
	uint16_t remote_port;
	int32_t sock;
	uint32_t next;
	uint64_t last_ns;
	uint64_t from_guest;
	uint64_t to_guest;
	uint64_t opened_ns;
	uint64_t bytes_from_guest;
	uint64_t bytes_to_guest;
};

_Static_assert(sizeof(struct udp_flow) <= 96, "keep a flow small");

/**
 * udp_flow_v6() - is a datagram flow an IPv6 one?
 * @f:	flow
 *
 * Return: true for IPv6
 */
static inline bool udp_flow_v6(const struct udp_flow *f)
{
	return !addr_is4(f->guest_addr);
}

/**
 * udp_flow_get() - datagram flow by index, if in use
 * @c:		core
 * @idx:	index
 *
 * Return: flow, or NULL
 */
static inline struct udp_flow *udp_flow_get(struct core *c, uint32_t idx)
{
	if (idx >= c->conf.max_udp_flows || !c->uflows[idx].used)
		return NULL;
	return &c->uflows[idx];
}

/**
 * udp_flow_idx() - index of a datagram flow
 * @c:	core
 * @f:	flow
 *
 * Return: index
 */
static inline uint32_t udp_flow_idx(const struct core *c,
				    const struct udp_flow *f)
{
	return (uint32_t)(f - c->uflows);
}

void udp_input(struct core *c, const uint8_t *iph, struct pkt_view v,
	       const struct vnet_hdr *vh, uint64_t now_ns, struct fx *fx);

/**
 * icmp_echo_out() - an echo request for a host other than ours, either family
 * @c:		core
 * @iph:	IPv4 header (request for a host other than the gateway) or
 *		IPv6 header (destination unicast, usable, not ours; conf.ipv6)
 * @v:		the ICMP (type 8) or ICMPv6 (type 128) message, length >= 8
 * @now_ns:	monotonic time
 * @fx:		effects out (FX_DGRAM_OPEN/FX_DGRAM_SEND on a ping socket of
 *		the family)
 */
void icmp_echo_out(struct core *c, const uint8_t *iph, struct pkt_view v,
		   uint64_t now_ns, struct fx *fx);

/**
 * udp_payload_slot() - where the host puts a datagram for the guest
 * @c:	core
 * @fx:	effects batch
 * @v6:	the datagram goes over IPv6 (40-byte IP header, not 20)
 *
 * Return: pointer to the payload position of the next frame slot, or NULL
 *	   if no slot is free
 */
uint8_t *udp_payload_slot(struct core *c, struct fx *fx, bool v6);

/**
 * udp_payload_max() - largest datagram payload a frame slot can carry
 * @c:	core
 * @fx:	effects batch
 * @v6:	over IPv6
 *
 * Return: bytes (bounded by the MTU too)
 */
size_t udp_payload_max(const struct core *c, const struct fx *fx, bool v6);

/**
 * udp_payload_room() - room for payload in a frame slot, whatever the MTU
 * (datagrams received together, UDP GRO)
 * @c:	core
 * @fx:	effects batch
 * @v6:	over IPv6
 *
 * Return: bytes, at most what one IP packet's length field allows
 */
size_t udp_payload_room(const struct core *c, const struct fx *fx, bool v6);

/**
 * udp_flow_to_guest() - a datagram arrived on a flow's host socket
 * @c:		core
 * @f:		flow
 * @fx:		effects batch; the payload is at udp_payload_slot() for
 *		the flow's family
 * @len:	payload length (ICMP: the whole echo reply message)
 * @seg:	the host received @len bytes as datagrams of @seg bytes
 *		(UDP GRO; the last one shorter or not); 0: one datagram
 * @now_ns:	monotonic time
 */
void udp_flow_to_guest(struct core *c, struct udp_flow *f, struct fx *fx,
		       size_t len, uint16_t seg, uint64_t now_ns);

/**
 * udp_pub_to_guest() - a datagram arrived on a published UDP port
 * @c:		core
 * @src:	source address the guest should see (ADDR_LEN bytes; IPv6
 *		ones reach the guest at conf.guest6 and need conf.ipv6)
 * @sport:	source port
 * @gport:	guest port
 * @sock:	the listening socket
 * @fx:		effects batch; the payload is at udp_payload_slot() for
 *		@src's family
 * @len:	payload length
 * @now_ns:	monotonic time
 *
 * Return: the flow (new or found), so the host can record the client's
 *	   address for replies; NULL if the table is full (counted, dropped)
 */
struct udp_flow *udp_pub_to_guest(struct core *c, const uint8_t *src,
				  uint16_t sport, uint16_t gport, int32_t sock,
				  struct fx *fx, size_t len, uint64_t now_ns);
struct udp_flow *udp_pub_to_guest_at(struct core *c, const uint8_t *gaddr,
				     const uint8_t *src, uint16_t sport,
				     uint16_t gport, int32_t sock,
				     struct fx *fx, size_t len, uint16_t seg,
				     uint64_t now_ns);

/**
 * udp_pub_forget() - forget the flows of a published UDP port that goes away
 * @c:		core
 * @sock:	the port's listening socket
 *
 * Return: flows freed
 */
unsigned udp_pub_forget(struct core *c, int32_t sock);

/**
 * udp4_send() - send a datagram to the guest, copying the payload
 * @c:		core
 * @fx:		effects out
 * @saddr_be:	source address
 * @sport:	source port
 * @daddr_be:	destination address
 * @dport:	destination port
 * @data:	payload
 * @len:	payload length
 *
 * Return: 0, or -1 if it did not fit or no slot was free (counted)
 */
int udp4_send(struct core *c, struct fx *fx, uint32_t saddr_be, uint16_t sport,
	      uint32_t daddr_be, uint16_t dport, const uint8_t *data,
	      size_t len);

/**
 * udp_send() - send a datagram to the guest in either family, copying it
 * @c:		core
 * @fx:		effects out
 * @saddr:	source address (ADDR_LEN bytes; IPv4 v4-mapped)
 * @sport:	source port
 * @daddr:	destination address, same family
 * @dport:	destination port
 * @data:	payload
 * @len:	payload length
 *
 * Return: 0, or -1 if it did not fit or no slot was free (counted)
 */
int udp_send(struct core *c, struct fx *fx, const uint8_t *saddr,
	     uint16_t sport, const uint8_t *daddr, uint16_t dport,
	     const uint8_t *data, size_t len);

/**
 * udp6_send() - send a datagram to the guest over IPv6, copying it
 * @c:		core
 * @fx:		effects out
 * @saddr:	source address, 16 bytes
 * @sport:	source port
 * @daddr:	destination address, 16 bytes, IPv6 whatever it looks like
 *		(DHCPv6 answers a v4-mapped client source as it is)
 * @dport:	destination port
 * @data:	payload
 * @len:	payload length
 *
 * Return: 0, or -1 if it did not fit or no slot was free (counted)
 */
int udp6_send(struct core *c, struct fx *fx, const uint8_t *saddr,
	      uint16_t sport, const uint8_t *daddr, uint16_t dport,
	      const uint8_t *data, size_t len);

/**
 * udp_on_sock_error() - a flow's host socket reported an error
 * @c:		core
 * @f:		flow, or NULL (nothing is sent)
 * @err:	positive errno (ECONNREFUSED: port unreachable at the peer)
 * @fx:		effects out (ICMP or ICMPv6 unreachable toward the guest;
 *		nothing for ICMP echo flows)
 */
void udp_on_sock_error(struct core *c, struct udp_flow *f, int err,
		       struct fx *fx);

/**
 * udp_guest_gone() - forget every datagram flow: the guest went away
 * @c:		core
 * @fx:		effects out (FX_DGRAM_CLOSE, but for published ports' flows,
 *		whose socket is the listener's)
 *
 * Return: true when every flow is gone, false if @fx filled up first
 */
bool udp_guest_gone(struct core *c, struct fx *fx);

/**
 * udp_timer() - expire idle datagram flows
 * @c:		core
 * @now_ns:	monotonic time
 * @fx:		effects out (FX_DGRAM_CLOSE)
 *
 * Return: the next expiry, or UINT64_MAX
 */
uint64_t udp_timer(struct core *c, uint64_t now_ns, struct fx *fx);

/* datagram flow table; addresses are ADDR_LEN bytes */
struct mig_udp;

/**
 * udp_export() - a datagram flow's state for a migration destination
 * @f:		flow
 * @now_ns:	monotonic time
 * @u:		out (@u->fd is the caller's to set)
 *
 * Return: true if it migrates: a flow with a socket of its own
 * (UDPK_OUT); the others are forgotten (published ports' flows come back
 * with the next datagram, echo flows are single exchanges)
 */
bool udp_export(const struct udp_flow *f, uint64_t now_ns, struct mig_udp *u);

/**
 * udp_import() - take a datagram flow a migration source handed over
 * @c:		core
 * @u:		its state (mig_get_udp())
 * @sock:	its socket
 * @now_ns:	monotonic time
 * @out:	out: the flow
 *
 * Return: NULL, or why it was refused (the caller closes @sock)
 */
const char *udp_import(struct core *c, const struct mig_udp *u, int32_t sock,
		       uint64_t now_ns, struct udp_flow **out);

struct udp_flow *uflow_lookup(struct core *c, uint8_t kind,
			      const uint8_t *gaddr, uint16_t gport,
			      const uint8_t *raddr, uint16_t rport);
struct udp_flow *uflow_alloc(struct core *c, uint8_t kind, const uint8_t *gaddr,
			     uint16_t gport, const uint8_t *raddr,
			     uint16_t rport);
void uflow_free(struct core *c, struct udp_flow *f);

#endif /* SLIPWAY_UDP_H */

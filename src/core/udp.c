/* SPDX-License-Identifier: GPL-2.0-or-later */
/* udp.c - UDP and ICMP echo flows between the guest and host sockets
 *
 * DOC: Theory of Operation
 *
 * A datagram flow is a tuple the guest used (or a published port's client)
 * bound to one host socket: a connected UDP socket for guest-opened flows,
 * the listening socket for published ports (replies go out with sendto()
 * to the client the host layer recorded), or a connected ping socket for
 * ICMP echo (keyed by the guest's echo id), so replies are real, never
 * forged. Datagrams from the guest become FX_DGRAM_SEND intents pointing
 * into the edge buffer; datagrams from the host are received by the host
 * layer straight into frame slots behind the headers, and this file writes
 * the headers. Flows close after conf.udp_idle_ns without traffic.
 *
 * Two services are answered here and not forwarded as flows: DHCPv4
 * (dhcp4.c) and DNS to port 53 of conf.dns4_be or conf.dns6
 * (FX_DNS_QUERY, forwarded by the host layer's resolver client, which
 * answers over the family the query came in).
 *
 * IPv4 and IPv6 flows share the table (16-byte addresses, IPv4
 * v4-mapped); the family decides only the headers written and where the
 * host places a payload in a frame slot (udp_payload_slot()). ICMPv6 echo
 * flows ride on ICMPv6 ping sockets as ICMP echo flows on ICMP ones.
 */

#include <errno.h>

#include "core.h"
#include "csum.h"
#include "dhcp4.h"
#include "mig.h"
#include "udp.h"

#define ICMP_ECHOREPLY 0
#define ICMP_ECHO 8
#define ICMP6_ECHO_REPLY 129

/**
 * uflow_bucket() - hash bucket of a datagram tuple
 * @c:		core
 * @kind:	enum udp_kind
 * @gaddr:	guest-side address
 * @gport:	guest-side port
 * @raddr:	remote address
 * @rport:	remote port
 *
 * Return: bucket index
 */
static uint32_t uflow_bucket(const struct core *c, uint8_t kind,
			     const uint8_t *gaddr, uint16_t gport,
			     const uint8_t *raddr, uint16_t rport)
{
	/* UDP flows of both kinds (OUT, PUB) share a space */
	return (uint32_t)flow_tuple_hash(c->key, gaddr, gport, raddr, rport,
					 kind == UDPK_ICMP) &
	       (c->nubuckets - 1);
}

/**
 * uflow_lookup() - find a datagram flow
 * @c:		core
 * @kind:	enum udp_kind (UDPK_OUT and UDPK_PUB share a space)
 * @gaddr:	guest-side address
 * @gport:	guest-side port
 * @raddr:	remote address
 * @rport:	remote port
 *
 * Return: flow, or NULL
 */
struct udp_flow *uflow_lookup(struct core *c, uint8_t kind,
			      const uint8_t *gaddr, uint16_t gport,
			      const uint8_t *raddr, uint16_t rport)
{
	uint32_t i =
		c->ubuckets[uflow_bucket(c, kind, gaddr, gport, raddr, rport)];
	bool icmp = kind == UDPK_ICMP;

	while (i) {
		struct udp_flow *f = &c->uflows[i - 1];

		if (f->guest_port == gport && f->remote_port == rport &&
		    addr_eq(f->guest_addr, gaddr) &&
		    addr_eq(f->remote_addr, raddr) &&
		    (f->kind == UDPK_ICMP) == icmp)
			return f;
		i = f->next;
	}
	return NULL;
}

/**
 * uflow_alloc() - take a free datagram flow and hash it in
 * @c:		core
 * @kind:	enum udp_kind
 * @gaddr:	guest-side address
 * @gport:	guest-side port
 * @raddr:	remote address
 * @rport:	remote port
 *
 * Return: the flow (sock -1), or NULL if the table is full (counted)
 */
struct udp_flow *uflow_alloc(struct core *c, uint8_t kind, const uint8_t *gaddr,
			     uint16_t gport, const uint8_t *raddr,
			     uint16_t rport)
{
	struct udp_flow *f;
	uint32_t idx, b;

	if (!c->ufree_head) {
		CTR_INC(c, UDP_FLOWS_TABLE_FULL);
		return NULL;
	}
	idx = c->ufree_head - 1;
	f = &c->uflows[idx];
	c->ufree_head = f->next;
	memset(f, 0, sizeof(*f));
	f->used = 1;
	f->kind = kind;
	memcpy(f->guest_addr, gaddr, ADDR_LEN);
	f->guest_port = gport;
	memcpy(f->remote_addr, raddr, ADDR_LEN);
	f->remote_port = rport;
	f->sock = -1;
	b = uflow_bucket(c, kind, gaddr, gport, raddr, rport);
	f->next = c->ubuckets[b];
	c->ubuckets[b] = idx + 1;
	if (idx + 1 > c->uhiwat)
		c->uhiwat = idx + 1;
	CTR_INC(c, UDP_FLOWS_OPENED);
	if (udp_flow_v6(f))
		CTR_INC(c, UDP_FLOWS_OPENED6);
	return f;
}

/**
 * uflow_free() - unhash a datagram flow and free it
 * @c:	core
 * @f:	flow in use
 */
void uflow_free(struct core *c, struct udp_flow *f)
{
	uint32_t idx = udp_flow_idx(c, f), *pp;

	ASSERT(f->used);
	pp = &c->ubuckets[uflow_bucket(c, f->kind, f->guest_addr, f->guest_port,
				       f->remote_addr, f->remote_port)];
	while (*pp && *pp != idx + 1)
		pp = &c->uflows[*pp - 1].next;
	ASSERT(*pp == idx + 1);
	*pp = f->next;
	f->used = 0;
	f->next = c->ufree_head;
	c->ufree_head = idx + 1;
}

/**
 * udp_intent() - queue a datagram intent
 * @c:		core
 * @fx:		effects out
 * @type:	FX_DGRAM_*
 * @f:		flow
 *
 * Return: the intent
 */
static struct fx_intent *udp_intent(struct core *c, struct fx *fx,
				    enum fx_intent_type type,
				    const struct udp_flow *f)
{
	return fx_intent_add(fx, type, udp_flow_idx(c, f), f->sock);
}

/**
 * udp_hdr_room() - bytes of headers before a UDP payload in a slot
 * @c:	core
 * @v6:	IPv6 (else IPv4)
 *
 * Return: vnet + Ethernet + IP + UDP header bytes
 */
static size_t udp_hdr_room(const struct core *c, bool v6)
{
	return core_l3_off(c) + (v6 ? IP6_HLEN : IP4_HLEN) + UDP_HLEN;
}

/**
 * udp_payload_slot() - where the host puts a datagram for the guest
 * @c:	core
 * @fx:	effects batch
 * @v6:	over IPv6
 *
 * Return: payload position in the next slot, or NULL if none is free
 */
uint8_t *udp_payload_slot(struct core *c, struct fx *fx, bool v6)
{
	uint8_t *s = fx_slot_next(fx);

	return s ? s + udp_hdr_room(c, v6) : NULL;
}

/**
 * udp_payload_room() - room for payload in a frame slot, whatever the MTU
 * (datagrams received together, UDP GRO)
 * @c:	core
 * @fx:	effects batch
 * @v6:	over IPv6
 *
 * Return: bytes, at most what one IP packet's length field allows
 */
size_t udp_payload_room(const struct core *c, const struct fx *fx, bool v6)
{
	size_t room = udp_hdr_room(c, v6);

	if (fx->slot_size <= room)
		return 0;
	return MIN(fx->slot_size - room,
		   65535 - UDP_HLEN - (v6 ? 0 : IP4_HLEN));
}

/**
 * udp_payload_max() - largest datagram payload a frame slot can carry
 * @c:	core
 * @fx:	effects batch
 * @v6:	over IPv6
 *
 * Return: bytes (bounded by the MTU too)
 */
size_t udp_payload_max(const struct core *c, const struct fx *fx, bool v6)
{
	size_t room = udp_hdr_room(c, v6);

	if (fx->slot_size <= room)
		return 0;
	return MIN(fx->slot_size - room,
		   (size_t)c->conf.mtu - (v6 ? IP6_HLEN : IP4_HLEN) - UDP_HLEN);
}

/**
 * udp_finish() - write the headers of a datagram already in the slot
 * @c:		core
 * @fx:		effects batch
 * @v6:		over IPv6 (else IPv4)
 * @saddr:	source address (IPv4 v4-mapped)
 * @sport:	source port
 * @daddr:	destination address, same family
 * @dport:	destination port
 * @len:	payload length (at udp_payload_slot() for the family)
 * @seg:	segment size of a UDP GSO frame (conf.uso; @len > @seg, the
 *		datagrams of @seg bytes the host received together, the
 *		last one shorter or not); 0: one datagram
 *
 * Return: 0, or -1 if no slot was free
 */
static int udp_finish(struct core *c, struct fx *fx, bool v6,
		      const uint8_t *saddr, uint16_t sport,
		      const uint8_t *daddr, uint16_t dport, size_t len,
		      uint16_t seg)
{
	uint8_t *slot = fx_slot_next(fx), *ip, *uh;
	size_t l4 = UDP_HLEN + len, iphlen = v6 ? IP6_HLEN : IP4_HLEN;
	struct vnet_hdr vh = { 0 };
	uint32_t sum;

	if (v6) {
		ip = ip6_frame_begin(c, fx, daddr, l4);
	} else {
		uint32_t d4 = addr_to4(daddr);

		ip = core_frame_begin(
			c, fx, ETHERTYPE_IP4,
			d4 == 0xffffffffU ?
				(const uint8_t *)"\xff\xff\xff\xff\xff\xff" :
				NULL);
	}
	if (!ip)
		return -1;
	uh = ip + iphlen;
	wr16(uh, sport);
	wr16(uh + 2, dport);
	wr16(uh + 4, (uint16_t)l4);
	uh[6] = uh[7] = 0;
	if (v6) {
		ip6_build_hdr(ip, IPPROTO_UDP_, saddr, daddr, l4, 64);
		sum = csum_pseudo6(saddr, daddr, IPPROTO_UDP_, (uint32_t)l4);
	} else {
		ip4_build_hdr(c, ip, IPPROTO_UDP_, addr_to4(saddr),
			      addr_to4(daddr), l4);
		sum = csum_pseudo4(addr_to4(saddr), addr_to4(daddr),
				   IPPROTO_UDP_, (uint16_t)l4);
	}
	if (c->conf.csum_offload) {
		wr16(uh + 6, csum_fold(sum));
		vh.flags = VNET_HDR_F_NEEDS_CSUM;
		vh.csum_start = (uint16_t)(ETH_HLEN + iphlen);
		vh.csum_offset = 6;
		if (seg) {
			/* the guest's stack cuts it at @seg, each piece
			 * with its own length and checksum */
			vh.gso_type = VNET_HDR_GSO_UDP_L4;
			vh.gso_size = seg;
			vh.hdr_len = (uint16_t)(ETH_HLEN + iphlen + UDP_HLEN);
			CTR_INC(c, UDP_GSO_TO_GUEST);
		}
		vnet_hdr_write(c, slot, &vh);
	} else {
		uint16_t ck = (uint16_t)~csum_fold(csum_partial(uh, l4, sum));

		/* 0 means "no checksum" (IPv4) or is invalid (IPv6) */
		wr16(uh + 6, ck ? ck : 0xffff);
	}
	fx_slot_commit(fx, (uint32_t)(core_l3_off(c) + iphlen + l4));
	CTR_ADD(c, UDP_TO_GUEST, seg ? (len + seg - 1) / seg : 1);
	return 0;
}

/**
 * udp_copy_send() - send a datagram to the guest, copying it
 * @c:		core
 * @fx:		effects out
 * @v6:		over IPv6 (else IPv4)
 * @saddr:	source address (IPv4 v4-mapped)
 * @sport:	source port
 * @daddr:	destination address
 * @dport:	destination port
 * @data:	payload
 * @len:	payload length
 *
 * Return: 0, or -1 if it did not fit or no slot was free (counted)
 */
static int udp_copy_send(struct core *c, struct fx *fx, bool v6,
			 const uint8_t *saddr, uint16_t sport,
			 const uint8_t *daddr, uint16_t dport,
			 const uint8_t *data, size_t len)
{
	uint8_t *p = udp_payload_slot(c, fx, v6);

	if (!p) {
		CTR_INC(c, FX_POOL_EMPTY);
		return -1;
	}
	if (len > udp_payload_max(c, fx, v6)) {
		CTR_INC(c, UDP_DROP_TOO_BIG);
		return -1;
	}
	memmove(p, data, len);
	return udp_finish(c, fx, v6, saddr, sport, daddr, dport, len, 0);
}

/**
 * udp_send() - send a datagram to the guest in either family, copying it
 * @c:		core
 * @fx:		effects out
 * @saddr:	source address (IPv4 v4-mapped)
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
	     const uint8_t *data, size_t len)
{
	return udp_copy_send(c, fx, !addr_is4(daddr), saddr, sport, daddr,
			     dport, data, len);
}

/**
 * udp6_send() - send a datagram to the guest over IPv6, copying it
 * @c:		core
 * @fx:		effects out
 * @saddr:	source address, 16 bytes
 * @sport:	source port
 * @daddr:	destination address, 16 bytes (IPv6 even if it looks
 *		v4-mapped: a DHCPv6 client's source is answered as it is)
 * @dport:	destination port
 * @data:	payload
 * @len:	payload length
 *
 * Return: 0, or -1 if it did not fit or no slot was free (counted)
 */
int udp6_send(struct core *c, struct fx *fx, const uint8_t *saddr,
	      uint16_t sport, const uint8_t *daddr, uint16_t dport,
	      const uint8_t *data, size_t len)
{
	return udp_copy_send(c, fx, true, saddr, sport, daddr, dport, data,
			     len);
}

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
	      size_t len)
{
	uint8_t s[ADDR_LEN], d[ADDR_LEN];

	addr_from4(s, saddr_be);
	addr_from4(d, daddr_be);
	return udp_send(c, fx, s, sport, d, dport, data, len);
}

/**
 * udp_echo_to_guest() - an echo reply from a ping socket to the guest
 * @c:		core
 * @f:		the echo flow (UDPK_ICMP)
 * @fx:		effects batch; the reply is at udp_payload_slot() for the
 *		flow's family
 * @len:	length of the ICMP or ICMPv6 message
 *
 * The ping socket's reply gets the guest's echo id back and moves to
 * where an ICMP message sits in the frame; its checksum is complete.
 */
static void udp_echo_to_guest(struct core *c, struct udp_flow *f, struct fx *fx,
			      size_t len)
{
	bool v6 = udp_flow_v6(f);
	size_t iphlen = v6 ? IP6_HLEN : IP4_HLEN;
	uint8_t *p = udp_payload_slot(c, fx, v6), *ip, *m;
	uint32_t sum = 0;

	if (!p || len < 8 || p[0] != (v6 ? ICMP6_ECHO_REPLY : ICMP_ECHOREPLY))
		return;
	ip = p - UDP_HLEN - iphlen;
	m = ip + iphlen;
	memmove(m, p, len);
	wr16(m + 4, f->guest_port);
	m[2] = m[3] = 0;
	if (v6) {
		if (!ip6_frame_begin(c, fx, f->guest_addr, len))
			return;
		ip6_build_hdr(ip, IPPROTO_ICMPV6_, f->remote_addr,
			      f->guest_addr, len, 64);
		sum = csum_pseudo6(f->remote_addr, f->guest_addr,
				   IPPROTO_ICMPV6_, (uint32_t)len);
	} else {
		if (!core_frame_begin(c, fx, ETHERTYPE_IP4, NULL))
			return;
		ip4_build_hdr(c, ip, IPPROTO_ICMP_, addr_to4(f->remote_addr),
			      addr_to4(f->guest_addr), len);
	}
	wr16(m + 2, (uint16_t)~csum_fold(csum_partial(m, len, sum)));
	fx_slot_commit(fx, (uint32_t)(core_l3_off(c) + iphlen + len));
	if (v6)
		CTR_INC(c, ICMP6_ECHO_IN);
	else
		CTR_INC(c, ICMP4_ECHO_IN);
}

/**
 * udp_flow_to_guest() - a datagram arrived on a flow's host socket
 * @c:		core
 * @f:		flow
 * @fx:		effects batch; the payload is at udp_payload_slot() for
 *		the flow's family
 * @len:	payload length (ICMP: the whole echo reply message)
 * @seg:	the host received @len bytes as datagrams of @seg bytes (the
 *		last one shorter or not: UDP GRO); 0: one datagram
 * @now_ns:	monotonic time
 *
 * Datagrams received together go to the guest as one UDP GSO frame when
 * the edge carries them (conf.uso), else one frame each, in the slots
 * that follow (those that do not fit are dropped and counted,
 * FX_POOL_EMPTY). Datagrams larger than the guest's MTU allows are
 * dropped and counted (UDP_DROP_TOO_BIG), as one alone would be.
 */
void udp_flow_to_guest(struct core *c, struct udp_flow *f, struct fx *fx,
		       size_t len, uint16_t seg, uint64_t now_ns)
{
	bool v6 = udp_flow_v6(f);
	uint8_t *p = udp_payload_slot(c, fx, v6);
	size_t nseg = 1, room, j;

	if (seg && seg < len && f->kind != UDPK_ICMP)
		nseg = (len + seg - 1) / seg;
	else
		seg = 0;
	f->last_ns = now_ns;
	f->to_guest += nseg;
	f->bytes_to_guest += len;
	if (f->kind == UDPK_ICMP) {
		udp_echo_to_guest(c, f, fx, len);
		return;
	}
	if (!p)
		return;
	if ((seg ? seg : len) > udp_payload_max(c, fx, v6)) {
		CTR_ADD(c, UDP_DROP_TOO_BIG, nseg);
		return;
	}
	if (!seg || c->conf.uso) {
		udp_finish(c, fx, v6, f->remote_addr, f->remote_port,
			   f->guest_addr, f->guest_port, len, seg);
		return;
	}
	/* one frame each: the later datagrams move to the slots after
	 * this one (beyond its end: no overlap), then each gets headers */
	room = fx->nslots - fx->nframes;
	if (nseg > room) {
		CTR_ADD(c, FX_POOL_EMPTY, nseg - room);
		nseg = room;
	}
	for (j = 1; j < nseg; j++)
		memcpy(p + j * fx->slot_size, p + j * seg,
		       MIN((size_t)seg, len - j * seg));
	for (j = 0; j < nseg; j++)
		udp_finish(c, fx, v6, f->remote_addr, f->remote_port,
			   f->guest_addr, f->guest_port,
			   MIN((size_t)seg, len - j * seg), 0);
}

/**
 * udp_pub_to_guest() - a datagram arrived on a published UDP port
 * @c:		core
 * @src:	source address the guest should see
 * @sport:	source port
 * @gport:	guest port
 * @sock:	the listening socket
 * @fx:		effects batch; the payload is at udp_payload_slot() for
 *		@src's family
 * @len:	payload length
 * @now_ns:	monotonic time
 *
 * Return: the flow (new or found); NULL if the table is full, or @src is
 *	   IPv6 and IPv6 is off (counted, dropped)
 */
struct udp_flow *udp_pub_to_guest(struct core *c, const uint8_t *src,
				  uint16_t sport, uint16_t gport, int32_t sock,
				  struct fx *fx, size_t len, uint64_t now_ns)
{
	return udp_pub_to_guest_at(c, NULL, src, sport, gport, sock, fx, len, 0,
				   now_ns);
}

/**
 * udp_pub_to_guest_at() - a datagram arrived on a published UDP port with a
 * guest address of its own
 * @c:		core
 * @gaddr:	guest address (ADDR_LEN bytes, of @src's family), or NULL
 *		for the configured one (udp_pub_to_guest())
 * @src:	source address the guest should see
 * @sport:	source port
 * @gport:	guest port
 * @sock:	the listening socket
 * @fx:		effects batch; the payload is at udp_payload_slot() for
 *		@src's family
 * @len:	payload length
 * @seg:	datagrams of @seg bytes received together (UDP GRO), as for
 *		udp_flow_to_guest(); 0: one datagram
 * @now_ns:	monotonic time
 *
 * Return: as udp_pub_to_guest(); NULL also when @gaddr and @src differ in
 *	   family (counted as IP6_DROP_ADDR)
 */
struct udp_flow *udp_pub_to_guest_at(struct core *c, const uint8_t *gaddr,
				     const uint8_t *src, uint16_t sport,
				     uint16_t gport, int32_t sock,
				     struct fx *fx, size_t len, uint16_t seg,
				     uint64_t now_ns)
{
	uint8_t g[ADDR_LEN];
	struct udp_flow *f;

	if (!core_guest_addr(c, gaddr, src, g))
		return NULL;
	f = uflow_lookup(c, UDPK_PUB, g, gport, src, sport);
	if (!f) {
		f = uflow_alloc(c, UDPK_PUB, g, gport, src, sport);
		if (!f)
			return NULL;
		f->sock = sock;
		f->opened_ns = now_ns;
		if (now_ns + c->conf.udp_idle_ns < c->next_deadline_ns)
			c->next_deadline_ns = now_ns + c->conf.udp_idle_ns;
	}
	udp_flow_to_guest(c, f, fx, len, seg, now_ns);
	return f;
}

/**
 * udp_flow_from_guest() - a guest datagram for a flow (opening it if new)
 * @c:		core
 * @kind:	UDPK_OUT or UDPK_ICMP
 * @saddr:	guest address
 * @sport:	guest port (ICMP: echo id)
 * @daddr:	destination as the guest sees it (not a refused gateway)
 * @dport:	destination port (ICMP: 0)
 * @data:	payload to send (ICMP: the whole echo message)
 * @len:	its length
 * @seg:	UDP GSO: the datagrams' size (@len > @seg), for UDP_SEGMENT;
 *		0: one datagram
 * @now_ns:	monotonic time
 * @fx:		effects out
 */
static void udp_flow_from_guest(struct core *c, uint8_t kind,
				const uint8_t *saddr, uint16_t sport,
				const uint8_t *daddr, uint16_t dport,
				const uint8_t *data, size_t len, uint16_t seg,
				uint64_t now_ns, struct fx *fx)
{
	size_t nseg = seg ? (len + seg - 1) / seg : 1;

	struct udp_flow *f = uflow_lookup(c, kind, saddr, sport, daddr, dport);
	struct fx_intent *it;
	bool v6 = !addr_is4(daddr);

	if (!f) {
		/* the flow may live on another shard (until its first
		 * reply steers the guest's datagrams to that shard's queue) */
		if (core_pass_on(c, -1))
			return;
		f = uflow_alloc(c, kind, saddr, sport, daddr, dport);
		if (!f)
			return;
		if (now_ns + c->conf.udp_idle_ns < c->next_deadline_ns)
			c->next_deadline_ns = now_ns + c->conf.udp_idle_ns;
		f->opened_ns = now_ns;
		it = udp_intent(c, fx, FX_DGRAM_OPEN, f);
		core_dst_map(c, daddr, it->addr);
		it->port = dport;
	}
	f->last_ns = now_ns;
	f->from_guest += nseg;
	f->bytes_from_guest += len;
	it = udp_intent(c, fx, FX_DGRAM_SEND, f);
	it->data_owner = FX_DATA_RXBATCH;
	it->data = data;
	it->len = (uint32_t)len;
	it->port = seg;
	if (kind == UDPK_ICMP && v6)
		CTR_INC(c, ICMP6_ECHO_OUT);
	else if (kind == UDPK_ICMP)
		CTR_INC(c, ICMP4_ECHO_OUT);
	else
		CTR_ADD(c, UDP_FROM_GUEST, nseg);
	if (seg)
		CTR_INC(c, UDP_GSO_FROM_GUEST);
}

/**
 * udp_input() - a UDP datagram from the guest
 * @c:		core
 * @iph:	IPv4 or IPv6 header (validated; an IPv4 destination may be
 *		broadcast for DHCP)
 * @v:		UDP header and payload
 * @vh:		the frame's vnet header, or NULL: a UDP GSO frame
 *		(VNET_HDR_GSO_UDP_L4) carries datagrams of vh->gso_size bytes
 * @now_ns:	monotonic time
 * @fx:		effects out
 *
 * A UDP GSO frame is taken only when the edge offered them (conf.uso_in),
 * for a flow (not DHCP or DNS), with segments the MTU allows, at most
 * UDP_GSO_SEGS_MAX of them; anything else is dropped and counted
 * (UDP_DROP_BAD_GSO).
 */
void udp_input(struct core *c, const uint8_t *iph, struct pkt_view v,
	       const struct vnet_hdr *vh, uint64_t now_ns, struct fx *fx)
{
	const uint8_t *uh = pkt_pull(&v, UDP_HLEN);
	uint8_t saddr[ADDR_LEN], daddr[ADDR_LEN], target[ADDR_LEN];
	bool v6 = (iph[0] >> 4) == 6, dns;
	uint16_t sport, dport, ulen, seg = 0;

	if (!uh) {
		CTR_INC(c, UDP_DROP_BAD_HDR);
		return;
	}
	sport = rd16(uh);
	dport = rd16(uh + 2);
	ulen = rd16(uh + 4);
	if (ulen < UDP_HLEN || (size_t)(ulen - UDP_HLEN) > v.len || !dport) {
		CTR_INC(c, UDP_DROP_BAD_HDR);
		return;
	}
	v.len = ulen - UDP_HLEN; /* ignore padding */
	addr_from_ip(iph, saddr, daddr);
	if (vh && (vh->gso_type & ~VNET_HDR_GSO_ECN) == VNET_HDR_GSO_UDP_L4) {
		seg = vh->gso_size; /* read once */
		if (!c->conf.uso_in || !seg ||
		    (size_t)seg + UDP_HLEN + (v6 ? IP6_HLEN : IP4_HLEN) >
			    c->conf.mtu ||
		    v.len > (size_t)seg * UDP_GSO_SEGS_MAX ||
		    core_dns_dst(c, daddr, dport) ||
		    (!v6 && dport == DHCP4_SERVER_PORT)) {
			CTR_INC(c, UDP_DROP_BAD_GSO);
			return;
		}
		if (seg >= v.len)
			seg = 0; /* one datagram */
	}

	if (!v6) {
		uint32_t d4 = addr_to4(daddr);

		if (dport == DHCP4_SERVER_PORT &&
		    (d4 == 0xffffffffU || d4 == c->conf.gw4_be)) {
			if (c->conf.dhcp)
				dhcp4_input(c, iph, v, fx);
			else
				CTR_INC(c, DHCP4_DROP_IGNORED);
			return;
		}
		if (d4 == 0xffffffffU || !sport) {
			CTR_INC(c, IP4_DROP_ADDR);
			return;
		}
	} else if (!sport) {
		CTR_INC(c, IP6_DROP_ADDR);
		return;
	}
	dns = core_dns_dst(c, daddr, dport);
	if (dns && dport == 53) {
		struct fx_intent *it = fx_intent_add(fx, FX_DNS_QUERY, 0, -1);

		it->data_owner = FX_DATA_RXBATCH;
		it->data = v.p;
		it->len = (uint32_t)v.len;
		memcpy(it->addr, saddr, ADDR_LEN);
		it->port = sport;
		CTR_INC(c, DNS_QUERIES);
		if (v6)
			CTR_INC(c, DNS_QUERIES6);
		return;
	}
	if (dns || !core_dst_map(c, daddr, target)) {
		/* as for TCP (the forwarder's address has no port but 53):
		 * refused, port unreachable, or with
		 * conf.gw_unreach no route (the header and 8 bytes are
		 * contiguous in the frame; IPv6 quotes what fits, RFC 4443
		 * 2.4) */
		if (v6)
			icmp6_send_unreach(c, c->conf.gw_unreach ? 0 : 4, iph,
					   (size_t)(v.p + v.len - iph), fx);
		else
			icmp4_send_unreach(c, c->conf.gw_unreach ? 0 : 3, iph,
					   (size_t)(uh + UDP_HLEN - iph), fx);
		CTR_INC(c, UDP_UNREACH_SENT);
		return;
	}
	udp_flow_from_guest(c, UDPK_OUT, saddr, sport, daddr, dport, v.p, v.len,
			    seg, now_ns, fx);
}

/**
 * icmp_echo_out() - an echo request for a host other than ours, either family
 * @c:		core
 * @iph:	IPv4 or IPv6 header of the request
 * @v:		the ICMP (type 8) or ICMPv6 (type 128) message, code 0,
 *		validated length >= 8
 * @now_ns:	monotonic time
 * @fx:		effects out
 *
 * Keyed by the guest's echo id, sent on a ping socket of the family (the
 * kernel puts its own id in and computes the checksum).
 */
void icmp_echo_out(struct core *c, const uint8_t *iph, struct pkt_view v,
		   uint64_t now_ns, struct fx *fx)
{
	uint8_t saddr[ADDR_LEN], daddr[ADDR_LEN];

	addr_from_ip(iph, saddr, daddr);
	udp_flow_from_guest(c, UDPK_ICMP, saddr, rd16(v.p + 4), daddr, 0, v.p,
			    v.len, 0, now_ns, fx);
}

/**
 * udp_on_sock_error() - a flow's host socket reported an error
 * @c:		core
 * @f:		flow, or NULL (then nothing is quoted: no message is sent)
 * @err:	positive errno (ECONNREFUSED: port unreachable at the peer;
 *		else host, or for IPv6 address, unreachable)
 * @fx:		effects out (ICMP or ICMPv6 unreachable toward the guest)
 *
 * Errors of ICMP echo flows are not reported to the guest. The flow stays.
 */
void udp_on_sock_error(struct core *c, struct udp_flow *f, int err,
		       struct fx *fx)
{
	uint8_t orig[IP6_HLEN + UDP_HLEN];
	size_t n;

	if (!f || f->kind == UDPK_ICMP)
		return;
	/* rebuild the guest's datagram headers for the ICMP payload */
	n = icmp_quote_build(orig, IPPROTO_UDP_, f->guest_addr, f->remote_addr,
			     f->guest_port, f->remote_port, UDP_HLEN);
	wr16(orig + n - 4, UDP_HLEN);
	if (udp_flow_v6(f))
		icmp6_send_unreach(c, err == ECONNREFUSED ? 4 : 3, orig, n, fx);
	else
		icmp4_send_unreach(c, err == ECONNREFUSED ? 3 : 1, orig, n, fx);
	CTR_INC(c, UDP_UNREACH_SENT);
}

/**
 * udp_pub_forget() - forget the flows of a published UDP port that goes away
 * @c:		core
 * @sock:	the port's listening socket (about to be closed)
 *
 * The flows hold the socket only to reply through it; they are freed
 * without intents (the host closes the socket itself).
 *
 * Return: flows freed (counted as UDP_FLOWS_UNPUBLISHED)
 */
unsigned udp_pub_forget(struct core *c, int32_t sock)
{
	unsigned n = 0;
	uint32_t i;

	for (i = 0; i < c->uhiwat; i++) {
		struct udp_flow *f = &c->uflows[i];

		if (!f->used || f->kind != UDPK_PUB || f->sock != sock)
			continue;
		CTR_INC(c, UDP_FLOWS_UNPUBLISHED);
		uflow_free(c, f);
		n++;
	}
	return n;
}

/**
 * udp_export() - a datagram flow's state for a migration destination
 * @f:		flow
 * @now_ns:	monotonic time
 * @u:		out
 *
 * Return: true if it migrates (UDPK_OUT)
 */
bool udp_export(const struct udp_flow *f, uint64_t now_ns, struct mig_udp *u)
{
	if (!f->used || f->kind != UDPK_OUT || f->sock < 0)
		return false;
	memset(u, 0, sizeof(*u));
	FLOW_TUPLE_COPY(u, f);
	u->idle_ns = now_ns > f->last_ns ? now_ns - f->last_ns : 0;
	u->from_guest = f->from_guest;
	u->to_guest = f->to_guest;
	return true;
}

/**
 * udp_import() - take a datagram flow a migration source handed over
 * @c:		core
 * @u:		its state
 * @sock:	its socket
 * @now_ns:	monotonic time
 * @out:	out: the flow
 *
 * Return: NULL, or why it was refused
 */
const char *udp_import(struct core *c, const struct mig_udp *u, int32_t sock,
		       uint64_t now_ns, struct udp_flow **out)
{
	struct udp_flow *f;

	if (addr_is4(u->guest_addr) != addr_is4(u->remote_addr) ||
	    (!addr_is4(u->guest_addr) && !c->conf.ipv6))
		return "a UDP flow of mixed or unserved address families";
	if (uflow_lookup(c, UDPK_OUT, u->guest_addr, u->guest_port,
			 u->remote_addr, u->remote_port))
		return "a UDP flow that is here already";
	f = uflow_alloc(c, UDPK_OUT, u->guest_addr, u->guest_port,
			u->remote_addr, u->remote_port);
	if (!f)
		return "the datagram flow table is full";
	f->sock = sock;
	/* idle time carries over, so it expires when it would have */
	f->last_ns = now_ns > u->idle_ns ? now_ns - u->idle_ns : 0;
	f->opened_ns = now_ns; /* not carried over: the age starts here */
	f->from_guest = u->from_guest;
	f->to_guest = u->to_guest;
	CTR_INC(c, MIG_UDP_IN);
	*out = f;
	return NULL;
}

/**
 * udp_guest_gone() - forget every datagram flow: the guest went away
 * @c:		core
 * @fx:		effects out (FX_DGRAM_CLOSE)
 *
 * Return: true when every flow is gone, false if @fx filled up first
 */
bool udp_guest_gone(struct core *c, struct fx *fx)
{
	uint32_t i;

	for (i = 0; i < c->uhiwat; i++) {
		struct udp_flow *f = &c->uflows[i];

		if (!f->used)
			continue;
		if (fx->nintents + 2 >= FX_MAX_INTENTS)
			return false;
		if (f->kind != UDPK_PUB)
			udp_intent(c, fx, FX_DGRAM_CLOSE, f);
		CTR_INC(c, UDP_FLOWS_GUEST_GONE);
		uflow_free(c, f);
	}
	return true;
}

/**
 * udp_timer() - expire idle datagram flows
 * @c:		core
 * @now_ns:	monotonic time
 * @fx:		effects out (FX_DGRAM_CLOSE)
 *
 * Return: the next expiry, or UINT64_MAX
 */
uint64_t udp_timer(struct core *c, uint64_t now_ns, struct fx *fx)
{
	uint64_t next = UINT64_MAX;
	uint32_t i;

	for (i = 0; i < c->uhiwat; i++) {
		struct udp_flow *f = &c->uflows[i];
		uint64_t exp;

		if (!f->used)
			continue;
		exp = f->last_ns + c->conf.udp_idle_ns;
		if (exp > now_ns) {
			next = MIN(next, exp);
			continue;
		}
		if (fx->nintents + 2 >= FX_MAX_INTENTS)
			return now_ns; /* the host drains and calls again */
		if (f->kind != UDPK_PUB)
			udp_intent(c, fx, FX_DGRAM_CLOSE, f);
		CTR_INC(c, UDP_FLOWS_EXPIRED);
		uflow_free(c, f);
	}
	return next;
}

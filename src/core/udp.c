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
 * (dhcp4.c) and DNS to conf.dns4_be port 53 (FX_DNS_QUERY, forwarded by
 * the host layer's resolver client).
 */

#include <errno.h>

#include "../util/siphash.h"
#include "core.h"
#include "csum.h"
#include "dhcp4.h"
#include "udp.h"

#define ICMP_ECHOREPLY 0
#define ICMP_ECHO 8

/**
 * uflow_bucket() - hash bucket of a datagram tuple
 * @c:		core
 * @kind:	enum udp_kind
 * @gaddr_be:	guest-side address
 * @gport:	guest-side port
 * @raddr_be:	remote address
 * @rport:	remote port
 *
 * Return: bucket index
 */
static uint32_t uflow_bucket(const struct core *c, uint8_t kind,
			     uint32_t gaddr_be, uint16_t gport,
			     uint32_t raddr_be, uint16_t rport)
{
	uint8_t t[13];

	memcpy(t, &gaddr_be, 4);
	memcpy(t + 4, &raddr_be, 4);
	wr16(t + 8, gport);
	wr16(t + 10, rport);
	t[12] = kind == UDPK_ICMP; /* UDP flows of both kinds share a space */
	return (uint32_t)siphash24(c->key, t, sizeof(t)) & (c->nubuckets - 1);
}

/**
 * uflow_lookup() - find a datagram flow
 * @c:		core
 * @kind:	enum udp_kind (UDPK_OUT and UDPK_PUB share a space)
 * @gaddr_be:	guest-side address
 * @gport:	guest-side port
 * @raddr_be:	remote address
 * @rport:	remote port
 *
 * Return: flow, or NULL
 */
struct udp_flow *uflow_lookup(struct core *c, uint8_t kind, uint32_t gaddr_be,
			      uint16_t gport, uint32_t raddr_be, uint16_t rport)
{
	uint32_t i = c->ubuckets[uflow_bucket(c, kind, gaddr_be, gport,
					       raddr_be, rport)];
	bool icmp = kind == UDPK_ICMP;

	while (i) {
		struct udp_flow *f = &c->uflows[i - 1];

		if (f->guest_port == gport && f->remote_port == rport &&
		    f->guest_addr_be == gaddr_be &&
		    f->remote_addr_be == raddr_be &&
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
 * @gaddr_be:	guest-side address
 * @gport:	guest-side port
 * @raddr_be:	remote address
 * @rport:	remote port
 *
 * Return: the flow (sock -1), or NULL if the table is full (counted)
 */
struct udp_flow *uflow_alloc(struct core *c, uint8_t kind, uint32_t gaddr_be,
			     uint16_t gport, uint32_t raddr_be, uint16_t rport)
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
	f->guest_addr_be = gaddr_be;
	f->guest_port = gport;
	f->remote_addr_be = raddr_be;
	f->remote_port = rport;
	f->sock = -1;
	b = uflow_bucket(c, kind, gaddr_be, gport, raddr_be, rport);
	f->next = c->ubuckets[b];
	c->ubuckets[b] = idx + 1;
	if (idx + 1 > c->uhiwat)
		c->uhiwat = idx + 1;
	CTR_INC(c, UDP_FLOWS_OPENED);
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
	pp = &c->ubuckets[uflow_bucket(c, f->kind, f->guest_addr_be,
				       f->guest_port, f->remote_addr_be,
				       f->remote_port)];
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
	struct fx_intent *it;

	ASSERT(fx->nintents < FX_MAX_INTENTS);
	it = &fx->intents[fx->nintents++];
	memset(it, 0, sizeof(*it));
	it->type = (uint8_t)type;
	it->flow = udp_flow_idx(c, f);
	it->sock = f->sock;
	return it;
}

/**
 * udp_hdr_room() - bytes of headers before a UDP payload in a slot
 * @c:	core
 *
 * Return: vnet + Ethernet + IPv4 + UDP header bytes
 */
static size_t udp_hdr_room(const struct core *c)
{
	return core_l3_off(c) + IP4_HLEN + UDP_HLEN;
}

/**
 * udp_payload_slot() - where the host puts a datagram for the guest
 * @c:	core
 * @fx:	effects batch
 *
 * Return: payload position in the next slot, or NULL if none is free
 */
uint8_t *udp_payload_slot(struct core *c, struct fx *fx)
{
	uint8_t *s = fx_slot_next(fx);

	return s ? s + udp_hdr_room(c) : NULL;
}

/**
 * udp_payload_max() - largest datagram payload a frame slot can carry
 * @c:	core
 * @fx:	effects batch
 *
 * Return: bytes (bounded by the MTU too)
 */
size_t udp_payload_max(const struct core *c, const struct fx *fx)
{
	return MIN(fx->slot_size - udp_hdr_room(c),
		   (size_t)c->conf.mtu - IP4_HLEN - UDP_HLEN);
}

/**
 * udp4_finish() - write the headers of a datagram already in the slot
 * @c:		core
 * @fx:		effects batch
 * @saddr_be:	source address
 * @sport:	source port
 * @daddr_be:	destination address
 * @dport:	destination port
 * @len:	payload length (at udp_payload_slot())
 *
 * Return: 0, or -1 if no slot was free
 */
static int udp4_finish(struct core *c, struct fx *fx, uint32_t saddr_be,
		       uint16_t sport, uint32_t daddr_be, uint16_t dport,
		       size_t len)
{
	uint8_t *slot = fx_slot_next(fx), *ip, *uh;
	size_t l4 = UDP_HLEN + len;
	struct vnet_hdr vh = { 0 };
	uint32_t sum;

	ip = core_frame_begin(c, fx, ETHERTYPE_IP4,
			      daddr_be == 0xffffffffU ?
				      (const uint8_t *)"\xff\xff\xff\xff\xff\xff" :
				      NULL);
	if (!ip)
		return -1;
	uh = ip + IP4_HLEN;
	wr16(uh, sport);
	wr16(uh + 2, dport);
	wr16(uh + 4, (uint16_t)l4);
	uh[6] = uh[7] = 0;
	ip4_build_hdr(c, ip, IPPROTO_UDP_, saddr_be, daddr_be, l4);
	sum = csum_pseudo4(saddr_be, daddr_be, IPPROTO_UDP_, (uint16_t)l4);
	if (c->conf.csum_offload) {
		wr16(uh + 6, csum_fold(sum));
		vh.flags = VNET_HDR_F_NEEDS_CSUM;
		vh.csum_start = ETH_HLEN + IP4_HLEN;
		vh.csum_offset = 6;
		vnet_hdr_write(c, slot, &vh);
	} else {
		uint16_t ck = (uint16_t)~csum_fold(csum_partial(uh, l4, sum));

		wr16(uh + 6, ck ? ck : 0xffff);
	}
	fx_slot_commit(fx, (uint32_t)(core_l3_off(c) + IP4_HLEN + l4));
	CTR_INC(c, UDP_TO_GUEST);
	return 0;
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
	uint8_t *p = udp_payload_slot(c, fx);

	if (!p) {
		CTR_INC(c, FX_POOL_EMPTY);
		return -1;
	}
	if (len > udp_payload_max(c, fx)) {
		CTR_INC(c, UDP_DROP_TOO_BIG);
		return -1;
	}
	memmove(p, data, len);
	return udp4_finish(c, fx, saddr_be, sport, daddr_be, dport, len);
}

/**
 * udp_flow_to_guest() - a datagram arrived on a flow's host socket
 * @c:		core
 * @f:		flow
 * @fx:		effects batch; the payload is at udp_payload_slot()
 * @len:	payload length (ICMP: the whole echo reply message)
 * @now_ns:	monotonic time
 */
void udp_flow_to_guest(struct core *c, struct udp_flow *f, struct fx *fx,
		       size_t len, uint64_t now_ns)
{
	f->last_ns = now_ns;
	f->to_guest++;
	if (f->kind == UDPK_ICMP) {
		/* the ping socket's reply: give it back the guest's echo id,
		 * and move it to where an ICMP message sits in the frame */
		uint8_t *p = udp_payload_slot(c, fx), *ip, *m;

		if (!p || len < 8 || p[0] != ICMP_ECHOREPLY)
			return;
		ip = p - UDP_HLEN - IP4_HLEN;
		m = ip + IP4_HLEN;
		memmove(m, p, len);
		wr16(m + 4, f->guest_port);
		m[2] = m[3] = 0;
		wr16(m + 2, (uint16_t)~csum_fold(csum_partial(m, len, 0)));
		if (!core_frame_begin(c, fx, ETHERTYPE_IP4, NULL))
			return;
		ip4_build_hdr(c, ip, IPPROTO_ICMP_, f->remote_addr_be,
			      f->guest_addr_be, len);
		fx_slot_commit(fx, (uint32_t)(core_l3_off(c) + IP4_HLEN + len));
		CTR_INC(c, ICMP4_ECHO_IN);
		return;
	}
	udp4_finish(c, fx, f->remote_addr_be, f->remote_port, f->guest_addr_be,
		    f->guest_port, len);
}

/**
 * udp_pub_to_guest() - a datagram arrived on a published UDP port
 * @c:		core
 * @src_be:	source address the guest should see
 * @sport:	source port
 * @gport:	guest port
 * @sock:	the listening socket
 * @fx:		effects batch; the payload is at udp_payload_slot()
 * @len:	payload length
 * @now_ns:	monotonic time
 *
 * Return: the flow (new or found); NULL if the table is full
 */
struct udp_flow *udp_pub_to_guest(struct core *c, uint32_t src_be,
				  uint16_t sport, uint16_t gport, int32_t sock,
				  struct fx *fx, size_t len, uint64_t now_ns)
{
	uint32_t g = c->conf.guest4_be;
	struct udp_flow *f = uflow_lookup(c, UDPK_PUB, g, gport, src_be, sport);

	if (!f) {
		f = uflow_alloc(c, UDPK_PUB, g, gport, src_be, sport);
		if (!f)
			return NULL;
		f->sock = sock;
		if (now_ns + c->conf.udp_idle_ns < c->next_deadline_ns)
			c->next_deadline_ns = now_ns + c->conf.udp_idle_ns;
	}
	udp_flow_to_guest(c, f, fx, len, now_ns);
	return f;
}

/**
 * udp_flow_from_guest() - a guest datagram for a flow (opening it if new)
 * @c:		core
 * @kind:	UDPK_OUT or UDPK_ICMP
 * @saddr_be:	guest address
 * @sport:	guest port (ICMP: echo id)
 * @daddr_be:	destination as the guest sees it
 * @dport:	destination port (ICMP: 0)
 * @data:	payload to send (ICMP: the whole echo message)
 * @len:	its length
 * @now_ns:	monotonic time
 * @fx:		effects out
 */
static void udp_flow_from_guest(struct core *c, uint8_t kind,
				uint32_t saddr_be, uint16_t sport,
				uint32_t daddr_be, uint16_t dport,
				const uint8_t *data, size_t len,
				uint64_t now_ns, struct fx *fx)
{
	struct udp_flow *f = uflow_lookup(c, kind, saddr_be, sport, daddr_be,
					  dport);
	struct fx_intent *it;

	if (!f) {
		/* the flow may live on another shard (until its first
		 * reply steers the guest's datagrams to that shard's queue) */
		if (core_pass_on(c, -1))
			return;
		f = uflow_alloc(c, kind, saddr_be, sport, daddr_be, dport);
		if (!f)
			return;
		f->target_addr_be = daddr_be;
		f->target_port = dport;
		if (daddr_be == c->conf.gw4_be)
			f->target_addr_be = __builtin_bswap32(0x7f000001);
		if (now_ns + c->conf.udp_idle_ns < c->next_deadline_ns)
			c->next_deadline_ns = now_ns + c->conf.udp_idle_ns;
		udp_intent(c, fx, FX_DGRAM_OPEN, f);
	}
	f->last_ns = now_ns;
	f->from_guest++;
	it = udp_intent(c, fx, FX_DGRAM_SEND, f);
	it->data = data;
	it->len = (uint32_t)len;
	if (kind == UDPK_ICMP)
		CTR_INC(c, ICMP4_ECHO_OUT);
	else
		CTR_INC(c, UDP_FROM_GUEST);
}

/**
 * udp_input() - a UDP datagram from the guest
 * @c:		core
 * @iph:	IPv4 header (validated; the destination may be broadcast for
 *		DHCP)
 * @v:		UDP header and payload
 * @now_ns:	monotonic time
 * @fx:		effects out
 */
void udp_input(struct core *c, const uint8_t *iph, struct pkt_view v,
	       uint64_t now_ns, struct fx *fx)
{
	const uint8_t *uh = pkt_pull(&v, UDP_HLEN);
	uint32_t saddr, daddr;
	uint16_t sport, dport, ulen;

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
	memcpy(&saddr, iph + 12, 4);
	memcpy(&daddr, iph + 16, 4);

	if (dport == DHCP4_SERVER_PORT &&
	    (daddr == 0xffffffffU || daddr == c->conf.gw4_be)) {
		if (c->conf.dhcp)
			dhcp4_input(c, iph, v, fx);
		else
			CTR_INC(c, DHCP4_DROP_IGNORED);
		return;
	}
	if (daddr == 0xffffffffU || !sport) {
		CTR_INC(c, IP4_DROP_ADDR);
		return;
	}
	if (c->conf.dns4_be && daddr == c->conf.dns4_be && dport == 53) {
		struct fx_intent *it;

		ASSERT(fx->nintents < FX_MAX_INTENTS);
		it = &fx->intents[fx->nintents++];
		memset(it, 0, sizeof(*it));
		it->type = FX_DNS_QUERY;
		it->sock = -1;
		it->data = v.p;
		it->len = (uint32_t)v.len;
		it->addr_be = saddr;
		it->port = sport;
		CTR_INC(c, DNS_QUERIES);
		return;
	}
	if (daddr == c->conf.gw4_be && !c->conf.map_gw_to_loopback) {
		/* as for TCP: refused (the header and 8 bytes are contiguous
		 * in the frame) */
		icmp4_send_unreach(c, 3, iph, (size_t)(uh + UDP_HLEN - iph), fx);
		CTR_INC(c, UDP_UNREACH_SENT);
		return;
	}
	udp_flow_from_guest(c, UDPK_OUT, saddr, sport, daddr, dport, v.p, v.len,
			    now_ns, fx);
}

/**
 * icmp4_echo_out() - an echo request for a host other than the gateway
 * @c:		core
 * @iph:	IPv4 header of the request
 * @v:		the ICMP message (type 8), validated length >= 8
 * @now_ns:	monotonic time
 * @fx:		effects out
 */
void icmp4_echo_out(struct core *c, const uint8_t *iph, struct pkt_view v,
		    uint64_t now_ns, struct fx *fx)
{
	uint32_t saddr, daddr;

	memcpy(&saddr, iph + 12, 4);
	memcpy(&daddr, iph + 16, 4);
	udp_flow_from_guest(c, UDPK_ICMP, saddr, rd16(v.p + 4), daddr, 0, v.p,
			    v.len, now_ns, fx);
}

/**
 * udp_on_sock_error() - a flow's host socket reported an error
 * @c:		core
 * @f:		flow, or NULL (then nothing is quoted: no message is sent)
 * @err:	positive errno (ECONNREFUSED: port unreachable at the peer)
 * @fx:		effects out (ICMP unreachable toward the guest)
 */
void udp_on_sock_error(struct core *c, struct udp_flow *f, int err,
		       struct fx *fx)
{
	uint8_t orig[28];

	if (!f || f->kind == UDPK_ICMP)
		return;
	/* rebuild the guest's datagram headers for the ICMP payload */
	memset(orig, 0, sizeof(orig));
	orig[0] = 0x45;
	wr16(orig + 2, 28);
	orig[8] = 64;
	orig[9] = IPPROTO_UDP_;
	memcpy(orig + 12, &f->guest_addr_be, 4);
	memcpy(orig + 16, &f->remote_addr_be, 4);
	wr16(orig + 20, f->guest_port);
	wr16(orig + 22, f->remote_port);
	wr16(orig + 24, 8);
	icmp4_send_unreach(c, err == ECONNREFUSED ? 3 : 1, orig, sizeof(orig),
			   fx);
	CTR_INC(c, UDP_UNREACH_SENT);
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

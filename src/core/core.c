/* SPDX-License-Identifier: GPL-2.0-or-later */
/* core.c - core set-up, frame dispatch, virtio-net header, timers */

#include <errno.h>

#include "core.h"
#include "dhcp6.h"
#include "ndp.h"
#include "tcp.h"
#include "udp.h"

/**
 * core_nbuckets() - hash bucket count for a flow table size
 * @max_flows:	flow table size
 *
 * Return: a power of two at least twice @max_flows
 */
static uint32_t core_nbuckets(uint32_t max_flows)
{
	uint32_t n = 16;

	while (n < 2 * max_flows)
		n <<= 1;
	return n;
}

/**
 * core_mem_size() - bytes of memory core_init() needs for a configuration
 * @conf:	configuration
 *
 * Return: size in bytes
 */
size_t core_mem_size(const struct core_conf *conf)
{
	return (size_t)conf->max_flows * sizeof(struct tcp_flow) +
	       (size_t)core_nbuckets(conf->max_flows) * sizeof(uint32_t) +
	       (size_t)conf->max_flows * sizeof(uint32_t) +
	       (size_t)conf->max_udp_flows * sizeof(struct udp_flow) +
	       (size_t)core_nbuckets(conf->max_udp_flows) * sizeof(uint32_t) +
	       (size_t)conf->ooo_slots *
		       (sizeof(struct tcp_ooo) + TCP_OOO_SLOT) +
	       8; /* the ooo slots are 8-byte aligned */
}

/**
 * core_conf_default() - the configuration every core starts from
 * @cc:		configuration out
 */
void core_conf_default(struct core_conf *cc)
{
	static const uint8_t gw_mac[ETH_ALEN] = CORE_GW_MAC;
	static const uint8_t net4[4] = CORE_NET4_DEFAULT;
	uint8_t a[4];
	unsigned i;

	memset(cc, 0, sizeof(*cc));
	memcpy(cc->our_mac, gw_mac, ETH_ALEN);
	memcpy(a, net4, 4);
	a[3] = CORE_GUEST4_HOST;
	memcpy(&cc->guest4_be, a, 4);
	a[3] = CORE_GW4_HOST;
	memcpy(&cc->gw4_be, a, 4);
	for (i = 0; i < 4; i++) /* the prefix's bits, in network order */
		a[i] = (uint8_t)(CORE_NET4_PREFIX_DEFAULT >= 8 * (i + 1) ?
					 0xff :
				 CORE_NET4_PREFIX_DEFAULT <= 8 * i ?
					 0 :
					 0xff << (8 -
						  (CORE_NET4_PREFIX_DEFAULT -
						   8 * i)));
	memcpy(&cc->mask4_be, a, 4);
	cc->map_gw_to_loopback = true;
	cc->mtu = CORE_MTU_DEFAULT;
	cc->ws_shift = CORE_WS_SHIFT_DEFAULT;
	cc->gw6_ll[0] = 0xfe; /* fe80::1 */
	cc->gw6_ll[1] = 0x80;
	cc->gw6_ll[15] = 1;
	cc->dhcp4.lease_s = CORE_DHCP4_LEASE_S;
}

/**
 * core_conf6_bad() - check the IPv6 part of a configuration
 * @conf:	configuration with ipv6 on
 *
 * The gateway's link-local address must be link-local unicast (fe80::/10:
 * RFC 4861 router advertisements come from one), its ULA address and the
 * DNS address (unless ::, none) unicast and not ::, the MTU at least the
 * IPv6 minimum (1280, RFC 8200 section 5) and the router lifetime fit its
 * 16-bit field.
 *
 * Return: true if the configuration is unusable
 */
static bool core_conf6_bad(const struct core_conf *conf)
{
	static const uint8_t zero[16];

	return conf->gw6_ll[0] != 0xfe || (conf->gw6_ll[1] & 0xc0) != 0x80 ||
	       conf->gw6[0] == 0xff || !memcmp(conf->gw6, zero, 16) ||
	       conf->dns6[0] == 0xff || conf->mtu < 1280 ||
	       conf->ra_router_lifetime_s > 65535;
}

/**
 * core_init() - set up a core in caller-provided memory
 * @c:		core to initialise
 * @conf:	configuration (copied)
 * @mem:	zeroed memory of core_mem_size() bytes, 8-byte aligned
 * @ctr:	counter array of CTR_NUM entries
 * @key:	16 random bytes
 *
 * Return: 0, or -EINVAL for a bad configuration
 */
int core_init(struct core *c, const struct core_conf *conf, void *mem,
	      uint64_t *ctr, const uint8_t key[16])
{
	uint8_t *p = mem;
	uint32_t i;

	if (!conf->max_flows || conf->max_flows > (1U << 24) ||
	    conf->mtu < 576 || conf->mtu > 65521 ||
	    (conf->vnet_hdr_len != 0 && conf->vnet_hdr_len != 10 &&
	     conf->vnet_hdr_len != 12) ||
	    (conf->csum_offload && !conf->vnet_hdr_len) ||
	    (conf->uso && !conf->csum_offload) ||
	    (conf->uso_in && !conf->vnet_hdr_len) || conf->ws_shift > 14 ||
	    conf->max_udp_flows > (1U << 24) || conf->ooo_slots > 4096 ||
	    (conf->gso_max && (!conf->csum_offload ||
			       conf->gso_max > 65535 - IP4_HLEN - TCP_HLEN)))
		return -EINVAL;
	if (conf->ipv6 && (core_conf6_bad(conf) || dhcp6_conf_bad(conf)))
		return -EINVAL;

	memset(c, 0, sizeof(*c));
	c->conf = *conf;
	if (!c->conf.rto_min_ns)
		c->conf.rto_min_ns = 200ULL * 1000 * 1000;
	c->ctr = ctr;
	c->flows = (struct tcp_flow *)(void *)p;
	p += (size_t)conf->max_flows * sizeof(struct tcp_flow);
	c->nbuckets = core_nbuckets(conf->max_flows);
	c->buckets = (uint32_t *)(void *)p;
	p += (size_t)c->nbuckets * sizeof(uint32_t);
	c->ack_list = (uint32_t *)(void *)p;
	p += (size_t)conf->max_flows * sizeof(uint32_t);
	c->uflows = (struct udp_flow *)(void *)p;
	p += (size_t)conf->max_udp_flows * sizeof(struct udp_flow);
	c->nubuckets = core_nbuckets(conf->max_udp_flows);
	c->ubuckets = (uint32_t *)(void *)p;
	p += (size_t)c->nubuckets * sizeof(uint32_t);
	p = (uint8_t *)(((uintptr_t)p + 7) & ~(uintptr_t)7);
	c->ooo = (struct tcp_ooo *)(void *)p;
	p += (size_t)conf->ooo_slots * sizeof(struct tcp_ooo);
	c->ooo_data = p;
	for (i = 0; i < conf->max_udp_flows; i++)
		c->uflows[i].next = (i + 1 < conf->max_udp_flows) ? i + 2 : 0;
	c->ufree_head = conf->max_udp_flows ? 1 : 0;
	if (!c->conf.udp_idle_ns)
		c->conf.udp_idle_ns = 180ULL * 1000 * 1000 * 1000;
	memcpy(c->key, key, 16);
	c->next_deadline_ns = UINT64_MAX;
	ndp_init(c); /* periodic router advertisements: due at once */

	/* free list in index order, so low indices are reused first */
	for (i = 0; i < conf->max_flows; i++) {
		c->flows[i].state = TCPS_FREE;
		c->flows[i].next = (i + 1 < conf->max_flows) ? i + 2 : 0;
	}
	c->free_head = 1;
	return 0;
}

/**
 * vnet_hdr_parse() - decode the vnet header of a received frame
 * @c:	core (header length)
 * @v:	frame view, advanced past the header
 * @h:	decoded fields
 *
 * Invalid: a GSO type we do not know, GSO headers (@hdr_len) longer than
 * the frame, or with NEEDS_CSUM a checksum field (@csum_start +
 * @csum_offset, two bytes) beyond the frame. The kernel's tap fills
 * @hdr_len with the frame's linear part and the checksum offsets from the
 * frame itself, so its frames always pass; nothing reads these fields
 * today, but a header that lies about its frame is dropped here, before
 * any layer learns to trust it.
 *
 * Return: 0, or -1 if the frame is too short or the header is invalid
 */
int vnet_hdr_parse(const struct core *c, struct pkt_view *v, struct vnet_hdr *h)
{
	const uint8_t *p;

	memset(h, 0, sizeof(*h));
	if (!c->conf.vnet_hdr_len)
		return 0;
	p = pkt_pull(v, c->conf.vnet_hdr_len);
	if (!p)
		return -1;
	h->flags = p[0];
	h->gso_type = p[1];
	h->hdr_len = (uint16_t)(p[2] | (p[3] << 8));
	h->gso_size = (uint16_t)(p[4] | (p[5] << 8));
	h->csum_start = (uint16_t)(p[6] | (p[7] << 8));
	h->csum_offset = (uint16_t)(p[8] | (p[9] << 8));
	switch (h->gso_type & ~VNET_HDR_GSO_ECN) {
	case VNET_HDR_GSO_NONE:
	case VNET_HDR_GSO_TCPV4:
	case VNET_HDR_GSO_TCPV6:
	case VNET_HDR_GSO_UDP:
		break;
	case VNET_HDR_GSO_UDP_L4: /* only where we offered it */
		if (!c->conf.uso_in)
			return -1;
		break;
	default:
		return -1;
	}
	if (h->gso_type != VNET_HDR_GSO_NONE && h->hdr_len > pkt_len(v))
		return -1;
	if ((h->flags & VNET_HDR_F_NEEDS_CSUM) &&
	    (size_t)h->csum_start + h->csum_offset + 2 > pkt_len(v))
		return -1;
	return 0;
}

/**
 * vnet_hdr_write() - encode a vnet header at the start of a frame slot
 * @c:	core (header length)
 * @p:	slot start
 * @h:	fields
 */
void vnet_hdr_write(const struct core *c, uint8_t *p, const struct vnet_hdr *h)
{
	if (!c->conf.vnet_hdr_len)
		return;
	memset(p, 0, c->conf.vnet_hdr_len);
	p[0] = h->flags;
	p[1] = h->gso_type;
	p[2] = (uint8_t)h->hdr_len;
	p[3] = (uint8_t)(h->hdr_len >> 8);
	p[4] = (uint8_t)h->gso_size;
	p[5] = (uint8_t)(h->gso_size >> 8);
	p[6] = (uint8_t)h->csum_start;
	p[7] = (uint8_t)(h->csum_start >> 8);
	p[8] = (uint8_t)h->csum_offset;
	p[9] = (uint8_t)(h->csum_offset >> 8);
	/* num_buffers (bytes 10-11) stays 0: unused on tap */
}

/**
 * core_frame_begin() - start a frame toward the guest in the next slot
 * @c:		core
 * @fx:		effects batch
 * @ethertype:	host-order ethertype
 * @dst_mac:	destination MAC, NULL for the guest's
 *
 * Writes a zero vnet header and the Ethernet header.
 *
 * Return: pointer to the L3 header in the slot, or NULL if no slot is free
 *	   (counted)
 */
uint8_t *core_frame_begin(struct core *c, struct fx *fx, uint16_t ethertype,
			  const uint8_t *dst_mac)
{
	static const struct vnet_hdr none;
	uint8_t *s = fx_slot_next(fx);
	uint8_t *eth;

	if (!s) {
		CTR_INC(c, FX_POOL_EMPTY);
		return NULL;
	}
	vnet_hdr_write(c, s, &none);
	eth = s + c->conf.vnet_hdr_len;
	memcpy(eth, dst_mac ? dst_mac : c->conf.guest_mac, ETH_ALEN);
	memcpy(eth + 6, c->conf.our_mac, ETH_ALEN);
	wr16(eth + 12, ethertype);
	return eth + ETH_HLEN;
}

/**
 * core_input() - handle one frame from the guest
 * @c:		core
 * @frame:	frame, starting with the vnet header (conf.vnet_hdr_len bytes)
 * @now_ns:	monotonic time
 * @fx:		effects out
 *
 * Context: the owning shard. Malformed frames are counted and dropped.
 */
void core_input(struct core *c, struct pkt_view frame, uint64_t now_ns,
		struct fx *fx)
{
	struct vnet_hdr vh;
	const uint8_t *eth;
	uint16_t type;

	c->pass_to = -1;
	c->give = NULL;
	c->clock_ns = now_ns;
	/* a loaned tail is TCP payload, and the bytes we parse end where it
	 * starts (struct pkt_view): anything else is an edge's mistake */
	if (frame.tail_len &&
	    pkt_payload_off(frame.p, frame.len, c->conf.vnet_hdr_len) !=
		    frame.len) {
		CTR_INC(c, CORE_DROP_BAD_LOAN);
		return;
	}
	if (vnet_hdr_parse(c, &frame, &vh)) {
		CTR_INC(c, VNET_DROP_BAD_HDR);
		return;
	}
	eth = pkt_pull(&frame, ETH_HLEN);
	if (!eth) {
		CTR_INC(c, ETH_DROP_SHORT);
		return;
	}
	/* unicast to another MAC is not for us; broadcast/multicast may be */
	if (!(eth[0] & 1) && memcmp(eth, c->conf.our_mac, ETH_ALEN)) {
		CTR_INC(c, ETH_DROP_NOT_US);
		return;
	}
	/* learn the guest's MAC from any unicast source address */
	if (!(eth[6] & 1))
		memcpy(c->conf.guest_mac, eth + 6, ETH_ALEN);

	type = rd16(eth + 12);
	switch (type) {
	case ETHERTYPE_ARP:
		arp_input(c, frame, fx);
		break;
	case ETHERTYPE_IP4:
		ip4_input(c, frame, &vh, now_ns, fx);
		break;
	case ETHERTYPE_IP6:
		/* off: counted as an unsupported ethertype, as before */
		if (c->conf.ipv6)
			ip6_input(c, frame, &vh, now_ns, fx);
		else
			CTR_INC(c, ETH_DROP_ETHERTYPE);
		break;
	default:
		CTR_INC(c, ETH_DROP_ETHERTYPE);
		break;
	}
}

/**
 * core_pass_on() - give the frame being handled to another shard
 * @c:	core
 * @to:	shard index, or -1: the next shard unless all have seen it
 *
 * Return: true if the frame was passed on
 */
bool core_pass_on(struct core *c, int to)
{
	if (c->conf.nshards < 2)
		return false;
	if (to < 0) {
		if (c->in_hop + 1U >= c->conf.nshards)
			return false;
		to = (c->conf.shard_id + 1) % c->conf.nshards;
	}
	if (to == c->conf.shard_id)
		return false;
	c->pass_to = to;
	return true;
}

/**
 * core_dst_map() - where host sockets go for a destination the guest named
 * @c:		core
 * @daddr:	destination as the guest sees it
 * @target:	out: address to connect to
 *
 * The explicit mappings (--map-host-loopback, --map-guest-addr) come
 * first, then the gateway's.
 *
 * Return: false if @daddr is the gateway and the mapping is off
 */
bool core_dst_map(const struct core *c, const uint8_t *daddr, uint8_t *target)
{
	static const uint8_t lo6[ADDR_LEN] = { [15] = 1 }, none6[ADDR_LEN];
	bool v4 = addr_is4(daddr), gw;

	if (v4) {
		uint32_t a = addr_to4(daddr);

		if (c->conf.map_lo4_be && a == c->conf.map_lo4_be)
			goto loopback;
		if (c->conf.map_guest4_be && a == c->conf.map_guest4_be) {
			addr_from4(target, c->conf.host4_be);
			return true;
		}
		gw = a == c->conf.gw4_be;
	} else {
		/* the gateway's two addresses go together */
		if (!addr_eq(c->conf.map_lo6, none6) &&
		    (addr_eq(daddr, c->conf.map_lo6) ||
		     (addr_eq(c->conf.map_lo6, c->conf.gw6) &&
		      addr_eq(daddr, c->conf.gw6_ll))))
			goto loopback;
		if (!addr_eq(c->conf.map_guest6, none6) &&
		    addr_eq(daddr, c->conf.map_guest6)) {
			memcpy(target, c->conf.host6, ADDR_LEN);
			return true;
		}
		gw = c->conf.ipv6 && (addr_eq(daddr, c->conf.gw6) ||
				      addr_eq(daddr, c->conf.gw6_ll));
	}
	if (!gw || (!c->conf.map_gw_to_loopback && c->conf.gw_real)) {
		memcpy(target, daddr, ADDR_LEN);
		return true;
	}
	if (!c->conf.map_gw_to_loopback) {
		memcpy(target, daddr, ADDR_LEN);
		return false;
	}
loopback:
	if (v4)
		addr_from4(target, __builtin_bswap32(0x7f000001));
	else
		memcpy(target, lo6, ADDR_LEN);
	return true;
}

/**
 * core_flow_target() - where a flow the guest opens goes on the host,
 * checked as the guest's own SYN or datagram is (see core.h)
 * @c:		core
 * @proto:	IPPROTO_TCP_ or IPPROTO_UDP_
 * @gaddr:	the guest's side
 * @daddr:	the destination the guest named
 * @dport:	its port
 * @target:	out: the host address
 *
 * Return: NULL, or why no guest could open such a flow
 */
const char *core_flow_target(const struct core *c, int proto,
			     const uint8_t *gaddr, const uint8_t *daddr,
			     uint16_t dport, uint8_t *target)
{
	if (addr_is4(gaddr) != addr_is4(daddr) ||
	    (!addr_is4(daddr) && !c->conf.ipv6))
		return "mixed or unserved address families";
	if (!dport)
		return "port 0";
	if (addr_is4(daddr) ? ip4_addr_unusable(c, addr_to4(daddr)) :
			      ip6_addrs_bad(c, gaddr, daddr))
		return "a destination no guest may use";
	if (core_dns_dst(c, daddr, dport)) {
		/* UDP there is the forwarder's, with no flow; TCP goes to
		 * the first upstream resolver (tcp_new_from_guest()) */
		if (proto != IPPROTO_TCP_ || dport != 53 ||
		    !c->conf.dns4_upstream_be)
			return "the DNS forwarder's address";
		addr_from4(target, c->conf.dns4_upstream_be);
		return NULL;
	}
	if (!core_dst_map(c, daddr, target))
		return "a destination the gateway's mapping does not reach";
	return NULL;
}

/**
 * core_flush() - emit what a batch of inputs left due (coalesced ACKs)
 * @c:		core
 * @now_ns:	monotonic time
 * @fx:		effects out
 */
void core_flush(struct core *c, uint64_t now_ns, struct fx *fx)
{
	(void)now_ns;
	tcp_ack_flush(c, fx);
}

/**
 * core_set_edge() - what the edge's guest accepts changed (vhost-user:
 * the features a new guest negotiated)
 * @c:			core
 * @vnet_hdr_len:	virtio-net header bytes: 0, 10 or 12
 * @csum_offload:	the guest takes partial checksums
 * @gso_max:		largest TCP payload per frame toward the guest, or 0
 * @uso:		the guest takes UDP GSO frames (needs @csum_offload)
 * @uso_in:		the guest may send UDP GSO frames (needs @vnet_hdr_len)
 *
 * Return: 0, or -EINVAL for a combination core_init() would refuse
 */
int core_set_edge(struct core *c, unsigned vnet_hdr_len, bool csum_offload,
		  uint32_t gso_max, bool uso, bool uso_in)
{
	if ((vnet_hdr_len != 0 && vnet_hdr_len != 10 && vnet_hdr_len != 12) ||
	    (csum_offload && !vnet_hdr_len) ||
	    (gso_max &&
	     (!csum_offload || gso_max > 65535 - IP4_HLEN - TCP_HLEN)) ||
	    (uso && !csum_offload) || (uso_in && !vnet_hdr_len))
		return -EINVAL;
	c->conf.vnet_hdr_len = vnet_hdr_len;
	c->conf.csum_offload = csum_offload;
	c->conf.uso = uso;
	c->conf.uso_in = uso_in;
	c->conf.gso_max = gso_max;
	return 0;
}

/**
 * core_guest_gone() - the guest behind the edge went away
 * @c:		core
 * @fx:		effects out: host sockets reset or closed
 *
 * Return: true when done, false if @fx filled up first (call again)
 */
bool core_guest_gone(struct core *c, struct fx *fx)
{
	if (!tcp_guest_gone(c, fx) || !udp_guest_gone(c, fx))
		return false;
	memset(c->conf.guest_mac, 0xff, ETH_ALEN);
	return true;
}

/**
 * core_timer() - run expired deadlines (retransmission, probes, give-up)
 * @c:		core
 * @now_ns:	monotonic time
 * @fx:		effects out
 *
 * Scans the flows in use; cheap next to the deadlines' granularity.
 *
 * Return: the next deadline, or UINT64_MAX if none is armed
 */
uint64_t core_timer(struct core *c, uint64_t now_ns, struct fx *fx)
{
	uint64_t next = UINT64_MAX;
	uint32_t i;

	c->clock_ns = now_ns;

	for (i = 0; i < c->hiwat; i++) {
		struct tcp_flow *f = &c->flows[i];

		if (f->state == TCPS_FREE || !f->deadline_ns)
			continue;
		if (f->deadline_ns <= now_ns) {
			/* stop early when out of frame slots: the host
			 * flushes and calls again */
			if (fx->nframes + 2 >= fx->nslots ||
			    fx->nintents + 4 >= FX_MAX_INTENTS)
				return now_ns;
			tcp_timer(c, f, now_ns, fx);
		}
		if (f->state != TCPS_FREE && f->deadline_ns &&
		    f->deadline_ns < next)
			next = f->deadline_ns;
	}
	next = MIN(next, udp_timer(c, now_ns, fx));
	next = MIN(next, ndp_timer(c, now_ns, fx));
	c->next_deadline_ns = next;
	return next;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_arp_ip.c - frame dispatch, ARP, IPv4 validation and ICMP echo
 *
 * Each test feeds whole frames to core_input() and asserts the exact frames
 * queued, that no intent is queued, and with assert_ctr_deltas() that only
 * the expected counters moved.
 */
#include "helpers.h"

/**
 * check_arp_reply() - frame 0 is our ARP reply for @spa to the requester
 * @e:		environment
 * @tha:	requester's MAC (Ethernet destination and target MAC)
 * @tpa:	requester's address
 * @spa:	the address asked for
 */
static void check_arp_reply(const struct env *e, const uint8_t *tha,
			    uint32_t tpa, uint32_t spa)
{
	const uint8_t *f = e->fx.slots;
	const uint8_t *a;
	size_t len, k;

	assert_int_equal(e->fx.nframes, 1);
	a = frame_l3(e, 0, ETHERTYPE_ARP, tha, &len);
	assert_int_equal(len, 28);
	for (k = 0; k < e->c.conf.vnet_hdr_len; k++)
		assert_int_equal(f[k], 0);
	assert_int_equal(rd16(a), 1);
	assert_int_equal(rd16(a + 2), ETHERTYPE_IP4);
	assert_int_equal(a[4], 6);
	assert_int_equal(a[5], 4);
	assert_int_equal(rd16(a + 6), 2);
	assert_memory_equal(a + 8, our_mac, 6);
	assert_memory_equal(a + 14, &spa, 4);
	assert_memory_equal(a + 18, tha, 6);
	assert_memory_equal(a + 24, &tpa, 4);
}

/**
 * test_arp_gw() - a request for the gateway gets exactly our reply
 * @state:	environment
 */
static void test_arp_gw(void **state)
{
	static const uint8_t zero[6];
	struct env *e = *state;
	uint8_t buf[128];
	size_t len;

	len = build_arp(e, buf, 1, guest_mac, GUEST4, zero, GW4);
	env_input(e, buf, len);
	check_arp_reply(e, guest_mac, GUEST4, GW4);
	assert_int_equal(e->fx.nintents, 0);
	assert_ctr_deltas(e, CTR_ARP_REPLIES, 1, -1);
}

/**
 * test_arp_other_address() - every address but the guest's is behind us
 * @state:	environment
 *
 * Requests for another host of the subnet and for an outside address get
 * our MAC too; the Ethernet padding of a 60-byte frame is ignored.
 */
static void test_arp_other_address(void **state)
{
	static const uint8_t zero[6];
	struct env *e = *state;
	uint8_t buf[128];
	size_t len;

	len = build_arp(e, buf, 1, guest_mac, GUEST4, zero, ip4(10, 0, 2, 3));
	env_input(e, buf, len);
	check_arp_reply(e, guest_mac, GUEST4, ip4(10, 0, 2, 3));
	env_clear(e);

	len = build_arp(e, buf, 1, guest_mac, GUEST4, zero, ip4(8, 8, 8, 8));
	memset(buf + len, 0, 18); /* pad to the 60-byte minimum */
	env_input(e, buf, len + 18);
	check_arp_reply(e, guest_mac, GUEST4, ip4(8, 8, 8, 8));
	assert_ctr_deltas(e, CTR_ARP_REPLIES, 2, -1);
}

/**
 * test_arp_ignored() - no reply for the guest's own address, gratuitous
 * ARP, or ARP replies
 * @state:	environment
 */
static void test_arp_ignored(void **state)
{
	static const uint8_t zero[6];
	struct env *e = *state;
	uint8_t buf[128];
	size_t len;

	/* duplicate address detection: sender 0.0.0.0, target the guest */
	len = build_arp(e, buf, 1, guest_mac, 0, zero, GUEST4);
	env_input(e, buf, len);
	/* the guest announcing itself */
	len = build_arp(e, buf, 1, guest_mac, GUEST4, zero, GUEST4);
	env_input(e, buf, len);
	/* gratuitous ARP for another address (target == sender) */
	len = build_arp(e, buf, 1, guest_mac, ip4(10, 0, 2, 99), zero,
			ip4(10, 0, 2, 99));
	env_input(e, buf, len);
	/* a reply, not a request */
	len = build_arp(e, buf, 2, guest_mac, GUEST4, our_mac, GW4);
	env_input(e, buf, len);
	assert_int_equal(e->fx.nframes, 0);
	assert_int_equal(e->fx.nintents, 0);
	assert_ctr_deltas(e, CTR_ARP_IGNORED, 4, -1);
}

/**
 * test_arp_bad() - truncated or non-Ethernet/IPv4 ARP is dropped
 * @state:	environment
 */
static void test_arp_bad(void **state)
{
	static const uint8_t zero[6];
	struct env *e = *state;
	size_t off = e->c.conf.vnet_hdr_len + ETH_HLEN;
	uint8_t buf[128];
	size_t len;

	len = build_arp(e, buf, 1, guest_mac, GUEST4, zero, GW4);
	env_input(e, buf, len - 1); /* 27 bytes of ARP */
	env_input(e, buf, off);	    /* none */
	buf[off + 1] = 6;	    /* hardware type 6 */
	env_input(e, buf, len);
	len = build_arp(e, buf, 1, guest_mac, GUEST4, zero, GW4);
	buf[off + 3] = 0xdd; /* protocol type 0x08dd */
	env_input(e, buf, len);
	len = build_arp(e, buf, 1, guest_mac, GUEST4, zero, GW4);
	buf[off + 4] = 8; /* hardware address length */
	env_input(e, buf, len);
	len = build_arp(e, buf, 1, guest_mac, GUEST4, zero, GW4);
	buf[off + 5] = 16; /* protocol address length */
	env_input(e, buf, len);
	assert_int_equal(e->fx.nframes, 0);
	assert_int_equal(e->fx.nintents, 0);
	assert_ctr_deltas(e, CTR_ARP_DROP_BAD, 6, -1);
}

/**
 * check_echo_reply() - frame @i is our echo reply from @from to the guest
 * @e:		environment
 * @i:		frame index
 * @from:	the address pinged
 * @id:		identifier
 * @seqno:	sequence number
 * @data:	payload
 * @len:	payload length
 */
static void check_echo_reply(const struct env *e, unsigned i, uint32_t from,
			     uint16_t id, uint16_t seqno, const uint8_t *data,
			     size_t len)
{
	const uint8_t *m, *ip;
	size_t l4;

	m = parse_ip4(e, i, IPPROTO_ICMP_, &l4);
	ip = m - IP4_HLEN;
	assert_memory_equal(ip + 12, &from, 4);
	assert_memory_equal(ip + 16, &e->c.conf.guest4_be, 4);
	assert_int_equal(l4, 8 + len);
	assert_int_equal(m[0], 0);
	assert_int_equal(m[1], 0);
	assert_int_equal(rd16(m + 4), id);
	assert_int_equal(rd16(m + 6), seqno);
	assert_memory_equal(m + 8, data, len);
	assert_int_equal(ref_sum16(m, l4, 0), 0xffff);
}

/**
 * test_icmp_echo_gw() - ping the gateway: same id, seq and payload back
 * @state:	environment
 *
 * An odd payload length exercises the checksum's pad byte; a second ping
 * with an even length and a 60-byte-padded minimum frame checks that
 * Ethernet padding is not echoed.
 */
static void test_icmp_echo_gw(void **state)
{
	struct env *e = *state;
	uint8_t buf[256], data[57];
	size_t i, len;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 1);
	len = build_icmp_echo(e, buf, GUEST4, GW4, 0x4242, 7, data,
			      sizeof(data));
	env_input(e, buf, len);
	assert_int_equal(e->fx.nframes, 1);
	assert_int_equal(e->fx.nintents, 0);
	check_echo_reply(e, 0, GW4, 0x4242, 7, data, sizeof(data));

	/* minimum frame: 2 bytes of payload + 16 bytes of Ethernet padding */
	len = build_icmp_echo(e, buf, GUEST4, GW4, 0xbeef, 0xfffe, data, 2);
	memset(buf + len, 0xee, 16);
	env_input(e, buf, len + 16);
	assert_int_equal(e->fx.nframes, 2);
	check_echo_reply(e, 1, GW4, 0xbeef, 0xfffe, data, 2);
	assert_ctr_deltas(e, CTR_ICMP4_ECHO_REPLIES, 2, -1);
}

/**
 * test_icmp_echo_ip_options() - an IPv4 header with options (IHL 6)
 * @state:	environment
 */
static void test_icmp_echo_ip_options(void **state)
{
	struct env *e = *state;
	uint8_t buf[256], pl[256], data[8] = "options";
	size_t len, off = e->c.conf.vnet_hdr_len + ETH_HLEN;

	len = build_icmp_echo(e, pl, GUEST4, GW4, 1, 2, data, sizeof(data));
	/* rebuild with a 4-byte NOP option after the IPv4 header */
	memcpy(buf, pl, off + IP4_HLEN);
	memset(buf + off + IP4_HLEN, 1, 4);
	memcpy(buf + off + IP4_HLEN + 4, pl + off + IP4_HLEN,
	       len - off - IP4_HLEN);
	buf[off] = 0x46;
	wr16(buf + off + 2, (uint16_t)(rd16(buf + off + 2) + 4));
	wr16(buf + off + 10, 0);
	wr16(buf + off + 10, (uint16_t)~ref_sum16(buf + off, 24, 0));
	env_input(e, buf, len + 4);
	assert_int_equal(e->fx.nframes, 1);
	check_echo_reply(e, 0, GW4, 1, 2, data, sizeof(data));
	assert_ctr_deltas(e, CTR_ICMP4_ECHO_REPLIES, 1, -1);
}

/**
 * test_icmp_echo_too_big() - an echo whose reply would not fit a frame slot
 * is dropped as bad, not truncated
 * @state:	environment
 */
static void test_icmp_echo_too_big(void **state)
{
	struct env *e = *state;
	uint8_t buf[512], data[200] = { 0 };
	size_t len, slot = e->fx.slot_size;

	len = build_icmp_echo(e, buf, GUEST4, GW4, 1, 1, data, sizeof(data));
	e->fx.slot_size = len - 1;
	env_input(e, buf, len);
	e->fx.slot_size = slot;
	assert_int_equal(e->fx.nframes, 0);
	assert_ctr_deltas(e, CTR_ICMP4_DROP_BAD, 1, -1);
	/* exactly fits */
	e->fx.slot_size = len;
	env_input(e, buf, len);
	e->fx.slot_size = slot;
	assert_int_equal(e->fx.nframes, 1);
	env_clear(e);
}

/**
 * test_icmp_unsupported() - echo to other hosts, other types, short ICMP
 * @state:	environment
 */
static void test_icmp_unsupported(void **state)
{
	struct env *e = *state;
	uint8_t buf[256], data[4] = { 1, 2, 3, 4 };
	size_t len, off = e->c.conf.vnet_hdr_len + ETH_HLEN + IP4_HLEN;

	/* echo to another host goes out on a host ping socket: a flow
	 * opens and the whole echo message is sent, nothing is forged */
	len = build_icmp_echo(e, buf, GUEST4, ip4(192, 0, 2, 1), 7, 1, data, 4);
	env_input(e, buf, len);
	assert_int_equal(e->fx.nframes, 0);
	assert_int_equal(e->fx.nintents, 2);
	assert_int_equal(e->fx.intents[0].type, FX_DGRAM_OPEN);
	assert_int_equal(e->fx.intents[1].type, FX_DGRAM_SEND);
	assert_int_equal(e->fx.intents[1].len, 12);
	assert_int_equal(e->fx.intents[1].data[0], 8);
	assert_ctr_deltas(e, CTR_ICMP4_ECHO_OUT, 1, CTR_UDP_FLOWS_OPENED, 1,
			  -1);
	e->fx.nintents = 0;
	/* idle: the flow expires and its socket is closed */
	env_mark(e);
	core_timer(&e->c, e->now + e->c.conf.udp_idle_ns, &e->fx);
	assert_int_equal(e->fx.nintents, 1);
	assert_int_equal(e->fx.intents[0].type, FX_DGRAM_CLOSE);
	assert_ctr_deltas(e, CTR_UDP_FLOWS_EXPIRED, 1, -1);
	e->fx.nintents = 0;

	env_mark(e);
	len = build_icmp_echo(e, buf, GUEST4, GW4, 1, 1, data, 4);
	buf[off] = 13; /* timestamp request */
	env_input(e, buf, len);
	len = build_icmp_echo(e, buf, GUEST4, GW4, 1, 1, data, 4);
	buf[off + 1] = 1; /* echo with a nonzero code */
	env_input(e, buf, len);
	assert_ctr_deltas(e, CTR_ICMP4_DROP_UNSUPPORTED, 2, -1);

	/* 7 bytes of ICMP: too short for an echo header */
	env_mark(e);
	len = build_icmp_echo(e, buf, GUEST4, GW4, 1, 1, data, 0);
	wr16(buf + off - IP4_HLEN + 2, IP4_HLEN + 7);
	ip4_fix_csum(buf + off - IP4_HLEN);
	env_input(e, buf, len - 1);
	assert_ctr_deltas(e, CTR_ICMP4_DROP_BAD, 1, -1);
	assert_int_equal(e->fx.nframes, 0);
	assert_int_equal(e->fx.nintents, 0);
}

/**
 * wr16le() - store a little-endian 16-bit value (vnet header fields)
 * @p:	where
 * @v:	value
 */
static void wr16le(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

/* malformed frames, each dropped under one counter */
enum bad_kind {
	BAD_VNET_SHORT,
	BAD_VNET_GSO,
	BAD_VNET_HDR_LEN,
	BAD_VNET_CSUM,
	BAD_ETH_SHORT,
	BAD_NOT_US,
	BAD_ETHERTYPE,
	BAD_IP_SHORT,
	BAD_IP_VERSION,
	BAD_IP_IHL,
	BAD_IP_TOT_LONG,
	BAD_IP_TOT_SHORT,
	BAD_IP_MF,
	BAD_IP_OFFSET,
	BAD_IP_PROTO,
	BAD_IP_BCAST,
	BAD_IP_SUBNET_BCAST,
	BAD_IP_MCAST,
	BAD_IP_ZERO,
	BAD_TCP_SHORT,
	BAD_TCP_DOFF_SMALL,
	BAD_TCP_DOFF_LONG,
	BAD_TCP_PORT0,
	BAD_TCP_DPORT0,
	BAD_IP_CSUM,
	BAD_NUM
};

/**
 * build_bad() - a frame with one defect
 * @e:		environment
 * @buf:	frame buffer
 * @kind:	enum bad_kind
 * @ctr:	out: the counter it must be dropped under
 *
 * Return: frame length
 */
static size_t build_bad_raw(const struct env *e, uint8_t *buf, int kind,
			    enum ctr_id *ctr)
{
	static const uint8_t other[6] = { 0x52, 0x56, 0, 0, 0, 0x99 };
	size_t vl = e->c.conf.vnet_hdr_len, l3 = vl + ETH_HLEN, len;
	uint8_t data[8] = { 0 };
	struct seg s = {
		.daddr = ip4(192, 0, 2, 1),
		.sport = 40000,
		.dport = 80,
		.seq = 1000,
		.flags = T_SYN,
		.wnd = 65535,
		.mss = 1460,
	};
	uint8_t *ip = buf + l3;

	len = build_icmp_echo(e, buf, GUEST4, GW4, 1, 1, data, sizeof(data));
	switch (kind) {
	case BAD_VNET_SHORT:
		*ctr = CTR_VNET_DROP_BAD_HDR;
		return vl ? vl - 1 : 0;
	case BAD_VNET_GSO:
		*ctr = CTR_VNET_DROP_BAD_HDR;
		if (vl)
			buf[1] = 5; /* no such GSO type */
		return len;
	case BAD_VNET_HDR_LEN: /* GSO headers longer than the frame */
		*ctr = CTR_VNET_DROP_BAD_HDR;
		if (vl) {
			buf[1] = VNET_HDR_GSO_TCPV4;
			wr16le(buf + 2, (uint16_t)(len - vl + 1));
		}
		return len;
	case BAD_VNET_CSUM: /* a checksum field past the frame's end */
		*ctr = CTR_VNET_DROP_BAD_HDR;
		if (vl) {
			buf[0] = VNET_HDR_F_NEEDS_CSUM;
			wr16le(buf + 6, ETH_HLEN + IP4_HLEN);
			wr16le(buf + 8, (uint16_t)(len - l3 - IP4_HLEN - 1));
		}
		return len;
	case BAD_ETH_SHORT:
		*ctr = CTR_ETH_DROP_SHORT;
		return vl + ETH_HLEN - 1;
	case BAD_NOT_US:
		*ctr = CTR_ETH_DROP_NOT_US;
		memcpy(buf + vl, other, 6);
		return len;
	case BAD_ETHERTYPE:
		*ctr = CTR_ETH_DROP_ETHERTYPE;
		wr16(buf + vl + 12, ETHERTYPE_IP6);
		return len;
	case BAD_IP_SHORT:
		*ctr = CTR_IP4_DROP_BAD_HDR;
		return l3 + IP4_HLEN - 1;
	case BAD_IP_VERSION:
		*ctr = CTR_IP4_DROP_BAD_HDR;
		ip[0] = 0x65;
		return len;
	case BAD_IP_IHL:
		*ctr = CTR_IP4_DROP_BAD_LEN;
		ip[0] = 0x44;
		return len;
	case BAD_IP_TOT_LONG:
		*ctr = CTR_IP4_DROP_BAD_LEN;
		wr16(ip + 2, (uint16_t)(len - l3 + 1));
		return len;
	case BAD_IP_TOT_SHORT:
		*ctr = CTR_IP4_DROP_BAD_LEN;
		wr16(ip + 2, 19);
		return len;
	case BAD_IP_MF:
		*ctr = CTR_IP4_DROP_FRAG;
		wr16(ip + 6, 0x2000);
		return len;
	case BAD_IP_OFFSET:
		*ctr = CTR_IP4_DROP_FRAG;
		wr16(ip + 6, 0x4000 | 185); /* DF and an offset of 1480 */
		return len;
	case BAD_IP_PROTO:
		*ctr = CTR_IP4_DROP_PROTO;
		ip[9] = 47; /* GRE */
		return len;
	case BAD_IP_BCAST:
		*ctr = CTR_IP4_DROP_ADDR;
		memset(ip + 16, 0xff, 4);
		return len;
	case BAD_IP_SUBNET_BCAST:
		*ctr = CTR_IP4_DROP_ADDR;
		ip[19] = 255;
		return len;
	case BAD_IP_MCAST:
		*ctr = CTR_IP4_DROP_ADDR;
		ip[16] = 224;
		ip[19] = 1;
		return len;
	case BAD_IP_ZERO:
		*ctr = CTR_IP4_DROP_ADDR;
		memset(ip + 16, 0, 4);
		return len;
	case BAD_TCP_SHORT:
		*ctr = CTR_TCP_DROP_BAD_HDR;
		len = build_tcp(e, buf, &s);
		wr16(ip + 2, IP4_HLEN + TCP_HLEN - 1);
		return l3 + IP4_HLEN + TCP_HLEN - 1;
	case BAD_TCP_DOFF_SMALL:
		*ctr = CTR_TCP_DROP_BAD_HDR;
		len = build_tcp(e, buf, &s);
		ip[IP4_HLEN + 12] = 4 << 4;
		return len;
	case BAD_TCP_DOFF_LONG:
		*ctr = CTR_TCP_DROP_BAD_HDR;
		len = build_tcp(e, buf, &s); /* 24 bytes: doff 7 is 28 */
		ip[IP4_HLEN + 12] = 7 << 4;
		return len;
	case BAD_TCP_PORT0:
		*ctr = CTR_TCP_DROP_BAD_HDR;
		s.sport = 0;
		return build_tcp(e, buf, &s);
	case BAD_TCP_DPORT0:
		*ctr = CTR_TCP_DROP_BAD_HDR;
		s.dport = 0;
		return build_tcp(e, buf, &s);
	case BAD_IP_CSUM:
		*ctr = CTR_IP4_DROP_BAD_CSUM;
		return len;
	default:
		fail();
		return 0;
	}
}

/**
 * build_bad() - a frame with one defect, the IPv4 header checksum right
 * unless that is the defect
 * @e:		environment
 * @buf:	frame out
 * @kind:	enum bad_kind
 * @ctr:	out: the counter it must be dropped under
 *
 * Return: frame length
 */
static size_t build_bad(const struct env *e, uint8_t *buf, int kind,
			enum ctr_id *ctr)
{
	size_t len = build_bad_raw(e, buf, kind, ctr);
	uint8_t *ip = buf + e->c.conf.vnet_hdr_len + ETH_HLEN;

	if (kind > BAD_ETHERTYPE && kind != BAD_IP_SHORT) {
		ip4_fix_csum(ip);
		if (kind == BAD_IP_CSUM)
			ip[8] ^= 0x10; /* the TTL, one bit */
	}
	return len;
}

/**
 * test_malformed() - each defect: its own counter, no frame, no intent,
 * no flow
 * @state:	environment
 */
static void test_malformed(void **state)
{
	struct env *e = *state;
	uint8_t buf[256];
	int kind;

	for (kind = 0; kind < BAD_NUM; kind++) {
		enum ctr_id ctr;
		size_t len = build_bad(e, buf, kind, &ctr);

		if (!e->c.conf.vnet_hdr_len &&
		    (kind == BAD_VNET_SHORT || kind == BAD_VNET_GSO ||
		     kind == BAD_VNET_HDR_LEN || kind == BAD_VNET_CSUM))
			continue; /* no vnet header to get wrong */
		env_mark(e);
		env_input(e, buf, len);
		assert_dropped(e, kind, ctr);
		assert_memory_equal(e->c.conf.guest_mac, guest_mac, 6);
	}
}

/**
 * test_mac_learning() - the guest's MAC comes from its frames' source
 * @state:	environment
 *
 * A new unicast source is learned (replies go to it); a frame for another
 * MAC teaches nothing; broadcast ARP requests are accepted.
 */
static void test_mac_learning(void **state)
{
	static const uint8_t newmac[6] = { 0x02, 0, 0, 0, 0, 0x99 };
	static const uint8_t other[6] = { 0x52, 0x56, 0, 0, 0, 0x77 };
	static const uint8_t zero[6];
	struct env *e = *state;
	uint8_t buf[256], data[4] = { 9, 8, 7, 6 };
	size_t len, vl = e->c.conf.vnet_hdr_len;

	len = build_arp(e, buf, 1, newmac, GUEST4, zero, GW4);
	env_input(e, buf, len);
	check_arp_reply(e, newmac, GUEST4, GW4);
	assert_memory_equal(e->c.conf.guest_mac, newmac, 6);
	env_clear(e);

	/* ping from the new MAC: the reply goes to it */
	len = build_icmp_echo(e, buf, GUEST4, GW4, 3, 4, data, 4);
	memcpy(buf + vl + 6, newmac, 6);
	env_input(e, buf, len);
	assert_int_equal(e->fx.nframes, 1);
	check_echo_reply(e, 0, GW4, 3, 4, data, 4);
	assert_memory_equal(e->fx.slots + vl, newmac, 6);
	env_clear(e);

	/* a frame to another MAC, from yet another MAC: not learned */
	memcpy(buf + vl, other, 6);
	memcpy(buf + vl + 6, guest_mac, 6);
	env_input(e, buf, len);
	assert_int_equal(e->fx.nframes, 0);
	assert_memory_equal(e->c.conf.guest_mac, newmac, 6);

	/* a multicast source address is never learned */
	len = build_icmp_echo(e, buf, GUEST4, GW4, 3, 5, data, 4);
	buf[vl + 6] |= 1;
	env_input(e, buf, len);
	assert_int_equal(e->fx.nframes, 1);
	assert_memory_equal(e->fx.slots + vl, newmac, 6);
	assert_memory_equal(e->c.conf.guest_mac, newmac, 6);
	assert_ctr_deltas(e, CTR_ARP_REPLIES, 1, CTR_ICMP4_ECHO_REPLIES, 2,
			  CTR_ETH_DROP_NOT_US, 1, -1);
}

/**
 * test_no_slot() - with every slot in use, a reply is dropped and counted
 * @state:	environment
 */
static void test_no_slot(void **state)
{
	static const uint8_t zero[6];
	struct env *e = *state;
	uint8_t buf[128], data[4] = { 0 };
	size_t len;

	e->fx.nframes = e->fx.nslots;
	len = build_arp(e, buf, 1, guest_mac, GUEST4, zero, GW4);
	env_input(e, buf, len);
	len = build_icmp_echo(e, buf, GUEST4, GW4, 1, 1, data, 4);
	env_input(e, buf, len);
	assert_int_equal(e->fx.nframes, e->fx.nslots);
	assert_ctr_deltas(e, CTR_FX_POOL_EMPTY, 2, -1);
	env_clear(e);
}

/**
 * main() - run the ARP, IPv4 and ICMP tests, with and without vnet header
 *
 * Return: 0 if all passed, else the number of failures
 */
int main(void)
{
#define BOTH(t) ENV_BOTH(t, env_setup_offload, env_setup_plain, env_teardown)
	const struct CMUnitTest tests[] = {
		BOTH(test_arp_gw),
		BOTH(test_arp_other_address),
		BOTH(test_arp_ignored),
		BOTH(test_arp_bad),
		BOTH(test_icmp_echo_gw),
		BOTH(test_icmp_echo_ip_options),
		BOTH(test_icmp_echo_too_big),
		BOTH(test_icmp_unsupported),
		BOTH(test_malformed),
		BOTH(test_mac_learning),
		BOTH(test_no_slot),
	};

	return cmocka_run_group_tests_name("arp_ip", tests, NULL, NULL);
}

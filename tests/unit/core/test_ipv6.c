/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_ipv6.c - TCP, UDP and ICMPv6 echo carried over IPv6 (tcp.c, udp.c,
 * ip6.c, icmp.c, flow.c)
 *
 * As test_tcp.c: the test plays the guest (IPv6 frames built here, with
 * checksums from the reference sum of helpers.c) and the host layer
 * (intents carried out by calling the core back, payload placed in frame
 * slots), and checks every frame the core queues in full: IPv6 header,
 * TCP or UDP header, and the checksum, either complete or, with offload,
 * the folded pseudo-header sum the virtio-net header asks the device to
 * finish. Every test runs with and without offload but the GSO ones, and
 * ends with no flow and nothing due (env_assert_quiet()).
 */
#include <errno.h>
#include <stdlib.h>

#include "helpers.h"
#include "core/udp.h"

#define SOCK_BASE 100
#define RTO_NS MS(200)
#define MSS6 65460 /* MTU 65520 - 40 - 20 */

/* in the prefix of env_conf6() (helpers.c) */
static const uint8_t guest6[16] = { PFX6, [15] = 0x15 };
static const uint8_t remote6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x80 };
static const uint8_t lo6[16] = { [15] = 1 };

static uint8_t pat[70000];

/* ---- set-up -------------------------------------------------------------- */

/**
 * conf6() - the configuration shard_init() builds with IPv6 on
 * @cc:		configuration out
 * @offload:	vnet header and checksum offload (as on tap)
 */
static void conf6(struct core_conf *cc, bool offload)
{
	env_conf6(cc, offload);
	memcpy(cc->guest6, guest6, 16);
	cc->dns4_be = ip4(10, 0, 2, 3);
	cc->dns4_upstream_be = ip4(127, 0, 0, 53);
}

/* setup_offload(): a core as on tap, IPv6 on (vnet header, checksum
 * offload); setup_plain(): no vnet header, full checksums */
ENV_SETUPS(conf6)

/**
 * setup_gso() - GSO toward the guest, as shard_init() sets it for a 64 KiB
 * slot (the IPv4 figure; IPv6 flows take 20 bytes less)
 * @state:	out: environment
 *
 * Return: 0
 */
static int setup_gso(void **state)
{
	struct core_conf cc;

	conf6(&cc, true);
	cc.gso_max = 65535 - IP4_HLEN - TCP_HLEN;
	return env_setup(state, &cc);
}

/**
 * teardown() - datagram flows idle out; then no flow, nothing due, no timer
 * @state:	environment
 *
 * Return: 0
 */
static int teardown(void **state)
{
	struct env *e = *state;
	uint32_t i;

	env_clear(e);
	core_timer(&e->c, e->now + e->c.conf.udp_idle_ns + 1, &e->fx);
	env_clear(e);
	for (i = 0; i < e->c.conf.max_udp_flows; i++)
		assert_false(e->c.uflows[i].used);
	env_assert_quiet(e);
	env_free(e);
	return 0;
}

/**
 * group_setup() - fill the payload pattern
 * @state:	unused
 *
 * Return: 0
 */
static int group_setup(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(pat); i++)
		pat[i] = (uint8_t)(i * 131 + (i >> 8) + 7);
	return 0;
}

/* ---- guest frames -------------------------------------------------------- */

/**
 * build_udp6() - an IPv6 UDP datagram from the guest, complete checksum
 * @e:		environment
 * @b:		frame start
 * @src:	source
 * @dst:	destination
 * @sport:	source port
 * @dport:	destination port
 * @data:	payload
 * @len:	payload length
 *
 * Return: frame length
 */
static size_t build_udp6(const struct env *e, uint8_t *b, const uint8_t *src,
			 const uint8_t *dst, uint16_t sport, uint16_t dport,
			 const void *data, size_t len)
{
	size_t off = build_l2(e, b, our_mac, guest_mac, ETHERTYPE_IP6);
	uint8_t *uh = b + off + IP6_HLEN;

	build_ip6(b + off, IPPROTO_UDP_, src, dst, 8 + len);
	wr16(uh, sport);
	wr16(uh + 2, dport);
	wr16(uh + 4, (uint16_t)(8 + len));
	wr16(uh + 6, 0);
	memcpy(uh + 8, data, len);
	wr16(uh + 6, (uint16_t)~ref_sum16(uh, 8 + len,
					  ref_pseudo6(src, dst, IPPROTO_UDP_,
						      (uint32_t)(8 + len))));
	return off + IP6_HLEN + 8 + len;
}

/**
 * build_echo6() - an ICMPv6 echo request from the guest
 * @e:		environment
 * @b:		frame start
 * @dst:	destination
 * @id:		identifier
 * @seqno:	sequence number
 * @len:	bytes of payload (from pat)
 *
 * Return: frame length
 */
static size_t build_echo6(const struct env *e, uint8_t *b, const uint8_t *dst,
			  uint16_t id, uint16_t seqno, size_t len)
{
	size_t off = build_l2(e, b, our_mac, guest_mac, ETHERTYPE_IP6);
	uint8_t *m = b + off + IP6_HLEN;

	build_ip6(b + off, IPPROTO_ICMPV6_, guest6, dst, 8 + len);
	m[0] = 128;
	m[1] = 0;
	wr16(m + 2, 0);
	wr16(m + 4, id);
	wr16(m + 6, seqno);
	memcpy(m + 8, pat, len);
	wr16(m + 2,
	     (uint16_t)~ref_sum16(m, 8 + len,
				  ref_pseudo6(guest6, dst, IPPROTO_ICMPV6_,
					      (uint32_t)(8 + len))));
	return off + IP6_HLEN + 8 + len;
}

/* ---- frames to the guest ------------------------------------------------- */

/**
 * struct o6 - a TCP segment the core sent over IPv6
 * @src:	source address
 * @dst:	destination address
 * @tcp:	the TCP header's fields and payload, as tcp_decode() gives
 * @gso_size:	GSO segment size from the vnet header (0: not GSO)
 */
struct o6 {
	uint8_t src[16], dst[16];
	struct otcp tcp;
	uint16_t gso_size;
};

/**
 * parse_ip6() - check a queued IPv6 frame's header
 * @e:		environment
 * @i:		frame index
 * @nh:		expected next header
 * @l4_len:	out: upper-layer length
 *
 * Return: the upper-layer header
 */
static const uint8_t *parse_ip6(const struct env *e, unsigned i, uint8_t nh,
				size_t *l4_len)
{
	const uint8_t *ip;
	size_t len;

	ip = frame_l3(e, i, ETHERTYPE_IP6, NULL, &len);
	assert_true(len >= IP6_HLEN);
	assert_int_equal(ip[0], 0x60);
	assert_int_equal(ip[1] | ip[2] | ip[3], 0);
	assert_int_equal(rd16(ip + 4), len - IP6_HLEN);
	assert_int_equal(ip[6], nh);
	assert_int_equal(ip[7], 64);
	*l4_len = len - IP6_HLEN;
	return ip + IP6_HLEN;
}

/**
 * check_l4_csum6() - the checksum of a TCP or UDP packet toward the guest
 * @e:		environment
 * @i:		frame index
 * @l4:		transport header
 * @len:	transport length
 * @proto:	IPPROTO_TCP_ or IPPROTO_UDP_
 *
 * With offload: NEEDS_CSUM from byte 54 (Ethernet + IPv6), the field at 16
 * (TCP) or 6 (UDP) holding the folded pseudo-header sum. Without: the full
 * sum verifies and the vnet header (if any) is zero.
 */
static void check_l4_csum6(const struct env *e, unsigned i, const uint8_t *l4,
			   size_t len, uint8_t proto)
{
	const uint8_t *f = e->fx.slots + (size_t)i * e->fx.slot_size;
	const uint8_t *ip = l4 - IP6_HLEN;
	uint16_t ps = ref_pseudo6(ip + 8, ip + 24, proto, (uint32_t)len);
	size_t off = proto == IPPROTO_TCP_ ? 16 : 6, k;

	if (e->c.conf.csum_offload) {
		assert_int_equal(f[0], VNET_HDR_F_NEEDS_CSUM);
		assert_int_equal(f[6] | f[7] << 8, ETH_HLEN + IP6_HLEN);
		assert_int_equal(f[8] | f[9] << 8, off);
		assert_int_equal(rd16(l4 + off), ps);
	} else {
		for (k = 0; k < e->c.conf.vnet_hdr_len; k++)
			assert_int_equal(f[k], 0);
		assert_int_equal(ref_sum16(l4, len, ps), 0xffff);
		assert_int_not_equal(rd16(l4 + off), 0);
	}
}

/**
 * parse_tcp6() - check a queued IPv6 TCP frame completely and decode it
 * @e:	environment
 * @i:	frame index
 * @o:	decoded segment
 */
static void parse_tcp6(const struct env *e, unsigned i, struct o6 *o)
{
	const uint8_t *f = e->fx.slots + (size_t)i * e->fx.slot_size;
	const uint8_t *th, *ip;
	size_t len, doff;

	th = parse_ip6(e, i, IPPROTO_TCP_, &len);
	ip = th - IP6_HLEN;
	memset(o, 0, sizeof(*o));
	memcpy(o->src, ip + 8, 16);
	memcpy(o->dst, ip + 24, 16);
	doff = tcp_decode(th, len, &o->tcp);
	check_l4_csum6(e, i, th, len, IPPROTO_TCP_);
	if (e->c.conf.vnet_hdr_len && f[1] != VNET_HDR_GSO_NONE) {
		assert_int_equal(f[1], VNET_HDR_GSO_TCPV6);
		assert_int_equal(f[2] | f[3] << 8, ETH_HLEN + IP6_HLEN + doff);
		o->gso_size = (uint16_t)(f[4] | f[5] << 8);
		assert_true(o->gso_size > 0 && o->tcp.len > o->gso_size);
	}
}

/**
 * parse_udp6() - check a queued IPv6 UDP frame completely
 * @e:		environment
 * @i:		frame index
 * @src:	expected source
 * @dst:	expected destination
 * @sport:	expected source port
 * @dport:	expected destination port
 * @len:	out: payload length
 *
 * Return: payload
 */
static const uint8_t *parse_udp6(const struct env *e, unsigned i,
				 const uint8_t *src, const uint8_t *dst,
				 uint16_t sport, uint16_t dport, size_t *len)
{
	const uint8_t *uh, *ip;
	size_t l4;

	uh = parse_ip6(e, i, IPPROTO_UDP_, &l4);
	ip = uh - IP6_HLEN;
	assert_memory_equal(ip + 8, src, 16);
	assert_memory_equal(ip + 24, dst, 16);
	assert_true(l4 >= 8);
	assert_int_equal(rd16(uh), sport);
	assert_int_equal(rd16(uh + 2), dport);
	assert_int_equal(rd16(uh + 4), l4);
	check_l4_csum6(e, i, uh, l4, IPPROTO_UDP_);
	*len = l4 - 8;
	return uh + 8;
}

/**
 * parse_icmp6() - check a queued ICMPv6 frame (complete checksum)
 * @e:		environment
 * @i:		frame index
 * @src:	expected source
 * @dst:	expected destination
 * @len:	out: message length
 *
 * Return: the message
 */
static const uint8_t *parse_icmp6(const struct env *e, unsigned i,
				  const uint8_t *src, const uint8_t *dst,
				  size_t *len)
{
	const uint8_t *m, *ip, *f = e->fx.slots + (size_t)i * e->fx.slot_size;
	size_t k;

	m = parse_ip6(e, i, IPPROTO_ICMPV6_, len);
	ip = m - IP6_HLEN;
	for (k = 0; k < e->c.conf.vnet_hdr_len; k++)
		assert_int_equal(f[k], 0);
	assert_memory_equal(ip + 8, src, 16);
	assert_memory_equal(ip + 24, dst, 16);
	assert_int_equal(ref_sum16(m, *len,
				   ref_pseudo6(src, dst, IPPROTO_ICMPV6_,
					       (uint32_t)*len)),
			 0xffff);
	return m;
}

/* ---- connections --------------------------------------------------------- */

/**
 * struct conn6 - one IPv6 connection as the guest sees it
 * @f:		the core's flow
 * @idx:	its index
 * @raddr:	remote address
 * @gport:	guest port
 * @rport:	remote port
 * @gseq:	next sequence number the guest sends
 * @gack:	acknowledgement number the guest sends
 * @iss:	our initial sequence number
 * @target:	address of the FX_SOCK_CONNECT intent
 */
struct conn6 {
	struct tcp_flow *f;
	uint32_t idx;
	const uint8_t *raddr;
	uint16_t gport, rport;
	uint32_t gseq, gack;
	uint32_t iss;
	uint8_t target[16];
};

/**
 * cseg6() - a segment of a connection from the guest's current state
 * @k:		connection
 * @flags:	T_* flags
 * @data:	payload
 * @len:	payload length
 *
 * Return: the segment (window 502, scaled by 7: 64256 bytes)
 */
static struct seg cseg6(const struct conn6 *k, uint8_t flags, const void *data,
			size_t len)
{
	struct seg s = {
		.daddr6 = k->raddr,
		.sport = k->gport,
		.dport = k->rport,
		.seq = k->gseq,
		.ack = (flags & T_ACK) ? k->gack : 0,
		.flags = flags,
		.wnd = 502,
		.data = data,
		.len = len,
	};

	return s;
}

/**
 * check6() - frame @i is a segment of @k with these fields
 * @e:		environment
 * @i:		frame index
 * @k:		connection
 * @flags:	exact flags
 * @seq:	sequence number
 * @len:	payload length
 * @o:		out: the parsed frame (may be NULL)
 */
static void check6(const struct env *e, unsigned i, const struct conn6 *k,
		   uint8_t flags, uint32_t seq, size_t len, struct o6 *o)
{
	struct o6 tmp;

	if (!o)
		o = &tmp;
	parse_tcp6(e, i, o);
	assert_memory_equal(o->src, k->raddr, 16);
	assert_memory_equal(o->dst, guest6, 16);
	assert_int_equal(o->tcp.sport, k->rport);
	assert_int_equal(o->tcp.dport, k->gport);
	assert_int_equal(o->tcp.flags, flags);
	assert_int_equal(o->tcp.seq, seq);
	if (flags & T_ACK)
		assert_int_equal(o->tcp.ack, k->f ? k->f->rcv_nxt : k->gseq);
	assert_int_equal(o->tcp.len, len);
}

/**
 * open6() - the guest opens a connection over IPv6, the host connects
 * @e:		environment
 * @k:		connection out
 * @raddr:	destination
 * @gport:	guest port
 * @rport:	destination port
 *
 * Checks the FX_SOCK_CONNECT intent (target in @k->target), the SYN-ACK
 * (MSS of the MTU less 60 bytes) and establishes with the guest's ACK
 * (window 502 << 7).
 */
static void open6(struct env *e, struct conn6 *k, const uint8_t *raddr,
		  uint16_t gport, uint16_t rport)
{
	const struct fx_intent *it;
	struct seg s;
	struct o6 o;

	memset(k, 0, sizeof(*k));
	k->raddr = raddr;
	k->gport = gport;
	k->rport = rport;
	k->gseq = 7000;
	s = cseg6(k, T_SYN, NULL, 0);
	s.mss = 1440;
	s.ws_on = true;
	s.ws = 7;
	s.wnd = 64800;
	env_clear(e);
	env_send(e, &s);
	k->gseq++;
	assert_int_equal(e->fx.nframes, 0);
	assert_intents(e, FX_SOCK_CONNECT, -1);
	it = &e->fx.intents[0];
	assert_int_equal(it->sock, -1);
	assert_int_equal(it->port, rport);
	memcpy(k->target, it->addr, 16);
	k->idx = it->flow;
	k->f = tcp_flow_get(&e->c, k->idx);
	assert_non_null(k->f);
	assert_true(tcp_flow_v6(k->f));
	assert_memory_equal(k->f->guest_addr, guest6, 16);
	assert_memory_equal(k->f->remote_addr, raddr, 16);
	assert_int_equal(k->f->mss, 1440);
	k->f->sock = (int32_t)(SOCK_BASE + k->idx);
	env_clear(e);

	tcp_on_sock_connected(&e->c, k->f, 0, e->now, &e->fx);
	assert_int_equal(e->fx.nframes, 1);
	check6(e, 0, k, T_SYN | T_ACK, k->f->iss, 0, &o);
	assert_int_equal(o.tcp.mss, MSS6);
	assert_int_equal(o.tcp.ws, 9);
	k->iss = o.tcp.seq;
	k->gack = k->iss + 1;
	env_clear(e);

	s = cseg6(k, T_ACK, NULL, 0);
	env_send(e, &s);
	assert_int_equal(k->f->state, TCPS_ESTABLISHED);
	assert_int_equal(k->f->guest_wnd, 502U << 7);
	env_clear(e);
}

/**
 * close6() - both sides close: flow ends, socket closed
 * @e:	environment
 * @k:	connection (established, nothing in flight)
 */
static void close6(struct env *e, struct conn6 *k)
{
	struct seg s;

	env_clear(e);
	tcp_on_sock_eof(&e->c, k->f, e->now, &e->fx);
	assert_int_equal(e->fx.nframes, 1);
	check6(e, 0, k, T_FIN | T_ACK, k->f->snd_nxt - 1, 0, NULL);
	env_clear(e);
	k->gack++;
	s = cseg6(k, T_FIN | T_ACK, NULL, 0);
	env_send(e, &s);
	assert_int_equal(fx_count(e, FX_SOCK_SHUT_WR), 1);
	assert_int_equal(fx_count(e, FX_SOCK_CLOSE), 1);
	assert_null(tcp_flow_get(&e->c, k->idx));
	env_clear(e);
}

/* ---- TCP ----------------------------------------------------------------- */

/**
 * test_tcp6_handshake() - SYN to an outside IPv6 address: connect there
 * (an IPv6 host socket), SYN-ACK with the IPv6 MSS, checksums right, ACK
 * establishes; counted as an IPv6 flow
 * @state:	environment
 */
static void test_tcp6_handshake(void **state)
{
	struct env *e = *state;
	struct conn6 k;

	open6(e, &k, remote6, 40000, 443);
	assert_memory_equal(k.target, remote6, 16);
	assert_false(addr_is4(k.target));
	assert_int_equal(env_delta(e, CTR_TCP_FLOWS_OPENED_GUEST), 1);
	assert_int_equal(env_delta(e, CTR_TCP_FLOWS_OPENED6), 1);
	close6(e, &k);
}

/**
 * test_tcp6_gateway() - the gateway's IPv6 addresses (ULA and link-local)
 * mean host ::1; DNS over TCP to the IPv6 DNS address goes to the IPv4
 * upstream; other ports of the DNS address are refused
 * @state:	environment
 */
static void test_tcp6_gateway(void **state)
{
	struct env *e = *state;
	struct conn6 k;
	struct seg s;
	struct o6 o;

	open6(e, &k, gw6, 40001, 8080);
	assert_memory_equal(k.target, lo6, 16);
	close6(e, &k);

	open6(e, &k, gw6_ll, 40002, 8080);
	assert_memory_equal(k.target, lo6, 16);
	close6(e, &k);

	open6(e, &k, dns6, 40003, 53);
	assert_true(addr_is4(k.target));
	assert_int_equal(addr_to4(k.target), ip4(127, 0, 0, 53));
	close6(e, &k);

	env_mark(e);
	memset(&k, 0, sizeof(k));
	k.raddr = dns6, k.gport = 40004, k.rport = 80, k.gseq = 1;
	s = cseg6(&k, T_SYN, NULL, 0);
	env_send(e, &s);
	assert_int_equal(e->fx.nintents, 0);
	assert_int_equal(e->fx.nframes, 1);
	k.gseq = 2;
	check6(e, 0, &k, T_RST | T_ACK, 0, 0, &o);
	assert_ctr_deltas(e, CTR_TCP_GUEST_SEGS, 1, CTR_TCP_FLOWS_REFUSED, 1,
			  CTR_TCP_RST_UNKNOWN_FLOW, 1, -1);
	env_clear(e);
}

/**
 * test_tcp6_link_local() - the guest talks to the gateway's link-local
 * address from its own: connected to ::1, answered to its link-local
 * address
 * @state:	environment
 */
static void test_tcp6_link_local(void **state)
{
	struct env *e = *state;
	struct seg s = { .saddr6 = guest6_ll,
			 .daddr6 = gw6_ll,
			 .sport = 40060,
			 .dport = 22,
			 .seq = 10,
			 .flags = T_SYN };
	const struct fx_intent *it;
	struct tcp_flow *f;
	struct o6 o;

	env_send(e, &s);
	it = fx_find(e, FX_SOCK_CONNECT);
	assert_memory_equal(it->addr, lo6, 16);
	f = tcp_flow_get(&e->c, it->flow);
	assert_memory_equal(f->guest_addr, guest6_ll, 16);
	f->sock = 70;
	env_clear(e);
	tcp_on_sock_connected(&e->c, f, 0, e->now, &e->fx);
	parse_tcp6(e, 0, &o);
	assert_memory_equal(o.src, gw6_ll, 16);
	assert_memory_equal(o.dst, guest6_ll, 16);
	assert_int_equal(o.tcp.flags, T_SYN | T_ACK);
	assert_int_equal(o.tcp.ack, 11);
	env_clear(e);
	tcp_on_sock_error(&e->c, f, &e->fx);
	parse_tcp6(e, 0, &o);
	assert_int_equal(o.tcp.flags, T_RST | T_ACK);
	assert_memory_equal(o.dst, guest6_ll, 16);
	env_clear(e);
}

/**
 * test_tcp6_no_map_gw() - with the mapping off, SYNs to the gateway's IPv6
 * addresses get an RST, and nothing is connected
 * @state:	environment
 */
static void test_tcp6_no_map_gw(void **state)
{
	struct env *e = *state;
	const uint8_t *gws[2] = { gw6, gw6_ll };
	struct conn6 k;
	unsigned i;

	e->c.conf.map_gw_to_loopback = false;
	for (i = 0; i < 2; i++) {
		struct seg s;

		env_clear(e);
		memset(&k, 0, sizeof(k));
		k.raddr = gws[i], k.gport = 40010, k.rport = 22, k.gseq = 99;
		s = cseg6(&k, T_SYN, NULL, 0);
		env_send(e, &s);
		assert_int_equal(e->fx.nintents, 0);
		k.gseq = 100;
		check6(e, 0, &k, T_RST | T_ACK, 0, 0, NULL);
	}
	assert_int_equal(env_delta(e, CTR_TCP_FLOWS_REFUSED), 2);
	env_clear(e);
}

/**
 * test_tcp6_data() - data both ways: the guest's payload becomes a SEND
 * pointing into its frame, acknowledged when the socket took it; the
 * host's payload, placed at tcp_payload_off() (86 bytes in, with IPv6
 * headers), goes out with the right checksum and is consumed on the ACK
 * @state:	environment
 */
static void test_tcp6_data(void **state)
{
	struct env *e = *state;
	const struct fx_intent *it;
	struct fx_intent sent;
	uint32_t off, mss, room, seq;
	struct conn6 k;
	struct seg s;
	uint8_t *slot;
	struct o6 o;

	open6(e, &k, remote6, 40020, 80);
	/* guest -> host */
	s = cseg6(&k, T_ACK | T_PSH, pat, 1000);
	env_send(e, &s);
	it = fx_find(e, FX_SOCK_SEND);
	assert_int_equal(it->len, 1000);
	assert_ptr_equal(it->data, e->in + e->c.conf.vnet_hdr_len + ETH_HLEN +
					   IP6_HLEN + TCP_HLEN);
	assert_memory_equal(it->data, pat, 1000);
	sent = *it;
	env_clear(e);
	tcp_on_sock_sent(&e->c, k.f, 1000, &sent, e->now, &e->fx);
	k.gseq += 1000;
	core_flush(&e->c, e->now, &e->fx);
	assert_int_equal(e->fx.nframes, 1);
	check6(e, 0, &k, T_ACK, k.f->snd_nxt, 0, NULL);
	env_clear(e);

	/* host -> guest */
	assert_int_equal(tcp_payload_off(&e->c, k.f),
			 e->c.conf.vnet_hdr_len + ETH_HLEN + IP6_HLEN +
				 TCP_HLEN);
	room = tcp_tx_room(&e->c, k.f, e->now, &off, &mss);
	assert_true(room >= 3000);
	assert_int_equal(mss, 1440);
	seq = k.f->snd_nxt;
	slot = fx_slot_next(&e->fx);
	memcpy(slot + tcp_payload_off(&e->c, k.f), pat + 5, 1440);
	tcp_build_data(&e->c, k.f, &e->fx, 1440, e->now);
	check6(e, 0, &k, T_ACK | T_PSH, seq, 1440, &o);
	assert_memory_equal(o.tcp.data, pat + 5, 1440);
	assert_int_equal(o.gso_size, 0);
	env_clear(e);
	k.gack += 1440;
	s = cseg6(&k, T_ACK, NULL, 0);
	env_send(e, &s);
	it = fx_find(e, FX_SOCK_CONSUME);
	assert_int_equal(it->len, 1440);
	env_clear(e);
	close6(e, &k);
}

/**
 * test_tcp6_rst_unknown() - segments of no flow: an ACK gets an RST at its
 * acknowledgement number, data without ACK an RST-ACK past it, an RST
 * nothing; all from the address the guest wrote to
 * @state:	environment
 */
static void test_tcp6_rst_unknown(void **state)
{
	struct env *e = *state;
	struct conn6 k = { .raddr = remote6, .gport = 41000, .rport = 80 };
	struct seg s;
	struct o6 o;

	k.gseq = 5000;
	k.gack = 0xabcdef01;
	s = cseg6(&k, T_ACK, NULL, 0);
	env_send(e, &s);
	assert_int_equal(e->fx.nframes, 1);
	check6(e, 0, &k, T_RST, 0xabcdef01, 0, &o);
	assert_int_equal(o.tcp.wnd, 0);
	env_clear(e);

	s = cseg6(&k, T_PSH, pat, 10);
	env_send(e, &s);
	k.gseq += 10;
	check6(e, 0, &k, T_RST | T_ACK, 0, 0, NULL);
	env_clear(e);

	s = cseg6(&k, T_RST, NULL, 0);
	env_send(e, &s);
	assert_int_equal(e->fx.nframes, 0);
	assert_ctr_deltas(e, CTR_TCP_GUEST_SEGS, 3, CTR_TCP_RST_UNKNOWN_FLOW, 2,
			  -1);
	env_clear(e);
}

/**
 * test_tcp6_connect_fail() - the host connect fails: refused gives the
 * guest an RST, unreachable an ICMPv6 destination unreachable (code 3,
 * address unreachable; code 0, no route) quoting the guest's SYN
 * @state:	environment
 */
static void test_tcp6_connect_fail(void **state)
{
	struct env *e = *state;
	static const struct {
		int err;
		int code;
	} cases[] = { { ECONNREFUSED, -1 },
		      { EHOSTUNREACH, 3 },
		      { ENETUNREACH, 0 } };
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct conn6 k = { .raddr = remote6,
				   .gport = 42000 + i,
				   .rport = 80,
				   .gseq = 777 };
		struct seg s = cseg6(&k, T_SYN, NULL, 0);
		struct tcp_flow *f;
		const uint8_t *m, *q;
		size_t len;

		env_clear(e);
		env_send(e, &s);
		f = tcp_flow_get(&e->c, fx_find(e, FX_SOCK_CONNECT)->flow);
		f->sock = 55;
		env_clear(e);
		tcp_on_sock_connected(&e->c, f, cases[i].err, e->now, &e->fx);
		assert_int_equal(e->fx.nframes, 1);
		assert_intents(e, FX_SOCK_CLOSE, -1);
		if (cases[i].code < 0) {
			k.gseq = 778;
			check6(e, 0, &k, T_RST | T_ACK, 0, 0, NULL);
			continue;
		}
		m = parse_icmp6(e, 0, remote6, guest6, &len);
		assert_int_equal(m[0], 1);
		assert_int_equal(m[1], cases[i].code);
		assert_int_equal(rd32(m + 4), 0);
		assert_int_equal(len, 8 + IP6_HLEN + 8);
		q = m + 8; /* the quoted SYN */
		assert_int_equal(q[0] >> 4, 6);
		assert_int_equal(q[6], IPPROTO_TCP_);
		assert_memory_equal(q + 8, guest6, 16);
		assert_memory_equal(q + 24, remote6, 16);
		assert_int_equal(rd16(q + 40), 42000 + i);
		assert_int_equal(rd16(q + 42), 80);
		assert_int_equal(rd32(q + 44), 777);
	}
	assert_int_equal(env_delta(e, CTR_TCP_FLOWS_REFUSED), 1);
	assert_int_equal(env_delta(e, CTR_TCP_FLOWS_UNREACH), 2);
	assert_int_equal(env_delta(e, CTR_ICMP6_UNREACH_SENT), 2);
	env_clear(e);
}

/**
 * test_tcp6_gso() - with GSO, payload beyond the MSS goes as one TCPV6
 * super-frame: gso_size the MSS, headers of 74 bytes, a whole number of
 * segments, and 20 bytes less room than IPv4 for the bigger header
 * @state:	environment
 */
static void test_tcp6_gso(void **state)
{
	struct env *e = *state;
	uint32_t off, mss, seq, len;
	struct conn6 k;
	uint8_t *slot;
	struct o6 o;

	open6(e, &k, remote6, 40030, 80);
	tcp_tx_room(&e->c, k.f, e->now, &off, &mss);
	/* (65495 - 20) / 1440 whole segments */
	assert_int_equal(mss, 45 * 1440);
	k.f->guest_wnd = 1U << 20;
	len = mss;
	seq = k.f->snd_nxt;
	slot = fx_slot_next(&e->fx);
	assert_true(tcp_payload_off(&e->c, k.f) + len <= e->fx.slot_size);
	memcpy(slot + tcp_payload_off(&e->c, k.f), pat, len);
	tcp_build_data(&e->c, k.f, &e->fx, len, e->now);
	assert_int_equal(e->fx.nframes, 1);
	check6(e, 0, &k, T_ACK | T_PSH, seq, len, &o);
	assert_int_equal(o.gso_size, 1440);
	assert_memory_equal(o.tcp.data, pat, len);
	assert_int_equal(env_delta(e, CTR_TCP_TX_GSO_FRAMES), 1);
	env_clear(e);
	k.gack += len;
	{
		struct seg s = cseg6(&k, T_ACK, NULL, 0);

		env_send(e, &s);
	}
	env_clear(e);
	close6(e, &k);
}

/**
 * test_tcp6_tso_from_guest() - a TSO frame from the guest (vnet GSO TCPV6,
 * partial checksum) is one segment: one SEND of all its payload
 * @state:	environment
 */
static void test_tcp6_tso_from_guest(void **state)
{
	struct env *e = *state;
	struct vnet_hdr vh = {
		.flags = VNET_HDR_F_NEEDS_CSUM,
		.gso_type = VNET_HDR_GSO_TCPV6,
		.hdr_len = ETH_HLEN + IP6_HLEN + TCP_HLEN,
		.gso_size = 1440,
		.csum_start = ETH_HLEN + IP6_HLEN,
		.csum_offset = 16,
	};
	const struct fx_intent *it;
	struct conn6 k;
	struct seg s;
	size_t n;

	open6(e, &k, remote6, 40040, 80);
	s = cseg6(&k, T_ACK | T_PSH, pat, 30000);
	n = build_tcp(e, e->in, &s);
	set_vnet(e, e->in, &vh);
	env_input(e, e->in, n);
	assert_int_equal(env_delta(e, CTR_VNET_DROP_BAD_HDR), 0);
	it = fx_find(e, FX_SOCK_SEND);
	assert_int_equal(it->len, 30000);
	assert_memory_equal(it->data, pat, 30000);
	{
		struct fx_intent sent = *it;

		env_clear(e);
		tcp_on_sock_sent(&e->c, k.f, 30000, &sent, e->now, &e->fx);
	}
	k.gseq += 30000;
	/* 30000 bytes are 20 segments' worth: ACKed at once (ack_every 0
	 * in this configuration: at the end of the batch) */
	core_flush(&e->c, e->now, &e->fx);
	check6(e, e->fx.nframes - 1, &k, T_ACK, k.f->snd_nxt, 0, NULL);
	env_clear(e);
	close6(e, &k);
}

/**
 * test_tcp6_published() - a published port's IPv6 client: SYN to the
 * guest's IPv6 address from the client's, with the IPv6 MSS; an IPv4
 * source still goes over IPv4 to the IPv4 address
 * @state:	environment
 */
static void test_tcp6_published(void **state)
{
	struct env *e = *state;
	struct conn6 k = { .raddr = remote6, .gport = 8080, .rport = 50000 };
	struct tcp_flow *f, *f4;
	struct o6 o;

	f = tcp_host_accepted(&e->c, remote6, 50000, 8080, 42, e->now, &e->fx);
	assert_non_null(f);
	assert_true(tcp_flow_v6(f));
	assert_memory_equal(f->guest_addr, guest6, 16);
	k.f = NULL;
	check6(e, 0, &k, T_SYN, f->iss, 0, &o);
	assert_int_equal(o.tcp.mss, MSS6);
	env_clear(e);
	f4 = tcp_host_accepted(&e->c, M4(ip4(192, 168, 1, 9)), 50000, 8080, 43,
			       e->now, &e->fx);
	assert_non_null(f4);
	assert_false(tcp_flow_v6(f4));
	assert_memory_equal(f4->guest_addr, M4(GUEST4), 16);
	assert_int_equal(env_delta(e, CTR_TCP_FLOWS_OPENED_HOST), 2);
	assert_int_equal(env_delta(e, CTR_TCP_FLOWS_OPENED6), 1);
	/* the guest refuses both */
	env_clear(e);
	{
		struct seg s = { .daddr6 = remote6,
				 .sport = 8080,
				 .dport = 50000,
				 .ack = f->iss + 1,
				 .flags = T_RST | T_ACK };

		env_send(e, &s);
	}
	{
		struct seg s = { .saddr = GUEST4,
				 .daddr = ip4(192, 168, 1, 9),
				 .sport = 8080,
				 .dport = 50000,
				 .ack = f4->iss + 1,
				 .flags = T_RST | T_ACK };

		env_send(e, &s);
	}
	assert_int_equal(fx_count(e, FX_SOCK_RESET), 2);
	assert_int_equal(env_delta(e, CTR_TCP_FLOWS_GUEST_REFUSED), 2);
	env_clear(e);

	/* with IPv6 off, an IPv6 source has nowhere to go */
	e->c.conf.ipv6 = false;
	assert_null(
		tcp_host_accepted(&e->c, remote6, 1, 2, 44, e->now, &e->fx));
	e->c.conf.ipv6 = true;
}

/**
 * test_tcp6_families_apart() - an IPv4 and an IPv6 flow with the same
 * ports live side by side, each found by its own tuple
 * @state:	environment
 */
static void test_tcp6_families_apart(void **state)
{
	struct env *e = *state;
	struct seg s4 = { .saddr = GUEST4,
			  .daddr = ip4(93, 184, 216, 34),
			  .sport = 40050,
			  .dport = 80,
			  .seq = 1,
			  .flags = T_SYN };
	struct conn6 k;
	struct tcp_flow *f4;

	open6(e, &k, remote6, 40050, 80);
	env_send(e, &s4);
	f4 = tcp_flow_get(&e->c, fx_find(e, FX_SOCK_CONNECT)->flow);
	assert_non_null(f4);
	assert_true(f4 != k.f);
	assert_true(addr_is4(fx_find(e, FX_SOCK_CONNECT)->addr));
	assert_ptr_equal(flow_lookup(&e->c, M4(GUEST4), 40050,
				     M4(ip4(93, 184, 216, 34)), 80),
			 f4);
	assert_ptr_equal(flow_lookup(&e->c, guest6, 40050, remote6, 80), k.f);
	f4->sock = 77;
	env_clear(e);
	tcp_on_sock_error(&e->c, f4, &e->fx);
	env_clear(e);
	close6(e, &k);
}

/**
 * test_ip6_unusable() - TCP, UDP and echo to ::, ::1, a v4-mapped address,
 * multicast or a link-local address other than the gateway's, or from ::,
 * ::1 or a v4-mapped source, are dropped and counted, nothing else moves
 * @state:	environment
 */
static void test_ip6_unusable(void **state)
{
	struct env *e = *state;
	static const uint8_t unspec[16],
		mapped[16] = { [10] = 0xff, 0xff, 127, 0, 0, 1 };
	static const uint8_t mcast[16] = { 0xff, 0x02, [15] = 0xfb };
	static const uint8_t other_ll[16] = { 0xfe, 0x80, [15] = 0x99 };
	const uint8_t *dsts[] = { unspec, lo6, mapped, mcast, other_ll };
	const uint8_t *srcs[] = { unspec, lo6, mapped };
	unsigned i, n = 0;
	size_t len;

	for (i = 0; i < ARRAY_SIZE(dsts); i++) {
		struct seg s = { .daddr6 = dsts[i],
				 .sport = 1,
				 .dport = 2,
				 .flags = T_SYN };

		env_send(e, &s);
		len = build_udp6(e, e->in, guest6, dsts[i], 1, 2, pat, 4);
		env_input(e, e->in, len);
		n += 2;
		if (dsts[i][0] != 0xff) { /* echo to multicast: ndp.c's */
			env_input(e, e->in,
				  build_echo6(e, e->in, dsts[i], 1, 1, 0));
			n++;
		}
	}
	for (i = 0; i < ARRAY_SIZE(srcs); i++) {
		struct seg s = { .saddr6 = srcs[i],
				 .daddr6 = remote6,
				 .sport = 1,
				 .dport = 2,
				 .flags = T_SYN };

		env_send(e, &s);
		n++;
	}
	assert_int_equal(e->fx.nframes, 0);
	assert_int_equal(e->fx.nintents, 0);
	assert_ctr_deltas(e, CTR_IP6_DROP_ADDR, (int)n, -1);
}

/* ---- UDP and echo -------------------------------------------------------- */

/**
 * test_udp6_flow() - a datagram to an outside IPv6 address opens a flow
 * (an IPv6 socket to that address and port), later ones reuse it; a
 * reply, placed at the IPv6 payload position, reaches the guest from the
 * remote address with the right checksum; the flow idles out
 * @state:	environment
 */
static void test_udp6_flow(void **state)
{
	struct env *e = *state;
	const struct fx_intent *it;
	struct udp_flow *f;
	const uint8_t *p;
	uint8_t *slot;
	size_t len;

	env_input(e, e->in,
		  build_udp6(e, e->in, guest6, remote6, 5000, 53, pat, 100));
	assert_intents(e, FX_DGRAM_OPEN, FX_DGRAM_SEND, -1);
	it = &e->fx.intents[0];
	assert_memory_equal(it->addr, remote6, 16);
	assert_int_equal(it->port, 53);
	assert_int_equal(e->fx.intents[1].len, 100);
	assert_memory_equal(e->fx.intents[1].data, pat, 100);
	f = udp_flow_get(&e->c, it->flow);
	assert_non_null(f);
	assert_true(udp_flow_v6(f));
	f->sock = 60;
	env_clear(e);
	env_input(e, e->in,
		  build_udp6(e, e->in, guest6, remote6, 5000, 53, pat, 7));
	assert_intents(e, FX_DGRAM_SEND, -1);
	env_clear(e);

	slot = udp_payload_slot(&e->c, &e->fx, true);
	assert_ptr_equal(slot, fx_slot_next(&e->fx) + e->c.conf.vnet_hdr_len +
				       ETH_HLEN + IP6_HLEN + UDP_HLEN);
	assert_int_equal(udp_payload_max(&e->c, &e->fx, true), 65520 - 48);
	memcpy(slot, pat + 3, 333);
	udp_flow_to_guest(&e->c, f, &e->fx, 333, 0, e->now);
	p = parse_udp6(e, 0, remote6, guest6, 53, 5000, &len);
	assert_int_equal(len, 333);
	assert_memory_equal(p, pat + 3, 333);
	assert_ctr_deltas(e, CTR_UDP_FLOWS_OPENED, 1, CTR_UDP_FLOWS_OPENED6, 1,
			  CTR_UDP_FROM_GUEST, 2, CTR_UDP_TO_GUEST, 1, -1);
	env_clear(e);
	core_timer(&e->c, e->now + e->c.conf.udp_idle_ns, &e->fx);
	assert_intents(e, FX_DGRAM_CLOSE, -1);
	assert_int_equal(e->fx.intents[0].sock, 60);
	env_clear(e);
}

/**
 * test_udp6_unreach() - the host reports port unreachable: the guest gets
 * ICMPv6 type 1 code 4 quoting its datagram's headers; host unreachable
 * becomes code 3
 * @state:	environment
 */
static void test_udp6_unreach(void **state)
{
	struct env *e = *state;
	struct udp_flow *f;
	const uint8_t *m;
	size_t len;

	env_input(e, e->in, build_udp6(e, e->in, guest6, gw6, 5001, 9, pat, 5));
	assert_memory_equal(fx_find(e, FX_DGRAM_OPEN)->addr, lo6, 16);
	f = udp_flow_get(&e->c, fx_find(e, FX_DGRAM_OPEN)->flow);
	f->sock = 61;
	env_clear(e);
	udp_on_sock_error(&e->c, f, ECONNREFUSED, &e->fx);
	udp_on_sock_error(&e->c, f, EHOSTUNREACH, &e->fx);
	assert_int_equal(e->fx.nframes, 2);
	m = parse_icmp6(e, 0, gw6, guest6, &len);
	assert_int_equal(m[0], 1);
	assert_int_equal(m[1], 4);
	assert_int_equal(len, 8 + IP6_HLEN + UDP_HLEN);
	assert_int_equal(m[8 + 6], IPPROTO_UDP_);
	assert_memory_equal(m + 8 + 8, guest6, 16);
	assert_memory_equal(m + 8 + 24, gw6, 16);
	assert_int_equal(rd16(m + 8 + 40), 5001);
	assert_int_equal(rd16(m + 8 + 42), 9);
	m = parse_icmp6(e, 1, gw6, guest6, &len);
	assert_int_equal(m[1], 3);
	assert_int_equal(env_delta(e, CTR_UDP_UNREACH_SENT), 2);
	assert_int_equal(env_delta(e, CTR_ICMP6_UNREACH_SENT), 2);
	env_clear(e);
}

/**
 * test_udp6_no_map_gw() - with the mapping off, a datagram to the
 * gateway's IPv6 address gets port unreachable at once, quoting the whole
 * datagram
 * @state:	environment
 */
static void test_udp6_no_map_gw(void **state)
{
	struct env *e = *state;
	const uint8_t *m;
	size_t len;

	e->c.conf.map_gw_to_loopback = false;
	env_input(e, e->in,
		  build_udp6(e, e->in, guest6, gw6, 5002, 9, pat, 40));
	assert_int_equal(e->fx.nintents, 0);
	m = parse_icmp6(e, 0, gw6, guest6, &len);
	assert_int_equal(m[0], 1);
	assert_int_equal(m[1], 4);
	assert_int_equal(len, 8 + IP6_HLEN + UDP_HLEN + 40);
	assert_memory_equal(m + 8 + IP6_HLEN + UDP_HLEN, pat, 40);
	assert_ctr_deltas(e, CTR_UDP_UNREACH_SENT, 1, CTR_ICMP6_UNREACH_SENT, 1,
			  -1);
	env_clear(e);
}

/**
 * test_udp6_dns() - a query to the IPv6 DNS address is an FX_DNS_QUERY
 * with the guest's IPv6 address; the answer, sent with udp_send() from
 * the DNS address, is an IPv6 datagram to the guest
 * @state:	environment
 */
static void test_udp6_dns(void **state)
{
	struct env *e = *state;
	const struct fx_intent *it;
	const uint8_t *p;
	size_t len;

	env_input(e, e->in,
		  build_udp6(e, e->in, guest6, dns6, 33333, 53, pat, 30));
	assert_intents(e, FX_DNS_QUERY, -1);
	it = &e->fx.intents[0];
	assert_memory_equal(it->addr, guest6, 16);
	assert_int_equal(it->port, 33333);
	assert_int_equal(it->len, 30);
	assert_ctr_deltas(e, CTR_DNS_QUERIES, 1, CTR_DNS_QUERIES6, 1, -1);
	env_clear(e);
	assert_int_equal(udp_send(&e->c, &e->fx, dns6, 53, guest6, 33333,
				  pat + 1, 99),
			 0);
	p = parse_udp6(e, 0, dns6, guest6, 53, 33333, &len);
	assert_int_equal(len, 99);
	assert_memory_equal(p, pat + 1, 99);
	/* too large for a frame: dropped and counted */
	assert_int_equal(udp_send(&e->c, &e->fx, dns6, 53, guest6, 1, pat,
				  65520 - 47),
			 -1);
	assert_int_equal(env_delta(e, CTR_UDP_DROP_TOO_BIG), 1);
	env_clear(e);
}

/**
 * test_udp6_published() - a published UDP port's IPv6 client reaches the
 * guest's IPv6 address from the client's address
 * @state:	environment
 */
static void test_udp6_published(void **state)
{
	struct env *e = *state;
	struct udp_flow *f;
	const uint8_t *p;
	size_t len;

	memcpy(udp_payload_slot(&e->c, &e->fx, true), pat, 12);
	f = udp_pub_to_guest(&e->c, remote6, 6000, 5353, 9, &e->fx, 12, e->now);
	assert_non_null(f);
	assert_int_equal(f->kind, UDPK_PUB);
	p = parse_udp6(e, 0, remote6, guest6, 6000, 5353, &len);
	assert_int_equal(len, 12);
	assert_memory_equal(p, pat, 12);
	env_clear(e);
	/* the guest answers: sent on the listener */
	env_input(e, e->in,
		  build_udp6(e, e->in, guest6, remote6, 5353, 6000, pat, 3));
	assert_intents(e, FX_DGRAM_SEND, -1);
	assert_int_equal(e->fx.intents[0].sock, 9);
	env_clear(e);
}

/**
 * test_echo6_out() - an echo request to an outside IPv6 address goes out
 * on an ICMPv6 ping socket; the socket's reply (its own id) reaches the
 * guest with the guest's id and a complete checksum
 * @state:	environment
 */
static void test_echo6_out(void **state)
{
	struct env *e = *state;
	const struct fx_intent *it;
	struct udp_flow *f;
	const uint8_t *m;
	uint8_t *p;
	size_t len;

	env_input(e, e->in, build_echo6(e, e->in, remote6, 0x1234, 1, 56));
	assert_intents(e, FX_DGRAM_OPEN, FX_DGRAM_SEND, -1);
	it = &e->fx.intents[0];
	assert_memory_equal(it->addr, remote6, 16);
	f = udp_flow_get(&e->c, it->flow);
	assert_int_equal(f->kind, UDPK_ICMP);
	assert_int_equal(f->guest_port, 0x1234);
	assert_int_equal(e->fx.intents[1].len, 64);
	f->sock = 62;
	env_clear(e);

	/* the ping socket's reply: another id, checksum left to us */
	p = udp_payload_slot(&e->c, &e->fx, true);
	p[0] = 129;
	p[1] = 0;
	wr16(p + 2, 0x5555);
	wr16(p + 4, 0x9999);
	wr16(p + 6, 1);
	memcpy(p + 8, pat, 56);
	udp_flow_to_guest(&e->c, f, &e->fx, 64, 0, e->now);
	m = parse_icmp6(e, 0, remote6, guest6, &len);
	assert_int_equal(len, 64);
	assert_int_equal(m[0], 129);
	assert_int_equal(rd16(m + 4), 0x1234);
	assert_int_equal(rd16(m + 6), 1);
	assert_memory_equal(m + 8, pat, 56);
	assert_ctr_deltas(e, CTR_ICMP6_ECHO_OUT, 1, CTR_ICMP6_ECHO_IN, 1,
			  CTR_UDP_FLOWS_OPENED, 1, CTR_UDP_FLOWS_OPENED6, 1,
			  -1);
	env_clear(e);
}

/**
 * test_shards6() - with two shards: IPv6 DNS goes to shard 0 from shard
 * 1; a segment for an unknown IPv6 flow goes round; a SYN stays
 * @state:	environment
 */
static void test_shards6(void **state)
{
	struct env *e = *state;
	struct seg s = {
		.daddr6 = remote6, .sport = 1000, .dport = 80, .flags = T_ACK
	};

	e->c.conf.nshards = 2;
	e->c.conf.shard_id = 1;
	e->c.in_hop = 0;
	env_input(e, e->in,
		  build_udp6(e, e->in, guest6, dns6, 4000, 53, pat, 20));
	assert_int_equal(e->c.pass_to, 0);
	assert_int_equal(e->fx.nintents, 0);
	env_send(e, &s);
	assert_int_equal(e->c.pass_to, 0);
	assert_int_equal(e->fx.nframes, 0);
	env_input(e, e->in,
		  build_udp6(e, e->in, guest6, remote6, 4001, 9, pat, 2));
	assert_int_equal(e->c.pass_to, 0);
	assert_int_equal(e->fx.nintents, 0);
	s.flags = T_SYN;
	env_send(e, &s);
	assert_int_equal(e->c.pass_to, -1);
	assert_intents(e, FX_SOCK_CONNECT, -1);
	{
		struct tcp_flow *f = tcp_flow_get(&e->c, e->fx.intents[0].flow);

		env_clear(e);
		tcp_on_sock_connected(&e->c, f, ECONNREFUSED, e->now, &e->fx);
	}
	env_clear(e);
	e->c.conf.nshards = 1;
	e->c.conf.shard_id = 0;
}

#define BOTH(t) ENV_BOTH(t, setup_offload, setup_plain, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(test_tcp6_handshake),
		BOTH(test_tcp6_gateway),
		BOTH(test_tcp6_link_local),
		BOTH(test_tcp6_no_map_gw),
		BOTH(test_tcp6_data),
		BOTH(test_tcp6_rst_unknown),
		BOTH(test_tcp6_connect_fail),
		cmocka_unit_test_setup_teardown(test_tcp6_gso, setup_gso,
						teardown),
		cmocka_unit_test_setup_teardown(test_tcp6_tso_from_guest,
						setup_offload, teardown),
		BOTH(test_tcp6_published),
		BOTH(test_tcp6_families_apart),
		BOTH(test_ip6_unusable),
		BOTH(test_udp6_flow),
		BOTH(test_udp6_unreach),
		BOTH(test_udp6_no_map_gw),
		BOTH(test_udp6_dns),
		BOTH(test_udp6_published),
		BOTH(test_echo6_out),
		BOTH(test_shards6),
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}

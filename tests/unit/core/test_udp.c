/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_udp.c - guest datagram flows (udp.c): UDP and ICMP echo, IPv4 and IPv6
 *
 * The test plays the guest (whole frames built here, fed to core_input())
 * and the host layer (it carries out FX_DGRAM_* intents by calling the
 * core back: datagrams placed at udp_payload_slot(), udp_flow_to_guest(),
 * udp_on_sock_error(), the timer). Every frame the core queues is checked
 * in full: Ethernet, the IPv4 or IPv6 header, the UDP or ICMP header and
 * the checksum (complete, or with offload the folded pseudo-header sum
 * the virtio-net header asks the device to finish), and the payload byte
 * for byte. Counters are checked with assert_ctr_deltas(): exactly the
 * listed ones move.
 *
 * Most tests run four times: IPv4 and IPv6, each on a core as on tap
 * (vnet header, checksum offload) and a plain one. Each ends with every
 * datagram flow gone and nothing due (teardown()).
 */
#include <errno.h>
#include <stdlib.h>

#include "helpers.h"
#include "core/mig.h"
#include "core/udp.h"

#define IDLE_NS (180ULL * 1000 * 1000 * 1000) /* core_init()'s default */

static uint8_t pat[70000];

/* IPv6 of the core: the guest in prefix6 (helpers.c), a remote outside */
static const uint8_t guest6[16] = { PFX6, [15] = 0x15 };
static const uint8_t remote6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x80 };
static const uint8_t other6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x07 };
static const uint8_t lo6[16] = { [15] = 1 };

/**
 * struct uenv - an environment and the addresses of the family under test
 * @e:		environment (core, fx, counters)
 * @v6:		the family under test is IPv6
 * @guest:	the guest's address (ADDR_LEN bytes; IPv4 v4-mapped)
 * @remote:	an outside address
 * @other:	another outside address
 * @gw:		the gateway's address
 * @dns:	the DNS forwarder's address
 * @lo:		host loopback, where the gateway's address maps
 */
struct uenv {
	struct env *e;
	bool v6;
	uint8_t guest[ADDR_LEN];
	uint8_t remote[ADDR_LEN];
	uint8_t other[ADDR_LEN];
	uint8_t gw[ADDR_LEN];
	uint8_t dns[ADDR_LEN];
	uint8_t lo[ADDR_LEN];
};

/* ---- set-up -------------------------------------------------------------- */

/**
 * conf() - the configuration of every test: IPv4 and IPv6 on, DNS at
 * 10.0.2.3 and prefix6::3, 16 datagram flows
 * @cc:		configuration out
 * @offload:	vnet header and checksum offload (as on tap)
 */
static void conf(struct core_conf *cc, bool offload)
{
	env_conf6(cc, offload);
	memcpy(cc->guest6, guest6, 16);
	cc->dns4_be = ip4(10, 0, 2, 3);
}

/**
 * usetup() - a fresh environment for one family
 * @state:	out: struct uenv
 * @v6:		IPv6 (else IPv4)
 * @offload:	vnet header and checksum offload
 * @uso:	UDP GSO frames both ways (conf.uso and conf.uso_in, as on
 *		tap; needs @offload)
 *
 * Return: 0
 */
static int usetup(void **state, bool v6, bool offload, bool uso)
{
	struct uenv *u = calloc(1, sizeof(*u));
	struct core_conf cc;

	assert_non_null(u);
	conf(&cc, offload);
	cc.uso = cc.uso_in = uso;
	u->e = env_new(&cc);
	u->v6 = v6;
	if (v6) {
		memcpy(u->guest, guest6, 16);
		memcpy(u->remote, remote6, 16);
		memcpy(u->other, other6, 16);
		memcpy(u->gw, gw6, 16);
		memcpy(u->dns, dns6, 16);
		memcpy(u->lo, lo6, 16);
	} else {
		addr_from4(u->guest, GUEST4);
		addr_from4(u->remote, ip4(192, 0, 2, 80));
		addr_from4(u->other, ip4(198, 51, 100, 7));
		addr_from4(u->gw, GW4);
		addr_from4(u->dns, ip4(10, 0, 2, 3));
		addr_from4(u->lo, LO4);
	}
	assert_int_equal(u->e->c.conf.udp_idle_ns, IDLE_NS);
	u->e->c.ra_next_ns = UINT64_MAX; /* no router advertisements due */
	env_mark(u->e);
	*state = u;
	return 0;
}

/**
 * setup4_offload() - IPv4, vnet header and checksum offload
 * @state:	out: struct uenv
 *
 * Return: 0
 */
static int setup4_offload(void **state)
{
	return usetup(state, false, true, false);
}

/**
 * setup4_plain() - IPv4, no vnet header, full checksums
 * @state:	out: struct uenv
 *
 * Return: 0
 */
static int setup4_plain(void **state)
{
	return usetup(state, false, false, false);
}

/**
 * setup6_offload() - IPv6, vnet header and checksum offload
 * @state:	out: struct uenv
 *
 * Return: 0
 */
static int setup6_offload(void **state)
{
	return usetup(state, true, true, false);
}

/**
 * setup6_plain() - IPv6, no vnet header, full checksums
 * @state:	out: struct uenv
 *
 * Return: 0
 */
static int setup6_plain(void **state)
{
	return usetup(state, true, false, false);
}

/**
 * setup4_uso() - IPv4, vnet header, checksum offload and UDP GSO frames
 * @state:	out: struct uenv
 *
 * Return: 0
 */
static int setup4_uso(void **state)
{
	return usetup(state, false, true, true);
}

/**
 * setup6_uso() - IPv6, vnet header, checksum offload and UDP GSO frames
 * @state:	out: struct uenv
 *
 * Return: 0
 */
static int setup6_uso(void **state)
{
	return usetup(state, true, true, true);
}

/**
 * uflows_used() - datagram flows in use
 * @e:	environment
 *
 * Return: count
 */
static unsigned uflows_used(const struct env *e)
{
	unsigned i, n = 0;

	for (i = 0; i < e->c.conf.max_udp_flows; i++)
		n += e->c.uflows[i].used;
	return n;
}

/**
 * teardown() - datagram flows idle out; then no flow, nothing due, no timer
 * @state:	struct uenv
 *
 * Return: 0
 */
static int teardown(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;

	env_clear(e);
	core_timer(&e->c, e->now + IDLE_NS * 4, &e->fx);
	env_clear(e);
	assert_int_equal(uflows_used(e), 0);
	env_assert_quiet(e);
	env_free(e);
	free(u);
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
 * iphlen() - IP header length of a family
 * @u:	environment
 *
 * Return: 20 or 40
 */
static size_t iphlen(const struct uenv *u)
{
	return u->v6 ? IP6_HLEN : IP4_HLEN;
}

/**
 * l3off() - offset of the L3 header in a guest frame or slot
 * @u:	environment
 *
 * Return: vnet header + Ethernet header bytes
 */
static size_t l3off(const struct uenv *u)
{
	return u->e->c.conf.vnet_hdr_len + ETH_HLEN;
}

/**
 * uh_in() - the UDP header of the frame built in @u->e->in
 * @u:	environment
 *
 * Return: pointer into the input buffer
 */
static uint8_t *uh_in(struct uenv *u)
{
	return u->e->in + l3off(u) + iphlen(u);
}

/**
 * build_udp() - a UDP datagram from the guest in the family under test,
 * IP and UDP lengths right, complete UDP checksum
 * @u:		environment
 * @b:		frame start
 * @src:	source (ADDR_LEN bytes)
 * @dst:	destination
 * @sport:	source port
 * @dport:	destination port
 * @data:	payload
 * @len:	payload length
 *
 * Return: frame length
 */
static size_t build_udp(const struct uenv *u, uint8_t *b, const uint8_t *src,
			const uint8_t *dst, uint16_t sport, uint16_t dport,
			const void *data, size_t len)
{
	size_t off = build_l2(u->e, b, our_mac, guest_mac,
			      u->v6 ? ETHERTYPE_IP6 : ETHERTYPE_IP4);
	uint16_t ps;
	uint8_t *uh;

	if (u->v6) {
		off += build_ip6(b + off, IPPROTO_UDP_, src, dst,
				 UDP_HLEN + len);
		ps = ref_pseudo6(src, dst, IPPROTO_UDP_,
				 (uint32_t)(UDP_HLEN + len));
	} else {
		off += build_ip4(b + off, IPPROTO_UDP_, addr_to4(src),
				 addr_to4(dst), UDP_HLEN + len);
		ps = ref_pseudo4(addr_to4(src), addr_to4(dst), IPPROTO_UDP_,
				 (uint16_t)(UDP_HLEN + len));
	}
	uh = b + off;
	wr16(uh, sport);
	wr16(uh + 2, dport);
	wr16(uh + 4, (uint16_t)(UDP_HLEN + len));
	wr16(uh + 6, 0);
	memmove(uh + UDP_HLEN, data, len);
	wr16(uh + 6, (uint16_t)~ref_sum16(uh, UDP_HLEN + len, ps));
	return off + UDP_HLEN + len;
}

/**
 * send_to() - build a guest datagram in @u->e->in and input it
 * @u:		environment
 * @dst:	destination
 * @sport:	guest port
 * @dport:	destination port
 * @data:	payload
 * @len:	payload length
 */
static void send_to(struct uenv *u, const uint8_t *dst, uint16_t sport,
		    uint16_t dport, const void *data, size_t len)
{
	env_input(u->e, u->e->in,
		  build_udp(u, u->e->in, u->guest, dst, sport, dport, data,
			    len));
}

/**
 * build_echo() - an echo request from the guest in the family under test
 * @u:		environment
 * @b:		frame start
 * @dst:	destination
 * @id:		identifier
 * @seqno:	sequence number
 * @len:	bytes of payload (from pat)
 *
 * Return: frame length
 */
static size_t build_echo(const struct uenv *u, uint8_t *b, const uint8_t *dst,
			 uint16_t id, uint16_t seqno, size_t len)
{
	size_t off;
	uint8_t *m;

	if (!u->v6)
		return build_icmp_echo(u->e, b, addr_to4(u->guest),
				       addr_to4(dst), id, seqno, pat, len);
	off = build_l2(u->e, b, our_mac, guest_mac, ETHERTYPE_IP6);
	off += build_ip6(b + off, IPPROTO_ICMPV6_, u->guest, dst, 8 + len);
	m = b + off;
	m[0] = 128;
	m[1] = 0;
	wr16(m + 2, 0);
	wr16(m + 4, id);
	wr16(m + 6, seqno);
	memcpy(m + 8, pat, len);
	wr16(m + 2,
	     (uint16_t)~ref_sum16(m, 8 + len,
				  ref_pseudo6(u->guest, dst, IPPROTO_ICMPV6_,
					      (uint32_t)(8 + len))));
	return off + 8 + len;
}

/* ---- frames to the guest ------------------------------------------------- */

/**
 * slot_of() - a queued frame's slot
 * @e:	environment
 * @i:	frame index
 *
 * Return: slot start (the vnet header, if any)
 */
static const uint8_t *slot_of(const struct env *e, unsigned i)
{
	return e->fx.slots + (size_t)i * e->fx.slot_size;
}

/**
 * parse_l3() - check a queued frame's Ethernet and IP headers in full
 * @e:		environment
 * @v6:		expect IPv6 (else IPv4)
 * @i:		frame index
 * @proto:	expected protocol / next header
 * @dmac:	expected destination MAC (NULL: the guest's)
 * @src:	expected source (ADDR_LEN bytes)
 * @dst:	expected destination
 * @l4_len:	out: bytes after the IP header
 *
 * IPv4: version and IHL 0x45, TOS 0, total length = the frame's, DF, TTL
 * 64, header checksum. IPv6: version 6, traffic class and flow label 0,
 * payload length = the frame's, hop limit 64.
 *
 * Return: the transport header
 */
static const uint8_t *parse_l3(const struct env *e, bool v6, unsigned i,
			       uint8_t proto, const uint8_t *dmac,
			       const uint8_t *src, const uint8_t *dst,
			       size_t *l4_len)
{
	const uint8_t *ip;
	size_t len;

	if (!v6) {
		ip = frame_l3(e, i, ETHERTYPE_IP4, dmac, &len);
		assert_true(len >= IP4_HLEN);
		assert_int_equal(ip[0], 0x45);
		assert_int_equal(ip[1], 0);
		assert_int_equal(rd16(ip + 2), len);
		assert_int_equal(rd16(ip + 6), 0x4000);
		assert_int_equal(ip[8], 64);
		assert_int_equal(ip[9], proto);
		assert_int_equal(ref_sum16(ip, IP4_HLEN, 0), 0xffff);
		assert_memory_equal(ip + 12, src + 12, 4);
		assert_memory_equal(ip + 16, dst + 12, 4);
		*l4_len = len - IP4_HLEN;
		return ip + IP4_HLEN;
	}
	ip = frame_l3(e, i, ETHERTYPE_IP6, dmac, &len);
	assert_true(len >= IP6_HLEN);
	assert_int_equal(ip[0], 0x60);
	assert_int_equal(ip[1] | ip[2] | ip[3], 0);
	assert_int_equal(rd16(ip + 4), len - IP6_HLEN);
	assert_int_equal(ip[6], proto);
	assert_int_equal(ip[7], 64);
	assert_memory_equal(ip + 8, src, 16);
	assert_memory_equal(ip + 24, dst, 16);
	*l4_len = len - IP6_HLEN;
	return ip + IP6_HLEN;
}

/**
 * parse_udp_at() - check a queued UDP frame completely
 * @e:		environment
 * @v6:		expect IPv6
 * @i:		frame index
 * @dmac:	expected destination MAC (NULL: the guest's)
 * @src:	expected source address
 * @sport:	expected source port
 * @dst:	expected destination address
 * @dport:	expected destination port
 * @len:	out: payload length
 *
 * Ports, the UDP length (= what the IP header carries) and the checksum:
 * with offload, NEEDS_CSUM from the UDP header with the field at 6 holding
 * the folded pseudo-header sum and no GSO; without, a vnet header of
 * zeros and a complete sum that verifies and is not 0 (RFC 768: "no
 * checksum"; RFC 8200: invalid).
 *
 * Return: payload
 */
static const uint8_t *parse_udp_at(const struct env *e, bool v6, unsigned i,
				   const uint8_t *dmac, const uint8_t *src,
				   uint16_t sport, const uint8_t *dst,
				   uint16_t dport, size_t *len)
{
	const uint8_t *f = slot_of(e, i), *uh;
	size_t l4, k;
	uint16_t ps;

	uh = parse_l3(e, v6, i, IPPROTO_UDP_, dmac, src, dst, &l4);
	assert_true(l4 >= UDP_HLEN);
	assert_int_equal(rd16(uh), sport);
	assert_int_equal(rd16(uh + 2), dport);
	assert_int_equal(rd16(uh + 4), l4);
	ps = v6 ? ref_pseudo6(src, dst, IPPROTO_UDP_, (uint32_t)l4) :
		  ref_pseudo4(addr_to4(src), addr_to4(dst), IPPROTO_UDP_,
			      (uint16_t)l4);
	if (e->c.conf.csum_offload) {
		assert_int_equal(e->c.conf.vnet_hdr_len, 12);
		assert_int_equal(f[0], VNET_HDR_F_NEEDS_CSUM);
		assert_int_equal(f[1], VNET_HDR_GSO_NONE);
		assert_int_equal(f[6] | f[7] << 8,
				 ETH_HLEN + (v6 ? IP6_HLEN : IP4_HLEN));
		assert_int_equal(f[8] | f[9] << 8, 6);
		assert_int_equal(rd16(uh + 6), ps);
	} else {
		for (k = 0; k < e->c.conf.vnet_hdr_len; k++)
			assert_int_equal(f[k], 0);
		assert_int_equal(ref_sum16(uh, l4, ps), 0xffff);
		assert_int_not_equal(rd16(uh + 6), 0);
	}
	*len = l4 - UDP_HLEN;
	return uh + UDP_HLEN;
}

/**
 * parse_udp() - parse_udp_at() in the family under test, to the guest's MAC
 * @u:		environment
 * @i:		frame index
 * @src:	expected source address
 * @sport:	expected source port
 * @dst:	expected destination address
 * @dport:	expected destination port
 * @len:	out: payload length
 *
 * Return: payload
 */
static const uint8_t *parse_udp(const struct uenv *u, unsigned i,
				const uint8_t *src, uint16_t sport,
				const uint8_t *dst, uint16_t dport, size_t *len)
{
	return parse_udp_at(u->e, u->v6, i, NULL, src, sport, dst, dport, len);
}

/**
 * parse_icmp() - check a queued ICMP or ICMPv6 frame (complete checksum,
 * vnet header of zeros)
 * @u:		environment
 * @i:		frame index
 * @src:	expected source
 * @dst:	expected destination
 * @len:	out: message length
 *
 * Return: the message
 */
static const uint8_t *parse_icmp(const struct uenv *u, unsigned i,
				 const uint8_t *src, const uint8_t *dst,
				 size_t *len)
{
	const uint8_t *f = slot_of(u->e, i), *m;
	size_t k;

	m = parse_l3(u->e, u->v6, i, u->v6 ? IPPROTO_ICMPV6_ : IPPROTO_ICMP_,
		     NULL, src, dst, len);
	assert_true(*len >= 8);
	for (k = 0; k < u->e->c.conf.vnet_hdr_len; k++)
		assert_int_equal(f[k], 0);
	if (u->v6)
		assert_int_equal(ref_sum16(m, *len,
					   ref_pseudo6(src, dst,
						       IPPROTO_ICMPV6_,
						       (uint32_t)*len)),
				 0xffff);
	else
		assert_int_equal(ref_sum16(m, *len, 0), 0xffff);
	return m;
}

/**
 * unreach_type() - ICMP destination unreachable type of the family
 * @u:	environment
 *
 * Return: 3 (ICMP) or 1 (ICMPv6)
 */
static uint8_t unreach_type(const struct uenv *u)
{
	return u->v6 ? 1 : 3;
}

/**
 * port_unreach() - ICMP code for port unreachable in the family
 * @u:	environment
 *
 * Return: 3 (ICMP) or 4 (ICMPv6)
 */
static uint8_t port_unreach(const struct uenv *u)
{
	return u->v6 ? 4 : 3;
}

/**
 * ctr_unreach() - the ICMP unreachable counter of the family
 * @u:	environment
 *
 * Return: counter id
 */
static int ctr_unreach(const struct uenv *u)
{
	return u->v6 ? CTR_ICMP6_UNREACH_SENT : CTR_ICMP4_UNREACH_SENT;
}

/**
 * ctr_drop_addr() - the bad address counter of the family
 * @u:	environment
 *
 * Return: counter id
 */
static enum ctr_id ctr_drop_addr(const struct uenv *u)
{
	return u->v6 ? CTR_IP6_DROP_ADDR : CTR_IP4_DROP_ADDR;
}

/**
 * host_reply() - the host received a datagram on a flow's socket: place
 * it in the next slot and hand it to the core
 * @u:		environment
 * @f:		flow
 * @data:	payload
 * @len:	length
 */
static void host_reply(struct uenv *u, struct udp_flow *f, const void *data,
		       size_t len)
{
	uint8_t *p = udp_payload_slot(&u->e->c, &u->e->fx, u->v6);

	assert_non_null(p);
	assert_true(len <= udp_payload_max(&u->e->c, &u->e->fx, u->v6));
	memcpy(p, data, len);
	udp_flow_to_guest(&u->e->c, f, &u->e->fx, len, 0, u->e->now);
}

/**
 * open_flow() - the guest sends a datagram that opens a flow; the host
 * gives it socket @sock
 * @u:		environment
 * @dst:	destination
 * @sport:	guest port
 * @dport:	destination port
 * @sock:	the socket the host opened
 *
 * Return: the flow; the fx batch is cleared
 */
static struct udp_flow *open_flow(struct uenv *u, const uint8_t *dst,
				  uint16_t sport, uint16_t dport, int32_t sock)
{
	struct udp_flow *f;

	send_to(u, dst, sport, dport, pat, 10);
	assert_intents(u->e, FX_DGRAM_OPEN, FX_DGRAM_SEND, -1);
	f = udp_flow_get(&u->e->c, u->e->fx.intents[0].flow);
	assert_non_null(f);
	f->sock = sock;
	env_clear(u->e);
	return f;
}

/* ---- flows from the guest ------------------------------------------------ */

/**
 * test_open() - a datagram to an outside address opens a flow: an
 * FX_DGRAM_OPEN to that address and port in the family, then an
 * FX_DGRAM_SEND of the payload, loaned from the guest's frame; the flow
 * holds the tuple as the guest sees it, its counters and time, and arms
 * the idle deadline
 * @state:	struct uenv
 */
static void test_open(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	const struct fx_intent *op, *snd;
	struct udp_flow *f;

	e->c.next_deadline_ns = UINT64_MAX;
	send_to(u, u->remote, 40000, 5353, pat, 100);
	assert_int_equal(e->fx.nframes, 0);
	assert_intents(e, FX_DGRAM_OPEN, FX_DGRAM_SEND, -1);
	op = &e->fx.intents[0];
	snd = &e->fx.intents[1];
	assert_memory_equal(op->addr, u->remote, ADDR_LEN);
	assert_int_equal(op->port, 5353);
	assert_int_equal(op->sock, -1);
	assert_int_equal(op->len, 0);
	assert_null(op->data);
	assert_int_equal(snd->flow, op->flow);
	assert_int_equal(snd->sock, -1);
	assert_int_equal(snd->data_owner, FX_DATA_RXBATCH);
	assert_ptr_equal(snd->data, uh_in(u) + UDP_HLEN);
	assert_int_equal(snd->len, 100);
	assert_memory_equal(snd->data, pat, 100);

	f = udp_flow_get(&e->c, op->flow);
	assert_non_null(f);
	assert_int_equal(f->kind, UDPK_OUT);
	assert_int_equal(udp_flow_v6(f), u->v6);
	assert_memory_equal(f->guest_addr, u->guest, ADDR_LEN);
	assert_memory_equal(f->remote_addr, u->remote, ADDR_LEN);
	assert_int_equal(f->guest_port, 40000);
	assert_int_equal(f->remote_port, 5353);
	assert_int_equal(f->sock, -1);
	assert_int_equal(f->from_guest, 1);
	assert_int_equal(f->to_guest, 0);
	assert_int_equal(f->last_ns, e->now);
	assert_int_equal(e->c.next_deadline_ns, e->now + IDLE_NS);
	assert_ptr_equal(uflow_lookup(&e->c, UDPK_OUT, u->guest, 40000,
				      u->remote, 5353),
			 f);
	/* the echo space is another: the same tuple is no echo flow */
	assert_null(uflow_lookup(&e->c, UDPK_ICMP, u->guest, 40000, u->remote,
				 5353));
	assert_ctr_deltas(e, CTR_UDP_FLOWS_OPENED, 1, CTR_UDP_FLOWS_OPENED6,
			  u->v6 ? 1 : 0, CTR_UDP_FROM_GUEST, 1, -1);
	env_clear(e);
}

/**
 * test_reuse() - the same 4-tuple later is the same flow: only an
 * FX_DGRAM_SEND, on the socket the host gave it, counters and time moved;
 * another guest port, remote port or remote address is a flow of its own
 * @state:	struct uenv
 */
static void test_reuse(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	struct udp_flow *f, *g;
	uint32_t idx;

	f = open_flow(u, u->remote, 40000, 53, 70);
	idx = udp_flow_idx(&e->c, f);
	e->now += MS(1500);
	send_to(u, u->remote, 40000, 53, pat + 5, 33);
	assert_intents(e, FX_DGRAM_SEND, -1);
	assert_int_equal(e->fx.intents[0].flow, idx);
	assert_int_equal(e->fx.intents[0].sock, 70);
	assert_int_equal(e->fx.intents[0].len, 33);
	assert_memory_equal(e->fx.intents[0].data, pat + 5, 33);
	assert_int_equal(f->from_guest, 2);
	assert_int_equal(f->last_ns, e->now);
	env_clear(e);

	/* each element of the tuple makes another flow */
	g = open_flow(u, u->remote, 40001, 53, 71);
	assert_ptr_not_equal(g, f);
	assert_int_equal(g->guest_port, 40001);
	g = open_flow(u, u->remote, 40000, 54, 72);
	assert_ptr_not_equal(g, f);
	assert_int_equal(g->remote_port, 54);
	g = open_flow(u, u->other, 40000, 53, 73);
	assert_ptr_not_equal(g, f);
	assert_memory_equal(g->remote_addr, u->other, ADDR_LEN);
	assert_int_equal(uflows_used(e), 4);
	/* and the first is still found */
	send_to(u, u->remote, 40000, 53, pat, 1);
	assert_intents(e, FX_DGRAM_SEND, -1);
	assert_int_equal(e->fx.intents[0].sock, 70);
	assert_ctr_deltas(e, CTR_UDP_FLOWS_OPENED, 4, CTR_UDP_FLOWS_OPENED6,
			  u->v6 ? 4 : 0, CTR_UDP_FROM_GUEST, 6, -1);
	env_clear(e);
}

/**
 * test_ulen() - the UDP length, not the IP payload, ends the datagram:
 * bytes past it (padding) are not sent; a datagram of length 8 is an
 * empty one, sent as such
 * @state:	struct uenv
 */
static void test_ulen(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	size_t flen;

	flen = build_udp(u, e->in, u->guest, u->remote, 1111, 2222, pat, 50);
	wr16(uh_in(u) + 4, UDP_HLEN + 20);
	env_input(e, e->in, flen);
	assert_intents(e, FX_DGRAM_OPEN, FX_DGRAM_SEND, -1);
	assert_int_equal(e->fx.intents[1].len, 20);
	assert_ptr_equal(e->fx.intents[1].data, uh_in(u) + UDP_HLEN);
	env_clear(e);

	flen = build_udp(u, e->in, u->guest, u->remote, 1111, 2222, pat, 50);
	wr16(uh_in(u) + 4, UDP_HLEN);
	env_input(e, e->in, flen);
	assert_intents(e, FX_DGRAM_SEND, -1);
	assert_int_equal(e->fx.intents[0].len, 0);
	env_clear(e);

	send_to(u, u->remote, 1111, 2222, pat, 0);
	assert_intents(e, FX_DGRAM_SEND, -1);
	assert_int_equal(e->fx.intents[0].len, 0);
	assert_ctr_deltas(e, CTR_UDP_FLOWS_OPENED, 1, CTR_UDP_FLOWS_OPENED6,
			  u->v6 ? 1 : 0, CTR_UDP_FROM_GUEST, 3, -1);
	env_clear(e);
}

/**
 * test_malformed() - each defect dropped with one counter, no frame, no
 * intent and no flow: IP payload shorter than a UDP header (also when
 * Ethernet padding follows), UDP length above the IP payload or below 8,
 * destination port 0, source port 0
 * @state:	struct uenv
 */
static void test_malformed(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	size_t flen, off = l3off(u);
	uint8_t *ip = e->in + off;
	int kind;

	for (kind = 0; kind < 8; kind++) {
		enum ctr_id ctr = CTR_UDP_DROP_BAD_HDR;

		env_clear(e);
		env_mark(e);
		flen = build_udp(u, e->in, u->guest, u->remote, 3000, 4000, pat,
				 16);
		switch (kind) {
		case 0: /* 4 bytes of UDP header only */
		case 1: /* the same, padded to 60 bytes past the IP packet */
			if (u->v6) {
				wr16(ip + 4, 4);
			} else {
				wr16(ip + 2, IP4_HLEN + 4);
				ip4_fix_csum(ip);
			}
			flen = kind ? off + iphlen(u) + 60 :
				      off + iphlen(u) + 4;
			break;
		case 2: /* UDP length one past the IP payload */
			wr16(uh_in(u) + 4, UDP_HLEN + 17);
			break;
		case 3: /* UDP length far past it */
			wr16(uh_in(u) + 4, 0xffff);
			break;
		case 4: /* UDP length below a header */
			wr16(uh_in(u) + 4, UDP_HLEN - 1);
			break;
		case 5: /* UDP length 0 (a jumbogram's, without one) */
			wr16(uh_in(u) + 4, 0);
			break;
		case 6:
			wr16(uh_in(u) + 2, 0);
			break;
		case 7:
			wr16(uh_in(u), 0);
			ctr = ctr_drop_addr(u);
			break;
		}
		env_input(e, e->in, flen);
		assert_dropped(e, kind, ctr);
	}
	assert_int_equal(uflows_used(e), 0);
}

/**
 * test_csum_not_checked() - the UDP checksum from the guest is not
 * verified (docs/design.md: the edge is memory, not a wire, and the host
 * kernel computes its own): a wrong one and a zero one (no checksum in
 * IPv4; invalid in IPv6, RFC 8200 8.1) are sent on all the same
 * @state:	struct uenv
 */
static void test_csum_not_checked(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	size_t flen;

	flen = build_udp(u, e->in, u->guest, u->remote, 3000, 4000, pat, 16);
	uh_in(u)[6] ^= 0x5a;
	env_input(e, e->in, flen);
	assert_intents(e, FX_DGRAM_OPEN, FX_DGRAM_SEND, -1);
	assert_int_equal(e->fx.intents[1].len, 16);
	env_clear(e);
	flen = build_udp(u, e->in, u->guest, u->remote, 3000, 4000, pat, 16);
	wr16(uh_in(u) + 6, 0);
	env_input(e, e->in, flen);
	assert_intents(e, FX_DGRAM_SEND, -1);
	assert_int_equal(e->fx.intents[0].len, 16);
	assert_ctr_deltas(e, CTR_UDP_FLOWS_OPENED, 1, CTR_UDP_FLOWS_OPENED6,
			  u->v6 ? 1 : 0, CTR_UDP_FROM_GUEST, 2, -1);
	env_clear(e);
}

/**
 * test_large_from_guest() - the core has no MTU of its own for the
 * guest's datagrams: the largest one the IP header can describe is sent
 * whole; fragments never reach udp.c (dropped by the IP layer)
 * @state:	struct uenv
 */
static void test_large_from_guest(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	size_t max = u->v6 ? 65535 - UDP_HLEN : 65535 - IP4_HLEN - UDP_HLEN;
	size_t flen;
	uint8_t *ip = e->in + l3off(u);

	send_to(u, u->remote, 3000, 4000, pat, max);
	assert_intents(e, FX_DGRAM_OPEN, FX_DGRAM_SEND, -1);
	assert_int_equal(e->fx.intents[1].len, max);
	assert_memory_equal(e->fx.intents[1].data, pat, max);
	env_clear(e);
	env_mark(e);

	/* a first fragment (IPv4 MF; an IPv6 fragment header) */
	flen = build_udp(u, e->in, u->guest, u->remote, 3000, 4000, pat, 100);
	if (u->v6) {
		/* fragment header 44 before the UDP header */
		memmove(ip + IP6_HLEN + 8, ip + IP6_HLEN, UDP_HLEN + 100);
		ip[6] = 44;
		wr16(ip + 4, 8 + UDP_HLEN + 100);
		memset(ip + IP6_HLEN, 0, 8);
		ip[IP6_HLEN] = IPPROTO_UDP_;
		ip[IP6_HLEN + 3] = 1; /* offset 0, M */
		flen += 8;
	} else {
		wr16(ip + 6, 0x2000);
		ip4_fix_csum(ip);
	}
	env_input(e, e->in, flen);
	assert_dropped(e, 0, u->v6 ? CTR_IP6_DROP_FRAG : CTR_IP4_DROP_FRAG);
}

/* ---- datagrams to the guest ---------------------------------------------- */

/**
 * test_to_guest() - a datagram on the flow's socket reaches the guest:
 * from the remote address and port to the guest's (swapped against the
 * guest's datagram), checksum right, payload byte for byte; lengths
 * 0, 1 (odd), 1000 and the most a slot takes at the MTU; counted, the
 * flow's time and counter moved
 * @state:	struct uenv
 */
static void test_to_guest(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	size_t lens[4], i, len;
	struct udp_flow *f;
	const uint8_t *p;

	lens[0] = 0;
	lens[1] = 1;
	lens[2] = 1000;
	lens[3] = udp_payload_max(&e->c, &e->fx, u->v6);
	assert_int_equal(lens[3], 65520 - iphlen(u) - UDP_HLEN);
	f = open_flow(u, u->remote, 41000, 7000, 80);
	env_mark(e);
	for (i = 0; i < 4; i++) {
		e->now += MS(10);
		host_reply(u, f, pat + i, lens[i]);
		assert_int_equal(e->fx.nframes, i + 1);
		assert_int_equal(e->fx.nintents, 0);
		assert_int_equal(e->frame_len[i],
				 l3off(u) + iphlen(u) + UDP_HLEN + lens[i]);
		p = parse_udp(u, (unsigned)i, u->remote, 7000, u->guest, 41000,
			      &len);
		assert_int_equal(len, lens[i]);
		assert_memory_equal(p, pat + i, len);
		assert_int_equal(f->to_guest, i + 1);
		assert_int_equal(f->last_ns, e->now);
	}
	assert_int_equal(f->from_guest, 1);
	assert_ctr_deltas(e, CTR_UDP_TO_GUEST, 4, -1);
	env_clear(e);
}

/**
 * test_csum_zero() - a datagram to the guest whose checksum computes to
 * 0 carries 0xffff (RFC 768: 0 would mean "no checksum"; RFC 8200: 0 is
 * invalid), which verifies as well
 * @state:	struct uenv
 */
static void test_csum_zero(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	uint8_t data[32], uh[UDP_HLEN];
	struct udp_flow *f;
	const uint8_t *p;
	uint16_t s, ps;
	size_t len;

	f = open_flow(u, u->remote, 42000, 9000, 81);
	/* choose the last two bytes so the whole sum folds to 0xffff */
	memcpy(data, pat, sizeof(data));
	data[30] = data[31] = 0;
	wr16(uh, 9000);
	wr16(uh + 2, 42000);
	wr16(uh + 4, UDP_HLEN + sizeof(data));
	wr16(uh + 6, 0);
	ps = u->v6 ? ref_pseudo6(u->remote, u->guest, IPPROTO_UDP_,
				 UDP_HLEN + sizeof(data)) :
		     ref_pseudo4(addr_to4(u->remote), addr_to4(u->guest),
				 IPPROTO_UDP_, UDP_HLEN + sizeof(data));
	s = ref_sum16(data, sizeof(data), ref_sum16(uh, UDP_HLEN, ps));
	wr16(data + 30, (uint16_t)(0xffff - s));
	assert_int_equal(ref_sum16(data, sizeof(data),
				   ref_sum16(uh, UDP_HLEN, ps)),
			 0xffff);
	host_reply(u, f, data, sizeof(data));
	p = parse_udp(u, 0, u->remote, 9000, u->guest, 42000, &len);
	assert_int_equal(len, sizeof(data));
	assert_memory_equal(p, data, sizeof(data));
	if (!e->c.conf.csum_offload)
		assert_int_equal(rd16(p - 2), 0xffff);
	env_clear(e);
}

/**
 * test_payload_max() - how much a slot takes: bounded by the MTU (IP
 * packet no larger) and by the slot; udp_send() of the most fits exactly
 * the MTU, one byte more is dropped and counted; with no slot free,
 * nothing is queued and that is counted
 * @state:	struct uenv
 */
static void test_payload_max(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	size_t room = l3off(u) + iphlen(u) + UDP_HLEN, max, len;
	unsigned i;
	const uint8_t *p;

	e->c.conf.mtu = 1500;
	max = udp_payload_max(&e->c, &e->fx, u->v6);
	assert_int_equal(max, 1500 - iphlen(u) - UDP_HLEN);
	assert_ptr_equal(udp_payload_slot(&e->c, &e->fx, u->v6),
			 e->fx.slots + room);
	assert_int_equal(udp_send(&e->c, &e->fx, u->remote, 7, u->guest, 8, pat,
				  max),
			 0);
	assert_int_equal(e->frame_len[0], l3off(u) + 1500);
	p = parse_udp(u, 0, u->remote, 7, u->guest, 8, &len);
	assert_int_equal(len, max);
	assert_memory_equal(p, pat, max);
	assert_int_equal(udp_send(&e->c, &e->fx, u->remote, 7, u->guest, 8, pat,
				  max + 1),
			 -1);
	assert_int_equal(e->fx.nframes, 1);
	assert_ctr_deltas(e, CTR_UDP_TO_GUEST, 1, CTR_UDP_DROP_TOO_BIG, 1, -1);

	/* a slot smaller than the MTU bounds it instead */
	e->fx.slot_size = room + 100;
	assert_int_equal(udp_payload_max(&e->c, &e->fx, u->v6), 100);
	e->fx.slot_size = room;
	assert_int_equal(udp_payload_max(&e->c, &e->fx, u->v6), 0);
	e->fx.slot_size = ENV_SLOT_SIZE;

	/* every slot taken */
	env_clear(e);
	env_mark(e);
	for (i = 0; i < ENV_SLOTS; i++)
		assert_int_equal(udp_send(&e->c, &e->fx, u->remote, 7, u->guest,
					  8, pat, 10),
				 0);
	assert_null(udp_payload_slot(&e->c, &e->fx, u->v6));
	assert_int_equal(udp_send(&e->c, &e->fx, u->remote, 7, u->guest, 8, pat,
				  10),
			 -1);
	assert_int_equal(e->fx.nframes, ENV_SLOTS);
	assert_ctr_deltas(e, CTR_UDP_TO_GUEST, ENV_SLOTS, CTR_FX_POOL_EMPTY, 1,
			  -1);
	env_clear(e);
}

/**
 * test_send_family() - the family entry points: udp4_send() (and to the
 * IPv4 broadcast address, the broadcast MAC, as DHCP needs), udp6_send()
 * writes IPv6 even to a v4-mapped address (a DHCPv6 client's source)
 * @state:	struct uenv
 */
static void test_send_family(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	uint8_t bc[ADDR_LEN], mapped[ADDR_LEN];
	const uint8_t *p;
	size_t len;

	if (!u->v6) {
		assert_int_equal(udp4_send(&e->c, &e->fx, GW4, 67, GUEST4, 68,
					   pat, 300),
				 0);
		p = parse_udp(u, 0, u->gw, 67, u->guest, 68, &len);
		assert_int_equal(len, 300);
		assert_memory_equal(p, pat, 300);
		addr_from4(bc, 0xffffffffU);
		assert_int_equal(udp4_send(&e->c, &e->fx, GW4, 67, 0xffffffffU,
					   68, pat + 1, 250),
				 0);
		p = parse_udp_at(e, false, 1, bcast_mac, u->gw, 67, bc, 68,
				 &len);
		assert_int_equal(len, 250);
		assert_memory_equal(p, pat + 1, 250);
		assert_ctr_deltas(e, CTR_UDP_TO_GUEST, 2, -1);
		env_clear(e);
		return;
	}
	assert_int_equal(udp6_send(&e->c, &e->fx, gw6_ll, 547, guest6_ll, 546,
				   pat, 77),
			 0);
	p = parse_udp_at(e, true, 0, NULL, gw6_ll, 547, guest6_ll, 546, &len);
	assert_int_equal(len, 77);
	assert_memory_equal(p, pat, 77);
	addr_from4(mapped, GUEST4);
	assert_int_equal(udp6_send(&e->c, &e->fx, gw6_ll, 547, mapped, 546,
				   pat + 2, 40),
			 0);
	p = parse_udp_at(e, true, 1, NULL, gw6_ll, 547, mapped, 546, &len);
	assert_int_equal(len, 40);
	assert_memory_equal(p, pat + 2, 40);
	assert_ctr_deltas(e, CTR_UDP_TO_GUEST, 2, -1);
	env_clear(e);
}

/* ---- the flow's life ----------------------------------------------------- */

/**
 * test_idle_expiry() - a flow closes conf.udp_idle_ns after its last
 * datagram either way: not a nanosecond before; traffic from the guest and
 * from the host each push it; the close is an FX_DGRAM_CLOSE with its
 * socket; afterwards the same tuple opens a new flow
 * @state:	struct uenv
 */
static void test_idle_expiry(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	struct udp_flow *f;
	uint64_t t0 = e->now;
	uint32_t idx;

	assert_int_equal(udp_timer(&e->c, e->now, &e->fx), UINT64_MAX);
	f = open_flow(u, u->remote, 43000, 123, 90);
	idx = udp_flow_idx(&e->c, f);
	assert_int_equal(udp_timer(&e->c, t0 + IDLE_NS - 1, &e->fx),
			 t0 + IDLE_NS);
	assert_int_equal(e->fx.nintents, 0);

	/* from the guest, half way: the deadline moves */
	e->now = t0 + IDLE_NS / 2;
	send_to(u, u->remote, 43000, 123, pat, 3);
	env_clear(e);
	assert_int_equal(udp_timer(&e->c, t0 + IDLE_NS, &e->fx),
			 e->now + IDLE_NS);
	assert_int_equal(e->fx.nintents, 0);

	/* from the host: moves it too */
	e->now = t0 + IDLE_NS;
	host_reply(u, f, pat, 3);
	env_clear(e);
	assert_int_equal(udp_timer(&e->c, e->now + IDLE_NS - 1, &e->fx),
			 e->now + IDLE_NS);
	assert_int_equal(e->fx.nintents, 0);
	env_mark(e);

	/* through core_timer(), as the host runs it */
	e->now += IDLE_NS;
	assert_int_equal(core_timer(&e->c, e->now, &e->fx), UINT64_MAX);
	assert_intents(e, FX_DGRAM_CLOSE, -1);
	assert_int_equal(e->fx.intents[0].sock, 90);
	assert_int_equal(e->fx.intents[0].flow, idx);
	assert_null(udp_flow_get(&e->c, idx));
	assert_null(
		uflow_lookup(&e->c, UDPK_OUT, u->guest, 43000, u->remote, 123));
	assert_ctr_deltas(e, CTR_UDP_FLOWS_EXPIRED, 1, -1);
	env_clear(e);

	send_to(u, u->remote, 43000, 123, pat, 3);
	assert_intents(e, FX_DGRAM_OPEN, FX_DGRAM_SEND, -1);
	assert_int_equal(udp_flow_get(&e->c, e->fx.intents[0].flow)->from_guest,
			 1);
	env_clear(e);
}

/**
 * test_timer_partial() - expiry stops while the intent list is nearly
 * full (returning now: call again), and finishes on the next call; only
 * the idle flows go, the busy one stays and sets the next deadline
 * @state:	struct uenv
 */
static void test_timer_partial(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	struct udp_flow *busy;
	uint64_t t0 = e->now;
	unsigned i;

	for (i = 0; i < 3; i++)
		open_flow(u, u->remote, (uint16_t)(44000 + i), 1, (int32_t)i);
	e->now = t0 + MS(5);
	busy = open_flow(u, u->remote, 44100, 1, 99);
	env_mark(e);
	e->fx.nintents = FX_MAX_INTENTS - 3; /* what the host has not drained */
	assert_int_equal(udp_timer(&e->c, t0 + IDLE_NS, &e->fx), t0 + IDLE_NS);
	assert_int_equal(e->fx.nintents, FX_MAX_INTENTS - 2);
	assert_int_equal(e->fx.intents[FX_MAX_INTENTS - 3].type,
			 FX_DGRAM_CLOSE);
	assert_int_equal(uflows_used(e), 3);
	env_clear(e);
	assert_int_equal(udp_timer(&e->c, t0 + IDLE_NS, &e->fx),
			 t0 + MS(5) + IDLE_NS);
	assert_intents(e, FX_DGRAM_CLOSE, FX_DGRAM_CLOSE, -1);
	assert_int_equal(uflows_used(e), 1);
	assert_true(busy->used);
	assert_ctr_deltas(e, CTR_UDP_FLOWS_EXPIRED, 3, -1);
	env_clear(e);
}

/**
 * test_table_full() - with every datagram flow taken, a new tuple is
 * dropped and counted (nothing queued, no crash), the existing flows work
 * on; once some idle out their slots open new flows, and the flows left
 * in the hash chains are still found
 * @state:	struct uenv
 */
static void test_table_full(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	uint32_t n = e->c.conf.max_udp_flows, i;
	uint64_t t0 = e->now;
	struct udp_flow *f;

	assert_int_equal(n, 16);
	for (i = 0; i < n; i++)
		open_flow(u, u->remote, (uint16_t)(45000 + i), 53,
			  (int32_t)(200 + i));
	env_mark(e);
	send_to(u, u->remote, 46000, 53, pat, 8);
	assert_dropped(e, 0, CTR_UDP_FLOWS_TABLE_FULL);
	/* a published port's client is refused the same way */
	env_mark(e);
	assert_null(
		udp_pub_to_guest(&e->c, u->other, 1, 2, 9, &e->fx, 0, e->now));
	assert_dropped(e, 1, CTR_UDP_FLOWS_TABLE_FULL);
	/* so is an echo */
	env_mark(e);
	env_input(e, e->in, build_echo(u, e->in, u->remote, 7, 1, 8));
	assert_int_equal(e->fx.nintents, 0);
	assert_int_equal(e->fx.nframes, 0);
	assert_int_equal(env_delta(e, CTR_UDP_FLOWS_TABLE_FULL), 1);

	/* an existing flow is still used */
	env_clear(e);
	send_to(u, u->remote, 45003, 53, pat, 8);
	assert_intents(e, FX_DGRAM_SEND, -1);
	assert_int_equal(e->fx.intents[0].sock, 203);
	env_clear(e);

	/* the even flows keep busy, the odd ones idle out */
	e->now = t0 + MS(1);
	for (i = 0; i < n; i += 2)
		send_to(u, u->remote, (uint16_t)(45000 + i), 53, pat, 1);
	env_clear(e);
	env_mark(e);
	e->now = t0 + IDLE_NS;
	core_timer(&e->c, e->now, &e->fx);
	assert_int_equal(fx_count(e, FX_DGRAM_CLOSE), n / 2);
	for (i = 0; i < e->fx.nintents; i++)
		assert_int_equal(e->fx.intents[i].sock % 2, 1);
	assert_ctr_deltas(e, CTR_UDP_FLOWS_EXPIRED, (int)n / 2, -1);
	env_clear(e);
	for (i = 0; i < n; i += 2) {
		f = uflow_lookup(&e->c, UDPK_OUT, u->guest,
				 (uint16_t)(45000 + i), u->remote, 53);
		assert_non_null(f);
		assert_int_equal(f->sock, 200 + i);
	}
	for (i = 0; i < n / 2; i++)
		open_flow(u, u->other, (uint16_t)(47000 + i), 53, 300);
	assert_int_equal(uflows_used(e), n);
	env_mark(e);
	send_to(u, u->other, 48000, 53, pat, 8);
	assert_dropped(e, 2, CTR_UDP_FLOWS_TABLE_FULL);
}

/**
 * test_guest_gone() - the guest went away: every flow forgotten, an
 * FX_DGRAM_CLOSE for each with a socket of its own (guest-opened, echo),
 * none for a published port's (the socket is the listener); stops while
 * the intent list is nearly full and finishes on the next call
 * @state:	struct uenv
 */
static void test_guest_gone(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	struct udp_flow *f;

	open_flow(u, u->remote, 1000, 2000, 11);
	memcpy(udp_payload_slot(&e->c, &e->fx, u->v6), pat, 4);
	assert_non_null(udp_pub_to_guest(&e->c, u->other, 3000, 4000, 12,
					 &e->fx, 4, e->now));
	env_clear(e);
	env_input(e, e->in, build_echo(u, e->in, u->remote, 0x77, 1, 8));
	f = udp_flow_get(&e->c, fx_find(e, FX_DGRAM_OPEN)->flow);
	f->sock = 13;
	env_clear(e);
	env_mark(e);

	e->fx.nintents = FX_MAX_INTENTS - 2;
	assert_false(udp_guest_gone(&e->c, &e->fx));
	assert_int_equal(uflows_used(e), 3);
	env_clear(e);
	assert_true(udp_guest_gone(&e->c, &e->fx));
	assert_intents(e, FX_DGRAM_CLOSE, FX_DGRAM_CLOSE, -1);
	assert_int_equal(e->fx.intents[0].sock, 11);
	assert_int_equal(e->fx.intents[1].sock, 13);
	assert_int_equal(uflows_used(e), 0);
	assert_ctr_deltas(e, CTR_UDP_FLOWS_GUEST_GONE, 3, -1);
	env_clear(e);
	/* nothing left: done at once */
	assert_true(udp_guest_gone(&e->c, &e->fx));
	assert_int_equal(e->fx.nintents, 0);
}

/* ---- services and refusals ----------------------------------------------- */

/**
 * test_dns() - port 53 of the DNS address is a query for the forwarder
 * (FX_DNS_QUERY with the guest's address and port and the payload up to
 * the UDP length; no flow); any other port there is refused with port
 * unreachable quoting the datagram; with the IPv4 DNS address shared
 * with the gateway (passt's model), only port 53 is the forwarder's
 * @state:	struct uenv
 */
static void test_dns(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	const struct fx_intent *it;
	const uint8_t *m;
	size_t flen, len;

	flen = build_udp(u, e->in, u->guest, u->dns, 33333, 53, pat, 40);
	wr16(uh_in(u) + 4, UDP_HLEN + 30); /* 10 bytes of padding */
	env_input(e, e->in, flen);
	assert_intents(e, FX_DNS_QUERY, -1);
	it = &e->fx.intents[0];
	assert_memory_equal(it->addr, u->guest, ADDR_LEN);
	assert_int_equal(it->port, 33333);
	assert_int_equal(it->len, 30);
	assert_int_equal(it->sock, -1);
	assert_int_equal(it->data_owner, FX_DATA_RXBATCH);
	assert_ptr_equal(it->data, uh_in(u) + UDP_HLEN);
	assert_int_equal(e->fx.nframes, 0);
	assert_int_equal(uflows_used(e), 0);
	assert_ctr_deltas(e, CTR_DNS_QUERIES, 1, CTR_DNS_QUERIES6,
			  u->v6 ? 1 : 0, -1);
	env_clear(e);
	env_mark(e);

	flen = build_udp(u, e->in, u->guest, u->dns, 33333, 54, pat, 40);
	env_input(e, e->in, flen);
	assert_int_equal(e->fx.nintents, 0);
	m = parse_icmp(u, 0, u->dns, u->guest, &len);
	assert_int_equal(m[0], unreach_type(u));
	assert_int_equal(m[1], port_unreach(u));
	assert_int_equal(rd32(m + 4), 0);
	/* IPv4 quotes the header and 8 bytes, IPv6 all of it (it fits) */
	assert_int_equal(len, 8 + iphlen(u) + UDP_HLEN + (u->v6 ? 40 : 0));
	assert_memory_equal(m + 8, e->in + l3off(u), len - 8);
	assert_int_equal(uflows_used(e), 0);
	assert_ctr_deltas(e, CTR_UDP_UNREACH_SENT, 1, ctr_unreach(u), 1, -1);
	env_clear(e);

	if (u->v6)
		return;
	/* shared with the gateway: 53 the forwarder's, the rest mapped */
	e->c.conf.dns4_be = GW4;
	e->c.conf.dns4_shared = true;
	env_mark(e);
	send_to(u, u->gw, 33333, 53, pat, 12);
	assert_intents(e, FX_DNS_QUERY, -1);
	env_clear(e);
	send_to(u, u->gw, 33333, 5000, pat, 12);
	assert_intents(e, FX_DGRAM_OPEN, FX_DGRAM_SEND, -1);
	assert_memory_equal(e->fx.intents[0].addr, u->lo, ADDR_LEN);
	assert_int_equal(e->fx.intents[0].port, 5000);
	assert_ctr_deltas(e, CTR_DNS_QUERIES, 1, CTR_UDP_FLOWS_OPENED, 1,
			  CTR_UDP_FROM_GUEST, 1, -1);
	env_clear(e);
}

/**
 * test_gateway() - the gateway's address maps to host loopback: the open
 * names 127.0.0.1 or ::1 (IPv6: the link-local gateway too), the flow
 * keeps the address the guest used and replies come from it; without the
 * mapping, port unreachable at once (net unreachable, ICMPv6 no route,
 * with conf.gw_unreach); with a real gateway, a flow to it as named
 * @state:	struct uenv
 */
static void test_gateway(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	struct udp_flow *f;
	const uint8_t *p, *m;
	size_t len;

	send_to(u, u->gw, 5555, 8080, pat, 20);
	assert_intents(e, FX_DGRAM_OPEN, FX_DGRAM_SEND, -1);
	assert_memory_equal(e->fx.intents[0].addr, u->lo, ADDR_LEN);
	assert_int_equal(e->fx.intents[0].port, 8080);
	f = udp_flow_get(&e->c, e->fx.intents[0].flow);
	assert_memory_equal(f->remote_addr, u->gw, ADDR_LEN);
	f->sock = 20;
	env_clear(e);
	host_reply(u, f, pat + 9, 44);
	p = parse_udp(u, 0, u->gw, 8080, u->guest, 5555, &len);
	assert_int_equal(len, 44);
	assert_memory_equal(p, pat + 9, 44);
	env_clear(e);
	if (u->v6) {
		uint8_t g6ll[ADDR_LEN];

		memcpy(g6ll, gw6_ll, ADDR_LEN);
		send_to(u, g6ll, 5555, 8080, pat, 20);
		assert_intents(e, FX_DGRAM_OPEN, FX_DGRAM_SEND, -1);
		assert_memory_equal(e->fx.intents[0].addr, lo6, ADDR_LEN);
		env_clear(e);
	}
	env_mark(e);

	/* no mapping: refused, the original quoted */
	e->c.conf.map_gw_to_loopback = false;
	send_to(u, u->gw, 5556, 8080, pat, 20);
	assert_int_equal(e->fx.nintents, 0);
	m = parse_icmp(u, 0, u->gw, u->guest, &len);
	assert_int_equal(m[0], unreach_type(u));
	assert_int_equal(m[1], port_unreach(u));
	assert_int_equal(len, 8 + iphlen(u) + UDP_HLEN + (u->v6 ? 20 : 0));
	assert_memory_equal(m + 8, e->in + l3off(u), len - 8);
	/* libslirp's answer */
	e->c.conf.gw_unreach = true;
	send_to(u, u->gw, 5557, 8080, pat, 20);
	m = parse_icmp(u, 1, u->gw, u->guest, &len);
	assert_int_equal(m[0], unreach_type(u));
	assert_int_equal(m[1], 0);
	assert_int_equal(e->fx.nintents, 0);
	assert_ctr_deltas(e, CTR_UDP_UNREACH_SENT, 2, ctr_unreach(u), 2, -1);
	env_clear(e);

	/* a real router: out to it as named */
	e->c.conf.gw_real = true;
	send_to(u, u->gw, 5558, 8080, pat, 20);
	assert_intents(e, FX_DGRAM_OPEN, FX_DGRAM_SEND, -1);
	assert_memory_equal(e->fx.intents[0].addr, u->gw, ADDR_LEN);
	env_clear(e);
}

/**
 * test_dhcp4_port() - IPv4 only: port 67 of the broadcast address or the
 * gateway is the DHCP server's (ignored and counted while it is off, no
 * flow); the broadcast address on any other port is no flow's
 * @state:	struct uenv
 */
static void test_dhcp4_port(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	uint8_t bc[ADDR_LEN];
	size_t flen;

	addr_from4(bc, 0xffffffffU);
	send_to(u, bc, 68, 67, pat, 300);
	assert_dropped(e, 0, CTR_DHCP4_DROP_IGNORED);
	env_mark(e);
	send_to(u, u->gw, 68, 67, pat, 300);
	assert_dropped(e, 1, CTR_DHCP4_DROP_IGNORED);
	env_mark(e);
	send_to(u, bc, 68, 69, pat, 300);
	assert_dropped(e, 2, CTR_IP4_DROP_ADDR);
	/* from 0.0.0.0, as a DHCP client sends: still the server's port */
	env_mark(e);
	flen = build_udp(u, e->in, M4(0), bc, 68, 67, pat, 300);
	env_input(e, e->in, flen);
	assert_dropped(e, 3, CTR_DHCP4_DROP_IGNORED);
	assert_int_equal(uflows_used(e), 0);
}

/* ---- errors from the host ------------------------------------------------ */

/**
 * test_sock_error() - a flow's socket reports an error: the guest gets
 * destination unreachable from the remote address, quoting a rebuilt
 * header of its datagram (guest to remote, UDP, the ports, UDP length 8):
 * port unreachable for ECONNREFUSED, host (IPv6: address) unreachable for
 * anything else; the flow stays. No flow, or an echo flow: nothing sent
 * @state:	struct uenv
 */
static void test_sock_error(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	struct udp_flow *f;
	const uint8_t *m, *q;
	size_t len, ih = iphlen(u);

	f = open_flow(u, u->remote, 6001, 6002, 30);
	env_mark(e);
	udp_on_sock_error(&e->c, f, ECONNREFUSED, &e->fx);
	udp_on_sock_error(&e->c, f, EHOSTUNREACH, &e->fx);
	assert_int_equal(e->fx.nframes, 2);
	assert_int_equal(e->fx.nintents, 0);
	m = parse_icmp(u, 0, u->remote, u->guest, &len);
	assert_int_equal(m[0], unreach_type(u));
	assert_int_equal(m[1], port_unreach(u));
	assert_int_equal(rd32(m + 4), 0);
	assert_int_equal(len, 8 + ih + UDP_HLEN);
	q = m + 8;
	if (u->v6) {
		assert_int_equal(q[0] >> 4, 6);
		assert_int_equal(rd16(q + 4), UDP_HLEN);
		assert_int_equal(q[6], IPPROTO_UDP_);
		assert_memory_equal(q + 8, u->guest, 16);
		assert_memory_equal(q + 24, u->remote, 16);
	} else {
		assert_int_equal(q[0], 0x45);
		assert_int_equal(rd16(q + 2), IP4_HLEN + UDP_HLEN);
		assert_int_equal(q[9], IPPROTO_UDP_);
		assert_memory_equal(q + 12, u->guest + 12, 4);
		assert_memory_equal(q + 16, u->remote + 12, 4);
	}
	assert_int_equal(rd16(q + ih), 6001);
	assert_int_equal(rd16(q + ih + 2), 6002);
	assert_int_equal(rd16(q + ih + 4), UDP_HLEN);
	m = parse_icmp(u, 1, u->remote, u->guest, &len);
	assert_int_equal(m[0], unreach_type(u));
	assert_int_equal(m[1], u->v6 ? 3 : 1);
	assert_int_equal(len, 8 + ih + UDP_HLEN);
	assert_ptr_equal(udp_flow_get(&e->c, udp_flow_idx(&e->c, f)), f);
	assert_ctr_deltas(e, CTR_UDP_UNREACH_SENT, 2, ctr_unreach(u), 2, -1);
	env_clear(e);

	env_mark(e);
	udp_on_sock_error(&e->c, NULL, ECONNREFUSED, &e->fx);
	env_input(e, e->in, build_echo(u, e->in, u->remote, 0x99, 1, 8));
	f = udp_flow_get(&e->c, fx_find(e, FX_DGRAM_OPEN)->flow);
	env_clear(e);
	udp_on_sock_error(&e->c, f, ECONNREFUSED, &e->fx);
	assert_int_equal(e->fx.nframes, 0);
	assert_int_equal(e->fx.nintents, 0);
	assert_int_equal(env_delta(e, CTR_UDP_UNREACH_SENT), 0);
}

/* ---- published ports ----------------------------------------------------- */

/**
 * test_published() - a published port's client: its first datagram makes
 * a flow on the listener (no open), reaching the guest's address of the
 * client's family, arming the idle deadline; more from it reuse the
 * flow; the guest's reply goes out on the listener; idle expiry and
 * udp_pub_forget() free such flows without closing the listener, and
 * forget only that port's
 * @state:	struct uenv
 */
static void test_published(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	struct udp_flow *f, *g;
	const uint8_t *p;
	size_t len;

	e->c.next_deadline_ns = UINT64_MAX;
	memcpy(udp_payload_slot(&e->c, &e->fx, u->v6), pat, 12);
	f = udp_pub_to_guest(&e->c, u->remote, 6000, 5353, 9, &e->fx, 12,
			     e->now);
	assert_non_null(f);
	assert_int_equal(e->c.next_deadline_ns, e->now + IDLE_NS);
	assert_int_equal(f->last_ns, e->now);
	assert_int_equal(f->kind, UDPK_PUB);
	assert_int_equal(f->sock, 9);
	assert_memory_equal(f->guest_addr, u->guest, ADDR_LEN);
	assert_int_equal(e->fx.nintents, 0);
	p = parse_udp(u, 0, u->remote, 6000, u->guest, 5353, &len);
	assert_int_equal(len, 12);
	assert_memory_equal(p, pat, 12);
	memcpy(udp_payload_slot(&e->c, &e->fx, u->v6), pat + 1, 5);
	assert_ptr_equal(udp_pub_to_guest(&e->c, u->remote, 6000, 5353, 9,
					  &e->fx, 5, e->now),
			 f);
	p = parse_udp(u, 1, u->remote, 6000, u->guest, 5353, &len);
	assert_memory_equal(p, pat + 1, 5);
	assert_int_equal(f->to_guest, 2);
	env_clear(e);

	/* the guest answers: on the listener, no socket opened */
	send_to(u, u->remote, 5353, 6000, pat, 3);
	assert_intents(e, FX_DGRAM_SEND, -1);
	assert_int_equal(e->fx.intents[0].sock, 9);
	assert_int_equal(e->fx.intents[0].flow, udp_flow_idx(&e->c, f));
	assert_int_equal(f->from_guest, 1);
	env_clear(e);

	/* another port's client, and a guest-opened flow */
	g = udp_pub_to_guest(&e->c, u->other, 6001, 5454, 10, &e->fx, 0,
			     e->now);
	assert_non_null(g);
	open_flow(u, u->other, 5454, 6002, 31);
	assert_ctr_deltas(e, CTR_UDP_FLOWS_OPENED, 3, CTR_UDP_FLOWS_OPENED6,
			  u->v6 ? 3 : 0, CTR_UDP_TO_GUEST, 3,
			  CTR_UDP_FROM_GUEST, 2, -1);
	env_clear(e);
	env_mark(e);
	assert_int_equal(udp_pub_forget(&e->c, 9), 1);
	assert_false(f->used);
	assert_true(g->used);
	assert_int_equal(udp_pub_forget(&e->c, 9), 0);
	assert_int_equal(uflows_used(e), 2);
	assert_int_equal(e->fx.nintents, 0);
	assert_ctr_deltas(e, CTR_UDP_FLOWS_UNPUBLISHED, 1, -1);

	/* expiry: only the guest-opened flow has a socket to close */
	e->now += IDLE_NS;
	core_timer(&e->c, e->now, &e->fx);
	assert_intents(e, FX_DGRAM_CLOSE, -1);
	assert_int_equal(e->fx.intents[0].sock, 31);
	assert_int_equal(uflows_used(e), 0);
	assert_int_equal(env_delta(e, CTR_UDP_FLOWS_EXPIRED), 2);
	env_clear(e);
}

/**
 * test_published_addr() - udp_pub_to_guest_at(): a guest address of the
 * client's family is used as given; one of the other family is refused
 * (IP6_DROP_ADDR, nothing queued); an IPv6 client with IPv6 off too
 * @state:	struct uenv
 */
static void test_published_addr(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	uint8_t ga[ADDR_LEN], wrong[ADDR_LEN];
	struct udp_flow *f;
	const uint8_t *p;
	size_t len;

	memcpy(ga, u->guest, ADDR_LEN);
	ga[15] ^= 0x40; /* another address of the guest's */
	if (u->v6)
		addr_from4(wrong, GUEST4);
	else
		memcpy(wrong, guest6, ADDR_LEN);
	memcpy(udp_payload_slot(&e->c, &e->fx, u->v6), pat, 7);
	f = udp_pub_to_guest_at(&e->c, ga, u->remote, 6000, 5353, 9, &e->fx, 7,
				0, e->now);
	assert_non_null(f);
	assert_memory_equal(f->guest_addr, ga, ADDR_LEN);
	p = parse_udp(u, 0, u->remote, 6000, ga, 5353, &len);
	assert_memory_equal(p, pat, 7);
	env_clear(e);
	env_mark(e);
	assert_null(udp_pub_to_guest_at(&e->c, wrong, u->remote, 6000, 5353, 9,
					&e->fx, 7, 0, e->now));
	assert_dropped(e, 0, CTR_IP6_DROP_ADDR);
	if (u->v6) {
		e->c.conf.ipv6 = false;
		env_mark(e);
		assert_null(udp_pub_to_guest(&e->c, u->other, 6000, 5353, 9,
					     &e->fx, 7, e->now));
		assert_dropped(e, 1, CTR_IP6_DROP_ADDR);
		e->c.conf.ipv6 = true;
	}
	assert_int_equal(uflows_used(e), 1);
}

/* ---- ICMP echo ----------------------------------------------------------- */

/**
 * test_echo() - an echo request to an outside host is an echo flow keyed
 * by the guest's id (its own space: a UDP flow of the same numbers is
 * another flow): an open to the address (port 0), the whole message sent;
 * the same id again reuses it; the ping socket's reply (its own id,
 * checksum left to us) reaches the guest with the guest's id, a complete
 * checksum and the payload exact; a reply too short or of another type is
 * not sent
 * @state:	struct uenv
 */
static void test_echo(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	size_t flen, len, ih = iphlen(u);
	struct udp_flow *f, *g;
	const uint8_t *m;
	uint8_t *p, rtype = u->v6 ? 129 : 0;

	flen = build_echo(u, e->in, u->remote, 0x1234, 1, 56);
	env_input(e, e->in, flen);
	assert_intents(e, FX_DGRAM_OPEN, FX_DGRAM_SEND, -1);
	assert_memory_equal(e->fx.intents[0].addr, u->remote, ADDR_LEN);
	assert_int_equal(e->fx.intents[0].port, 0);
	assert_int_equal(e->fx.intents[1].len, 64);
	assert_ptr_equal(e->fx.intents[1].data, e->in + l3off(u) + ih);
	f = udp_flow_get(&e->c, e->fx.intents[0].flow);
	assert_int_equal(f->kind, UDPK_ICMP);
	assert_int_equal(f->guest_port, 0x1234);
	assert_int_equal(f->remote_port, 0);
	f->sock = 40;
	env_clear(e);
	env_input(e, e->in, build_echo(u, e->in, u->remote, 0x1234, 2, 8));
	assert_intents(e, FX_DGRAM_SEND, -1);
	assert_int_equal(e->fx.intents[0].sock, 40);
	env_clear(e);
	/* a UDP flow of the very same numbers (the guest cannot send to
	 * port 0, a migration or a published port could) is another */
	g = uflow_alloc(&e->c, UDPK_OUT, u->guest, 0x1234, u->remote, 0);
	assert_non_null(g);
	assert_ptr_not_equal(g, f);
	assert_ptr_equal(uflow_lookup(&e->c, UDPK_OUT, u->guest, 0x1234,
				      u->remote, 0),
			 g);
	assert_ptr_equal(uflow_lookup(&e->c, UDPK_ICMP, u->guest, 0x1234,
				      u->remote, 0),
			 f);
	uflow_free(&e->c, g);
	assert_null(
		uflow_lookup(&e->c, UDPK_OUT, u->guest, 0x1234, u->remote, 0));
	assert_ptr_equal(uflow_lookup(&e->c, UDPK_ICMP, u->guest, 0x1234,
				      u->remote, 0),
			 f);

	p = udp_payload_slot(&e->c, &e->fx, u->v6);
	p[0] = rtype;
	p[1] = 0;
	wr16(p + 2, 0x5555);
	wr16(p + 4, 0x9999);
	wr16(p + 6, 1);
	memcpy(p + 8, pat, 56);
	udp_flow_to_guest(&e->c, f, &e->fx, 64, 0, e->now);
	m = parse_icmp(u, 0, u->remote, u->guest, &len);
	assert_int_equal(len, 64);
	assert_int_equal(m[0], rtype);
	assert_int_equal(m[1], 0);
	assert_int_equal(rd16(m + 4), 0x1234);
	assert_int_equal(rd16(m + 6), 1);
	assert_memory_equal(m + 8, pat, 56);
	assert_int_equal(e->frame_len[0], l3off(u) + ih + 64);

	/* not a reply, or shorter than an echo header: nothing */
	p = udp_payload_slot(&e->c, &e->fx, u->v6);
	p[0] = u->v6 ? 128 : 8;
	udp_flow_to_guest(&e->c, f, &e->fx, 64, 0, e->now);
	p[0] = rtype;
	udp_flow_to_guest(&e->c, f, &e->fx, 7, 0, e->now);
	assert_int_equal(e->fx.nframes, 1);
	assert_int_equal(e->fx.nintents, 0);
	assert_ctr_deltas(e, u->v6 ? CTR_ICMP6_ECHO_OUT : CTR_ICMP4_ECHO_OUT, 2,
			  u->v6 ? CTR_ICMP6_ECHO_IN : CTR_ICMP4_ECHO_IN, 1,
			  CTR_UDP_FLOWS_OPENED, 2, CTR_UDP_FLOWS_OPENED6,
			  u->v6 ? 2 : 0, -1);
	env_clear(e);
}

/**
 * test_kinds_apart() - a UDP flow and an echo flow of the very same
 * numbers in one hash bucket stay two flows: each lookup finds its own,
 * and freeing one leaves the other found
 * @state:	struct uenv
 *
 * The bucket formula is uflow_bucket()'s (udp.c), used here only to pick
 * an echo id whose two tuples share a bucket.
 */
static void test_kinds_apart(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	uint32_t mask = e->c.nubuckets - 1;
	struct udp_flow *f, *g;
	uint16_t id;

	for (id = 1; id < 10000; id++)
		if ((flow_tuple_hash(e->c.key, u->guest, id, u->remote, 0, 0) &
		     mask) ==
		    (flow_tuple_hash(e->c.key, u->guest, id, u->remote, 0, 1) &
		     mask))
			break;
	assert_true(id < 10000);
	f = uflow_alloc(&e->c, UDPK_ICMP, u->guest, id, u->remote, 0);
	g = uflow_alloc(&e->c, UDPK_OUT, u->guest, id, u->remote, 0);
	assert_non_null(f);
	assert_non_null(g);
	assert_ptr_equal(
		uflow_lookup(&e->c, UDPK_ICMP, u->guest, id, u->remote, 0), f);
	assert_ptr_equal(
		uflow_lookup(&e->c, UDPK_OUT, u->guest, id, u->remote, 0), g);
	/* published and guest-opened flows share a space */
	assert_ptr_equal(
		uflow_lookup(&e->c, UDPK_PUB, u->guest, id, u->remote, 0), g);
	uflow_free(&e->c, g);
	assert_null(uflow_lookup(&e->c, UDPK_OUT, u->guest, id, u->remote, 0));
	assert_ptr_equal(
		uflow_lookup(&e->c, UDPK_ICMP, u->guest, id, u->remote, 0), f);
	uflow_free(&e->c, f);
	assert_null(uflow_lookup(&e->c, UDPK_ICMP, u->guest, id, u->remote, 0));
	assert_ctr_deltas(e, CTR_UDP_FLOWS_OPENED, 2, CTR_UDP_FLOWS_OPENED6,
			  u->v6 ? 2 : 0, -1);
}

/* ---- shards and migration ------------------------------------------------ */

/**
 * test_shards() - with two shards, a datagram for a tuple this shard has
 * no flow of goes round (the flow may be another's) until every shard saw
 * it, and is opened there; a flow this shard has is used here
 * @state:	struct uenv
 */
static void test_shards(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;

	open_flow(u, u->remote, 7001, 7002, 50);
	e->c.conf.nshards = 2;
	e->c.conf.shard_id = 1;
	e->c.in_hop = 0;
	env_mark(e);
	send_to(u, u->remote, 7003, 7002, pat, 2);
	assert_int_equal(e->c.pass_to, 0);
	assert_int_equal(e->fx.nintents, 0);
	assert_int_equal(uflows_used(e), 1);
	send_to(u, u->remote, 7001, 7002, pat, 2);
	assert_int_equal(e->c.pass_to, -1);
	assert_intents(e, FX_DGRAM_SEND, -1);
	env_clear(e);
	e->c.in_hop = 1; /* shard 0 passed it on: the last one takes it */
	send_to(u, u->remote, 7003, 7002, pat, 2);
	assert_int_equal(e->c.pass_to, -1);
	assert_intents(e, FX_DGRAM_OPEN, FX_DGRAM_SEND, -1);
	assert_ctr_deltas(e, CTR_UDP_FLOWS_OPENED, 1, CTR_UDP_FLOWS_OPENED6,
			  u->v6 ? 1 : 0, CTR_UDP_FROM_GUEST, 2, -1);
	env_clear(e);
	e->c.in_hop = 0;
	e->c.conf.nshards = 1;
	e->c.conf.shard_id = 0;
}

/**
 * test_migrate() - udp_export() hands over a guest-opened flow with a
 * socket (tuple, idle time, counters), not a published port's, an echo
 * flow or one without a socket; udp_import() on another core takes it
 * with its idle time (so it expires when it would have), and refuses a
 * duplicate, mixed families, IPv6 with IPv6 off and a full table
 * @state:	struct uenv
 */
static void test_migrate(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e, *d;
	struct core_conf cc;
	struct udp_flow *f, *g, *out;
	struct mig_udp m, bad;
	uint32_t i;

	f = open_flow(u, u->remote, 8001, 8002, 60);
	host_reply(u, f, pat, 5);
	env_clear(e);
	assert_true(udp_export(f, e->now + MS(700), &m));
	assert_memory_equal(m.guest_addr, u->guest, ADDR_LEN);
	assert_memory_equal(m.remote_addr, u->remote, ADDR_LEN);
	assert_int_equal(m.guest_port, 8001);
	assert_int_equal(m.remote_port, 8002);
	assert_int_equal(m.idle_ns, MS(700));
	assert_int_equal(m.from_guest, 1);
	assert_int_equal(m.to_guest, 1);
	g = udp_pub_to_guest(&e->c, u->other, 1, 2, 9, &e->fx, 0, e->now);
	assert_false(udp_export(g, e->now, &bad));
	env_clear(e);
	env_input(e, e->in, build_echo(u, e->in, u->remote, 5, 1, 8));
	g = udp_flow_get(&e->c, fx_find(e, FX_DGRAM_OPEN)->flow);
	g->sock = 61;
	assert_false(udp_export(g, e->now, &bad));
	env_clear(e);
	g = open_flow(u, u->other, 8003, 8004, -1);
	assert_false(udp_export(g, e->now, &bad));

	conf(&cc, e->c.conf.csum_offload);
	d = env_new(&cc);
	d->c.ra_next_ns = UINT64_MAX;
	d->now = e->now + MS(5000);
	env_mark(d);
	assert_null(udp_import(&d->c, &m, 77, d->now, &out));
	assert_int_equal(out->kind, UDPK_OUT);
	assert_int_equal(out->sock, 77);
	assert_int_equal(out->last_ns, d->now - MS(700));
	assert_int_equal(out->from_guest, 1);
	assert_int_equal(out->to_guest, 1);
	assert_ptr_equal(uflow_lookup(&d->c, UDPK_OUT, u->guest, 8001,
				      u->remote, 8002),
			 out);
	assert_non_null(udp_import(&d->c, &m, 78, d->now, &out));
	bad = m;
	if (u->v6)
		addr_from4(bad.remote_addr, ip4(192, 0, 2, 1));
	else
		memcpy(bad.remote_addr, remote6, ADDR_LEN);
	assert_non_null(udp_import(&d->c, &bad, 79, d->now, &out));
	assert_ctr_deltas(d, CTR_MIG_UDP_IN, 1, CTR_UDP_FLOWS_OPENED, 1,
			  CTR_UDP_FLOWS_OPENED6, u->v6 ? 1 : 0, -1);
	/* it expires when it would have on the source */
	env_clear(d);
	udp_timer(&d->c, d->now - MS(700) + IDLE_NS - 1, &d->fx);
	assert_int_equal(d->fx.nintents, 0);
	udp_timer(&d->c, d->now - MS(700) + IDLE_NS, &d->fx);
	assert_intents(d, FX_DGRAM_CLOSE, -1);
	assert_int_equal(d->fx.intents[0].sock, 77);
	env_clear(d);

	if (u->v6) {
		d->c.conf.ipv6 = false;
		assert_non_null(udp_import(&d->c, &m, 80, d->now, &out));
		d->c.conf.ipv6 = true;
	}
	/* a full table */
	bad = m;
	for (i = 0; i < d->c.conf.max_udp_flows; i++) {
		bad.guest_port = (uint16_t)(100 + i);
		assert_null(udp_import(&d->c, &bad, (int32_t)i, d->now, &out));
	}
	bad.guest_port = 99;
	assert_non_null(udp_import(&d->c, &bad, 81, d->now, &out));
	assert_true(udp_guest_gone(&d->c, &d->fx));
	env_clear(d);
	assert_int_equal(uflows_used(d), 0);
	env_assert_quiet(d);
	env_free(d);
}

/* ---- UDP GSO (conf.uso) -------------------------------------------------- */

/**
 * upseudo() - the folded pseudo-header sum of a UDP datagram in the family
 * under test
 * @u:		environment
 * @src:	source address
 * @dst:	destination address
 * @l4:		UDP length
 *
 * Return: the sum
 */
static uint16_t upseudo(const struct uenv *u, const uint8_t *src,
			const uint8_t *dst, size_t l4)
{
	return u->v6 ? ref_pseudo6(src, dst, IPPROTO_UDP_, (uint32_t)l4) :
		       ref_pseudo4(addr_to4(src), addr_to4(dst), IPPROTO_UDP_,
				   (uint16_t)l4);
}

/**
 * oc_add16() - one's complement sum of two 16-bit words (the kernel's
 * csum16_add())
 * @a:	word
 * @b:	word
 *
 * Return: the sum, end-around carry added
 */
static uint16_t oc_add16(uint16_t a, uint16_t b)
{
	uint32_t s = (uint32_t)a + b;

	return (uint16_t)((s & 0xffff) + (s >> 16));
}

/**
 * host_gro() - the host received datagrams together on a flow's socket
 * (UDP GRO): @len bytes placed in the next slot, in datagrams of @seg
 * @u:		environment
 * @f:		flow
 * @data:	payload
 * @len:	its length (at most what a slot takes, whatever the MTU)
 * @seg:	segment size (0: one datagram)
 */
static void host_gro(struct uenv *u, struct udp_flow *f, const void *data,
		     size_t len, size_t seg)
{
	uint8_t *p = udp_payload_slot(&u->e->c, &u->e->fx, u->v6);

	assert_non_null(p);
	assert_true(len <= udp_payload_room(&u->e->c, &u->e->fx, u->v6));
	assert_true(seg <= 65535);
	memcpy(p, data, len);
	udp_flow_to_guest(&u->e->c, f, &u->e->fx, len, (uint16_t)seg,
			  u->e->now);
}

/**
 * parse_uso() - check a queued UDP GSO frame from the remote to the guest
 * @u:		environment
 * @i:		frame index
 * @sport:	expected source port
 * @dport:	expected destination port
 * @seg:	expected segment size
 * @len:	out: payload length
 *
 * The IP header in full (parse_l3(): lengths of the whole frame), the vnet
 * header (NEEDS_CSUM from the UDP header, field at 6, GSO_UDP_L4 of @seg,
 * headers up to the UDP payload), the UDP length of the whole payload
 * and in the checksum field the folded pseudo-header sum for that
 * length (what the kernel's own UDP GSO sends carry).
 *
 * Return: the UDP header
 */
static const uint8_t *parse_uso(const struct uenv *u, unsigned i,
				uint16_t sport, uint16_t dport, size_t seg,
				size_t *len)
{
	const uint8_t *f = slot_of(u->e, i), *uh;
	size_t l4, hl = ETH_HLEN + iphlen(u);

	uh = parse_l3(u->e, u->v6, i, IPPROTO_UDP_, NULL, u->remote, u->guest,
		      &l4);
	assert_true(l4 > UDP_HLEN + seg);
	assert_int_equal(u->e->c.conf.vnet_hdr_len, 12);
	assert_int_equal(f[0], VNET_HDR_F_NEEDS_CSUM);
	assert_int_equal(f[1], VNET_HDR_GSO_UDP_L4);
	assert_int_equal(f[2] | f[3] << 8, hl + UDP_HLEN);
	assert_int_equal(f[4] | f[5] << 8, seg);
	assert_int_equal(f[6] | f[7] << 8, hl);
	assert_int_equal(f[8] | f[9] << 8, 6);
	assert_int_equal(rd16(uh), sport);
	assert_int_equal(rd16(uh + 2), dport);
	assert_int_equal(rd16(uh + 4), l4);
	assert_int_equal(rd16(uh + 6), upseudo(u, u->remote, u->guest, l4));
	*len = l4 - UDP_HLEN;
	return uh;
}

/**
 * guest_segments() - cut a UDP GSO frame to the guest as the guest's
 * stack does (__udp_gso_segment()) and check every piece
 * @u:		environment
 * @uh:		the frame's UDP header (payload after it)
 * @len:	payload length
 * @seg:	segment size
 * @data:	the payload expected
 *
 * Each piece: the frame's UDP header with the piece's length and the
 * checksum field (the pseudo-header sum for the whole length) adjusted
 * for it, then finished as NEEDS_CSUM asks (the sum from the UDP header
 * on, complemented, 0 sent as 0xffff). Its complete checksum must verify
 * against the piece's own pseudo-header (ref_ helpers), its payload be
 * @data's bytes.
 *
 * Return: how many pieces
 */
static size_t guest_segments(const struct uenv *u, const uint8_t *uh,
			     size_t len, size_t seg, const uint8_t *data)
{
	static uint8_t b[UDP_HLEN + 65535];
	size_t off, sl, n = 0;
	uint16_t ck;

	for (off = 0; off < len; off += sl, n++) {
		sl = len - off < seg ? len - off : seg;
		memcpy(b, uh, UDP_HLEN);
		memcpy(b + UDP_HLEN, uh + UDP_HLEN + off, sl);
		wr16(b + 4, (uint16_t)(UDP_HLEN + sl));
		wr16(b + 6,
		     oc_add16(oc_add16(rd16(uh + 6), (uint16_t)~rd16(uh + 4)),
			      rd16(b + 4)));
		ck = (uint16_t)~ref_sum16(b, UDP_HLEN + sl, 0);
		wr16(b + 6, ck ? ck : 0xffff);
		assert_int_equal(ref_sum16(b, UDP_HLEN + sl,
					   upseudo(u, u->remote, u->guest,
						   UDP_HLEN + sl)),
				 0xffff);
		assert_memory_equal(b + UDP_HLEN, data + off, sl);
	}
	return n;
}

/**
 * nsegs() - datagrams in @len bytes cut at @seg
 * @len:	bytes
 * @seg:	segment size
 *
 * Return: count (the last one shorter or not)
 */
static size_t nsegs(size_t len, size_t seg)
{
	return (len + seg - 1) / seg;
}

/**
 * test_uso_to_guest() - datagrams the host received together go to the
 * guest as one UDP GSO frame (conf.uso): segment sizes 1, 7, 1000, 1399,
 * 1400 and the most the MTU allows (65520: the IPv4 packet 65535 bytes
 * long; 1500), the last segment short or a whole one; vnet header, IP
 * and UDP lengths of the whole, the checksum of each piece the guest
 * cuts; counted by frames and datagrams, the flow's counts by datagrams.
 * A segment size as large as the payload or larger is one plain datagram.
 * @state:	struct uenv
 */
static void test_uso_to_guest(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	size_t h = iphlen(u) + UDP_HLEN, i, len, n;
	const struct {
		uint32_t mtu;
		size_t seg, len;
	} cs[] = {
		{ 65520, 1, 5 },
		{ 65520, 7, 7 * 3 + 4 },
		{ 65520, 1000, 3000 },
		{ 65520, 1400, 1400 * 10 + 1 },
		{ 65520, 1399, 1399 * 2 + 1398 },
		{ 65520, 65520 - h, 65520 - h + 15 },
		{ 1500, 1500 - h, (1500 - h) * 3 + 100 },
		{ 1500, 1500 - h, (1500 - h) * 2 },
	};
	uint64_t tg, bt;
	struct udp_flow *f;
	const uint8_t *uh, *p;

	assert_true(e->c.conf.uso);
	f = open_flow(u, u->remote, 43000, 4433, 90);
	env_mark(e);
	for (i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
		e->c.conf.mtu = cs[i].mtu;
		assert_int_equal(udp_payload_max(&e->c, &e->fx, u->v6),
				 cs[i].mtu - h);
		n = nsegs(cs[i].len, cs[i].seg);
		tg = f->to_guest;
		bt = f->bytes_to_guest;
		e->now += MS(1);
		host_gro(u, f, pat + i, cs[i].len, cs[i].seg);
		assert_int_equal(e->fx.nframes, 1);
		assert_int_equal(e->fx.nintents, 0);
		assert_int_equal(e->frame_len[0], l3off(u) + h + cs[i].len);
		uh = parse_uso(u, 0, 4433, 43000, cs[i].seg, &len);
		assert_int_equal(len, cs[i].len);
		assert_memory_equal(uh + UDP_HLEN, pat + i, len);
		assert_int_equal(guest_segments(u, uh, len, cs[i].seg, pat + i),
				 n);
		assert_int_equal(f->to_guest, tg + n);
		assert_int_equal(f->bytes_to_guest, bt + len);
		assert_int_equal(f->last_ns, e->now);
		assert_ctr_deltas(e, CTR_UDP_GSO_TO_GUEST, 1, CTR_UDP_TO_GUEST,
				  (int)n, -1);
		env_mark(e);
		env_clear(e);
	}
	if (!u->v6) /* the largest IPv4 packet there is */
		assert_int_equal(cs[5].len + h, 65535);

	/* a segment size of the whole payload or more: one datagram */
	e->c.conf.mtu = 65520;
	tg = f->to_guest;
	host_gro(u, f, pat, 1000, 1000);
	host_gro(u, f, pat + 1, 1000, 2000);
	host_gro(u, f, pat + 2, 1, 1);
	assert_int_equal(e->fx.nframes, 3);
	for (i = 0; i < 3; i++) {
		p = parse_udp(u, (unsigned)i, u->remote, 4433, u->guest, 43000,
			      &len);
		assert_int_equal(len, i < 2 ? 1000 : 1);
		assert_memory_equal(p, pat + i, len);
	}
	assert_int_equal(f->to_guest, tg + 3);
	assert_ctr_deltas(e, CTR_UDP_TO_GUEST, 3, -1);
	env_clear(e);
}

/**
 * test_uso_split() - without UDP GSO frames on the edge, datagrams the
 * host received together go one frame each, in consecutive slots, each a
 * plain datagram with its own length and checksum (odd sizes, the last
 * short or whole, the MTU's largest); those beyond the free slots are
 * dropped and counted (FX_POOL_EMPTY), those that fit still go
 * @state:	struct uenv
 */
static void test_uso_split(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	size_t h = iphlen(u) + UDP_HLEN, i, j, len, n, want;
	const struct {
		uint32_t mtu;
		size_t seg, len;
	} cs[] = {
		{ 65520, 1, 3 },
		{ 65520, 7, 7 * 3 + 4 },
		{ 65520, 1000, 3000 },
		{ 65520, 1400, 1400 * 10 + 1 },
		{ 65520, 65520 - h, 65520 - h + 15 },
		{ 1500, 1500 - h, (1500 - h) * 2 + 1 },
		{ 1500, 1001, 1001 * ENV_SLOTS },
	};
	struct udp_flow *f;
	const uint8_t *p;
	uint64_t tg;

	assert_false(e->c.conf.uso);
	f = open_flow(u, u->remote, 43001, 4434, 92);
	env_mark(e);
	for (i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
		e->c.conf.mtu = cs[i].mtu;
		n = nsegs(cs[i].len, cs[i].seg);
		tg = f->to_guest;
		host_gro(u, f, pat + i, cs[i].len, cs[i].seg);
		assert_int_equal(e->fx.nframes, n);
		assert_int_equal(e->fx.nintents, 0);
		for (j = 0; j < n; j++) {
			want = cs[i].len - j * cs[i].seg;
			if (want > cs[i].seg)
				want = cs[i].seg;
			p = parse_udp(u, (unsigned)j, u->remote, 4434, u->guest,
				      43001, &len);
			assert_int_equal(len, want);
			assert_int_equal(e->frame_len[j], l3off(u) + h + want);
			assert_memory_equal(p, pat + i + j * cs[i].seg, want);
		}
		assert_int_equal(f->to_guest, tg + n);
		assert_ctr_deltas(e, CTR_UDP_TO_GUEST, (int)n, -1);
		env_mark(e);
		env_clear(e);
	}

	/* 12 slots taken: 4 of 8 datagrams fit, 4 are dropped */
	e->c.conf.mtu = 65520;
	for (i = 0; i < ENV_SLOTS - 4; i++)
		host_reply(u, f, pat, 10);
	tg = f->to_guest;
	host_gro(u, f, pat + 3, 750, 100);
	assert_int_equal(e->fx.nframes, ENV_SLOTS);
	for (j = 0; j < 4; j++) {
		p = parse_udp(u, (unsigned)(ENV_SLOTS - 4 + j), u->remote, 4434,
			      u->guest, 43001, &len);
		assert_int_equal(len, 100);
		assert_memory_equal(p, pat + 3 + j * 100, 100);
	}
	/* the flow counts what the host received */
	assert_int_equal(f->to_guest, tg + 8);
	assert_ctr_deltas(e, CTR_UDP_TO_GUEST, ENV_SLOTS, CTR_FX_POOL_EMPTY, 4,
			  -1);
	env_clear(e);
}

/**
 * test_uso_too_big() - datagrams received together of a size the guest's
 * MTU does not allow are all dropped and counted by datagram
 * (UDP_DROP_TOO_BIG), no frame; one datagram too large likewise (no
 * segment size, or one of the payload or more); segments of exactly the
 * most still go (one GSO frame with conf.uso, else one frame each)
 * @state:	struct uenv
 */
static void test_uso_too_big(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	size_t max, len, j;
	struct udp_flow *f;
	const uint8_t *uh;

	f = open_flow(u, u->remote, 43002, 4435, 93);
	e->c.conf.mtu = 1500;
	max = udp_payload_max(&e->c, &e->fx, u->v6);
	assert_int_equal(max, 1500 - iphlen(u) - UDP_HLEN);
	env_mark(e);
	host_gro(u, f, pat, (max + 1) * 3 + 5, max + 1);
	assert_int_equal(e->fx.nframes, 0);
	assert_ctr_deltas(e, CTR_UDP_DROP_TOO_BIG, 4, -1);
	host_gro(u, f, pat, max + 1, 0);
	host_gro(u, f, pat, max + 1, max + 2);
	host_gro(u, f, pat, 60000, 60000);
	assert_int_equal(e->fx.nframes, 0);
	assert_int_equal(e->fx.nintents, 0);
	assert_ctr_deltas(e, CTR_UDP_DROP_TOO_BIG, 7, -1);
	/* the flow counts what the host received */
	assert_int_equal(f->to_guest, 7);
	env_mark(e);

	host_gro(u, f, pat, max * 2 + 3, max);
	if (e->c.conf.uso) {
		assert_int_equal(e->fx.nframes, 1);
		uh = parse_uso(u, 0, 4435, 43002, max, &len);
		assert_int_equal(len, max * 2 + 3);
		assert_int_equal(guest_segments(u, uh, len, max, pat), 3);
		assert_ctr_deltas(e, CTR_UDP_GSO_TO_GUEST, 1, CTR_UDP_TO_GUEST,
				  3, -1);
	} else {
		assert_int_equal(e->fx.nframes, 3);
		for (j = 0; j < 3; j++) {
			parse_udp(u, (unsigned)j, u->remote, 4435, u->guest,
				  43002, &len);
			assert_int_equal(len, j < 2 ? max : 3);
		}
		assert_ctr_deltas(e, CTR_UDP_TO_GUEST, 3, -1);
	}
	env_clear(e);
}

/**
 * build_gso() - a UDP GSO frame from the guest in @u->e->in, as its
 * stack sends one: IP and UDP lengths of the whole payload, the checksum
 * field the pseudo-header sum for them, a vnet header with NEEDS_CSUM
 * @u:		environment
 * @dst:	destination
 * @sport:	guest port
 * @dport:	destination port
 * @data:	payload
 * @len:	its length
 * @gso_type:	vnet header GSO type
 * @seg:	vnet header GSO size
 *
 * Return: frame length
 */
static size_t build_gso(struct uenv *u, const uint8_t *dst, uint16_t sport,
			uint16_t dport, const void *data, size_t len,
			uint8_t gso_type, uint16_t seg)
{
	size_t n = build_udp(u, u->e->in, u->guest, dst, sport, dport, data,
			     len),
	       hl = ETH_HLEN + iphlen(u);
	struct vnet_hdr vh = { 0 };

	wr16(uh_in(u) + 6, upseudo(u, u->guest, dst, UDP_HLEN + len));
	vh.flags = VNET_HDR_F_NEEDS_CSUM;
	vh.gso_type = gso_type;
	vh.gso_size = seg;
	vh.hdr_len = (uint16_t)(hl + UDP_HLEN);
	vh.csum_start = (uint16_t)hl;
	vh.csum_offset = 6;
	set_vnet(u->e, u->e->in, &vh);
	return n;
}

/**
 * send_gso() - build_gso() and input it
 * @u:		environment
 * @dst:	destination
 * @dport:	destination port
 * @len:	payload length (from pat)
 * @gso_type:	vnet header GSO type
 * @seg:	vnet header GSO size
 */
static void send_gso(struct uenv *u, const uint8_t *dst, uint16_t dport,
		     size_t len, uint8_t gso_type, uint16_t seg)
{
	env_input(u->e, u->e->in,
		  build_gso(u, dst, 44000, dport, pat, len, gso_type, seg));
}

/**
 * test_gso_from_guest() - a guest UDP GSO frame (conf.uso_in) becomes one
 * FX_DGRAM_SEND of the whole payload, loaned from the frame, with the
 * segment size in @port (for UDP_SEGMENT); it may open the flow; counted
 * as one GSO frame and its datagrams, the flow's counts by datagram.
 * Sizes 1, 7, 1000, 1400 and the MTU's largest, the last short or whole,
 * 128 segments (the most); the ECN bit is taken; a segment size of the
 * payload or more is one datagram (@port 0)
 * @state:	struct uenv
 */
static void test_gso_from_guest(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	size_t h = iphlen(u) + UDP_HLEN, i, n;
	const struct {
		uint8_t type;
		size_t seg, len;
	} cs[] = {
		{ VNET_HDR_GSO_UDP_L4, 1, 5 },
		{ VNET_HDR_GSO_UDP_L4, 7, 7 * 3 + 4 },
		{ VNET_HDR_GSO_UDP_L4, 1000, 3000 },
		{ VNET_HDR_GSO_UDP_L4, 1400, 1400 * 10 + 1 },
		{ VNET_HDR_GSO_UDP_L4, 1, UDP_GSO_SEGS_MAX },
		{ VNET_HDR_GSO_UDP_L4, 10, 10 * UDP_GSO_SEGS_MAX },
		{ VNET_HDR_GSO_UDP_L4, 65520 - h, 65520 - h + 15 },
		{ VNET_HDR_GSO_UDP_L4 | VNET_HDR_GSO_ECN, 100, 250 },
	};
	const struct fx_intent *it;
	uint64_t fg, bf;
	struct udp_flow *f;

	assert_true(e->c.conf.uso_in);
	/* a GSO frame opens a flow */
	send_gso(u, u->remote, 443, 3000, VNET_HDR_GSO_UDP_L4, 1000);
	assert_int_equal(e->fx.nframes, 0);
	assert_intents(e, FX_DGRAM_OPEN, FX_DGRAM_SEND, -1);
	assert_int_equal(e->fx.intents[0].port, 443);
	it = &e->fx.intents[1];
	assert_int_equal(it->port, 1000);
	assert_int_equal(it->len, 3000);
	assert_int_equal(it->data_owner, FX_DATA_RXBATCH);
	assert_ptr_equal(it->data, uh_in(u) + UDP_HLEN);
	f = udp_flow_get(&e->c, it->flow);
	assert_non_null(f);
	assert_int_equal(f->from_guest, 3);
	assert_int_equal(f->bytes_from_guest, 3000);
	assert_ctr_deltas(e, CTR_UDP_FLOWS_OPENED, 1, CTR_UDP_FLOWS_OPENED6,
			  u->v6 ? 1 : 0, CTR_UDP_FROM_GUEST, 3,
			  CTR_UDP_GSO_FROM_GUEST, 1, -1);
	f->sock = 94;
	env_mark(e);
	env_clear(e);

	for (i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
		n = nsegs(cs[i].len, cs[i].seg);
		fg = f->from_guest;
		bf = f->bytes_from_guest;
		e->now += MS(1);
		send_gso(u, u->remote, 443, cs[i].len, cs[i].type,
			 (uint16_t)cs[i].seg);
		assert_int_equal(e->fx.nframes, 0);
		assert_intents(e, FX_DGRAM_SEND, -1);
		it = &e->fx.intents[0];
		assert_int_equal(it->flow, udp_flow_idx(&e->c, f));
		assert_int_equal(it->sock, 94);
		assert_int_equal(it->port, cs[i].seg);
		assert_int_equal(it->len, cs[i].len);
		assert_int_equal(it->data_owner, FX_DATA_RXBATCH);
		assert_ptr_equal(it->data, uh_in(u) + UDP_HLEN);
		assert_memory_equal(it->data, pat, cs[i].len);
		assert_int_equal(f->from_guest, fg + n);
		assert_int_equal(f->bytes_from_guest, bf + cs[i].len);
		assert_int_equal(f->last_ns, e->now);
		assert_ctr_deltas(e, CTR_UDP_FROM_GUEST, (int)n,
				  CTR_UDP_GSO_FROM_GUEST, 1, -1);
		env_mark(e);
		env_clear(e);
	}

	/* a segment size of the payload or more: one datagram */
	send_gso(u, u->remote, 443, 1000, VNET_HDR_GSO_UDP_L4, 1000);
	send_gso(u, u->remote, 443, 1000, VNET_HDR_GSO_UDP_L4, 1400);
	assert_intents(e, FX_DGRAM_SEND, FX_DGRAM_SEND, -1);
	for (i = 0; i < 2; i++) {
		assert_int_equal(e->fx.intents[i].port, 0);
		assert_int_equal(e->fx.intents[i].len, 1000);
	}
	assert_ctr_deltas(e, CTR_UDP_FROM_GUEST, 2, -1);
	env_clear(e);
}

/**
 * test_gso_bad() - guest UDP GSO frames dropped and counted
 * (UDP_DROP_BAD_GSO), with no intent and no frame: segment size 0 (even
 * with no payload), one
 * the MTU does not allow (even for a shorter payload), more than
 * UDP_GSO_SEGS_MAX segments, to the DNS forwarder, (IPv4) to the DHCP
 * server port; and with conf.uso_in off any GSO_UDP_L4 frame is a bad vnet
 * header (VNET_DROP_BAD_HDR)
 * @state:	struct uenv
 */
static void test_gso_bad(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	size_t max;
	struct udp_flow *f;
	uint64_t fg;
	int k = 0;

	f = open_flow(u, u->remote, 44000, 443, 95);
	fg = f->from_guest;
	e->c.conf.mtu = 1500;
	max = 1500 - iphlen(u) - UDP_HLEN;
	env_mark(e);
	send_gso(u, u->remote, 443, 3000, VNET_HDR_GSO_UDP_L4, 0);
	assert_dropped(e, k++, CTR_UDP_DROP_BAD_GSO);
	env_mark(e);
	send_gso(u, u->remote, 443, 0, VNET_HDR_GSO_UDP_L4, 0);
	assert_dropped(e, k++, CTR_UDP_DROP_BAD_GSO);
	env_mark(e);
	send_gso(u, u->remote, 443, max * 2, VNET_HDR_GSO_UDP_L4,
		 (uint16_t)(max + 1));
	assert_dropped(e, k++, CTR_UDP_DROP_BAD_GSO);
	env_mark(e);
	send_gso(u, u->remote, 443, 100, VNET_HDR_GSO_UDP_L4,
		 (uint16_t)(max + 1));
	assert_dropped(e, k++, CTR_UDP_DROP_BAD_GSO);
	env_mark(e);
	send_gso(u, u->remote, 443, UDP_GSO_SEGS_MAX + 1, VNET_HDR_GSO_UDP_L4,
		 1);
	assert_dropped(e, k++, CTR_UDP_DROP_BAD_GSO);
	env_mark(e);
	send_gso(u, u->remote, 443, 10 * UDP_GSO_SEGS_MAX + 1,
		 VNET_HDR_GSO_UDP_L4, 10);
	assert_dropped(e, k++, CTR_UDP_DROP_BAD_GSO);
	env_mark(e);
	send_gso(u, u->dns, 53, 300, VNET_HDR_GSO_UDP_L4, 100);
	assert_dropped(e, k++, CTR_UDP_DROP_BAD_GSO);
	if (!u->v6) {
		env_mark(e);
		send_gso(u, u->gw, 67, 300, VNET_HDR_GSO_UDP_L4, 100);
		assert_dropped(e, k++, CTR_UDP_DROP_BAD_GSO);
		env_mark(e);
		send_gso(u, u->remote, 67, 300, VNET_HDR_GSO_UDP_L4, 100);
		assert_dropped(e, k++, CTR_UDP_DROP_BAD_GSO);
	}
	assert_int_equal(f->from_guest, fg);
	assert_int_equal(uflows_used(e), 1);

	/* not offered: the vnet header is bad */
	e->c.conf.uso_in = false;
	env_mark(e);
	send_gso(u, u->remote, 443, 300, VNET_HDR_GSO_UDP_L4, 100);
	assert_dropped(e, k++, CTR_VNET_DROP_BAD_HDR);
	e->c.conf.uso_in = true;
	/* and the same frame goes when it is */
	env_mark(e);
	send_gso(u, u->remote, 443, 300, VNET_HDR_GSO_UDP_L4, 100);
	assert_intents(e, FX_DGRAM_SEND, -1);
	assert_ctr_deltas(e, CTR_UDP_FROM_GUEST, 3, CTR_UDP_GSO_FROM_GUEST, 1,
			  -1);
	env_clear(e);
}

/* ---- UDP segmentation offload, each direction on its own ---------------- */

/**
 * test_uso_directions() - UDP GSO is negotiated apart for each direction
 * (vhost-user: HOST_USO from the guest, GUEST_USO4/6 toward it;
 * core_set_edge()): with @uso_in alone, a guest's UDP GSO frame is taken
 * whole (one send of 250 bytes cut at 100) and datagrams the host received
 * together go to the guest one frame each; with @uso alone, the guest's
 * UDP GSO frame is refused as a bad vnet header and the host's go as one
 * UDP GSO frame; combinations core_init() refuses are refused
 * @state:	struct uenv (offload set-ups)
 */
static void test_uso_directions(void **state)
{
	struct uenv *u = *state;
	struct env *e = u->e;
	size_t flen, len, hl = l3off(u) + iphlen(u) + UDP_HLEN;
	struct udp_flow *f;
	const uint8_t *p;
	unsigned i;

	assert_int_equal(core_set_edge(&e->c, 12, false, 0, true, false),
			 -EINVAL);
	assert_int_equal(core_set_edge(&e->c, 0, false, 0, false, true),
			 -EINVAL);
	assert_int_equal(core_set_edge(&e->c, 12, true, 0, false, true), 0);
	f = open_flow(u, u->remote, 41000, 7000, 80);
	env_mark(e);
	flen = build_udp(u, e->in, u->guest, u->remote, 41000, 7000, pat, 250);
	e->in[1] = VNET_HDR_GSO_UDP_L4;
	e->in[4] = 100; /* gso_size */
	env_input(e, e->in, flen);
	assert_intents(e, FX_DGRAM_SEND, -1);
	assert_int_equal(e->fx.intents[0].len, 250);
	assert_int_equal(e->fx.intents[0].port, 100);
	assert_memory_equal(e->fx.intents[0].data, pat, 250);
	env_clear(e);
	memcpy(udp_payload_slot(&e->c, &e->fx, u->v6), pat, 250);
	udp_flow_to_guest(&e->c, f, &e->fx, 250, 100, e->now);
	assert_int_equal(e->fx.nframes, 3);
	for (i = 0; i < 3; i++) {
		p = parse_udp(u, i, u->remote, 7000, u->guest, 41000, &len);
		assert_int_equal(len, i < 2 ? 100 : 50);
		assert_memory_equal(p, pat + 100 * i, len);
	}
	assert_ctr_deltas(e, CTR_UDP_FROM_GUEST, 3, CTR_UDP_GSO_FROM_GUEST, 1,
			  CTR_UDP_TO_GUEST, 3, -1);
	env_clear(e);

	assert_int_equal(core_set_edge(&e->c, 12, true, 0, true, false), 0);
	env_mark(e);
	env_input(e, e->in, flen);
	assert_dropped(e, 0, CTR_VNET_DROP_BAD_HDR);
	memcpy(udp_payload_slot(&e->c, &e->fx, u->v6), pat, 250);
	udp_flow_to_guest(&e->c, f, &e->fx, 250, 100, e->now);
	assert_int_equal(e->fx.nframes, 1);
	p = slot_of(e, 0);
	assert_int_equal(p[1], VNET_HDR_GSO_UDP_L4);
	assert_int_equal(p[4] | p[5] << 8, 100);
	assert_int_equal(p[2] | p[3] << 8, hl - 12);
	assert_int_equal(e->frame_len[0], hl + 250);
	assert_memory_equal(p + hl, pat, 250);
	assert_ctr_deltas(e, CTR_VNET_DROP_BAD_HDR, 1, CTR_UDP_TO_GUEST, 3,
			  CTR_UDP_GSO_TO_GUEST, 1, -1);
	env_clear(e);
}

#define ALL(t)                                                                \
	cmocka_unit_test_setup_teardown(t, setup4_offload, teardown),         \
		cmocka_unit_test_setup_teardown(t, setup4_plain, teardown),   \
		cmocka_unit_test_setup_teardown(t, setup6_offload, teardown), \
		cmocka_unit_test_setup_teardown(t, setup6_plain, teardown)

/* USO() - a test on the cores that carry UDP GSO frames, IPv4 and IPv6 */
#define USO(t)                                                    \
	cmocka_unit_test_setup_teardown(t, setup4_uso, teardown), \
		cmocka_unit_test_setup_teardown(t, setup6_uso, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		ALL(test_open),
		ALL(test_reuse),
		ALL(test_ulen),
		ALL(test_malformed),
		ALL(test_csum_not_checked),
		ALL(test_large_from_guest),
		ALL(test_to_guest),
		ALL(test_csum_zero),
		ALL(test_payload_max),
		ALL(test_send_family),
		ALL(test_idle_expiry),
		ALL(test_timer_partial),
		ALL(test_table_full),
		ALL(test_guest_gone),
		ALL(test_dns),
		ALL(test_gateway),
		cmocka_unit_test_setup_teardown(test_dhcp4_port, setup4_offload,
						teardown),
		cmocka_unit_test_setup_teardown(test_dhcp4_port, setup4_plain,
						teardown),
		ALL(test_sock_error),
		ALL(test_published),
		ALL(test_published_addr),
		ALL(test_echo),
		ALL(test_kinds_apart),
		ALL(test_shards),
		ALL(test_migrate),
		USO(test_uso_to_guest),
		ALL(test_uso_split),
		ALL(test_uso_too_big),
		USO(test_uso_too_big),
		USO(test_gso_from_guest),
		USO(test_gso_bad),
		cmocka_unit_test_setup_teardown(test_uso_directions,
						setup4_offload, teardown),
		cmocka_unit_test_setup_teardown(test_uso_directions,
						setup6_offload, teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}

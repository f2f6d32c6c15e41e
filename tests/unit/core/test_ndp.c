/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_ndp.c - IPv6 validation, extension headers, NDP and ICMPv6 echo
 *
 * As test_arp_ip.c: whole frames into core_input(), then the exact frames
 * queued, no intent, and with assert_ctr_deltas() only the expected
 * counters moved. Checksums of the frames the core sends are verified with
 * the reference sum of helpers.c and a pseudo-header built here, never with
 * core/csum.c. Every test but test_ipv6_off() runs with conf.ipv6 on.
 */
#include <errno.h>
#include <stdlib.h>

#include "helpers.h"

#define NH_HOPOPTS 0
#define NH_TCP 6
#define NH_UDP 17
#define NH_ROUTING 43
#define NH_FRAG 44
#define NH_ICMP6 58
#define NH_NONE 59
#define NH_DSTOPTS 60

#define RA_LEN 88 /* 16 + prefix 32 + MTU 8 + RDNSS 24 + SLLA 8 */

/* in env_conf6()'s fd00:5170:7761:7901::/64 (helpers.c) */
static const uint8_t other6[16] = { 0xfd, 0x00, 0x51, 0x70,	  0x77,
				    0x61, 0x79, 0x01, [15] = 0x99 };
static const uint8_t outside6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t guest6[16] = { 0xfd, 0x00, 0x51, 0x70, 0x77, 0x61,
				    0x79, 0x01, 0x50, 0x54, 0x00, 0xff,
				    0xfe, 0x12, 0x34, 0x56 };
static const uint8_t unspec6[16];
static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };
static const uint8_t all_routers[16] = { 0xff, 0x02, [15] = 2 };
static const uint8_t all_nodes_mac[6] = { 0x33, 0x33, 0, 0, 0, 1 };
static const uint8_t all_routers_mac[6] = { 0x33, 0x33, 0, 0, 0, 2 };

/**
 * conf6() - env_conf() plus the IPv6 configuration, switched on
 * @cc:		configuration out
 * @offload:	passed to env_conf()
 */
static void conf6(struct core_conf *cc, bool offload)
{
	env_conf6(cc, offload);
	cc->mtu = 1500;
}

/* setup_offload(): IPv6 on, 12-byte vnet header, offload on;
 * setup_plain(): IPv6 on, no vnet header, no offload */
ENV_SETUPS(conf6)

static void assert_quiet6(struct env *e);

/**
 * teardown() - check end-of-test invariants and free the environment
 * @state:	the environment
 *
 * Return: 0
 */
static int teardown(void **state)
{
	assert_quiet6(*state);
	env_free(*state);
	return 0;
}

/**
 * struct pkt6 - an IPv6 packet from the guest, for build6()
 * @dst_mac:	Ethernet destination (NULL: our MAC)
 * @src:	source address
 * @dst:	destination address
 * @hop:	hop limit
 * @ext:	extension headers, already chained (NULL: none); the last one's
 *		next header is written by build6()
 * @ext_nh:	next header of the IPv6 header when @ext is given
 * @ext_len:	bytes of @ext
 * @last_nh:	the final next header (NH_ICMP6 usually)
 * @msg:	upper-layer message; for ICMPv6 its checksum is filled in
 * @len:	bytes of @msg
 */
struct pkt6 {
	const uint8_t *dst_mac;
	const uint8_t *src, *dst;
	uint8_t hop;
	const uint8_t *ext;
	uint8_t ext_nh;
	size_t ext_len;
	uint8_t last_nh;
	const uint8_t *msg;
	size_t len;
};

/**
 * build6() - a frame with an IPv6 packet from the guest
 * @e:		environment
 * @buf:	frame start
 * @p:		packet
 *
 * Return: frame length
 */
static size_t build6(const struct env *e, uint8_t *buf, const struct pkt6 *p)
{
	size_t off = build_l2(e, buf, p->dst_mac ? p->dst_mac : our_mac,
			      guest_mac, ETHERTYPE_IP6);
	uint8_t *ip = buf + off, *m;

	ip[0] = 0x60;
	ip[1] = ip[2] = ip[3] = 0;
	wr16(ip + 4, (uint16_t)(p->ext_len + p->len));
	ip[6] = p->ext ? p->ext_nh : p->last_nh;
	ip[7] = p->hop;
	memcpy(ip + 8, p->src, 16);
	memcpy(ip + 24, p->dst, 16);
	off += IP6_HLEN;
	if (p->ext) {
		memcpy(buf + off, p->ext, p->ext_len);
		off += p->ext_len;
	}
	m = buf + off;
	memcpy(m, p->msg, p->len);
	if (p->last_nh == NH_ICMP6 && p->len >= 4) {
		wr16(m + 2, 0);
		wr16(m + 2,
		     (uint16_t)~ref_sum16(m, p->len,
					  ref_pseudo6(p->src, p->dst, NH_ICMP6,
						      (uint32_t)p->len)));
	}
	return off + p->len;
}

/**
 * input6() - build a packet in @e->in and input it
 * @e:	environment
 * @p:	packet
 */
static void input6(struct env *e, const struct pkt6 *p)
{
	env_input(e, e->in, build6(e, e->in, p));
}

/**
 * icmp6_pkt() - an ICMPv6 packet from the guest, without extension headers
 * @src:	source address
 * @dst:	destination address
 * @dst_mac:	Ethernet destination (NULL: our MAC)
 * @hop:	hop limit
 * @msg:	the message (its length is set by the caller)
 *
 * Return: the packet, for build6() or input6()
 */
static struct pkt6 icmp6_pkt(const uint8_t *src, const uint8_t *dst,
			     const uint8_t *dst_mac, uint8_t hop,
			     const uint8_t *msg)
{
	struct pkt6 p = {
		.dst_mac = dst_mac,
		.src = src,
		.dst = dst,
		.hop = hop,
		.last_nh = NH_ICMP6,
		.msg = msg,
	};

	return p;
}

/**
 * parse_icmp6() - check a queued ICMPv6 frame completely
 * @e:		environment
 * @i:		frame index
 * @dst_mac:	expected Ethernet destination (NULL: the guest's)
 * @src:	expected source address
 * @dst:	expected destination address
 * @hop:	expected hop limit
 * @len:	out: message length
 *
 * Checks the vnet header is all zero (no offload for ICMPv6), version,
 * traffic class and flow label 0, the payload length against the frame,
 * next header 58 (no extension headers) and the ICMPv6 checksum.
 *
 * Return: the message
 */
static const uint8_t *parse_icmp6(const struct env *e, unsigned i,
				  const uint8_t *dst_mac, const uint8_t *src,
				  const uint8_t *dst, uint8_t hop, size_t *len)
{
	const uint8_t *ip, *f = e->fx.slots + (size_t)i * e->fx.slot_size;
	size_t l3, k;

	ip = frame_l3(e, i, ETHERTYPE_IP6, dst_mac, &l3);
	for (k = 0; k < e->c.conf.vnet_hdr_len; k++)
		assert_int_equal(f[k], 0);
	assert_true(l3 >= IP6_HLEN + 4);
	assert_int_equal(ip[0], 0x60);
	assert_int_equal(ip[1], 0);
	assert_int_equal(ip[2], 0);
	assert_int_equal(ip[3], 0);
	assert_int_equal(rd16(ip + 4), l3 - IP6_HLEN);
	assert_int_equal(ip[6], NH_ICMP6);
	assert_int_equal(ip[7], hop);
	assert_memory_equal(ip + 8, src, 16);
	assert_memory_equal(ip + 24, dst, 16);
	*len = l3 - IP6_HLEN;
	assert_int_equal(
		ref_sum16(ip + IP6_HLEN, *len,
			  ref_pseudo6(src, dst, NH_ICMP6, (uint32_t)*len)),
		0xffff);
	return ip + IP6_HLEN;
}

/**
 * rs_msg() - a router solicitation, optionally with our SLLA option
 * @m:		16 bytes out
 * @slla:	add a source link-layer address option
 *
 * Return: message length
 */
static size_t rs_msg(uint8_t *m, bool slla)
{
	memset(m, 0, 16);
	m[0] = 133;
	if (!slla)
		return 8;
	m[8] = 1;
	m[9] = 1;
	memcpy(m + 10, guest_mac, 6);
	return 16;
}

/**
 * ns_msg() - a neighbour solicitation, optionally with our SLLA option
 * @m:		32 bytes out
 * @target:	target address
 * @slla:	add a source link-layer address option
 *
 * Return: message length
 */
static size_t ns_msg(uint8_t *m, const uint8_t *target, bool slla)
{
	memset(m, 0, 32);
	m[0] = 135;
	memcpy(m + 8, target, 16);
	if (!slla)
		return 24;
	m[24] = 1;
	m[25] = 1;
	memcpy(m + 26, guest_mac, 6);
	return 32;
}

/**
 * sol_node() - the solicited-node multicast address of a target
 * @out:	16 bytes out
 * @target:	address
 */
static void sol_node(uint8_t *out, const uint8_t *target)
{
	static const uint8_t pfx[13] = { 0xff, 0x02, [11] = 1, [12] = 0xff };

	memcpy(out, pfx, 13);
	memcpy(out + 13, target + 13, 3);
}

/**
 * send_rs() - a router solicitation from the guest to all-routers, hop
 * limit 255
 * @e:		environment
 * @src:	source address
 * @slla:	add a source link-layer address option
 */
static void send_rs(struct env *e, const uint8_t *src, bool slla)
{
	uint8_t m[16];
	struct pkt6 p = icmp6_pkt(src, all_routers, all_routers_mac, 255, m);

	p.len = rs_msg(m, slla);
	input6(e, &p);
}

/**
 * send_ns_to() - a neighbour solicitation from the guest, hop limit 255
 * @e:		environment
 * @src:	source address
 * @dst:	destination address
 * @dst_mac:	Ethernet destination (NULL: our MAC)
 * @target:	target address
 * @slla:	add a source link-layer address option
 */
static void send_ns_to(struct env *e, const uint8_t *src, const uint8_t *dst,
		       const uint8_t *dst_mac, const uint8_t *target, bool slla)
{
	uint8_t m[32];
	struct pkt6 p = icmp6_pkt(src, dst, dst_mac, 255, m);

	p.len = ns_msg(m, target, slla);
	input6(e, &p);
}

/**
 * send_ns() - a neighbour solicitation for @target to its solicited-node
 * group, from the guest
 * @e:		environment
 * @src:	source address
 * @dst_mac:	Ethernet destination (NULL: the group's, 33:33:ff:xx:xx:xx)
 * @target:	target address
 * @slla:	add a source link-layer address option
 */
static void send_ns(struct env *e, const uint8_t *src, const uint8_t *dst_mac,
		    const uint8_t *target, bool slla)
{
	uint8_t sn[16], sn_mac[6] = { 0x33, 0x33, 0xff };

	sol_node(sn, target);
	memcpy(sn_mac + 2, sn + 12, 4);
	send_ns_to(e, src, sn, dst_mac ? dst_mac : sn_mac, target, slla);
}

/**
 * check_ra_full() - frame @i is exactly our router advertisement
 * @e:		environment
 * @i:		frame index
 * @dst_mac:	expected Ethernet destination (NULL: the guest's)
 * @dst:	expected destination address
 * @lifetime:	expected router lifetime
 * @rdnss:	expect the RDNSS option
 * @flags:	expected M/O flags byte
 * @search:	expected DNSSL names (NULL: no DNSSL option)
 * @search_len:	bytes of @search
 *
 * Compares the whole message against bytes written out here, field by
 * field, with the checksum taken from the frame (verified by
 * parse_icmp6()).
 */
static void check_ra_full(const struct env *e, unsigned i,
			  const uint8_t *dst_mac, const uint8_t *dst,
			  uint16_t lifetime, bool rdnss, uint8_t flags,
			  const uint8_t *search, size_t search_len)
{
	uint8_t want[RA_LEN + 8 + 264] = {
		/* type, code, checksum, cur hop limit, M/O flags, lifetime */
		134, 0, 0, 0, 64, flags, (uint8_t)(lifetime >> 8),
		(uint8_t)lifetime,
		/* reachable time, retrans timer */
		0, 0, 0, 0, 0, 0, 0, 0,
		/* prefix information: /64, L and A, infinite lifetimes */
		3, 4, 64, 0xc0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0, 0, 0, 0, 0xfd, 0x00, 0x51, 0x70, 0x77, 0x61, 0x79, 0x01, 0,
		0, 0, 0, 0, 0, 0, 0,
		/* MTU 1500 */
		5, 1, 0, 0, 0, 0, 0x05, 0xdc,
		/* RDNSS: infinite lifetime, dns6 */
		25, 3, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xfd, 0x00, 0x51, 0x70,
		0x77, 0x61, 0x79, 0x01, 0, 0, 0, 0, 0, 0, 0, 3
	};
	static const uint8_t slla[8] = { 1,    1,    0x52, 0x56,
					 0x00, 0x00, 0x00, 0x02 };
	size_t want_len = RA_LEN - 8, len, olen;
	const uint8_t *m;

	if (!rdnss)
		want_len -= 24;
	if (search) {
		/* DNSSL: infinite lifetime, the names, zeros to 8n bytes */
		olen = (8 + search_len + 7) / 8 * 8;
		assert_true(want_len + olen + 8 <= sizeof(want));
		want[want_len] = 31;
		want[want_len + 1] = (uint8_t)(olen / 8);
		memset(want + want_len + 2, 0, 2);
		memset(want + want_len + 4, 0xff, 4);
		memcpy(want + want_len + 8, search, search_len);
		memset(want + want_len + 8 + search_len, 0,
		       olen - 8 - search_len);
		want_len += olen;
	}
	memcpy(want + want_len, slla, 8);
	want_len += 8;
	m = parse_icmp6(e, i, dst_mac, gw6_ll, dst, 255, &len);
	assert_int_equal(len, want_len);
	want[2] = m[2];
	want[3] = m[3];
	assert_memory_equal(m, want, want_len);
}

/**
 * check_ra() - frame @i is exactly our router advertisement, DHCPv6 off
 * and no search list
 * @e:		environment
 * @i:		frame index
 * @dst_mac:	expected Ethernet destination (NULL: the guest's)
 * @dst:	expected destination address
 * @lifetime:	expected router lifetime
 * @rdnss:	expect the RDNSS option
 */
static void check_ra(const struct env *e, unsigned i, const uint8_t *dst_mac,
		     const uint8_t *dst, uint16_t lifetime, bool rdnss)
{
	check_ra_full(e, i, dst_mac, dst, lifetime, rdnss, 0, NULL, 0);
}

/**
 * check_na() - frame @i is exactly our neighbour advertisement
 * @e:		environment
 * @i:		frame index
 * @dst_mac:	expected Ethernet destination (NULL: the guest's)
 * @dst:	expected destination
 * @target:	the address advertised (also the source)
 * @flags:	expected flags byte (0xe0: router, solicited, override)
 */
static void check_na(const struct env *e, unsigned i, const uint8_t *dst_mac,
		     const uint8_t *dst, const uint8_t *target, uint8_t flags)
{
	const uint8_t *m;
	size_t len;

	m = parse_icmp6(e, i, dst_mac, target, dst, 255, &len);
	assert_int_equal(len, 32);
	assert_int_equal(m[0], 136);
	assert_int_equal(m[1], 0);
	assert_int_equal(m[4], flags);
	assert_int_equal(m[5], 0);
	assert_int_equal(m[6], 0);
	assert_int_equal(m[7], 0);
	assert_memory_equal(m + 8, target, 16);
	assert_int_equal(m[24], 2);
	assert_int_equal(m[25], 1);
	assert_memory_equal(m + 26, our_mac, 6);
}

/**
 * assert_quiet6() - env_assert_quiet() for a core that may have IPv6 on
 * @e:	environment
 *
 * With IPv6 on, shard 0 has one timer of its own: the unsolicited router
 * advertisement. Running the timer at the end of time sends it, to
 * all-nodes, and arms nothing after it (the next would be past the end);
 * then the usual end-of-test invariants must hold.
 */
static void assert_quiet6(struct env *e)
{
	const uint8_t *m;
	size_t len;

	env_clear(e);
	assert_true(core_timer(&e->c, UINT64_MAX - 1, &e->fx) == UINT64_MAX);
	if (e->c.conf.ipv6 && e->c.conf.shard_id == 0) {
		assert_int_equal(e->fx.nframes, 1);
		m = parse_icmp6(e, 0, all_nodes_mac, gw6_ll, all_nodes, 255,
				&len);
		assert_int_equal(m[0], 134);
	} else {
		assert_int_equal(e->fx.nframes, 0);
	}
	env_assert_quiet(e);
}

/**
 * test_rs_ra() - a router solicitation gets exactly our advertisement
 * @state:	environment
 *
 * From :: (no SLLA allowed) to all-nodes and 33:33:00:00:00:01; from the
 * guest's link-local address (with SLLA) unicast back to it.
 */
static void test_rs_ra(void **state)
{
	struct env *e = *state;

	send_rs(e, unspec6, false);
	assert_int_equal(e->fx.nframes, 1);
	check_ra(e, 0, all_nodes_mac, all_nodes, 0, true);

	send_rs(e, guest6_ll, true);
	assert_int_equal(e->fx.nframes, 2);
	check_ra(e, 1, NULL, guest6_ll, 0, true);
	assert_int_equal(e->fx.nintents, 0);
	assert_ctr_deltas(e, CTR_NDP_RA_SENT, 2, -1);
}

/**
 * test_ra_lifetime_no_dns() - a configured router lifetime is advertised,
 * and without a DNS address there is no RDNSS option
 * @state:	unused (own environment)
 */
static void test_ra_lifetime_no_dns(void **state)
{
	struct core_conf cc;
	struct env *e;

	(void)state;
	conf6(&cc, true);
	cc.ra_router_lifetime_s = 1800;
	memset(cc.dns6, 0, 16);
	e = env_new(&cc);
	env_mark(e);
	send_rs(e, guest6_ll, false);
	assert_int_equal(e->fx.nframes, 1);
	check_ra(e, 0, NULL, guest6_ll, 1800, false);
	assert_ctr_deltas(e, CTR_NDP_RA_SENT, 1, -1);

	/* without RDNSS, the DNS address is not ours either */
	env_clear(e);
	env_mark(e);
	send_ns_to(e, guest6_ll, dns6, our_mac, dns6, false);
	assert_int_equal(e->fx.nframes, 0);
	assert_ctr_deltas(e, -1);
	assert_quiet6(e);
	env_free(e);
}

/**
 * test_conf_bad() - core_init() refuses an unusable IPv6 configuration,
 * and accepts any IPv6 fields while IPv6 is off
 * @state:	unused
 */
static void test_conf_bad(void **state)
{
	struct core_conf cc;

	(void)state;
	conf6(&cc, true);
	assert_int_equal(core_init_rc(&cc), 0);
	cc.mtu = 1279;
	assert_int_equal(core_init_rc(&cc), -EINVAL);
	conf6(&cc, true);
	cc.gw6_ll[0] = 0xfd;
	assert_int_equal(core_init_rc(&cc), -EINVAL);
	conf6(&cc, true);
	memset(cc.gw6, 0, 16);
	assert_int_equal(core_init_rc(&cc), -EINVAL);
	conf6(&cc, true);
	cc.dns6[0] = 0xff;
	assert_int_equal(core_init_rc(&cc), -EINVAL);
	conf6(&cc, true);
	cc.ra_router_lifetime_s = 65536;
	assert_int_equal(core_init_rc(&cc), -EINVAL);
	cc.ipv6 = false;
	cc.mtu = 576;
	assert_int_equal(core_init_rc(&cc), 0);
}

/**
 * test_ns_na() - solicitations for each of our addresses get exactly our
 * advertisement, multicast (address resolution) or unicast (NUD)
 * @state:	environment
 */
static void test_ns_na(void **state)
{
	struct env *e = *state;

	send_ns(e, guest6_ll, NULL, gw6_ll, true);
	assert_int_equal(e->fx.nframes, 1);
	check_na(e, 0, NULL, guest6_ll, gw6_ll, 0xe0);

	/* from the guest's ULA address, for the gateway, without SLLA */
	send_ns(e, guest6, NULL, gw6, false);
	assert_int_equal(e->fx.nframes, 2);
	check_na(e, 1, NULL, guest6, gw6, 0xe0);

	/* unicast NUD probe for the DNS address */
	send_ns_to(e, guest6, dns6, our_mac, dns6, true);
	assert_int_equal(e->fx.nframes, 3);
	check_na(e, 2, NULL, guest6, dns6, 0xe0);
	assert_int_equal(e->fx.nintents, 0);
	assert_ctr_deltas(e, CTR_NDP_NA_SENT, 3, -1);
}

/**
 * test_ns_other() - solicitations for other addresses get nothing, and
 * count nothing: they are normal traffic, not errors
 * @state:	environment
 */
static void test_ns_other(void **state)
{
	struct env *e = *state;

	send_ns(e, guest6_ll, all_nodes_mac, other6, true);
	send_ns(e, guest6_ll, all_nodes_mac, outside6, true);
	/* the guest's own address, as other guests would ask for it */
	send_ns(e, guest6_ll, all_nodes_mac, guest6, true);
	assert_int_equal(e->fx.nframes, 0);
	assert_ctr_deltas(e, -1);
}

/**
 * test_dad() - DAD probes for other addresses get nothing; one for our
 * address is answered to all-nodes without the solicited flag
 * @state:	environment
 */
static void test_dad(void **state)
{
	struct env *e = *state;

	send_ns(e, unspec6, NULL, guest6_ll, false);
	send_ns(e, unspec6, NULL, guest6, false);
	assert_int_equal(e->fx.nframes, 0);
	assert_ctr_deltas(e, -1);

	send_ns(e, unspec6, NULL, gw6_ll, false);
	assert_int_equal(e->fx.nframes, 1);
	check_na(e, 0, all_nodes_mac, all_nodes, gw6_ll, 0xa0);
	assert_ctr_deltas(e, CTR_NDP_NA_SENT, 1, -1);
}

/**
 * test_ns_proxy() - pasta's model (conf.ndp_proxy): solicitations for any
 * unicast address but link-local ones and the guest's own are answered as
 * ours, DAD probes are not; a mapped address (conf.map_guest6) is ours in
 * either model
 * @state:	environment
 */
static void test_ns_proxy(void **state)
{
	static const uint8_t other_ll[16] = { 0xfe, 0x80, [15] = 0x99 };
	static const uint8_t mapped_ll[16] = { 0xfe, 0x80, [15] = 0x77 };
	struct env *e = *state;

	memcpy(e->c.conf.map_guest6, mapped_ll, 16);
	send_ns(e, guest6_ll, all_nodes_mac, mapped_ll, true);
	assert_int_equal(e->fx.nframes, 1);
	check_na(e, 0, NULL, guest6_ll, mapped_ll, 0xe0);
	env_clear(e);

	e->c.conf.ndp_proxy = true;
	memcpy(e->c.conf.guest6, guest6, 16);
	send_ns(e, guest6_ll, all_nodes_mac, other6, true);
	send_ns(e, guest6_ll, all_nodes_mac, outside6, true);
	assert_int_equal(e->fx.nframes, 2);
	check_na(e, 0, NULL, guest6_ll, other6, 0xe0);
	check_na(e, 1, NULL, guest6_ll, outside6, 0xe0);
	env_clear(e);

	/* not: the guest's own, another link-local, a DAD probe */
	send_ns(e, guest6_ll, all_nodes_mac, guest6, true);
	send_ns(e, guest6_ll, all_nodes_mac, other_ll, true);
	send_ns(e, unspec6, all_nodes_mac, other6, false);
	assert_int_equal(e->fx.nframes, 0);
	assert_ctr_deltas(e, CTR_NDP_NA_SENT, 3, -1);
	e->c.conf.ndp_proxy = false;
	memset(e->c.conf.map_guest6, 0, 16);
	memset(e->c.conf.guest6, 0, 16);
}

/**
 * echo_msg() - an echo request
 * @m:		out (8 + @len bytes)
 * @id:		identifier
 * @seqno:	sequence number
 * @data:	payload
 * @len:	payload length
 *
 * Return: message length
 */
static size_t echo_msg(uint8_t *m, uint16_t id, uint16_t seqno,
		       const uint8_t *data, size_t len)
{
	m[0] = 128;
	m[1] = 0;
	wr16(m + 2, 0);
	wr16(m + 4, id);
	wr16(m + 6, seqno);
	memcpy(m + 8, data, len);
	return 8 + len;
}

/**
 * check_echo_reply() - frame @i is our echo reply
 * @e:		environment
 * @i:		frame index
 * @from:	the address pinged
 * @to:		the guest's address
 * @id:		identifier
 * @seqno:	sequence number
 * @data:	payload
 * @len:	payload length
 */
static void check_echo_reply(const struct env *e, unsigned i,
			     const uint8_t *from, const uint8_t *to,
			     uint16_t id, uint16_t seqno, const uint8_t *data,
			     size_t len)
{
	const uint8_t *m;
	size_t l4;

	m = parse_icmp6(e, i, NULL, from, to, 64, &l4);
	assert_int_equal(l4, 8 + len);
	assert_int_equal(m[0], 129);
	assert_int_equal(m[1], 0);
	assert_int_equal(rd16(m + 4), id);
	assert_int_equal(rd16(m + 6), seqno);
	assert_memory_equal(m + 8, data, len);
}

/**
 * test_echo() - echo to our addresses is answered (odd payload, Ethernet
 * padding not echoed); elsewhere, multicast and bad codes are counted
 * @state:	environment
 */
static void test_echo(void **state)
{
	struct env *e = *state;
	uint8_t m[8 + 57], data[57];
	struct pkt6 p = icmp6_pkt(guest6, gw6, NULL, 64, m);
	size_t i, len;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 1);
	p.len = echo_msg(m, 0x4242, 7, data, sizeof(data));
	input6(e, &p);
	assert_int_equal(e->fx.nframes, 1);
	check_echo_reply(e, 0, gw6, guest6, 0x4242, 7, data, sizeof(data));

	/* link-local, 2 bytes of payload and 16 bytes of trailing padding */
	p.src = guest6_ll;
	p.dst = gw6_ll;
	p.len = echo_msg(m, 0xbeef, 0xfffe, data, 2);
	len = build6(e, e->in, &p);
	memset(e->in + len, 0xee, 16);
	env_input(e, e->in, len + 16);
	assert_int_equal(e->fx.nframes, 2);
	check_echo_reply(e, 1, gw6_ll, guest6_ll, 0xbeef, 0xfffe, data, 2);

	p.dst = dns6;
	p.len = echo_msg(m, 1, 2, data, 0);
	input6(e, &p);
	assert_int_equal(e->fx.nframes, 3);
	check_echo_reply(e, 2, dns6, guest6_ll, 1, 2, data, 0);
	assert_ctr_deltas(e, CTR_ICMP6_ECHO_REPLIES, 3, -1);

	env_clear(e);
	env_mark(e);
	p.dst = outside6; /* elsewhere: an ICMPv6 ping socket (udp.c) */
	input6(e, &p);
	assert_int_equal(e->fx.nframes, 0);
	assert_int_equal(fx_count(e, FX_DGRAM_OPEN), 1);
	assert_int_equal(fx_count(e, FX_DGRAM_SEND), 1);
	assert_ctr_deltas(e, CTR_ICMP6_ECHO_OUT, 1, CTR_UDP_FLOWS_OPENED, 1,
			  CTR_UDP_FLOWS_OPENED6, 1, -1);
	/* the echo flow idles out, so the test ends with nothing live */
	env_clear(e);
	core_timer(&e->c, e->now + e->c.conf.udp_idle_ns, &e->fx);
	assert_int_equal(fx_count(e, FX_DGRAM_CLOSE), 1);
	env_clear(e);
	env_mark(e);
	p.dst = all_nodes;
	p.dst_mac = all_nodes_mac;
	input6(e, &p);
	assert_ctr_deltas(e, CTR_ICMP6_DROP_UNSUPPORTED, 1, -1);
	p.dst = gw6;
	p.dst_mac = NULL;
	m[1] = 1; /* code */
	input6(e, &p);
	m[1] = 0;
	p.len = 7; /* shorter than an echo header */
	input6(e, &p);
	p.len = 8;
	p.src = unspec6;
	input6(e, &p);
	assert_int_equal(e->fx.nframes, 0);
	assert_ctr_deltas(e, CTR_ICMP6_DROP_UNSUPPORTED, 1, CTR_ICMP6_DROP_BAD,
			  3, -1);
}

/**
 * test_ndp_hop_limit() - NDP with a hop limit other than 255 may come from
 * off the link: dropped and counted
 * @state:	environment
 */
static void test_ndp_hop_limit(void **state)
{
	struct env *e = *state;
	uint8_t m[32];
	struct pkt6 p = icmp6_pkt(guest6_ll, all_routers, all_routers_mac, 254,
				  m);

	p.len = rs_msg(m, true);
	input6(e, &p);
	p.dst = gw6_ll;
	p.dst_mac = our_mac;
	p.len = ns_msg(m, gw6_ll, true);
	input6(e, &p);
	p.hop = 1;
	input6(e, &p);
	assert_int_equal(e->fx.nframes, 0);
	assert_ctr_deltas(e, CTR_NDP_DROP_BAD, 3, -1);
}

/**
 * test_ndp_malformed() - bad lengths, bad options, bad codes, DAD rules
 * @state:	environment
 */
static void test_ndp_malformed(void **state)
{
	struct env *e = *state;
	uint8_t m[40], sn[16];
	struct pkt6 p = icmp6_pkt(guest6_ll, gw6_ll, NULL, 255, m);

	/* NS: option length 0 */
	p.len = ns_msg(m, gw6_ll, true);
	m[25] = 0;
	input6(e, &p);
	/* NS: option longer than the message */
	p.len = ns_msg(m, gw6_ll, true);
	m[25] = 2;
	input6(e, &p);
	/* NS: one byte of option */
	p.len = ns_msg(m, gw6_ll, false) + 1;
	m[24] = 1;
	input6(e, &p);
	/* NS: shorter than 24 bytes */
	p.len = ns_msg(m, gw6_ll, false) - 1;
	input6(e, &p);
	/* NS: code 1 */
	p.len = ns_msg(m, gw6_ll, false);
	m[1] = 1;
	input6(e, &p);
	/* NS: multicast target */
	p.len = ns_msg(m, all_nodes, false);
	input6(e, &p);
	/* DAD with a source link-layer address option */
	sol_node(sn, gw6_ll);
	p.src = unspec6;
	p.dst = sn;
	p.len = ns_msg(m, gw6_ll, true);
	input6(e, &p);
	/* DAD not to the solicited-node group */
	p.dst = gw6_ll;
	p.len = ns_msg(m, gw6_ll, false);
	input6(e, &p);
	/* RS from :: with SLLA */
	p.dst = all_routers;
	p.len = rs_msg(m, true);
	input6(e, &p);
	/* RS: option running past the end, then code 1, then too short */
	p.src = guest6_ll;
	p.len = rs_msg(m, true) - 1;
	input6(e, &p);
	p.len = rs_msg(m, false);
	m[1] = 1;
	input6(e, &p);
	p.len = 7;
	m[1] = 0;
	input6(e, &p);
	assert_ctr_deltas(e, CTR_NDP_DROP_BAD, 12, -1);

	/* ICMPv6 shorter than its 4-byte header; an NA; an MLDv2 report */
	env_mark(e);
	p.len = 3;
	input6(e, &p);
	p.len = 32;
	memset(m, 0, 32);
	m[0] = 136;
	input6(e, &p);
	m[0] = 143;
	input6(e, &p);
	assert_int_equal(e->fx.nframes, 0);
	assert_ctr_deltas(e, CTR_ICMP6_DROP_BAD, 1, CTR_ICMP6_DROP_UNSUPPORTED,
			  2, -1);
}

/**
 * test_ext_headers() - hop-by-hop, destination options and routing headers
 * (segments left 0) are skipped; the reply carries none of them
 * @state:	environment
 */
static void test_ext_headers(void **state)
{
	struct env *e = *state;
	uint8_t m[16], data[5] = { 1, 2, 3, 4, 5 };
	/* hop-by-hop (8 bytes, PadN), destination options (16), routing (8,
	 * type 4, segments left 0), destination options (8) */
	uint8_t ext[40] = {
		NH_DSTOPTS,
		0,
		1,
		4,
		0,
		0,
		0,
		0,
		NH_ROUTING,
		1,
		1,
		12,
		[24] = NH_DSTOPTS,
		0,
		4,
		0,
		[32] = NH_ICMP6,
		0,
		1,
		4,
	};
	uint8_t chain[72] = { 0 };
	struct pkt6 p = {
		.src = guest6,
		.dst = gw6,
		.hop = 64,
		.ext = ext,
		.ext_nh = NH_HOPOPTS,
		.ext_len = 40,
		.last_nh = NH_ICMP6,
		.msg = m,
	};
	unsigned i;

	p.len = echo_msg(m, 9, 10, data, sizeof(data));
	input6(e, &p);
	assert_int_equal(e->fx.nframes, 1);
	check_echo_reply(e, 0, gw6, guest6, 9, 10, data, sizeof(data));
	assert_ctr_deltas(e, CTR_ICMP6_ECHO_REPLIES, 1, -1);

	/* NDP behind a hop-by-hop header */
	env_clear(e);
	env_mark(e);
	ext[0] = NH_ICMP6;
	p.ext_len = 8;
	p.hop = 255;
	p.src = guest6_ll;
	p.dst = all_routers;
	p.dst_mac = all_routers_mac;
	p.len = rs_msg(m, false);
	input6(e, &p);
	assert_int_equal(e->fx.nframes, 1);
	check_ra(e, 0, NULL, guest6_ll, 0, true);
	assert_ctr_deltas(e, CTR_NDP_RA_SENT, 1, -1);

	env_clear(e);
	env_mark(e);
	p.dst = gw6;
	p.dst_mac = NULL;
	p.hop = 64;
	p.len = echo_msg(m, 9, 10, data, sizeof(data));
	/* hop-by-hop after a destination options header */
	memset(ext, 0, sizeof(ext));
	ext[0] = NH_HOPOPTS;
	ext[8] = NH_ICMP6;
	p.ext_nh = NH_DSTOPTS;
	p.ext_len = 16;
	input6(e, &p);
	/* routing header with segments left 1: we forward nothing */
	memset(ext, 0, sizeof(ext));
	ext[0] = NH_ICMP6;
	ext[2] = 4;
	ext[3] = 1;
	p.ext_nh = NH_ROUTING;
	p.ext_len = 8;
	input6(e, &p);
	/* nine destination options headers: one too many */
	for (i = 0; i < 9; i++)
		chain[8 * i] = i < 8 ? NH_DSTOPTS : NH_ICMP6;
	p.ext = chain;
	p.ext_nh = NH_DSTOPTS;
	p.ext_len = 72;
	p.len = echo_msg(m, 1, 1, data, 0);
	input6(e, &p);
	/* eight are fine */
	p.ext = chain + 8;
	p.ext_len = 64;
	input6(e, &p);
	assert_int_equal(e->fx.nframes, 1);
	check_echo_reply(e, 0, gw6, guest6_ll, 1, 1, data, 0);
	assert_ctr_deltas(e, CTR_IP6_DROP_BAD_HDR, 3, CTR_ICMP6_ECHO_REPLIES, 1,
			  -1);

	/* an extension header longer than the packet, and one of 4 bytes */
	env_clear(e);
	env_mark(e);
	memset(ext, 0, sizeof(ext));
	ext[0] = NH_ICMP6;
	ext[1] = 2; /* 24 bytes; 8 + 8 there */
	p.ext = ext;
	p.ext_nh = NH_DSTOPTS;
	p.ext_len = 8;
	input6(e, &p);
	p.ext_len = 4;
	p.len = 0;
	input6(e, &p);
	assert_int_equal(e->fx.nframes, 0);
	assert_ctr_deltas(e, CTR_IP6_DROP_BAD_LEN, 2, -1);
}

/**
 * test_frag_proto() - fragments, TCP, UDP, "no next header" are dropped
 * @state:	environment
 */
static void test_frag_proto(void **state)
{
	struct env *e = *state;
	uint8_t m[16], data[1] = { 0 };
	/* hop-by-hop, then a fragment header: first fragment (M set) */
	uint8_t ext[16] = { NH_FRAG,  0, 1, 4, 0, 0, 0,	   0,
			    NH_ICMP6, 0, 0, 1, 0, 0, 0x12, 0x34 };
	struct pkt6 p = {
		.src = guest6,
		.dst = gw6,
		.hop = 64,
		.ext = ext + 8,
		.ext_nh = NH_FRAG,
		.ext_len = 8,
		.last_nh = NH_ICMP6,
		.msg = m,
	};

	p.len = echo_msg(m, 1, 1, data, 1);
	input6(e, &p);
	/* an atomic fragment (offset 0, no M) behind hop-by-hop: the same */
	ext[11] = 0;
	p.ext = ext;
	p.ext_nh = NH_HOPOPTS;
	p.ext_len = 16;
	input6(e, &p);
	assert_ctr_deltas(e, CTR_IP6_DROP_FRAG, 2, -1);

	env_mark(e);
	p.ext = NULL;
	p.ext_len = 0;
	memset(m, 0, sizeof(m));
	p.len = 16;
	p.last_nh = NH_TCP;
	input6(e, &p);
	p.last_nh = NH_UDP;
	p.len = 8;
	input6(e, &p);
	p.last_nh = NH_NONE;
	p.len = 0;
	input6(e, &p);
	assert_int_equal(e->fx.nframes, 0);
	assert_int_equal(e->fx.nintents, 0);
	/* TCP and UDP are carried now (test_ipv6.c): these zeroed headers
	 * are malformed there */
	assert_ctr_deltas(e, CTR_IP6_DROP_PROTO, 1, CTR_TCP_DROP_BAD_HDR, 1,
			  CTR_UDP_DROP_BAD_HDR, 1, -1);
}

/**
 * test_ip6_bad_hdr() - short, wrong version, length past the frame, hop
 * limit 0, multicast source
 * @state:	environment
 */
static void test_ip6_bad_hdr(void **state)
{
	struct env *e = *state;
	size_t l3 = e->c.conf.vnet_hdr_len + ETH_HLEN, len;
	uint8_t m[16], data[1] = { 0 };
	struct pkt6 p = icmp6_pkt(guest6, gw6, NULL, 64, m);

	p.len = echo_msg(m, 1, 1, data, 1);
	len = build6(e, e->in, &p);
	env_input(e, e->in, l3 + IP6_HLEN - 1);
	e->in[l3] = 0x40;
	env_input(e, e->in, len);
	len = build6(e, e->in, &p);
	env_input(e, e->in, len - 1); /* payload length one past */
	p.hop = 0;
	input6(e, &p);
	p.hop = 64;
	p.src = all_nodes;
	input6(e, &p);
	assert_int_equal(e->fx.nframes, 0);
	assert_ctr_deltas(e, CTR_IP6_DROP_BAD_HDR, 4, CTR_IP6_DROP_BAD_LEN, 1,
			  -1);
}

/**
 * test_no_slot() - with every slot taken, answers are counted as dropped
 * @state:	environment
 */
static void test_no_slot(void **state)
{
	struct env *e = *state;
	uint8_t m[8];
	struct pkt6 p = icmp6_pkt(guest6_ll, gw6_ll, our_mac, 64, m);

	e->fx.nframes = e->fx.nslots;
	send_rs(e, guest6_ll, false);
	send_ns_to(e, guest6_ll, gw6_ll, our_mac, gw6_ll, false);
	p.len = echo_msg(m, 1, 1, m, 0);
	input6(e, &p);
	assert_int_equal(e->fx.nframes, e->fx.nslots);
	assert_ctr_deltas(e, CTR_FX_POOL_EMPTY, 3, -1);
	env_clear(e);
}

/**
 * test_ipv6_off() - with IPv6 off (the default), IPv6 frames count as an
 * unsupported ethertype, as before, and get no answer
 * @state:	environment (default configuration)
 */
static void test_ipv6_off(void **state)
{
	struct env *e = *state;

	send_rs(e, unspec6, false);
	send_ns_to(e, guest6_ll, gw6_ll, our_mac, gw6_ll, true);
	assert_int_equal(e->fx.nframes, 0);
	assert_ctr_deltas(e, CTR_ETH_DROP_ETHERTYPE, 2, -1);
}

/**
 * test_ra_periodic() - unsolicited router advertisements: the first is due
 * at once, the next three 16 s apart, then every 30 to 60 s with jitter;
 * nothing before a deadline; core_timer() returns the deadline
 * @state:	environment
 */
static void test_ra_periodic(void **state)
{
	struct env *e = *state;
	uint64_t next, prev, ivl, min = UINT64_MAX, max = 0;
	unsigned n;

	/* armed by core_init(): due at once, before the core saw a clock */
	assert_true(e->c.next_deadline_ns == 0);
	next = core_timer(&e->c, e->now, &e->fx);
	assert_int_equal(e->fx.nframes, 1);
	check_ra(e, 0, all_nodes_mac, all_nodes, 0, true);
	assert_ctr_deltas(e, CTR_NDP_RA_SENT, 1, CTR_NDP_RA_PERIODIC, 1, -1);
	assert_true(next == e->now + MS(16000));
	assert_true(e->c.next_deadline_ns == next);

	/* not due yet: nothing, same deadline */
	env_clear(e);
	env_mark(e);
	assert_true(core_timer(&e->c, next - 1, &e->fx) == next);
	assert_int_equal(e->fx.nframes, 0);
	assert_ctr_deltas(e, -1);

	/* the second, third and fourth: at most 16 s after each of the
	 * first three (the random 30-60 s cut to 16); after the fourth,
	 * 30 to 60 s */
	for (n = 2; n <= 4; n++) {
		prev = next;
		next = core_timer(&e->c, prev, &e->fx);
		assert_int_equal(e->fx.nframes, 1);
		check_ra(e, 0, all_nodes_mac, all_nodes, 0, true);
		env_clear(e);
		if (n < 4)
			assert_true(next - prev == MS(16000));
	}
	assert_true(next - prev >= MS(30000) && next - prev <= MS(60000));

	/* then 30 to 60 s apart, not all the same; late timer runs count
	 * from when the advertisement went out */
	for (n = 0; n < 200; n++) {
		prev = next + n % 3;
		next = core_timer(&e->c, prev, &e->fx);
		assert_int_equal(e->fx.nframes, 1);
		env_clear(e);
		ivl = next - prev;
		assert_true(ivl >= MS(30000) && ivl <= MS(60000));
		min = MIN(min, ivl);
		max = MAX(max, ivl);
	}
	assert_true(max - min > MS(10000));
	assert_ctr_deltas(e, CTR_NDP_RA_SENT, 203, CTR_NDP_RA_PERIODIC, 203,
			  -1);
	e->now = next;
}

/**
 * test_ra_periodic_no_slot() - with no free slot the advertisement waits:
 * the timer says "again now" (the host drains and calls again) and
 * nothing is counted as lost
 * @state:	environment
 */
static void test_ra_periodic_no_slot(void **state)
{
	struct env *e = *state;

	e->fx.nframes = e->fx.nslots;
	assert_true(core_timer(&e->c, e->now, &e->fx) == e->now);
	assert_int_equal(e->fx.nframes, e->fx.nslots);
	assert_ctr_deltas(e, -1);
	env_clear(e);
	assert_true(core_timer(&e->c, e->now, &e->fx) == e->now + MS(16000));
	assert_int_equal(e->fx.nframes, 1);
	check_ra(e, 0, all_nodes_mac, all_nodes, 0, true);
	assert_ctr_deltas(e, CTR_NDP_RA_SENT, 1, CTR_NDP_RA_PERIODIC, 1, -1);
}

/**
 * test_ra_shards() - only shard 0 sends unsolicited advertisements; every
 * shard answers solicitations
 * @state:	unused (own environments)
 */
static void test_ra_shards(void **state)
{
	struct core_conf cc;
	struct env *e;

	(void)state;
	conf6(&cc, false);
	cc.nshards = 2;
	cc.shard_id = 1;
	e = env_new(&cc);
	env_mark(e);
	assert_true(e->c.next_deadline_ns == UINT64_MAX);
	assert_true(core_timer(&e->c, e->now, &e->fx) == UINT64_MAX);
	assert_int_equal(e->fx.nframes, 0);
	send_rs(e, guest6_ll, false);
	assert_int_equal(e->fx.nframes, 1);
	check_ra(e, 0, NULL, guest6_ll, 0, true);
	assert_ctr_deltas(e, CTR_NDP_RA_SENT, 1, -1);
	assert_quiet6(e);
	env_free(e);

	cc.shard_id = 0;
	e = env_new(&cc);
	assert_true(e->c.next_deadline_ns == 0);
	assert_quiet6(e);
	env_free(e);
}

/**
 * test_ra_dhcp6_dnssl() - with DHCPv6 on, advertisements (solicited and
 * unsolicited) carry the M and O flags; with a search list, a DNSSL option
 * with the names zero-padded to 8n bytes; a 256-byte list still fits
 * @state:	unused (own environments)
 */
static void test_ra_dhcp6_dnssl(void **state)
{
	static const uint8_t search[] = "\x07"
					"example"
					"\x04"
					"test"
					"\0"
					"\x03"
					"lab";
	struct core_conf cc;
	struct env *e;
	size_t i;

	(void)state;
	conf6(&cc, true);
	cc.dhcp6 = true;
	memcpy(cc.guest6, prefix6, 8);
	cc.guest6[15] = 0x15;
	memcpy(cc.dhcp4.search, search, sizeof(search));
	cc.dhcp4.search_len = sizeof(search); /* 2 names, 19 bytes */
	e = env_new(&cc);
	env_mark(e);
	send_rs(e, guest6_ll, true);
	assert_int_equal(e->fx.nframes, 1);
	check_ra_full(e, 0, NULL, guest6_ll, 0, true, 0xc0, search,
		      sizeof(search));
	env_clear(e);
	assert_true(core_timer(&e->c, e->now, &e->fx) > e->now);
	assert_int_equal(e->fx.nframes, 1);
	check_ra_full(e, 0, all_nodes_mac, all_nodes, 0, true, 0xc0, search,
		      sizeof(search));
	assert_ctr_deltas(e, CTR_NDP_RA_SENT, 2, CTR_NDP_RA_PERIODIC, 1, -1);
	assert_quiet6(e);
	env_free(e);

	/* DHCPv6 off, a full 256-byte list (a multiple of 8: no padding) */
	conf6(&cc, false);
	for (i = 0; i < sizeof(cc.dhcp4.search); i++)
		cc.dhcp4.search[i] = (uint8_t)(i * 7 + 1);
	cc.dhcp4.search_len = sizeof(cc.dhcp4.search);
	e = env_new(&cc);
	send_rs(e, guest6_ll, false);
	assert_int_equal(e->fx.nframes, 1);
	check_ra_full(e, 0, NULL, guest6_ll, 0, true, 0, cc.dhcp4.search,
		      sizeof(cc.dhcp4.search));
	assert_quiet6(e);
	env_free(e);
}

/**
 * main() - run the IPv6/NDP tests, with and without vnet header
 *
 * Return: 0 if all passed, else the number of failures
 */
int main(void)
{
#define BOTH(t) ENV_BOTH(t, setup_offload, setup_plain, teardown)
	const struct CMUnitTest tests[] = {
		BOTH(test_rs_ra),
		cmocka_unit_test(test_ra_lifetime_no_dns),
		cmocka_unit_test(test_conf_bad),
		BOTH(test_ns_na),
		BOTH(test_ns_other),
		BOTH(test_dad),
		BOTH(test_ns_proxy),
		BOTH(test_echo),
		BOTH(test_ndp_hop_limit),
		BOTH(test_ndp_malformed),
		BOTH(test_ext_headers),
		BOTH(test_frag_proto),
		BOTH(test_ip6_bad_hdr),
		BOTH(test_no_slot),
		cmocka_unit_test_setup_teardown(test_ipv6_off,
						env_setup_offload, teardown),
		BOTH(test_ra_periodic),
		BOTH(test_ra_periodic_no_slot),
		cmocka_unit_test(test_ra_shards),
		cmocka_unit_test(test_ra_dhcp6_dnssl),
	};

	return cmocka_run_group_tests_name("ndp", tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_addr_map.c - pasta's addressing model in the core: a real gateway
 * (conf.gw_real), --map-host-loopback ADDR (conf.map_lo4_be, map_lo6),
 * --map-guest-addr (conf.map_guest4_be, map_guest6 -> host4_be, host6),
 * --dns-forward ADDR (conf.dns4_be anywhere), passt's default DNS (the
 * mapped gateway's port 53, conf.dns4_shared), and a host's /32 prefix.
 *
 * core_dst_map() is checked directly for every rule, then whole frames go
 * through core_input() and the intents the host would carry out are
 * checked: the address a host socket connects to, or the DNS query.
 */
#include <stdlib.h>

#include "core/udp.h"
#include "helpers.h"

#define H4 ip4(10, 77, 0, 5)	  /* the host's address, and the guest's */
#define HGW4 ip4(10, 77, 0, 1)	  /* the host's gateway, and the guest's */
#define MAPG4 ip4(169, 254, 1, 2) /* --map-guest-addr */
#define DNSF4 ip4(169, 254, 1, 1) /* --dns-forward */
#define MAPL4 ip4(169, 254, 1, 3) /* --map-host-loopback */
#define OTHER4 ip4(10, 77, 0, 7)  /* a neighbour of the host */

static const uint8_t h6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x77, [15] = 5 };
static const uint8_t hgw6[16] = { 0xfe, 0x80, [15] = 1 };
static const uint8_t mapg6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, [15] = 2 };
static const uint8_t lo6[16] = { [15] = 1 };

/**
 * conf_host_copy() - a core configured as pasta's model would make it
 * @cc:		out
 *
 * Guest 10.77.0.5/24 behind 10.77.0.1, 2001:db8:77::5 behind fe80::1 (the
 * host's own), the gateway mapped to host loopback.
 */
static void conf_host_copy(struct core_conf *cc)
{
	env_conf(cc, true);
	cc->guest4_be = H4;
	cc->gw4_be = HGW4;
	cc->gw_real = true;
	cc->ipv6 = true;
	memcpy(cc->prefix6, h6, 8);
	memcpy(cc->guest6, h6, 16);
	memcpy(cc->gw6, hgw6, 16);
	memcpy(cc->gw6_ll, hgw6, 16);
	cc->host4_be = H4;
	memcpy(cc->host6, h6, 16);
	cc->mtu = 65520;
}

/**
 * map6() - core_dst_map() of an IPv6 address
 * @e:		environment
 * @d:		destination
 * @t:		out: target
 *
 * Return: what core_dst_map() returned
 */
static bool map6(const struct env *e, const uint8_t *d, uint8_t *t)
{
	return core_dst_map(&e->c, d, t);
}

/**
 * test_dst_map_gw() - the gateway: host loopback when mapped; as named
 * when not and it is a real router; refused when not and it is ours only
 * (slipway's model)
 * @state:	unused
 */
static void test_dst_map_gw(void **state)
{
	struct core_conf cc;
	uint8_t t[ADDR_LEN];
	struct env *e;

	(void)state;
	conf_host_copy(&cc);
	e = env_new(&cc);
	assert_true(core_dst_map(&e->c, M4(HGW4), t));
	assert_memory_equal(t, M4(LO4), ADDR_LEN);
	assert_true(map6(e, hgw6, t));
	assert_memory_equal(t, lo6, ADDR_LEN);
	assert_true(core_dst_map(&e->c, M4(OTHER4), t));
	assert_memory_equal(t, M4(OTHER4), ADDR_LEN);

	e->c.conf.map_gw_to_loopback = false;
	assert_true(core_dst_map(&e->c, M4(HGW4), t));
	assert_memory_equal(t, M4(HGW4), ADDR_LEN);
	assert_true(map6(e, hgw6, t));
	assert_memory_equal(t, hgw6, ADDR_LEN);

	e->c.conf.gw_real = false; /* slipway's model: refused */
	assert_false(core_dst_map(&e->c, M4(HGW4), t));
	assert_false(map6(e, hgw6, t));
	env_free(e);
}

/**
 * test_dst_map_addrs() - --map-host-loopback ADDR and --map-guest-addr
 * ADDR, both families; the gateway of the other family with it (map_lo6
 * equal to gw6 takes gw6_ll along)
 * @state:	unused
 */
static void test_dst_map_addrs(void **state)
{
	static const uint8_t ula_gw6[16] = { 0xfd, 0x55, [15] = 2 };
	static const uint8_t ll1[16] = { 0xfe, 0x80, [15] = 1 };
	struct core_conf cc;
	uint8_t t[ADDR_LEN];
	struct env *e;

	(void)state;
	conf_host_copy(&cc);
	cc.map_gw_to_loopback = false;
	cc.map_lo4_be = MAPL4;
	cc.map_guest4_be = MAPG4;
	memcpy(cc.map_guest6, mapg6, 16);
	e = env_new(&cc);
	assert_true(core_dst_map(&e->c, M4(MAPL4), t));
	assert_memory_equal(t, M4(LO4), ADDR_LEN);
	assert_true(core_dst_map(&e->c, M4(MAPG4), t));
	assert_memory_equal(t, M4(H4), ADDR_LEN);
	assert_true(map6(e, mapg6, t));
	assert_memory_equal(t, h6, ADDR_LEN);
	/* the gateway is not mapped any more: the real router */
	assert_true(core_dst_map(&e->c, M4(HGW4), t));
	assert_memory_equal(t, M4(HGW4), ADDR_LEN);
	env_free(e);

	/* slipway's model: gw6 a ULA, gw6_ll fe80::1, both go with map_lo6 */
	env_conf(&cc, true);
	cc.ipv6 = true;
	memcpy(cc.prefix6, ula_gw6, 8);
	memcpy(cc.guest6, ula_gw6, 16);
	cc.guest6[15] = 0x15;
	memcpy(cc.gw6, ula_gw6, 16);
	memcpy(cc.gw6_ll, ll1, 16);
	cc.map_gw_to_loopback = false;
	cc.map_lo4_be = MAPL4;
	memcpy(cc.map_lo6, ula_gw6, 16);
	e = env_new(&cc);
	assert_true(map6(e, ula_gw6, t));
	assert_memory_equal(t, lo6, ADDR_LEN);
	assert_true(map6(e, ll1, t));
	assert_memory_equal(t, lo6, ADDR_LEN);
	assert_false(core_dst_map(&e->c, M4(GW4), t)); /* not mapped: ours */
	env_free(e);
}

/**
 * send_udp4() - a UDP datagram from the guest
 * @e:		environment
 * @daddr:	destination
 * @dport:	destination port
 */
static void send_udp4(struct env *e, uint32_t daddr, uint16_t dport)
{
	uint8_t *b = e->in;
	size_t off = build_l2(e, b, our_mac, guest_mac, ETHERTYPE_IP4);
	static const uint8_t q[12] = { 0x12, 0x34, 1, 0 };

	off += build_ip4(b + off, IPPROTO_UDP_, e->c.conf.guest4_be, daddr,
			 UDP_HLEN + sizeof(q));
	wr16(b + off, 40000);
	wr16(b + off + 2, dport);
	wr16(b + off + 4, UDP_HLEN + sizeof(q));
	wr16(b + off + 6, 0);
	memcpy(b + off + UDP_HLEN, q, sizeof(q));
	env_input(e, b, off + UDP_HLEN + sizeof(q));
}

/**
 * test_frames() - whole frames: a SYN to the --map-guest-addr address
 * connects to the host's address, one to the --map-host-loopback address
 * to 127.0.0.1, a datagram to the --dns-forward address port 53 is a DNS
 * query (outside the guest's /24), one to its other ports is refused
 * @state:	unused
 */
static void test_frames(void **state)
{
	struct core_conf cc;
	struct env *e;
	struct seg s = { .saddr = H4,
			 .sport = 40001,
			 .dport = 8080,
			 .seq = 1000,
			 .flags = T_SYN,
			 .wnd = 65535,
			 .mss = 1460 };
	const struct fx_intent *it;

	(void)state;
	conf_host_copy(&cc);
	cc.map_lo4_be = MAPL4;
	cc.map_guest4_be = MAPG4;
	cc.dns4_be = DNSF4;
	e = env_new(&cc);

	s.daddr = MAPG4;
	env_send(e, &s);
	it = fx_find(e, FX_SOCK_CONNECT);
	assert_non_null(it);
	assert_memory_equal(it->addr, M4(H4), ADDR_LEN);
	assert_int_equal(it->port, 8080);
	env_clear(e);

	s.daddr = MAPL4;
	s.sport = 40002;
	env_send(e, &s);
	it = fx_find(e, FX_SOCK_CONNECT);
	assert_non_null(it);
	assert_memory_equal(it->addr, M4(LO4), ADDR_LEN);
	env_clear(e);

	env_mark(e);
	send_udp4(e, DNSF4, 53);
	it = fx_find(e, FX_DNS_QUERY);
	assert_non_null(it);
	assert_int_equal(it->len, 12);
	assert_ctr_deltas(e, CTR_DNS_QUERIES, 1, -1);
	env_clear(e);
	env_free(e);
}

/**
 * test_dns_shared() - passt's default DNS: the gateway, mapped to the host's
 * loopback, is the DNS address too (conf.dns4_shared); its port 53 is the
 * forwarder's (UDP a query, TCP to the first upstream), every other port
 * still the host's loopback, and core_flow_target() agrees with the frames
 * @state:	unused
 */
static void test_dns_shared(void **state)
{
	const uint32_t up4 = ip4(127, 0, 0, 53);
	struct core_conf cc;
	struct env *e;
	struct seg s = { .saddr = H4,
			 .sport = 40001,
			 .daddr = HGW4,
			 .dport = 8080,
			 .seq = 1000,
			 .flags = T_SYN,
			 .wnd = 65535,
			 .mss = 1460 };
	const struct fx_intent *it;
	uint8_t t[ADDR_LEN];
	int shared;

	(void)state;
	for (shared = 0; shared <= 1; shared++) {
		conf_host_copy(&cc);
		cc.dns4_be = HGW4;
		cc.dns4_shared = shared;
		cc.dns4_upstream_be = up4;
		e = env_new(&cc);

		s.dport = 8080;
		s.sport = 40001;
		env_send(e, &s);
		if (shared) {
			it = fx_find(e, FX_SOCK_CONNECT);
			assert_memory_equal(it->addr, M4(LO4), ADDR_LEN);
			assert_int_equal(it->port, 8080);
			assert_null(core_flow_target(&e->c, IPPROTO_TCP_,
						     M4(H4), M4(HGW4), 8080,
						     t));
			assert_memory_equal(t, M4(LO4), ADDR_LEN);
		} else {
			/* the forwarder's own address: nothing but 53 */
			assert_int_equal(fx_count(e, FX_SOCK_CONNECT), 0);
			assert_non_null(core_flow_target(&e->c, IPPROTO_TCP_,
							 M4(H4), M4(HGW4), 8080,
							 t));
		}
		env_clear(e);

		s.dport = 53;
		s.sport = 40002;
		env_send(e, &s);
		it = fx_find(e, FX_SOCK_CONNECT);
		assert_memory_equal(it->addr, M4(up4), ADDR_LEN);
		assert_int_equal(it->port, 53);
		env_clear(e);

		env_mark(e);
		send_udp4(e, HGW4, 53);
		assert_int_equal(fx_count(e, FX_DNS_QUERY), 1);
		assert_int_equal(fx_count(e, FX_DGRAM_OPEN), 0);
		env_clear(e);

		env_mark(e);
		send_udp4(e, HGW4, 5000);
		assert_int_equal(fx_count(e, FX_DNS_QUERY), 0);
		if (shared) {
			it = fx_find(e, FX_DGRAM_OPEN);
			assert_memory_equal(it->addr, M4(LO4), ADDR_LEN);
		} else {
			/* as TCP: no port but 53 there */
			assert_int_equal(fx_count(e, FX_DGRAM_OPEN), 0);
			assert_int_equal(env_delta(e, CTR_UDP_UNREACH_SENT), 1);
		}
		assert_non_null(core_flow_target(&e->c, IPPROTO_UDP_, M4(H4),
						 M4(HGW4), 53, t));
		env_clear(e);
		env_free(e);
	}
}

/**
 * test_quiet() - slirp4netns --disable-dns: the DNS addresses stay the
 * virtual network's and nothing sent there leaves (conf.quiet4_be,
 * quiet6): no socket, no reply, counted as a bad destination; the address
 * beside it is carried as before
 * @state:	unused
 */
static void test_quiet(void **state)
{
	const uint32_t q4 = ip4(10, 0, 2, 3);
	struct core_conf cc;
	struct env *e;
	struct seg s = { .saddr = GUEST4,
			 .sport = 40001,
			 .daddr = q4,
			 .dport = 53,
			 .seq = 1000,
			 .flags = T_SYN,
			 .wnd = 65535,
			 .mss = 1460 };
	uint8_t guest6[16], t[ADDR_LEN];

	(void)state;
	env_conf6(&cc, true);
	memcpy(guest6, prefix6, 8);
	memset(guest6 + 8, 0, 8);
	guest6[15] = 0x15;
	memcpy(cc.guest6, guest6, 16);
	memset(cc.dns6, 0, 16); /* the forwarder is off */
	cc.quiet4_be = q4;
	memcpy(cc.quiet6, dns6, 16);
	e = env_new(&cc);

	env_mark(e);
	env_send(e, &s);
	send_udp4(e, q4, 53);
	assert_int_equal(e->fx.nframes, 0);
	assert_int_equal(e->fx.nintents, 0);
	assert_ctr_deltas(e, CTR_IP4_DROP_ADDR, 2, -1);
	assert_non_null(core_flow_target(&e->c, IPPROTO_TCP_, M4(GUEST4),
					 M4(q4), 53, t));
	env_clear(e);

	s.saddr6 = guest6;
	s.daddr6 = dns6;
	env_mark(e);
	env_send(e, &s);
	assert_int_equal(e->fx.nframes, 0);
	assert_int_equal(e->fx.nintents, 0);
	assert_ctr_deltas(e, CTR_IP6_DROP_ADDR, 1, -1);
	env_clear(e);

	/* the next address is anybody's, as ever */
	s.saddr6 = s.daddr6 = NULL;
	s.daddr = ip4(10, 0, 2, 4);
	env_send(e, &s);
	assert_memory_equal(fx_find(e, FX_SOCK_CONNECT)->addr,
			    M4(ip4(10, 0, 2, 4)), ADDR_LEN);
	env_clear(e);
	env_free(e);
}

/**
 * test_prefix32() - a /32 (a host's address copied as is) has no subnet
 * broadcast: datagrams to any unicast address still open flows
 * @state:	unused
 */
static void test_prefix32(void **state)
{
	struct core_conf cc;
	struct env *e;
	const struct fx_intent *it;

	(void)state;
	conf_host_copy(&cc);
	cc.mask4_be = ip4(255, 255, 255, 255);
	e = env_new(&cc);
	env_mark(e);
	send_udp4(e, OTHER4, 9999);
	it = fx_find(e, FX_DGRAM_OPEN);
	assert_non_null(it);
	assert_memory_equal(it->addr, M4(OTHER4), ADDR_LEN);
	assert_int_equal(env_delta(e, CTR_IP4_DROP_ADDR), 0);
	env_clear(e);
	env_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dst_map_gw),
		cmocka_unit_test(test_dst_map_addrs),
		cmocka_unit_test(test_frames),
		cmocka_unit_test(test_dns_shared),
		cmocka_unit_test(test_quiet),
		cmocka_unit_test(test_prefix32),
	};

	return cmocka_run_group_tests_name("addr_map", tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_mig.c - live migration's state stream (core/mig.c) and the flows
 * that travel in it (tcp_export(), tcp_import(), their held segments)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mig.h"
#include "helpers.h"

#define GPORT 8080
#define RPORT 40000
#define BUF (MIG_HDR_LEN + 4 * MIG_TCP_LEN + MIG_OOO_MAX(2000) + 256)

/**
 * established() - a published-port flow, its handshake done
 * @e:		core
 * @sock:	its socket
 *
 * Return: the flow (ESTABLISHED: our iss + 1, the guest's 7001)
 */
static struct tcp_flow *established(struct env *e, int32_t sock)
{
	struct tcp_flow *f;
	struct seg s = { .daddr = GW4,
			 .sport = GPORT,
			 .dport = RPORT,
			 .seq = 7000,
			 .flags = T_SYN | T_ACK,
			 .wnd = 29200,
			 .mss = 1460,
			 .ws_on = true,
			 .ws = 7 };

	f = tcp_host_accepted(&e->c, M4(GW4), RPORT, GPORT, sock, e->now,
			      &e->fx);
	assert_non_null(f);
	s.ack = f->iss + 1;
	env_send(e, &s);
	assert_int_equal(f->state, TCPS_ESTABLISHED);
	core_flush(&e->c, e->now, &e->fx); /* our ACK opens the window */
	env_clear(e);
	return f;
}

/**
 * stream() - a whole stream: the network record, @n TCP records, an end
 * @buf:	out, BUF bytes
 * @t:		the flows (their @fd set 0, 1, ...)
 * @n:		how many
 *
 * Return: bytes written
 */
static size_t stream(uint8_t *buf, struct mig_tcp *t, unsigned n)
{
	struct mig_net net = { .guest4_be = GUEST4, .gw4_be = GW4 };
	struct mig_end end = { .tcp = n };
	size_t len = MIG_HDR_LEN;
	unsigned i;

	len += mig_put_net(buf + len, BUF - len, &net);
	for (i = 0; i < n; i++) {
		t[i].fd = i;
		len += mig_put_tcp(buf + len, BUF - len, 0, &t[i]);
	}
	len += mig_put_end(buf + len, BUF - len, &end);
	assert_int_equal(mig_put_hdr(buf, MIG_HDR_LEN,
				     (uint32_t)(len - MIG_HDR_LEN), n),
			 MIG_HDR_LEN);
	return len;
}

/**
 * test_flow_moves() - a flow with bytes in flight leaves one core without
 * a word and goes on in another: the same state, what was in flight sent
 * again (a rewind), and an ACK to the guest
 * @state:	unused
 */
static void test_flow_moves(void **state)
{
	struct env *a = env_new_default(true), *b = env_new_default(true);
	uint8_t buf[BUF];
	struct mig_tcp t;
	struct mig_end counts;
	struct tcp_flow *f, *g = NULL;
	uint32_t body, nfds;
	struct otcp o;
	size_t len;

	(void)state;
	f = established(a, 42);
	/* 3000 bytes went to the guest, 1000 of them acknowledged */
	f->snd_nxt = f->snd_max = f->snd_una + 3000;
	f->snd_una += 1000;
	env_mark(a);
	assert_true(tcp_export(&a->c, f, a->now, &t));
	tcp_forget(&a->c, f);
	assert_int_equal(a->fx.nframes, 0);
	assert_int_equal(a->fx.nintents, 0);
	assert_int_equal(env_delta(a, CTR_TCP_FLOWS_ACTIVE), -1);
	assert_null(tcp_flows_bad(&a->c));

	len = stream(buf, &t, 1);
	assert_null(mig_parse_hdr(buf, len, &body, &nfds));
	assert_int_equal(body, len - MIG_HDR_LEN);
	assert_int_equal(nfds, 1);
	assert_null(mig_check(buf + MIG_HDR_LEN, body, nfds, &counts));
	assert_int_equal(counts.tcp, 1);

	env_mark(b);
	assert_null(tcp_import(&b->c, &t, 43, b->now, &b->fx, &g));
	assert_non_null(g);
	assert_int_equal(g->sock, 43);
	assert_int_equal(g->state, TCPS_ESTABLISHED);
	assert_int_equal(g->snd_una, t.snd_una);
	assert_int_equal(g->snd_nxt, t.snd_una); /* rewound */
	assert_int_equal(g->snd_max, t.snd_max);
	assert_int_equal(g->rcv_nxt, 7001);
	assert_int_equal(g->mss, 1460);
	assert_int_equal(g->ws_guest, 7);
	assert_true(g->deadline_ns > b->now);
	assert_non_null(fx_find(b, FX_SOCK_REWIND));
	assert_non_null(fx_find(b, FX_TX_WANTED));
	assert_ctr_deltas(b, CTR_MIG_TCP_IN, 1, CTR_TCP_FLOWS_ACTIVE, 1, -1);
	core_flush(&b->c, b->now, &b->fx);
	assert_int_equal(b->fx.nframes, 1);
	parse_tcp(b, 0, &o);
	assert_int_equal(o.flags, T_ACK);
	assert_int_equal(o.ack, 7001);
	assert_int_equal(o.dport, GPORT);
	assert_null(tcp_flows_bad(&b->c));
	/* the same flow twice: refused, the first kept */
	assert_non_null(tcp_import(&b->c, &t, 44, b->now, &b->fx, &g));
	assert_int_equal(g->sock, 43);
	env_free(a);
	env_free(b);
}

/**
 * test_held_segment_moves() - a segment the source held beyond a gap is
 * held at the destination, in the window only, until the gap is filled
 * @state:	unused
 */
static void test_held_segment_moves(void **state)
{
	static const uint8_t pay[2000] = { 1 };
	struct core_conf cc;
	struct env *a, *b;
	struct tcp_flow *f, *g = NULL;
	struct mig_tcp t;
	struct mig_ooo o;
	uint32_t k = 0;
	struct seg s;

	(void)state;
	env_conf(&cc, true);
	cc.ooo_slots = 4;
	a = env_new(&cc);
	b = env_new(&cc);
	f = established(a, 42);
	s = (struct seg){ .daddr = GW4,
			  .sport = GPORT,
			  .dport = RPORT,
			  .seq = 7001 + 1000,
			  .ack = f->snd_nxt,
			  .flags = T_ACK,
			  .wnd = 29200,
			  .data = pay,
			  .len = 1000 };
	env_send(a, &s);
	env_clear(a);
	assert_true(tcp_export(&a->c, f, a->now, &t));
	assert_true(tcp_export_ooo(&a->c, f, &k, &o));
	assert_int_equal(o.seq, 8001);
	assert_int_equal(o.len, 1000);
	assert_false(tcp_export_ooo(&a->c, f, &k, &o));
	assert_null(tcp_import(&b->c, &t, 43, b->now, &b->fx, &g));
	env_clear(b);
	env_mark(b);
	k = 0;
	assert_true(tcp_export_ooo(&a->c, f, &k, &o));
	assert_null(tcp_import_ooo(&b->c, g, &o));
	assert_int_equal(env_delta(b, CTR_MIG_OOO_IN), 1);
	assert_null(tcp_flows_bad(&b->c));
	/* below rcv_nxt: refused */
	o.seq = 7001;
	assert_non_null(tcp_import_ooo(&b->c, g, &o));
	/* the gap filled: its write goes to the host, the held one waits
	 * for that (written as the write completes, as on any core) */
	s.seq = 7001;
	s.ack = g->snd_nxt;
	env_send(b, &s);
	assert_non_null(fx_find(b, FX_SOCK_SEND));
	assert_int_equal(fx_find(b, FX_SOCK_SEND)->len, 1000);
	assert_true(g->flags & TCPF_OOO);
	assert_int_equal(b->c.ooo[0].seq + b->c.ooo[1].seq + b->c.ooo[2].seq +
				 b->c.ooo[3].seq,
			 8001);
	tcp_forget(&a->c, f);
	env_free(a);
	env_free(b);
}

/**
 * test_refused() - what a destination refuses, each with a reason: an
 * unknown version, a cut or reordered stream, counts that do not match,
 * descriptors named out of order, state that breaks the state table
 * @state:	unused
 */
static void test_refused(void **state)
{
	struct env *a = env_new_default(true), *b = env_new_default(true);
	uint8_t buf[BUF];
	struct mig_tcp t[2], bad;
	struct mig_end counts;
	struct tcp_flow *f, *g = NULL;
	uint32_t body, nfds;
	size_t len;

	(void)state;
	f = established(a, 42);
	assert_true(tcp_export(&a->c, f, a->now, &t[0]));
	t[1] = t[0];
	t[1].guest_port++;
	len = stream(buf, t, 2);
	assert_null(
		mig_check(buf + MIG_HDR_LEN, len - MIG_HDR_LEN, 2, &counts));

	/* version 2 */
	buf[8] = 2;
	assert_non_null(mig_parse_hdr(buf, len, &body, &nfds));
	buf[8] = 1;
	/* cut short: the end record is missing, or a record is cut */
	assert_non_null(mig_check(buf + MIG_HDR_LEN, len - MIG_HDR_LEN - 24, 2,
				  &counts));
	assert_non_null(mig_check(buf + MIG_HDR_LEN, len - MIG_HDR_LEN - 30, 2,
				  &counts));
	/* more descriptors than records name */
	assert_non_null(
		mig_check(buf + MIG_HDR_LEN, len - MIG_HDR_LEN, 3, &counts));
	/* descriptors named out of order */
	t[0].fd = 1;
	t[1].fd = 0;
	len = MIG_HDR_LEN;
	{
		struct mig_net net = { 0 };
		struct mig_end end = { .tcp = 2 };

		len += mig_put_net(buf + len, BUF - len, &net);
		len += mig_put_tcp(buf + len, BUF - len, 0, &t[0]);
		len += mig_put_tcp(buf + len, BUF - len, 0, &t[1]);
		len += mig_put_end(buf + len, BUF - len, &end);
		assert_non_null(mig_check(buf + MIG_HDR_LEN, len - MIG_HDR_LEN,
					  2, &counts));
		/* counts that do not match */
		end.tcp = 3;
		mig_put_end(buf + len - MIG_REC_HDR - 16, 64, &end);
		assert_non_null(mig_check(buf + MIG_HDR_LEN, len - MIG_HDR_LEN,
					  2, &counts));
	}
	/* flows whose state breaks the table */
	bad = t[0];
	bad.state = TCPS_HOST_CONNECTING;
	assert_non_null(tcp_import(&b->c, &bad, 43, b->now, &b->fx, &g));
	bad = t[0];
	bad.flags |= TCPF_FIN_ACKED; /* without FIN_SENT */
	assert_non_null(tcp_import(&b->c, &bad, 43, b->now, &b->fx, &g));
	bad = t[0];
	bad.snd_nxt = bad.snd_max + 1;
	assert_non_null(tcp_import(&b->c, &bad, 43, b->now, &b->fx, &g));
	bad = t[0];
	bad.flags |= TCPF_ACK_DUE;
	assert_non_null(tcp_import(&b->c, &bad, 43, b->now, &b->fx, &g));
	bad = t[0];
	bad.adv_wnd_end = bad.rcv_nxt - 1;
	assert_non_null(tcp_import(&b->c, &bad, 43, b->now, &b->fx, &g));
	assert_int_equal(b->c.hiwat ? !!tcp_flow_get(&b->c, 0) : 0, 0);
	assert_null(tcp_flows_bad(&b->c));
	env_free(a);
	env_free(b);
}

/**
 * test_repair_record() - a socket's repair state survives the stream,
 * queues included; its TCP record names no descriptor, and the stream is
 * refused without it right after
 * @state:	unused
 */
static void test_repair_record(void **state)
{
	static const uint8_t sq[3] = { 1, 2, 3 }, rq[2] = { 9, 8 };
	struct mig_repair rp = { .lport = 40000,
				 .pport = 80,
				 .mss = 1460,
				 .snd_wscale = 7,
				 .rcv_wscale = 9,
				 .flags = MIG_RPF_SACK | MIG_RPF_WSCALE,
				 .snd_seq = 1000,
				 .rcv_seq = 2000,
				 .sndq_len = 3,
				 .rcvq_len = 2,
				 .sndq = sq,
				 .rcvq = rq };
	struct mig_net net = { 0 };
	struct mig_tcp t = { .fd = MIG_NONE,
			     .state = TCPS_ESTABLISHED,
			     .mss = 1460 };
	struct mig_end end = { .tcp = 1 }, counts;
	uint8_t buf[BUF];
	struct mig_repair back;
	struct mig_rec r;
	const uint8_t *p;
	size_t len = 0, at;

	(void)state;
	len += mig_put_net(buf + len, BUF - len, &net);
	len += mig_put_tcp(buf + len, BUF - len, 0, &t);
	at = len;
	len += mig_put_repair(buf + len, BUF - len, 0, &rp);
	assert_int_equal(len - at, MIG_REPAIR_MAX(5));
	len += mig_put_end(buf + len, BUF - len, &end);
	assert_null(mig_check(buf, len, 0, &counts));
	p = buf + at;
	assert_int_equal(mig_next(&p, buf + len, &r), 1);
	assert_int_equal(r.type, MIG_REC_REPAIR);
	assert_null(mig_get_repair(&r, &back));
	assert_int_equal(back.snd_seq, 1000);
	assert_int_equal(back.rcv_seq, 2000);
	assert_int_equal(back.rcv_wscale, 9);
	assert_memory_equal(back.sndq, sq, 3);
	assert_memory_equal(back.rcvq, rq, 2);
	/* the TCP record without its repair record: refused */
	memmove(buf + at, buf + at + (MIG_REPAIR_MAX(5)),
		len - at - MIG_REPAIR_MAX(5));
	assert_non_null(mig_check(buf, len - MIG_REPAIR_MAX(5), 0, &counts));
}

/**
 * test_flow_target() - a migrated flow reaches only what the guest's own
 * SYN or datagram could (core_flow_target()), in both families: the
 * gateway maps to host loopback only while the mapping is on, loopback
 * and multicast are no destinations, the DNS address only for TCP port 53
 * @state:	unused
 */
static void test_flow_target(void **state)
{
	static const uint8_t lo6[16] = { [15] = 1 }, mc6[16] = { 0xff, 2 };
	static const uint8_t far6[16] = { 0x20, 1, 0xd, 0xb8, [15] = 7 };
	uint8_t target[ADDR_LEN], guest6[ADDR_LEN];
	struct core_conf cc;
	struct env *e;

	(void)state;
	env_conf6(&cc, false);
	cc.dns4_be = ip4(10, 0, 2, 3);
	cc.dns4_upstream_be = ip4(127, 0, 0, 53);
	memcpy(cc.guest6, prefix6, 8);
	cc.guest6[15] = 0x15;
	e = env_new(&cc);
	memcpy(guest6, e->c.conf.guest6, ADDR_LEN);
	/* an ordinary remote host: itself */
	assert_null(core_flow_target(&e->c, IPPROTO_TCP_, M4(GUEST4),
				     M4(ip4(192, 0, 2, 9)), 80, target));
	assert_memory_equal(target, M4(ip4(192, 0, 2, 9)), ADDR_LEN);
	assert_null(core_flow_target(&e->c, IPPROTO_UDP_, guest6, far6, 443,
				     target));
	assert_memory_equal(target, far6, ADDR_LEN);
	/* the gateway: the host's loopback while the mapping is on */
	assert_null(core_flow_target(&e->c, IPPROTO_TCP_, M4(GUEST4), M4(GW4),
				     22, target));
	assert_memory_equal(target, M4(LO4), ADDR_LEN);
	assert_null(
		core_flow_target(&e->c, IPPROTO_TCP_, guest6, gw6, 22, target));
	assert_memory_equal(target, lo6, ADDR_LEN);
	e->c.conf.map_gw_to_loopback = false; /* --no-map-gw */
	assert_non_null(core_flow_target(&e->c, IPPROTO_TCP_, M4(GUEST4),
					 M4(GW4), 22, target));
	assert_non_null(
		core_flow_target(&e->c, IPPROTO_UDP_, guest6, gw6, 22, target));
	/* loopback, multicast, port 0, mixed families: never */
	assert_non_null(core_flow_target(&e->c, IPPROTO_TCP_, M4(GUEST4),
					 M4(LO4), 9999, target));
	assert_non_null(core_flow_target(&e->c, IPPROTO_TCP_, guest6, lo6, 9999,
					 target));
	assert_non_null(core_flow_target(&e->c, IPPROTO_UDP_, M4(GUEST4),
					 M4(ip4(224, 0, 0, 1)), 5353, target));
	assert_non_null(core_flow_target(&e->c, IPPROTO_UDP_, guest6, mc6, 5353,
					 target));
	assert_non_null(core_flow_target(&e->c, IPPROTO_TCP_, M4(GUEST4),
					 M4(ip4(192, 0, 2, 9)), 0, target));
	assert_non_null(core_flow_target(&e->c, IPPROTO_TCP_, guest6,
					 M4(ip4(192, 0, 2, 9)), 80, target));
	/* the DNS address: TCP port 53 to the upstream resolver, else no */
	assert_null(core_flow_target(&e->c, IPPROTO_TCP_, M4(GUEST4),
				     M4(e->c.conf.dns4_be), 53, target));
	assert_memory_equal(target, M4(ip4(127, 0, 0, 53)), ADDR_LEN);
	assert_non_null(core_flow_target(&e->c, IPPROTO_TCP_, M4(GUEST4),
					 M4(e->c.conf.dns4_be), 80, target));
	assert_non_null(core_flow_target(&e->c, IPPROTO_UDP_, guest6, dns6, 53,
					 target));
	/* without IPv6, no IPv6 flow */
	e->c.conf.ipv6 = false;
	assert_non_null(core_flow_target(&e->c, IPPROTO_TCP_, guest6, far6, 80,
					 target));
	env_free(e);
}

/**
 * wire_stream() - one record of each type, every field a value of its
 * own whose bytes differ, behind a header
 * @buf:	out, BUF bytes
 *
 * Return: bytes written
 */
static size_t wire_stream(uint8_t *buf)
{
	static const uint8_t data[3] = { 0xd1, 0xd2, 0xd3 };
	struct mig_net n = { .guest_mac = { 0x52, 0x54, 0, 0x12, 0x34, 0x56 },
			     .guest4_be = 0x0f02000a,
			     .gw4_be = 0x0202000a,
			     .guest6 = { 0xfd, 0, [15] = 0x15 },
			     .gw6 = { 0xfe, 0x80, [15] = 2 },
			     .mtu = 65520,
			     .stop_ns = 0x0102030405060708ULL };
	struct mig_tcp t = { .fd = 0x01020304,
			     .hflags = 0x05,
			     .guest_addr = { 0x20, 1, [15] = 0x0a },
			     .remote_addr = { 0x20, 2, [15] = 0x0b },
			     .guest_port = 0x0607,
			     .remote_port = 0x0809,
			     .state = 0x0a,
			     .ws_guest = 0x0b,
			     .flags = 0x0c0d,
			     .mss = 0x10111213,
			     .iss = 0x14151617,
			     .snd_una = 0x18191a1b,
			     .snd_nxt = 0x1c1d1e1f,
			     .snd_max = 0x20212223,
			     .fin_seq = 0x24252627,
			     .rcv_nxt = 0x28292a2b,
			     .rcv_acked = 0x2c2d2e2f,
			     .guest_wnd = 0x30313233,
			     .host_space = 0x34353637,
			     .adv_wnd_end = 0x38393a3b,
			     .srtt_us = 0x3c3d3e3f,
			     .rto_ns = 0x4041424344454647ULL,
			     .age_ns = 0x48494a4b4c4d4e4fULL,
			     .bytes_from_guest = 0x5051525354555657ULL,
			     .bytes_to_guest = 0x58595a5b5c5d5e5fULL };
	struct mig_ooo o = {
		.seq = 0x61626364, .fin = true, .len = 3, .data = data
	};
	struct mig_udp u = { .fd = 0x71727374,
			     .guest_addr = { 0x20, 3, [15] = 0x0c },
			     .remote_addr = { 0x20, 4, [15] = 0x0d },
			     .guest_port = 0x7576,
			     .remote_port = 0x7778,
			     .idle_ns = 0x797a7b7c7d7e7f80ULL,
			     .from_guest = 0x8182838485868788ULL,
			     .to_guest = 0x898a8b8c8d8e8f90ULL };
	struct mig_listen l = { .fd = 0x91929394, .proto = 17 };
	struct mig_repair rp = { .v6 = true,
				 .local = { 0x20, 5, [15] = 0x0e },
				 .lport = 0xa1a2,
				 .peer = { 0x20, 6, [15] = 0x0f },
				 .pport = 0xa3a4,
				 .snd_seq = 0xa5a6a7a8,
				 .rcv_seq = 0xa9aaabac,
				 .mss = 0xadae,
				 .snd_wscale = 0x0e,
				 .rcv_wscale = 0x0d,
				 .flags = MIG_RPF_TS,
				 .ts = 0xb1b2b3b4,
				 .snd_wl1 = 0xb5b6b7b8,
				 .snd_wnd = 0xb9babbbc,
				 .max_window = 0xbdbebfc0,
				 .rcv_wnd = 0xc1c2c3c4,
				 .rcv_wup = 0xc5c6c7c8,
				 .sndq_len = 2,
				 .rcvq_len = 1,
				 .sndq = data,
				 .rcvq = data + 2 };
	struct mig_end e = { .tcp = 0xe1e2e3e4,
			     .ooo = 0xe5e6e7e8,
			     .udp = 0xe9eaebec,
			     .listeners = 0xedeeeff0 };
	size_t len = MIG_HDR_LEN;

	len += mig_put_net(buf + len, BUF - len, &n);
	len += mig_put_tcp(buf + len, BUF - len, 0xf1, &t);
	len += mig_put_ooo(buf + len, BUF - len, 0xf2, &o);
	len += mig_put_repair(buf + len, BUF - len, 0xf3, &rp);
	len += mig_put_udp(buf + len, BUF - len, 0xf4, &u);
	len += mig_put_listen(buf + len, BUF - len, &l);
	len += mig_put_end(buf + len, BUF - len, &e);
	mig_put_hdr(buf, MIG_HDR_LEN, (uint32_t)(len - MIG_HDR_LEN),
		    0x00030201);
	return len;
}

/* wire_stream()'s bytes as the format was first written: a change that
 * moves, widens or drops a field shows here */
static const char wire_hex[] = "534c50574d49470a01000000a1010000"
			       "0102030000000000020000003a000000"
			       "5254001234560a00020f0a000202fd00"
			       "0000000000000000000000000015fe80"
			       "0000000000000000000000000002f0ff"
			       "0000080706050403020103f100007d00"
			       "00000403020105200100000000000000"
			       "0000000000000a200200000000000000"
			       "0000000000000b070609080a0b0d0c13"
			       "121110171615141b1a19181f1e1d1c23"
			       "222120272625242b2a29282f2e2d2c33"
			       "323130373635343b3a39383f3e3d3c47"
			       "464544434241404f4e4d4c4b4a494857"
			       "565554535251505f5e5d5c5b5a595804"
			       "f20000080000006463626101d1d2d307"
			       "f3000055000000012005000000000000"
			       "000000000000000ea2a1200600000000"
			       "0000000000000000000fa4a3a8a7a6a5"
			       "acabaaa9aead0e0d02b4b3b2b1b8b7b6"
			       "b5bcbbbab9c0bfbebdc4c3c2c1c8c7c6"
			       "c50200000001000000d1d2d305f40000"
			       "40000000747372712003000000000000"
			       "000000000000000c2004000000000000"
			       "000000000000000d76757877807f7e7d"
			       "7c7b7a798887868584838281908f8e8d"
			       "8c8b8a89060000000500000094939291"
			       "110100000010000000e4e3e2e1e8e7e6"
			       "e5ecebeae9f0efeeed";

/**
 * test_wire_format() - each record's bytes are the format's, field by
 * field (a stream from an older slipway still reads), and what a reader
 * decodes writes the same bytes again
 * @state:	unused
 */
static void test_wire_format(void **state)
{
	uint8_t buf[BUF], again[BUF], want[sizeof(wire_hex) / 2];
	const uint8_t *p, *end;
	uint32_t body_len, nfds;
	struct mig_rec r;
	size_t len, i, n;
	unsigned hi, lo;

	(void)state;
	for (i = 0; i < sizeof(want); i++) {
		assert_int_equal(sscanf(&wire_hex[2 * i], "%1x%1x", &hi, &lo),
				 2);
		want[i] = (uint8_t)(hi << 4 | lo);
	}
	len = wire_stream(buf);
	assert_int_equal(len, sizeof(want));
	assert_memory_equal(buf, want, len);
	assert_null(mig_parse_hdr(buf, len, &body_len, &nfds));
	assert_int_equal(body_len, len - MIG_HDR_LEN);
	assert_int_equal(nfds, 0x00030201);
	p = buf + MIG_HDR_LEN;
	end = buf + len;
	while (mig_next(&p, end, &r) > 0) {
		union {
			struct mig_net n;
			struct mig_tcp t;
			struct mig_ooo o;
			struct mig_udp u;
			struct mig_listen l;
			struct mig_repair rp;
			struct mig_end e;
		} v;

		switch (r.type) {
		case MIG_REC_NET:
			assert_null(mig_get_net(&r, &v.n));
			n = mig_put_net(again, BUF, &v.n);
			break;
		case MIG_REC_TCP:
			assert_null(mig_get_tcp(&r, UINT32_MAX, &v.t));
			n = mig_put_tcp(again, BUF, r.shard, &v.t);
			break;
		case MIG_REC_OOO:
			assert_null(mig_get_ooo(&r, &v.o));
			assert_true(v.o.fin);
			n = mig_put_ooo(again, BUF, r.shard, &v.o);
			break;
		case MIG_REC_REPAIR:
			assert_null(mig_get_repair(&r, &v.rp));
			assert_true(v.rp.v6);
			n = mig_put_repair(again, BUF, r.shard, &v.rp);
			break;
		case MIG_REC_UDP:
			assert_null(mig_get_udp(&r, UINT32_MAX, &v.u));
			n = mig_put_udp(again, BUF, r.shard, &v.u);
			break;
		case MIG_REC_LISTEN:
			assert_null(mig_get_listen(&r, UINT32_MAX, &v.l));
			n = mig_put_listen(again, BUF, &v.l);
			break;
		default:
			assert_int_equal(r.type, MIG_REC_END);
			assert_null(mig_get_end(&r, &v.e));
			n = mig_put_end(again, BUF, &v.e);
			break;
		}
		assert_int_equal(n, MIG_REC_HDR + r.len);
		assert_memory_equal(again, r.p - MIG_REC_HDR, n);
	}
	assert_ptr_equal(p, end);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flow_moves),
		cmocka_unit_test(test_held_segment_moves),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_repair_record),
		cmocka_unit_test(test_flow_target),
		cmocka_unit_test(test_wire_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_vnet_ip.c - structure-aware frames: vnet header, Ethernet, IPv4,
 * TCP with options, ICMP and ARP
 *
 * Raw bytes rarely get past the Ethernet and IPv4 checks; here the input
 * says how to build each field instead (mostly right, sometimes wrong in one
 * chosen way), so the parsers behind them see many valid frames and many
 * almost-valid ones. Several frames go into one core per input, with time
 * steps in between, and FX_SOCK_CONNECT intents are answered (success or
 * one of the failures) so SYNs turn into SYN-ACKs, RSTs or ICMP errors and
 * later segments meet live flows.
 *
 * Input: one configuration byte, then frame descriptions until the input
 * runs out (missing bytes read as 0, the plain choice).
 *
 * Checks: every queued frame (fz_check_frames()); intents are well formed;
 * SEND payload lies inside the input frame; the active-flow counter matches
 * the table.
 */

#include <errno.h>
#include <stdlib.h>

#include "core/core.h"
#include "core/csum.h"
#include "core/tcp.h"

#include "fuzz_common.h"

#define MAX_FLOWS 8
#define NSLOTS 8
#define SLOT_CAP (VNET_HDR_MAX_LEN + ETH_HLEN + 65520)
#define MAX_FRAMES 32
#define FRAME_CAP 70000
#define SEC 1000000000ULL

#define TH_FIN 0x01
#define TH_SYN 0x02
#define TH_RST 0x04
#define TH_PSH 0x08
#define TH_ACK 0x10

FZ_CORE_STATE(8192, NSLOTS);
static unsigned checked;
static uint64_t now;
static uint8_t fb[FRAME_CAP]; /* frame under construction */

static const uint8_t our_mac[6] = { 0x52, 0x56, 0x00, 0x00, 0x00, 0x02 };
static const uint8_t guest_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const uint8_t key[16] = "slipway-fuzz-key";
#define GUEST4 0x0f02000aU /* 10.0.2.15 (network order in memory) */
#define GW4 0x0202000aU	   /* 10.0.2.2 */

static void flush_frames(void)
{
	fx.nframes = 0;
	checked = 0;
}

static void check_new(void)
{
	fz_check_frames(&core, &fx, checked);
	checked = fx.nframes;
	if (fx.nframes + 2 >= fx.nslots)
		flush_frames();
}

/**
 * drain() - answer intents: connects by the input's choice, sends in full
 * @frame:	the input frame (SEND payload must lie in it), or NULL
 * @flen:	its length
 */
static void drain(const uint8_t *frame, size_t flen)
{
	unsigned i;

	check_new();
	for (i = 0; i < fx.nintents; i++) {
		struct fx_intent it = fx.intents[i];
		struct tcp_flow *f;

		FZ_CHECK(it.type < FX_INTENT_NUM);
		FZ_CHECK(it.flow < MAX_FLOWS);
		if (it.type == FX_SOCK_CLOSE || it.type == FX_SOCK_RESET) {
			FZ_CHECK(it.sock == 100 + (int32_t)it.flow);
			continue;
		}
		f = tcp_flow_get(&core, it.flow);
		if (!f || f->sock != it.sock)
			continue;
		switch (it.type) {
		case FX_SOCK_CONNECT:
			switch (fz_u8() % 5) {
			case 1:
				f->sock = 100 + (int32_t)it.flow;
				tcp_on_sock_connected(&core, f, ECONNREFUSED,
						      now, &fx);
				break;
			case 2:
				f->sock = 100 + (int32_t)it.flow;
				tcp_on_sock_connected(&core, f, EHOSTUNREACH,
						      now, &fx);
				break;
			case 3:
				tcp_on_sock_connected(&core, f, ECONNRESET, now,
						      &fx);
				break;
			case 4:
				break; /* still connecting */
			default:
				f->sock = 100 + (int32_t)it.flow;
				tcp_on_sock_connected(&core, f, 0, now, &fx);
			}
			break;
		case FX_SOCK_SEND:
			FZ_CHECK(frame && it.len && it.data >= frame &&
				 it.data + it.len <= frame + flen);
			tcp_on_sock_sent(&core, f, (long)it.len, &it, now, &fx);
			break;
		default:
			break;
		}
		check_new();
	}
	fx.nintents = 0;
}

/* IPv4 destination addresses worth trying (network order in memory) */
static uint32_t pick_dst(uint8_t sel)
{
	static const uint32_t tab[] = {
		0x22d8b85dU,		  /* 93.184.216.34 */
		GW4,	     0xffffffffU, /* limited broadcast */
		0xff02000aU,		  /* 10.0.2.255: subnet broadcast */
		0x03020100U,		  /* 0.1.2.3 */
		0x010000e0U,		  /* 224.0.0.1 */
		GUEST4,	     0x0100007fU, /* 127.0.0.1 */
		0x0302000aU,		  /* 10.0.2.3: a neighbour */
		0xfeffffdfU,		  /* 223.255.255.254 */
	};

	if (sel < 0xf0)
		return tab[sel % ARRAY_SIZE(tab)];
	return fz_u32();
}

/**
 * tcp_options() - write a list of TCP options chosen by the input
 * @p:		where (room for 40 bytes)
 *
 * Return: bytes written, a multiple of 4
 */
static size_t tcp_options(uint8_t *p)
{
	unsigned n = fz_u8() % 7, i;
	size_t len = 0;

	for (i = 0; i < n && len < 36; i++) {
		uint8_t k = fz_u8();

		switch (k % 10) {
		case 0: /* MSS */
			p[len++] = 2;
			p[len++] = 4;
			wr16(p + len, fz_u16());
			len += 2;
			break;
		case 1: /* window scale */
			p[len++] = 3;
			p[len++] = 3;
			p[len++] = fz_u8();
			break;
		case 2:
			p[len++] = 1;
			break;
		case 3:
			p[len++] = 0;
			break;
		case 4: /* SACK permitted */
			p[len++] = 4;
			p[len++] = 2;
			break;
		case 5: /* timestamps, maybe cut short */
			p[len++] = 8;
			p[len++] = 10;
			wr32(p + len, fz_u32());
			len += 4;
			if (len + 4 <= 40) {
				wr32(p + len, 0);
				len += 4;
			}
			break;
		case 6: /* length 0 or 1 */
			p[len++] = (uint8_t)(k >> 4);
			p[len++] = k & 1;
			break;
		case 7: /* length past the header */
			p[len++] = 2;
			p[len++] = 40;
			break;
		case 8: /* MSS with a wrong length */
			p[len++] = 2;
			p[len++] = (uint8_t)(3 + (k >> 4) % 4);
			break;
		default:
			p[len++] = fz_u8();
		}
	}
	while (len % 4)
		p[len++] = 1;
	return len;
}

/**
 * build_tcp() - a TCP header, options and payload
 * @p:		where
 * @room:	bytes available
 * @daddr:	destination (for the flow lookup of the tuple)
 *
 * Return: bytes written
 */
static size_t build_tcp(uint8_t *p, size_t room, uint32_t daddr)
{
	static const uint8_t flag_tab[8] = {
		TH_SYN, TH_ACK,		 TH_ACK | TH_PSH, TH_FIN | TH_ACK,
		TH_RST, TH_SYN | TH_ACK, TH_RST | TH_ACK, 0,
	};
	uint8_t ps = fz_u8(), fs = fz_u8(), ss = fz_u8(), dm = fz_u8();
	uint16_t sport, dport, plen;
	struct tcp_flow *f;
	size_t optlen, i;
	uint32_t seq, ack;

	sport = (ps & 3) == 3 ? fz_u16() : (uint16_t)(40000 + (ps & 3));
	switch ((ps >> 2) & 3) {
	case 0:
		dport = 80;
		break;
	case 1:
		dport = 22;
		break;
	case 2:
		dport = 0;
		break;
	default:
		dport = fz_u16();
	}
	if (ps & 0x10)
		sport = 0;
	{
		uint8_t ga[ADDR_LEN], da[ADDR_LEN];

		addr_from4(ga, GUEST4);
		addr_from4(da, daddr);
		f = flow_lookup(&core, ga, sport, da, dport);
	}
	/* seq/ack: the flow's expected values unless the input says */
	seq = (ss & 1) || !f ? fz_u32() : f->rcv_nxt;
	ack = (ss & 2) || !f ? fz_u32() : f->snd_nxt;
	if (f && (ss & 4))
		ack = f->snd_una;
	if (f && (ss & 8))
		seq += (uint32_t)(int8_t)fz_u8();

	wr16(p, sport);
	wr16(p + 2, dport);
	wr32(p + 4, seq);
	wr32(p + 8, ack);
	p[13] = fs < 0xc0 ? flag_tab[fs % 8] : (fs & 0x3f);
	wr16(p + 14, fz_u16());
	p[16] = p[17] = 0;
	wr16(p + 18, (ss & 0x10) ? fz_u16() : 0);
	optlen = (ss & 0x20) ? tcp_options(p + TCP_HLEN) : 0;
	p[12] = (uint8_t)(((TCP_HLEN + optlen) / 4) << 4);
	if (dm & 1) /* data offset wrong on purpose */
		p[12] = (uint8_t)(dm & 0xf0);
	plen = (ss & 0x40) ? fz_u16() : fz_u8();
	if (!(ss & 0x80))
		plen %= 64;
	plen = (uint16_t)MIN(plen, room - TCP_HLEN - optlen);
	for (i = 0; i < plen; i++)
		p[TCP_HLEN + optlen + i] = (uint8_t)(i * 7 + 1);
	return TCP_HLEN + optlen + plen;
}

/**
 * build_icmp() - an ICMP message
 * @p:		where
 * @room:	bytes available
 *
 * Return: bytes written
 */
static size_t build_icmp(uint8_t *p, size_t room)
{
	static const uint8_t type_tab[4] = { 8, 0, 3, 13 };
	uint8_t ts = fz_u8();
	uint16_t plen = (ts & 0x80) ? fz_u16() : fz_u8() % 64;
	size_t len, i;

	p[0] = (ts & 0x40) ? fz_u8() : type_tab[ts & 3];
	p[1] = (ts & 0x20) ? fz_u8() : 0;
	p[2] = p[3] = 0;
	wr32(p + 4, fz_u32());
	len = MIN((size_t)8 + plen, room);
	if (ts & 0x10)
		len = fz_u8() % 8; /* too short */
	for (i = 8; i < len; i++)
		p[i] = (uint8_t)i;
	if (len >= 8)
		wr16(p + 2, (uint16_t)~csum_fold(csum_partial(p, len, 0)));
	return len;
}

/**
 * build_ip4() - an IPv4 packet with a transport chosen by @kind
 * @p:		where
 * @room:	bytes available
 * @kind:	0 TCP, 1 ICMP, 2 another protocol
 * @mut:	mutate the header (options, length, fragments, version)
 *
 * Return: bytes written (what the header's length field says may differ)
 */
static size_t build_ip4(uint8_t *p, size_t room, unsigned kind, bool mut)
{
	uint8_t m = mut ? fz_u8() : 0, ds = fz_u8();
	uint32_t saddr = GUEST4, daddr = pick_dst(ds);
	size_t ihl = IP4_HLEN + (size_t)(m & 7) * 4, l4len, tot, i;

	p[0] = (uint8_t)(0x40 | (ihl / 4));
	p[1] = 0;
	wr16(p + 4, fz_u16());
	switch ((m >> 5) & 3) {
	case 0:
		wr16(p + 6, 0x4000);
		break;
	case 1:
		wr16(p + 6, 0);
		break;
	case 2:
		wr16(p + 6, 0x2000); /* MF */
		break;
	default:
		wr16(p + 6, fz_u16());
	}
	p[8] = 64;
	if (ds & 0x80 && mut)
		saddr = fz_u32();
	memcpy(p + 12, &saddr, 4);
	memcpy(p + 16, &daddr, 4);
	for (i = IP4_HLEN; i < ihl; i++)
		p[i] = 1; /* NOP options */
	switch (kind) {
	case 0:
		p[9] = IPPROTO_TCP_;
		l4len = build_tcp(p + ihl, room - ihl, daddr);
		break;
	case 1:
		p[9] = IPPROTO_ICMP_;
		l4len = build_icmp(p + ihl, room - ihl);
		break;
	default:
		p[9] = fz_u8();
		l4len = fz_u8();
		memset(p + ihl, 0, l4len);
	}
	tot = ihl + l4len;
	switch ((m >> 3) & 3) {
	case 0:
		wr16(p + 2, (uint16_t)tot);
		break;
	case 1:
		wr16(p + 2, (uint16_t)(tot - fz_u8()));
		break;
	case 2:
		wr16(p + 2, (uint16_t)(tot + fz_u8()));
		break;
	default:
		wr16(p + 2, fz_u16());
	}
	if (m & 0x80)
		p[0] = fz_u8();
	p[10] = p[11] = 0;
	wr16(p + 10, (uint16_t)~csum_fold(csum_partial(p, IP4_HLEN, 0)));
	return tot;
}

/**
 * build_arp() - an ARP packet
 * @p:	where (room for 28 bytes)
 *
 * Return: bytes written
 */
static size_t build_arp(uint8_t *p)
{
	uint8_t s = fz_u8();
	uint32_t spa = GUEST4, tpa;

	wr16(p, (s & 1) ? fz_u16() : 1);
	wr16(p + 2, (s & 2) ? fz_u16() : ETHERTYPE_IP4);
	p[4] = (s & 4) ? fz_u8() : 6;
	p[5] = (s & 4) ? fz_u8() : 4;
	switch ((s >> 3) & 3) {
	case 0:
		wr16(p + 6, 1);
		break;
	case 1:
		wr16(p + 6, 2);
		break;
	case 2:
		wr16(p + 6, 3);
		break;
	default:
		wr16(p + 6, fz_u16());
	}
	memcpy(p + 8, guest_mac, 6);
	memcpy(p + 14, &spa, 4);
	memset(p + 18, 0, 6);
	switch (s >> 6) {
	case 0:
		tpa = GW4;
		break;
	case 1:
		tpa = GUEST4; /* duplicate address probe */
		break;
	case 2:
		tpa = spa; /* gratuitous */
		break;
	default:
		tpa = fz_u32();
	}
	memcpy(p + 24, &tpa, 4);
	if (s & 0x20)
		return fz_u8() % 28; /* cut short */
	return 28;
}

/* one frame: build it, input it, carry out the intents */
static void one_frame(void)
{
	static const uint8_t gso_tab[8] = { 0, 1, 3, 4, 0x81, 2, 5, 0xff };
	uint8_t ctl = fz_u8(), *eth, *b;
	size_t hl = core.conf.vnet_hdr_len, len, l3len = 0;
	unsigned kind = ctl & 3, sub = (ctl >> 2) & 3;
	struct pkt_view v = { 0 };
	uint16_t type;

	if (kind == 3 && sub == 3) {
		/* a time step instead of a frame */
		uint64_t next;
		unsigned k;

		now += (uint64_t)fz_u16() * 1000000ULL;
		for (k = 0;; k++) {
			FZ_CHECK(k < 1000);
			next = core_timer(&core, now, &fx);
			drain(NULL, 0);
			if (next > now)
				break;
			flush_frames();
		}
		return;
	}

	memset(fb, 0, hl);
	if (hl && (ctl & 0x10)) {
		fb[0] = fz_u8();
		fb[1] = gso_tab[fz_u8() % 8];
		wr16(fb + 2, fz_u16());
		wr16(fb + 4, fz_u16());
		wr16(fb + 6, fz_u16());
		wr16(fb + 8, fz_u16());
	}
	eth = fb + hl;
	memcpy(eth, our_mac, 6);
	memcpy(eth + 6, guest_mac, 6);
	if (ctl & 0x20) {
		uint8_t ds = fz_u8();
		static const uint8_t bcast[6] = { 0xff, 0xff, 0xff,
						  0xff, 0xff, 0xff };
		static const uint8_t mcast[6] = { 0x33, 0x33, 0, 0, 0, 1 };
		unsigned i;

		switch (ds & 3) {
		case 1:
			memcpy(eth, bcast, 6);
			break;
		case 2:
			memcpy(eth, mcast, 6);
			break;
		case 3:
			for (i = 0; i < 6; i++)
				eth[i] = fz_u8();
			break;
		default:
			break;
		}
		switch ((ds >> 2) & 3) {
		case 1:
			for (i = 6; i < 12; i++)
				eth[i] = fz_u8();
			break;
		case 2:
			eth[6] |= 1; /* multicast source: not learned */
			break;
		case 3:
			memset(eth + 6, 0, 6);
			break;
		default:
			break;
		}
	}

	switch (kind) {
	case 0:
	case 1:
		type = ETHERTYPE_IP4;
		l3len = build_ip4(eth + ETH_HLEN,
				  FRAME_CAP - hl - ETH_HLEN - 64, kind,
				  ctl & 0x40);
		break;
	case 2:
		type = ETHERTYPE_ARP;
		l3len = build_arp(eth + ETH_HLEN);
		break;
	default:
		if (sub == 0) {
			type = ETHERTYPE_IP4;
			l3len = build_ip4(eth + ETH_HLEN, 4096, 2, ctl & 0x40);
		} else if (sub == 1) {
			type = ETHERTYPE_IP6;
			l3len = fz_u8();
			memset(eth + ETH_HLEN, 0x60, l3len);
		} else {
			type = fz_u16();
			l3len = fz_u8();
			memset(eth + ETH_HLEN, 0, l3len);
		}
	}
	wr16(eth + 12, type);
	len = hl + ETH_HLEN + l3len;
	if (ctl & 0x80) {
		size_t pad = fz_u8() % 64;

		memset(fb + len, 0, pad); /* Ethernet padding */
		len += pad;
	}
	if (ctl & 0x80 && ctl & 0x08)
		len = MIN(len, (size_t)fz_u8()); /* truncated on the way */

	/* exact-size copy: reads past the frame are caught */
	b = fz_dup(fb, len);
	v.p = b;
	v.len = len;
	core_input(&core, v, now, &fx);
	drain(b, len);
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t mtu_tab[4] = { 65520, 1500, 576, 9000 };
	static const unsigned vnet_tab[4] = { 0, 10, 12, 12 };
	struct core_conf cc;
	uint32_t i, active = 0;
	unsigned nf = 0;
	uint8_t b0;

	if (!slots)
		slots = fz_alloc((size_t)NSLOTS * SLOT_CAP);
	fz_in_set(data, size);
	b0 = fz_u8();
	core_conf_default(&cc); /* our_mac, 10.0.2.15/24 via .2 */
	memcpy(cc.guest_mac, guest_mac, 6);
	cc.vnet_hdr_len = vnet_tab[b0 & 3];
	cc.csum_offload = cc.vnet_hdr_len && !(b0 & 4);
	cc.map_gw_to_loopback = !(b0 & 8);
	cc.mtu = mtu_tab[(b0 >> 4) & 3];
	cc.ws_shift = 7;
	cc.max_flows = MAX_FLOWS;
	fz_core_init(&core, &cc, core_mem, sizeof(core_mem), ctr, key);
	fz_fx_init(&fx, slots, cc.vnet_hdr_len + ETH_HLEN + cc.mtu, NSLOTS,
		   frame_len);
	checked = 0;
	now = 1000 * SEC;

	while (fz_in_left() && nf++ < MAX_FRAMES)
		one_frame();
	core_flush(&core, now, &fx);
	fz_check_frames(&core, &fx, checked);
	FZ_CHECK(fx.nintents == 0);

	for (i = 0; i < MAX_FLOWS; i++)
		if (core.flows[i].state != TCPS_FREE)
			active++;
	FZ_CHECK(ctr[CTR_TCP_FLOWS_ACTIVE] == active);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_core_stateful.c - a whole core driven by a script: frames, host
 * callbacks and time, with invariants checked after every step
 *
 * The harness plays both the guest and the host layer. The guest side
 * sends well-formed TCP segments for a few fixed tuples with sequence and
 * acknowledgement numbers picked relative to the flow's state (so the state
 * machine gets deep), or raw bytes. The host side carries out intents the
 * way shard/loop.c and shard/sock_tcp.c do, with results the input picks, and
 * models each host socket: fd numbers are handed out lowest first (as the
 * kernel does), the peer's byte stream is a counter, and peeks see what a
 * socket with SO_PEEK_OFF would return.
 *
 * Input layout: three configuration bytes, then operations until the input
 * runs out. The top two bits of the third byte pick the tuples' families:
 * 0 all IPv4 (IPv6 off, as before IPv6 existed), 1 all IPv6, 2 and 3 a
 * mix (tuples 1 and 3, or 0 and 2, IPv6), both in one flow table; at an
 * MTU below 1280 IPv6 stays off; every operation reads its own arguments, and carrying out an
 * intent may read one more byte (its result). Missing bytes read as 0,
 * which always means the plain, successful choice.
 *
 * Checked after every step (abort on violation):
 * - each flow in use: snd_una <= snd_nxt <= snd_max; it is found by its
 *   tuple; it has a socket the harness gave it and that is still open; its
 *   deadline is not earlier than core.next_deadline_ns; a handshake state
 *   or unacknowledged data has a deadline; when established, snd_una is
 *   exactly the bytes consumed from the socket (plus our FIN once acked)
 * - the free list holds exactly the free flows; TCP_FLOWS_ACTIVE counts
 *   the flows in use; TCP_ACKED_BYTES equals the sum of FX_SOCK_CONSUME
 * - intents: CLOSE/RESET name an open socket of that very flow (so each
 *   socket is closed exactly once); CONSUME, REWIND and SHUT_WR, which the
 *   host carries out on the socket they name even after the flow ended in
 *   the same call, name an open socket of that flow; CONSUME never exceeds
 *   what was sent; SEND points into the current input frame, at the byte
 *   rcv_nxt names, and never follows SHUT_WR; SHUT_WR comes once and after
 *   the guest's FIN; peeks never start beyond the data in the socket
 * - every queued frame: fz_check_frames(); data frames carry the sequence
 *   number of their stream offset
 * - the state table in tcp.h (tcp_flows_check(): legal flags per state,
 *   the ack list, the ooo store)
 * - at the end, after every socket failed: no flow, no open socket.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/core.h"
#include "core/csum.h"
#include "core/tcp.h"

#include "fuzz_common.h"

#define MAX_FLOWS_CAP 16
#define NSLOTS_CAP 64
#define SLOT_CAP (VNET_HDR_MAX_LEN + ETH_HLEN + 65520)
#define NFDS 40
#define FD_BASE 10
#define NTUPLES 4
#define MAX_OPS 2000
#define MS 1000000ULL
#define SEC 1000000000ULL
#define NOW_MAX (1ULL << 62)
#define NO_FLUSH 1000

#define TH_FIN 0x01
#define TH_SYN 0x02
#define TH_RST 0x04
#define TH_PSH 0x08
#define TH_ACK 0x10

/**
 * struct hsock - the harness's model of one host socket
 * @open:	handed out and not closed yet
 * @connecting:	non-blocking connect in progress
 * @eof:	the peer closed: no more data after @avail
 * @shut_wr:	FX_SOCK_SHUT_WR was carried out
 * @flow:	flow the socket belongs to
 * @avail:	bytes the peer has written so far (stream length)
 * @consumed:	bytes discarded on FX_SOCK_CONSUME
 * @sent_hi:	highest stream offset peeked into a frame
 * @space:	free send space reported to the core
 */
struct hsock {
	bool open, connecting, eof, shut_wr;
	uint32_t flow;
	uint32_t avail, consumed, sent_hi;
	uint32_t space;
};

static struct {
	struct core c;
	uint64_t ctr[CTR_NUM];
	struct fx fx;
	uint32_t frame_len[NSLOTS_CAP];
	unsigned checked;   /* frames already checked */
	unsigned low_water; /* flush when this close to full */
	uint64_t now;
	uint64_t consume_sum;
	struct hsock fds[NFDS];
	uint32_t txq[4 * MAX_FLOWS_CAP];
	unsigned ntxq;
	bool tx_pending[MAX_FLOWS_CAP];
	const uint8_t *frame; /* the frame being input, if any */
	size_t frame_size;
	bool structured; /* its payload follows pat_guest() */
	uint32_t guest_iss[NTUPLES];
	bool v6[NTUPLES]; /* the tuple is an IPv6 one */
} H;

/* flows, and OOO_SLOTS held segments of TCP_OOO_SLOT bytes */
#define OOO_SLOTS 4
static _Alignas(64) uint8_t core_mem[8192 + OOO_SLOTS * (TCP_OOO_SLOT + 64)];
static uint8_t *slots;

static const uint8_t our_mac[6] = { 0x52, 0x56, 0x00, 0x00, 0x00, 0x02 };
static const uint8_t guest_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const uint8_t key[16] = "slipway-fuzz-key";
#define GUEST4 0x0f02000aU /* 10.0.2.15 (network order in memory) */
#define GW4 0x0202000aU	   /* 10.0.2.2 */
#define PFX6 0xfd, 0x00, 0x05, 0xee, 0x00, 0x0d, 0x00, 0x00
static const uint8_t guest6[16] = { PFX6, [15] = 0x15 };
static const uint8_t gw6[16] = { PFX6, [15] = 0x02 };
static const uint8_t gw6_ll[16] = { 0xfe, 0x80, [15] = 0x01 };

/* the tuples segments and accepted connections use */
static const uint16_t t_gport[NTUPLES] = { 40000, 40001, 22, 40003 };
static const uint32_t t_raddr[NTUPLES] = {
	0x22d8b85dU, /* 93.184.216.34 */
	GW4,	     /* the gateway: mapped to host loopback */
	GW4,	     /* a published port's loopback peer */
	0x04030201U, /* 1.2.3.4 */
};
static const uint16_t t_rport[NTUPLES] = { 80, 8080, 50000, 443 };
/* their IPv6 twins: an outside address, the gateway's two addresses (both
 * mapped to ::1; ::1 peers of published ports appear as the ULA one), and
 * another outside address */
static const uint8_t t_raddr6[NTUPLES][16] = {
	{ 0x20, 0x01, 0x0d, 0xb8, [15] = 0x34 },
	{ 0xfe, 0x80, [15] = 0x01 },
	{ PFX6, [15] = 0x02 },
	{ 0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 2, 0, 3, 0, 4, [15] = 0x05 },
};

/* tuple_gaddr() / tuple_raddr() - a tuple's addresses, as the core keys them */
static const uint8_t *tuple_gaddr(unsigned t, uint8_t *buf)
{
	if (H.v6[t])
		return guest6;
	addr_from4(buf, GUEST4);
	return buf;
}

static const uint8_t *tuple_raddr(unsigned t, uint8_t *buf)
{
	if (H.v6[t])
		return t_raddr6[t];
	addr_from4(buf, t_raddr[t]);
	return buf;
}

/* the IP header length of a flow's frames */
static size_t flow_iphlen(const struct tcp_flow *f)
{
	return tcp_flow_v6(f) ? IP6_HLEN : IP4_HLEN;
}

/* --- input --- */

/* payload byte at guest sequence @seq, and at host stream offset @off */
static uint8_t pat_guest(uint32_t seq)
{
	return (uint8_t)((seq * 0x9e3779b1U) >> 24);
}

static uint8_t pat_host(uint32_t off)
{
	return (uint8_t)(off * 131U + 7U);
}

/* --- host model --- */

static struct hsock *fd_get(int32_t fd)
{
	if (fd < FD_BASE || fd >= FD_BASE + NFDS)
		return NULL;
	return &H.fds[fd - FD_BASE];
}

/**
 * fd_alloc() - a new socket, lowest free number first
 * @flow:	flow it is for
 *
 * Return: the fd, or -1 if all are in use (EMFILE)
 */
static int32_t fd_alloc(uint32_t flow)
{
	int i;

	for (i = 0; i < NFDS; i++) {
		struct hsock *hs = &H.fds[i];

		if (hs->open)
			continue;
		memset(hs, 0, sizeof(*hs));
		hs->open = true;
		hs->flow = flow;
		hs->space = 65536;
		return FD_BASE + i;
	}
	return -1;
}

static void flush_frames(void)
{
	H.fx.nframes = 0;
	H.checked = 0;
}

static void check_new_frames(void)
{
	fz_check_frames(&H.c, &H.fx, H.checked);
	H.checked = H.fx.nframes;
}

/* like shard_room(): keep a few slots free (NO_FLUSH: only when asked, so
 * that the core also meets a full batch) */
static void maybe_flush(void)
{
	check_new_frames();
	if (H.low_water != NO_FLUSH &&
	    H.fx.nframes + H.low_water >= H.fx.nslots)
		flush_frames();
}

static void tx_wanted(uint32_t idx)
{
	if (H.tx_pending[idx])
		return;
	FZ_CHECK(H.ntxq < ARRAY_SIZE(H.txq));
	H.tx_pending[idx] = true;
	H.txq[H.ntxq++] = idx;
}

/* like sock_space_update() */
static void space_update(struct tcp_flow *f)
{
	struct hsock *hs = fd_get(f->sock);
	unsigned n = H.fx.nintents;

	FZ_CHECK(hs && hs->open);
	tcp_set_host_space(&H.c, f, hs->space);
	FZ_CHECK(H.fx.nintents == n);
}

static void drain(void);

/**
 * do_connect() - carry out FX_SOCK_CONNECT like sock_connect()
 * @f:	flow
 */
static void do_connect(struct tcp_flow *f)
{
	static const int errs[] = { 0,		 0,	      0,
				    -1,		 ECONNRESET,  ECONNREFUSED,
				    ENETUNREACH, EHOSTUNREACH };
	uint32_t idx = tcp_flow_idx(&H.c, f);
	uint8_t d = fz_u8() % 8;
	int32_t fd;

	FZ_CHECK(f->state == TCPS_HOST_CONNECTING);
	if (d == 4 || (fd = fd_alloc(idx)) < 0) {
		/* socket() failed */
		tcp_on_sock_connected(&H.c, f, ECONNRESET, H.now, &H.fx);
		return;
	}
	f->sock = fd;
	if (errs[d] < 0) {
		fd_get(fd)->connecting = true; /* EINPROGRESS */
		return;
	}
	if (!errs[d])
		space_update(f);
	tcp_on_sock_connected(&H.c, f, errs[d], H.now, &H.fx);
}

/**
 * do_send() - carry out FX_SOCK_SEND with a result the input picks
 * @f:	flow
 * @hs:	its socket
 * @it:	the intent
 */
static void do_send(struct tcp_flow *f, struct hsock *hs,
		    const struct fx_intent *it)
{
	bool held = it->data >= H.c.ooo_data &&
		    it->data < H.c.ooo_data + (size_t)OOO_SLOTS * TCP_OOO_SLOT;
	uint32_t idx = it->flow, i;
	uint8_t d = fz_u8();
	long n;

	FZ_CHECK(!hs->shut_wr);
	FZ_CHECK(!(f->flags & TCPF_GUEST_FIN));
	FZ_CHECK(it->len > 0 && it->data);

	if (held) {
		/* a held segment whose gap was filled: inside its slot */
		size_t off = (size_t)(it->data - H.c.ooo_data) % TCP_OOO_SLOT;

		FZ_CHECK(off + it->len <= TCP_OOO_SLOT);
	} else {
		FZ_CHECK(H.frame && it->data >= H.frame &&
			 it->data + it->len <= H.frame + H.frame_size);
	}
	if (H.structured && !held) /* a held one may be from any frame */
		for (i = 0; i < it->len; i++)
			FZ_CHECK(it->data[i] == pat_guest(f->rcv_nxt + i));

	switch (d & 7) {
	case 2:
		n = (long)(fz_u16() % (it->len + 1));
		break;
	case 3:
		n = 0;
		break;
	case 4:
		n = -EAGAIN;
		break;
	case 5:
		n = -EPIPE;
		break;
	case 6:
		n = -ECONNRESET;
		break;
	case 7:
		n = it->len / 2;
		break;
	default:
		n = it->len;
	}
	tcp_on_sock_sent(&H.c, f, n, it, H.now, &H.fx);
	if (n < 0 && n != -EAGAIN) {
		FZ_CHECK(tcp_flow_get(&H.c, idx) != f || f->sock != it->sock);
		return;
	}
	if (tcp_flow_get(&H.c, idx) == f) {
		if (d >> 3)
			hs->space = (d >> 3) == 31 ? 0 :
						     (uint32_t)(d >> 3) << 11;
		space_update(f);
	}
}

/**
 * do_intent() - carry out one intent like sock_tcp_intent()
 * @it:	the intent (a copy)
 */
static void do_intent(const struct fx_intent *it)
{
	struct tcp_flow *f;
	struct hsock *hs;

	FZ_CHECK(it->type < FX_INTENT_NUM);
	FZ_CHECK(it->flow < H.c.conf.max_flows);
	switch (it->type) {
	case FX_SOCK_CLOSE:
	case FX_SOCK_RESET:
		hs = fd_get(it->sock);
		FZ_CHECK(hs && hs->open);
		FZ_CHECK(hs->flow == it->flow);
		f = tcp_flow_get(&H.c, it->flow);
		FZ_CHECK(!f || f->sock != it->sock);
		hs->open = false;
		return;
	case FX_SOCK_CONSUME:
	case FX_SOCK_REWIND:
	case FX_SOCK_SHUT_WR:
		/* socket-only intents act on the socket they carry even if
		 * the flow ended later in the same core call (its CLOSE comes
		 * after them): that socket must still be open, and the
		 * flow's */
		if (it->type == FX_SOCK_CONSUME)
			H.consume_sum += it->len;
		hs = fd_get(it->sock);
		FZ_CHECK(hs && hs->open && hs->flow == it->flow);
		f = tcp_flow_get(&H.c, it->flow);
		if (f && f->sock != it->sock)
			f = NULL;
		if (it->type == FX_SOCK_CONSUME) {
			/* only bytes that went to the guest can be acked */
			FZ_CHECK(it->len > 0);
			FZ_CHECK(it->len <= hs->sent_hi - hs->consumed);
			hs->consumed += it->len;
		} else if (it->type == FX_SOCK_SHUT_WR) {
			FZ_CHECK(!hs->shut_wr);
			FZ_CHECK(!f || (f->flags & TCPF_GUEST_FIN));
			hs->shut_wr = true;
		}
		/* REWIND: the model peeks at tcp_tx_room()'s offset */
		return;
	default:
		break;
	}

	f = tcp_flow_get(&H.c, it->flow);
	if (!f || f->sock != it->sock)
		return; /* stale: the flow ended since */
	if (it->type == FX_SOCK_CONNECT) {
		FZ_CHECK(it->sock == -1);
		do_connect(f);
		return;
	}
	hs = fd_get(f->sock);
	FZ_CHECK(hs && hs->open && hs->flow == it->flow);
	switch (it->type) {
	case FX_SOCK_SEND:
		do_send(f, hs, it);
		break;
	case FX_TX_WANTED:
		tx_wanted(it->flow);
		break;
	default:
		FZ_CHECK(!"unknown intent");
	}
}

/* like shard_drain(): intents may queue more intents, in rounds */
static void drain(void)
{
	unsigned i, n;

	check_new_frames();
	while ((n = H.fx.nintents)) {
		struct fx_intent round[FX_MAX_INTENTS];

		memcpy(round, H.fx.intents, n * sizeof(round[0]));
		H.fx.nintents = 0;
		for (i = 0; i < n; i++) {
			do_intent(&round[i]);
			maybe_flush();
		}
	}
}

/**
 * tx_flow() - peek what a flow may send, like sock_tcp_tx_flow()
 * @f:		flow with a socket
 * @lim:	bit 15 set: peeks return at most the low bits (at least 1)
 *		bytes; 0xffff: the peek fails
 */
static void tx_flow(struct tcp_flow *f, uint16_t lim)
{
	struct hsock *hs = fd_get(f->sock);
	uint32_t off, mss, room, have;

	FZ_CHECK(hs && hs->open);
	room = tcp_tx_room(&H.c, f, H.now, &off, &mss);
	FZ_CHECK(off == f->snd_nxt - f->snd_una);
	if (room)
		FZ_CHECK(f->state == TCPS_ESTABLISHED);
	if (room && lim == 0xffff) {
		tcp_on_sock_error(&H.c, f, &H.fx);
		drain();
		return;
	}
	while (room) {
		uint32_t want = MIN(room, mss), n, i, seq = f->snd_nxt;
		uint8_t *slot = fx_slot_next(&H.fx), *th;
		unsigned fi;

		if (!slot) {
			flush_frames();
			continue;
		}
		have = hs->avail - hs->consumed;
		/* the core never asks beyond what the socket holds */
		FZ_CHECK(off <= have);
		n = MIN(want, have - off);
		if (n && (lim & 0x8000))
			n = MAX(1U, MIN(n, lim & 0x7fffU));
		if (!n) {
			if (hs->eof)
				tcp_on_sock_eof(&H.c, f, H.now, &H.fx);
			break; /* EAGAIN or end of stream */
		}
		FZ_CHECK(tcp_payload_off(&H.c, f) + n <= H.fx.slot_size);
		for (i = 0; i < n; i++)
			slot[tcp_payload_off(&H.c, f) + i] = pat_host(
				hs->consumed + off + i);
		fi = H.fx.nframes;
		tcp_build_data(&H.c, f, &H.fx, n, H.now);
		FZ_CHECK(H.fx.nframes == fi + 1);
		th = slot + core_l3_off(&H.c) + flow_iphlen(f);
		FZ_CHECK(rd32(th + 4) == seq);
		FZ_CHECK(seq == f->snd_una + off);
		if (SEQ_GT(hs->consumed + off + n, hs->sent_hi))
			hs->sent_hi = hs->consumed + off + n;
		check_new_frames();
		room -= n;
		off += n;
		if (n < want)
			break;
	}
	drain();
}

/* like sock_tcp_tx_pending() */
static void tx_pending(void)
{
	unsigned i;

	for (i = 0; i < H.ntxq; i++) {
		uint32_t idx = H.txq[i];
		struct tcp_flow *f;

		H.tx_pending[idx] = false;
		f = tcp_flow_get(&H.c, idx);
		if (!f || f->sock < 0 || fd_get(f->sock)->connecting)
			continue;
		tx_flow(f, 0);
		maybe_flush();
	}
	H.ntxq = 0;
}

/* like shard_end_of_batch() */
static void end_of_batch(void)
{
	unsigned k;

	tx_pending();
	for (k = 0;; k++) {
		FZ_CHECK(k < 1000);
		core_flush(&H.c, H.now, &H.fx);
		check_new_frames();
		if (!H.c.nacks)
			break;
		flush_frames();
	}
	drain();
	flush_frames();
}

/* like shard_timer() */
static void run_timers(void)
{
	unsigned k;

	for (k = 0;; k++) {
		uint64_t next;

		FZ_CHECK(k < 1000);
		next = core_timer(&H.c, H.now, &H.fx);
		drain();
		if (next > H.now) {
			FZ_CHECK(next == H.c.next_deadline_ns);
			break;
		}
		flush_frames();
	}
}

/* --- guest side --- */

/**
 * guest_input() - hand a frame to the core and carry out what follows
 * @buf:	frame (allocated to its exact size; freed here)
 * @len:	its length
 * @structured:	the payload follows pat_guest()
 */
static void guest_input(uint8_t *buf, size_t len, bool structured)
{
	struct pkt_view v = { .p = buf, .len = len };
	size_t split = pkt_payload_off(buf, len, H.c.conf.vnet_hdr_len);

	/* as the vhost-user edge hands on a TCP segment: headers in one
	 * place, the payload a loan elsewhere (here: the same buffer) */
	if (split && split < len && (len & 1)) {
		v.len = split;
		v.tail = buf + split;
		v.tail_len = len - split;
	}
	maybe_flush();
	H.frame = buf;
	H.frame_size = len;
	H.structured = structured;
	core_input(&H.c, v, H.now, &H.fx);
	drain();
	H.frame = NULL;
	free(buf);
}

/**
 * build_ip_tcp() - allocate a frame with headers for tuple @t
 * @t:		tuple
 * @l4len:	bytes of TCP header, options and payload to follow
 * @l4:		out: where they go
 * @flen:	out: frame length
 *
 * Return: the frame (vnet header zero), of exactly the needed size
 */
static uint8_t *build_ip_tcp(unsigned t, size_t l4len, uint8_t **l4,
			     size_t *flen)
{
	size_t hl = H.c.conf.vnet_hdr_len;
	size_t iphlen = H.v6[t] ? IP6_HLEN : IP4_HLEN;
	uint8_t *b, *ip, ga[16], ra[16];

	*flen = hl + ETH_HLEN + iphlen + l4len;
	b = calloc(1, *flen);
	if (!b)
		abort();
	memcpy(b + hl, our_mac, 6);
	memcpy(b + hl + 6, guest_mac, 6);
	ip = b + hl + ETH_HLEN;
	if (H.v6[t]) {
		wr16(b + hl + 12, ETHERTYPE_IP6);
		ip6_build_hdr(ip, IPPROTO_TCP_, tuple_gaddr(t, ga),
			      tuple_raddr(t, ra), l4len, 64);
	} else {
		wr16(b + hl + 12, ETHERTYPE_IP4);
		ip[0] = 0x45;
		wr16(ip + 2, (uint16_t)(IP4_HLEN + l4len));
		wr16(ip + 6, 0x4000);
		ip[8] = 64;
		ip[9] = IPPROTO_TCP_;
		wr32(ip + 12, __builtin_bswap32(GUEST4));
		wr32(ip + 16, __builtin_bswap32(t_raddr[t]));
		wr16(ip + 10,
		     (uint16_t)~csum_fold(csum_partial(ip, IP4_HLEN, 0)));
	}
	*l4 = ip + iphlen;
	return b;
}

static struct tcp_flow *tuple_flow(unsigned t)
{
	uint8_t ga[16], ra[16];

	return flow_lookup(&H.c, tuple_gaddr(t, ga), t_gport[t],
			   tuple_raddr(t, ra), t_rport[t]);
}

/* a well-formed segment for one of the tuples */
static void op_segment(void)
{
	static const uint8_t flag_tab[12] = {
		TH_ACK,
		TH_ACK | TH_PSH,
		TH_SYN,
		TH_FIN | TH_ACK,
		TH_SYN | TH_ACK,
		TH_RST,
		TH_RST | TH_ACK,
		TH_ACK,
		TH_FIN | TH_PSH | TH_ACK,
		TH_ACK | TH_PSH,
		0,
		TH_FIN,
	};
	static const uint16_t mss_tab[8] = { 1460, 536, 1,    65535,
					     0,	   64,	8960, 100 };
	unsigned t = fz_u8() % NTUPLES;
	uint8_t fsel = fz_u8(), ssel = fz_u8(), asel = fz_u8(), osel = fz_u8();
	uint16_t wnd = fz_u16(), psel = fz_u16();
	uint32_t d = fz_u8(), seq, ack = 0, len, i;
	struct tcp_flow *f = tuple_flow(t);
	uint8_t flags, opts[40], *b, *th;
	size_t optlen = 0, flen, maxlen;

	flags = fsel < 0xc0 ? flag_tab[fsel % 12] : (fsel & 0x3f);
	if (osel & 1) {
		opts[optlen++] = 2;
		opts[optlen++] = 4;
		wr16(opts + optlen, mss_tab[(osel >> 1) & 7]);
		optlen += 2;
	}
	if (osel & 0x10) {
		opts[optlen++] = 1;
		opts[optlen++] = 3;
		opts[optlen++] = 3;
		opts[optlen++] = (uint8_t)(((osel >> 5) & 7) * 2 + 1);
	}
	if ((osel & 0x0e) == 0x0e) {
		/* raw option bytes */
		uint8_t k = fz_u8() % 16;

		for (i = 0; i < k && optlen < sizeof(opts); i++)
			opts[optlen++] = fz_u8();
	}
	while (optlen % 4)
		opts[optlen++] = 0;

	len = (psel & 0x8000) ? (psel & 0x7fffU) : psel % 200U;
	maxlen = H.c.conf.mtu - (H.v6[t] ? IP6_HLEN : IP4_HLEN) - TCP_HLEN -
		 optlen;
	len = (uint32_t)MIN(len, maxlen);

	if (f) {
		switch (ssel & 7) {
		case 0:
			seq = f->rcv_nxt;
			break;
		case 1:
			seq = f->rcv_nxt - d;
			break;
		case 2:
			seq = f->rcv_nxt + d;
			break;
		case 3:
			seq = f->adv_wnd_end;
			break;
		case 4:
			seq = f->rcv_nxt - 1;
			break;
		case 5:
			seq = fz_u32();
			break;
		case 6:
			seq = f->rcv_nxt + (d << 12);
			break;
		default:
			/* overlap: part old, part new */
			seq = f->rcv_nxt - (len ? d % len : 0);
		}
		switch (asel & 7) {
		case 0:
			ack = f->snd_nxt;
			break;
		case 1:
			ack = f->snd_una;
			break;
		case 2:
			ack = f->snd_max;
			break;
		case 3:
			ack = f->snd_una + d;
			break;
		case 4:
			ack = f->snd_max + 1 + d;
			break;
		case 5:
			ack = f->iss + 1;
			break;
		case 6:
			ack = fz_u32();
			break;
		default:
			ack = f->snd_una - 1 - d;
		}
	} else {
		seq = H.guest_iss[t] + ((ssel & 1) ? d : 0);
		if (flags & TH_SYN)
			H.guest_iss[t] += 0x10000;
		if (asel & 1)
			ack = fz_u32();
	}

	b = build_ip_tcp(t, TCP_HLEN + optlen + len, &th, &flen);
	wr16(th, t_gport[t]);
	wr16(th + 2, t_rport[t]);
	wr32(th + 4, seq);
	wr32(th + 8, ack);
	th[12] = (uint8_t)(((TCP_HLEN + optlen) / 4) << 4);
	th[13] = flags;
	wr16(th + 14, wnd);
	memcpy(th + TCP_HLEN, opts, optlen);
	for (i = 0; i < len; i++)
		th[TCP_HLEN + optlen + i] = pat_guest(seq + i);
	guest_input(b, flen, true);
}

/* raw bytes: a whole frame, or a TCP segment for a tuple */
static void op_raw(void)
{
	uint8_t mode = fz_u8();
	size_t len = fz_u16() % 2048, flen, i;
	unsigned t = (mode >> 2) % NTUPLES;
	uint8_t *b, *th;

	len = MIN(len, fz_in_left());
	if (!(mode & 1)) {
		b = malloc(len ? len : 1);
		if (!b)
			abort();
		for (i = 0; i < len; i++)
			b[i] = fz_u8();
		guest_input(b, len, false);
		return;
	}
	b = build_ip_tcp(t, len, &th, &flen);
	for (i = 0; i < len; i++)
		th[i] = fz_u8();
	if ((mode & 2) && len >= 4) {
		wr16(th, t_gport[t]);
		wr16(th + 2, t_rport[t]);
	}
	guest_input(b, flen, false);
}

/* --- host side operations --- */

/**
 * pick_flow() - a flow in use, chosen by the input
 * @with_sock:	only flows that have a socket
 *
 * Return: the flow, or NULL if there is none
 */
static struct tcp_flow *pick_flow(bool with_sock)
{
	uint32_t idx[MAX_FLOWS_CAP], n = 0, i;
	uint8_t k = fz_u8();

	for (i = 0; i < H.c.conf.max_flows; i++) {
		struct tcp_flow *f = tcp_flow_get(&H.c, i);

		if (f && (!with_sock || f->sock >= 0))
			idx[n++] = i;
	}
	return n ? &H.c.flows[idx[k % n]] : NULL;
}

static void op_time(void)
{
	uint8_t sel = fz_u8();
	uint64_t dt = 0, nd = H.c.next_deadline_ns;

	switch (sel & 7) {
	case 0:
		dt = (uint64_t)(sel >> 3) * MS;
		break;
	case 1:
		dt = (uint64_t)fz_u8() * 10 * MS;
		break;
	case 2:
		dt = (uint64_t)fz_u16() * MS;
		break;
	case 3:
		if (nd != UINT64_MAX && nd > H.now)
			dt = nd - H.now;
		break;
	case 4:
		if (nd != UINT64_MAX && nd > H.now + 1)
			dt = nd - H.now - 1;
		break;
	case 5:
		dt = (uint64_t)fz_u8() * SEC;
		break;
	case 6:
		dt = fz_u32();
		break;
	default:
		dt = (uint64_t)fz_u16() * 100 * MS;
	}
	if (H.now + dt < NOW_MAX)
		H.now += dt;
	run_timers();
}

/* a pending connect finishes (EPOLLOUT or EPOLLERR) */
static void op_connect_done(void)
{
	static const int errs[] = { 0,		 ECONNREFUSED,
				    ETIMEDOUT,	 EHOSTUNREACH,
				    ENETUNREACH, ECONNRESET };
	struct tcp_flow *f = pick_flow(true);
	int err = errs[fz_u8() % ARRAY_SIZE(errs)];
	struct hsock *hs;

	if (!f)
		return;
	hs = fd_get(f->sock);
	FZ_CHECK(hs && hs->open);
	if (!hs->connecting)
		return;
	FZ_CHECK(f->state == TCPS_HOST_CONNECTING);
	hs->connecting = false;
	if (!err)
		space_update(f);
	tcp_on_sock_connected(&H.c, f, err, H.now, &H.fx);
	drain();
}

/* a published port accepts a connection */
static void op_accept(void)
{
	unsigned t = fz_u8() % NTUPLES;
	struct tcp_flow *f;
	int32_t fd = fd_alloc(UINT32_MAX);
	uint8_t ra[16];

	if (fd < 0)
		return;
	f = tcp_host_accepted(&H.c, tuple_raddr(t, ra), t_rport[t], t_gport[t],
			      fd, H.now, &H.fx);
	if (!f) {
		fd_get(fd)->open = false;
		drain();
		return;
	}
	FZ_CHECK(f->sock == fd && f->state == TCPS_SYN_SENT);
	fd_get(fd)->flow = tcp_flow_idx(&H.c, f);
	space_update(f);
	drain();
}

/* the peer writes to a socket: it becomes readable */
static void op_host_data(void)
{
	struct tcp_flow *f = pick_flow(true);
	uint32_t n = fz_u16();
	struct hsock *hs;

	if (!f)
		return;
	hs = fd_get(f->sock);
	if (!hs->eof && hs->avail - hs->consumed < (1U << 30))
		hs->avail += n;
	if (!hs->connecting)
		tx_wanted(tcp_flow_idx(&H.c, f));
}

static void op_tx(void)
{
	struct tcp_flow *f = pick_flow(true);
	uint16_t lim = fz_u16();

	if (!f || fd_get(f->sock)->connecting)
		return;
	tx_flow(f, lim);
}

/* the peer closes its side */
static void op_host_eof(void)
{
	struct tcp_flow *f = pick_flow(true);

	if (!f)
		return;
	fd_get(f->sock)->eof = true;
	if (!fd_get(f->sock)->connecting)
		tx_wanted(tcp_flow_idx(&H.c, f));
}

static void op_sock_error(void)
{
	struct tcp_flow *f = pick_flow(true);

	if (!f)
		return;
	fd_get(f->sock)->connecting = false;
	tcp_on_sock_error(&H.c, f, &H.fx);
	drain();
}

static void op_space(void)
{
	struct tcp_flow *f = pick_flow(true);
	uint16_t v = fz_u16();
	uint8_t sh = fz_u8() & 7;

	if (!f)
		return;
	fd_get(f->sock)->space = (uint32_t)v << sh;
	space_update(f);
}

/* --- invariants --- */

static int verbose = -1;

/* FUZZ_VERBOSE=1: one line per operation, to see what a seed does */
static void trace_op(unsigned op)
{
	uint32_t i;

	if (verbose < 0)
		verbose = getenv("FUZZ_VERBOSE") != NULL;
	if (!verbose)
		return;
	fprintf(stderr, "op %2u now %llu frames %u nacks %u:", op,
		(unsigned long long)H.now, H.fx.nframes, H.c.nacks);
	for (i = 0; i < H.c.conf.max_flows; i++) {
		const struct tcp_flow *f = &H.c.flows[i];

		if (f->state == TCPS_FREE)
			continue;
		fprintf(stderr,
			" [%u %s una+%u nxt+%u max+%u rcv %u wnd %u/%u fl %#x "
			"dl %llu]",
			i, tcp_state_str[f->state], f->snd_una - f->iss,
			f->snd_nxt - f->iss, f->snd_max - f->iss, f->rcv_nxt,
			f->guest_wnd, f->adv_wnd_end - f->rcv_nxt, f->flags,
			(unsigned long long)f->deadline_ns);
	}
	fputc('\n', stderr);
}

static void check_state(void)
{
	struct core *c = &H.c;
	uint32_t i, inuse = 0, nfree = 0, socks = 0;

	FZ_CHECK(H.fx.nintents == 0);
	tcp_flows_check(c);
	FZ_CHECK(c->hiwat <= c->conf.max_flows);
	FZ_CHECK(c->nacks <= c->conf.max_flows);
	for (i = 0; i < c->conf.max_flows; i++) {
		struct tcp_flow *f = &c->flows[i];
		struct hsock *hs;

		if (f->state == TCPS_FREE)
			continue;
		inuse++;
		FZ_CHECK(i < c->hiwat);
		FZ_CHECK(f->state < TCPS_STATE_NUM);
		FZ_CHECK(SEQ_LE(f->snd_una, f->snd_nxt));
		FZ_CHECK(SEQ_LE(f->snd_nxt, f->snd_max));
		FZ_CHECK(f->mss >= 1 &&
			 f->mss <= c->conf.mtu - flow_iphlen(f) - TCP_HLEN);
		FZ_CHECK(flow_lookup(c, f->guest_addr, f->guest_port,
				     f->remote_addr, f->remote_port) == f);
		FZ_CHECK(addr_is4(f->guest_addr) == addr_is4(f->remote_addr));
		FZ_CHECK(!tcp_flow_v6(f) || c->conf.ipv6);
		/* every flow has its socket once intents are carried out */
		hs = fd_get(f->sock);
		FZ_CHECK(hs && hs->open && hs->flow == i);
		if (f->deadline_ns)
			FZ_CHECK(c->next_deadline_ns <= f->deadline_ns);
		if (f->state == TCPS_SYN_SENT || f->state == TCPS_SYNACK_SENT)
			FZ_CHECK(f->deadline_ns);
		if (f->state == TCPS_ESTABLISHED) {
			uint32_t fin = !!(f->flags & TCPF_FIN_ACKED);

			if (f->snd_nxt != f->snd_una)
				FZ_CHECK(f->deadline_ns);
			FZ_CHECK(f->snd_una - (f->iss + 1) ==
				 hs->consumed + fin);
			if (f->flags & TCPF_FIN_SENT)
				FZ_CHECK(f->fin_seq - (f->iss + 1) ==
					 hs->avail);
		}
	}
	for (i = c->free_head; i; i = c->flows[i - 1].next) {
		FZ_CHECK(i <= c->conf.max_flows);
		FZ_CHECK(c->flows[i - 1].state == TCPS_FREE);
		FZ_CHECK(++nfree <= c->conf.max_flows);
	}
	FZ_CHECK(nfree + inuse == c->conf.max_flows);
	FZ_CHECK(H.ctr[CTR_TCP_FLOWS_ACTIVE] == inuse);
	FZ_CHECK(H.ctr[CTR_TCP_ACKED_BYTES] == H.consume_sum);
	for (i = 0; i < NFDS; i++) {
		struct hsock *hs = &H.fds[i];
		struct tcp_flow *f;

		if (!hs->open)
			continue;
		socks++;
		f = tcp_flow_get(c, hs->flow);
		FZ_CHECK(f && f->sock == (int32_t)(FD_BASE + i));
	}
	FZ_CHECK(socks == inuse);
}

/* --- the run --- */

static void setup(void)
{
	static const uint32_t flows_tab[4] = { 4, 2, 8, 16 };
	static const uint32_t mtu_tab[4] = { 65520, 1500, 576, 9000 };
	static const unsigned vnet_tab[4] = { 0, 10, 12, 12 };
	static const unsigned slots_tab[4] = { 16, 4, 8, 64 };
	static const unsigned lw_tab[4] = { 2, 0, NO_FLUSH, 8 };
	static const uint32_t infl_tab[4] = { 0, 4096, 65536, 1 };
	static const uint64_t rto_tab[4] = { 0, MS, 1, SEC };
	static const uint32_t ack_tab[4] = { 0, 2, 1, 3 };
	uint8_t b0 = fz_u8(), b1 = fz_u8(), b2 = fz_u8();
	struct core_conf cc;
	unsigned i;

	memset(&H, 0, sizeof(H));
	core_conf_default(&cc); /* our_mac, 10.0.2.15/24 via .2 */
	memcpy(cc.guest_mac, guest_mac, 6);
	cc.vnet_hdr_len = vnet_tab[b0 & 3];
	cc.csum_offload = cc.vnet_hdr_len && !(b0 & 4);
	cc.map_gw_to_loopback = !(b0 & 8);
	cc.max_flows = flows_tab[(b0 >> 4) & 3];
	cc.mtu = mtu_tab[(b0 >> 6) & 3];
	cc.ws_shift = (uint8_t)(((b1 >> 4) + 9) % 15);
	cc.max_inflight = infl_tab[b2 & 3];
	cc.rto_min_ns = rto_tab[(b2 >> 2) & 3];
	cc.ack_every = ack_tab[(b2 >> 4) & 3];
	cc.ooo_slots = (b1 & 8) ? OOO_SLOTS : 0;

	/* families of the tuples (IPv6 needs an MTU of 1280) */
	for (i = 0; i < NTUPLES; i++) {
		unsigned fam = cc.mtu >= 1280 ? (b2 >> 6) & 3 : 0;

		H.v6[i] = fam == 1 || (fam == 2 && (i & 1)) ||
			  (fam == 3 && !(i & 1));
		cc.ipv6 |= H.v6[i];
	}
	if (cc.ipv6) {
		static const uint8_t pfx[8] = { PFX6 };

		memcpy(cc.prefix6, pfx, 8);
		memcpy(cc.guest6, guest6, 16);
		memcpy(cc.gw6, gw6, 16);
		memcpy(cc.gw6_ll, gw6_ll, 16);
	}

	fz_core_init(&H.c, &cc, core_mem, sizeof(core_mem), H.ctr, key);
	fz_fx_init(&H.fx, slots, cc.vnet_hdr_len + ETH_HLEN + cc.mtu,
		   slots_tab[b1 & 3], H.frame_len);
	H.low_water = lw_tab[(b1 >> 2) & 3];
	if (H.low_water != NO_FLUSH && H.low_water + 1 >= H.fx.nslots)
		H.low_water = H.fx.nslots / 2;
	H.now = 1000 * SEC + ((uint64_t)b2 << 20);
	for (i = 0; i < NTUPLES; i++)
		H.guest_iss[i] = 0x10000000U * (i + 1) + b2;
}

/* FUZZ_VERBOSE=1: print the counters, to see how deep a seed gets */
static void dump_counters(void)
{
#define CTR_NAME(name, desc) #name,
	static const char *const names[CTR_NUM] = { CTR_LIST(CTR_NAME) };
#undef CTR_NAME
	unsigned i;

	if (verbose <= 0)
		return;
	for (i = 0; i < CTR_NUM; i++)
		if (H.ctr[i])
			fprintf(stderr, "  %s=%llu\n", names[i],
				(unsigned long long)H.ctr[i]);
}

/* every socket fails: the core must give every flow back */
static void teardown(void)
{
	struct tcp_flow *f;
	unsigned i;

	dump_counters();
	end_of_batch();
	check_state();
	for (i = 0; i < H.c.conf.max_flows; i++) {
		f = tcp_flow_get(&H.c, i);
		if (!f)
			continue;
		tcp_on_sock_error(&H.c, f, &H.fx);
		drain();
		maybe_flush();
	}
	end_of_batch();
	check_state();
	for (i = 0; i < H.c.conf.max_flows; i++)
		FZ_CHECK(H.c.flows[i].state == TCPS_FREE);
	for (i = 0; i < NFDS; i++)
		FZ_CHECK(!H.fds[i].open);
	FZ_CHECK(H.ctr[CTR_TCP_FLOWS_ACTIVE] == 0);
	FZ_CHECK(H.c.nacks == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned ops = 0;

	if (!slots)
		slots = fz_alloc((size_t)NSLOTS_CAP * SLOT_CAP);
	fz_in_set(data, size);
	setup();
	while (fz_in_left() && ops++ < MAX_OPS) {
		unsigned op = fz_u8() % 16;

		trace_op(op);
		switch (op) {
		case 0:
		case 1:
		case 2:
			op_segment();
			break;
		case 3:
			op_raw();
			break;
		case 4:
			op_time();
			break;
		case 5:
		case 6:
			end_of_batch();
			break;
		case 7:
			op_connect_done();
			break;
		case 8:
			op_accept();
			break;
		case 9:
			op_host_data();
			break;
		case 10:
			op_tx();
			break;
		case 11:
			op_host_eof();
			break;
		case 12:
			op_sock_error();
			break;
		case 13:
			op_space();
			break;
		case 14:
			flush_frames();
			break;
		default:
			core_flush(&H.c, H.now, &H.fx);
			drain();
			break;
		}
		maybe_flush();
		check_state();
	}
	teardown();
	return 0;
}

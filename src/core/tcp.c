/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tcp.c - the guest-facing half of each TCP flow
 *
 * DOC: Theory of Operation
 *
 * One flow, two connections
 * -------------------------
 *
 * Each guest TCP connection is terminated here and continued on an ordinary
 * host socket. This file keeps the guest side's sequence space and decides;
 * the host layer moves the bytes. The one copy of payload made here is into
 * the out-of-order store (tcp_ooo_hold()).
 *
 * Guest to host
 * -------------
 *
 * An in-order segment becomes an FX_SOCK_SEND intent that
 * points into the frame being handled (FX_DATA_RXBATCH: the edge's receive
 * buffer, or the guest memory a loaned tail lies in); the host writes it
 * and reports how much the socket took (tcp_on_sock_sent()). Only that much
 * is acknowledged, and the window we advertise is the socket's free send
 * space (reported with tcp_set_host_space()), so the guest never has more
 * in flight than the socket can hold. A segment beyond a gap gets a
 * duplicate ACK at once, and is copied into a slot of the core's
 * out-of-order store (tcp_ooo_hold()) if one is free and it lies within
 * the window we offered; otherwise it is dropped and the guest resends it.
 * When the gap is filled, held segments become FX_SOCK_SEND intents that
 * point into their slots (FX_DATA_OOO, tcp_ooo_next()), freed when the
 * write is reported. When the guest offered SACK, our ACKs carry SACK
 * blocks describing what is held (tcp_sack_build()), so the guest resends
 * only the holes.
 *
 * ACKs toward the guest
 * ---------------------
 *
 * ACKs toward the guest are coalesced (a data-path law, docs/design.md):
 * whatever makes one due
 * (accepted data, a window update, a duplicate) marks the flow TCPF_ACK_DUE
 * and lists it, and core_flush() sends one ACK per listed flow at the end of
 * the batch. A batch can carry megabytes, though (32 GSO frames of up to
 * 64 KiB), so with conf.ack_every = N an ACK also goes out as soon as N
 * times the MSS has been accepted since the last ACK (RFC 5681 4.2: N = 2);
 * a GSO frame counts for the bytes it carries, not as one segment. Every
 * segment with ACK set, data frames included, records rcv_nxt in rcv_acked
 * and clears TCPF_ACK_DUE, so the end of the batch adds an ACK only if more
 * arrived after it: never two ACKs of the same rcv_nxt.
 *
 * Host to guest and loss recovery
 * -------------------------------
 *
 * Payload stays in the host socket until the guest
 * acknowledges it. The host asks tcp_tx_room() how much it may send, peeks
 * that from the socket straight into frame slots behind the headers, and
 * calls tcp_build_data() to write the headers. Guest ACKs become
 * FX_SOCK_CONSUME intents (discard from the socket); a retransmission
 * timeout or three duplicate ACKs rewind snd_nxt to snd_una
 * (FX_SOCK_REWIND: the peek offset goes back) and the data is peeked again.
 * Three duplicate ACKs start fast recovery (RFC 6582, NewReno): the hole
 * at snd_una is resent and nothing more until an ACK comes. With SACK
 * (RFC 2018), the ranges the guest reports holding are kept in a
 * scoreboard of TCP_SACK_RANGES in the flow, and recovery walks the holes
 * between them: snd_nxt jumps over each SACKed range (FX_SOCK_REWIND with
 * the new peek offset, which may lie ahead), and nothing it holds goes
 * again. Two frames go per ACK of the guest: it names at most four
 * ranges, the most recent first, so below them it may hold more than it
 * said, and its next ACK shows how far a hole really reaches.
 * What lies beyond the last SACKed byte counts as in flight, not lost.
 * After a timeout everything is resent but what the guest SACKed; a second
 * timeout in a row forgets the scoreboard, in case the guest reneged.
 * Before the timeout comes a probe (RFC 8985's tail loss probe): each flow
 * times one segment per round trip (Karn: never a resent one) into SRTT,
 * and with two full segments or more out and no ACK of new data for
 * 2 * SRTT + 10 ms, the first hole (one segment without SACK) goes again
 * in recovery mode, nothing more until the ACK it brings; the next probe
 * waits twice as long, until that is longer than the RTO
 * (tcp_arm_data()). A lost retransmission, or the tail of a flight, so
 * costs milliseconds instead of 200 ms.
 * The kernel's peek offset is always snd_nxt - snd_una: it moves forward
 * with each peek and back with each FX_SOCK_CONSUME, and an
 * FX_SOCK_REWIND sets it.
 *
 * States and timers
 * -----------------
 *
 * States: see enum tcp_state. Half-close is tracked with flags: the guest's
 * FIN shuts the host socket's write side; the host socket's end of stream
 * becomes our FIN after the last byte. The flow ends, without TIME_WAIT,
 * when the guest's FIN is in and ours is acknowledged; an RST from either
 * side ends it at once. Which flags each state allows is tabled in tcp.h
 * and checked by tcp_flow_check().
 *
 * Timers are deadlines in the flow (@deadline_ns), run by core_timer():
 * SYN and SYN-ACK retries, probe timeouts (TCPF_PTO), retransmission with
 * exponential backoff and a retry limit, and zero-window probes. The shard
 * runs them after the input of the same wake-up, so an ACK that arrived
 * with its flow's deadline counts first.
 *
 * IPv4, IPv6 and limits
 * ---------------------
 *
 * IPv4 and IPv6 flows share all of this: a flow's addresses are 16 bytes
 * (IPv4 v4-mapped, see core.h), and only the frame writer and the
 * segment sizes look at the family. The host socket's family follows the
 * address it connects to, which may differ from the guest's: DNS over TCP
 * to the IPv6 DNS address goes to an IPv4 resolver.
 *
 * Limits: no timestamps, no urgent data. SACK blocks ride only on segments
 * without payload (ACKs, our FIN): data frames toward the guest have their
 * payload placed right after a fixed-size header.
 */

#include <errno.h>

#include "../util/siphash.h"
#include "core.h"
#include "csum.h"
#include "mig.h"
#include "tcp.h"

#define TH_FIN 0x01
#define TH_SYN 0x02
#define TH_RST 0x04
#define TH_PSH 0x08
#define TH_ACK 0x10

#define TCP_SYN_RETRIES 5
#define TCP_DATA_RETRIES 12
#define TCP_RTO_MAX_NS (10ULL * 1000 * 1000 * 1000)
#define TCP_PTO_SLACK_NS (10ULL * 1000 * 1000) /* a probe waits 2 SRTT + this */
#define TCP_DEFAULT_MSS 536
#define TCP_INITIAL_SPACE 65535

const char *const tcp_state_str[] = {
	[TCPS_FREE] = "FREE",
	[TCPS_HOST_CONNECTING] = "HOST_CONNECTING",
	[TCPS_SYNACK_SENT] = "SYNACK_SENT",
	[TCPS_SYN_SENT] = "SYN_SENT",
	[TCPS_ESTABLISHED] = "ESTABLISHED",
};
_Static_assert(ARRAY_SIZE(tcp_state_str) == TCPS_STATE_NUM,
	       "tcp_state_str must name every state");

/* the flags each state allows: the table in tcp.h, as tcp_flow_bad() uses it */
static const uint16_t tcp_state_flags[] = {
	[TCPS_FREE] = 0,
	[TCPS_HOST_CONNECTING] = TCPF_GUEST_WS | TCPF_SACK_OK,
	[TCPS_SYNACK_SENT] = TCPF_GUEST_WS | TCPF_SACK_OK,
	[TCPS_SYN_SENT] = 0,
	[TCPS_ESTABLISHED] = TCPF_GUEST_FIN | TCPF_HOST_EOF | TCPF_FIN_SENT |
			     TCPF_FIN_ACKED | TCPF_ACK_DUE | TCPF_GUEST_WS |
			     TCPF_PTO | TCPF_PERSIST | TCPF_ACK_LISTED |
			     TCPF_OOO | TCPF_RECOVER | TCPF_SACK_OK,
};
_Static_assert(ARRAY_SIZE(tcp_state_flags) == TCPS_STATE_NUM,
	       "tcp_state_flags must cover every state");

/**
 * struct tcp_seg - a parsed segment from the guest
 * @sport:	source (guest) port
 * @dport:	destination port
 * @seq:	sequence number
 * @ack:	acknowledgement number
 * @flags:	TH_* flags
 * @wnd:	window field, unscaled
 * @mss:	MSS option (0: absent)
 * @ws:		window scale option (-1: absent)
 * @sack_ok:	SACK-permitted option
 * @nsack:	SACK blocks in @sack (the first SACK option's)
 * @sack_bad:	a SACK option of a length no block count makes
 * @sack:	SACK blocks, as sent (not validated)
 * @data:	payload
 * @len:	payload length
 */
struct tcp_seg {
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	uint16_t wnd;
	uint16_t mss;
	int ws;
	bool sack_ok;
	uint8_t nsack;
	bool sack_bad;
	struct tcp_sack_range sack[TCP_SACK_RANGES];
	const uint8_t *data;
	uint32_t len;
};

/**
 * tcp_mss_max() - the largest segment payload the MTU allows for a flow
 * @c:	core
 * @f:	flow (its family)
 *
 * Return: MTU less the IP and TCP headers
 */
static uint32_t tcp_mss_max(const struct core *c, const struct tcp_flow *f)
{
	return c->conf.mtu - (tcp_flow_v6(f) ? IP6_HLEN : IP4_HLEN) - TCP_HLEN;
}

/**
 * tcp_arm() - set the flow's deadline and keep the core's earliest one
 * @c:		core
 * @f:		flow
 * @when_ns:	deadline (0: disarm)
 */
static void tcp_arm(struct core *c, struct tcp_flow *f, uint64_t when_ns)
{
	f->flags &= (uint16_t)~TCPF_PTO;
	f->deadline_ns = when_ns;
	if (when_ns && when_ns < c->next_deadline_ns)
		c->next_deadline_ns = when_ns;
}

/**
 * tcp_probe_ok() - may the flow's deadline be a probe (tcp_arm_data())?
 * @f:	flow
 *
 * Return: true with a round-trip sample, no timeout since the last
 *	   progress and two full segments or more unacknowledged
 */
static bool tcp_probe_ok(const struct tcp_flow *f)
{
	return f->srtt_us && !f->retries && f->probes < 16 &&
	       f->snd_max - f->snd_una >= 2 * f->mss;
}

/**
 * tcp_arm_data() - arm the timer for data in flight: a probe or the RTO
 * @c:		core
 * @f:		flow (ESTABLISHED, something unacknowledged)
 * @now_ns:	monotonic time
 *
 * With a round-trip sample, at least two full segments out and no
 * timeout since the last progress, the deadline is a probe timeout of
 * 2 * SRTT + 10 ms (the tail loss probe of RFC 8985, with room for a
 * guest or a gateway that waits for a CPU on a busy host), doubled for each
 * probe already sent, while that is shorter than the RTO: a guest
 * acknowledges every second full segment at once, so only a lost frame,
 * a lost retransmission or a lost ACK keeps it silent that long. One
 * segment out may wait for the guest's delayed ACK: the RTO then, as
 * always.
 */
static void tcp_arm_data(struct core *c, struct tcp_flow *f, uint64_t now_ns)
{
	uint64_t pto;

	if (tcp_probe_ok(f)) {
		pto = (2000ULL * f->srtt_us + TCP_PTO_SLACK_NS) << f->probes;
		if (pto < f->rto_ns) {
			tcp_arm(c, f, now_ns + pto);
			f->flags |= TCPF_PTO;
			return;
		}
	}
	tcp_arm(c, f, now_ns + f->rto_ns);
}

/**
 * tcp_rearm() - after progress or a window that opened: no zero-window
 * probe; a deadline for what is in flight, or none
 * @c:		core
 * @f:		flow (ESTABLISHED)
 * @now_ns:	monotonic time
 */
static void tcp_rearm(struct core *c, struct tcp_flow *f, uint64_t now_ns)
{
	f->flags &= (uint16_t)~TCPF_PERSIST;
	if (f->snd_una == f->snd_nxt)
		tcp_arm(c, f, 0);
	else
		tcp_arm_data(c, f, now_ns);
}

/**
 * tcp_rtt_sample() - the timed segment was acknowledged: update SRTT
 * @f:		flow (@rtt_ts_us set)
 * @now_ns:	monotonic time
 *
 * SRTT moves an eighth of the way to each sample (RFC 6298); one segment
 * per round trip is timed, and a resend ends the timing (Karn).
 */
static void tcp_rtt_sample(struct tcp_flow *f, uint64_t now_ns)
{
	uint32_t m = (uint32_t)(now_ns / 1000) - f->rtt_ts_us;

	m = MIN(MAX(m, 1U), (uint32_t)(TCP_RTO_MAX_NS / 1000));
	f->srtt_us = f->srtt_us ? f->srtt_us - (f->srtt_us >> 3) + (m >> 3) : m;
	if (!f->srtt_us)
		f->srtt_us = 1;
	f->rtt_ts_us = 0;
}

/**
 * tcp_intent() - queue an intent for the host
 * @c:		core
 * @fx:		effects out
 * @type:	enum fx_intent_type
 * @f:		flow
 *
 * Return: the intent, to fill in further
 */
static struct fx_intent *tcp_intent(struct core *c, struct fx *fx,
				    enum fx_intent_type type,
				    const struct tcp_flow *f)
{
	return fx_intent_add(fx, type, tcp_flow_idx(c, f), f->sock);
}

/**
 * tcp_wnd_field() - window to advertise, as the 16-bit header field
 * @c:		core
 * @f:		flow
 * @syn:	the segment carries SYN (the field is never scaled)
 *
 * Also records the advertised right edge.
 *
 * Return: window field value
 */
static uint16_t tcp_wnd_field(const struct core *c, struct tcp_flow *f,
			      bool syn)
{
	uint32_t space = f->host_space, field;
	unsigned shift = 0;

	if (!syn && (f->flags & TCPF_GUEST_WS))
		shift = c->conf.ws_shift;
	field = MIN(space >> shift, 65535U);
	/* never move the right edge left (RFC 9293 3.8.6.2.2) */
	if (SEQ_LT(f->rcv_nxt + (field << shift), f->adv_wnd_end)) {
		uint32_t keep = f->adv_wnd_end - f->rcv_nxt;

		field = MIN((keep + (1U << shift) - 1) >> shift, 65535U);
	}
	f->adv_wnd_end = f->rcv_nxt + (field << shift);
	return (uint16_t)field;
}

/**
 * tcp_write_frame() - write the headers of a segment into the next slot
 * @c:		core
 * @f:		flow
 * @fx:		effects batch
 * @flags:	TH_* flags
 * @seq:	sequence number
 * @opts:	TCP options (multiple of 4 bytes), or NULL
 * @optlen:	bytes of @opts
 * @paylen:	payload bytes already in the slot after the headers (with
 *		@optlen 0 only)
 *
 * Return: 0, or -1 if no slot was free (counted)
 */
static int tcp_write_frame(struct core *c, struct tcp_flow *f, struct fx *fx,
			   uint8_t flags, uint32_t seq, const uint8_t *opts,
			   size_t optlen, uint32_t paylen)
{
	size_t thlen = TCP_HLEN + optlen, l4len = thlen + paylen;
	uint8_t *slot = fx_slot_next(fx), *ip, *th;
	bool v6 = tcp_flow_v6(f);
	size_t iphlen = v6 ? IP6_HLEN : IP4_HLEN;
	struct vnet_hdr vh = { 0 };
	uint32_t ps;

	ASSERT(!paylen || !optlen);
	if (v6)
		ip = ip6_frame_begin(c, fx, f->guest_addr, l4len);
	else
		ip = core_frame_begin(c, fx, ETHERTYPE_IP4, NULL);
	if (!ip)
		return -1;
	th = ip + iphlen;
	wr16(th, f->remote_port);
	wr16(th + 2, f->guest_port);
	wr32(th + 4, seq);
	wr32(th + 8, (flags & TH_ACK) ? f->rcv_nxt : 0);
	th[12] = (uint8_t)((thlen / 4) << 4);
	th[13] = flags;
	wr16(th + 14,
	     (flags & TH_RST) ? 0 : tcp_wnd_field(c, f, flags & TH_SYN));
	th[16] = th[17] = 0;
	th[18] = th[19] = 0;
	if (optlen)
		memcpy(th + TCP_HLEN, opts, optlen);
	if (v6) {
		ip6_build_hdr(ip, IPPROTO_TCP_, f->remote_addr, f->guest_addr,
			      l4len, 64);
		ps = csum_pseudo6(f->remote_addr, f->guest_addr, IPPROTO_TCP_,
				  (uint32_t)l4len);
	} else {
		ip4_build_hdr(c, ip, IPPROTO_TCP_, addr_to4(f->remote_addr),
			      addr_to4(f->guest_addr), l4len);
		ps = csum_pseudo4(addr_to4(f->remote_addr),
				  addr_to4(f->guest_addr), IPPROTO_TCP_,
				  (uint16_t)l4len);
	}

	if (c->conf.csum_offload) {
		/* the receiver trusts a partial checksum: no payload pass */
		wr16(th + 16, csum_fold(ps));
		vh.flags = VNET_HDR_F_NEEDS_CSUM;
		vh.csum_start = (uint16_t)(ETH_HLEN + iphlen);
		vh.csum_offset = 16;
		if (paylen > f->mss) {
			/* one super-frame; the guest's stack takes it whole,
			 * as it takes a GRO'd one (docs/design.md) */
			vh.gso_type = v6 ? VNET_HDR_GSO_TCPV6 :
					   VNET_HDR_GSO_TCPV4;
			vh.gso_size = (uint16_t)f->mss;
			vh.hdr_len = (uint16_t)(ETH_HLEN + iphlen + thlen);
			CTR_INC(c, TCP_TX_GSO_FRAMES);
		}
		vnet_hdr_write(c, slot, &vh);
	} else {
		ps = csum_partial(th, l4len, ps);
		wr16(th + 16, (uint16_t)~csum_fold(ps));
	}
	fx_slot_commit(fx, (uint32_t)(core_l3_off(c) + iphlen + l4len));
	if (flags & TH_ACK) {
		/* this segment carries the ACK that was due */
		f->flags &= (uint16_t)~TCPF_ACK_DUE;
		f->rcv_acked = f->rcv_nxt;
	}
	return 0;
}

/**
 * tcp_ooo_sackable() - may a held segment go into a SACK block?
 * @o:		ooo slot
 * @idx:	flow index + 1
 * @rcv_nxt:	the flow's rcv_nxt
 *
 * A segment reaching rcv_nxt is being written to the host socket; only
 * what lies wholly beyond it is held.
 *
 * Return: true if @o holds data of the flow beyond rcv_nxt
 */
static bool tcp_ooo_sackable(const struct tcp_ooo *o, uint32_t idx,
			     uint32_t rcv_nxt)
{
	return o->flow == idx && o->len && SEQ_GT(o->seq, rcv_nxt);
}

/**
 * tcp_sack_grow() - widen a range to the contiguous held data around it
 * @c:		core
 * @f:		flow
 * @r:		in: a held segment's range; out: with every held segment
 *		overlapping or touching it, and theirs, merged in
 *
 * Each round that changes anything takes in one slot at least, so the
 * loop ends within conf.ooo_slots rounds.
 */
static void tcp_sack_grow(const struct core *c, const struct tcp_flow *f,
			  struct tcp_sack_range *r)
{
	uint32_t idx = tcp_flow_idx(c, f) + 1, i, rounds = 0;
	bool grew = true;

	while (grew && rounds++ < c->conf.ooo_slots) {
		grew = false;
		for (i = 0; i < c->conf.ooo_slots; i++) {
			const struct tcp_ooo *o = &c->ooo[i];

			if (!tcp_ooo_sackable(o, idx, f->rcv_nxt) ||
			    SEQ_GT(o->seq, r->end) ||
			    SEQ_LT(o->seq + o->len, r->start))
				continue;
			if (SEQ_LT(o->seq, r->start)) {
				r->start = o->seq;
				grew = true;
			}
			if (SEQ_GT(o->seq + o->len, r->end)) {
				r->end = o->seq + o->len;
				grew = true;
			}
		}
	}
}

/**
 * tcp_sack_build() - SACK option describing the guest data we hold
 * @c:		core
 * @f:		flow (TCPF_SACK_OK)
 * @opts:	out: NOP, NOP, the option (4 + 8 * blocks bytes)
 *
 * RFC 2018 section 4: the first block holds the segment that came last,
 * the others follow, as many as fit (4 without timestamps). We do not
 * keep the order in which the others came; a higher sequence usually
 * came later, so they go highest first. Blocks are maximal: every held
 * byte beyond rcv_nxt lies in exactly one.
 *
 * Return: bytes of @opts used (0: nothing held, no option)
 */
static size_t tcp_sack_build(struct core *c, const struct tcp_flow *f,
			     uint8_t *opts)
{
	struct tcp_sack_range b[TCP_SACK_RANGES];
	uint32_t idx = tcp_flow_idx(c, f) + 1, i, n = 0, k;

	for (i = 0; i < c->conf.ooo_slots; i++) {
		const struct tcp_ooo *o = &c->ooo[i];

		if (o->newest && tcp_ooo_sackable(o, idx, f->rcv_nxt)) {
			b[n].start = o->seq;
			b[n].end = o->seq + o->len;
			tcp_sack_grow(c, f, &b[n++]);
			break;
		}
	}
	while (n < TCP_SACK_RANGES) {
		uint32_t best = UINT32_MAX;

		for (i = 0; i < c->conf.ooo_slots; i++) {
			const struct tcp_ooo *o = &c->ooo[i];

			if (!tcp_ooo_sackable(o, idx, f->rcv_nxt))
				continue;
			for (k = 0; k < n; k++)
				if (SEQ_GE(o->seq, b[k].start) &&
				    SEQ_LE(o->seq + o->len, b[k].end))
					break;
			if (k < n)
				continue; /* in a block already */
			if (best == UINT32_MAX ||
			    SEQ_GT(o->seq, c->ooo[best].seq))
				best = i;
		}
		if (best == UINT32_MAX)
			break;
		b[n].start = c->ooo[best].seq;
		b[n].end = c->ooo[best].seq + c->ooo[best].len;
		tcp_sack_grow(c, f, &b[n++]);
	}
	if (!n)
		return 0;
	opts[0] = 1; /* NOP */
	opts[1] = 1;
	opts[2] = 5;
	opts[3] = (uint8_t)(2 + 8 * n);
	for (k = 0; k < n; k++) {
		wr32(opts + 4 + 8 * k, b[k].start);
		wr32(opts + 8 + 8 * k, b[k].end);
	}
	CTR_ADD(c, TCP_SACK_BLOCKS_SENT, n);
	return 4 + 8 * n;
}

/**
 * tcp_send_ctl() - send a segment without payload
 * @c:		core
 * @f:		flow
 * @fx:		effects batch
 * @flags:	TH_* flags
 * @seq:	sequence number
 *
 * SYN segments carry MSS and, if the guest offered them (or we open),
 * window scale and SACK-permitted options. Other segments with ACK carry
 * SACK blocks for the data we hold beyond a gap, if the guest does SACK.
 */
static void tcp_send_ctl(struct core *c, struct tcp_flow *f, struct fx *fx,
			 uint8_t flags, uint32_t seq)
{
	uint8_t opts[40];
	size_t optlen = 0;

	if (flags & TH_SYN) {
		uint32_t mss = tcp_mss_max(c, f);

		opts[0] = 2;
		opts[1] = 4;
		wr16(opts + 2, (uint16_t)MIN(mss, 65535U));
		optlen = 4;
		if ((f->flags & TCPF_GUEST_WS) || f->state == TCPS_SYN_SENT) {
			opts[optlen++] = 1; /* NOP */
			opts[optlen++] = 3;
			opts[optlen++] = 3;
			opts[optlen++] = c->conf.ws_shift;
		}
		if ((f->flags & TCPF_SACK_OK) || f->state == TCPS_SYN_SENT) {
			opts[optlen++] = 1; /* NOP */
			opts[optlen++] = 1;
			opts[optlen++] = 4;
			opts[optlen++] = 2;
		}
	} else if ((flags & TH_ACK) && !(flags & TH_RST) &&
		   (f->flags & (TCPF_SACK_OK | TCPF_OOO)) ==
			   (TCPF_SACK_OK | TCPF_OOO)) {
		optlen = tcp_sack_build(c, f, opts);
	}
	if (flags & TH_RST)
		f->flags |= TCPF_RESET_HERE; /* see flow_ended_here() */
	if (tcp_write_frame(c, f, fx, flags, seq, optlen ? opts : NULL, optlen,
			    0))
		return;
	if (!(flags & (TH_SYN | TH_RST | TH_FIN)))
		CTR_INC(c, TCP_ACKS_SENT);
}

/**
 * tcp_send_rst_noflow() - answer a segment of no flow with an RST
 * @c:		core
 * @iph:	the segment's IPv4 or IPv6 header
 * @s:		the parsed segment
 * @fx:		effects out
 */
static void tcp_send_rst_noflow(struct core *c, const uint8_t *iph,
				const struct tcp_seg *s, struct fx *fx)
{
	struct tcp_flow tmp = { 0 };
	uint32_t seq = 0;
	uint8_t flags = TH_RST;

	addr_from_ip(iph, tmp.guest_addr, tmp.remote_addr);
	tmp.guest_port = s->sport;
	tmp.remote_port = s->dport;
	if (s->flags & TH_ACK) {
		seq = s->ack;
	} else {
		flags |= TH_ACK;
		tmp.rcv_nxt = s->seq + s->len + !!(s->flags & TH_SYN) +
			      !!(s->flags & TH_FIN);
	}
	/* tmp is not in the table; tcp_write_frame only reads it */
	tmp.adv_wnd_end = tmp.rcv_nxt;
	if (!tcp_write_frame(c, &tmp, fx, flags, seq, NULL, 0, 0))
		CTR_INC(c, TCP_RST_UNKNOWN_FLOW);
}

/**
 * tcp_ack_later() - queue an ACK for the end of the batch
 * @c:	core
 * @f:	flow
 */
static void tcp_ack_later(struct core *c, struct tcp_flow *f)
{
	f->flags |= TCPF_ACK_DUE;
	if (f->flags & TCPF_ACK_LISTED)
		return;
	/* listed at most once, and flow_free() unlists: no overflow */
	ASSERT(c->nacks < c->conf.max_flows);
	f->flags |= TCPF_ACK_LISTED;
	c->ack_list[c->nacks++] = tcp_flow_idx(c, f);
}

/**
 * tcp_ack_every() - send a due ACK now if N segments' worth arrived since
 * the last one
 * @c:	core (conf.ack_every = N; 0: never, the end of the batch sends it)
 * @f:	flow
 * @fx:	effects out
 *
 * The threshold is N times the flow's MSS (the one the guest announced,
 * capped by our MTU), counted in bytes so that a GSO frame of 64 KiB
 * counts as the many segments it carries. The flow stays listed: the end
 * of the batch sends another ACK only if something made one due again.
 * Without a free frame slot the ACK waits for the end of the batch.
 */
static void tcp_ack_every(struct core *c, struct tcp_flow *f, struct fx *fx)
{
	uint64_t thr = (uint64_t)c->conf.ack_every * f->mss;

	if (!thr || !(f->flags & TCPF_ACK_DUE) ||
	    f->rcv_nxt - f->rcv_acked < thr || !fx_slot_next(fx))
		return;
	tcp_send_ctl(c, f, fx, TH_ACK, f->snd_nxt);
	CTR_INC(c, TCP_ACKS_MIDBATCH);
}

/**
 * tcp_ooo_drop() - free the ooo slots a flow holds
 * @c:		core
 * @f:		flow
 */
static void tcp_ooo_drop(struct core *c, struct tcp_flow *f)
{
	uint32_t idx = tcp_flow_idx(c, f) + 1, i;

	if (!(f->flags & TCPF_OOO))
		return;
	for (i = 0; i < c->conf.ooo_slots; i++)
		if (c->ooo[i].flow == idx)
			c->ooo[i].flow = 0;
	f->flags &= (uint16_t)~TCPF_OOO;
}

/**
 * tcp_ooo_hold() - keep a segment that came after a gap, until the gap is
 * filled
 * @c:		core
 * @f:		flow
 * @s:		the segment (beyond rcv_nxt)
 *
 * Without a free slot (counted), longer than a slot, or beyond the window
 * we offered, it is not held: the guest resends it. A segment at the same
 * place as one held is kept once (the longer).
 */
static void tcp_ooo_hold(struct core *c, struct tcp_flow *f,
			 const struct tcp_seg *s)
{
	uint32_t idx = tcp_flow_idx(c, f) + 1, i, free_slot = UINT32_MAX;
	uint32_t have = UINT32_MAX;

	if (!c->conf.ooo_slots || s->len > TCP_OOO_SLOT ||
	    SEQ_GT(s->seq + s->len, f->adv_wnd_end))
		return;
	for (i = 0; i < c->conf.ooo_slots; i++) {
		struct tcp_ooo *o = &c->ooo[i];

		if (!o->flow) {
			if (free_slot == UINT32_MAX)
				free_slot = i;
		} else if (o->flow == idx && o->seq == s->seq &&
			   o->len >= s->len) {
			have = i;
		}
	}
	if (have == UINT32_MAX && free_slot == UINT32_MAX) {
		CTR_INC(c, TCP_OOO_FULL);
		return;
	}
	/* the newest: the first block of our next SACK option holds it */
	for (i = 0; i < c->conf.ooo_slots; i++)
		if (c->ooo[i].flow == idx)
			c->ooo[i].newest = false;
	if (have != UINT32_MAX) {
		c->ooo[have].newest = true;
		return; /* we have it */
	}
	c->ooo[free_slot] = (struct tcp_ooo){ .flow = idx,
					      .seq = s->seq,
					      .len = s->len,
					      .fin = !!(s->flags & TH_FIN),
					      .newest = true };
	memcpy(c->ooo_data + (size_t)free_slot * TCP_OOO_SLOT, s->data, s->len);
	f->flags |= TCPF_OOO;
	CTR_INC(c, TCP_OOO_HELD);
}

/**
 * tcp_guest_fin() - the guest's FIN arrived in order
 * @c:	core
 * @f:	flow
 * @fx:	effects out
 */
static void tcp_guest_fin(struct core *c, struct tcp_flow *f, struct fx *fx)
{
	if (f->flags & TCPF_GUEST_FIN)
		return;
	f->rcv_nxt++;
	f->flags |= TCPF_GUEST_FIN;
	tcp_intent(c, fx, FX_SOCK_SHUT_WR, f);
	tcp_ack_later(c, f);
}

/**
 * tcp_ooo_next() - the gap before a held segment was filled: write it (what
 * of it is new) to the host socket
 * @c:		core
 * @f:		flow
 * @fx:		effects out
 *
 * Held segments wholly before rcv_nxt go; the one reaching furthest past
 * it becomes an FX_SOCK_SEND intent pointing into its slot (FX_DATA_OOO),
 * freed when the write is reported (tcp_on_sock_sent(), which calls here
 * again). One held at rcv_nxt with nothing new but its FIN delivers the
 * FIN.
 */
static void tcp_ooo_next(struct core *c, struct tcp_flow *f, struct fx *fx)
{
	uint32_t idx = tcp_flow_idx(c, f) + 1, i, best = UINT32_MAX;
	bool left = false;
	struct fx_intent *it;

	if (!(f->flags & TCPF_OOO) || (f->flags & TCPF_GUEST_FIN))
		return;
	for (i = 0; i < c->conf.ooo_slots; i++) {
		struct tcp_ooo *o = &c->ooo[i];

		if (o->flow != idx)
			continue;
		if (SEQ_LT(o->seq + o->len, f->rcv_nxt) ||
		    (o->seq + o->len == f->rcv_nxt && !o->fin)) {
			o->flow = 0; /* nothing new in it */
			continue;
		}
		left = true;
		if (SEQ_LE(o->seq, f->rcv_nxt) &&
		    (best == UINT32_MAX ||
		     o->seq + o->len - c->ooo[best].seq - c->ooo[best].len <
			     0x80000000U))
			best = i; /* reaches furthest */
	}
	if (!left) {
		f->flags &= (uint16_t)~TCPF_OOO;
		return;
	}
	if (best == UINT32_MAX)
		return; /* a gap still */
	if (c->ooo[best].seq + c->ooo[best].len == f->rcv_nxt) {
		/* all written already but its FIN */
		c->ooo[best].flow = 0;
		tcp_guest_fin(c, f, fx);
		return;
	}
	it = tcp_intent(c, fx, FX_SOCK_SEND, f);
	it->data_owner = FX_DATA_OOO;
	it->data = c->ooo_data + (size_t)best * TCP_OOO_SLOT +
		   (f->rcv_nxt - c->ooo[best].seq);
	it->len = c->ooo[best].seq + c->ooo[best].len - f->rcv_nxt;
	it->fin = c->ooo[best].fin;
	CTR_INC(c, TCP_OOO_DELIVERED);
}

/**
 * tcp_ooo_slot_of() - the ooo slot an FX_DATA_OOO intent's payload lies in
 * @c:		core
 * @data:	the payload (tcp_ooo_next() pointed it into a slot)
 *
 * Return: the slot index
 */
static uint32_t tcp_ooo_slot_of(const struct core *c, const uint8_t *data)
{
	size_t off;

	ASSERT(c->conf.ooo_slots && data >= c->ooo_data);
	off = (size_t)(data - c->ooo_data);
	ASSERT(off < (size_t)c->conf.ooo_slots * TCP_OOO_SLOT);
	return (uint32_t)(off / TCP_OOO_SLOT);
}

/**
 * tcp_flow_end() - free a flow, handing its socket back to the host
 * @c:		core
 * @f:		flow
 * @fx:		effects out
 * @type:	FX_SOCK_CLOSE or FX_SOCK_RESET
 */
static void tcp_flow_end(struct core *c, struct tcp_flow *f, struct fx *fx,
			 enum fx_intent_type type)
{
	if (f->sock >= 0)
		tcp_intent(c, fx, type, f);
	tcp_ooo_drop(c, f);
	flow_free(c, f);
}

/**
 * tcp_reset_both() - reset the guest side and the host side of a flow
 * @c:	core
 * @f:	flow; freed
 * @fx:	effects out
 */
static void tcp_reset_both(struct core *c, struct tcp_flow *f, struct fx *fx)
{
	tcp_send_ctl(c, f, fx, TH_RST | TH_ACK, f->snd_nxt);
	tcp_flow_end(c, f, fx, FX_SOCK_RESET);
}

/**
 * tcp_guest_gone() - end every flow: the guest went away with its state
 * @c:		core
 * @fx:		effects out (FX_SOCK_RESET for each flow with a socket)
 *
 * The guest's side needs no RST: there is nobody to hear it, and a new
 * guest on the same edge never had these connections. The host peers see
 * a reset, as they would if the guest had crashed behind a real NIC.
 *
 * Return: true when every flow is gone, false if @fx filled up first
 * (the host drains the intents and calls again)
 */
bool tcp_guest_gone(struct core *c, struct fx *fx)
{
	uint32_t i;

	for (i = 0; i < c->hiwat; i++) {
		struct tcp_flow *f = tcp_flow_get(c, i);

		if (!f)
			continue;
		if (fx->nintents + 2 >= FX_MAX_INTENTS)
			return false;
		CTR_INC(c, TCP_RST_GUEST_GONE);
		tcp_flow_end(c, f, fx, FX_SOCK_RESET);
	}
	return true;
}

/**
 * tcp_parse_sack() - decode a SACK option's blocks
 * @s:		segment being decoded
 * @opt:	the option (kind, length, blocks), within the header
 * @len:	its length byte
 *
 * Each byte is read once, here; the blocks are checked against the flow
 * when the ACK is processed (tcp_sack_input()). Only the first SACK option
 * counts.
 */
static void tcp_parse_sack(struct tcp_seg *s, const uint8_t *opt, uint8_t len)
{
	unsigned i, n;

	if (s->nsack || s->sack_bad)
		return;
	if (len < 10 || (len - 2) % 8) {
		s->sack_bad = true;
		return;
	}
	/* 40 bytes of options hold 4 blocks at most */
	n = MIN((unsigned)(len - 2) / 8, (unsigned)TCP_SACK_RANGES);
	for (i = 0; i < n; i++) {
		s->sack[i].start = rd32(opt + 2 + 8 * i);
		s->sack[i].end = rd32(opt + 6 + 8 * i);
	}
	s->nsack = (uint8_t)n;
}

/**
 * tcp_parse() - validate a segment and decode its header and options
 * @v:		segment
 * @s:		decoded segment
 *
 * The checksum is not verified: the guest's kernel wrote it, and the edge
 * is memory, not a wire (docs/design.md).
 *
 * Return: 0, or -1 if malformed
 */
static int tcp_parse(struct pkt_view v, struct tcp_seg *s)
{
	const uint8_t *th = v.p, *o;
	size_t doff, i;

	if (v.len < TCP_HLEN)
		return -1;
	doff = (size_t)(th[12] >> 4) * 4;
	if (doff < TCP_HLEN || doff > v.len)
		return -1;
	s->sport = rd16(th);
	s->dport = rd16(th + 2);
	s->seq = rd32(th + 4);
	s->ack = rd32(th + 8);
	s->flags = th[13] & 0x3f;
	s->wnd = rd16(th + 14);
	s->mss = 0;
	s->ws = -1;
	s->sack_ok = false;
	s->nsack = 0;
	s->sack_bad = false;
	s->data = th + doff;
	s->len = (uint32_t)(v.len - doff);
	if (v.tail_len) {
		/* the payload stayed in guest memory (struct pkt_view): it
		 * is sent or held, never read here */
		if (s->len)
			return -1;
		s->data = v.tail;
		s->len = (uint32_t)v.tail_len;
	}
	if (!s->sport || !s->dport)
		return -1;

	o = th + TCP_HLEN;
	for (i = 0; i < doff - TCP_HLEN;) {
		uint8_t kind = o[i], len;

		if (kind == 0)
			break;
		if (kind == 1) {
			i++;
			continue;
		}
		if (i + 1 >= doff - TCP_HLEN)
			break;
		len = o[i + 1];
		if (len < 2 || i + len > doff - TCP_HLEN)
			break; /* malformed options: ignore the rest */
		if (kind == 2 && len == 4)
			s->mss = rd16(o + i + 2);
		else if (kind == 3 && len == 3)
			s->ws = MIN(o[i + 2], 14);
		else if (kind == 4 && len == 2)
			s->sack_ok = true;
		else if (kind == 5)
			tcp_parse_sack(s, o + i, len);
		i += len;
	}
	return 0;
}

/**
 * tcp_send_unreach() - answer a guest's SYN with destination unreachable
 * @c:		core
 * @gaddr:	the guest's address (ADDR_LEN bytes, v4-mapped for IPv4)
 * @raddr:	the address it tried to reach (the same family)
 * @gport:	the guest's port
 * @rport:	the port it tried to reach
 * @seq:	the SYN's sequence number
 * @net:	no route (ICMP net unreachable, ICMPv6 no route) instead of
 *		host (ICMPv6 address) unreachable
 * @fx:		effects out
 *
 * The quoted packet is rebuilt from these: the SYN's headers need not be
 * at hand.
 */
static void tcp_send_unreach(struct core *c, const uint8_t *gaddr,
			     const uint8_t *raddr, uint16_t gport,
			     uint16_t rport, uint32_t seq, bool net,
			     struct fx *fx)
{
	uint8_t orig[IP6_HLEN + 8];
	size_t n = icmp_quote_build(orig, IPPROTO_TCP_, gaddr, raddr, gport,
				    rport, TCP_HLEN);

	wr32(orig + n - 4, seq);
	/* IPv6: no route, or address unreachable (RFC 4443 3.1) */
	if (!addr_is4(gaddr))
		icmp6_send_unreach(c, net ? 0 : 3, orig, n, fx);
	else
		icmp4_send_unreach(c, net ? 0 : 1, orig, n, fx);
}

/**
 * tcp_new_from_guest() - the guest opens a connection
 * @c:		core
 * @iph:	IPv4 or IPv6 header of the SYN (validated)
 * @s:		the SYN
 * @now_ns:	monotonic time
 * @fx:		effects out
 */
static void tcp_new_from_guest(struct core *c, const uint8_t *iph,
			       const struct tcp_seg *s, uint64_t now_ns,
			       struct fx *fx)
{
	uint8_t saddr[ADDR_LEN], daddr[ADDR_LEN], target[ADDR_LEN];
	bool v4 = (iph[0] >> 4) == 4;
	struct fx_intent *it;
	struct tcp_flow *f;

	addr_from_ip(iph, saddr, daddr);
	if (!core_dst_map(c, daddr, target)) {
		if (c->conf.gw_unreach) {
			/* as libslirp: the host's loopback is no route */
			tcp_send_unreach(c, saddr, daddr, s->sport, s->dport,
					 s->seq, true, fx);
			CTR_INC(c, TCP_FLOWS_UNREACH);
			return;
		}
		tcp_send_rst_noflow(c, iph, s, fx);
		CTR_INC(c, TCP_FLOWS_REFUSED);
		return;
	}
	if (core_dns_dst(c, daddr, s->dport)) {
		/* DNS over TCP goes to the first upstream resolver (an IPv4
		 * one, for either family of the guest's connection) */
		if (s->dport != 53 || !c->conf.dns4_upstream_be) {
			tcp_send_rst_noflow(c, iph, s, fx);
			CTR_INC(c, TCP_FLOWS_REFUSED);
			return;
		}
		addr_from4(target, c->conf.dns4_upstream_be);
	}
	f = flow_alloc(c, saddr, s->sport, daddr, s->dport);
	if (!f) {
		tcp_send_rst_noflow(c, iph, s, fx);
		return;
	}
	f->state = TCPS_HOST_CONNECTING;
	f->opened_ns = now_ns;
	f->rcv_nxt = s->seq + 1;
	f->rcv_acked = f->rcv_nxt;
	f->adv_wnd_end = f->rcv_nxt;
	f->guest_wnd = s->wnd;
	f->mss = s->mss ? s->mss : TCP_DEFAULT_MSS;
	f->mss = MIN(f->mss, tcp_mss_max(c, f));
	if (f->mss < 64)
		f->mss = 64;
	if (s->ws >= 0) {
		f->flags |= TCPF_GUEST_WS;
		f->ws_guest = (uint8_t)s->ws;
	}
	if (s->sack_ok) {
		f->flags |= TCPF_SACK_OK;
		CTR_INC(c, TCP_SACK_FLOWS);
	}
	f->iss = (uint32_t)flow_tuple_hash(c->key, saddr, s->sport, daddr,
					   s->dport, 0) +
		 (uint32_t)(now_ns >> 12);
	f->snd_una = f->snd_nxt = f->snd_max = f->iss;
	f->host_space = TCP_INITIAL_SPACE;
	f->rto_ns = c->conf.rto_min_ns;
	CTR_INC(c, TCP_FLOWS_OPENED_GUEST);
	if (!v4)
		CTR_INC(c, TCP_FLOWS_OPENED6);
	it = tcp_intent(c, fx, FX_SOCK_CONNECT, f);
	memcpy(it->addr, target, ADDR_LEN);
	it->port = s->dport;
}

/**
 * tcp_on_sock_connected() - the host socket of a guest-opened flow connected
 * @c:		core
 * @f:		flow (TCPS_HOST_CONNECTING)
 * @err:	0, or the positive errno of the failure
 * @now_ns:	monotonic time
 * @fx:		effects out
 */
void tcp_on_sock_connected(struct core *c, struct tcp_flow *f, int err,
			   uint64_t now_ns, struct fx *fx)
{
	if (f->state != TCPS_HOST_CONNECTING)
		return;
	if (!err) {
		f->state = TCPS_SYNACK_SENT;
		tcp_send_ctl(c, f, fx, TH_SYN | TH_ACK, f->iss);
		f->snd_nxt = f->snd_max = f->iss + 1;
		tcp_arm(c, f, now_ns + f->rto_ns);
		return;
	}
	if (err == ECONNREFUSED || err == ECONNRESET) {
		/* as the remote stack would: RST, ACK of the SYN */
		tcp_send_ctl(c, f, fx, TH_RST | TH_ACK, 0);
		CTR_INC(c, TCP_FLOWS_REFUSED);
	} else {
		tcp_send_unreach(c, f->guest_addr, f->remote_addr,
				 f->guest_port, f->remote_port, f->rcv_nxt - 1,
				 err == ENETUNREACH, fx);
		CTR_INC(c, TCP_FLOWS_UNREACH);
	}
	tcp_flow_end(c, f, fx, FX_SOCK_CLOSE);
}

/**
 * tcp_host_accepted() - a published port accepted a connection
 * @c:		core
 * @src:	source address the guest should see (ADDR_LEN bytes)
 * @src_port:	source port (host order)
 * @dst_port:	guest port (host order)
 * @sock:	the accepted socket (stored in the flow)
 * @now_ns:	monotonic time
 * @fx:		effects out (the SYN)
 *
 * An IPv4 (v4-mapped) source reaches the guest at conf.guest4_be, an IPv6
 * one at conf.guest6, which needs conf.ipv6.
 *
 * Return: the new flow, or NULL if the table is full (counted), the tuple
 *	   is in use or an IPv6 source has no IPv6 to go over; the caller
 *	   then closes @sock
 */
struct tcp_flow *tcp_host_accepted(struct core *c, const uint8_t *src,
				   uint16_t src_port, uint16_t dst_port,
				   int32_t sock, uint64_t now_ns, struct fx *fx)
{
	return tcp_host_accepted_at(c, NULL, src, src_port, dst_port, sock,
				    now_ns, fx);
}

/**
 * tcp_host_accepted_at() - a published port with a guest address of its own
 * accepted a connection
 * @c:		core
 * @gaddr:	guest address to connect to (ADDR_LEN bytes, of @src's
 *		family), or NULL for the configured one (tcp_host_accepted())
 * @src:	source address the guest should see (ADDR_LEN bytes)
 * @src_port:	source port (host order)
 * @dst_port:	guest port (host order)
 * @sock:	the accepted socket (stored in the flow)
 * @now_ns:	monotonic time
 * @fx:		effects out (the SYN)
 *
 * Return: as tcp_host_accepted(); NULL also when @gaddr and @src differ
 *	   in family (counted as IP6_DROP_ADDR)
 */
struct tcp_flow *tcp_host_accepted_at(struct core *c, const uint8_t *gaddr,
				      const uint8_t *src, uint16_t src_port,
				      uint16_t dst_port, int32_t sock,
				      uint64_t now_ns, struct fx *fx)
{
	uint8_t g[ADDR_LEN];
	struct tcp_flow *f;

	if (!core_guest_addr(c, gaddr, src, g))
		return NULL;
	if (flow_lookup(c, g, dst_port, src, src_port)) {
		CTR_INC(c, TCP_DROP_STATE);
		return NULL;
	}
	f = flow_alloc(c, g, dst_port, src, src_port);
	if (!f)
		return NULL;
	f->state = TCPS_SYN_SENT;
	f->sock = sock;
	f->opened_ns = now_ns;
	f->mss = TCP_DEFAULT_MSS;
	f->iss = (uint32_t)flow_tuple_hash(c->key, g, dst_port, src, src_port,
					   1) +
		 (uint32_t)(now_ns >> 12);
	f->snd_una = f->iss;
	f->host_space = TCP_INITIAL_SPACE;
	f->rto_ns = c->conf.rto_min_ns;
	tcp_send_ctl(c, f, fx, TH_SYN, f->iss);
	f->snd_nxt = f->snd_max = f->iss + 1;
	tcp_arm(c, f, now_ns + f->rto_ns);
	CTR_INC(c, TCP_FLOWS_OPENED_HOST);
	if (tcp_flow_v6(f))
		CTR_INC(c, TCP_FLOWS_OPENED6);
	return f;
}

/**
 * tcp_give() - forget a flow that moves to another shard (core_input() set
 * @c->give): no segment, no intent; its socket is the caller's now
 * @c:		core
 * @f:		the flow, in TCPS_SYN_SENT
 * @h:		out: what the other shard needs to go on with it
 */
void tcp_give(struct core *c, struct tcp_flow *f, struct tcp_handover *h)
{
	ASSERT(f->state == TCPS_SYN_SENT);
	FLOW_TUPLE_COPY(h, f);
	h->iss = f->iss;
	h->opened_ns = f->opened_ns;
	f->sock = -1;
	flow_free(c, f);
}

/**
 * tcp_adopt() - take over a flow another shard gave (tcp_give()): it is in
 * TCPS_SYN_SENT, our SYN sent with @h->iss, and the frame that made it move
 * (the guest's SYN-ACK) is the next input
 * @c:		core
 * @h:		the flow as the giver had it
 * @sock:	its socket
 * @now_ns:	monotonic time
 *
 * Return: the flow, or NULL if the table is full (counted) or the tuple is
 *	   in use; the caller then resets @sock
 */
struct tcp_flow *tcp_adopt(struct core *c, const struct tcp_handover *h,
			   int32_t sock, uint64_t now_ns)
{
	struct tcp_flow *f;

	if (flow_lookup(c, h->guest_addr, h->guest_port, h->remote_addr,
			h->remote_port)) {
		CTR_INC(c, TCP_DROP_STATE);
		return NULL;
	}
	f = flow_alloc(c, h->guest_addr, h->guest_port, h->remote_addr,
		       h->remote_port);
	if (!f)
		return NULL;
	f->state = TCPS_SYN_SENT;
	f->sock = sock;
	f->opened_ns = h->opened_ns;
	f->mss = TCP_DEFAULT_MSS;
	f->iss = h->iss;
	f->snd_una = f->iss;
	f->snd_nxt = f->snd_max = f->iss + 1;
	f->host_space = TCP_INITIAL_SPACE;
	f->rto_ns = c->conf.rto_min_ns;
	tcp_arm(c, f, now_ns + f->rto_ns);
	CTR_INC(c, TCP_FLOWS_ADOPTED);
	return f;
}

static void tcp_rewind(struct core *c, struct tcp_flow *f, struct fx *fx);

/* flags that travel with a migrating flow; the rest are per batch or
 * per recovery, and start afresh */
#define TCPF_MIGRATE                                                       \
	(TCPF_GUEST_FIN | TCPF_HOST_EOF | TCPF_FIN_SENT | TCPF_FIN_ACKED | \
	 TCPF_GUEST_WS | TCPF_SACK_OK)

/**
 * tcp_export() - a flow's state for a migration destination
 * @c:		core
 * @f:		flow
 * @now_ns:	monotonic time
 * @t:		out (@t->fd and @t->hflags are the caller's to set)
 *
 * Return: true if the flow migrates
 */
bool tcp_export(const struct core *c, const struct tcp_flow *f, uint64_t now_ns,
		struct mig_tcp *t)
{
	(void)c;
	if (f->state != TCPS_ESTABLISHED && f->state != TCPS_SYN_SENT &&
	    f->state != TCPS_SYNACK_SENT)
		return false;
	memset(t, 0, sizeof(*t));
	FLOW_TUPLE_COPY(t, f);
	t->state = f->state;
	t->ws_guest = f->ws_guest;
	t->flags = f->flags & TCPF_MIGRATE;
	t->mss = f->mss;
	t->iss = f->iss;
	t->snd_una = f->snd_una;
	t->snd_nxt = f->snd_nxt;
	t->snd_max = f->snd_max;
	t->fin_seq = f->fin_seq;
	t->rcv_nxt = f->rcv_nxt;
	t->rcv_acked = f->rcv_acked;
	t->guest_wnd = f->guest_wnd;
	t->host_space = f->host_space;
	t->adv_wnd_end = f->adv_wnd_end;
	t->srtt_us = f->srtt_us;
	t->rto_ns = f->rto_ns;
	t->age_ns = now_ns > f->opened_ns ? now_ns - f->opened_ns : 0;
	t->bytes_from_guest = f->bytes_from_guest;
	t->bytes_to_guest = f->bytes_to_guest;
	return true;
}

/**
 * tcp_export_ooo() - the next guest segment a flow holds beyond a gap
 * @c:		core
 * @f:		flow
 * @i:		in/out: the ooo slot to look from (start at 0)
 * @o:		out: the segment
 *
 * Return: true with @o set, false when there is none more
 */
bool tcp_export_ooo(const struct core *c, const struct tcp_flow *f, uint32_t *i,
		    struct mig_ooo *o)
{
	uint32_t idx = tcp_flow_idx(c, f) + 1;

	if (!(f->flags & TCPF_OOO))
		return false;
	for (; *i < c->conf.ooo_slots; (*i)++) {
		const struct tcp_ooo *s = &c->ooo[*i];

		if (s->flow != idx)
			continue;
		o->seq = s->seq;
		o->fin = s->fin;
		o->len = s->len;
		o->data = c->ooo_data + (size_t)*i * TCP_OOO_SLOT;
		(*i)++;
		return true;
	}
	return false;
}

/**
 * tcp_forget() - drop a flow that migrated: no segment, no intent
 * @c:		core
 * @f:		flow
 */
void tcp_forget(struct core *c, struct tcp_flow *f)
{
	tcp_ooo_drop(c, f);
	f->sock = -1;
	flow_free(c, f);
}

/**
 * tcp_import() - take a flow a migration source handed over
 * @c:		core
 * @t:		its state
 * @sock:	its socket
 * @now_ns:	monotonic time
 * @fx:		effects out
 * @out:	out: the flow
 *
 * Return: NULL, or why the flow was refused
 */
const char *tcp_import(struct core *c, const struct mig_tcp *t, int32_t sock,
		       uint64_t now_ns, struct fx *fx, struct tcp_flow **out)
{
	struct tcp_flow *f;
	const char *why;

	if (t->state != TCPS_ESTABLISHED && t->state != TCPS_SYN_SENT &&
	    t->state != TCPS_SYNACK_SENT)
		return "a TCP flow in a state that does not migrate";
	if (t->flags & ~TCPF_MIGRATE)
		return "a TCP flow with flags that do not migrate";
	if (addr_is4(t->guest_addr) != addr_is4(t->remote_addr) ||
	    (!addr_is4(t->guest_addr) && !c->conf.ipv6))
		return "a TCP flow of mixed or unserved address families";
	if (flow_lookup(c, t->guest_addr, t->guest_port, t->remote_addr,
			t->remote_port))
		return "a TCP flow that is here already";
	f = flow_alloc(c, t->guest_addr, t->guest_port, t->remote_addr,
		       t->remote_port);
	if (!f)
		return "the flow table is full";
	f->state = t->state;
	f->flags = t->flags;
	f->ws_guest = t->ws_guest;
	f->mss = t->mss;
	f->iss = t->iss;
	f->snd_una = t->snd_una;
	f->snd_nxt = t->snd_nxt;
	f->snd_max = t->snd_max;
	f->fin_seq = t->fin_seq;
	f->rcv_nxt = t->rcv_nxt;
	f->rcv_acked = t->rcv_acked;
	f->guest_wnd = t->guest_wnd;
	f->host_space = t->host_space;
	f->adv_wnd_end = t->adv_wnd_end;
	f->srtt_us = t->srtt_us;
	f->rto_ns = MAX(MIN(t->rto_ns, TCP_RTO_MAX_NS), c->conf.rto_min_ns);
	f->opened_ns = now_ns > t->age_ns ? now_ns - t->age_ns : 0;
	f->bytes_from_guest = t->bytes_from_guest;
	f->bytes_to_guest = t->bytes_to_guest;
	why = tcp_flow_bad(f);
	if (!why && f->mss > 65535)
		why = "an MSS out of range";
	/* the rewind puts snd_nxt at snd_una: what is out must be less than
	 * half the sequence space for the order to hold then (and it is far
	 * less: a socket's queue) */
	if (!why && (f->snd_max - f->snd_una > (1U << 30) ||
		     f->rcv_nxt - f->rcv_acked > (1U << 30)))
		why = "more in flight than a socket holds";
	if (!why && f->state == TCPS_ESTABLISHED &&
	    (SEQ_LT(f->adv_wnd_end, f->rcv_nxt) ||
	     f->adv_wnd_end - f->rcv_nxt > (65535U << c->conf.ws_shift)))
		why = "a window beyond what we advertise";
	if (why) {
		flow_free(c, f);
		return why;
	}
	f->sock = sock;
	CTR_INC(c, MIG_TCP_IN);
	*out = f;
	if (f->state != TCPS_ESTABLISHED) {
		/* the SYN or SYN-ACK goes again now */
		tcp_arm(c, f, now_ns);
		return NULL;
	}
	/* what was in flight goes again; the guest hears from us */
	tcp_rewind(c, f, fx);
	if (f->snd_una != f->snd_max)
		tcp_arm(c, f, now_ns + f->rto_ns);
	tcp_ack_later(c, f);
	return NULL;
}

/**
 * tcp_import_ooo() - a held segment of a flow just imported
 * @c:		core
 * @f:		the flow
 * @o:		the segment
 *
 * Return: NULL, or why it was refused
 */
const char *tcp_import_ooo(struct core *c, struct tcp_flow *f,
			   const struct mig_ooo *o)
{
	struct tcp_seg s = { 0 };

	if (f->state != TCPS_ESTABLISHED || (f->flags & TCPF_GUEST_FIN))
		return "a held segment of a flow that takes no data";
	if (!SEQ_GT(o->seq, f->rcv_nxt) || o->len > TCP_OOO_SLOT ||
	    SEQ_GT(o->seq + o->len, f->adv_wnd_end))
		return "a held segment outside the window";
	s.seq = o->seq;
	s.len = o->len;
	s.data = o->data;
	s.flags = o->fin ? TH_FIN : 0;
	tcp_ooo_hold(c, f, &s);
	CTR_INC(c, MIG_OOO_IN);
	return NULL;
}

/**
 * tcp_maybe_close() - end the flow once both FINs are acknowledged
 * @c:	core
 * @f:	flow
 * @fx:	effects out
 *
 * Return: true if the flow was freed
 */
static bool tcp_maybe_close(struct core *c, struct tcp_flow *f, struct fx *fx)
{
	if ((f->flags & (TCPF_GUEST_FIN | TCPF_FIN_ACKED)) !=
	    (TCPF_GUEST_FIN | TCPF_FIN_ACKED))
		return false;
	/* our last ACK of the guest's FIN may still be owed */
	if (f->flags & TCPF_ACK_DUE)
		tcp_send_ctl(c, f, fx, TH_ACK, f->snd_nxt);
	CTR_INC(c, TCP_FLOWS_CLOSED);
	tcp_flow_end(c, f, fx, FX_SOCK_CLOSE);
	return true;
}

/**
 * tcp_sack_trim() - drop from the scoreboard what snd_una has passed
 * @f:	flow
 */
static void tcp_sack_trim(struct tcp_flow *f)
{
	unsigned i, n = 0;

	for (i = 0; i < f->nsack; i++) {
		struct tcp_sack_range r = f->sack[i];

		if (SEQ_LE(r.end, f->snd_una))
			continue;
		if (SEQ_LT(r.start, f->snd_una))
			r.start = f->snd_una; /* the guest ACKed into it */
		f->sack[n++] = r;
	}
	f->nsack = (uint8_t)n;
}

/**
 * tcp_sack_add() - take a range the guest SACKed into the scoreboard
 * @f:		flow
 * @start:	first byte, after snd_una
 * @end:	after the last byte, at most snd_max, after @start
 *
 * Ranges that overlap or touch it merge with it. With more than
 * TCP_SACK_RANGES, the highest is forgotten: holes are resent lowest
 * first, so it is the one needed last.
 *
 * Return: true if the scoreboard holds more than before
 */
static bool tcp_sack_add(struct tcp_flow *f, uint32_t start, uint32_t end)
{
	struct tcp_sack_range *sb = f->sack;
	unsigned i, n = 0, at;

	for (i = 0; i < f->nsack; i++)
		if (SEQ_LE(sb[i].start, start) && SEQ_GE(sb[i].end, end))
			return false; /* known */
	for (i = 0; i < f->nsack; i++) {
		if (SEQ_LT(sb[i].end, start) || SEQ_GT(sb[i].start, end)) {
			sb[n++] = sb[i];
			continue;
		}
		if (SEQ_LT(sb[i].start, start))
			start = sb[i].start;
		if (SEQ_GT(sb[i].end, end))
			end = sb[i].end;
	}
	for (at = 0; at < n && SEQ_LT(sb[at].start, start); at++)
		;
	if (at == TCP_SACK_RANGES)
		return false; /* nothing merged, and above all we keep */
	if (n == TCP_SACK_RANGES)
		n--;
	memmove(sb + at + 1, sb + at, (n - at) * sizeof(*sb));
	sb[at].start = start;
	sb[at].end = end;
	f->nsack = (uint8_t)(n + 1);
	return true;
}

/**
 * tcp_sack_input() - check the SACK blocks of a guest's ACK and keep the
 * good ones
 * @c:	core
 * @f:	flow
 * @s:	segment (its ACK processed: snd_una is up to date)
 *
 * The guest is not trusted: a block must lie within what we sent, after
 * what it acknowledged (RFC 2018 section 3), and start before it ends;
 * anything else is counted and ignored. A block wholly at or below
 * snd_una is old news or a D-SACK (RFC 2883), ignored without a count.
 *
 * Return: true if the scoreboard learned something
 */
static bool tcp_sack_input(struct core *c, struct tcp_flow *f,
			   const struct tcp_seg *s)
{
	bool learned = false;
	unsigned i;

	if (s->sack_bad)
		CTR_INC(c, TCP_SACK_BAD);
	for (i = 0; i < s->nsack; i++) {
		uint32_t start = s->sack[i].start, end = s->sack[i].end;

		if ((f->flags & TCPF_SACK_OK) && SEQ_LT(start, end) &&
		    SEQ_LE(end, f->snd_una))
			continue;
		if (!(f->flags & TCPF_SACK_OK) || !SEQ_LT(start, end) ||
		    !SEQ_GT(start, f->snd_una) || SEQ_GT(end, f->snd_max)) {
			CTR_INC(c, TCP_SACK_BAD);
			continue;
		}
		CTR_INC(c, TCP_SACK_BLOCKS_RECV);
		learned |= tcp_sack_add(f, start, end);
	}
	return learned;
}

/**
 * tcp_sack_hole() - bytes from snd_nxt to the next range the guest SACKed
 * @f:	flow
 *
 * Return: the hole's length; 0 if no range lies beyond snd_nxt (what
 *	   follows the last one is in flight, not known lost), or if
 *	   snd_nxt is within one
 */
static uint32_t tcp_sack_hole(const struct tcp_flow *f)
{
	unsigned i;

	for (i = 0; i < f->nsack; i++) {
		if (SEQ_LE(f->sack[i].end, f->snd_nxt))
			continue;
		if (SEQ_LE(f->sack[i].start, f->snd_nxt))
			return 0;
		return f->sack[i].start - f->snd_nxt;
	}
	return 0;
}

/**
 * tcp_sack_above() - bytes the guest SACKed beyond a sequence number
 * @f:		flow
 * @seq:	sequence number (at a range's start or between ranges)
 *
 * Return: bytes
 */
static uint32_t tcp_sack_above(const struct tcp_flow *f, uint32_t seq)
{
	uint32_t sum = 0;
	unsigned i;

	for (i = 0; i < f->nsack; i++)
		if (SEQ_GE(f->sack[i].start, seq))
			sum += f->sack[i].end - f->sack[i].start;
	return sum;
}

/**
 * tcp_sack_skip() - when resending, move snd_nxt past what the guest
 * SACKed
 * @c:	core
 * @f:	flow
 * @fx:	effects out (FX_SOCK_REWIND with the new peek offset, which lies
 *	ahead; FX_TX_WANTED)
 *
 * Below snd_max (fast recovery, or after a timeout) nothing the guest
 * holds is sent again. The ranges are in order and apart, so one pass
 * finds where snd_nxt lands; it never passes snd_max, and at snd_max
 * (sending new data) it never moves.
 */
static void tcp_sack_skip(struct core *c, struct tcp_flow *f, struct fx *fx)
{
	uint32_t to = f->snd_nxt;
	struct fx_intent *it;
	unsigned i;

	for (i = 0; i < f->nsack; i++)
		if (SEQ_LE(f->sack[i].start, to) && SEQ_LT(to, f->sack[i].end))
			to = f->sack[i].end;
	if (to == f->snd_nxt)
		return;
	CTR_ADD(c, TCP_SACK_SKIPPED, to - f->snd_nxt);
	f->snd_nxt = to;
	it = tcp_intent(c, fx, FX_SOCK_REWIND, f);
	it->len = to - f->snd_una;
	tcp_intent(c, fx, FX_TX_WANTED, f);
}

/**
 * tcp_rewind() - go back to the first unacknowledged byte to resend
 * @c:	core
 * @f:	flow
 * @fx:	effects out
 */
static void tcp_rewind(struct core *c, struct tcp_flow *f, struct fx *fx)
{
	f->flags &= (uint16_t)~TCPF_RECOVER;
	f->rtt_ts_us = 0;
	if (f->snd_nxt == f->snd_una)
		return;
	f->snd_nxt = f->snd_una;
	f->dupacks = 0;
	tcp_intent(c, fx, FX_SOCK_REWIND, f);
	tcp_intent(c, fx, FX_TX_WANTED, f);
}

/**
 * tcp_recover() - resend from snd_una in recovery: the first hole, then
 * what tcp_tx_room() allows
 * @c:	core
 * @f:	flow (something unacknowledged)
 * @fx:	effects out
 *
 * Recovery ends when an ACK covers what was out when it began (@recover);
 * a recovery already going keeps that point (a probe during one).
 */
static void tcp_recover(struct core *c, struct tcp_flow *f, struct fx *fx)
{
	uint32_t recover = (f->flags & TCPF_RECOVER) ? f->recover : f->snd_max;

	tcp_rewind(c, f, fx);
	f->recover = recover;
	f->flags |= TCPF_RECOVER;
	tcp_sack_skip(c, f, fx);
}

/**
 * tcp_process_ack() - handle the ACK field and window of a segment
 * @c:		core
 * @f:		flow (established)
 * @s:		segment
 * @now_ns:	monotonic time
 * @fx:		effects out
 *
 * Return: -1 if the segment must be dropped, else 0
 */
static int tcp_process_ack(struct core *c, struct tcp_flow *f,
			   const struct tcp_seg *s, uint64_t now_ns,
			   struct fx *fx)
{
	uint32_t old_wnd = f->guest_wnd, acked, data_acked;
	bool fin_out = (f->flags & TCPF_FIN_SENT) &&
		       !(f->flags & TCPF_FIN_ACKED);

	/* TCPF_FIN_SENT stays set across a rewind: fin_seq remains valid */

	if (SEQ_GT(s->ack, f->snd_max)) {
		CTR_INC(c, TCP_DROP_BAD_ACK);
		tcp_ack_later(c, f);
		return -1;
	}
	f->guest_wnd = (uint32_t)s->wnd
		       << ((f->flags & TCPF_GUEST_WS) ? f->ws_guest : 0);

	if (SEQ_GT(s->ack, f->snd_una)) {
		acked = s->ack - f->snd_una;
		data_acked = acked;
		if (fin_out && SEQ_GT(s->ack, f->fin_seq)) {
			data_acked = f->fin_seq - f->snd_una;
			f->flags |= TCPF_FIN_ACKED;
		}
		if (data_acked) {
			struct fx_intent *it;

			it = tcp_intent(c, fx, FX_SOCK_CONSUME, f);
			it->len = data_acked;
			CTR_ADD(c, TCP_ACKED_BYTES, data_acked);
			f->bytes_to_guest += data_acked;
		}
		f->snd_una = s->ack;
		if (SEQ_LT(f->snd_nxt, s->ack))
			f->snd_nxt = s->ack;
		if (f->rtt_ts_us && SEQ_GE(s->ack, f->rtt_seq))
			tcp_rtt_sample(f, now_ns);
		tcp_sack_trim(f);
		/* all that was out when recovery began is in: back to normal;
		 * short of it (a partial ACK), the next hole goes out */
		if ((f->flags & TCPF_RECOVER) && SEQ_GE(s->ack, f->recover))
			f->flags &= (uint16_t)~TCPF_RECOVER;
		tcp_sack_input(c, f, s);
		tcp_sack_skip(c, f, fx);
		f->retries = 0;
		f->probes = 0;
		f->dupacks = 0;
		f->rto_ns = c->conf.rto_min_ns;
		tcp_rearm(c, f, now_ns);
		tcp_intent(c, fx, FX_TX_WANTED, f);
	} else {
		/* in recovery, any ACK lets the next frames go, and news of
		 * what the guest holds moves snd_nxt past it */
		if (tcp_sack_input(c, f, s) && (f->flags & TCPF_RECOVER))
			tcp_sack_skip(c, f, fx);
		if (f->flags & TCPF_RECOVER) {
			f->dupacks = 0;
			tcp_intent(c, fx, FX_TX_WANTED, f);
		}
		if (s->ack == f->snd_una && !s->len &&
		    f->guest_wnd == old_wnd &&
		    !(s->flags & (TH_SYN | TH_FIN)) &&
		    f->snd_nxt != f->snd_una && !(f->flags & TCPF_RECOVER) &&
		    ++f->dupacks == 3) {
			/* fast recovery (RFC 6582, NewReno): the guest keeps
			 * what came after the hole, so only the hole is sent
			 * again, one segment per ACK, until an ACK covers all
			 * that was out (f->recover); with SACK, each hole the
			 * guest showed: see tcp_tx_room() */
			CTR_INC(c, TCP_FAST_RETRANS);
			tcp_recover(c, f, fx);
		}
	}
	if (f->guest_wnd > old_wnd) {
		if (f->flags & TCPF_PERSIST)
			tcp_rearm(c, f, now_ns);
		tcp_intent(c, fx, FX_TX_WANTED, f);
	}
	return 0;
}

/**
 * tcp_established_input() - a segment for an established flow
 * @c:		core
 * @f:		flow
 * @s:		segment
 * @now_ns:	monotonic time
 * @fx:		effects out
 */
static void tcp_established_input(struct core *c, struct tcp_flow *f,
				  const struct tcp_seg *s, uint64_t now_ns,
				  struct fx *fx)
{
	const uint8_t *data = s->data;
	uint32_t len = s->len, seq = s->seq;
	struct fx_intent *it;

	if (s->flags & TH_SYN) {
		/* a retransmitted SYN or a new one on a live tuple:
		 * challenge ACK (RFC 5961 4.2) */
		CTR_INC(c, TCP_DROP_STATE);
		tcp_ack_later(c, f);
		return;
	}
	if (!(s->flags & TH_ACK)) {
		CTR_INC(c, TCP_DROP_STATE);
		return;
	}
	if (tcp_process_ack(c, f, s, now_ns, fx))
		return;

	if (len) {
		if (f->flags & TCPF_GUEST_FIN) {
			CTR_INC(c, TCP_DROP_AFTER_FIN);
			tcp_ack_later(c, f);
			goto out;
		}
		if (SEQ_LE(seq + len, f->rcv_nxt)) {
			CTR_INC(c, TCP_DROP_DUP);
			/* a resend that merged old data with a new FIN */
			if ((s->flags & TH_FIN) && seq + len == f->rcv_nxt)
				tcp_guest_fin(c, f, fx);
			tcp_ack_later(c, f);
			goto out;
		}
		if (SEQ_GT(seq, f->rcv_nxt)) {
			/* a segment was lost before this one: a duplicate
			 * ACK for each that follows it, now, so that the
			 * guest resends at once (fast retransmit) instead of
			 * after its timeout. Counted as TCP_DROP_OOO whether
			 * or not a slot keeps it (TCP_OOO_HELD) */
			CTR_INC(c, TCP_DROP_OOO);
			tcp_ooo_hold(c, f, s);
			if (fx_slot_next(fx)) {
				tcp_send_ctl(c, f, fx, TH_ACK, f->snd_nxt);
				CTR_INC(c, TCP_DUPACKS);
			} else {
				tcp_ack_later(c, f);
			}
			goto out;
		}
		data += f->rcv_nxt - seq;
		len -= f->rcv_nxt - seq;
		it = tcp_intent(c, fx, FX_SOCK_SEND, f);
		it->data_owner = FX_DATA_RXBATCH;
		it->data = data;
		it->len = len;
		it->fin = !!(s->flags & TH_FIN);
		return; /* FIN, if any, after the write: tcp_on_sock_sent() */
	}
	if ((s->flags & TH_FIN) && seq == f->rcv_nxt)
		tcp_guest_fin(c, f, fx);
	else if (seq != f->rcv_nxt)
		tcp_ack_later(c, f); /* window probe or keepalive: answer */
out:
	tcp_maybe_close(c, f, fx);
}

/**
 * tcp_on_sock_sent() - result of an FX_SOCK_SEND intent
 * @c:		core
 * @f:		flow
 * @n:		bytes the socket accepted (>= 0), or negative errno
 * @it:		the intent that was carried out
 * @now_ns:	monotonic time
 * @fx:		effects out
 */
void tcp_on_sock_sent(struct core *c, struct tcp_flow *f, long n,
		      const struct fx_intent *it, uint64_t now_ns,
		      struct fx *fx)
{
	(void)now_ns;
	if (it->data_owner == FX_DATA_OOO) /* written, or resent by the guest */
		c->ooo[tcp_ooo_slot_of(c, it->data)].flow = 0;
	if (n < 0) {
		if (n == -EAGAIN) {
			n = 0;
		} else {
			CTR_INC(c, TCP_FLOWS_RESET_BY_HOST);
			tcp_send_ctl(c, f, fx, TH_RST | TH_ACK, f->snd_nxt);
			tcp_flow_end(c, f, fx, FX_SOCK_CLOSE);
			return;
		}
	}
	if ((uint32_t)n < it->len)
		CTR_INC(c, TCP_PARTIAL_WRITES);
	f->rcv_nxt += (uint32_t)n;
	/* the socket's free space shrank by what it took; the host reports
	 * the exact figure after this call, but an ACK sent before that
	 * (tcp_ack_every()) must not offer the old space again: the right
	 * edge never moves back, and the guest would send more than the
	 * socket can hold */
	f->host_space -= MIN((uint32_t)n, f->host_space);
	f->bytes_from_guest += (uint64_t)n;
	f->segs_from_guest++;
	CTR_ADD(c, TCP_GUEST_BYTES, (uint64_t)n);
	if ((uint32_t)n == it->len && it->fin)
		tcp_guest_fin(c, f, fx);
	else if ((uint32_t)n == it->len)
		tcp_ooo_next(c, f, fx); /* held segments the write reached */
	/* one ACK per flow per batch of input frames, and one every
	 * conf.ack_every segments' worth within it (docs/design.md) */
	tcp_ack_later(c, f);
	tcp_ack_every(c, f, fx);
	tcp_maybe_close(c, f, fx);
}

/**
 * tcp_segment() - handle a TCP segment from the guest (tcp_input())
 * @c:		core
 * @iph:	IPv4 or IPv6 header (validated; the version says which)
 * @seg:	segment (header and payload)
 * @now_ns:	monotonic time
 * @fx:		effects out
 */
static void tcp_segment(struct core *c, const uint8_t *iph, struct pkt_view seg,
			uint64_t now_ns, struct fx *fx)
{
	uint8_t saddr[ADDR_LEN], daddr[ADDR_LEN];
	struct tcp_flow *f;
	struct tcp_seg s;

	if (tcp_parse(seg, &s)) {
		CTR_INC(c, TCP_DROP_BAD_HDR);
		return;
	}
	addr_from_ip(iph, saddr, daddr);
	f = flow_lookup(c, saddr, s.sport, daddr, s.dport);
	/* a new flow is opened where its SYN lands; anything else for a
	 * flow we do not have may belong to another shard, but for the tail
	 * of a flow that ended here just now (a SYN-ACK never is one) */
	if (!f && (s.flags & (TH_SYN | TH_ACK | TH_RST)) != TH_SYN &&
	    ((s.flags & TH_SYN) ||
	     !flow_ended_here(c, saddr, s.sport, daddr, s.dport, now_ns)) &&
	    core_pass_on(c, -1))
		return;
	/* the reply to our SYN came in on another shard's queue: the flow
	 * moves there with it (tcp_give()), and is handled, and counted,
	 * there */
	if (f && f->state == TCPS_SYN_SENT && c->in_hop &&
	    c->conf.nshards > 1 &&
	    (s.flags & (TH_SYN | TH_ACK | TH_RST)) == (TH_SYN | TH_ACK) &&
	    s.ack == f->iss + 1) {
		c->give = f;
		c->give_to = (int)((c->conf.shard_id + c->conf.nshards -
				    c->in_hop) %
				   c->conf.nshards);
		return;
	}
	CTR_INC(c, TCP_GUEST_SEGS);
	if (!f) {
		if ((s.flags & (TH_SYN | TH_ACK | TH_RST)) == TH_SYN)
			tcp_new_from_guest(c, iph, &s, now_ns, fx);
		else if (!(s.flags & TH_RST))
			tcp_send_rst_noflow(c, iph, &s, fx);
		return;
	}

	if (s.flags & TH_RST) {
		/* accept an RST only at the expected sequence, or anywhere
		 * in the window we advertised (RFC 5961 would challenge) */
		if (f->state == TCPS_SYN_SENT) {
			if (!(s.flags & TH_ACK) || s.ack != f->iss + 1)
				return;
			CTR_INC(c, TCP_FLOWS_GUEST_REFUSED);
		} else if (f->state != TCPS_HOST_CONNECTING &&
			   (SEQ_LT(s.seq, f->rcv_nxt) ||
			    SEQ_GT(s.seq, f->adv_wnd_end))) {
			CTR_INC(c, TCP_DROP_STATE);
			return;
		} else {
			CTR_INC(c, TCP_FLOWS_RESET_BY_GUEST);
		}
		tcp_flow_end(c, f, fx, FX_SOCK_RESET);
		return;
	}

	switch (f->state) {
	case TCPS_HOST_CONNECTING:
		/* the guest retransmits its SYN while we connect */
		CTR_INC(c, TCP_DROP_STATE);
		return;
	case TCPS_SYN_SENT:
		if ((s.flags & (TH_SYN | TH_ACK)) != (TH_SYN | TH_ACK) ||
		    s.ack != f->iss + 1) {
			CTR_INC(c, TCP_DROP_STATE);
			if (s.flags & TH_ACK)
				tcp_send_rst_noflow(c, iph, &s, fx);
			return;
		}
		f->rcv_nxt = s.seq + 1;
		f->rcv_acked = f->rcv_nxt;
		f->adv_wnd_end = f->rcv_nxt;
		f->mss = MIN(s.mss ? s.mss : TCP_DEFAULT_MSS,
			     tcp_mss_max(c, f));
		f->mss = MAX(f->mss, 64U);
		if (s.ws >= 0) {
			f->flags |= TCPF_GUEST_WS;
			f->ws_guest = (uint8_t)s.ws;
		}
		if (s.sack_ok) {
			f->flags |= TCPF_SACK_OK;
			CTR_INC(c, TCP_SACK_FLOWS);
		}
		f->guest_wnd = s.wnd; /* never scaled in a SYN */
		f->snd_una = f->iss + 1;
		f->state = TCPS_ESTABLISHED;
		f->retries = 0;
		tcp_arm(c, f, 0);
		tcp_ack_later(c, f);
		tcp_intent(c, fx, FX_TX_WANTED, f);
		return;
	case TCPS_SYNACK_SENT:
		if ((s.flags & (TH_SYN | TH_ACK)) == TH_SYN) {
			/* our SYN-ACK was lost: send it again */
			tcp_send_ctl(c, f, fx, TH_SYN | TH_ACK, f->iss);
			return;
		}
		if (!(s.flags & TH_ACK) || s.ack != f->iss + 1) {
			CTR_INC(c, TCP_DROP_STATE);
			return;
		}
		f->state = TCPS_ESTABLISHED;
		f->snd_una = f->iss + 1;
		f->retries = 0;
		tcp_arm(c, f, 0);
		tcp_intent(c, fx, FX_TX_WANTED, f);
		/* fall through: the ACK may carry data */
		tcp_established_input(c, f, &s, now_ns, fx);
		return;
	case TCPS_ESTABLISHED:
		tcp_established_input(c, f, &s, now_ns, fx);
		return;
	default:
		ASSERT(0);
	}
}

/**
 * tcp_input() - a TCP segment from the guest
 * @c:		core
 * @iph:	IPv4 or IPv6 header (validated; the version says which)
 * @seg:	segment (header and payload)
 * @now_ns:	monotonic time
 * @fx:		effects out
 *
 * Debug builds then check the flow of the segment's tuple, if there is one
 * (tcp_flow_check()).
 */
void tcp_input(struct core *c, const uint8_t *iph, struct pkt_view seg,
	       uint64_t now_ns, struct fx *fx)
{
	uint8_t saddr[ADDR_LEN], daddr[ADDR_LEN];
	const struct tcp_flow *f;

	tcp_segment(c, iph, seg, now_ns, fx);
	if (!DEBUG_CHECKS || seg.len < 4)
		return;
	addr_from_ip(iph, saddr, daddr);
	f = flow_lookup(c, saddr, rd16(seg.p), daddr, rd16(seg.p + 2));
	if (f)
		tcp_flow_check(f);
}

/**
 * tcp_tx_room() - how many payload bytes may go to the guest now
 * @c:		core
 * @f:		flow
 * @now_ns:	monotonic time (arms a zero-window probe when blocked)
 * @off:	out: offset of the next byte to send past the first unacked
 * @mss:	out: largest payload per frame (a whole number of segments
 *		when GSO super-frames go to the guest)
 *
 * Return: bytes allowed by the guest's window and the in-flight cap, and
 *	   in recovery only the next hole; 0 before ESTABLISHED and once
 *	   our FIN is out
 */
uint32_t tcp_tx_room(struct core *c, struct tcp_flow *f, uint64_t now_ns,
		     uint32_t *off, uint32_t *mss)
{
	uint32_t inflight = f->snd_nxt - f->snd_una, room,
		 gso = c->conf.gso_max;

	*off = inflight;
	*mss = f->mss;
	/* conf.gso_max fits an IPv4 frame in a slot: IPv6 headers take 20
	 * bytes more of it */
	if (tcp_flow_v6(f))
		gso = gso > IP6_HLEN - IP4_HLEN ? gso - (IP6_HLEN - IP4_HLEN) :
						  0;
	/* GSO super-frames toward the guest, a whole number of segments
	 * each (no runt segment at the end of every super-frame) */
	if (gso >= 2 * f->mss)
		*mss = gso / f->mss * f->mss;
	if (f->state != TCPS_ESTABLISHED)
		return 0;
	if ((f->flags & TCPF_FIN_SENT) && SEQ_GT(f->snd_nxt, f->fin_seq))
		return 0;
	room = f->guest_wnd > inflight ? f->guest_wnd - inflight : 0;
	if (c->conf.max_inflight)
		room = MIN(room, c->conf.max_inflight > inflight ?
					 c->conf.max_inflight - inflight :
					 0);
	if ((f->flags & TCPF_RECOVER) && f->probes && inflight) {
		/* a probe resends the first hole only, then waits for the
		 * ACK it brings (tcp_timer()) */
		room = 0;
	} else if ((f->flags & TCPF_RECOVER) && f->nsack) {
		/* the hole up to the next range the guest SACKed: the first
		 * one at once (three duplicate ACKs or a partial ACK said it
		 * is lost), the next ones when the guest SACKed more than
		 * (DupThresh - 1) * SMSS beyond them (RFC 6675 IsLost()) */
		uint32_t hole = tcp_sack_hole(f);

		if (hole && inflight &&
		    tcp_sack_above(f, f->snd_nxt + hole) <= 2 * f->mss)
			hole = 0;
		/* two frames per ACK: the guest's SACK blocks cannot name
		 * all it holds, and its ACKs tell what a hole really is */
		room = MIN(room,
			   MIN(hole,
			       f->dupacks >= 2 ? 0 : (2U - f->dupacks) * *mss));
	} else if (f->nsack) {
		/* resending after a timeout: all but what the guest SACKed
		 * (tcp_sack_skip() jumps over it) */
		uint32_t hole = tcp_sack_hole(f);

		if (hole)
			room = MIN(room, hole);
	} else if (f->flags & TCPF_RECOVER) {
		/* one hole at a time: a segment from snd_una, then wait for
		 * the ACK it brings */
		room = inflight ?
			       0 :
			       MIN(room, MIN(f->mss, f->recover - f->snd_una));
		*mss = f->mss;
	}
	if (!room && !inflight && !(f->flags & TCPF_PERSIST)) {
		/* nothing in flight and a closed window: probe it (this
		 * replaces a retransmission deadline with nothing to resend) */
		f->flags |= TCPF_PERSIST;
		tcp_arm(c, f, now_ns + f->rto_ns);
	}
	return room;
}

/**
 * tcp_build_data() - finish a data frame whose payload the host placed
 * @c:		core
 * @f:		flow
 * @fx:		effects batch; the payload is in fx_slot_next() at
 *		tcp_payload_off(@c, @f)
 * @len:	payload bytes placed
 * @now_ns:	monotonic time
 */
void tcp_build_data(struct core *c, struct tcp_flow *f, struct fx *fx,
		    uint32_t len, uint64_t now_ns)
{
	if (tcp_write_frame(c, f, fx, TH_ACK | TH_PSH, f->snd_nxt, NULL, 0,
			    len))
		return;
	/* what lies below snd_max went out before: count what is resent,
	 * not what a rewind skipped back over (fast recovery resends only
	 * the holes) */
	if (SEQ_LT(f->snd_nxt, f->snd_max)) {
		uint32_t again = MIN(len, f->snd_max - f->snd_nxt);

		if (f->flags & TCPF_RECOVER)
			f->dupacks++; /* frames resent since the last ACK */
		f->resends++;

		CTR_ADD(c, TCP_RETRANS_BYTES, again);
		if (f->nsack)
			CTR_ADD(c, TCP_SACK_RESENT, again);
	}
	if (!f->rtt_ts_us && f->snd_nxt == f->snd_max) {
		/* new data and nothing timed: time this segment */
		f->rtt_seq = f->snd_nxt + len;
		f->rtt_ts_us = (uint32_t)(now_ns / 1000) | 1;
	}
	f->snd_nxt += len;
	if (SEQ_GT(f->snd_nxt, f->snd_max))
		f->snd_max = f->snd_nxt;
	/* a hole ends where a SACKed range starts: on to the next hole */
	tcp_sack_skip(c, f, fx);
	CTR_INC(c, TCP_TX_SEGS);
	CTR_ADD(c, TCP_TX_BYTES, len);
	f->segs_to_guest += len > f->mss && f->mss ?
				    (len + f->mss - 1) / f->mss :
				    1;
	/* a first deadline; or the RTO that one segment out had, now that
	 * more are out and a probe would come sooner */
	if (!f->deadline_ns || (f->flags & TCPF_PERSIST) ||
	    (!(f->flags & TCPF_PTO) && !f->probes && tcp_probe_ok(f) &&
	     f->snd_max - f->snd_una - len < 2 * f->mss)) {
		f->flags &= (uint16_t)~TCPF_PERSIST;
		tcp_arm_data(c, f, now_ns);
	}
}

/**
 * tcp_on_sock_eof() - the host socket has no more data (peek returned 0)
 * @c:		core
 * @f:		flow
 * @now_ns:	monotonic time
 * @fx:		effects out
 */
void tcp_on_sock_eof(struct core *c, struct tcp_flow *f, uint64_t now_ns,
		     struct fx *fx)
{
	if (f->state != TCPS_ESTABLISHED)
		return;
	f->flags |= TCPF_HOST_EOF;
	if ((f->flags & TCPF_FIN_SENT) && SEQ_GT(f->snd_nxt, f->fin_seq))
		return; /* already out */
	if (fx_slot_next(fx) == NULL) {
		CTR_INC(c, FX_POOL_EMPTY);
		return;
	}
	f->fin_seq = f->snd_nxt;
	f->flags |= TCPF_FIN_SENT;
	tcp_send_ctl(c, f, fx, TH_FIN | TH_ACK, f->snd_nxt);
	f->snd_nxt++;
	if (SEQ_GT(f->snd_nxt, f->snd_max))
		f->snd_max = f->snd_nxt;
	if (!f->deadline_ns || (f->flags & TCPF_PERSIST)) {
		f->flags &= (uint16_t)~TCPF_PERSIST;
		tcp_arm(c, f, now_ns + f->rto_ns);
	}
}

/**
 * tcp_on_sock_error() - the host socket failed (reset, error)
 * @c:		core
 * @f:		flow; freed
 * @fx:		effects out
 */
void tcp_on_sock_error(struct core *c, struct tcp_flow *f, struct fx *fx)
{
	CTR_INC(c, TCP_FLOWS_RESET_BY_HOST);
	if (f->state == TCPS_ESTABLISHED || f->state == TCPS_SYNACK_SENT)
		tcp_send_ctl(c, f, fx, TH_RST | TH_ACK, f->snd_nxt);
	tcp_flow_end(c, f, fx, FX_SOCK_CLOSE);
}

/**
 * tcp_set_host_space() - the host socket's free send space changed
 * @c:		core
 * @f:		flow
 * @space:	bytes the socket can take now
 *
 * Receiver-side silly window avoidance (RFC 1122 4.2.3.3): a window update
 * is queued when the window can grow by at least min(MSS, space / 2).
 */
void tcp_set_host_space(struct core *c, struct tcp_flow *f, uint32_t space)
{
	uint32_t remaining = SEQ_GT(f->adv_wnd_end, f->rcv_nxt) ?
				     f->adv_wnd_end - f->rcv_nxt :
				     0;
	unsigned shift = (f->flags & TCPF_GUEST_WS) ? c->conf.ws_shift : 0;
	uint32_t thr;

	f->host_space = space;
	if (f->state != TCPS_ESTABLISHED || (f->flags & TCPF_GUEST_FIN))
		return;
	/* decide on what the window field can express */
	space = MIN(space >> shift, 65535U) << shift;
	thr = MIN(f->mss, space / 2);
	if (space > remaining && space - remaining >= thr) {
		if (!(f->flags & TCPF_ACK_DUE) && remaining < thr)
			CTR_INC(c, TCP_WND_UPDATES);
		tcp_ack_later(c, f);
	}
}

/**
 * tcp_timer_fire() - run one flow's expired deadline (tcp_timer())
 * @c:		core
 * @f:		flow
 * @now_ns:	monotonic time
 * @fx:		effects out
 */
static void tcp_timer_fire(struct core *c, struct tcp_flow *f, uint64_t now_ns,
			   struct fx *fx)
{
	bool pto = f->flags & TCPF_PTO;

	f->flags &= (uint16_t)~TCPF_PTO;
	f->deadline_ns = 0;
	switch (f->state) {
	case TCPS_SYN_SENT:
	case TCPS_SYNACK_SENT:
		if (++f->retries > TCP_SYN_RETRIES) {
			CTR_INC(c, TCP_FLOWS_GIVEUP);
			if (f->state == TCPS_SYNACK_SENT)
				tcp_send_ctl(c, f, fx, TH_RST | TH_ACK,
					     f->iss + 1);
			tcp_flow_end(c, f, fx, FX_SOCK_RESET);
			return;
		}
		tcp_send_ctl(c, f, fx,
			     f->state == TCPS_SYN_SENT ? TH_SYN :
							 TH_SYN | TH_ACK,
			     f->iss);
		f->rto_ns = MIN(f->rto_ns * 2, TCP_RTO_MAX_NS);
		tcp_arm(c, f, now_ns + f->rto_ns);
		return;
	case TCPS_ESTABLISHED:
		break;
	default:
		return;
	}

	if (f->flags & TCPF_PERSIST) {
		/* zero-window probe: an old sequence elicits an ACK */
		CTR_INC(c, TCP_ZW_PROBES);
		tcp_send_ctl(c, f, fx, TH_ACK, f->snd_una - 1);
		f->rto_ns = MIN(f->rto_ns * 2, TCP_RTO_MAX_NS);
		tcp_arm(c, f, now_ns + f->rto_ns);
		return;
	}
	if (f->snd_nxt == f->snd_una)
		return;
	if (pto) {
		/* the probe: what a lost frame or a lost retransmission
		 * left undone goes again, the first hole (or one segment
		 * without SACK) as in fast recovery; the guest's answer
		 * shows the rest. Then a probe twice as late, up to the RTO,
		 * if the guest stays silent */
		CTR_INC(c, TCP_PTO_FIRED);
		tcp_recover(c, f, fx);
		f->probes++;
		tcp_arm_data(c, f, now_ns);
		return;
	}
	if (++f->retries > TCP_DATA_RETRIES) {
		CTR_INC(c, TCP_FLOWS_GIVEUP);
		tcp_reset_both(c, f, fx);
		return;
	}
	CTR_INC(c, TCP_RTO_FIRED);
	/* the first timeout resends only what the guest did not SACK; a
	 * second one in a row forgets the scoreboard: the guest may have
	 * reneged (RFC 2018 section 8, RFC 6675 section 5.1) */
	if (f->retries > 1)
		f->nsack = 0;
	tcp_rewind(c, f, fx);
	tcp_sack_skip(c, f, fx);
	f->rto_ns = MIN(f->rto_ns * 2, TCP_RTO_MAX_NS);
	tcp_arm(c, f, now_ns + f->rto_ns);
}

/**
 * tcp_timer() - run one flow's expired deadline
 * @c:		core
 * @f:		flow
 * @now_ns:	monotonic time
 * @fx:		effects out
 *
 * Debug builds then check the flow, ended or not (tcp_flow_check()).
 */
void tcp_timer(struct core *c, struct tcp_flow *f, uint64_t now_ns,
	       struct fx *fx)
{
	tcp_timer_fire(c, f, now_ns, fx);
	if (DEBUG_CHECKS)
		tcp_flow_check(f);
}

/**
 * tcp_ack_flush() - send the ACKs queued during a batch
 * @c:		core
 * @fx:		effects out
 *
 * Stops early if the frame slots run out; the rest stay queued.
 */
void tcp_ack_flush(struct core *c, struct fx *fx)
{
	while (c->nacks) {
		uint32_t idx = c->ack_list[c->nacks - 1];
		struct tcp_flow *f = &c->flows[idx];

		ASSERT(f->state != TCPS_FREE && (f->flags & TCPF_ACK_LISTED));
		if (f->flags & TCPF_ACK_DUE) {
			if (!fx_slot_next(fx))
				return;
			tcp_send_ctl(c, f, fx, TH_ACK, f->snd_nxt);
		}
		c->nacks--;
		f->flags &= (uint16_t) ~(TCPF_ACK_DUE | TCPF_ACK_LISTED);
	}
}

/**
 * tcp_flow_bad() - which rule of the state table in tcp.h a flow breaks
 * @f:	flow, in use or free
 *
 * Return: NULL if it keeps them all, else the rule it breaks
 */
const char *tcp_flow_bad(const struct tcp_flow *f)
{
	uint32_t hs_nxt;
	unsigned i;

	if (f->state >= TCPS_STATE_NUM)
		return "state out of range";
	if (f->flags & ~tcp_state_flags[f->state])
		return "a flag its state does not allow";
	if (f->state == TCPS_FREE)
		return f->deadline_ns ? "a free flow with a deadline" : NULL;
	if ((f->flags & TCPF_FIN_SENT) && !(f->flags & TCPF_HOST_EOF))
		return "FIN_SENT without HOST_EOF";
	if ((f->flags & TCPF_FIN_ACKED) && !(f->flags & TCPF_FIN_SENT))
		return "FIN_ACKED without FIN_SENT";
	if ((f->flags & (TCPF_FIN_ACKED | TCPF_GUEST_FIN)) ==
	    (TCPF_FIN_ACKED | TCPF_GUEST_FIN))
		return "both FINs done and the flow still there";
	if ((f->flags & TCPF_ACK_DUE) && !(f->flags & TCPF_ACK_LISTED))
		return "ACK_DUE without ACK_LISTED";
	if ((f->flags & TCPF_PTO) &&
	    ((f->flags & TCPF_PERSIST) || !f->deadline_ns))
		return "PTO with PERSIST or without a deadline";
	if (SEQ_GT(f->snd_una, f->snd_nxt) || SEQ_GT(f->snd_nxt, f->snd_max))
		return "not snd_una <= snd_nxt <= snd_max";
	hs_nxt = f->iss + (f->state != TCPS_HOST_CONNECTING);
	if (f->state != TCPS_ESTABLISHED &&
	    (f->snd_una != f->iss || f->snd_nxt != hs_nxt ||
	     f->snd_max != hs_nxt))
		return "handshake sequence numbers off iss";
	if (f->state == TCPS_HOST_CONNECTING && f->deadline_ns)
		return "a deadline while the host connects";
	if (SEQ_GT(f->rcv_acked, f->rcv_nxt))
		return "rcv_acked beyond rcv_nxt";
	if (f->mss < 64)
		return "mss below 64";
	if (f->ws_guest > 14 || (f->ws_guest && !(f->flags & TCPF_GUEST_WS)))
		return "ws_guest out of range or without GUEST_WS";
	if ((f->flags & TCPF_FIN_SENT) && !SEQ_LT(f->fin_seq, f->snd_max))
		return "fin_seq not below snd_max";
	if (f->nsack > TCP_SACK_RANGES ||
	    (f->nsack && !(f->flags & TCPF_SACK_OK)))
		return "SACK scoreboard too long or without SACK_OK";
	for (i = 0; i < f->nsack; i++) {
		const struct tcp_sack_range *r = &f->sack[i];

		if (SEQ_LT(r->start, f->snd_una) || !SEQ_LT(r->start, r->end) ||
		    SEQ_GT(r->end, f->snd_max) ||
		    (i && !SEQ_LT(f->sack[i - 1].end, r->start)))
			return "SACK scoreboard out of order or bounds";
	}
	return NULL;
}

/**
 * tcp_flow_check() - assert that a flow keeps the state table in tcp.h
 * @f:	flow, in use or free
 *
 * Debug builds run it after every segment and timer (tcp_input(),
 * tcp_timer()); the stateful fuzzer runs tcp_flows_check() after every
 * step.
 */
void tcp_flow_check(const struct tcp_flow *f)
{
	ASSERT_KEPT(tcp_flow_bad(f));
}

/**
 * tcp_flows_bad() - what breaks the state table in a core's TCP state
 * @c:	core
 *
 * Besides each flow's rules (tcp_flow_bad()): flows at or above the high
 * water mark are free, the ack list holds exactly the ACK_LISTED flows,
 * and every held ooo slot belongs to an ESTABLISHED flow with TCPF_OOO.
 * Walks the whole table: for tests and the fuzzer, not the data path.
 *
 * Return: NULL if all is well, else the rule broken
 */
const char *tcp_flows_bad(const struct core *c)
{
	uint32_t i, listed = 0;
	const char *why;

	if (c->hiwat > c->conf.max_flows || c->nacks > c->conf.max_flows)
		return "hiwat or nacks beyond the table";
	for (i = 0; i < c->conf.max_flows; i++) {
		const struct tcp_flow *f = &c->flows[i];

		why = tcp_flow_bad(f);
		if (why)
			return why;
		if (i >= c->hiwat && f->state != TCPS_FREE)
			return "a flow in use above the high water mark";
		listed += !!(f->flags & TCPF_ACK_LISTED);
	}
	if (listed != c->nacks)
		return "ACK_LISTED flows and the ack list differ";
	for (i = 0; i < c->nacks; i++)
		if (c->ack_list[i] >= c->conf.max_flows ||
		    !(c->flows[c->ack_list[i]].flags & TCPF_ACK_LISTED))
			return "the ack list names a flow not ACK_LISTED";
	for (i = 0; i < c->conf.ooo_slots; i++) {
		const struct tcp_ooo *o = &c->ooo[i];
		const struct tcp_flow *f;

		if (!o->flow)
			continue;
		if (o->flow > c->conf.max_flows || o->len > TCP_OOO_SLOT)
			return "an ooo slot out of range";
		f = &c->flows[o->flow - 1];
		if (f->state != TCPS_ESTABLISHED || !(f->flags & TCPF_OOO))
			return "an ooo slot of a flow without TCPF_OOO";
	}
	return NULL;
}

/**
 * tcp_flows_check() - assert that a core's TCP state keeps the table
 * @c:	core
 */
void tcp_flows_check(const struct core *c)
{
	ASSERT_KEPT(tcp_flows_bad(c));
}

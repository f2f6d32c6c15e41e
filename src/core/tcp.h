/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tcp.h - the guest-facing half of each TCP flow */
#ifndef SLIPWAY_TCP_H
#define SLIPWAY_TCP_H

#include "core.h"

/**
 * enum tcp_state - where a flow is in its life
 * @TCPS_FREE:		slot unused; no field is meaningful
 * @TCPS_HOST_CONNECTING: guest SYN seen, host connect in progress; we answer
 *			nothing until tcp_on_sock_connected()
 * @TCPS_SYNACK_SENT:	host connected, SYN-ACK sent, waiting for the ACK
 * @TCPS_SYN_SENT:	published port: host accepted, SYN sent to the guest
 * @TCPS_ESTABLISHED:	data both ways; half-close is tracked in @flags
 * @TCPS_STATE_NUM:	count
 */
enum tcp_state {
	TCPS_FREE,
	TCPS_HOST_CONNECTING,
	TCPS_SYNACK_SENT,
	TCPS_SYN_SENT,
	TCPS_ESTABLISHED,
	TCPS_STATE_NUM
};

extern const char *const tcp_state_str[TCPS_STATE_NUM];

/* Flow event flags; which states allow which: below */
#define TCPF_GUEST_FIN 0x01   /* guest's FIN taken in order, SHUT_WR queued */
#define TCPF_HOST_EOF 0x02    /* host socket reached end of stream */
#define TCPF_FIN_SENT 0x04    /* our FIN went out (seq fin_seq); stays set */
#define TCPF_FIN_ACKED 0x08   /* the guest acknowledged our FIN */
#define TCPF_ACK_DUE 0x10     /* an ACK is owed at the end of the batch */
#define TCPF_GUEST_WS 0x20    /* the guest does window scaling */
#define TCPF_PTO 0x40	      /* the timer is a probe timeout (tcp_timer()) */
#define TCPF_PERSIST 0x80     /* the timer is a zero-window probe */
#define TCPF_ACK_LISTED 0x100 /* on the core's ack list */
#define TCPF_RESET_HERE 0x200 /* we reset the guest: its tail may follow */
#define TCPF_OOO 0x400	      /* it may hold slots of the core's ooo store */
#define TCPF_RECOVER 0x800    /* fast recovery: resend the holes */
#define TCPF_SACK_OK 0x1000   /* both sides offered SACK (RFC 2018) */

/*
 * Legal combinations of state and flags between two calls into the core,
 * asserted by tcp_flow_check() ("x": may be set, "-": never set):
 *
 *			FREE	HOST_	SYNACK_	SYN_	ESTAB-
 *				CONN.	SENT	SENT	LISHED
 * GUEST_FIN		-	-	-	-	x
 * HOST_EOF		-	-	-	-	x
 * FIN_SENT		-	-	-	-	x (1)
 * FIN_ACKED		-	-	-	-	x (2)
 * ACK_DUE		-	-	-	-	x (3)
 * GUEST_WS		-	x	x	-	x
 * PTO			-	-	-	-	x (5)
 * PERSIST		-	-	-	-	x
 * ACK_LISTED		-	-	-	-	x
 * RESET_HERE		-	-	-	-	- (4)
 * OOO			-	-	-	-	x
 * RECOVER		-	-	-	-	x
 * SACK_OK		-	x	x	-	x
 *
 * (1) only with HOST_EOF; (2) only with FIN_SENT, and never with
 * GUEST_FIN (both FINs done: the flow has ended); (3) only with
 * ACK_LISTED; (4) set only on the way to flow_free(); (5) never with
 * PERSIST, and only with a deadline. A SYN_SENT flow
 * learns the guest's options from its SYN-ACK, which makes it ESTABLISHED
 * in the same step.
 *
 * Besides the flags, in every state but FREE: snd_una <= snd_nxt <=
 * snd_max (before ESTABLISHED: snd_una = iss and snd_nxt = snd_max = iss,
 * or iss + 1 once our SYN is out), rcv_acked <= rcv_nxt, mss >= 64,
 * ws_guest <= 14 (0 without GUEST_WS), the SACK scoreboard in order and
 * apart within [snd_una, snd_max] (empty without SACK_OK), and with
 * FIN_SENT, fin_seq < snd_max. A HOST_CONNECTING flow has no deadline
 * (nothing to resend), a FREE one no flags and no deadline, and an ooo
 * slot names only an ESTABLISHED flow with OOO. tcp.c keeps the table as
 * tcp_state_flags[].
 */

#define TCP_OOO_SLOT 65536 /* payload bytes an ooo slot holds */
#define TCP_SACK_RANGES 4  /* ranges the guest SACKed that a flow keeps */

/**
 * struct tcp_sack_range - bytes the guest said it holds beyond snd_una
 * @start:	sequence number of the first byte
 * @end:	sequence number after the last byte
 */
struct tcp_sack_range {
	uint32_t start;
	uint32_t end;
};

/**
 * struct tcp_ooo - a guest segment held until the gap before it is filled
 * @flow:	its flow's index + 1 (0: the slot is free)
 * @seq:	sequence number of its first byte
 * @len:	payload bytes (in the core's ooo_data, slot index * TCP_OOO_SLOT)
 * @fin:	it carried FIN
 * @newest:	the flow's segment held last (the first SACK block we send
 *		describes the data around it, RFC 2018 section 4)
 */
struct tcp_ooo {
	uint32_t flow;
	uint32_t seq;
	uint32_t len;
	bool fin;
	bool newest;
};

/**
 * struct tcp_flow - one TCP connection between the guest and a host socket
 * @guest_addr:	guest-side address (ADDR_LEN bytes, IPv4 v4-mapped)
 * @remote_addr: remote address as the guest sees it; same family
 * @guest_port:	guest-side port (host order)
 * @remote_port: remote port as the guest sees it (host order)
 * @flags:	TCPF_*
 * @state:	enum tcp_state
 * @retries:	consecutive timeouts without progress
 * @dupacks:	duplicate ACK count; in recovery, frames resent since the
 *		last ACK (two may go per ACK)
 * @ws_guest:	the guest's window scale
 * @nsack:	ranges in @sack
 * @probes:	probe timeouts since the guest last acknowledged new data
 * @sock:	host socket, owned by the host layer: the core only tests it
 *		for -1 (none) and copies it into the flow's intents
 * @next:	hash chain / free list link (index + 1, 0 = end)
 * @mss:	largest segment payload toward the guest
 * @iss:	our initial sequence number
 * @snd_una:	oldest unacknowledged sequence toward the guest
 * @snd_nxt:	next sequence to send to the guest
 * @snd_max:	the highest @snd_nxt so far: one past the last sequence sent
 * @fin_seq:	sequence number of our FIN (valid with TCPF_FIN_SENT)
 * @recover:	with TCPF_RECOVER: @snd_max when the fast retransmit began
 * @rcv_nxt:	next sequence expected from the guest
 * @rcv_acked:	@rcv_nxt as of the last ACK sent to the guest (pure or on
 *		data)
 * @guest_wnd:	the guest's receive window, in bytes
 * @host_space:	bytes the host socket can take now: reported by the host
 *		(tcp_set_host_space()), less what was written since
 * @adv_wnd_end: right edge of the window last advertised to the guest
 * @sack:	the scoreboard: ranges the guest SACKed, within
 *		(@snd_una, @snd_max], in order, apart (neither overlapping
 *		nor touching); fast recovery resends only what lies between
 *		them (with TCPF_SACK_OK)
 * @srtt_us:	smoothed round-trip time to the guest, microseconds (0:
 *		no sample yet)
 * @resends:	segments sent to the guest again (a retransmission, a
 *		fast recovery's hole, a rewind's replay)
 * @rtt_seq:	with @rtt_ts_us: the ACK that ends the timed segment
 * @rtt_ts_us:	when the timed segment went out, microseconds, truncated
 *		(0: none timed; Karn: a resend ends the timing)
 * @rto_ns:	current retransmission timeout
 * @deadline_ns: timer deadline (0: none)
 * @opened_ns:	creation time
 * @bytes_from_guest: payload accepted by the host socket
 * @bytes_to_guest: payload acknowledged by the guest
 * @segs_from_guest: guest segments whose payload a host socket took
 *		(one per write)
 * @segs_to_guest: data segments sent to the guest (a GSO super-frame
 *		counts its segments)
 *
 * The address the host socket connects to (the remote address, or host
 * loopback for the gateway) is not kept: it travels in the
 * FX_SOCK_CONNECT intent, the only place it is needed. Fields are ordered
 * by size, so the 16-byte addresses cost 32 bytes; @resends fills what
 * was padding before @rto_ns, and the two segment counters (ctl flows)
 * make 200 bytes.
 */
struct tcp_flow {
	uint8_t guest_addr[ADDR_LEN];
	uint8_t remote_addr[ADDR_LEN];
	uint16_t guest_port;
	uint16_t remote_port;
	uint16_t flags;
	uint8_t state;
	uint8_t retries;
	uint8_t dupacks;
	uint8_t ws_guest;
	uint8_t nsack;
	uint8_t probes;
	int32_t sock;
	uint32_t next;
	uint32_t mss;
	uint32_t iss;
	uint32_t snd_una;
	uint32_t snd_nxt;
	uint32_t snd_max;
	uint32_t fin_seq;
	uint32_t recover;
	uint32_t rcv_nxt;
	uint32_t rcv_acked;
	uint32_t guest_wnd;
	uint32_t host_space;
	uint32_t adv_wnd_end;
	struct tcp_sack_range sack[TCP_SACK_RANGES];
	uint32_t srtt_us;
	uint32_t rtt_seq;
	uint32_t rtt_ts_us;
	uint32_t resends;
	uint64_t rto_ns;
	uint64_t deadline_ns;
	uint64_t opened_ns;
	uint64_t bytes_from_guest;
	uint64_t bytes_to_guest;
	uint32_t segs_from_guest;
	uint32_t segs_to_guest;
};

_Static_assert(sizeof(struct tcp_flow) <= 200, "keep a flow small");

/**
 * tcp_flow_v6() - is a flow an IPv6 one?
 * @f:	flow
 *
 * Return: true for IPv6, false for IPv4
 */
static inline bool tcp_flow_v6(const struct tcp_flow *f)
{
	return !addr_is4(f->guest_addr);
}

/**
 * tcp_flow_idx() - index of a flow in the table
 * @c:	core
 * @f:	flow
 *
 * Return: index
 */
static inline uint32_t tcp_flow_idx(const struct core *c,
				    const struct tcp_flow *f)
{
	return (uint32_t)(f - c->flows);
}

/**
 * tcp_flow_get() - flow by index, if in use
 * @c:		core
 * @idx:	index
 *
 * Return: flow, or NULL if the index is out of range or free
 */
static inline struct tcp_flow *tcp_flow_get(struct core *c, uint32_t idx)
{
	if (idx >= c->conf.max_flows || c->flows[idx].state == TCPS_FREE)
		return NULL;
	return &c->flows[idx];
}

void tcp_input(struct core *c, const uint8_t *iph, struct pkt_view seg,
	       uint64_t now_ns, struct fx *fx);

/**
 * tcp_on_sock_connected() - the host socket of a guest-opened flow connected
 * @c:		core
 * @f:		flow (TCPS_HOST_CONNECTING)
 * @err:	0, or the positive errno of the failure
 * @now_ns:	monotonic time
 * @fx:		effects out
 *
 * On success the guest gets its SYN-ACK; on ECONNREFUSED or ECONNRESET an
 * RST; on ENETUNREACH ICMP net unreachable (ICMPv6 no route); on other
 * errors ICMP host unreachable (ICMPv6 address unreachable). On failure the
 * flow is freed and an FX_SOCK_CLOSE intent returns the socket. A flow in
 * another state is left alone.
 */
void tcp_on_sock_connected(struct core *c, struct tcp_flow *f, int err,
			   uint64_t now_ns, struct fx *fx);

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
		      struct fx *fx);

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
		     uint32_t *off, uint32_t *mss);

/**
 * tcp_payload_off() - offset of the payload in a data frame slot
 * @c:	core
 * @f:	flow (its family sets the IP header length)
 *
 * Return: bytes of headers (vnet, Ethernet, IPv4 or IPv6, TCP) before the
 *	   payload
 */
static inline size_t tcp_payload_off(const struct core *c,
				     const struct tcp_flow *f)
{
	return core_l3_off(c) + (tcp_flow_v6(f) ? IP6_HLEN : IP4_HLEN) +
	       TCP_HLEN;
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
		    uint32_t len, uint64_t now_ns);

/**
 * tcp_on_sock_eof() - the host socket has no more data (peek returned 0)
 * @c:		core
 * @f:		flow
 * @now_ns:	monotonic time
 * @fx:		effects out
 */
void tcp_on_sock_eof(struct core *c, struct tcp_flow *f, uint64_t now_ns,
		     struct fx *fx);

/**
 * tcp_on_sock_error() - the host socket failed (reset, error)
 * @c:		core
 * @f:		flow; freed
 * @fx:		effects out
 */
void tcp_on_sock_error(struct core *c, struct tcp_flow *f, struct fx *fx);

/**
 * tcp_set_host_space() - the host socket's free send space changed
 * @c:		core
 * @f:		flow
 * @space:	bytes the socket can take now
 *
 * Queues a window update when the window can grow by min(MSS, space / 2).
 */
void tcp_set_host_space(struct core *c, struct tcp_flow *f, uint32_t space);

/**
 * tcp_host_accepted() - a published port accepted a connection
 * @c:		core
 * @src:	source address the guest should see (ADDR_LEN bytes): an
 *		IPv4 (v4-mapped) one reaches the guest at conf.guest4_be,
 *		an IPv6 one at conf.guest6 (conf.ipv6 on)
 * @src_port:	source port (host order)
 * @dst_port:	guest port (host order)
 * @sock:	the accepted socket (stored in the flow)
 * @now_ns:	monotonic time
 * @fx:		effects out (the SYN)
 *
 * Return: the new flow, or NULL if the table is full (counted), the tuple
 *	   is in use or an IPv6 source has no IPv6 to go over; the caller
 *	   then closes @sock
 */
struct tcp_flow *tcp_host_accepted(struct core *c, const uint8_t *src,
				   uint16_t src_port, uint16_t dst_port,
				   int32_t sock, uint64_t now_ns,
				   struct fx *fx);
struct tcp_flow *tcp_host_accepted_at(struct core *c, const uint8_t *gaddr,
				      const uint8_t *src, uint16_t src_port,
				      uint16_t dst_port, int32_t sock,
				      uint64_t now_ns, struct fx *fx);

/**
 * struct tcp_handover - a flow moving between shards (tcp_give(),
 * tcp_adopt())
 * @guest_addr:		guest address (ADDR_LEN bytes)
 * @remote_addr:	remote address as the guest sees it
 * @guest_port:		guest port
 * @remote_port:	remote port
 * @iss:		our initial sequence number (the SYN we sent)
 * @opened_ns:		when the flow was opened
 */
struct tcp_handover {
	uint8_t guest_addr[ADDR_LEN];
	uint8_t remote_addr[ADDR_LEN];
	uint16_t guest_port;
	uint16_t remote_port;
	uint32_t iss;
	uint64_t opened_ns;
};

void tcp_give(struct core *c, struct tcp_flow *f, struct tcp_handover *h);
struct tcp_flow *tcp_adopt(struct core *c, const struct tcp_handover *h,
			   int32_t sock, uint64_t now_ns);

struct mig_tcp;
struct mig_ooo;

/**
 * tcp_export() - a flow's state for a migration destination
 * @c:		core
 * @f:		flow
 * @now_ns:	monotonic time
 * @t:		out (@t->fd and @t->hflags are the caller's to set)
 *
 * Return: true if the flow migrates (ESTABLISHED, SYN_SENT or
 * SYNACK_SENT); a HOST_CONNECTING one does not (the guest's next SYN
 * opens it again at the destination)
 */
bool tcp_export(const struct core *c, const struct tcp_flow *f, uint64_t now_ns,
		struct mig_tcp *t);

/**
 * tcp_export_ooo() - the next guest segment a flow holds beyond a gap
 * @c:		core
 * @f:		flow
 * @i:		in/out: the ooo slot to look from (start at 0)
 * @o:		out: the segment (data points into the core)
 *
 * Return: true with @o set, false when there is none more
 */
bool tcp_export_ooo(const struct core *c, const struct tcp_flow *f, uint32_t *i,
		    struct mig_ooo *o);

/**
 * tcp_forget() - drop a flow that migrated (or would not): no segment, no
 * intent; its socket is the caller's
 * @c:		core
 * @f:		flow
 */
void tcp_forget(struct core *c, struct tcp_flow *f);

/**
 * tcp_import() - take a flow a migration source handed over
 * @c:		core
 * @t:		its state, as decoded (mig_get_tcp())
 * @sock:	its socket
 * @now_ns:	monotonic time
 * @fx:		effects out: a rewind and send (what the source had sent
 *		but the guest had not acknowledged goes again: the frames
 *		in flight may have died with the source's rings), and an
 *		ACK at the end of the batch
 * @out:	out: the flow
 *
 * The state must keep the table in tcp.h (tcp_flow_bad()); per-batch
 * and recovery state (ACK lists, probes, SACK scoreboard) starts afresh.
 *
 * Return: NULL, or why the flow was refused (the caller resets @sock)
 */
const char *tcp_import(struct core *c, const struct mig_tcp *t, int32_t sock,
		       uint64_t now_ns, struct fx *fx, struct tcp_flow **out);

/**
 * tcp_import_ooo() - a held segment of a flow just imported
 * @c:		core
 * @f:		the flow (tcp_import())
 * @o:		the segment
 *
 * Return: NULL, or why it was refused (the guest resends it)
 */
const char *tcp_import_ooo(struct core *c, struct tcp_flow *f,
			   const struct mig_ooo *o);

/**
 * tcp_guest_gone() - end every flow: the guest went away with its state
 * @c:		core
 * @fx:		effects out (FX_SOCK_RESET for each flow with a socket)
 *
 * Return: true when every flow is gone, false if @fx filled up first
 */
bool tcp_guest_gone(struct core *c, struct fx *fx);

/**
 * tcp_timer() - run one flow's expired deadline
 * @c:		core
 * @f:		flow
 * @now_ns:	monotonic time
 * @fx:		effects out
 */
void tcp_timer(struct core *c, struct tcp_flow *f, uint64_t now_ns,
	       struct fx *fx);

const char *tcp_flow_bad(const struct tcp_flow *f);
void tcp_flow_check(const struct tcp_flow *f);
const char *tcp_flows_bad(const struct core *c);
void tcp_flows_check(const struct core *c);

/**
 * tcp_ack_flush() - send the ACKs queued during a batch
 * @c:		core
 * @fx:		effects out
 */
void tcp_ack_flush(struct core *c, struct fx *fx);

/* flow table (flow.c); addresses are ADDR_LEN bytes */

struct tcp_flow *flow_lookup(struct core *c, const uint8_t *gaddr,
			     uint16_t gport, const uint8_t *raddr,
			     uint16_t rport);
struct tcp_flow *flow_alloc(struct core *c, const uint8_t *gaddr,
			    uint16_t gport, const uint8_t *raddr,
			    uint16_t rport);
void flow_free(struct core *c, struct tcp_flow *f);
bool flow_ended_here(const struct core *c, const uint8_t *gaddr, uint16_t gport,
		     const uint8_t *raddr, uint16_t rport, uint64_t now_ns);

#endif /* SLIPWAY_TCP_H */

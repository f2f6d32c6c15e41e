/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mig.h - the live-migration state stream: a source gateway's flows, as a
 * destination reads them
 *
 * Pure: bytes in, bytes out. The stream is a header and a body of
 * records; host sockets travel beside it (SCM_RIGHTS on one host), and a
 * record names its socket by its place in that sequence of descriptors.
 * Every number is little-endian and every record has a fixed size for its
 * type but the out-of-order one, whose payload follows its fixed part. A
 * destination trusts nothing in it: mig_parse_hdr() and mig_next() check
 * framing, mig_get_*() lengths and ranges, and tcp_import()/udp_import()
 * the state a flow would be in (tcp_flow_bad()). A version this code does
 * not know is refused whole.
 *
 *   header:  magic "SLPWMIG\n" (8), version u32, body length u32,
 *            descriptors u32, reserved u32 (0)
 *   record:  type u8, shard u8, reserved u16 (0), length u32 (of what
 *            follows), payload
 *
 * Record types: MIG_REC_NET (the network both ends must share, and the
 * guest's MAC address), MIG_REC_TCP, MIG_REC_OOO (a segment the flow of
 * the TCP record before it holds beyond a gap), MIG_REC_UDP,
 * MIG_REC_LISTEN (a published port's listening socket), MIG_REC_REPAIR
 * (the socket of the TCP record before it, as TCP_REPAIR sees it, when it
 * travels as state instead of a descriptor: that record names MIG_NONE),
 * MIG_REC_END (counts of all the others: a stream cut short is refused).
 */
#ifndef SLIPWAY_MIG_H
#define SLIPWAY_MIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MIG_MAGIC "SLPWMIG\n"
#define MIG_VERSION 1
#define MIG_HDR_LEN 24
#define MIG_REC_HDR 8
#define MIG_BODY_MAX (256U << 20) /* bytes of body a destination takes */
#define MIG_FDS_MAX 262144	  /* descriptors a destination takes */
#define MIG_NONE UINT32_MAX	  /* no descriptor */
#define MIG_OOO_DATA_MAX 65536	  /* payload of one held segment */

enum mig_rec_type {
	MIG_REC_END = 1,
	MIG_REC_NET = 2,
	MIG_REC_TCP = 3,
	MIG_REC_OOO = 4,
	MIG_REC_UDP = 5,
	MIG_REC_LISTEN = 6,
	MIG_REC_REPAIR = 7,
};

/**
 * struct mig_net - what source and destination must agree on, and what
 * the source learned of the guest
 * @guest_mac:	the guest's MAC address as last seen (zero: none seen)
 * @guest4_be:	guest IPv4 address
 * @gw4_be:	gateway IPv4 address
 * @guest6:	guest IPv6 address
 * @gw6:	gateway IPv6 address
 * @mtu:	MTU
 * @stop_ns:	when the source's device stopped (CLOCK_REALTIME, ns): the
 *		destination measures the hand-over's downtime from it
 */
struct mig_net {
	uint8_t guest_mac[6];
	uint32_t guest4_be;
	uint32_t gw4_be;
	uint8_t guest6[16];
	uint8_t gw6[16];
	uint32_t mtu;
	uint64_t stop_ns;
};

/**
 * struct mig_tcp - one TCP flow's state (see struct tcp_flow for the
 * fields that share its names)
 * @fd:		its socket: index in the stream's descriptors
 * @hflags:	the host side's per-flow bits (sock_tcp.h HF_*)
 * @age_ns:	how long the flow has been open
 * @rto_ns:	its retransmission timeout
 */
struct mig_tcp {
	uint32_t fd;
	uint8_t hflags;
	uint8_t guest_addr[16];
	uint8_t remote_addr[16];
	uint16_t guest_port;
	uint16_t remote_port;
	uint8_t state;
	uint8_t ws_guest;
	uint16_t flags;
	uint32_t mss;
	uint32_t iss;
	uint32_t snd_una;
	uint32_t snd_nxt;
	uint32_t snd_max;
	uint32_t fin_seq;
	uint32_t rcv_nxt;
	uint32_t rcv_acked;
	uint32_t guest_wnd;
	uint32_t host_space;
	uint32_t adv_wnd_end;
	uint32_t srtt_us;
	uint64_t rto_ns;
	uint64_t age_ns;
	uint64_t bytes_from_guest;
	uint64_t bytes_to_guest;
};

/**
 * struct mig_ooo - a guest segment held beyond a gap (its flow: the TCP
 * record before it)
 * @seq:	its first sequence number
 * @fin:	it ends with the guest's FIN
 * @len:	payload bytes (at most MIG_OOO_DATA_MAX)
 * @data:	payload (points into the stream)
 */
struct mig_ooo {
	uint32_t seq;
	bool fin;
	uint32_t len;
	const uint8_t *data;
};

/* mig_repair.flags */
#define MIG_RPF_SACK 0x01   /* SACK permitted */
#define MIG_RPF_TS 0x02	    /* timestamps */
#define MIG_RPF_WSCALE 0x04 /* window scaling */

/**
 * struct mig_repair - a connected TCP socket as TCP_REPAIR dumps it
 * @v6:		an IPv6 socket (else IPv4)
 * @local:	local address (IPv4: v4-mapped)
 * @lport:	local port
 * @peer:	peer address
 * @pport:	peer port
 * @snd_seq:	the send queue's next sequence number (TCP_QUEUE_SEQ)
 * @rcv_seq:	the receive queue's next sequence number
 * @mss:	MSS toward the peer
 * @snd_wscale:	the peer's window scale
 * @rcv_wscale:	ours
 * @flags:	MIG_RPF_*
 * @ts:		TCP_TIMESTAMP
 * @snd_wl1:	struct tcp_repair_window, field by field
 * @snd_wnd:	send window
 * @max_window:	largest window seen
 * @rcv_wnd:	receive window
 * @rcv_wup:	right edge of the last window update
 * @sndq_len:	bytes in the send queue (sent but not acknowledged, or not
 *		sent)
 * @rcvq_len:	bytes in the receive queue (not read)
 * @sndq:	those bytes (point into the stream)
 * @rcvq:	those bytes
 */
struct mig_repair {
	bool v6;
	uint8_t local[16];
	uint16_t lport;
	uint8_t peer[16];
	uint16_t pport;
	uint32_t snd_seq, rcv_seq;
	uint16_t mss;
	uint8_t snd_wscale, rcv_wscale;
	uint8_t flags;
	uint32_t ts;
	uint32_t snd_wl1, snd_wnd, max_window, rcv_wnd, rcv_wup;
	uint32_t sndq_len, rcvq_len;
	const uint8_t *sndq, *rcvq;
};

#define MIG_REPAIR_FIXED \
	(1 + 16 + 2 + 16 + 2 + 4 + 4 + 2 + 1 + 1 + 1 + 4 + 5 * 4 + 4 + 4)
#define MIG_REPAIR_MAX(q) (MIG_REC_HDR + MIG_REPAIR_FIXED + (size_t)(q))

/**
 * struct mig_udp - one datagram flow with a socket of its own
 * @fd:		its socket: index in the stream's descriptors
 * @guest_addr:	guest-side address
 * @remote_addr: remote address
 * @guest_port:	guest-side port
 * @remote_port: remote port
 * @idle_ns:	time since its last datagram
 * @from_guest:	datagrams from the guest
 * @to_guest:	datagrams to the guest
 */
struct mig_udp {
	uint32_t fd;
	uint8_t guest_addr[16];
	uint8_t remote_addr[16];
	uint16_t guest_port;
	uint16_t remote_port;
	uint64_t idle_ns;
	uint64_t from_guest;
	uint64_t to_guest;
};

/**
 * struct mig_listen - a published port's listening socket
 * @fd:		the socket: index in the stream's descriptors
 * @proto:	6 (TCP) or 17 (UDP)
 */
struct mig_listen {
	uint32_t fd;
	uint8_t proto;
};

/**
 * struct mig_end - counts of the stream's records, last
 * @tcp:	TCP flow records
 * @ooo:	held segment records
 * @udp:	datagram flow records
 * @listeners:	listening socket records
 */
struct mig_end {
	uint32_t tcp, ooo, udp, listeners;
};

/**
 * struct mig_rec - one record as mig_next() found it
 * @type:	enum mig_rec_type
 * @shard:	the source's shard that held it
 * @len:	payload bytes
 * @p:		payload
 */
struct mig_rec {
	uint8_t type;
	uint8_t shard;
	uint32_t len;
	const uint8_t *p;
};

/* writing: each returns bytes written, 0 if @room is too small */
size_t mig_put_hdr(uint8_t *out, size_t room, uint32_t body_len, uint32_t nfds);
size_t mig_put_net(uint8_t *out, size_t room, const struct mig_net *n);
size_t mig_put_tcp(uint8_t *out, size_t room, uint8_t shard,
		   const struct mig_tcp *t);
size_t mig_put_ooo(uint8_t *out, size_t room, uint8_t shard,
		   const struct mig_ooo *o);
size_t mig_put_udp(uint8_t *out, size_t room, uint8_t shard,
		   const struct mig_udp *u);
size_t mig_put_listen(uint8_t *out, size_t room, const struct mig_listen *l);
size_t mig_put_end(uint8_t *out, size_t room, const struct mig_end *e);
size_t mig_put_repair(uint8_t *out, size_t room, uint8_t shard,
		      const struct mig_repair *r);

/* the largest record of each kind, for buffer sizes */
#define MIG_TCP_LEN \
	(MIG_REC_HDR + 4 + 1 + 16 + 16 + 2 + 2 + 1 + 1 + 2 + 12 * 4 + 4 * 8)
#define MIG_OOO_MAX(len) (MIG_REC_HDR + 4 + 1 + (size_t)(len))
#define MIG_UDP_LEN (MIG_REC_HDR + 4 + 16 + 16 + 2 + 2 + 3 * 8)

/* reading */
const char *mig_parse_hdr(const uint8_t *p, size_t len, uint32_t *body_len,
			  uint32_t *nfds);
int mig_next(const uint8_t **p, const uint8_t *end, struct mig_rec *r);
const char *mig_get_net(const struct mig_rec *r, struct mig_net *n);
const char *mig_get_tcp(const struct mig_rec *r, uint32_t nfds,
			struct mig_tcp *t);
const char *mig_get_ooo(const struct mig_rec *r, struct mig_ooo *o);
const char *mig_get_udp(const struct mig_rec *r, uint32_t nfds,
			struct mig_udp *u);
const char *mig_get_listen(const struct mig_rec *r, uint32_t nfds,
			   struct mig_listen *l);
const char *mig_get_end(const struct mig_rec *r, struct mig_end *e);
const char *mig_get_repair(const struct mig_rec *r, struct mig_repair *rp);
const char *mig_check(const uint8_t *body, size_t len, uint32_t nfds,
		      struct mig_end *counts);

#endif /* SLIPWAY_MIG_H */

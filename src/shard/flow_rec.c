/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flow_rec.c - flow records (shard_api.h) as the control API names them
 *
 * No system calls: the fuzz target fuzz_ctl links it with ctl_proto.c.
 */

#include <netinet/in.h>

#include "core/tcp.h"
#include "core/udp.h"
#include "shard/shard_api.h"
#include "util/util.h"

static const char *const flow_kind_str[] = {
	[FLOW_KIND_TCP] = "tcp",     [FLOW_KIND_UDP] = "udp",
	[FLOW_KIND_PING] = "ping",   [FLOW_KIND_SPLICE] = "splice",
	[FLOW_KIND_UDPNS] = "udpns", [FLOW_KIND_DNS] = "dns",
};
_Static_assert(ARRAY_SIZE(flow_kind_str) == FLOW_KIND_NUM,
	       "flow_kind_str must name every kind");

static const char *const flow_svc_state_str[] = {
	[FLOW_SVC_CONNECTING] = "CONNECTING",
	[FLOW_SVC_ESTABLISHED] = "ESTABLISHED",
	[FLOW_SVC_CLOSING] = "CLOSING",
	[FLOW_SVC_OPEN] = "OPEN",
	[FLOW_SVC_QUERY] = "QUERY",
};
_Static_assert(ARRAY_SIZE(flow_svc_state_str) == FLOW_SVC_NUM,
	       "flow_svc_state_str must name every state");

/**
 * flow_rec_kind_str() - a flow record's kind, in words
 * @r:		record (any bytes: a kind out of range is "?")
 *
 * Context: any thread
 * Return: static text: "tcp", "udp", "ping", "splice", "udpns" or "dns"
 */
const char *flow_rec_kind_str(const struct flow_rec *r)
{
	return r->kind < FLOW_KIND_NUM ? flow_kind_str[r->kind] : "?";
}

/**
 * flow_rec_state_str() - a flow record's state, in words
 * @r:		record (any bytes: a state out of range is "?")
 *
 * TCP flows show their TCP state; datagram flows are "OPEN", or
 * "PUBLISHED" for a published UDP port's (-u) flow; spliced connections
 * "CONNECTING", "ESTABLISHED" or "CLOSING" (a side ended its stream); -U
 * flows "OPEN"; DNS queries in flight "QUERY".
 *
 * Context: any thread
 * Return: static text
 */
const char *flow_rec_state_str(const struct flow_rec *r)
{
	static const char *const kinds[] = { [UDPK_OUT] = "OPEN",
					     [UDPK_PUB] = "PUBLISHED",
					     [UDPK_ICMP] = "OPEN" };

	if (r->kind == FLOW_KIND_SPLICE || r->kind == FLOW_KIND_UDPNS ||
	    r->kind == FLOW_KIND_DNS)
		return r->state < FLOW_SVC_NUM ? flow_svc_state_str[r->state] :
						 "?";
	switch (r->proto) {
	case IPPROTO_TCP:
		return r->state < TCPS_STATE_NUM ? tcp_state_str[r->state] :
						   "?";
	case IPPROTO_UDP:
		return r->state < UDPK_NUM ? kinds[r->state] : "?";
	default:
		return "OPEN";
	}
}

static const char *const flow_limit_str[] = {
	[FLOW_LIM_NONE] = NULL,
	[FLOW_LIM_IDLE] = "idle",
	[FLOW_LIM_GUEST_RWND] = "guest-rwnd",
	[FLOW_LIM_EDGE] = "edge",
	[FLOW_LIM_HOST_SENDER] = "host-sender",
	[FLOW_LIM_HOST_SNDBUF] = "host-sndbuf",
	[FLOW_LIM_HOST_CWND] = "host-cwnd",
	[FLOW_LIM_GUEST_SENDER] = "guest-sender",
};
_Static_assert(ARRAY_SIZE(flow_limit_str) == FLOW_LIM_NUM,
	       "flow_limit_str must name every verdict");

/**
 * flow_rec_limit_str() - a flow record's "limited by" verdict, in words
 * @r:		record (any bytes: a verdict out of range is NULL)
 *
 * Context: any thread
 * Return: static text ("idle", "guest-rwnd", "edge", "host-sender",
 *	   "host-sndbuf", "host-cwnd", "guest-sender"), or NULL when the
 *	   record has none (FLOW_LIM_NONE: not a TCP flow of the core)
 */
const char *flow_rec_limit_str(const struct flow_rec *r)
{
	return r->limit < FLOW_LIM_NUM ? flow_limit_str[r->limit] : NULL;
}

/**
 * sndbuf_full() - does the host socket's send queue hold half its
 * SO_SNDBUF or more?
 * @r:		record
 *
 * Return: true if so (false without the figures)
 */
static bool sndbuf_full(const struct flow_rec *r)
{
	return r->has_tcpi && r->tcpi.sndbuf && r->tcpi.send_queue &&
	       2ULL * r->tcpi.send_queue >= r->tcpi.sndbuf;
}

/**
 * flow_rec_limit() - what holds a TCP flow back, from its record's figures
 * @r:		record, with its rates, window figures and, if any, the host
 *		socket's (@r->tcpi)
 *
 * The direction that moved more bytes in the last second is judged:
 * - to the guest: what is in flight fills the guest's window (three
 *   quarters of it, or all but two segments) -> guest-rwnd; else the
 *   flow waits for room at the edge -> edge; else the host's peer sends
 *   no faster (the core sends what the socket has at once) -> host-sender;
 * - from the guest: the host socket's send queue holds half its SO_SNDBUF
 *   or more (the core stops writing at 7/8 of it, and the kernel counts
 *   its overhead against the buffer too) -> host-sndbuf; else the
 *   segments in flight fill the congestion window -> host-cwnd; else the
 *   guest sends no faster -> guest-sender.
 * No bytes either way: idle, unless the flow is stuck rather than idle:
 * the guest's window is closed (zero) -> guest-rwnd, or the host socket's
 * send queue is (nearly) full, as above -> host-sndbuf.
 *
 * Context: any thread
 * Return: enum flow_limit; FLOW_LIM_NONE for records that are not TCP
 *	   flows of the core
 */
uint8_t flow_rec_limit(const struct flow_rec *r)
{
	if (r->kind != FLOW_KIND_TCP)
		return FLOW_LIM_NONE;
	if (!r->rate_from_guest && !r->rate_to_guest) {
		if (r->guest_wnd == 0 && r->state == TCPS_ESTABLISHED)
			return FLOW_LIM_GUEST_RWND;
		if (sndbuf_full(r))
			return FLOW_LIM_HOST_SNDBUF;
		return FLOW_LIM_IDLE;
	}
	if (r->rate_to_guest >= r->rate_from_guest) {
		uint64_t fl = r->in_flight_to_guest, w = r->guest_wnd;

		if (fl * 4 >= w * 3 || fl + 2ULL * r->guest_mss >= w)
			return FLOW_LIM_GUEST_RWND;
		if (r->edge_stalled)
			return FLOW_LIM_EDGE;
		return FLOW_LIM_HOST_SENDER;
	}
	if (sndbuf_full(r))
		return FLOW_LIM_HOST_SNDBUF;
	if (r->has_tcpi && r->tcpi.cwnd && r->tcpi.unacked >= r->tcpi.cwnd)
		return FLOW_LIM_HOST_CWND;
	return FLOW_LIM_GUEST_SENDER;
}

/**
 * flow_clock_tick() - a sweep begins: its samples replace the older ones
 * @k:		clock
 * @now_ns:	monotonic time of the sweep
 *
 * Context: the thread that owns the samples
 */
void flow_clock_tick(struct flow_clock *k, uint64_t now_ns)
{
	k->cur ^= 1;
	k->t[k->cur] = now_ns;
}

/**
 * flow_rate_take() - one flow's sample in a sweep (after flow_clock_tick())
 * @s:		the flow's samples
 * @k:		clock
 * @tag:	the flow's identity (its opening time)
 * @from:	bytes from the guest so far
 * @to:		bytes to the guest so far
 *
 * A new @tag (a new flow in the slot) sets both samples to these counts.
 *
 * Context: the thread that owns the samples
 */
void flow_rate_take(struct flow_rate *s, const struct flow_clock *k,
		    uint64_t tag, uint64_t from, uint64_t to)
{
	if (s->tag != tag) {
		s->tag = tag;
		s->from[0] = s->from[1] = from;
		s->to[0] = s->to[1] = to;
		return;
	}
	s->from[k->cur] = from;
	s->to[k->cur] = to;
}

/**
 * flow_rate_per_s() - bytes per second from a count's growth
 * @now:	count now
 * @then:	count at the sample
 * @dt_us:	microseconds between them (> 0)
 *
 * Return: bytes per second (0 if the count went back)
 */
static uint64_t flow_rate_per_s(uint64_t now, uint64_t then, uint64_t dt_us)
{
	uint64_t d = now > then ? now - then : 0;

	/* whole part and remainder apart: d * 10^6 may not fit in 64 bits,
	 * the remainder's may (dt_us < 1.8e13: 200 days) */
	return d / dt_us * 1000000 + d % dt_us * 1000000 / dt_us;
}

/**
 * flow_rate_get() - a flow's rates each way over about the last second
 * @s:		the flow's samples (NULL: none)
 * @k:		clock of the sweeps
 * @tag:	the flow's identity (as flow_rate_take() had it)
 * @now_ns:	monotonic time now
 * @r:		record: @r->bytes_from_guest, @r->bytes_to_guest and
 *		@r->age_ns in; @r->rate_from_guest and @r->rate_to_guest out
 *
 * The base is the newer sample if it is half a second old or more, else
 * the older one: the rate covers 0.5 to 1.5 s (more when the shard slept:
 * a shard wakes for every byte it moves, so the counts did not move
 * then). A flow no sweep has seen yet: its bytes over its age.
 *
 * Context: the thread that owns the samples
 */
void flow_rate_get(const struct flow_rate *s, const struct flow_clock *k,
		   uint64_t tag, uint64_t now_ns, struct flow_rec *r)
{
	uint64_t from = 0, to = 0, t;
	unsigned i = k->cur;

	r->rate_from_guest = r->rate_to_guest = 0;
	if (s && s->tag == tag && k->t[i]) {
		if (now_ns - k->t[i] < 500000000ULL && k->t[i ^ 1])
			i ^= 1;
		t = k->t[i];
		from = s->from[i];
		to = s->to[i];
	} else if (r->age_ns && r->age_ns <= now_ns) {
		t = now_ns - r->age_ns;
	} else {
		return;
	}
	if (now_ns <= t || (now_ns - t) / 1000 == 0)
		return;
	r->rate_from_guest = flow_rate_per_s(r->bytes_from_guest, from,
					     (now_ns - t) / 1000);
	r->rate_to_guest = flow_rate_per_s(r->bytes_to_guest, to,
					   (now_ns - t) / 1000);
}

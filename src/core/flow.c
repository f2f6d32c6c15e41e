/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flow.c - the flow table: fixed array, hashed lookup, free list */

#include "../util/siphash.h"
#include "tcp.h"

/* how long a tuple counts as ended here (flow_ended_here()) */
#define FLOW_ENDED_MS 200

/**
 * flow_tuple_hash() - keyed hash of a tuple (buckets and ISNs)
 * @key:	siphash key
 * @gaddr:	guest-side address
 * @gport:	guest-side port
 * @raddr:	remote address
 * @rport:	remote port
 * @tag:	FLOW_HASH_BUCKET, or a value appended to the input (ISNs)
 *
 * Return: 64-bit hash
 */
uint64_t flow_tuple_hash(const uint8_t *key, const uint8_t *gaddr,
			 uint16_t gport, const uint8_t *raddr, uint16_t rport,
			 uint32_t tag)
{
	uint8_t t[2 * ADDR_LEN + 8];
	size_t n;

	if (addr_is4(gaddr) && addr_is4(raddr)) {
		memcpy(t, gaddr + 12, 4);
		memcpy(t + 4, raddr + 12, 4);
		n = 8;
	} else {
		memcpy(t, gaddr, ADDR_LEN);
		memcpy(t + ADDR_LEN, raddr, ADDR_LEN);
		n = 2 * ADDR_LEN;
	}
	wr16(t + n, gport);
	wr16(t + n + 2, rport);
	n += 4;
	if (tag != FLOW_HASH_BUCKET) {
		wr32(t + n, tag);
		n += 4;
	}
	return siphash24(key, t, n);
}

/**
 * flow_bucket() - hash bucket of a tuple
 * @c:		core
 * @gaddr:	guest-side address
 * @gport:	guest-side port
 * @raddr:	remote address
 * @rport:	remote port
 *
 * Return: bucket index
 */
static uint32_t flow_bucket(const struct core *c, const uint8_t *gaddr,
			    uint16_t gport, const uint8_t *raddr,
			    uint16_t rport)
{
	return (uint32_t)flow_tuple_hash(c->key, gaddr, gport, raddr, rport,
					 FLOW_HASH_BUCKET) &
	       (c->nbuckets - 1);
}

/**
 * flow_ended_hash() - a tuple's hash for the memory of ended flows
 * @c:		core
 * @gaddr:	guest-side address
 * @gport:	guest-side port
 * @raddr:	remote address
 * @rport:	remote port
 *
 * Return: 32 bits, never 0
 */
static uint32_t flow_ended_hash(const struct core *c, const uint8_t *gaddr,
				uint16_t gport, const uint8_t *raddr,
				uint16_t rport)
{
	return (uint32_t)(flow_tuple_hash(c->key, gaddr, gport, raddr, rport,
					  FLOW_HASH_BUCKET) >>
			  32) |
	       1;
}

/**
 * flow_ended_here() - did a flow of this tuple end on this core just now?
 * @c:		core
 * @gaddr:	guest-side address
 * @gport:	guest-side port
 * @raddr:	remote address
 * @rport:	remote port
 * @now_ns:	monotonic time
 *
 * With shards, a segment for a flow we do not have goes round the other
 * shards; but the usual such segment is the guest's data still in flight
 * when we reset its flow here (the host side reset: tens of 64 KiB
 * frames), and that one we answer ourselves. Only flows we reset are
 * remembered (flows that closed cleanly leave no tail, and their client
 * ports come back within milliseconds under connection churn, for new
 * flows that may live on another shard); the memory is direct-mapped and
 * short, a tuple counts for FLOW_ENDED_MS; and callers ask only for
 * segments without SYN (a SYN-ACK always belongs to a new flow).
 *
 * Return: true if it did (as far as the memory goes)
 */
bool flow_ended_here(const struct core *c, const uint8_t *gaddr, uint16_t gport,
		     const uint8_t *raddr, uint16_t rport, uint64_t now_ns)
{
	uint32_t h = flow_ended_hash(c, gaddr, gport, raddr, rport);
	uint32_t ms = (uint32_t)(now_ns / 1000000);
	unsigned i = h % ARRAY_SIZE(c->ended);

	return c->ended[i].h == h && ms - c->ended[i].ms < FLOW_ENDED_MS;
}

/**
 * flow_lookup() - find the flow of a tuple
 * @c:		core
 * @gaddr:	guest-side address
 * @gport:	guest-side port
 * @raddr:	remote address
 * @rport:	remote port
 *
 * Return: the flow, or NULL
 */
struct tcp_flow *flow_lookup(struct core *c, const uint8_t *gaddr,
			     uint16_t gport, const uint8_t *raddr,
			     uint16_t rport)
{
	uint32_t i = c->buckets[flow_bucket(c, gaddr, gport, raddr, rport)];

	while (i) {
		struct tcp_flow *f = &c->flows[i - 1];

		if (f->guest_port == gport && f->remote_port == rport &&
		    addr_eq(f->guest_addr, gaddr) &&
		    addr_eq(f->remote_addr, raddr))
			return f;
		i = f->next;
	}
	return NULL;
}

/**
 * flow_alloc() - take a free flow for a tuple and hash it in
 * @c:		core
 * @gaddr:	guest-side address
 * @gport:	guest-side port
 * @raddr:	remote address
 * @rport:	remote port
 *
 * The flow comes zeroed but for the tuple, with sock = -1; its state is
 * still TCPS_FREE and the caller sets it.
 *
 * Return: the flow, or NULL if the table is full (counted)
 */
struct tcp_flow *flow_alloc(struct core *c, const uint8_t *gaddr,
			    uint16_t gport, const uint8_t *raddr,
			    uint16_t rport)
{
	uint32_t b, idx;
	struct tcp_flow *f;

	if (!c->free_head) {
		CTR_INC(c, TCP_FLOWS_TABLE_FULL);
		return NULL;
	}
	idx = c->free_head - 1;
	f = &c->flows[idx];
	c->free_head = f->next;
	memset(f, 0, sizeof(*f));
	memcpy(f->guest_addr, gaddr, ADDR_LEN);
	f->guest_port = gport;
	memcpy(f->remote_addr, raddr, ADDR_LEN);
	f->remote_port = rport;
	f->sock = -1;
	b = flow_bucket(c, gaddr, gport, raddr, rport);
	f->next = c->buckets[b];
	c->buckets[b] = idx + 1;
	if (idx + 1 > c->hiwat)
		c->hiwat = idx + 1;
	CTR_INC(c, TCP_FLOWS_ACTIVE);
	return f;
}

/**
 * flow_free() - unhash a flow and return it to the free list
 * @c:	core
 * @f:	flow in use
 *
 * With shards, a flow we reset is remembered for flow_ended_here(),
 * stamped with @c->clock_ns (see struct core).
 */
void flow_free(struct core *c, struct tcp_flow *f)
{
	uint32_t idx = tcp_flow_idx(c, f), *pp;

	ASSERT(f->state != TCPS_FREE);
	pp = &c->buckets[flow_bucket(c, f->guest_addr, f->guest_port,
				     f->remote_addr, f->remote_port)];
	while (*pp && *pp != idx + 1)
		pp = &c->flows[*pp - 1].next;
	ASSERT(*pp == idx + 1);
	*pp = f->next;
	if (c->conf.nshards > 1 && (f->flags & TCPF_RESET_HERE)) {
		uint32_t h = flow_ended_hash(c, f->guest_addr, f->guest_port,
					     f->remote_addr, f->remote_port);

		c->ended[h % ARRAY_SIZE(c->ended)].h = h;
		c->ended[h % ARRAY_SIZE(c->ended)].ms = (uint32_t)(c->clock_ns /
								   1000000);
	}
	if (f->flags & TCPF_ACK_LISTED) {
		uint32_t i;

		for (i = 0; i < c->nacks; i++) {
			if (c->ack_list[i] == idx) {
				c->ack_list[i] = c->ack_list[--c->nacks];
				break;
			}
		}
	}
	f->state = TCPS_FREE;
	f->flags = 0;
	f->deadline_ns = 0;
	f->next = c->free_head;
	c->free_head = idx + 1;
	CTR_ADD(c, TCP_FLOWS_ACTIVE, (uint64_t)-1); /* gauge: down by one */
}

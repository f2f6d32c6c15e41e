/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_shard_move.c - a published-port flow moves, in its handshake, to the
 * shard whose queue the guest's reply came in on (tcp_give(), tcp_adopt())
 */
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#define GPORT 8080
#define RPORT 40000

/**
 * two_shards() - the cores of shards 0 and 1, as one process has them
 * @a:	out: shard 0
 * @b:	out: shard 1
 */
static void two_shards(struct env **a, struct env **b)
{
	struct core_conf cc;

	env_conf(&cc, true);
	cc.nshards = 2;
	cc.shard_id = 0;
	*a = env_new(&cc);
	cc.shard_id = 1;
	*b = env_new(&cc);
	assert_non_null(*a);
	assert_non_null(*b);
}

/**
 * synack() - the guest's SYN-ACK to a SYN we sent with @iss
 * @iss:	our initial sequence number
 *
 * Return: the segment
 */
static struct seg synack(uint32_t iss)
{
	struct seg s = {
		.daddr = GW4,
		.sport = GPORT,
		.dport = RPORT,
		.seq = 7000,
		.ack = iss + 1,
		.flags = T_SYN | T_ACK,
		.wnd = 29200,
		.mss = 1460,
		.ws_on = true,
		.ws = 7,
	};

	return s;
}

/**
 * test_move_at_handshake() - shard 0 sent the SYN; the SYN-ACK landed on
 * shard 1 and was passed here: shard 0 asks to give the flow (and handles
 * nothing), shard 1 adopts it and the SYN-ACK establishes it there with
 * the ISN shard 0 chose; a SYN-ACK read here first (hop 0) stays here
 * @state:	unused
 */
static void test_move_at_handshake(void **state)
{
	struct tcp_handover h;
	struct tcp_flow *f, *g;
	struct env *a, *b;
	struct otcp o;
	struct seg s;
	uint32_t iss;

	(void)state;
	two_shards(&a, &b);
	f = tcp_host_accepted(&a->c, M4(GW4), RPORT, GPORT, 42, a->now, &a->fx);
	assert_non_null(f);
	iss = f->iss;
	env_clear(a);

	/* passed on by shard 1 (one hop): not handled, to be given there */
	s = synack(iss);
	a->c.in_hop = 1;
	env_mark(a);
	env_send(a, &s);
	assert_ptr_equal(a->c.give, f);
	assert_int_equal(a->c.give_to, 1);
	assert_int_equal(a->fx.nframes, 0);
	assert_int_equal(a->fx.nintents, 0);
	assert_int_equal(f->state, TCPS_SYN_SENT);
	/* counted where it is handled, not here */
	assert_int_equal(env_delta(a, CTR_TCP_GUEST_SEGS), 0);
	tcp_give(&a->c, f, &h);
	assert_int_equal(env_delta(a, CTR_TCP_FLOWS_ACTIVE), -1);
	assert_int_equal(h.iss, iss);
	assert_int_equal(h.guest_port, GPORT);
	assert_int_equal(h.remote_port, RPORT);
	assert_memory_equal(h.guest_addr, M4(GUEST4), ADDR_LEN);
	assert_memory_equal(h.remote_addr, M4(GW4), ADDR_LEN);

	/* shard 1 takes it; the SYN-ACK, read again, establishes it */
	env_mark(b);
	g = tcp_adopt(&b->c, &h, 42, b->now);
	assert_non_null(g);
	assert_int_equal(g->state, TCPS_SYN_SENT);
	assert_int_equal(g->sock, 42);
	assert_int_equal(b->fx.nframes, 0);
	assert_ctr_deltas(b, CTR_TCP_FLOWS_ADOPTED, 1, CTR_TCP_FLOWS_ACTIVE, 1,
			  -1);
	/* the same tuple cannot be adopted twice */
	assert_null(tcp_adopt(&b->c, &h, 43, b->now));
	b->c.in_hop = 0;
	env_send(b, &s);
	assert_int_equal(env_delta(b, CTR_TCP_GUEST_SEGS), 1);
	assert_null(b->c.give);
	assert_int_equal(g->state, TCPS_ESTABLISHED);
	assert_int_equal(g->snd_una, iss + 1);
	assert_int_equal(g->mss, 1460);
	assert_int_equal(fx_count(b, FX_TX_WANTED), 1);
	core_flush(&b->c, b->now, &b->fx);
	assert_int_equal(b->fx.nframes, 1);
	parse_tcp(b, 0, &o);
	assert_int_equal(o.flags, T_ACK);
	assert_int_equal(o.seq, iss + 1);
	assert_int_equal(o.ack, 7001);
	env_free(a);
	env_free(b);
}

/**
 * test_no_move() - a SYN-ACK read from shard 0's own queue, or on a
 * one-shard gateway, is handled where it is; anything but a valid SYN-ACK
 * never moves a flow
 * @state:	unused
 */
static void test_no_move(void **state)
{
	struct env *a, *b, *one;
	struct tcp_flow *f;
	struct seg s;

	(void)state;
	two_shards(&a, &b);
	f = tcp_host_accepted(&a->c, M4(GW4), RPORT, GPORT, 42, a->now, &a->fx);
	assert_non_null(f);
	env_clear(a);
	/* a wrong ACK number, passed on: dropped as before, not moved */
	s = synack(f->iss + 5);
	a->c.in_hop = 1;
	env_send(a, &s);
	assert_null(a->c.give);
	assert_int_equal(f->state, TCPS_SYN_SENT);
	env_clear(a);
	/* from our own queue: established here */
	s = synack(f->iss);
	a->c.in_hop = 0;
	env_send(a, &s);
	assert_null(a->c.give);
	assert_int_equal(f->state, TCPS_ESTABLISHED);
	env_free(a);
	env_free(b);

	one = env_new_default(true);
	f = tcp_host_accepted(&one->c, M4(GW4), RPORT, GPORT, 42, one->now,
			      &one->fx);
	assert_non_null(f);
	env_clear(one);
	s = synack(f->iss);
	one->c.in_hop = 1; /* cannot happen with one shard: still handled */
	env_send(one, &s);
	assert_null(one->c.give);
	assert_int_equal(f->state, TCPS_ESTABLISHED);
	env_free(one);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_move_at_handshake),
		cmocka_unit_test(test_no_move),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

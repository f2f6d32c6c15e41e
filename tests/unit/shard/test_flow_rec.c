/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_flow_rec.c - shard/flow_rec.c: the "limited by" verdict of a TCP
 * flow from its record's figures (a table of cases), its names, and the
 * rates over the last second from two sweeps' samples
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/tcp.h"
#include "shard/shard_api.h"
#include "util/util.h"

#define SEC 1000000000ULL

/**
 * struct limit_case - one row of the verdict table
 * @name:	what it shows
 * @kind:	enum flow_kind
 * @rate_from:	bytes per second from the guest
 * @rate_to:	bytes per second to the guest
 * @in_flight:	bytes in flight to the guest
 * @wnd:	the guest's window
 * @stalled:	the flow waits for the edge
 * @tcpi:	the host socket's figures are there
 * @send_queue:	its send queue, bytes
 * @sndbuf:	its SO_SNDBUF
 * @unacked:	segments in flight
 * @cwnd:	congestion window
 * @want:	the verdict, in words (NULL: none)
 */
struct limit_case {
	const char *name;
	uint8_t kind;
	uint64_t rate_from, rate_to;
	uint32_t in_flight, wnd;
	bool stalled, tcpi;
	uint32_t send_queue, sndbuf, unacked, cwnd;
	const char *want;
};

static const struct limit_case limit_cases[] = {
	{ "no bytes either way", FLOW_KIND_TCP, 0, 0, 0, 65535, false, true, 0,
	  87040, 0, 10, "idle" },
	{ "idle, window full still", FLOW_KIND_TCP, 0, 0, 65535, 65535, true,
	  false, 0, 0, 0, 0, "idle" },
	{ "stuck: the guest's window closed", FLOW_KIND_TCP, 0, 0, 0, 0, false,
	  true, 0, 87040, 0, 10, "guest-rwnd" },
	{ "stuck: the host's send buffer full", FLOW_KIND_TCP, 0, 0, 0, 65535,
	  false, true, 3000000, 4000000, 10, 10, "host-sndbuf" },
	{ "idle, send queue draining", FLOW_KIND_TCP, 0, 0, 0, 65535, false,
	  true, 1000, 4000000, 1, 10, "idle" },
	{ "to guest, window full", FLOW_KIND_TCP, 0, 5000000, 60000, 65535,
	  false, true, 0, 87040, 0, 10, "guest-rwnd" },
	{ "to guest, zero window", FLOW_KIND_TCP, 0, 1, 0, 0, false, false, 0,
	  0, 0, 0, "guest-rwnd" },
	{ "to guest, two segments short", FLOW_KIND_TCP, 10, 5000000,
	  1000000 - 2000, 1000000, false, true, 0, 87040, 0, 10, "guest-rwnd" },
	{ "to guest, edge full", FLOW_KIND_TCP, 0, 5000000, 10000, 1000000,
	  true, true, 0, 87040, 0, 10, "edge" },
	{ "to guest, window full and edge full", FLOW_KIND_TCP, 0, 5000000,
	  900000, 1000000, true, true, 0, 87040, 0, 10, "guest-rwnd" },
	{ "to guest, host peer slow", FLOW_KIND_TCP, 0, 5000, 1000, 1000000,
	  false, true, 0, 87040, 0, 10, "host-sender" },
	{ "from guest, send buffer full", FLOW_KIND_TCP, 9000000, 100, 0, 65535,
	  false, true, 3000000, 4000000, 10, 10, "host-sndbuf" },
	{ "from guest, cwnd full", FLOW_KIND_TCP, 9000000, 100, 0, 65535, false,
	  true, 100000, 4000000, 40, 40, "host-cwnd" },
	{ "from guest, guest slow", FLOW_KIND_TCP, 9000, 0, 0, 65535, false,
	  true, 0, 4000000, 1, 10, "guest-sender" },
	{ "from guest, no TCP_INFO", FLOW_KIND_TCP, 9000, 0, 0, 65535, false,
	  false, 0, 0, 0, 0, "guest-sender" },
	{ "from guest, edge full does not count", FLOW_KIND_TCP, 9000, 10, 0,
	  65535, true, true, 0, 4000000, 1, 10, "guest-sender" },
	{ "equal rates: to the guest", FLOW_KIND_TCP, 5000, 5000, 0, 65535,
	  false, true, 3000000, 4000000, 10, 10, "host-sender" },
	{ "a spliced flow has none", FLOW_KIND_SPLICE, 0, 0, 0, 0, false, false,
	  0, 0, 0, 0, NULL },
	{ "a UDP flow has none", FLOW_KIND_UDP, 10, 10, 0, 0, false, false, 0,
	  0, 0, 0, NULL },
};

/**
 * test_limit_table() - every row of limit_cases
 * @state:	unused
 */
static void test_limit_table(void **state)
{
	unsigned i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(limit_cases); i++) {
		const struct limit_case *c = &limit_cases[i];
		const char *got;
		struct flow_rec r;

		memset(&r, 0, sizeof(r));
		r.kind = c->kind;
		r.proto = 6;
		r.state = TCPS_ESTABLISHED;
		r.rate_from_guest = c->rate_from;
		r.rate_to_guest = c->rate_to;
		r.in_flight_to_guest = c->in_flight;
		r.guest_wnd = c->wnd;
		r.guest_mss = 1460;
		r.edge_stalled = c->stalled;
		r.has_tcpi = c->tcpi;
		r.tcpi.send_queue = c->send_queue;
		r.tcpi.sndbuf = c->sndbuf;
		r.tcpi.unacked = c->unacked;
		r.tcpi.cwnd = c->cwnd;
		r.limit = flow_rec_limit(&r);
		got = flow_rec_limit_str(&r);
		if (!c->want) {
			assert_null(got);
			continue;
		}
		if (!got || strcmp(got, c->want))
			fail_msg("%s: %s, want %s", c->name, got ? got : "none",
				 c->want);
	}
}

/**
 * test_limit_names() - every verdict has a name, none out of range
 * @state:	unused
 */
static void test_limit_names(void **state)
{
	struct flow_rec r;
	unsigned i;

	(void)state;
	memset(&r, 0, sizeof(r));
	for (i = FLOW_LIM_IDLE; i < FLOW_LIM_NUM; i++) {
		r.limit = (uint8_t)i;
		assert_non_null(flow_rec_limit_str(&r));
	}
	r.limit = FLOW_LIM_NUM;
	assert_null(flow_rec_limit_str(&r));
	r.limit = 255;
	assert_null(flow_rec_limit_str(&r));
}

/**
 * test_rate() - rates from two sweeps: the newer sample once it is half a
 * second old, else the older; a new flow in a reused slot; a flow no
 * sweep has seen; idle is 0
 * @state:	unused
 */
static void test_rate(void **state)
{
	struct flow_clock k = { { 0, 0 }, 0 };
	struct flow_rate s = { 0, { 0, 0 }, { 0, 0 } };
	struct flow_rec r;

	(void)state;
	memset(&r, 0, sizeof(r));
	/* no sweep yet: bytes over the flow's age */
	r.bytes_to_guest = 2000000;
	r.age_ns = 2 * SEC;
	flow_rate_get(&s, &k, 7, 10 * SEC, &r);
	assert_int_equal(r.rate_to_guest, 1000000);
	assert_int_equal(r.rate_from_guest, 0);
	/* a sweep at 10 s with 2 MB to the guest, 1 MB from it */
	flow_clock_tick(&k, 10 * SEC);
	flow_rate_take(&s, &k, 7, 1000000, 2000000);
	/* 0.2 s later: only one sweep, its sample is the base */
	r.bytes_to_guest = 2100000;
	r.bytes_from_guest = 1000000;
	flow_rate_get(&s, &k, 7, 10 * SEC + SEC / 5, &r);
	assert_int_equal(r.rate_to_guest, 500000);
	assert_int_equal(r.rate_from_guest, 0);
	/* a second sweep at 11 s: 3 MB to, 1.5 MB from */
	flow_clock_tick(&k, 11 * SEC);
	flow_rate_take(&s, &k, 7, 1500000, 3000000);
	/* 0.25 s after it: the older sample (1.25 s back) */
	r.bytes_to_guest = 3500000;
	r.bytes_from_guest = 1500000;
	flow_rate_get(&s, &k, 7, 11 * SEC + SEC / 4, &r);
	assert_int_equal(r.rate_to_guest, 1200000);
	assert_int_equal(r.rate_from_guest, 400000);
	/* 0.5 s after it: the newer (0.5 s back) */
	flow_rate_get(&s, &k, 7, 11 * SEC + SEC / 2, &r);
	assert_int_equal(r.rate_to_guest, 1000000);
	assert_int_equal(r.rate_from_guest, 0);
	/* nothing moved since: idle */
	r.bytes_to_guest = 3000000;
	flow_rate_get(&s, &k, 7, 12 * SEC, &r);
	assert_int_equal(r.rate_to_guest, 0);
	/* another flow in the slot (tag 8), not swept yet: its own age */
	r.bytes_to_guest = 100000;
	r.bytes_from_guest = 0;
	r.age_ns = SEC / 10;
	flow_rate_get(&s, &k, 8, 12 * SEC, &r);
	assert_int_equal(r.rate_to_guest, 1000000);
	/* swept: both samples are its counts, nothing from the old flow */
	flow_clock_tick(&k, 12 * SEC);
	flow_rate_take(&s, &k, 8, 0, 100000);
	r.bytes_to_guest = 600000;
	flow_rate_get(&s, &k, 8, 12 * SEC + SEC / 2, &r);
	assert_int_equal(r.rate_to_guest, 1000000);
	/* a count that went back (none should) gives 0, not a wrap */
	r.bytes_to_guest = 1;
	flow_rate_get(&s, &k, 8, 12 * SEC + SEC / 2, &r);
	assert_int_equal(r.rate_to_guest, 0);
	/* no samples, no age: 0 */
	memset(&r, 0, sizeof(r));
	r.bytes_to_guest = 5;
	flow_rate_get(NULL, &k, 9, 13 * SEC, &r);
	assert_int_equal(r.rate_to_guest, 0);
	/* huge counts do not overflow */
	r.bytes_to_guest = 1ULL << 50;
	r.age_ns = SEC;
	flow_rate_get(NULL, &k, 9, 13 * SEC, &r);
	assert_int_equal(r.rate_to_guest, 1ULL << 50);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limit_table),
		cmocka_unit_test(test_limit_names),
		cmocka_unit_test(test_rate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

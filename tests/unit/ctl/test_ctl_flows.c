/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_ctl_flows.c - the flows reply of the control API (ctl/ctl_proto.c
 * ctl_reply_flows(), shard/flow_rec.c): every kind of record, the core's
 * with the members they always had, spliced and -U ones with their kind,
 * ns_port, -U payload bytes and both times; the members every record has
 * since issue 26 (bytes, segments, rates, times, host tuple) and a TCP
 * flow's (guest RTT, resends, in flight, window, tcp_info, limited_by);
 * DNS queries in flight; kinds and states out of range
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>

#include "core/tcp.h"
#include "core/udp.h"
#include "ctl/ctl_proto.h"
#include "util/log.h"

enum log_level log_max_level = LOG_ERR;

/**
 * rec() - a record with IPv4 ends
 * @kind:	enum flow_kind
 * @proto:	IPPROTO_*
 * @state:	its state
 * @g:		guest address (dotted)
 * @gp:		guest port
 * @rem:	remote address (dotted)
 * @rp:		remote port
 *
 * Return: the record, counters and times zero
 */
static struct flow_rec rec(uint8_t kind, uint8_t proto, uint8_t state,
			   const char *g, uint16_t gp, const char *rem,
			   uint16_t rp)
{
	struct flow_rec r;

	memset(&r, 0, sizeof(r));
	r.kind = kind;
	r.proto = proto;
	r.state = state;
	r.guest_addr[10] = r.guest_addr[11] = 0xff;
	r.remote_addr[10] = r.remote_addr[11] = 0xff;
	assert_int_equal(inet_pton(AF_INET, g, r.guest_addr + 12), 1);
	assert_int_equal(inet_pton(AF_INET, rem, r.remote_addr + 12), 1);
	r.guest_port = gp;
	r.remote_port = rp;
	return r;
}

/**
 * reply() - build the reply, dump it and parse it again
 * @recs:	records
 * @n:		how many
 *
 * Return: the flows array's owner (caller frees)
 */
static json_t *reply(const struct flow_rec *recs, size_t n)
{
	json_error_t e;
	size_t len = 0;
	char *s = ctl_reply_flows(recs, n, n, &len);
	json_t *j;

	assert_non_null(s);
	assert_int_equal(strlen(s), len);
	assert_int_equal(s[len - 1], '\n');
	j = json_loads(s, 0, &e);
	free(s);
	assert_non_null(j);
	assert_int_equal(json_array_size(json_object_get(j, "flows")), n);
	return j;
}

/**
 * str() - a string member
 * @o:		object
 * @k:		member
 *
 * Return: its text (the test fails if absent)
 */
static const char *str(const json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));

	assert_non_null(v);
	return v;
}

/**
 * num() - an integer member
 * @o:		object
 * @k:		member
 *
 * Return: its value (the test fails if absent)
 */
static long long num(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	assert_true(json_is_integer(v));
	return json_integer_value(v);
}

/**
 * test_kinds() - each kind of record: the members every record has, and
 * what each kind adds
 * @state:	unused
 */
static void test_kinds(void **state)
{
	struct flow_rec r[6];
	const json_t *f, *h;
	json_t *j;
	unsigned i;

	(void)state;
	r[0] = rec(FLOW_KIND_TCP, IPPROTO_TCP, TCPS_ESTABLISHED, "10.0.2.15",
		   41522, "10.0.2.2", 8080);
	r[0].from_guest = 1048576;
	r[0].to_guest = 73;
	r[0].age_ns = 1520000000ULL;
	r[0].bytes_from_guest = 1048576;
	r[0].bytes_to_guest = 73;
	r[0].segs_from_guest = 720;
	r[0].segs_to_guest = 2;
	r[0].rate_from_guest = 690000;
	r[0].guest_rtt_us = 180;
	r[0].resends = 3;
	r[0].in_flight_to_guest = 12;
	r[0].guest_wnd = 64240;
	r[0].has_host = true;
	r[0].host.local_addr[10] = r[0].host.local_addr[11] = 0xff;
	r[0].host.local_addr[12] = 127;
	r[0].host.local_addr[15] = 1;
	r[0].host.local_port = 50001;
	memcpy(r[0].host.peer_addr, r[0].host.local_addr, 16);
	r[0].host.peer_port = 8080;
	r[0].has_tcpi = true;
	r[0].tcpi.rtt_us = 41;
	r[0].tcpi.rttvar_us = 20;
	r[0].tcpi.cwnd = 10;
	r[0].tcpi.retrans = 1;
	r[0].tcpi.unacked = 4;
	r[0].tcpi.send_queue = 5000;
	r[0].tcpi.sndbuf = 2626560;
	r[0].limit = FLOW_LIM_GUEST_SENDER;
	r[1] = rec(FLOW_KIND_UDP, IPPROTO_UDP, UDPK_PUB, "10.0.2.15", 5353,
		   "192.0.2.7", 53);
	r[1].idle_ns = 40000000ULL;
	r[2] = rec(FLOW_KIND_PING, IPPROTO_ICMP, UDPK_ICMP, "10.0.2.15", 7,
		   "192.0.2.7", 0);
	r[3] = rec(FLOW_KIND_SPLICE, IPPROTO_TCP, FLOW_SVC_CLOSING, "127.0.0.1",
		   59148, "127.0.0.1", 7106);
	r[3].ns_port = 6106;
	r[3].from_guest = 7000;
	r[3].to_guest = 3;
	r[3].age_ns = 538000000ULL;
	r[3].idle_ns = 51000000ULL;
	r[4] = rec(FLOW_KIND_UDPNS, IPPROTO_UDP, FLOW_SVC_OPEN, "127.0.0.1",
		   53079, "127.0.0.1", 45331);
	r[4].ns_port = 40000;
	r[4].from_guest = 4;
	r[4].to_guest = 4;
	r[4].from_guest_bytes = 700;
	r[4].to_guest_bytes = 764;
	r[4].age_ns = 290000000ULL;
	r[4].idle_ns = 32000000ULL;
	r[4].bytes_from_guest = 700;
	r[4].bytes_to_guest = 764;
	r[3].shard = r[4].shard = 0;
	r[5] = rec(FLOW_KIND_DNS, IPPROTO_UDP, FLOW_SVC_QUERY, "10.0.2.15",
		   40123, "127.0.0.53", 53);
	r[5].from_guest = r[5].segs_from_guest = 1;
	r[5].bytes_from_guest = 41;
	r[5].age_ns = 700000000ULL;
	r[5].idle_ns = 700000000ULL;
	j = reply(r, 6);
	for (i = 0; i < 6; i++) {
		/* what every record had before kinds: old clients parse;
		 * and what every record has since issue 26 */
		static const char *const keys[] = {
			"proto",	  "shard",
			"guest_addr",	  "guest_port",
			"remote_addr",	  "remote_port",
			"state",	  "from_guest",
			"to_guest",	  "age_ms",
			"idle_ms",	  "bytes_from_guest",
			"bytes_to_guest", "segs_from_guest",
			"segs_to_guest",  "rate_from_guest",
			"rate_to_guest",  "host",
		};
		unsigned k;

		f = json_array_get(json_object_get(j, "flows"), i);
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			assert_non_null(json_object_get(f, keys[k]));
		/* and only the core's TCP flows have the TCP members */
		assert_true(!json_object_get(f, "limited_by") == (i != 0));
		assert_true(!json_object_get(f, "tcp_info") == (i != 0));
		assert_true(!json_object_get(f, "guest_rtt_us") == (i != 0));
	}
	f = json_array_get(json_object_get(j, "flows"), 0);
	assert_string_equal(str(f, "kind"), "tcp");
	assert_string_equal(str(f, "state"), "ESTABLISHED");
	assert_int_equal(num(f, "age_ms"), 1520);
	assert_int_equal(num(f, "idle_ms"), 0);
	assert_null(json_object_get(f, "ns_port"));
	assert_null(json_object_get(f, "from_guest_bytes"));
	assert_int_equal(num(f, "bytes_from_guest"), 1048576);
	assert_int_equal(num(f, "bytes_to_guest"), 73);
	assert_int_equal(num(f, "segs_from_guest"), 720);
	assert_int_equal(num(f, "segs_to_guest"), 2);
	assert_int_equal(num(f, "rate_from_guest"), 690000);
	assert_int_equal(num(f, "rate_to_guest"), 0);
	assert_int_equal(num(f, "guest_rtt_us"), 180);
	assert_int_equal(num(f, "resends"), 3);
	assert_int_equal(num(f, "in_flight_to_guest"), 12);
	assert_int_equal(num(f, "guest_wnd"), 64240);
	assert_string_equal(str(f, "limited_by"), "guest-sender");
	h = json_object_get(f, "host");
	assert_true(json_is_object(h));
	assert_string_equal(str(h, "local_addr"), "127.0.0.1");
	assert_int_equal(num(h, "local_port"), 50001);
	assert_string_equal(str(h, "peer_addr"), "127.0.0.1");
	assert_int_equal(num(h, "peer_port"), 8080);
	h = json_object_get(f, "tcp_info");
	assert_true(json_is_object(h));
	assert_int_equal(num(h, "rtt_us"), 41);
	assert_int_equal(num(h, "rttvar_us"), 20);
	assert_int_equal(num(h, "cwnd"), 10);
	assert_int_equal(num(h, "retrans"), 1);
	assert_int_equal(num(h, "unacked"), 4);
	assert_int_equal(num(h, "send_queue"), 5000);
	assert_int_equal(num(h, "sndbuf"), 2626560);
	f = json_array_get(json_object_get(j, "flows"), 1);
	assert_string_equal(str(f, "kind"), "udp");
	assert_string_equal(str(f, "state"), "PUBLISHED");
	assert_int_equal(num(f, "idle_ms"), 40);
	assert_int_equal(num(f, "age_ms"), 0);
	assert_true(json_is_null(json_object_get(f, "host")));
	f = json_array_get(json_object_get(j, "flows"), 2);
	assert_string_equal(str(f, "kind"), "ping");
	assert_string_equal(str(f, "proto"), "icmp");
	f = json_array_get(json_object_get(j, "flows"), 3);
	assert_string_equal(str(f, "kind"), "splice");
	assert_string_equal(str(f, "proto"), "tcp");
	assert_string_equal(str(f, "state"), "CLOSING");
	assert_string_equal(str(f, "guest_addr"), "127.0.0.1");
	assert_int_equal(num(f, "guest_port"), 59148);
	assert_int_equal(num(f, "remote_port"), 7106);
	assert_int_equal(num(f, "ns_port"), 6106);
	assert_int_equal(num(f, "from_guest"), 7000);
	assert_int_equal(num(f, "to_guest"), 3);
	assert_int_equal(num(f, "age_ms"), 538);
	assert_int_equal(num(f, "idle_ms"), 51);
	assert_null(json_object_get(f, "from_guest_bytes"));
	f = json_array_get(json_object_get(j, "flows"), 4);
	assert_string_equal(str(f, "kind"), "udpns");
	assert_string_equal(str(f, "proto"), "udp");
	assert_string_equal(str(f, "state"), "OPEN");
	assert_int_equal(num(f, "ns_port"), 40000);
	assert_int_equal(num(f, "from_guest"), 4);
	assert_int_equal(num(f, "from_guest_bytes"), 700);
	assert_int_equal(num(f, "to_guest_bytes"), 764);
	assert_int_equal(num(f, "bytes_from_guest"), 700);
	assert_int_equal(num(f, "bytes_to_guest"), 764);
	assert_int_equal(num(f, "age_ms"), 290);
	assert_int_equal(num(f, "idle_ms"), 32);
	f = json_array_get(json_object_get(j, "flows"), 5);
	assert_string_equal(str(f, "kind"), "dns");
	assert_string_equal(str(f, "proto"), "udp");
	assert_string_equal(str(f, "state"), "QUERY");
	assert_string_equal(str(f, "remote_addr"), "127.0.0.53");
	assert_int_equal(num(f, "remote_port"), 53);
	assert_int_equal(num(f, "bytes_from_guest"), 41);
	assert_int_equal(num(f, "segs_from_guest"), 1);
	assert_int_equal(num(f, "age_ms"), 700);
	json_decref(j);
}

/**
 * test_states() - the states of spliced records, and kinds and states out
 * of range (records are plain bytes to the reply builder)
 * @state:	unused
 */
static void test_states(void **state)
{
	static const char *const names[] = { "CONNECTING", "ESTABLISHED",
					     "CLOSING", "OPEN", "QUERY" };
	struct flow_rec r;
	unsigned i;

	(void)state;
	r = rec(FLOW_KIND_SPLICE, IPPROTO_TCP, 0, "127.0.0.1", 1, "127.0.0.1",
		2);
	for (i = 0; i < FLOW_SVC_NUM; i++) {
		r.state = (uint8_t)i;
		assert_string_equal(flow_rec_state_str(&r), names[i]);
	}
	r.state = FLOW_SVC_NUM;
	assert_string_equal(flow_rec_state_str(&r), "?");
	r.kind = FLOW_KIND_NUM;
	assert_string_equal(flow_rec_kind_str(&r), "?");
	r.kind = 255;
	r.state = TCPS_ESTABLISHED; /* an unknown kind: the proto's states */
	assert_string_equal(flow_rec_state_str(&r), "ESTABLISHED");
	json_decref(reply(&r, 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_states),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

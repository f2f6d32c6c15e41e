/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_tcp_state.c - the TCP state table (tcp.h): a flow's life keeps it,
 * broken states are named, and the checks abort where debug builds run them
 *
 * Each test runs on a flow over IPv4 and over IPv6 (cmocka's initial state
 * is the family, struct fam of helpers.h).
 */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

/* the remote end of the test flow: 192.0.2.1, or 2001:db8::1 */
static const uint8_t remote4[ADDR_LEN] = { [10] = 0xff, 0xff, 192, 0, 2, 1 };
static const uint8_t remote6[ADDR_LEN] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
#define GPORT 40000
#define RPORT 80
#define GISN 1000
#define SOCK 50

static const uint8_t pat[300];

/**
 * state_ok() - the whole core keeps the table
 * @e:	environment
 */
static void state_ok(const struct env *e)
{
	const char *why = tcp_flows_bad(&e->c);

	if (why)
		fail_msg("state table broken: %s", why);
}

/**
 * fam_env() - a core on the test's family
 * @state:	cmocka state: the family
 * @ooo_slots:	out-of-order slots (0: the default)
 *
 * Return: the environment
 */
static struct env *fam_env(void **state, uint32_t ooo_slots)
{
	const struct fam *fm = *state;
	struct core_conf cc;

	fam_conf(&cc, true, fm);
	if (ooo_slots)
		cc.ooo_slots = ooo_slots;
	return fam_env_new(&cc, fm);
}

/**
 * remote() - the test flow's remote address, of the environment's family
 * @e:	environment
 *
 * Return: remote4 or remote6
 */
static const uint8_t *remote(const struct env *e)
{
	return e->fam->v6 ? remote6 : remote4;
}

/**
 * gseg() - a segment of the test flow from the guest
 * @e:		environment
 * @seq:	sequence number
 * @ack:	acknowledgement number
 * @flags:	T_* flags
 * @len:	payload bytes (from pat)
 */
static void gseg(struct env *e, uint32_t seq, uint32_t ack, uint8_t flags,
		 size_t len)
{
	struct seg s = {
		.sport = GPORT,
		.dport = RPORT,
		.seq = seq,
		.ack = ack,
		.flags = flags,
		.wnd = 65535,
		.data = pat,
		.len = len,
	};

	seg_dst(&s, remote(e));
	env_send(e, &s);
}

/**
 * establish() - the guest opens the test flow, with SACK and window
 * scaling; the table holds at every step
 * @e:	environment
 *
 * Return: the flow, ESTABLISHED
 */
static struct tcp_flow *establish(struct env *e)
{
	/* MSS 1460, NOP + window scale 7, NOP NOP + SACK permitted */
	static const uint8_t opts[] = { 2, 4, 5, 180, 1, 3, 3, 7, 1, 1, 4, 2 };
	struct seg s = {
		.sport = GPORT,
		.dport = RPORT,
		.seq = GISN,
		.flags = T_SYN,
		.wnd = 65535,
		.opts = opts,
		.optlen = sizeof(opts),
	};
	const struct fx_intent *it;
	struct tcp_flow *f;

	seg_dst(&s, remote(e));
	env_send(e, &s);
	it = fx_find(e, FX_SOCK_CONNECT);
	assert_non_null(it);
	f = tcp_flow_get(&e->c, it->flow);
	assert_non_null(f);
	assert_int_equal(tcp_flow_v6(f), e->fam->v6);
	assert_memory_equal(f->remote_addr, remote(e), ADDR_LEN);
	assert_int_equal(f->state, TCPS_HOST_CONNECTING);
	assert_true(f->flags & TCPF_SACK_OK);
	f->sock = SOCK;
	state_ok(e);
	env_clear(e);

	tcp_on_sock_connected(&e->c, f, 0, e->now, &e->fx);
	assert_int_equal(f->state, TCPS_SYNACK_SENT);
	state_ok(e);
	env_clear(e);

	gseg(e, GISN + 1, f->iss + 1, T_ACK, 0);
	assert_int_equal(f->state, TCPS_ESTABLISHED);
	state_ok(e);
	env_clear(e);
	return f;
}

/**
 * host_took() - carry out the queued FX_SOCK_SEND: the socket takes it all
 * @e:	environment
 * @f:	flow
 */
static void host_took(struct env *e, struct tcp_flow *f)
{
	struct fx_intent it = *fx_find(e, FX_SOCK_SEND);

	env_clear(e);
	tcp_on_sock_sent(&e->c, f, (long)it.len, &it, e->now, &e->fx);
}

/**
 * test_life_keeps_table() - open, data both ways, a gap held and filled,
 * both FINs: tcp_flows_bad() finds nothing after any step
 * @state:	the family
 */
static void test_life_keeps_table(void **state)
{
	struct env *e = fam_env(state, 4);
	struct tcp_flow *f = establish(e);
	uint32_t gseq = GISN + 1, idx;

	idx = tcp_flow_idx(&e->c, f);

	/* in order: written, ACK owed at the end of the batch */
	gseg(e, gseq, f->snd_una, T_ACK | T_PSH, 100);
	state_ok(e);
	host_took(e, f);
	gseq += 100;
	assert_true(f->flags & TCPF_ACK_DUE);
	state_ok(e);
	core_flush(&e->c, e->now, &e->fx);
	state_ok(e);
	env_clear(e);

	/* beyond a gap: held, then the gap fills and both are written */
	gseg(e, gseq + 100, f->snd_una, T_ACK, 100);
	assert_true(f->flags & TCPF_OOO);
	state_ok(e);
	env_clear(e);
	gseg(e, gseq, f->snd_una, T_ACK, 100);
	host_took(e, f);
	state_ok(e);
	host_took(e, f); /* the held one */
	gseq += 200;
	state_ok(e);
	core_flush(&e->c, e->now, &e->fx);
	env_clear(e);

	/* toward the guest: 200 bytes sent, acknowledged */
	tcp_build_data(&e->c, f, &e->fx, 200, e->now);
	state_ok(e);
	env_clear(e);
	gseg(e, gseq, f->snd_nxt, T_ACK, 0);
	state_ok(e);
	env_clear(e);

	/* the host's end of stream, then the guest's FIN with its ACK of
	 * ours: the flow ends */
	tcp_on_sock_eof(&e->c, f, e->now, &e->fx);
	assert_true(f->flags & TCPF_FIN_SENT);
	state_ok(e);
	env_clear(e);
	gseg(e, gseq, f->snd_nxt, T_ACK | T_FIN, 0);
	assert_null(tcp_flow_get(&e->c, idx));
	state_ok(e);
	env_free(e);
}

/**
 * assert_bad() - a flow changed by a test is reported broken, by name
 * @f:		flow
 * @want:	the rule tcp_flow_bad() should name
 */
static void assert_bad(const struct tcp_flow *f, const char *want)
{
	const char *why = tcp_flow_bad(f);

	assert_non_null(why);
	assert_string_equal(why, want);
}

/**
 * test_broken_flows_named() - each rule of the table, broken on purpose in
 * a live flow, is caught
 * @state:	the family
 */
static void test_broken_flows_named(void **state)
{
	struct env *e = fam_env(state, 0);
	struct tcp_flow *f = establish(e), saved = *f;

	assert_null(tcp_flow_bad(f));

	f->flags |= TCPF_RESET_HERE;
	assert_bad(f, "a flag its state does not allow");
	*f = saved;
	f->state = TCPS_SYN_SENT; /* the guest's options before its SYN-ACK */
	assert_bad(f, "a flag its state does not allow");
	*f = saved;
	f->flags |= TCPF_FIN_SENT;
	assert_bad(f, "FIN_SENT without HOST_EOF");
	*f = saved;
	f->flags |= TCPF_FIN_ACKED;
	assert_bad(f, "FIN_ACKED without FIN_SENT");
	*f = saved;
	f->flags |= TCPF_GUEST_FIN | TCPF_HOST_EOF | TCPF_FIN_SENT |
		    TCPF_FIN_ACKED;
	f->fin_seq = f->snd_max - 1;
	assert_bad(f, "both FINs done and the flow still there");
	*f = saved;
	f->flags |= TCPF_ACK_DUE;
	assert_bad(f, "ACK_DUE without ACK_LISTED");
	*f = saved;
	f->snd_nxt = f->snd_max + 1;
	assert_bad(f, "not snd_una <= snd_nxt <= snd_max");
	*f = saved;
	f->state = TCPS_SYNACK_SENT;
	f->snd_una = f->iss + 1;
	assert_bad(f, "handshake sequence numbers off iss");
	*f = saved;
	f->rcv_acked = f->rcv_nxt + 1;
	assert_bad(f, "rcv_acked beyond rcv_nxt");
	*f = saved;
	f->ws_guest = 15;
	assert_bad(f, "ws_guest out of range or without GUEST_WS");
	*f = saved;
	f->snd_max = f->snd_nxt = f->snd_una + 3000;
	f->nsack = 2;
	f->sack[0] = (struct tcp_sack_range){ f->snd_una + 2000,
					      f->snd_una + 2500 };
	f->sack[1] = (struct tcp_sack_range){ f->snd_una + 1000,
					      f->snd_una + 1500 };
	assert_bad(f, "SACK scoreboard out of order or bounds");
	*f = saved;
	assert_null(tcp_flow_bad(f));

	/* the core-wide rules: the ack list, the ooo store */
	f->flags |= TCPF_ACK_LISTED;
	assert_string_equal(tcp_flows_bad(&e->c),
			    "ACK_LISTED flows and the ack list differ");
	*f = saved;
	assert_null(tcp_flows_bad(&e->c));
	env_free(e);
}

/**
 * test_ooo_slot_needs_flag() - a held slot of a flow without TCPF_OOO is
 * caught
 * @state:	the family
 */
static void test_ooo_slot_needs_flag(void **state)
{
	struct env *e = fam_env(state, 2);
	struct tcp_flow *f = establish(e);

	e->c.ooo[1].flow = tcp_flow_idx(&e->c, f) + 1;
	e->c.ooo[1].len = 10;
	assert_string_equal(tcp_flows_bad(&e->c),
			    "an ooo slot of a flow without TCPF_OOO");
	f->flags |= TCPF_OOO;
	assert_null(tcp_flows_bad(&e->c));
	env_free(e);
}

/**
 * child_status() - run @fn on a broken flow in a child process
 * @state:	cmocka state: the family of the flow
 * @fn:		what the child does: 0 breaks the flow and calls
 *		tcp_flow_check(), 1 sends a segment of it, 2 runs its timer
 *
 * Return: the child's wait status
 */
static int child_status(void **state, int fn)
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct env *e = fam_env(state, 0);
		struct tcp_flow *f = establish(e);

		f->flags |= TCPF_RESET_HERE; /* never on a live flow */
		if (fn == 0) {
			tcp_flow_check(f);
		} else if (fn == 1) {
			gseg(e, f->rcv_nxt, f->snd_una, T_ACK, 0);
		} else {
			f->deadline_ns = e->now;
			tcp_timer(&e->c, f, e->now, &e->fx);
		}
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return st;
}

/**
 * test_check_aborts() - tcp_flow_check() aborts on a broken flow, and so do
 * tcp_input() and tcp_timer() in debug builds, which run it after every
 * segment and timer (other builds skip it: no cost on the data path)
 * @state:	the family
 */
static void test_check_aborts(void **state)
{
	int st, fn;

	st = child_status(state, 0);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	for (fn = 1; fn <= 2; fn++) {
		st = child_status(state, fn);
		if (DEBUG_CHECKS)
			assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
		else
			assert_true(WIFEXITED(st) && !WEXITSTATUS(st));
	}
}

/**
 * main() - run the state table tests, each over IPv4 and over IPv6
 *
 * Return: 0 if all passed, else the number of failures
 */
int main(void)
{
#define B(t) FAM_BOTH(t, NULL, NULL, "")
	const struct CMUnitTest tests[] = {
		B(test_life_keeps_table),
		B(test_broken_flows_named),
		B(test_ooo_slot_needs_flag),
		B(test_check_aborts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

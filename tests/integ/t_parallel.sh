#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_parallel.sh - 200 parallel connections each way, every byte verified
. "$(dirname "$0")/lib.sh"
require_root
N=${N:-200}
p1=$(free_port)
p2=$(free_port)
start_slipway
fd0=$(sw_fds)

bg "$SWVERIFY" server --listen "127.0.0.1:$p1" --mode recv --bytes 2M --conns "$N" \
	--ready-file "$T/r1"
s1=$LASTPID
bg "$SWVERIFY" server --listen "127.0.0.1:$p2" --mode send --bytes 2M --conns "$N" \
	--ready-file "$T/r2"
s2=$LASTPID
wait_for "host servers" 10 "[ -e $T/r1 ] && [ -e $T/r2 ]"

g "$SWVERIFY" client --connect "10.0.2.2:$p1" --mode send --bytes 2M \
	--parallel "$N" --timeout 120 >"$T/c1.json" || fail "parallel guest->host"
g "$SWVERIFY" client --connect "10.0.2.2:$p2" --mode recv --bytes 2M \
	--parallel "$N" --timeout 120 >"$T/c2.json" || fail "parallel host->guest"
wait "$s1" || fail "host receiver saw bad bytes"
wait "$s2" || fail "host sender failed"
[ "$(json_last "$T/c1.json" ok)" = "$N" ] || fail "not all $N sends verified"
[ "$(json_last "$T/c2.json" ok)" = "$N" ] || fail "not all $N receives verified"

expect_fds_back "$fd0"
stop_slipway
check_gates
expect_ctr TCP_FLOWS_OPENED_GUEST -eq $((2 * N))
expect_ctr TCP_FLOWS_CLOSED -eq $((2 * N))
expect_ctr TCP_GUEST_BYTES -eq $((N * 2 * 1048576))
expect_ctr TCP_ACKED_BYTES -eq $((N * 2 * 1048576))
pass "$N parallel connections each way, 2 MiB each, verified"

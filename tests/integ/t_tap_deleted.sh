#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_tap_deleted.sh - the guest's tap interface is deleted in the middle of
# transfers both ways: slipway stops at once with a clear reason (status
# 1: its device is gone), writes its counters, and both host peers see a
# reset, never a clean end of a stream that was cut off
. "$(dirname "$0")/lib.sh"
require_root
start_slipway
p1=$(free_port)
p2=$(free_port)
host_server "$p1" "$T/r1" --mode recv --bytes 64G
s1=$LASTPID
host_server "$p2" "$T/r2" --mode send --bytes 64G
s2=$LASTPID
guest_client "10.0.2.2:$p1" --mode send --bytes 64G --timeout 60
guest_client "10.0.2.2:$p2" --mode recv --bytes 64G --timeout 60
wait_for "both flows" 10 "sw_stats; [ \$(ctr TCP_FLOWS_ACTIVE) = 2 ]"
sleep 0.3
g ip link del tap0
for i in $(seq 100); do kill -0 "$SW_PID" 2>/dev/null || break; sleep 0.05; done
kill -0 "$SW_PID" 2>/dev/null && fail "slipway still runs 5 s after its tap was deleted"
wait "$SW_PID"
rc=$?
[ "$rc" = 1 ] || fail "slipway exited $rc after its tap was deleted, expected 1"
grep -q "tap device went away" "$T/slipway.log" || fail "no reason logged: $(tail -3 "$T/slipway.log")"
[ -s "$T/stats.json" ] || fail "no counters written"
expect_ctr TCP_RST_AT_EXIT -eq 2
for s in "$s1" "$s2"; do
	for i in $(seq 100); do kill -0 "$s" 2>/dev/null || break; sleep 0.05; done
	wait "$s" && fail "a host peer's transfer ended cleanly though it was cut off"
done
pass "tap deleted mid-transfer: slipway stopped with a reason, counters written, both host peers reset"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_sigterm.sh - SIGTERM in the middle of transfers both ways: slipway
# exits 0 at once, writes its counters, leaks nothing (LeakSanitizer in
# the ASan build), and both peers see their connections end, not hang
. "$(dirname "$0")/lib.sh"
require_root
start_slipway
p1=$(free_port)
p2=$(free_port)
host_server "$p1" "$T/r1" --mode recv
s1=$LASTPID
host_server "$p2" "$T/r2" --mode send --bytes 100G
s2=$LASTPID
guest_client "10.0.2.2:$p1" --mode send --bytes 100G --timeout 30
guest_client "10.0.2.2:$p2" --mode recv --bytes 100G --timeout 30
sleep 1
kill -TERM "$SW_PID"
t0=$(date +%s%N)
wait "$SW_PID"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$rc" = 0 ] || fail "slipway exited $rc on SIGTERM"
[ "$ms" -lt 3000 ] || fail "slipway took $ms ms to stop"
[ -s "$T/stats.json" ] || fail "no counters at exit"
expect_ctr TCP_GUEST_BYTES -gt 0
expect_ctr TCP_ACKED_BYTES -gt 0
# the host peers see their connections end (reset or short), not hang
for p in $s1 $s2; do
	wait_for "host peer $p to finish" 15 "! kill -0 $p 2>/dev/null"
done
pass "SIGTERM mid-transfer: exit 0 in $ms ms, counters written, peers released"

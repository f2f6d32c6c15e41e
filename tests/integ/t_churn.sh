#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_churn.sh - many short connections, both ways: host clients through a
# published port to a server in the guest, and guest clients to a server
# on the host's loopback (through 10.0.2.2). After a warm-up round (which
# sizes the allocator's pools), a measured round of CHURN_SECONDS each way
# must leave slipway's fd count where it was and its RSS flat, with every
# connection verified. A nightly-style run: CHURN_SECONDS=300 (about a
# million connections each way on a 2-core machine).
. "$(dirname "$0")/lib.sh"
require_root
: "${SWCONN:?set SWCONN to the swconn binary}"
CHURN_SECONDS=${CHURN_SECONDS:-4}
pub=$(free_port)
gport=7070
start_slipway -t "127.0.0.1/$pub:$gport"
ip netns exec "$NS" "$SWCONN" server "$gport" >"$T/gsrv.json" 2>&1 &
PIDS+=($!)
hport=$(free_port)
bg "$SWCONN" server "$hport" --bind 127.0.0.1
wait_for "guest server" 10 "ip netns exec $NS ss -ltn | grep -q :$gport"
wait_for "host server" 10 "ss -ltn | grep -q 127.0.0.1:$hport"

rss_kb() {
	awk '/^VmRSS:/ { print $2 }' "/proc/$SW_PID/status"
}

# round SECONDS: both ways at once; prints the connection counts
round() {
	local a b
	"$SWCONN" client 127.0.0.1 "$pub" --seconds "$1" --parallel 4 >"$T/in.json" &
	a=$!
	g "$SWCONN" client 10.0.2.2 "$hport" --seconds "$1" --parallel 4 >"$T/out.json" &
	b=$!
	wait "$a" || fail "host clients through the published port: $(cat "$T/in.json")"
	wait "$b" || fail "guest clients to the host: $(cat "$T/out.json")"
	wait_flows_gone
	echo "$(json_last "$T/in.json" connections) $(json_last "$T/out.json" connections)"
}

round 2 >/dev/null
fds0=$(sw_fds)
rss0=$(rss_kb)
read -r cin cout < <(round "$CHURN_SECONDS")
fds1=$(sw_fds)
rss1=$(rss_kb)
[ "$fds1" = "$fds0" ] || fail "slipway held $fds0 fds before the round, $fds1 after"
[ $((rss1 - rss0)) -lt 8192 ] || fail "slipway's RSS grew from $rss0 to $rss1 KiB over the round"
[ "$cin" -gt 100 ] && [ "$cout" -gt 100 ] ||
	fail "too few connections: $cin in, $cout out in $CHURN_SECONDS s"
stop_slipway
check_gates
pass "churn: $cin connections in through a published port and $cout out in $CHURN_SECONDS s, all verified; fds $fds0 -> $fds1, RSS $rss0 -> $rss1 KiB"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_netns_exit.sh - slipway stops when what it serves goes away: the command
# exits (its status is passed on), the process owning /proc/PID/ns/net
# exits, the named namespace is deleted; SIGTERM is forwarded to the command
. "$(dirname "$0")/lib.sh"
require_root

# 1. command exit status is slipway's
"$SLIPWAY" --stats-file "$T/s1.json" -- sh -c 'exit 7' 2>"$T/slipway.log"
rc=$?
[ "$rc" = 7 ] || fail "exit status $rc, expected the command's 7"

# 2. --netns /proc/PID/ns/net: exits when PID exits
unshare -n sleep 2 &
upid=$!
PIDS+=($upid)
sleep 0.2
timeout 10 "$SLIPWAY" --netns "/proc/$upid/ns/net" --stats-file "$T/s2.json" \
	2>>"$T/slipway.log"
rc=$?
[ "$rc" = 0 ] || fail "--netns /proc/PID: exit $rc (124 = did not notice the owner exit)"

# 3. --netns NAME: exits when the namespace is deleted
make_ns "$NS"
"$SLIPWAY" --netns "$NS" --stats-file "$T/s3.json" 2>>"$T/slipway.log" &
sw=$!
PIDS+=($sw)
wait_for "tap" 10 "ip -n $NS -4 addr show dev tap0 2>/dev/null | grep -q inet"
ip netns del "$NS"
for i in $(seq 100); do
	kill -0 "$sw" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$sw" 2>/dev/null && fail "slipway still runs after its namespace was deleted"

# 4. SIGTERM to slipway reaches the command, which may clean up
"$SLIPWAY" --stats-file "$T/s4.json" -- sh -c "trap 'touch $T/got-term; exit 0' TERM; touch $T/up; while :; do sleep 0.1; done" \
	2>>"$T/slipway.log" &
sw=$!
PIDS+=($sw)
wait_for "command up" 10 "[ -e $T/up ]"
kill -TERM "$sw"
wait "$sw"
[ -e "$T/got-term" ] || fail "the command did not get SIGTERM"
for f in s1 s2 s4; do
	[ -s "$T/$f.json" ] || fail "no counters written at exit ($f)"
done
pass "exit status passed on; PID owner exit, namespace deletion and SIGTERM all end slipway"

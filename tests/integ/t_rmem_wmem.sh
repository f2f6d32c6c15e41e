#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_rmem_wmem.sh - the host side's tcp_rmem max far larger than tcp_wmem max
# (the case that stalls pasta): the window slipway advertises to the guest
# must follow what its socket can hold, so guest->host never stalls.
# slipway runs in a "host" namespace of our own where the sysctls are set.
. "$(dirname "$0")/lib.sh"
require_root
H="swh$$"
make_ns "$H"
ip netns exec "$H" ip link set lo up
ip netns exec "$H" sysctl -qw net.ipv4.tcp_rmem="4096 131072 33554432"
ip netns exec "$H" sysctl -qw net.ipv4.tcp_wmem="4096 16384 262144"
make_ns "$NS"
ip netns exec "$H" "$SLIPWAY" --netns "$NS" --stats-file "$T/stats.json" \
	>"$T/slipway.log" 2>&1 &
SW_PID=$!
PIDS+=($SW_PID)
wait_for "guest address" 10 "ip -n $NS -4 addr show dev tap0 2>/dev/null | grep -q inet"

p=$(free_port)
ip netns exec "$H" "$SWVERIFY" server --listen "127.0.0.1:$p" --mode recv \
	--bytes 512M --once --ready-file "$T/r" &
s=$!
PIDS+=($s)
wait_for "server" 10 "[ -e $T/r ]"
g "$SWVERIFY" client --connect "10.0.2.2:$p" --mode send --bytes 512M \
	--timeout 60 >"$T/c.json" || fail "guest->host stalled or failed: $(cat "$T/c.json")"
wait "$s" || fail "receiver failed"
p2=$(free_port)
ip netns exec "$H" "$SWVERIFY" server --listen "127.0.0.1:$p2" --mode send \
	--bytes 512M --once --ready-file "$T/r2" &
s=$!
PIDS+=($s)
wait_for "server" 10 "[ -e $T/r2 ]"
g "$SWVERIFY" client --connect "10.0.2.2:$p2" --mode recv --bytes 512M \
	--timeout 60 >"$T/c2.json" || fail "host->guest failed: $(cat "$T/c2.json")"
wait "$s" || fail "sender failed"

stop_slipway
check_gates
gb=$(json_last "$T/c.json" gbps)
gb2=$(json_last "$T/c2.json" gbps)
# a stall shows up as a near-zero rate: demand at least 0.2 Gbit/s
"$PY" -c "import sys; sys.exit(0 if float('$gb') > 0.2 and float('$gb2') > 0.2 else 1)" ||
	fail "too slow: $gb / $gb2 Gbit/s (stalling?)"
pass "rmem 32 MiB >> wmem 256 KiB: guest->host $gb Gbit/s, host->guest $gb2 Gbit/s, verified"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_fwd_split.sh - an unaddressed published port (-t P:8001, -u P:8002) is
# one dual-stack socket; when another program holds the port in one family
# only, slipway publishes it on the other, with a warning, as pasta does:
# - 0.0.0.0:P held (TCP and UDP): slipway starts, warns "IPv4 is in use by
#   another program, published on IPv6 only", [::1]:P reaches the guest and
#   127.0.0.1:P still the holder;
# - [::]:P held (IPv6 only): the converse;
# - both held: slipway exits 1, saying the port is in use.
# slipway runs in a host namespace of ours (H), so the ports are the test's.
. "$(dirname "$0")/lib.sh"
require_root
H="swfs$$"
make_ns "$H"
ip -n "$H" link set lo up
word_tools
start_guest_server() {
	bg ip netns exec "$NS" "$PY" "$T/srv.py" "$T/gready" t,0.0.0.0,8001,guest \
		t,::,8001,guest6 u,0.0.0.0,8002,"$T/gudp.log" u,::,8002,"$T/gudp.log"
	wait_for "guest servers" 10 "[ -e $T/gready ]"
}

# --- IPv4 held: IPv6 alone
p=$(free_port)
bg h "$PY" "$T/srv.py" "$T/h1" "t,0.0.0.0,$p,holder" "u,0.0.0.0,$p,$T/hudp.log"
holder=$LASTPID
wait_for "holder" 10 "[ -e $T/h1 ]"
start_slipway_v6 "$H" -t "$p:8001" -u "$p:8002"
grep -q "TCP port $p: IPv4 is in use by another program, published on IPv6 only" \
	"$T/slipway.log" || fail "no warning for the TCP port held on IPv4"
grep -q "UDP port $p: IPv4 is in use by another program, published on IPv6 only" \
	"$T/slipway.log" || fail "no warning for the UDP port held on IPv4"
start_guest_server
reach_from "$H" ::1 "$p" guest6
reach_from "$H" 127.0.0.1 "$p" holder
reach_from "$H" ::1 "$p" guest-udp udp
stop_slipway
kill "$holder"
wait "$holder" 2>/dev/null
ip netns del "$NS"

# --- IPv6 held: IPv4 alone
p=$(free_port)
rm -f "$T/gready"
bg h "$PY" "$T/srv.py" "$T/h2" "t,::,$p,holder6"
holder=$LASTPID
wait_for "holder" 10 "[ -e $T/h2 ]"
start_slipway_v6 "$H" -t "$p:8001"
grep -q "TCP port $p: IPv6 is in use by another program, published on IPv4 only" \
	"$T/slipway.log" || fail "no warning for the TCP port held on IPv6"
start_guest_server
reach_from "$H" 127.0.0.1 "$p" guest
reach_from "$H" ::1 "$p" holder6
stop_slipway
ip netns del "$NS"

# --- both held: a clear failure, as before
bg h "$PY" "$T/srv.py" "$T/h3" "t,0.0.0.0,$p,holder"
wait_for "holder" 10 "[ -e $T/h3 ]"
make_ns "$NS"
h "$SLIPWAY" --netns "$NS" --resolv-conf "$T/resolv.conf" -t "$p:8001" \
	>"$T/slipway.log" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "both families held: exit $rc, expected 1"
grep -q "cannot publish TCP port $p (in use by another program" "$T/slipway.log" ||
	fail "both families held: no clear message"
pass "a port held in one family is published in the other, with a warning"

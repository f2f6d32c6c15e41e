#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_exposure.sh - what the guest and the world can reach, and nothing more:
# - a host service bound to 127.0.0.1 (and ::1) is reachable from the guest
#   through the gateway address, and with --no-map-host-loopback it is not,
#   by any address (the gateway's, the host's veth address, the guest's
#   own loopback), while a host service on all addresses still is;
# - "-t 127.0.0.1/PORT" listens there and nowhere else: not on 127.0.0.2,
#   not on ::1, not on the host's veth address from another namespace,
#   while "-t PORT" (no address) is reachable on all of them.
# The "host" is a namespace of ours (H) with a veth to a client namespace
# (C); slipway runs in H and serves the guest namespace $NS.
. "$(dirname "$0")/lib.sh"
require_root
make_host_client 10.78.0.1/24 10.78.0.2/24
echo "nameserver 127.0.0.1" >"$T/resolv.conf"

# servers that say who they are; a client that says what it got
word_tools

lo_port=$(free_port)
any_port=$(free_port)
bg ip netns exec "$H" "$PY" "$T/srv.py" "$T/hready" "t,127.0.0.1,$lo_port,host-lo" \
	"t,::1,$lo_port,host-lo6" "t,0.0.0.0,$any_port,host-any"
wait_for "host servers" 10 "[ -e $T/hready ]"

# --- default: host loopback through the gateway address only
start_slipway_v6 "$H"
reach_from "$NS" 10.0.2.2 "$lo_port" host-lo
reach_from "$NS" fd00:5ee:d::2 "$lo_port" host-lo6
reach_from "$NS" 10.78.0.1 "$lo_port" refused   # bound to loopback: not there
reach_from "$NS" 127.0.0.1 "$lo_port" refused   # the guest's own loopback
reach_from "$NS" 10.78.0.1 "$any_port" host-any
stop_slipway
ip netns del "$NS"

# --- --no-map-host-loopback: not at all
start_slipway_v6 "$H" --no-map-host-loopback
reach_from "$NS" 10.0.2.2 "$lo_port" refused
reach_from "$NS" fd00:5ee:d::2 "$lo_port" refused
reach_from "$NS" 10.78.0.1 "$lo_port" refused
reach_from "$NS" 127.0.0.1 "$lo_port" refused
reach_from "$NS" 10.78.0.1 "$any_port" host-any  # the host's other services are
stop_slipway
expect_ctr TCP_FLOWS_ACTIVE -eq 0
ip netns del "$NS"

# --- published ports bind where told, and nowhere else
p1=$(free_port)
p2=$(free_port)
start_slipway_v6 "$H" -t "127.0.0.1/$p1:8001" -t "$p2:8002"
bg ip netns exec "$NS" "$PY" "$T/srv.py" "$T/gready" "t,0.0.0.0,8001,guest-1" \
	"t,0.0.0.0,8002,guest-2" "t,::,8002,guest-2v6"
wait_for "guest servers" 10 "[ -e $T/gready ]"
reach_from "$H" 127.0.0.1 "$p1" guest-1
reach_from "$H" 127.0.0.2 "$p1" refused
reach_from "$H" ::1 "$p1" refused
reach_from "$H" 10.78.0.1 "$p1" refused
reach_from "$C" 10.78.0.1 "$p1" refused
# the same without an address: everywhere
reach_from "$H" 127.0.0.2 "$p2" guest-2
reach_from "$C" 10.78.0.1 "$p2" guest-2
# the listening sockets: p1 on 127.0.0.1 only, and only p1 and p2 at all
l1=$(ip netns exec "$H" ss -Hltn "sport = :$p1" | awk '{print $4}' | tr '\n' ' ')
[ "$l1" = "127.0.0.1:$p1 " ] || fail "listeners on $p1: '$l1', expected 127.0.0.1:$p1 only"
others=$(ip netns exec "$H" ss -Hltnp | grep "pid=$SW_PID," | awk '{print $4}' |
	grep -v -e ":$p1\$" -e ":$p2\$" | tr '\n' ' ')
[ -z "$others" ] || fail "slipway listens on more: $others"
stop_slipway
pass "host loopback only through the gateway (and not with --no-map-host-loopback); published ports bound where told"

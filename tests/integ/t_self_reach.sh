#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_self_reach.sh - the guest cannot reach slipway's own listening sockets:
# - --metrics (on 127.0.0.1, on [::], on [::1]) is refused to the guest
#   through the gateway's addresses and through the host's own addresses,
#   and the host still scrapes it while the guest holds many connections;
# - a published TCP port reached back from the guest (a loop) is refused,
#   through the gateway and through the host's veth address, and so is one
#   added at run time, until it is removed;
# - a datagram to a published UDP port gets a port unreachable and never
#   reaches the guest's own server through the loop;
# - every refusal is counted (TCP_REFUSED_SELF, UDP_REFUSED_SELF), and
#   ordinary host services on loopback and on other addresses stay
#   reachable.
# The "host" is a namespace of ours (H) with a veth (10.78.0.1, fd78::1),
# as in t_exposure.sh; slipway runs in H and serves the guest namespace $NS.
. "$(dirname "$0")/lib.sh"
require_root
make_host_client 10.78.0.1/24 10.78.0.2/24
ip -n "$H" addr add fd78::1/64 dev hv0 nodad
echo "nameserver 127.0.0.1" >"$T/resolv.conf"
CTL=$T/ctl.sock

# servers that say who they are (TCP, and UDP ones that log what they
# got); a client that says what it got
word_tools
# reach ADDR PORT EXPECTED [udp]: a connection from the guest gets EXPECTED
reach() {
	reach_from "$NS" "$@"
}

lo_port=$(free_port)
any_port=$(free_port)
hold_port=$(free_port)
bg ip netns exec "$H" "$PY" "$T/srv.py" "$T/hready" "t,127.0.0.1,$lo_port,host-lo" \
	"t,::1,$lo_port,host-lo6" "t,0.0.0.0,$any_port,host-any" \
	"t,0.0.0.0,$hold_port,hold"
wait_for "host servers" 10 "[ -e $T/hready ]"

# run_sw OPTIONS...: slipway in H serving a fresh $NS, with a guest TCP
# server on 80 and a UDP one on 5353 (logging to $T/udp.log)
run_sw() {
	start_slipway_v6 "$H" "$@"
	rm -f "$T/gready" "$T/udp.log"
	bg ip netns exec "$NS" "$PY" "$T/srv.py" "$T/gready" "t,0.0.0.0,80,guest-80" \
		"t,::,80,guest-80v6" "u,0.0.0.0,5353,$T/udp.log"
	wait_for "guest servers" 10 "[ -e $T/gready ]"
}

# --- metrics on 127.0.0.1, published TCP and UDP ports on every address
mport=$(free_port)
p2=$(free_port)
pu=$(free_port)
run_sw --ctl "$CTL" --metrics "$mport" -t "$p2:80" -u "$pu:5353" \
	-T "$mport" -T "$p2" -T "$lo_port"
# the published ports work for the host
got=$(ip netns exec "$H" "$PY" "$T/cli.py" 127.0.0.1 "$p2")
[ "$got" = guest-80 ] || fail "the published TCP port from the host: got '$got'"
got=$(ip netns exec "$H" "$PY" "$T/cli.py" 127.0.0.1 "$pu" udp)
[ "$got" = guest-udp ] || fail "the published UDP port from the host: got '$got'"
rm -f "$T/udp.log"
# ordinary host services: reachable
reach 10.0.2.2 "$lo_port" host-lo
reach fd00:5ee:d::2 "$lo_port" host-lo6
reach 10.78.0.1 "$any_port" host-any
# slipway's own: not
reach 10.0.2.2 "$mport" refused
reach 10.0.2.2 "$p2" refused
reach fd00:5ee:d::2 "$p2" refused
reach fe80::1%tap0 "$p2" refused
reach 10.78.0.1 "$p2" refused
reach fd78::1 "$p2" refused
# -T: the guest's loopback ports to the host's, but not to slipway's own
reach 127.0.0.1 "$lo_port" host-lo
reach 127.0.0.1 "$mport" reset
reach 127.0.0.1 "$p2" reset
reach 10.0.2.2 "$pu" refused udp
reach 10.78.0.1 "$pu" refused udp
[ ! -s "$T/udp.log" ] || fail "datagrams looped back to the guest: $(cat "$T/udp.log")"
# the guest holds connections to the host and tries the metrics port
# many times over; the host still scrapes
g "$PY" - "$hold_port" "$mport" >"$T/hold.txt" 2>&1 <<'PY' &
import socket, sys, time
held, refused = [], 0
for i in range(12):
    held.append(socket.create_connection(("10.0.2.2", int(sys.argv[1])), timeout=3))
for i in range(12):
    try:
        held.append(socket.create_connection(("10.0.2.2", int(sys.argv[2])), timeout=3))
    except ConnectionRefusedError:
        refused += 1
print("refused", refused, flush=True)
time.sleep(4)
PY
HOLD=$!
PIDS+=("$HOLD")
wait_for "the guest's connections" 10 "grep -q refused $T/hold.txt 2>/dev/null"
grep -q "refused 12" "$T/hold.txt" || fail "the guest reached the metrics port: $(cat "$T/hold.txt")"
code=$(ip netns exec "$H" curl -s -o "$T/metrics.txt" -w '%{http_code}' "http://127.0.0.1:$mport/metrics")
[ "$code" = 200 ] || fail "the host's scrape got $code while the guest held connections"
grep -Eq 'TCP_REFUSED_SELF|tcp_refused_self' "$T/metrics.txt" || fail "no refusal counter in the metrics"
wait "$HOLD"
# a port added at run time is the guest's to reach neither; once removed,
# a host service on that port is
p3=$(free_port)
ip netns exec "$H" "$SLIPWAY" ctl "$CTL" forwards add tcp "$p3:80" >"$T/add.txt" ||
	fail "forwards add: $(cat "$T/add.txt")"
id=$(sed -n 's/^added \([0-9]*\):.*/\1/p' "$T/add.txt")
reach 10.0.2.2 "$p3" refused
reach 10.78.0.1 "$p3" refused
[ "$(ip netns exec "$H" "$SLIPWAY" ctl "$CTL" forwards remove "$id")" = "removed $id" ] ||
	fail "forwards remove $id"
bg ip netns exec "$H" "$PY" "$T/srv.py" "$T/h3ready" "t,127.0.0.1,$p3,host-p3"
wait_for "host server on $p3" 10 "[ -e $T/h3ready ]"
reach 10.0.2.2 "$p3" host-p3
stop_slipway
# TCP: metrics 1, the published port 5, -T 2, the metrics again 12, the
# added port 2; UDP: at least one each time
expect_ctr TCP_REFUSED_SELF -eq 22
expect_ctr UDP_REFUSED_SELF -ge 2
ip netns del "$NS"

# --- metrics on every address of both families
mport=$(free_port)
run_sw --metrics "[::]:$mport"
reach 10.0.2.2 "$mport" refused
reach fd00:5ee:d::2 "$mport" refused
reach 10.78.0.1 "$mport" refused
reach fd78::1 "$mport" refused
reach 10.78.0.1 "$any_port" host-any
[ "$(ip netns exec "$C" "$PY" "$T/cli.py" 10.78.0.1 "$mport")" = "HTTP/1.0 200 OK" ] ||
	fail "metrics on [::] not served to another namespace"
stop_slipway
expect_ctr TCP_REFUSED_SELF -eq 4
ip netns del "$NS"

# --- metrics on ::1 only: the IPv4 loopback service on the same port is
# another one, and the guest reaches it
mport=$(free_port)
bg ip netns exec "$H" "$PY" "$T/srv.py" "$T/h4ready" "t,127.0.0.1,$mport,host-m4"
wait_for "host server on $mport" 10 "[ -e $T/h4ready ]"
run_sw --metrics "[::1]:$mport"
reach fd00:5ee:d::2 "$mport" refused
reach 10.0.2.2 "$mport" host-m4
stop_slipway
expect_ctr TCP_REFUSED_SELF -eq 1
pass "slipway's own listeners (metrics, published TCP and UDP ports, one added at run time) refused to the guest and counted; host services reachable; the host scrapes"

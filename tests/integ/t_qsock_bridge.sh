#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_qsock_bridge.sh - a namespace's Linux TCP stack behind a socket edge, as
# a VM's would be: tests/instruments/swbridge moves frames between a tap in the
# namespace and slipway's --stream or --dgram socket (MODE=stream, dgram
# or vfkit); MODE=vu: tests/instruments/swvu makes the namespace a vhost-user VM. The guest gets its address by DHCP, moves payload-verified
# bytes both ways and through a published port, loses its connection in
# the middle of a transfer (the host peer must see a reset, slipway must
# keep no fd of it) and comes back as a new guest, which is served.
# With vu, a UDP stream sent with UDP_SEGMENT also goes each way, checked
# datagram by datagram (udp_gso.py): the guest that negotiated USO
# (GUEST_USO4/6, HOST_USO) gets and sends UDP GSO frames, and the second
# one, which did not (swvu --no-uso), gets none.
. "$(dirname "$0")/lib.sh"
require_root
: "${SWBRIDGE:?set SWBRIDGE to the swbridge binary}"
MODE=${MODE:-stream}
SIZE=${SIZE:-128M}
kind=$MODE
opts=()
[ "$MODE" = vfkit ] && kind=dgram
if [ "$MODE" = vu ]; then
	: "${SWVU:?set SWVU to the swvu binary}"
	kind=vhost-user
	opts=(--shards 1)
fi

pub=$(free_port)
start_slipway_sock "$kind" -t "127.0.0.1/$pub:5001" "${opts[@]}"
# before any guest: what slipway holds with nobody connected
base0=$(sw_fds)
make_ns "$NS"
g ip link set lo up

# start_bridge [ARGS...]: swbridge in the namespace, tap0 up (no address
# yet); ARGS go to the bridge
start_bridge() {
	local args=(--tap tap0 "$@")
	case $MODE in
	stream) args+=(--stream "$SOCK") ;;
	dgram) args+=(--dgram "$SOCK" --local "$T/guest.sock") ;;
	vfkit) args+=(--dgram "$SOCK" --local "$T/guest.sock" --vfkit) ;;
	vu) args+=(--socket "$SOCK") ;;
	esac
	local tool=$SWBRIDGE
	[ "$MODE" = vu ] && tool=$SWVU
	ip netns exec "$NS" "$tool" "${args[@]}" >"$T/bridge.log" 2>&1 &
	BR_PID=$!
	PIDS+=("$BR_PID")
	wait_for "the bridge's tap" 10 "ip -n $NS link show tap0 2>/dev/null | grep -q UP"
}

# udp_gso DIR: a verified UDP stream through slipway (udp_gso.py: 100
# bursts of 46 datagrams), down (host to guest) or up; the host's end on
# 127.0.0.1, the guest's to 10.0.2.2
udp_gso() {
	local p srv
	p=$(free_port)
	rm -f "$T/ur"
	"$PY" "$(dirname "$0")/udp_gso.py" server "$1" 127.0.0.1 "$p" 100 \
		"$T/ur" >"$T/us.log" 2>&1 &
	srv=$!
	PIDS+=("$srv")
	wait_for "the UDP server" 10 "[ -e $T/ur ]"
	g "$PY" "$(dirname "$0")/udp_gso.py" client "$1" 10.0.2.2 "$p" 100 \
		>"$T/uc.log" 2>&1 || fail "UDP $1, guest: $(cat "$T/uc.log")"
	wait "$srv" || fail "UDP $1, host: $(cat "$T/us.log")"
	echo "UDP $1: guest: $(cat "$T/uc.log"); host: $(cat "$T/us.log")"
}

cat >"$T/udhcpc.sh" <<EOF
#!/bin/sh
case "\$1" in
deconfig) ip -4 addr flush dev "\$interface" ;;
bound|renew)
	ip addr add "\$ip/\$mask" dev "\$interface"
	[ -n "\$mtu" ] && ip link set dev "\$interface" mtu "\$mtu"
	ip route add default via "\$router" dev "\$interface"
	echo "\$ip \$router \$mtu" >"$T/lease"
	;;
esac
exit 0
EOF
chmod 755 "$T/udhcpc.sh"

start_bridge
g busybox udhcpc -i tap0 -n -q -f -t 5 -T 1 -O mtu -s "$T/udhcpc.sh" \
	>"$T/udhcpc.log" 2>&1 || fail "no DHCP lease over the $MODE edge: $(cat "$T/udhcpc.log")"
[ "$(cat "$T/lease")" = "10.0.2.15 10.0.2.2 65520" ] || fail "lease: $(cat "$T/lease")"
g busybox ping -c 2 -W 2 10.0.2.2 >/dev/null || fail "ping of the gateway"

# guest -> host and host -> guest over guest-opened flows, and through the
# published port, verified
xfer_guest_send 10.0.2.2 "$SIZE"
xfer_guest_recv 10.0.2.2 "$SIZE"
xfer_pub_send "$pub" 5001 "$SIZE"
sw_stats
check_gates
expect_ctr TCP_FLOWS_CLOSED -eq 3
expect_ctr EDGE_CONNECTS -eq 1
expect_ctr EDGE_TX_DROPPED -eq 0
[ "$MODE" = vfkit ] && expect_ctr EDGE_VFKIT_HELLO -eq 1
# the tap's stack takes partial checksums: payload is peeked straight into
# its buffers, none lost on the way
[ "$MODE" = vu ] && { expect_ctr EDGE_VU_PLACED -gt 0; expect_ctr EDGE_VU_PLACE_STALE -eq 0; expect_ctr EDGE_VU_RX_NOBUF -eq 0; }
# UDP GSO both ways (GUEST_USO4/6 and HOST_USO negotiated), checked
if [ "$MODE" = vu ]; then
	grep -q "tap->backend csum+tso4+tso6+uso backend->tap csum+tso4+tso6+uso" \
		"$T/bridge.log" || fail "swvu did not negotiate USO: $(cat "$T/bridge.log")"
	udp_gso down
	udp_gso up
	sw_stats
	expect_ctr UDP_GSO_TO_GUEST -gt 0
	expect_ctr UDP_GSO_FROM_GUEST -gt 0
	expect_ctr UDP_DROP_BAD_GSO -eq 0
	expect_ctr VNET_DROP_BAD_HDR -eq 0
	expect_ctr UDP_TO_GUEST -ge 4600
	expect_ctr UDP_FROM_GUEST -ge 4600
fi

# the guest goes away in the middle of a transfer: the host peer is reset
p3=$(free_port)
bg "$SWVERIFY" server --listen "127.0.0.1:$p3" --mode send --bytes 64G --once \
	--ready-file "$T/r4"
srv=$LASTPID
wait_for "host server" 10 "[ -e $T/r4 ]"
g "$SWVERIFY" client --connect "10.0.2.2:$p3" --mode recv --bytes 64G \
	--timeout 120 >/dev/null 2>&1 &
cli=$!
PIDS+=("$cli")
sleep 1
kill -KILL "$BR_PID"
wait "$BR_PID" 2>/dev/null
# a datagram edge learns of it when its next frame finds no socket
[ "$kind" = dgram ] && rm -f "$T/guest.sock"
for i in $(seq 100); do kill -0 "$srv" 2>/dev/null || break; sleep 0.1; done
kill -0 "$srv" 2>/dev/null && fail "the host peer was not reset when the guest went away"
wait "$srv" && fail "the host peer's transfer ended cleanly: it should have been reset"
kill -KILL "$cli" 2>/dev/null
wait "$cli" 2>/dev/null
sw_stats
expect_ctr TCP_RST_GUEST_GONE -ge 1
expect_ctr TCP_FLOWS_ACTIVE -eq 0
if [ "$kind" != dgram ]; then
	expect_ctr EDGE_DISCONNECTS -eq 1
else
	# datagrams the dead guest left queued may make it the peer again,
	# until a send finds its socket gone once more
	expect_ctr EDGE_DISCONNECTS -ge 1
fi
# the guest's connection, kick and call fds, memory: all given back
expect_fds_back "$base0"
if [ "$MODE" = vu ]; then
	[ "$(ctr EDGE_VU_RETURNS)" = $(($(ctr EDGE_VU_LOANS) + $(ctr EDGE_VU_COPIES))) ] ||
		fail "chains taken and returned differ after the frontend went away"
	expect_ctr EDGE_VU_LOANS -gt 0
fi

# a new guest (the tap and its stack are new too) is served, the
# published port still works
g ip link del tap0
if [ "$MODE" = vu ]; then start_bridge --no-uso; else start_bridge; fi
g busybox udhcpc -i tap0 -n -q -f -t 5 -T 1 -O mtu -s "$T/udhcpc.sh" \
	>"$T/udhcpc.log" 2>&1 || fail "no lease for the second guest"
xfer_pub_send "$pub" 5001 16M
# a guest without USO gets the datagrams one frame each, and sends them so
if [ "$MODE" = vu ]; then
	sw_stats
	gso_to=$(ctr UDP_GSO_TO_GUEST)
	gso_from=$(ctr UDP_GSO_FROM_GUEST)
	udp_gso down
	udp_gso up
	sw_stats
	expect_ctr UDP_GSO_TO_GUEST -eq "$gso_to"
	expect_ctr UDP_GSO_FROM_GUEST -eq "$gso_from"
	expect_ctr UDP_DROP_BAD_GSO -eq 0
fi
stop_slipway
if [ "$kind" != dgram ]; then
	expect_ctr EDGE_CONNECTS -eq 2
else
	expect_ctr EDGE_CONNECTS -ge 2
	[ $(ctr EDGE_CONNECTS) = $(($(ctr EDGE_DISCONNECTS) + 1)) ] ||
		fail "every guest but the last one must have gone away"
fi
expect_ctr TCP_FLOWS_ACTIVE -eq 0
expect_ctr EDGE_BAD_FRAMING -eq 0
extra=
[ "$MODE" = vu ] && extra=", a UDP stream each way with USO and without"
pass "$MODE edge: DHCP, ping, $SIZE each way verified, published port, guest lost mid-transfer and a new one served$extra"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_udp_uso.sh - UDP segmentation offload on the tap, on and off
#
# For each setting (the default, where the kernel takes TUN_F_USO4/6, and
# --no-offload) slipway serves a fresh namespace, ethtool -k on the guest's
# tap0 shows the offload (tx-udp-segmentation) or not, and verified UDP
# streams (tests/instruments/swudp: every datagram's flow, sequence and
# checksum checked; none corrupt, duplicated or reordered) run:
# - guest -> host: UDP GSO sends (--gso 20) and plain ones; with USO the
#   guest's kernel hands slipway whole GSO frames (UDP_GSO_FROM_GUEST),
#   without it every datagram comes alone;
# - host -> guest through a published port (-u), GSO sends from the
#   host's loopback: with USO the listener's UDP_GRO takes them together
#   and they leave as GSO frames (UDP_GSO_TO_GUEST), else one by one;
# - host -> guest over a flow the guest opened (the way iperf3 -R and
#   QUIC replies come): the host answers the guest's first datagram with
#   GSO sends, and the guest checks every datagram.
# Loss is allowed (UDP, a busy machine) but each stream must deliver most
# of what was sent at a modest rate.
. "$(dirname "$0")/lib.sh"
require_root
: "${SWUDP:?set SWUDP to the swudp binary}"
command -v ethtool >/dev/null || fail "ethtool is missing (tools/deps.sh)"

# feature NAME: "on" or "off" for one line of ethtool -k on the guest's tap
feature() {
	g ethtool -k tap0 | awk -v k="$1:" '$1 == k { print $2; exit }'
}

# json FILE EXPR: a Python expression over the last JSON line (j)
json() {
	"$PY" -c 'import json,sys; j=json.loads([l for l in open(sys.argv[1]) if l.strip()][-1]); print(eval(sys.argv[2]))' "$1" "$2"
}

# verified NAME: the stream in $T/NAME.{send,recv}.json arrived intact and
# mostly whole
verified() {
	local ok
	ok=$(json "$T/$1.recv.json" 'j["corrupt"] == 0 and j["dup"] == 0 and j["reordered"] == 0 and j["datagrams"] > 0') ||
		fail "$1: no receiver JSON: $(cat "$T/$1.recv.json" "$T/$1.recv.err" 2>/dev/null)"
	[ "$ok" = True ] || fail "$1: not intact: $(cat "$T/$1.recv.json")"
	ok=$("$PY" -c 'import json,sys
last = lambda f: json.loads([l for l in open(f) if l.strip()][-1])
print(last(sys.argv[2])["datagrams"] >= 0.5 * last(sys.argv[1])["datagrams"])' "$T/$1.send.json" "$T/$1.recv.json")
	[ "$ok" = True ] || fail "$1: most datagrams lost: sent $(cat "$T/$1.send.json"), received $(cat "$T/$1.recv.json")"
}

# stream NAME WHERE_RECV PORT RECV_ARGS WHERE_SEND SEND_ARGS: swudp recv in
# the background (WHERE: g for the guest, "" for the host), then send
stream() {
	local name=$1 wr=$2 port=$3 rargs=$4 ws=$5 sargs=$6 rpid
	# shellcheck disable=SC2086
	$wr "$SWUDP" recv "$port" $rargs >"$T/$name.recv.json" 2>"$T/$name.recv.err" &
	rpid=$!
	PIDS+=("$rpid")
	if [ -n "$wr" ]; then
		wait_for "guest UDP $port" 10 "g ss -Hlun 'sport = :$port' | grep -q ."
	else
		wait_for "host UDP $port" 10 "ss -Hlun 'sport = :$port' | grep -q ."
	fi
	# shellcheck disable=SC2086
	$ws "$SWUDP" send $sargs >"$T/$name.send.json" 2>"$T/$name.send.err" ||
		fail "$name: swudp send: $(cat "$T/$name.send.json" "$T/$name.send.err")"
	reap "$rpid" 10 || fail "$name: swudp recv exited $?: $(cat "$T/$name.recv.json" "$T/$name.recv.err")"
	verified "$name"
}

# flow_down NAME: the host answers a guest-opened flow with GSO sends of 20
# datagrams of 1400 bytes (sequence numbers, checked in the guest)
flow_down() {
	local name=$1 port rpid
	port=$(free_port)
	"$PY" - "$port" >"$T/$name.host" 2>&1 <<'EOF' &
import socket, struct, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.settimeout(10)
_, peer = s.recvfrom(64)
s.connect(peer)
seq = 0
end = time.time() + 1.5
while time.time() < end:
    buf = b"".join(struct.pack("!I", seq + i) + bytes([(seq + i) & 0xff]) * 1396
                   for i in range(20))
    s.sendmsg([buf], [(socket.SOL_UDP, 103, struct.pack("H", 1400))])
    seq += 20
    time.sleep(0.0005)
s.send(b"end")
print(seq)
EOF
	rpid=$!
	PIDS+=("$rpid")
	wait_for "host UDP $port" 10 "ss -Hlun 'sport = :$port' | grep -q ."
	g "$PY" - "$port" >"$T/$name.guest" 2>&1 <<'EOF' || fail "$name: guest receiver: $(cat "$T/$name.guest")"
import socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(5)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
s.connect(("10.0.2.2", int(sys.argv[1])))
s.send(b"hello")
last, got = -1, 0
while True:
    d = s.recv(65536)
    if d == b"end":
        break
    if len(d) != 1400:
        sys.exit("a datagram of %d bytes" % len(d))
    seq = struct.unpack("!I", d[:4])[0]
    if d[4:] != bytes([seq & 0xff]) * 1396:
        sys.exit("datagram %d corrupt" % seq)
    if seq <= last:
        sys.exit("datagram %d after %d" % (seq, last))
    last, got = seq, got + 1
print(got)
EOF
	reap "$rpid" 10 || fail "$name: host sender: $(cat "$T/$name.host")"
	local sent got
	sent=$(tail -1 "$T/$name.host")
	got=$(tail -1 "$T/$name.guest")
	[ "$got" -ge $((sent / 2)) ] ||
		fail "$name: the guest got $got of $sent datagrams"
}

declare -A to_guest from_guest
for mode in on off; do
	opts=()
	[ "$mode" = off ] && opts=(--no-offload)
	PUB=$(free_port)
	start_slipway --no-splice -u "127.0.0.1/$PUB:$PUB" "${opts[@]}"
	[ "$(feature tx-udp-segmentation)" = "$mode" ] ||
		fail "USO $mode: tap0 has tx-udp-segmentation $(feature tx-udp-segmentation)"
	UP=$(free_port)
	stream "up-gso-$mode" "" "$UP" "--bind 127.0.0.1 --gro" g \
		"10.0.2.2 $UP --seconds 1 --gso 20 --rate 300"
	UP=$(free_port)
	stream "up-plain-$mode" "" "$UP" "--bind 127.0.0.1" g \
		"10.0.2.2 $UP --seconds 1 --rate 100"
	stream "down-pub-$mode" g "$PUB" "--gro" "" \
		"127.0.0.1 $PUB --seconds 1 --gso 20 --rate 300"
	flow_down "down-flow-$mode"
	sw_stats
	if [ "$mode" = on ]; then
		expect_ctr UDP_GSO_FROM_GUEST -gt 0
		expect_ctr UDP_GSO_TO_GUEST -gt 0
	else
		expect_ctr UDP_GSO_FROM_GUEST -eq 0
		expect_ctr UDP_GSO_TO_GUEST -eq 0
	fi
	expect_ctr UDP_DROP_BAD_GSO -eq 0
	to_guest[$mode]=$(ctr UDP_GSO_TO_GUEST)
	from_guest[$mode]=$(ctr UDP_GSO_FROM_GUEST)
	stop_slipway
	ip netns del "$NS"
done
pass "USO on: ${from_guest[on]} GSO frames from the guest, ${to_guest[on]} to it; off: none; every stream verified"

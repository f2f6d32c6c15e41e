#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_swudp.sh - the UDP instrument (tests/instruments/swudp) over loopback in
# a namespace of ours: a verified stream (plain, UDP GSO sends, UDP_GRO
# receives, IPv6), request/response on 100 flows, DNS queries against its
# DNS server; and each part fails (exit 1) when the other end gets a byte
# wrong: a relay that flips, duplicates or swaps datagrams, an echo that
# flips a byte, a DNS server with a wrong address
. "$(dirname "$0")/lib.sh"
require_root
: "${SWUDP:?set SWUDP to the swudp binary}"
make_ns "$NS"
g ip link set lo up

# json FILE EXPR: evaluate a Python expression over the last JSON line (j)
json() {
	"$PY" -c 'import json,sys; j=json.loads([l for l in open(sys.argv[1]) if l.strip()][-1]); print(eval(sys.argv[2]))' "$1" "$2"
}
# wait_udp PORT: wait until a UDP socket is bound to PORT in $NS
wait_udp() {
	wait_for "UDP socket on $1" 10 "g ss -Hlun 'sport = :$1' | grep -q ."
}
# stream NAME PORT SEND_ARGS RECV_ARGS: recv in the background, send to it,
# both must exit 0; the two JSON lines in $T/NAME.{send,recv}.json
stream() {
	local name=$1 port=$2 rpid
	# shellcheck disable=SC2086
	g "$SWUDP" recv "$port" $4 >"$T/$name.recv.json" 2>"$T/$name.recv.err" &
	rpid=$!
	PIDS+=("$rpid")
	wait_udp "$port"
	# shellcheck disable=SC2086
	g "$SWUDP" send $3 >"$T/$name.send.json" 2>"$T/$name.send.err" ||
		fail "$name: swudp send: $(cat "$T/$name.send.json" "$T/$name.send.err")"
	wait "$rpid"
	SRC=$?
}
# verified NAME: the stream arrived, nothing corrupt, duplicated or reordered
verified() {
	[ "$SRC" = 0 ] || fail "$1: swudp recv exited $SRC: $(cat "$T/$1.recv.json" "$T/$1.recv.err")"
	[ "$(json "$T/$1.recv.json" 'j["datagrams"] > 0 and j["corrupt"] == 0 and j["dup"] == 0 and j["reordered"] == 0 and j["gbps"] > 0')" = True ] ||
		fail "$1: recv JSON: $(cat "$T/$1.recv.json")"
	[ "$(json "$T/$1.send.json" 'j["datagrams"] > 0 and j["gbps"] > 0')" = True ] ||
		fail "$1: send JSON: $(cat "$T/$1.send.json")"
	# what was received and what was lost add up to what was sent
	[ "$("$PY" -c 'import json,sys
r = json.loads(open(sys.argv[1]).read()); s = json.loads(open(sys.argv[2]).read())
print(r["datagrams"] + r["lost"] <= s["datagrams"] and r["datagrams"] <= s["datagrams"])' "$T/$1.recv.json" "$T/$1.send.json")" = True ] ||
		fail "$1: received + lost exceeds sent: $(cat "$T/$1.recv.json" "$T/$1.send.json")"
}

stream plain 7201 "127.0.0.1 7201 --seconds 1 --flows 4 --rate 400" "--idle-ms 500"
verified plain
stream gso 7202 "127.0.0.1 7202 --seconds 1 --gso 20 --rate 400" "--idle-ms 500"
verified gso
stream gro 7203 "127.0.0.1 7203 --seconds 1 --gso 20 --rate 400" "--idle-ms 500 --gro"
verified gro
stream v6 7204 "::1 7204 --seconds 1 --size 999 --rate 200" "--bind ::1 --idle-ms 500"
verified v6
# paced: nothing lost on loopback at 200 Mbit/s
[ "$(json "$T/v6.recv.json" 'j["lost"] == 0 and j["bytes"] % 999 == 0')" = True ] ||
	fail "v6: loss or wrong size at 200 Mbit/s: $(cat "$T/v6.recv.json")"

bg g "$SWUDP" echo 7205
bg g "$SWUDP" dns-server 7206
wait_udp 7205
wait_udp 7206
g "$SWUDP" rr 127.0.0.1 7205 --flows 100 --seconds 1 >"$T/rr.json" ||
	fail "swudp rr: $(cat "$T/rr.json")"
[ "$(json "$T/rr.json" 'j["flows"] == 100 and j["exchanges"] > 1000 and j["bad"] == 0 and 0 < j["p50_us"] <= j["p99_us"]')" = True ] ||
	fail "swudp rr JSON: $(cat "$T/rr.json")"
g "$SWUDP" rr 127.0.0.1 7205 --flows 10 --size 1200 --seconds 1 >"$T/rr2.json" ||
	fail "swudp rr 1200 B: $(cat "$T/rr2.json")"
g "$SWUDP" dns 127.0.0.1 7206 --seconds 1 >"$T/dns.json" ||
	fail "swudp dns: $(cat "$T/dns.json")"
[ "$(json "$T/dns.json" 'j["answers"] > 1000 and j["bad"] == 0 and j["timeouts"] == 0 and 0 < j["p50_us"] <= j["p99_us"]')" = True ] ||
	fail "swudp dns JSON: $(cat "$T/dns.json")"
kill -0 "${PIDS[-1]}" || fail "dns-server died"

# failures. A relay (a port of its own each time) to recv's 7211 that spoils one datagram in
# 100 (MODE flip: one payload byte; dup: sends it twice; swap: holds it
# back and sends it after the next)
relay() {
	bg g "$PY" -c '
import socket, sys
mode = sys.argv[1]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[2])))
o = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
n, held = 0, None
while True:
    b = bytearray(s.recv(65536))
    n += 1
    if n % 100 == 50:
        if mode == "flip":
            b[-1] ^= 0x20
        elif mode == "dup":
            o.sendto(b, ("127.0.0.1", 7211))
        else:
            held = b
            continue
    o.sendto(b, ("127.0.0.1", 7211))
    if held is not None and mode == "swap" and n % 100 == 51:
        o.sendto(held, ("127.0.0.1", 7211))
        held = None' "$1" "$2"
	RELAY=$LASTPID
	wait_udp "$2"
}
rport=7220
for mode in flip dup swap; do
	rport=$((rport + 1))
	relay $mode $rport
	g "$SWUDP" recv 7211 --idle-ms 500 >"$T/bad-$mode.json" 2>"$T/bad-$mode.err" &
	rpid=$!
	PIDS+=("$rpid")
	wait_udp 7211
	g "$SWUDP" send 127.0.0.1 $rport --seconds 1 --rate 20 >/dev/null ||
		fail "send to the $mode relay failed"
	wait "$rpid" && fail "recv: a relay that does '$mode' was not a failure: $(cat "$T/bad-$mode.json")"
	case $mode in
	flip) e='j["corrupt"] > 0' ;;
	dup) e='j["dup"] > 0' ;;
	swap) e='j["reordered"] > 0' ;;
	esac
	[ "$(json "$T/bad-$mode.json" "$e")" = True ] || fail "recv: '$mode' not counted: $(cat "$T/bad-$mode.json")"
	kill "$RELAY"
	wait "$RELAY" 2>/dev/null
done

# an echo that flips one byte of every 50th datagram; a DNS server that
# answers with another address
bg g "$PY" -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 7212))
n = 0
while True:
    b, a = s.recvfrom(65536)
    b = bytearray(b)
    n += 1
    if n % 50 == 0:
        b[30] ^= 1
    s.sendto(b, a)'
bg g "$PY" -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 7213))
while True:
    q, a = s.recvfrom(4096)
    r = q[:2] + b"\x81\x80\x00\x01\x00\x01\x00\x00\x00\x00" + q[12:]
    s.sendto(r + b"\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04\x0a\x09\x09\x08", a)'
wait_udp 7212
wait_udp 7213
g "$SWUDP" rr 127.0.0.1 7212 --flows 10 --seconds 1 >"$T/bad-rr.json" 2>/dev/null &&
	fail "rr: a flipped byte in the echo was not a failure: $(cat "$T/bad-rr.json")"
[ "$(json "$T/bad-rr.json" 'j["bad"] > 0')" = True ] || fail "rr: wrong echo not counted: $(cat "$T/bad-rr.json")"
g "$SWUDP" dns 127.0.0.1 7213 --seconds 1 >"$T/bad-dns.json" 2>/dev/null &&
	fail "dns: a wrong address was not a failure: $(cat "$T/bad-dns.json")"
[ "$(json "$T/bad-dns.json" 'j["bad"] > 0')" = True ] || fail "dns: wrong answer not counted: $(cat "$T/bad-dns.json")"
# nothing answers: refused (ICMP) and no answers are failures, not hangs
g timeout 10 "$SWUDP" rr 127.0.0.1 7219 --flows 5 --seconds 1 >/dev/null 2>&1 && fail "rr: no echo server was not a failure"
g timeout 10 "$SWUDP" dns 127.0.0.1 7219 --seconds 1 >/dev/null 2>&1 && fail "dns: no server was not a failure"
g "$SWUDP" send 127.0.0.1 7219 --seconds 1 --gso 64 --size 1400 >/dev/null 2>&1
[ $? = 2 ] || fail "send: --gso 64 x 1400 bytes (over 64 KiB) not a usage error"
pass "swudp: verified streams (GSO, GRO, IPv6), rr, dns; corrupt, dup, reordered, wrong echo and wrong answer fail"

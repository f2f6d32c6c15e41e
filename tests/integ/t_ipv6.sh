#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_ipv6.sh - IPv6 through slipway: the guest gets fd00:5ee:d::15/64 and a
# default route via fe80::1 (no DAD to wait for); it pings the gateway
# (answered by slipway) and a host address (through an ICMPv6 ping
# socket); fetches a file from an HTTP server on the host's ::1 through
# the gateway's ULA and link-local addresses (byte-compared); is refused
# fast on a closed port; moves 256 MiB each way over IPv6 (guest-opened
# flows) and through a published port from ::1, payload-verified; echoes
# UDP datagrams up to 60000 bytes off the host's ::1 and gets port
# unreachable from a closed one; resolves names through the forwarder at
# fd00:5ee:d::3 over UDP and TCP; and a published TCP and UDP port shows
# the guest's server each client's address: a non-loopback IPv6 address
# as itself, ::1 as the gateway's IPv6 address, 127.0.0.1 as 10.0.2.2
# (over IPv4). With two shards, IPv6 flows spread over both and every DNS
# query is served by shard 0 (a query landing on shard 1's queue is
# passed on: shard 1 has no forwarder and would answer SERVFAIL). Then
# --no-ipv6: no IPv6 address is configured, and even a
# hand-made one gets no answer from slipway, while IPv4 works.
#
# slipway, the servers and the clients of published ports run in a "host"
# namespace of our own (ping sockets allowed, two IPv6 addresses on a
# veth pair), so nothing touches the real host's addresses.
. "$(dirname "$0")/lib.sh"
require_root
for t in dnsmasq dig curl; do
	command -v "$t" >/dev/null ||
		{ echo "SKIP: needs $t (tools/deps.sh)"; exit 77; }
done
SIZE=${SIZE:-256M}
BYTES=$((256 << 20))

GW6=fd00:5ee:d::2
DNS6=fd00:5ee:d::3
G6=fd00:5ee:d::15
HA=fd77:1::1 # the host namespace's addresses (veth pair)
HB=fd77:1::2

H="swh$$"
make_ns "$H"
h() { ip netns exec "$H" "$@"; }
ip -n "$H" link set lo up
h sysctl -qw net.ipv4.ping_group_range="0 2147483647"
ip -n "$H" link add hv0 type veth peer name hv1
ip -n "$H" addr add "$HA/64" dev hv0 nodad
ip -n "$H" addr add "$HB/64" dev hv1 nodad
ip -n "$H" link set hv0 up
ip -n "$H" link set hv1 up

# DNS: dnsmasq on 127.0.0.53 of the host namespace, the only upstream
bg h dnsmasq -k --conf-file=/dev/null --bind-interfaces \
	--listen-address=127.0.0.53 --port 53 --no-resolv --no-hosts \
	--user=root --group=root --pid-file= --log-facility=- \
	--address=/a.test.slipway/10.9.8.7 --address=/a.test.slipway/fd77:9::7
wait_for "dnsmasq" 10 "h dig @127.0.0.53 +short +time=1 +tries=1 a.test.slipway A | grep -q 10.9.8.7"
echo "nameserver 127.0.0.53" >"$T/resolv.conf"

# sw_start NS [OPTIONS...]: slipway in the host namespace serving NS
sw_start() {
	local ns=$1
	shift
	make_ns "$ns"
	rm -f "$T/stats.json"
	# ip netns exec execs slipway: $! is slipway's own PID
	ip netns exec "$H" "$SLIPWAY" --netns "$ns" --stats-file "$T/stats.json" \
		--resolv-conf "$T/resolv.conf" "$@" >"$T/slipway.log" 2>&1 &
	SW_PID=$!
	PIDS+=("$SW_PID")
	wait_for "guest address" 10 \
		"ip -n $ns -4 addr show dev tap0 2>/dev/null | grep -q inet"
	ip -n "$ns" link set lo up
}

# --no-splice: loopback clients of the published ports take the tap here
# (t_splice.sh covers splicing them, ::1 included)
sw_start "$NS" --shards 2 --no-splice -t 7070 -u 7071 -t "[::1]/7072:5001"
# the address is there at once, never tentative (nodad, accept_dad=0)
ip -n "$NS" -6 addr show dev tap0 >"$T/addr6"
grep -q "inet6 $G6/64 scope global" "$T/addr6" || fail "no $G6/64 on tap0: $(cat "$T/addr6")"
grep -q tentative "$T/addr6" && fail "tentative IPv6 address: $(cat "$T/addr6")"
[ "$(grep -c 'scope global' "$T/addr6")" = 1 ] ||
	fail "more than one global address (SLAAC on?): $(cat "$T/addr6")"
ip -n "$NS" -6 route show default | grep -q "via fe80::1 dev tap0" ||
	fail "no IPv6 default route via fe80::1: $(ip -n "$NS" -6 route)"

# 1. ping: the gateway (answered by slipway), a host address (ping socket)
g busybox ping -6 -c 3 -W 2 "$GW6" >"$T/ping.gw" || fail "ping -6 $GW6: $(cat "$T/ping.gw")"
grep -q "3 packets received" "$T/ping.gw" || fail "ping -6 gateway: $(cat "$T/ping.gw")"
g busybox ping -6 -c 3 -W 2 "$HA" >"$T/ping.host" || fail "ping -6 $HA: $(cat "$T/ping.host")"
grep -q "3 packets received" "$T/ping.host" || fail "ping -6 host: $(cat "$T/ping.host")"

# 2. HTTP from the host's ::1 through the gateway's addresses
head -c 3000000 /dev/urandom >"$T/blob"
hp=$(h "$PY" -c 'import socket; s=socket.socket(socket.AF_INET6); s.bind(("::1",0)); print(s.getsockname()[1])')
bg h "$PY" -m http.server --bind ::1 --directory "$T" "$hp"
wait_listen "$hp" "$H"
g curl -6 -sS -m 10 -o "$T/got" "http://[$GW6]:$hp/blob" || fail "curl -6 through [$GW6]"
cmp -s "$T/blob" "$T/got" || fail "file fetched through [$GW6] differs"
rm -f "$T/got"
g curl -6 -sS -m 10 -o "$T/got" "http://[fe80::1%25tap0]:$hp/blob" ||
	fail "curl -6 through [fe80::1%tap0]"
cmp -s "$T/blob" "$T/got" || fail "file fetched through [fe80::1] differs"

# 3. a closed port on ::1: refused at once
closed=$(h "$PY" -c 'import socket; s=socket.socket(socket.AF_INET6); s.bind(("::1",0)); print(s.getsockname()[1])')
err=$(g "$PY" -c '
import socket, sys
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5)
    print("connected")
except OSError as e:
    print(type(e).__name__)
' "$GW6" "$closed")
[ "$err" = ConnectionRefusedError ] || fail "closed port over IPv6: $err"

# 4. 256 MiB each way over IPv6, and through a published port from ::1
p1=$(h "$PY" -c 'import socket; s=socket.socket(socket.AF_INET6); s.bind(("::1",0)); print(s.getsockname()[1])')
bg h "$SWVERIFY" server --listen "[::1]:$p1" --mode recv --bytes "$SIZE" --once \
	--ready-file "$T/r1"
wait_for "host server" 10 "[ -e $T/r1 ]"
g "$SWVERIFY" client --connect "[$GW6]:$p1" --mode send --bytes "$SIZE" \
	--timeout 120 >"$T/c1.json" || fail "guest->host over IPv6: $(cat "$T/c1.json")"
wait "$LASTPID" || fail "host server did not verify guest->host bytes"
bg h "$SWVERIFY" server --listen "[::1]:$p1" --mode send --bytes "$SIZE" --once \
	--ready-file "$T/r2"
wait_for "host server" 10 "[ -e $T/r2 ]"
g "$SWVERIFY" client --connect "[$GW6]:$p1" --mode recv --bytes "$SIZE" \
	--timeout 120 >"$T/c2.json" || fail "host->guest over IPv6: $(cat "$T/c2.json")"
wait "$LASTPID" || fail "host sender failed"
bg g "$SWVERIFY" server --listen "[::]:5001" --mode recv --bytes "$SIZE" --once \
	--ready-file "$T/r3"
gsrv=$LASTPID
wait_for "guest server" 10 "[ -e $T/r3 ]"
h "$SWVERIFY" client --connect "[::1]:7072" --mode send --bytes "$SIZE" \
	--timeout 120 >"$T/c3.json" || fail "published port from ::1: $(cat "$T/c3.json")"
wait "$gsrv" || fail "guest server did not verify published-port bytes"
# 16 at once, to spread over the shards
bg h "$SWVERIFY" server --listen "[::1]:$p1" --mode recv --bytes 8M --conns 16 \
	--ready-file "$T/r4"
wait_for "host server" 10 "[ -e $T/r4 ]"
g "$SWVERIFY" client --connect "[$GW6]:$p1" --mode send --bytes 8M --parallel 16 \
	--timeout 120 >"$T/c4.json" || fail "16 flows over IPv6: $(cat "$T/c4.json")"
wait "$LASTPID" || fail "host server did not verify the 16 flows"

# 5. UDP echo off the host's ::1, sizes up to 60000; a closed port
ep=$(h "$PY" -c 'import socket; s=socket.socket(socket.AF_INET6,socket.SOCK_DGRAM); s.bind(("::1",0)); print(s.getsockname()[1])')
bg h "$PY" -c '
import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.bind(("::1", int(sys.argv[1])))
while True:
    d, a = s.recvfrom(65535)
    s.sendto(d[::-1], a)
' "$ep"
wait_for "UDP echo server" 10 "h ss -Hlun 'sport = :$ep' | grep -q ."
g "$PY" - "$GW6" "$ep" <<'EOS' || fail "UDP over IPv6"
import os, socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.settimeout(3)
s.connect((sys.argv[1], int(sys.argv[2])))
for n in (1, 1452, 9000, 60000):
    d = os.urandom(n)
    s.send(d)
    assert s.recv(65535) == d[::-1], n
t = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
t.settimeout(3)
t.connect((sys.argv[1], 9))
t.send(b"anyone?")
try:
    t.recv(100)
    sys.exit("closed port answered")
except ConnectionRefusedError:
    pass
EOS

# 6. DNS through the forwarder's IPv6 address, UDP (from 8 source ports,
# so some land on shard 1's queue) and TCP
for i in 1 2 3 4 5 6 7; do
	[ "$(g dig @$DNS6 +short +time=3 +tries=1 a.test.slipway A)" = 10.9.8.7 ] ||
		fail "DNS over IPv6 (UDP, query $i)"
done
[ "$(g dig @$DNS6 +short +time=3 +tries=1 a.test.slipway A)" = 10.9.8.7 ] ||
	fail "DNS over IPv6 (UDP): '$(g dig @$DNS6 +short +time=3 +tries=1 a.test.slipway A 2>&1)'"
[ "$(g dig @$DNS6 +short +time=3 +tries=1 a.test.slipway AAAA)" = fd77:9::7 ] ||
	fail "DNS over IPv6 (UDP, AAAA)"
[ "$(g dig @$DNS6 +short +tcp +time=3 +tries=1 a.test.slipway A)" = 10.9.8.7 ] ||
	fail "DNS over IPv6 (TCP): '$(g dig @$DNS6 +short +tcp +time=3 +tries=1 a.test.slipway A 2>&1)'"

# 7. published ports keep the client's address: the guest's servers log
# the peer they see and answer with it
bg ip netns exec "$NS" "$PY" -c '
import socket, threading, sys
log = open(sys.argv[1], "a", buffering=1)
def name(a):
    return a[7:] if a.startswith("::ffff:") else a
t = socket.socket(socket.AF_INET6)
t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
t.bind(("::", 7070)); t.listen(8)
u = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
u.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
u.bind(("::", 7071))
def udp():
    while True:
        d, a = u.recvfrom(100)
        log.write("udp %s\n" % name(a[0]))
        u.sendto(name(a[0]).encode(), a)
threading.Thread(target=udp, daemon=True).start()
open(sys.argv[2], "w").close()
while True:
    c, a = t.accept()
    log.write("tcp %s\n" % name(a[0]))
    c.sendall(name(a[0]).encode())
    c.close()
' "$T/guest-server.log" "$T/gready"
wait_for "guest servers" 10 "[ -e $T/gready ]"
ask() { # SRC DST -> "tcp-seen udp-seen"
	h "$PY" -c '
import socket, sys
src, dst = sys.argv[1], sys.argv[2]
fam = socket.AF_INET6 if ":" in dst else socket.AF_INET
t = socket.socket(fam); t.settimeout(5)
t.bind((src, 0)); t.connect((dst, 7070))
a = t.recv(100).decode()
u = socket.socket(fam, socket.SOCK_DGRAM); u.settimeout(5)
u.bind((src, 0)); u.sendto(b"?", (dst, 7071))
print(a, u.recv(100).decode())
' "$1" "$2"
}
out=$(ask "$HB" "$HA")
[ "$out" = "$HB $HB" ] || fail "IPv6 client $HB seen as '$out'"
grep -q "^tcp $HB\$" "$T/guest-server.log" || fail "guest server log: $(cat "$T/guest-server.log")"
out=$(ask ::1 ::1)
[ "$out" = "$GW6 $GW6" ] || fail "::1 client seen as '$out'"
out=$(ask 127.0.0.1 127.0.0.1)
[ "$out" = "10.0.2.2 10.0.2.2" ] || fail "127.0.0.1 client seen as '$out'"
echo "guest server saw: $(tr '\n' ' ' <"$T/guest-server.log")"

stop_slipway
check_gates
for z in IP6_DROP_BAD_HDR IP6_DROP_BAD_LEN ICMP6_DROP_BAD NDP_DROP_BAD \
	IP6_DROP_ADDR ICMP6_PING_DENIED UDP_DROP_BAD_HDR; do
	expect_ctr "$z" -eq 0
done
expect_ctr ICMP6_ECHO_REPLIES -eq 3
expect_ctr ICMP6_ECHO_OUT -eq 3
expect_ctr ICMP6_ECHO_IN -eq 3
# http x2, closed, 2 transfers, DNS over TCP, published: 1 + 3 x 2 clients
expect_ctr TCP_FLOWS_OPENED6 -ge 9
expect_ctr TCP_FLOWS_REFUSED -ge 1
expect_ctr TCP_GUEST_BYTES -ge "$BYTES"
expect_ctr TCP_ACKED_BYTES -ge $((BYTES * 2))
expect_ctr UDP_FLOWS_OPENED6 -ge 2
expect_ctr UDP_UNREACH_SENT -ge 1
expect_ctr ICMP6_UNREACH_SENT -ge 1
expect_ctr DNS_QUERIES6 -ge 9
expect_ctr DNS_REPLIES -ge 9
expect_ctr DNS_SERVFAIL -eq 0
expect_ctr SHARD_MBOX_FULL -eq 0
expect_ctr SHARD_FRAMES_TAKEN -eq "$(ctr SHARD_FRAMES_PASSED)"
shard_ctr() {
	"$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["shards"][int(sys.argv[2])].get(sys.argv[3], 0))' \
		"$T/stats.json" "$1" "$2"
}
[ "$(json_last "$T/stats.json" shards_n)" = 2 ] || fail "stats: shards_n is not 2"
[ "$(shard_ctr 1 DNS_QUERIES)" = 0 ] || fail "shard 1 handled DNS queries"
for sh in 0 1; do
	[ "$(shard_ctr $sh TCP_FLOWS_OPENED6)" -ge 1 ] ||
		fail "shard $sh owns none of the IPv6 flows"
done
g1=$(json_last "$T/c1.json" gbps)
g2=$(json_last "$T/c2.json" gbps)
g3=$(json_last "$T/c3.json" gbps)

# 8. --no-ipv6: nothing configured, and slipway answers no IPv6 at all
N2="swt$$n"
sw_start "$N2" --no-ipv6
ip -n "$N2" -6 addr show dev tap0 | grep -q "scope global" &&
	fail "--no-ipv6: a global IPv6 address: $(ip -n "$N2" -6 addr show dev tap0)"
ip -n "$N2" -6 route show default | grep -q . && fail "--no-ipv6: an IPv6 default route"
ip -n "$N2" addr add "$G6/64" dev tap0 nodad
ip -n "$N2" -6 route add default via fe80::1 dev tap0
ip netns exec "$N2" busybox ping -6 -c 2 -W 1 "$GW6" >"$T/ping.off" 2>&1 &&
	fail "--no-ipv6: the gateway answered ping -6"
ip netns exec "$N2" curl -6 -sS -m 3 -o /dev/null "http://[$GW6]:$hp/blob" 2>/dev/null &&
	fail "--no-ipv6: HTTP over IPv6 worked"
ip netns exec "$N2" busybox ping -c 1 -W 2 10.0.2.2 >/dev/null ||
	fail "--no-ipv6: IPv4 ping to the gateway failed"
stop_slipway
expect_ctr ETH_DROP_ETHERTYPE -gt 0
expect_ctr ICMP6_ECHO_REPLIES -eq 0
expect_ctr NDP_NA_SENT -eq 0
expect_ctr TCP_FLOWS_OPENED6 -eq 0
expect_ctr ICMP4_ECHO_REPLIES -eq 1
pass "IPv6: ping gateway and host, HTTP via ::1 mapping (ULA and link-local), refusal, $SIZE up ${g1} / down ${g2} / published ${g3} Gbit/s verified, UDP echo to 60000 and unreachable, DNS over UDP and TCP, client addresses kept; --no-ipv6 answers nothing"

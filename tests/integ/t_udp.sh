#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_udp.sh - UDP through slipway: request/response with the host's loopback
# through 10.0.2.2 (up to 60000-byte datagrams, byte-compared), port
# unreachable from the host reaching the guest, a published UDP port (the
# guest sees loopback clients as 10.0.2.2), iperf3 -u both directions with
# loss counted, idle flows closing (fd count back to baseline), and ping
# from the guest answered by a real host through a ping socket.
. "$(dirname "$0")/lib.sh"
require_root

# slipway runs in a "host" namespace of our own, where ping sockets are
# allowed and a second address exists to ping
H="swh$$"
make_ns "$H"
ip -n "$H" link set lo up
ip netns exec "$H" sysctl -qw net.ipv4.ping_group_range="0 2147483647"
ip -n "$H" link add hv0 type veth peer name hv1
ip -n "$H" addr add 10.77.0.1/24 dev hv0
ip -n "$H" link set hv0 up
ip -n "$H" link set hv1 up
h() { ip netns exec "$H" "$@"; }

echo_port=$(h "$PY" -c 'import socket; s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
ip netns exec "$H" "$PY" -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[1])))
while True:
    d, a = s.recvfrom(65535)
    s.sendto(d[::-1], a)
' "$echo_port" &
PIDS+=($!)

start_slipway_in "$H" --udp-timeout 2 -u "127.0.0.1/9999:5353"
fd0=$(sw_fds)

# 1. request/response, sizes up to 60000, every byte compared
g "$PY" - "$echo_port" <<'EOS' || fail "UDP request/response"
import os, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(3)
s.connect(("10.0.2.2", int(sys.argv[1])))
for n in (1, 1472, 9000, 60000):
    d = os.urandom(n)
    s.send(d)
    assert s.recv(65535) == d[::-1], n
# 2. a closed port on the host: ICMP port unreachable reaches the guest
t = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
t.settimeout(3)
t.connect(("10.0.2.2", 9))
t.send(b"anyone?")
try:
    t.recv(100)
    sys.exit("closed port answered")
except ConnectionRefusedError:
    pass
EOS

# 3. published UDP port: host client -> guest server, which sees 10.0.2.2
ip netns exec "$NS" "$PY" -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 5353))
open("'"$T"'/gready", "w").close()
d, a = s.recvfrom(65535)
s.sendto(("%s|" % a[0]).encode() + d, a)
' &
gpid=$!
PIDS+=($gpid)
wait_for "guest UDP server" 10 "[ -e $T/gready ]"
out=$(h "$PY" -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(3)
s.sendto(b"via-published-port", ("127.0.0.1", 9999))
print(s.recv(100).decode())
')
[ "$out" = "10.0.2.2|via-published-port" ] || fail "published UDP port answered '$out'"

# 4. iperf3 -u both directions, loss counted
ip_port=$(free_port)
ip netns exec "$H" iperf3 -s -B 127.0.0.1 -p "$ip_port" >/dev/null 2>&1 &
PIDS+=($!)
wait_for "iperf3" 10 "ip netns exec $H ss -Hltn 'sport = :$ip_port' | grep -q LISTEN"
g iperf3 -u -c 10.0.2.2 -p "$ip_port" -b 200M -l 1400 -t 2 -J >"$T/u1.json" ||
	fail "iperf3 -u guest->host"
g iperf3 -u -c 10.0.2.2 -p "$ip_port" -b 200M -l 1400 -t 2 -R -J >"$T/u2.json" ||
	fail "iperf3 -u host->guest"
loss() {
	"$PY" -c 'import json,sys; s=json.load(open(sys.argv[1]))["end"]["sum"]; print("%d/%d" % (s["lost_packets"], s["packets"]))' "$1"
}
l1=$(loss "$T/u1.json")
l2=$(loss "$T/u2.json")

# 5. ping a host address through a ping socket: real replies
g busybox ping -c 3 -W 2 10.77.0.1 >"$T/ping" || fail "ping 10.77.0.1: $(cat "$T/ping")"
grep -q "3 packets received" "$T/ping" || fail "ping: $(cat "$T/ping")"

# 6. idle flows close: the fd count comes back
sleep 3
kill -USR1 "$SW_PID"
sleep 0.3
expect_fds_back "$fd0"
expect_ctr UDP_FLOWS_EXPIRED -ge 3

stop_slipway
check_gates
expect_ctr UDP_UNREACH_SENT -ge 1
expect_ctr ICMP4_ECHO_IN -eq 3
expect_ctr UDP_DROP_BAD_HDR -eq 0
pass "UDP echo to 60000 bytes, port unreachable, published UDP port, iperf3 -u loss $l1 up / $l2 down, ping via ping socket, idle expiry"

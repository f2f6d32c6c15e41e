#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_auto_fwd.sh - port specs as pasta writes them, and auto ports: with
# -t auto a TCP server started in the guest after slipway is reachable on
# the host's loopback within half a second, and refused again once it
# stops; the same for UDP (-u auto); -T auto makes a host listener
# reachable on the guest's loopback and takes it away again; an idle
# slipway following ports stays under 1% of a core; a list with an
# exclusion (20000-20010,~20005) publishes all but the excluded port,
# %lo binds to the interface, and 'all' publishes the non-ephemeral ports
# only.
. "$(dirname "$0")/lib.sh"
require_root

make_host_ns swah

# sw_start OPTS...: slipway in H serving $NS
sw_start() {
	launch_slipway "$H" "$@"
	g ip link set lo up
}

# tcp_ask NS PORT: connect to 127.0.0.1:PORT in NS, print the reply
# ("refused" if refused)
tcp_ask() {
	ip netns exec "$1" "$PY" - "$2" <<'EOF'
import socket, sys
s = socket.socket()
s.settimeout(3)
try:
    s.connect(("127.0.0.1", int(sys.argv[1])))
except ConnectionRefusedError:
    print("refused"); sys.exit(0)
s.sendall(b"ping")
print(s.recv(100).decode())
EOF
}

# udp_ask PORT: a datagram to 127.0.0.1:PORT from H, print the reply
# ("none" without one within 0.1 s)
udp_ask() {
	h "$PY" - "$1" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(0.1)
s.sendto(b"ping", ("127.0.0.1", int(sys.argv[1])))
try:
    print(s.recv(100).decode())
except (socket.timeout, ConnectionRefusedError):
    print("none")
EOF
}

# server NS PROTO PORT TAG: a server in NS answering TAG, on 0.0.0.0 (on
# 127.0.0.1 for a TAG host-...); sets SRV, returns once it is bound (the
# times below count from there)
server() {
	ip netns exec "$1" "$PY" - "$2" "$3" "$4" <<'EOF' &
import socket, sys
proto, port, tag = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode()
if proto == "tcp":
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1" if tag.startswith(b"host") else "0.0.0.0", port))
    s.listen(16)
    while True:
        c, _ = s.accept()
        c.recv(100); c.sendall(tag); c.close()
else:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", port))
    while True:
        d, a = s.recvfrom(100); s.sendto(tag, a)
EOF
	SRV=$!
	PIDS+=("$SRV")
	local f=-Hltn
	[ "$2" = udp ] && f=-Hlun
	wait_for "$2 server on $3" 10 \
		"ip netns exec $1 ss $f 'sport = :$3' | grep -q ."
}

# within_ms MS CMD EXPECT: CMD prints EXPECT within MS milliseconds;
# prints how long it took
within_ms() {
	local ms=$1 cmd=$2 want=$3 t0 now out
	t0=$(date +%s%N)
	while :; do
		out=$(eval "$cmd")
		now=$(( ($(date +%s%N) - t0) / 1000000 ))
		[ "$out" = "$want" ] && { echo "$now"; return 0; }
		[ "$now" -gt "$ms" ] && fail "'$cmd' said '$out', not '$want', after $now ms"
		sleep 0.02
	done
}

# --- -t auto, -u auto, -T auto
sw_start -t auto -u auto -T auto
PT=20500 PU=20501 PH=20502
[ "$(tcp_ask "$H" $PT)" = refused ] || fail "host port $PT open before the guest listens"
server "$NS" tcp $PT guest-tcp
ms=$(within_ms 500 "tcp_ask $H $PT" guest-tcp)
echo "-t auto: guest TCP server reachable from the host after $ms ms"
kill "$SRV"; wait "$SRV" 2>/dev/null
ms=$(within_ms 500 "tcp_ask $H $PT" refused)
echo "-t auto: refused again $ms ms after the server stopped"

server "$NS" udp $PU guest-udp
ms=$(within_ms 500 "udp_ask $PU" guest-udp)
echo "-u auto: guest UDP server reachable from the host after $ms ms"
kill "$SRV"; wait "$SRV" 2>/dev/null
within_ms 500 "h ss -Hlun 'sport = :$PU' | wc -l" 0 >/dev/null
echo "-u auto: host UDP port closed after the server stopped"

server "$H" tcp $PH host-tcp
ms=$(within_ms 500 "tcp_ask $NS $PH" host-tcp)
echo "-T auto: host listener reachable on the guest's loopback after $ms ms"
kill "$SRV"; wait "$SRV" 2>/dev/null
within_ms 500 "g ss -Hltn 'sport = :$PH' | wc -l" 0 >/dev/null
[ "$(tcp_ask "$NS" $PH)" = refused ] || fail "guest loopback port $PH still open"
echo "-T auto: guest loopback port closed after the host listener stopped"
# no loop: the -t port slipway opened is not taken back by -T, nor the
# reverse
server "$NS" tcp $PT guest-tcp
within_ms 500 "tcp_ask $H $PT" guest-tcp >/dev/null
sleep 0.3
[ "$(g ss -Hltnp "sport = :$PT" | grep -c slipway)" = 0 ] ||
	fail "-T auto took the port -t auto published"
kill "$SRV"; wait "$SRV" 2>/dev/null

# idle: the CPU slipway's threads used over 5 s (schedstat: nanoseconds)
sleep 0.5
cpu() { cat /proc/"$SW_PID"/task/*/schedstat | awk '{s += $1} END {print s}'; }
a=$(cpu); sleep 5; b=$(cpu)
echo "idle CPU with -t/-u/-T auto: $(( (b - a) / 1000 )) us in 5 s ($(awk "BEGIN {printf \"%.3f\", ($b - $a) / 5e7}")% of a core)"
[ $(( b - a )) -lt 50000000 ] || fail "idle slipway used $(( (b - a) / 1000000 )) ms of CPU in 5 s (1% is 50 ms)"
stop_slipway
expect_ctr FWD_AUTO_ADDED -ge 4
expect_ctr FWD_AUTO_REMOVED -ge 3
expect_ctr FWD_AUTO_SCAN_ERRORS -eq 0
check_gates

# --- a range with an exclusion, %lo, podman's form
sw_start -t 20000-20010,~20005 -t %lo/21000-21000:20003-20003
for p in 20000 20004 20006 20010; do
	[ "$(h ss -Hltn "sport = :$p" | wc -l)" = 1 ] || fail "host port $p not published"
done
[ "$(h ss -Hltn 'sport = :20005' | wc -l)" = 0 ] || fail "excluded port 20005 published"
h ss -Hltn 'sport = :21000' | grep -q '%lo:21000' ||
	fail "port 21000 not bound to lo: $(h ss -Hltn 'sport = :21000')"
server "$NS" tcp 20003 guest-20003
[ "$(tcp_ask "$H" 20003)" = guest-20003 ] || fail "20003 does not reach the guest"
[ "$(tcp_ask "$H" 21000)" = guest-20003 ] || fail "%lo/21000:20003 does not reach the guest"
kill "$SRV"; wait "$SRV" 2>/dev/null
stop_slipway

# --- all: every port below H's ephemeral range, none in it
h sysctl -qw net.ipv4.ip_local_port_range="3000 65535"
sw_start -t all
n=$(h ss -Hltn | awk '{n = split($4, a, ":"); if (a[n] + 0 < 3000) c++} END {print c + 0}')
[ "$n" -ge 2990 ] || fail "'all' published $n ports below 3000, expected about 2999"
[ "$(h ss -Hltn 'sport >= :3000' | wc -l)" = 0 ] || fail "'all' published ephemeral ports"
echo "all: $n ports below the ephemeral range published, none in it"
stop_slipway

pass "auto ports follow the guest and the host; exclusions, %lo and all"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_outbound.sh - outbound binding: slipway runs in a namespace H with two
# veth links to a namespace C, where a server on C's own address S (routed
# from H through the first link) tells each client the source address it
# saw. Without options the guest's TCP, UDP and ICMP echo leave from H's
# first address; with -o ADDR (IPv4 and IPv6) from ADDR; with
# --outbound-if4/--outbound-if6 through the second link, from its address;
# with slirp4netns's --outbound-addr=ADDR and --outbound-addr6=IFNAME the
# same. Connections to the gateway (host loopback) still work when bound,
# from the host's loopback address, but on slirp4netns's command line from
# --outbound-addr's, as slirp4netns binds them.
# Bad addresses are bad command lines; a missing interface fails start-up.
. "$(dirname "$0")/lib.sh"
require_root
H=swoh$$
C=swoc$$
make_ns "$H"
make_ns "$C"
hx() { ip netns exec "$H" "$@"; }
cx() { ip netns exec "$C" "$@"; }

# H va0 10.77.1.1 -- C vb0 10.77.1.2; H va1 10.77.2.1 -- C vb1 10.77.2.2;
# S = 10.77.9.9 and fd77:9::9 on C's loopback
ip link add va0 netns "$H" type veth peer name vb0 netns "$C" || fail "veth 0"
ip link add va1 netns "$H" type veth peer name vb1 netns "$C" || fail "veth 1"
for i in 0 1; do
	n=$((i + 1))
	hx ip addr add "10.77.$n.1/24" dev "va$i"
	hx ip addr add "fd77:$n::1/64" dev "va$i" nodad
	cx ip addr add "10.77.$n.2/24" dev "vb$i"
	cx ip addr add "fd77:$n::2/64" dev "vb$i" nodad
	hx ip link set "va$i" up
	cx ip link set "vb$i" up
done
hx ip link set lo up
cx ip link set lo up
cx ip addr add 10.77.9.9/32 dev lo
cx ip addr add fd77:9::9/128 dev lo nodad
# S through the first link; through the second only for a socket bound to it
hx ip route add 10.77.9.9/32 via 10.77.1.2 dev va0 metric 10
hx ip route add 10.77.9.9/32 via 10.77.2.2 dev va1 metric 100
hx ip -6 route add fd77:9::9/128 via fd77:1::2 dev va0 metric 10
hx ip -6 route add fd77:9::9/128 via fd77:2::2 dev va1 metric 100
# slipway's ping sockets, as root (group 0)
hx sysctl -qw net.ipv4.ping_group_range="0 2147483647" || fail "ping_group_range"
echo "nameserver 127.0.0.1" >"$T/resolv.conf"

# the server: TCP and UDP on both of S's addresses answer with the peer's
# address; echo requests to S are logged with their source
cat >"$T/srv.py" <<'EOP'
import select, socket, sys
port, log, ready = int(sys.argv[1]), sys.argv[2], sys.argv[3]
socks = []
for fam, addr in ((socket.AF_INET, "10.77.9.9"), (socket.AF_INET6, "fd77:9::9")):
    t = socket.socket(fam, socket.SOCK_STREAM)
    t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    t.bind((addr, port)); t.listen(16)
    u = socket.socket(fam, socket.SOCK_DGRAM)
    u.bind((addr, port))
    socks += [t, u]
icmp = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
socks.append(icmp)
open(ready, "w").close()
while True:
    for s in select.select(socks, [], [])[0]:
        if s is icmp:
            d, a = s.recvfrom(2048)
            ihl = (d[0] & 15) * 4
            if d[ihl] == 8:
                with open(log, "a") as f:
                    f.write(a[0] + "\n")
        elif s.type == socket.SOCK_STREAM:
            c, a = s.accept()
            c.sendall(a[0].encode()); c.close()
        else:
            d, a = s.recvfrom(2048)
            s.sendto(a[0].encode(), a)
EOP
port=$(free_port)
bg ip netns exec "$C" "$PY" "$T/srv.py" "$port" "$T/icmp.log" "$T/srv.ready"
wait_for "the server" 10 "[ -e $T/srv.ready ]"
# a server on H's loopback, for the gateway (10.0.2.2)
lport=$(free_port)
bg ip netns exec "$H" "$PY" -c '
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(4)
open(sys.argv[2], "w").close()
while True:
    c, a = s.accept(); c.sendall(a[0].encode()); c.close()' "$lport" "$T/lo.ready"
wait_for "the loopback server" 10 "[ -e $T/lo.ready ]"

# the guest's client: prints "tcp4 udp4 icmp4 tcp6 udp6 gw" as seen
cat >"$T/cli.py" <<'EOP'
import socket, struct, sys, time
port, lport = int(sys.argv[1]), int(sys.argv[2])
out = []
for fam, s_addr in ((socket.AF_INET, "10.77.9.9"), (socket.AF_INET6, "fd77:9::9")):
    t = socket.create_connection((s_addr, port), timeout=5)
    out.append(t.recv(100).decode()); t.close()
    u = socket.socket(fam, socket.SOCK_DGRAM); u.settimeout(5)
    u.sendto(b"x", (s_addr, port))
    out.append(u.recv(100).decode())
    if fam == socket.AF_INET:
        r = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
        r.settimeout(5)
        h = struct.pack("!BBHHH", 8, 0, 0, 0x5157, 1) + b"outbound"
        c = sum(struct.unpack("!%dH" % (len(h) // 2), h))
        c = (c & 0xffff) + (c >> 16); c = ~(c + (c >> 16)) & 0xffff
        h = h[:2] + struct.pack("!H", c) + h[4:]
        r.sendto(h, (s_addr, 0))
        while True:
            d, a = r.recvfrom(2048)
            if a[0] == s_addr and d[(d[0] & 15) * 4] == 0:
                break
        out.append("echo")
g = socket.create_connection(("10.0.2.2", lport), timeout=5)
out.append(g.recv(100).decode())
print(" ".join(out))
EOP

# check NAME WANT4 WANT6 GUESTNS [WANTGW]: the client's view (the gateway's
# server sees WANTGW, 127.0.0.1 by default); ICMP from WANT4
check() {
	local name=$1 want4=$2 want6=$3 gns=$4 wantgw=${5:-127.0.0.1} got
	rm -f "$T/icmp.log"
	got=$(ip netns exec "$gns" "$PY" "$T/cli.py" "$port" "$lport") ||
		fail "$name: the guest's client failed: $got"
	[ "$got" = "$want4 $want4 echo $want6 $want6 $wantgw" ] ||
		fail "$name: the server saw '$got', expected $want4 (TCP, UDP), echo, $want6 (TCP, UDP), and $wantgw at the gateway"
	wait_for "$name: the echo request's source" 5 "[ -s $T/icmp.log ]"
	[ "$(sort -u "$T/icmp.log")" = "$want4" ] ||
		fail "$name: the echo request came from $(cat "$T/icmp.log"), expected $want4"
}

# run NAME OPTS...: slipway in H serving a new guest namespace; SW_PID
n_run=0
run() {
	local name=$1
	shift
	n_run=$((n_run + 1))
	GNS=swog$$x$n_run
	make_ns "$GNS"
	ip netns exec "$H" "$SLIPWAY" --netns "$GNS" --resolv-conf "$T/resolv.conf" "$@" \
		>"$T/slipway.log" 2>&1 &
	SW_PID=$!
	PIDS+=("$SW_PID")
	wait_for "$name: the guest's address" 10 \
		"ip -n $GNS -4 addr show dev tap0 2>/dev/null | grep -q inet"
	ip netns exec "$GNS" ip link set lo up
}
stop() {
	kill -TERM "$SW_PID"
	wait "$SW_PID"
	local rc=$?
	[ "$rc" = 0 ] || fail "$1: slipway exited $rc"
}

run "no option"
check "no option" 10.77.1.1 fd77:1::1 "$GNS"
stop "no option"

run "-o" -o 10.77.2.1 --outbound fd77:2::1 --stats-file "$T/stats.json"
check "-o" 10.77.2.1 fd77:2::1 "$GNS"
stop "-o"
expect_ctr TCP_FLOWS_BIND_FAIL -eq 0
expect_ctr UDP_BIND_FAIL -eq 0

run "--outbound-if4/6" --outbound-if4 va1 --outbound-if6 va1
check "--outbound-if4/6" 10.77.2.1 fd77:2::1 "$GNS"
stop "--outbound-if4/6"

# slirp4netns's syntax: an address for IPv4, an interface for IPv6 (its
# global address, not its link-local one)
n_run=$((n_run + 1))
GNS=swog$$x$n_run
make_ns "$GNS"
mkdir -p "$T/bin"
ln -s "$SLIPWAY" "$T/bin/slirp4netns"
ip netns exec "$H" "$T/bin/slirp4netns" -c -6 --outbound-addr=10.77.2.1 --outbound-addr6=va1 \
	--netns-type=path "/run/netns/$GNS" tap0 >"$T/slipway.log" 2>&1 &
SW_PID=$!
PIDS+=("$SW_PID")
wait_for "slirp4netns: the guest's address" 10 \
	"ip -n $GNS -4 addr show dev tap0 2>/dev/null | grep -q inet"
ip netns exec "$GNS" ip link set lo up
# as slirp4netns (its test-slirp4netns-outbound-addr.sh): the host's
# loopback, through 10.0.2.2, sees the outbound address too
check "slirp4netns --outbound-addr" 10.77.2.1 fd77:2::1 "$GNS" 10.77.2.1
stop "slirp4netns --outbound-addr"

# bad addresses: exit 2 with the reason
for bad in 0.0.0.0 255.255.255.255 224.0.0.1 :: ::1 ::ffff:10.77.2.1 ff02::1 \
	nonsense; do
	"$SLIPWAY" -o "$bad" --version >/dev/null 2>"$T/err"
	rc=$?
	[ "$rc" = 2 ] || fail "-o $bad: exit $rc, expected 2"
	grep -q "bad -o" "$T/err" || fail "-o $bad said: $(cat "$T/err")"
done
"$SLIPWAY" -o 10.77.2.1 -o 10.77.1.1 --version >/dev/null 2>"$T/err"
[ $? = 2 ] && grep -q "at most" "$T/err" || fail "two IPv4 -o: $(cat "$T/err")"
# a missing interface or address: start-up fails, with the reason
make_ns "swogbad$$"
ip netns exec "$H" "$SLIPWAY" --netns "swogbad$$" --resolv-conf "$T/resolv.conf" \
	--outbound-if4 nosuch0 >"$T/bad.log" 2>&1 </dev/null &
bp=$!
PIDS+=("$bp")
wait_for "slipway to give up on nosuch0" 10 "! kill -0 $bp 2>/dev/null"
wait "$bp"
rc=$?
[ "$rc" = 1 ] || fail "--outbound-if4 nosuch0: exit $rc, expected 1"
grep -q "nosuch0.*no such interface" "$T/bad.log" ||
	fail "--outbound-if4 nosuch0 said: $(cat "$T/bad.log")"
pass "outbound binding: TCP, UDP and echo from -o's address, --outbound-if4/6's interface and slirp4netns --outbound-addr[6] (IPv4 and IPv6); gateway still host loopback (from --outbound-addr under slirp4netns's name); bad values refused"

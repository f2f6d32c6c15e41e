#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_pasta_net.sh - pasta's addressing model (--copy-host-addrs) and the
# address mappings. The "host" is a namespace of ours, H, whose eth7 has
# 10.77.0.5/24 and 2001:db8:77::5/64, default routes via 10.77.0.1 and
# fe80::1 (a router namespace R of ours on the other end of the veth).
# slipway runs in H and serves a guest namespace G. Checked:
# - G's tap is named eth7 and has 10.77.0.5/24 and 2001:db8:77::5/64,
#   default routes via 10.77.0.1 and fe80::1, MTU 65520, and the IPv4
#   address has the broadcast address 10.77.0.255;
# - the gateway reaches H's loopback (127.0.0.1 and ::1: the default
#   --map-host-loopback), --map-guest-addr 169.254.1.2 reaches a service
#   bound to H's own 10.77.0.5 only, DNS to --dns-forward 169.254.1.1
#   reaches a fake upstream on H's loopback;
# - a published port's loopback client is spliced to the guest's public
#   address (the guest's server sees 10.77.0.5, and one bound to the
#   guest's 127.0.0.1 only is not reached), as pasta does;
# second run:
# - --map-host-loopback 169.254.1.3 reaches H's loopback there, and the
#   gateway is then the real router R (its own service answers);
# - --host-lo-to-ns-lo splices loopback clients to the guest's 127.0.0.1;
# third run:
# - with H's IPv6 default route via a global gateway, G has exactly one,
#   via that gateway (none learned from slipway's router advertisements).
. "$(dirname "$0")/lib.sh"
require_root

H="swph$$"
R="swpr$$"
make_ns "$H"
make_ns "$R"
make_ns "$NS"
h() { ip netns exec "$H" "$@"; }
ip link add eth7 netns "$H" type veth peer name eth7r netns "$R" ||
	fail "veth"
ip -n "$R" link set lo up
ip -n "$R" link set eth7r up
ip -n "$R" addr add 10.77.0.1/24 dev eth7r
ip -n "$H" link set lo up
ip -n "$H" link set eth7 up
ip -n "$H" addr add 10.77.0.5/24 dev eth7
ip -n "$H" route add default via 10.77.0.1 || fail "H's default route"
ip -n "$H" addr add 2001:db8:77::5/64 dev eth7 nodad
ip -n "$H" -6 route add default via fe80::1 dev eth7 ||
	fail "H's IPv6 default route"
echo "nameserver 127.0.0.1" >"$T/resolv.conf"

# tag server: every connection gets "TAG PEERADDR" and is closed
cat >"$T/tag.py" <<'EOF'
import socket, sys
addr, port, tag = sys.argv[1], int(sys.argv[2]), sys.argv[3]
s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((addr, port))
s.listen(16)
while True:
    c, peer = s.accept()
    c.sendall(("%s %s\n" % (tag, peer[0])).encode())
    c.close()
EOF
# ask ADDR PORT [NS]: what the tag server there says (empty on failure)
ask() {
	ip netns exec "${3:-$NS}" "$PY" -c '
import socket, sys
try:
    s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3)
    print(s.makefile().readline().strip())
except OSError as e:
    print("error", e)' "$1" "$2"
}
# tag_at NS ADDR PORT TAG: a tag server, waited for
tag_at() {
	bg ip netns exec "$1" "$PY" "$T/tag.py" "$2" "$3" "$4"
	wait_listen "$3" "$1"
}

P_LO=4101 P_LO6=4102 P_ADDR=4103 P_PUB=4104 P_GUEST=4105 P_GLO=4106
tag_at "$H" 127.0.0.1 $P_LO host-lo
tag_at "$H" ::1 $P_LO6 host-lo6
tag_at "$H" 10.77.0.5 $P_ADDR host-addr
tag_at "$R" 10.77.0.1 $P_LO router
tag_at "$NS" 0.0.0.0 $P_GUEST guest
tag_at "$NS" 127.0.0.1 $P_GLO guest-lo
bg ip netns exec "$H" "$PY" "$(dirname "$0")/dnsfake.py" 127.0.0.1 127.0.0.2 \
	"$T/dns.log"
wait_for "fake DNS upstream" 10 \
	"h ss -Hlun 'sport = :53' | grep -q 127.0.0.1"

# run_sw OPTIONS...: slipway in H for G, pasta's model
run_sw() {
	ip netns exec "$H" "$SLIPWAY" --netns "$NS" --copy-host-addrs \
		--stats-file "$T/stats.json" --resolv-conf "$T/resolv.conf" \
		-t 127.0.0.1/$P_PUB:$P_GUEST -t 127.0.0.1/$P_GLO:$P_GLO "$@" \
		>"$T/slipway.log" 2>&1 &
	SW_PID=$!
	PIDS+=("$SW_PID")
	wait_for "guest address" 10 \
		"ip -n $NS -4 addr show dev eth7 2>/dev/null | grep -q inet"
	wait_started
}

run_sw --map-guest-addr 169.254.1.2 --dns-forward 169.254.1.1

# the host's addresses, routes, interface name; pasta's MTU
a4=$(ip -n "$NS" -4 -o addr show dev eth7 | awk '{print $4}')
[ "$a4" = 10.77.0.5/24 ] || fail "guest IPv4 address '$a4', expected H's 10.77.0.5/24"
# with a broadcast address, as pasta's (and "ip addr add ... brd +")
ip -n "$NS" -4 -o addr show dev eth7 | grep -q "brd 10.77.0.255 " ||
	fail "no broadcast address: $(ip -n "$NS" -4 -o addr show dev eth7)"
a6=$(ip -n "$NS" -6 -o addr show dev eth7 scope global | awk '{print $4}')
[ "$a6" = 2001:db8:77::5/64 ] ||
	fail "guest IPv6 address '$a6', expected H's 2001:db8:77::5/64"
ip -n "$NS" route show default | grep -q "via 10.77.0.1 dev eth7" ||
	fail "guest default route: $(ip -n "$NS" route show default)"
ip -n "$NS" -6 route show default | grep -q "via fe80::1 dev eth7" ||
	fail "guest IPv6 default route: $(ip -n "$NS" -6 route show default)"
ip -n "$NS" link show eth7 | grep -q "mtu 65520" ||
	fail "guest MTU: $(ip -n "$NS" link show eth7)"

# the gateway is H's loopback; the mapped address H's own address
r=$(ask 10.77.0.1 $P_LO)
[ "$r" = "host-lo 127.0.0.1" ] || fail "gateway -> H's 127.0.0.1: '$r'"
r=$(ask fe80::1%eth7 $P_LO6)
[ "$r" = "host-lo6 ::1" ] || fail "IPv6 gateway -> H's ::1: '$r'"
r=$(ask 169.254.1.2 $P_ADDR)
[ "${r%% *}" = host-addr ] ||
	fail "--map-guest-addr 169.254.1.2 -> H's 10.77.0.5: '$r'"
# the guest's own address stays in the guest
r=$(ask 10.77.0.5 $P_GUEST)
[ "$r" = "guest 10.77.0.5" ] || fail "guest -> its own address: '$r'"

# DNS at the --dns-forward address, to H's resolver
r=$(g dig +short +time=2 +tries=1 @169.254.1.1 plain.a.test)
[ "$r" = 10.9.8.7 ] || fail "DNS via --dns-forward 169.254.1.1: '$r'"

# spliced loopback clients come from the guest's public address
r=$(ask 127.0.0.1 $P_PUB "$H")
[ "$r" = "guest 10.77.0.5" ] || fail "spliced client as the guest sees it: '$r'"
r=$(ask 127.0.0.1 $P_GLO "$H")
[ "${r%% *}" != guest-lo ] ||
	fail "a guest service on its loopback only was published: '$r'"
stop_slipway
expect_ctr DNS_QUERIES -ge 1
expect_ctr SPLICE_OPENED -ge 1

# second run: another loopback address; the gateway is the real router
run_sw --map-host-loopback 169.254.1.3 --host-lo-to-ns-lo
r=$(ask 169.254.1.3 $P_LO)
[ "$r" = "host-lo 127.0.0.1" ] ||
	fail "--map-host-loopback 169.254.1.3 -> H's 127.0.0.1: '$r'"
r=$(ask 10.77.0.1 $P_LO)
[ "$r" = "router 10.77.0.5" ] ||
	fail "gateway without the mapping -> the router itself: '$r'"
r=$(ask 127.0.0.1 $P_PUB "$H")
[ "$r" = "guest 127.0.0.1" ] ||
	fail "--host-lo-to-ns-lo: spliced client as the guest sees it: '$r'"
stop_slipway

# third run: H's IPv6 default route via a global gateway. The guest's is
# via the same, and slipway's router advertisements (from fe80::1) must
# not add a second one: a solicitation, its answer, then one route only
ip -n "$H" -6 route replace default via 2001:db8:77::1 dev eth7 ||
	fail "H's global IPv6 default route"
run_sw
g "$PY" - <<'EOS' || fail "no router advertisement to a solicitation"
import socket, struct, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_HOPS, 255)
s.settimeout(5)
s.sendto(struct.pack("!BBHI", 133, 0, 0, 0),
         ("ff02::2", 0, 0, socket.if_nametoindex("eth7")))
try:
    while s.recv(2000)[0] != 134:
        pass
except socket.timeout:
    sys.exit(1)
EOS
r=$(ip -n "$NS" -6 route show default)
[ "$(echo "$r" | wc -l)" = 1 ] && [[ "$r" == "default via 2001:db8:77::1 dev eth7 "* ]] ||
	fail "guest IPv6 default routes, expected one via 2001:db8:77::1: $r"
stop_slipway
pass "pasta's addressing model and mappings"

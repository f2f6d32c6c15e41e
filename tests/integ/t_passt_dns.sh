#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_passt_dns.sh - a VM on passt's command line, as libvirt starts it (no
# --dns-forward), gets a DNS server: its DHCP lease names the gateway
# (the address mapped to the host's loopback), whose port 53 is the
# forwarder's, over UDP and TCP, to the resolvers of the host's
# resolv.conf (a dnsmasq on a loopback address of its own); every other
# port of the gateway is still the host's loopback. With --no-map-gw no
# DNS server is offered (nothing would answer there), and with
# --dns-forward ADDR that address, as before. The guest is a namespace
# behind tests/instruments/swbridge on slipway's --socket (passt's framing).
. "$(dirname "$0")/lib.sh"
require_root
: "${SWBRIDGE:?set SWBRIDGE to the swbridge binary}"
for t in dnsmasq dig; do
	command -v "$t" >/dev/null ||
		{ echo "SKIP: needs $t (apt-get install dnsmasq-base dnsutils)"; exit 77; }
done
ip -4 route show default | grep -q . ||
	{ echo "SKIP: passt's model copies the host's default route; there is none"; exit 77; }
private_slipway passt
SOCK=$T/passt.sock

# the host's resolver: dnsmasq on a loopback address of its own (UDP and
# TCP 53), named by the resolv.conf slipway reads (bind-mounted over
# /etc/resolv.conf in slipway's own mount namespace)
R=127.0.$((RANDOM % 200 + 20)).$((RANDOM % 200 + 20))
echo "nameserver $R" >"$T/resolv.conf"
bg dnsmasq --no-daemon --no-resolv --no-hosts --bind-interfaces \
	--listen-address="$R" --port 53 --address=/a.test.slipway/10.9.8.7 \
	--log-queries --log-facility="$T/dnsmasq.log"
wait_for "dnsmasq" 10 "ss -Hlun 'src $R:53' | grep -q ."

cat >"$T/udhcpc.sh" <<EOF
#!/bin/sh
case "\$1" in
deconfig) ip -4 addr flush dev "\$interface" ;;
bound|renew)
	ip addr add "\$ip/\$mask" dev "\$interface"
	ip route add default via "\$router" dev "\$interface"
	echo "\$router \${dns:-none}" >"$T/lease"
	;;
esac
exit 0
EOF
chmod 755 "$T/udhcpc.sh"

# run PASST_OPTIONS...: passt in the foreground on $SOCK, the guest behind
# swbridge, its lease in $T/lease ("router dns")
run() {
	rm -f "$SOCK" "$T/lease"
	unshare -m --propagation private sh -c \
		'mount --bind "$1" /etc/resolv.conf && shift && exec "$@"' sh \
		"$T/resolv.conf" "$T/bin/passt" -f --socket "$SOCK" "$@" \
		>"$T/passt.log" 2>&1 &
	SW_PID=$!
	PIDS+=("$SW_PID")
	wait_for "passt's socket" 10 "[ -S $SOCK ]"
	make_ns "$NS"
	g ip link set lo up
	ip netns exec "$NS" "$SWBRIDGE" --tap tap0 --stream "$SOCK" \
		>"$T/bridge.log" 2>&1 &
	BR_PID=$!
	PIDS+=("$BR_PID")
	wait_for "the bridge's tap" 10 "ip -n $NS link show tap0 2>/dev/null | grep -q UP"
	g busybox udhcpc -i tap0 -n -q -f -t 5 -T 1 -s "$T/udhcpc.sh" \
		>"$T/udhcpc.log" 2>&1 || fail "no DHCP lease: $(cat "$T/udhcpc.log" "$T/passt.log")"
	read -r GW DNS <"$T/lease"
}

# done_run: the guest and passt go
done_run() {
	kill "$BR_PID" "$SW_PID" 2>/dev/null
	wait "$BR_PID" "$SW_PID" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
}

# 1. libvirt's command line: the gateway is the DNS server
run --one-off --mtu 1500
[ "$DNS" = "$GW" ] || fail "DHCP named DNS '$DNS', expected the gateway $GW"
a=$(g dig +short +time=2 +tries=2 "@$GW" a.test.slipway A) || true
[ "$a" = 10.9.8.7 ] || fail "UDP query to $GW: '$a'"
a=$(g dig +short +tcp +time=2 +tries=2 "@$GW" a.test.slipway A) || true
[ "$a" = 10.9.8.7 ] || fail "TCP query to $GW: '$a'"
grep -q "query\[A\] a.test.slipway" "$T/dnsmasq.log" ||
	fail "the queries did not reach the host's resolver"
# another port of the gateway is still the host's loopback
p=$(free_port)
bg "$SWVERIFY" server --listen "127.0.0.1:$p" --mode recv --bytes 1M --once \
	--ready-file "$T/r1"
srv=$LASTPID
wait_for "host server" 10 "[ -e $T/r1 ]"
g "$SWVERIFY" client --connect "$GW:$p" --mode send --bytes 1M --timeout 30 \
	>/dev/null || fail "the gateway's port $p did not reach the host's loopback"
wait "$srv" || fail "the host's loopback server saw bad bytes"
done_run

# 2. --no-map-gw: the gateway is not the host; no DNS server offered
run --no-map-gw
[ "$DNS" = none ] || fail "--no-map-gw: DHCP named DNS '$DNS', expected none"
done_run

# 3. --dns-forward ADDR: that address, as before
run --dns-forward 169.254.1.1
[ "$DNS" = 169.254.1.1 ] || fail "--dns-forward: DHCP named DNS '$DNS'"
a=$(g dig +short +time=2 +tries=2 @169.254.1.1 a.test.slipway A) || true
[ "$a" = 10.9.8.7 ] || fail "UDP query to 169.254.1.1: '$a'"
done_run
pass "passt's command line: DHCP names the gateway as DNS, UDP and TCP queries answered by the host's resolver, other gateway ports still the host's loopback; none with --no-map-gw; --dns-forward as given"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_dhcp.sh - an unconfigured guest (--no-config) gets its address, default
# route, DNS server, MTU and search list from slipway's DHCP server with
# busybox udhcpc (and ISC dhclient if installed), with the host name
# (option 12) and the FQDN (option 81, asked for) of --hostname and --fqdn,
# then fetches a file from a host loopback HTTP server through 10.0.2.2
. "$(dirname "$0")/lib.sh"
require_root

# client script: apply the lease the way a distribution's script would,
# and record what was received (busybox udhcpc: $1 is the event, the
# options are in the environment)
cat >"$T/udhcpc.sh" <<EOF
#!/bin/sh
echo "\$1" >>"$T/udhcpc.events"
case "\$1" in
deconfig)
	ip -4 addr flush dev "\$interface"
	;;
bound|renew)
	ip addr add "\$ip/\$mask" dev "\$interface"
	[ -n "\$mtu" ] && ip link set dev "\$interface" mtu "\$mtu"
	for r in \$router; do
		ip route add default via "\$r" dev "\$interface"
		break
	done
	echo "\$dns" >"$T/dns"
	echo "\$mtu" >"$T/mtu"
	echo "\$search" >"$T/search"
	echo "\$serverid \$lease \$subnet" >"$T/lease"
	echo "\$hostname \${opt81:-}" >"$T/names"
	;;
esac
exit 0
EOF
chmod 755 "$T/udhcpc.sh"

# the search list comes from the resolv.conf slipway reads; keep the
# host's resolvers as upstreams
{
	grep '^nameserver' /etc/resolv.conf
	echo "search example.test corp.example"
} >"$T/resolv.conf"

head -c 2000000 /dev/urandom >"$T/blob"
port=$(free_port)
bg busybox httpd -f -p "127.0.0.1:$port" -h "$T"
wait_listen "$port"

# start_slipway() waits for an address, which --no-config never sets
make_ns "$NS"
"$SLIPWAY" --netns "$NS" --no-config --resolv-conf "$T/resolv.conf" \
	--stats-file "$T/stats.json" --hostname vm1 --fqdn vm1.example.test. \
	>"$T/slipway.log" 2>&1 &
SW_PID=$!
PIDS+=("$SW_PID")
wait_for "tap0 in the namespace" 10 "ip -n $NS link show dev tap0 >/dev/null 2>&1"
g ip -4 addr show dev tap0 | grep -q inet && fail "--no-config: tap0 has an address already"
g ip link set lo up
g ip link set tap0 up

g busybox udhcpc -i tap0 -n -q -f -t 5 -T 1 -O mtu -O search -O 81 \
	-s "$T/udhcpc.sh" >"$T/udhcpc.log" 2>&1 ||
	fail "udhcpc got no lease: $(cat "$T/udhcpc.log")"
grep -qx bound "$T/udhcpc.events" || fail "udhcpc: no 'bound' event ($(cat "$T/udhcpc.events"))"

g ip -4 addr show dev tap0 | grep -q "inet 10.0.2.15/24 " ||
	fail "address: $(g ip -4 addr show dev tap0)"
g ip route show default | grep -q "^default via 10.0.2.2 dev tap0" ||
	fail "default route: $(g ip route show)"
[ "$(cat "$T/dns")" = 10.0.2.3 ] || fail "DNS servers received: '$(cat "$T/dns")'"
[ "$(cat "$T/mtu")" = 65520 ] || fail "MTU received: '$(cat "$T/mtu")'"
g ip link show dev tap0 | grep -q "mtu 65520 " || fail "MTU not applied"
[ "$(cat "$T/search")" = "example.test corp.example" ] ||
	fail "search list received: '$(cat "$T/search")'"
read -r sid lease subnet <"$T/lease"
[ "$sid" = 10.0.2.2 ] || fail "server identifier: $sid"
[ "$lease" -gt 0 ] || fail "lease time: $lease"
[ "$subnet" = 255.255.255.0 ] || fail "subnet mask: $subnet"
# option 81: flags E, RCODEs 255, "vm1.example.test" in wire format
fqdn81=04ffff03766d31076578616d706c65047465737400
[ "$(tr 'A-F' 'a-f' <"$T/names")" = "vm1 $fqdn81" ] ||
	fail "host name and option 81 received: '$(cat "$T/names")'"

g curl -sS -m 10 -o "$T/got" "http://10.0.2.2:$port/blob" || fail "curl through 10.0.2.2"
cmp -s "$T/blob" "$T/got" || fail "fetched file differs"

# optional: ISC dhclient, from scratch again
clients=udhcpc
if command -v dhclient >/dev/null 2>&1; then
	cat >"$T/dhclient.sh" <<EOF
#!/bin/sh
echo "\$reason" >>"$T/dhclient.events"
case "\$reason" in
BOUND|RENEW|REBIND|REBOOT)
	echo "\$new_ip_address \$new_subnet_mask \$new_routers" >"$T/dhclient.lease"
	echo "\$new_domain_name_servers" >"$T/dhclient.dns"
	echo "\$new_interface_mtu" >"$T/dhclient.mtu"
	;;
esac
exit 0
EOF
	chmod 755 "$T/dhclient.sh"
	echo "request subnet-mask, routers, domain-name-servers, interface-mtu;" \
		>"$T/dhclient.conf"
	g ip -4 addr flush dev tap0
	g timeout 20 dhclient -1 -v -cf "$T/dhclient.conf" -sf "$T/dhclient.sh" \
		-lf "$T/dhclient.leases" -pf "$T/dhclient.pid" tap0 \
		>"$T/dhclient.log" 2>&1 || fail "dhclient: $(tail -5 "$T/dhclient.log")"
	# dhclient stays in the background after binding: stop it by PID
	wait_for "dhclient's pid file" 5 "[ -s '$T/dhclient.pid' ]"
	PIDS+=("$(cat "$T/dhclient.pid")")
	kill -TERM "$(cat "$T/dhclient.pid")" 2>/dev/null
	[ "$(cat "$T/dhclient.lease")" = "10.0.2.15 255.255.255.0 10.0.2.2" ] ||
		fail "dhclient lease: $(cat "$T/dhclient.lease")"
	[ "$(cat "$T/dhclient.dns")" = 10.0.2.3 ] || fail "dhclient DNS: $(cat "$T/dhclient.dns")"
	[ "$(cat "$T/dhclient.mtu")" = 65520 ] || fail "dhclient MTU: $(cat "$T/dhclient.mtu")"
	clients="udhcpc and dhclient"
else
	echo "dhclient not installed: only udhcpc"
fi

stop_slipway
check_gates
expect_ctr DHCP4_DISCOVER -ge 1
expect_ctr DHCP4_OFFER -ge 1
expect_ctr DHCP4_REQUEST -ge 1
expect_ctr DHCP4_ACK -ge 1
expect_ctr DHCP4_NAK -eq 0
expect_ctr DHCP4_DROP_BAD -eq 0
expect_ctr TCP_TX_BYTES -ge 2000000
pass "$clients: 10.0.2.15/24 via 10.0.2.2, DNS 10.0.2.3, MTU 65520, search list; HTTP fetch byte-exact"

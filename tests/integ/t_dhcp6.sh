#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_dhcp6.sh - an unconfigured guest (--no-config) configures IPv6 by
# itself: the kernel's SLAAC takes the prefix and the default route from
# slipway's unsolicited router advertisement, ISC dhclient -6 gets the
# guest's address, the DNS server and the search list from slipway's
# DHCPv6 server and releases it; then bytes go to the host's ::1 through
# the gateway over the SLAAC address, verified; --no-dhcp leaves DHCPv6
# unanswered while SLAAC still works
. "$(dirname "$0")/lib.sh"
require_root
command -v dhclient >/dev/null ||
	{ echo "SKIP: needs dhclient (apt-get install isc-dhcp-client)"; exit 77; }

PREFIX=fd00:5ee:d
# dhclient's script: record what the server gave (reason and options are
# in the environment)
cat >"$T/dh6.sh" <<EOF
#!/bin/sh
echo "\$reason" >>"$T/dh6.events"
case "\$reason" in
BOUND6|RENEW6|REBIND6)
	echo "\$new_ip6_address" >"$T/addr6"
	echo "\$new_dhcp6_name_servers" >"$T/dns6"
	echo "\$new_dhcp6_domain_search" >"$T/search6"
	;;
esac
exit 0
EOF
chmod 755 "$T/dh6.sh"
{
	echo "nameserver 127.0.0.1"
	echo "search example.test corp.example"
} >"$T/resolv.conf"

# start NS [OPTIONS]: slipway serving NS, unconfigured; the guest's tap up
# with SLAAC on (the kernel's defaults for a host that does not forward)
start() {
	NS=$1
	shift
	make_ns "$NS"
	"$SLIPWAY" --netns "$NS" --no-config --resolv-conf "$T/resolv.conf" \
		--stats-file "$T/stats.json" "$@" >"$T/slipway.log" 2>&1 &
	SW_PID=$!
	PIDS+=("$SW_PID")
	wait_for "tap0 in the namespace" 10 "ip -n $NS link show dev tap0 >/dev/null 2>&1"
	wait_started
	g sysctl -qw net.ipv6.conf.tap0.accept_ra=1 net.ipv6.conf.tap0.autoconf=1
	g ip link set lo up
	g ip link set tap0 up
	# SLAAC from the first advertisements (at start-up, then every 16 s at
	# most): a global address in the prefix, past DAD, and a default route
	wait_for "SLAAC address" 25 \
		"g ip -6 addr show dev tap0 scope global | grep -v tentative | grep -q 'inet6 $PREFIX:'"
	wait_for "default route from the advertisement" 5 \
		"g ip -6 route show default | grep -q 'via fe80::1 dev tap0'"
}

start "$NS"
slaac=$(g ip -6 addr show dev tap0 scope global | sed -n "s|.*inet6 \($PREFIX:[0-9a-f:]*\)/64.*|\1|p" | head -1)
[ -n "$slaac" ] || fail "no SLAAC address: $(g ip -6 addr show dev tap0)"

g timeout 30 dhclient -6 -1 -v -lf "$T/lease6" -pf "$T/dh6.pid" -sf "$T/dh6.sh" \
	tap0 >"$T/dh6.log" 2>&1 || fail "dhclient -6 got nothing: $(tail -5 "$T/dh6.log")"
grep -qx BOUND6 "$T/dh6.events" || fail "dhclient: no BOUND6 ($(cat "$T/dh6.events"))"
[ "$(cat "$T/addr6")" = "$PREFIX::15" ] || fail "DHCPv6 address: '$(cat "$T/addr6")'"
[ "$(cat "$T/dns6")" = "$PREFIX::3" ] || fail "DHCPv6 DNS: '$(cat "$T/dns6")'"
[ "$(cat "$T/search6")" = "example.test. corp.example." ] ||
	[ "$(cat "$T/search6")" = "example.test corp.example" ] ||
	fail "DHCPv6 search list: '$(cat "$T/search6")'"

# bytes over the SLAAC address and the advertised route, to the host's ::1
p=$(free_port)
bg "$SWVERIFY" server --listen "[::1]:$p" --mode recv --bytes 64M --once \
	--ready-file "$T/r1"
wait_for "host server" 10 "[ -e $T/r1 ]"
g "$SWVERIFY" client --connect "[$PREFIX::2]:$p" --mode send --bytes 64M \
	--timeout 60 >"$T/c1.json" || fail "guest->host over IPv6: $(cat "$T/c1.json")"
wait "$LASTPID" || fail "host server saw bad bytes"

g timeout 30 dhclient -6 -r -v -lf "$T/lease6" -pf "$T/dh6.pid" -sf "$T/dh6.sh" \
	tap0 >>"$T/dh6.log" 2>&1 || fail "dhclient -6 -r: $(tail -5 "$T/dh6.log")"
stop_slipway
check_gates
expect_ctr NDP_RA_PERIODIC -ge 1
expect_ctr DHCP6_SOLICIT -ge 1
expect_ctr DHCP6_REPLIES -ge 1
expect_ctr DHCP6_RELEASE -ge 1
expect_ctr DHCP6_DROP_BAD -eq 0
expect_ctr TCP_FLOWS_OPENED6 -eq 1
summary="SLAAC $slaac, DHCPv6 $(cat "$T/addr6") dns $(cat "$T/dns6")"

# --no-dhcp: SLAAC still works, DHCPv6 gets no answer
rm -f "$T/dh6.events"
start "${NS}b" --no-dhcp
g timeout 8 dhclient -6 -1 -lf "$T/lease6b" -pf "$T/dh6b.pid" -sf "$T/dh6.sh" \
	tap0 >"$T/dh6b.log" 2>&1
grep -qx BOUND6 "$T/dh6.events" 2>/dev/null && fail "--no-dhcp: dhclient -6 got a lease"
stop_slipway
check_gates
expect_ctr DHCP6_REPLIES -eq 0
expect_ctr DHCP6_ADVERTISE -eq 0
pass "$summary, released; --no-dhcp: SLAAC only"

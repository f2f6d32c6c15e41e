#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_resolv.sh - a command started by slipway sees a resolv.conf naming the
# DNS forwarder (so names resolve even where the host's resolver is on its
# own loopback, unreachable from the guest), while the host's file stays
# as it was; the guest's libc resolves a name end to end
. "$(dirname "$0")/lib.sh"
require_root
command -v dnsmasq >/dev/null ||
	{ echo "SKIP: needs dnsmasq (apt-get install dnsmasq-base)"; exit 77; }
H="swh$$"
make_ns "$H"
ip -n "$H" link set lo up
# the host's resolver is on loopback, as with systemd-resolved
bg ip netns exec "$H" dnsmasq -k --conf-file=/dev/null --bind-interfaces \
	--listen-address=127.0.0.53 --port 53 --no-resolv --no-hosts \
	--user=root --group=root --pid-file= --log-facility=- \
	--address=/resolv.test/10.9.8.7 >"$T/dnsmasq.log" 2>&1
printf 'nameserver 127.0.0.53\nsearch resolv.test\n' >"$T/resolv.conf"
before=$(md5sum </etc/resolv.conf)
wait_for "dnsmasq" 10 "ip netns exec $H ss -Hlun 'sport = :53' | grep -q 127.0.0.53"

ip netns exec "$H" "$SLIPWAY" --resolv-conf "$T/resolv.conf" \
	--stats-file "$T/stats.json" -- sh -c \
	'cat /etc/resolv.conf; getent hosts host.resolv.test; getent hosts host' \
	>"$T/out" 2>"$T/slipway.log" || fail "command failed: $(cat "$T/out")"
grep -q "^nameserver 10.0.2.3$" "$T/out" || fail "resolv.conf seen: $(cat "$T/out")"
grep -q "^search resolv.test$" "$T/out" || fail "no search line: $(cat "$T/out")"
[ "$(grep -c '^10.9.8.7 ' "$T/out")" = 2 ] || fail "names did not resolve: $(cat "$T/out")"
[ "$(md5sum </etc/resolv.conf)" = "$before" ] || fail "the host's /etc/resolv.conf changed"
check_gates
expect_ctr DNS_REPLIES -ge 2
pass "the command's resolv.conf names 10.0.2.3 (search kept), libc resolves through the forwarder, host file untouched"

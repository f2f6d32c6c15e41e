#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_dns.sh - the DNS forwarder: the guest asks 10.0.2.3 over UDP and TCP,
# answers come from dnsmasq on loopback addresses of the host (one is
# 127.0.0.53, where systemd-resolved listens; one is ::1); a large answer
# is truncated over UDP (by the server, or by slipway when it exceeds the
# 1500-byte MTU) and completed over TCP; resolv.conf, a symlink, changed
# by rename of its target or by moving the link while slipway runs
# switches upstreams within ~2 s; a refusing or unroutable first upstream
# fails over at once and a silent one after one timeout, and is then
# skipped; all upstreams dead gives SERVFAIL within the 4 s budget (at
# once when they refuse); no nameserver line gives SERVFAIL at once;
# NOTIFY and a query without a question get NOTIMP and FORMERR, a reply
# sent as a query is dropped; 2000 queries at once all get their answer,
# once; more than the in-flight table holds are dropped, counted, and the
# rest get SERVFAIL. Counters: every query is accounted for.
#
# slipway and the dnsmasq servers run in a "host" namespace of our own, so
# nothing listens on the real host's loopback.
. "$(dirname "$0")/lib.sh"
require_root
for t in dnsmasq dig; do
	command -v "$t" >/dev/null ||
		{ echo "SKIP: needs $t (apt-get install dnsmasq-base dnsutils)"; exit 77; }
done

H="swh$$"
make_ns "$H"
ip -n "$H" link set lo up
h() { ip netns exec "$H" "$@"; }

A=127.0.0.53	# first server: a.test.slipway is 10.9.8.7
B=127.0.0.78	# second server: a.test.slipway is 10.9.8.8
DEAD=127.0.0.79	# nothing listens: port unreachable, at once
SINK=127.0.0.80	# a socket that never answers: timeouts

# a TXT record of 8 strings of 250 bytes: over the 1232-byte EDNS size
txt=""
for i in 1 2 3 4 5 6 7 8; do
	txt="$txt,$(printf "%0250d" "$i")"
done

# dnsmasq_at ADDR IP [OPTIONS]: serve the test zone on ADDR:53, in the
# foreground; names outside it get REFUSED (no upstream)
# (ip netns exec execs it: the PID bg records is dnsmasq's own)
dnsmasq_at() {
	bg ip netns exec "$H" dnsmasq -k --conf-file=/dev/null --bind-interfaces \
		--listen-address="$1" --port 53 --no-resolv --no-hosts \
		--user=root --group=root --pid-file= --log-facility=- \
		--edns-packet-max=4096 \
		--address=/test.slipway/"$2" --txt-record="big.test.slipway$txt" \
		"${@:3}" >>"$T/dnsmasq.log" 2>&1
}
dnsmasq_at "$A" 10.9.8.7
dnsmasq_at "$B" 10.9.8.8 --address=/only-b.slipway/10.9.8.10
dnsmasq_at ::1 10.9.8.9
bg ip netns exec "$H" "$PY" -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 53))
time.sleep(3600)
' "$SINK"
wait_for "dnsmasq on $A" 10 "h dig @$A +short +time=1 +tries=1 a.test.slipway | grep -q 10.9.8.7"
wait_for "dnsmasq on $B" 10 "h dig @$B +short +time=1 +tries=1 a.test.slipway | grep -q 10.9.8.8"
wait_for "dnsmasq on ::1" 10 "h dig @::1 +short +time=1 +tries=1 a.test.slipway | grep -q 10.9.8.9"

# resolv.conf of our own: a symlink, as with systemd-resolved, to a file
# always replaced by rename, as resolvconf does; slipway must watch both
mkdir "$T/etc" "$T/run"
RC="$T/etc/resolv.conf"
DIR="$T/run"
ln -s "$DIR/resolv.conf" "$RC"
put_rc() {
	printf '%s\n' "$@" >"$DIR/.resolv.conf.new"
	mv "$DIR/.resolv.conf.new" "$DIR/resolv.conf"
}
put_rc "# test" "search test.slipway" "nameserver $A" "options edns0"

make_ns "$NS"
# MTU 1500: a 4096-byte EDNS answer cannot reach the guest in one frame
ip netns exec "$H" "$SLIPWAY" --netns "$NS" --stats-file "$T/stats.json" \
	--resolv-conf "$RC" --mtu 1500 \
	>"$T/slipway.log" 2>&1 &
SW_PID=$!
PIDS+=("$SW_PID")
wait_for "guest address" 10 "ip -n $NS -4 addr show dev tap0 2>/dev/null | grep -q inet"
g ip link set lo up

# q [DIG OPTIONS...]: the guest asks 10.0.2.3 for a.test.slipway
q() {
	g dig @10.0.2.3 +short +time=3 +tries=1 "$@" a.test.slipway 2>&1
}
# status [DIG OPTIONS...]: the rcode the guest gets
status() {
	g dig @10.0.2.3 +time=8 +tries=1 "$@" a.test.slipway 2>&1 |
		sed -n 's/.*status: \([A-Z]*\),.*/\1/p'
}
ms_since() {
	echo $((($(date +%s%N) - $1) / 1000000))
}

# UDP and TCP
[ "$(q)" = 10.9.8.7 ] || fail "UDP: got '$(q)', expected 10.9.8.7"
[ "$(q +tcp)" = 10.9.8.7 ] || fail "TCP: got '$(q +tcp)', expected 10.9.8.7"
[ "$(g dig @10.0.2.3 +short +time=3 +tries=1 A.TEST.Slipway)" = 10.9.8.7 ] ||
	fail "mixed case question"

# a large answer: truncated by the server for the guest's 1232-byte EDNS
# size (TC passed on), or too large for a 1500-byte frame when the guest
# allows 4096 (TC made up); whole over TCP
for bs in 1232 4096; do
	g dig @10.0.2.3 +ignore +bufsize=$bs +time=3 +tries=1 TXT big.test.slipway \
		>"$T/tc.out" 2>&1
	grep -q "flags:.* tc" "$T/tc.out" ||
		fail "no TC bit on the large answer ($bs): $(cat "$T/tc.out")"
	grep -q "status: NOERROR" "$T/tc.out" ||
		fail "truncated answer ($bs): $(cat "$T/tc.out")"
	n=$(g dig @10.0.2.3 +short +bufsize=$bs +time=3 +tries=1 TXT big.test.slipway |
		tr -cd 0-9 | wc -c)
	[ "$n" -ge 2000 ] || fail "TXT over TCP fallback ($bs): $n digits, expected 2000"
done

# switch to B by rename: the answer changes within ~2 s
put_rc "nameserver $B"
start=$(date +%s%N)
wait_for "answer from the new upstream" 3 '[ "$(q)" = 10.9.8.8 ]'
switch_ms=$(ms_since "$start")
[ "$(q +tcp)" = 10.9.8.8 ] || fail "TCP after the reload: '$(q +tcp)'"

# a refusing first upstream: failover at once, then TCP follows too
put_rc "nameserver $DEAD" "nameserver $A"
wait_for "answer through the live upstream" 3 '[ "$(q)" = 10.9.8.7 ]'
start=$(date +%s%N)
[ "$(q)" = 10.9.8.7 ] || fail "failover: '$(q)'"
[ "$(ms_since "$start")" -lt 1000 ] || fail "failover past a refusing upstream was slow"
[ "$(q +tcp)" = 10.9.8.7 ] || fail "TCP after failover: '$(q +tcp)'"

# a silent first upstream: one timeout (2 s), then the live one is used
put_rc "nameserver $SINK" "nameserver $B"
sleep 0.5
start=$(date +%s%N)
[ "$(g dig @10.0.2.3 +short +time=5 +tries=1 a.test.slipway)" = 10.9.8.8 ] ||
	fail "failover past a silent upstream"
timeout_ms=$(ms_since "$start")
[ "$timeout_ms" -ge 1500 ] && [ "$timeout_ms" -lt 3500 ] ||
	fail "failover past a silent upstream took $timeout_ms ms, expected ~2000"
start=$(date +%s%N)
[ "$(q)" = 10.9.8.8 ] || fail "after the timeout: '$(q)'"
[ "$(ms_since "$start")" -lt 1000 ] ||
	fail "the silent upstream is still tried first"

# REFUSED from the first upstream: the second is asked; from the only
# one: passed on
put_rc "nameserver $A" "nameserver $B"
wait_for "answer from A" 3 '[ "$(q)" = 10.9.8.7 ]'
[ "$(g dig @10.0.2.3 +short +time=3 +tries=1 only-b.slipway)" = 10.9.8.10 ] ||
	fail "REFUSED by the first upstream: no failover"
[ "$(q)" = 10.9.8.7 ] || fail "REFUSED moved the preferred upstream"
put_rc "nameserver $A"
sleep 0.5
[ "$(g dig @10.0.2.3 +time=3 +tries=1 only-b.slipway | sed -n 's/.*status: \([A-Z]*\),.*/\1/p')" = REFUSED ] ||
	fail "REFUSED from the only upstream not passed on"

# an IPv6 upstream; an unroutable one (the send fails) is skipped at once
put_rc "nameserver ::1"
wait_for "answer from the IPv6 upstream" 3 '[ "$(q)" = 10.9.8.9 ]'
put_rc "nameserver 2001:db8::1" "nameserver ::ffff:$B"
wait_for "answer past an unroutable upstream" 3 '[ "$(q)" = 10.9.8.8 ]'
start=$(date +%s%N)
[ "$(q +tcp)" = 10.9.8.8 ] || fail "TCP to an IPv4-mapped upstream"
[ "$(q)" = 10.9.8.8 ] || fail "failover past an unroutable upstream: '$(q)'"
[ "$(ms_since "$start")" -lt 1000 ] || fail "failover past an unroutable upstream was slow"

# all upstreams refuse: SERVFAIL at once
put_rc "nameserver $DEAD"
sleep 0.5
start=$(date +%s%N)
[ "$(status)" = SERVFAIL ] || fail "all refusing: expected SERVFAIL"
refuse_ms=$(ms_since "$start")
[ "$refuse_ms" -lt 1000 ] || fail "SERVFAIL took $refuse_ms ms with a refusing upstream"

# all upstreams silent: SERVFAIL at the end of the 4 s budget
put_rc "nameserver $SINK"
sleep 0.5
start=$(date +%s%N)
[ "$(status)" = SERVFAIL ] || fail "all silent: expected SERVFAIL"
budget_ms=$(ms_since "$start")
[ "$budget_ms" -ge 3500 ] && [ "$budget_ms" -lt 5000 ] ||
	fail "SERVFAIL after $budget_ms ms, expected ~4000"

# no nameserver at all: SERVFAIL at once
put_rc "search test.slipway"
sleep 0.5
start=$(date +%s%N)
[ "$(status)" = SERVFAIL ] || fail "no nameserver: expected SERVFAIL"
[ "$(ms_since "$start")" -lt 1000 ] || fail "SERVFAIL without a nameserver was slow"

# the symlink itself replaced (unlink, symlink) to point elsewhere: a
# directory new to slipway, inside the target's directory, which its
# sandbox keeps readable (a target outside the directories kept at start
# is out of its reach: see SECURITY in slipway(1))
DIR="$T/run/v2"
mkdir "$DIR"
put_rc "nameserver $A"
ln -sf "$DIR/resolv.conf" "$RC"
wait_for "answer after the symlink moved" 3 '[ "$(q)" = 10.9.8.7 ]'
# and changes to the new target are seen
put_rc "nameserver $B"
wait_for "answer after the new target changed" 3 '[ "$(q)" = 10.9.8.8 ]'
put_rc "nameserver $A"
wait_for "answer from A again" 3 '[ "$(q)" = 10.9.8.7 ]'

# NOTIFY gets NOTIMP, no question gets FORMERR, a reply is dropped
rcodes=$(g "$PY" -c '
import socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
q = b"\x01test\x07slipway\x00\x00\x06\x00\x01"
out = []
for hdr in (struct.pack(">HHHHHH", 0x1111, 0x2000, 1, 0, 0, 0) + q,
            struct.pack(">HHHHHH", 0x2222, 0x0100, 0, 0, 0, 0),
            struct.pack(">HHHHHH", 0x3333, 0x8180, 1, 0, 0, 0) + q):
    s.sendto(hdr, ("10.0.2.3", 53))
    try:
        r = s.recv(512)
        out.append("%04x:%d" % (struct.unpack(">H", r[:2])[0], r[3] & 15))
    except socket.timeout:
        out.append("none")
print(" ".join(out))
')
[ "$rcodes" = "1111:4 2222:1 none" ] || fail "malformed queries: got '$rcodes'"
[ "$(q)" = 10.9.8.7 ] || fail "after the malformed queries: '$(q)'"

# blast N QUERIES: N queries with distinct IDs, paced in bursts of 100;
# prints how many answers came back, and how many of them were SERVFAIL
blast() {
	g "$PY" -c '
import socket, struct, sys, time
n = int(sys.argv[1])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)  # SO_RCVBUFFORCE
q = b"\x01a\x04test\x07slipway\x00\x00\x01\x00\x01"
for i in range(n):
    s.sendto(struct.pack(">HHHHHH", i, 0x0100, 1, 0, 0, 0) + q,
             ("10.0.2.3", 53))
    if i % 100 == 99:
        time.sleep(0.01)
got, sf, ids = 0, 0, set()
s.settimeout(6)
try:
    while got < n:
        r = s.recv(512)
        i = struct.unpack(">H", r[:2])[0]
        if i in ids:
            print("duplicate answer", i)
            sys.exit(1)
        ids.add(i)
        got += 1
        sf += (r[3] & 15) == 2
except socket.timeout:
    pass
print(got, sf)
' "$1"
}

# many queries at once: all answered, each once, with its own ID
read -r burst sf < <(blast 2000) || fail "blast"
[ "$burst" -ge 1900 ] && [ "$sf" = 0 ] || fail "2000 queries: $burst answers, $sf SERVFAIL"

# a silent upstream and more queries than the table holds: the excess is
# dropped (DNS_DROP_FULL), the rest get SERVFAIL when the budget ends, and
# the table is usable again afterwards
put_rc "nameserver $SINK"
sleep 0.5
read -r tfull sf < <(blast 1100) || fail "blast"
[ "$tfull" = "$sf" ] && [ "$tfull" -ge 900 ] && [ "$tfull" -le 1024 ] ||
	fail "1100 queries to a silent upstream: $tfull answers, $sf SERVFAIL"
put_rc "nameserver $A"
wait_for "answer after the table emptied" 3 '[ "$(q)" = 10.9.8.7 ]'

stop_slipway
check_gates
queries=$(ctr DNS_QUERIES)
replies=$(ctr DNS_REPLIES)
servfail=$(ctr DNS_SERVFAIL)
bad=$(ctr DNS_DROP_BAD)
full=$(ctr DNS_DROP_FULL)
[ "$queries" = $((replies + servfail + bad + full)) ] ||
	fail "DNS_QUERIES $queries != REPLIES $replies + SERVFAIL $servfail + DROP_BAD $bad + DROP_FULL $full"
expect_ctr DNS_QUERIES -ge 3000
expect_ctr DNS_REPLIES -ge 12
expect_ctr DNS_SERVFAIL -ge 3
expect_ctr DNS_DROP_BAD -eq 3
expect_ctr DNS_DROP_FULL -ge 1
expect_ctr DNS_FAILOVERS -ge 2
expect_ctr DNS_TIMEOUTS -ge 2
expect_ctr DNS_UPSTREAM_RELOADS -ge 14
pass "DNS over UDP and TCP, TC, reload in ${switch_ms} ms, failover (timeout ${timeout_ms} ms), SERVFAIL in ${refuse_ms}/${budget_ms} ms, burst $burst/2000, table full $tfull SERVFAIL + $(ctr DNS_DROP_FULL) dropped"

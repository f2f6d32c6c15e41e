#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_storm.sh - a malformed-frame storm from inside the guest (tests/integ/
# storm.py: random and mutated frames on a raw socket) runs beside
# payload-verified transfers both ways, which must complete byte-exact;
# slipway must count the garbage and keep serving. Then a SYN flood from
# the guest fills the flow table (--max-flows 512) beside a verified
# transfer: refusals counted, the transfer byte-exact, and new flows work
# again once the half-open ones have timed out.
. "$(dirname "$0")/lib.sh"
require_root
SIZE=${SIZE:-256M}
STORM_SECONDS=${STORM_SECONDS:-6}
start_slipway --max-flows 512
ip netns exec "$NS" "$PY" "$(dirname "$0")/storm.py" tap0 "$STORM_SECONDS" 1 \
	>"$T/storm.out" 2>&1 &
storm=$!
PIDS+=("$storm")
xfer_guest_send 10.0.2.2 "$SIZE"
xfer_guest_recv 10.0.2.2 "$SIZE"
wait "$storm" || fail "the storm itself failed: $(cat "$T/storm.out")"
frames=$(tail -1 "$T/storm.out")
[ "$frames" -gt 1000 ] || fail "the storm sent only $frames frames"
kill -0 "$SW_PID" || fail "slipway died in the storm"
sw_stats
dropped=0
for c in ETH_DROP_SHORT ETH_DROP_NOT_US ETH_DROP_ETHERTYPE IP4_DROP_BAD_HDR \
	IP4_DROP_BAD_LEN IP4_DROP_BAD_CSUM IP4_DROP_PROTO IP6_DROP_BAD_HDR \
	IP6_DROP_BAD_LEN TCP_DROP_BAD_HDR ARP_DROP_BAD; do
	dropped=$((dropped + $(ctr $c)))
done
[ "$dropped" -gt 100 ] || fail "only $dropped malformed frames counted of $frames sent"
# still serving: one more verified transfer after the storm
xfer_guest_send 10.0.2.2 16M
wait_flows_gone

# SYN flood to a listening host port, beside a long verified transfer
fp=$(free_port)
# a listener that takes every connection and holds it
bg "$PY" -c 'import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(4096)
held = []
while True:
    held.append(s.accept()[0])' "$fp"
wait_listen "$fp"
p=$(free_port)
bg "$SWVERIFY" server --listen "127.0.0.1:$p" --mode recv --bytes 2G --once \
	--ready-file "$T/fr"
srv=$LASTPID
wait_for "host server" 10 "[ -e $T/fr ]"
g "$SWVERIFY" client --connect "10.0.2.2:$p" --mode send --bytes 2G --timeout 120 \
	>"$T/fc.json" 2>&1 &
cli=$!
PIDS+=("$cli")
ip netns exec "$NS" "$PY" "$(dirname "$0")/storm.py" tap0 3 2 "$fp" >"$T/syn.out" 2>&1 ||
	fail "the SYN flood failed: $(cat "$T/syn.out")"
wait "$cli" || fail "the transfer beside the SYN flood: $(cat "$T/fc.json")"
wait "$srv" || fail "the host side of the transfer beside the SYN flood"
sw_stats
full=$(ctr TCP_FLOWS_TABLE_FULL)
[ "$full" -gt 0 ] || fail "a flood of $(tail -1 "$T/syn.out") SYNs never filled a table of 512"
# the half-open flows give up (SYN-ACK retries): new flows work again
t0=$(date +%s)
wait_for "the half-open flows to time out" 60 "sw_stats; [ \$(ctr TCP_FLOWS_ACTIVE) = 0 ]"
echo "the half-open flows were gone after $(($(date +%s) - t0)) s"
xfer_guest_send 10.0.2.2 16M
wait_flows_gone
stop_slipway
pass "storm: $frames random and mutated frames beside $SIZE each way (byte-exact), $dropped counted as malformed; a SYN flood of $(tail -1 "$T/syn.out"): $full refused at a full table, the transfer beside it byte-exact, new flows served after; still serving"

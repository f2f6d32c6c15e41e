#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_storm.sh - a malformed-frame storm from inside the guest (tests/integ/
# storm.py: random and mutated frames on a raw socket) runs beside
# payload-verified transfers both ways, which must complete byte-exact;
# slipway must count the garbage and keep serving.
. "$(dirname "$0")/lib.sh"
require_root
SIZE=${SIZE:-256M}
STORM_SECONDS=${STORM_SECONDS:-6}
start_slipway
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
stop_slipway
pass "storm: $frames random and mutated frames beside $SIZE each way (byte-exact), $dropped counted as malformed, still serving"

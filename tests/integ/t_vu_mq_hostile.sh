#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_vu_mq_hostile.sh - guest memory stays mapped while any shard reads it.
# A two-pair vhost-user VM (swvu: the namespace's stack) streams both ways
# over four connections (the guest's stack spreads them over the two
# pairs by their hashes), while its frontend
#  - remap: sends SET_MEM_TABLE again every 50 ms: the transfers finish
#    byte-exact (the memory is replaced only between the shards' batches);
#  - indirect: has pair 0 post a descriptor with the INDIRECT flag, which
#    closes the frontend's connection while pair 1 streams: slipway lives
#    (under ASan: no read of unmapped memory), and the next frontend is
#    served with a verified transfer.
#   HOSTILE_ROUNDS=N  indirect rounds (default 3; more nightly)
. "$(dirname "$0")/lib.sh"
require_root
: "${SWVU:?set SWVU to the swvu binary}"
HOSTILE_ROUNDS=${HOSTILE_ROUNDS:-3}
SIZE=${SIZE:-64M}

start_slipway_sock vhost-user --shards 2
make_ns "$NS"
g ip link set lo up

# start_vm [SWVU OPTIONS]: the namespace becomes a two-pair VM, addressed
start_vm() {
	ip netns exec "$NS" "$SWVU" --tap tap0 --socket "$SOCK" --queues 2 \
		"$@" >"$T/swvu.log" 2>&1 &
	VM_PID=$!
	PIDS+=("$VM_PID")
	wait_for "the VM's tap" 10 "ip -n $NS link show tap0 2>/dev/null | grep -q UP"
	g ip addr add 10.0.2.15/24 dev tap0
	g ip route add default via 10.0.2.2
}

# stop_vm: end swvu (if still running) and wait for its tap to go
stop_vm() {
	kill -TERM "$VM_PID" 2>/dev/null
	wait "$VM_PID" 2>/dev/null
	wait_for "the VM's tap gone" 10 "! ip -n $NS link show tap0 >/dev/null 2>&1"
}

# both_ways N: N connections each way at once, verified; returns non-zero
# if any failed (the caller decides whether that is expected)
both_ways() {
	local ps pr rc=0
	ps=$(free_port)
	pr=$(free_port)
	"$SWVERIFY" server --listen "127.0.0.1:$ps" --mode recv --conns "$1" \
		--ready-file "$T/rs$ps" >/dev/null 2>&1 &
	local s1=$!
	"$SWVERIFY" server --listen "127.0.0.1:$pr" --mode send --bytes "$SIZE" \
		--conns "$1" --ready-file "$T/rr$pr" >/dev/null 2>&1 &
	local s2=$!
	PIDS+=("$s1" "$s2")
	wait_for "host servers" 10 "[ -e $T/rs$ps ] && [ -e $T/rr$pr ]"
	g "$SWVERIFY" client --connect "10.0.2.2:$ps" --mode send --bytes "$SIZE" \
		--parallel "$1" --timeout 60 --stall "${STALL:-10}" >"$T/c1.json" 2>&1 &
	local c1=$!
	g "$SWVERIFY" client --connect "10.0.2.2:$pr" --mode recv --bytes "$SIZE" \
		--parallel "$1" --timeout 60 --stall "${STALL:-10}" >"$T/c2.json" 2>&1 || rc=1
	wait "$c1" || rc=1
	kill "$s1" "$s2" 2>/dev/null
	wait "$s1" "$s2" 2>/dev/null
	return $rc
}

# the memory table replaced under running queues: nothing lost
# why_stuck: what the rings and slipway say, for a failure's message
why_stuck() {
	kill -USR2 "$VM_PID" 2>/dev/null
	sleep 0.3
	sw_stats
	local c
	for c in EDGE_VU_PLACED EDGE_VU_PLACE_STALE EDGE_VU_RX_HELD EDGE_VU_RX_NOBUF \
		EDGE_VU_LOANS EDGE_VU_COPIES EDGE_VU_RETURNS TCP_RTO_FIRED \
		TCP_FAST_RETRANS EDGE_VU_MESSAGES; do
		printf '%s=%s ' "$c" "$(ctr $c)"
	done
	echo
	tail -20 "$T/swvu.log"
}

start_vm --misbehave remap --after 200
both_ways 2 || fail "transfers under SET_MEM_TABLE every 50 ms: $(cat "$T/c1.json" "$T/c2.json"; why_stuck)"
kill -0 "$SW_PID" || fail "slipway died while the memory table was replaced"
stop_vm
sw_stats
expect_ctr EDGE_VU_RING_ERRORS -eq 0
expect_ctr EDGE_VU_PROTO_ERRORS -eq 0
msgs=$(ctr EDGE_VU_MESSAGES)

# a ring broken on pair 0 while pair 1 streams: the frontend is dropped.
# The guest's stack picks a flow's pair by its hash, so all four
# connections may take pair 1, and pair 0 would never send the bad
# descriptor: a datagram from a new port every 50 ms makes sure pair 0
# sends frames too (to the host's loopback, port 9)
for i in $(seq "$HOSTILE_ROUNDS"); do
	start_vm --misbehave indirect --after $((100 + 100 * i))
	ip netns exec "$NS" "$PY" -c '
import socket, time
while True:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.sendto(b"x", ("10.0.2.2", 9))
    except OSError:
        pass
    s.close()
    time.sleep(0.05)' &
	udp=$!
	PIDS+=("$udp")
	SIZE=4G STALL=1 both_ways 2 && fail "round $i: the transfers survived a broken ring?"
	kill "$udp"
	wait "$udp" 2>/dev/null
	wait_for "swvu to see the backend close" 10 "! kill -0 $VM_PID 2>/dev/null"
	grep -q "backend closed" "$T/swvu.log" || fail "round $i: swvu: $(cat "$T/swvu.log")"
	kill -0 "$SW_PID" || fail "slipway died when pair 0 broke (round $i)"
	stop_vm
done
sw_stats
expect_ctr EDGE_VU_RING_ERRORS -eq "$HOSTILE_ROUNDS"
grep -q "broke the virtqueue rules" "$T/slipway.log" ||
	fail "no reason logged for the broken ring"

# and the next frontend is served
start_vm
both_ways 2 || fail "the next frontend: $(cat "$T/c1.json" "$T/c2.json")"
stop_vm
stop_slipway
expect_ctr EDGE_VU_COPIES -gt 0
[ "$(ctr EDGE_VU_RETURNS)" = $(($(ctr EDGE_VU_LOANS) + $(ctr EDGE_VU_COPIES))) ] ||
	fail "chains taken $(($(ctr EDGE_VU_LOANS) + $(ctr EDGE_VU_COPIES))), returned $(ctr EDGE_VU_RETURNS)"
pass "two pairs: $msgs control messages with the memory replaced mid-stream," \
	"$HOSTILE_ROUNDS broken rings on pair 0, the next frontend served"

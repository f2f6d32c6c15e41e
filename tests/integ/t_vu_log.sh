#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_vu_log.sh - dirty-page logging for live migration (vhost-user).
# A two-pair vhost-user VM (swvu --log: the namespace's stack) streams both
# ways over four connections, spread over the two pairs; mid-transfer it
# switches dirty logging on the way QEMU starts a migration (SET_LOG_BASE,
# then per pair SET_FEATURES with LOG_ALL and SET_VRING_ADDR with the log
# flag). Passes only if
#  - every guest page slipway wrote after that (receive buffers, used
#    rings) is marked in the log (swvu checks at exit: M not marked = 0),
#  - the transfers finish byte-exact, and no flow was reset on the way
#    (TCP_RST_GUEST_GONE 0: switching logging on must not look like a new
#    guest),
#  - no message was refused (EDGE_VU_PROTO_ERRORS 0), one log was mapped.
# Without LOG_ALL offered (the code before it), swvu --log ends at once.
. "$(dirname "$0")/lib.sh"
require_root
: "${SWVU:?set SWVU to the swvu binary}"
SIZE=${SIZE:-512M}
AFTER_MS=${AFTER_MS:-300}

start_slipway_sock vhost-user --shards 2
make_ns "$NS"
g ip link set lo up

ip netns exec "$NS" "$SWVU" --tap tap0 --socket "$SOCK" --queues 2 \
	--log --after "$AFTER_MS" >"$T/swvu.log" 2>&1 &
VM_PID=$!
PIDS+=("$VM_PID")
wait_for "the VM's tap" 10 "ip -n $NS link show tap0 2>/dev/null | grep -q UP || ! kill -0 $VM_PID 2>/dev/null"
kill -0 "$VM_PID" 2>/dev/null || fail "swvu --log: $(cat "$T/swvu.log")"
g ip addr add 10.0.2.15/24 dev tap0
g ip route add default via 10.0.2.2

# two connections each way at once, byte-checked by swverify
xfer_each_way "$SIZE"

# logging goes on while both transfers still run
wait_for "dirty logging on" 20 "grep -q 'dirty logging on' $T/swvu.log || ! kill -0 $VM_PID 2>/dev/null"
grep -q 'dirty logging on' "$T/swvu.log" || fail "swvu: $(cat "$T/swvu.log")"
kill -0 "$c1" 2>/dev/null && kill -0 "$c2" 2>/dev/null ||
	fail "a transfer ended before logging went on (raise SIZE)"

rc=0
wait "$c1" || rc=1
wait "$c2" || rc=1
[ $rc = 0 ] || fail "transfers with logging switched on: $(cat "$T/c1.json" "$T/c2.json"; tail -5 "$T/swvu.log")"
kill "$s1" "$s2" 2>/dev/null
wait "$s1" "$s2" 2>/dev/null

kill -0 "$SW_PID" || fail "slipway died"
kill -0 "$VM_PID" || fail "swvu ended: $(cat "$T/swvu.log")"
sw_stats
expect_ctr EDGE_VU_PROTO_ERRORS -eq 0
expect_ctr EDGE_VU_RING_ERRORS -eq 0
expect_ctr TCP_RST_GUEST_GONE -eq 0
expect_ctr EDGE_VU_LOG_BASES -eq 1
expect_ctr EDGE_VU_LOG_MARKS -gt 0
expect_ctr EDGE_VU_LOG_SKIPS -eq 0
marks=$(ctr EDGE_VU_LOG_MARKS)

# swvu checks the log at exit
kill -TERM "$VM_PID"
wait "$VM_PID"
vm_rc=$?
line=$(grep "swvu: log:" "$T/swvu.log" | tail -1)
[ "$vm_rc" = 0 ] || fail "swvu exited with $vm_rc: $(tail -5 "$T/swvu.log")"
[[ "$line" =~ ^swvu:\ log:\ ([0-9]+)\ pages\ written,\ ([0-9]+)\ not\ marked$ ]] ||
	fail "no log summary from swvu: $(tail -5 "$T/swvu.log")"
written=${BASH_REMATCH[1]}
missed=${BASH_REMATCH[2]}
[ "$missed" = 0 ] || fail "$missed of $written written pages not marked"
[ "$written" -gt 100 ] || fail "only $written pages written while logging"
wait_for "the VM's tap gone" 10 "! ip -n $NS link show tap0 >/dev/null 2>&1"
stop_slipway
pass "two pairs, $SIZE each way: logging switched on mid-transfer," \
	"$written pages written and all marked ($marks marks), no flow reset"

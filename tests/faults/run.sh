#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh - the fault matrix: every row of matrix.tsv, one after another,
# each on a slipway of its own with its faults injected by --impair (the
# same seeded stage on every edge: tap, vhost-user through tests/instruments/swvu, a
# stream socket through tests/instruments/swbridge). Each row moves SIZE bytes each
# way, payload-verified, then checks that every flow ended, that slipway
# holds no fd more than before, the integrity gates (rows that corrupt
# headers excepted: those are counted as bad headers on purpose) and the
# row's counter expectations. Ends with a table of the rows and their
# results.
#   ONLY=REGEX	rows whose name matches
#   SIZE=S	bytes each way (default 32M)
#   SEED=N	--impair-seed (default 1)
. "$(dirname "$0")/../integ/lib.sh"
require_root
MATRIX=$(dirname "$0")/matrix.tsv
ONLY=${ONLY:-}
SIZE=${SIZE:-32M}
SEED=${SEED:-1}
BR_PID=

# start_edge_guest EDGE [OPTIONS...]: slipway on a VM edge, the namespace
# $NS its guest through a bridge tool, addressed statically
start_edge_guest() {
	local edge=$1 kind tool args
	shift
	case $edge in
	vu)
		kind=vhost-user tool=${SWVU:?set SWVU} args=(--socket)
		set -- "$@" --shards 1
		;;
	stream) kind=stream tool=${SWBRIDGE:?set SWBRIDGE} args=(--stream) ;;
	esac
	start_slipway_sock "$kind" "$@"
	make_ns "$NS"
	g ip link set lo up
	ip netns exec "$NS" "$tool" --tap tap0 "${args[@]}" "$SOCK" \
		>"$T/bridge.log" 2>&1 &
	BR_PID=$!
	PIDS+=("$BR_PID")
	wait_for "the bridge's tap" 10 "ip -n $NS link show tap0 2>/dev/null | grep -q UP"
	g ip link set tap0 mtu 65520
	g ip addr add 10.0.2.15/24 dev tap0
	g ip route add default via 10.0.2.2
}

# expect LIST: every NAME>N / NAME=N condition holds; NO_LOSS_RESEND:
# expect_no_loss_resend (lib.sh)
expect() {
	local c name op val
	IFS=, read -ra conds <<<"$1"
	for c in "${conds[@]}"; do
		if [ "$c" = NO_LOSS_RESEND ]; then
			expect_no_loss_resend
			continue
		elif [[ $c == *'>'* ]]; then
			name=${c%%>*} op=-gt val=${c#*>}
		else
			name=${c%%=*} op=-eq val=${c#*=}
		fi
		expect_ctr "$name" "$op" "$val"
	done
}

results=()
n=0
while IFS=$'\t' read -r name edge impair exp what; do
	case $name in '' | '#'* | name) continue ;; esac
	[ -n "$ONLY" ] && ! [[ $name =~ $ONLY ]] && continue
	n=$((n + 1))
	NS="swt$$f$n"
	args=(--impair-seed "$SEED")
	[ "$impair" = - ] || for s in $impair; do args+=(--impair "$s"); done
	t0=$(date +%s.%N)
	if [ "$edge" = tap ]; then
		start_slipway "${args[@]}"
	else
		start_edge_guest "$edge" "${args[@]}"
	fi
	base=$(sw_fds)
	xfer_guest_send 10.0.2.2 "$SIZE"
	xfer_guest_recv 10.0.2.2 "$SIZE"
	wait_flows_gone
	expect_fds_back "$base"
	if [ -n "$BR_PID" ]; then
		kill "$BR_PID" 2>/dev/null
		wait "$BR_PID" 2>/dev/null
		BR_PID=
	fi
	stop_slipway
	[[ $impair == *corrupt* ]] || check_gates
	expect "$exp"
	secs=$(awk "BEGIN { print $(date +%s.%N) - $t0 }")
	results+=("$(printf '%-16s %-7s %6.1fs  dropped %s dup %s reordered %s corrupted %s; resent %s B, dup ACKs %s, held %s' \
		"$name" "$edge" "$secs" "$(ctr IMPAIR_DROPPED)" "$(ctr IMPAIR_DUPLICATED)" \
		"$(ctr IMPAIR_REORDERED)" "$(ctr IMPAIR_CORRUPTED)" "$(ctr TCP_RETRANS_BYTES)" \
		"$(ctr TCP_DUPACKS)" "$(ctr TCP_OOO_HELD)")")
	echo "ok $n $name ($edge): $what"
	ip netns del "$NS"
	rm -f "$T/stats.json"
done <"$MATRIX"
[ "$n" -gt 0 ] || fail "no row of $MATRIX matched '$ONLY'"
printf '%s\n' "${results[@]}"
pass "fault matrix: $n rows, $SIZE verified each way in every one, flows ended and fds back each time"

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

# udp_xfer IMPAIR: verified UDP streams each way with GSO sends
# (tests/instruments/swudp): the guest to a receiver on the host's
# 127.0.0.1, and the host's loopback to the guest through the published
# port $UPUB; whatever the link loses is allowed, a corrupt datagram never
# is, nor a duplicated or reordered one unless IMPAIR does that
udp_xfer() {
	local impair=$1 dir port rpid ok
	for dir in up down; do
		if [ "$dir" = up ]; then
			port=$(free_port)
			"${SWUDP:?set SWUDP}" recv "$port" --bind 127.0.0.1 --gro \
				>"$T/u-$dir.json" 2>"$T/u-$dir.err" &
			rpid=$!
			wait_for "host UDP $port" 10 "ss -Hlun 'sport = :$port' | grep -q ."
			g "$SWUDP" send 10.0.2.2 "$port" --seconds 1 --gso 20 \
				--rate 200 >"$T/u-$dir.send" 2>"$T/u-$dir.serr" ||
				fail "swudp send $dir: $(cat "$T/u-$dir.send")"
		else
			g "$SWUDP" recv "$UPUB" --gro >"$T/u-$dir.json" 2>"$T/u-$dir.err" &
			rpid=$!
			wait_for "guest UDP $UPUB" 10 "g ss -Hlun 'sport = :$UPUB' | grep -q ."
			"$SWUDP" send 127.0.0.1 "$UPUB" --seconds 1 --gso 20 \
				--rate 200 >"$T/u-$dir.send" 2>"$T/u-$dir.serr" ||
				fail "swudp send $dir: $(cat "$T/u-$dir.send")"
		fi
		reap "$rpid" 10
		ok=$("$PY" -c 'import json,sys
j = json.loads([l for l in open(sys.argv[1]) if l.startswith("{")][-1])
imp = sys.argv[2]
print(j["datagrams"] > 0 and j["corrupt"] == 0 and
      (j["dup"] == 0 or "dup" in imp) and
      (j["reordered"] == 0 or "reorder" in imp))' "$T/u-$dir.json" "$impair") ||
			fail "UDP $dir: no result: $(cat "$T/u-$dir.json")"
		[ "$ok" = True ] || fail "UDP $dir: $(cat "$T/u-$dir.json")"
		UDP_RES+=" $dir $(json_last "$T/u-$dir.json" datagrams)/$(json_last "$T/u-$dir.send" datagrams)"
	done
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
	UPUB=$(free_port)
	UDP_RES=
	[[ $name == udp-* ]] &&
		args+=(--no-splice --udp-timeout 1 -u "127.0.0.1/$UPUB:$UPUB")
	if [ "$edge" = tap ]; then
		start_slipway "${args[@]}"
	else
		start_edge_guest "$edge" "${args[@]}"
	fi
	base=$(sw_fds)
	if [[ $name == udp-* ]]; then
		udp_xfer "$impair"
	else
		xfer_guest_send 10.0.2.2 "$SIZE"
		xfer_guest_recv 10.0.2.2 "$SIZE"
	fi
	wait_flows_gone
	expect_fds_back "$base"
	if [ -n "$BR_PID" ]; then
		kill "$BR_PID" 2>/dev/null
		wait "$BR_PID" 2>/dev/null
		BR_PID=
	fi
	stop_slipway
	[[ $impair == *corrupt* || $impair == *gso* ]] || check_gates
	expect "$exp"
	secs=$(awk "BEGIN { print $(date +%s.%N) - $t0 }")
	results+=("$(printf '%-16s %-7s %6.1fs  dropped %s dup %s reordered %s corrupted %s; resent %s B, dup ACKs %s, held %s' \
		"$name" "$edge" "$secs" "$(ctr IMPAIR_DROPPED)" "$(ctr IMPAIR_DUPLICATED)" \
		"$(ctr IMPAIR_REORDERED)" "$(ctr IMPAIR_CORRUPTED)" "$(ctr TCP_RETRANS_BYTES)" \
		"$(ctr TCP_DUPACKS)" "$(ctr TCP_OOO_HELD)")${UDP_RES:+; UDP received/sent:$UDP_RES}")
	echo "ok $n $name ($edge): $what"
	ip netns del "$NS"
	rm -f "$T/stats.json"
done <"$MATRIX"
[ "$n" -gt 0 ] || fail "no row of $MATRIX matched '$ONLY'"
printf '%s\n' "${results[@]}"
pass "fault matrix: $n rows, $SIZE (TCP) or a UDP stream verified each way in every one, flows ended and fds back each time"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# offload.sh - the offload matrix: segmentation and checksum offloads on
# and off, on each side, at MTU 1500, 9000 and 65520, each direction, on
# each edge that has them (tap; vhost-user through tests/instruments/swvu) and on the
# stream edge, which has none. Every case moves SIZE bytes each way,
# payload-verified, and fails if a transfer goes quiet for more than a
# second (an offload bug shows as a stall or a collapse, not a crash),
# and if anything was dropped or resent on this clean link.
#   SIZE=S	bytes each way (default 16M)
#   ONLY=REGEX	cases whose name matches
. "$(dirname "$0")/../integ/lib.sh"
require_root
command -v ethtool >/dev/null || fail "ethtool is missing (tools/deps.sh)"
SIZE=${SIZE:-16M}
ONLY=${ONLY:-}
BR_PID=

# xfer DIR: SIZE bytes, guest->host (up) or host->guest (down), verified,
# no second without progress
xfer() {
	local p mode_h=recv mode_g=send
	[ "$1" = down ] && mode_h=send mode_g=recv
	p=$(free_port)
	bg "$SWVERIFY" server --listen "127.0.0.1:$p" --mode $mode_h --bytes "$SIZE" \
		--once --ready-file "$T/r$p"
	wait_for "host server" 10 "[ -e $T/r$p ]"
	g "$SWVERIFY" client --connect "10.0.2.2:$p" --mode $mode_g --bytes "$SIZE" \
		--timeout 60 --stall 1 >"$T/c$p.json" 2>&1 ||
		fail "$case $1: $(cat "$T/c$p.json")"
	wait "$LASTPID" || fail "$case $1: the host side failed"
}

# run_case NAME EDGE MTU SW_OFFLOAD GUEST_OFFLOAD
run_case() {
	local edge=$2 mtu=$3 swoff=$4 goff=$5 args=(-m "$3") tool
	case=$1
	[ -n "$ONLY" ] && ! [[ $case =~ $ONLY ]] && return 0
	n=$((n + 1))
	NS="swt$$o$n"
	[ "$swoff" = off ] && args+=(--no-offload)
	case $edge in
	tap) start_slipway "${args[@]}" ;;
	vu | stream)
		if [ "$edge" = vu ]; then
			start_slipway_sock vhost-user "${args[@]}" --shards 1
			tool=("$SWVU" --socket "$SOCK")
			[ "$goff" = off ] && tool+=(--no-offload)
		else
			start_slipway_sock stream "${args[@]}"
			tool=("$SWBRIDGE" --stream "$SOCK")
		fi
		make_ns "$NS"
		g ip link set lo up
		ip netns exec "$NS" "${tool[@]}" --tap tap0 --mtu "$mtu" \
			>"$T/bridge.log" 2>&1 &
		BR_PID=$!
		PIDS+=("$BR_PID")
		wait_for "the bridge's tap" 10 "ip -n $NS link show tap0 2>/dev/null | grep -q UP"
		g ip addr add 10.0.2.15/24 dev tap0
		g ip route add default via 10.0.2.2
		;;
	esac
	if [ "$edge" = tap ]; then
		g ethtool -K tap0 tso "$goff" gso "$goff" gro "$goff" 2>/dev/null ||
			fail "$case: ethtool -K tap0 in the guest"
	fi
	xfer up
	xfer down
	wait_flows_gone
	if [ -n "$BR_PID" ]; then
		kill "$BR_PID" 2>/dev/null
		wait "$BR_PID" 2>/dev/null
		BR_PID=
	fi
	stop_slipway
	check_gates
	expect_no_loss_resend
	expect_ctr EDGE_TX_DROPPED -eq 0
	expect_ctr EDGE_VU_RX_NOBUF -eq 0
	results+=("$(printf '%-28s gso frames from guest %6s, to guest %6s' "$case" \
		"$(ctr EDGE_RX_GSO_FRAMES)" "$(ctr TCP_TX_GSO_FRAMES)")")
	ip netns del "$NS"
	rm -f "$T/stats.json"
}

results=()
n=0
for mtu in 1500 9000 65520; do
	for sw in on off; do
		for gu in on off; do
			run_case "tap-mtu$mtu-sw$sw-guest$gu" tap $mtu $sw $gu
		done
		run_case "vu-mtu$mtu-sw$sw-guest$sw" vu $mtu $sw $sw
	done
	run_case "stream-mtu$mtu" stream $mtu on on
done
[ "$n" -gt 0 ] || fail "no case matched '$ONLY'"
printf '%s\n' "${results[@]}"
pass "offload matrix: $n cases, $SIZE verified each way, no quiet second, nothing dropped or resent"

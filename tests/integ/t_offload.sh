#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_offload.sh - offload negotiation on the tap, and GSO both ways
#
# For each setting, slipway serves a fresh namespace; ethtool -k on the
# guest's tap0 must show what slipway set with TUNSETOFFLOAD, and a
# payload-verified transfer runs each way (guest -> host loopback, host ->
# guest over a guest-opened flow). Then the counters and the guest tap's
# own statistics must show GSO both ways, or none:
# - guest -> host: EDGE_RX_GSO_FRAMES (frames read with a GSO type), and
#   the tap's tx average frame size above the MTU;
# - host -> guest: TCP_TX_GSO_FRAMES (super-frames written), and the tap's
#   rx average frame size above the MTU (tun counts one packet per write).
# At the default MTU of 65520 one segment (MSS 65480) nearly fills the
# 64 KiB a frame can hold: the guest's kernel then sends no GSO frames, and
# ours carry at most 15 bytes past the MSS. That case asserts the offload
# flags and the transfers only; MTU 1500 is where GSO must happen.
. "$(dirname "$0")/lib.sh"
require_root
SIZE=${SIZE:-256M}
command -v ethtool >/dev/null || fail "ethtool is missing (tools/deps.sh)"

# feature NAME: "on" or "off" for one line of ethtool -k on the guest's tap
feature() {
	g ethtool -k tap0 | "$PY" -c '
import sys
for l in sys.stdin:
    k, _, v = l.strip().partition(": ")
    if k == sys.argv[1]:
        print(v.split()[0]); break
else:
    print("missing")' "$1"
}

# tapstat NAME: one statistic of the guest's tap0
tapstat() {
	g cat "/sys/class/net/tap0/statistics/$1"
}

# transfer DIR: SIZE bytes, payload-verified; DIR is up (guest -> host) or
# down (host -> guest); sets AVG to the guest tap's average frame size in
# the direction of the data during the transfer
transfer() {
	local dir=$1 p b0 n0 b1 n1 st smode cmode
	p=$(free_port)
	if [ "$dir" = up ]; then
		st=tx
		smode=recv
		cmode=send
	else
		st=rx
		smode=send
		cmode=recv
	fi
	bg "$SWVERIFY" server --listen "127.0.0.1:$p" --mode "$smode" \
		--bytes "$SIZE" --once --ready-file "$T/ready.$p"
	wait_for "host server" 10 "[ -e $T/ready.$p ]"
	b0=$(tapstat "${st}_bytes")
	n0=$(tapstat "${st}_packets")
	g "$SWVERIFY" client --connect "10.0.2.2:$p" --mode "$cmode" \
		--bytes "$SIZE" --timeout 120 >"$T/c.$p.json" ||
		fail "$CASE: $dir transfer: $(cat "$T/c.$p.json")"
	wait "$LASTPID" || fail "$CASE: host side of the $dir transfer failed"
	b1=$(tapstat "${st}_bytes")
	n1=$(tapstat "${st}_packets")
	AVG=$(((b1 - b0) / (n1 - n0)))
	GBPS=$(json_last "$T/c.$p.json" gbps)
}

# run_case NAME OFFLOAD(on|off) MTU [OPTIONS...]: one setting, checked
run_case() {
	CASE=$1
	local want=$2 mtu=$3 f up down
	shift 3
	NS="swt$$$CASE"
	rm -f "$T/stats.json" # a stale file must not pass for this case's
	start_slipway "$@"
	for f in tx-checksumming tcp-segmentation-offload; do
		[ "$(feature $f)" = "$want" ] ||
			fail "$CASE: ethtool -k tap0 says $f: $(feature $f), expected $want"
	done
	[ "$(g cat /sys/class/net/tap0/mtu)" = "$mtu" ] || fail "$CASE: MTU"
	transfer up
	up=$AVG
	local gup=$GBPS
	transfer down
	down=$AVG
	local gdown=$GBPS
	for st in tx_dropped rx_dropped tx_errors rx_errors; do
		v=$(tapstat $st)
		[ "$v" = 0 ] || fail "$CASE: guest tap0 $st = $v"
	done
	stop_slipway
	ip netns del "$NS" 2>/dev/null
	check_gates
	expect_ctr TCP_GUEST_BYTES -ge "$(bytes_of "$SIZE")"
	expect_ctr TCP_ACKED_BYTES -ge "$(bytes_of "$SIZE")"
	expect_ctr TCP_FLOWS_CLOSED -eq 2
	echo "$CASE: guest->host $gup Gbit/s, average frame $up bytes;" \
		"host->guest $gdown Gbit/s, average frame $down bytes;" \
		"GSO frames in $(ctr EDGE_RX_GSO_FRAMES), out $(ctr TCP_TX_GSO_FRAMES)"
	UP_AVG=$up
	DOWN_AVG=$down
}

# bytes_of SIZE: SIZE with a K/M/G suffix in bytes
bytes_of() {
	"$PY" -c "import sys;u={'K':1<<10,'M':1<<20,'G':1<<30};s=sys.argv[1];print(int(s[:-1])*u[s[-1]] if s[-1] in u else int(s))" "$1"
}

# the largest frame an MTU allows on the tap, Ethernet header included
frame_max() {
	echo $(($1 + 14))
}

# 1. defaults: offloads on, MTU 65520
run_case default on 65520
expect_ctr VNET_DROP_BAD_HDR -eq 0

# 2. MTU 1500, offloads on: GSO both ways, frames above the MTU both ways
run_case mtu1500 on 1500 -m 1500 --ack-every 2
expect_ctr EDGE_RX_GSO_FRAMES -gt 0
expect_ctr TCP_TX_GSO_FRAMES -gt 0
# --ack-every 2: a TSO frame of more than 2920 bytes is ACKed as soon as
# the socket takes it
expect_ctr TCP_ACKS_MIDBATCH -gt 0
[ "$UP_AVG" -gt "$(frame_max 1500)" ] ||
	fail "mtu1500: guest->host frames average $UP_AVG bytes: no TSO from the guest"
[ "$DOWN_AVG" -gt "$(frame_max 1500)" ] ||
	fail "mtu1500: host->guest frames average $DOWN_AVG bytes: no GSO toward the guest"

# 3. --no-offload: offloads off, no GSO either way, frames within the MTU
for m in 65520 1500; do
	run_case "nooffload$m" off "$m" --no-offload -m "$m"
	expect_ctr EDGE_RX_GSO_FRAMES -eq 0
	expect_ctr TCP_TX_GSO_FRAMES -eq 0
	[ "$UP_AVG" -le "$(frame_max "$m")" ] ||
		fail "nooffload$m: guest->host frames average $UP_AVG bytes, above the MTU"
	[ "$DOWN_AVG" -le "$(frame_max "$m")" ] ||
		fail "nooffload$m: host->guest frames average $DOWN_AVG bytes, above the MTU"
done
pass "offloads on and off as asked; GSO both ways at MTU 1500 only with offloads; $SIZE verified each way in 4 settings"

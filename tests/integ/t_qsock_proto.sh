#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_qsock_proto.sh - the socket edges' framing, good and bad, spoken by a
# synthetic guest (qpeer.py): a stream peer with a split frame, an
# over-limit length, a truncated frame, 2000 garbage frames and a second
# connection; a datagram peer with vfkit's greeting, empty, short,
# oversized and garbage datagrams, and a new peer taking over. After each
# case slipway still answers, and the counters say what happened.
. "$(dirname "$0")/lib.sh"
require_root
QP="$PY $(dirname "$0")/../instruments/qpeer.py"

start_slipway_sock stream
for c in arp split bad-len arp truncated arp garbage refused arp; do
	$QP "$c" "$SOCK" || fail "stream case $c"
done
sw_stats
expect_ctr EDGE_BAD_FRAMING -eq 1
expect_ctr EDGE_REFUSED -eq 1
# arp split bad-len arp truncated arp garbage refused(+1 refused) arp
expect_ctr EDGE_CONNECTS -eq 9
expect_ctr EDGE_DISCONNECTS -eq 9
expect_ctr ARP_REPLIES -eq 8
expect_ctr EDGE_RX_ERRORS -eq 0
expect_ctr EDGE_TX_ERRORS -eq 0
# the garbage was dropped by the parsers, counted
[ $(($(ctr ETH_DROP_SHORT) + $(ctr ETH_DROP_ETHERTYPE) + $(ctr ARP_DROP_BAD) +
     $(ctr IP4_DROP_BAD_HDR) + $(ctr ETH_DROP_NOT_US))) -ge 1000 ] ||
	fail "garbage frames were not counted as drops"
grep -q "frame length over" "$T/slipway.log" || fail "no reason logged for the close"
stop_slipway
[ -e "$SOCK" ] && fail "the socket file was left behind"

# a socket file whose server died is replaced; a live one is refused
"$PY" -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$T/sw.sock"
start_slipway_sock dgram
"$SLIPWAY" --dgram "$SOCK" >"$T/second.log" 2>&1 && fail "a second slipway took a served path"
grep -q "in use" "$T/second.log" || fail "no clear message for a path in use"
$QP dgram "$SOCK" "$T/peer1.sock" || fail "dgram"
$QP vfkit "$SOCK" "$T/peer2.sock" || fail "vfkit"
$QP dgram-bad "$SOCK" "$T/peer3.sock" || fail "dgram-bad"
$QP dgram "$SOCK" "$T/peer1.sock" || fail "dgram again"
sw_stats
expect_ctr EDGE_VFKIT_HELLO -eq 1
expect_ctr EDGE_RX_DROP_SIZE -eq 1
expect_ctr EDGE_CONNECTS -eq 4
expect_ctr EDGE_DISCONNECTS -ge 3
expect_ctr ARP_REPLIES -eq 4
expect_ctr ETH_DROP_SHORT -eq 2
expect_ctr EDGE_RX_ERRORS -eq 0
stop_slipway

# --fd: a launcher's socketpair; slipway ends with it
$QP fd "$SLIPWAY" "$T/resolv.conf" 2>"$T/fd.log" || { cat "$T/fd.log"; fail "--fd"; }
# ...as QEMU's -netdev passt and muvm hand it (fd 3), with a TCP connection
# to the host open when it closes: slipway exits 0 and the host side ends
$QP fd-flow "$SLIPWAY" "$T/resolv.conf" 2>"$T/fd.log" ||
	{ cat "$T/fd.log"; fail "--fd 3 with a flow open"; }

# bad command lines
"$SLIPWAY" --stream "$T/x" --dgram "$T/y" 2>/dev/null; [ $? = 2 ] || fail "two edges accepted"
"$SLIPWAY" --stream "$T/x" --shards 2 2>/dev/null; [ $? = 2 ] || fail "--shards 2 with a socket edge accepted"
"$SLIPWAY" --stream "$T/x" -- true 2>/dev/null; [ $? = 2 ] || fail "COMMAND with a socket edge accepted"
"$SLIPWAY" --fd 0 </dev/null 2>/dev/null; [ $? = 1 ] || fail "--fd of a non-socket accepted"
"$SLIPWAY" --stream /nonexistent/dir/s.sock 2>"$T/err"; [ $? = 1 ] || fail "unbindable path"
grep -q "cannot bind" "$T/err" || fail "no clear message for an unbindable path"
pass "stream and datagram framing, malformed peers, takeover, vfkit greeting, --fd (also on fd 3 with a flow open)"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_vu_proto.sh - the vhost-user edge against a synthetic frontend
# (vupeer.py, guest memory in a memfd): a full set-up moves an ARP request
# and its reply through the rings and gets its transmit chain back; then
# every kind of bad message or ring closes that frontend's connection with
# a logged reason, while slipway keeps serving the next one: a memory
# region past the end of its memfd, too many fds (none kept); and a
# message sent in halves holds up neither the data path nor itself. A
# frontend already connected on --fd 3 (QEMU 10.1 -netdev passt) is served
# the same way, and its leaving ends slipway.
. "$(dirname "$0")/lib.sh"
require_root
VP="$PY $(dirname "$0")/../instruments/vupeer.py"

start_slipway_sock vhost-user --shards 1
bad="unknown oversized badsize badfd badfeatures badversion memfds ringout loop badhead"
for c in arp refused $bad shortmem slowmsg fdspam arp; do
	timeout 30 $VP "$c" "$SOCK" || fail "vhost-user case $c"
done
sw_stats
expect_ctr EDGE_VU_PROTO_ERRORS -eq 11
expect_ctr EDGE_VU_RING_ERRORS -eq 2
expect_ctr EDGE_REFUSED -eq 1
expect_ctr ARP_REPLIES -eq 8
# an ARP frame is parsed: copied out of guest memory whole, never loaned
expect_ctr EDGE_VU_LOANS -eq 0
expect_ctr EDGE_VU_COPIES -eq 8
expect_ctr EDGE_VU_RETURNS -eq 8
expect_ctr EDGE_CONNECTS -eq 19
expect_ctr EDGE_DISCONNECTS -eq 19
expect_ctr EDGE_RX_ERRORS -eq 0
for why in "a request we do not know" "an oversized message" "wrong size" \
	"file descriptors where none belong" "features we did not offer" \
	"another protocol version" "regions and fds do not match" \
	"a ring outside guest memory" "broke the virtqueue rules" \
	"past its file's end" "more file descriptors than a message may bring"; do
	grep -q "$why" "$T/slipway.log" || fail "no logged reason '$why'"
done
stop_slipway
# QEMU 10.1 -netdev passt,vhost-user=on: the frontend is already connected
# on fd 3 (--vhost-user --fd 3); when it leaves, slipway exits 0
timeout 30 $VP fd "$SLIPWAY" --stats-file "$T/stats.json" \
	--resolv-conf "$T/resolv.conf" >"$T/fd.log" 2>&1 ||
	fail "vhost-user --fd: $(cat "$T/fd.log")"
expect_ctr EDGE_CONNECTS -eq 1
expect_ctr EDGE_DISCONNECTS -eq 1
expect_ctr ARP_REPLIES -eq 1
expect_ctr EDGE_VU_PROTO_ERRORS -eq 0
"$SLIPWAY" --vhost-user --fd 0 </dev/null >"$T/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "not a unix stream socket" "$T/out" ||
	fail "--vhost-user --fd on a file: exit $rc: $(cat "$T/out")"
"$SLIPWAY" --vhost-user --fd 3 --stream "$T/y" 2>/dev/null; [ $? = 2 ] || fail "--vhost-user --fd with --stream accepted"
"$SLIPWAY" --vhost-user "$T/x" --stream "$T/y" 2>/dev/null; [ $? = 2 ] || fail "two edges accepted"
pass "vhost-user: rings move frames and give chains back; 12 kinds of bad frontend closed with a reason, slipway serving on; a half message stalls nothing; --vhost-user --fd 3 served, exit 0 when the frontend leaves"

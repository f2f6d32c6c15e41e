#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_splice_pipes.sh - when the pipe memory of slipway's user is used up
# (fs.pipe-user-pages-soft: its new pipes get two pages, and cannot grow),
# loopback clients of published ports go through the tap instead of being
# spliced 8 KiB at a time at several times the CPU (docs/experiments.md
# X23): the bytes are verified, the fallback is counted and the warning
# says what to raise; with the limit back, clients are spliced again.
# The limit is machine-wide: it is restored on exit, and integration tests
# run one at a time (slipway drops CAP_SYS_RESOURCE, so only it is held).
. "$(dirname "$0")/lib.sh"
require_root
soft=$(cat /proc/sys/fs/pipe-user-pages-soft)
restore() { echo "$soft" >/proc/sys/fs/pipe-user-pages-soft; }
trap 'restore; cleanup' EXIT

make_host_ns swh

# transfer PORT: 16 MiB from H's loopback to the guest's verifier
transfer() {
	g "$SWVERIFY" server --listen 0.0.0.0:"$1" --mode recv --bytes 16M --once \
		--ready-file "$T/r$1" >"$T/s$1.json" &
	local s=$!
	PIDS+=($s)
	wait_for "guest verifier" 10 "[ -e $T/r$1 ]"
	h "$SWVERIFY" client --connect 127.0.0.1:"$1" --mode send --bytes 16M \
		--timeout 60 >"$T/c$1.json" || fail "send to port $1: $(cat "$T/c$1.json")"
	wait "$s" || fail "guest did not verify the bytes on port $1"
}

echo 64 >/proc/sys/fs/pipe-user-pages-soft
launch_slipway "$H" -t 5001 -t 5002
transfer 5001
restore
transfer 5002
stop_slipway
check_gates
# the first client fell back (its pipes came out small); the second, with
# the limit restored, also went through the tap (new clients take it for
# 10 s after pipes were short): both are published-port flows, none spliced
expect_ctr SPLICE_FALLBACKS -eq 2
expect_ctr SPLICE_OPENED -eq 0
expect_ctr TCP_FLOWS_OPENED_HOST -eq 2
[ "$(json_last "$T/s5001.json" peer | cut -d: -f1)" = 10.0.2.2 ] ||
	fail "the fallback connection came from $(json_last "$T/s5001.json" peer), not the gateway"
grep -q "pipe-user-pages-soft" "$T/slipway.log" ||
	fail "no warning naming fs.pipe-user-pages-soft: $(tail -5 "$T/slipway.log")"

# a new gateway with the limit back: spliced, as before
launch_slipway "$H" -t 5003
transfer 5003
stop_slipway
expect_ctr SPLICE_OPENED -eq 1
expect_ctr SPLICE_FALLBACKS -eq 0
expect_ctr SPLICE_PIPE_SMALL -eq 0
pass "a loopback client whose pipes came out small went through the tap, counted and explained; spliced again with the limit back"

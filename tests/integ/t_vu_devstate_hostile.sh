#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_vu_devstate_hostile.sh - the vhost-user device-state channel against a
# hostile frontend (vupeer.py's ds-* cases; states written by swmig).
# slipway runs with --migrate-repair alone, so it offers DEVICE_STATE, in a
# host namespace of the test's own. Each case gets a slipway of its own:
#  - ds-running: a LOAD while the rings run is refused at once, and one
#    after they ran (stopped) through CHECK; nothing imported;
#  - ds-load-save: LOAD, then SAVE (refused), then the rings start: the
#    loaded flow comes in once, slipway lives and exits 0;
#  - ds-twice (2,000 flows): LOAD, a second LOAD before the rings run, a
#    third while they run: only the first taken, its 2,000 flows in once,
#    no crash (no ASan report in that build), exit 0;
#  - ds-leave-check: the frontend leaves while its CHECK waits for a LOAD
#    still under way: SIGTERM ends slipway within 1 s, status 0;
#  - ds-stall: a LOAD whose pipe is never closed: CHECK says failure after
#    the 10 s read deadline, and SIGTERM ends slipway within 1 s.
# ds-load is the positive control: a LOAD before the rings is taken.
#   CASES="ds-twice ds-stall"  runs only those
. "$(dirname "$0")/lib.sh"
require_root
: "${SWMIG:?set SWMIG to the swmig binary}"
VP="$PY $(dirname "$0")/../instruments/vupeer.py"

make_host_ns swdh
# one repair flow whose send queue holds bytes of the frontend's choosing;
# 2,000 plain ones (the peer: the namespace's 127.0.0.1:9, nobody there)
"$SWMIG" --local 127.0.0.1:8022 --remote 10.0.2.2:9 \
	--sndq INJECTED-BY-FRONTEND "$T/one.bin" 2>/dev/null ||
	fail "swmig: one flow"
"$SWMIG" --flows 2000 --remote 10.0.2.2:9 "$T/many.bin" 2>/dev/null ||
	fail "swmig: 2,000 flows"

# ds_start: a slipway of its own for the next case, in H
ds_start() {
	rm -f "$T/sw.sock" "$T/stats.json"
	SOCK=$T/sw.sock
	ip netns exec "$H" "$SLIPWAY" --vhost-user "$SOCK" --migrate-repair \
		--shards 2 --stats-file "$T/stats.json" \
		--resolv-conf "$T/resolv.conf" >"$T/slipway.log" 2>&1 &
	SW_PID=$!
	PIDS+=("$SW_PID")
	wait_for "the vhost-user socket" 10 "[ -S $SOCK ] || ! kill -0 $SW_PID"
	kill -0 "$SW_PID" 2>/dev/null || fail "slipway: $(tail -3 "$T/slipway.log")"
	wait_started
}

# ds_case CASE STATE: the case against a fresh slipway, its output kept
ds_case() {
	ds_start
	timeout 60 $VP "$1" "$SOCK" "$2" >"$T/$1.out" 2>&1 ||
		fail "vupeer $1: $(cat "$T/$1.out")"
	cat "$T/$1.out"
}

# ds_end: slipway stops on SIGTERM with status 0, and no sanitizer spoke
ds_end() {
	stop_slipway
	no_asan
}

# ds_gone: slipway ended on the case's SIGTERM: status 0, no sanitizer
ds_gone() {
	local rc
	reap "$SW_PID" 2
	rc=$?
	[ "$rc" = 0 ] || fail "slipway ended with status $rc after SIGTERM"
	no_asan
}

no_asan() {
	! grep -q "Sanitizer" "$T/slipway.log" ||
		fail "a sanitizer report: $(grep -A5 Sanitizer "$T/slipway.log" | head -20)"
}

# want CASE: CASE is to run (CASES="ds-twice ds-stall" runs those alone)
want() {
	[ -z "${CASES:-}" ] || [[ " $CASES " == *" $1 "* ]]
}

# the positive control: a LOAD before any ring is taken, its flow comes in
if want ds-load; then
	ds_case ds-load "$T/one.bin"
	ds_end
	expect_ctr MIG_TCP_IN -eq 1
fi

if want ds-running; then
	ds_case ds-running "$T/one.bin"
	grep -q "the device runs: a state loads only before it starts" \
		"$T/slipway.log" ||
		fail "no reason logged for the LOAD while the rings run"
	grep -q "the VM ran here already" "$T/slipway.log" ||
		fail "no reason logged for the LOAD after the rings ran"
	ds_end
	expect_ctr MIG_TCP_IN -eq 0
	expect_ctr MIG_TCP_REFUSED -eq 0
fi

if want ds-load-save; then
	ds_case ds-load-save "$T/one.bin"
	grep -q "a device state SAVE refused" "$T/slipway.log" ||
		fail "no reason logged for the SAVE after a LOAD"
	ds_end
	expect_ctr MIG_TCP_IN -eq 1
fi

if want ds-twice; then
	ds_case ds-twice "$T/many.bin"
	grep -q "a second device state LOAD refused" "$T/slipway.log" ||
		fail "no reason logged for the second LOAD"
	ds_end
	expect_ctr MIG_TCP_IN -eq 2000
fi

if want ds-leave-check; then
	ds_case ds-leave-check "$T/one.bin"
	ds_gone
fi

if want ds-stall; then
	ds_case ds-stall "$T/one.bin"
	grep -q "did not send the state and close its end" "$T/slipway.log" ||
		fail "no reason logged for the stalled LOAD"
	ds_gone
fi

pass "device state: LOADs on a running gateway, twice, or before a SAVE refused with a reason, the state taken once (2,000 flows: no crash); a frontend gone during CHECK or a pipe never closed holds nothing: SIGTERM ends slipway within 1 s"

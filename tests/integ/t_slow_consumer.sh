#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_slow_consumer.sh - head-of-line protection: one flow's reader stops
# (SIGSTOP) in the middle of a transfer while a second flow runs. The
# second must keep moving at a good part of the rate it has alone,
# slipway's memory must stay bounded, and the stopped flow, once its
# reader goes on (SIGCONT), must end byte-exact. Both directions: a host
# reader stopped under guest->host traffic, a guest reader stopped under
# host->guest traffic.
. "$(dirname "$0")/lib.sh"
require_root
SIZE=${SIZE:-256M}
start_slipway

rss_kb() {
	awk '/^VmRSS:/ { print $2 }' "/proc/$SW_PID/status"
}

# rate FILE: a swverify JSON line's Gbit/s
rate() {
	"$PY" -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().splitlines()[-1])["gbps"])' "$1"
}

# second DIR: the second flow, SIZE bytes verified in direction DIR; its
# rate is then in "$T/xc$XFER_PORT.json"
second() {
	if [ "$1" = up ]; then
		xfer_guest_send 10.0.2.2 "$SIZE"
	else
		xfer_guest_recv 10.0.2.2 "$SIZE"
	fi
}

# one DIR: DIR up (guest sends, host reads) or down (host sends, guest reads)
one() {
	local dir=$1 pa stopped ha ga srv_mode=recv cli_mode=send base during rss0 rss1
	[ "$dir" = down ] && srv_mode=send cli_mode=recv
	# the second flow alone: its rate
	second "$dir"
	base=$(rate "$T/xc$XFER_PORT.json")

	# the first flow, whose reader stops
	pa=$(free_port)
	bg "$SWVERIFY" server --listen "127.0.0.1:$pa" --mode $srv_mode --bytes 4G \
		--once --seed 1 --ready-file "$T/a$dir"
	ha=$LASTPID
	wait_for "server" 10 "[ -e $T/a$dir ]"
	ip netns exec "$NS" "$SWVERIFY" client --connect "10.0.2.2:$pa" --mode $cli_mode \
		--bytes 4G --seed 1 --timeout 0 >"$T/a$dir.json" 2>&1 &
	ga=$!
	PIDS+=("$ga")
	sleep 0.2
	if [ "$dir" = up ]; then stopped=$ha; else stopped=$ga; fi
	kill -STOP "$stopped"
	sleep 0.5
	rss0=$(rss_kb)
	second "$dir"
	during=$(rate "$T/xc$XFER_PORT.json")
	rss1=$(rss_kb)
	kill -CONT "$stopped"
	wait "$ga" || fail "$dir: the stopped flow did not end byte-exact: $(cat "$T/a$dir.json")"
	wait "$ha" || fail "$dir: the stopped flow's host side failed"
	"$PY" -c 'import sys; b, d = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if d >= 0.25 * b else 1)' \
		"$base" "$during" || fail "$dir: the second flow ran at $during Gbit/s beside a stopped one, $base alone"
	[ $((rss1 - rss0)) -lt 65536 ] ||
		fail "$dir: slipway grew from $rss0 to $rss1 KiB while a reader was stopped"
	echo "$dir: second flow $during Gbit/s beside a stopped reader ($base alone); RSS $rss0 -> $rss1 KiB; the stopped flow resumed, 4 GiB verified"
}

one up
one down
wait_flows_gone
stop_slipway
check_gates
pass "slow consumer: a stopped reader holds up no other flow, memory bounded, resumed byte-exact, both directions"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_qemu_migrate.sh - live migration of a stock Linux VM (QEMU 7.2 under
# TCG, two queue pairs, vhost-user) from slipway A to slipway B. The guest
# runs a paced, checksummed transfer each way at once (sw.par; its receive
# side sends a newline a second, sw.get_tick), holds an idle connection to
# the host (sw.idle) and serves a published port (sw.listen); the source
# QEMU is migrated to a destination QEMU started with -incoming, whose
# backend is B.
#
# MODE=handover: A has --migrate-to PATH, B --migrate-from PATH. The
#   migration completes; both transfers complete byte-exact, the idle
#   connection still answers, the published port reaches the guest
#   through B; A exits by itself with status 0 and its gates hold.
# MODE=nostate: neither option. The migration completes; the guest's
#   transfers end by a reset well before their timeout, the host ends of
#   all three connections are told (reset or EOF), both slipways run on
#   and exit cleanly with their gates held.
# MODE=abort: the migration is slowed (max-bandwidth) and its destination
#   QEMU killed halfway: query-migrate says failed and the source goes on:
#   both transfers complete byte-exact through A, the idle connection and
#   the published port answer. (With --migrate-to/--migrate-from when
#   slipway has them: an aborted migration must not hand anything over.)
# MODE=cancel: the migration fails after the hand-over: the source has
#   pause-before-switchover (as libvirt with storage migration), so once
#   the VM stopped (and A handed its flows to B) QEMU waits in
#   pre-switchover; then migrate_cancel: the source VM resumes. Everything
#   must work through A as in abort (A took it back, B dropped its copies).
# MODE=destkill: as cancel, but the destination QEMU is killed while the
#   source waits in pre-switchover, then migrate-continue: the migration
#   fails, the source VM resumes; the same checks.
#
# MIG_EDGE=stream runs the same plan over -netdev stream (QEMU migrates
# that without its backend's help): a check of the harness alone.
# MIG_KEEP=DIR copies the consoles, QEMU outputs and traces (QEMU_TRACE)
# and slipway logs there at the end.
# shellcheck disable=SC2030,SC2031 # T is changed in subshells on purpose
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/qemu.sh"
require_root
require_qemu
MODE=${MODE:-handover}
MIG_EDGE=${MIG_EDGE:-vu}
SIZE=${SIZE:-8}    # MiB each way
RATE=${RATE:-192}  # KiB/s each way: about 40 s, to span a migration
QEMU_MEM=256       # small: RAM migration under TCG converges fast
QEMU_TIMEOUT=${QEMU_TIMEOUT:-200}
export QEMU_SMP=2
GPORT=8080         # the guest's listener (sw.listen)

case $MODE in
handover | nostate | abort | cancel | destkill) ;;
*) fail "MODE must be handover, nostate, abort, cancel or destkill" ;;
esac
HAS_MIG=0
"$SLIPWAY" --help 2>&1 | grep -q -- --migrate-from && HAS_MIG=1
[ "$MODE" != nostate ] && [ "$MODE" != abort ] && [ "$HAS_MIG" = 0 ] &&
	fail "slipway has no --migrate-from (and --migrate-to): no state hand-over to test"
USE_MIG=0
[ "$MODE" != nostate ] && USE_MIG=$HAS_MIG

# sw_start NAME OPTIONS...: slipway NAME with its own directory $T/NAME
# (socket sw.sock, slipway.log, stats.json); its PID in NAME_PID
sw_start() {
	local n=$1 pid
	shift
	mkdir -p "$T/$n"
	[ -e "$T/resolv.conf" ] || echo "nameserver 127.0.0.1" >"$T/resolv.conf"
	local edge=(--vhost-user "$T/$n/sw.sock" --shards 2)
	[ "$MIG_EDGE" = stream ] && edge=(--stream "$T/$n/sw.sock")
	"$SLIPWAY" "${edge[@]}" --stats-file "$T/$n/stats.json" \
		--resolv-conf "$T/resolv.conf" -d "$@" >"$T/$n/slipway.log" 2>&1 &
	pid=$!
	PIDS+=("$pid")
	printf -v "${n}_PID" %s "$pid"
	wait_for "slipway $n's socket" 10 "[ -S $T/$n/sw.sock ] || ! kill -0 $pid"
	kill -0 "$pid" 2>/dev/null || fail "slipway $n exited: $(tail -3 "$T/$n/slipway.log")"
	(T=$T/$n SW_PID=$pid wait_started) || exit 1
}

# sw_end NAME HOW: slipway NAME ends (HOW: term, SIGTERM now; self, on its
# own within 30 s) with status 0 and its counters written; then its gates
sw_end() {
	local n=$1 pid rc why
	pid=${n}_PID
	pid=${!pid}
	[ "$2" = term ] && kill -TERM "$pid" 2>/dev/null
	reap "$pid" 30
	rc=$?
	why="exited with $rc"
	[ "$rc" = 124 ] && why="still runs ($2)"
	[ "$rc" = 0 ] || (T=$T/$n fail "slipway $n $why")
	[ "$rc" = 0 ] || exit 1
	(
		T=$T/$n
		[ -s "$T/stats.json" ] || fail "slipway $n wrote no counters at exit"
		check_gates
		expect_ctr EDGE_VU_PROTO_ERRORS -eq 0
		expect_ctr EDGE_VU_RING_ERRORS -eq 0
	) || exit 1
}

# idle_ask WORD: the host sends WORD on the idle connection; prints the
# status line that answers it (30 s at most)
idle_ask() {
	echo "$1" >&7
	wait_for "the idle connection's answer to $1" 40 "grep -q '^$1 -> ' $T/idle.status"
	grep "^$1 -> " "$T/idle.status" | sed 's/^[^>]*> //'
}

# status_end FILE: the last line of a host end's status file
status_end() {
	tail -1 "$1" 2>/dev/null
}

# spanning WHEN: both transfers still run (a test that migrates after
# they ended proves nothing)
spanning() {
	! grep -q ' bytes=' "$T/put.status" "$T/get.status" ||
		qemu_fail "the transfers ended before $1: $(cat "$T/put.status" "$T/get.status")"
}

keep() {
	[ -n "${MIG_KEEP:-}" ] || return 0
	mkdir -p "$MIG_KEEP"
	cp "$T"/console*.log "$T"/qemu*.log "$T"/*.status "$MIG_KEEP"/ 2>/dev/null
	cp "$T"/trace*.log "$MIG_KEEP"/ 2>/dev/null
	for n in A B; do
		cp "$T/$n/slipway.log" "$MIG_KEEP/slipway-$n.log" 2>/dev/null
		cp "$T/$n/stats.json" "$MIG_KEEP/stats-$n.json" 2>/dev/null
	done
	return 0
}

# --- the source: slipway A and the VM
PUB=$(free_port)
PUBOPT=(-t "127.0.0.1/$PUB:$GPORT")
A_OPT=("${PUBOPT[@]}")
B_OPT=()
if [ "$USE_MIG" = 1 ]; then
	A_OPT+=(--migrate-to "$T/state.sock")
	B_OPT+=(--migrate-from "$T/state.sock" "${PUBOPT[@]}")
fi
sw_start A "${A_OPT[@]}"

netargs() {
	if [ "$MIG_EDGE" = stream ]; then
		echo "-netdev stream,id=n0,server=off,addr.type=unix,addr.path=$T/$1/sw.sock"
		echo "-device virtio-net-pci,netdev=n0,mac=52:54:00:12:34:56"
	else
		echo "-object memory-backend-memfd,id=mem,size=${QEMU_MEM}M,share=on -numa node,memdev=mem"
		echo "-chardev socket,id=c0,path=$T/$1/sw.sock -netdev vhost-user,id=n0,chardev=c0,queues=2"
		echo "-device virtio-net-pci,netdev=n0,mq=on,vectors=0,mac=52:54:00:12:34:56"
	fi
}

qemu_host_ends "$SIZE" "$RATE"
IDLE_PORT=$(free_port)
mkfifo "$T/idle.ctl"
"$PY" "$QEMU_LIB_DIR/qhost.py" idle "$IDLE_PORT" "$T/idle.ctl" "$T/idle.status" &
PIDS+=($!)
wait_listen "$IDLE_PORT"
exec 7<>"$T/idle.ctl"

# shellcheck disable=SC2046 # netargs: words on purpose
qemu_guest $(netargs A) -- sw.dhcp=1 sw.listen=$GPORT sw.idle=10.0.2.2:"$IDLE_PORT" \
	sw.put=10.0.2.2:"$PUT_PORT" sw.get=10.0.2.2:"$GET_PORT" sw.size="$SIZE" \
	sw.par=1 sw.get_tick=1 sw.xfer_timeout=$((QEMU_TIMEOUT / 2))
qemu_wait_marker SW_IDLE 90
qemu_expect SW_DHCP "ok ip=10.0.2.15/24*"
[ "$MIG_EDGE" = stream ] || qemu_expect SW_QUEUES "rx=2 tx=2"
[ "$(idle_ask before)" = "idle-ack before" ] ||
	qemu_fail "the idle connection did not answer before the migration: $(cat "$T/idle.status")"
h=$(qemu_hello "$PUB")
[ "$h" = guest-hello ] || qemu_fail "published port through A before the migration: $h"
# both transfers under way for a few seconds
wait_for "both transfers under way" 60 \
	"grep -q connected $T/put.status 2>/dev/null && grep -q connected $T/get.status 2>/dev/null"
sleep 3

# --- the destination: slipway B and a QEMU waiting for the VM
sw_start B "${B_OPT[@]}"
# shellcheck disable=SC2046
qemu_incoming $(netargs B)
t0=$(qemu_elapsed)
if [ "$MODE" = abort ]; then
	qemu_qmp migrate-set-parameters '{"max-bandwidth": 4194304}' >/dev/null ||
		qemu_fail "migrate-set-parameters"
else
	qemu_qmp migrate-set-parameters \
		'{"max-bandwidth": 268435456, "downtime-limit": 1000}' >/dev/null ||
		qemu_fail "migrate-set-parameters"
fi
case $MODE in
cancel | destkill)
	qemu_qmp migrate-set-capabilities \
		'{"capabilities": [{"capability": "pause-before-switchover", "state": true}]}' \
		>/dev/null || qemu_fail "migrate-set-capabilities"
	;;
esac
qemu_migrate_start

if [ "$MODE" = cancel ] || [ "$MODE" = destkill ]; then
	# the VM stopped, A handed its flows over, QEMU waits to switch over
	wait_for "the migration's pre-switchover" 120 \
		"qemu_qmp query-migrate | grep -q '\"status\": \"pre-switchover\"'"
	wait_for "A's hand-over" 20 "grep -q 'listeners handed to' $T/A/slipway.log"
	spanning "the pre-switchover"
	sleep 2 # the host peers wait meanwhile
	if [ "$MODE" = cancel ]; then
		qemu_qmp migrate_cancel >/dev/null || qemu_fail "migrate_cancel"
		want=cancelled
	else
		qemu_kill_incoming
		qemu_qmp migrate-continue '{"state": "pre-switchover"}' >/dev/null ||
			qemu_fail "migrate-continue"
		want=failed
	fi
	st=$(qemu_migrate_wait 30)
	[ "$st" = "$want" ] || qemu_fail "migration: $st, not $want ($(tail -1 "$T/qmp.err"))"
	spanning "the migration $want"
	wait_for "the source VM to run again" 20 \
		"qemu_qmp query-status | grep -q '\"running\": true'"
fi
if [ "$MODE" = abort ]; then
	# halfway: some RAM sent, far from all
	wait_for "the migration under way" 30 \
		"qemu_qmp query-migrate | grep -q '\"transferred\": [1-9][0-9]\\{7,\\}'"
	st=$(qemu_qmp query-migrate)
	[[ $st == *'"status": "active"'* ]] || qemu_fail "migration not active when aborted: $st"
	qemu_kill_incoming
	st=$(qemu_migrate_wait 30)
	[ "$st" = failed ] || qemu_fail "migration after the destination's death: $st ($(tail -1 "$T/qmp.err"))"
	spanning "the migration failed"
	st=$(qemu_qmp query-status)
	[[ $st == *'"running": true'* ]] || qemu_fail "the source VM does not run: $st"
fi
if [ "$MODE" = abort ] || [ "$MODE" = cancel ] || [ "$MODE" = destkill ]; then
	[ "$(idle_ask after)" = "idle-ack after" ] ||
		qemu_fail "the idle connection did not answer after the $MODE: $(cat "$T/idle.status")"
	h=$(qemu_hello "$PUB")
	[ "$h" = guest-hello ] || qemu_fail "published port through A after the $MODE: $h"
	qemu_wait_done
	qemu_check_xfer "$SIZE"
	[ "$(status_end "$T/put.status")" = "eof bytes=$((SIZE << 20))" ] ||
		qemu_fail "host receiver: $(cat "$T/put.status")"
	[ "$(status_end "$T/get.status")" = "eof bytes=$((SIZE << 20))" ] ||
		qemu_fail "host sender: $(cat "$T/get.status")"
	[ -s "$T/B/stats.json" ] && fail "B wrote counters: it should have run on"
	sw_end A term
	sw_end B term
	(T=$T/A expect_ctr TCP_GUEST_BYTES -ge $((SIZE << 20))) || exit 1
	keep
	if [ "$MODE" = abort ]; then
		pass "QEMU migration ($MIG_EDGE) aborted halfway (started at ${t0}s, its destination killed): the source VM went on through A, $SIZE MiB each way checksummed, idle connection and published port answer"
	fi
	(
		T=$T/A
		expect_ctr TCP_RST_UNKNOWN_FLOW -eq 0
		expect_ctr MIG_TCP_REFUSED -eq 0
	) || exit 1
	grep -q "taken back" "$T/A/slipway.log" ||
		fail "A did not take its flows back: $(grep migration "$T/A/slipway.log")"
	grep -q "our copies dropped" "$T/B/slipway.log" ||
		fail "B did not drop its copies: $(grep migration "$T/B/slipway.log")"
	pass "QEMU migration ($MIG_EDGE) failed after the hand-over ($MODE in pre-switchover, started at ${t0}s): the source VM went on through A, $SIZE MiB each way checksummed, idle connection and published port answer; A took everything back, B dropped its copies"
fi

st=$(qemu_migrate_wait 120)
[ "$st" = completed ] || qemu_fail "migration: $st ($(tail -1 "$T/qmp.err"))"
t1=$(qemu_elapsed)
spanning "the migration completed"
qemu_switch
st=$(qemu_qmp query-status)
[[ $st == *'"running": true'* ]] || qemu_fail "the destination VM does not run: $st"

if [ "$MODE" = handover ]; then
	sw_end A self
	[ "$(idle_ask after)" = "idle-ack after" ] ||
		qemu_fail "the idle connection did not answer after the migration: $(cat "$T/idle.status")"
	h=$(qemu_hello "$PUB")
	[ "$h" = guest-hello ] || qemu_fail "published port through B after the migration: $h"
	qemu_wait_done
	qemu_check_xfer "$SIZE"
	[ "$(status_end "$T/put.status")" = "eof bytes=$((SIZE << 20))" ] ||
		qemu_fail "host receiver: $(cat "$T/put.status")"
	[ "$(status_end "$T/get.status")" = "eof bytes=$((SIZE << 20))" ] ||
		qemu_fail "host sender: $(cat "$T/get.status")"
	sw_end B term
	keep
	pass "QEMU live migration ($MIG_EDGE) from slipway A to B (${t0}s to ${t1}s): $SIZE MiB each way checksummed across it, idle connection and published port carried over, A exited cleanly"
fi

# nostate: every connection ends, on both sides, and soon
wait_for "the guest's transfers to end" 60 \
	"qemu_marker SW_PUT >/dev/null && qemu_marker SW_GET >/dev/null"
t2=$(qemu_elapsed)
wait_for "the host ends to be told" 30 \
	"[ \$(grep -c ' bytes=' $T/put.status $T/get.status | grep -c ':1$') = 2 ] && grep -qE '^(eof|reset|error)' $T/idle.status"
qemu_wait_done
for f in put get; do
	e=$(status_end "$T/$f.status")
	[ "$e" = "eof bytes=$((SIZE << 20))" ] &&
		qemu_fail "the $f transfer completed though no state was handed over"
done
# the guest heard a reset: its nc ends early (0 or 1, not a timeout's
# status), with what it had
for m in SW_PUT SW_GET; do
	[[ $(qemu_marker $m) == "done rc="[01] ]] || qemu_fail "guest: $m $(qemu_marker $m)"
done
sum=$(sha256sum <"$T/get.src")
[[ $(qemu_marker SW_GET_SUM) == "${sum%% *} "* ]] &&
	qemu_fail "the guest got all the bytes though no state was handed over"
sw_end A term
sw_end B term
keep
pass "QEMU live migration ($MIG_EDGE) with no state hand-over: migrated at ${t1}s, the guest's transfers reset by ${t2}s, host ends told ($(status_end "$T/put.status" | cut -d' ' -f1)/$(status_end "$T/get.status" | cut -d' ' -f1)/$(tail -1 "$T/idle.status")), both slipways clean"

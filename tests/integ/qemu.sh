# SPDX-License-Identifier: GPL-2.0-or-later
# qemu.sh - boot slipway's QEMU TCG test guest from an integration test
# (sourced, bash, after lib.sh: uses its $T, bg, fail)
#
# The guest is a stock Debian kernel with the initramfs tools/mkguest.sh
# builds: it sets up its virtio-net NIC, runs the plan given as sw.*
# parameters and prints SW_* marker lines on its serial console (see
# tools/mkguest.sh for both lists), then powers off. Nested KVM does not
# work on our machines, so it runs under TCG: about 10 s to a configured
# network, slow CPU-bound work, good for correctness and useless for speed.
#
#   require_qemu                    skip (exit 77) without QEMU, a kernel
#                                   with modules, busybox-static or cpio
#   qemu_guest QEMU_ARGS... -- PARAMS...
#                                   build the image (once per test, in $T),
#                                   start QEMU in the background with the
#                                   caller's -netdev/-device arguments and
#                                   the guest's kernel parameters (sw.*=);
#                                   sets QEMU_PID and QEMU_T0
#   qemu_wait_marker NAME [SECS]    wait until the console shows marker NAME
#   qemu_wait_done [SECS]           wait for SW_DONE and QEMU's clean exit
#   qemu_marker NAME                print the rest of NAME's (last) line;
#                                   status 1 if there is none
#   qemu_console                    the console so far (both QEMUs')
#   qemu_expect NAME GLOB           fail unless NAME's value matches GLOB
#   qemu_feature BIT                status 0 if virtio feature BIT was
#                                   negotiated (from SW_FEATURES)
#   qemu_elapsed                    seconds since QEMU started (0.1 s grain)
#   qemu_fail MESSAGE               fail, showing the console's tail
#   qemu_host_ends SIZE [KIBPS]     host servers for sw.put/sw.get (sets
#                                   PUT_PORT, GET_PORT; SIZE MiB to get);
#                                   with KIBPS, paced to that many KiB/s
#                                   each way, and each tells how it ended
#                                   in $T/put.status, $T/get.status
#   qemu_check_xfer SIZE            the guest's checksums match the host's
#   qemu_marker_count NAME [GLOB]   how many lines NAME has (whose value
#                                   matches GLOB): one per boot of a
#                                   guest that rebooted
#   qemu_hello PORT                 what a host client gets from
#                                   127.0.0.1:PORT (a guest's sw.listen
#                                   through a published port): its first
#                                   line, or empty, refused, reset,
#                                   timeout, errorN
#   qemu_idle NAME PORT             host end of a guest's sw.idle on PORT
#                                   (qhost.py idle, its events in
#                                   $T/NAME.status); returns once it
#                                   listens
#   qemu_idle_ask NAME WORD         send WORD on NAME's connection; print
#                                   the status line that answers it
#                                   ("idle-ack WORD", or eof, reset,
#                                   timeout)
#   qemu_vm_pause SECS              QMP stop, SECS seconds, cont; fails
#                                   unless QEMU says paused, then running
#
# Live migration: a second QEMU continues the same guest.
#   qemu_incoming QEMU_ARGS...      start the destination: the same kernel,
#                                   initrd and parameters as qemu_guest's,
#                                   the caller's devices (same memory and
#                                   device line; its own backend), waiting
#                                   on -incoming unix:$QEMU_MIG; sets
#                                   QEMU_IN_PID. Its console is
#                                   $T/console-in.log: the marker
#                                   functions read both logs, source first
#   qemu_qmp [-in] CMD [ARGS-JSON]  QMP command to the source (-in: the
#                                   destination); prints its return JSON
#   qemu_migrate_start              "migrate" the source to $QEMU_MIG
#   qemu_migrate_wait [SECS]        wait for the migration's end; prints
#                                   completed, failed, cancelled or
#                                   timeout; status 0 for completed
#   qemu_kill_incoming              SIGKILL the destination QEMU (not
#                                   its timeout wrapper), wait for it
#   qemu_switch                     after a completed migration: quit the
#                                   source (status 0 wanted) and make the
#                                   destination the guest that
#                                   qemu_wait_marker and qemu_wait_done
#                                   watch
#
# Example, a guest behind a stream socket edge listening on $SOCK:
#   qemu_guest -netdev stream,id=n0,server=off,addr.type=unix,addr.path=$SOCK \
#              -device virtio-net-pci,netdev=n0 -- sw.dhcp=1 sw.ping=10.0.2.2
#   qemu_wait_done
#   qemu_expect SW_PING ok
#
# For a vhost-user backend add ",vectors=0" to -device: QEMU 7.2 under TCG
# segfaults (msix_set_vector_notifiers from vhost_net_start) when the guest
# enables MSI-X on a vhost-user virtio-net-pci. vhost-user also needs the
# guest memory shared: -object memory-backend-memfd,id=mem,size=512M,share=on
# -numa node,memdev=mem (QEMU_MEM must match).
#
# Host ends of guest transfers: busybox nc in the guest exits when the host
# half-closes, so a host receiver must keep its sending side open until the
# guest's EOF (e.g. ncat -l --recv-only with stdin from a FIFO held open,
# <>FIFO, not from /dev/null); a host sender simply closes when done. Start
# these with "cmd <input & PIDS+=($!)", not through bg: bash gives a
# background command /dev/null as stdin unless that very command redirects
# it, and a redirection on the bg call does not count. Check transfers by
# checksum: the guest's nc exits 0 even when the connection ended early.
#
# Environment: QEMU (qemu-system-x86_64), QEMU_TIMEOUT (240: whole run,
# seconds; the guest powers itself off a tenth, at least 10 s, earlier), QEMU_MEM (512, MiB),
# QEMU_SMP (1: guest CPUs; a multi-queue guest uses one queue pair per CPU),
# QEMU_KVER (newest kernel with modules), MKGUEST (tools/mkguest.sh),
# QEMU_TRACE (QEMU trace event patterns, comma-separated, e.g.
# "vhost_user_*,migrate_set_state": logged with time stamps to
# $T/trace.log, the destination's to $T/trace-in.log).
# Files: $T/console.log (serial console), $T/qemu.log (QEMU's own output),
# $T/qmp.sock (QMP); the destination's $T/console-in.log, $T/qemu-in.log,
# $T/qmp-in.sock.

QEMU_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MKGUEST=${MKGUEST:-$QEMU_LIB_DIR/../../tools/mkguest.sh}
QEMU=${QEMU:-qemu-system-x86_64}
QEMU_TIMEOUT=${QEMU_TIMEOUT:-240}
QEMU_MEM=${QEMU_MEM:-512}
QEMU_KVER=${QEMU_KVER:-}
QEMU_LOG=$T/console.log
QEMU_IN_LOG=$T/console-in.log
QEMU_QMP=$T/qmp.sock
QEMU_IN_QMP=$T/qmp-in.sock
QEMU_MIG=$T/mig.sock
QEMU_PID=
QEMU_IN_PID=
QEMU_T0=
QEMU_APPEND=

require_qemu() {
	local why
	if ! command -v "$QEMU" >/dev/null; then
		echo "SKIP: no $QEMU (apt install qemu-system-x86)"
		exit 77
	fi
	# shellcheck disable=SC2086 # QEMU_KVER: empty or one word
	if ! why=$("$MKGUEST" --check $QEMU_KVER 2>&1 >/dev/null); then
		echo "SKIP: ${why:-$MKGUEST --check failed}"
		exit 77
	fi
}

# qemu_console: the guest's console so far, the source's then (after a
# migration) the destination's; a line the migration split is whole again
qemu_console() {
	cat "$QEMU_LOG" "$QEMU_IN_LOG" 2>/dev/null
}

qemu_fail() {
	local f
	{
		echo "--- guest console (last 40 lines)"
		qemu_console | tail -40 | tr -d '\r'
		for f in qemu.log qemu-in.log; do
			[ -s "$T/$f" ] || continue
			echo "--- $f"
			tail -10 "$T/$f"
		done
	} >&2
	fail "$@"
}

# qemu_run CONSOLE OUTPUT QMP TRACE ARGS...: QEMU in the background with
# the guest's kernel, initrd and $QEMU_APPEND, its serial console written
# to CONSOLE, its own output to OUTPUT, QMP on the socket QMP, traces (with
# QEMU_TRACE) to TRACE, and the caller's ARGS
qemu_run() {
	local console=$1 out=$2 qmp=$3 trace=() p
	if [ -n "${QEMU_TRACE:-}" ]; then
		for p in ${QEMU_TRACE//,/ }; do
			trace+=(-trace "enable=$p")
		done
		trace+=(-D "$4" -msg timestamp=on)
	fi
	shift 4
	: >"$console"
	bg timeout -k 5 "$QEMU_TIMEOUT" "$QEMU" -accel tcg -m "$QEMU_MEM" -smp "${QEMU_SMP:-1}" \
		-nodefaults -no-user-config -display none -monitor none \
		-qmp "unix:$qmp,server=on,wait=off" "${trace[@]}" \
		-serial "file:$console" -no-reboot \
		-kernel "$(cat "$T/guest.kernel")" -initrd "$T/guest.cpio.gz" \
		-append "$QEMU_APPEND" "$@" >"$out" 2>&1
}

qemu_guest() {
	local net=() params=() kernel deadline
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		net+=("$1")
		shift
	done
	[ $# -gt 0 ] && shift
	params=("$@")
	[ -z "$QEMU_PID" ] || ! kill -0 "$QEMU_PID" 2>/dev/null ||
		fail "qemu_guest: a guest is running already"
	if [ ! -s "$T/guest.kernel" ]; then
		# shellcheck disable=SC2086
		kernel=$("$MKGUEST" "$T/guest.cpio.gz" $QEMU_KVER | tail -1) ||
			fail "tools/mkguest.sh failed"
		echo "$kernel" >"$T/guest.kernel"
	fi
	# the guest gives up first, so the log says where it was stuck
	deadline=$((QEMU_TIMEOUT / 10 > 10 ? QEMU_TIMEOUT / 10 : 10))
	deadline=$((QEMU_TIMEOUT - deadline > 1 ? QEMU_TIMEOUT - deadline : 1))
	QEMU_APPEND="console=ttyS0 panic=-1 quiet loglevel=3 sw.deadline=$deadline ${params[*]}"
	QEMU_T0=$(date +%s.%N)
	qemu_run "$QEMU_LOG" "$T/qemu.log" "$QEMU_QMP" "$T/trace.log" "${net[@]}"
	QEMU_PID=$LASTPID
}

qemu_incoming() {
	[ -n "$QEMU_APPEND" ] || fail "qemu_incoming: no qemu_guest to continue"
	rm -f "$QEMU_MIG"
	qemu_run "$QEMU_IN_LOG" "$T/qemu-in.log" "$QEMU_IN_QMP" "$T/trace-in.log" \
		"$@" -incoming "unix:$QEMU_MIG"
	QEMU_IN_PID=$LASTPID
	wait_for "the destination QEMU's migration socket" 30 \
		"[ -S $QEMU_MIG ] || ! kill -0 $QEMU_IN_PID"
	kill -0 "$QEMU_IN_PID" 2>/dev/null ||
		qemu_fail "the destination QEMU exited: $(tail -3 "$T/qemu-in.log")"
}

qemu_qmp() {
	local sock=$QEMU_QMP
	if [ "$1" = -in ]; then
		sock=$QEMU_IN_QMP
		shift
	fi
	"$PY" "$QEMU_LIB_DIR/qmp.py" "$sock" "$@"
}

qemu_migrate_start() {
	local err
	err=$(qemu_qmp migrate "{\"uri\": \"unix:$QEMU_MIG\"}" 2>&1 >/dev/null) ||
		qemu_fail "migrate refused: $err"
}

qemu_migrate_wait() {
	qemu_qmp wait-migration "${1:-$QEMU_TIMEOUT}" 2>>"$T/qmp.err"
}

qemu_kill_incoming() {
	local q
	# QEMU_IN_PID is timeout(1)'s; QEMU is its only child
	q=$(cat "/proc/$QEMU_IN_PID/task/$QEMU_IN_PID/children" 2>/dev/null)
	[ -n "$q" ] || qemu_fail "the destination QEMU is not running"
	kill -KILL $q
	wait "$QEMU_IN_PID" 2>/dev/null
}

qemu_switch() {
	local rc
	qemu_qmp quit >/dev/null 2>&1 || qemu_fail "the source QEMU refused to quit"
	reap "$QEMU_PID" 10
	rc=$?
	[ "$rc" = 124 ] && qemu_fail "the source QEMU still runs 10 s after quit"
	[ "$rc" = 0 ] || qemu_fail "the source QEMU exited with status $rc"
	QEMU_PID=$QEMU_IN_PID
	QEMU_QMP=$QEMU_IN_QMP
}

qemu_elapsed() {
	awk -v a="$QEMU_T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", b - a }'
}

qemu_marker() {
	awk -v m="$1" '{ sub(/\r$/, "") }
		$1 == m { v = substr($0, index($0, m) + length(m) + 1); found = 1 }
		END { if (found) print v; exit !found }' <(qemu_console)
}

qemu_wait_marker() {
	local name=$1 secs=${2:-$QEMU_TIMEOUT} i
	for ((i = 0; i < secs * 10; i++)); do
		qemu_marker "$name" >/dev/null && return 0
		if ! kill -0 "$QEMU_PID" 2>/dev/null; then
			qemu_marker "$name" >/dev/null && return 0
			qemu_fail "QEMU exited before the guest printed $name"
		fi
		sleep 0.1
	done
	qemu_fail "no $name from the guest in ${secs}s"
}

qemu_wait_done() {
	local rc
	qemu_wait_marker SW_DONE "${1:-$QEMU_TIMEOUT}"
	reap "$QEMU_PID" 30
	rc=$?
	[ "$rc" = 124 ] && qemu_fail "QEMU still running 30 s after SW_DONE"
	[ "$rc" = 0 ] || qemu_fail "QEMU exited with status $rc"
}

qemu_expect() {
	local v
	v=$(qemu_marker "$1") || qemu_fail "the guest printed no $1"
	# shellcheck disable=SC2053 # $2 is a glob on purpose
	[[ $v == $2 ]] || qemu_fail "guest: $1 $v (expected $2)"
}

qemu_feature() {
	local h
	h=$(qemu_marker SW_FEATURES) || qemu_fail "the guest printed no SW_FEATURES"
	h=${h%% *}
	(((h >> $1) & 1))
}

# qemu_host_ends SIZE [KIBPS]: servers on the host's loopback for the
# guest's transfers: PUT_PORT receives into $T/put.out (its sending side
# held open by a FIFO until the guest's EOF), GET_PORT sends SIZE MiB of
# random bytes ($T/get.src); both started without bg, which would give
# them /dev/null as input. With KIBPS: tests/integ/qhost.py instead, each
# way paced to KIBPS KiB/s and its end in $T/put.status, $T/get.status;
# their PIDs in PUT_PID, GET_PID
qemu_host_ends() {
	PUT_PORT=$(free_port)
	GET_PORT=$(free_port)
	head -c $(($1 << 20)) /dev/urandom >"$T/get.src"
	if [ -n "${2:-}" ]; then
		"$PY" "$QEMU_LIB_DIR/qhost.py" recv "$PUT_PORT" "$T/put.out" \
			"$T/put.status" "$2" &
		PUT_PID=$!
		PIDS+=($!)
		"$PY" "$QEMU_LIB_DIR/qhost.py" send "$GET_PORT" "$T/get.src" \
			"$T/get.status" "$2" &
		GET_PID=$!
		PIDS+=($!)
		wait_listen "$PUT_PORT"
		wait_listen "$GET_PORT"
		return
	fi
	mkfifo "$T/hold"
	ncat -l 127.0.0.1 "$PUT_PORT" --recv-only <>"$T/hold" >"$T/put.out" &
	PIDS+=($!)
	ncat -l 127.0.0.1 "$GET_PORT" --send-only <"$T/get.src" &
	PIDS+=($!)
	wait_listen "$PUT_PORT"
	wait_listen "$GET_PORT"
}

# qemu_check_xfer SIZE: the guest's checksums of what it sent and got
# match the host's
qemu_check_xfer() {
	local sum
	sum=$(sha256sum <"$T/put.out")
	qemu_expect SW_PUT_SUM "${sum%% *}"
	sum=$(sha256sum <"$T/get.src")
	qemu_expect SW_GET_SUM "${sum%% *} bytes=$(($1 << 20))"
}

qemu_marker_count() {
	local g=${2:-*} v n=0
	while IFS= read -r v; do
		# shellcheck disable=SC2053 # a glob on purpose
		[[ $v == $g ]] && n=$((n + 1))
	done < <(awk -v m="$1" '{ sub(/\r$/, "") }
		$1 == m { print substr($0, index($0, m) + length(m) + 1) }' <(qemu_console))
	echo "$n"
}

qemu_hello() {
	"$PY" - "$1" <<'EOS'
import socket, sys
s = socket.socket()
s.settimeout(20)
try:
    s.connect(("127.0.0.1", int(sys.argv[1])))
    d = b""
    while True:
        r = s.recv(100)
        if not r:
            break
        d += r
    print(d.decode().split("\n")[0] if d else "empty")
except ConnectionRefusedError:
    print("refused")
except ConnectionResetError:
    print("reset")
except socket.timeout:
    print("timeout")
except OSError as e:
    print("error%d" % e.errno)
EOS
}

qemu_idle() {
	local fd
	rm -f "$T/$1.ctl" "$T/$1.status"
	mkfifo "$T/$1.ctl"
	"$PY" "$QEMU_LIB_DIR/qhost.py" idle "$2" "$T/$1.ctl" "$T/$1.status" &
	PIDS+=($!)
	wait_listen "$2"
	# held open read-write: writing never blocks on qhost.py's open
	exec {fd}<>"$T/$1.ctl"
	printf -v "QEMU_IDLE_FD_$1" %s "$fd"
}

qemu_idle_ask() {
	local fd=QEMU_IDLE_FD_$1
	echo "$2" >&"${!fd}"
	wait_for "the answer to $2 on $1" 40 "grep -qE '^$2 -> |^(eof|reset|error)\$' $T/$1.status"
	grep "^$2 -> " "$T/$1.status" | sed 's/^[^>]*> //'
	grep -E '^(eof|reset|error)$' "$T/$1.status"
}

qemu_vm_pause() {
	local st
	qemu_qmp stop >/dev/null || qemu_fail "QMP stop refused"
	st=$(qemu_qmp query-status)
	[[ $st == *'"status": "paused"'* ]] || qemu_fail "not paused after stop: $st"
	sleep "$1"
	qemu_qmp cont >/dev/null || qemu_fail "QMP cont refused"
	st=$(qemu_qmp query-status)
	[[ $st == *'"running": true'* ]] || qemu_fail "not running after cont: $st"
}

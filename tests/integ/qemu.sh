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
#   qemu_expect NAME GLOB           fail unless NAME's value matches GLOB
#   qemu_feature BIT                status 0 if virtio feature BIT was
#                                   negotiated (from SW_FEATURES)
#   qemu_elapsed                    seconds since QEMU started (0.1 s grain)
#   qemu_fail MESSAGE               fail, showing the console's tail
#   qemu_host_ends SIZE             host servers for sw.put/sw.get (sets
#                                   PUT_PORT, GET_PORT; SIZE MiB to get)
#   qemu_check_xfer SIZE            the guest's checksums match the host's
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
# QEMU_KVER (newest kernel with modules), MKGUEST (tools/mkguest.sh).
# Files: $T/console.log (serial console), $T/qemu.log (QEMU's own output).

QEMU_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MKGUEST=${MKGUEST:-$QEMU_LIB_DIR/../../tools/mkguest.sh}
QEMU=${QEMU:-qemu-system-x86_64}
QEMU_TIMEOUT=${QEMU_TIMEOUT:-240}
QEMU_MEM=${QEMU_MEM:-512}
QEMU_KVER=${QEMU_KVER:-}
QEMU_LOG=$T/console.log
QEMU_PID=
QEMU_T0=

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

qemu_fail() {
	{
		echo "--- guest console (last 40 lines of $QEMU_LOG)"
		tail -40 "$QEMU_LOG" 2>/dev/null | tr -d '\r'
		if [ -s "$T/qemu.log" ]; then
			echo "--- qemu output"
			tail -10 "$T/qemu.log"
		fi
	} >&2
	fail "$@"
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
	kernel=$(cat "$T/guest.kernel")
	# the guest gives up first, so the log says where it was stuck
	deadline=$((QEMU_TIMEOUT / 10 > 10 ? QEMU_TIMEOUT / 10 : 10))
	deadline=$((QEMU_TIMEOUT - deadline > 1 ? QEMU_TIMEOUT - deadline : 1))
	: >"$QEMU_LOG"
	QEMU_T0=$(date +%s.%N)
	bg timeout -k 5 "$QEMU_TIMEOUT" "$QEMU" -accel tcg -m "$QEMU_MEM" -smp "${QEMU_SMP:-1}" \
		-nodefaults -no-user-config -display none -monitor none \
		-serial "file:$QEMU_LOG" -no-reboot \
		-kernel "$kernel" -initrd "$T/guest.cpio.gz" \
		-append "console=ttyS0 panic=-1 quiet loglevel=3 sw.deadline=$deadline ${params[*]}" \
		"${net[@]}" >"$T/qemu.log" 2>&1
	QEMU_PID=$LASTPID
}

qemu_elapsed() {
	awk -v a="$QEMU_T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", b - a }'
}

qemu_marker() {
	awk -v m="$1" '{ sub(/\r$/, "") }
		$1 == m { v = substr($0, index($0, m) + length(m) + 1); found = 1 }
		END { if (found) print v; exit !found }' "$QEMU_LOG" 2>/dev/null
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
	local i rc
	qemu_wait_marker SW_DONE "${1:-$QEMU_TIMEOUT}"
	for ((i = 0; i < 300; i++)); do
		kill -0 "$QEMU_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$QEMU_PID" 2>/dev/null && qemu_fail "QEMU still running 30 s after SW_DONE"
	wait "$QEMU_PID"
	rc=$?
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

# qemu_host_ends SIZE: servers on the host's loopback for the guest's
# transfers: PUT_PORT receives into $T/put.out (its sending side held open
# by a FIFO until the guest's EOF), GET_PORT sends SIZE MiB of random bytes
# ($T/get.src); both started without bg, which would give them /dev/null
# as input
qemu_host_ends() {
	PUT_PORT=$(free_port)
	GET_PORT=$(free_port)
	mkfifo "$T/hold"
	ncat -l 127.0.0.1 "$PUT_PORT" --recv-only <>"$T/hold" >"$T/put.out" &
	PIDS+=($!)
	head -c $(($1 << 20)) /dev/urandom >"$T/get.src"
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

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_qemu_pause.sh - a pause is not a reboot: a stock Linux VM (QEMU 7.2
# under TCG) with slipway as its vhost-user backend is paused and resumed
# (QMP stop, 2 s, cont: what virsh suspend/resume and snapshots do) in the
# middle of its connections, or rebooted (QMP system_reset). On cont QEMU
# starts the device again: the same features set again, every ring at the
# base slipway returned when it stopped; after a reboot the rings start
# again from 0.
#
# MODE=pause (one queue pair), MODE=mq (two, two guest CPUs): the guest
#   runs a paced, checksummed transfer each way at once and holds an idle
#   connection; the VM is paused twice for 2 s while they run. Both
#   transfers complete byte-exact, the idle connection and a published
#   port answer after the pauses, and no flow was reset
#   (TCP_RST_GUEST_GONE 0 while the guest still runs).
# MODE=reboot (two queue pairs): the guest holds an idle connection and a
#   paced download from the host, and serves a published port; the VM is
#   reset. The host ends of both connections see them end (a reset) when
#   the rebooted guest's driver starts the device again; the rebooted
#   guest gets its address by DHCP again, opens a new idle connection and
#   a new download (checksummed) and answers on the published port.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/qemu.sh"
require_root
require_qemu
MODE=${MODE:-pause}
SIZE=${SIZE:-6}   # MiB each way
RATE=${RATE:-256} # KiB/s each way: about 25 s, to span the pauses
QEMU_MEM=256
GPORT=8080 # the guest's listener (sw.listen)

case $MODE in
pause)
	SHARDS=1
	QUEUES=1
	DEV=virtio-net-pci,netdev=n0,vectors=0
	;;
mq | reboot)
	SHARDS=2
	QUEUES=2
	export QEMU_SMP=2
	DEV=virtio-net-pci,netdev=n0,mq=on,vectors=0
	;;
*) fail "MODE must be pause, mq or reboot" ;;
esac
PUB=$(free_port)
start_slipway_sock vhost-user -d --shards "$SHARDS" -t "127.0.0.1/$PUB:$GPORT"
NET=(-object "memory-backend-memfd,id=mem,size=${QEMU_MEM}M,share=on" -numa node,memdev=mem
	-chardev "socket,id=c0,path=$SOCK" -netdev "vhost-user,id=n0,chardev=c0,queues=$QUEUES"
	-device "$DEV,mac=52:54:00:12:34:56")
IDLE_PORT=$(free_port)
qemu_idle idle "$IDLE_PORT"

# both transfers still run (a pause after they ended proves nothing), and
# neither was reset
spanning() {
	! grep -qE '^(reset|error)' "$T/put.status" "$T/get.status" ||
		qemu_fail "a transfer was reset before $1: put: $(tail -1 "$T/put.status"), get: $(tail -1 "$T/get.status")"
	! grep -q ' bytes=' "$T/put.status" "$T/get.status" ||
		qemu_fail "the transfers ended before $1: $(cat "$T/put.status" "$T/get.status")"
}

# --- pause and resume
if [ "$MODE" != reboot ]; then
	qemu_host_ends "$SIZE" "$RATE"
	qemu_guest "${NET[@]}" -- sw.dhcp=1 sw.listen=$GPORT \
		sw.idle=10.0.2.2:"$IDLE_PORT" sw.put=10.0.2.2:"$PUT_PORT" \
		sw.get=10.0.2.2:"$GET_PORT" sw.size="$SIZE" sw.par=1 sw.get_tick=1
	qemu_wait_marker SW_IDLE 90
	qemu_expect SW_DHCP "ok ip=10.0.2.15/24*"
	qemu_expect SW_QUEUES "rx=$QUEUES tx=$QUEUES"
	wait_for "both transfers under way" 60 \
		"grep -q connected $T/put.status 2>/dev/null && grep -q connected $T/get.status 2>/dev/null"
	sleep 2
	qemu_vm_pause 2
	sleep 3
	spanning "the second pause"
	qemu_vm_pause 2
	t1=$(qemu_elapsed)
	a=$(qemu_idle_ask idle after)
	[ "$a" = "idle-ack after" ] ||
		qemu_fail "the idle connection after the pauses: $a"
	h=$(qemu_hello "$PUB")
	[ "$h" = guest-hello ] || qemu_fail "published port after the pauses: $h"
	spanning "the checks after the pauses"
	# the guest still runs, and holds its flows: none was reset
	sw_stats
	expect_ctr TCP_RST_GUEST_GONE -eq 0
	expect_ctr EDGE_DISCONNECTS -eq 0
	grep -q 'a new guest' "$T/slipway.log" &&
		fail "slipway took a pause for a new guest: $(grep 'a new guest' "$T/slipway.log")"
	qemu_wait_done
	qemu_check_xfer "$SIZE"
	for f in put get; do
		[ "$(tail -1 "$T/$f.status")" = "eof bytes=$((SIZE << 20))" ] ||
			qemu_fail "host end of the $f transfer: $(cat "$T/$f.status")"
	done
	stop_slipway
	check_gates
	expect_ctr EDGE_VU_PROTO_ERRORS -eq 0
	expect_ctr EDGE_VU_RING_ERRORS -eq 0
	expect_ctr TCP_GUEST_BYTES -ge $((SIZE << 20))
	pass "QEMU guest over vhost-user ($QUEUES queue pair(s)) paused twice for 2 s (the second done at ${t1}s) during $SIZE MiB each way: both checksummed, idle connection and published port answer, no flow reset"
fi

# --- reboot: the host ends of the old guest's connections are told
GET_PORT=$(free_port)
head -c $((8 << 20)) /dev/urandom >"$T/get.src"
"$PY" "$QEMU_LIB_DIR/qhost.py" send "$GET_PORT" "$T/get.src" "$T/get.status" 64 &
PIDS+=($!)
wait_listen "$GET_PORT"
qemu_guest "${NET[@]}" -- sw.dhcp=1 sw.listen=$GPORT sw.idle=10.0.2.2:"$IDLE_PORT" \
	sw.get=10.0.2.2:"$GET_PORT" sw.get_tick=1
qemu_wait_marker SW_IDLE 90
qemu_expect SW_QUEUES "rx=2 tx=2"
a=$(qemu_idle_ask idle before)
[ "$a" = "idle-ack before" ] || qemu_fail "the idle connection before the reboot: $a"
h=$(qemu_hello "$PUB")
[ "$h" = guest-hello ] || qemu_fail "published port before the reboot: $h"
wait_for "the download under way" 60 "grep -q connected $T/get.status 2>/dev/null"
# the rebooted guest's connections go to new host ends on the same ports
# (each qhost.py closed its listener when it took its connection)
head -c $((2 << 20)) /dev/urandom >"$T/get2.src"
"$PY" "$QEMU_LIB_DIR/qhost.py" send "$GET_PORT" "$T/get2.src" "$T/get2.status" 96 &
PIDS+=($!)
wait_listen "$GET_PORT"
qemu_idle idle2 "$IDLE_PORT"
sleep 2
# -no-reboot makes a reset a shutdown: this guest reboots instead
qemu_qmp set-action '{"reboot": "reset"}' >/dev/null || qemu_fail "QMP set-action refused"
qemu_qmp system_reset >/dev/null || qemu_fail "QMP system_reset refused"
t1=$(qemu_elapsed)
wait_for "the second boot" 120 "[ \$(qemu_marker_count SW_BOOT) = 2 ]"
wait_for "the host ends of the old connections to be told" 90 \
	"grep -q '^reset' $T/get.status && grep -qE '^(reset|eof)$' $T/idle.status"
t2=$(qemu_elapsed)
[ "$(tail -1 "$T/idle.status")" = reset ] ||
	qemu_fail "the old idle connection's host end: $(cat "$T/idle.status")"
wait_for "DHCP after the reboot" 90 "[ \$(qemu_marker_count SW_DHCP 'ok ip=10.0.2.15/24*') = 2 ]"
wait_for "the new idle connection" 60 "grep -q connected $T/idle2.status"
a=$(qemu_idle_ask idle2 after)
[ "$a" = "idle-ack after" ] || qemu_fail "the new idle connection: $a"
h=$(qemu_hello "$PUB")
[ "$h" = guest-hello ] || qemu_fail "published port after the reboot: $h"
qemu_wait_done
sum=$(sha256sum <"$T/get2.src")
qemu_expect SW_GET_SUM "${sum%% *} bytes=$((2 << 20))"
[ "$(tail -1 "$T/get2.status")" = "eof bytes=$((2 << 20))" ] ||
	qemu_fail "host end of the new download: $(cat "$T/get2.status")"
stop_slipway
check_gates
expect_ctr EDGE_VU_PROTO_ERRORS -eq 0
expect_ctr EDGE_VU_RING_ERRORS -eq 0
expect_ctr EDGE_DISCONNECTS -eq 1
expect_ctr TCP_RST_GUEST_GONE -ge 2
pass "QEMU guest over vhost-user (2 queue pairs) reset at ${t1}s: the old connections' host ends reset by ${t2}s ($(tail -1 "$T/get.status")), DHCP, a new idle connection, a new download checksummed and the published port after the reboot"

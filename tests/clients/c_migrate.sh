#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# c_migrate.sh - the root's QEMU (Debian 13: QEMU 10) live-migrates a VM
# from one vhost-user backend to another on the same machine, with open
# TCP connections that must survive: the guest receives from and sends to
# servers on the host's loopback (through the lease's gateway), each paced
# so that both span the migration, and their bytes are checked by sha256
# once they end, through the destination.
#
# The connections move in the vhost-user device-state channel (QEMU asks
# the source backend for its state, carries it in its own migration
# stream and hands it to the destination backend), as TCP_REPAIR state:
#   IMPL=real     passt --vhost-user --one-off --socket PATH --pid FILE for
#                 each side, and passt-repair PATH.repair (as root: the
#                 capability) for each, as libvirt and KubeVirt run them;
#   IMPL=slipway  slipway --vhost-user PATH --migrate-repair for each side
#                 (passt's command line of slipway takes no --repair-path:
#                 its own options, man slipway LIVE MIGRATION).
# Everything runs in a network namespace of the case's own (only its
# loopback, the "host's": passt falls back to its local mode). QEMU pauses
# before the switch-over (pause-before-switchover; the VM stopped) and
# loopback TCP is dropped (nftables) from then until the migration
# completed: between the source's close and the destination's restore a
# socket is nobody's, and its peer's segments must not be answered with a
# reset (as the network between two hosts would not). The guest paces its
# own sending (cl.pace) and the host reads at once: passt 2025_05_03
# cannot restore a socket whose send queue is large (EAGAIN writing it:
# the connection is reset), which a paced host receiver would cause.
# The backends are checked by /proc/PID/exe.
if [ -z "${CL_MIG_NETNS:-}" ]; then
	CL_MIG_NETNS=1 exec unshare --net -- bash "$0" "$@"
fi
. "$(dirname "$0")/vm.sh"
vm_require
command -v nft >/dev/null || {
	echo "SKIP: no nft"
	exit 77
}
SIZE=${SIZE:-4}   # MiB each way
RATE=${RATE:-128} # KiB/s host to guest: about 30 s
PACE=${PACE:-0.4} # seconds between the guest's 64 KiB pieces: about 30 s
QEMU_MEM=256      # small: RAM migration under TCG converges fast
QEMU_TIMEOUT=${QEMU_TIMEOUT:-170}

ip link set lo up
# a restored socket's queues must fit buffers set without the FORCE
# options: autotuning stops at net.core.rmem_max and wmem_max
for m in r w; do
	max=$(cat /proc/sys/net/core/${m}mem_max)
	read -r lo def top <"/proc/sys/net/ipv4/tcp_${m}mem"
	sysctl -qw "net.ipv4.tcp_${m}mem=$lo $((def < max ? def : max)) $((top < max ? top : max))"
done

# backend NAME: the backend for side NAME (A, B), its socket $T/NAME.sock;
# its PID in NAME_PID, checked
backend() {
	local n=$1 pid
	if [ "$IMPL" = real ]; then
		"$PASST" --vhost-user --one-off --socket "$T/$n.sock" --pid "$T/$n.pid" \
			${CASE_DEBUG:+--debug} --log-file "$T/passt-$n.log" >"$T/passt-$n.out" 2>&1 || fail "$PASST ($n) exited with $?: $(cat "$T/passt-$n.out")"
		pid=$(vm_pidfile "$T/$n.pid")
		PIDS+=("$pid")
		[ -S "$T/$n.sock.repair" ] || fail "passt $n made no $T/$n.sock.repair"
		passt-repair "$T/$n.sock.repair" >"$T/repair-$n.out" 2>&1 &
		PIDS+=($!)
	else
		"$SLIPWAY" --vhost-user "$T/$n.sock" --migrate-repair -d \
			>"$T/slipway-$n.log" 2>&1 &
		pid=$!
		PIDS+=("$pid")
		wait_for "slipway $n's socket" 10 "[ -S $T/$n.sock ] || ! kill -0 $pid"
	fi
	[ "$(vm_socket_owner "$T/$n.sock")" = "$pid" ] ||
		fail "$T/$n.sock is not pid $pid's: $(ss -Hxlp "src $T/$n.sock")"
	vm_check_impl "$pid" "backend $n"
	printf -v "${n}_PID" %s "$pid"
}

netargs() {
	echo "-object memory-backend-memfd,id=mem,size=${QEMU_MEM}M,share=on -numa node,memdev=mem"
	echo "-chardev socket,id=charnet0,path=$T/$1.sock -netdev vhost-user,chardev=charnet0,id=hostnet0"
	echo "-device virtio-net-pci,netdev=hostnet0,id=net0,mac=$MAC$(vm_vu_dev)"
}

# spanning WHEN: both transfers still run
spanning() {
	! grep -q ' bytes=' "$T/put.status" "$T/get.status" ||
		qemu_fail "the transfers ended before $1: $(cat "$T/put.status" "$T/get.status")"
}

# host_ends: the guest's peers (tests/integ/qhost.py): GET_PORT sends
# SIZE MiB at RATE KiB/s, PUT_PORT takes what comes as fast as it comes
# (the guest paces its put: a host socket's send queue, which moves as
# TCP_REPAIR state, holds little, as passt needs)
host_ends() {
	PUT_PORT=$(free_port)
	GET_PORT=$(free_port)
	head -c $((SIZE << 20)) /dev/urandom >"$T/get.src"
	"$PY" "$QEMU_LIB_DIR/qhost.py" recv "$PUT_PORT" "$T/put.out" "$T/put.status" 1000000 &
	PIDS+=($!)
	"$PY" "$QEMU_LIB_DIR/qhost.py" send "$GET_PORT" "$T/get.src" "$T/get.status" "$RATE" &
	PIDS+=($!)
	wait_listen "$PUT_PORT"
	wait_listen "$GET_PORT"
}

backend A
host_ends
# shellcheck disable=SC2046 # netargs: words on purpose
qemu_guest $(netargs A) -- rdinit=/cinit cl.put="$PUT_PORT" cl.get="$GET_PORT" \
	cl.size="$SIZE" cl.par=1 cl.tick=1 cl.pace="$PACE"
qemu_wait_marker SW_DHCP 90
qemu_expect SW_DHCP "ok *"
wait_for "both transfers under way" 60 \
	"grep -q connected $T/put.status 2>/dev/null && grep -q connected $T/get.status 2>/dev/null"
sleep 3
spanning "the migration began"

backend B
# shellcheck disable=SC2046
qemu_incoming $(netargs B)
qemu_qmp migrate-set-parameters '{"max-bandwidth": 268435456, "downtime-limit": 1000}' \
	>/dev/null || qemu_fail "migrate-set-parameters"
# the VM stops, then QEMU waits (pre-switchover) before it saves the
# devices' state: loopback TCP is dropped from then on, not while the
# RAM is copied
qemu_qmp migrate-set-capabilities \
	'{"capabilities": [{"capability": "pause-before-switchover", "state": true}]}' \
	>/dev/null || qemu_fail "migrate-set-capabilities"
t0=$(qemu_elapsed)
qemu_migrate_start
wait_for "the migration's pre-switchover" 90 \
	"qemu_qmp query-migrate | grep -q '\"status\": \"pre-switchover\"'"
nft -f - <<'EON' || fail "nft"
table inet clmig {
	chain out {
		type filter hook output priority 0; policy accept;
		oifname "lo" meta l4proto tcp drop
	}
}
EON
qemu_qmp migrate-continue '{"state": "pre-switchover"}' >/dev/null ||
	qemu_fail "migrate-continue"
st=$(qemu_migrate_wait 60)
nft delete table inet clmig
[ "$st" = completed ] ||
	qemu_fail "migration: $st ($(tail -3 "$T/qmp.err" 2>/dev/null); A: $(tail -3 "$T/passt-A.out" "$T/slipway-A.log" 2>/dev/null))"
t1=$(qemu_elapsed)
spanning "the migration completed"
vm_check_impl "$B_PID" "backend B after the migration"
qemu_switch
st=$(qemu_qmp query-status)
[[ $st == *'"running": true'* ]] || qemu_fail "the destination VM does not run: $st"
vm_gone "$A_PID" 20
# the state went through the device-state channel
if [ "$IMPL" = real ]; then
	grep -aq "Migration complete" "$T/passt-A.log" ||
		fail "passt A logged no completed migration: $(tail -3 "$T/passt-A.log")"
else
	grep -q "TCP flows .* saved into the VM's device state" "$T/slipway-A.log" ||
		fail "slipway A saved no flows into the device state: $(grep migration "$T/slipway-A.log")"
	grep -q "device state taken: [1-9]" "$T/slipway-B.log" ||
		fail "slipway B took no flows from the device state: $(grep migration "$T/slipway-B.log")"
fi

qemu_wait_done 120
qemu_check_xfer "$SIZE"
for f in put get; do
	[ "$(tail -1 "$T/$f.status")" = "eof bytes=$((SIZE << 20))" ] ||
		qemu_fail "host end of the $f transfer: $(cat "$T/$f.status")"
done
for m in SW_PUT SW_GET; do
	qemu_expect $m "done rc=0"
done
pass "QEMU live migration, vhost-user device state ($IMPL): from ${t0}s to ${t1}s, two open connections carried over, $SIZE MiB each way checksummed ($(qemu_elapsed)s)"

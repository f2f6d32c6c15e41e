#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# c_qemu_vu.sh - the root's QEMU (Debian 13: QEMU 10) with a passt
# vhost-user backend, the guest's memory shared (memory-backend-memfd,
# share=on), started as libvirt starts it for <interface type='vhostuser'>
# <backend type='passt'/>: "passt --vhost-user --one-off --socket PATH
# --pid FILE", waited for, then QEMU with -chardev socket on PATH and
# -netdev vhost-user. (QEMU 10.1's -netdev passt,vhost-user=on, which
# hands passt --vhost-user --fd N, cannot be played with QEMU 10.0: its
# chardev on a socket given by fd= "does not support FD passing".)
# The same checks as c_qemu_stream.sh: the lease names a DNS server and a
# name resolves through it, checksummed bytes both ways through the
# gateway, the backend is IMPL's binary and exits once QEMU is gone.
. "$(dirname "$0")/vm.sh"
vm_require
SIZE=${SIZE:-8} # MiB each way
QEMU_TIMEOUT=${QEMU_TIMEOUT:-150}
QEMU_MEM=512

vm_resolver
SOCK=$T/passt.sock
"$PASST" --vhost-user --one-off --socket "$SOCK" --pid "$T/passt.pid" \
	>"$T/passt.out" 2>&1 || fail "$PASST exited with $?: $(cat "$T/passt.out")"
PID=$(vm_pidfile "$T/passt.pid")
PIDS+=("$PID")
[ -S "$SOCK" ] || fail "no socket at $SOCK once $PASST returned"
vm_check_impl "$PID" "the backend (--pid)"
[ "$(vm_socket_owner "$SOCK")" = "$PID" ] ||
	fail "$SOCK is not pid $PID's: $(ss -Hxlp "src $SOCK")"

qemu_host_ends "$SIZE"
qemu_guest -object "memory-backend-memfd,id=mem,size=${QEMU_MEM}M,share=on" \
	-numa node,memdev=mem -chardev "socket,id=charnet0,path=$SOCK" \
	-netdev vhost-user,chardev=charnet0,id=hostnet0 \
	-device "virtio-net-pci,netdev=hostnet0,id=net0,mac=$MAC$(vm_vu_dev)" -- \
	rdinit=/cinit cl.lookup="$LOOKUP" cl.put="$PUT_PORT" cl.get="$GET_PORT" \
	cl.size="$SIZE"
qemu_wait_marker SW_DHCP 90
vm_check_impl "$PID" "the backend serving the guest"
qemu_wait_done
t=$(qemu_elapsed)
qemu_check_xfer "$SIZE"
vm_dhcp_dns
vm_gone "$PID" 10
pass "QEMU vhost-user ($IMPL: $PASST): DHCP $(qemu_marker SW_DHCP), $LOOKUP -> $DNS_ANSWER, $SIZE MiB each way checksummed (${t}s), one-off exit"

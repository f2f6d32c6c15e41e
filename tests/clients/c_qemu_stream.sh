#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# c_qemu_stream.sh - the root's QEMU (Debian 13: QEMU 10) with a passt
# backend started as libvirt starts it: "passt --one-off --socket PATH
# --pid FILE", waited for (its parent exits 0 once the socket listens),
# then QEMU on -netdev stream (server=off, addr.type=unix). The guest's
# DHCP lease names a DNS server and a name resolves through it (a fake
# resolver on the host's 127.0.0.77, the root's resolv.conf naming it);
# checksummed bytes go to and come from servers on the host's loopback,
# reached through the gateway the lease named. The backend process must be
# IMPL's binary, and, one-off, it must exit once QEMU is gone.
. "$(dirname "$0")/vm.sh"
vm_require
SIZE=${SIZE:-8} # MiB each way
QEMU_TIMEOUT=${QEMU_TIMEOUT:-150}

vm_resolver
SOCK=$T/passt.sock
"$PASST" --one-off --socket "$SOCK" --pid "$T/passt.pid" >"$T/passt.out" 2>&1 ||
	fail "$PASST exited with $?: $(cat "$T/passt.out")"
PID=$(vm_pidfile "$T/passt.pid")
PIDS+=("$PID")
[ -S "$SOCK" ] || fail "no socket at $SOCK once $PASST returned"
vm_check_impl "$PID" "the backend (--pid)"
[ "$(vm_socket_owner "$SOCK")" = "$PID" ] ||
	fail "$SOCK is not pid $PID's: $(ss -Hxlp "src $SOCK")"

qemu_host_ends "$SIZE"
qemu_guest -netdev "stream,id=hostnet0,server=off,addr.type=unix,addr.path=$SOCK" \
	-device "virtio-net-pci,netdev=hostnet0,id=net0,mac=$MAC" -- \
	rdinit=/cinit cl.lookup="$LOOKUP" cl.put="$PUT_PORT" cl.get="$GET_PORT" \
	cl.size="$SIZE"
qemu_wait_marker SW_DHCP 90
vm_check_impl "$PID" "the backend serving the guest"
qemu_wait_done
t=$(qemu_elapsed)
qemu_check_xfer "$SIZE"
vm_dhcp_dns
vm_gone "$PID" 10
pass "QEMU stream ($IMPL: $PASST): DHCP $(qemu_marker SW_DHCP), $LOOKUP -> $DNS_ANSWER, $SIZE MiB each way checksummed (${t}s), one-off exit"

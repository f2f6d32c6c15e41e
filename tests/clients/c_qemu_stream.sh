#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# c_qemu_stream.sh - the root's QEMU (Debian 13: QEMU 10) on -netdev
# stream to a passt backend, twice:
#   socket  started as libvirt starts it: "passt --one-off --socket PATH
#           --pid FILE", waited for (its parent exits 0 once the socket
#           listens), then QEMU on the socket (server=off, addr.type=unix);
#   fd      started as QEMU 10.1's -netdev passt and muvm start it: one
#           end of a socketpair on "passt --fd N --pid FILE", waited for,
#           the other end QEMU's (addr.type=fd; QEMU 10.0 has no -netdev
#           passt, so a small wrapper makes the pair and runs both:
#           vm_fd_qemu).
# Each boot: the guest's DHCP lease names a DNS server and a name resolves
# through it (a fake resolver on a loopback address of the host, the
# root's resolv.conf naming it); checksummed bytes go to and come from
# servers on the host's loopback, reached through the gateway the lease
# named. The backend process must be IMPL's binary, and, one-off, it must
# exit once QEMU is gone.
. "$(dirname "$0")/vm.sh"
vm_require
SIZE=${SIZE:-8} # MiB each way
QEMU_TIMEOUT=${QEMU_TIMEOUT:-150}
REAL_QEMU=$(command -v "$QEMU")

# boot HOW: one VM on a backend started HOW (socket, fd); its time in
# $T/HOW.secs
boot() {
	local how=$1 sock=$T/passt.sock pid addr
	rm -f "$T/hold" "$T/put.out" "$T/passt.pid" "$sock"
	QEMU=$REAL_QEMU
	if [ "$how" = socket ]; then
		"$PASST" --one-off --socket "$sock" --pid "$T/passt.pid" >"$T/passt.out" 2>&1 ||
			fail "$PASST exited with $?: $(cat "$T/passt.out")"
		pid=$(vm_pidfile "$T/passt.pid")
		PIDS+=("$pid")
		[ -S "$sock" ] || fail "no socket at $sock once $PASST returned"
		vm_check_impl "$pid" "the backend (--pid)"
		[ "$(vm_socket_owner "$sock")" = "$pid" ] ||
			fail "$sock is not pid $pid's: $(ss -Hxlp "src $sock")"
		addr="addr.type=unix,addr.path=$sock"
	else
		QEMU=$(vm_fd_qemu "$PASST" --pid "$T/passt.pid")
		addr="addr.type=fd,addr.str=@FD@"
	fi
	qemu_host_ends "$SIZE"
	qemu_guest -netdev "stream,id=hostnet0,server=off,$addr" \
		-device "virtio-net-pci,netdev=hostnet0,id=net0,mac=$MAC" -- \
		rdinit=/cinit cl.lookup="$LOOKUP" cl.put="$PUT_PORT" cl.get="$GET_PORT" \
		cl.size="$SIZE"
	qemu_wait_marker SW_DHCP 90
	if [ "$how" = fd ]; then
		pid=$(vm_pidfile "$T/passt.pid")
		PIDS+=("$pid")
		vm_check_impl "$pid" "the backend (--fd, --pid)"
	fi
	vm_check_impl "$pid" "the backend serving the guest ($how)"
	qemu_wait_done
	qemu_elapsed >"$T/$how.secs"
	qemu_check_xfer "$SIZE"
	vm_dhcp_dns
	vm_gone "$pid" 10
	echo "$how: DHCP $(qemu_marker SW_DHCP), $LOOKUP -> $(qemu_marker CL_DNS), $(cat "$T/$how.secs")s"
	mv "$QEMU_LOG" "$T/console-$how.log"
}

vm_resolver
boot socket
boot fd
pass "QEMU stream ($IMPL: $PASST) on --socket ($(cat "$T/socket.secs")s) and on --fd ($(cat "$T/fd.secs")s): DHCP with a DNS server, $LOOKUP -> $DNS_ANSWER, $SIZE MiB each way checksummed, one-off exit"

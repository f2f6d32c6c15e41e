#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_qemu_passt.sh - a stock Linux VM (Debian's kernel and virtio-net
# driver, QEMU under TCG) wired the way libvirt wires a passt backend
# (<interface type='user'|'vhostuser'><backend type='passt'
# hostname='vm1' fqdn='vm1.example.test'/>), with slipway in passt's
# place: once over a stream socket (QEMU -netdev stream, server=off,
# addr.type=unix, the netdev and device ids libvirt gives), once over
# vhost-user (-chardev socket + -netdev vhost-user, shared memfd memory).
# In each boot the guest's udhcpc gets its lease, takes the host name of
# option 12 as its own and receives option 81 (asked for with -O 81), and
# checksummed bytes go both ways to servers on the host's loopback.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/qemu.sh"
require_root
require_qemu
SIZE=${SIZE:-8} # MiB each way
QEMU_MEM=512
NAMES=(--hostname vm1 --fqdn vm1.example.test)
# option 81: flags E, RCODE1 and RCODE2 255, the name in wire format
FQDN81=04ffff03766d31076578616d706c65047465737400
MAC=52:54:00:12:34:56

# boot EDGE QEMU_ARGS...: one VM on slipway's EDGE (stream, vhost-user);
# DHCP with the names, a transfer each way; the counters kept as
# $T/stats-EDGE.json
boot() {
	local edge=$1 sum
	shift
	rm -f "$T/hold" "$T/put.out"
	qemu_host_ends "$SIZE"
	qemu_guest "$@" -- sw.dhcp=1 sw.dhcp_fqdn=1 sw.put=10.0.2.2:"$PUT_PORT" \
		sw.size="$SIZE" sw.get=10.0.2.2:"$GET_PORT"
	qemu_wait_done
	qemu_expect SW_DHCP "ok ip=10.0.2.15/24 router=10.0.2.2 dns=10.0.2.3*"
	sum=$(qemu_marker SW_DHCP_NAMES) || qemu_fail "$edge: no names from DHCP"
	[ "$(echo "$sum" | tr 'A-F' 'a-f')" = "host=vm1 fqdn81=$FQDN81" ] ||
		qemu_fail "$edge: DHCP names in the guest: $sum"
	qemu_check_xfer "$SIZE"
	stop_slipway
	check_gates
	expect_ctr DHCP4_ACK -ge 1
	expect_ctr DHCP4_DROP_BAD -eq 0
	expect_ctr TCP_GUEST_BYTES -ge $((SIZE << 20))
	mv "$T/stats.json" "$T/stats-$edge.json"
	mv "$T/console.log" "$T/console-$edge.log"
}

# libvirt: -netdev stream,addr.type=unix,addr.path=SOCK,server=off
# (reconnect= only where QEMU has it: not 7.2)
start_slipway_sock stream "${NAMES[@]}"
boot stream -netdev "stream,id=hostnet0,server=off,addr.type=unix,addr.path=$SOCK" \
	-device "virtio-net-pci,netdev=hostnet0,id=net0,mac=$MAC"
t1=$(qemu_elapsed)

# libvirt: -chardev socket,id=charnet0,path=SOCK -netdev vhost-user; the
# guest's memory shared; vectors=0 for QEMU 7.2 under TCG (see qemu.sh)
start_slipway_sock vhost-user --shards 1 "${NAMES[@]}"
boot vhost-user -object "memory-backend-memfd,id=mem,size=${QEMU_MEM}M,share=on" \
	-numa node,memdev=mem -chardev "socket,id=charnet0,path=$SOCK" \
	-netdev vhost-user,chardev=charnet0,id=hostnet0 \
	-device "virtio-net-pci,netdev=hostnet0,id=net0,mac=$MAC,vectors=0"
t2=$(qemu_elapsed)
pass "QEMU as libvirt runs it with a passt backend: stream (${t1}s) and vhost-user (${t2}s), DHCP host name and FQDN taken, $SIZE MiB each way checksummed"

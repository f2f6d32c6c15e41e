#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_qemu_sock.sh - a stock Linux VM (Debian's kernel, its virtio-net driver,
# QEMU 7.2 under TCG) networked by slipway over a socket edge: MODE=stream
# (-netdev stream) or dgram (-netdev dgram). The guest gets its lease by
# DHCP, pings the gateway and moves checksummed bytes both ways to servers
# on the host's loopback through 10.0.2.2; a second VM on the same socket
# is served after the first one is gone.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/qemu.sh"
require_root
require_qemu
MODE=${MODE:-stream}
SIZE=${SIZE:-32} # MiB each way

start_slipway_sock "$MODE" -m 65520
case $MODE in
stream) NETDEV=(-netdev "stream,id=n0,server=off,addr.type=unix,addr.path=$SOCK") ;;
dgram) NETDEV=(-netdev "dgram,id=n0,local.type=unix,local.path=$T/vm.sock,remote.type=unix,remote.path=$SOCK") ;;
*) fail "MODE must be stream or dgram" ;;
esac

qemu_host_ends "$SIZE"

qemu_guest "${NETDEV[@]}" -device virtio-net-pci,netdev=n0,mac=52:54:00:12:34:56 -- \
	sw.dhcp=1 sw.ping=10.0.2.2 sw.put=10.0.2.2:"$PUT_PORT" sw.size="$SIZE" \
	sw.get=10.0.2.2:"$GET_PORT"
qemu_wait_done
qemu_expect SW_DHCP "ok ip=10.0.2.15/24 router=10.0.2.2 dns=10.0.2.3*"
qemu_expect SW_MTU 65520
qemu_expect SW_PING ok
qemu_check_xfer "$SIZE"
t1=$(qemu_elapsed)

# the VM is gone; a second one on the same socket gets served (over
# datagrams from a socket of its own: a new peer takes over)
[ "$MODE" = dgram ] && NETDEV[1]=${NETDEV[1]/vm.sock/vm2.sock}
mv "$T/console.log" "$T/console1.log"
qemu_guest "${NETDEV[@]}" -device virtio-net-pci,netdev=n0,mac=52:54:00:ab:cd:ef -- \
	sw.dhcp=1 sw.ping=10.0.2.2
qemu_wait_done
qemu_expect SW_DHCP "ok ip=10.0.2.15/24 router=10.0.2.2*"
qemu_expect SW_PING ok

stop_slipway
check_gates
expect_ctr EDGE_CONNECTS -eq 2
expect_ctr EDGE_BAD_FRAMING -eq 0
# a stream never drops; datagrams the VM's queue refused for 2 s may be
# (counted, resent by TCP: QEMU under TCG reads slowly, more so beside
# a sanitizer build)
[ "$MODE" = stream ] && expect_ctr EDGE_TX_DROPPED -eq 0
expect_ctr TCP_GUEST_BYTES -ge $((SIZE << 20))
pass "QEMU guest over -netdev $MODE: DHCP, ping, $SIZE MiB each way checksummed (${t1}s), a second VM served"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_qemu_vu.sh - a stock Linux VM (Debian's kernel and virtio-net driver,
# QEMU 7.2 under TCG) with slipway as its vhost-user backend. MODE=mq: two
# queue pairs (mq=on, two guest CPUs), every offload; MODE=csum: checksum
# offload both ways but no segmentation offload; MODE=plain: a legacy
# device (10-byte header) with no offload, no mergeable buffers and no
# event index, at MTU 1500. Each: DHCP, ping, checksummed transfer both
# ways, the negotiated features read back in the guest, loans all
# returned; then a second VM on the same socket is served.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/qemu.sh"
require_root
require_qemu
MODE=${MODE:-mq}
SIZE=${SIZE:-32} # MiB each way
QEMU_MEM=512

case $MODE in
mq)
	start_slipway_sock vhost-user --shards 2
	export QEMU_SMP=2
	DEV=virtio-net-pci,netdev=n0,mq=on,vectors=0
	QUEUES=2
	GPARAM=sw.mtu=65520
	;;
plain)
	start_slipway_sock vhost-user --shards 1 -m 1500
	DEV=virtio-net-pci,netdev=n0,vectors=0,disable-modern=on,mrg_rxbuf=off,csum=off,guest_csum=off,guest_tso4=off,guest_tso6=off,host_tso4=off,host_tso6=off,event_idx=off
	QUEUES=1
	GPARAM=sw.mtu=1500
	;;
csum)
	start_slipway_sock vhost-user --shards 1
	DEV=virtio-net-pci,netdev=n0,vectors=0,guest_tso4=off,guest_tso6=off,host_tso4=off,host_tso6=off
	QUEUES=1
	GPARAM=sw.mtu=65520
	;;
*) fail "MODE must be mq, csum or plain" ;;
esac
NET=(-object "memory-backend-memfd,id=mem,size=${QEMU_MEM}M,share=on" -numa node,memdev=mem
	-chardev "socket,id=c0,path=$SOCK" -netdev "vhost-user,id=n0,chardev=c0,queues=$QUEUES")

qemu_host_ends "$SIZE"

qemu_guest "${NET[@]}" -device "$DEV,mac=52:54:00:12:34:56" -- \
	sw.dhcp=1 sw.ping=10.0.2.2 sw.put=10.0.2.2:"$PUT_PORT" sw.size="$SIZE" \
	sw.get=10.0.2.2:"$GET_PORT" $GPARAM
qemu_wait_done
qemu_expect SW_PING ok
qemu_check_xfer "$SIZE"
t1=$(qemu_elapsed)
# feature bits: CSUM 0, GUEST_CSUM 1, GUEST_TSO4 7, HOST_TSO4 11,
# MRG_RXBUF 15, MQ 22, EVENT_IDX 29, VERSION_1 32
if [ "$MODE" = mq ]; then
	qemu_expect SW_DHCP "ok ip=10.0.2.15/24 router=10.0.2.2 dns=10.0.2.3*"
	qemu_expect SW_MTU 65520
	qemu_expect SW_QUEUES "rx=2 tx=2"
	for b in 0 1 7 11 15 22 29 32; do
		qemu_feature $b || qemu_fail "feature bit $b was not negotiated"
	done
elif [ "$MODE" = csum ]; then
	qemu_expect SW_MTU 65520
	for b in 0 1 15 29 32; do
		qemu_feature $b || qemu_fail "feature bit $b was not negotiated"
	done
	for b in 7 11 22; do
		qemu_feature $b && qemu_fail "feature bit $b was negotiated, though refused"
	done
else
	qemu_expect SW_MTU 1500
	qemu_expect SW_QUEUES "rx=1 tx=1"
	for b in 0 1 7 11 15 29 32; do
		qemu_feature $b && qemu_fail "feature bit $b was negotiated on a plain device"
	done
fi

# the VM is gone; a second one on the same socket gets served
mv "$T/console.log" "$T/console1.log"
qemu_guest "${NET[@]}" -device "$DEV,mac=52:54:00:ab:cd:ef" -- sw.dhcp=1 sw.ping=10.0.2.2
qemu_wait_done
qemu_expect SW_DHCP "ok ip=10.0.2.15/24 router=10.0.2.2*"
qemu_expect SW_PING ok

stop_slipway
check_gates
expect_ctr EDGE_CONNECTS -eq 2
expect_ctr EDGE_DISCONNECTS -eq 2
expect_ctr EDGE_VU_PROTO_ERRORS -eq 0
expect_ctr EDGE_VU_RING_ERRORS -eq 0
[ "$(ctr EDGE_VU_RETURNS)" = $(($(ctr EDGE_VU_LOANS) + $(ctr EDGE_VU_COPIES))) ] ||
	fail "chains taken $(($(ctr EDGE_VU_LOANS) + $(ctr EDGE_VU_COPIES))), returned $(ctr EDGE_VU_RETURNS)"
expect_ctr TCP_GUEST_BYTES -ge $((SIZE << 20))
# payload is placed in the guest's buffers when it takes partial checksums
# (mq, csum), copied when it does not (plain)
if [ "$MODE" = plain ]; then
	expect_ctr EDGE_VU_PLACED -eq 0
else
	expect_ctr EDGE_VU_PLACED -gt 0
fi
pass "QEMU guest over vhost-user ($MODE): DHCP, ping, $SIZE MiB each way checksummed (${t1}s), features read back, a second VM served"

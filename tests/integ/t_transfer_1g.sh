#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_transfer_1g.sh - 1 GiB each way, payload-verified, over guest-opened
# flows (guest -> host loopback via 10.0.2.2) and a published port
# (host -> guest server)
. "$(dirname "$0")/lib.sh"
require_root
SIZE=${SIZE:-1G}
BYTES=$((1 << 30))
[ "$SIZE" = 1G ] || BYTES=$("$PY" -c "import sys;u={'K':1<<10,'M':1<<20,'G':1<<30};s=sys.argv[1];print(int(s[:-1])*u[s[-1]] if s[-1] in u else int(s))" "$SIZE")

pub=$(free_port)
# --no-splice: the published port is the tap path under test here (the
# loopback splice has t_splice.sh)
start_slipway --no-splice -t "127.0.0.1/$pub:5001" ${SW_OPTS:-}

# guest -> host: guest client sends, host server verifies
xfer_guest_send 10.0.2.2 "$SIZE"
# host -> guest over a guest-opened flow: host server sends, guest verifies
xfer_guest_recv 10.0.2.2 "$SIZE"
# host -> guest through the published port: guest server verifies
xfer_pub_send "$pub" 5001 "$SIZE"

stop_slipway
check_gates
expect_ctr TCP_GUEST_BYTES -ge "$BYTES"
expect_ctr TCP_ACKED_BYTES -ge $((BYTES * 2))
expect_ctr TCP_FLOWS_OPENED_GUEST -eq 2
expect_ctr TCP_FLOWS_OPENED_HOST -eq 1
expect_ctr TCP_FLOWS_CLOSED -eq 3
if [ -n "${EXPECT_GSO:-}" ]; then
	# at a small MTU, data toward the guest goes as GSO super-frames
	expect_ctr TCP_TX_GSO_FRAMES -gt 0
	expect_ctr EDGE_RX_GSO_FRAMES -gt 0 # and the guest sends TSO frames
fi
if [ -n "${EXPECT_MIDBATCH:-}" ]; then
	# --ack-every 2 at MTU 1500: TSO frames from the guest carry many
	# segments each, so ACKs go out within batches
	expect_ctr TCP_ACKS_MIDBATCH -gt 0
fi
if [ -n "${EXPECT_NO_MIDBATCH:-}" ]; then
	# --ack-every 0: ACKs only at the end of each batch
	expect_ctr TCP_ACKS_MIDBATCH -eq 0
	expect_ctr TCP_ACKS_SENT -gt 0
fi
g1=$(json_last "$T/c1.json" gbps)
g2=$(json_last "$T/c2.json" gbps)
pass "$SIZE guest->host ${g1} Gbit/s, host->guest ${g2} Gbit/s, published port verified"

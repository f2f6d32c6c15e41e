#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_pcap.sh - --pcap: a verified transfer each way on two shards, then the
# file read back with tcpdump and parsed: one record per frame crossing the
# edge (records = PCAP_FRAMES = EDGE_RX_FRAMES + EDGE_TX_FRAMES, split by
# source MAC as the edge counted them), no virtio-net header (Ethernet at
# offset 0), the TCP sequence space of each transfer covering exactly its
# bytes; then --pcap-max: the file stops below the cap, with a log line
# and PCAP_FRAMES_LOST, and is still readable.
. "$(dirname "$0")/lib.sh"
require_root
command -v tcpdump >/dev/null || { echo "SKIP: no tcpdump"; exit 77; }

SIZE=$((4 * 1024 * 1024))
start_slipway --shards 2 --pcap "$T/cap.pcap"
xfer_guest_send 10.0.2.2 "$SIZE"
p1=$XFER_PORT
xfer_guest_recv 10.0.2.2 "$SIZE"
p2=$XFER_PORT
wait_flows_gone
stop_slipway
check_gates

n_tcpdump=$(tcpdump -nr "$T/cap.pcap" 2>/dev/null | wc -l)
"$PY" - "$T/cap.pcap" "$T/stats.json" "$p1" "$p2" "$SIZE" "$n_tcpdump" <<'EOS' || fail "pcap contents"
import json, struct, sys
path, stats, p1, p2, size, n_td = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
c = json.load(open(stats))["counters"]
d = open(path, "rb").read()
magic, major, minor, _, _, snap, link = struct.unpack("<IHHiIII", d[:24])
assert (magic, major, minor, snap, link) == (0xa1b2c3d4, 2, 4, 65535, 1), (magic, snap, link)
assert len(d) == 24 + c["PCAP_BYTES"], (len(d), c["PCAP_BYTES"])
ours = bytes.fromhex("525600000002")
off, n, rx, tx = 24, 0, 0, 0
data = {}  # (src port, dst port) -> [lowest seq, highest end]
syn = {}
last_ts = {}
while off < len(d):
    ts, us, cap, orig = struct.unpack("<IIII", d[off:off + 16])
    f = d[off + 16:off + 16 + cap]
    assert cap == len(f) and cap <= 65535 and cap <= orig and us < 1000000, (cap, orig, us)
    off += 16 + cap
    n += 1
    if f[6:12] == ours:
        tx += 1
    else:
        rx += 1
    if f[12:14] != b"\x08\x00" or f[23] != 6:
        continue
    ihl = (f[14] & 15) * 4
    tot = struct.unpack(">H", f[16:18])[0]
    t = 14 + ihl
    sp, dp, seq = struct.unpack(">HHI", f[t:t + 8])
    thl = (f[t + 12] >> 4) * 4
    flags = f[t + 13]
    plen = tot - ihl - thl
    if flags & 2:
        syn[(sp, dp)] = seq
    if plen > 0:
        e = data.setdefault((sp, dp), [seq, seq + plen])
        e[1] = max(e[1], seq + plen)
assert off == len(d)
assert n == n_td == c["PCAP_FRAMES"], (n, n_td, c["PCAP_FRAMES"])
assert rx == c["EDGE_RX_FRAMES"] and tx == c["EDGE_TX_FRAMES"], (rx, tx, c["EDGE_RX_FRAMES"], c["EDGE_TX_FRAMES"])
assert c["PCAP_FRAMES_LOST"] == 0 and c["PCAP_WRITE_ERRORS"] == 0
up = [k for k in data if k[1] == p1]
down = [k for k in data if k[0] == p2]
assert len(up) == 1 and len(down) == 1, data.keys()
for k in up + down:
    lo, hi = data[k]
    assert lo == (syn[k] + 1) & 0xffffffff, (k, lo, syn[k])
    assert (hi - lo) & 0xffffffff == size, (k, hi - lo, size)
print("pcap: %d records (%d from the guest, %d to it), both transfers complete" % (n, rx, tx))
EOS

# the cap: 64 KiB, a 1 MiB transfer
rm -f "$T/stats.json"
ip netns del "$NS"
start_slipway --pcap "$T/cap2.pcap" --pcap-max 64k
xfer_guest_send 10.0.2.2 $((1024 * 1024))
wait_flows_gone
stop_slipway
sz=$(stat -c %s "$T/cap2.pcap")
[ "$sz" -le 65536 ] || fail "the capped file has $sz bytes, more than 65536"
[ "$sz" = $((24 + $(ctr PCAP_BYTES))) ] || fail "file size $sz != 24 + PCAP_BYTES"
expect_ctr PCAP_FRAMES_LOST -gt 0
grep -q "reached --pcap-max" "$T/slipway.log" || fail "no log line at the cap"
[ "$(grep -c "reached --pcap-max" "$T/slipway.log")" = 1 ] || fail "the cap was logged more than once"
n2=$(tcpdump -nr "$T/cap2.pcap" 2>/dev/null | wc -l)
[ "$n2" = "$(ctr PCAP_FRAMES)" ] || fail "tcpdump read $n2 records, PCAP_FRAMES = $(ctr PCAP_FRAMES)"
[ "$(($(ctr PCAP_FRAMES) + $(ctr PCAP_FRAMES_LOST)))" = "$(($(ctr EDGE_RX_FRAMES) + $(ctr EDGE_TX_FRAMES)))" ] ||
	fail "captured + lost != frames crossing the edge"
pass "pcap read back: frames and both transfers' bytes; capped at 64 KiB"

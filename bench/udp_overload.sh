#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_overload.sh - UDP overload through slipway's tap path (issue 27): a
# guest namespace of our own behind slipway, iperf3 servers on the host
# side's 127.0.0.1; iperf3 -u -l 1400 -t 3 from the guest at offered rates
# of 200M, 500M, 1G, 2G and as fast as possible, each direction, REPS
# times (delivered Gbit/s, loss %); then a 3 s TCP iperf3 alone and under
# a 5 s UDP flood from the same guest (Gbit/s each); slipway's drop
# counters at the end. Same window: compare only within one run.
#   bench/udp_overload.sh [SLIPWAY_BIN]     (as root; REPS=N, default 3)
BIN=${1:-build/src/slipway}; REPS=${REPS:-3}
NS=ovl$$
T=$(mktemp -d)
GP='' S1='' S2=''
# shellcheck disable=SC2317
cleanup() {
	kill $GP $S1 $S2 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
ip netns add $NS; ip netns exec $NS ip link set lo up
iperf3 -s -p 5401 -B 127.0.0.1 >/dev/null 2>&1 & S1=$!
iperf3 -s -p 5402 -B 127.0.0.1 >/dev/null 2>&1 & S2=$!
$BIN --netns /run/netns/$NS --no-splice --ctl none -q --stats-file "$T/ovl.stats" & GP=$!
for _ in $(seq 50); do ip netns exec $NS ip route | grep -q default && break; sleep 0.1; done; sleep 0.5
udp() { # dir rate -> delivered gbps, lost%
  local R=""; [ "$1" = down ] && R=-R
  ip netns exec $NS iperf3 -c 10.0.2.2 -p 5401 -u -b $2 -l 1400 -t 3 $R -J 2>/dev/null | python3 -c '
import json,sys; j=json.load(sys.stdin); e=j["end"]; r=e.get("sum_received",e["sum"]); s=e["sum"]
print("%.3f %.1f" % (r["bits_per_second"]/1e9, s.get("lost_percent",0)))'
}
for dir in up down; do
 for rate in 200M 500M 1G 2G 0; do
  for _ in $(seq "$REPS"); do echo "udp $dir $rate $(udp $dir $rate)"; done
 done
done
tcp() { ip netns exec $NS iperf3 -c 10.0.2.2 -p 5402 -t 3 $1 -J 2>/dev/null | python3 -c '
import json,sys; j=json.load(sys.stdin); print("%.2f" % (j["end"]["sum_received"]["bits_per_second"]/1e9))'; }
for dir in up down; do
 R=""; [ $dir = down ] && R=-R
 for _ in $(seq "$REPS"); do
  a=$(tcp "$R")
  ip netns exec $NS iperf3 -c 10.0.2.2 -p 5401 -u -b 0 -l 1400 -t 5 $R >/dev/null 2>&1 & UP=$!
  sleep 1
  b=$(tcp "$R")
  wait $UP
  echo "tcp $dir alone $a with-udp-flood $b"
 done
done
kill $GP; wait $GP
python3 -c "
import json; c=json.load(open('$T/ovl.stats'))['counters']
print({k:v for k,v in c.items() if v and (k.startswith('UDP') or 'POOL' in k or 'EDGE_TX_DROP' in k)})"

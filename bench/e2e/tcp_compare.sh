#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tcp_compare.sh - same-window TCP throughput: slipway's tap path against
# the kernel's veth path (the limit), both directions, interleaved trials.
#
# Everything runs inside namespaces this script creates: a "host"
# namespace H (where iperf3 listens, on 127.0.0.1 for slipway and on a veth
# address for the kernel path) and guest namespaces behind each path. For
# every trial the paths run back to back (A B A B ...), so both see the
# same machine state. Output: a table with median and min-max, and a JSON
# file with every trial and a manifest (commit, kernel, CPU, command lines).
#
#   bench/e2e/tcp_compare.sh [-t SECONDS] [-n TRIALS] [-P STREAMS] [-o OUT.json]
set -eu
cd "$(dirname "$0")/../.."
SECS=5
TRIALS=3
STREAMS=1
OUT=bench-tcp-$(date +%Y%m%d-%H%M%S).json
while getopts "t:n:P:o:" o; do
	case $o in
	t) SECS=$OPTARG ;;
	n) TRIALS=$OPTARG ;;
	P) STREAMS=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) echo "usage: $0 [-t SECONDS] [-n TRIALS] [-P STREAMS] [-o OUT.json]" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "run as root (namespaces)"; exit 1; }
SW=${SLIPWAY:-build/src/slipway}
[ -x "$SW" ] || { echo "build slipway first (ninja -C build)"; exit 1; }
H=swbh$$
GV=swbv$$
GS=swbs$$
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	sleep 0.2
	for n in $H $GV $GS; do ip netns del $n 2>/dev/null || true; done
}
trap cleanup EXIT
ip netns add $H
ip netns add $GV
ip netns add $GS
ip -n $H link set lo up
ip -n $GV link set lo up
ip -n $H link add vh type veth peer name vg netns $GV
ip -n $H addr add 10.200.0.1/24 dev vh
ip -n $GV addr add 10.200.0.2/24 dev vg
ip -n $H link set vh up
ip -n $GV link set vg up
ip netns exec $H iperf3 -s -p 5201 >/dev/null 2>&1 &
PIDS+=($!)
ip netns exec $H "$SW" --netns $GS --stats-file /tmp/swb-stats-$$.json >/dev/null 2>&1 &
PIDS+=($!)
sleep 1

run() { # ns server-addr reverse(0/1) -> Gbit/s, plus CPU of slipway
	local ns=$1 addr=$2 rev=$3 r=""
	[ "$rev" = 1 ] && r=-R
	ip netns exec "$ns" iperf3 -c "$addr" -p 5201 -t "$SECS" -P "$STREAMS" $r -J |
		/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]/1e9)'
}
declare -A R
for t in $(seq "$TRIALS"); do
	for dir in 0 1; do
		R[veth,$dir]+="$(run $GV 10.200.0.1 $dir) "
		R[slipway,$dir]+="$(run $GS 10.0.2.2 $dir) "
	done
done

/usr/bin/python3 - "$OUT" "$SECS" "$TRIALS" "$STREAMS" \
	"${R[veth,0]}" "${R[veth,1]}" "${R[slipway,0]}" "${R[slipway,1]}" <<'PY'
import json, os, platform, statistics, subprocess, sys
out, secs, trials, streams = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
v = [list(map(float, s.split())) for s in sys.argv[5:9]]
rows = {("veth", "guest->host"): v[0], ("veth", "host->guest"): v[1],
        ("slipway", "guest->host"): v[2], ("slipway", "host->guest"): v[3]}
def summ(x):
    return {"median": statistics.median(x), "min": min(x), "max": max(x), "trials": x}
res = {f"{p} {d}": summ(x) for (p, d), x in rows.items()}
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
man = {"commit": commit, "kernel": platform.release(), "cpu": cpu, "cpus": os.cpu_count(),
       "iperf3": f"iperf3 -c ADDR -t {secs} -P {streams} [-R] (interleaved veth, slipway)",
       "trials": trials}
json.dump({"manifest": man, "results": res}, open(out, "w"), indent=1)
print(f"TCP throughput, Gbit/s, P{streams}, {secs} s, {trials} interleaved trials ({commit}, {platform.release()})")
print(f"{'path':10} {'direction':12} {'median':>7} {'min-max':>13} {'vs veth':>8}")
for (p, d), x in rows.items():
    ref = statistics.median(rows[("veth", d)])
    print(f"{p:10} {d:12} {statistics.median(x):7.1f} {min(x):6.1f}-{max(x):<6.1f} {statistics.median(x)/ref:8.2f}")
print(f"results: {out}")
PY

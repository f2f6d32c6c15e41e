#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# migrate.sh - the downtime a live migration's network hand-over adds,
# with 1, 100 and 10,000 open TCP flows (issue 18).
#
# Per run: slipway A (--vhost-user, --migrate-to) and B (--vhost-user,
# --migrate-from), both -d (the migration lines are info), one shard each;
# tests/instruments/swvu in a guest namespace of our own is the VM (one queue pair).
# The guest holds N idle verified connections to a host server
# (tests/instruments/swconn hold -> swconn server on 127.0.0.1) plus one active
# transfer (swverify, host -> guest, byte-checked) so that the first frame
# after the hand-over comes at once. Then swvu is told (SIGHUP) to migrate:
# dirty logging on, every ring stopped (GET_VRING_BASE, its CLOCK_REALTIME
# noted: "the stop"), the device set up again on B with the same memory
# and ring bases. Measured per run:
#   handover_ms  A: "N TCP flows ... handed to PATH in X ms (B bytes)":
#                connect, export, send, B's answer
#   state_bytes  the same line's B
#   taken_ms     B: "state taken ... X ms after the source stopped"
#   flows_in_ms  B: "shard 0: flows in, ...; X ms after the source stopped"
#   fwd_ms       B: "shard 0: first frame forwarded ...; X ms after ..."
#   (the three from A's stop stamp, taken when its device stopped, by the
#   wall clock: one host here)
#   vm_rx_ms     swvu: first frame backend->tap after the stop (the VM's
#                view: from the last GET_VRING_BASE answer)
#   vm_tx_ms     swvu: first frame tap->backend taken by B after the stop
# Gates (a run that breaks one fails the script): the transfer completes
# byte-exact, swconn holds all N with none dropped, B took N+1 flows, A
# exits 0 by itself with its gates (tests/integ/lib.sh check_gates), B's
# gates hold at the end.
# Trials are interleaved (1 100 10000 1 100 10000 ...). Results:
# OUT/raw.tsv (one line a run), OUT/table.md (median and range), logs.
#
#   bench/migrate.sh [-n TRIALS] [--flows "1 100 10000"] [-o DIR]
#                    [--bytes SIZE] [--strict]
# --strict: no swvu --return-lost (a source that leaves transmit entries
# taken and never returned fails the run; see docs/benchmarks.md).
set -u
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
TRIALS=3
FLOWS="1 100 10000"
OUT=""
BYTES=4G
LOST=(--return-lost)
while [ $# -gt 0 ]; do
	case $1 in
	-n) TRIALS=${2:?}; shift 2 ;;
	--flows) FLOWS=${2:?}; shift 2 ;;
	-o) OUT=${2:?}; shift 2 ;;
	--bytes) BYTES=${2:?}; shift 2 ;;
	--strict) LOST=(); shift ;;
	-h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "migrate.sh: unknown argument '$1' (--help)" >&2; exit 2 ;;
	esac
done
export SLIPWAY=${SLIPWAY:-$ROOT/build/src/slipway}
export SWVERIFY=${SWVERIFY:-$ROOT/build/tests/instruments/swverify}
SWVU=${SWVU:-$ROOT/build/tests/instruments/swvu}
SWCONN=${SWCONN:-$ROOT/build/tests/instruments/swconn}
for b in "$SLIPWAY" "$SWVERIFY" "$SWVU" "$SWCONN"; do
	[ -x "$b" ] || { echo "migrate.sh: no $b (ninja -C build)" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "migrate.sh: run as root (namespaces)" >&2; exit 2; }
OUT=${OUT:-$ROOT/bench/results/migrate-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT/logs"
# 10,000 flows: each of slipway A, B, the host server and the guest's
# holder has one socket a flow (so each needs N + some), and descriptors
# in flight in SCM_RIGHTS messages count against the sender's limit (per
# user); slipway raises its soft limit to the hard one. Raising the hard
# limit needs CAP_SYS_RESOURCE.
maxn=0
for n in $FLOWS; do [ "$n" -gt "$maxn" ] && maxn=$n; done
need=$((maxn + 2048))
if [ "$(ulimit -Hn)" != unlimited ] && [ "$(ulimit -Hn)" -lt $need ]; then
	ulimit -Hn $need || { echo "migrate.sh: cannot raise the open files limit to $need" >&2; exit 2; }
fi
ulimit -n "$(ulimit -Hn)"
. "$ROOT/tests/integ/lib.sh"
echo "open files limit $(ulimit -n); results in $OUT"
printf 'flows\ttrial\thandover_ms\tstate_bytes\ttaken_ms\tflows_in_ms\tfwd_ms\tvm_rx_ms\tvm_tx_ms\tlost\n' >"$OUT/raw.tsv"

# num FILE REGEX: the first number the regex's group 1 catches in FILE
num() {
	sed -nE "s/.*$2.*/\\1/p" "$1" | head -1
}

# run N TRIAL: one migration with N idle flows; appends a line to raw.tsv
run() {
	local n=$1 k=$2 d=$T/run-$1-$2 p a b vm hold xs xc srv rc line
	mkdir -p "$d/A" "$d/B"
	NS=swmg$$x$n$k
	make_ns "$NS"
	"$SLIPWAY" --vhost-user "$d/A/sw.sock" --shards 1 -d --migrate-to "$d/state.sock" \
		--stats-file "$d/A/stats.json" --resolv-conf "$T/resolv.conf" >"$d/A/slipway.log" 2>&1 &
	a=$!
	"$SLIPWAY" --vhost-user "$d/B/sw.sock" --shards 1 -d --migrate-from "$d/state.sock" \
		--stats-file "$d/B/stats.json" --resolv-conf "$T/resolv.conf" >"$d/B/slipway.log" 2>&1 &
	b=$!
	PIDS+=("$a" "$b")
	wait_for "A and B" 10 "[ -S $d/A/sw.sock ] && [ -S $d/B/sw.sock ]"
	(T=$d/A SW_PID=$a wait_started && T=$d/B SW_PID=$b wait_started) || exit 1
	ip netns exec "$NS" "$SWVU" --tap tap0 --socket "$d/A/sw.sock" \
		--migrate-to "$d/B/sw.sock" --after 3600000 "${LOST[@]}" >"$d/swvu.log" 2>&1 &
	vm=$!
	PIDS+=("$vm")
	wait_for "the VM's tap" 10 "ip -n $NS link show tap0 2>/dev/null | grep -q UP"
	g ip link set lo up
	g ip addr add 10.0.2.15/24 dev tap0
	g ip route add default via 10.0.2.2
	p=$(free_port)
	"$SWCONN" server "$p" >"$d/server.json" 2>&1 &
	srv=$!
	PIDS+=("$srv")
	wait_listen "$p"
	ip netns exec "$NS" "$SWCONN" hold 10.0.2.2 "$p" --count "$n" --ready-file "$d/held" >"$d/hold.json" 2>&1 &
	hold=$!
	PIDS+=("$hold")
	wait_for "$n held flows" 300 "[ -e $d/held ] || ! kill -0 $hold 2>/dev/null"
	[ -e "$d/held" ] || fail "swconn hold: $(cat "$d/hold.json")"
	p=$(free_port)
	"$SWVERIFY" server --listen "127.0.0.1:$p" --mode send --bytes "$BYTES" --once \
		--ready-file "$d/xr" >"$d/xs.json" 2>&1 &
	xs=$!
	PIDS+=("$xs")
	wait_for "transfer server" 10 "[ -e $d/xr ]"
	ip netns exec "$NS" "$SWVERIFY" client --connect "10.0.2.2:$p" --mode recv --bytes "$BYTES" \
		--timeout 300 --stall 10 >"$d/xc.json" 2>&1 &
	xc=$!
	PIDS+=("$xc")
	sleep 1
	kill -0 "$xc" 2>/dev/null || fail "the transfer ended before the migration: $(cat "$d/xc.json")"
	kill -HUP "$vm"
	wait_for "B's first frame" 30 "grep -q 'shard 0: first frame forwarded' $d/B/slipway.log || ! kill -0 $vm"
	kill -0 "$vm" 2>/dev/null || fail "swvu: $(tail -3 "$d/swvu.log")"
	wait "$xc" || fail "transfer across the migration ($n flows): $(cat "$d/xc.json")"
	wait "$xs" || fail "transfer server ($n flows): $(cat "$d/xs.json")"
	# A: handed over, its frontend gone: it ends by itself
	reap "$a" 30
	rc=$?
	[ $rc = 124 ] && fail "slipway A still runs after the migration ($n flows)"
	[ $rc = 0 ] || fail "slipway A exited with $rc ($n flows)"
	(T=$d/A check_gates) || exit 1
	kill -TERM "$hold"
	wait "$hold" || fail "swconn hold ($n flows) after the migration: $(cat "$d/hold.json")"
	(T=$d/B SW_PID=$b wait_flows_gone) || exit 1
	kill -TERM "$vm"
	wait "$vm" || fail "swvu: $(tail -3 "$d/swvu.log")"
	kill -TERM "$b"
	wait "$b" || fail "slipway B exited with $? ($n flows)"
	(T=$d/B check_gates) || exit 1
	grep -q "state taken: $((n + 1)) TCP flows" "$d/B/slipway.log" ||
		fail "B did not take $((n + 1)) flows: $(grep 'state taken' "$d/B/slipway.log")"
	line=$n$'\t'$k
	line+=$'\t'$(num "$d/A/slipway.log" 'handed to .* in ([0-9.]+) ms')
	line+=$'\t'$(num "$d/A/slipway.log" 'handed to .* ms \(([0-9]+) bytes\)')
	line+=$'\t'$(num "$d/B/slipway.log" 'state taken: .*, ([0-9.]+) ms after')
	line+=$'\t'$(num "$d/B/slipway.log" 'shard 0: flows in, .*; ([0-9.]+) ms after the source')
	line+=$'\t'$(num "$d/B/slipway.log" 'shard 0: first frame forwarded .*; ([0-9.]+) ms after the source')
	line+=$'\t'$(num "$d/swvu.log" 'first frame backend->tap ([0-9.]+) ms after')
	line+=$'\t'$(num "$d/swvu.log" 'first frame tap->backend ([0-9.]+) ms after')
	line+=$'\t'$(num "$d/swvu.log" 'queue [0-9]+: ([0-9]+) entries the source took')
	echo "$line" >>"$OUT/raw.tsv"
	echo "$line"
	kill -TERM "$srv"
	wait "$srv"
	cp -r "$d" "$OUT/logs/"
	ip netns del "$NS"
	# every process of the run has ended and been waited for
	PIDS=()
}

echo "nameserver 127.0.0.1" >"$T/resolv.conf"
printf 'flows\ttrial\thandover_ms\tstate_bytes\ttaken_ms\tflows_in_ms\tfwd_ms\tvm_rx_ms\tvm_tx_ms\tlost\n'
for ((k = 1; k <= TRIALS; k++)); do
	for n in $FLOWS; do
		run "$n" "$k"
	done
done
"$PY" - "$OUT/raw.tsv" >"$OUT/table.md" <<'EOS'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
cols = ["handover_ms", "state_bytes", "taken_ms", "flows_in_ms", "fwd_ms",
        "vm_rx_ms", "vm_tx_ms"]
print("| flows | runs | " + " | ".join(cols) + " |")
print("|---:|---:|" + "---:|" * len(cols))
for n in dict.fromkeys(r["flows"] for r in rows):
    rs = [r for r in rows if r["flows"] == n]
    cells = []
    for c in cols:
        v = sorted(float(r[c]) for r in rs if r[c])
        if not v:
            cells.append("-")
            continue
        f = "%.0f" if c == "state_bytes" else "%.1f"
        cells.append((f + " (" + f + "–" + f + ")") %
                     (statistics.median(v), v[0], v[-1]))
    print("| %s | %d | %s |" % (n, len(rs), " | ".join(cells)))
lost = [r for r in rows if r["lost"]]
if lost:
    print("\n%d of %d runs: the source left transmit entries taken and never "
          "returned (%s), returned by swvu --return-lost" %
          (len(lost), len(rows), ", ".join(r["lost"] for r in lost)))
EOS
cat "$OUT/table.md"

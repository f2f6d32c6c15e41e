#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# flows.sh - how long a `flows` request takes on a slipway holding N open
# TCP flows (issue 26, "Cheap to watch": 10,000 flows, within 100 ms).
#
# One slipway (--netns GUEST --ctl SOCK, run in a "host" namespace H of
# our own, lo up) serves a guest namespace of our own. The guest opens N
# idle verified TCP connections (tests/instruments/swconn hold) to
# 10.0.2.2:PORT = H's 127.0.0.1:PORT, where swconn server holds them open.
# Once `slipway ctl SOCK flows --limit 1 --json` reports total >= N:
#   request  T times: a python3 client speaking the control protocol (one
#            line of JSON, shutdown(SHUT_WR), the reply read to EOF, as
#            src/ctl/ctl_client.c ask() does) asks for the whole table
#            ({"cmd":"flows","limit":L}, L >= the table); timed from
#            connect() to the reply's last byte (CLOCK_MONOTONIC). Every
#            reply is parsed afterwards (not timed): valid JSON, total >= N,
#            as many records as total, not truncated.
#   cpu      slipway's utime+stime (/proc/PID/stat, all threads) over the T
#            requests, per request.
#   ctl      --top-runs times `slipway ctl SOCK flows --json --limit L`
#            (a process start, the same request, the JSON printed): what a
#            script waits for.
#   top      --top-runs times `slipway top -b -n 1 SOCK` when this slipway
#            has `top` (skipped with a note when not).
# Median, min and max of each; the reply's size. Gates (exit status 1):
# all N flows held with none dropped (swconn hold exits 0), every reply
# complete and valid, slipway alive throughout, exits 0 on SIGTERM with
# its integrity gates (tests/integ/lib.sh check_gates) once every flow
# ended. The 100 ms target is printed (MET/MISSED) on the median, not a
# gate.
#
# Limits: slipway, the server and the holder each hold one socket a flow:
# each gets an open-file limit of N + 1024 (the hard limit is raised when
# it can be: CAP_SYS_RESOURCE). slipway gets --max-flows N + 256 when its
# default is smaller.
#
#   bench/flows.sh [-N FLOWS] [-T REQUESTS] [--top-runs K] [-o DIR]
#                  [--sw-opts "OPTIONS"]
#   -N FLOWS        idle TCP flows to hold (default 10000)
#   -T REQUESTS     timed flows requests (default 20)
#   --top-runs K    timed `slipway ctl ... flows` and `slipway top -b -n 1`
#                   runs (default 5)
#   -o DIR          results (default bench/results/flows-DATE-TIME):
#                   raw.json, summary.txt, logs
#   --sw-opts "..." more slipway options (e.g. "--shards 2")
# Environment: SLIPWAY (default build/src/slipway), SWCONN
# (build/tests/instruments/swconn). Run as root (namespaces).
set -u
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
N=10000
REQS=20
TOPRUNS=5
OUT=""
SWOPTS=""
while [ $# -gt 0 ]; do
	case $1 in
	-N) N=${2:?}; shift 2 ;;
	-T) REQS=${2:?}; shift 2 ;;
	--top-runs) TOPRUNS=${2:?}; shift 2 ;;
	-o) OUT=${2:?}; shift 2 ;;
	--sw-opts) SWOPTS=${2?}; shift 2 ;;
	-h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "flows.sh: unknown argument '$1' (--help)" >&2; exit 2 ;;
	esac
done
for v in "-N $N" "-T $REQS" "--top-runs $TOPRUNS"; do
	[[ ${v#* } =~ ^[1-9][0-9]*$ ]] || { echo "flows.sh: ${v% *} wants a positive whole number, got '${v#* }'" >&2; exit 2; }
done
export SLIPWAY=${SLIPWAY:-$ROOT/build/src/slipway}
# lib.sh wants it set; this script does not use it
export SWVERIFY=${SWVERIFY:-$ROOT/build/tests/instruments/swverify}
SWCONN=${SWCONN:-$ROOT/build/tests/instruments/swconn}
for b in "$SLIPWAY" "$SWCONN"; do
	[ -x "$b" ] || { echo "flows.sh: no $b (ninja -C build)" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "flows.sh: run as root (namespaces)" >&2; exit 2; }
OUT=${OUT:-$ROOT/bench/results/flows-$(date +%Y%m%d-%H%M%S)}
if [ -e "$OUT" ] && [ -n "$(ls -A "$OUT" 2>/dev/null)" ]; then
	echo "flows.sh: $OUT exists and is not empty" >&2
	exit 2
fi
mkdir -p "$OUT/logs" || exit 2
OUT=$(cd "$OUT" && pwd)
# every process here inherits this shell's limit: slipway (which raises its
# soft limit to the hard one anyway), the server and the holder
need=$((N + 1024))
if [ "$(ulimit -Hn)" != unlimited ] && [ "$(ulimit -Hn)" -lt $need ]; then
	ulimit -Hn $need 2>/dev/null ||
		{ echo "flows.sh: $N flows need an open-file limit of $need; the hard limit is $(ulimit -Hn) and cannot be raised here (no CAP_SYS_RESOURCE): use -N $(($(ulimit -Hn) - 1024)) or less" >&2; exit 2; }
fi
ulimit -n "$(ulimit -Hn)"
. "$ROOT/tests/integ/lib.sh"
# the flow table must hold N (and the spliced table is sized alike)
MAXF=()
swmax=$("$SLIPWAY" --help 2>&1 | sed -n 's/.*--max-flows.*(default: \([0-9]*\)).*/\1/p')
[ -n "$swmax" ] && [ "$swmax" -ge $((N + 256)) ] || MAXF=(--max-flows $((N + 256)))
# the whole table in one reply: the protocol's cap is 1,000,000
LIMIT=$((N * 2 > 10000 ? N * 2 : 10000))
[ $LIMIT -gt 1000000 ] && LIMIT=1000000
PORT=5701
CTL=$T/ctl.sock
read -r -a EXTRA <<<"$SWOPTS"
{
	echo "date $(date -u +%FT%TZ)"
	# the commit names the binary only when it is this tree's build
	if [ "$(realpath "$SLIPWAY")" = "$(realpath -m "$ROOT/build/src/slipway")" ]; then
		echo "commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)$(git -C "$ROOT" status --porcelain 2>/dev/null | grep -qv '^??' && echo ' (work tree changed)')"
	else
		echo "commit ? ($SLIPWAY, sha256 $(sha256sum "$SLIPWAY" | cut -c1-12))"
	fi
	echo "slipway $SLIPWAY $(sha256sum "$SLIPWAY" | cut -c1-16)"
	echo "kernel $(uname -r); cpus $(nproc); load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "flows $N; requests $REQS; limit $LIMIT; top-runs $TOPRUNS; nofile $(ulimit -n)"
	echo "slipway options ${MAXF[*]} ${EXTRA[*]}"
} >"$OUT/manifest.txt"
echo "flows.sh: $N flows, $REQS requests; results in $OUT" >&2

make_host_ns swfH
launch_slipway "$H" --ctl "$CTL" "${MAXF[@]}" "${EXTRA[@]}"
g ip link set lo up
ip netns exec "$H" "$SWCONN" server $PORT >"$OUT/logs/server.json" 2>&1 &
SRV=$!
PIDS+=("$SRV")
wait_listen $PORT "$H"
t0=$EPOCHREALTIME
ip netns exec "$NS" "$SWCONN" hold 10.0.2.2 $PORT --count "$N" --ready-file "$T/held" --timeout 300 \
	>"$OUT/logs/hold.json" 2>&1 &
HOLD=$!
PIDS+=("$HOLD")
wait_for "$N held flows" 320 "[ -e $T/held ] || ! kill -0 $HOLD 2>/dev/null"
[ -e "$T/held" ] || fail "swconn hold: $(tail -c 300 "$OUT/logs/hold.json")"
OPEN_S=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.1f", b - a}')
# flows_total: what `slipway ctl SOCK flows --limit 1 --json` says total is
flows_total() {
	"$SLIPWAY" ctl "$CTL" flows --limit 1 --json 2>/dev/null |
		"$PY" -c 'import json,sys; print(json.load(sys.stdin)["total"])' 2>/dev/null || echo 0
}
wait_for "slipway's flows total >= $N (now $(flows_total))" 30 "[ \$(flows_total) -ge $N ]"
echo "flows.sh: $N flows held (opened in $OPEN_S s); slipway reports $(flows_total)" >&2

# does this slipway have top? (issue 26 adds it)
HAS_TOP=0
TOPNOTE=""
timeout -k 2 60 "$SLIPWAY" top -b -n 1 "$CTL" >"$OUT/logs/top-probe.txt" 2>"$OUT/logs/top-probe.err"
rc=$?
if [ $rc = 0 ] && [ -s "$OUT/logs/top-probe.txt" ]; then
	HAS_TOP=1
else
	TOPNOTE="this slipway has no working 'top' (rc $rc: $(head -c 160 "$OUT/logs/top-probe.err" | head -1))"
	echo "flows.sh: top skipped: $TOPNOTE" >&2
fi

"$PY" - "$CTL" "$LIMIT" "$REQS" "$N" "$SW_PID" "$SLIPWAY" "$TOPRUNS" "$HAS_TOP" "$OUT/raw.json" <<'EOF' || fail "the timed requests failed"
import json, os, socket, statistics, subprocess, sys, time

ctl, limit, reqs, n, pid, sw, runs, has_top, out = sys.argv[1:]
limit, reqs, n, runs, has_top = int(limit), int(reqs), int(n), int(runs), has_top == "1"
tck = os.sysconf("SC_CLK_TCK")


def ticks():
    """slipway's utime + stime, all threads, in clock ticks."""
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(f[11]) + int(f[12])


def ask(req):
    """One request, as ctl_client.c ask(): a line, SHUT_WR, read to EOF.
    Returns (seconds from connect to the last byte, reply bytes)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    parts = []
    t0 = time.monotonic()
    s.connect(ctl)
    s.sendall(req)
    s.shutdown(socket.SHUT_WR)
    while True:
        b = s.recv(1 << 20)
        if not b:
            break
        parts.append(b)
    t1 = time.monotonic()
    s.close()
    return t1 - t0, b"".join(parts)


def check(reply, what):
    """A complete flows reply with the whole table: exits 1 if not."""
    try:
        r = json.loads(reply)
    except ValueError as e:
        sys.exit(f"{what}: reply is not JSON ({e}; {len(reply)} bytes)")
    fl = r.get("flows")
    if not isinstance(fl, list) or not isinstance(r.get("total"), int):
        sys.exit(f"{what}: no flows list or total: {reply[:200]!r}")
    if r["total"] < n or len(fl) != r["total"] or r.get("truncated"):
        sys.exit(f"{what}: total {r['total']}, {len(fl)} records, truncated "
                 f"{r.get('truncated')} (want >= {n}, all of them)")
    return r["total"]


def summary(v):
    v = sorted(v)
    return {"median": statistics.median(v), "min": v[0], "max": v[-1], "n": len(v)}


req = json.dumps({"cmd": "flows", "limit": limit}).encode() + b"\n"
# one unmeasured request (first touch of the reply's buffers)
check(ask(req)[1], "warm-up")
times, sizes, totals = [], [], []
c0 = ticks()
for i in range(reqs):
    dt, reply = ask(req)
    times.append(dt * 1000)
    sizes.append(len(reply))
    totals.append(reply)
c1 = ticks()
totals = [check(r, f"request {i + 1}") for i, r in enumerate(totals)]
res = {"flows_held": n, "limit": limit, "request_ms": times, "reply_bytes": sizes,
       "totals": totals, "request": summary(times),
       "slipway_cpu_ms_per_request": (c1 - c0) * 1000 / tck / reqs}


def timed(cmd, what):
    """Run cmd runs times; its wall time in ms each; exits 1 on a failure."""
    v = []
    for i in range(runs):
        t0 = time.monotonic()
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        v.append((time.monotonic() - t0) * 1000)
        if p.returncode != 0 or not p.stdout:
            sys.exit(f"{what}: exit {p.returncode}: {p.stderr[:200]!r}")
    return v, len(p.stdout)


v, size = timed([sw, "ctl", ctl, "flows", "--json", "--limit", str(limit)], "slipway ctl flows")
check(subprocess.run([sw, "ctl", ctl, "flows", "--json", "--limit", str(limit)],
                     stdout=subprocess.PIPE, timeout=120).stdout, "slipway ctl flows --json")
res["ctl_cli_ms"] = v
res["ctl_cli"] = summary(v)
if has_top:
    v, size = timed([sw, "top", "-b", "-n", "1", ctl], "slipway top -b -n 1")
    res["top_ms"] = v
    res["top"] = summary(v)
    res["top_bytes"] = size
json.dump(res, open(out, "w"), indent=1)
EOF
kill -0 "$SW_PID" 2>/dev/null || fail "slipway died during the requests"

# release: the holder closes its flows (it exits 0 only if none dropped)
kill -TERM "$HOLD"
reap "$HOLD" 60
rc=$?
[ $rc = 0 ] || fail "swconn hold exited with $rc: $(tail -c 300 "$OUT/logs/hold.json")"
wait_flows_gone
stop_slipway
check_gates
cp "$T/stats.json" "$T/slipway.log" "$OUT/logs/"
kill -TERM "$SRV"
reap "$SRV" 10 >/dev/null

"$PY" - "$OUT" "$HAS_TOP" "$TOPNOTE" "$OPEN_S" <<'EOF' | tee "$OUT/summary.txt"
import json, sys
out, has_top, note, open_s = sys.argv[1:]
r = json.load(open(out + "/raw.json"))
m = dict(l.split(" ", 1) for l in open(out + "/manifest.txt").read().splitlines())
q = r["request"]
rep = sorted(r["reply_bytes"])[len(r["reply_bytes"]) // 2]
s = (f"flows request, {r['flows_held']} idle TCP flows (commit {m['commit'].strip()}, "
     f"{m['kernel'].split(';')[1].strip()}): {q['n']} requests of the whole table, "
     f"median {q['median']:.1f} ms (min {q['min']:.1f}, max {q['max']:.1f}), "
     f"reply {rep / 1e6:.2f} MB ({r['totals'][0]} records), "
     f"slipway CPU {r['slipway_cpu_ms_per_request']:.1f} ms a request; "
     f"`slipway ctl flows --json` median {r['ctl_cli']['median']:.1f} ms "
     f"({r['ctl_cli']['min']:.1f}–{r['ctl_cli']['max']:.1f}); ")
if has_top == "1":
    t = r["top"]
    s += (f"`slipway top -b -n 1` median {t['median']:.1f} ms "
          f"({t['min']:.1f}–{t['max']:.1f}, {t['n']} runs, {r['top_bytes']} bytes); ")
else:
    s += f"top: skipped ({note}); "
s += "target ≤ 100 ms: " + ("MET" if q["median"] <= 100 else "MISSED")
print(s)
EOF

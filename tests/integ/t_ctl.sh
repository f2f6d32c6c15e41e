#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_ctl.sh - the control socket (--ctl), the metrics endpoint (--metrics)
# and the slipway ctl client, on two shards: verified transfers both ways,
# then stats (every counter, per shard, sums consistent, byte counters equal
# to the transfers and to the SIGUSR1 dump, histograms counting every frame
# and batch), flows (live connections with their tuples and byte counts),
# errors (bad JSON, unknown command and member, oversized request) with the
# socket still serving, metrics parsed (families, HELP/TYPE, values equal to
# stats), 404/405/431, the connection cap (503) and the slow-client timeout,
# the client's tables, --json and exit statuses, the control thread (its
# own epoll set, a stalled client beside a verified transfer), and the
# socket removed at exit.
. "$(dirname "$0")/lib.sh"
require_root

CTL=$T/ctl.sock
MPORT=$(free_port)
PUB=$(free_port)
start_slipway --shards 2 --ctl "$CTL" --metrics "$MPORT" -t "$PUB:80" -u "127.0.0.1/$PUB:53"
[ -S "$CTL" ] || fail "no control socket at $CTL"

# ask JSON: one request on the control socket, the reply on stdout
ask() {
	"$PY" - "$CTL" "$1" <<'EOS'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
s.connect(sys.argv[1])
s.sendall(sys.argv[2].encode() + b"\n")
d = b""
while True:
    x = s.recv(65536)
    if not x:
        break
    d += x
sys.stdout.write(d.decode())
EOS
}

SIZE=$((8 * 1024 * 1024))
xfer_guest_send 10.0.2.2 "$SIZE"
xfer_guest_recv 10.0.2.2 "$SIZE"
wait_flows_gone

# 1. stats: every counter of ctr.h, per shard; totals are the shards' sums;
# byte counters match the transfers and the SIGUSR1 dump; histograms count
# every frame and batch (retried: a frame may cross between the reads)
names=$(sed -n 's/^[[:space:]]*X(\([A-Z0-9_]*\),.*/\1/p' "$(dirname "$0")/../../src/util/ctr.h")
sw_stats
ok=0
for try in 1 2 3 4 5; do
	ask '{"cmd":"stats"}' >"$T/stats_ctl.json" || fail "stats request"
	if "$PY" - "$T/stats_ctl.json" "$T/stats.json" "$SIZE" $names <<'EOS'; then
import json, sys
r = json.load(open(sys.argv[1]))
usr1 = json.load(open(sys.argv[2]))
size = int(sys.argv[3])
names = sys.argv[4:]
c = r["counters"]
def die(m):
    print(m)
    sys.exit(2)
for k in ("version", "edge", "shards_n", "uptime_ms", "counters", "shards", "histograms"):
    if k not in r:
        die("stats reply lacks " + k)
if r["edge"] != "tap" or r["shards_n"] != 2 or len(r["shards"]) != 2:
    die("edge/shards: %s %s" % (r["edge"], r["shards_n"]))
if sorted(c) != sorted(names):
    die("counters differ from ctr.h: %s" % set(c).symmetric_difference(names))
for i, sh in enumerate(r["shards"]):
    if sh["shard"] != i or sh["queue"] != i or sorted(sh["counters"]) != sorted(names):
        die("shard %d: bad entry" % i)
# TCP counters are still once the flows are gone
for n in names:
    if n.startswith("TCP_") and c[n] != sum(s["counters"][n] for s in r["shards"]):
        die("%s total %d != sum of shards" % (n, c[n]))
for n in ("TCP_GUEST_BYTES", "TCP_ACKED_BYTES", "TCP_HOST_READ_BYTES"):
    if c[n] != usr1["counters"][n]:
        die("%s: ctl %d, SIGUSR1 %d" % (n, c[n], usr1["counters"][n]))
if c["TCP_GUEST_BYTES"] != size or c["TCP_ACKED_BYTES"] != size:
    die("bytes: guest->host %d, host->guest acked %d, expected %d each" %
        (c["TCP_GUEST_BYTES"], c["TCP_ACKED_BYTES"], size))
h = r["histograms"]
for name, frames, nbytes in (("edge_rx_frame_bytes", "EDGE_RX_FRAMES", "EDGE_RX_BYTES"),
                             ("edge_tx_frame_bytes", "EDGE_TX_FRAMES", "EDGE_TX_BYTES"),
                             ("edge_batch_ns", "EDGE_RX_BATCHES", None)):
    x = h[name]
    keys = ["count", "sum", "min", "p50", "p90", "p99", "p99_9", "max"]
    if list(x) != keys:
        die("%s keys %s" % (name, list(x)))
    if not (x["min"] <= x["p50"] <= x["p90"] <= x["p99"] <= x["p99_9"] <= x["max"]):
        die("%s quantiles out of order: %s" % (name, x))
    if x["count"] != c[frames]:
        sys.exit(1)  # retry: a frame between the reads
    if nbytes and x["sum"] != c[nbytes]:
        sys.exit(1)
    per = sum(s["histograms"][name]["count"] for s in r["shards"])
    if per != x["count"]:
        sys.exit(1)
# GSO frames both ways: 8 MiB went in frames far above the MTU
if h["edge_tx_frame_bytes"]["max"] < 30000 or h["edge_rx_frame_bytes"]["max"] < 30000:
    die("no large frames: %s" % h)
if h["edge_batch_ns"]["min"] <= 0 or h["edge_batch_ns"]["max"] > 10**10:
    die("batch latencies implausible: %s" % h["edge_batch_ns"])
EOS
		ok=1
		break
	else
		[ $? = 2 ] && fail "stats reply: see above"
	fi
	sleep 0.2
done
[ "$ok" = 1 ] || fail "histogram counts never matched the frame counters: $(cat "$T/stats_ctl.json")"

# 2. flows: four live connections from the guest, with their tuples and the
# bytes each sent (shard 1's table is read by shard 1)
FP=$(free_port)
"$PY" - "$FP" "$T/fready" <<'EOS' &
import socket, sys, time
l = socket.socket()
l.bind(("127.0.0.1", int(sys.argv[1])))
l.listen(8)
open(sys.argv[2], "w").close()
conns = []
for i in range(4):
    c, a = l.accept()
    want = 1000 * (i + 1)
    conns.append(c)
time.sleep(30)
EOS
PIDS+=($!)
SRV=$!
wait_for "flow server" 10 "[ -e $T/fready ]"
g "$PY" - "$FP" "$T/gdone" <<'EOS' &
import socket, sys, time
ss = []
for i in range(4):
    s = socket.create_connection(("10.0.2.2", int(sys.argv[1])))
    s.sendall(b"z" * (1111 * (i + 1)))
    ss.append(s)
open(sys.argv[2], "w").close()
time.sleep(30)
EOS
PIDS+=($!)
GCL=$!
wait_for "guest connections" 10 "[ -e $T/gdone ]"
ok=0
for try in $(seq 20); do
	ask '{"cmd":"flows"}' >"$T/flows.json" || fail "flows request"
	if "$PY" - "$T/flows.json" "$FP" <<'EOS'; then
import json, sys
r = json.load(open(sys.argv[1]))
port = int(sys.argv[2])
ours = [f for f in r["flows"] if f["proto"] == "tcp" and f["remote_port"] == port]
if r["total"] != len(r["flows"]) or r["truncated"]:
    sys.exit(1)
if len(ours) != 4:
    sys.exit(1)
got = sorted(f["from_guest"] for f in ours)
if got != [1111, 2222, 3333, 4444]:
    sys.exit(1)  # bytes still on their way
for f in ours:
    assert f["guest_addr"] == "10.0.2.15" and f["remote_addr"] == "10.0.2.2", f
    assert f["state"] == "ESTABLISHED" and f["to_guest"] == 0, f
    assert f["kind"] == "tcp" and "ns_port" not in f, f
    assert 0 < f["guest_port"] < 65536 and f["shard"] in (0, 1), f
    assert f["age_ms"] >= 0 and f["idle_ms"] == 0, f  # TCP keeps none
EOS
		ok=1
		break
	fi
	sleep 0.1
done
[ "$ok" = 1 ] || fail "flows never showed the 4 connections: $(cat "$T/flows.json")"
# a limit truncates
ask '{"cmd":"flows","limit":1}' | "$PY" -c '
import json, sys
r = json.load(sys.stdin)
assert len(r["flows"]) == 1 and r["total"] >= 4 and r["truncated"] is True, r' ||
	fail "flows limit"
# the client's table shows them
"$SLIPWAY" ctl "$CTL" flows >"$T/flows.txt" || fail "slipway ctl flows"
[ "$(grep -Ec "^tcp +tcp +[01] +10\.0\.2\.15:[0-9]+ +10\.0\.2\.2:$FP +ESTABLISHED" "$T/flows.txt")" = 4 ] ||
	fail "client flows table: $(cat "$T/flows.txt")"
kill "$GCL" "$SRV" 2>/dev/null
wait "$GCL" "$SRV" 2>/dev/null

# 3. errors: each answered with {"error":...}, the socket keeps serving
e0=$(ask '{"cmd":"stats"}' | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["counters"]["CTL_ERRORS"])')
check_err() { # request expected-text
	local out
	out=$(ask "$1") || fail "request '$1' got no answer"
	echo "$out" | "$PY" -c '
import json, sys
r = json.loads(sys.stdin.read())
assert list(r) == ["error"] and sys.argv[1] in r["error"], r' "$2" ||
		fail "request '$1': expected an error with '$2', got: $out"
}
check_err '{"cmd":' "malformed JSON"
check_err 'stats' "malformed JSON"
check_err '{"cmd":"frobnicate"}' "unknown command"
check_err '["stats"]' "JSON object"
check_err '{"cmd":"stats","verbose":1}' "unknown member"
check_err '{"cmd":"flows","limit":-1}' "limit"
check_err '{"cmd":"stats","cmd":"flows"}' "malformed JSON"
"$PY" - "$CTL" <<'EOS' || fail "oversized request"
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
s.connect(sys.argv[1])
s.sendall(b'{"cmd":"stats","x":"' + b"a" * 100000 + b'"}\n')
s.shutdown(socket.SHUT_WR)
d = b""
while True:
    x = s.recv(65536)
    if not x:
        break
    d += x
r = json.loads(d)
assert "too large" in r["error"], r
EOS
ask '{"cmd":"version"}' | "$PY" -c '
import json, sys
r = json.load(sys.stdin)
assert r["version"] and r["edge"] == "tap" and r["shards_n"] == 2, r' ||
	fail "the socket stopped serving after errors"
e1=$(ask '{"cmd":"stats"}' | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["counters"]["CTL_ERRORS"])')
[ $((e1 - e0)) = 8 ] || fail "CTL_ERRORS went from $e0 to $e1, expected 8 more"

# 4. metrics: Prometheus text, parsed; values agree with stats
curl -sf "http://127.0.0.1:$MPORT/metrics" -o "$T/metrics.txt" || fail "GET /metrics"
ask '{"cmd":"stats"}' >"$T/stats_m.json"
"$PY" - "$T/metrics.txt" "$T/stats_m.json" <<'EOS' || fail "metrics text"
import json, re, sys
text = open(sys.argv[1]).read()
stats = json.load(open(sys.argv[2]))
line_re = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="[^"]*"(,[a-zA-Z_][a-zA-Z0-9_]*="[^"]*")*)\})? (\S+)$')
helps, types, samples = set(), {}, {}
for l in text.splitlines():
    if l.startswith("# HELP "):
        helps.add(l.split()[2])
    elif l.startswith("# TYPE "):
        _, _, n, t = l.split()
        assert t in ("counter", "gauge", "summary"), l
        types[n] = t
    else:
        m = line_re.match(l)
        assert m, "bad line: " + l
        float(m.group(5))
        samples.setdefault(m.group(1), []).append((m.group(3) or "", float(m.group(5))))
for n in samples:
    fam = re.sub(r"_(sum|count)$", "", n) if n not in types else n
    assert fam in types and fam in helps, "no TYPE/HELP for " + n
for n, v in stats["counters"].items():
    gauge = n in ("TCP_FLOWS_ACTIVE", "SPLICE_ACTIVE")  # "(gauge)" in ctr.h
    m = "slipway_" + n.lower() + ("" if gauge else "_total")
    assert m in samples, "no metric " + m
    assert len(samples[m]) == 2, m  # one per shard
    if n.startswith("TCP_"):
        assert sum(v for _, v in samples[m]) == v, (m, samples[m], v)
for h in ("slipway_edge_rx_frame_bytes", "slipway_edge_tx_frame_bytes", "slipway_edge_batch_seconds"):
    assert types[h] == "summary", h
    qs = [lab for lab, _ in samples[h] if 'quantile="0.99"' in lab]
    assert len(qs) == 2, (h, samples[h])
cnt = sum(v for _, v in samples["slipway_edge_tx_frame_bytes_count"])
assert cnt >= stats["histograms"]["edge_tx_frame_bytes"]["count"] > 100, cnt
EOS
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
[ "$(code "http://127.0.0.1:$MPORT/")" = 404 ] || fail "GET / is not 404"
[ "$(code "http://127.0.0.1:$MPORT/metricsx")" = 404 ] || fail "GET /metricsx is not 404"
[ "$(code -X POST "http://127.0.0.1:$MPORT/metrics")" = 405 ] || fail "POST is not 405"
[ "$(code -H "X-Big: $(head -c 9000 /dev/zero | tr '\0' a)" "http://127.0.0.1:$MPORT/metrics")" = 431 ] ||
	fail "a 9000-byte header is not 431"
# eight idle clients fill the metrics slots: the ninth gets 503; the idle
# ones are closed after the 5 s timeout; then /metrics answers again
"$PY" - "$MPORT" <<'EOS' || fail "metrics connection cap and timeout"
import socket, sys, time
port = int(sys.argv[1])
idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(8)]
time.sleep(0.3)
s = socket.create_connection(("127.0.0.1", port))
s.settimeout(5)
d = s.recv(1000)
assert d.startswith(b"HTTP/1.0 503"), d
t0 = time.time()
for c in idle:
    c.settimeout(10)
    assert c.recv(100) == b""  # closed by the server
took = time.time() - t0
assert 3 < took < 8, took
EOS
[ "$(code "http://127.0.0.1:$MPORT/metrics")" = 200 ] || fail "metrics after the timeouts"
ask '{"cmd":"stats"}' | "$PY" -c '
import json, sys
c = json.load(sys.stdin)["counters"]
assert c["CTL_REFUSED"] == 1 and c["CTL_TIMEOUTS"] == 8, c
assert c["METRICS_REQUESTS"] >= 6 and c["METRICS_ERRORS"] == 4, c' ||
	fail "CTL_REFUSED, CTL_TIMEOUTS or METRICS_* counters"

# 5. the client: tables, --json, exit statuses
"$SLIPWAY" ctl "$CTL" stats >"$T/stats.txt" || fail "slipway ctl stats"
gb=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["counters"]["TCP_GUEST_BYTES"])' "$T/stats_m.json")
grep -Eq "^TCP_GUEST_BYTES +$gb( |$)" "$T/stats.txt" || fail "stats table: $(cat "$T/stats.txt")"
grep -Eq "^edge_rx_frame_bytes +[0-9]+" "$T/stats.txt" || fail "stats table has no histograms"
"$SLIPWAY" ctl "$CTL" stats --json | "$PY" -c 'import json,sys; assert "counters" in json.load(sys.stdin)' ||
	fail "slipway ctl stats --json"
"$SLIPWAY" ctl "$CTL" version | grep -q "^slipway 0\.1\.0: edge tap, 2 shard" || fail "slipway ctl version"
# 6. forwards: the command line's ports with their ids; a port added at
# run time carries a verified transfer, is listed, removed (refused after),
# and errors: an unknown id, a port in use, a bad protocol
"$SLIPWAY" ctl "$CTL" forwards >"$T/fwd.txt" || fail "slipway ctl forwards"
grep -Eq "^1 +tcp +\*:$PUB +guest:80 +yes$" "$T/fwd.txt" || fail "forwards table: $(cat "$T/fwd.txt")"
grep -Eq "^2 +udp +127\.0\.0\.1:$PUB +guest:53 +no$" "$T/fwd.txt" || fail "forwards table: $(cat "$T/fwd.txt")"
"$SLIPWAY" ctl "$CTL" forwards --json | "$PY" -c '
import json, sys
r = json.load(sys.stdin)
f = r["forwards"]
assert len(f) == 2 and r["ns_loopback"] == [], r
assert f[0] == {"id": 1, "proto": "tcp", "host_addr": None, "host_port": int(sys.argv[1]),
                "guest_addr": None, "guest_port": 80, "splice": True}, f[0]
assert f[1]["proto"] == "udp" and f[1]["host_addr"] == "127.0.0.1" and f[1]["guest_port"] == 53, f[1]' "$PUB" ||
	fail "forwards --json"
P2=$(free_port)
"$SLIPWAY" ctl "$CTL" forwards add tcp "127.0.0.1/$P2:8081" >"$T/add.txt" || fail "forwards add: $(cat "$T/add.txt")"
id=$(sed -n "s/^added \([0-9]*\): tcp 127\.0\.0\.1:$P2 -> guest:8081$/\1/p" "$T/add.txt")
[ -n "$id" ] && [ "$id" -gt 2 ] || fail "forwards add said: $(cat "$T/add.txt")"
xfer_pub_send "$P2" 8081 $((1024 * 1024))
"$SLIPWAY" ctl "$CTL" forwards --json | "$PY" -c '
import json, sys
f = [x for x in json.load(sys.stdin)["forwards"] if x["id"] == int(sys.argv[1])]
assert len(f) == 1 and f[0]["host_port"] == int(sys.argv[2]) and f[0]["guest_port"] == 8081 and not f[0]["splice"], f' "$id" "$P2" ||
	fail "the added port is not listed"
[ "$("$SLIPWAY" ctl "$CTL" forwards remove "$id")" = "removed $id" ] || fail "forwards remove $id"
"$PY" -c '
import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3)
    sys.exit("still published")
except ConnectionRefusedError:
    pass' "$P2" || fail "port $P2 still accepts after its removal"
"$SLIPWAY" ctl "$CTL" forwards remove "$id" 2>"$T/err" && fail "removing $id twice succeeded"
grep -q "no published port has id $id" "$T/err" || fail "remove twice said: $(cat "$T/err")"
"$SLIPWAY" ctl "$CTL" forwards add tcp "$PUB:81" 2>"$T/err" && fail "publishing port $PUB twice succeeded"
grep -q "in use" "$T/err" || fail "add of a used port said: $(cat "$T/err")"
P3=$(free_port)
"$SLIPWAY" ctl "$CTL" forwards add udp "$P3:7000" 10.0.2.15 >"$T/add.txt" || fail "forwards add udp: $(cat "$T/add.txt")"
grep -Eq "^added [0-9]+: udp \*:$P3 -> 10\.0\.2\.15:7000$" "$T/add.txt" || fail "forwards add udp said: $(cat "$T/add.txt")"
check_err '{"cmd":"forwards","op":"add","proto":"sctp","spec":"1"}' "proto"
check_err '{"cmd":"forwards","op":"remove"}' "id"
check_err '{"cmd":"forwards","op":"add","proto":"tcp","spec":"1-100"}' "at most 64"
check_err '{"cmd":"forwards","op":"add","proto":"tcp","spec":"8080","guest_addr":"10.9.9.9"}' "not one of the guest"
n=$("$SLIPWAY" ctl "$CTL" forwards --json | "$PY" -c 'import json,sys; print(len(json.load(sys.stdin)["forwards"]))')
[ "$n" = 3 ] || fail "$n published ports after the failed adds, expected 3"

client_rc() { # expected-status args...
	local want=$1
	shift
	"$SLIPWAY" ctl "$@" >"$T/out" 2>"$T/err"
	local rc=$?
	[ "$rc" = "$want" ] || fail "'slipway ctl $*' exited $rc, expected $want: $(cat "$T/err")"
}
client_rc 2
client_rc 2 "$CTL"
client_rc 2 "$CTL" frobnicate
client_rc 2 "$CTL" stats extra
client_rc 2 "$CTL" flows --limit abc
client_rc 2 "$CTL" version --bogus
client_rc 2 "$CTL" forwards add sctp 8080:80
client_rc 2 "$CTL" forwards remove zero
client_rc 2 "$CTL" forwards frob
client_rc 1 "$T/nonexistent.sock" stats
grep -q "cannot connect" "$T/err" || fail "no reason given for a missing socket"

# 7. the control thread: the control socket is served by a thread of its
# own, named slipway-ctl, from an epoll set that holds neither the tap nor
# the signalfd (shard 0's set holds both); a client that sends half a
# request and stalls does not hold up a verified transfer, nor the next
# control request
"$PY" "$(dirname "$0")/ctl_thread.py" "$SW_PID" "$CTL" 3 ||
	fail "the control socket is not served by a control thread of its own"
"$PY" - "$CTL" "$T/stalled" <<'EOS' &
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b'{"cmd":"sta')
open(sys.argv[2], "w").close()
# stalled until the test is done with it (the server drops it after 5 s)
for i in range(1200):
    if os.path.exists(sys.argv[2] + ".end"):
        break
    time.sleep(0.05)
EOS
STALL=$!
PIDS+=("$STALL")
wait_for "stalled control client" 10 "[ -e $T/stalled ]"
xfer_guest_send 10.0.2.2 "$SIZE"
ask '{"cmd":"version"}' | "$PY" -c 'import json,sys; assert json.load(sys.stdin)["shards_n"] == 2' ||
	fail "control request beside a stalled client"
kill -0 "$STALL" 2>/dev/null || fail "the stalled client ended before the transfer did"
touch "$T/stalled.end"
wait "$STALL"

stop_slipway
[ -e "$CTL" ] && fail "the control socket was not removed at exit"
check_gates
pass "stats ($((SIZE >> 20)) MiB each way, histograms), flows, 8 errors, metrics, cap and timeout, forwards at run time, client, control thread"

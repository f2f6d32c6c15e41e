#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_bench_tools.sh - the benchmark's own instruments over loopback in a
# namespace of ours: swrr (request/response latency) and swconn (connection
# rate, idle flows) report sane JSON, and each fails on a refused
# connection and on a wrong byte from the server
. "$(dirname "$0")/lib.sh"
require_root
: "${SWRR:?set SWRR to the swrr binary}"
: "${SWCONN:?set SWCONN to the swconn binary}"
make_ns "$NS"
g ip link set lo up

# json FILE EXPR: evaluate a Python expression over the last JSON line (j)
json() {
	"$PY" -c 'import json,sys; j=json.loads([l for l in open(sys.argv[1]) if l.strip()][-1]); print(eval(sys.argv[2]))' "$1" "$2"
}

bg g "$SWRR" server 7101
bg g "$SWCONN" server 7102
wait_listen 7101 "$NS"
wait_listen 7102 "$NS"

g "$SWRR" client 127.0.0.1 7101 --count 2000 --size 100 >"$T/rr.json" ||
	fail "swrr client: $(cat "$T/rr.json")"
[ "$(json "$T/rr.json" 'j["count"] == 2000 and 0 < j["min_us"] <= j["p50_us"] <= j["p99_us"] <= j["max_us"] and j["min_us"] <= j["mean_us"] <= j["max_us"]')" = True ] ||
	fail "swrr JSON: $(cat "$T/rr.json")"
g "$SWRR" client 127.0.0.1 7101 --count 50 --size 300000 >"$T/rr2.json" ||
	fail "swrr client, messages larger than the socket buffers: $(cat "$T/rr2.json")"

g "$SWCONN" client 127.0.0.1 7102 --seconds 1 --parallel 4 >"$T/conn.json" ||
	fail "swconn client: $(cat "$T/conn.json")"
[ "$(json "$T/conn.json" 'j["connections"] > 100 and j["errors"] == 0 and j["per_second"] > 0')" = True ] ||
	fail "swconn client JSON: $(cat "$T/conn.json")"

g "$SWCONN" hold 127.0.0.1 7102 --count 300 --hold-seconds 0.5 >"$T/hold.json" ||
	fail "swconn hold: $(cat "$T/hold.json")"
[ "$(json "$T/hold.json" 'j["phase"] == "released" and j["established"] == 300 and j["released"] == 300 and j["dropped"] == 0')" = True ] ||
	fail "swconn hold JSON: $(cat "$T/hold.json")"

# failures: nothing listens
g "$SWRR" client 127.0.0.1 7109 --count 10 >"$T/f1.json" 2>/dev/null && fail "swrr: refused connection not a failure"
grep -q '"error"' "$T/f1.json" || fail "swrr: no error in the JSON: $(cat "$T/f1.json")"
g "$SWCONN" client 127.0.0.1 7109 --seconds 1 >"$T/f2.json" 2>/dev/null && fail "swconn: refused connections not a failure"
[ "$(json "$T/f2.json" 'j["errors"] > 0')" = True ] || fail "swconn: errors not counted: $(cat "$T/f2.json")"

# failures: a server that gets one byte wrong (an echo that flips the 5th
# byte of what it reads; a swconn-like server whose reply is off by one bit)
bg g "$PY" -c '
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 7103)); s.listen(8)
while True:
    c, _ = s.accept()
    while True:
        b = bytearray(c.recv(65536))
        if not b:
            break
        if len(b) > 4:
            b[4] ^= 1
        c.sendall(b)
    c.close()'
bg g "$PY" -c '
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 7104)); s.listen(8)
while True:
    c, _ = s.accept()
    r = c.recv(16)
    c.sendall(b"swc1" + r[4:16] + bytes(16))
    c.close()'
wait_listen 7103 "$NS"
wait_listen 7104 "$NS"
g "$SWRR" client 127.0.0.1 7103 --count 10 --size 64 >"$T/f3.json" 2>/dev/null && fail "swrr: a wrong byte was not a failure"
grep -q 'byte 4 of the echo' "$T/f3.json" || fail "swrr: wrong byte not reported: $(cat "$T/f3.json")"
g "$SWCONN" client 127.0.0.1 7104 --seconds 1 --parallel 1 >"$T/f4.json" 2>/dev/null && fail "swconn: a wrong reply was not a failure"
grep -q 'reply byte 1[6-9]\|reply byte 2\|reply byte 3' "$T/f4.json" || fail "swconn: wrong reply not reported: $(cat "$T/f4.json")"
pass "swrr and swconn: results, refused connections and wrong bytes"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_halfclose.sh - half-close both ways: the sender shuts down its write side
# while the other direction keeps flowing (echo), through a guest-opened
# flow and through a published port; plus nc -N style request/response,
# the answer coming HOLD_SECONDS after the request's FIN (default 0.5; a
# nightly-style run holds the half-closed flow for minutes: 300)
. "$(dirname "$0")/lib.sh"
require_root
HOLD_SECONDS=${HOLD_SECONDS:-0.5}
p1=$(free_port)
pub=$(free_port)
start_slipway --no-splice -t "$pub:7001" # the tap path (splice: t_splice.sh)

# guest client sends 64 MiB, half-closes, reads the echo back
bg "$SWVERIFY" server --listen "127.0.0.1:$p1" --mode echo --once --ready-file "$T/r1"
s1=$LASTPID
wait_for "echo server" 10 "[ -e $T/r1 ]"
g "$SWVERIFY" client --connect "10.0.2.2:$p1" --mode echo --bytes 64M \
	--timeout 60 >"$T/c1.json" || fail "echo through a guest flow"
wait "$s1" || fail "host echo server failed"

# host client through the published port to a guest echo server
ip netns exec "$NS" "$SWVERIFY" server --listen "0.0.0.0:7001" --mode echo --once \
	--ready-file "$T/r2" &
gpid=$!
PIDS+=($gpid)
wait_for "guest echo server" 10 "[ -e $T/r2 ]"
"$SWVERIFY" client --connect "127.0.0.1:$pub" --mode echo --bytes 64M \
	--timeout 60 >"$T/c2.json" || fail "echo through a published port"
wait "$gpid" || fail "guest echo server failed"

# nc -N: request, half-close, then the answer arrives after the FIN
p3=$(free_port)
bg "$PY" -c '
import socket, sys, time
l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("127.0.0.1", int(sys.argv[1]))); l.listen(1)
c, _ = l.accept()
while c.recv(4096):
    pass
time.sleep(float(sys.argv[2]))
c.sendall(b"answer-after-fin\n")
c.close()
' "$p3" "$HOLD_SECONDS"
wait_listen "$p3"
out=$(g "$PY" -c '
import socket, sys
s = socket.create_connection(("10.0.2.2", int(sys.argv[1])),
                             timeout=float(sys.argv[2]) + 10)
s.sendall(b"request\n")
s.shutdown(socket.SHUT_WR)
data = b""
while True:
    d = s.recv(4096)
    if not d:
        break
    data += d
print(data.decode().strip())
' "$p3" "$HOLD_SECONDS")
[ "$out" = "answer-after-fin" ] || fail "half-closed request got '$out'"

stop_slipway
check_gates
expect_ctr TCP_FLOWS_CLOSED -ge 3
pass "half-close both ways (64 MiB echoes) and request/FIN/response"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_http_ping.sh - the guest pings the gateway, fetches a file from a host
# loopback HTTP server through 10.0.2.2 (byte-compared), and is refused fast
# on a closed port
. "$(dirname "$0")/lib.sh"
require_root

head -c 3000000 /dev/urandom >"$T/blob"
port=$(free_port)
bg busybox httpd -f -p "127.0.0.1:$port" -h "$T"
wait_listen "$port"
start_slipway

g busybox ping -c 3 -W 2 10.0.2.2 >"$T/ping.out" || fail "ping to the gateway failed"
grep -q "3 packets received" "$T/ping.out" || fail "ping: $(cat "$T/ping.out")"

g curl -sS -m 10 -o "$T/got" "http://10.0.2.2:$port/blob" || fail "curl through 10.0.2.2"
cmp -s "$T/blob" "$T/got" || fail "fetched file differs"

closed=$(free_port)
start=$(date +%s%N)
err=$(g "$PY" -c '
import socket, sys
try:
    socket.create_connection(("10.0.2.2", int(sys.argv[1])), timeout=5)
    print("connected")
except OSError as e:
    print(type(e).__name__)
' "$closed")
[ "$err" = ConnectionRefusedError ] || fail "closed port: expected ConnectionRefusedError, got $err"
ms=$((($(date +%s%N) - start) / 1000000))
[ "$ms" -lt 2000 ] || fail "refusal took ${ms} ms (a hang, not an RST)"

stop_slipway
check_gates
expect_ctr ICMP4_ECHO_REPLIES -eq 3
expect_ctr TCP_FLOWS_REFUSED -eq 1
expect_ctr TCP_TX_BYTES -ge 3000000
expect_ctr ARP_REPLIES -ge 1
pass "ping, HTTP fetch byte-exact, refusal in ${ms} ms"

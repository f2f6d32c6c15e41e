#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_source_addr.sh - a published port keeps the client's address: a client
# at another address of the host is seen by the guest's server with that
# address (TCP and UDP); a loopback client as 127.0.0.1 over TCP (spliced to
# the guest's loopback, t_splice.sh) and as the gateway address over UDP
. "$(dirname "$0")/lib.sh"
require_root
make_host_two 10.77.0.1/24 10.77.0.2/24
make_ns "$NS"
ip netns exec "$H" "$SLIPWAY" --netns "$NS" --stats-file "$T/stats.json" \
	-t 7070:7070 -u 7071:7071 >"$T/slipway.log" 2>&1 &
SW_PID=$!
PIDS+=($SW_PID)
wait_for "guest address" 10 "ip -n $NS -4 addr show dev tap0 2>/dev/null | grep -q inet"

# the guest's servers answer with the peer address they see
ip netns exec "$NS" "$PY" -c '
import socket, threading
t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind(("0.0.0.0", 7070)); t.listen(8)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("0.0.0.0", 7071))
def udp():
    while True:
        d, a = u.recvfrom(100)
        u.sendto(a[0].encode(), a)
threading.Thread(target=udp, daemon=True).start()
open("'"$T"'/ready", "w").close()
while True:
    c, a = t.accept()
    c.sendall(a[0].encode())
    c.close()
' &
PIDS+=($!)
wait_for "guest servers" 10 "[ -e $T/ready ]"

ask() { # SRC DST -> "tcp-seen udp-seen"
	ip netns exec "$H" "$PY" -c '
import socket, sys
src, dst = sys.argv[1], sys.argv[2]
t = socket.create_connection((dst, 7070), timeout=5, source_address=(src, 0))
a = t.recv(100).decode()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(5)
u.bind((src, 0)); u.sendto(b"?", (dst, 7071))
print(a, u.recv(100).decode())
' "$1" "$2"
}
out=$(ask 10.77.0.2 10.77.0.1)
[ "$out" = "10.77.0.2 10.77.0.2" ] || fail "client 10.77.0.2 seen as '$out'"
out=$(ask 127.0.0.1 127.0.0.1)
[ "$out" = "127.0.0.1 10.0.2.2" ] || fail "loopback client seen as '$out'"
stop_slipway
check_gates
pass "client addresses kept (10.77.0.2 seen as itself, loopback as 127.0.0.1 spliced and 10.0.2.2 over UDP), TCP and UDP"

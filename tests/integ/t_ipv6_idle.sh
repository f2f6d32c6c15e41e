#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_ipv6_idle.sh - 10,000 idle IPv6 connections from the guest to the
# host's ::1 (through the gateway's IPv6 address) are all carried, and
# slipway's resident memory with all of them open stays well under
# 32 MiB (asserted: RSS_MAX_KIB, 24 MiB); afterwards every flow closes and
# the gates hold.
#
# slipway and the server run in a "host" namespace of our own.
. "$(dirname "$0")/lib.sh"
require_root
N=${N:-10000}
RSS_MAX_KIB=${RSS_MAX_KIB:-24576}
GW6=fd00:5ee:d::2

[ "$(ulimit -Hn)" -ge $((N + 200)) ] || ulimit -Hn $((N + 200)) 2>/dev/null ||
	{ echo "SKIP: needs $((N + 200)) file descriptors"; exit 77; }
ulimit -n $((N + 200))

H="swh$$"
make_ns "$H"
h() { ip netns exec "$H" "$@"; }
ip -n "$H" link set lo up
make_ns "$NS"
echo "nameserver 127.0.0.1" >"$T/resolv.conf"
# without meson's MALLOC_PERTURB_, which fills (so makes resident) every
# buffer slipway allocates, used or not: the RSS measured is a real run's
ip netns exec "$H" env -u MALLOC_PERTURB_ "$SLIPWAY" --netns "$NS" \
	--stats-file "$T/stats.json" \
	--resolv-conf "$T/resolv.conf" >"$T/slipway.log" 2>&1 &
SW_PID=$!
PIDS+=("$SW_PID")
wait_for "guest address" 10 "ip -n $NS -4 addr show dev tap0 2>/dev/null | grep -q inet"
g ip link set lo up

rss_kib() {
	awk '/^VmRSS:/ { print $2 }' "/proc/$SW_PID/status"
}
rss0=$(rss_kib)

# the host's server accepts and holds every connection until its client
# closes it
port=$(h "$PY" -c 'import socket; s=socket.socket(socket.AF_INET6); s.bind(("::1",0)); print(s.getsockname()[1])')
bg h "$PY" -c '
import selectors, socket, sys
sel = selectors.DefaultSelector()
s = socket.socket(socket.AF_INET6)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("::1", int(sys.argv[1])))
s.listen(4096)
sel.register(s, selectors.EVENT_READ)
while True:
    for k, _ in sel.select():
        if k.fileobj is s:
            c, a = s.accept()
            sel.register(c, selectors.EVENT_READ)
        elif not k.fileobj.recv(4096):
            sel.unregister(k.fileobj)
            k.fileobj.close()
' "$port"
wait_listen "$port" "$H"

# the guest opens N connections and holds them until told to let go
g "$PY" - "$GW6" "$port" "$N" "$T/go" >"$T/hold.out" 2>&1 <<'EOS' &
import os, socket, sys, time
dst, port, n, go = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
held = []
for i in range(n):
    s = socket.socket(socket.AF_INET6)
    s.settimeout(10)
    s.connect((dst, port))
    held.append(s)
print(len(held), flush=True)
while not os.path.exists(go):
    time.sleep(0.1)
for s in held:
    s.close()
EOS
holder=$!
PIDS+=("$holder")
wait_for "$N connections" 120 "[ -s $T/hold.out ]"
[ "$(cat "$T/hold.out")" = "$N" ] || fail "guest: $(cat "$T/hold.out")"
sleep 1 # idle: whatever the flows cost is resident now
rss=$(rss_kib)
kill -USR1 "$SW_PID"
wait_for "counters" 10 "[ -s $T/stats.json ]"
expect_ctr TCP_FLOWS_ACTIVE -eq "$N"
expect_ctr TCP_FLOWS_OPENED6 -eq "$N"
echo "slipway RSS: ${rss0} KiB at start, ${rss} KiB with $N idle IPv6 flows"
[ "$rss" -le "$RSS_MAX_KIB" ] ||
	fail "RSS $rss KiB with $N idle flows, more than $RSS_MAX_KIB KiB"

touch "$T/go"
wait "$holder" || fail "guest holder failed: $(cat "$T/hold.out")"
rm -f "$T/stats.json"
wait_for "every flow closed" 30 \
	"kill -USR1 $SW_PID; sleep 0.2; [ -s $T/stats.json ] && [ \$(ctr TCP_FLOWS_ACTIVE) -eq 0 ]"
stop_slipway
check_gates
expect_ctr TCP_FLOWS_CLOSED -eq "$N"
expect_ctr TCP_FLOWS_TABLE_FULL -eq 0
expect_ctr TCP_FLOWS_SOCK_FAIL -eq 0
pass "$N idle IPv6 flows: slipway RSS $rss KiB (start $rss0 KiB), all closed cleanly"

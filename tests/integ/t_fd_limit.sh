#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_fd_limit.sh - resource exhaustion: with a tiny fd limit, flows beyond
# it are refused (counted) in both directions, the gateway keeps serving,
# and once flows close new ones work again, byte-exact
. "$(dirname "$0")/lib.sh"
require_root
echo_server
pub=$(free_port)
make_ns "$NS"
echo "nameserver 127.0.0.1" >"$T/resolv.conf"
prlimit --nofile=48:48 "$SLIPWAY" --netns "$NS" --stats-file "$T/stats.json" \
	--resolv-conf "$T/resolv.conf" -t "127.0.0.1/$pub:7000" >"$T/slipway.log" 2>&1 &
SW_PID=$!
PIDS+=($SW_PID)
wait_for "guest address" 10 "ip -n $NS -4 addr show dev tap0 2>/dev/null | grep -q inet"
g ip link set lo up

# 80 idle connections from the guest held open: some are refused
guest_hold 80 2 each >"$T/hold.out" 2>&1 &
hold=$!
# meanwhile, published-port clients past the limit are refused, not hung
sleep 1
ip netns exec "$NS" "$PY" -c '
import socket
l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("0.0.0.0", 7000)); l.listen(64)
open("'"$T"'/gready", "w").close()
while True:
    c, a = l.accept(); c.sendall(b"hello"); c.close()
' &
PIDS+=($!)
wait_for "guest server" 10 "[ -e $T/gready ]"
"$PY" - "$pub" >"$T/pub.out" 2>&1 <<'EOS'
import socket, sys
got = refused = 0
for i in range(20):
    try:
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
        d = s.recv(10)
        if d == b"hello":
            got += 1
        else:
            refused += 1
    except OSError:
        refused += 1
print(got, refused)
EOS
wait "$hold" || fail "holder failed: $(cat "$T/hold.out")"
read -r nok nref <"$T/hold.out"
[ "$nref" -gt 0 ] || fail "no guest flow was refused at 48 fds ($nok ok)"
[ "$nok" -gt 10 ] || fail "only $nok guest flows admitted"
sleep 1
# the held flows are gone: everything works again, byte-exact
bg "$SWVERIFY" server --listen "127.0.0.1:$(free_port)" --mode recv --bytes 64M --once \
	--ready-file "$T/r"
s=$LASTPID
wait_for "server" 10 "[ -e $T/r ]"
vp=$(cut -d: -f2 "$T/r")
g "$SWVERIFY" client --connect "10.0.2.2:$vp" --mode send --bytes 64M --timeout 30 \
	>/dev/null || fail "transfer after exhaustion"
wait "$s" || fail "verifier after exhaustion"
read -r pgot pref <"$T/pub.out"
wait_flows_gone
stop_slipway
check_gates
expect_ctr TCP_FLOWS_SOCK_FAIL -ge 1
[ "$pref" -gt 0 ] && expect_ctr TCP_ACCEPT_ERRORS -ge 1
pass "at 48 fds: $nok guest flows admitted, $nref refused (counted); published port $pgot served, $pref refused; 64 MiB verified afterwards"

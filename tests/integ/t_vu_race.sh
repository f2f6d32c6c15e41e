#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_vu_race.sh - a guest that rewrites its frames while slipway reads them
# (vurace.py: the double-fetch attack on vhost-user guest memory) gets
# nothing: with --no-map-host-loopback, not one datagram or connection
# reaches the host's loopback (IPv4 or IPv6), the flipping DNS queries do
# not end slipway, and the frames that were meant for another host still
# get there (the attack was carried out, not ignored).
# The "host" is a namespace of ours (H, no way out) with a veth to C,
# which holds 10.1.2.1; slipway runs in H.
#   RACE_SECONDS=N  how long the guest races (default 8; longer nightly)
#   RACE_KINDS=K    which frames race (vurace.py; default 0123: all)
. "$(dirname "$0")/lib.sh"
require_root
RACE_SECONDS=${RACE_SECONDS:-8}
RACE_KINDS=${RACE_KINDS:-0123}
make_host_client 10.1.2.254/24 10.1.2.1/24

P=5353
cat >"$T/sink.py" <<'EOS'
import socket, sys
kind, addr, port, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM if kind != "tcp" else socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((addr, port))
if kind == "tcp":
    s.listen(128)
o = open(out, "a", buffering=1)
while True:
    if kind == "tcp":
        c, peer = s.accept()
        c.close()
        o.write("%s\n" % (peer,))
    elif kind == "dns":
        # an upstream that refuses everything, question echoed
        q, peer = s.recvfrom(4096)
        if len(q) >= 12:
            s.sendto(q[:2] + bytes([0x81 | (q[2] & 1), 0x05]) + q[4:], peer)
        o.write("q\n")
    else:
        d, peer = s.recvfrom(4096)
        o.write("%s\n" % (peer,))
EOS
: >"$T/lo4" ; : >"$T/lo6" ; : >"$T/lotcp" ; : >"$T/far" ; : >"$T/dns"
bg ip netns exec "$H" "$PY" "$T/sink.py" udp 127.0.0.1 $P "$T/lo4"
bg ip netns exec "$H" "$PY" "$T/sink.py" udp ::1 $P "$T/lo6"
bg ip netns exec "$H" "$PY" "$T/sink.py" tcp 127.0.0.1 $P "$T/lotcp"
bg ip netns exec "$H" "$PY" "$T/sink.py" dns 127.0.0.1 53 "$T/dns"
bg ip netns exec "$C" "$PY" "$T/sink.py" udp 10.1.2.1 $P "$T/far"
wait_for "the sinks" 10 "ip netns exec $H ss -Hltn 'sport = :$P' | grep -q LISTEN"

echo "nameserver 127.0.0.1" >"$T/resolv.conf"
SOCK=$T/vu.sock
ip netns exec "$H" "$SLIPWAY" --vhost-user "$SOCK" --shards 1 \
	--no-map-host-loopback --stats-file "$T/stats.json" \
	--resolv-conf "$T/resolv.conf" >"$T/slipway.log" 2>&1 &
SW_PID=$!
PIDS+=("$SW_PID")
wait_for "the vhost-user socket" 10 "[ -S $SOCK ]"
wait_started

PYTHONPATH=$(dirname "$0") timeout $((RACE_SECONDS + 30)) \
	"$PY" "$(dirname "$0")/../instruments/vurace.py" "$SOCK" "$RACE_SECONDS" $P "$RACE_KINDS" ||
	fail "the racing frontend failed"
kill -0 "$SW_PID" 2>/dev/null || fail "slipway died under the racing guest"
sleep 0.5
lo4=$(wc -l <"$T/lo4")
lo6=$(wc -l <"$T/lo6")
lotcp=$(wc -l <"$T/lotcp")
far=$(wc -l <"$T/far")
dns=$(wc -l <"$T/dns")
echo "host loopback: $lo4 IPv4 datagrams, $lo6 IPv6, $lotcp connections;" \
	"10.1.2.1: $far datagrams; upstream DNS: $dns queries"
[ "$lo4" = 0 ] || fail "$lo4 datagrams reached the host's 127.0.0.1"
[ "$lo6" = 0 ] || fail "$lo6 datagrams reached the host's ::1"
[ "$lotcp" = 0 ] || fail "$lotcp connections reached the host's 127.0.0.1"
[ "$far" -gt 0 ] || fail "no datagram reached 10.1.2.1: the race was not run"
[ "$dns" -gt 0 ] || [[ $RACE_KINDS != *3* ]] || fail "no DNS query was forwarded: the race was not run"
stop_slipway
expect_ctr EDGE_VU_COPIES -gt 1000
expect_ctr CORE_DROP_BAD_LOAN -eq 0
pass "racing guest: nothing reached the host's loopback in ${RACE_SECONDS} s" \
	"($far datagrams to 10.1.2.1, $dns DNS queries forwarded)"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_udp_ns.sh - -U: UDP ports on the guest's loopback forwarded to the host's
# loopback. An echo server on the "host" namespace's 127.0.0.1 and ::1;
# from the guest, several peers send to 127.0.0.1 and ::1 at the same port
# (-U P) and at another one (-U G:P), up to 60000-byte datagrams, and each
# gets its own echoes back from the address it sent to; the host sees one
# client per peer. Counters: datagrams each way, one flow per peer, flows
# expire after --udp-timeout and the fds come back. The same through
# pasta's command line (-U P).
. "$(dirname "$0")/lib.sh"
require_root

# refused: auto, all, an address (the port is on the guest's loopback)
for spec in auto all 127.0.0.1/53; do
	"$SLIPWAY" -U "$spec" --version >/dev/null 2>"$T/err"
	[ $? = 2 ] && grep -q "bad -U" "$T/err" || fail "-U $spec was not refused"
done

# slipway runs in a "host" namespace of our own: its loopback has ::1
H="swh$$"
make_ns "$H"
ip -n "$H" link set lo up
h() { ip netns exec "$H" "$@"; }

P=$(h "$PY" -c 'import socket; s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
G=$((P == 40000 ? 40001 : 40000))
# echo server, both families: "PEERPORT|" + the datagram (the peer port
# tells the guest which host socket it was given)
h "$PY" - "$P" <<'EOS' &
import select, socket, sys
p = int(sys.argv[1])
a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
a.bind(("127.0.0.1", p))
b = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
b.bind(("::1", p))
while True:
    for s in select.select([a, b], [], [])[0]:
        d, peer = s.recvfrom(65535)
        s.sendto(("%s,%d|" % (peer[0], peer[1])).encode() + d, peer)
EOS
PIDS+=($!)

start_slipway_in "$H" --udp-timeout 1 -U "$P" -U "$G:$P"
fd0=$(sw_fds)

# the client: PEERS sockets per (address, port), every datagram's echo
# checked byte for byte, the reply from the address sent to, and one host
# socket per peer (the same host port for all of a peer's datagrams)
cat >"$T/client.py" <<'EOS'
import os, socket, sys
port, gport, fams = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
targets = [("127.0.0.1", port), ("127.0.0.1", gport)]
if "6" in fams:
    targets += [("::1", port), ("::1", gport)]
hostside = set()
n = 0
for addr, p in targets:
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    for k in range(3):
        s = socket.socket(fam, socket.SOCK_DGRAM)
        s.settimeout(3)
        for size in (1, 1400, 9000, 60000):
            d = os.urandom(size)
            s.sendto(d, (addr, p))
            r, src = s.recvfrom(65535)
            assert src[0] == addr and src[1] == p, (src, addr, p)
            head, body = r.split(b"|", 1)
            assert body == d, (addr, p, size)
            host, hp = head.decode().split(",")
            assert host == addr, (host, addr)
            hostside.add((s.getsockname()[1], addr, p, hp))
            n += 1
        s.close()
peers = len({(a, b, c) for a, b, c, _ in hostside})
assert len(hostside) == peers, "a peer moved between host sockets"
print(n, peers)
EOS
out=$(g "$PY" "$T/client.py" "$P" "$G" 46) || fail "-U echoes: $out"
set -- $out
[ "$1" = 48 ] && [ "$2" = 12 ] || fail "-U: $1 datagrams from $2 peers, expected 48 from 12"

# a datagram that cannot reach the host (nothing at the mapped port) is
# dropped quietly; the port stays usable
kill -USR1 "$SW_PID"
wait_for "counters" 5 "[ -s $T/stats.json ]"
expect_ctr UDPNS_FROM_NS -eq 48
expect_ctr UDPNS_TO_NS -eq 48
expect_ctr UDPNS_FLOWS_OPENED -eq 12
expect_ctr UDPNS_DROP_FULL -eq 0
rm -f "$T/stats.json"

# idle flows close (--udp-timeout 1, a timer each second) and their
# sockets with them
wait_for "-U flows to expire" 10 "[ \$(sw_fds) -le $fd0 ]"
stop_slipway
expect_ctr UDPNS_FLOWS_EXPIRED -eq 12
expect_ctr UDPNS_DROP_SOCK -eq 0
expect_ctr UDPNS_DROP_SEND -eq 0

# pasta's command line: -U PORT reaches the same server
mkdir -p "$T/bin"
cp "$SLIPWAY" "$T/bin/slipway"
chmod 755 "$T/bin" "$T/bin/slipway"
ln -s slipway "$T/bin/pasta"
N2="swu$$"
make_ns "$N2"
ip netns exec "$H" "$T/bin/pasta" -f --config-net -t none -u none -T none -U "$P" -U "$G:$P" \
	--netns "/run/netns/$N2" >"$T/slipway.log" 2>&1 &
PIDS+=($!)
wait_for "pasta's guest" 10 "ip -n $N2 -4 addr show 2>/dev/null | grep -v ' lo' | grep -q 'inet .*global'"
ip -n "$N2" link set lo up
wait_for "pasta's -U port" 10 "ip netns exec $N2 ss -Hlun 'sport = :$P' | grep -q ."
out=$(ip netns exec "$N2" "$PY" "$T/client.py" "$P" "$G" 46) ||
	fail "pasta -U echoes: $out"
set -- $out
[ "$1" = 48 ] || fail "pasta -U: $1 datagrams, expected 48"

pass "-U: 48 datagrams up to 60000 bytes from 12 guest peers (127.0.0.1, ::1, same and mapped port) echoed, one host socket each, expired after --udp-timeout with fds back; pasta -U too"

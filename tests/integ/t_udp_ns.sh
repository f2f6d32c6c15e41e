#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_udp_ns.sh - -U: UDP ports on the guest's loopback forwarded to the host's
# loopback. An echo server on the "host" namespace's 127.0.0.1 and ::1;
# from the guest, several peers send to 127.0.0.1 and ::1 at the same port
# (-U P) and at another one (-U G:P), up to 60000-byte datagrams, and each
# gets its own echoes back from the address it sent to; the host sees one
# client per peer. Counters: datagrams each way, one flow per peer, flows
# expire after --udp-timeout and the fds come back. slipway ctl flows
# lists live -U flows with both ends, the -U port, datagrams and bytes
# each way (growing). The same through pasta's command line (-U P).
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

# ctl flows lists live -U flows (127.0.0.1 and ::1 peers): the peer, the
# host's port, the -U port, datagrams and bytes each way, which grow
CTL=$T/ctl.sock
launch_slipway "$H" --ctl "$CTL" -U "$P" -U "$G:$P"
cat >"$T/peer.py" <<'EOS'
import os, socket, sys, time
a, p, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
t = os.path.dirname(sys.argv[0])
s = socket.socket(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(3)
def echo(size):
    s.sendto(b"x" * size, (a, p))
    return len(s.recvfrom(65535)[0])
got = echo(100)
open("%s/%s.1" % (t, name), "w").write("%d %d" % (s.getsockname()[1], got))
while not os.path.exists("%s/%s.more" % (t, name)):
    time.sleep(0.05)
got += sum(echo(200) for i in range(3))
open("%s/%s.2" % (t, name), "w").write("%d %d" % (s.getsockname()[1], got))
EOS
g "$PY" "$T/peer.py" 127.0.0.1 "$G" p4 &
PIDS+=($!)
p4=$!
g "$PY" "$T/peer.py" ::1 "$P" p6 &
PIDS+=($!)
p6=$!
wait_for "-U peers" 10 "[ -s $T/p4.1 ] && [ -s $T/p6.1 ]"
# ns_flows STEP DGRAMS BYTES: both peers' flows listed, DGRAMS each way, BYTES
# from the guest
ns_flows() {
	"$SLIPWAY" ctl "$CTL" flows --json >"$T/flows.json" || fail "slipway ctl flows --json"
	"$PY" - "$T/flows.json" "$P" "$G" $(cat "$T/p4.$1") $(cat "$T/p6.$1") "$2" "$3" <<'EOS' ||
import json, sys
r = json.load(open(sys.argv[1]))
P, G, port4, got4, port6, got6, n, nbytes = (int(x) for x in sys.argv[2:10])
fl = [f for f in r["flows"] if f.get("kind") == "udpns"]
assert r["total"] == len(r["flows"]) == 2 and len(fl) == 2 and not r["truncated"], r
for addr, port, got, nsp in (("127.0.0.1", port4, got4, G), ("::1", port6, got6, P)):
    f = [x for x in fl if x["guest_addr"] == addr]
    assert len(f) == 1, (addr, fl)
    f = f[0]
    assert f["proto"] == "udp" and f["shard"] == 0 and f["state"] == "OPEN", f
    assert f["guest_port"] == port and f["remote_addr"] == addr, f
    assert f["remote_port"] == P and f["ns_port"] == nsp, f
    assert f["from_guest"] == n and f["to_guest"] == n, f
    assert f["from_guest_bytes"] == nbytes and f["to_guest_bytes"] == got, f
    assert f["age_ms"] >= f["idle_ms"] >= 0, f
EOS
		fail "ctl flows: $(cat "$T/flows.json")"
}
ns_flows 1 1 100
"$SLIPWAY" ctl "$CTL" flows >"$T/flows.txt" || fail "slipway ctl flows"
grep -Eq "^udp +udpns +0 +127\.0\.0\.1:$(cut -d' ' -f1 "$T/p4.1") +127\.0\.0\.1:$P +OPEN +1 +1 +idle [0-9]+ +[0-9.KMGT]+ +[0-9.KMGT]+ +- +- +-$" "$T/flows.txt" &&
	grep -Eq "^udp +udpns +0 +\[::1\]:$(cut -d' ' -f1 "$T/p6.1") +\[::1\]:$P +OPEN +1 +1 " "$T/flows.txt" ||
	fail "ctl flows table: $(cat "$T/flows.txt")"
touch "$T/p4.more" "$T/p6.more"
wait "$p4" || fail "-U peer 127.0.0.1"
wait "$p6" || fail "-U peer ::1"
ns_flows 2 4 700
stop_slipway
expect_ctr UDPNS_FLOWS_OPENED -eq 2
expect_ctr UDPNS_FROM_NS -eq 8

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

pass "-U: 48 datagrams up to 60000 bytes from 12 guest peers (127.0.0.1, ::1, same and mapped port) echoed, one host socket each, expired after --udp-timeout with fds back; ctl flows lists them; pasta -U too"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_ctl_flows.sh - what `slipway ctl PATH flows` shows of each flow (issue
# 26): a guest in a namespace with a bulk TCP download from a loopback
# server of a "host" namespace of our own, an idle TCP connection beside
# it, a UDP flow with datagrams both ways, and a DNS query in flight to an
# upstream that never answers. The bulk flow has a rate, the core's RTT to
# the guest, the host socket's TCP_INFO (cwnd > 0) and tuple, and a
# "limited by" verdict from the list; the idle one is "idle"; the UDP one
# has bytes and datagrams each way and its host socket's tuple; the DNS
# query is kind "dns", state "QUERY", its remote the upstream. The text
# table has the new columns, one line per flow.
. "$(dirname "$0")/lib.sh"
require_root

H="swh$$"
make_ns "$H"
ip -n "$H" link set lo up
h() { ip netns exec "$H" "$@"; }

# an upstream that takes queries and never answers: each stays in flight
# for the forwarder's budget (4 s)
UP=127.0.0.53
bg h "$PY" -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 53))
while True:
    s.recv(512)
' "$UP"
wait_for "silent upstream" 10 "h ss -Hlun 'sport = :53' | grep -q $UP"
echo "nameserver $UP" >"$T/resolv.conf"

CTL=$T/ctl.sock
start_slipway_in "$H" --ctl "$CTL"
[ -S "$CTL" ] || fail "no control socket at $CTL"

# the host's servers on its loopback: BULK sends without end, IDLE holds
# its connections, UDP echoes datagrams
BULK=$(h "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
IDLE=$((BULK + 1))
UDP=$((BULK + 2))
h "$PY" - "$BULK" "$IDLE" "$UDP" "$T/hready" <<'EOS' &
import socket, sys, threading, time
b, i, u = (int(x) for x in sys.argv[1:4])
def bulk(l):
    c, _ = l.accept()
    buf = b"x" * 65536
    try:
        while True:
            c.sendall(buf)
    except OSError:
        pass
def idle(l):
    held = []
    while True:
        c, _ = l.accept()
        held.append(c)
def echo(s):
    while True:
        d, a = s.recvfrom(2048)
        s.sendto(d, a)
ls = []
for port, fn in ((b, bulk), (i, idle)):
    l = socket.socket()
    l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    l.bind(("127.0.0.1", port))
    l.listen(4)
    ls.append(l)
    threading.Thread(target=fn, args=(l,), daemon=True).start()
us = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
us.bind(("127.0.0.1", u))
threading.Thread(target=echo, args=(us,), daemon=True).start()
open(sys.argv[4], "w").close()
time.sleep(60)
EOS
PIDS+=($!)
wait_for "host servers" 10 "[ -e $T/hready ]"

# the guest: the idle connection first (no payload ever), the bulk
# download read without pause, five UDP datagrams echoed, then after
# 1.5 s of download a DNS query (it waits 4 s for an answer that never
# comes); the ready file says all are in place
g "$PY" - "$BULK" "$IDLE" "$UDP" "$T/gready" <<'EOS' &
import os, socket, struct, sys, threading, time
b, i, u = (int(x) for x in sys.argv[1:4])
idle = socket.create_connection(("10.0.2.2", i))
bulk = socket.create_connection(("10.0.2.2", b))
def drain():
    try:
        while bulk.recv(1 << 20):
            pass
    except OSError:
        pass
threading.Thread(target=drain, daemon=True).start()
us = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
us.settimeout(3)
us.connect(("10.0.2.2", u))
for n in range(5):
    us.send(b"u" * 100)
    assert us.recv(2048) == b"u" * 100
time.sleep(1.5)
q = struct.pack(">HHHHHH", 0x1234, 0x0100, 1, 0, 0, 0)
for label in ("slow", "example"):
    q += bytes([len(label)]) + label.encode()
q += b"\0\0\1\0\1"
ds = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
ds.sendto(q, ("10.0.2.3", 53))
open(sys.argv[4], "w").close()
time.sleep(30)
EOS
PIDS+=($!)
wait_for "guest flows" 15 "[ -e $T/gready ]"

"$SLIPWAY" ctl "$CTL" flows --json >"$T/flows.json" ||
	fail "ctl flows --json: $(cat "$T/flows.json")"
"$SLIPWAY" ctl "$CTL" flows >"$T/flows.txt" ||
	fail "ctl flows: $(cat "$T/flows.txt")"
"$PY" - "$T/flows.json" "$BULK" "$IDLE" "$UDP" "$UP" <<'EOS' || fail "flows reply: $(cat "$T/flows.json")"
import json, sys
r = json.load(open(sys.argv[1]))
bulk, idle, udp = (int(x) for x in sys.argv[2:5])
up = sys.argv[5]
LIMITS = ("guest-rwnd", "host-sndbuf", "host-cwnd", "guest-sender",
          "host-sender", "edge", "idle")
EVERY = ("bytes_from_guest", "bytes_to_guest", "segs_from_guest",
         "segs_to_guest", "rate_from_guest", "rate_to_guest", "age_ms",
         "idle_ms", "host")
TCP = ("guest_rtt_us", "resends", "in_flight_to_guest", "guest_wnd",
       "tcp_info", "limited_by")
def die(m):
    print(m)
    sys.exit(1)
def one(pred, what):
    m = [f for f in r["flows"] if pred(f)]
    if len(m) != 1:
        die("%d flows of %s" % (len(m), what))
    return m[0]
for f in r["flows"]:
    for k in EVERY:
        if k not in f:
            die("flow %s lacks %s" % (f, k))
    if f["kind"] == "tcp":
        for k in TCP:
            if k not in f:
                die("TCP flow %s lacks %s" % (f, k))
        if f["limited_by"] not in LIMITS:
            die("limited_by %r" % f["limited_by"])
b = one(lambda f: f["kind"] == "tcp" and f["remote_port"] == bulk, "bulk")
if b["rate_to_guest"] <= 0 and b["rate_from_guest"] <= 0:
    die("bulk flow without a rate: %s" % b)
if b["bytes_to_guest"] <= 0 or b["segs_to_guest"] <= 0:
    die("bulk flow without bytes or segments to the guest: %s" % b)
if b["guest_rtt_us"] <= 0:
    die("bulk flow without the guest's RTT: %s" % b)
ti = b["tcp_info"]
if not ti or ti["cwnd"] <= 0 or ti["sndbuf"] <= 0 or ti["rtt_us"] < 0:
    die("bulk flow's tcp_info: %s" % ti)
if b["limited_by"] == "idle":
    die("bulk flow is idle: %s" % b)
h = b["host"]
if not h or h["peer_addr"] != "127.0.0.1" or h["peer_port"] != bulk or \
   h["local_addr"] != "127.0.0.1" or h["local_port"] <= 0:
    die("bulk flow's host tuple: %s" % h)
i = one(lambda f: f["kind"] == "tcp" and f["remote_port"] == idle, "idle")
if i["limited_by"] != "idle" or i["rate_to_guest"] or i["rate_from_guest"]:
    die("idle flow: %s" % i)
if i["state"] != "ESTABLISHED" or not i["tcp_info"] or not i["host"]:
    die("idle flow's state, tcp_info or host: %s" % i)
u = one(lambda f: f["kind"] == "udp" and f["remote_port"] == udp, "UDP")
if u["bytes_from_guest"] != 500 or u["bytes_to_guest"] != 500 or \
   u["segs_from_guest"] != 5 or u["segs_to_guest"] != 5:
    die("UDP flow's bytes and datagrams: %s" % u)
if not u["host"] or u["host"]["peer_port"] != udp or u["age_ms"] <= 0:
    die("UDP flow's host tuple or age: %s" % u)
if "limited_by" in u or "tcp_info" in u:
    die("UDP flow with TCP members: %s" % u)
d = one(lambda f: f["kind"] == "dns", "DNS")
if d["state"] != "QUERY" or d["proto"] != "udp" or d["remote_addr"] != up or \
   d["remote_port"] != 53 or d["guest_addr"] != "10.0.2.15" or \
   d["bytes_from_guest"] <= 12:
    die("DNS query: %s" % d)
if not d["host"] or d["host"]["peer_addr"] != up:
    die("DNS query's host side: %s" % d)
EOS

# the text table: the new columns, one line per flow (header, flows, total)
head -1 "$T/flows.txt" | grep -q "AGE_MS *RATE_FG *RATE_TG *RTT_G *RTT_H *LIMITED_BY$" ||
	fail "flows table header: $(head -1 "$T/flows.txt")"
n=$("$PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["flows"]))' "$T/flows.json")
lines=$(wc -l <"$T/flows.txt")
[ "$lines" -ge 4 ] || fail "flows table: $(cat "$T/flows.txt")"
grep -q " idle$" "$T/flows.txt" || fail "no idle flow in the table: $(cat "$T/flows.txt")"
grep -q "dns .*QUERY" "$T/flows.txt" || fail "no DNS query in the table: $(cat "$T/flows.txt")"
echo "flows: $n in JSON; table:"
cat "$T/flows.txt"
pass "ctl flows: rates, RTT, TCP_INFO, host tuples, verdicts, UDP, DNS"

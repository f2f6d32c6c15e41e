#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_splice.sh - loopback clients of published TCP ports are spliced to the
# guest's loopback (no tap): 1 GiB each way verified, the guest sees
# 127.0.0.1 (::1 clients: ::1, or 127.0.0.1 for an IPv4-only server), a
# refused port resets the client at once, resets pass both ways,
# half-close both ways, 64
# parallel connections, fds back to baseline; a client from another
# address still goes through the tap and keeps its address; --no-splice
# sends everyone through the tap; a full splice table falls back to the
# tap (counted), and so does a client when slipway is out of fds; -T ports
# on the guest's loopback reach the host's loopback the same way; slipway
# ctl flows lists live -t and -T spliced connections with their ends and
# growing byte counts; and both work rootless too.
. "$(dirname "$0")/lib.sh"
require_root
SIZE=${SIZE:-1G}
BYTES=$("$PY" -c "import sys;u={'K':1<<10,'M':1<<20,'G':1<<30};s=sys.argv[1];print(int(s[:-1])*u[s[-1]] if s[-1] in u else int(s))" "$SIZE")

# slipway runs in a "host" namespace H of our own: its loopback is the
# host loopback here, and 10.77.0.2 is a client address that is not
make_host_two 10.77.0.1/24 10.77.0.2/24
make_ns "$NS"
echo "nameserver 127.0.0.1" >"$T/resolv.conf"
h() { ip netns exec "$H" "$@"; }

# sw_start OPTS...: slipway in H serving $NS
sw_start() {
	launch_slipway "$H" "$@"
}

# nsh_pids: the namespace socket helpers living in the guest's namespace
nsh_pids() {
	local p
	for p in $(ip netns pids "$NS" 2>/dev/null); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = slipway-nsh ] && echo "$p"
	done
}

# the guest's servers: 7070 (IPv4) and 7072 (IPv6, dual-stack) answer with
# the peer address they see and close; 7073 answers and holds the
# connection until the client closes; 5005 reads to EOF, then answers;
# 7074 reads a byte and resets; 7075 tells whether its client reset
g "$PY" - "$T" <<'EOS' &
import socket, struct, sys, threading, time
def srv(fam, port, handler):
    s = socket.socket(fam)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if fam == socket.AF_INET6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        s.bind(("::", port))
    else:
        s.bind(("0.0.0.0", port))
    s.listen(128)
    def loop():
        while True:
            c, a = s.accept()
            threading.Thread(target=handler, args=(c, a), daemon=True).start()
    threading.Thread(target=loop, daemon=True).start()
def peer(c, a):
    c.sendall(a[0].encode()); c.close()
def hold(c, a):
    c.sendall(a[0].encode() + b"\n")
    while c.recv(100):
        pass
    c.close()
def after_fin(c, a):
    while c.recv(4096):
        pass
    time.sleep(0.3)
    c.sendall(b"answer-after-fin\n"); c.close()
def rst(c, a):
    c.recv(1)
    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    c.close()
def watch(c, a):
    try:
        while c.recv(4096):
            pass
        r = "eof"
    except ConnectionResetError:
        r = "reset"
    open(sys.argv[1] + "/watch.out", "w").write(r)
    c.close()
srv(socket.AF_INET, 7070, peer)
srv(socket.AF_INET, 7074, rst)
srv(socket.AF_INET, 7075, watch)
srv(socket.AF_INET6, 7072, peer)
srv(socket.AF_INET, 7073, hold)
srv(socket.AF_INET, 5005, after_fin)
open(sys.argv[1] + "/gready", "w").close()
while True:
    time.sleep(60)
EOS
PIDS+=($!)
wait_for "guest servers" 10 "[ -e $T/gready ]"

# ask ADDR PORT [SRC]: the peer address the guest's server saw
ask() {
	h "$PY" -c '
import socket, sys
src = (sys.argv[3], 0) if len(sys.argv) > 3 else None
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5,
                             source_address=src)
d = b""
while True:
    x = s.recv(100)
    if not x:
        break
    d += x
print(d.decode())
' "$@"
}

# ask1 ADDR PORT: the same, from a server that waits for the client to close
ask1() {
	h "$PY" -c '
import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5)
print(s.makefile("rb").readline().decode().strip())
' "$@"
}

# --- splice on (the default) ---
sw_start -t 7070 -t 7072 -t 7073 -t 7074 -t 7075 -t 5001 -t 5002 -t 5003 -t 5004 -t 5005
wait_for "the namespace socket helper" 10 '[ -n "$(nsh_pids)" ]'
base=$(sw_fds)

out=$(ask 127.0.0.1 7070) || fail "loopback client on 7070"
[ "$out" = 127.0.0.1 ] || fail "spliced IPv4 client seen as '$out', expected 127.0.0.1"
out=$(ask ::1 7072) || fail "::1 client on 7072"
[ "$out" = ::1 ] || fail "spliced ::1 client of an IPv6 server seen as '$out'"
out=$(ask ::1 7070) || fail "::1 client on 7070 (IPv4-only guest server)"
[ "$out" = 127.0.0.1 ] || fail "::1 client of an IPv4-only server seen as '$out'"
out=$(ask 10.77.0.1 7070 10.77.0.2) || fail "client 10.77.0.2"
[ "$out" = 10.77.0.2 ] || fail "non-loopback client seen as '$out': not through the tap?"

# host -> guest, then guest -> host, payload-verified
g "$SWVERIFY" server --listen 0.0.0.0:5001 --mode recv --bytes "$SIZE" --once \
	--ready-file "$T/r1" >"$T/s1.json" &
s1=$!
PIDS+=($s1)
g "$SWVERIFY" server --listen 0.0.0.0:5002 --mode send --bytes "$SIZE" --once \
	--ready-file "$T/r2" >"$T/s2.json" &
s2=$!
PIDS+=($s2)
wait_for "guest verifiers" 10 "[ -e $T/r1 ] && [ -e $T/r2 ]"
h "$SWVERIFY" client --connect 127.0.0.1:5001 --mode send --bytes "$SIZE" \
	--timeout 120 >"$T/c1.json" || fail "spliced send: $(cat "$T/c1.json")"
wait "$s1" || fail "guest did not verify the spliced bytes"
h "$SWVERIFY" client --connect 127.0.0.1:5002 --mode recv --bytes "$SIZE" \
	--timeout 120 >"$T/c2.json" || fail "spliced recv: $(cat "$T/c2.json")"
wait "$s2" || fail "guest sender failed"
[ "$(json_last "$T/s1.json" peer | cut -d: -f1)" = 127.0.0.1 ] ||
	fail "verifier saw $(json_last "$T/s1.json" peer), expected 127.0.0.1"

# a guest port nobody listens on: the client is reset at once
start=$(date +%s%N)
err=$(h "$PY" -c '
import socket
try:
    s = socket.create_connection(("127.0.0.1", 5004), timeout=5)
    s.settimeout(5)
    print("data" if s.recv(10) else "eof")
except socket.timeout:
    print("timeout")
except OSError as e:
    print(type(e).__name__)
')
ms=$((($(date +%s%N) - start) / 1000000))
case "$err" in
ConnectionResetError | ConnectionRefusedError | eof) ;;
*) fail "refused guest port: the client got '$err'" ;;
esac
[ "$ms" -lt 2000 ] || fail "refusal took $ms ms"

# resets pass both ways
out=$(h "$PY" -c '
import socket
s = socket.create_connection(("127.0.0.1", 7074), timeout=5)
s.sendall(b"x")
try:
    print("data" if s.recv(10) else "eof")
except ConnectionResetError:
    print("reset")
')
[ "$out" = reset ] || fail "the guest reset, the client got '$out'"
h "$PY" -c '
import socket, struct, time
s = socket.create_connection(("127.0.0.1", 7075), timeout=5)
s.sendall(b"hello")
time.sleep(0.2)
s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
s.close()
'
wait_for "the guest to see the client's reset" 5 "[ -s $T/watch.out ]"
[ "$(cat "$T/watch.out")" = reset ] || fail "the client reset, the guest saw '$(cat "$T/watch.out")'"

# half-close: 64 MiB echoed after the client's FIN; request, FIN, answer
g "$SWVERIFY" server --listen 0.0.0.0:5003 --mode echo --conns 65 \
	--ready-file "$T/r3" >/dev/null &
s3=$!
PIDS+=($s3)
wait_for "guest echo server" 10 "[ -e $T/r3 ]"
h "$SWVERIFY" client --connect 127.0.0.1:5003 --mode echo --bytes 64M \
	--timeout 60 >"$T/c3.json" || fail "spliced echo: $(cat "$T/c3.json")"
out=$(h "$PY" -c '
import socket
s = socket.create_connection(("127.0.0.1", 5005), timeout=10)
s.sendall(b"request\n")
s.shutdown(socket.SHUT_WR)
d = b""
while True:
    x = s.recv(4096)
    if not x:
        break
    d += x
print(d.decode().strip())
')
[ "$out" = answer-after-fin ] || fail "half-closed request got '$out'"

# 64 connections at once: more than the socket pool holds
h "$SWVERIFY" client --connect 127.0.0.1:5003 --mode echo --bytes 1M --parallel 64 \
	--timeout 60 >"$T/c4.json" || fail "64 parallel spliced echoes"
wait "$s3" || fail "guest echo server failed"

expect_fds_back "$base"
helper=$(nsh_pids)
stop_slipway
wait_for "the helper to exit with slipway" 5 "! kill -0 $helper 2>/dev/null"
check_gates
expect_ctr SPLICE_TO_GUEST_BYTES -ge $((BYTES + (64 << 20) * 2))
expect_ctr SPLICE_FROM_GUEST_BYTES -ge $((BYTES + (64 << 20) * 2))
expect_ctr SPLICE_OPENED -eq 74
expect_ctr SPLICE_CLOSED -eq 71
expect_ctr SPLICE_REFUSED -eq 1
expect_ctr SPLICE_RESET -eq 2
expect_ctr SPLICE_FALLBACKS -eq 0
# only the 10.77.0.2 client crossed the tap
expect_ctr TCP_FLOWS_OPENED_HOST -eq 1
expect_ctr TCP_ACKED_BYTES -eq 0
expect_ctr TCP_GUEST_BYTES -lt 100 # the guest's answer to 10.77.0.2
g1=$(json_last "$T/c1.json" gbps)
g2=$(json_last "$T/c2.json" gbps)

# --- --no-splice: loopback clients through the tap, no helper ---
sw_start --no-splice -t 7070 -t 5001
out=$(ask 127.0.0.1 7070) || fail "loopback client with --no-splice"
[ "$out" = 10.0.2.2 ] || fail "with --no-splice the loopback client was seen as '$out'"
[ -z "$(nsh_pids)" ] || fail "--no-splice started a namespace socket helper"
g "$SWVERIFY" server --listen 0.0.0.0:5001 --mode recv --bytes 64M --once \
	--ready-file "$T/r5" >/dev/null &
s5=$!
PIDS+=($s5)
wait_for "guest verifier" 10 "[ -e $T/r5 ]"
h "$SWVERIFY" client --connect 127.0.0.1:5001 --mode send --bytes 64M \
	--timeout 60 >/dev/null || fail "--no-splice send"
wait "$s5" || fail "guest did not verify --no-splice bytes"
stop_slipway
check_gates
for c in SPLICE_OPENED SPLICE_TO_GUEST_BYTES SPLICE_FROM_GUEST_BYTES SPLICE_FALLBACKS; do
	expect_ctr "$c" -eq 0
done
expect_ctr TCP_FLOWS_OPENED_HOST -eq 2
expect_ctr TCP_ACKED_BYTES -ge $((64 << 20))

# --- a full splice table: the rest go through the tap, counted ---
sw_start --max-flows 16 -t 7073
wait_for "the namespace socket helper" 10 '[ -n "$(nsh_pids)" ]'
base=$(sw_fds)
h "$PY" - >"$T/held.out" <<'EOS' || fail "holding 20 connections: $(cat "$T/held.out")"
import collections, socket
conns, seen = [], collections.Counter()
for i in range(20):
    s = socket.create_connection(("127.0.0.1", 7073), timeout=5)
    f = s.makefile("rb")
    seen[f.readline().decode().strip()] += 1
    conns.append((s, f))
for s, f in conns:
    f.close()
    s.close()
print(seen["127.0.0.1"], seen["10.0.2.2"])
EOS
read -r nspl ntap <"$T/held.out"
[ "$nspl" = 16 ] && [ "$ntap" = 4 ] ||
	fail "with a table of 16: $nspl spliced, $ntap through the tap (want 16, 4)"
sleep 0.3

# out of fds: three left, enough to accept and make one pipe, not two; the
# client goes through the tap; with fds again, it is spliced again
expect_fds_back "$base"
lim=$("$PY" -c '
import os, sys
used = {int(x) for x in os.listdir("/proc/%s/fd" % sys.argv[1])}
n = free = 0
while free < 3:
    if n not in used:
        free += 1
    n += 1
print(n)' "$SW_PID")
hard=$(prlimit --pid "$SW_PID" --nofile -o HARD --noheadings)
soft=$(prlimit --pid "$SW_PID" --nofile -o SOFT --noheadings)
prlimit --pid "$SW_PID" --nofile="$lim:" || fail "prlimit"
out=$(ask1 127.0.0.1 7073)
[ "$out" = 10.0.2.2 ] || fail "out of fds, the loopback client was seen as '$out' (expected the tap's 10.0.2.2)"
prlimit --pid "$SW_PID" --nofile="$soft:" || fail "prlimit back to $soft (hard $hard)"
out=$(ask1 127.0.0.1 7073)
[ "$out" = 127.0.0.1 ] || fail "with fds again, the loopback client was seen as '$out'"
stop_slipway
check_gates
expect_ctr SPLICE_FALLBACKS -eq 5
expect_ctr SPLICE_OPENED -eq 17
expect_ctr TCP_FLOWS_OPENED_HOST -eq 5

# --- -T: ports on the guest's loopback spliced to the host's loopback ---
sw_start -T 6101:7101 -T 6102:7102 -T 6103:7103 -T 6104:7104 -T 6105:7105
base=$(sw_fds)
h "$SWVERIFY" server --listen 127.0.0.1:7101 --mode recv --bytes "$SIZE" --once \
	--ready-file "$T/t1" >/dev/null &
t1=$!
PIDS+=($t1)
h "$SWVERIFY" server --listen 127.0.0.1:7102 --mode send --bytes "$SIZE" --once \
	--ready-file "$T/t2" >/dev/null &
t2=$!
PIDS+=($t2)
h "$SWVERIFY" server --listen 127.0.0.1:7103 --mode echo --once \
	--ready-file "$T/t3" >/dev/null &
t3=$!
PIDS+=($t3)
h "$PY" -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 7105)); s.listen(1)
open(sys.argv[1], "w").close()
c, a = s.accept(); c.sendall(a[0].encode()); c.close()
' "$T/t5" &
PIDS+=($!)
wait_for "host servers" 10 "[ -e $T/t1 ] && [ -e $T/t2 ] && [ -e $T/t3 ] && [ -e $T/t5 ]"
g "$SWVERIFY" client --connect 127.0.0.1:6101 --mode send --bytes "$SIZE" \
	--timeout 120 >"$T/tc1.json" || fail "-T send: $(cat "$T/tc1.json")"
wait "$t1" || fail "the host did not verify the -T bytes"
g "$SWVERIFY" client --connect 127.0.0.1:6102 --mode recv --bytes "$SIZE" \
	--timeout 120 >"$T/tc2.json" || fail "-T recv: $(cat "$T/tc2.json")"
wait "$t2" || fail "the host's -T sender failed"
# from the guest's ::1 to a host server on 127.0.0.1 only, across a half-close
g "$SWVERIFY" client --connect "[::1]:6103" --mode echo --bytes 64M \
	--timeout 60 >"$T/tc3.json" || fail "-T echo from ::1: $(cat "$T/tc3.json")"
wait "$t3" || fail "the host's -T echo server failed"
out=$(g "$PY" -c '
import socket
try:
    s = socket.create_connection(("127.0.0.1", 6104), timeout=5)
    print("data" if s.recv(10) else "eof")
except OSError as e:
    print(type(e).__name__)
')
[ "$out" = ConnectionResetError ] || [ "$out" = eof ] ||
	fail "-T to a closed host port: the guest got '$out'"
out=$(g "$PY" -c '
import socket
s = socket.create_connection(("127.0.0.1", 6105), timeout=5)
print(s.recv(100).decode())
')
[ "$out" = 127.0.0.1 ] || fail "-T: the host's server saw the guest as '$out'"
expect_fds_back "$base"
stop_slipway
check_gates
expect_ctr SPLICE_NS_OPENED -eq 5
expect_ctr SPLICE_OPENED -eq 5
expect_ctr SPLICE_CLOSED -eq 4
expect_ctr SPLICE_REFUSED -eq 1
expect_ctr SPLICE_NS_DROPPED -eq 0
expect_ctr SPLICE_FROM_GUEST_BYTES -ge $((BYTES + (64 << 20)))
expect_ctr SPLICE_TO_GUEST_BYTES -ge $((BYTES + (64 << 20)))
expect_ctr TCP_FLOWS_OPENED_GUEST -eq 0
tg1=$(json_last "$T/tc1.json" gbps)
tg2=$(json_last "$T/tc2.json" gbps)

# --- ctl flows: live spliced connections, -t and -T, with their ends,
# state and bytes each way, which grow ---
CTL=$T/ctl.sock
sw_start --ctl "$CTL" -t 7073 -T 6106:7106
h "$PY" -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 7106)); s.listen(1)
open(sys.argv[1], "w").close()
c, a = s.accept(); c.sendall(b"hi\n")
while c.recv(65536):
    pass
' "$T/f0" &
PIDS+=($!)
wait_for "host hold server" 10 "[ -e $T/f0 ]"
# spl_client ADDR PORT NAME N1 N2: connect, read a line, send N1 bytes, write
# the local port to $T/NAME.port; on $T/NAME.more send N2 more and write
# $T/NAME.sent; hold until $T/end
cat >"$T/spl_client.py" <<'EOS'
import os, socket, sys, time
a, p, name, n1, n2 = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
t = os.path.dirname(sys.argv[0])
s = socket.create_connection((a, p), timeout=5)
s.makefile("rb").readline()
s.sendall(b"a" * n1)
open("%s/%s.port" % (t, name), "w").write(str(s.getsockname()[1]))
for i in range(600):
    if os.path.exists("%s/%s.more" % (t, name)):
        s.sendall(b"b" * n2)
        open("%s/%s.sent" % (t, name), "w").close()
        break
    time.sleep(0.05)
while not os.path.exists(t + "/end"):
    time.sleep(0.05)
s.close()
EOS
h "$PY" "$T/spl_client.py" 127.0.0.1 7073 tin 1000 2000 &
PIDS+=($!)
fin=$!
g "$PY" "$T/spl_client.py" 127.0.0.1 6106 tout 3000 4000 &
PIDS+=($!)
fout=$!
wait_for "spliced clients" 10 "[ -s $T/tin.port ] && [ -s $T/tout.port ]"
# spl_flows IN_TO_GUEST OUT_FROM_GUEST: the flows listing shows both
# connections with these byte counts (exit 1 while bytes are on their way)
spl_flows() {
	"$SLIPWAY" ctl "$CTL" flows --json >"$T/flows.json" || fail "slipway ctl flows --json"
	"$PY" - "$T/flows.json" "$(cat "$T/tin.port")" "$(cat "$T/tout.port")" "$1" "$2" <<'EOS'
import json, sys
r = json.load(open(sys.argv[1]))
pin, pout, in_to, out_from = (int(x) for x in sys.argv[2:6])
sp = [f for f in r["flows"] if f.get("kind") == "splice"]
assert r["total"] == len(r["flows"]) == 2 and not r["truncated"], r
assert len(sp) == 2, r
fi = [f for f in sp if f["remote_port"] == pin]
fo = [f for f in sp if f["remote_port"] == 7106]
assert len(fi) == 1 and len(fo) == 1, sp
fi, fo = fi[0], fo[0]
for f in (fi, fo):
    assert f["proto"] == "tcp" and f["shard"] == 0 and f["state"] == "ESTABLISHED", f
    assert f["guest_addr"] == "127.0.0.1" and f["remote_addr"] == "127.0.0.1", f
    assert f["age_ms"] >= f["idle_ms"] >= 0, f
# -t: the guest's server at 7073, the host's client; -T: the guest's client,
# the host's server at 7106 through the guest's loopback port 6106
assert fi["guest_port"] == 7073 and "ns_port" not in fi, fi
assert fo["guest_port"] == pout and fo["ns_port"] == 6106, fo
assert fi["from_guest"] == len("127.0.0.1\n") and fo["to_guest"] == len("hi\n"), (fi, fo)
if fi["to_guest"] != in_to or fo["from_guest"] != out_from:
    sys.exit(1)
EOS
}
ok=0
for try in $(seq 50); do
	spl_flows 1000 3000 && ok=1 && break
	sleep 0.1
done
[ "$ok" = 1 ] || fail "ctl flows never showed the spliced connections: $(cat "$T/flows.json")"
"$SLIPWAY" ctl "$CTL" flows >"$T/flows.txt" || fail "slipway ctl flows"
grep -Eq "^tcp +splice +0 +127\.0\.0\.1:7073 +127\.0\.0\.1:$(cat "$T/tin.port") +ESTABLISHED +10 +1000 " "$T/flows.txt" &&
	grep -Eq "^tcp +splice +0 +127\.0\.0\.1:$(cat "$T/tout.port") +127\.0\.0\.1:7106 +ESTABLISHED +3000 +3 " "$T/flows.txt" ||
	fail "ctl flows table: $(cat "$T/flows.txt")"
"$SLIPWAY" ctl "$CTL" flows --limit 1 --json | "$PY" -c '
import json, sys
r = json.load(sys.stdin)
assert len(r["flows"]) == 1 and r["total"] == 2 and r["truncated"] is True, r' ||
	fail "ctl flows --limit 1 with two spliced connections"
touch "$T/tin.more" "$T/tout.more"
wait_for "more bytes sent" 10 "[ -e $T/tin.sent ] && [ -e $T/tout.sent ]"
ok=0
for try in $(seq 50); do
	spl_flows 3000 7000 && ok=1 && break
	sleep 0.1
done
[ "$ok" = 1 ] || fail "the spliced connections' bytes did not grow: $(cat "$T/flows.json")"
touch "$T/end"
wait "$fin" || fail "spliced -t client"
wait "$fout" || fail "spliced -T client"
spl_none() {
	"$SLIPWAY" ctl "$CTL" flows --json |
		"$PY" -c 'import json, sys; sys.exit(json.load(sys.stdin)["total"] != 0)'
}
wait_for "the spliced connections to leave the listing" 10 spl_none
stop_slipway
check_gates
expect_ctr SPLICE_OPENED -eq 2
expect_ctr SPLICE_CLOSED -eq 2

# --- SIGTERM mid-transfer, both ways: prompt exit, both peers released ---
sw_start -t 5001 -T 6101:7101
g "$SWVERIFY" server --listen 0.0.0.0:5001 --mode recv --once --ready-file "$T/k1" \
	>/dev/null 2>&1 &
k1=$!
PIDS+=($k1)
h "$SWVERIFY" server --listen 127.0.0.1:7101 --mode recv --once --ready-file "$T/k2" \
	>/dev/null 2>&1 &
k2=$!
PIDS+=($k2)
wait_for "servers" 10 "[ -e $T/k1 ] && [ -e $T/k2 ]"
h "$SWVERIFY" client --connect 127.0.0.1:5001 --mode send --bytes 100G --timeout 30 \
	>/dev/null 2>&1 &
k3=$!
PIDS+=($k3)
g "$SWVERIFY" client --connect 127.0.0.1:6101 --mode send --bytes 100G --timeout 30 \
	>/dev/null 2>&1 &
k4=$!
PIDS+=($k4)
sleep 1
kill -TERM "$SW_PID"
wait_for "slipway to exit on SIGTERM" 3 "! kill -0 $SW_PID 2>/dev/null"
wait "$SW_PID" || fail "slipway exited $? on SIGTERM mid-splice"
for p in $k1 $k2 $k3 $k4; do
	wait_for "peer $p to be released" 15 "! kill -0 $p 2>/dev/null"
done
expect_ctr SPLICE_ACTIVE -eq 2
expect_ctr SPLICE_TO_GUEST_BYTES -gt 0
expect_ctr SPLICE_FROM_GUEST_BYTES -gt 0

# --- rootless: slipway as nobody makes the user and network namespace ---
U=65534
if setpriv --reuid=$U --regid=$U --clear-groups test -r /dev/net/tun -a -w /dev/net/tun; then
	chmod 1777 "$T"
	cp "$SLIPWAY" "$T/slipway"
	cp "$SWVERIFY" "$T/swverify"
	chmod 755 "$T/slipway" "$T/swverify"
	pub=$(free_port)
	hp=$(free_port)
	"$SWVERIFY" server --listen "127.0.0.1:$hp" --mode recv --bytes 16M --once \
		--ready-file "$T/r7" >/dev/null &
	s7=$!
	PIDS+=($s7)
	wait_for "host server" 10 "[ -e $T/r7 ]"
	cat >"$T/guest.sh" <<EOS
readlink /proc/self/ns/net >$T/gns
$T/swverify client --connect 127.0.0.1:6201 --mode send --bytes 16M --timeout 60 >/dev/null || exit 5
exec $T/swverify server --listen 0.0.0.0:8001 --mode recv --bytes 64M --once --ready-file $T/r6
EOS
	chmod 755 "$T/guest.sh"
	rm -f "$T/stats.json"
	setpriv --reuid=$U --regid=$U --clear-groups "$T/slipway" --stats-file "$T/stats.json" \
		--resolv-conf "$T/resolv.conf" -t "127.0.0.1/$pub:8001" -T "6201:$hp" \
		-- /bin/sh "$T/guest.sh" \
		>"$T/slipway.log" 2>&1 &
	SW_PID=$!
	PIDS+=($SW_PID)
	wait_for "rootless guest server" 30 "[ -e $T/r6 ]"
	rhelper=
	for p in $(pgrep -x -u $U slipway-nsh); do
		[ "$(readlink "/proc/$p/ns/net")" = "$(cat "$T/gns")" ] && rhelper=$p
	done
	[ -n "$rhelper" ] || fail "no namespace socket helper in the rootless guest's namespace"
	"$SWVERIFY" client --connect "127.0.0.1:$pub" --mode send --bytes 64M --timeout 60 \
		>/dev/null || fail "rootless spliced send"
	wait "$SW_PID" || fail "rootless slipway/guest exited $?"
	wait "$s7" || fail "the host did not verify the rootless -T bytes"
	wait_for "the rootless helper to exit" 5 "! kill -0 $rhelper 2>/dev/null"
	check_gates
	expect_ctr SPLICE_TO_GUEST_BYTES -ge $((64 << 20))
	expect_ctr SPLICE_FROM_GUEST_BYTES -ge $((16 << 20))
	expect_ctr SPLICE_NS_OPENED -eq 1
	expect_ctr SPLICE_CLOSED -eq 2
	expect_ctr TCP_FLOWS_OPENED_HOST -eq 0
	rootless="rootless spliced"
else
	rootless="rootless skipped (/dev/net/tun not 0666)"
fi
pass "spliced $SIZE each way (${g1} / ${g2} Gbit/s), peers 127.0.0.1 and ::1, refusal in ${ms} ms, resets both ways, half-close, 64 parallel, fds back; 10.77.0.2 and --no-splice via the tap; table full and out of fds: tap fallbacks; -T $SIZE each way (${tg1} / ${tg2} Gbit/s), ::1 to 127.0.0.1, refusal; ctl flows lists -t and -T splices; SIGTERM mid-splice; $rootless"

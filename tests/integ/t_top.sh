#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_top.sh - slipway ls and slipway top against a guest with a known set of
# flows: a bulk transfer from the guest (about 3 MB/s), an idle TCP
# connection, a UDP flow and a spliced loopback client of a published -t
# port. top runs in tmux (160x40) and the screen is read back: each flow
# present with plausible figures, the sort key changes the order and the
# header, the filter, the counters view (largest move first) and the help,
# q, ^C and SIGTERM restore the terminal (exit 0), the pick list opens one
# of several, the instance going away exits 1 ("instance gone"); -b -n 2
# and --json -n 2 checked field by field; slipway ls tells two instances
# apart, and stale sockets in the run directory are ignored (one of a dead
# PID removed, one of a live PID left alone); another user's runtime
# directory is $XDG_RUNTIME_DIR/slipway only when that is an absolute path
# to a directory of theirs; a fake instance answers with the members of a
# newer server (mode, guest, name, rates, host tuple, RTT, limited_by, DNS
# queries) and a control sequence, shown cleaned. The instances are
# started with --ctl <rundir>/<pid>.sock, the default path of a slipway
# that serves one (so this works with or without that default).
. "$(dirname "$0")/lib.sh"
require_root
command -v tmux >/dev/null || {
	echo "SKIP: needs tmux"
	exit 77
}

RUN=/run/slipway
mkdir -p -m 0700 "$RUN"
REAL=$SLIPWAY
# the wrapper puts the PID slipway will have (exec keeps it) in --ctl
cat >"$T/sw" <<EOF
#!/bin/bash
exec "$REAL" --ctl "$RUN/\$\$.sock" "\$@"
EOF
chmod 755 "$T/sw"
SLIPWAY=$T/sw
TS=swtop$$

make_host_ns swth
tmux_kill() { tmux kill-session -t "$TS" 2>/dev/null; }
# the fake instance's socket, if it was killed before it removed it
fake_rm() { [ -s "$T/fake.pid" ] && rm -f "$RUN/$(cat "$T/fake.pid").sock"; }
trap 'tmux_kill; fake_rm; cleanup' EXIT

# host side (in H): 5201 drains (bulk), 5202 holds (idle), 5203 echoes UDP
h "$PY" - 2>"$T/hostsrv.err" <<'EOS' &
import socket, threading
def tcp(port, drain):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(8)
    def one(c):
        while c.recv(65536 if drain else 1):
            pass
    def loop():
        while True:
            c, _ = s.accept()
            threading.Thread(target=one, args=(c,), daemon=True).start()
    threading.Thread(target=loop, daemon=True).start()
tcp(5201, True)
tcp(5202, False)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind(("127.0.0.1", 5203))
while True:
    d, a = u.recvfrom(2048)
    u.sendto(d, a)
EOS
PIDS+=($!)
wait_listen 5202 "$H"

launch_slipway "$H" -t 7073
A=$SW_PID
CTL=$RUN/$A.sock
[ -S "$CTL" ] || fail "no control socket at $CTL"

# the guest: a server for the spliced client (7073, holds), and its clients
g ip link set lo up
g "$PY" - "$T" 2>"$T/guest.err" <<'EOS' &
import socket, sys, threading, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 7073))
s.listen(8)
def hold():
    while True:
        c, _ = s.accept()
        threading.Thread(target=lambda c=c: c.recv(1), daemon=True).start()
threading.Thread(target=hold, daemon=True).start()
idle = socket.create_connection(("10.0.2.2", 5202))
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.connect(("10.0.2.2", 5203))
bulk = socket.create_connection(("10.0.2.2", 5201))
open(sys.argv[1] + "/guest.ready", "w").close()
buf = b"x" * 32768
n = 0
while True:
    bulk.sendall(buf)          # 32 KiB every 10 ms: about 3 MiB/s
    n += 1
    if n % 20 == 0:
        u.send(b"ping")
    time.sleep(0.01)
EOS
PIDS+=($!)
wait_for "the guest's flows" 10 "[ -e $T/guest.ready ]"
# the spliced client: a loopback client of the published port, holding
h "$PY" -c '
import socket, time
c = socket.create_connection(("127.0.0.1", 7073))
c.send(b"x")
time.sleep(120)' &
PIDS+=($!)
sleep 1.2

# --- batch: two text snapshots, field by field
SW=$REAL
"$SW" top -b -n 2 "$CTL" >"$T/batch.txt" || fail "top -b exited $?"
"$PY" - "$T/batch.txt" "$A" <<'EOS' || fail "top -b output (above)"
import sys
text = open(sys.argv[1]).read()
def die(m):
    print(text)
    print(m)
    sys.exit(1)
# each snapshot: 2 header lines, a blank line, the columns, the rows; a
# blank line between snapshots
blocks = text.split("\n\n")
# blocks: [hdr1, table1 (+ blank), hdr2, table2]
if len(blocks) != 4:
    die("expected 2 snapshots (4 blocks), got %d" % len(blocks))
for k in (0, 2):
    h = blocks[k].split("\n")
    if len(h) != 2 or ("pid " + sys.argv[2]) not in h[0] or "sort rate" not in h[0]:
        die("bad header: %r" % h)
    if not h[1].startswith("flows ") or "from guest" not in h[1] or "drops" not in h[1]:
        die("bad totals line: %r" % h[1])
cols = blocks[3].split("\n")[0].split()
want = ["KIND", "GUEST", "REMOTE", "HOST", "STATE", "OUT/s", "IN/s", "OUT", "IN", "AGE", "IDLE", "RTT", "LIMITED_BY"]
if cols != want:
    die("columns %s" % cols)
rows = [l.split() for l in blocks[3].split("\n")[1:] if l]
def unit(v):
    m = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return float(v[:-1]) * m[v[-1]] if v[-1] in m else float(v)
def find(kind, port):
    for r in rows:
        if r[0].startswith(kind) and (r[2].endswith(":%d" % port) or r[1].endswith(":%d" % port)):
            return r
    die("no %s flow on port %d" % (kind, port))
bulk, idle, udp, spl = find("tcp", 5201), find("tcp", 5202), find("udp", 5203), find("splice", 7073)
if not 300e3 < unit(bulk[5]) < 50e6:
    die("bulk OUT/s %s" % bulk[5])
if unit(idle[5]) != 0 or unit(idle[6]) != 0:
    die("idle flow rates %s %s" % (idle[5], idle[6]))
if unit(bulk[7]) < 1e6:
    die("bulk OUT bytes %s" % bulk[7])
if rows[0] != bulk:
    die("sorted by rate, the bulk flow is not first: %s" % rows[0])
if not h[1].split("from guest ")[1].split()[0]:
    die("totals")
rate = h[1].split("from guest ")[1].split()[1].strip("(/s)")
if unit(rate) < 300e3:
    die("total rate from the guest %s" % rate)
print("batch ok: bulk %s/s, %d flows" % (bulk[5], len(rows)))
EOS

# --- JSON: two documents, one line each
"$SW" top --json -n 2 -s bytes "$CTL" >"$T/top.json" || fail "top --json exited $?"
"$PY" - "$T/top.json" "$A" <<'EOS' || fail "top --json output"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
def die(m):
    print(m)
    sys.exit(1)
if len(lines) != 2:
    die("expected 2 lines, got %d" % len(lines))
d = [json.loads(l) for l in lines]
for k, x in enumerate(d):
    for m in ("time", "instance", "stats", "flows", "sort"):
        if m not in x:
            die("doc %d lacks %s" % (k, m))
    if x["sort"] != "bytes" or x["instance"]["pid"] != int(sys.argv[2]):
        die("sort/pid %s %s" % (x["sort"], x["instance"].get("pid")))
    for m in ("bytes_from_guest", "bytes_to_guest", "drops", "flows", "moved",
              "rate_from_guest", "rate_to_guest"):
        if m not in x["stats"]:
            die("stats lacks %s" % m)
if not 0.5 < d[1]["time"] - d[0]["time"] < 3:
    die("times %s %s" % (d[0]["time"], d[1]["time"]))
if d[0]["stats"]["rate_from_guest"] is not None:
    die("a total rate in the first snapshot (no previous one)")
if not d[1]["stats"]["rate_from_guest"] > 300e3:
    die("total rate %s" % d[1]["stats"]["rate_from_guest"])
if d[1]["stats"]["bytes_from_guest"] <= d[0]["stats"]["bytes_from_guest"]:
    die("bytes from the guest did not grow")
if not d[1]["stats"]["moved"].get("EDGE_RX_BYTES", 0) > 0:
    die("moved: %s" % d[1]["stats"]["moved"])
f = d[1]["flows"]
def by(kind, port):
    for x in f:
        if x["kind"] == kind and port in (x.get("remote_port"), x.get("guest_port")):
            return x
    die("no %s flow on %d in %s" % (kind, port, f))
bulk, idle, udp, spl = by("tcp", 5201), by("tcp", 5202), by("udp", 5203), by("splice", 7073)
if not bulk["rate_from_guest"] > 300e3 or idle["rate_from_guest"] != 0:
    die("rates: bulk %s idle %s" % (bulk["rate_from_guest"], idle["rate_from_guest"]))
if f[0]["remote_port"] != 5201:
    die("sorted by bytes, the bulk flow is not first: %s" % f[0])
print("json ok: %d flows, bulk %.0f B/s" % (len(f), bulk["rate_from_guest"]))
EOS

# --- a second instance with another guest, and two stale sockets
NS_A=$NS
NS=${NS_A}b
make_ns "$NS"
ip netns exec "$H" "$T/sw" --netns "$NS" --resolv-conf "$T/resolv.conf" \
	>"$T/b.log" 2>&1 &
B=$!
PIDS+=($B)
NS=$NS_A
wait_for "the second instance" 10 "[ -S $RUN/$B.sock ]"
# stale: bound, never listened; one of a dead PID, one of a live one
true &
DEAD=$!
wait $DEAD
"$PY" -c '
import socket, sys
for p in sys.argv[1:]:
    socket.socket(socket.AF_UNIX).bind(p)' "$RUN/$DEAD.sock" "$RUN/$$.sock"
wait_for "the second instance's answer" 10 \
	"'$REAL' ls | grep -q '^$B '"
"$REAL" ls >"$T/ls.txt" || fail "ls exited $?"
"$REAL" ls --json >"$T/ls.json" || fail "ls --json exited $?"
cat "$T/ls.txt"
"$PY" - "$T/ls.txt" "$T/ls.json" "$A" "$B" "$DEAD" "$$" <<'EOS' || fail "slipway ls"
import json, sys
txt = open(sys.argv[1]).read().splitlines()
js = json.load(open(sys.argv[2]))
a, b, dead, live = sys.argv[3:7]
def die(m):
    print(m)
    sys.exit(1)
if txt[0].split()[:5] != ["PID", "MODE", "EDGE", "GUEST", "NAME"]:
    die("header %s" % txt[0])
rows = {l.split()[0]: l.split() for l in txt[1:]}
for p in (a, b):
    if p not in rows:
        die("instance %s not listed" % p)
    if rows[p][2] != "tap":
        die("edge of %s: %s" % (p, rows[p][2]))
for p in (dead, live):
    if p in rows:
        die("stale socket of %s listed" % p)
ja = {str(x["pid"]): x for x in js}
if set((a, b)) - set(ja):
    die("ls --json lacks an instance")
if ja[a]["ctl"] == ja[b]["ctl"]:
    die("same socket")
if "guest" in ja[a] and ja[a]["guest"] == ja[b]["guest"]:
    die("two instances with one guest: %s" % ja[a]["guest"])
if ja[a]["flows"] < 4 or ja[a]["bytes_from_guest"] <= ja[b]["bytes_from_guest"]:
    die("flows/bytes of A: %s %s" % (ja[a]["flows"], ja[a]["bytes_from_guest"]))
print("ls ok")
EOS
[ -e "$RUN/$DEAD.sock" ] && fail "the stale socket of a dead PID was left"
[ -S "$RUN/$$.sock" ] || fail "the stale socket of a live PID was removed"
rm -f "$RUN/$$.sock"
# batch mode with several instances and no argument: names them, exit 2
"$REAL" top -b >"$T/several.out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "^  $A " "$T/several.out" && grep -q "^  $B " "$T/several.out" ||
	fail "top -b with several instances: exit $rc, $(cat "$T/several.out")"

# --- the runtime directory of another user: $XDG_RUNTIME_DIR/slipway when
# that is a directory of theirs, else /tmp/slipway-UID
cp "$REAL" "$T/slipway-copy"
chmod 755 "$T/slipway-copy"
mkdir -p "$T/xdg" "$T/xdg-root"
chown 65534 "$T/xdg"
# as_nobody [XDG]: slipway ls as UID 65534, XDG_RUNTIME_DIR set to XDG
as_nobody() {
	env -u XDG_RUNTIME_DIR ${1:+XDG_RUNTIME_DIR=$1} setpriv --reuid 65534 \
		--regid 65534 --clear-groups "$T/slipway-copy" ls
}
as_nobody | grep -qF "no running slipway found in /tmp/slipway-65534;" ||
	fail "ls as a user without XDG_RUNTIME_DIR: $(as_nobody 2>&1)"
as_nobody "$T/xdg" | grep -qF "no running slipway found in $T/xdg/slipway;" ||
	fail "ls as a user with XDG_RUNTIME_DIR: $(as_nobody "$T/xdg" 2>&1)"
as_nobody "$T/xdg-root" | grep -qF "found in /tmp/slipway-65534;" ||
	fail "ls with an XDG_RUNTIME_DIR of another user: $(as_nobody "$T/xdg-root" 2>&1)"
as_nobody xdg | grep -qF "found in /tmp/slipway-65534;" ||
	fail "ls with a relative XDG_RUNTIME_DIR: $(as_nobody xdg 2>&1)"

# --- the screen, in tmux: a shell that runs top and says how it ended
tmux new-session -d -s "$TS" -x 160 -y 40 "bash --norc --noprofile" ||
	fail "tmux"
tmux set-option -t "$TS" status off >/dev/null
# topcmd ARGS: run top in the tmux shell, its PID in $T/top.pid
topcmd() {
	rm -f "$T/top.pid"
	tmux send-keys -t "$TS" "clear; sh -c 'echo \$\$ >$T/top.pid; exec $REAL top $*'; echo TOPRC=\$?" Enter
	wait_for "top's start" 10 "[ -s $T/top.pid ]"
}
screen() { tmux capture-pane -t "$TS" -p; }
# expect WHAT PATTERN: wait until the screen matches (grep -E)
expect() {
	local i
	for i in $(seq 60); do
		screen >"$T/screen.txt"
		grep -qE -- "$2" "$T/screen.txt" && return 0
		sleep 0.05
	done
	cat "$T/screen.txt"
	fail "screen: $1 (no /$2/)"
}
topcmd "$CTL"
expect "the header" "pid $A .*sort rate"
expect "the columns" "KIND +GUEST +REMOTE +HOST +STATE +OUT/s +IN/s"
sleep 1.2
screen >"$T/screen.txt"
cp "$T/screen.txt" "$T/screen-flows.txt" # KEEP_T=1 keeps it to look at
for p in ':5201 ' ':5202 ' ':5203 ' 'splice .*:7073'; do
	grep -qE -- "$p" "$T/screen.txt" || { cat "$T/screen.txt"; fail "no flow /$p/ on the screen"; }
done
# sorted by rate: the bulk flow is the first row (line 5)
sed -n 5p "$T/screen.txt" | grep -q ':5201 ' || { cat "$T/screen.txt"; fail "bulk flow not first"; }
tmux send-keys -t "$TS" s
expect "sort by bytes" "sort bytes"
tmux send-keys -t "$TS" s
expect "sort by age" "sort age"
tmux send-keys -t "$TS" '<'
expect "back to bytes" "sort bytes"
tmux send-keys -t "$TS" /
expect "the filter prompt" "filter \(port or address"
tmux send-keys -t "$TS" ":5202" Enter
expect "the filter" "filter :5202"
screen >"$T/screen.txt"
[ "$(grep -cE '^(tcp|udp|splice)' "$T/screen.txt")" = 1 ] && grep -q ':5202 ' "$T/screen.txt" ||
	{ cat "$T/screen.txt"; fail "filter :5202 shows other flows"; }
tmux send-keys -t "$TS" / Enter
tmux send-keys -t "$TS" c
expect "the counters view" "COUNTER \(moved\)"
expect "a moving counter" "EDGE_RX_BYTES +[0-9]+"
# the largest move first: the bytes of the bulk transfer, not a frame count
sed -n 5p "$T/screen.txt" | grep -qE '_BYTES +[0-9]+' ||
	{ cat "$T/screen.txt"; fail "counters: the largest move is not first"; }
tmux send-keys -t "$TS" c
expect "the flows again" "KIND +GUEST"
# p pauses: the uptime stays still; p again resumes
tmux send-keys -t "$TS" p
expect "paused" "sort bytes  \[paused\]"
up1=$(screen | sed -n 's/.* up \([^ ]*\) .*/\1/p;q')
sleep 2.2
up2=$(screen | sed -n 's/.* up \([^ ]*\) .*/\1/p;q')
[ -n "$up1" ] && [ "$up1" = "$up2" ] || fail "paused, the uptime moved: $up1 $up2"
tmux send-keys -t "$TS" p
wait_for "resumed" 5 "! tmux capture-pane -t $TS -p | grep -q paused"
tmux send-keys -t "$TS" h
expect "the help" "slipway top: keys"
tmux send-keys -t "$TS" x
expect "the flows after help" "KIND +GUEST"
# 80 columns: the columns that fit, the rates kept
tmux resize-window -t "$TS" -x 80 -y 40
expect "80 columns" "^KIND +GUEST +REMOTE +OUT/s +IN/s +OUT *$"
tmux resize-window -t "$TS" -x 160 -y 40
expect "160 columns" "^KIND +GUEST +REMOTE +HOST +STATE .* LIMITED_BY$"
tmux send-keys -t "$TS" q
expect "q: exit 0" "^TOPRC=0"
screen | grep -q "KIND" && fail "the terminal still shows top after q"

# SIGTERM: exit 0, terminal restored
topcmd "$CTL"
expect "the header" "pid $A "
kill -TERM "$(cat "$T/top.pid")"
expect "SIGTERM: exit 0" "^TOPRC=0"
screen | grep -q "KIND" && fail "the terminal still shows top after SIGTERM"

# SIGINT (^C): exit 0, terminal restored
topcmd "$CTL"
expect "the header" "pid $A "
tmux send-keys -t "$TS" C-c
expect "SIGINT: exit 0" "^TOPRC=0"
screen | grep -q "KIND" && fail "the terminal still shows top after SIGINT"

# the pick list: no argument, several instances; Enter opens one
topcmd ""
expect "the pick list" "Several slipway instances"
tmux send-keys -t "$TS" Enter
expect "the instance picked" "pid [0-9]+ .*sort rate"
tmux send-keys -t "$TS" q
expect "q after the pick: exit 0" "^TOPRC=0"

# the instance goes away: "instance gone", exit 1, terminal restored
topcmd "$RUN/$B.sock"
expect "B's header" "pid $B "
kill -TERM "$B"
expect "instance gone" "instance gone"
expect "gone: exit 1" "^TOPRC=1"
screen | grep -q "KIND" && fail "the terminal still shows top after the instance went"
tmux_kill

# --- the members of a newer server (version: mode, guest, name, totals;
# flows: rates, host tuple, RTT, limited_by, DNS queries): a fake instance
# answering as the contract says, at <rundir>/<its pid>.sock
"$PY" - "$RUN" "$T/fake.pid" <<'EOS' 2>"$T/fake.err" &
import json, os, signal, socket, sys
path = "%s/%d.sock" % (sys.argv[1], os.getpid())
s = socket.socket(socket.AF_UNIX)
s.bind(path)
s.listen(8)
signal.signal(signal.SIGTERM, lambda *a: (os.unlink(path), os._exit(0)))
open(sys.argv[2], "w").write(str(os.getpid()))
ver = {"version": "9.9\u001b[2J\u009b", "edge": "vhost-user", "shards_n": 1, "peek_offset": True,
       "max_flows": 100, "pid": os.getpid(), "mode": "passt",
       "guest": "/run/libvirt/qemu/passt/3-vm1-net0.socket", "name": "vm1",
       "uptime_ms": 3723000, "started_unix": 1700000000, "flows": 2,
       "bytes_from_guest": 123456789, "bytes_to_guest": 987654321, "drops": 7}
stats = {"version": "9.9", "edge": "vhost-user", "uptime_ms": 3723000,
         "counters": {"EDGE_RX_BYTES": 123456789, "EDGE_TX_BYTES": 987654321,
                      "TCP_DROP_OOO": 7}, "shards": [], "histograms": {}}
tcp = {"proto": "tcp", "kind": "tcp", "shard": 0, "guest_addr": "10.0.2.15",
       "guest_port": 41000, "remote_addr": "192.0.2.7", "remote_port": 443,
       "state": "ESTABLISHED", "from_guest": 5, "to_guest": 6,
       "bytes_from_guest": 5 << 20, "bytes_to_guest": 70 << 20,
       "segs_from_guest": 100, "segs_to_guest": 200,
       "rate_from_guest": 1048576, "rate_to_guest": 2097152,
       "age_ms": 65000, "idle_ms": 0,
       "host": {"local_addr": "198.51.100.1", "local_port": 50123,
                "peer_addr": "192.0.2.7", "peer_port": 443},
       "guest_rtt_us": 1500, "resends": 0, "in_flight_to_guest": 65536,
       "guest_wnd": 65536, "tcp_info": {"rtt_us": 20000, "rttvar_us": 100,
       "cwnd": 10, "retrans": 0, "unacked": 3, "send_queue": 0, "sndbuf": 1},
       "limited_by": "guest-rwnd"}
dns = {"proto": "udp", "kind": "dns", "shard": 0, "guest_addr": "10.0.2.15",
       "guest_port": 5353, "remote_addr": "127.0.0.53", "remote_port": 53,
       "state": "QUERY", "from_guest": 1, "to_guest": 0,
       "bytes_from_guest": 40, "bytes_to_guest": 0, "segs_from_guest": 1,
       "segs_to_guest": 0, "rate_from_guest": 0, "rate_to_guest": 0,
       "age_ms": 12, "idle_ms": 12, "host": None}
while True:
    c, _ = s.accept()
    req = json.loads(c.makefile().readline())
    r = {"version": ver, "stats": stats,
         "flows": {"flows": [dns, tcp], "total": 2, "truncated": False}}[req["cmd"]]
    c.sendall(json.dumps(r).encode() + b"\n")
    c.close()
EOS
PIDS+=($!)
wait_for "the fake instance" 10 "[ -s $T/fake.pid ] && [ -S $RUN/\$(cat $T/fake.pid).sock ]"
F=$(cat "$T/fake.pid")
"$REAL" ls >"$T/ls2.txt" || fail "ls exited $?"
grep -qE "^$F +passt +vhost-user +/run/libvirt/qemu/passt/3-vm1-net0.socket +vm1 +1h02 +2 +118M +942M" \
	"$T/ls2.txt" || { cat "$T/ls2.txt"; fail "ls: the fake instance's line"; }
"$REAL" top -b "$F" >"$T/fake.txt" || fail "top -b PID exited $?"
cat "$T/fake.txt"
# a terminal control sequence in a reply is not printed as such
grep -qF "slipway 9.9?[2J??  pid $F " "$T/fake.txt" ||
	fail "top -b printed the reply's control characters"
grep -q "pid $F  mode passt  edge vhost-user  guest /run/libvirt/qemu/passt/3-vm1-net0.socket  name vm1  up 1h02  sort rate" "$T/fake.txt" &&
	grep -q "flows 2  from guest 118M (-/s)  to guest 942M (-/s)  drops 7" "$T/fake.txt" &&
	grep -qE "^tcp +10.0.2.15:41000 +192.0.2.7:443 +198.51.100.1:50123 +ESTABLISHED +1.0M +2.0M +5.0M +70M +1m05 +0.0s +1.5ms +guest-rwnd" "$T/fake.txt" &&
	grep -qE "^dns/udp +10.0.2.15:5353 +127.0.0.53:53 +- +QUERY +0 +0 +40 +0 " "$T/fake.txt" &&
	[ "$(sed -n 5p "$T/fake.txt" | cut -c1-3)" = tcp ] ||
	fail "top -b: the fake instance's members"
"$REAL" top --json "$F" >"$T/fake.json" || fail "top --json PID exited $?"
"$PY" - "$T/fake.json" <<'EOS' || fail "top --json: the fake instance's members"
import json, sys
d = json.loads(open(sys.argv[1]).read())
f = d["flows"]
assert d["instance"]["mode"] == "passt" and d["instance"]["name"] == "vm1", d["instance"]
assert f[0]["kind"] == "tcp" and f[0]["rate_from_guest"] == 1048576, f[0]
assert f[0]["tcp_info"]["cwnd"] == 10 and f[1]["kind"] == "dns", f
assert d["stats"]["drops"] == 7 and d["stats"]["flows"] == 2, d["stats"]
EOS
kill -TERM "$(cat "$T/fake.pid")"
echo "PASS"

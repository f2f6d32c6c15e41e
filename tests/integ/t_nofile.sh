#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_nofile.sh - out of file descriptors, in the sandbox: slipway raises its
# soft open-files limit to the hard one; at 256 fds, a guest holding 1,000
# connections exhausts them, and then clients of a published port and of
# the control socket are refused at once (the spare fd made again each
# time, in the sandbox's empty root), the listeners pause instead of
# spinning (slipway is idle right after the storm), the log stays short,
# and once the guest lets go everything works again, byte-exact
. "$(dirname "$0")/lib.sh"
require_root

# 1. the soft limit is raised to the hard one (and the command keeps its own)
make_ns "${NS}a"
echo "nameserver 127.0.0.1" >"$T/resolv.conf"
prlimit --nofile=64:4096 "$SLIPWAY" --netns "${NS}a" \
	--resolv-conf "$T/resolv.conf" -d >"$T/a.log" 2>&1 &
a=$!
PIDS+=($a)
wait_for "slipway's limit" 10 \
	"awk '/^Max open files/ {print \$4, \$5}' /proc/$a/limits 2>/dev/null | grep -qx '4096 4096'"
grep -q "open files limit raised from 64 to 4096" "$T/a.log" ||
	fail "no debug line on the raised limit: $(cat "$T/a.log")"
kill -TERM "$a"
wait "$a" || fail "slipway (limit check) exited with $?"

# 2. the storm
p=$(free_port)
pub=$(free_port)
CTL=$T/ctl.sock
# the host server: takes and holds every connection
"$PY" - "$p" "$T/hready" <<'EOS' &
import resource, selectors, socket, sys
resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
l = socket.socket()
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("127.0.0.1", int(sys.argv[1])))
l.listen(2048)
open(sys.argv[2], "w").close()
sel = selectors.DefaultSelector()
sel.register(l, selectors.EVENT_READ)
held = {}
while True:
    for k, _ in sel.select():
        if k.fileobj is l:
            c, _ = l.accept()
            held[c.fileno()] = c
            sel.register(c, selectors.EVENT_READ)
        else:
            c = k.fileobj
            if not c.recv(4096):
                sel.unregister(c)
                del held[c.fileno()]
                c.close()
EOS
PIDS+=($!)
wait_for "host server" 10 "[ -e $T/hready ]"

make_ns "$NS"
prlimit --nofile=256:256 "$SLIPWAY" --netns "$NS" --stats-file "$T/stats.json" \
	--resolv-conf "$T/resolv.conf" --ctl "$CTL" -t "127.0.0.1/$pub:7000" \
	>"$T/slipway.log" 2>&1 &
SW_PID=$!
PIDS+=($SW_PID)
wait_for "guest address" 10 "ip -n $NS -4 addr show dev tap0 2>/dev/null | grep -q inet"
wait_started
g ip link set lo up
grep -q "^Max open files *256 *256" "/proc/$SW_PID/limits" || fail "limits: $(grep files /proc/$SW_PID/limits)"

# the guest opens 1,000 connections and holds them; told to, 50 more
g "$PY" - "$p" "$T" >"$T/hold.out" 2>&1 <<'EOS' &
import os, resource, socket, sys, time
resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
ok, refused = [], 0
def wait(name):
    while not os.path.exists(os.path.join(sys.argv[2], name)):
        time.sleep(0.05)
def conns(n):
    global refused
    for i in range(n):
        s = socket.socket()
        s.settimeout(5)
        try:
            s.connect(("10.0.2.2", int(sys.argv[1])))
            ok.append(s)
        except OSError:
            s.close()
            refused += 1
    print(len(ok), refused, flush=True)
conns(1000)
open(os.path.join(sys.argv[2], "gready"), "w").close()
wait("more")
conns(50)
open(os.path.join(sys.argv[2], "gready2"), "w").close()
wait("release")
for s in ok:
    s.close()
EOS
hold=$!
PIDS+=($hold)
wait_for "guest connections" 60 "[ -e $T/gready ]"
read -r nok nref <"$T/hold.out"
[ "$nref" -gt 0 ] || fail "no guest connection refused at 256 fds ($nok held)"
[ "$nok" -gt 100 ] || fail "only $nok guest connections admitted at 256 fds"
[ "$(ls /proc/$SW_PID/fd | wc -l)" -ge 250 ] ||
	fail "slipway holds only $(ls /proc/$SW_PID/fd | wc -l) fds: not exhausted"

# clients of the published port and of the control socket, all at once
# (the first client alone before): each is refused (reset or closed) at
# once, none left hanging (one may be served: while a thread refuses, the
# number its spare freed may go to another's accept)
storm() {
	"$PY" - "$pub" "$CTL" "$1" "$2" >"$T/storm.out" 2>&1 <<'EOS'
import socket, sys, threading
res = {"pub": [0, 0, 0], "ctl": [0, 0, 0]}   # refused, hanging, served
lock = threading.Lock()
def one(kind):
    try:
        if kind == "pub":
            s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3)
        else:
            s = socket.socket(socket.AF_UNIX)
            s.settimeout(3)
            s.connect(sys.argv[2])
            s.sendall(b'{"cmd":"version"}\n')
        r = 2 if s.recv(100) else 0     # an answer, or closed without
    except socket.timeout:
        r = 1                           # left hanging in the backlog
    except OSError:
        r = 0                           # reset
    with lock:
        res[kind][r] += 1
ts = [threading.Thread(target=one, args=(k,))
      for k in ["pub"] * int(sys.argv[3]) + ["ctl"] * int(sys.argv[4])]
for t in ts:
    t.start()
for t in ts:
    t.join()
print(*res["pub"], *res["ctl"])
EOS
	read -r pref phang pserv cref chang cserv <"$T/storm.out" ||
		fail "storm: $(cat "$T/storm.out")"
	[ "$phang" = 0 ] && [ "$pref" -ge $(($1 - $1 / 8)) ] ||
		fail "published port: $pref of $1 clients refused, $phang left hanging, $pserv served"
	[ "$chang" = 0 ] && [ "$cref" -ge $(($2 - $2 / 8)) ] ||
		fail "control socket: $cref of $2 clients refused, $chang left hanging, $cserv served"
}
storm 1 0
# what the refusal freed is taken again at once (by the spare fd: it must
# not be left to the guest, which tries 50 more connections)
touch "$T/more"
wait_for "50 more guest connections" 30 "[ -e $T/gready2 ]"
read -r nok2 nref2 < <(tail -1 "$T/hold.out")
[ "$nok2" = "$nok" ] || fail "a guest connection took the fd the refusal freed ($nok2 held, was $nok)"
storm 40 10
refused=$((pref + 1))

# idle within a second of the storm (the guest still holds every fd)
sleep 0.5
hz=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$SW_PID/stat"; }
c0=$(cpu)
sleep 1
c1=$(cpu)
[ $((c1 - c0)) -le $((hz / 20)) ] ||
	fail "slipway used $((c1 - c0)) of $hz ticks in the second after the storm (spinning?)"

# the guest lets go: every fd comes back, and everything works again
touch "$T/release"
wait "$hold" || fail "guest holder: $(cat "$T/hold.out")"
wait_flows_gone
expect_ctr SHARD_ACCEPT_NOFD -ge "$refused"
expect_ctr SHARD_LISTEN_PAUSES -ge 1
expect_ctr CTL_ACCEPT_NOFD -ge "$cref"
expect_ctr TCP_FLOWS_SOCK_FAIL -ge 1
"$SLIPWAY" ctl "$CTL" version >/dev/null || fail "the control socket after the storm"
xfer_pub_send "$pub" 7000 16M
xfer_guest_send 10.0.2.2 16M
stop_slipway
check_gates
n=$(wc -l <"$T/slipway.log")
[ "$n" -lt 50 ] || fail "$n log lines: a flood ($(sort "$T/slipway.log" | uniq -c | sort -rn | head -3))"
pass "soft limit raised 64 -> 4096; at 256 fds: $nok guest flows held, $((nref2)) refused; $refused of 41 published-port and $cref of 10 control clients refused at once, idle after ($((c1 - c0)) ticks), $n log lines; 16 MiB each way verified afterwards"

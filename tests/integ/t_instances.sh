#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_instances.sh - every instance can be found: with no --ctl, slipway (as
# itself, pasta, passt and slirp4netns) serves its control socket at
# RUNDIR/PID.sock (root: /run/slipway; others: $XDG_RUNTIME_DIR/slipway or
# /tmp/slipway-UID), mode 0600 in a 0700 directory, removed at exit; the
# version reply names the instance (pid, mode, guest, name, uptime), and
# slipway ls lists the pasta, passt and slirp4netns ones (podman's,
# libvirt's and rootlesskit's command lines);
# --ctl none and SLIPWAY_CTL=none make none, SLIPWAY_CTL=PATH moves it;
# a stale socket at our path is replaced; a symlinked or foreign directory
# is refused without stopping the gateway; only our user (or root) may
# talk; and exit is quiet (no counters on stderr; -v: one summary line).
. "$(dirname "$0")/lib.sh"
require_root

private_slipway pasta passt
ln -s slipway "$T/bin/slirp4netns"
SW=$T/bin/slipway
RUN=/run/slipway
U=65534 # nobody

# field JSONFILE KEY: a member of a JSON object in a file
field() {
	"$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}

# version SOCK OUT: the version reply of the instance at SOCK, into OUT
version() {
	"$SW" ctl "$1" version --json >"$2" 2>"$T/ctl.err" ||
		fail "slipway ctl $1 version: $(cat "$T/ctl.err")"
}

# check_sock SOCK: a socket, mode 0600, in a directory of mode 0700
check_sock() {
	[ -S "$1" ] || fail "no control socket at $1"
	[ "$(stat -c %a "$1")" = 600 ] || fail "$1: mode $(stat -c %a "$1")"
	[ "$(stat -c %a "$(dirname "$1")")" = 700 ] ||
		fail "$(dirname "$1"): mode $(stat -c %a "$(dirname "$1")")"
}

# expect_version OUT PID MODE GUEST NAME: the reply's identity fields
expect_version() {
	"$PY" - "$@" <<'PY' || fail "version reply: $(cat "$1")"
import json, sys, time
f, pid, mode, guest, name = sys.argv[1:6]
v = json.load(open(f))
def die(m):
    sys.exit("%s: %s" % (m, v))
if v["pid"] != int(pid): die("pid %s expected" % pid)
if v["mode"] != mode: die("mode %s expected" % mode)
if v["guest"] != guest: die("guest %s expected" % guest)
if v["name"] != name: die("name %s expected" % name)
if not isinstance(v["uptime_ms"], int) or not 0 <= v["uptime_ms"] < 60000: die("uptime_ms")
if abs(v["started_unix"] - time.time()) > 60: die("started_unix")
for k in ("flows", "bytes_from_guest", "bytes_to_guest", "drops"):
    if not isinstance(v[k], int) or v[k] < 0: die(k)
for k in ("version", "edge", "shards_n", "max_flows"):
    if k not in v: die(k)
PY
}

# in_ls PID MODE: slipway ls --json lists the instance, in that mode
in_ls() {
	"$SW" ls --json >"$T/ls.json" 2>"$T/ls.err" || fail "slipway ls: $(cat "$T/ls.err")"
	"$PY" - "$T/ls.json" "$1" "$2" <<'PY' || fail "slipway ls lacks $1 ($2): $(cat "$T/ls.json")"
import json, sys
ls = json.load(open(sys.argv[1]))
sys.exit(0 if any(i.get("pid") == int(sys.argv[2]) and i.get("mode") == sys.argv[3]
		  for i in ls) else 1)
PY
}

### 1. slipway's own mode, no --ctl: RUNDIR/PID.sock, named, removed at exit
start_slipway
S=$RUN/$SW_PID.sock
check_sock "$S"
[ "$(stat -c %u "$RUN")" = 0 ] || fail "$RUN is not root's"
version "$S" "$T/v1.json"
expect_version "$T/v1.json" "$SW_PID" slipway "/run/netns/$NS" "$NS"
# some traffic: the guest's bytes show up in the totals
g ping -c 1 -W 2 10.0.2.2 >/dev/null 2>&1
version "$S" "$T/v1b.json"
[ "$(field "$T/v1b.json" bytes_from_guest)" -gt 0 ] || fail "no bytes from the guest: $(cat "$T/v1b.json")"
"$SW" ctl "$S" version >"$T/v1.txt" || fail "ctl version (text)"
grep -q "^PID $SW_PID, slipway mode, guest /run/netns/$NS ($NS), up " "$T/v1.txt" ||
	fail "ctl version text: $(cat "$T/v1.txt")"
grep -q "flow(s) open, [0-9]* bytes from the guest" "$T/v1.txt" ||
	fail "ctl version text: $(cat "$T/v1.txt")"
stop_slipway
[ -e "$S" ] && fail "$S left behind at exit"

### 2. slipway -- CMD: the default socket, --ctl none, SLIPWAY_CTL; quiet exit
echo "nameserver 127.0.0.1" >"$T/resolv.conf"
R=(--resolv-conf "$T/resolv.conf")
# the command is slipway's child: its $PPID names the socket
"$SW" "${R[@]}" -- sh -c "[ -S $RUN/\$PPID.sock ] && \"$SW\" ctl $RUN/\$PPID.sock version --json >$T/v2.json" \
	>"$T/q.out" 2>"$T/q.err" || fail "no default socket for slipway -- CMD: $(cat "$T/q.err")"
"$PY" -c 'import json,sys; v=json.load(open(sys.argv[1])); sys.exit(0 if v["guest"].startswith("pid:") and v["name"] == "sh" and v["mode"] == "slipway" else 1)' "$T/v2.json" ||
	fail "slipway -- sh: $(cat "$T/v2.json")"
# quiet: nothing at all on stderr at exit (counters only on request)
[ -s "$T/q.err" ] && fail "slipway -- CMD wrote to stderr: $(head -c 300 "$T/q.err")"
[ -s "$T/q.out" ] && fail "slipway -- CMD wrote to stdout: $(head -c 300 "$T/q.out")"
# -v: what is served, and one summary line at exit; no JSON
"$SW" -v "${R[@]}" -- true 2>"$T/v.err" || fail "slipway -v -- true"
grep -q '{' "$T/v.err" && fail "-v: JSON on stderr: $(head -c 300 "$T/v.err")"
[ "$(grep -c 'exit: [0-9]* flows, [0-9]* bytes from the guest, [0-9]* to it, [0-9]* dropped; integrity gate' "$T/v.err")" = 1 ] ||
	fail "-v: no one-line summary: $(cat "$T/v.err")"
# --ctl none, SLIPWAY_CTL=none: no socket; SLIPWAY_CTL=PATH: there
"$SW" --ctl none "${R[@]}" -- sh -c "[ ! -e $RUN/\$PPID.sock ]" 2>"$T/n.err" ||
	fail "--ctl none made a socket"
SLIPWAY_CTL=none "$SW" "${R[@]}" -- sh -c "[ ! -e $RUN/\$PPID.sock ]" 2>"$T/n.err" ||
	fail "SLIPWAY_CTL=none made a socket"
SLIPWAY_CTL=$T/env.sock "$SW" "${R[@]}" -- sh -c "[ -S $T/env.sock ] && [ ! -e $RUN/\$PPID.sock ]" 2>"$T/n.err" ||
	fail "SLIPWAY_CTL=PATH: $(cat "$T/n.err")"
[ -e "$T/env.sock" ] && fail "SLIPWAY_CTL's socket left behind"

# a start-up failure (a published port in use) removes the socket too
BUSY=$(free_port)
"$PY" -c 'import socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1",int(sys.argv[1]))); s.listen(); time.sleep(10)' "$BUSY" &
PIDS+=("$!")
wait_listen "$BUSY"
bash -c 'echo $$ >"$0"; exec "$@"' "$T/busy.pid" "$SW" "${R[@]}" -t "127.0.0.1/$BUSY:80" -- true 2>"$T/b.err" &&
	fail "slipway started with its published port in use"
grep -q "cannot publish" "$T/b.err" || fail "port in use: $(cat "$T/b.err")"
[ -e "$RUN/$(cat "$T/busy.pid").sock" ] && fail "socket left behind by a start-up failure"

### 3. a stale socket at our own path (a PID reused) is replaced
# exec keeps the shell's PID: the stale file is at the new slipway's path
cat >"$T/stale.sh" <<EOF
"$PY" -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.close()' $RUN/\$\$.sock
[ -S $RUN/\$\$.sock ] || exit 9
exec "$SW" --resolv-conf "$T/resolv.conf" -- sh -c '"$SW" ctl $RUN/\$PPID.sock version --json >$T/v3.json'
EOF
bash "$T/stale.sh" 2>"$T/s.err" || fail "a stale socket stopped slipway: $(cat "$T/s.err")"
[ -s "$T/v3.json" ] || fail "no answer over the replaced stale socket"
# and a stale file with a dead PID's name is left alone, harmless
"$PY" -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.close()' "$RUN/999999999.sock"
"$SW" "${R[@]}" -- true 2>"$T/s.err" || fail "slipway beside a stale file: $(cat "$T/s.err")"
rm -f "$RUN/999999999.sock"

### 4. pasta (podman's argv) and passt (libvirt's): a socket each
make_ns "${NS}p"
timeout 20 "$T/bin/pasta" --config-net --dns-forward 169.254.1.1 -t none \
	-u none -T none -U none --no-map-gw --quiet --netns "/run/netns/${NS}p" \
	--map-guest-addr 169.254.1.2 -P "$T/pasta.pid" </dev/null >"$T/p.out" 2>&1 ||
	fail "pasta: $(cat "$T/p.out")"
PP=$(cat "$T/pasta.pid")
PIDS+=("$PP")
check_sock "$RUN/$PP.sock"
version "$RUN/$PP.sock" "$T/vp.json"
expect_version "$T/vp.json" "$PP" pasta "/run/netns/${NS}p" "${NS}p"
in_ls "$PP" pasta
kill -TERM "$PP"
wait_for "pasta to exit" 5 "[ ! -e /proc/$PP ] || grep -q '^State:.*Z' /proc/$PP/status"
wait_for "pasta's socket to go" 5 "[ ! -e $RUN/$PP.sock ]"

mkdir -p "$T/passt"
timeout 20 "$T/bin/passt" --socket "$T/passt/1-vm1-net0.socket" \
	--pid "$T/passt.pid" --mtu 1500 --log-file "$T/passt.log" \
	--hostname vm1 </dev/null >"$T/pt.out" 2>&1 || fail "passt: $(cat "$T/pt.out")"
PT=$(cat "$T/passt.pid")
PIDS+=("$PT")
check_sock "$RUN/$PT.sock"
version "$RUN/$PT.sock" "$T/vt.json"
expect_version "$T/vt.json" "$PT" passt "$T/passt/1-vm1-net0.socket" vm1
in_ls "$PT" passt
kill -TERM "$PT"
wait_for "passt's socket to go" 5 "[ ! -e $RUN/$PT.sock ]"

### 5. slirp4netns (rootlesskit's argv shape: a PID, tap0)
make_ns "${NS}s"
ip netns exec "${NS}s" sleep 30 &
HOLD=$!
PIDS+=("$HOLD")
"$T/bin/slirp4netns" --mtu 65520 --disable-host-loopback -c "$HOLD" tap0 \
	>"$T/s4n.log" 2>&1 &
SP=$!
PIDS+=("$SP")
wait_for "slirp4netns's control socket" 10 "[ -S $RUN/$SP.sock ] || ! kill -0 $SP"
check_sock "$RUN/$SP.sock"
version "$RUN/$SP.sock" "$T/vs.json"
expect_version "$T/vs.json" "$SP" slirp4netns "pid:$HOLD" ""
in_ls "$SP" slirp4netns
kill -TERM "$SP"
reap "$SP" 5 >/dev/null
wait_for "slirp4netns's socket to go" 5 "[ ! -e $RUN/$SP.sock ]"
kill "$HOLD"

### 6. rootless: $XDG_RUNTIME_DIR/slipway; unsafe directories refused, the
### gateway runs on; another user is refused by SO_PEERCRED
# a VM socket edge needs no namespace: runs as any user
rootless() { # XDG NAME: slipway as nobody, a stream edge at $T/NAME.vm
	local x=$1 n=$2
	mkdir -p "$T/vm"
	chown $U "$T/vm"
	XDG_RUNTIME_DIR=$x setpriv --reuid=$U --regid=$U --clear-groups \
		"$SW" -v --stream "$T/vm/$n.sock" "${R[@]}" >"$T/$n.log" 2>&1 &
	RP=$!
	PIDS+=("$RP")
	# "serving" (-v) comes after the control socket is made, or not
	wait_for "rootless slipway $n" 10 "grep -q serving $T/$n.log || ! kill -0 $RP"
	kill -0 "$RP" 2>/dev/null || fail "rootless slipway $n stopped: $(cat "$T/$n.log")"
}
mkdir -m 700 "$T/x1" "$T/x2" "$T/x3" "$T/elsewhere"
chown $U "$T/x1" "$T/x2" "$T/x3" "$T/elsewhere"
rootless "$T/x1" ok
check_sock "$T/x1/slipway/$RP.sock"
[ "$(stat -c %u "$T/x1/slipway/$RP.sock")" = $U ] || fail "the socket is not the user's"
# (asked as the user: under the sandbox's user namespace, which maps only
# the user, root is seen as the overflow user)
setpriv --reuid=$U --regid=$U --clear-groups "$SW" ctl "$T/x1/slipway/$RP.sock" \
	version --json >"$T/vr.json" || fail "the user's own instance did not answer"
expect_version "$T/vr.json" "$RP" slipway "$T/vm/ok.sock" ok
kill -TERM "$RP"
reap "$RP" 5 >/dev/null
[ -e "$T/x1/slipway/$RP.sock" ] && fail "rootless socket left behind"
# a symbolic link where the directory should be
ln -s "$T/elsewhere" "$T/x2/slipway"
rootless "$T/x2" link
grep -q "no control socket: .*symbolic link" "$T/link.log" || fail "symlinked directory: $(cat "$T/link.log")"
[ -n "$(ls -A "$T/elsewhere")" ] && fail "a socket made through the symlink"
kill -TERM "$RP"
# a directory of another user's
mkdir -m 700 "$T/x3/slipway"
rootless "$T/x3" foreign
grep -q "no control socket: .*belongs to user 0" "$T/foreign.log" || fail "foreign directory: $(cat "$T/foreign.log")"
kill -TERM "$RP"
# SO_PEERCRED: a root instance whose socket file another user can reach
mkdir -m 755 "$T/pc"
SLIPWAY_CTL=$T/pc/ctl.sock "$SW" "${R[@]}" --stream "$T/pc/vm.sock" >"$T/pc.log" 2>&1 &
PC=$!
PIDS+=("$PC")
wait_for "the control socket" 10 "[ -S $T/pc/ctl.sock ]"
chmod 666 "$T/pc/ctl.sock"
setpriv --reuid=$U --regid=$U --clear-groups "$SW" ctl "$T/pc/ctl.sock" version >"$T/pc.out" 2>&1 &&
	fail "another user was answered: $(cat "$T/pc.out")"
"$SW" ctl "$T/pc/ctl.sock" stats --json >"$T/pc.json" || fail "root refused"
"$PY" -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["counters"]["CTL_REFUSED"] < 1)' "$T/pc.json" ||
	fail "the refusal was not counted"
grep -q "control client refused: PID [0-9]* runs as user $U" "$T/pc.log" || fail "refusal not logged: $(cat "$T/pc.log")"
kill -TERM "$PC"

pass "default control sockets (slipway, pasta, passt, slirp4netns, rootless), version identity, none/env, stale, unsafe dirs, peer check, quiet exit"

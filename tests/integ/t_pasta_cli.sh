#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_pasta_cli.sh - slipway as pasta and passt: each client's exact command
# line (from /work/shared/reference/pasta-passt-clients.md: podman 5.0 to
# 5.3+, rootlesskit 2.0 to 2.3, libvirt with and without vhost-user, QEMU
# 10.1's -netdev passt, muvm) replayed against a pasta or passt symlink;
# the exit status, that the parent returns only when the namespace is
# configured or the socket listens, the PID file, --version (in order), the
# "unrecognized option" text and status, exit when the namespace goes,
# foreground mode, --one-off. The machine has podman 4.3 and rootlesskit
# 1.1: these argv replays stand in for the newer clients.
# Addresses, DNS and port forwarding behaviour are other tests' business.
. "$(dirname "$0")/lib.sh"
require_root

private_slipway pasta passt
PASTA=$T/bin/pasta
PASST=$T/bin/passt

# dead PID: the process has exited (gone, or a zombie its new parent, the
# init process here, has not reaped yet)
dead() {
	[ ! -e "/proc/$1" ] ||
		[ "$(awk '/^State/ {print $2}' "/proc/$1/status" 2>/dev/null)" = Z ]
}

# wait_dead PID SECONDS WHAT
wait_dead() {
	wait_for "$3" "$2" "dead $1"
}

# run_client OUT CMD...: run like podman and rootlesskit do (wait for the
# parent, output read to its end through a pipe); RC is its status
run_client() {
	local out=$1
	shift
	timeout 20 "$@" 2>&1 </dev/null | cat >"$out"
	RC=${PIPESTATUS[0]}
	[ "$RC" = 124 ] && fail "'$*' did not return within 20 s (a pipe held open?)"
	return 0
}

# pid_of FILE: the PID file's content: one decimal number and a newline
pid_of() {
	local v
	v=$(cat "$1") || fail "no PID file $1"
	[[ "$v" =~ ^[0-9]+$ ]] || fail "PID file $1 holds '$v'"
	[ "$(tail -c1 "$1" | od -An -c | tr -d ' ')" = '\n' ] ||
		fail "PID file $1 does not end in a newline"
	echo "$v"
}

# spec_ok SPEC: slipway's port parser takes SPEC (the portspec work may
# not have landed: then the replays that need it are skipped)
spec_ok() {
	"$SLIPWAY" -t "$1" --help >/dev/null 2>&1
}
SKIPPED=()
skip() {
	echo "SKIP (port parser lacks '$1'): $2"
	SKIPPED+=("$2")
}

### 1. --version, processed in order (podman info, rootlesskit's probe)
for how in "$PASTA" "$T/bin/slipway pasta"; do
	$how --version >"$T/ver" 2>"$T/ver.err" || fail "$how --version: exit $?"
	head -1 "$T/ver" | grep -q "^pasta " || fail "$how --version: $(head -1 "$T/ver")"
	[ -s "$T/ver.err" ] && fail "$how --version wrote to stderr"
done
"$PASST" --version | head -1 | grep -q "^passt " || fail "passt --version"
"$T/bin/slipway" passt --version | head -1 | grep -q "^passt " ||
	fail "slipway passt --version"
# rootlesskit 2.3: DetectFeatures
"$PASTA" --version >/dev/null 2>&1 || fail "probe: pasta --version"
"$PASTA" --host-lo-to-ns-lo --version >/dev/null 2>&1 ||
	fail "probe: pasta --host-lo-to-ns-lo --version (HasHostLoToNsLo)"
"$PASTA" --map-guest-addr 169.254.1.2 --version >/dev/null 2>&1 ||
	fail "pasta --map-guest-addr ADDR --version"
# bundled short options each add to slipway's own command line: a
# hundred -d in one argument (and -q, -t) wrote past its end
"$PASTA" "-$(printf 'd%.0s' {1..100})qt80" --version >"$T/ver" 2>&1 ||
	fail "pasta -ddd...qt80 --version: exit $?: $(tail -3 "$T/ver")"
grep -q "^pasta " "$T/ver" || fail "pasta -ddd...qt80 --version: $(head -3 "$T/ver")"
# an unknown option before --version fails: exit 1, glibc's text
"$PASTA" --no-such-option --version >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" = 1 ] || fail "unknown option: exit $rc, expected 1"
grep -q "unrecognized option '--no-such-option'" "$T/err" ||
	fail "unknown option said: $(cat "$T/err")"
grep -q "^pasta" "$T/out" && fail "--version ran after an unknown option"
# podman's retry trigger is this exact text for an option we refuse
"$PASTA" --splice-only --netns x >/dev/null 2>"$T/err"
[ $? = 1 ] && grep -q "unrecognized option '--splice-only'" "$T/err" ||
	fail "refused option: $(cat "$T/err")"
"$PASST" --print-capabilities >"$T/caps" || fail "--print-capabilities: exit $?"
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["type"]=="net", d' \
	"$T/caps" || fail "--print-capabilities: $(cat "$T/caps")"
"$PASTA" --help | head -1 | grep -q "^Usage: pasta" || fail "pasta --help"

### 2. bad command lines: exit 1, a message, nothing left running
bad() {
	local want=$1
	shift
	run_client "$T/out" "$@"
	[ "$RC" = 1 ] || fail "'$*' exited $RC, expected 1 ($(cat "$T/out"))"
	grep -qi -- "$want" "$T/out" || fail "'$*' said: $(cat "$T/out")"
}
bad "for passt mode only" "$PASTA" --one-off --netns x
bad "for pasta mode only" "$PASST" --netns x
bad "for pasta mode only" "$PASST" -T 80
bad "only allowed for pasta" "$PASST" -t auto -s "$T/x.sock"
bad "requires an argument" "$PASTA" --mtu
bad "invalid option" "$PASTA" -6 1
bad "unrecognized option '--no-tcp'" "$PASST" --no-tcp
bad "conflicts" "$PASTA" -t none -t 80 --netns x
bad "invalid address" "$PASTA" -a 127.0.0.1 --netns x
bad "invalid MAC" "$PASTA" --ns-mac-addr 01:00:5e:00:00:01 --netns x
bad "remap" "$PASTA" --map-guest-addr 127.0.0.1 --netns x
bad "both --netns and PID" "$PASTA" --netns x 1
bad "extra non-option" "$PASST" -s "$T/x.sock" foo
# set-up failures come from the child: relayed, with its status
bad "namespace" "$PASTA" --config-net --netns "$T/no-such-ns"
wait_for "no process left by the failures" 5 "[ -z \"\$(ours)\" ]"

### 3. podman 5.3 and later: the default argv, then the retry text
make_ns "$NS"
NSP=/run/netns/$NS
run_client "$T/out" "$PASTA" --config-net --dns-forward 169.254.1.1 -t none \
	-u none -T none -U none --no-map-gw --quiet --netns "$NSP" \
	--map-guest-addr 169.254.1.2
[ "$RC" = 0 ] || fail "podman 5.3 argv: exit $RC: $(cat "$T/out")"
grep -q "unrecognized option '--map-guest-addr" "$T/out" &&
	fail "podman would retry without --map-guest-addr"
# returned only when ready: the namespace is configured already, as pasta
# configures it: the host's default-route interface's name and address
# (podman's tests check the address), MTU 65520
HIF=$(ip -4 route show default | awk '{print $5; exit}')
HADDR=$(ip -4 -o addr show dev "${HIF:-none}" 2>/dev/null | awk '{print $4; exit}')
[ -n "$HIF" ] && [ -n "$HADDR" ] || { HIF=tap0 HADDR=; }
ip -n "$NS" -4 addr show dev "$HIF" | grep -q "inet ${HADDR}" ||
	fail "podman 5.3: no IPv4 address ${HADDR} on $HIF in the namespace when pasta returned: $(ip -n "$NS" addr)"
ip -n "$NS" link show dev "$HIF" | grep -q "UP" || fail "podman 5.3: $HIF not up"
[ "$(ip -n "$NS" link show dev "$HIF" | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')" = 65520 ] ||
	fail "podman 5.3: MTU is not 65520"
d=$(ours | head -1)
[ -n "$d" ] || fail "podman 5.3: no pasta process after the parent returned"
# a daemon: its own session, stdio away from the client's pipe
[ "$(ps -o sid= -p "$d" | tr -d ' ')" = "$d" ] || fail "the daemon has no session of its own"
for fd in 0 1 2; do
	[ "$(readlink "/proc/$d/fd/$fd")" = /dev/null ] ||
		fail "the daemon's fd $fd is $(readlink "/proc/$d/fd/$fd"), not /dev/null"
done
# podman's bats: pasta quits when the namespace is gone
ip netns del "$NS"
wait_dead "$d" 3 "pasta to exit after its namespace was deleted"

# podman 5.0.0 (ports before the options, --dns none, no
# --map-guest-addr), 5.0.3 (169.254.0.1), 5.2 (no --quiet with --debug),
# the rootless netns (--pid), a published port bound to loopback
P1=$(free_port)
make_ns "$NS"
run_client "$T/out" "$PASTA" -t "$P1-$P1:80-80" --config-net --dns none \
	--quiet --netns "$NSP"
[ "$RC" = 0 ] || fail "podman 5.0.0 argv: exit $RC: $(cat "$T/out")"
ss -Hltn "sport = :$P1" | grep -q LISTEN ||
	fail "podman 5.0.0: published port $P1 not bound when pasta returned"
ip netns del "$NS"
wait_for "podman 5.0.0's pasta to exit" 3 "[ -z \"\$(ours)\" ]"

make_ns "$NS"
run_client "$T/out" "$PASTA" -t "127.0.0.1/$P1-$P1:80-80" --config-net \
	--dns-forward 169.254.0.1 -u none -T none -U none --no-map-gw --debug \
	--netns "$NSP"
[ "$RC" = 0 ] || fail "podman 5.2 argv: exit $RC: $(cat "$T/out")"
ss -Hltn "sport = :$P1" | grep -q "127.0.0.1:$P1" ||
	fail "podman 5.2: 127.0.0.1:$P1 not bound when pasta returned"
grep -q "debug" "$T/out" || fail "podman 5.2 --debug: no debug messages relayed"
ip netns del "$NS"
wait_for "podman 5.2's pasta to exit" 3 "[ -z \"\$(ours)\" ]"

make_ns "$NS"
echo junk-longer-than-a-pid >"$T/rl.pid"
run_client "$T/out" "$PASTA" --config-net --pid "$T/rl.pid" --dns-forward \
	169.254.1.1 -t none -u none -T none -U none --no-map-gw --quiet \
	--netns "$NSP" --map-guest-addr 169.254.1.2
[ "$RC" = 0 ] || fail "podman rootless netns argv: exit $RC: $(cat "$T/out")"
d=$(pid_of "$T/rl.pid")
kill -0 "$d" && ! dead "$d" || fail "the PID file names $d, which does not run"
[ "$(readlink "/proc/$d/exe")" = "$T/bin/slipway" ] || fail "PID $d is not pasta"
# podman's cleanup: SIGTERM to that PID
kill -TERM "$d"
wait_dead "$d" 3 "pasta to exit on SIGTERM"
ip netns del "$NS"

### 4. rootlesskit 2.3 (pasta daemonizes; PID target), then 2.0-2.2
sleep_ns() {
	unshare -n sleep 60 &
	SP=$!
	PIDS+=("$SP")
	wait_for "the target's namespace" 5 \
		"[ \"\$(readlink /proc/$SP/ns/net)\" != \"\$(readlink /proc/self/ns/net)\" ]"
}
sleep_ns
run_client "$T/out" "$PASTA" --stderr --ns-ifname=tap0 --mtu=65520 \
	--config-net --address=10.0.2.100 --netmask=24 --gateway=10.0.2.2 \
	--dns-forward=10.0.2.3 --ipv4-only --tcp-ports=none --udp-ports=none \
	--host-lo-to-ns-lo "$SP"
[ "$RC" = 0 ] || fail "rootlesskit 2.3 argv: exit $RC: $(cat "$T/out")"
nsenter -t "$SP" -n ip -4 addr show dev tap0 | grep -q "10.0.2.100/24" ||
	fail "rootlesskit 2.3: 10.0.2.100/24 not configured when pasta returned"
nsenter -t "$SP" -n ip route | grep -q "default via 10.0.2.2" ||
	fail "rootlesskit 2.3: no default route via 10.0.2.2"
d=$(ours | head -1)
kill "$SP"
wait_dead "$d" 3 "pasta to exit after its target PID exited"

# --detach-netns: --userns and --netns of a child in a user namespace
unshare -U -r -n sleep 60 &
SP=$!
PIDS+=("$SP")
sleep 0.3
run_client "$T/out" "$PASTA" --stderr --ns-ifname=tap0 --mtu=65520 \
	--config-net --address=10.0.2.100 --netmask=24 --gateway=10.0.2.2 \
	--dns-forward=10.0.2.3 --ipv4-only --tcp-ports=none --udp-ports=none \
	--userns="/proc/$SP/ns/user" --netns="/proc/$SP/ns/net"
[ "$RC" = 0 ] || fail "rootlesskit --detach-netns argv: exit $RC: $(cat "$T/out")"
nsenter -t "$SP" -n ip -4 addr show dev tap0 | grep -q "10.0.2.100/24" ||
	fail "rootlesskit --detach-netns: no address when pasta returned"
kill "$SP"
wait_for "the --detach-netns pasta to exit" 3 "[ -z \"\$(ours)\" ]"

# port driver implicit: --tcp-ports=auto --udp-ports=auto
if spec_ok auto; then
	sleep_ns
	run_client "$T/out" "$PASTA" --stderr --ns-ifname=tap0 --mtu=65520 \
		--config-net --address=10.0.2.100 --netmask=24 \
		--gateway=10.0.2.2 --dns-forward=10.0.2.3 --ipv4-only \
		--tcp-ports=auto --udp-ports=auto --host-lo-to-ns-lo "$SP"
	[ "$RC" = 0 ] || fail "rootlesskit implicit argv: exit $RC: $(cat "$T/out")"
	kill "$SP"
	wait_for "the implicit-driver pasta to exit" 3 "[ -z \"\$(ours)\" ]"
else
	skip auto "rootlesskit 2.3 --port-driver=implicit (--tcp-ports=auto)"
fi

# 2.0-2.2: the tap made by rootlesskit, pasta in the foreground, killed
unshare -n sh -c 'ip tuntap add tap0 mode tap && exec sleep 60' &
SP=$!
PIDS+=("$SP")
wait_for "rootlesskit's tap" 5 "nsenter -t $SP -n ip link show tap0 >/dev/null 2>&1"
"$PASTA" --foreground --stderr --ns-ifname=tap0 --mtu=65520 --no-dhcp --no-ra \
	--address=10.0.2.100 --netmask=24 --gateway=10.0.2.2 \
	--dns-forward=10.0.2.3 --ipv4-only --tcp-ports=none --udp-ports=none \
	"$SP" >"$T/fg.log" 2>&1 &
fg=$!
PIDS+=("$fg")
sleep 1
dead "$fg" && fail "rootlesskit 2.2 argv: foreground pasta exited: $(cat "$T/fg.log")"
[ "$(ours | head -1)" = "$fg" ] || fail "foreground pasta forked ($(ours))"
kill -KILL "$fg"
wait "$fg" 2>/dev/null
kill "$SP"

### 5. --no-netns-quit, and the foreground PID file
make_ns "$NS"
run_client "$T/out" "$PASTA" --config-net --no-netns-quit --quiet \
	--netns "$NS" -P "$T/nq.pid"
[ "$RC" = 0 ] || fail "--no-netns-quit: exit $RC: $(cat "$T/out")"
d=$(pid_of "$T/nq.pid")
ip netns del "$NS"
sleep 1.5
dead "$d" && fail "--no-netns-quit: pasta exited with its namespace"
kill -TERM "$d"
wait_dead "$d" 3 "--no-netns-quit pasta to exit on SIGTERM"

make_ns "$NS"
"$PASTA" -f --config-net --quiet --netns "$NS" -P "$T/fg.pid" \
	>"$T/fg.log" 2>&1 &
fg=$!
PIDS+=("$fg")
wait_for "the foreground PID file" 10 "[ -s $T/fg.pid ]"
[ "$(pid_of "$T/fg.pid")" = "$fg" ] || fail "foreground: PID file $(cat "$T/fg.pid"), pasta is $fg"
ip netns del "$NS"
wait_dead "$fg" 3 "foreground pasta to exit after its namespace was deleted"
wait "$fg"
rc=$?
[ "$rc" = 0 ] || fail "foreground pasta: exit $rc when its namespace went"

### 6. libvirt: passt on a socket, daemonized, --one-off; and vhost-user
SOCK=$T/vm.sock
echo 123456789 >"$T/passt.pid"
run_client "$T/out" "$PASST" --one-off --socket "$SOCK" --pid "$T/passt.pid" \
	--mtu 1500 --interface lo --log-file "$T/passt.log" --hostname vm1 \
	--fqdn vm1.example.org --address 10.0.2.20 --netmask 24 \
	--tcp-ports "$P1:22"
[ "$RC" = 0 ] || fail "libvirt argv: exit $RC: $(cat "$T/out")"
[ -S "$SOCK" ] || fail "libvirt: socket not there when passt returned"
ss -Hltn "sport = :$P1" | grep -q LISTEN || fail "libvirt: port $P1 not bound when passt returned"
d=$(pid_of "$T/passt.pid")
[ "$(readlink "/proc/$d/exe")" = "$T/bin/slipway" ] || fail "libvirt: PID file names $d"
[ "$(readlink "/proc/$d/fd/2")" = "$T/passt.log" ] ||
	fail "libvirt: stderr is $(readlink "/proc/$d/fd/2"), not the --log-file"
# QEMU connects (-netdev stream) and goes: one-off
"$PY" -c 'import socket,sys,time; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); time.sleep(0.3); s.close()' "$SOCK" ||
	fail "libvirt: cannot connect to $SOCK"
wait_dead "$d" 3 "--one-off passt to exit when its guest left"

# without --one-off it waits for the next guest
run_client "$T/out" "$PASST" --socket "$SOCK" --pid "$T/passt.pid" --quiet
[ "$RC" = 0 ] || fail "passt without --one-off: exit $RC: $(cat "$T/out")"
d=$(pid_of "$T/passt.pid")
"$PY" -c 'import socket,sys,time; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); time.sleep(0.3); s.close()' "$SOCK"
sleep 1
dead "$d" && fail "passt without --one-off exited when its guest left"
kill -TERM "$d"
wait_dead "$d" 3 "passt to exit on SIGTERM"

# the oldest stored libvirt: --mac-addr, no --pid
run_client "$T/out" "$PASST" --one-off --socket "$SOCK" --mac-addr \
	52:54:00:12:34:56 --mtu 1500
[ "$RC" = 0 ] || fail "old libvirt argv: exit $RC: $(cat "$T/out")"
"$PY" -c 'import socket,sys,time; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); time.sleep(0.3); s.close()' "$SOCK"
wait_for "old libvirt's passt to exit" 3 "[ -z \"\$(ours)\" ]"

# libvirt 11.1 vhost-user: the frontend comes and goes, passt with it
run_client "$T/out" "$PASST" --vhost-user --one-off --socket "$SOCK" \
	--pid "$T/passt.pid" --mtu 1500
[ "$RC" = 0 ] || fail "libvirt vhost-user argv: exit $RC: $(cat "$T/out")"
[ -S "$SOCK" ] || fail "libvirt vhost-user: socket not there when passt returned"
d=$(pid_of "$T/passt.pid")
"$PY" -c 'import socket,sys,time; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); time.sleep(0.3); s.close()' "$SOCK"
wait_dead "$d" 3 "--one-off vhost-user passt to exit when its frontend left"

# KubeVirt through libvirt: %IF/all
if spec_ok "%lo/all"; then
	# every non-ephemeral port, TCP and UDP: a descriptor each, more
	# than a small hard limit allows (KubeVirt's pods have 1048576, and
	# passt needs them as much); below that, a clear refusal
	run_client "$T/out" "$PASST" --one-off --socket "$SOCK" --pid \
		"$T/passt.pid" --interface lo --log-file "$T/passt.log" \
		--tcp-ports %lo/all --udp-ports %lo/all
	if [ "$(ulimit -Hn)" -ge 131072 ]; then
		[ "$RC" = 0 ] || fail "kubevirt argv: exit $RC: $(cat "$T/out")"
		kill -TERM "$(pid_of "$T/passt.pid")"
	else
		[ "$RC" = 1 ] && grep -q "raise the open files limit" "$T/out" ||
			fail "kubevirt argv under a $(ulimit -Hn) fd limit: exit $RC: $(cat "$T/out")"
	fi
	wait_for "kubevirt's passt to exit" 3 "[ -z \"\$(ours)\" ]"
else
	skip "%lo/all" "KubeVirt passt --tcp-ports %IF/all"
fi
for spec in "127.0.0.1/$P1-$((P1 + 20)):$((P1 + 1000))-$((P1 + 1020)),~$((P1 + 10))-$((P1 + 15))" \
	"$P1,$((P1 + 1))"; do
	if spec_ok "$spec"; then
		run_client "$T/out" "$PASST" --one-off --socket "$SOCK" --pid \
			"$T/passt.pid" --udp-ports "$spec"
		[ "$RC" = 0 ] || fail "libvirt --udp-ports $spec: exit $RC: $(cat "$T/out")"
		kill -TERM "$(pid_of "$T/passt.pid")"
		wait_for "passt to exit" 3 "[ -z \"\$(ours)\" ]"
	else
		skip "$spec" "libvirt --udp-ports $spec"
	fi
done

### 7. QEMU 10.1 -netdev passt: --fd 3 (a stream, or with vhost-user=on
### the vhost-user frontend), the PID file read after the parent's exit 0;
### the socket's end is passt's end
cat >"$T/qemu.py" <<'EOF'
import os, socket, struct, subprocess, sys, time
passt, pidfile = sys.argv[1], sys.argv[2]
vhost_user = sys.argv[3:] == ["vhost-user"]
sv = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
open(pidfile, "w").close()          # g_file_open_tmp(): there, empty
n = sv[1].fileno()                  # GLib's take_fd(): it becomes fd 3
p = subprocess.Popen(["sh", "-c", 'exec "$0" "$@" 3<&%d %d<&-' % (n, n),
                      passt] + (["--vhost-user"] if vhost_user else []) +
                     ["--quiet", "--mtu", "1500", "--pid", pidfile,
                      "--fd", "3"], pass_fds=(n,))
sv[1].close()
rc = p.wait(timeout=10)
if rc != 0:
    sys.exit("passt exited %d" % rc)
pid = int(open(pidfile).read())
if pid <= 0 or pid == p.pid:
    sys.exit("PID file %d (parent %d)" % (pid, p.pid))
os.kill(pid, 0)
if vhost_user:
    # the chardev's first request: VHOST_USER_GET_FEATURES, answered
    sv[0].settimeout(5)
    sv[0].sendall(struct.pack("<III", 1, 1, 0))
    r = sv[0].recv(20, socket.MSG_WAITALL)
    if len(r) != 20:
        sys.exit("no vhost-user reply on the --fd socket: %r" % r)
    req, flags, size, feat = struct.unpack("<IIIQ", r)
    if (req, flags & 4, size) != (1, 4, 8) or not feat & (1 << 32):
        sys.exit("vhost-user reply %d %#x %d %#x" % (req, flags, size, feat))
time.sleep(0.3)
sv[0].close()                       # QEMU goes away
for i in range(60):
    try:
        st = open("/proc/%d/status" % pid).read()
        if "\nState:\tZ" in st:
            break
    except FileNotFoundError:
        break
    time.sleep(0.05)
else:
    sys.exit("passt %d still runs after its --fd socket closed" % pid)
EOF
"$PY" "$T/qemu.py" "$PASST" "$T/qemu.pid" || fail "QEMU 10.1 -netdev passt replay"
# -netdev passt,vhost-user=on: passt --vhost-user ... --fd 3, the
# vhost-user frontend on fd 3; its closing is passt's end
"$PY" "$T/qemu.py" "$PASST" "$T/qemu.pid" vhost-user ||
	fail "QEMU 10.1 -netdev passt,vhost-user=on replay"

### 8. muvm: passt -q -f --fd N, in the foreground, gone with the socket
cat >"$T/muvm.py" <<'EOF'
import os, socket, subprocess, sys, time
passt = sys.argv[1]
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
fd = os.dup(b.fileno())             # the child's end, inheritable
p = subprocess.Popen([passt, "-q", "-f", "--fd", str(fd)], pass_fds=(fd,))
os.close(fd)
b.close()
time.sleep(1)
if p.poll() is not None:
    sys.exit("foreground passt exited %d" % p.returncode)
a.close()
rc = p.wait(timeout=5)
if rc != 0:
    sys.exit("foreground passt exited %d when its socket closed" % rc)
EOF
"$PY" "$T/muvm.py" "$PASST" || fail "muvm replay"

wait_for "nothing of ours left running" 5 "[ -z \"\$(ours)\" ]"
if [ ${#SKIPPED[@]} -gt 0 ]; then
	pass "pasta/passt clients replayed; skipped until the port parser has them: ${SKIPPED[*]}"
fi
pass "pasta/passt command lines of podman 5, rootlesskit 2, libvirt, QEMU 10.1, muvm: readiness, PID file, --version, errors, namespace exit, foreground, one-off"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_s4n_rootlesskit.sh - rootlesskit runs slipway as its slirp4netns binary
# (unprivileged, PID mode, no -c, port driver through the API socket) and
# verified bytes go both ways: host -> child through a published port,
# child -> host loopback through 10.0.2.2
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/s4n_lib.sh"
require_root
command -v rootlesskit >/dev/null || { echo "SKIP: rootlesskit is not installed (tools/deps.sh installs it)"; exit 77; }
command -v newuidmap >/dev/null || { echo "SKIP: newuidmap is not installed (package uidmap)"; exit 77; }
s4n_user
s4n_binary
if ! setpriv --reuid=rl --regid=rl --clear-groups test -r /dev/net/tun -a -w /dev/net/tun; then
	echo "SKIP: /dev/net/tun is not usable by unprivileged users"
	exit 77
fi

hp=$(free_port)	# host loopback server, reached as 10.0.2.2:$hp
pub=$(free_port)	# published port, same number in the child
bg "$SWV" server --listen "127.0.0.1:$hp" --mode recv --bytes 8M --once --ready-file "$T/r1"
s1=$LASTPID
wait_for "host server" 10 "[ -e $T/r1 ]"

cat >"$T/child.sh" <<EOS
#!/bin/sh
# in rootlesskit's namespaces: tap0 is configured by rootlesskit
ip -4 addr show tap0 >$T/child-addr 2>&1
"$SWV" client --connect 10.0.2.2:$hp --mode send --bytes 8M --timeout 30 >$T/c1.json 2>&1 || exit 11
"$SWV" server --listen 0.0.0.0:$pub --mode send --bytes 8M --once --ready-file $T/r2 >$T/c2.json 2>&1 || exit 12
EOS
chmod 755 "$T/child.sh"

runuser -u rl -- env HOME=/home/rl rootlesskit --state-dir="$T/rkstate" \
	--net=slirp4netns --slirp4netns-binary="$S4N" \
	--port-driver=slirp4netns -p "127.0.0.1:$pub:$pub/tcp" \
	"$T/child.sh" >"$T/rk.log" 2>&1 &
rk=$!
PIDS+=($rk)
wait_for "the child's server" 40 "[ -e $T/r2 ] || ! kill -0 $rk 2>/dev/null"
[ -e "$T/r2" ] || { cat "$T/rk.log" >&2; fail "rootlesskit ended early"; }
"$SWVERIFY" client --connect "127.0.0.1:$pub" --mode recv --bytes 8M --timeout 30 \
	>"$T/h2.json" 2>&1 || fail "host <- child through the published port: $(cat "$T/h2.json")"
wait "$rk"
rc=$?
[ "$rc" = 0 ] || { cat "$T/rk.log" >&2; fail "rootlesskit exited $rc"; }
wait "$s1" || fail "host server did not verify the child's 8 MiB"
grep -q "inet 10.0.2.100/24" "$T/child-addr" || fail "child address: $(cat "$T/child-addr")"
# rootlesskit kills slirp4netns with SIGKILL as it leaves
wait_for "slipway to be gone" 5 "s4n_gone"
pass "rootlesskit: slipway as slirp4netns, 8 MiB verified each way (published port, 10.0.2.2)"

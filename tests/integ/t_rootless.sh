#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_rootless.sh - slipway run by an unprivileged user creates a user and a
# network namespace, serves the command in it, and moves verified bytes
# both ways through 10.0.2.2 and a published port (through the tap:
# --no-splice; the rootless splice is in t_splice.sh), and sets the
# tap's queue length to 10000 without a warning
. "$(dirname "$0")/lib.sh"
require_root
U=65534
if ! setpriv --reuid=$U --regid=$U --clear-groups test -r /dev/net/tun -a -w /dev/net/tun; then
	echo "SKIP: /dev/net/tun is not usable by unprivileged users (mode $(stat -c %a /dev/net/tun)); Debian's default is 0666"
	exit 77
fi
# the unprivileged user needs to reach the binaries and write results
chmod 1777 "$T"
cp "$SLIPWAY" "$T/slipway"
cp "$SWVERIFY" "$T/swverify"
chmod 755 "$T/slipway" "$T/swverify"
SLIPWAY=$T/slipway
SWVERIFY=$T/swverify
p1=$(free_port)
p2=$(free_port)
pub=$(free_port)
bg "$SWVERIFY" server --listen "127.0.0.1:$p1" --mode recv --bytes 64M --once --ready-file "$T/r1"
s1=$LASTPID
bg "$SWVERIFY" server --listen "127.0.0.1:$p2" --mode send --bytes 64M --once --ready-file "$T/r2"
s2=$LASTPID
wait_for "servers" 10 "[ -e $T/r1 ] && [ -e $T/r2 ]"

cat >"$T/guest.sh" <<EOS
set -e
[ "\$(id -u)" = 0 ] || { echo "not root in the user namespace"; exit 3; }
ip -o link show >$T/links
"$SWVERIFY" client --connect 10.0.2.2:$p1 --mode send --bytes 64M --timeout 60 >/dev/null
"$SWVERIFY" client --connect 10.0.2.2:$p2 --mode recv --bytes 64M --timeout 60 >/dev/null
"$SWVERIFY" server --listen 0.0.0.0:8001 --mode recv --bytes 16M --once --ready-file $T/r3
EOS
chmod 755 "$T/guest.sh"
setpriv --reuid=$U --regid=$U --clear-groups "$SLIPWAY" --stats-file "$T/stats.json" \
	--no-splice -t "127.0.0.1/$pub:8001" -- /bin/sh "$T/guest.sh" >"$T/slipway.log" 2>&1 &
SW_PID=$!
PIDS+=($SW_PID)
wait_for "guest server behind the published port" 30 "[ -e $T/r3 ]"
"$SWVERIFY" client --connect "127.0.0.1:$pub" --mode send --bytes 16M --timeout 60 \
	>/dev/null || fail "published port as rootless"
wait "$SW_PID"
rc=$?
[ "$rc" = 0 ] || fail "rootless slipway/guest exited $rc"
wait "$s1" || fail "host receiver"
wait "$s2" || fail "host sender"
[ "$(stat -c %u "$T/stats.json")" = "$U" ] || fail "stats not written by the unprivileged user"
# the tap's queue is set over netlink, which works rootless (the
# SIOCSIFTXQLEN ioctl wants CAP_NET_ADMIN in the initial user namespace)
! grep -i "queue length" "$T/slipway.log" || fail "warning about the tap's queue length"
grep -v ": lo:" "$T/links" | grep -q "qlen 10000" ||
	fail "tap queue length not 10000: $(cat "$T/links")"
check_gates
expect_ctr TCP_GUEST_BYTES -ge $((64 << 20))
expect_ctr TCP_ACKED_BYTES -ge $((80 << 20))
pass "rootless: user+net namespace, 64 MiB each way and a published port, verified"

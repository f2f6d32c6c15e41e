#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_sandbox.sh - after set-up slipway runs sandboxed: as root with --runas
# nobody it is nobody's uid and gid with no capabilities (effective,
# permitted, bounding), no new privileges and a seccomp filter, its root
# is an empty read-only tmpfs (nothing of resolv.conf's directory: not
# the file, nor a secret beside it), and verified bytes still move both
# ways, through a published port and the stats file; the resolv.conf
# reader, a helper process, keeps only that directory, sandboxed alike,
# and a resolv.conf replaced by rename still reaches the forwarder;
# --no-sandbox leaves all of it unset; a datagram edge (which must reach
# its guest's socket by path) is under Landlock, with no directory
# readable; an unprivileged user gets the empty root through a user
# namespace.
# That a call off the allowlist kills the process is checked by the unit
# test test_seccomp (the filter loaded in a child, by the kernel).
. "$(dirname "$0")/lib.sh"
require_root

# status FIELD [PID]: a field of slipway's (or PID's) /proc status, tabs
# squeezed
status() {
	awk -v f="$1:" '$1 == f { $1 = ""; sub(/^ /, ""); print }' "/proc/${2:-$SW_PID}/status"
}
expect_status() {
	local v
	v=$(status "$1" "${3:-}")
	[ "$v" = "$2" ] || fail "$1 is '$v', expected '$2'${3:+ (pid $3)}"
}
# reader: the PID of this test's resolv.conf reader (its command line is
# slipway's, with $T in it), or nothing
reader() {
	local p
	for p in $(pgrep -x slipway-resolv); do
		grep -qF "$T" "/proc/$p/cmdline" 2>/dev/null && echo "$p"
	done
}

# --- root with --runas nobody: the whole sandbox, and it still works
chmod 1777 "$T" # the stats file is written by nobody
echo secret >"$T/secret" # beside resolv.conf, as /etc/shadow is
chmod 644 "$T/secret"
uid=$(id -u nobody)
gid=$(id -g nobody)
pub=$(free_port)
top=$(echo "$T" | cut -d/ -f2)
start_slipway -d --runas nobody -t "127.0.0.1/$pub:8001"
grep -q "sandbox: filesystem: empty mount namespace; uid $uid gid $gid" "$T/slipway.log" ||
	fail "no sandbox line in the log"
# sanitizer builds: no seccomp filter, and /proc stays for the leak check
SECCOMP=2
KEEP=
if grep -q "no seccomp filter in a sanitizer build" "$T/slipway.log"; then
	echo "note: sanitizer build: no seccomp filter (Seccomp 0), /proc kept"
	SECCOMP=0
	KEEP="proc "
else
	grep -q "sandbox: seccomp allowlist of [0-9]* system calls; others kill the process" "$T/slipway.log" ||
		fail "no seccomp line in the log"
fi
expect_status Uid "$uid $uid $uid $uid"
expect_status Gid "$gid $gid $gid $gid"
expect_status Groups ""
for c in CapInh CapPrm CapEff CapBnd CapAmb; do
	expect_status $c 0000000000000000
done
expect_status NoNewPrivs 1
expect_status Seccomp "$SECCOMP"
# the root: an empty tmpfs; not even resolv.conf's directory ($T), whose
# neighbours (here $T/secret; in /etc, shadow) must stay out of reach
[ "$(ls -A "/proc/$SW_PID/root/" | tr '\n' ' ')" = "$KEEP" ] ||
	fail "slipway's root holds: $(ls -A "/proc/$SW_PID/root/" | tr '\n' ' ')"
for d in etc usr bin dev home root; do
	[ ! -e "/proc/$SW_PID/root/$d" ] || fail "/$d is reachable in the sandbox"
done
for f in "$T/secret" "$T/resolv.conf" /etc/shadow /etc/resolv.conf; do
	[ ! -e "/proc/$SW_PID/root$f" ] || fail "$f is reachable in the sandbox"
done
! touch "/proc/$SW_PID/root/y" 2>/dev/null || fail "the sandbox root is writable"
# the resolv.conf reader: resolv.conf's directory, read-only, and nothing
# else; nobody, no capabilities, no new privileges
R=$(reader)
[ -n "$R" ] && [ "$(echo "$R" | wc -l)" = 1 ] || fail "no (or more than one) resolv.conf reader: '$R'"
expect_status Uid "$uid $uid $uid $uid" "$R"
expect_status CapEff 0000000000000000 "$R"
expect_status CapBnd 0000000000000000 "$R"
expect_status NoNewPrivs 1 "$R"
[ "$(ls -A "/proc/$R/root/" | tr '\n' ' ')" = "${KEEP}$top " ] ||
	fail "the reader's root holds: $(ls -A "/proc/$R/root/" | tr '\n' ' ')"
[ -f "/proc/$R/root$T/resolv.conf" ] || fail "resolv.conf is not kept for the reader"
[ ! -e "/proc/$R/root/etc" ] || fail "/etc is reachable by the reader"
! touch "/proc/$R/root$T/x" 2>/dev/null || fail "resolv.conf's directory is writable for the reader"
xfer_guest_send 10.0.2.2 32M
xfer_guest_recv 10.0.2.2 32M
xfer_pub_send "$pub" 8001 16M
# resolv.conf replaced by rename still reaches the sandboxed forwarder
echo "nameserver 127.0.0.9" >"$T/resolv.conf.new"
mv "$T/resolv.conf.new" "$T/resolv.conf"
wait_for "resolv.conf reload" 10 "grep -q 'upstreams from .*127.0.0.9' $T/slipway.log"
echo "nameserver 127.0.0.10" >"$T/resolv.conf.new"
mv "$T/resolv.conf.new" "$T/resolv.conf"
wait_for "second resolv.conf reload" 10 "grep -q 'upstreams from .*127.0.0.10' $T/slipway.log"
sw_stats
expect_ctr DNS_UPSTREAM_RELOADS -ge 1
[ "$(stat -c %u "$T/stats.json")" = "$uid" ] || fail "stats not written by nobody"
stop_slipway
# (exited: gone, or a zombie until init reaps it: it is no child of ours)
wait_for "the reader to exit with slipway" 5 \
	"! kill -0 $R 2>/dev/null || grep -q '^State:.*zombie' /proc/$R/status"
check_gates
expect_ctr TCP_ACKED_BYTES -ge $((32 << 20))
expect_ctr TCP_GUEST_BYTES -ge $((32 << 20))
expect_ctr SPLICE_OPENED -ge 1
ip netns del "$NS"

# --- --no-sandbox: none of it
rm -f "$T/stats.json"
start_slipway -d --no-sandbox
grep -q "sandbox off" "$T/slipway.log" || fail "no 'sandbox off' line"
expect_status Uid "0 0 0 0"
expect_status NoNewPrivs 0
expect_status Seccomp 0
[ "$(status CapEff)" != 0000000000000000 ] || fail "--no-sandbox dropped the capabilities"
[ -d "/proc/$SW_PID/root/etc" ] || fail "--no-sandbox took the filesystem away"
xfer_guest_send 10.0.2.2 4M
stop_slipway
ip netns del "$NS"

# --- the datagram edge: Landlock (the host filesystem stays mounted)
start_slipway_sock dgram -d
wait_for "the sandbox" 10 "grep -Eq 'sandbox: (no )?seccomp' $T/slipway.log"
if grep -q "the host filesystem stays reachable: no mount namespace and no Landlock" "$T/slipway.log"; then
	echo "note: no Landlock in this kernel: the datagram edge keeps the filesystem"
else
	grep -q "sandbox: filesystem: Landlock ABI [0-9]*; uid 0 gid 0" "$T/slipway.log" ||
		fail "datagram edge: $(grep sandbox "$T/slipway.log")"
	# the host's files are mounted but out of reach (checked from the
	# outside: it still has them at their paths); no directory is kept
	# readable, resolv.conf's neither (the reader has it)
	[ -d "/proc/$SW_PID/root/etc" ] || fail "datagram edge: the host filesystem is gone"
	grep -q "sandbox: Landlock: 0 directories readable" "$T/slipway.log" ||
		fail "datagram edge: $(grep 'Landlock:' "$T/slipway.log")"
fi
expect_status Seccomp "$SECCOMP"
expect_status NoNewPrivs 1
expect_status CapEff 0000000000000000
stop_slipway
[ ! -e "$SOCK" ] || fail "the socket file was not removed at exit (Landlock rule)"

# --- an unprivileged user: the empty root through a user namespace
U=65534
if setpriv --reuid=$U --regid=$U --clear-groups test -r /dev/net/tun -a -w /dev/net/tun &&
	setpriv --reuid=$U --regid=$U --clear-groups unshare -U true 2>/dev/null; then
	cp "$SLIPWAY" "$T/slipway"
	chmod 755 "$T/slipway"
	rm -f "$T/stats.json"
	setpriv --reuid=$U --regid=$U --clear-groups "$T/slipway" -d --stats-file "$T/stats.json" \
		--resolv-conf "$T/resolv.conf" -- \
		sh -c "trap 'kill \$!; exit 0' TERM; touch $T/up; sleep 30 & wait" \
		>"$T/slipway.log" 2>&1 &
	SW_PID=$!
	PIDS+=("$SW_PID")
	wait_for "the command" 10 "[ -e $T/up ]"
	wait_for "the sandbox" 10 "grep -Eq 'sandbox: (no )?seccomp' $T/slipway.log"
	grep -q "sandbox: filesystem: empty mount namespace; uid $U gid $U" "$T/slipway.log" ||
		fail "rootless: $(grep sandbox "$T/slipway.log")"
	expect_status Seccomp "$SECCOMP"
	expect_status CapEff 0000000000000000
	expect_status CapBnd 0000000000000000
	[ "$(ls -A "/proc/$SW_PID/root/" | tr '\n' ' ')" = "$KEEP" ] ||
		fail "rootless root holds: $(ls -A "/proc/$SW_PID/root/" | tr '\n' ' ')"
	stop_slipway
else
	echo "note: unprivileged users get no tap or no user namespace here: rootless part skipped"
fi
pass "sandbox: runas nobody, no capabilities, no new privileges, seccomp, empty root (resolv.conf's directory only in the reader's); transfers verified; renamed resolv.conf picked up; --no-sandbox leaves it off; Landlock for dgram; rootless via a user namespace"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_s4n_cli.sh - slipway as slirp4netns on the command line: by name (a
# symlink) and as "slipway slirp4netns"; --help exits 0 and names every
# flag podman and rootlesskit look for; --version in slirp4netns's format;
# bad command lines exit 2 with a message, a bad --cidr 1 with
# slirp4netns's
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/s4n_lib.sh"
s4n_binary

for how in "$S4N" "$T/bin/slipway slirp4netns"; do
	$how --help >"$T/help" 2>"$T/help.err" || fail "$how --help: exit $?"
	[ -s "$T/help.err" ] && fail "$how --help wrote to stderr: $(cat "$T/help.err")"
	# rootlesskit: --netns-type --cidr --disable-host-loopback --api-socket
	# --enable-sandbox --enable-seccomp; podman: --disable-host-loopback
	# --mtu --enable-sandbox --enable-seccomp --cidr --outbound-addr
	# --enable-ipv6; and the rest of slirp4netns's options
	for o in --netns-type --cidr --disable-host-loopback --api-socket \
		--enable-sandbox --enable-seccomp --mtu --outbound-addr \
		--enable-ipv6 --configure --exit-fd --ready-fd --userns-path \
		--outbound-addr6 --disable-dns --macaddress --target-type \
		--version --help; do
		grep -q -- "$o" "$T/help" || fail "$how --help does not mention $o"
	done
	head -1 "$T/help" | grep -q "^Usage: slirp4netns" || fail "$how --help: $(head -1 "$T/help")"
	# the sandbox flags: slipway's sandbox is always on, not "no effect"
	grep -qi "no effect" "$T/help" && fail "$how --help: $(grep -i "no effect" "$T/help")"
	grep -q -- "--outbound-addr=IPv4|IFNAME" "$T/help" || fail "$how --help: --outbound-addr takes an interface too"
	# slirp4netns's lines, which scripts parse, then slipway's
	$how --version >"$T/ver" || fail "$how --version: exit $?"
	head -3 "$T/ver" >"$T/ver3"
	printf 'slirp4netns version 1.2.0\nlibslirp: 4.7.0\nSLIRP_CONFIG_VERSION_MAX: 4\n' |
		cmp -s - "$T/ver3" || fail "$how --version: $(cat "$T/ver")"
	grep -q "^slipway: [0-9]" "$T/ver" || fail "$how --version names no slipway: $(cat "$T/ver")"
	$how -v | cmp -s - "$T/ver" || fail "$how -v differs from --version"
done
# slipway's own options are untouched
"$SLIPWAY" --help | grep -q -- "--tcp-ports" || fail "slipway --help changed"

bad() {
	local want=$1
	shift
	"$S4N" "$@" >"$T/out" 2>"$T/err" </dev/null
	local rc=$?
	[ "$rc" = 2 ] || fail "'slirp4netns $*' exited $rc, expected 2 ($(cat "$T/err"))"
	grep -qi -- "$want" "$T/err" || fail "'slirp4netns $*' said: $(cat "$T/err")"
	grep -q -- "--help" "$T/err" || fail "'slirp4netns $*' does not point to --help"
}
bad "unknown option" --bogus 1
bad "missing PID" -c
bad "missing PID" --mtu=1500
bad "bad PID" abc tap0
bad "bad PID" 0
bad "too many" 1 tap0 extra
bad "needs a value" 1 --mtu
bad "bad MTU" --mtu=70000 1
bad "bad MTU" --mtu 100 1
bad "bad MTU" -m x 1
bad "bad --exit-fd" -e -3 1
bad "bad --ready-fd" --ready-fd=x 1
bad "bad --netns-type" --netns-type=bogus 1
bad "bad --macaddress" -c --macaddress=01:00:00:00:00:01 1
bad "bad --macaddress" -c --macaddress=zz 1
bad "needs -c" --macaddress=02:00:00:00:00:01 1
bad "bad --target-type" --target-type=bess 1
bad "bad --api-socket" --api-socket= 1
bad "bad --outbound-addr" --outbound-addr=192.0.2.77 1
bad "bad --outbound-addr6" --outbound-addr6=no-such-if0 1
bad "IPv6 needs an MTU" --enable-ipv6 --mtu=1000 1
n_bad=$(grep -c '^bad ' "$0")

# a bad --cidr: slirp4netns's words on standard error, exit 1
cidr() {
	local want=$1
	shift
	"$S4N" "$@" >"$T/out" 2>"$T/err" </dev/null
	local rc=$?
	[ "$rc" = 1 ] || fail "'slirp4netns $*' exited $rc, expected 1 ($(cat "$T/err"))"
	[ "$(cat "$T/err")" = "$want" ] || fail "'slirp4netns $*' said '$(cat "$T/err")', expected '$want'"
}
cidr "invalid CIDR: 10.0.2.0" --cidr=10.0.2.0 1 tap0
cidr "invalid CIDR: 10.0.2.0/024" --cidr=10.0.2.0/024 1 tap0
cidr "invalid CIDR: 1.2.3/8" --cidr=1.2.3/8 1 tap0
cidr "invalid network address: 300.0.0.0" --cidr=300.0.0.0/24 1 tap0
cidr "prefix length needs to be 1-25" --cidr 10.0.2.0/28 1 tap0
cidr "prefix length needs to be 1-25" --cidr 0.0.0.0/0 1 tap0
cidr "CIDR needs to be a network address like 10.0.2.0/24, not like 10.0.2.100/24" --cidr=10.0.2.100/24 1 tap0
pass "slirp4netns --help names every flag clients look for, --version as slirp4netns's, $n_bad bad command lines exit 2, 7 bad --cidr exit 1 in slirp4netns's words"

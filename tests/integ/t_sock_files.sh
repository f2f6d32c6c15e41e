#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_sock_files.sh - the socket files slipway makes, and what it leaves alone:
# - --ctl, --stream, --dgram and --vhost-user sockets are created mode 0600,
#   whatever the umask (here 000);
# - a path that exists and is not a socket (a regular file, a symlink to
#   one) is refused with a clear message and exit status 1, and survives;
# - a stale socket file (nobody serving it) is replaced; a served one is
#   refused and keeps serving.
. "$(dirname "$0")/lib.sh"

# mode PATH: the octal permission bits of PATH
mode() {
	stat -c %a "$1"
}

# refused WHAT OPTIONS...: slipway must refuse to start with OPTIONS, with
# a message naming the path as not a socket
refused() {
	local what=$1 rc
	shift
	timeout 10 "$SLIPWAY" "$@" >"$T/out.log" 2>&1
	rc=$?
	[ "$rc" = 1 ] || fail "$what: exit status $rc, expected 1: $(cat "$T/out.log")"
	grep -q "is not a socket" "$T/out.log" ||
		fail "$what: no clear message: $(cat "$T/out.log")"
}

umask 000
echo "precious" >"$T/file"
refused "--ctl on a regular file" --stream "$T/s1.sock" --ctl "$T/file"
[ "$(cat "$T/file")" = precious ] || fail "--ctl's regular file was removed or changed"
refused "--stream on a regular file" --stream "$T/file"
refused "--dgram on a regular file" --dgram "$T/file"
refused "--vhost-user on a regular file" --vhost-user "$T/file"
ln -s "$T/file" "$T/link"
refused "--ctl on a symlink" --stream "$T/s1.sock" --ctl "$T/link"
[ -L "$T/link" ] && [ "$(cat "$T/file")" = precious ] ||
	fail "the symlink or its target was removed or changed"

# a stale socket (bound, never served, its process gone) is replaced
"$PY" -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$T/ctl.sock"
[ -S "$T/ctl.sock" ] || fail "no stale socket made"
start_slipway_sock stream --ctl "$T/ctl.sock"
[ "$(mode "$SOCK")" = 600 ] || fail "--stream socket mode $(mode "$SOCK"), expected 600"
[ "$(mode "$T/ctl.sock")" = 600 ] || fail "--ctl socket mode $(mode "$T/ctl.sock"), expected 600"
"$SLIPWAY" ctl "$T/ctl.sock" stats >/dev/null || fail "the replaced --ctl socket does not answer"
# a served socket is somebody's: refused, and it keeps serving
timeout 10 "$SLIPWAY" --stream "$T/s2.sock" --ctl "$T/ctl.sock" >"$T/out.log" 2>&1 &&
	fail "a second slipway took a served --ctl socket"
grep -q "in use" "$T/out.log" || fail "served socket: $(cat "$T/out.log")"
"$SLIPWAY" ctl "$T/ctl.sock" stats >/dev/null || fail "the first slipway's --ctl socket stopped answering"
stop_slipway
[ ! -e "$T/ctl.sock" ] || fail "the --ctl socket was not removed at exit"

start_slipway_sock dgram
[ "$(mode "$SOCK")" = 600 ] || fail "--dgram socket mode $(mode "$SOCK"), expected 600"
stop_slipway

start_slipway_sock vhost-user
[ "$(mode "$SOCK")" = 600 ] || fail "--vhost-user socket mode $(mode "$SOCK"), expected 600"
stop_slipway
pass "socket files 0600 under umask 000; non-sockets refused and kept; stale sockets replaced, served ones not"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_root_files.sh - the files slipway writes as root by a path it was given
# never follow a symbolic link planted there (issue #23, finding 7): for
# --stats-file and --pcap (slipway's own command line), and pasta's -l, -p
# and -P (daemon and foreground), a symlink at the path points to a victim
# file. The victim must keep its content and size; slipway refuses the
# path with a message that says what to do and exit status 1, except for
# the PID file, which is written to a new name and renamed over the link
# (the link is replaced, not followed). Then the other files root must not
# write: a second hard link of the victim, a file of another user, a FIFO
# (refused at once, no hang). And --resolv-conf, read at start, on a FIFO
# or /dev/zero: start-up does not hang.
. "$(dirname "$0")/lib.sh"
require_root

# a private copy, so that our processes can be found by their executable
private_slipway pasta
SW=$T/bin/slipway
PASTA=$T/bin/pasta

VICTIM=$T/victim
printf 'precious content, 33 bytes long\n' >"$VICTIM"
VSUM=$(sha256sum <"$VICTIM")
VSIZE=$(stat -c %s "$VICTIM")

# intact WHAT: the victim has its content and size
intact() {
	[ "$(stat -c %s "$VICTIM")" = "$VSIZE" ] &&
		[ "$(sha256sum <"$VICTIM")" = "$VSUM" ] ||
		fail "$1: the victim was written through the link ($(stat -c %s "$VICTIM") bytes: $(head -c 60 "$VICTIM" | od -c | head -2))"
}

# refused WHAT PATTERN CMD...: CMD exits 1 within 10 s, saying PATTERN
refused() {
	local what=$1 pat=$2 rc
	shift 2
	timeout 10 "$@" </dev/null >"$T/out.log" 2>&1
	rc=$?
	intact "$what"
	[ "$rc" = 1 ] || fail "$what: exit status $rc, expected 1: $(cat "$T/out.log")"
	grep -q -- "$pat" "$T/out.log" ||
		fail "$what: no clear message ('$pat'): $(cat "$T/out.log")"
	grep -q "remove" "$T/out.log" ||
		fail "$what: the message does not say what to do: $(cat "$T/out.log")"
}

# dead PID: gone, or a zombie
dead() {
	[ ! -e "/proc/$1" ] ||
		[ "$(awk '/^State/ {print $2}' "/proc/$1/status" 2>/dev/null)" = Z ]
}

make_ns "$NS"
echo "nameserver 127.0.0.1" >"$T/resolv.conf"
SWOPTS=(--netns "$NS" --resolv-conf "$T/resolv.conf")

### 1. slipway's own command line: --stats-file, --pcap
ln -s "$VICTIM" "$T/stats.link"
refused "--stats-file on a symlink" "symbolic link" \
	"$SW" "${SWOPTS[@]}" --stats-file "$T/stats.link"
[ -L "$T/stats.link" ] || fail "--stats-file: the link was removed"
ln -s "$VICTIM" "$T/cap.link"
refused "--pcap on a symlink" "symbolic link" \
	"$SW" "${SWOPTS[@]}" --pcap "$T/cap.link"

### 2. pasta: -l, -p (refused), -P (the link replaced)
PO=(--config-net --quiet --netns "$NS")
ln -s "$VICTIM" "$T/log.link"
refused "pasta -l on a symlink" "symbolic link" "$PASTA" "${PO[@]}" -l "$T/log.link"
ln -s "$VICTIM" "$T/pcap.link"
refused "pasta -p on a symlink" "symbolic link" "$PASTA" "${PO[@]}" -p "$T/pcap.link"
[ -z "$(ours)" ] || fail "a refused pasta left a process: $(ours)"

ln -s "$VICTIM" "$T/pid.link"
timeout 20 "$PASTA" "${PO[@]}" -P "$T/pid.link" </dev/null 2>&1 | cat >"$T/out.log"
rc=${PIPESTATUS[0]}
intact "pasta -P on a symlink"
[ "$rc" = 0 ] || fail "pasta -P on a symlink: exit $rc: $(cat "$T/out.log")"
[ -f "$T/pid.link" ] && [ ! -L "$T/pid.link" ] ||
	fail "pasta -P: the symlink was not replaced by a file"
d=$(cat "$T/pid.link")
[[ "$d" =~ ^[0-9]+$ ]] && ours | grep -qx "$d" ||
	fail "pasta -P: the PID file holds '$d', the daemon is not that: $(ours)"
ls -a "$T" | grep -q '^\.pid\.link\.' && fail "a temporary PID file was left behind"
kill -TERM "$d"
wait_for "the pasta daemon to exit" 5 "dead $d"

# foreground: the same, written by the process itself
rm -f "$T/pid.link"
ln -s "$VICTIM" "$T/pid.link"
"$PASTA" -f "${PO[@]}" -P "$T/pid.link" >"$T/fg.log" 2>&1 &
fg=$!
PIDS+=("$fg")
wait_for "the foreground PID file" 10 "[ -f $T/pid.link ] && [ ! -L $T/pid.link ]"
intact "pasta -f -P on a symlink"
[ "$(cat "$T/pid.link")" = "$fg" ] ||
	fail "pasta -f -P: the PID file holds '$(cat "$T/pid.link")', pasta is $fg"
kill -TERM "$fg"
wait "$fg"

### 3. other files root must not write
ln "$VICTIM" "$T/hard"
refused "--stats-file on a second hard link" "hard links" \
	"$SW" "${SWOPTS[@]}" --stats-file "$T/hard"
refused "pasta -l on a second hard link" "hard links" \
	"$PASTA" "${PO[@]}" -l "$T/hard"
rm -f "$T/hard"
printf 'nobody\n' >"$T/theirs"
chown nobody "$T/theirs"
refused "--pcap on another user's file" "belongs to uid" \
	"$SW" "${SWOPTS[@]}" --pcap "$T/theirs"
[ "$(cat "$T/theirs")" = nobody ] || fail "another user's file was truncated"
mkfifo "$T/fifo"
refused "pasta -l on a FIFO" "FIFO" "$PASTA" "${PO[@]}" -l "$T/fifo"

### 4. a file read by path: --resolv-conf a FIFO, /dev/zero (whoever may
# write its directory may put either there): start-up does not hang
# (the search list was read with a blocking fopen() and no limit)
for rc in "$T/fifo" /dev/zero; do
	"$SW" --netns "$NS" --resolv-conf "$rc" --stats-file "$T/stats.json" \
		>"$T/slipway.log" 2>&1 &
	SW_PID=$!
	PIDS+=("$SW_PID")
	wait_for "start-up with --resolv-conf $rc" 10 \
		"ip -n $NS -4 addr show dev tap0 2>/dev/null | grep -q inet"
	wait_started
	kill -TERM "$SW_PID"
	reap "$SW_PID" 5 || fail "--resolv-conf $rc: exit status $?"
done

# and an ordinary path still works: the counters at exit, the capture
"$SW" "${SWOPTS[@]}" --stats-file "$T/stats.json" --pcap "$T/cap.pcap" \
	>"$T/slipway.log" 2>&1 &
SW_PID=$!
PIDS+=("$SW_PID")
wait_for "guest address" 10 \
	"ip -n $NS -4 addr show dev tap0 2>/dev/null | grep -q inet"
wait_started
stop_slipway
[ "$(head -c 4 "$T/cap.pcap" | od -An -tx1 | tr -d ' ')" = d4c3b2a1 ] ||
	fail "the --pcap file has no pcap header"
intact "the end"
pass "no file written through a symlink, a hard link or into another user's file; the PID file replaces a link"

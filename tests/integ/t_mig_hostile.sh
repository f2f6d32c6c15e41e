#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_mig_hostile.sh - a migration stream, or whoever answers at a migration
# path, gets nothing the guest could not get (issue 23). CASE:
#  peer-to   slipway A (root, --migrate-to PATH) with swvu as its VM; user
#            nobody listens at PATH first (its directory is nobody's).
#            When the VM stops for the migration, A must refuse that
#            destination (SO_PEERCRED): nobody's listener gets no byte and
#            no descriptor, and A keeps its published port's listener.
. "$(dirname "$0")/lib.sh"
require_root
: "${SWVU:?set SWVU to the swvu binary}"
CASE=${CASE:-peer-to}

# sw_start NAME OPTIONS...: a vhost-user slipway NAME (files in $T/NAME),
# PID in NAME_PID
sw_start() {
	local n=$1 pid
	shift
	mkdir -p "$T/$n"
	[ -e "$T/resolv.conf" ] || echo "nameserver 127.0.0.1" >"$T/resolv.conf"
	"$SLIPWAY" --vhost-user "$T/$n/sw.sock" -d \
		--stats-file "$T/$n/stats.json" --resolv-conf "$T/resolv.conf" \
		"$@" >"$T/$n/slipway.log" 2>&1 &
	pid=$!
	PIDS+=("$pid")
	printf -v "${n}_PID" %s "$pid"
	wait_for "slipway $n's socket" 10 "[ -S $T/$n/sw.sock ] || ! kill -0 $pid"
	kill -0 "$pid" 2>/dev/null || fail "slipway $n: $(tail -3 "$T/$n/slipway.log")"
	(T=$T/$n SW_PID=$pid wait_started) || exit 1
}

peer_to() {
	local d p got
	d=$T/pub
	mkdir "$d"
	chown nobody "$d"
	chmod 0755 "$d"
	cat >"$T/thief.py" <<'EOS'
import array, os, socket, sys
path, out = sys.argv[1], sys.argv[2]
ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
ls.bind(path)
os.chmod(path, 0o777)
ls.listen(1)
open(out + ".ready", "w").close()
ls.settimeout(60)
nbytes = nfds = 0
try:
    c, _ = ls.accept()
    c.settimeout(5)
    while True:
        d, anc, _, _ = c.recvmsg(65536, socket.CMSG_SPACE(4 * 253))
        for lvl, typ, data in anc:
            if lvl == socket.SOL_SOCKET and typ == socket.SCM_RIGHTS:
                fds = array.array("i")
                fds.frombytes(data[:len(data) - len(data) % 4])
                nfds += len(fds)
        if not d:
            break
        nbytes += len(d)
except OSError:
    pass
open(out, "w").write("bytes %d fds %d\n" % (nbytes, nfds))
EOS
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$PY" "$T/thief.py" "$d/state.sock" "$d/got" &
	PIDS+=($!)
	wait_for "nobody's listener" 10 "[ -e $d/got.ready ]"
	p=$(free_port)
	sw_start A --migrate-to "$d/state.sock" -t "127.0.0.1/$p:7"
	sw_start B
	make_ns "$NS"
	g ip link set lo up
	ip netns exec "$NS" "$SWVU" --tap tap0 --socket "$T/A/sw.sock" \
		--migrate-to "$T/B/sw.sock" --after 500 >"$T/swvu.log" 2>&1 &
	PIDS+=($!)
	wait_for "the rings stopped" 30 "grep -q 'rings stopped' $T/swvu.log"
	(wait_for "A's verdict on its destination" 10 \
		"grep -q 'migration: the destination' $T/A/slipway.log || [ -s $d/got ]") ||
		fail "$(tail -5 "$T/A/slipway.log")"
	wait_for "nobody's listener's report" 15 "[ -s $d/got ]"
	got=$(cat "$d/got")
	[ "$got" = "bytes 0 fds 0" ] ||
		fail "a listener of user nobody at --migrate-to's path got $got: $(grep migration "$T/A/slipway.log")"
	grep -q "runs as user .* not ours" "$T/A/slipway.log" ||
		fail "A did not say why: $(grep migration "$T/A/slipway.log")"
	wait_listen "$p"
	pass "a destination of another user at --migrate-to's path got nothing"
}

case $CASE in
peer-to) peer_to ;;
*) fail "unknown CASE $CASE" ;;
esac

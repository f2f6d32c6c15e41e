#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_mig_hostile.sh - a migration stream, or whoever answers at a migration
# path, gets nothing the guest could not get (issue 23). CASE:
#  peer-to   slipway A (root, --migrate-to PATH) with swvu as its VM; user
#            nobody listens at PATH first (its directory is nobody's).
#            When the VM stops for the migration, A must refuse that
#            destination (SO_PEERCRED): nobody's listener gets no byte and
#            no descriptor, and A keeps its published port's listener.
#  from-repair  a hostile source (root, same user) hands slipway B
#            (--migrate-from, --migrate-repair, --no-map-host-loopback, in
#            a host namespace H of the test's own) a state of one flow in
#            repair state, and a VM starts on B. SUB=listened: the flow's
#            socket would bind 10.99.0.1:8022, where another process
#            listens; SUB=loopback: its peer is the host's loopback
#            (127.0.0.1:9999) though the mapping is off. Both must be
#            refused (MIG_REFUSED_GUEST) and no such connection may
#            appear in H (its output drops them, so none is reset);
#            SUB=ok, a flow the guest could open (10.99.0.1:30000 to
#            10.99.0.2:80), must be taken: the check is no blanket no;
#            its state has no stop time, and B's log must say so rather
#            than print a figure made of it.
#            SUB=fd: no repair; the source passes a descriptor, a socket
#            connected to the host's loopback (127.0.0.1:9998 in H) for a
#            flow to the gateway, though the mapping is off: refused, and
#            the socket reset (its server sees the connection end).
#            SUB=fd-out: the same flow with the mapping on and -o given
#            must be taken (a flow to the host's loopback is not bound to
#            -o's address, so its local address is loopback's).
#  frontend  the same through the vhost-user device-state channel: a
#            frontend (vupeer.py ds-load) LOADs a state of one flow in
#            repair state into slipway --migrate-repair
#            --no-map-host-loopback, then starts the rings. SUB=listened
#            (10.99.0.1:8022, where another process listens) and
#            SUB=loopback (the host's 127.0.0.1:9999) must be refused.
#  stall-from  a source (root) connects to slipway B's --migrate-from
#            socket, sends 10 bytes of a header and says no more: SIGTERM
#            must end B within 1 s, status 0.
#  stall-to  slipway A's --migrate-to destination (root) takes the state
#            and never answers: SIGTERM must end A within 1 s.
. "$(dirname "$0")/lib.sh"
require_root
: "${SWVU:?set SWVU to the swvu binary}"
CASE=${CASE:-peer-to}

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
	vu_slipway A --migrate-to "$d/state.sock" -t "127.0.0.1/$p:7"
	vu_slipway B
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

# other_listener: another program listens on 0.0.0.0:8022 in H
other_listener() {
	h "$PY" -c '
import socket, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 8022))
s.listen(8)
time.sleep(120)' &
	PIDS+=($!)
	wait_listen 8022 "$H"
}

# from_repair SUB: see the top
from_repair() {
	local sub=$1 mig=(--sndq INJECTED-BY-SOURCE) bad est n
	make_host_two 10.99.0.1/24 10.99.0.2/24
	make_ns "$NS"
	case $sub in
	listened) mig+=(--local 10.99.0.1:8022 --remote 10.99.0.2:80)
		bad="sport = :8022" ;;
	loopback) mig+=(--remote 10.0.2.2:9999) bad="dport = :9999" ;;
	ok) mig+=(--local 10.99.0.1:30000 --remote 10.99.0.2:80)
		bad="sport = :30000" ;;
	fd | fd-out) mig=(--fds --flows 1 --remote 10.0.2.2:9998)
		bad="dport = :9998" ;;
	esac
	"$SWMIG" "${mig[@]}" "$T/state.bin" >/dev/null || fail "swmig"
	# another program's listener, and no reset for what nobody answers
	other_listener
	h nft -f - <<'EON' || fail "nft"
table inet swhostile {
	chain out {
		type filter hook output priority 0; policy accept;
		tcp dport { 80, 9999 } drop
	}
}
EON
	# SUB=fd: the socket the source passes, and its server's verdict
	h "$PY" -c '
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 9998))
s.listen(1)
open(sys.argv[1] + ".ready", "w").close()
c, _ = s.accept()
c.settimeout(60)
try:
    d = c.recv(100)
    v = "closed" if not d else "got " + d.decode(errors="replace")
except OSError as e:
    v = "closed"
open(sys.argv[1], "w").write(v + "\n")' "$T/srv9998" &
	PIDS+=($!)
	wait_for "the loopback server" 10 "[ -e $T/srv9998.ready ]"
	mkdir -p "$T/B"
	echo "nameserver 127.0.0.1" >"$T/resolv.conf"
	local rep=(--migrate-repair --no-map-host-loopback)
	[ "$sub" = fd ] && rep=(--no-map-host-loopback)
	# fd-out: the mapping on and -o given: the gateway's flow is not
	# bound to -o's address (sock_bind_out()), and so not refused
	[ "$sub" = fd-out ] && rep=(-o 10.99.0.1)
	ip netns exec "$H" "$SLIPWAY" --vhost-user "$T/B/sw.sock" -d --stats-file "$T/B/stats.json" \
		--resolv-conf "$T/resolv.conf" --migrate-from "$T/state.sock" \
		"${rep[@]}" >"$T/B/slipway.log" 2>&1 &
	B_PID=$!
	PIDS+=("$B_PID")
	wait_for "B's sockets" 10 "[ -S $T/B/sw.sock ] && [ -S $T/state.sock ] || ! kill -0 $B_PID"
	kill -0 "$B_PID" 2>/dev/null || fail "slipway B: $(tail -3 "$T/B/slipway.log")"
	# the hostile source: the stream, then the go once B said yes
	h "$PY" -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.settimeout(10)
s.sendall(open(sys.argv[2], "rb").read())
if sys.argv[3].startswith("fd"):
    c = socket.create_connection(("127.0.0.1", 9998))
    s.sendmsg([b"F"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                        c.fileno().to_bytes(4, sys.byteorder))])
    c.close()
a = s.recv(128)
if a != b"OK":
    sys.exit("B answered %r" % a)
s.sendall(b"GO")
s.close()' "$T/state.sock" "$T/state.bin" "$sub" || fail "B did not take the state: $(tail -3 "$T/B/slipway.log")"
	ip netns exec "$NS" "$SWVU" --tap tap0 --socket "$T/B/sw.sock" \
		>"$T/swvu.log" 2>&1 &
	PIDS+=($!)
	wait_for "B's flows in" 20 "grep -q 'flows in' $T/B/slipway.log || ! kill -0 $B_PID"
	est=0
	for n in $(seq 20); do
		h ss -Htn state established "( $bad )" | grep -q . && est=1
		sleep 0.05
	done
	kill -TERM "$B_PID"
	wait "$B_PID"
	n=$?
	[ "$n" = 0 ] || fail "slipway B exited with $n: $(grep -v debug "$T/B/slipway.log" | tail -3)"
	T=$T/B
	[ -s "$T/stats.json" ] || fail "B wrote no counters: $(grep -v debug "$T/slipway.log" | tail -8)"
	if [ "$sub" = fd ]; then
		wait_for "the loopback server's verdict" 10 "[ -s $T/../srv9998 ]"
		[ "$(cat "$T/../srv9998")" = closed ] ||
			fail "the passed socket to the host's loopback: $(cat "$T/../srv9998")"
		expect_ctr MIG_REFUSED_GUEST -eq 1
		expect_ctr MIG_TCP_IN -eq 0
	elif [ "$sub" = fd-out ]; then
		expect_ctr MIG_TCP_IN -eq 1
		expect_ctr MIG_REFUSED_GUEST -eq 0
	elif [ "$sub" = ok ]; then
		[ "$est" = 1 ] || fail "the good flow's socket never appeared: $(grep migration "$T/slipway.log")"
		expect_ctr MIG_TCP_IN -eq 1
		expect_ctr MIG_REFUSED_GUEST -eq 0
		# swmig's state carries no stop time: no figure made of it
		grep -q "flows in, .* ms after its rings ran here; the source's stop time is not comparable" \
			"$T/slipway.log" ||
			fail "downtime figures: $(grep 'flows in' "$T/slipway.log")"
	else
		[ "$est" = 0 ] || fail "slipway made a connection no guest could ($bad): $(grep migration "$T/slipway.log")"
		expect_ctr MIG_REFUSED_GUEST -eq 1
		expect_ctr MIG_TCP_IN -eq 0
		grep -q "a TCP flow refused" "$T/slipway.log" || fail "no reason logged"
	fi
	pass "a source's $sub flow in repair state: as the guest's own SYN"
}

# frontend SUB: see the top
frontend() {
	local sub=$1 mig=(--sndq INJECTED-BY-FRONTEND)
	make_host_two 10.99.0.1/24 10.99.0.2/24
	case $sub in
	listened) mig+=(--local 10.99.0.1:8022 --remote 10.99.0.2:80) ;;
	loopback) mig+=(--remote 10.0.2.2:9999) ;;
	esac
	"$SWMIG" "${mig[@]}" "$T/state.bin" >/dev/null || fail "swmig"
	other_listener
	echo "nameserver 127.0.0.1" >"$T/resolv.conf"
	ip netns exec "$H" "$SLIPWAY" --vhost-user "$T/sw.sock" -d \
		--stats-file "$T/stats.json" --resolv-conf "$T/resolv.conf" \
		--migrate-repair --no-map-host-loopback >"$T/slipway.log" 2>&1 &
	SW_PID=$!
	PIDS+=("$SW_PID")
	wait_for "the vhost-user socket" 10 "[ -S $T/sw.sock ] || ! kill -0 $SW_PID"
	wait_started
	timeout 60 "$PY" "$(dirname "$0")/../instruments/vupeer.py" ds-load "$T/sw.sock" \
		"$T/state.bin" >"$T/vupeer.out" 2>&1 ||
		fail "vupeer ds-load: $(cat "$T/vupeer.out")"
	stop_slipway
	expect_ctr MIG_REFUSED_GUEST -eq 1
	expect_ctr MIG_TCP_IN -eq 0
	grep -q "a TCP flow refused" "$T/slipway.log" || fail "no reason logged"
	pass "a frontend's device state: a $sub flow refused"
}

# stall CASE: see the top
stall() {
	local who=B rc
	mkdir -p "$T/x"
	"$PY" -c '
import socket, sys, time
if sys.argv[1] == "stall-from":
    s = socket.socket(socket.AF_UNIX)
    for _ in range(100):
        try:
            s.connect(sys.argv[2])
            break
        except OSError:
            time.sleep(0.1)
    s.sendall(b"SLPWMIG\n\x01\0")
    open(sys.argv[3], "w").close()
    time.sleep(60)
else:
    ls = socket.socket(socket.AF_UNIX)
    ls.bind(sys.argv[2])
    ls.listen(1)
    open(sys.argv[3] + ".ready", "w").close()
    c, _ = ls.accept()
    open(sys.argv[3], "w").close()
    time.sleep(60)' "$1" "$T/x/state.sock" "$T/x/stalled" &
	PIDS+=($!)
	if [ "$1" = stall-from ]; then
		vu_slipway B --migrate-from "$T/x/state.sock"
	else
		who=A
		wait_for "the destination's socket" 10 "[ -e $T/x/stalled.ready ]"
		vu_slipway A --migrate-to "$T/x/state.sock"
		vu_slipway B
		make_ns "$NS"
		ip netns exec "$NS" "$SWVU" --tap tap0 --socket "$T/A/sw.sock" \
			--migrate-to "$T/B/sw.sock" --after 300 >"$T/swvu.log" 2>&1 &
		PIDS+=($!)
	fi
	wait_for "the stalled peer" 20 "[ -e $T/x/stalled ]"
	sleep 0.5
	local pid_var=${who}_PID
	kill -TERM "${!pid_var}"
	reap "${!pid_var}" 1
	rc=$?
	[ "$rc" = 124 ] && fail "slipway $who still runs 1 s after SIGTERM, its peer stalled: $(tail -3 "$T/$who/slipway.log")"
	[ "$rc" = 0 ] || fail "slipway $who exited with $rc: $(tail -3 "$T/$who/slipway.log")"
	pass "$1: SIGTERM ends slipway $who within 1 s"
}

case $CASE in
peer-to) peer_to ;;
stall-from | stall-to) stall "$CASE" ;;
frontend) frontend "${SUB:?}" ;;
from-repair) from_repair "${SUB:?}" ;;
*) fail "unknown CASE $CASE" ;;
esac

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_vu_migrate.sh - live migration of a vhost-user guest from slipway A
# (--migrate-to) to slipway B (--migrate-from), with swvu as the VM: a
# namespace's stack behind two queue pairs; swvu --migrate-to turns dirty
# logging on when the test sends it SIGHUP, once the transfers, the idle
# connections and the UDP flow are there (or AFTER_MS into the run, if
# given), stops every ring on A (GET_VRING_BASE,
# as QEMU's source at completion) and sets the device up again on B with
# the same memory and the saved ring bases, bridging on.
# Across the migration: a byte-checked transfer each way (swverify, SIZE,
# two connections each), IDLE idle connections to a host echo server
# that each echo a line before and after, and a UDP flow to the same
# server, which answers with the datagram's source port. Passes only if
#  - both transfers were running when the rings stopped and complete
#    byte-exact, every idle connection still echoes afterwards, and the
#    UDP flow answers from the same host port (its socket moved; a new
#    port in the repair modes, which move TCP only),
#  - swvu found each ring's used index at its base (no entry lost or
#    repeated) and saw the first frame each way on B,
#  - A exits by itself with status 0, its gates held and no flow left; B's
#    gates hold at the end (every flow ended, no reset of a guest's flow),
#  - B publishes the port below 1024 that only it has.
# MODE=nostate runs B without --migrate-from: the same checks must fail
# (the connections are reset): a check of the test itself, not in meson.
# MODE=repair: both with --migrate-repair, the sockets moving as
# TCP_REPAIR state (as between hosts), everything host-side in a
# namespace H of the test's own; while the sockets are nobody's, its
# loopback drops TCP (nftables), as the network does while an address
# moves between hosts (else the kernel would reset the peers); the
# migration starts on SIGHUP, once the transfers run.
# MODE=devstate: as repair, but the state moves as with QEMU 8.2 and
# later, through the vhost-user device-state channel: both slipways run
# with --migrate-repair alone (no socket between them), swvu with
# --device-state saves the state from A once its rings stopped and loads
# it into B before B's device starts; the size must be non-zero and both
# checks good, and both slipways run --runas nobody.
# MODE=giveback: the migration fails after the hand-over (a destination
# gone, or migrate_cancel in QEMU's pre-switchover): swvu --resume stops
# A's rings (SIGHUP), and once A handed its flows to B, starts them again
# on A (SIGHUP again) instead of going to B. A publishes a port to a
# guest echo server, with a connection through it open across. Passes
# only if A takes everything back (B drops its copies, never runs): the
# transfers complete byte-exact, every idle connection echoes, the UDP
# flow answers from the same port, the connection through the published
# port echoes and a new one does, and no flow was reset on A.
# MODE=giveback-destkill: the same, but B is killed (SIGKILL) after the
# hand-over, before the VM resumes on A: A's copies are whole.
# In both repair modes, neither slipway holds CAP_NET_ADMIN: each one's
# repair helper does, alone (CapEff in /proc/PID/status); the gateway
# holds nothing (B in MODE=repair: CAP_NET_BIND_SERVICE, for its port
# below 1024, published once the state came).
# shellcheck disable=SC2030,SC2031 # T is changed in subshells on purpose
. "$(dirname "$0")/lib.sh"
require_root
: "${SWVU:?set SWVU to the swvu binary}"
SIZE=${SIZE:-2G}
IDLE=${IDLE:-50}
AFTER_MS=${AFTER_MS:-3600000} # SIGHUP starts it, once the transfers run
MODE=${MODE:-handover}
GIVEBACK=
case $MODE in giveback*) GIVEBACK=1 ;; esac

# sw_start NAME OPTIONS...: vu_slipway (lib.sh) with two shards
sw_start() {
	vu_slipway "$@" --shards 2
}

# caps NAME CAPEFF: slipway NAME's gateway has CAPEFF (hex), its repair
# helper CAP_NET_ADMIN alone; with RUNAS, both run as that user
caps() {
	local pid hp e u
	pid=${1}_PID
	pid=${!pid}
	e=$(awk '/^CapEff:/ { print $2 }' "/proc/$pid/status")
	[ "$e" = "$2" ] || fail "slipway $1: CapEff $e, not $2"
	hp=$(sed -n 's/.*repair helper: pid \([0-9]*\),.*/\1/p' "$T/$1/slipway.log")
	[ -n "$hp" ] && e=$(awk '/^CapEff:/ { print $2 }' "/proc/$hp/status")
	[ -n "$hp" ] && [ "$e" = 0000000000001000 ] ||
		fail "slipway $1's repair helper (pid '$hp'): CapEff '$e', not CAP_NET_ADMIN alone: $(grep -i repair "$T/$1/slipway.log")"
	u=$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status" "/proc/$hp/status" | sort -u)
	[ "$u" = "$(id -u "${RUNAS:-root}")" ] || fail "slipway $1 and its helper run as uid $u"
}

# gates NAME: slipway NAME's counters at exit hold the gates
gates() {
	(
		T=$T/$1
		[ -s "$T/stats.json" ] || fail "slipway $1 wrote no counters at exit"
		check_gates
		expect_ctr EDGE_VU_PROTO_ERRORS -eq 0
		expect_ctr EDGE_VU_RING_ERRORS -eq 0
		expect_ctr TCP_RST_GUEST_GONE -eq 0
	) || fail "slipway $1's gates: $(tail -5 "$T/$1/slipway.log")"
}

STATE=$T/state.sock
A_OPT=(--migrate-to "$STATE")
B_OPT=(--migrate-from "$STATE")
VM_OPT=()
[ "$MODE" = nostate ] && B_OPT=()
if [ "$MODE" = devstate ]; then
	A_OPT=()
	B_OPT=()
	VM_OPT=(--device-state)
fi
HX=()
AFTER=$AFTER_MS
PA=
if [ -n "$GIVEBACK" ]; then
	PA=$(free_port)
	A_OPT+=(-t "127.0.0.1/$PA:7")
	VM_OPT=(--resume)
fi
REPAIR=
[ "$MODE" = repair ] || [ "$MODE" = devstate ] && REPAIR=1
if [ -n "$REPAIR" ]; then
	command -v nft >/dev/null || {
		echo "SKIP: no nft (apt-get install -y nftables)"
		exit 77
	}
	make_host_ns swmh
	HX=(ip netns exec "$H")
	# a restored socket's queues must fit buffers set without the FORCE
	# options (slipway holds no capability): autotuning in H stops at
	# net.core.rmem_max and wmem_max
	for m in r w; do
		max=$(cat /proc/sys/net/core/${m}mem_max)
		read -r lo def top <"/proc/sys/net/ipv4/tcp_${m}mem"
		h sysctl -qw "net.ipv4.tcp_${m}mem=$lo $((def < max ? def : max)) $((top < max ? top : max))"
	done
	A_OPT+=(--migrate-repair)
	B_OPT+=(--migrate-repair)
fi
RUNAS=
if [ "$MODE" = devstate ]; then
	RUNAS=nobody
	A_OPT+=(--runas "$RUNAS")
	B_OPT+=(--runas "$RUNAS")
	mkdir -p "$T/A" "$T/B"
	chmod 777 "$T/A" "$T/B" # its counters, its socket file removed
fi
# B alone publishes a port below 1024: a --migrate-from destination binds
# it once the state came, after its sandbox (it keeps
# CAP_NET_BIND_SERVICE for that)
PP=$("${HX[@]}" "$PY" -c '
import socket
for p in range(900, 1000):
    try:
        socket.socket().bind(("127.0.0.1", p))
        print(p)
        break
    except OSError:
        pass')
[ -n "$PP" ] || fail "no free port between 900 and 999"
sw_start A "${A_OPT[@]}"
sw_start B "${B_OPT[@]}" -t "127.0.0.1/$PP:7"
if [ -n "$REPAIR" ]; then
	caps A 0000000000000000
	bind=0000000000000000
	[ "$MODE" = repair ] && bind=0000000000000400
	caps B $bind
fi
[ -n "$REPAIR" ] || make_ns "$NS"
# the guest's UDP flow: with descriptors its socket moves, and the host
# peer sees the same source port after; as repair state only TCP moves,
# and the guest's next datagram opens a new flow through B
UDP=same
[ -n "$REPAIR" ] || [ "$MODE" = nostate ] && UDP=new
g ip link set lo up

ip netns exec "$NS" "$SWVU" --tap tap0 --socket "$T/A/sw.sock" --queues 2 \
	--migrate-to "$T/B/sw.sock" --after "$AFTER" "${VM_OPT[@]}" \
	>"$T/swvu.log" 2>&1 &
VM_PID=$!
PIDS+=("$VM_PID")
wait_for "the VM's tap" 10 "ip -n $NS link show tap0 2>/dev/null | grep -q UP || ! kill -0 $VM_PID 2>/dev/null"
kill -0 "$VM_PID" 2>/dev/null || fail "swvu: $(cat "$T/swvu.log")"
g ip addr add 10.0.2.15/24 dev tap0
g ip route add default via 10.0.2.2

# the idle connections: a host echo server, a guest client that echoes a
# line on each, then waits for $T/go and echoes again
cat >"$T/idle.py" <<'EOS'
import os, selectors, socket, sys, time
if sys.argv[1] == "server":
    sel = selectors.DefaultSelector()
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", int(sys.argv[2])))
    ls.listen(1024)
    sel.register(ls, selectors.EVENT_READ)
    us = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    us.bind(("127.0.0.1", int(sys.argv[2])))
    sel.register(us, selectors.EVENT_READ)
    while True:
        for k, _ in sel.select():
            s = k.fileobj
            if s is ls:
                c, _ = ls.accept()
                sel.register(c, selectors.EVENT_READ)
                continue
            if s is us:
                d, a = us.recvfrom(512)
                us.sendto(b"%s %d" % (d, a[1]), a)
                continue
            try:
                d = s.recv(4096)
            except OSError:
                d = b""
            if not d:
                sel.unregister(s)
                s.close()
            else:
                s.sendall(d)
port, n, ready, go = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
def echo(socks, word):
    bad = 0
    for i, s in enumerate(socks):
        m = b"%s %d\n" % (word, i)
        try:
            s.sendall(m)
            d = b""
            while len(d) < len(m):
                r = s.recv(len(m) - len(d))
                if not r:
                    break
                d += r
            bad += d != m
        except OSError:
            bad += 1
    return bad
def udp_ask(u, word):
    for _ in range(5):
        try:
            u.send(word)
            d = u.recv(512).split()
            if len(d) == 2 and d[0] == word:
                return int(d[1])
        except OSError:
            pass
    return -1
socks = []
for i in range(n):
    s = socket.create_connection(("10.0.2.2", port), timeout=10)
    socks.append(s)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.settimeout(2)
u.connect(("10.0.2.2", port))
b = echo(socks, b"before")
p1 = udp_ask(u, b"before")
open(ready, "w").write("%d\n" % (b + (p1 < 0)))
while not os.path.exists(go):
    time.sleep(0.05)
a = echo(socks, b"after")
p2 = udp_ask(u, b"after")
udp = "lost" if p2 < 0 else "same" if p2 == p1 else "new"
print("before %d after %d of %d udp %s" % (b, a, n, udp), flush=True)
for s in socks:
    s.close()
EOS
IP=$(free_port)
"${HX[@]}" "$PY" "$T/idle.py" server "$IP" &
PIDS+=($!)
wait_listen "$IP" "${H:-}"
g "$PY" "$T/idle.py" client "$IP" "$IDLE" "$T/idle.ready" "$T/go" >"$T/idle.out" 2>&1 &
ic=$!
PIDS+=("$ic")
wait_for "idle connections" 20 "[ -s $T/idle.ready ] || ! kill -0 $ic 2>/dev/null"
[ "$(cat "$T/idle.ready" 2>/dev/null)" = 0 ] || fail "idle connections before: $(cat "$T/idle.out")"

# giveback: a guest echo server behind A's published port, and a host
# connection through it that echoes before and after
if [ -n "$PA" ]; then
	cat >"$T/pub.py" <<'EOS'
import os, socket, sys, time
if sys.argv[1] == "server":
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", 7))
    ls.listen(64)
    import threading
    def serve(c):
        while True:
            d = c.recv(4096)
            if not d:
                break
            c.sendall(d)
        c.close()
    while True:
        c, _ = ls.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()
port, ready, go = int(sys.argv[2]), sys.argv[3], sys.argv[4]
def echo(s, word):
    try:
        s.sendall(word + b"\n")
        d = b""
        while len(d) < len(word) + 1:
            r = s.recv(64)
            if not r:
                break
            d += r
        return int(d != word + b"\n")
    except OSError:
        return 1
s = socket.create_connection(("127.0.0.1", port), timeout=20)
b = echo(s, b"before")
open(ready, "w").write("%d\n" % b)
while not os.path.exists(go):
    time.sleep(0.05)
a = echo(s, b"after")
try:
    n = echo(socket.create_connection(("127.0.0.1", port), timeout=20), b"new")
except OSError:
    n = 1
print("before %d after %d new %d" % (b, a, n), flush=True)
EOS
	g "$PY" "$T/pub.py" server &
	PIDS+=($!)
	wait_for "the guest's echo server" 10 "ip netns exec $NS ss -Hltn 'sport = :7' | grep -q ."
	"$PY" "$T/pub.py" client "$PA" "$T/pub.ready" "$T/go" >"$T/pub.out" 2>&1 &
	pc=$!
	PIDS+=("$pc")
	wait_for "the published port's connection" 20 "[ -s $T/pub.ready ] || ! kill -0 $pc 2>/dev/null"
	[ "$(cat "$T/pub.ready" 2>/dev/null)" = 0 ] || fail "published port before: $(cat "$T/pub.out")"
fi

# a transfer each way, two connections each, byte-checked by swverify
xfer_each_way "$SIZE"

# the migration, while both transfers run (and once the UDP flow and the
# idle connections are there: a timer could fire before them on a loaded
# machine, which moved no UDP flow)
sleep 0.5
if [ -n "$REPAIR" ]; then
	h nft -f - <<'EON' || fail "nft"
table inet swmig {
	chain out {
		type filter hook output priority 0; policy accept;
		oifname "lo" meta l4proto tcp drop
	}
}
EON
fi
kill -HUP "$VM_PID"
wait_for "the rings stopped" 30 "grep -q 'rings stopped' $T/swvu.log || ! kill -0 $VM_PID 2>/dev/null"
if [ -n "$REPAIR" ]; then
	wait_for "B's flows in" 20 "grep -q 'flows in' $T/B/slipway.log || ! kill -0 $B_PID"
	h nft delete table inet swmig
	grep -q "migration: 0 TCP flows" "$T/A/slipway.log" &&
		fail "A moved no flow as repair state: $(grep migration "$T/A/slipway.log")"
fi
kill -0 "$c1" 2>/dev/null && kill -0 "$c2" 2>/dev/null ||
	fail "a transfer ended before the rings stopped, or as they did (raise SIZE if it completed): $(cat "$T/c1.json" "$T/c2.json" | tail -4)"
kill -0 "$VM_PID" 2>/dev/null || fail "swvu: $(cat "$T/swvu.log")"
if [ -n "$GIVEBACK" ]; then
	wait_for "A's hand-over" 20 "grep -q 'listeners handed to' $T/A/slipway.log"
	grep -q "state taken" "$T/B/slipway.log" ||
		fail "B took no state: $(tail -5 "$T/B/slipway.log")"
	grep -q "migration: 0 TCP flows" "$T/A/slipway.log" &&
		fail "A handed no flow over: $(grep migration "$T/A/slipway.log")"
	# the window a cancelled migration leaves: the host peers wait
	sleep 1
	if [ "$MODE" = giveback-destkill ]; then
		kill -KILL "$B_PID"
		wait "$B_PID" 2>/dev/null
		# A sees B gone (logged), then the VM resumes on A
		for _ in $(seq 50); do
			grep -q 'destination went away' "$T/A/slipway.log" && break
			sleep 0.1
		done
	fi
	kill -HUP "$VM_PID"
else
wait_for "the source's socket closed" 10 "grep -q \"source's socket closed\" $T/swvu.log || ! kill -0 $VM_PID 2>/dev/null"
kill -0 "$VM_PID" 2>/dev/null || fail "swvu: $(cat "$T/swvu.log")"
fi
saved=
if [ "$MODE" = devstate ]; then
	saved=$(grep -o 'device state saved, [0-9]* bytes' "$T/swvu.log")
	loaded=$(grep -o 'device state loaded, [0-9]* bytes' "$T/swvu.log")
	[ -n "$saved" ] && [ "${saved#*saved, }" = "${loaded#*loaded, }" ] &&
		[ "${saved#*saved, }" != "0 bytes" ] ||
		fail "device state: saved '$saved', loaded '$loaded': $(cat "$T/swvu.log")"
fi

rc=0
wait "$c1" || rc=1
wait "$c2" || rc=1
[ $rc = 0 ] || fail "transfers across the migration: $(cat "$T/c1.json" "$T/c2.json"; cat "$T/swvu.log"; tail -5 "$T/B/slipway.log")"
wait "$s1" || fail "host receiver: $(cat "$T/s1.json")"
wait "$s2" || fail "host sender: $(cat "$T/s2.json")"
touch "$T/go"
wait "$ic"
[ "$(cat "$T/idle.out")" = "before 0 after 0 of $IDLE udp $UDP" ] ||
	fail "idle connections after the migration (UDP: expected $UDP): $(cat "$T/idle.out")"

if [ -n "$GIVEBACK" ]; then
	wait "$pc"
	[ "$(cat "$T/pub.out")" = "before 0 after 0 new 0" ] ||
		fail "the published port after the migration failed: $(cat "$T/pub.out")"
	# A serves the VM on: its flows end, then the VM and A stop
	(T=$T/A SW_PID=$A_PID wait_flows_gone) || exit 1
	kill -TERM "$VM_PID"
	wait "$VM_PID"
	vm_rc=$?
	[ "$vm_rc" = 0 ] || fail "swvu exited with $vm_rc: $(tail -5 "$T/swvu.log")"
	line=$(grep "swvu: migration: stopped at" "$T/swvu.log")
	[[ $line == *"tap->backend "[0-9]*" ms, backend->tap "[0-9]*" ms" ]] ||
		fail "no first frame each way through A after it resumed: $line"
	ends=(A B)
	[ "$MODE" = giveback-destkill ] && ends=(A)
	for n in "${ends[@]}"; do
		pid=${n}_PID
		kill -TERM "${!pid}"
		wait "${!pid}"
		rc=$?
		[ "$rc" = 0 ] || fail "slipway $n exited with $rc: $(tail -5 "$T/$n/slipway.log")"
		gates "$n"
	done
	(
		T=$T/A
		expect_ctr MIG_UDP_OUT -ge 1
		expect_ctr MIG_TCP_REFUSED -eq 0
		expect_ctr TCP_RST_UNKNOWN_FLOW -eq 0
	) || fail "A's counters: $(tail -5 "$T/A/slipway.log")"
	grep -q "taken back" "$T/A/slipway.log" ||
		fail "A did not say it took its flows back: $(grep migration "$T/A/slipway.log")"
	how="B dropped its copies"
	if [ "$MODE" = giveback ]; then
		(T=$T/B expect_ctr MIG_TCP_IN -eq 0) || exit 1
		grep -q "our copies dropped" "$T/B/slipway.log" ||
			fail "B did not drop its copies: $(grep migration "$T/B/slipway.log")"
	else
		how="B was killed before"
	fi
	pass "two pairs, $SIZE each way, $IDLE idle connections, a UDP flow" \
		"and a published port's connection through A while a migration" \
		"to B failed after the hand-over: A took everything back," \
		"byte-exact, all echo, $how;" \
		"$(grep -o 'migration: [0-9]* TCP flows' "$T/A/slipway.log" | head -1)"
	exit 0
fi

# A: handed over, its frontend gone: it ends by itself
reap "$A_PID" 10
a_rc=$?
[ "$a_rc" = 124 ] && fail "slipway A still runs after the migration"
[ "$a_rc" = 0 ] || fail "slipway A exited with $a_rc: $(tail -5 "$T/A/slipway.log")"
gates A
[ "$UDP" = same ] && { (T=$T/A expect_ctr MIG_UDP_OUT -ge 1) || exit 1; }
wait_listen "$PP" "${H:-}"
handed="migration: .* TCP flows .* handed to"
[ "$MODE" = devstate ] &&
	handed="migration: .* TCP flows .* saved into the VM's device state"
grep -q "$handed" "$T/A/slipway.log" ||
	fail "A handed nothing over: $(tail -5 "$T/A/slipway.log")"

kill -0 "$VM_PID" 2>/dev/null || fail "swvu ended: $(cat "$T/swvu.log")"
(T=$T/B SW_PID=$B_PID wait_flows_gone) || exit 1
kill -TERM "$VM_PID"
wait "$VM_PID"
vm_rc=$?
[ "$vm_rc" = 0 ] || fail "swvu exited with $vm_rc: $(tail -5 "$T/swvu.log")"
line=$(grep "swvu: migration: stopped at" "$T/swvu.log")
[[ $line == *"tap->backend "[0-9]*" ms, backend->tap "[0-9]*" ms" ]] ||
	fail "no first frame each way through B: $line"
kill -TERM "$B_PID"
wait "$B_PID"
b_rc=$?
[ "$b_rc" = 0 ] || fail "slipway B exited with $b_rc"
gates B
[ "$UDP" = same ] && { (T=$T/B expect_ctr MIG_UDP_IN -ge 1) || exit 1; }
pass "two pairs, $SIZE each way, $IDLE idle connections and a UDP flow" \
	"($UDP port) across a migration from A to B: byte-exact, all echo," \
	"A exited cleanly;" \
	"$(grep -o 'state taken: [0-9]* TCP flows' "$T/B/slipway.log"),${saved:+ $saved,}" \
	"${line#swvu: migration: }"

# SPDX-License-Identifier: GPL-2.0-or-later
# lib.sh - shared helpers for the integration tests (sourced, bash)
#
# Each test makes its own network namespace(s) with unique names, runs
# slipway on them, moves real bytes with real tools, and checks slipway's
# counters (the integrity gates) from the JSON it writes at exit. Traffic
# goes only to loopback or into namespaces the test created. Everything a
# test starts is stopped by PID and every namespace deleted on exit.

set -u
: "${SLIPWAY:?set SLIPWAY to the slipway binary}"
: "${SWVERIFY:?set SWVERIFY to the swverify binary}"
PY=/usr/bin/python3
T=$(mktemp -d /tmp/slipway-test.XXXXXX)
chmod 755 "$T"
NS="swt$$"
PIDS=()
NSLIST=()
HX=() # a command prefix for the host side: ip netns exec H (vu_slipway)

# skip (exit 77 for meson) unless we are root with namespaces available
require_root() {
	if [ "$(id -u)" != 0 ]; then
		echo "SKIP: needs root (network namespaces)"
		exit 77
	fi
}

fail() {
	echo "FAIL: $*" >&2
	if [ -f "$T/slipway.log" ]; then
		echo "--- slipway log (last 30 lines)" >&2
		tail -30 "$T/slipway.log" >&2
	fi
	exit 1
}

cleanup() {
	local p n
	for p in "${PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
	sleep 0.2
	for p in "${PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	# anything still running in our namespaces (a server started through
	# a shell function is a grandchild the PID list does not name)
	for n in "${NSLIST[@]}"; do
		for p in $(ip netns pids "$n" 2>/dev/null); do
			kill -KILL "$p" 2>/dev/null
		done
	done
	for n in "${NSLIST[@]}"; do
		ip netns del "$n" 2>/dev/null
	done
	# KEEP_T=1 keeps the test's files (logs, captures) to look at
	[ -n "${KEEP_T:-}" ] && echo "kept: $T" >&2 || rm -rf "$T"
}
trap cleanup EXIT

# private_slipway [NAME...]: a copy of slipway at $T/bin/slipway, so that
# our processes can be found by their executable (ours), a symlink to it
# named NAME for each NAME (pasta, passt), and an EXIT trap that stops
# them all (stop_ours) before cleanup
private_slipway() {
	local n
	mkdir -p "$T/bin"
	cp "$SLIPWAY" "$T/bin/slipway"
	chmod 755 "$T/bin" "$T/bin/slipway"
	for n in "$@"; do
		ln -s slipway "$T/bin/$n"
	done
	trap 'stop_ours; cleanup' EXIT
}

# ours: every process running $T/bin/slipway (daemons, their helpers)
ours() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/exe" 2>/dev/null)" = "$T/bin/slipway" ] &&
			echo "${p#/proc/}"
	done
}

# stop_ours: SIGTERM to every process ours names
stop_ours() {
	local p
	for p in $(ours); do
		kill -TERM "$p" 2>/dev/null
	done
}

# bg CMD...: run in the background, remember the PID for cleanup
bg() {
	"$@" &
	PIDS+=($!)
	LASTPID=$!
}

# make_ns NAME: create a namespace that cleanup deletes
make_ns() {
	ip netns add "$1" || fail "ip netns add $1"
	NSLIST+=("$1")
}

# g CMD...: run a command in the guest namespace
g() {
	ip netns exec "$NS" "$@"
}

# make_host_ns PREFIX: a "host" namespace H of the test's own for slipway
# to run in (its loopback up: its ports, ephemeral range and listeners are
# the test's alone), the guest namespace $NS, and a resolver list that
# sends no query off the machine
make_host_ns() {
	H="$1$$"
	make_ns "$H"
	ip -n "$H" link set lo up
	make_ns "$NS"
	echo "nameserver 127.0.0.1" >"$T/resolv.conf"
}

# h CMD...: run a command in the host namespace H (make_host_ns)
h() {
	ip netns exec "$H" "$@"
}

# make_host_client ADDR_H ADDR_C: a "host" namespace H and a client
# namespace C (sets $H and $C; unique names), both with lo up, joined by a
# veth (hv0 in H, cv0 in C) carrying ADDR_H and ADDR_C (address/prefix)
make_host_client() {
	H="swh$$"
	C="swc$$"
	make_ns "$H"
	make_ns "$C"
	ip -n "$H" link set lo up
	ip -n "$C" link set lo up
	ip -n "$H" link add hv0 type veth peer name cv0 netns "$C"
	ip -n "$H" addr add "$1" dev hv0
	ip -n "$C" addr add "$2" dev cv0
	ip -n "$H" link set hv0 up
	ip -n "$C" link set cv0 up
}

# make_host_two ADDR1 ADDR2: a "host" namespace H with lo up and a veth
# pair of its own (hv0 with ADDR1, hv1 with ADDR2, address/prefix): a
# second host address for clients that are not on loopback
make_host_two() {
	H="swh$$"
	make_ns "$H"
	ip -n "$H" link set lo up
	ip -n "$H" link add hv0 type veth peer name hv1
	ip -n "$H" addr add "$1" dev hv0
	ip -n "$H" addr add "$2" dev hv1
	ip -n "$H" link set hv0 up
	ip -n "$H" link set hv1 up
}

# word_tools: write $T/srv.py and $T/cli.py. srv.py READY SPEC...: servers
# that say who they are; each SPEC is KIND,ADDR,PORT,WORD: KIND t, a TCP
# server that reads the request and answers WORD ("hold": keeps the
# connection open, answers nothing); u, a UDP one that answers
# "guest-udp" and appends what it got to the file WORD; READY is created
# once all listen. cli.py ADDR PORT [udp]: prints what a client got: the
# first line of the answer, or refused, reset, timeout, errorN
word_tools() {
	cat >"$T/srv.py" <<'PY'
import socket, sys, threading
def serve(s, word):
    while True:
        c, _ = s.accept()
        if word == "hold":
            held.append(c)
        else:
            # read the client's request first: closing with it unread
            # would reset the connection
            c.settimeout(2)
            try:
                c.recv(100)
            except OSError:
                pass
            c.sendall(word.encode()); c.close()
def userve(s, log):
    while True:
        d, a = s.recvfrom(2000)
        with open(log, "a") as f:
            f.write("%s %r\n" % (a[0], d))
        s.sendto(b"guest-udp", a)
held = []
ts = []
for spec in sys.argv[2:]:
    kind, a, p, w = spec.split(",", 3)
    fam = socket.AF_INET6 if ":" in a else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM if kind == "t" else socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if fam == socket.AF_INET6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    s.bind((a, int(p)))
    if kind == "t":
        s.listen(64)
    ts.append(threading.Thread(target=serve if kind == "t" else userve,
                               args=(s, w), daemon=True))
for t in ts:
    t.start()
open(sys.argv[1], "w").close()
for t in ts:
    t.join()
PY
	cat >"$T/cli.py" <<'PY'
import socket, sys
a, p = sys.argv[1], int(sys.argv[2])
udp = len(sys.argv) > 3 and sys.argv[3] == "udp"
s = socket.socket(socket.AF_INET6 if ":" in a else socket.AF_INET,
                  socket.SOCK_DGRAM if udp else socket.SOCK_STREAM)
s.settimeout(3)
try:
    s.connect(socket.getaddrinfo(a, p, s.family, s.type)[0][4])
    if udp:
        # a port unreachable shows on the second send, or on the receive
        s.send(b"loop?")
        s.send(b"loop?")
    else:
        s.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
    r = s.recv(100).decode()
    print(r.split("\r\n")[0] if r else "empty")
except ConnectionRefusedError:
    print("refused")
except ConnectionResetError:
    print("reset")
except socket.timeout:
    print("timeout")
except OSError as e:
    print("error%d" % e.errno)
PY
}

# reach_from NS ADDR PORT EXPECTED [udp]: a client in namespace NS (cli.py
# of word_tools) gets EXPECTED from ADDR PORT, or the test fails
reach_from() {
	local got
	got=$(ip netns exec "$1" "$PY" "$T/cli.py" "$2" "$3" ${5:-})
	[ "$got" = "$4" ] ||
		fail "from $1 to $2 port $3 ${5:-}: got '$got', expected '$4'"
}

# start_slipway_v6 HOSTNS [OPTIONS...]: start_slipway_in, then wait until
# the guest has its IPv6 address too
start_slipway_v6() {
	start_slipway_in "$@"
	wait_for "guest IPv6 address" 10 "ip -n $NS -6 addr show dev tap0 | grep -q fd00"
}

# echo_server: an ncat echo server on the host's 127.0.0.1, in the
# background; its port in ECHO_PORT
echo_server() {
	ECHO_PORT=$(free_port)
	bg ncat -lk 127.0.0.1 "$ECHO_PORT" -c 'cat'
	wait_listen "$ECHO_PORT"
}

# guest_hold N SECS WHEN: the guest opens N connections to the echo
# server (10.0.2.2:ECHO_PORT) and holds them SECS seconds; a connection
# counts as refused if it fails or, with WHEN "each", if its echo of one
# byte fails; with WHEN "end" the admitted ones echo a line after all N
# were tried. Prints "OK REFUSED"; run it in the background
guest_hold() {
	g "$PY" - "$ECHO_PORT" "$1" "$2" "$3" <<'EOS'
import socket, sys, time
port, n, secs, when = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
ok, refused = [], 0
for i in range(n):
    s = socket.socket()
    s.settimeout(5)
    try:
        s.connect(("10.0.2.2", port))
        if when == "each":
            s.sendall(b"x")
            assert s.recv(1) == b"x"
        ok.append(s)
    except OSError:
        refused += 1
if when == "end":
    # the ones that connected still carry data
    for s in ok:
        s.sendall(b"ping\n")
        assert s.recv(16) == b"ping\n"
print(len(ok), refused, flush=True)
time.sleep(secs)
EOS
}

# start_slipway [OPTIONS...]: serve a new guest namespace $NS with slipway;
# sets SW_PID, waits until the guest is configured
start_slipway() {
	start_slipway_in "" "$@"
}

# start_slipway_in HOSTNS [OPTIONS...]: start_slipway, with slipway run in
# the namespace HOSTNS (the test's "host"; "" for this one)
start_slipway_in() {
	make_ns "$NS"
	# a resolver list of our own: no test query may leave the machine
	[ -e "$T/resolv.conf" ] || echo "nameserver 127.0.0.1" >"$T/resolv.conf"
	launch_slipway "$@"
	g ip link set lo up
}

# launch_slipway HOSTNS [OPTIONS...]: slipway, run in the namespace HOSTNS
# ("" for this one), serving the existing guest namespace $NS with
# $T/resolv.conf; sets SW_PID, waits for the guest address and start-up
launch_slipway() {
	local wrap=()
	if [ -n "$1" ]; then
		wrap=(ip netns exec "$1")
	fi
	shift
	rm -f "$T/stats.json"
	# SW_SHARDS: a shard count for tests that leave it to the default
	# (which is one on two CPUs; run-tests.sh's TSan runs ask for two)
	local sh=()
	[[ -n "${SW_SHARDS:-}" && " $* " != *" --shards "* ]] &&
		sh=(--shards "$SW_SHARDS")
	"${wrap[@]}" "$SLIPWAY" --netns "$NS" --stats-file "$T/stats.json" \
		--resolv-conf "$T/resolv.conf" "${sh[@]}" "$@" \
		>"$T/slipway.log" 2>&1 &
	SW_PID=$!
	PIDS+=("$SW_PID")
	wait_for "guest address" 10 \
		"ip -n $NS -4 addr show dev tap0 2>/dev/null | grep -q inet"
	wait_started
}

# wait_started: the namespace is configured before slipway has made its
# shards: a counter dump (SIGUSR1, blocked from the start) comes once the
# event loop runs, so fd counts start from a steady state
wait_started() {
	rm -f "$T/stats.json"
	# SIGUSR1 before slipway blocks it would kill it (a socket file can
	# exist before slipway does: a stale one it is about to replace)
	wait_for "slipway's signal mask" 10 \
		"(( 0x\$(awk '/^SigBlk/ {print \$2}' /proc/$SW_PID/status 2>/dev/null || echo 0) & 0x200 ))"
	kill -USR1 "$SW_PID"
	wait_for "slipway start-up" 10 "[ -s $T/stats.json ]"
	rm -f "$T/stats.json"
}

# reap PID SECONDS: wait up to SECONDS for PID, a child of this shell, to
# end; return its exit status, or 124 (timeout(1)'s) if it still runs
reap() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$1" 2>/dev/null && return 124
	wait "$1"
}

# vu_slipway NAME OPTIONS...: a vhost-user slipway NAME, its files in
# $T/NAME (socket sw.sock, stats.json, slipway.log), through "${HX[@]}"
# if set (a host namespace); its PID in NAME_PID once it is started
vu_slipway() {
	local n=$1 pid
	shift
	mkdir -p "$T/$n"
	[ -e "$T/resolv.conf" ] || echo "nameserver 127.0.0.1" >"$T/resolv.conf"
	"${HX[@]}" "$SLIPWAY" --vhost-user "$T/$n/sw.sock" -d \
		--stats-file "$T/$n/stats.json" --resolv-conf "$T/resolv.conf" \
		"$@" >"$T/$n/slipway.log" 2>&1 &
	pid=$!
	PIDS+=("$pid")
	printf -v "${n}_PID" %s "$pid"
	wait_for "slipway $n's socket" 10 "[ -S $T/$n/sw.sock ] || ! kill -0 $pid"
	kill -0 "$pid" 2>/dev/null || fail "slipway $n: $(tail -3 "$T/$n/slipway.log")"
	(T=$T/$n SW_PID=$pid wait_started) || exit 1
}

# stop_slipway: SIGTERM slipway, wait for it, check its exit status
stop_slipway() {
	local rc
	kill -TERM "$SW_PID" 2>/dev/null
	reap "$SW_PID" 5
	rc=$?
	[ "$rc" = 124 ] && fail "slipway did not exit on SIGTERM"
	[ "$rc" = 0 ] || fail "slipway exited with $rc"
	[ -s "$T/stats.json" ] || fail "no stats JSON written at exit"
}

# xfer_each_way SIZE: a byte-checked transfer each way at once, two
# connections each: swverify servers on the host's 127.0.0.1 (through
# "${HX[@]}" if set: a host namespace), clients in the guest (g) to
# 10.0.2.2. Sets s1 (host receiver), s2 (host sender) and c1, c2 (their
# guest clients); each writes $T/NAME.json
xfer_each_way() {
	local ps pr
	ps=$(free_port)
	pr=$(free_port)
	${HX[@]+"${HX[@]}"} "$SWVERIFY" server --listen "127.0.0.1:$ps" \
		--mode recv --conns 2 --ready-file "$T/rs" >"$T/s1.json" 2>&1 &
	s1=$!
	${HX[@]+"${HX[@]}"} "$SWVERIFY" server --listen "127.0.0.1:$pr" \
		--mode send --bytes "$1" --conns 2 --ready-file "$T/rr" \
		>"$T/s2.json" 2>&1 &
	s2=$!
	PIDS+=("$s1" "$s2")
	wait_for "host servers" 10 "[ -e $T/rs ] && [ -e $T/rr ]"
	g "$SWVERIFY" client --connect "10.0.2.2:$ps" --mode send --bytes "$1" \
		--parallel 2 --timeout 120 --stall 10 >"$T/c1.json" 2>&1 &
	c1=$!
	g "$SWVERIFY" client --connect "10.0.2.2:$pr" --mode recv --bytes "$1" \
		--parallel 2 --timeout 120 --stall 10 >"$T/c2.json" 2>&1 &
	c2=$!
	PIDS+=("$c1" "$c2")
}

# wait_for WHAT SECONDS CONDITION: poll a shell condition
wait_for() {
	local what=$1 secs=$2 cond=$3 i
	for i in $(seq $((secs * 20))); do
		eval "$cond" && return 0
		sleep 0.05
	done
	fail "timed out waiting for $what"
}

# ctr NAME: a counter's total from the stats JSON
ctr() {
	"$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["counters"][sys.argv[2]])' \
		"$T/stats.json" "$1"
}

# expect_ctr NAME OP VALUE: assert on a counter (OP: -eq -ge -le -gt -lt)
expect_ctr() {
	local v
	v=$(ctr "$1") || fail "no counter $1"
	[ "$v" "$2" "$3" ] || fail "counter $1 = $v, expected $2 $3"
}

# expect_no_loss_resend: nothing was resent because of a loss: no RTO,
# and at most four segments (4 x 64 KiB) per probe timeout, which a guest
# or a gateway that waits for a CPU on a busy machine can trigger: the
# probe's segment, and what the ACKs already on their way clock out of the
# recovery the probe began (seen: 70 KiB for one probe, ASan build under
# a full parallel run; 196 KiB, three segments, for one probe in the
# offload matrix's plain run on a loaded 2-CPU machine)
expect_no_loss_resend() {
	local pto
	expect_ctr TCP_RTO_FIRED -eq 0
	pto=$(ctr TCP_PTO_FIRED) || fail "no counter TCP_PTO_FIRED"
	expect_ctr TCP_RETRANS_BYTES -le $((pto * 4 * 65536))
}

# check_gates: the integrity gates every clean run must hold
check_gates() {
	local z
	for z in EDGE_TX_ERRORS EDGE_RX_ERRORS VNET_DROP_BAD_HDR ETH_DROP_SHORT \
		IP4_DROP_BAD_HDR IP4_DROP_BAD_LEN TCP_DROP_BAD_HDR \
		ARP_DROP_BAD ICMP4_DROP_BAD FX_POOL_EMPTY TCP_PEEK_ERRORS \
		SHARD_MBOX_FULL IP6_DROP_BAD_HDR IP6_DROP_BAD_LEN \
		ICMP6_DROP_BAD NDP_DROP_BAD; do
		expect_ctr "$z" -eq 0
	done
	local acked read
	acked=$(ctr TCP_ACKED_BYTES)
	read=$(ctr TCP_HOST_READ_BYTES)
	[ "$acked" = "$read" ] ||
		fail "gate: guest acknowledged $acked bytes but $read were read from host sockets"
	expect_ctr TCP_FLOWS_ACTIVE -eq 0
	# every spliced connection ended, each in exactly one way
	expect_ctr SPLICE_ACTIVE -eq 0
	local o e
	o=$(ctr SPLICE_OPENED)
	e=$(($(ctr SPLICE_CLOSED) + $(ctr SPLICE_RESET) + $(ctr SPLICE_REFUSED)))
	[ "$o" = "$e" ] ||
		fail "gate: $o spliced connections opened, $e ended (closed + reset + refused)"
}

# free_port: a TCP port nobody listens on (loopback)
free_port() {
	"$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# wait_listen PORT [NS]: wait until something listens on TCP PORT
wait_listen() {
	local port=$1 ns=${2:-}
	if [ -n "$ns" ]; then
		wait_for "listener on $port in $ns" 10 \
			"ip netns exec $ns ss -Hltn 'sport = :$port' | grep -q LISTEN"
	else
		wait_for "listener on $port" 10 "ss -Hltn 'sport = :$port' | grep -q LISTEN"
	fi
}

pass() {
	echo "PASS: $*"
	exit 0
}

# json_last FILE KEY: a field of the last JSON line of a file
json_last() {
	"$PY" -c 'import json,sys; l=[x for x in open(sys.argv[1]) if x.strip()]; print(json.loads(l[-1])[sys.argv[2]])' "$1" "$2"
}

# sw_fds: how many fds slipway holds now
sw_fds() {
	ls "/proc/$SW_PID/fd" | wc -l
}

# expect_fds_back BASELINE: slipway's fd count returns to BASELINE (no leak)
expect_fds_back() {
	wait_for "slipway's fd count back to $1 (now $(sw_fds))" 5 "[ \$(sw_fds) -eq $1 ]"
}

# start_slipway_sock KIND [OPTIONS...]: serve a VM socket edge (KIND:
# stream or dgram) at $SOCK; sets SW_PID, waits until the loop runs
start_slipway_sock() {
	local kind=$1
	shift
	SOCK=$T/sw.sock
	[ -e "$T/resolv.conf" ] || echo "nameserver 127.0.0.1" >"$T/resolv.conf"
	"$SLIPWAY" "--$kind" "$SOCK" --stats-file "$T/stats.json" \
		--resolv-conf "$T/resolv.conf" "$@" \
		>"$T/slipway.log" 2>&1 &
	SW_PID=$!
	PIDS+=("$SW_PID")
	wait_for "the $kind socket" 10 "[ -S $SOCK ]"
	wait_started
}

# wait_flows_gone: every TCP flow ended (closing handshakes take their
# time on a loaded machine), checked through the counters
wait_flows_gone() {
	local i
	for i in $(seq 50); do
		sw_stats
		[ "$(ctr TCP_FLOWS_ACTIVE)" = 0 ] && return 0
		sleep 0.2
	done
	fail "$(ctr TCP_FLOWS_ACTIVE) flows still active after 10 s"
}

# sw_stats: ask slipway for its counters now (SIGUSR1), wait for them; asked
# again each second (a slipway out of fds cannot write them: t_nofile)
sw_stats() {
	local i
	rm -f "$T/stats.json"
	for i in $(seq 10); do
		kill -USR1 "$SW_PID"
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			[ -s "$T/stats.json" ] && return 0
			sleep 0.1
		done
	done
	fail "timed out waiting for counters"
}

# host_server PORT READY ARGS...: a swverify server for one connection on
# the host's 127.0.0.1:PORT, with ARGS (--mode, --bytes), in the background;
# returns once it listens (it creates the file READY); its pid in LASTPID
host_server() {
	local port=$1 ready=$2
	shift 2
	bg "$SWVERIFY" server --listen "127.0.0.1:$port" "$@" --once \
		--ready-file "$ready"
	wait_for "host server on $port" 10 "[ -e $ready ]"
}

# guest_client ADDR:PORT ARGS...: a swverify client in the guest namespace
# connecting to ADDR:PORT, with ARGS, in the background and its output
# dropped; its pid (swverify's own: ip netns exec execs it) in LASTPID
guest_client() {
	local to=$1
	shift
	ip netns exec "$NS" "$SWVERIFY" client --connect "$to" "$@" \
		>/dev/null 2>&1 &
	PIDS+=($!)
	LASTPID=$!
}

# xfer_guest_send ADDR SIZE: the guest sends SIZE bytes to a server on the
# host's 127.0.0.1 (ADDR from the guest, e.g. 10.0.2.2), which verifies them;
# XFER_PORT is the server's port
xfer_guest_send() {
	local p
	p=$(free_port)
	XFER_PORT=$p
	host_server "$p" "$T/xr$p" --mode recv --bytes "$2"
	g "$SWVERIFY" client --connect "$1:$p" --mode send --bytes "$2" \
		--timeout 120 >"$T/xc$p.json" || fail "guest->host send: $(cat "$T/xc$p.json")"
	wait "$LASTPID" || fail "host server did not verify guest->host bytes"
}

# xfer_guest_recv ADDR SIZE: a server on the host's 127.0.0.1 sends SIZE
# bytes over a connection the guest opens to ADDR; the guest verifies them;
# XFER_PORT is the server's port
xfer_guest_recv() {
	local p
	p=$(free_port)
	XFER_PORT=$p
	host_server "$p" "$T/xr$p" --mode send --bytes "$2"
	g "$SWVERIFY" client --connect "$1:$p" --mode recv --bytes "$2" \
		--timeout 120 >"$T/xc$p.json" || fail "host->guest recv: $(cat "$T/xc$p.json")"
	wait "$LASTPID" || fail "host sender failed"
}

# xfer_pub_send HOSTPORT GUESTPORT SIZE: a host client sends SIZE bytes to
# 127.0.0.1:HOSTPORT, published to the guest's GUESTPORT, where a server
# verifies them
xfer_pub_send() {
	local gpid
	ip netns exec "$NS" "$SWVERIFY" server --listen "0.0.0.0:$2" --mode recv \
		--bytes "$3" --once --ready-file "$T/xp$1" &
	gpid=$!
	PIDS+=("$gpid")
	wait_for "guest server" 10 "[ -e $T/xp$1 ]"
	"$SWVERIFY" client --connect "127.0.0.1:$1" --mode send --bytes "$3" \
		--timeout 120 >"$T/xpc$1.json" || fail "published port send: $(cat "$T/xpc$1.json")"
	wait "$gpid" || fail "guest server did not verify published-port bytes"
	rm -f "$T/xp$1"
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh - same-window TCP throughput and CPU cost: slipway against the
# kernel's paths (veth, loopback) and the other user-mode gateways (pasta's
# tap and splice paths, slirp4netns), with integrity gates that fail the run.
#
# Everything runs inside namespaces this script creates: a "host" namespace
# H (lo up; every iperf3 server and every gateway process runs there) and
# one guest namespace per path. Traffic goes only to loopback or to
# addresses inside those namespaces. Trials are interleaved path by path
# (A B C D A B C D ...) for every stream count and direction, so all paths
# see the same machine state. Every process is started by this script and
# stopped by PID, every namespace deleted, on any exit.
#
# Paths (client in the guest namespace, server in H):
#   veth          guest on a veth pair to H (10.200.0.2 -> 10.200.0.1),
#                 MTU 65520: the kernel's limit
#   loopback      client and server both in H on 127.0.0.1 (reference)
#   slipway       slipway --netns GUEST in H; guest -> 10.0.2.2 = H's 127.0.0.1
#   pasta         Debian's pasta (tap path) attached to a guest namespace;
#                 guest -> its gateway 10.88.0.2, which pasta maps to H's
#                 127.0.0.1 (needs a template interface with a default
#                 route in H: veth hv0/hv1, 10.88.0.1/24, default via .2)
#   pasta-splice  pasta with -T PORT: guest -> 127.0.0.1:PORT in the guest,
#                 spliced by pasta to H's 127.0.0.1:PORT (no tap)
#   slirp4netns   slirp4netns --configure --mtu=65520 on a guest namespace;
#                 guest -> 10.0.2.2 = H's 127.0.0.1 (host loopback enabled)
#
# Per trial: iperf3 -c -t SECONDS -P N [-R] -J; the gateway's CPU time
# (utime+stime from /proc/PID/stat) and whole-system busy CPU (/proc/stat)
# around it; the guest interface's drop/error counters before and after.
# After the trials: one payload-verified transfer per path and direction
# with tools/swverify (--verify-bytes, default 1G). Then report.py writes
# manifest.json, raw.json, table.md and a plot, checks the gates, and its
# exit status is ours: 0 all gates held, 1 a gate failed, 2 usage.
#
#   bench/e2e/run.sh [-t SECONDS] [-n TRIALS] [-P "1 4 16"]
#                    [--paths "veth loopback slipway pasta pasta-splice slirp4netns"]
#                    [-o DIR] [--verify-bytes SIZE]
set -u
cd "$(dirname "$0")/../.." || exit 2
ROOT=$PWD
PY=/usr/bin/python3
ALL_PATHS="veth loopback slipway pasta pasta-splice slirp4netns"
SECS=5
TRIALS=3
STREAMS="1 4 16"
PATHS=$ALL_PATHS
OUT=""
VBYTES=1G
SW=${SLIPWAY:-$ROOT/build/src/slipway}
SWV=${SWVERIFY:-$ROOT/build/tools/swverify}
ARGV=("$@")

usage() {
	cat <<EOF
usage: bench/e2e/run.sh [-t SECONDS] [-n TRIALS] [-P "1 4 16"] [--paths "LIST"]
                        [-o DIR] [--verify-bytes SIZE]
  -t SECONDS       iperf3 duration per trial (default $SECS)
  -n TRIALS        interleaved trials per path, stream count and direction
                   (default $TRIALS; fewer than 3 is marked a smoke run)
  -P "N ..."       iperf3 parallel streams to measure (default "$STREAMS")
  --paths "LIST"   paths, in trial order (default "$ALL_PATHS")
  -o DIR           results directory (default bench/results/DATE-TIME)
  --verify-bytes S payload-verified bytes per path and direction (default
                   $VBYTES; swverify size syntax; 0 skips the legs, which
                   fails the run)
Environment: SLIPWAY, SWVERIFY (binaries; default build/src/slipway,
build/tools/swverify).
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	-t) SECS=${2:?}; shift 2 ;;
	-n) TRIALS=${2:?}; shift 2 ;;
	-P) STREAMS=${2:?}; shift 2 ;;
	--paths) PATHS=${2:?}; shift 2 ;;
	-o) OUT=${2:?}; shift 2 ;;
	--verify-bytes) VBYTES=${2:?}; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
[[ $SECS =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: -t wants whole seconds" >&2; exit 2; }
[[ $TRIALS =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: -n wants a count" >&2; exit 2; }
for p in $STREAMS; do
	[[ $p =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: -P wants stream counts" >&2; exit 2; }
done
for p in $PATHS; do
	[[ " $ALL_PATHS " == *" $p "* ]] || { echo "run.sh: unknown path '$p' (known: $ALL_PATHS)" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "run.sh: run as root (network namespaces)" >&2; exit 2; }
for t in iperf3 ip timeout ss "$PY"; do
	command -v "$t" >/dev/null || { echo "run.sh: $t is missing (apt-get install -y iperf3 iproute2 python3)" >&2; exit 2; }
done
[ -x "$SW" ] || { echo "run.sh: build slipway first (ninja -C build): no $SW" >&2; exit 2; }
[ -x "$SWV" ] || { echo "run.sh: build swverify first (ninja -C build): no $SWV" >&2; exit 2; }
[ -n "$OUT" ] || OUT=$ROOT/bench/results/$(date +%Y%m%d-%H%M%S)
if [ -e "$OUT" ] && [ -n "$(ls -A "$OUT" 2>/dev/null)" ]; then
	echo "run.sh: $OUT exists and is not empty" >&2
	exit 2
fi
mkdir -p "$OUT"/iperf "$OUT"/verify "$OUT"/logs "$OUT"/slipway || exit 2
OUT=$(cd "$OUT" && pwd)

# ---- bookkeeping: processes, namespaces, command lines ------------------
TAG=$$
H=swbH$TAG
PIDS=()
NSLIST=()
CLEANED=0
cleanup() {
	[ "$CLEANED" = 1 ] && return
	CLEANED=1
	local p n
	for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for _ in $(seq 20); do
		n=0
		for p in "${PIDS[@]}"; do kill -0 "$p" 2>/dev/null && n=1; done
		[ $n = 0 ] && break
		sleep 0.1
	done
	for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	# anything left in our namespaces (children of what we started)
	for n in "${NSLIST[@]}"; do
		for p in $(ip netns pids "$n" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
	done
	for n in "${NSLIST[@]}"; do ip netns del "$n" 2>/dev/null; done
}
trap cleanup EXIT
trap 'echo "run.sh: interrupted" >&2; exit 130' INT TERM HUP

note() { printf '%s\n' "$*" >&2; }
# run CMD...: run a command, recording its command line
run() {
	printf '%s\n' "$*" >>"$OUT/commands.txt"
	"$@"
}
# spawn LOG CMD...: start CMD in the background (recorded), remember its PID
spawn() {
	local log=$1
	shift
	printf '%s &\n' "$*" >>"$OUT/commands.txt"
	"$@" >"$log" 2>&1 &
	LASTPID=$!
	PIDS+=("$LASTPID")
}
make_ns() {
	run ip netns add "$1" || return 1
	NSLIST+=("$1")
	run ip -n "$1" link set lo up
}
# wait_for SECONDS CONDITION: poll a shell condition every 50 ms
wait_for() {
	local i
	for i in $(seq $(($1 * 20))); do
		eval "$2" && return 0
		sleep 0.05
	done
	return 1
}
has_inet() { ip -n "$1" -4 addr show dev "$2" 2>/dev/null | grep -q inet; }
declare -A NS ADDR PORT VLISTEN VPORT GW IFS_
skip() {
	printf '%s\t%s\n' "$1" "$2" >>"$OUT/skipped.tsv"
	note "SKIP $1: $2"
}
logtail() { grep -v "Failed to send .* to syslog" "$1" 2>/dev/null | tail -3 | tr '\n\t' '  '; }

{
	printf 'bench/e2e/run.sh'
	for a in "${ARGV[@]}"; do
		[[ $a =~ ^[A-Za-z0-9_./:=+-]+$ ]] && printf ' %s' "$a" || printf ' "%s"' "$a"
	done
	echo
} >"$OUT/argv.txt"
echo "start_epoch $EPOCHREALTIME" >"$OUT/run.meta"
: >"$OUT/skipped.tsv"
: >"$OUT/trials.jsonl"
: >"$OUT/verify.jsonl"

# ---- the host namespace and each path ------------------------------------
make_ns "$H" || exit 1
i=0
for p in $PATHS; do
	PORT[$p]=$((5201 + i))
	VPORT[$p]=$((5301 + i))
	i=$((i + 1))
done

setup_veth() {
	local g=swbV$TAG
	make_ns $g || return 1
	run ip -n "$H" link add vh type veth peer name vg netns $g &&
		run ip -n "$H" link set vh mtu 65520 &&
		run ip -n $g link set vg mtu 65520 &&
		run ip -n "$H" addr add 10.200.0.1/24 dev vh &&
		run ip -n $g addr add 10.200.0.2/24 dev vg &&
		run ip -n "$H" link set vh up &&
		run ip -n $g link set vg up || { skip veth "veth setup failed"; return 1; }
	NS[veth]=$g ADDR[veth]=10.200.0.1 VLISTEN[veth]=10.200.0.1
	GW[veth]="" IFS_[veth]="$g:vg $H:vh"
}
setup_loopback() {
	NS[loopback]=$H ADDR[loopback]=127.0.0.1 VLISTEN[loopback]=127.0.0.1
	GW[loopback]="" IFS_[loopback]="$H:lo"
}
setup_slipway() {
	local g=swbW$TAG
	make_ns $g || return 1
	echo "nameserver 127.0.0.1" >"$OUT/slipway/resolv.conf"
	spawn "$OUT/logs/slipway.log" ip netns exec "$H" "$SW" --netns $g \
		--stats-file "$OUT/slipway/stats.json" --resolv-conf "$OUT/slipway/resolv.conf"
	GW[slipway]=$LASTPID
	if ! wait_for 10 "has_inet $g tap0"; then
		skip slipway "tap0 not configured in 10 s: $(logtail "$OUT/logs/slipway.log")"
		return 1
	fi
	NS[slipway]=$g ADDR[slipway]=10.0.2.2 VLISTEN[slipway]=127.0.0.1
	IFS_[slipway]="$g:tap0"
}
pasta_template() {
	ip -n "$H" link show hv0 >/dev/null 2>&1 && return 0
	run ip -n "$H" link add hv0 type veth peer name hv1 &&
		run ip -n "$H" addr add 10.88.0.1/24 dev hv0 &&
		run ip -n "$H" link set hv0 up &&
		run ip -n "$H" link set hv1 up &&
		run ip -n "$H" route add default via 10.88.0.2 dev hv0
}
# setup_pasta PATH: pasta (tap path) or pasta-splice (-T for our ports)
setup_pasta() {
	local path=$1 g tports=none
	if ! command -v pasta >/dev/null; then
		skip "$path" "pasta not installed (apt-get install -y passt)"
		return 1
	fi
	pasta_template || { skip "$path" "template interface setup in H failed"; return 1; }
	if [ "$path" = pasta ]; then g=swbP$TAG; else g=swbQ$TAG; tports=${PORT[$path]},${VPORT[$path]}; fi
	make_ns $g || return 1
	# --runas 0: as root pasta drops to "nobody" and then cannot join a
	# namespace made by ip netns ("Couldn't switch to pasta namespaces")
	spawn "$OUT/logs/$path.log" ip netns exec "$H" pasta -f -q --runas 0 -I tap0 \
		-t none -u none -T "$tports" -U none --config-net \
		-P "$OUT/logs/$path.pid" --netns "/run/netns/$g"
	GW[$path]=$LASTPID
	if ! wait_for 10 "has_inet $g tap0"; then
		skip "$path" "pasta did not configure tap0 in 10 s: $(logtail "$OUT/logs/$path.log")"
		return 1
	fi
	NS[$path]=$g VLISTEN[$path]=127.0.0.1 IFS_[$path]="$g:tap0"
	if [ "$path" = pasta ]; then
		ADDR[$path]=$(ip -n $g -4 route show default | awk '{print $3; exit}')
		[ -n "${ADDR[$path]}" ] || { skip "$path" "no default route in the pasta guest"; return 1; }
	else
		ADDR[$path]=127.0.0.1
		if ! wait_for 10 "ip netns exec $g ss -Hltn 'sport = :${PORT[$path]}' | grep -q LISTEN"; then
			skip "$path" "pasta -T did not bind port ${PORT[$path]} in the guest"
			return 1
		fi
	fi
}
setup_slirp4netns() {
	local g=swbS$TAG
	if ! command -v slirp4netns >/dev/null; then
		skip slirp4netns "slirp4netns not installed (apt-get install -y slirp4netns)"
		return 1
	fi
	make_ns $g || return 1
	spawn "$OUT/logs/slirp4netns.log" ip netns exec "$H" slirp4netns --configure \
		--mtu=65520 --netns-type=path "/run/netns/$g" tap0
	GW[slirp4netns]=$LASTPID
	if ! wait_for 10 "has_inet $g tap0"; then
		skip slirp4netns "tap0 not configured in 10 s: $(logtail "$OUT/logs/slirp4netns.log")"
		return 1
	fi
	NS[slirp4netns]=$g ADDR[slirp4netns]=10.0.2.2 VLISTEN[slirp4netns]=127.0.0.1
	IFS_[slirp4netns]="$g:tap0"
}

ACTIVE=()
for p in $PATHS; do
	case $p in
	veth) setup_veth ;;
	loopback) setup_loopback ;;
	slipway) setup_slipway ;;
	pasta | pasta-splice) setup_pasta "$p" ;;
	slirp4netns) setup_slirp4netns ;;
	esac && ACTIVE+=("$p")
done
# one iperf3 server per path, all in H, on all addresses
for p in "${ACTIVE[@]}"; do
	spawn "$OUT/logs/iperf3-server-$p.log" ip netns exec "$H" iperf3 -s -p "${PORT[$p]}"
done
for p in "${ACTIVE[@]}"; do
	wait_for 10 "ip netns exec $H ss -Hltn 'sport = :${PORT[$p]}' | grep -q LISTEN" ||
		{ note "run.sh: iperf3 server for $p did not start"; exit 1; }
done

# ---- measurement helpers ---------------------------------------------------
# proc_ticks PID: PT = utime+stime of the process (all threads), or -1
proc_ticks() {
	local l rest
	PT=-1
	[ -n "$1" ] || return 0
	read -r l <"/proc/$1/stat" 2>/dev/null || return 0
	rest=${l##*) }
	set -- $rest
	PT=$((${12} + ${13}))
}
# sys_ticks: SB = busy ticks of all CPUs, ST = all ticks (/proc/stat)
sys_ticks() {
	local u n s i w q sq st rest
	read -r _ u n s i w q sq st rest </proc/stat
	SB=$((u + n + s + q + sq + st))
	ST=$((SB + i + w))
}
IFSTAT_FILES="rx_dropped tx_dropped rx_errors tx_errors rx_packets tx_packets"
# ifsnap PATH: IFJ = {"ns:if":[rx_dropped,tx_dropped,rx_errors,tx_errors,rx_packets,tx_packets],...}
ifsnap() {
	local e ns ifn v out=""
	for e in ${IFS_[$1]}; do
		ns=${e%%:*} ifn=${e#*:}
		v=$(cd / && ip netns exec "$ns" sh -c "cd /sys/class/net/$ifn/statistics && cat $IFSTAT_FILES" 2>/dev/null | paste -sd, -)
		[ -n "$v" ] && v="[$v]" || v=null
		out+="${out:+,}\"$e\":$v"
	done
	IFJ="{$out}"
}
# sw_snapshot SEQ: counters of slipway now (SIGUSR1), for per-trial deltas
sw_snapshot() {
	local f=$OUT/slipway/stats.json pid=${GW[slipway]}
	touch "$OUT/slipway/.mark"
	sleep 0.01
	kill -USR1 "$pid" 2>/dev/null || return 0
	wait_for 2 "[ $f -nt $OUT/slipway/.mark ] && tail -c 3 $f | grep -q ']}'" &&
		cp "$f" "$OUT/slipway/snap-$1.json"
}

SEQ=0
# trial PATH STREAMS DIR(up|down) TRIAL [warmup]
trial() {
	local p=$1 n=$2 dir=$3 t=$4 kind=${5:-trial} rc alive=1 gpid=${GW[$1]:-}
	local jf ef ifb ifa t0 t1 sb0 st0 pt0
	SEQ=$((SEQ + 1))
	jf=iperf/$(printf '%04d' $SEQ)-$p-P$n-$dir.json
	ef=${jf%.json}.err
	LASTJF=$jf
	local secs=$SECS
	[ "$kind" = warmup ] && secs=1
	local cmd=(ip netns exec "${NS[$p]}" timeout -k 5 $((secs + 60)) iperf3 -c "${ADDR[$p]}"
		-p "${PORT[$p]}" -t "$secs" -P "$n" -J --connect-timeout 5000)
	[ "$dir" = down ] && cmd+=(-R)
	printf '%s\n' "${cmd[*]}" >>"$OUT/commands.txt"
	ifsnap "$p"
	ifb=$IFJ
	sys_ticks
	sb0=$SB st0=$ST
	proc_ticks "$gpid"
	pt0=$PT
	t0=$EPOCHREALTIME
	# in the background and waited for, so a signal stops the run at once
	"${cmd[@]}" >"$OUT/$jf" 2>"$OUT/$ef" &
	wait $!
	rc=$?
	t1=$EPOCHREALTIME
	proc_ticks "$gpid"
	local pt1=$PT
	sys_ticks
	local sb1=$SB st1=$ST
	ifsnap "$p"
	ifa=$IFJ
	[ -n "$gpid" ] && ! kill -0 "$gpid" 2>/dev/null && alive=0
	local snap=null
	if [ "$p" = slipway ] && [ "$alive" = 1 ]; then
		sw_snapshot $SEQ && snap="\"slipway/snap-$SEQ.json\""
	fi
	[ -s "$OUT/$ef" ] || rm -f "$OUT/$ef"
	printf '{"seq":%d,"kind":"%s","trial":%d,"path":"%s","streams":%d,"dir":"%s","rc":%d,"iperf_json":"%s","t0":%s,"t1":%s,"sys_busy_ticks":%d,"sys_all_ticks":%d,"gw_pid":%s,"gw_ticks":%s,"gw_alive":%s,"if_before":%s,"if_after":%s,"slipway_snapshot":%s,"cmd":"%s"}\n' \
		$SEQ "$kind" "$t" "$p" "$n" "$dir" $rc "$jf" "$t0" "$t1" $((sb1 - sb0)) $((st1 - st0)) \
		"${gpid:-null}" "$([ "$pt0" -ge 0 ] && [ "$pt1" -ge 0 ] && echo $((pt1 - pt0)) || echo null)" \
		"$([ $alive = 1 ] && echo true || echo false)" "$ifb" "$ifa" "$snap" "${cmd[*]}" >>"$OUT/trials.jsonl"
	TRC=$rc
}

# ---- warm-up: every path must move bytes once, or it is skipped -----------
RUNNING=()
for p in "${ACTIVE[@]}"; do
	trial "$p" 1 up 0 warmup
	if [ "$TRC" = 0 ] && trial "$p" 1 down 0 warmup && [ "$TRC" = 0 ]; then
		RUNNING+=("$p")
	else
		skip "$p" "warm-up iperf3 failed (rc $TRC): $(grep -h '"error"' "$OUT/$LASTJF" | head -1)"
	fi
done
printf '%s\n' "${RUNNING[@]}" >"$OUT/paths.txt"
for p in "${RUNNING[@]}"; do
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "${NS[$p]}" "${ADDR[$p]}" "${PORT[$p]}" \
		"${VLISTEN[$p]}" "${VPORT[$p]}" "${GW[$p]:-}" "${IFS_[$p]}"
done >"$OUT/paths.tsv"
"$PY" "$ROOT/bench/e2e/report.py" manifest "$OUT" --host-ns "$H" --secs "$SECS" \
	--trials "$TRIALS" --streams "$STREAMS" --paths "$PATHS" --verify-bytes "$VBYTES" \
	--slipway "$SW" --swverify "$SWV" || exit 1
[ ${#RUNNING[@]} -gt 0 ] || { note "run.sh: no path to measure"; exit 1; }
note "measuring: ${RUNNING[*]}"
[ -s "$OUT/skipped.tsv" ] && note "skipped: $(cut -f1 "$OUT/skipped.tsv" | paste -sd' ' -)"

# ---- interleaved trials -----------------------------------------------------
TOTAL=$((TRIALS * $(wc -w <<<"$STREAMS") * 2 * ${#RUNNING[@]}))
k=0
for t in $(seq "$TRIALS"); do
	for n in $STREAMS; do
		for dir in up down; do
			for p in "${RUNNING[@]}"; do
				k=$((k + 1))
				trial "$p" "$n" "$dir" "$t"
				printf '[%d/%d] trial %d P%d %-4s %-12s rc=%d\n' $k $TOTAL "$t" "$n" "$dir" "$p" "$TRC" >&2
			done
		done
	done
done

# ---- payload-verified legs (swverify), one per path and direction ----------
verify_leg() {
	local p=$1 dir=$2 sm cm gpid=${GW[$1]:-} b=$OUT/verify/$1-$2
	[ "$dir" = up ] && { sm=recv; cm=send; } || { sm=send; cm=recv; }
	rm -f "$b.ready"
	spawn "$b.server.json" ip netns exec "$H" "$SWV" server --listen "${VLISTEN[$p]}:${VPORT[$p]}" \
		--mode $sm --bytes "$VBYTES" --once --ready-file "$b.ready" --timeout 600
	local spid=$LASTPID src crc t0 t1 pt0 pt1
	wait_for 10 "[ -e $b.ready ]" || note "verify $p $dir: server not ready"
	local cmd=(ip netns exec "${NS[$p]}" "$SWV" client --connect "${ADDR[$p]}:${VPORT[$p]}"
		--mode "$cm" --bytes "$VBYTES" --timeout 600)
	printf '%s\n' "${cmd[*]}" >>"$OUT/commands.txt"
	proc_ticks "$gpid"
	pt0=$PT
	t0=$EPOCHREALTIME
	"${cmd[@]}" >"$b.client.json" 2>"$b.client.err" &
	wait $!
	crc=$?
	t1=$EPOCHREALTIME
	proc_ticks "$gpid"
	pt1=$PT
	wait_for 30 "! kill -0 $spid 2>/dev/null" || kill -TERM "$spid" 2>/dev/null
	wait "$spid"
	src=$?
	printf '{"path":"%s","dir":"%s","bytes":"%s","server_rc":%d,"client_rc":%d,"t0":%s,"t1":%s,"gw_ticks":%s,"server_out":"verify/%s-%s.server.json","client_out":"verify/%s-%s.client.json","cmd":"%s"}\n' \
		"$p" "$dir" "$VBYTES" $src $crc "$t0" "$t1" \
		"$([ "$pt0" -ge 0 ] && [ "$pt1" -ge 0 ] && echo $((pt1 - pt0)) || echo null)" \
		"$p" "$dir" "$p" "$dir" "${cmd[*]}" >>"$OUT/verify.jsonl"
	printf 'verify %-12s %-4s server=%d client=%d\n' "$p" "$dir" $src $crc >&2
}
if [ "$VBYTES" != 0 ]; then
	for p in "${RUNNING[@]}"; do
		verify_leg "$p" up
		verify_leg "$p" down
	done
fi

# ---- final interface counters, then stop the gateways ----------------------
for p in "${RUNNING[@]}"; do
	ifsnap "$p"
	printf '{"path":"%s","if":%s}\n' "$p" "$IFJ"
done >"$OUT/ifstats-final.jsonl"
for p in "${RUNNING[@]}"; do
	gpid=${GW[$p]:-}
	[ -n "$gpid" ] || continue
	kill -TERM "$gpid" 2>/dev/null
	wait_for 10 "! kill -0 $gpid 2>/dev/null"
	wait "$gpid" 2>/dev/null
	echo "$p $?" >>"$OUT/gw-exit.txt"
done
echo "end_epoch $EPOCHREALTIME" >>"$OUT/run.meta"
cleanup
"$PY" "$ROOT/bench/e2e/report.py" report "$OUT"

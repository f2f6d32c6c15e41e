#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh - same-window benchmark of slipway against the kernel's paths
# (veth, loopback) and the other user-mode gateways (pasta's tap and splice
# paths, slirp4netns): TCP throughput and CPU cost, request/response
# latency, connection rate through a published port, and the memory that
# 10,000 idle flows cost; with integrity gates that fail the run.
#
# Everything runs inside namespaces this script creates: a "host" namespace
# H (lo up; the servers on the host side and every gateway process run
# there), one guest namespace per path, and a client namespace C for the
# remote paths. Traffic goes only to loopback or to addresses inside those
# namespaces. Every leg is interleaved path by path (A B C D A B C D ...),
# and every kind of leg once per trial, so all paths and legs see the same
# machine state. Every process is started by this script and stopped by
# PID, every namespace deleted, on any exit.
#
# Paths (client in the guest namespace, server in H, unless noted):
#   veth            guest on a veth pair to H (10.200.0.2 -> 10.200.0.1),
#                   MTU 65520: the kernel's limit
#   loopback        client and server both in H on 127.0.0.1 (reference)
#   slipway         slipway --netns GUEST in H; guest -> 10.0.2.2 = H's
#                   127.0.0.1 (tap path; --no-splice when slipway has it)
#   slipway-splice  slipway --netns GUEST -t PORT...: the client in H, the
#                   server in the guest; H's 127.0.0.1:PORT -> guest PORT
#                   (slipway's splice fast path where it exists, else tap)
#   pasta           Debian's pasta (tap path) attached to a guest namespace;
#                   guest -> its gateway 10.88.0.2, which pasta maps to H's
#                   127.0.0.1 (needs a template interface with a default
#                   route in H: veth hv0/hv1, 10.88.0.1/24, default via .2)
#   pasta-splice    pasta with -T PORT: guest -> 127.0.0.1:PORT in the guest,
#                   spliced by pasta to H's 127.0.0.1:PORT (no tap)
#   slirp4netns     slirp4netns --configure --mtu=65520 on a guest namespace;
#                   guest -> 10.0.2.2 = H's 127.0.0.1 (host loopback enabled)
#   slipway-stream  slipway --stream SOCK in H; tests/instruments/swbridge in the guest
#                   namespace moves frames between its tap0 (MTU 65520, no
#                   offloads) and the socket, as QEMU -netdev stream would;
#                   guest -> 10.0.2.2 = H's 127.0.0.1
#   slipway-dgram   the same over slipway --dgram (a frame per datagram)
#   passt-stream    passt -s SOCK (passt's binary, --passt BIN) through the
#                   same bridge; guest 10.88.0.1 -> its gateway 10.88.0.2 =
#                   H's 127.0.0.1 (passt copies H's template interface)
#   slipway-vu      slipway --vhost-user SOCK --shards 1; tests/instruments/swvu in the
#                   guest namespace is the VM: a vhost-user frontend whose
#                   rings carry tap0's frames, offloads negotiated
#   slipway-vu-copy the same with --no-place: TCP payload staged and copied
#                   into the guest's buffers instead of peeked there
#   slipway-vu-base the slipway-vu path with another slipway binary
#                   (--baseline BIN: a build of an earlier commit), to
#                   compare two builds in one window
#   slipway-vu-log  the slipway-vu path with dirty logging on (swvu --log
#                   --after 0: a live migration's RAM phase) all along
#   passt-vu        passt --vhost-user -s SOCK (--passt-vu BIN: Debian 12's
#                   passt has no vhost-user) through the same swvu
#
# The remote paths: a client that is not on H's loopback, so neither
# gateway can splice. The client sits in its own namespace C on a veth pair
# to H (C 10.201.0.2/24 <-> H 10.201.0.1/24, MTU 65520; shared by these
# paths); the servers are in the path's guest namespace, and C connects to
# H's 10.201.0.1:PORT, a port the gateway publishes there (tap paths):
#   veth-remote     the kernel's reference with the same hops: C -> H ->
#                   guest, routed by H (forwarding turned on for H's two
#                   veth ends only); the guest on a second veth pair to H
#                   (10.202.0.2 <-> 10.202.0.1, MTU 65520); C connects to
#                   10.202.0.2
#   slipway-remote  slipway --netns GUEST -t 10.201.0.1/PORT for each leg's
#                   port, in H (no --no-splice: it must not splice anyway)
#   pasta-remote    pasta -t 10.201.0.1/PORT,... -T none on a guest namespace
# As for slipway-splice, the client is on the host side: "guest->host" is
# still the guest's server sending to the client in C (iperf3 -R), and the
# conn leg's client runs in C too.
#
# Legs (--legs), each once per trial and path:
#   tput  iperf3 -c -t SECONDS -P N [-R] -J, both directions; the gateway's
#         CPU time (utime+stime from /proc/PID/stat) and whole-system busy
#         CPU (/proc/stat) around it; after all trials, one payload-verified
#         transfer per path and direction with tests/instruments/swverify
#   lat   tests/instruments/swrr: --rr-count round trips of --rr-size bytes on one
#         TCP_NODELAY connection, every echoed byte verified; p50/p99/mean
#   conn  tests/instruments/swconn client in H (C for the remote paths) -> a port
#         published into the guest (veth, veth-remote: the guest's address;
#         loopback: H's own), --conn-seconds
#         with --conn-parallel in flight, every reply and EOF verified
#   mem   a fresh gateway per trial (--mem-gateways: slipway, pasta; and
#         slirp4netns on request); its VmRSS before and while tests/instruments/swconn
#         holds --mem-flows idle verified connections from the guest to a
#         server in H
# Loss (--loss PCT): an nftables table `netdev swloss` in each guest
# namespace loses PCT% of the IPv4/IPv6 packets on the guest's interface
# (veth: vg, veth-remote: vr, the gateways: tap0), both ways, chosen by
# `numgen random mod 1000`, the same for every path: at the ingress hook
# what the guest receives is dropped; at the egress hook what it sends is
# forwarded (`fwd to`) into a sink, a veth swlz0 whose peer is down. Not a
# drop at egress (nor at inet output/postrouting): the guest's TCP would
# get the error back and resend at once, with no loss seen, where a
# stolen packet is lost on the wire as on a link. Named counters count
# what is seen there and what is lost, read around every leg. Paths with
# no guest interface in the data path (loopback, slipway-splice,
# pasta-splice) are skipped; the mem leg's fresh namespaces get no loss.
# These are not drops of the gated interfaces: the drop/error gate stays.
# Around every leg: the guest interface's drop/error counters. Then
# report.py writes manifest.json, raw.json, table.md and a plot, checks the
# gates, and its exit status is ours: 0 all gates held, 1 a gate failed,
# 2 usage.
#
#   bench/e2e/run.sh [-t SECONDS] [-n TRIALS] [-P "1 4 16"] [--paths "LIST"]
#                    [--legs "tput lat conn mem"] [-o DIR] [--verify-bytes SIZE]
#                    [--rr-count N] [--rr-size BYTES] [--conn-seconds S]
#                    [--conn-parallel K] [--mem-flows N] [--mem-gateways "LIST"]
#                    [--loss PCT] [--watch NAME[=CMD]] [--idle-flows N]
# --watch NAME (issue 26, the cost of watching): the path slipway+NAME is
# the tap path with --ctl SOCK, and a watcher asks that socket once a
# second for the whole of each of its tput, lat and conn trials (started
# just before the trial's client, stopped just after it): `slipway top -b
# -n 1000000 -d 1 SOCK` when the binary has top, else `slipway ctl SOCK
# flows --json` in a loop with sleep 1; or CMD (bash -c, with $SLIPWAY_BIN
# and $CTL set). slipway and slipway+NAME interleaved: their ratio is the
# cost. --idle-flows N: every slipway tap path (slipway, slipway+NAME)
# holds N idle verified guest flows all along, so a watcher's flows
# request has a table to walk.
set -u
cd "$(dirname "$0")/../.." || exit 2
ROOT=$PWD
PY=/usr/bin/python3
ALL_PATHS="veth loopback slipway slipway-splice pasta pasta-splice slirp4netns slipway-stream slipway-dgram passt-stream slipway-vu slipway-vu-copy slipway-vu-base slipway-vu-log passt-vu veth-remote slipway-remote pasta-remote"
# the default: the socket edges have their own comparison (--paths)
DEF_PATHS="veth loopback slipway slipway-splice pasta pasta-splice slirp4netns"
# the UDP legs run only when --legs names them
DEF_LEGS="tput lat conn mem"
ALL_LEGS="$DEF_LEGS udp udprr dns"
ALL_MEM_GATEWAYS="slipway pasta slirp4netns"
MEM_GATEWAYS="slipway pasta"
SECS=5
TRIALS=3
STREAMS="1 4 16"
PATHS=$DEF_PATHS
LEGS=$DEF_LEGS
OUT=""
VBYTES=1G
RR_COUNT=10000
RR_SIZE=64
CONN_SECS=2
CONN_PAR=4
MEM_FLOWS=10000
SW=${SLIPWAY:-$ROOT/build/src/slipway}
SWV=${SWVERIFY:-$ROOT/build/tests/instruments/swverify}
SWRR=${SWRR:-$ROOT/build/tests/instruments/swrr}
SWCONN=${SWCONN:-$ROOT/build/tests/instruments/swconn}
SWBRIDGE=${SWBRIDGE:-$ROOT/build/tests/instruments/swbridge}
SWVU=${SWVU:-$ROOT/build/tests/instruments/swvu}
SWUDP=${SWUDP:-$ROOT/build/tests/instruments/swudp}
PASTA=${PASTA:-pasta}
PASST=${PASST:-passt}
PASST_VU=${PASST_VU:-}
SW_BASE=${SLIPWAY_BASE:-}
LOSS=""
IDLE_FLOWS=0
ARGV=("$@")

usage() {
	cat <<EOF
usage: bench/e2e/run.sh [-t SECONDS] [-n TRIALS] [-P "1 4 16"] [--paths "LIST"]
                        [--legs "LIST"] [-o DIR] [--verify-bytes SIZE]
                        [--rr-count N] [--rr-size BYTES] [--conn-seconds S]
                        [--conn-parallel K] [--mem-flows N] [--mem-gateways "LIST"]
                        [--loss PCT] [--watch NAME[=CMD]] [--idle-flows N]
  -t SECONDS       iperf3 duration per trial (default $SECS)
  -n TRIALS        interleaved trials per path and leg (default $TRIALS;
                   fewer than 3 is marked a smoke run)
  -P "N ..."       iperf3 parallel streams to measure (default "$STREAMS")
  --paths "LIST"   paths, in trial order (default "$DEF_PATHS";
                   also slipway-stream slipway-dgram passt-stream slipway-vu
                   slipway-vu-copy slipway-vu-base passt-vu, and the remote
                   paths veth-remote slipway-remote pasta-remote: the client
                   in a namespace C behind a veth to H, reaching the guest
                   through H's 10.201.0.1, so no gateway can splice)
  --passt BIN      passt binary for passt-stream (default: passt)
  --pasta BIN      pasta binary for the pasta paths (default: pasta, e.g.
                   an upstream build: --pasta /tmp/passt-src/pasta)
  --passt-vu BIN   passt binary with --vhost-user, for passt-vu
  --baseline BIN   another slipway binary for slipway-vu-base (same window)
  --legs "LIST"    what to measure (default "$DEF_LEGS"):
                   tput  iperf3 throughput and CPU, then swverify payload check
                   lat   swrr request/response latency (p50, p99, mean)
                   conn  swconn connections per second through a published port
                   mem   gateway RSS with --mem-flows idle flows
                   and only when named:
                   udp   iperf3 -u -b 0 -l 1400 both ways (delivered Gbit/s,
                         loss, gateway CPU), swudp send --gso 40 to swudp
                         recv, then a swudp payload-verified run per way
                   udprr swudp rr --flows 1000 at 64 and 1200 bytes
                   dns   swudp dns from the guest to the gateway's DNS
                         forwarder, swudp dns-server in H its upstream
  -o DIR           results directory (default bench/results/DATE-TIME)
  --verify-bytes S payload-verified bytes per path and direction (default
                   $VBYTES; swverify size syntax; 0 skips the legs, which
                   fails the run)
  --rr-count N     lat: measured round trips per trial (default $RR_COUNT)
  --rr-size BYTES  lat: message size (default $RR_SIZE)
  --conn-seconds S conn: seconds per trial (default $CONN_SECS)
  --conn-parallel K conn: connections in flight (default $CONN_PAR)
  --mem-flows N    mem: idle flows to hold (default $MEM_FLOWS)
  --mem-gateways "LIST" mem: gateways to measure, each needs its path in
                   --paths (default "$MEM_GATEWAYS"; also: slirp4netns, which
                   takes about 35 s to open 10,000 flows on 2 cores)
  --variant NAME="OPTIONS"  one more path, slipway+NAME: the slipway tap path
                   with OPTIONS added (e.g. --variant shards1="--shards 1");
                   repeatable; add it to --paths to run it
  --variant-binary NAME=PATH  the path slipway+NAME runs the slipway binary
                   PATH instead (with --variant NAME's options, if any): a
                   before/after comparison of two builds in one window,
                   e.g. --variant-binary old=/tmp/slipway-old --paths
                   "veth slipway slipway+old"; repeatable
  --loss PCT       lose PCT% (0.1 to 99.9, one decimal) of the packets each
                   way on every path's guest interface (veth: vg; gateways:
                   tap0), with nftables in the guest namespace (a netdev
                   table: ingress drop, egress fwd to a sink); paths with
                   no guest interface in the data path (loopback,
                   slipway-splice, pasta-splice) are skipped, the mem leg
                   runs without loss; needs nft
  --watch NAME[=CMD] the path slipway+NAME runs with --ctl SOCK and is
                   watched during each of its trials (tput, lat, conn):
                   once a second `slipway top -b -n 1000000 -d 1 SOCK` when
                   that binary has top, else `slipway ctl SOCK flows --json`
                   in a loop; or CMD (bash -c; $SLIPWAY_BIN and $CTL are
                   set); e.g. --watch top --paths "veth slipway slipway+top"
                   (with --variant-binary NAME=PATH: another build watched);
                   repeatable
  --idle-flows N   every slipway tap path (slipway, slipway+NAME) holds N
                   idle verified flows from its guest to a server in H for
                   the whole run (--max-flows raised as needed)
Environment: SLIPWAY, SWVERIFY, SWRR, SWCONN, SWBRIDGE, SWVU, SWUDP, PASTA (binaries; default
build/src/slipway, build/tests/instruments/swverify, build/tests/instruments/swrr, build/tests/instruments/swconn,
build/tests/instruments/swbridge).
EOF
}

declare -A VOPTS VBIN WATCH
while [ $# -gt 0 ]; do
	case $1 in
	-t) SECS=${2:?}; shift 2 ;;
	-n) TRIALS=${2:?}; shift 2 ;;
	-P) STREAMS=${2:?}; shift 2 ;;
	--paths) PATHS=${2:?}; shift 2 ;;
	--legs) LEGS=${2:?}; shift 2 ;;
	-o) OUT=${2:?}; shift 2 ;;
	--verify-bytes) VBYTES=${2:?}; shift 2 ;;
	--rr-count) RR_COUNT=${2:?}; shift 2 ;;
	--rr-size) RR_SIZE=${2:?}; shift 2 ;;
	--conn-seconds) CONN_SECS=${2:?}; shift 2 ;;
	--conn-parallel) CONN_PAR=${2:?}; shift 2 ;;
	--mem-flows) MEM_FLOWS=${2:?}; shift 2 ;;
	--mem-gateways) MEM_GATEWAYS=${2:?}; shift 2 ;;
	--passt) PASST=${2:?}; shift 2 ;;
	--pasta) PASTA=${2:?}; shift 2 ;;
	--passt-vu) PASST_VU=${2:?}; shift 2 ;;
	--baseline) SW_BASE=${2:?}; shift 2 ;;
	--loss) LOSS=${2:?}; shift 2 ;;
	--variant)
		[[ ${2:-} =~ ^([a-z0-9]+)=(.*)$ ]] ||
			{ echo "run.sh: --variant wants NAME=\"OPTIONS\" (NAME: a-z, 0-9)" >&2; exit 2; }
		[[ " $ALL_PATHS " == *" slipway+${BASH_REMATCH[1]} "* ]] ||
			ALL_PATHS+=" slipway+${BASH_REMATCH[1]}"
		VOPTS[slipway+${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
		shift 2 ;;
	--variant-binary)
		[[ ${2:-} =~ ^([a-z0-9]+)=(.+)$ ]] ||
			{ echo "run.sh: --variant-binary wants NAME=PATH (NAME: a-z, 0-9)" >&2; exit 2; }
		[ -x "${BASH_REMATCH[2]}" ] ||
			{ echo "run.sh: --variant-binary: ${BASH_REMATCH[2]} is not an executable file" >&2; exit 2; }
		[[ " $ALL_PATHS " == *" slipway+${BASH_REMATCH[1]} "* ]] ||
			ALL_PATHS+=" slipway+${BASH_REMATCH[1]}"
		VBIN[slipway+${BASH_REMATCH[1]}]=$(realpath "${BASH_REMATCH[2]}")
		shift 2 ;;
	--watch)
		[[ ${2:-} =~ ^([a-z0-9]+)(=(.+))?$ ]] ||
			{ echo "run.sh: --watch wants NAME or NAME=\"CMD\" (NAME: a-z, 0-9)" >&2; exit 2; }
		[[ " $ALL_PATHS " == *" slipway+${BASH_REMATCH[1]} "* ]] ||
			ALL_PATHS+=" slipway+${BASH_REMATCH[1]}"
		WATCH[slipway+${BASH_REMATCH[1]}]=${BASH_REMATCH[3]:-auto}
		shift 2 ;;
	--idle-flows) IDLE_FLOWS=${2:?}; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
num() { [[ $2 =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: $1 wants a positive whole number, got '$2'" >&2; exit 2; }; }
num -t "$SECS"
num -n "$TRIALS"
num --rr-count "$RR_COUNT"
num --rr-size "$RR_SIZE"
num --conn-seconds "$CONN_SECS"
num --conn-parallel "$CONN_PAR"
num --mem-flows "$MEM_FLOWS"
[ "$IDLE_FLOWS" = 0 ] || num --idle-flows "$IDLE_FLOWS"
for p in $STREAMS; do
	[[ $p =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: -P wants stream counts" >&2; exit 2; }
done
for p in $PATHS; do
	[[ " $ALL_PATHS " == *" $p "* ]] || { echo "run.sh: unknown path '$p' (known: $ALL_PATHS)" >&2; exit 2; }
done
for l in $LEGS; do
	[[ " $ALL_LEGS " == *" $l "* ]] || { echo "run.sh: unknown leg '$l' (known: $ALL_LEGS)" >&2; exit 2; }
done
[ -n "$LEGS" ] || { echo "run.sh: --legs is empty" >&2; exit 2; }
# --loss PCT: LOSS_PM, the per-mille threshold of the nft rule
LOSS_PM=0
if [ -n "$LOSS" ]; then
	[[ $LOSS =~ ^([0-9]{1,2})(\.([0-9]))?$ ]] && LOSS_PM=$((10#${BASH_REMATCH[1]} * 10 + 10#${BASH_REMATCH[3]:-0})) &&
		[ $LOSS_PM -gt 0 ] ||
		{ echo "run.sh: --loss wants a percentage from 0.1 to 99.9 (one decimal), got '$LOSS'" >&2; exit 2; }
	command -v nft >/dev/null || { echo "run.sh: --loss needs nft (apt-get install -y nftables)" >&2; exit 2; }
fi
for l in $MEM_GATEWAYS; do
	[[ " $ALL_MEM_GATEWAYS " == *" $l "* ]] || { echo "run.sh: unknown mem gateway '$l' (known: $ALL_MEM_GATEWAYS)" >&2; exit 2; }
done
leg() { [[ " $LEGS " == *" $1 "* ]]; }
[ "$(id -u)" = 0 ] || { echo "run.sh: run as root (network namespaces)" >&2; exit 2; }
for t in iperf3 ip timeout ss "$PY"; do
	command -v "$t" >/dev/null || { echo "run.sh: $t is missing (apt-get install -y iperf3 iproute2 python3)" >&2; exit 2; }
done
UDPB=()
{ leg udp || leg udprr || leg dns; } && UDPB=("$SWUDP")
for b in "$SW" "$SWV" "$SWRR" "$SWCONN" "${UDPB[@]}"; do
	[ -x "$b" ] || { echo "run.sh: build first (ninja -C build): no $b" >&2; exit 2; }
done
[ -n "$OUT" ] || OUT=$ROOT/bench/results/$(date +%Y%m%d-%H%M%S)
if [ -e "$OUT" ] && [ -n "$(ls -A "$OUT" 2>/dev/null)" ]; then
	echo "run.sh: $OUT exists and is not empty" >&2
	exit 2
fi
mkdir -p "$OUT"/iperf "$OUT"/udp "$OUT"/udpverify "$OUT"/udprr "$OUT"/dns "$OUT"/verify "$OUT"/logs "$OUT"/slipway "$OUT"/lat "$OUT"/conn "$OUT"/mem "$OUT"/watch || exit 2
OUT=$(cd "$OUT" && pwd)

# slipway options that depend on the build: the tap legs of published
# ports turn the splice fast path off where it exists
SW_NOSPLICE=()
"$SW" --help 2>&1 | grep -q -- '--no-splice' && SW_NOSPLICE=(--no-splice)
# the mem leg: each process holding the flows needs a descriptor per flow
# (pasta two: a socket and a timerfd, as its descriptor count shows)
MEM_NOFILE=$((MEM_FLOWS + 1024))
declare -A FDS_PER_FLOW=([slipway]=1 [pasta]=2 [slirp4netns]=1) MEM_N
SW_MEMOPTS=()
swmax=$("$SW" --help 2>&1 | sed -n 's/.*--max-flows.*(default: \([0-9]*\)).*/\1/p')
[ -n "$swmax" ] && [ "$swmax" -ge $((MEM_FLOWS + 256)) ] || SW_MEMOPTS=(--max-flows $((MEM_FLOWS + 256)))
# --idle-flows: the tap paths hold them besides the legs' own flows
SW_IDLEOPTS=()
[ "$IDLE_FLOWS" -gt 0 ] && { [ -n "$swmax" ] && [ "$swmax" -ge $((IDLE_FLOWS + 1024)) ] ||
	SW_IDLEOPTS=(--max-flows $((IDLE_FLOWS + 1024))); }

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
# nofile_at_least N: raise this shell's open-file limit to N (never lower)
nofile_at_least() {
	local s h
	s=$(ulimit -Sn) h=$(ulimit -Hn)
	[ "$s" = unlimited ] || [ "$s" -ge "$1" ] && return 0
	if [ "$h" = unlimited ] || [ "$h" -ge "$1" ]; then
		ulimit -Sn "$1"
	else
		ulimit -n "$1" 2>/dev/null || ulimit -Sn "$h"
	fi
}
# spawn_nofile N LOG CMD...: spawn with the open-file limit at least N (the
# subshell execs the command, so LASTPID is the command's PID)
spawn_nofile() {
	local n=$1 log=$2
	shift 2
	printf '(ulimit -n >= %s) %s &\n' "$n" "$*" >>"$OUT/commands.txt"
	(nofile_at_least "$n"; exec "$@") >"$log" 2>&1 &
	LASTPID=$!
	PIDS+=("$LASTPID")
}
# forget PID: a process we waited for is no longer ours to signal
forget() {
	local i
	for i in "${!PIDS[@]}"; do
		[ "${PIDS[$i]}" = "$1" ] && unset 'PIDS[i]'
	done
	PIDS=("${PIDS[@]}")
}
# stop_pid PID SECONDS: SIGTERM, wait up to SECONDS, SIGKILL; RC = its status
stop_pid() {
	kill -TERM "$1" 2>/dev/null
	wait_for "$2" "! kill -0 $1 2>/dev/null" || kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	RC=$?
	forget "$1"
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
listening() { ip netns exec "$1" ss -Hltn "sport = :$2" 2>/dev/null | grep -q LISTEN; }
ubound() { ip netns exec "$1" ss -Hlun "sport = :$2" 2>/dev/null | grep -q .; }
# Per path: NS client namespace (tput, lat, verify), ADDR server address
# from there, SNS server namespace (H, or the guest for slipway-splice),
# GNS the guest namespace (conn servers), REV 1 when the client is on the
# host side (so iperf3 -R means guest->host), CADDR the address a client in
# H uses for the conn leg, CNS the namespace of that conn client (H; C for
# the remote paths), GW the gateway PID, IFS_ the interfaces whose counters
# are gated, SWSTATS slipway's --stats-file.
# VUP_ECHO: 1 when the guest->host payload check must be an echo (see
# setup_pasta).
declare -A UPORT GPORT EPORT HPORT
declare -A NS ADDR PORT VLISTEN VPORT RPORT CPORT GW IFS_ SNS GNS REV CADDR CNS SWSTATS BRIDGE VUP_ECHO
# --watch: CTLP the watched path's control socket, WCMD its watcher (bash)
declare -A CTLP WCMD
# the dns leg: DNSFWD the gateway's DNS forwarder as the guest reaches it
declare -A DNSFWD
skip() {
	printf '%s\t%s\n' "$1" "$2" >>"$OUT/skipped.tsv"
	note "SKIP $1: $2"
}
# remark PATH TEXT: something the tables must say (notes.tsv)
remark() {
	printf '%s\t%s\n' "$1" "$2" >>"$OUT/notes.tsv"
	note "NOTE $1: $2"
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
: >"$OUT/notes.tsv"
: >"$OUT/trials.jsonl"
: >"$OUT/verify.jsonl"
: >"$OUT/lat.jsonl"
: >"$OUT/conn.jsonl"
: >"$OUT/mem.jsonl"
: >"$OUT/watch.jsonl"
: >"$OUT/idle.jsonl"
: >"$OUT/udp.jsonl"
: >"$OUT/udprr.jsonl"
: >"$OUT/dns.jsonl"
: >"$OUT/udpverify.jsonl"
# slipway's upstream resolvers: none that leave the machine
echo "nameserver 127.0.0.1" >"$OUT/slipway/resolv.conf"

# ---- the host namespace and each path ------------------------------------
make_ns "$H" || exit 1
i=0
for p in $PATHS; do
	PORT[$p]=$((5201 + i))
	VPORT[$p]=$((5301 + i))
	RPORT[$p]=$((5401 + i))
	CPORT[$p]=$((5501 + i))
	# the UDP legs: iperf3 -u (its TCP control and UDP data), swudp
	# recv in the guest (published) and on the host side (not: the
	# gateway holds the published port there), swudp echo
	UPORT[$p]=$((6201 + i))
	GPORT[$p]=$((6301 + i))
	EPORT[$p]=$((6401 + i))
	HPORT[$p]=$((6501 + i))
	SNS[$p]=$H REV[$p]=0 CNS[$p]=$H
	i=$((i + 1))
done
MPORT=5601

# veth_pair IF ADDR NS2 IF2 ADDR2: a veth pair, IF in H and IF2 in NS2, MTU
# 65520, the /24 addresses given, both up
veth_pair() {
	run ip -n "$H" link add "$1" type veth peer name "$4" netns "$3" &&
		run ip -n "$H" link set "$1" mtu 65520 &&
		run ip -n "$3" link set "$4" mtu 65520 &&
		run ip -n "$H" addr add "$2/24" dev "$1" &&
		run ip -n "$3" addr add "$5/24" dev "$4" &&
		run ip -n "$H" link set "$1" up &&
		run ip -n "$3" link set "$4" up
}
setup_veth() {
	local g=swbV$TAG
	make_ns $g || return 1
	veth_pair vh 10.200.0.1 $g vg 10.200.0.2 ||
		{ skip veth "veth setup failed"; return 1; }
	NS[veth]=$g GNS[veth]=$g ADDR[veth]=10.200.0.1 VLISTEN[veth]=10.200.0.1
	CADDR[veth]=10.200.0.2 GW[veth]="" IFS_[veth]="$g:vg $H:vh"
	# the dns leg's reference: the upstream itself, over the veth
	DNSFWD[veth]=10.200.0.1
}
setup_loopback() {
	NS[loopback]=$H GNS[loopback]=$H ADDR[loopback]=127.0.0.1 VLISTEN[loopback]=127.0.0.1
	CADDR[loopback]=127.0.0.1 GW[loopback]="" IFS_[loopback]="$H:lo"
}
# the remote paths: C's namespace and its veth pair to H (once, for all)
C=swbC$TAG
RADDR=10.201.0.1
setup_remote_client() {
	ip -n "$C" link show vc >/dev/null 2>&1 && return 0
	make_ns "$C" || return 1
	veth_pair hc $RADDR "$C" vc 10.201.0.2
}
# remote_path PATH GUEST-NS: the client side of a remote path: tput, lat,
# verify and conn clients in C, servers in the guest (REV=1, as for
# slipway-splice: the client is on the host side)
remote_path() {
	NS[$1]=$C CNS[$1]=$C SNS[$1]=$2 GNS[$1]=$2 REV[$1]=1 VLISTEN[$1]=0.0.0.0
}
# setup_veth_remote: C -> H -> guest by H's kernel routing: a second veth
# pair H hr 10.202.0.1 <-> guest vr 10.202.0.2; forwarding turned on for
# H's two ends only (net.ipv4.conf.IF.forwarding), not for the others
setup_veth_remote() {
	local g=swbR$TAG
	setup_remote_client || { skip veth-remote "client namespace setup failed"; return 1; }
	make_ns $g || return 1
	veth_pair hr 10.202.0.1 $g vr 10.202.0.2 &&
		run ip -n $g route add default via 10.202.0.1 dev vr &&
		run ip -n "$C" route add 10.202.0.0/24 via $RADDR dev vc &&
		run ip netns exec "$H" sysctl -q -w net.ipv4.conf.hc.forwarding=1 net.ipv4.conf.hr.forwarding=1 ||
		{ skip veth-remote "veth setup failed"; return 1; }
	remote_path veth-remote $g
	ADDR[veth-remote]=10.202.0.2 CADDR[veth-remote]=10.202.0.2 GW[veth-remote]=""
	DNSFWD[veth-remote]=10.202.0.1
	IFS_[veth-remote]="$C:vc $H:hc $H:hr $g:vr"
}
# setup_slipway PATH: slipway (guest -> host through the tap),
# slipway-splice (host loopback -> ports slipway publishes into the guest)
# or slipway-remote (C -> ports published on H's 10.201.0.1 -> the guest)
setup_slipway() {
	local path=$1 g pub=() stats
	if [ "$path" = slipway ]; then
		g=swbW$TAG stats=$OUT/slipway/stats.json
		leg conn && pub+=(-t "${CPORT[$path]}")
		leg udp && pub+=(-u "${GPORT[$path]}")
		pub+=("${SW_NOSPLICE[@]}" "${SW_IDLEOPTS[@]}")
	elif [ "${path%%+*}" = slipway ]; then
		# a variant: the tap path with extra options
		VN=$((${VN:-0} + 1))
		g=swbV$VN$TAG stats=$OUT/slipway/stats-$path.json
		leg conn && pub+=(-t "${CPORT[$path]}")
		leg udp && pub+=(-u "${GPORT[$path]}")
		pub+=("${SW_NOSPLICE[@]}" "${SW_IDLEOPTS[@]}")
		# --watch: the control socket the watcher asks (a short path:
		# sun_path holds 107 bytes)
		if [ -n "${WATCH[$path]:-}" ]; then
			CTLP[$path]=$OUT/logs/$path.ctl
			[ ${#CTLP[$path]} -lt 100 ] || CTLP[$path]=$(mktemp -u /tmp/swb-ctl-XXXXXX)
			pub+=(--ctl "${CTLP[$path]}")
		fi
		read -r -a vo <<<"${VOPTS[$path]-}"
		pub+=("${vo[@]}")
	else
		local a=""
		if [ "$path" = slipway-remote ]; then
			setup_remote_client || { skip "$path" "client namespace setup failed"; return 1; }
			a=$RADDR/ g=swbY$TAG
		else
			g=swbX$TAG
		fi
		stats=$OUT/slipway/stats-$path.json
		leg tput && pub+=(-t "$a${PORT[$path]}" -t "$a${VPORT[$path]}")
		leg lat && pub+=(-t "$a${RPORT[$path]}")
		leg conn && pub+=(-t "$a${CPORT[$path]}")
		leg udp && pub+=(-t "$a${UPORT[$path]}" -u "$a${UPORT[$path]}" -u "$a${GPORT[$path]}")
		leg udprr && pub+=(-u "$a${EPORT[$path]}")
	fi
	make_ns $g || return 1
	spawn "$OUT/logs/$path.log" ip netns exec "$H" "${VBIN[$path]:-$SW}" \
		--netns $g "${pub[@]}" \
		--stats-file "$stats" --resolv-conf "$OUT/slipway/resolv.conf"
	GW[$path]=$LASTPID SWSTATS[$path]=$stats
	if ! wait_for 10 "has_inet $g tap0"; then
		skip "$path" "tap0 not configured in 10 s: $(logtail "$OUT/logs/$path.log")"
		return 1
	fi
	GNS[$path]=$g IFS_[$path]="$g:tap0" CADDR[$path]=127.0.0.1
	[ "$path" != slipway-splice ] && DNSFWD[$path]=10.0.2.3
	if [ "$path" = slipway-remote ]; then
		remote_path "$path" $g
		ADDR[$path]=$RADDR CADDR[$path]=$RADDR IFS_[$path]="$g:tap0 $C:vc $H:hc"
	elif [ "$path" != slipway-splice ]; then
		NS[$path]=$g ADDR[$path]=10.0.2.2 VLISTEN[$path]=127.0.0.1
	else
		NS[$path]=$H ADDR[$path]=127.0.0.1 VLISTEN[$path]=0.0.0.0
		SNS[$path]=$g REV[$path]=1 IFS_[$path]="$g:tap0 $g:lo"
	fi
}
pasta_template() {
	ip -n "$H" link show hv0 >/dev/null 2>&1 && return 0
	run ip -n "$H" link add hv0 type veth peer name hv1 &&
		run ip -n "$H" addr add 10.88.0.1/24 dev hv0 &&
		run ip -n "$H" link set hv0 up &&
		run ip -n "$H" link set hv1 up &&
		run ip -n "$H" route add default via 10.88.0.2 dev hv0
}
# start_pasta SPAWN NS LOG PID-FILE TCP-IN TCP-OUT [UDP-IN [OPTION...]]:
# pasta (--pasta BIN) on guest NS, in H, started by the function SPAWN
# (spawn, or spawn_nofile N)
start_pasta() {
	local sp
	read -r -a sp <<<"$1"
	shift
	# --runas 0: as root pasta drops to "nobody" and then cannot join a
	# namespace made by ip netns ("Couldn't switch to pasta namespaces")
	"${sp[@]}" "$2" ip netns exec "$H" "$PASTA" -f -q --runas 0 -I tap0 \
		-t "$4" -u "${6:-none}" -T "$5" -U none "${@:7}" --config-net -P "$3" --netns "/run/netns/$1"
}
# setup_pasta PATH: pasta (tap path), pasta-splice (-T for our ports) or
# pasta-remote (-t 10.201.0.1/PORT,... for every leg's port, client in C)
setup_pasta() {
	local path=$1 g tports=none inports=none uports=none popts=()
	if ! command -v "$PASTA" >/dev/null; then
		skip "$path" "pasta not installed ($PASTA; apt-get install -y passt, or --pasta BIN)"
		return 1
	fi
	pasta_template || { skip "$path" "template interface setup in H failed"; return 1; }
	if [ "$path" = pasta ]; then
		g=swbP$TAG
	elif [ "$path" = pasta-remote ]; then
		g=swbZ$TAG
	else
		g=swbQ$TAG
		tports=${PORT[$path]},${VPORT[$path]},${RPORT[$path]}
	fi
	if [ "$path" = pasta-remote ]; then
		setup_remote_client || { skip "$path" "client namespace setup failed"; return 1; }
		local l=()
		leg tput && l+=("${PORT[$path]}" "${VPORT[$path]}")
		leg lat && l+=("${RPORT[$path]}")
		leg conn && l+=("${CPORT[$path]}")
		leg udp && l+=("${UPORT[$path]}")
		inports=$RADDR/$(IFS=,; echo "${l[*]}")
		l=()
		leg udp && l+=("${UPORT[$path]}" "${GPORT[$path]}")
		leg udprr && l+=("${EPORT[$path]}")
		[ ${#l[@]} -gt 0 ] && uports=$RADDR/$(IFS=,; echo "${l[*]}")
	else
		leg conn && inports=${CPORT[$path]}
		[ "$path" = pasta ] && leg udp && uports=${GPORT[$path]}
	fi
	# the dns leg: pasta's forwarder at 10.88.0.3, to swudp dns-server on
	# H's 127.0.0.1:53 (--dns-host, where this pasta has it)
	if leg dns && [ "$path" != pasta-splice ]; then
		if "$PASTA" --help 2>&1 | grep -q -- --dns-host; then
			popts=(--dns-forward 10.88.0.3 --dns-host 127.0.0.1)
		else
			remark "$path" "dns leg: $PASTA has no --dns-host, so its DNS forwarder cannot be pointed at the test's upstream; not measured"
		fi
	fi
	make_ns $g || return 1
	start_pasta spawn $g "$OUT/logs/$path.log" "$OUT/logs/$path.pid" "$inports" "$tports" "$uports" "${popts[@]}"
	[ ${#popts[@]} -gt 0 ] && DNSFWD[$path]=10.88.0.3
	GW[$path]=$LASTPID
	if ! wait_for 10 "has_inet $g tap0"; then
		skip "$path" "pasta did not configure tap0 in 10 s: $(logtail "$OUT/logs/$path.log")"
		return 1
	fi
	NS[$path]=$g GNS[$path]=$g VLISTEN[$path]=127.0.0.1 IFS_[$path]="$g:tap0"
	if [ "$path" = pasta ]; then
		ADDR[$path]=$(ip -n $g -4 route show default | awk '{print $3; exit}')
		[ -n "${ADDR[$path]}" ] || { skip "$path" "no default route in the pasta guest"; return 1; }
		# a connection from H's loopback to a -t port is spliced by
		# pasta; from the template address it takes the tap path
		CADDR[$path]=10.88.0.1
	elif [ "$path" = pasta-remote ]; then
		remote_path "$path" $g
		ADDR[$path]=$RADDR CADDR[$path]=$RADDR IFS_[$path]="$g:tap0 $C:vc $H:hc"
		# pasta does not answer the guest's SYN-ACK of a connection to
		# a -t port until the client sends: a transfer in which only
		# the guest's server sends never starts (Debian 12's pasta)
		if leg tput && [ "$VBYTES" != 0 ]; then
			VUP_ECHO[$path]=1
			remark "$path" "guest→host payload check as an echo (the client in C sends --verify-bytes, the guest's server returns them, both ways verified): this pasta completes an inbound tap connection's handshake with the guest only once the client sends data, so a transfer where only the guest's server sends stalls at 0 bytes"
		fi
	else
		ADDR[$path]=127.0.0.1 CADDR[$path]=127.0.0.1
		if ! wait_for 10 "listening $g ${PORT[$path]}"; then
			skip "$path" "pasta -T did not bind port ${PORT[$path]} in the guest"
			return 1
		fi
	fi
}
# setup_bridge PATH: a socket edge gateway in H (slipway --stream/--dgram,
# passt -s), the guest namespace's tap0 bridged to its socket by swbridge
setup_bridge() {
	local path=$1 g=swbB${#ACTIVE[@]}$TAG sock=$OUT/logs/$1.sock pub=() br
	local addr=10.0.2.15/24 gw=10.0.2.2
	[ -x "$SWBRIDGE" ] || { skip "$path" "no $SWBRIDGE (ninja -C build)"; return 1; }
	leg conn && pub+=(-t "${CPORT[$path]}")
	make_ns $g || return 1
	br=(--stream "$sock")
	case $path in
	slipway-stream | slipway-dgram)
		SWSTATS[$path]=$OUT/slipway/stats-$path.json
		spawn "$OUT/logs/$path.log" ip netns exec "$H" "$SW" "--${path#slipway-}" "$sock" \
			"${pub[@]}" --stats-file "${SWSTATS[$path]}" --resolv-conf "$OUT/slipway/resolv.conf"
		[ $path = slipway-dgram ] && br=(--dgram "$sock" --local "$OUT/logs/$path-guest.sock")
		;;
	slipway-vu | slipway-vu-copy | slipway-vu-base | slipway-vu-log)
		SWSTATS[$path]=$OUT/slipway/stats-$path.json
		local copy=() bin=$SW
		[ $path = slipway-vu-copy ] && copy=(--no-place)
		if [ $path = slipway-vu-base ]; then
			[ -n "$SW_BASE" ] && [ -x "$SW_BASE" ] ||
				{ skip "$path" "no baseline slipway (--baseline BIN)"; return 1; }
			bin=$SW_BASE
		fi
		spawn "$OUT/logs/$path.log" ip netns exec "$H" "$bin" --vhost-user "$sock" --shards 1 "${copy[@]}" \
			"${pub[@]}" --stats-file "${SWSTATS[$path]}" --resolv-conf "$OUT/slipway/resolv.conf"
		;;
	passt-vu)
		[ -n "$PASST_VU" ] && [ -x "$PASST_VU" ] ||
			{ skip "$path" "no passt with vhost-user (--passt-vu BIN)"; return 1; }
		pasta_template || { skip "$path" "template interface setup in H failed"; return 1; }
		[ ${#pub[@]} = 0 ] && pub=(-t none)
		spawn "$OUT/logs/$path.log" ip netns exec "$H" "$PASST_VU" -f -q --runas 0 --vhost-user \
			-s "$sock" "${pub[@]}" -u none
		addr=10.88.0.1/24 gw=10.88.0.2
		;;
	passt-stream)
		command -v "$PASST" >/dev/null || { skip "$path" "no passt binary ($PASST; apt-get install -y passt)"; return 1; }
		pasta_template || { skip "$path" "template interface setup in H failed"; return 1; }
		[ ${#pub[@]} = 0 ] && pub=(-t none)
		spawn "$OUT/logs/$path.log" ip netns exec "$H" "$PASST" -f -q --runas 0 -s "$sock" \
			"${pub[@]}" -u none
		addr=10.88.0.1/24 gw=10.88.0.2
		;;
	esac
	GW[$path]=$LASTPID
	if ! wait_for 10 "[ -S $sock ]"; then
		skip "$path" "no socket at $sock in 10 s: $(logtail "$OUT/logs/$path.log")"
		return 1
	fi
	if [[ $path == *-vu || $path == *-vu-copy || $path == *-vu-base || $path == *-vu-log ]]; then
		[ -x "$SWVU" ] || { skip "$path" "no $SWVU (ninja -C build)"; return 1; }
		local vlog=()
		[ $path = slipway-vu-log ] && vlog=(--log --after 0)
		spawn "$OUT/logs/$path-bridge.log" ip netns exec $g "$SWVU" --tap tap0 --socket "$sock" "${vlog[@]}"
	else
		spawn "$OUT/logs/$path-bridge.log" ip netns exec $g "$SWBRIDGE" --tap tap0 "${br[@]}"
	fi
	BRIDGE[$path]=$LASTPID
	wait_for 10 "ip -n $g link show tap0 2>/dev/null | grep -q UP" &&
		run ip -n $g addr add $addr dev tap0 &&
		run ip -n $g route add default via $gw dev tap0 ||
		{ skip "$path" "swbridge: $(logtail "$OUT/logs/$path-bridge.log")"; return 1; }
	NS[$path]=$g GNS[$path]=$g ADDR[$path]=$gw VLISTEN[$path]=127.0.0.1
	IFS_[$path]="$g:tap0" CADDR[$path]=127.0.0.1
}
setup_slirp4netns() {
	local g=swbS$TAG
	if ! command -v slirp4netns >/dev/null; then
		skip slirp4netns "slirp4netns not installed (apt-get install -y slirp4netns)"
		return 1
	fi
	make_ns $g || return 1
	spawn "$OUT/logs/slirp4netns.log" ip netns exec "$H" slirp4netns --configure \
		--mtu=65520 --netns-type=path --api-socket "$OUT/logs/slirp4netns.sock" "/run/netns/$g" tap0
	GW[slirp4netns]=$LASTPID
	if ! wait_for 10 "has_inet $g tap0"; then
		skip slirp4netns "tap0 not configured in 10 s: $(logtail "$OUT/logs/slirp4netns.log")"
		return 1
	fi
	NS[slirp4netns]=$g GNS[slirp4netns]=$g ADDR[slirp4netns]=10.0.2.2 VLISTEN[slirp4netns]=127.0.0.1
	IFS_[slirp4netns]="$g:tap0" CADDR[slirp4netns]=127.0.0.1
}
# slirp_hostfwd PORT [PROTO]: publish H's 127.0.0.1:PORT to the guest's
# PORT through slirp4netns's API socket (PROTO tcp, the default, or udp)
slirp_hostfwd() {
	printf 'slirp4netns API %s: add_hostfwd %s 127.0.0.1:%s -> guest:%s\n' \
		"$OUT/logs/slirp4netns.sock" "${2:-tcp}" "$1" "$1" >>"$OUT/commands.txt"
	"$PY" - "$OUT/logs/slirp4netns.sock" "$1" "${2:-tcp}" <<'EOF'
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(5)
s.connect(sys.argv[1])
req = {"execute": "add_hostfwd", "arguments": {"proto": sys.argv[3], "host_addr": "127.0.0.1",
       "host_port": int(sys.argv[2]), "guest_port": int(sys.argv[2])}}
s.sendall(json.dumps(req).encode())
r = json.loads(s.recv(4096).decode())
if "return" not in r:
    sys.exit("add_hostfwd: %s" % r)
EOF
}

# loss_setup PATH NS IF: the table netdev swloss in NS, losing LOSS_PM per
# mille of the IP packets IF receives (ingress: dropped) and sends (egress:
# stolen into the sink swlz0, a veth with its peer down, so the sender's
# stack sees a packet sent); named counters count all and the lost
loss_setup() {
	local rs
	rs=$(cat <<EOF
table netdev swloss {
	counter rx_seen { }
	counter rx_drop { }
	counter tx_seen { }
	counter tx_drop { }
	chain rx {
		type filter hook ingress device "$3" priority 0; policy accept;
		meta protocol { ip, ip6 } counter name "rx_seen"
		meta protocol { ip, ip6 } numgen random mod 1000 < $LOSS_PM counter name "rx_drop" drop
	}
	chain tx {
		type filter hook egress device "$3" priority 0; policy accept;
		meta protocol { ip, ip6 } counter name "tx_seen"
		meta protocol { ip, ip6 } numgen random mod 1000 < $LOSS_PM counter name "tx_drop" fwd to "swlz0"
	}
}
EOF
)
	run ip -n "$2" link add swlz0 type veth peer name swlz1 &&
		run ip -n "$2" link set swlz0 up || return 1
	printf 'ip netns exec %s nft -f - <<EOF\n%s\nEOF\n' "$2" "$rs" >>"$OUT/commands.txt"
	ip netns exec "$2" nft -f - <<<"$rs" || return 1
	LOSSIF[$1]=$2:$3
	printf '%s\t%s:%s\n' "$1" "$2" "$3" >>"$OUT/loss.tsv"
}
# lossnap PATH: LJ = the path's swloss counters now, [rx_seen packets,
# bytes, rx_drop packets, bytes, tx_seen ..., tx_drop ...], or null
lossnap() {
	local e=${LOSSIF[$1]:-} v
	LJ=null
	[ -n "$e" ] || return 0
	v=$(ip netns exec "${e%%:*}" nft list counters table netdev swloss 2>/dev/null |
		awk '$1 == "packets" {printf "%s%s,%s", n++ ? "," : "", $2, $4}')
	[ -n "$v" ] && LJ="[$v]"
}
declare -A LOSSIF
ACTIVE=()
for p in $PATHS; do
	case $p in
	veth) setup_veth ;;
	veth-remote) setup_veth_remote ;;
	loopback) setup_loopback ;;
	slipway | slipway-splice | slipway-remote | slipway+*) setup_slipway "$p" ;;
	pasta | pasta-splice | pasta-remote) setup_pasta "$p" ;;
	slirp4netns) setup_slirp4netns ;;
	slipway-stream | slipway-dgram | passt-stream | slipway-vu | slipway-vu-copy | slipway-vu-base | slipway-vu-log | passt-vu) setup_bridge "$p" ;;
	esac && ACTIVE+=("$p")
done
# --loss: on the guest's own interface of every path; a path whose data
# does not cross one cannot have the same loss, so it is skipped
if [ $LOSS_PM -gt 0 ]; then
	: >"$OUT/loss.tsv"
	LACTIVE=()
	for p in "${ACTIVE[@]}"; do
		case $p in
		loopback | slipway-splice | pasta-splice)
			skip "$p" "--loss: no guest interface in its data path (loopback or splice), so no equal loss"
			continue ;;
		veth) lif=vg ;;
		veth-remote) lif=vr ;;
		*) lif=tap0 ;;
		esac
		if loss_setup "$p" "${GNS[$p]}" $lif; then
			LACTIVE+=("$p")
		else
			skip "$p" "--loss: nft table in ${GNS[$p]} failed"
		fi
	done
	ACTIVE=("${LACTIVE[@]}")
	leg mem && remark mem "--loss $LOSS does not apply to the mem leg (a fresh gateway and namespace per trial, no loss)"
fi
# servers: per path, iperf3 and swrr where the server side is (H, or the
# guest for slipway-splice and the remote paths, on all addresses), swconn
# in the guest
for p in "${ACTIVE[@]}"; do
	leg tput && spawn "$OUT/logs/iperf3-server-$p.log" ip netns exec "${SNS[$p]}" iperf3 -s -p "${PORT[$p]}"
	leg lat && spawn "$OUT/logs/swrr-server-$p.log" ip netns exec "${SNS[$p]}" "$SWRR" server "${RPORT[$p]}"
	leg conn && spawn "$OUT/logs/swconn-server-$p.log" ip netns exec "${GNS[$p]}" "$SWCONN" server "${CPORT[$p]}"
	leg udp && spawn "$OUT/logs/iperf3u-server-$p.log" ip netns exec "${SNS[$p]}" iperf3 -s -p "${UPORT[$p]}"
	leg udprr && spawn "$OUT/logs/swudp-echo-$p.log" ip netns exec "${SNS[$p]}" "$SWUDP" echo "${EPORT[$p]}"
done
# the dns leg's upstream: port 53 on all of H's addresses (slipway's
# --resolv-conf names 127.0.0.1; pasta's --dns-host too)
if leg dns; then
	spawn "$OUT/logs/swudp-dns-server.log" ip netns exec "$H" "$SWUDP" dns-server 53
	DNS_SERVER=$LASTPID
fi
if leg mem; then
	spawn_nofile "$MEM_NOFILE" "$OUT/logs/swconn-server-mem.log" ip netns exec "$H" "$SWCONN" server $MPORT
	MEM_SERVER=$LASTPID
fi
for p in "${ACTIVE[@]}"; do
	if leg tput && ! wait_for 10 "listening ${SNS[$p]} ${PORT[$p]}"; then
		note "run.sh: iperf3 server for $p did not start"
		exit 1
	fi
	if leg lat && ! wait_for 10 "listening ${SNS[$p]} ${RPORT[$p]}"; then
		note "run.sh: swrr server for $p did not start"
		exit 1
	fi
	if leg conn && ! wait_for 10 "listening ${GNS[$p]} ${CPORT[$p]}"; then
		note "run.sh: swconn server for $p did not start"
		exit 1
	fi
	if leg udp && ! wait_for 10 "listening ${SNS[$p]} ${UPORT[$p]}"; then
		note "run.sh: iperf3 UDP server for $p did not start"
		exit 1
	fi
	if leg udprr && ! wait_for 10 "ubound ${SNS[$p]} ${EPORT[$p]}"; then
		note "run.sh: swudp echo for $p did not start"
		exit 1
	fi
done
if leg dns && ! wait_for 10 "ubound $H 53"; then
	note "run.sh: swudp dns-server did not start"
	exit 1
fi
if leg mem && ! wait_for 10 "listening $H $MPORT"; then
	note "run.sh: swconn server for the mem leg did not start"
	exit 1
fi

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
# ifsnap_list "NS:IF ...": IFJ = {"ns:if":[rx_dropped,tx_dropped,rx_errors,tx_errors,rx_packets,tx_packets],...}
ifsnap_list() {
	local e ns ifn v out=""
	for e in $1; do
		ns=${e%%:*} ifn=${e#*:}
		v=$(cd / && ip netns exec "$ns" sh -c "cd /sys/class/net/$ifn/statistics && cat $IFSTAT_FILES" 2>/dev/null | paste -sd, -)
		[ -n "$v" ] && v="[$v]" || v=null
		out+="${out:+,}\"$e\":$v"
	done
	IFJ="{$out}"
}
# ifsnap PATH: IFJ for the path's interfaces
ifsnap() { ifsnap_list "${IFS_[$1]}"; }
# sw_snapshot PATH SEQ: counters of a slipway path now (SIGUSR1), for
# per-leg deltas; SNAP = the file (relative to OUT) or null
sw_snapshot() {
	local f=${SWSTATS[$1]} pid=${GW[$1]} dst=slipway/snap-$1-$2.json
	SNAP=null
	touch "$OUT/slipway/.mark"
	sleep 0.01
	kill -USR1 "$pid" 2>/dev/null || return 0
	wait_for 2 "[ $f -nt $OUT/slipway/.mark ] && tail -c 3 $f | grep -q ']}'" &&
		cp "$f" "$OUT/$dst" && SNAP="\"$dst\""
}
# statusval PID FIELD: a field of /proc/PID/status in kB (or a count), or null
statusval() {
	local v
	v=$(awk -v k="$2:" '$1 == k {print $2; exit}' "/proc/$1/status" 2>/dev/null)
	echo "${v:-null}"
}
nfds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
is_slipway() { [[ $1 == slipway || $1 == slipway-* || $1 == slipway+* ]]; }

# ---- --watch: a watcher around each trial of a watched path ----------------
# ctl_requests PATH: CR = the path's slipway's CTL_REQUESTS counter now,
# asked through its control socket (a request itself), or -1
ctl_requests() {
	CR=$("${VBIN[$1]:-$SW}" ctl "${CTLP[$1]}" stats --json 2>/dev/null |
		"$PY" -c 'import json,sys; print(json.load(sys.stdin)["counters"].get("CTL_REQUESTS", 0))' 2>/dev/null)
	[[ $CR =~ ^[0-9]+$ ]] || CR=-1
}
# watch_start PATH KIND: for a measured trial (not a warm-up) of a watched
# path, start its watcher in H in a session of its own (setsid: the loop
# and whatever it runs are one process group, stopped at once); WPID
WPID=""
watch_start() {
	WPID=""
	[ -n "${WCMD[$1]:-}" ] && [ "$2" = trial ] || return 0
	ctl_requests "$1"
	WCR0=$CR
	WLOG=watch/$(printf '%04d' $SEQ)-$1.log
	printf 'SLIPWAY_BIN=%s CTL=%s setsid bash -c %q &\n' "${VBIN[$1]:-$SW}" "${CTLP[$1]}" "${WCMD[$1]}" >>"$OUT/commands.txt"
	SLIPWAY_BIN=${VBIN[$1]:-$SW} CTL=${CTLP[$1]} ip netns exec "$H" setsid bash -c "${WCMD[$1]}" >"$OUT/$WLOG" 2>&1 &
	WPID=$!
	PIDS+=("$WPID")
}
# watch_stop: stop the watcher, its whole process group
watch_stop() {
	[ -n "$WPID" ] || return 0
	kill -TERM -- "-$WPID" 2>/dev/null
	wait_for 5 "! kill -0 $WPID 2>/dev/null" || kill -KILL -- "-$WPID" 2>/dev/null
	wait "$WPID" 2>/dev/null
	forget "$WPID"
}
# watch_record PATH TRIAL LEG: how many requests the watcher made, by
# slipway's count (less the two counting requests), to watch.jsonl
watch_record() {
	[ -n "$WPID" ] || return 0
	local n=null
	ctl_requests "$1"
	[ "$WCR0" -ge 0 ] && [ "$CR" -ge 0 ] && n=$((CR - WCR0 - 1))
	printf '{"seq":%d,"path":"%s","trial":%d,"leg":"%s","requests":%s,"log":"%s","cmd":"%s"}\n' \
		$SEQ "$1" "$2" "$3" "$n" "$WLOG" "${WCMD[$1]//\"/\\\"}" >>"$OUT/watch.jsonl"
	[ -s "$OUT/$WLOG" ] || rm -f "$OUT/$WLOG"
	WPID=""
}

SEQ=0
# trial PATH STREAMS DIR(up|down) TRIAL [warmup]
trial() {
	local p=$1 n=$2 dir=$3 t=$4 kind=${5:-trial} rc alive=1 gpid=${GW[$1]:-}
	local jf ef ifb ifa lb la t0 t1 sb0 st0 pt0 rev=0
	SEQ=$((SEQ + 1))
	jf=iperf/$(printf '%04d' $SEQ)-$p-P$n-$dir.json
	ef=${jf%.json}.err
	LASTJF=$jf
	local secs=$SECS
	[ "$kind" = warmup ] && secs=1
	local cmd=(ip netns exec "${NS[$p]}" timeout -k 5 $((secs + 60)) iperf3 -c "${ADDR[$p]}"
		-p "${PORT[$p]}" -t "$secs" -P "$n" -J --connect-timeout 5000)
	# -R makes the server send: host->guest when the server is in H
	[ "$dir" = down ] && rev=1
	[ "$rev" != "${REV[$p]}" ] && cmd+=(-R)
	printf '%s\n' "${cmd[*]}" >>"$OUT/commands.txt"
	lossnap "$p"
	lb=$LJ
	ifsnap "$p"
	ifb=$IFJ
	watch_start "$p" "$kind"
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
	watch_stop
	proc_ticks "$gpid"
	local pt1=$PT
	sys_ticks
	local sb1=$SB st1=$ST
	ifsnap "$p"
	ifa=$IFJ
	lossnap "$p"
	la=$LJ
	[ -n "$gpid" ] && ! kill -0 "$gpid" 2>/dev/null && alive=0
	SNAP=null
	is_slipway "$p" && [ "$alive" = 1 ] && sw_snapshot "$p" $SEQ
	[ -s "$OUT/$ef" ] || rm -f "$OUT/$ef"
	printf '{"seq":%d,"kind":"%s","trial":%d,"path":"%s","streams":%d,"dir":"%s","rc":%d,"iperf_json":"%s","t0":%s,"t1":%s,"sys_busy_ticks":%d,"sys_all_ticks":%d,"gw_pid":%s,"gw_ticks":%s,"gw_alive":%s,"if_before":%s,"if_after":%s,"loss_before":%s,"loss_after":%s,"slipway_snapshot":%s,"cmd":"%s"}\n' \
		$SEQ "$kind" "$t" "$p" "$n" "$dir" $rc "$jf" "$t0" "$t1" $((sb1 - sb0)) $((st1 - st0)) \
		"${gpid:-null}" "$([ "$pt0" -ge 0 ] && [ "$pt1" -ge 0 ] && echo $((pt1 - pt0)) || echo null)" \
		"$([ $alive = 1 ] && echo true || echo false)" "$ifb" "$ifa" "$lb" "$la" "$SNAP" "${cmd[*]}" >>"$OUT/trials.jsonl"
	watch_record "$p" "$t" tput
	TRC=$rc
}

# tool_leg LEG PATH TRIAL KIND CMD...: run a lat or conn client (its JSON
# line goes to LEG/SEQ-PATH.json), with the same bookkeeping as trial()
tool_leg() {
	local lg=$1 p=$2 t=$3 kind=$4 rc alive=1 gpid=${GW[$2]:-} of ifb ifa lb la t0 t1 pt0 pt1 sb0 sb1
	shift 4
	SEQ=$((SEQ + 1))
	of=$lg/$(printf '%04d' $SEQ)-$p.json
	printf '%s\n' "$*" >>"$OUT/commands.txt"
	lossnap "$p"
	lb=$LJ
	ifsnap "$p"
	ifb=$IFJ
	watch_start "$p" "$kind"
	sys_ticks
	sb0=$SB
	proc_ticks "$gpid"
	pt0=$PT
	t0=$EPOCHREALTIME
	"$@" >"$OUT/$of" 2>"$OUT/${of%.json}.err" &
	wait $!
	rc=$?
	t1=$EPOCHREALTIME
	watch_stop
	proc_ticks "$gpid"
	pt1=$PT
	sys_ticks
	sb1=$SB
	ifsnap "$p"
	ifa=$IFJ
	lossnap "$p"
	la=$LJ
	[ -n "$gpid" ] && ! kill -0 "$gpid" 2>/dev/null && alive=0
	SNAP=null
	is_slipway "$p" && [ "$alive" = 1 ] && sw_snapshot "$p" $SEQ
	[ -s "$OUT/${of%.json}.err" ] || rm -f "$OUT/${of%.json}.err"
	printf '{"seq":%d,"kind":"%s","trial":%d,"path":"%s",'"${TL_EXTRA:-}"'"rc":%d,"out":"%s","t0":%s,"t1":%s,"sys_busy_ticks":%d,"gw_pid":%s,"gw_ticks":%s,"gw_alive":%s,"if_before":%s,"if_after":%s,"loss_before":%s,"loss_after":%s,"slipway_snapshot":%s,"cmd":"%s"}\n' \
		$SEQ "$kind" "$t" "$p" $rc "$of" "$t0" "$t1" $((sb1 - sb0)) "${gpid:-null}" \
		"$([ "$pt0" -ge 0 ] && [ "$pt1" -ge 0 ] && echo $((pt1 - pt0)) || echo null)" \
		"$([ $alive = 1 ] && echo true || echo false)" "$ifb" "$ifa" "$lb" "$la" "$SNAP" "$*" >>"$OUT/$lg.jsonl"
	watch_record "$p" "$t" "$lg"
	TRC=$rc
	LASTOUT=$of
}
# lat_trial PATH TRIAL [warmup]: swrr from the client side to the server side
lat_trial() {
	local n=$RR_COUNT w=100
	[ "${3:-trial}" = warmup ] && n=200 w=10
	tool_leg lat "$1" "$2" "${3:-trial}" ip netns exec "${NS[$1]}" timeout -k 5 120 \
		"$SWRR" client "${ADDR[$1]}" "${RPORT[$1]}" --count $n --size "$RR_SIZE" --warmup $w
}
# conn_trial PATH TRIAL [warmup]: swconn from H (C for the remote paths)
# to the published port
conn_trial() {
	local s=$CONN_SECS
	[ "${3:-trial}" = warmup ] && s=1
	tool_leg conn "$1" "$2" "${3:-trial}" ip netns exec "${CNS[$1]}" timeout -k 5 $((s + 60)) \
		"$SWCONN" client "${CADDR[$1]}" "${CPORT[$1]}" --seconds $s --parallel "$CONN_PAR"
}

# ---- the UDP legs (udp, udprr, dns) ----------------------------------------
# udp_ends PATH DIR: USND the sender's namespace, UDST the address it sends
# to, URCV the receiver's namespace, for a one-way swudp stream DIR (up:
# guest->host, down: host->guest). Client in the guest (REV 0): up to the
# server side (ADDR), down from CNS to the port published into the guest
# (CADDR, as the conn leg). Remote paths (REV 1): down from C to the
# published port, up from the guest to C's own 10.201.0.2 (the gateway's
# outbound path, as a guest's reply would take)
udp_ends() {
	if [ "${REV[$1]}" = 0 ]; then
		if [ "$2" = up ]; then
			USND=${NS[$1]} UDST=${ADDR[$1]} URCV=${SNS[$1]}
		else
			USND=${CNS[$1]} UDST=${CADDR[$1]} URCV=${GNS[$1]}
		fi
	elif [ "$2" = down ]; then
		USND=${NS[$1]} UDST=${ADDR[$1]} URCV=${SNS[$1]}
	else
		USND=${GNS[$1]} UDST=10.201.0.2 URCV=$C
	fi
}
# udp_trial PATH DIR TRIAL [warmup]: iperf3 -u -b 0 -l 1400 from the client
# side (-R as the tput leg decides), its JSON to udp/
udp_trial() {
	local p=$1 dir=$2 secs=$SECS rev=0 r=()
	[ "${4:-trial}" = warmup ] && secs=1
	[ "$dir" = down ] && rev=1
	[ "$rev" != "${REV[$p]}" ] && r=(-R)
	TL_EXTRA="\"dir\":\"$dir\",\"variant\":\"iperf3\","
	tool_leg udp "$p" "$3" "${4:-trial}" ip netns exec "${NS[$p]}" timeout -k 5 $((secs + 60)) \
		iperf3 -c "${ADDR[$p]}" -p "${UPORT[$p]}" -u -b 0 -l 1400 -t "$secs" -J --connect-timeout 5000 "${r[@]}"
	TL_EXTRA=""
}
# udp_stream PATH DIR TRIAL KIND MODE: a swudp recv where DIR's receiver
# is, then swudp send to it for SECS (MODE gso: --gso 40 --size 1400, to
# udp.jsonl; verify: --flows 4 --size 1400, to udpverify.jsonl); the
# receiver's JSON in RECV_OUT and its exit status in RECV_OUT.rc
udp_stream() {
	local p=$1 dir=$2 t=$3 kind=$4 mode=$5 secs=$SECS rf rpid lg=udp sargs=(--gso 40 --size 1400) port
	[ "$kind" = warmup ] && secs=1
	[ "$mode" = verify ] && lg=udpverify sargs=(--flows 4 --size 1400)
	udp_ends "$p" "$dir"
	port=${GPORT[$p]}
	[ "$dir" = up ] && port=${HPORT[$p]}
	rf=$lg/$(printf '%04d' $((SEQ + 1)))-$p.recv.json
	spawn "$OUT/$rf" ip netns exec "$URCV" "$SWUDP" recv "$port" --idle-ms 1000
	rpid=$LASTPID
	wait_for 10 "ubound $URCV $port" || note "udp $p $dir: swudp recv not ready"
	TL_EXTRA="\"dir\":\"$dir\",\"variant\":\"$mode\",\"recv_out\":\"$rf\","
	tool_leg $lg "$p" "$t" "$kind" ip netns exec "$USND" timeout -k 5 $((secs + 60)) \
		"$SWUDP" send "$UDST" "$port" --seconds "$secs" "${sargs[@]}"
	TL_EXTRA=""
	# the receiver ends 1 s after the last datagram; none at all: stopped
	wait_for 15 "! kill -0 $rpid 2>/dev/null" || kill -TERM "$rpid" 2>/dev/null
	wait "$rpid"
	RRC=$?
	forget "$rpid"
	echo $RRC >"$OUT/$rf.rc"
	[ "$TRC" = 0 ] && [ "$RRC" = 0 ] && grep -q '"datagrams":[1-9]' "$OUT/$rf" || TRC=1
}
# udprr_trial PATH TRIAL [warmup]: swudp rr, 1000 flows, 64 and 1200 bytes,
# from the client side to swudp echo on the server side
udprr_trial() {
	local secs=$SECS sz rc=0
	[ "${3:-trial}" = warmup ] && secs=1
	for sz in 64 1200; do
		TL_EXTRA="\"size\":$sz,"
		tool_leg udprr "$1" "$2" "${3:-trial}" ip netns exec "${NS[$1]}" timeout -k 5 $((secs + 60)) \
			"$SWUDP" rr "${ADDR[$1]}" "${EPORT[$1]}" --flows 1000 --size $sz --seconds "$secs"
		[ "$TRC" = 0 ] || rc=$TRC
		TL_EXTRA=""
	done
	TRC=$rc
}
# dns_trial PATH TRIAL [warmup]: swudp dns from the guest to its DNS
# forwarder (veth: to the upstream itself), 64 queries in flight
dns_trial() {
	local secs=$SECS
	[ "${3:-trial}" = warmup ] && secs=1
	tool_leg dns "$1" "$2" "${3:-trial}" ip netns exec "${GNS[$1]}" timeout -k 5 $((secs + 60)) \
		"$SWUDP" dns "${DNSFWD[$1]}" 53 --seconds "$secs" --inflight 64
}

# mem_trial GATEWAY TRIAL: a fresh gateway on a fresh guest namespace; its
# memory idle, then while --mem-flows verified connections from the guest
# to H are held open, then after they are closed; then it is stopped
mem_trial() {
	local gwn=$1 t=$2 g pid addr log stats=null alive=1 hold hf rf flows=${MEM_N[$1]}
	local rss0 rss1 rss2 hwm1 anon0 anon1 fd0 fd1 fd2 th1 hrc gwrc ifj if0 if1 t0 t1 t2 t3 rel relwait err=""
	local nofile=$((flows * ${FDS_PER_FLOW[$1]} + 1024))
	SEQ=$((SEQ + 1))
	g=swbM$TAG
	log=$OUT/logs/mem-$gwn-$t.log
	hf=mem/$(printf '%04d' $SEQ)-$gwn-hold.json
	rf=$OUT/mem/$SEQ-$gwn.ready
	make_ns $g || return 1
	case $gwn in
	slipway)
		stats=slipway/stats-mem-$t.json
		spawn_nofile $nofile "$log" ip netns exec "$H" "$SW" --netns $g "${SW_MEMOPTS[@]}" \
			--stats-file "$OUT/$stats" --resolv-conf "$OUT/slipway/resolv.conf"
		stats="\"$stats\""
		;;
	pasta)
		pasta_template
		start_pasta "spawn_nofile $nofile" $g "$log" "$OUT/mem/$SEQ-pasta.pid" none none
		;;
	slirp4netns)
		spawn_nofile $nofile "$log" ip netns exec "$H" slirp4netns --configure \
			--mtu=65520 --netns-type=path "/run/netns/$g" tap0
		;;
	esac
	pid=$LASTPID
	if wait_for 10 "has_inet $g tap0"; then
		case $gwn in
		pasta) addr=$(ip -n $g -4 route show default | awk '{print $3; exit}') ;;
		*) addr=10.0.2.2 ;;
		esac
		sleep 0.5
		rss0=$(statusval "$pid" VmRSS) anon0=$(statusval "$pid" RssAnon) fd0=$(nfds "$pid")
		ifsnap_list "$g:tap0"
		if0=$IFJ
		t0=$EPOCHREALTIME
		spawn_nofile "$MEM_NOFILE" "$OUT/$hf" ip netns exec $g "$SWCONN" hold "$addr" $MPORT \
			--count "$flows" --ready-file "$rf" --timeout 120
		hold=$LASTPID
		wait_for 150 "[ -e $rf ] || ! kill -0 $hold 2>/dev/null" || err="hold client not ready in 150 s"
		t1=$EPOCHREALTIME
		# let the gateway settle, then read it with every flow open
		sleep 1
		rss1=$(statusval "$pid" VmRSS) hwm1=$(statusval "$pid" VmHWM)
		anon1=$(statusval "$pid" RssAnon) th1=$(statusval "$pid" Threads) fd1=$(nfds "$pid")
		ifsnap_list "$g:tap0"
		if1=$IFJ
		t2=$EPOCHREALTIME
		stop_pid "$hold" 30
		hrc=$RC
		# the gateway closes its sockets once the guest's FINs arrive;
		# slipway must have let go of them all within 20 s (the peers
		# may keep sockets in their own TIME_WAIT: only recorded, 5 s)
		rel=null
		relwait=5
		[ "$gwn" = slipway ] && relwait=20
		if wait_for $relwait "[ \$(nfds $pid) -le $((fd0 + 8)) ]"; then
			t3=$EPOCHREALTIME
			rel=$(awk -v a="$t2" -v b="$t3" 'BEGIN {printf "%.2f", b - a}')
		elif [ "$gwn" = slipway ]; then
			err+="${err:+; }slipway still holds $(nfds "$pid") descriptors 20 s after release (idle: $fd0)"
		fi
		rss2=$(statusval "$pid" VmRSS) fd2=$(nfds "$pid")
		kill -0 "$pid" 2>/dev/null || alive=0
		ifsnap_list "$g:tap0"
		ifj=$IFJ
	else
		err="tap0 not configured in 10 s: $(logtail "$log")"
		rss0=null rss1=null rss2=null hwm1=null anon0=null anon1=null th1=null
		fd0=null fd1=null fd2=null hrc=null ifj=null if0=null if1=null t0=null t1=null rel=null
		kill -0 "$pid" 2>/dev/null || alive=0
	fi
	stop_pid "$pid" 10
	gwrc=$RC
	run ip netns del $g
	err=${err//\"/\'}
	printf '{"seq":%d,"kind":"trial","trial":%d,"path":"%s","flows":%d,"hold_rc":%s,"hold_out":"%s","gw_pid":%d,"gw_alive":%s,"gw_exit":%d,"rss_kb_idle":%s,"rss_kb_held":%s,"rss_kb_released":%s,"hwm_kb_held":%s,"anon_kb_idle":%s,"anon_kb_held":%s,"threads_held":%s,"fds_idle":%s,"fds_held":%s,"fds_released":%s,"release_s":%s,"t0":%s,"t1":%s,"if_idle":%s,"if_held":%s,"if_final":%s,"slipway_stats":%s,"error":"%s"}\n' \
		$SEQ "$t" "$gwn" "$flows" "$hrc" "$hf" "$pid" "$([ $alive = 1 ] && echo true || echo false)" "$gwrc" \
		"$rss0" "$rss1" "$rss2" "$hwm1" "$anon0" "$anon1" "$th1" "$fd0" "$fd1" "$fd2" "$rel" "$t0" "$t1" \
		"$if0" "$if1" "$ifj" "$stats" "$err" >>"$OUT/mem.jsonl"
	MRC=$hrc
	[ -z "$err" ] && [ "$hrc" = 0 ] || MRC=1
	MEMLINE="rss ${rss0:-?} -> ${rss1:-?} kB"
}

# ---- --watch: each watched path's watcher; --idle-flows -------------------
for p in "${ACTIVE[@]}"; do
	[ -n "${WATCH[$p]:-}" ] || continue
	bin=${VBIN[$p]:-$SW} ctl=${CTLP[$p]}
	if ! wait_for 5 "[ -S $ctl ]" || ! "$bin" ctl "$ctl" version --json >/dev/null 2>"$OUT/logs/$p-ctl.err"; then
		note "run.sh: --watch: $p's control socket $ctl does not answer: $(head -c 200 "$OUT/logs/$p-ctl.err")"
		exit 1
	fi
	if [ "${WATCH[$p]}" != auto ]; then
		WCMD[$p]=${WATCH[$p]}
	elif timeout -k 2 30 "$bin" top -b -n 1 -d 1 "$ctl" >/dev/null 2>&1; then
		WCMD[$p]='exec "$SLIPWAY_BIN" top -b -n 1000000 -d 1 "$CTL" >/dev/null'
	else
		WCMD[$p]='while :; do "$SLIPWAY_BIN" ctl "$CTL" flows --json --limit 1000000 >/dev/null; sleep 1; done'
	fi
	remark "$p" "watched during each of its tput, lat and conn trials (from just before the client starts to just after it ends): $(printf '%s' "${WCMD[$p]}" | tr '\t' ' ') (SLIPWAY_BIN=$bin, CTL=its --ctl socket); the other paths are not watched"
done
declare -A IDLEHOLD IDLESRV IDLEFD0
if [ "$IDLE_FLOWS" -gt 0 ]; then
	k=0
	for p in "${ACTIVE[@]}"; do
		[[ $p == slipway || $p == slipway+* ]] || continue
		port=$((5701 + k))
		k=$((k + 1))
		IDLEFD0[$p]=$(nfds "${GW[$p]}")
		spawn_nofile $((IDLE_FLOWS + 1024)) "$OUT/logs/idle-server-$p.json" ip netns exec "$H" "$SWCONN" server $port
		IDLESRV[$p]=$LASTPID
		wait_for 10 "listening $H $port" || { note "run.sh: --idle-flows: the server for $p did not start"; exit 1; }
		spawn_nofile $((IDLE_FLOWS + 1024)) "$OUT/logs/idle-hold-$p.json" ip netns exec "${GNS[$p]}" "$SWCONN" \
			hold 10.0.2.2 $port --count "$IDLE_FLOWS" --ready-file "$OUT/logs/idle-$p.ready" --timeout 300
		IDLEHOLD[$p]=$LASTPID
	done
	for p in "${!IDLEHOLD[@]}"; do
		wait_for 320 "[ -e $OUT/logs/idle-$p.ready ] || ! kill -0 ${IDLEHOLD[$p]} 2>/dev/null"
		[ -e "$OUT/logs/idle-$p.ready" ] ||
			{ note "run.sh: --idle-flows: $p: $(tail -c 300 "$OUT/logs/idle-hold-$p.json")"; exit 1; }
	done
	remark idle "every slipway tap path (${!IDLEHOLD[*]}) held $IDLE_FLOWS idle verified flows from its guest to a swconn server in H for the whole run (--idle-flows)"
fi

# ---- warm-up: every path must move bytes once, or it is skipped -----------
RUNNING=()
for p in "${ACTIVE[@]}"; do
	if ! leg tput; then
		RUNNING+=("$p")
		continue
	fi
	trial "$p" 1 up 0 warmup
	if [ "$TRC" = 0 ] && trial "$p" 1 down 0 warmup && [ "$TRC" = 0 ]; then
		RUNNING+=("$p")
	else
		skip "$p" "warm-up iperf3 failed (rc $TRC): $(grep -h '"error"' "$OUT/$LASTJF" | head -1)"
	fi
done
# the other legs: a path that cannot do a leg once is skipped for that leg
LAT_PATHS=() CONN_PATHS=() MEM_PATHS=()
if leg lat; then
	for p in "${RUNNING[@]}"; do
		lat_trial "$p" 0 warmup
		if [ "$TRC" = 0 ]; then LAT_PATHS+=("$p"); else skip "$p" "lat leg: warm-up swrr failed (rc $TRC): $(head -c 300 "$OUT/$LASTOUT")"; fi
	done
fi
if leg conn; then
	for p in "${RUNNING[@]}"; do
		if [ "$p" = slirp4netns ] && ! slirp_hostfwd "${CPORT[$p]}" 2>"$OUT/logs/slirp4netns-api.err"; then
			skip "$p" "conn leg: slirp4netns add_hostfwd failed: $(head -c 200 "$OUT/logs/slirp4netns-api.err")"
			continue
		fi
		conn_trial "$p" 0 warmup
		if [ "$TRC" = 0 ]; then CONN_PATHS+=("$p"); else skip "$p" "conn leg: warm-up swconn failed (rc $TRC): $(head -c 300 "$OUT/$LASTOUT")"; fi
	done
fi
if leg mem; then
	hard=$(ulimit -Hn)
	for p in "${RUNNING[@]}"; do
		[[ " $MEM_GATEWAYS " == *" $p "* ]] || continue
		MEM_N[$p]=$MEM_FLOWS
		need=$((MEM_FLOWS * ${FDS_PER_FLOW[$p]} + 1024))
		if [ "$hard" != unlimited ] && [ "$hard" -lt "$need" ] && ! (ulimit -n "$need") 2>/dev/null; then
			# as many flows as fit, if that is still most of them
			n=$(((hard - 1024) / ${FDS_PER_FLOW[$p]} / 100 * 100))
			why="$MEM_FLOWS flows need about $need open files in $p (${FDS_PER_FLOW[$p]} per flow), the hard limit here is $hard and cannot be raised (no CAP_SYS_RESOURCE)"
			if [ $n -lt $((MEM_FLOWS / 2)) ]; then
				skip "$p" "mem leg: $why"
				continue
			fi
			MEM_N[$p]=$n
			remark "$p" "mem leg with $n flows instead of $MEM_FLOWS: $why; compare bytes per flow"
		fi
		MEM_PATHS+=("$p")
	done
fi
# the UDP legs: not the splice paths (no guest interface for a datagram's
# way back to a host-side receiver); slirp4netns publishes swudp recv's
# port through its API
UDP_PATHS=() UDPRR_PATHS=() DNS_PATHS=()
for p in "${RUNNING[@]}"; do
	{ leg udp || leg udprr; } || break
	case $p in
	*-splice | loopback)
		skip "$p" "udp legs: not measured on this path (no tap or veth between a host-side and a guest-side socket)"
		continue ;;
	esac
	if leg udp; then
		if [ "$p" = slirp4netns ] && ! slirp_hostfwd "${GPORT[$p]}" udp 2>"$OUT/logs/slirp4netns-api-udp.err"; then
			skip "$p" "udp leg: slirp4netns add_hostfwd udp failed: $(head -c 200 "$OUT/logs/slirp4netns-api-udp.err")"
		else
			udp_trial "$p" up 0 warmup
			a=$TRC
			udp_trial "$p" down 0 warmup
			if [ "$a" = 0 ] && [ "$TRC" = 0 ]; then
				UDP_PATHS+=("$p")
			else
				skip "$p" "udp leg: warm-up iperf3 -u failed (rc $a/$TRC): $(grep -h '"error"' "$OUT/$LASTOUT" | head -1)"
			fi
		fi
	fi
	if leg udprr; then
		udprr_trial "$p" 0 warmup
		if [ "$TRC" = 0 ]; then UDPRR_PATHS+=("$p"); else skip "$p" "udprr leg: warm-up swudp rr failed (rc $TRC): $(head -c 300 "$OUT/$LASTOUT")"; fi
	fi
done
if leg dns; then
	for p in "${RUNNING[@]}"; do
		[ -n "${DNSFWD[$p]:-}" ] || continue
		dns_trial "$p" 0 warmup
		if [ "$TRC" = 0 ]; then DNS_PATHS+=("$p"); else skip "$p" "dns leg: warm-up swudp dns failed (rc $TRC): $(head -c 300 "$OUT/$LASTOUT")"; fi
	done
fi
printf '%s\n' "${RUNNING[@]}" >"$OUT/paths.txt"
{
	leg tput && printf 'tput\t%s\n' "${RUNNING[*]}"
	leg lat && printf 'lat\t%s\n' "${LAT_PATHS[*]}"
	leg conn && printf 'conn\t%s\n' "${CONN_PATHS[*]}"
	leg mem && printf 'mem\t%s\n' "${MEM_PATHS[*]}"
	leg udp && printf 'udp\t%s\n' "${UDP_PATHS[*]}"
	leg udprr && printf 'udprr\t%s\n' "${UDPRR_PATHS[*]}"
	leg dns && printf 'dns\t%s\n' "${DNS_PATHS[*]}"
} >"$OUT/legs.tsv"
for p in "${RUNNING[@]}"; do
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "${NS[$p]}" "${ADDR[$p]}" "${PORT[$p]}" \
		"${VLISTEN[$p]}" "${VPORT[$p]}" "${GW[$p]:-}" "${IFS_[$p]}" "${GNS[$p]}" "${SNS[$p]}" \
		"${REV[$p]}" "${CADDR[$p]}" "${RPORT[$p]}" "${CPORT[$p]}" "${CNS[$p]}"
done >"$OUT/paths.tsv"
"$PY" "$ROOT/bench/e2e/report.py" manifest "$OUT" --host-ns "$H" --secs "$SECS" \
	--trials "$TRIALS" --streams "$STREAMS" --paths "$PATHS" --verify-bytes "$VBYTES" \
	--slipway "$SW" --swverify "$SWV" --swrr "$SWRR" --swconn "$SWCONN" --legs "$LEGS" \
	--rr-count "$RR_COUNT" --rr-size "$RR_SIZE" --conn-seconds "$CONN_SECS" \
	--conn-parallel "$CONN_PAR" --mem-flows "$MEM_FLOWS" --mem-port "$MPORT" --mem-gateways "$MEM_GATEWAYS" \
	--slipway-options="${SW_NOSPLICE[*]}" --slipway-mem-options="${SW_MEMOPTS[*]}" \
	--loss "$LOSS" --loss-per-mille $LOSS_PM || exit 1
[ ${#RUNNING[@]} -gt 0 ] || { note "run.sh: no path to measure"; exit 1; }
note "measuring: ${RUNNING[*]} (legs: $LEGS)"
[ -s "$OUT/skipped.tsv" ] && note "skipped: $(cut -f1 "$OUT/skipped.tsv" | paste -sd' ' -)"

# ---- interleaved trials: every leg once per trial ----------------------------
TOTAL=$(((TRIALS * ${#MEM_PATHS[@]}) + TRIALS * (${#LAT_PATHS[@]} + ${#CONN_PATHS[@]})))
leg tput && TOTAL=$((TOTAL + TRIALS * $(wc -w <<<"$STREAMS") * 2 * ${#RUNNING[@]}))
TOTAL=$((TOTAL + TRIALS * (4 * ${#UDP_PATHS[@]} + ${#UDPRR_PATHS[@]} + ${#DNS_PATHS[@]})))
k=0
for t in $(seq "$TRIALS"); do
	if leg tput; then
		for n in $STREAMS; do
			for dir in up down; do
				for p in "${RUNNING[@]}"; do
					k=$((k + 1))
					trial "$p" "$n" "$dir" "$t"
					printf '[%d/%d] trial %d P%d %-4s %-14s rc=%d\n' $k $TOTAL "$t" "$n" "$dir" "$p" "$TRC" >&2
				done
			done
		done
	fi
	for p in "${LAT_PATHS[@]}"; do
		k=$((k + 1))
		lat_trial "$p" "$t"
		printf '[%d/%d] trial %d lat  %-14s rc=%d %s\n' $k $TOTAL "$t" "$p" "$TRC" "$(grep -o '"p50_us":[0-9.]*,"p90_us":[0-9.]*,"p99_us":[0-9.]*' "$OUT/$LASTOUT")" >&2
	done
	for p in "${CONN_PATHS[@]}"; do
		k=$((k + 1))
		conn_trial "$p" "$t"
		printf '[%d/%d] trial %d conn %-14s rc=%d %s\n' $k $TOTAL "$t" "$p" "$TRC" "$(grep -o '"per_second":[0-9.]*,"errors":[0-9]*' "$OUT/$LASTOUT")" >&2
	done
	for p in "${MEM_PATHS[@]}"; do
		k=$((k + 1))
		mem_trial "$p" "$t"
		printf '[%d/%d] trial %d mem  %-14s rc=%d %s\n' $k $TOTAL "$t" "$p" "$MRC" "$MEMLINE" >&2
	done
	for dir in up down; do
		for p in "${UDP_PATHS[@]}"; do
			k=$((k + 1))
			udp_trial "$p" $dir "$t"
			printf '[%d/%d] trial %d udp  %-4s %-14s rc=%d\n' $k $TOTAL "$t" $dir "$p" "$TRC" >&2
		done
	done
	for dir in up down; do
		for p in "${UDP_PATHS[@]}"; do
			k=$((k + 1))
			udp_stream "$p" $dir "$t" trial gso
			printf '[%d/%d] trial %d udp-gso %-4s %-14s rc=%d %s\n' $k $TOTAL "$t" $dir "$p" "$TRC" "$(grep -o '"datagrams":[0-9]*' "$OUT/${LASTOUT%.json}.recv.json" 2>/dev/null | tail -1)" >&2
		done
	done
	for p in "${UDPRR_PATHS[@]}"; do
		k=$((k + 1))
		udprr_trial "$p" "$t"
		printf '[%d/%d] trial %d udprr %-14s rc=%d\n' $k $TOTAL "$t" "$p" "$TRC" >&2
	done
	for p in "${DNS_PATHS[@]}"; do
		k=$((k + 1))
		dns_trial "$p" "$t"
		printf '[%d/%d] trial %d dns  %-14s rc=%d %s\n' $k $TOTAL "$t" "$p" "$TRC" "$(grep -o '"per_second":[0-9.]*' "$OUT/$LASTOUT")" >&2
	done
done

# ---- payload-verified legs (swverify), one per path and direction ----------
verify_leg() {
	local p=$1 dir=$2 sm cm gpid=${GW[$1]:-} b=$OUT/verify/$1-$2
	# the guest's side sends up (guest->host), the host's side down
	if [ "$dir" = up ] && [ -n "${VUP_ECHO[$p]:-}" ]; then
		sm=echo cm=echo
	elif { [ "$dir" = up ] && [ "${REV[$p]}" = 0 ]; } || { [ "$dir" = down ] && [ "${REV[$p]}" = 1 ]; }; then
		sm=recv cm=send
	else
		sm=send cm=recv
	fi
	rm -f "$b.ready"
	spawn "$b.server.json" ip netns exec "${SNS[$p]}" "$SWV" server --listen "${VLISTEN[$p]}:${VPORT[$p]}" \
		--mode $sm --bytes "$VBYTES" --once --ready-file "$b.ready" --timeout 600
	local spid=$LASTPID src crc t0 t1 pt0 pt1
	wait_for 10 "[ -e $b.ready ]" || note "verify $p $dir: server not ready"
	local cmd=(ip netns exec "${NS[$p]}" "$SWV" client --connect "${ADDR[$p]}:${VPORT[$p]}"
		--mode "$cm" --bytes "$VBYTES" --timeout 600)
	printf '%s\n' "${cmd[*]}" >>"$OUT/commands.txt"
	# under --loss: the swloss counters and slipway's around the transfer
	local lb la s0=null s1=null
	lossnap "$p"
	lb=$LJ
	if [ $LOSS_PM -gt 0 ] && is_slipway "$p"; then
		sw_snapshot "$p" verify-$dir-0
		s0=$SNAP
	fi
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
	forget "$spid"
	lossnap "$p"
	la=$LJ
	if [ $LOSS_PM -gt 0 ] && is_slipway "$p" && kill -0 "$gpid" 2>/dev/null; then
		sw_snapshot "$p" verify-$dir-1
		s1=$SNAP
	fi
	printf '{"path":"%s","dir":"%s","bytes":"%s","client_mode":"%s","server_rc":%d,"client_rc":%d,"t0":%s,"t1":%s,"gw_ticks":%s,"loss_before":%s,"loss_after":%s,"slipway_before":%s,"slipway_after":%s,"server_out":"verify/%s-%s.server.json","client_out":"verify/%s-%s.client.json","cmd":"%s"}\n' \
		"$p" "$dir" "$VBYTES" $cm $src $crc "$t0" "$t1" \
		"$([ "$pt0" -ge 0 ] && [ "$pt1" -ge 0 ] && echo $((pt1 - pt0)) || echo null)" \
		"$lb" "$la" "$s0" "$s1" "$p" "$dir" "$p" "$dir" "${cmd[*]}" >>"$OUT/verify.jsonl"
	printf 'verify %-14s %-4s server=%d client=%d\n' "$p" "$dir" $src $crc >&2
}
if leg tput && [ "$VBYTES" != 0 ]; then
	for p in "${RUNNING[@]}"; do
		verify_leg "$p" up
		verify_leg "$p" down
	done
fi

# the UDP integrity gate: one verified swudp stream per path and direction
for p in "${UDP_PATHS[@]}"; do
	for dir in up down; do
		udp_stream "$p" $dir 0 verify verify
		printf 'udp verify %-14s %-4s rc=%d %s\n' "$p" $dir "$TRC" "$(tail -1 "$OUT/${LASTOUT%.json}.recv.json" 2>/dev/null)" >&2
	done
done

# ---- final interface counters, then stop the gateways ----------------------
for p in "${RUNNING[@]}"; do
	ifsnap "$p"
	printf '{"path":"%s","if":%s}\n' "$p" "$IFJ"
done >"$OUT/ifstats-final.jsonl"
# --idle-flows: released (the holder exits 0 only if none dropped), and
# slipway back to its descriptors from before them, so none is left at exit
for p in "${!IDLEHOLD[@]}"; do
	err=""
	stop_pid "${IDLEHOLD[$p]}" 60
	[ "$RC" = 0 ] || err="swconn hold exited with $RC: $(tail -c 200 "$OUT/logs/idle-hold-$p.json" | tr '\n' ' ')"
	wait_for 20 "[ \$(nfds ${GW[$p]}) -le $((IDLEFD0[$p] + 8)) ]" ||
		err+="${err:+; }slipway holds $(nfds "${GW[$p]}") descriptors 20 s after the release (${IDLEFD0[$p]} before the idle flows)"
	stop_pid "${IDLESRV[$p]}" 10
	printf '{"path":"%s","flows":%d,"error":"%s"}\n' "$p" "$IDLE_FLOWS" "${err//\"/\'}" >>"$OUT/idle.jsonl"
done
for p in "${RUNNING[@]}"; do
	gpid=${GW[$p]:-}
	[ -n "$gpid" ] || continue
	stop_pid "$gpid" 10
	echo "$p $RC" >>"$OUT/gw-exit.txt"
done
if leg dns; then
	stop_pid "$DNS_SERVER" 10
	echo "$RC" >"$OUT/dns/server-exit.txt"
fi
if leg mem; then
	stop_pid "$MEM_SERVER" 10
	echo "$RC" >"$OUT/mem/server-exit.txt"
fi
echo "end_epoch $EPOCHREALTIME" >>"$OUT/run.meta"
cleanup
"$PY" "$ROOT/bench/e2e/report.py" report "$OUT"

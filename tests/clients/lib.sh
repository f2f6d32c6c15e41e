# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# lib.sh - helpers for the client cases (tests/clients/c_*.sh).
#
# A case runs inside the client root (enter.sh), as root, with bash:
#   . /src/tests/clients/lib.sh
# IMPL is "real" (the root's own pasta/passt) or "slipway" (/usr/bin/slipway
# through its /usr/libexec/slipway links). Exit 0 pass, 77 skip, else fail.
# CLIENTS_OUT (/out) is a writable scratch directory kept after the run.

set -u

case "${IMPL:-}" in
real | slipway) ;;
*)
	echo "lib.sh: IMPL must be real or slipway, not '${IMPL:-}'" >&2
	exit 2
	;;
esac

CASE=${CASE_NAME:-$(basename "$0" .sh)}
# The case's own scratch directory, on the tmpfs /tmp: rootless clients must
# be able to reach it.
W=$(mktemp -d "/tmp/$CASE.XXXXXX")
chmod 755 "$W"

RL_UID=1001
RL_HOME=/home/rl
RL_RUN=/run/user/$RL_UID

_cleanups=()

# log MSG... - a time-stamped line on stderr (it lands in the case's log).
log() {
	echo "[$(date +%T.%N | cut -c1-12)] $*" >&2
}

# fail MSG... - report MSG and end the case as failed (cleanups run).
fail() {
	log "FAIL: $*"
	exit 1
}

# fail_later MSG... - report MSG as a failure, but go on with the case's
# other steps; finish ends it as failed.
_late_fails=0
fail_later() {
	log "FAIL: $*"
	_late_fails=$((_late_fails + 1))
}

# finish - end the case: passed, unless fail_later was called.
finish() {
	if [ "$_late_fails" -gt 0 ]; then
		log "$_late_fails failure(s) above"
		exit 1
	fi
	exit 0
}

# skip MSG... - end the case as skipped (77).
skip() {
	log "SKIP: $*"
	exit 77
}

# at_exit CMD... - run CMD (one string, eval'd) when the case ends, last first.
at_exit() {
	_cleanups+=("$1")
}

_run_cleanups() {
	local rc=$? i
	trap - EXIT
	set +e
	for ((i = ${#_cleanups[@]} - 1; i >= 0; i--)); do
		eval "${_cleanups[i]}" >/dev/null 2>&1
	done
	exit "$rc"
}
trap _run_cleanups EXIT
trap 'exit 143' TERM INT

# bg CMD... - start CMD in the background; it is killed (by PID) at the end.
# The PID is left in BG_PID.
bg() {
	"$@" &
	BG_PID=$!
	at_exit "kill $BG_PID; sleep 0.1; kill -9 $BG_PID"
}

# as_rl CMD... - run CMD as the unprivileged user rl, as a login would.
as_rl() {
	runuser -u rl -- env HOME=$RL_HOME XDG_RUNTIME_DIR=$RL_RUN USER=rl LOGNAME=rl \
		PATH="${RL_PATH:-/usr/local/bin:/usr/bin:/bin}" "$@"
}

# wait_for SECONDS CMD... - retry CMD every 0.1 s until it succeeds; false
# when SECONDS pass first.
wait_for() {
	local end=$(($(date +%s%N) / 1000000 + ${1} * 1000))
	shift
	until "$@"; do
		if (($(date +%s%N) / 1000000 > end)); then
			return 1
		fi
		sleep 0.1
	done
}

# tcp_listening ADDR PORT - something listens on TCP ADDR:PORT (this netns).
tcp_listening() {
	ss -Htln "src $1 and sport = :$2" 2>/dev/null | grep -q .
}

# mkdata FILE BYTES - FILE with BYTES random bytes; prints its sha256.
mkdata() {
	head -c "$2" /dev/urandom >"$1"
	sha256sum <"$1" | cut -d' ' -f1
}

# sha FILE - the sha256 of FILE.
sha() {
	sha256sum <"$1" | cut -d' ' -f1
}

# gw_exe_want - the regular expression the executable of a running gateway
# must match for this IMPL: slipway is /usr/bin/slipway, Debian's pasta
# and passt are /usr/bin/pasta, passt and their .avx2 twins.
gw_exe_want() {
	if [ "$IMPL" = slipway ]; then
		echo '^/usr/bin/slipway$'
	else
		echo '^/usr/bin/(pasta|passt)(\.avx2)?$'
	fi
}

# gw_pids - "PID EXE" for each running process whose executable is a
# gateway of either implementation (slipway, pasta, passt).
gw_pids() {
	local p exe
	for p in /proc/[0-9]*; do
		exe=$(readlink "$p/exe" 2>/dev/null) || continue
		case "$exe" in
		/usr/bin/slipway | /usr/bin/pasta* | /usr/bin/passt*)
			echo "${p#/proc/} $exe"
			;;
		esac
	done
}

# check_gw WHAT - at least one gateway runs now, and every running one is
# of this IMPL; logs their command lines. WHAT names the situation.
check_gw() {
	local want pid exe n=0
	want=$(gw_exe_want)
	while read -r pid exe; do
		[ -n "$pid" ] || continue
		log "$1: gateway pid $pid exe $exe: $(tr '\0' ' ' </proc/"$pid"/cmdline 2>/dev/null)"
		if ! [[ $exe =~ $want ]]; then
			fail "$1: gateway $exe runs, but IMPL=$IMPL wants $want"
		fi
		n=$((n + 1))
	done < <(gw_pids)
	[ "$n" -gt 0 ] || fail "$1: no gateway process is running (IMPL=$IMPL)"
}

# gw_gone WHAT - no gateway of either kind runs within 10 s.
gw_gone() {
	wait_for 10 sh -c '! ls -l /proc/[0-9]*/exe 2>/dev/null | grep -qE "/usr/bin/(slipway|pasta|passt)"' ||
		fail "$1: a gateway still runs: $(gw_pids | tr '\n' ' ')"
}

# size_is FILE BYTES - FILE exists with BYTES bytes.
size_is() {
	[ -f "$1" ] && [ "$(stat -c %s "$1")" = "$2" ]
}

# port_listening PORT - something listens on TCP PORT here, any address.
port_listening() {
	ss -Htln "sport = :$1" | grep -q .
}

# fake_dns ADDR - a DNS server on ADDR:53 (UDP) answering plain.* with
# 10.9.8.7 (tests/integ/dnsfake.py), and /etc/resolv.conf naming it alone.
fake_dns() {
	bg python3 /src/tests/integ/dnsfake.py "$1" 127.0.0.254 "$W/dns.log"
	printf 'nameserver %s\n' "$1" >/etc/resolv.conf
	wait_for 5 sh -c "ss -Huln 'src $1 and sport = :53' | grep -q ." ||
		fail "the fake DNS server did not start on $1"
}

# host_addr4 - a non-loopback IPv4 address of this (the host) netns, or
# nothing. Traffic to it stays on this machine.
host_addr4() {
	ip -4 -o addr show scope global 2>/dev/null | awk '{sub("/.*", "", $4); print $4; exit}'
}

# bb_rootfs DIR - a minimal root with busybox-static (its applets as links)
# and socat (with the libraries it needs), for container images built
# without a registry.
bb_rootfs() {
	local d=$1 a l
	mkdir -p "$d"/{bin,etc,tmp,proc,sys,dev,root,run}
	cp /bin/busybox "$d/bin/busybox"
	for a in $("$d/bin/busybox" --list); do
		[ -e "$d/bin/$a" ] || ln -s busybox "$d/bin/$a"
	done
	ln -s bin "$d/sbin"
	mkdir -p "$d/usr"
	ln -s ../bin "$d/usr/bin"
	echo 'root:x:0:0:root:/root:/bin/sh' >"$d/etc/passwd"
	echo 'root:x:0:' >"$d/etc/group"
	mkdir -p "$d/usr/local/bin"
	cp /usr/bin/socat "$d/usr/local/bin/socat"
	for l in $(ldd /usr/bin/socat | grep -o '/[^ ]*'); do
		cp -L --parents "$l" "$d"
	done
}

# bb_image NAME - import a bb_rootfs as image NAME into rl's podman storage.
bb_image() {
	bb_rootfs "$W/rootfs"
	tar -C "$W/rootfs" -c . | as_rl podman import -q - "$1" >/dev/null ||
		fail "podman import of the busybox image failed"
}

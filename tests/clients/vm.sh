# shellcheck shell=bash disable=SC2034 # variables for the cases
# SPDX-License-Identifier: GPL-2.0-or-later
# vm.sh - what the VM client cases (c_qemu_stream.sh, c_qemu_vu.sh,
# c_libvirt.sh, c_migrate.sh) share (sourced, bash, inside the client root)
#
# It sources tests/integ/lib.sh and qemu.sh (cleanup by PID, the QEMU
# guest's helpers) with MKGUEST set to tests/clients/guest.sh, so that
# qemu_guest boots the client guest (give it rdinit=/cinit and cl.*).
#
#   IMPL            real (the root's passt) or slipway (slipway's passt
#                   link); PASST is the binary either runs
#   vm_require      skip (77) without QEMU, the guest's pieces, python3,
#                   ncat or PASST; fail on an unknown IMPL
#   vm_resolver     a fake DNS server (tests/integ/dnsfake.py) on port 53
#                   of a loopback address of its own, DNS_ADDR (random in
#                   127.0.0.0/8, another if taken), and a resolv.conf
#                   naming only it,
#                   bind-mounted over /etc/resolv.conf (this mount
#                   namespace only): "plain.<anything>" resolves to
#                   $DNS_ANSWER
#   vm_check_impl PID WHAT
#                   fail unless process PID runs the binary IMPL names
#                   (/proc/PID/exe: slipway's for slipway, passt's own,
#                   or its passt.avx2, for real)
#   vm_pidfile FILE print the PID in a --pid file, fail if none
#   vm_socket_owner PATH
#                   the PID of the process listening on the unix socket
#                   PATH (ss -xlp)
#   vm_dhcp_dns     fail unless the guest's lease named a DNS server and
#                   its lookup through it gave $DNS_ANSWER
#   vm_fd_qemu PASST-ARGS...
#                   print the path of a QEMU stand-in that starts PASST
#                   PASST-ARGS... --fd N on one end of a socketpair, as
#                   QEMU 10.1's -netdev passt does (QEMU 10.0 has none),
#                   waits for it to exit 0, then runs QEMU with its own
#                   arguments, @FD@ in them replaced by the other end's
#                   number (-netdev stream addr.type=fd,addr.str=@FD@ or
#                   -chardev socket,fd=@FD@)
#   vm_gone PID SECS
#                   wait for PID (any process) to end; fail if it lives

CL_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${SLIPWAY:=/usr/bin/slipway}"
: "${SWVERIFY:=/bin/true}"
export SLIPWAY SWVERIFY
MKGUEST=$CL_DIR/guest.sh
# shellcheck source=tests/integ/lib.sh
. "$CL_DIR/../integ/lib.sh"
# shellcheck source=tests/integ/qemu.sh
. "$CL_DIR/../integ/qemu.sh"

# the case's files (consoles, logs) kept in $CLIENTS_OUT/vm-CASE-IMPL
vm_keep() {
	local d
	[ -n "${CLIENTS_OUT:-}" ] && [ -d "$CLIENTS_OUT" ] || return 0
	d=$CLIENTS_OUT/vm-$(basename "$0" .sh)-${IMPL:-real}
	rm -rf "$d"
	mkdir -p "$d"
	find "$T" -maxdepth 2 -type f \( -name '*.log' -o -name '*.out' -o -name '*.xml' \
		-o -name '*.err' -o -name '*.status' -o -name '*.conf' \) \
		-size -20M -exec cp {} "$d"/ \; 2>/dev/null
	return 0
}
trap 'vm_keep; cleanup' EXIT

IMPL=${IMPL:-real}
case $IMPL in
real) : "${PASST:=/usr/bin/passt}" ;;
slipway) : "${PASST:=/usr/libexec/slipway/passt}" ;;
*)
	echo "FAIL: IMPL must be real or slipway, not $IMPL" >&2
	exit 1
	;;
esac
DNS_ADDR=
DNS_ANSWER=10.9.8.7
LOOKUP=plain.clients.test
MAC=52:54:00:12:34:56

vm_require() {
	require_root
	require_qemu
	[ -x "$PY" ] || {
		echo "SKIP: no $PY"
		exit 77
	}
	command -v ncat >/dev/null || {
		echo "SKIP: no ncat"
		exit 77
	}
	[ -x "$PASST" ] || {
		echo "SKIP: no $PASST ($IMPL)"
		exit 77
	}
}

vm_resolver() {
	local i pid
	for i in 1 2 3 4 5; do
		DNS_ADDR=127.$((RANDOM % 200 + 30)).$((RANDOM % 250 + 1)).$((RANDOM % 250 + 1))
		"$PY" "$QEMU_LIB_DIR/dnsfake.py" "$DNS_ADDR" 127.0.0.254 "$T/dns.log" \
			2>>"$T/dns.err" &
		pid=$!
		PIDS+=("$pid")
		# ours listens, or it exited (the address taken: another one)
		wait_for "the fake resolver" 10 "! kill -0 $pid 2>/dev/null ||
			ss -Hlunp 'src $DNS_ADDR and sport = :53' | grep -q 'pid=$pid,'"
		kill -0 "$pid" 2>/dev/null && break
		DNS_ADDR=
	done
	[ -n "$DNS_ADDR" ] || fail "the fake resolver did not start: $(tail -3 "$T/dns.err")"
	echo "nameserver $DNS_ADDR" >"$T/resolv.conf"
	mount --bind "$T/resolv.conf" /etc/resolv.conf ||
		fail "cannot bind-mount $T/resolv.conf over /etc/resolv.conf"
}

vm_check_impl() {
	local exe want
	exe=$(readlink "/proc/$1/exe" 2>/dev/null) || fail "$2: no process $1"
	exe=${exe% (deleted)}
	if [ "$IMPL" = slipway ]; then
		want=$(readlink -f "$SLIPWAY")
		[ "$exe" = "$want" ] || fail "$2 (pid $1) runs $exe, not slipway ($want)"
	else
		case $exe in
		*slipway*) fail "$2 (pid $1) runs $exe: slipway, not passt" ;;
		*/passt | */passt.avx2) ;;
		*) fail "$2 (pid $1) runs $exe, not passt" ;;
		esac
	fi
	echo "$2: pid $1 runs $exe"
}

vm_pidfile() {
	local p
	p=$(tr -d ' \n' <"$1" 2>/dev/null)
	[[ $p =~ ^[0-9]+$ ]] && [ "$p" -gt 0 ] || fail "no PID in $1: '$(cat "$1" 2>/dev/null)'"
	echo "$p"
}

vm_socket_owner() {
	ss -Hxlp "src $1" 2>/dev/null | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -1
}

vm_dhcp_dns() {
	local l
	l=$(qemu_marker SW_DHCP) || qemu_fail "the guest printed no SW_DHCP"
	[[ $l == "ok "* ]] || qemu_fail "guest DHCP: $l"
	[[ $l =~ dns=[0-9] ]] || qemu_fail "the guest's lease names no DNS server: $l"
	qemu_expect CL_DNS "ok $DNS_ANSWER"
}

vm_fd_qemu() {
	local q
	q=$(command -v "$QEMU")
	cat >"$T/fdwrap.py" <<'EOS'
import os, socket, subprocess, sys
qemu = sys.argv[1]
sep = sys.argv.index("--")
passt, qargs = sys.argv[2:sep], sys.argv[sep + 1:]
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
r = subprocess.run(passt + ["--fd", str(b.fileno())], pass_fds=(b.fileno(),))
if r.returncode != 0:
    sys.exit("%s exited with %d" % (passt[0], r.returncode))
b.close()
os.set_inheritable(a.fileno(), True)
os.execv(qemu, [qemu] + [x.replace("@FD@", str(a.fileno())) for x in qargs])
EOS
	{
		printf '#!/bin/sh\nexec %q %q %q' "$PY" "$T/fdwrap.py" "$q"
		printf ' %q' "$@"
		printf ' -- "$@"\n'
	} >"$T/qemu-fd"
	chmod 755 "$T/qemu-fd"
	echo "$T/qemu-fd"
}

vm_gone() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	fail "process $1 ($(readlink "/proc/$1/exe")) still runs $2 s later"
}

# vm_vu_dev: what a vhost-user virtio-net-pci needs added under this
# QEMU: ",vectors=0" for QEMU 7 (under TCG it crashes when the guest
# turns MSI-X on, see tests/integ/qemu.sh), nothing for later ones
vm_vu_dev() {
	local v
	v=$("$QEMU" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p' | head -1)
	[ "${v:-0}" -lt 8 ] && echo ",vectors=0"
	return 0
}

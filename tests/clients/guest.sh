#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# guest.sh - the QEMU test guest of the client cases (tests/clients/c_*.sh)
#
# Usage: guest.sh OUT.cpio.gz [KVER]
#        guest.sh --check [KVER]
#
# The same interface as tools/mkguest.sh, whose image it extends (set
# MKGUEST to this script and tests/integ/qemu.sh's qemu_guest uses it): the
# image of mkguest.sh (busybox, the virtio-net modules, its /init and its
# udhcpc script) with a second archive appended (the kernel unpacks both)
# that adds /cinit, a plan for the client cases. Boot it with rdinit=/cinit
# on the kernel command line (without, mkguest.sh's /init runs as ever).
# Unlike /init's sw.put=HOST:PORT, every transfer here goes to the router
# the DHCP lease named (the backend's gateway, mapped to the host's
# loopback): real passt gives the guest the host's own addresses, slipway
# 10.0.2.0/24, and the plan must not care.
#
# Parameters (cl.*), markers as /init's where they mean the same:
#   (always)        SW_BOOT, SW_NET up|fail, SW_DHCP ok ip=A/P router=R
#                   dns=D1,D2 | SW_DHCP fail, SW_DONE (then power off)
#   cl.lookup=NAME  CL_DNS ok ADDR | CL_DNS fail: busybox nslookup NAME
#                   through the lease's resolvers
#   cl.put=PORT     SW_PUT_SUM, SW_PUT done rc=N: cl.size MiB (default 8)
#                   of random bytes to ROUTER:PORT
#   cl.pace=S       the put goes in 64 KiB pieces, S seconds apart (a
#                   sender that sends slowly: the host's socket holds
#                   little of it at any time)
#   cl.get=PORT     SW_GET done rc=N, SW_GET_SUM SHA bytes=N: all that
#                   ROUTER:PORT sends; cl.tick=S: a newline to it every S
#                   seconds meanwhile
#   cl.par=1        the put and the get at the same time
#   cl.serve=PORT   CL_SERVE_SUM SHA, CL_SERVE port=P: from then on every
#                   connection to PORT gets cl.size MiB of random bytes
#                   (the same each time); the plan ends (SW_DONE) once one
#                   was served whole (CL_SERVED) or at the deadline
#   sw.deadline=S   power off after S seconds whatever happens (qemu.sh
#                   sets it)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MKGUEST_BASE=${MKGUEST_BASE:-$HERE/../../tools/mkguest.sh}

if [ "${1:-}" = --check ]; then
	exec "$MKGUEST_BASE" "$@"
fi
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: guest.sh OUT.cpio.gz [KVER] | guest.sh --check [KVER]" >&2
	exit 2
fi
out=$1
kernel=$("$MKGUEST_BASE" "$out" ${2:+"$2"} | tail -1)
d=$(mktemp -d "${TMPDIR:-/tmp}/clguest.XXXXXX")
trap 'rm -rf "$d"' EXIT
mkdir -p "$d/bin"

cat >"$d/cinit" <<'EOF'
#!/bin/sh
# /cinit of the client cases' guest (tests/clients/guest.sh documents it)
export PATH=/bin
mount -t devtmpfs dev /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs tmp /tmp
echo 1 >/proc/sys/kernel/printk

finish() {
	echo "SW_DONE"
	sleep 0.5
	poweroff -f
	sleep 10
}

read -r u _ </proc/uptime
echo "SW_BOOT uptime=$u"
for a in $(cat /proc/cmdline); do
	case $a in
	cl.*=* | sw.deadline=*)
		k=${a%%=*}
		k=${k#*.}
		case $k in
		'' | *[!a-z0-9_]*) echo "SW_WARN bad parameter $a" ;;
		*) eval "cl_$k=\${a#*=}" ;;
		esac
		;;
	esac
done
size=${cl_size:-8}
if [ "${cl_deadline:-0}" -gt 0 ] 2>/dev/null; then
	(
		sleep "$cl_deadline"
		echo "SW_TIMEOUT deadline=$cl_deadline"
		sleep 0.5
		poweroff -f
	) &
fi

for m in $(cat /mods/order); do
	insmod "/mods/$m.ko" || echo "SW_MOD fail $m"
done
i=0
while [ ! -e /sys/class/net/eth0 ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
ip link set lo up
if ! ip link set eth0 up; then
	echo "SW_NET fail"
	finish
fi
echo "SW_NET up"

timeout 60 udhcpc -i eth0 -q -n -t 5 -s /etc/udhcpc.sh
if [ ! -s /tmp/dhcp.env ]; then
	echo "SW_DHCP fail"
	finish
fi
. /tmp/dhcp.env
echo "SW_DHCP ok ip=$d_ip/$d_mask router=$d_router dns=$d_dns"
echo "SW_MTU $(cat /sys/class/net/eth0/mtu)"

if [ -n "${cl_lookup:-}" ]; then
	# busybox nslookup: the answer's "Address: A" after "Name:"
	r=$(timeout 20 nslookup "$cl_lookup" 2>&1)
	a=$(echo "$r" | awk '/^Name:/ { n = 1; next } n && /^Address/ { print $NF; exit }')
	if [ -n "$a" ]; then
		echo "CL_DNS ok $a"
	else
		echo "CL_DNS fail $(echo "$r" | tr '\n' ' ')"
	fi
fi

do_put() {
	if [ -n "${cl_pace:-}" ]; then
		i=0
		while [ $i -lt $((size * 16)) ]; do
			dd if=/tmp/put bs=65536 skip=$i count=1 2>/dev/null
			sleep "$cl_pace"
			i=$((i + 1))
		done | timeout 150 nc "$d_router" "$cl_put"
	else
		timeout 150 nc "$d_router" "$cl_put" </tmp/put
	fi
	echo "SW_PUT done rc=$?"
	rm -f /tmp/put
}

do_get() {
	local s
	mkfifo /tmp/hold
	if [ -n "${cl_tick:-}" ]; then
		while sleep "$cl_tick" && echo; do :; done |
			timeout 150 nc "$d_router" "$cl_get" >/tmp/get
	else
		timeout 150 nc "$d_router" "$cl_get" <>/tmp/hold >/tmp/get
	fi
	echo "SW_GET done rc=$?"
	s=$(sha256sum /tmp/get)
	echo "SW_GET_SUM ${s%% *} bytes=$(wc -c </tmp/get)"
	rm -f /tmp/get
}

if [ -n "${cl_put:-}" ]; then
	head -c $((size * 1048576)) /dev/urandom >/tmp/put
	s=$(sha256sum /tmp/put)
	echo "SW_PUT_SUM ${s%% *}"
fi
if [ "${cl_par:-0}" = 1 ] && [ -n "${cl_put:-}" ] && [ -n "${cl_get:-}" ]; then
	do_put &
	pp=$!
	do_get
	wait $pp
else
	[ -n "${cl_put:-}" ] && do_put
	[ -n "${cl_get:-}" ] && do_get
fi

if [ -n "${cl_serve:-}" ]; then
	head -c $((size * 1048576)) /dev/urandom >/tmp/serve
	s=$(sha256sum /tmp/serve)
	echo "CL_SERVE_SUM ${s%% *}"
	nc -ll -p "$cl_serve" -e /bin/cl-serve &
	echo "CL_SERVE port=$cl_serve"
	while [ ! -e /tmp/served ]; do
		sleep 0.5
	done
	echo "CL_SERVED"
fi
finish
EOF

cat >"$d/bin/cl-serve" <<'EOF'
#!/bin/sh
cat /tmp/serve && touch /tmp/served
EOF
chmod 755 "$d/cinit" "$d/bin/cl-serve"
find "$d" -exec touch -h -d @0 {} +
(cd "$d" && printf '%s\n' cinit bin bin/cl-serve |
	cpio -o -H newc -R 0:0 --reproducible --quiet) | gzip -n -6 >>"$out"
echo "$kernel"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# mkguest.sh - build the initramfs of slipway's QEMU test guest
#
# Usage: mkguest.sh OUT.cpio.gz [KVER]
#        mkguest.sh --check [KVER]
#
# Builds a small initramfs from packages already on the host: the static
# busybox of Debian's busybox-static and the virtio-net driver modules of a
# stock kernel (/lib/modules/KVER). With no KVER, the newest kernel that has
# both /boot/vmlinuz-KVER and /lib/modules/KVER is used.
#
# Output convention: on success the only line written to stdout is the
# kernel image to boot with the initramfs (/boot/vmlinuz-KVER); progress and
# errors go to stderr. --check builds nothing: it prints the kernel path and
# exits 0 if an image could be built, or names what is missing on stderr and
# exits 1 (tests use it to decide whether to skip).
#
# The archive is reproducible (fixed owners, mtimes and order), so running
# the script again with the same inputs gives the same bytes. It takes well
# under a second. Environment: BUSYBOX (default /bin/busybox, must be static).
#
# The guest's /init runs a test plan read from sw.* parameters on the kernel
# command line and reports on the console (ttyS0) in marker lines, each a
# word starting with SW_ at the start of a line followed by its values:
#
#   SW_BOOT uptime=S               /init started
#   SW_MOD fail NAME               a module did not load (then SW_NET fail)
#   SW_NET fail REASON | up        eth0 found and set up
#   SW_MTU_FALLBACK want=N got=M   sw.mtu was refused; M is the largest taken
#   SW_DHCP ok ip=A/P router=R dns=D | SW_DHCP fail       (sw.dhcp=1)
#   SW_DHCP_NAMES host=H fqdn81=HEX  the server gave a host name (option 12,
#                                  set as the guest's: H is hostname's
#                                  output) or option 81 (its value in hex)
#   SW_ADDR ok ip=A/P gw=G | SW_ADDR fail                 (sw.addr=, sw.gw=)
#   SW_FEATURES 0xHEX              negotiated virtio features (bit n = feature n)
#   SW_QUEUES rx=N tx=M            queues of eth0
#   SW_MTU N                       eth0's MTU
#   SW_PING ok | fail              (sw.ping=ADDR: ping -c 3 -W 2)
#   SW_PUT_SUM SHA256              (sw.put=HOST:PORT, sw.size=MIB, default 16)
#   SW_PUT done rc=N               random data sent with busybox nc
#   SW_PUT_SECS S                  how long the send took (guest clock)
#   SW_GET done rc=N               (sw.get=HOST:PORT) all the host sent, read
#   SW_GET_SUM SHA256 bytes=N
#   SW_GET_SECS S
#   SW_LISTEN port=P               (sw.listen=PORT) a server that answers
#                                  every connection with the line
#                                  "guest-hello" and closes runs from now on
#   SW_IDLE connected              (sw.idle=HOST:PORT) a connection opened
#                                  before the transfers and kept open: each
#                                  line L the host sends is answered with
#                                  "idle-ack L" (and SW_IDLE_LINE L shown)
#   SW_IDLE_LINE L                 the idle connection carried line L
#   SW_IDLE closed                 the host ended the idle connection
#   SW_TIMEOUT deadline=S          sw.deadline expired: powering off now
#   SW_DONE                        the plan is over; the guest powers off
#
# /tmp is a tmpfs of half the guest's memory: sw.size, and what a sw.get
# receives, must each fit (about 200 MiB with QEMU's -m 512; sent data is
# deleted before the get); with sw.par=1 both at once.
#
# Other parameters: sw.mtu=N (default 65520), sw.dns=ADDR (static resolver),
# sw.dhcp_fqdn=1 (udhcpc asks for option 81 too, -O 81),
# sw.xfer_timeout=S (limit of each ping/put/get step, default 120),
# sw.par=1 (run the put and the get at the same time, each reporting as
# it ends: a long pair of them spans a live migration), sw.get_tick=S
# (during sw.get the guest sends a newline every S seconds: a receiving
# guest that still sends, so it learns soon of a connection reset),
# sw.deadline=S (power off after S seconds whatever happens; 0: never),
# sw.dmesg=1 (print the kernel log, each line prefixed "K: ", before SW_DONE).
#
# busybox nc (1.35, the small variant: -w is only a connect timeout) and
# how the plan copes: on end of its stdin nc half-closes and waits for the
# peer to close; it exits as soon as the peer's FIN (or RST) arrives, even
# with data of its own still unsent, and then with status 0, so rc=0 proves
# nothing: compare SW_PUT_SUM with what the host received. A host receiver
# must therefore not shut down its side first (ncat with stdin at EOF does,
# even with --recv-only). For sw.get nc's stdin is a FIFO nobody writes, so
# the guest never half-closes and the transfer ends when the host closes.
# Every step runs under busybox timeout (sw.xfer_timeout).

set -euo pipefail

MODULES="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev
	virtio_pci failover net_failover virtio_net"
BUSYBOX=${BUSYBOX:-/bin/busybox}

die() {
	echo "mkguest: $*" >&2
	exit 1
}

usage() {
	echo "usage: mkguest.sh OUT.cpio.gz [KVER] | mkguest.sh --check [KVER]" >&2
	exit 2
}

# newest KVER with both a kernel image and a module tree
pick_kver() {
	local d k best=
	for d in /lib/modules/*/; do
		k=$(basename "$d")
		[ -f "/boot/vmlinuz-$k" ] || continue
		best=$(printf '%s\n%s\n' "$best" "$k" | sort -V | tail -1)
	done
	[ -n "$best" ] || die "no kernel with both /boot/vmlinuz-KVER and /lib/modules/KVER (apt install linux-image-amd64)"
	echo "$best"
}

# find_module NAME: the module's file, "builtin", or nothing
find_module() {
	local m=$1 f
	f=$(find "$MODDIR/kernel" \( -name "$m.ko" -o -name "$m.ko.xz" \
		-o -name "$m.ko.zst" -o -name "$m.ko.gz" \) -print -quit)
	if [ -n "$f" ]; then
		echo "$f"
	elif grep -qE "/$m\.ko$" "$MODDIR/modules.builtin" 2>/dev/null; then
		echo builtin
	fi
}

# check what a build needs; sets KVER, KERNEL, MODDIR
check() {
	local m f
	[ -n "$KVER" ] || KVER=$(pick_kver)
	KERNEL=/boot/vmlinuz-$KVER
	MODDIR=/lib/modules/$KVER
	[ -r "$KERNEL" ] || die "cannot read $KERNEL"
	[ -d "$MODDIR/kernel" ] || die "no modules for $KVER in $MODDIR"
	[ -x "$BUSYBOX" ] || die "no $BUSYBOX (apt install busybox-static)"
	# ldd succeeds only on dynamic executables
	if ldd "$BUSYBOX" >/dev/null 2>&1; then
		die "$BUSYBOX is dynamically linked (apt install busybox-static)"
	fi
	command -v cpio >/dev/null || die "no cpio (apt install cpio)"
	command -v gzip >/dev/null || die "no gzip"
	for m in $MODULES; do
		f=$(find_module "$m")
		[ -n "$f" ] || die "module $m not found for $KVER"
		case $f in
		*.zst) command -v zstd >/dev/null || die "$f needs zstd" ;;
		esac
	done
}

# write_init FILE: the guest's /init (busybox ash)
write_init() {
	cat >"$1" <<'EOF'
#!/bin/sh
# /init of slipway's QEMU test guest (made by tools/mkguest.sh, which
# documents the sw.* parameters and the SW_* marker lines)
export PATH=/bin
mount -t devtmpfs dev /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs tmp /tmp
# only emergencies on the console: kernel lines must not split ours
echo 1 >/proc/sys/kernel/printk

up() {
	read -r u _ </proc/uptime
	echo "$u"
}

since() {
	awk -v a="$1" -v b="$(up)" 'BEGIN { printf "%.2f\n", b - a }'
}

finish() {
	[ "${sw_dmesg:-0}" = 1 ] && dmesg | sed 's/^/K: /'
	echo "SW_DONE"
	# let the UART drain before the machine goes away
	sleep 0.5
	poweroff -f
	sleep 10
}

# split HOST:PORT ([V6]:PORT too) into $host and $port
hostport() {
	host=${1%:*}
	port=${1##*:}
	host=${host#[}
	host=${host%]}
}

echo "SW_BOOT uptime=$(up)"

for a in $(cat /proc/cmdline); do
	case $a in
	sw.*=*)
		k=${a%%=*}
		k=${k#sw.}
		case $k in
		'' | *[!a-z0-9_]*) echo "SW_WARN bad parameter $a" ;;
		*) eval "sw_$k=\${a#*=}" ;;
		esac
		;;
	esac
done
xt=${sw_xfer_timeout:-120}

if [ "${sw_deadline:-0}" -gt 0 ] 2>/dev/null; then
	(
		sleep "$sw_deadline"
		echo "SW_TIMEOUT deadline=$sw_deadline"
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
if [ ! -e /sys/class/net/eth0 ]; then
	echo "SW_NET fail no-eth0"
	finish
fi

ip link set lo up
want=${sw_mtu:-65520}
if ! ip link set eth0 mtu "$want" 2>/dev/null; then
	# largest MTU the driver takes, between the current one and $want
	lo=$(cat /sys/class/net/eth0/mtu)
	hi=$want
	while [ $((hi - lo)) -gt 1 ]; do
		mid=$(((lo + hi) / 2))
		if ip link set eth0 mtu $mid 2>/dev/null; then
			lo=$mid
		else
			hi=$mid
		fi
	done
	ip link set eth0 mtu "$lo"
	echo "SW_MTU_FALLBACK want=$want got=$lo"
fi
if ! ip link set eth0 up; then
	echo "SW_NET fail link-up"
	finish
fi
echo "SW_NET up"

if [ "${sw_dhcp:-0}" = 1 ]; then
	rm -f /tmp/dhcp.env
	o81=
	[ "${sw_dhcp_fqdn:-0}" = 1 ] && o81="-O 81"
	timeout 60 udhcpc -i eth0 -q -n -t 5 $o81 -s /etc/udhcpc.sh
	if [ -s /tmp/dhcp.env ]; then
		. /tmp/dhcp.env
		echo "SW_DHCP ok ip=$d_ip/$d_mask router=$d_router dns=$d_dns"
		[ -n "$d_host$d_fqdn" ] &&
			echo "SW_DHCP_NAMES host=$(hostname) fqdn81=$d_fqdn"
	else
		echo "SW_DHCP fail"
	fi
elif [ -n "${sw_addr:-}" ]; then
	if ip addr add "$sw_addr" dev eth0 &&
		{ [ -z "${sw_gw:-}" ] || ip route add default via "$sw_gw"; }; then
		echo "SW_ADDR ok ip=$sw_addr gw=${sw_gw:-}"
	else
		echo "SW_ADDR fail"
	fi
fi
[ -n "${sw_dns:-}" ] && echo "nameserver $sw_dns" >/etc/resolv.conf

# the features file holds one 0/1 character per feature bit, bit 0 first
f=$(cat /sys/class/net/eth0/device/features 2>/dev/null)
echo "SW_FEATURES $(echo "$f" | awk '{
	h = ""
	for (i = 0; i < length($0); i += 4) {
		n = 0
		for (j = 3; j >= 0; j--)
			n = n * 2 + (substr($0, i + j + 1, 1) == "1")
		h = sprintf("%x", n) h
	}
	print "0x" h
}')"
echo "SW_QUEUES rx=$(ls -d /sys/class/net/eth0/queues/rx-* | wc -l) tx=$(ls -d /sys/class/net/eth0/queues/tx-* | wc -l)"
echo "SW_MTU $(cat /sys/class/net/eth0/mtu)"

if [ -n "${sw_listen:-}" ]; then
	nc -ll -p "$sw_listen" -e /bin/sw-hello &
	echo "SW_LISTEN port=$sw_listen"
fi

if [ -n "${sw_idle:-}" ]; then
	hostport "$sw_idle"
	nc "$host" "$port" -e /bin/sw-idle &
fi

if [ -n "${sw_ping:-}" ]; then
	if timeout "$xt" ping -c 3 -W 2 "$sw_ping"; then
		echo "SW_PING ok"
	else
		echo "SW_PING fail"
	fi
fi

do_put() {
	local host port t
	hostport "$sw_put"
	t=$(up)
	timeout "$xt" nc "$host" "$port" </tmp/put
	echo "SW_PUT done rc=$?"
	echo "SW_PUT_SECS $(since "$t")"
	rm -f /tmp/put
}

do_get() {
	local host port s t
	hostport "$sw_get"
	mkfifo /tmp/hold
	t=$(up)
	if [ -n "${sw_get_tick:-}" ]; then
		# a receiver that talks too: a newline every tick
		while sleep "$sw_get_tick" && echo; do :; done |
			timeout "$xt" nc "$host" "$port" >/tmp/get
	else
		# stdin: a FIFO we hold open for writing, so nc never sees
		# EOF there
		timeout "$xt" nc "$host" "$port" <>/tmp/hold >/tmp/get
	fi
	echo "SW_GET done rc=$?"
	echo "SW_GET_SECS $(since "$t")"
	s=$(sha256sum /tmp/get)
	echo "SW_GET_SUM ${s%% *} bytes=$(wc -c </tmp/get)"
	rm -f /tmp/get
}

if [ -n "${sw_put:-}" ]; then
	head -c $((${sw_size:-16} * 1048576)) /dev/urandom >/tmp/put
	s=$(sha256sum /tmp/put)
	echo "SW_PUT_SUM ${s%% *}"
fi
if [ "${sw_par:-0}" = 1 ] && [ -n "${sw_put:-}" ] && [ -n "${sw_get:-}" ]; then
	do_put &
	pp=$!
	do_get
	wait $pp
else
	[ -n "${sw_put:-}" ] && do_put
	[ -n "${sw_get:-}" ] && do_get
fi

finish
EOF
}

# write_helpers DIR: the programs sw.listen and sw.idle run on their
# connections (busybox nc -e: standard input and output are the socket)
write_helpers() {
	cat >"$1/sw-hello" <<'EOF'
#!/bin/sh
echo guest-hello
EOF
	cat >"$1/sw-idle" <<'EOF'
#!/bin/sh
echo "SW_IDLE connected" >/dev/console
while read -r l; do
	echo "idle-ack $l"
	echo "SW_IDLE_LINE $l" >/dev/console
done
echo "SW_IDLE closed" >/dev/console
EOF
}

# write_udhcpc FILE: the udhcpc event script
write_udhcpc() {
	cat >"$1" <<'EOF'
#!/bin/sh
# udhcpc event script of slipway's QEMU test guest: configure the interface
# and leave what was bound in /tmp/dhcp.env for /init to report
case $1 in
deconfig)
	ip -4 addr flush dev "$interface"
	ip link set "$interface" up
	;;
bound | renew)
	ip -4 addr flush dev "$interface"
	ip addr add "$ip/${mask:-32}" dev "$interface"
	r=
	if [ -n "${router:-}" ]; then
		set -- $router
		r=$1
		ip route replace default via "$r" dev "$interface"
	fi
	: >/etc/resolv.conf
	for d in ${dns:-}; do
		echo "nameserver $d" >>/etc/resolv.conf
	done
	[ -n "${domain:-}" ] && echo "search $domain" >>/etc/resolv.conf
	# option 12 names the guest, as distributions' scripts do; option 81
	# (unknown to udhcpc) comes as opt81, in hex
	[ -n "${hostname:-}" ] && hostname "$hostname"
	d=$(echo ${dns:-} | tr ' ' ,)
	echo "d_ip=$ip d_mask=${mask:-32} d_router=$r d_dns=$d" \
		"d_host=${hostname:-} d_fqdn=${opt81:-}" >/tmp/dhcp.env
	;;
leasefail | nak)
	echo "udhcpc: $1 ${message:-}"
	;;
esac
exit 0
EOF
}

build() {
	local out=$1 root m f a
	root=$(mktemp -d "${TMPDIR:-/tmp}/mkguest.XXXXXX")
	WORKDIR=$root
	trap 'rm -rf "$WORKDIR"' EXIT
	mkdir -p "$root"/{bin,dev,etc,mods,proc,root,sys,tmp}
	cp "$BUSYBOX" "$root/bin/busybox"
	for a in $("$BUSYBOX" --list); do
		[ "$a" = busybox ] || ln -s busybox "$root/bin/$a"
	done
	for m in $MODULES; do
		f=$(find_module "$m")
		case $f in
		builtin) continue ;;
		*.ko) cp "$f" "$root/mods/$m.ko" ;;
		*.xz) "$BUSYBOX" xzcat "$f" >"$root/mods/$m.ko" ;;
		*.gz) gzip -dc "$f" >"$root/mods/$m.ko" ;;
		*.zst) zstd -dqc "$f" >"$root/mods/$m.ko" ;;
		esac
		echo "$m" >>"$root/mods/order"
	done
	: >>"$root/mods/order"
	write_init "$root/init"
	write_udhcpc "$root/etc/udhcpc.sh"
	write_helpers "$root/bin"
	chmod 755 "$root/init" "$root/etc/udhcpc.sh" "$root/bin/sw-hello" \
		"$root/bin/sw-idle"
	find "$root" -exec touch -h -d @0 {} +
	(cd "$root" && find . -mindepth 1 | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --reproducible --quiet) |
		gzip -n -6 >"$out.tmp"
	mv "$out.tmp" "$out"
	echo "mkguest: $out ($(stat -c %s "$out") bytes) for $KVER" >&2
}

[ $# -ge 1 ] || usage
KVER=
case $1 in
--check)
	[ $# -le 2 ] || usage
	KVER=${2:-}
	check
	echo "$KERNEL"
	;;
-*) usage ;;
*)
	[ $# -le 2 ] || usage
	KVER=${2:-}
	check
	build "$1"
	echo "$KERNEL"
	;;
esac

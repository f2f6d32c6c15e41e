#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# c_libvirt.sh - the root's libvirt (Debian 13: libvirt 11) runs two TCG
# domains in turn whose network is libvirt's passt backend with a
# <portForward>: <interface type='user'><backend type='passt'/> (libvirt
# runs "passt --one-off --socket ... --pid ... --tcp-ports ...", waits for
# it, and gives QEMU -netdev stream) and <interface type='vhostuser'>
# <backend type='passt'/> (the same with --vhost-user; QEMU's memory
# shared, -chardev socket + -netdev vhost-user). libvirtd runs by hand (no
# systemd), as root (qemu:///system), with no cgroups, namespaces or
# security driver, its QEMU logs to files; the guest boots from
# <os><kernel><initrd><cmdline> (tests/clients/guest.sh).
# With IMPL=slipway libvirtd is pointed at slipway by its PATH: libvirt
# runs "passt" from the daemon's PATH, so
#   PATH=/usr/libexec/slipway:$PATH libvirtd
# (a directory with a link named passt to slipway, ahead of /usr/bin).
# Checks, each domain: the passt process serving it is IMPL's binary (its
# socket's owner, /proc/PID/exe) and its command line is libvirt's; the
# guest's lease names a DNS server and a name resolves through it;
# checksummed bytes both ways through the gateway; the forwarded port on
# the host's loopback reaches the guest, whose bytes arrive whole; the
# domain shuts off and libvirt's passt is gone after it.
. "$(dirname "$0")/vm.sh"
vm_require
SIZE=${SIZE:-4} # MiB each way, and served
GPORT=8080
DOM=clvirt
command -v libvirtd >/dev/null || {
	echo "SKIP: no libvirtd"
	exit 77
}
KERNEL_BOOT_TIMEOUT=150
QEMU_BIN=$(command -v "$QEMU")

vm_resolver
kernel=$("$MKGUEST" "$T/guest.cpio.gz" | tail -1) || fail "guest.sh failed"

# libvirt's QEMU driver, by hand: root, files, nothing of systemd's
cat >/etc/libvirt/qemu.conf <<EOF
user = "root"
group = "root"
dynamic_ownership = 0
remember_owner = 0
security_driver = "none"
cgroup_controllers = [ ]
namespaces = [ ]
stdio_handler = "file"
EOF
mkdir -p /run/libvirt /var/lib/libvirt/qemu /var/log/libvirt/qemu /var/cache/libvirt/qemu
lpath=$PATH
[ "$IMPL" = slipway ] && lpath=$(dirname "$PASST"):$PATH
PATH=$lpath libvirtd --timeout 0 >"$T/libvirtd.log" 2>&1 &
LVPID=$!
PIDS+=("$LVPID")
wait_for "libvirtd's socket" 30 "[ -S /run/libvirt/libvirt-sock ] || ! kill -0 $LVPID"
kill -0 "$LVPID" 2>/dev/null || fail "libvirtd exited: $(tail -5 "$T/libvirtd.log")"
V=(virsh -q -c qemu:///system)
wait_for "libvirtd to answer" 30 "${V[*]} version >/dev/null 2>&1"

# domain EDGE: a domain whose interface is of type EDGE (user: -netdev
# stream; vhostuser: -netdev vhost-user, its memory shared) with the passt
# backend, through its whole plan; its time in $T/EDGE.secs
domain() {
	local edge=$1 dom=$DOM-$1 iface mem='' netdev sock PID HPORT sum t
	rm -f "$T/hold" "$T/put.out" "$T/served.out"
	qemu_host_ends "$SIZE"
	HPORT=$(free_port)
	iface="<interface type='$edge'>"
	netdev="-netdev.*stream"
	if [ "$edge" = vhostuser ]; then
		iface="<interface type='vhostuser'><source type='unix' mode='client'/>"
		mem="<memoryBacking><source type='memfd'/><access mode='shared'/></memoryBacking>"
		netdev="-netdev.*vhost-user"
	fi
	QEMU_LOG=$T/console-$edge.log
	: >"$QEMU_LOG"
	cat >"$T/$edge.xml" <<EOF
<domain type='qemu'>
  <name>$dom</name>
  <memory unit='MiB'>384</memory>
  <vcpu>1</vcpu>
  $mem
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>$kernel</kernel>
    <initrd>$T/guest.cpio.gz</initrd>
    <cmdline>console=ttyS0 panic=-1 quiet loglevel=3 sw.deadline=$KERNEL_BOOT_TIMEOUT rdinit=/cinit cl.lookup=$LOOKUP cl.put=$PUT_PORT cl.get=$GET_PORT cl.size=$SIZE cl.serve=$GPORT</cmdline>
  </os>
  <features><acpi/></features>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>destroy</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <emulator>$QEMU_BIN</emulator>
    $iface
      <mac address='$MAC'/>
      <model type='virtio'/>
      <backend type='passt' logFile='$T/passt-$edge.log'/>
      <portForward proto='tcp' address='127.0.0.1'>
        <range start='$HPORT' to='$GPORT'/>
      </portForward>
    </interface>
    <serial type='file'>
      <source path='$QEMU_LOG'/>
      <target port='0'/>
    </serial>
    <memballoon model='none'/>
  </devices>
</domain>
EOF
	QEMU_T0=$(date +%s.%N)
	"${V[@]}" create "$T/$edge.xml" >"$T/virsh.out" 2>&1 ||
		fail "$edge: virsh create: $(cat "$T/virsh.out"); libvirtd: $(tail -5 "$T/libvirtd.log")"
	QEMU_PID=$(vm_pidfile "/run/libvirt/qemu/$dom.pid")

	# libvirt's passt: the owner of the socket QEMU was given
	sock=$(find /run/libvirt/qemu/passt -name "*-$dom-*.socket" 2>/dev/null | head -1)
	[ -n "$sock" ] || fail "$edge: no passt socket in /run/libvirt/qemu/passt: $(ls -la /run/libvirt/qemu/passt 2>&1)"
	PID=$(vm_socket_owner "$sock")
	[ -n "$PID" ] || fail "$edge: nobody listens on $sock"
	vm_check_impl "$PID" "libvirt's passt ($edge)"
	tr '\0' ' ' <"/proc/$PID/cmdline" >"$T/passt-argv-$edge.out"
	echo "libvirt ran ($edge): $(cat "$T/passt-argv-$edge.out")"
	grep -q -- "--tcp-ports 127.0.0.1/$HPORT:$GPORT" "$T/passt-argv-$edge.out" ||
		fail "$edge: passt's command line lacks the port forward: $(cat "$T/passt-argv-$edge.out")"
	grep -q -- "$netdev" "/var/log/libvirt/qemu/$dom.log" ||
		fail "$edge: QEMU was not given $netdev: $(grep -o -- '-netdev [^ ]*' "/var/log/libvirt/qemu/$dom.log")"

	qemu_wait_marker CL_SERVE "$KERNEL_BOOT_TIMEOUT"
	vm_check_impl "$PID" "libvirt's passt serving the guest ($edge)"
	"$PY" - 127.0.0.1 "$HPORT" "$T/served.out" <<'EOS' || qemu_fail "$edge: the forwarded port"
import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=60)
with open(sys.argv[3], "wb") as f:
    while True:
        d = s.recv(65536)
        if not d:
            break
        f.write(d)
EOS
	sum=$(sha256sum <"$T/served.out")
	qemu_expect CL_SERVE_SUM "${sum%% *}"
	[ "$(stat -c %s "$T/served.out")" = $((SIZE << 20)) ] ||
		qemu_fail "$edge: the forwarded port gave $(stat -c %s "$T/served.out") bytes, not $((SIZE << 20))"
	qemu_wait_marker SW_DONE 60
	t=$(qemu_elapsed)
	qemu_check_xfer "$SIZE"
	vm_dhcp_dns
	wait_for "the domain to shut off" 30 "! ${V[*]} domstate $dom 2>/dev/null | grep -q running"
	vm_gone "$PID" 15
	echo "$edge: DHCP $(qemu_marker SW_DHCP), $LOOKUP -> $(qemu_marker CL_DNS), ${t}s"
	echo "$t" >"$T/$edge.secs"
}

domain user
domain vhostuser
pass "libvirt $("${V[@]}" version | sed -n 's/.*libvirt \([0-9.]*\).*/\1/p' | head -1) domains, passt backend ($IMPL: $(readlink -f "$(PATH=$lpath command -v passt)")), type user ($(cat "$T/user.secs")s) and vhostuser ($(cat "$T/vhostuser.secs")s): DHCP with a DNS server, $LOOKUP -> $DNS_ANSWER, $SIZE MiB each way through the gateway and $SIZE MiB from the guest through the forwarded port, checksummed; passt gone with each domain"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# deps.sh - install what building and testing slipway needs (Debian 12),
# only the packages that are missing; used by demo.sh, run-tests.sh, .ci/run
set -e
PKGS="meson ninja-build gcc pkg-config libcmocka-dev libjansson-dev libncurses-dev iproute2 iperf3
busybox-static curl ncat python3 procps util-linux tcpdump tmux
dnsmasq-base dnsutils isc-dhcp-client ethtool
qemu-system-x86 linux-image-amd64 cpio libjansson-dev
rootlesskit podman uidmap runc socat nftables
dpkg-dev debhelper lintian debootstrap"
[ "${WITH_CLANG:-0}" = 1 ] && PKGS="$PKGS clang clang-format libclang-rt-14-dev"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "missing packages:$missing -- install them as root: apt-get install$missing" >&2
	exit 1
fi
echo "installing:$missing"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null

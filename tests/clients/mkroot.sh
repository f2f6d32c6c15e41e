#!/bin/sh
# mkroot.sh - build (or reuse) the Debian 13 root the client cases run in.
#
# Usage: tests/clients/mkroot.sh
# The root lives at ${SLIPWAY_CLIENTS_CACHE:-/var/cache/slipway-clients}/trixie,
# outside the checkout. It is reused when its stamp file .slipway-root-ok
# records the same package list as tests/clients/packages.
# Needs root and network access to the Debian mirror only.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
cache=${SLIPWAY_CLIENTS_CACHE:-/var/cache/slipway-clients}
root=$cache/trixie
mirror=${SLIPWAY_CLIENTS_MIRROR:-http://deb.debian.org/debian}
stamp=$root/.slipway-root-ok

if [ "$(id -u)" != 0 ]; then
	echo "mkroot.sh: must run as root (debootstrap, chroot)" >&2
	exit 1
fi

# The package list without comments and blank lines, one per line.
pkgs=$(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$here/packages" | grep -v '^$')

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$pkgs" ]; then
	echo "mkroot.sh: $root is up to date"
	exit 0
fi

if ! command -v debootstrap >/dev/null 2>&1; then
	apt-get -o DPkg::Lock::Timeout=600 install -y debootstrap
fi

mkdir -p "$cache"
rm -f "$stamp"
# A root whose debootstrap did not finish is thrown away; a finished one only
# gets its package set updated.
if [ ! -f "$root/.slipway-debootstrap-ok" ]; then
	rm -rf "$root"
	debootstrap --variant=minbase trixie "$root" "$mirror"
	touch "$root/.slipway-debootstrap-ok"
fi

# No service may start inside the root while packages are installed.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
printf 'deb %s trixie main\n' "$mirror" >"$root/etc/apt/sources.list"
printf '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
echo slipway-clients >"$root/etc/hostname"

# apt and the maintainer scripts want /proc and /dev; give them a private
# mount namespace so that nothing stays mounted afterwards.
# shellcheck disable=SC2086 # word splitting of the package list is wanted
# shellcheck disable=SC2016 # expanded by the inner shell
unshare -m --propagation private sh -eu -c '
	root=$1; shift
	mount -t proc proc "$root/proc"
	mount --rbind /dev "$root/dev"
	mount -t tmpfs tmpfs "$root/tmp"
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	# INITRD=No: no initramfs for the kernel, which only the VM cases use
	# with an initramfs of their own (saves minutes)
	export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 INITRD=No
	chroot "$root" apt-get update
	chroot "$root" apt-get install -y --no-install-recommends "$@"
	chroot "$root" apt-get clean
' mkroot "$root" $pkgs

# The unprivileged user the rootless clients run as (uid 1001, as on the
# machine the recipes were written on), with subordinate ids.
if ! chroot "$root" id rl >/dev/null 2>&1; then
	chroot "$root" useradd -m -u 1001 -s /bin/sh rl
fi
grep -q '^rl:' "$root/etc/subuid" 2>/dev/null || echo 'rl:100000:65536' >>"$root/etc/subuid"
grep -q '^rl:' "$root/etc/subgid" 2>/dev/null || echo 'rl:100000:65536' >>"$root/etc/subgid"

printf '%s\n' "$pkgs" >"$stamp"
echo "mkroot.sh: $root ready"

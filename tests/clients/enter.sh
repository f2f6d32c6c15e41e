#!/bin/sh
# enter.sh - run a command as root inside the client root (see mkroot.sh).
#
# Usage: CLIENTS_OUT=/host/scratch tests/clients/enter.sh CMD [ARGS...]
#
# The command runs with a private mount namespace and a private PID
# namespace (everything it starts dies with it), after pivot_root into an
# overlay of the cached root, so the cache stays untouched:
# - with CLIENTS_PERSIST=1, writes go to $CLIENTS_OUT/.root/upper (run.sh
#   installs slipway this way, once per run);
# - otherwise they go to a layer of their own, over $CLIENTS_OUT/.root/upper,
#   removed when the command ends: cases cannot see each other's changes.
# Fresh /proc, /run, /tmp, /dev/shm and /home/rl; /sys and /dev are the
# host's (including /dev/net/tun, and /dev/kvm when present); the checkout
# is at /src (read-only) and $CLIENTS_OUT at /out. The host network
# namespace is kept. The environment is cleared except IMPL, CASE_* ,
# CLIENTS_* and SLIPWAY_* variables; CLIENTS_OUT is /out inside.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
cache=${SLIPWAY_CLIENTS_CACHE:-/var/cache/slipway-clients}
root=$cache/trixie

if [ $# -eq 0 ]; then
	echo "usage: enter.sh CMD [ARGS...]" >&2
	exit 2
fi
if [ "$(id -u)" != 0 ]; then
	echo "enter.sh: must run as root" >&2
	exit 1
fi
if [ ! -f "$root/.slipway-root-ok" ]; then
	echo "enter.sh: no client root at $root; run tests/clients/mkroot.sh first" >&2
	exit 1
fi
out=${CLIENTS_OUT:-/tmp/slipway-clients-out}
mkdir -p "$out/.root/upper" "$out/.root/work"
out=$(cd "$out" && pwd)
if [ "${CLIENTS_PERSIST:-}" = 1 ]; then
	layer=$out/.root
	lower=$root
else
	layer=$(mktemp -d "$out/.root/layer.XXXXXX")
	mkdir "$layer/upper" "$layer/work"
	lower=$out/.root/upper:$root
fi
mkdir -p "$layer/mnt"

# Variables passed into the root.
passenv=$(env | sed -n 's/^\(\(IMPL\|CASE_[A-Za-z0-9_]*\|CLIENTS_[A-Za-z0-9_]*\|SLIPWAY_[A-Za-z0-9_]*\)\)=.*/\1/p' |
	grep -v '^CLIENTS_OUT$' || true)
envargs=""
for v in $passenv; do
	envargs="$envargs $v"
done

# unshare runs in the background so that a signal (run.sh's timeout) is
# handled at once: it kills unshare, whose --kill-child kills the
# namespace's PID 1 and with it everything inside; this script stays to
# remove the layer. fd 3 carries stdin to the background command.
exec 3<&0
# shellcheck disable=SC2016 # expanded by the inner shell
unshare --mount --pid --fork --kill-child --propagation private \
	sh -eu -c '
	lower=$1 layer=$2 out=$3 src=$4 envlist=$5
	shift 5
	new=$layer/mnt
	mount -t overlay overlay \
		-o "lowerdir=$lower,upperdir=$layer/upper,workdir=$layer/work" "$new"
	mount -t proc proc "$new/proc"
	mount --rbind /sys "$new/sys"
	mount --rbind /dev "$new/dev"
	mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$new/dev/shm"
	mount -t tmpfs -o mode=755,nosuid,nodev tmpfs "$new/run"
	mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$new/tmp"
	mkdir -p "$new/src" "$new/out" "$new/home/rl" "$new/run/user/1001" "$new/run/lock"
	mount --bind "$src" "$new/src"
	mount -o remount,bind,ro "$new/src"
	mount --bind "$out" "$new/out"
	mount -t tmpfs -o mode=755,uid=1001,gid=1001 tmpfs "$new/home/rl"
	chown 1001:1001 "$new/run/user/1001"
	chmod 700 "$new/run/user/1001"
	cd "$new"
	mkdir -p .oldroot
	pivot_root . .oldroot
	cd /
	umount -l /.oldroot
	rmdir /.oldroot
	# Rootless podman wants / shared (its mounts propagate into the
	# rootless mount namespace); it stays inside this namespace.
	mount --make-rshared /
	# catatonit as PID 1 reaps orphans (daemons that exited) at once.
	if [ -x /usr/bin/catatonit ]; then
		set -- /usr/bin/catatonit -- "$@"
	fi
	# Pass the chosen variables on, then drop everything else.
	for v in $envlist; do
		set -- "$v=$(printenv "$v")" "$@"
	done
	exec env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C.UTF-8 CLIENTS_OUT=/out "$@"
' enter "$lower" "$layer" "$out" "$src" "$envargs" "$@" <&3 3<&- &
upid=$!
exec 3<&-
trap 'kill -KILL $upid 2>/dev/null' TERM INT HUP
rc=0
wait $upid || rc=$?
# a signal interrupts wait: collect unshare's status after the kill
if kill -0 $upid 2>/dev/null || [ $rc -gt 128 ]; then
	wait $upid 2>/dev/null || rc=$?
fi
if [ "$layer" != "$out/.root" ]; then
	rm -rf "$layer"
fi
exit "$rc"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh - run the real clients of Debian 13 against slipway.
#
# Usage (as root): tests/clients/run.sh [CASE...]
# CASE is a file name tests/clients/c_*.sh, with or without the directory
# and the .sh; none means all of them.
#
# Builds the root (mkroot.sh, cached), installs slipway from this checkout
# into it, then runs each case twice through enter.sh: IMPL=real (the root's
# own pasta/passt) and IMPL=slipway. A case exits 0 to pass, 77 to skip,
# anything else fails; one that fails with IMPL=real is a BADCASE (counted
# failed: the case is wrong, not slipway). Ends with "N passed, N failed".
#
# Environment:
#   CLIENTS_OUT     logs and scratch (default /tmp/slipway-clients); emptied
#   CASE_TIMEOUT    seconds per case and IMPL (default 300)
#   SLIPWAY_BUILD   the build directory whose src/slipway is installed when
#                   the checkout has no debian/ (default: build, set up and
#                   built if missing)
#   CLIENTS_IMPLS   the implementations to run (default "real slipway")
#   CLIENTS_CONTROL always: every case runs with IMPL=real first (the
#                   default); onfail: only slipway's runs, and a case that
#                   fails there runs with IMPL=real after it, to tell a
#                   slipway FAIL from a BADCASE (what CI does: half the time)
#   CLIENTS_DEB     a directory holding the slipway_*.deb to install (as
#                   run-tests.sh's test "deb" leaves in build/deb) instead
#                   of building one here
set -u

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
export CLIENTS_OUT=${CLIENTS_OUT:-/tmp/slipway-clients}
CASE_TIMEOUT=${CASE_TIMEOUT:-300}
impls=${CLIENTS_IMPLS:-real slipway}
control=${CLIENTS_CONTROL:-always}
case $control in
always) ;;
onfail) impls=slipway ;;
*) echo "run.sh: CLIENTS_CONTROL is always or onfail, not $control" >&2; exit 2 ;;
esac

die() {
	echo "run.sh: $*" >&2
	echo "0 passed, 1 failed"
	exit 1
}

[ "$(id -u)" = 0 ] || die "must run as root"

# The cases, checked before anything slow happens.
cases=()
if [ $# -eq 0 ]; then
	for f in "$here"/c_*.sh; do
		[ -f "$f" ] && cases+=("$f")
	done
else
	for c in "$@"; do
		c=$(basename "$c" .sh)
		[ -f "$here/$c.sh" ] || die "no case $here/$c.sh"
		cases+=("$here/$c.sh")
	done
fi
[ ${#cases[@]} -gt 0 ] || die "no cases in $here"

# The previous run's root layer and logs go.
mkdir -p "$CLIENTS_OUT"
out=$(cd "$CLIENTS_OUT" && pwd)
rm -rf "$out/.root" "$out/.deb" "$out/.bin"
rm -f "$out"/*.log
export CLIENTS_OUT=$out

t0=$(date +%s)
"$here/mkroot.sh" >"$out/mkroot.log" 2>&1 || {
	tail -30 "$out/mkroot.log"
	die "building the client root failed (log: $out/mkroot.log)"
}
echo "run.sh: client root ready in $(($(date +%s) - t0)) s"

# Install slipway into the run's root layer.
install_deb() {
	local tree=$out/.deb/tree
	mkdir -p "$tree"
	# The tree as it is (uncommitted changes included), without build output.
	tar -C "$src" --exclude=.git --exclude='./build*' -cf - . | tar -C "$tree" -xf -
	if ! (cd "$tree" && dpkg-checkbuilddeps) >/dev/null 2>&1; then
		apt-get -o DPkg::Lock::Timeout=600 install -y dpkg-dev >/dev/null 2>&1
		(cd "$tree" && apt-get -o DPkg::Lock::Timeout=600 build-dep -y ./) ||
			return 1
	fi
	(cd "$tree" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" dpkg-buildpackage -b -us -uc) || return 1
	put_deb "$out/.deb"
}

# put_deb DIR: install DIR's slipway_*.deb into the run's root layer
put_deb() {
	local debs
	if [ "$1" != "$out/.deb" ]; then
		mkdir -p "$out/.deb"
		cp "$1"/slipway_*.deb "$out/.deb/" || return 1
	fi
	debs=$(cd "$out/.deb" && ls slipway_*.deb) || return 1
	# shellcheck disable=SC2086
	CLIENTS_PERSIST=1 "$here/enter.sh" sh -c 'cd /out/.deb && { dpkg -i "$@" || apt-get -f install -y; }' sh $debs
}

install_bin() {
	local b=${SLIPWAY_BUILD:-$src/build}
	case "$b" in
	/*) ;;
	*) b=$src/$b ;;
	esac
	if [ ! -x "$b/src/slipway" ]; then
		[ -f "$b/build.ninja" ] || meson setup "$b" --werror || return 1
		ninja -C "$b" || return 1
	fi
	mkdir -p "$out/.bin"
	cp "$b/src/slipway" "$out/.bin/slipway"
	# shellcheck disable=SC2016 # expanded inside the root
	CLIENTS_PERSIST=1 "$here/enter.sh" sh -eu -c '
		install -m 755 /out/.bin/slipway /usr/bin/slipway
		mkdir -p /usr/libexec/slipway
		for n in pasta passt slirp4netns; do
			ln -sf ../../bin/slipway /usr/libexec/slipway/$n
		done'
}

t0=$(date +%s)
if [ -n "${CLIENTS_DEB:-}" ]; then
	how="$(cd "$CLIENTS_DEB" 2>/dev/null && ls slipway_*.deb) from $CLIENTS_DEB"
	put_deb "$CLIENTS_DEB" >"$out/install.log" 2>&1
elif [ -d "$src/debian" ]; then
	how=".deb built from $src"
	install_deb >"$out/install.log" 2>&1
else
	how="binary ${SLIPWAY_BUILD:-build}/src/slipway (no debian/ in the checkout)"
	install_bin >"$out/install.log" 2>&1
fi || {
	tail -30 "$out/install.log"
	die "installing slipway into the root failed (log: $out/install.log)"
}
ver=$("$here/enter.sh" /usr/libexec/slipway/pasta --version 2>&1 | head -1)
echo "run.sh: installed slipway ($how) in $(($(date +%s) - t0)) s: $ver"
[ -x "$out/.root/upper/usr/bin/slipway" ] || die "no /usr/bin/slipway in the root after installing"

# run_case NAME IMPL: one run of a case; sets rc, dt and log
run_case() {
	local t
	log=$out/$1.$2.log
	t=$(date +%s)
	IMPL=$2 CASE_NAME=$1 timeout -k 10 "$CASE_TIMEOUT" \
		"$here/enter.sh" bash "/src/tests/clients/$1.sh" </dev/null >"$log" 2>&1
	rc=$?
	dt=$(($(date +%s) - t))
}

# why_failed: the failure as words, from rc
why_failed() {
	case $rc in
	124 | 137) echo "timed out after ${CASE_TIMEOUT}s" ;;
	*) echo "exit $rc" ;;
	esac
}

pass=0
fail=0
for f in "${cases[@]}"; do
	name=$(basename "$f" .sh)
	for impl in $impls; do
		run_case "$name" "$impl"
		if [ $rc -eq 0 ]; then
			echo "PASS $name ($impl) ${dt}s"
			pass=$((pass + 1))
			continue
		elif [ $rc -eq 77 ]; then
			echo "SKIP $name ($impl): $(grep 'SKIP:' "$log" | tail -1 | sed 's/.*SKIP: //')"
			continue
		fi
		fail=$((fail + 1))
		why=$(why_failed)
		slog=$log
		if [ "$impl" = real ]; then
			echo "BADCASE $name ($impl): $why, the case fails on the real client stack; log $log"
		elif [ "$control" = onfail ]; then
			# the control, now: the real pasta/passt on the same case
			run_case "$name" real
			if [ $rc -eq 0 ]; then
				echo "FAIL $name (slipway): $why; the real one passes (${dt}s); log $slog"
			else
				echo "BADCASE $name: fails with slipway ($why) and with the real one ($(why_failed)); logs $slog, $log"
			fi
		else
			echo "FAIL $name ($impl): $why; log $log"
		fi
		sed 's/^/    /' "$slog" | tail -15
	done
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_install.sh - `meson install` puts the binary and the man page in place
# (into a scratch --destdir) and nothing of the tests or tools
set -u
: "${BUILD_ROOT:?set BUILD_ROOT to the build directory}"
D=$(mktemp -d /tmp/slipway-install.XXXXXX)
trap 'rm -rf "$D"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
meson install -C "$BUILD_ROOT" --no-rebuild --destdir "$D" >"$D.log" 2>&1 ||
	{ cat "$D.log"; rm -f "$D.log"; fail "meson install"; }
rm -f "$D.log"
bin=$(find "$D" -type f -name slipway -path '*/bin/*')
man=$(find "$D" -type f -name slipway.1 -path '*/man1/*')
[ -n "$bin" ] && [ -x "$bin" ] || fail "no slipway binary installed: $(find "$D" -type f)"
[ -n "$man" ] || fail "no man page installed: $(find "$D" -type f)"
"$bin" --version | grep -q "^slipway " || fail "the installed binary does not run"
grep -q '^\.SH CONTROL API' "$man" || fail "the installed man page is not this one"
n=$(find "$D" -type f | wc -l)
[ "$n" = 2 ] || fail "$n files installed, expected 2: $(find "$D" -type f)"
echo "PASS: installed $bin and $man"

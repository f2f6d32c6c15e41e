#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_install.sh - `meson install` puts the binary, the man page and the
# pasta, passt and slirp4netns entry points (symbolic links to the binary
# in libexecdir/slipway, never over the real programs) in place, into a
# scratch --destdir, and nothing of the tests or tools; each link, run by
# its name, answers --version in its own mode
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

# the entry points: three links in <libexecdir>/slipway, nothing else in
# that directory, each resolving (inside the staging tree: relative) to
# the installed binary
links=$(find "$D" -type l | sort)
[ "$(echo "$links" | grep -c .)" = 3 ] ||
	fail "expected 3 symbolic links installed, got: $links"
hdir=$(dirname "$(echo "$links" | head -n 1)")
case "$hdir" in
*/libexec/slipway) ;;
*) fail "the links are in $hdir, not in <libexecdir>/slipway" ;;
esac
[ "$(ls -A "$hdir" | tr '\n' ' ')" = "passt pasta slirp4netns " ] ||
	fail "$hdir holds: $(ls -A "$hdir")"
for name in pasta passt slirp4netns; do
	l=$hdir/$name
	[ -L "$l" ] || fail "$l is not a symbolic link"
	case "$(readlink "$l")" in
	/*) fail "$l -> $(readlink "$l"): absolute, dangling in a staging tree" ;;
	esac
	[ "$(readlink -f "$l")" = "$(readlink -f "$bin")" ] ||
		fail "$l -> $(readlink "$l") does not resolve to $bin"
done
# run through the links: the mode comes from the link's name
out=$("$hdir/pasta" --version) || fail "pasta --version: status $?"
echo "$out" | head -n 1 | grep -q '^pasta ' ||
	fail "pasta --version is not in pasta mode: $out"
out=$("$hdir/passt" --version) || fail "passt --version: status $?"
echo "$out" | head -n 1 | grep -q '^passt ' ||
	fail "passt --version is not in passt mode: $out"
out=$("$hdir/slirp4netns" --version) || fail "slirp4netns --version: status $?"
echo "$out" | head -n 1 | grep -q '^slirp4netns version ' ||
	fail "slirp4netns --version is not in slirp4netns mode: $out"
echo "$out" | grep -q '^slipway: ' ||
	fail "slirp4netns --version does not name slipway: $out"
echo "PASS: installed $bin, $man and $hdir/{pasta,passt,slirp4netns}"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_deb.sh - the Debian package builds from a clean copy of the tree
# (`dpkg-buildpackage -b -us -uc`, debian/), holds exactly the binary, the
# man page, the pasta, passt and slirp4netns links in /usr/libexec/slipway
# (never over the real programs) and the doc files dh adds, each link
# answers --version in its own mode, and lintian finds no error. Needs no
# root. Skipped (77) where dpkg-buildpackage, debhelper or lintian, or a
# build dependency from debian/control, is not installed
# (tools/deps.sh installs them). With DEB_OUT, the package it checked is
# left there (meson: BUILD/deb/), for tests/clients/run.sh to install
# (CLIENTS_DEB) rather than build it again.
set -u
: "${SOURCE_ROOT:?set SOURCE_ROOT to the source tree}"
# no package of an earlier run may stay for run.sh to install
[ -n "${DEB_OUT:-}" ] && rm -f "$DEB_OUT"/slipway_*.deb
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
for p in dpkg-buildpackage dh lintian; do
	command -v "$p" >/dev/null ||
		skip "no $p: apt-get install dpkg-dev debhelper lintian (tools/deps.sh)"
done
(cd "$SOURCE_ROOT" && dpkg-checkbuilddeps) >/dev/null 2>&1 ||
	skip "build dependencies missing: $(cd "$SOURCE_ROOT" && dpkg-checkbuilddeps 2>&1)"
start=$(date +%s)
W=$(mktemp -d /tmp/slipway-deb.XXXXXX)
trap 'rm -rf "$W"' EXIT
S=$W/slipway

# a clean copy: the files git knows (tracked, and new ones not ignored)
# in a checkout, else the tree less build output
mkdir "$S"
if git -C "$SOURCE_ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$SOURCE_ROOT" &&
		git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do
			[ -e "$f" ] && printf '%s\0' "$f"
		done | tar -cf - --null --no-recursion -T -) | tar -xf - -C "$S" ||
		fail "copying the tracked files of $SOURCE_ROOT"
else
	tar -C "$SOURCE_ROOT" -cf - --exclude='./build*' --exclude=./builddir \
		--exclude=./debian/slipway --exclude=./debian/.debhelper \
		--exclude=./obj-\* . | tar -xf - -C "$S" ||
		fail "copying $SOURCE_ROOT"
fi
[ -f "$S/debian/control" ] || fail "no debian/control in the copy of $SOURCE_ROOT"

# the package build: two jobs unless DEB_BUILD_OPTIONS says otherwise
opts=${DEB_BUILD_OPTIONS:-parallel=$(nproc)}
(cd "$S" && DEB_BUILD_OPTIONS=$opts dpkg-buildpackage -b -us -uc) \
	>"$W/build.log" 2>&1 ||
	{ tail -n 60 "$W/build.log" >&2; fail "dpkg-buildpackage -b -us -uc"; }
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
ver=$(cd "$S" && dpkg-parsechangelog -SVersion)
deb=$W/slipway_${ver}_${arch}.deb
changes=$W/slipway_${ver}_${arch}.changes
[ -f "$deb" ] || fail "no $(basename "$deb"): $(ls "$W")"
[ -f "$changes" ] || fail "no $(basename "$changes"): $(ls "$W")"
mver=$(sed -n "s/^ *version *: *'\([^']*\)'.*/\1/p" "$S/meson.build" | head -n 1)
[ "$ver" = "$mver" ] ||
	fail "debian/changelog says $ver, meson.build says $mver"
build_end=$(date +%s)

# the file list: exactly these files and links, nothing else
dpkg -c "$deb" >"$W/list" || fail "dpkg -c $deb"
files=$(awk '$1 !~ /^d/ { print $6 }' "$W/list" | sort | tr '\n' ' ')
want="./usr/bin/slipway ./usr/libexec/slipway/passt ./usr/libexec/slipway/pasta "
want+="./usr/libexec/slipway/slirp4netns ./usr/share/doc/slipway/changelog.gz "
want+="./usr/share/doc/slipway/copyright ./usr/share/man/man1/slipway.1.gz "
[ "$files" = "$want" ] ||
	fail "the package holds: $files; expected: $want ($(cat "$W/list"))"
grep -q '^-rwxr-xr-x .* \./usr/bin/slipway$' "$W/list" ||
	fail "/usr/bin/slipway is not an executable file: $(grep slipway$ "$W/list")"
for name in pasta passt slirp4netns; do
	line=$(grep " \./usr/libexec/slipway/$name -> " "$W/list") ||
		fail "/usr/libexec/slipway/$name is not a symbolic link: $(cat "$W/list")"
	to=${line##* -> }
	case "$to" in
	/usr/bin/slipway) ;;
	/*) fail "/usr/libexec/slipway/$name -> $to" ;;
	*)
		[ "$(realpath -m "/usr/libexec/slipway/$to")" = /usr/bin/slipway ] ||
			fail "/usr/libexec/slipway/$name -> $to, not /usr/bin/slipway"
		;;
	esac
done

# the contents: the links, run by name from the unpacked package, answer
# in their mode; the man page is this one
X=$W/root
dpkg-deb -x "$deb" "$X" || fail "dpkg-deb -x $deb"
"$X/usr/bin/slipway" --version | grep -q "^slipway $ver" ||
	fail "the packaged binary does not say slipway $ver"
"$X/usr/libexec/slipway/pasta" --version | head -n 1 | grep -q '^pasta ' ||
	fail "/usr/libexec/slipway/pasta --version is not in pasta mode"
"$X/usr/libexec/slipway/passt" --version | head -n 1 | grep -q '^passt ' ||
	fail "/usr/libexec/slipway/passt --version is not in passt mode"
"$X/usr/libexec/slipway/slirp4netns" --version | grep -q '^slipway: ' ||
	fail "/usr/libexec/slipway/slirp4netns --version is not slipway's slirp4netns mode"
zcat "$X/usr/share/man/man1/slipway.1.gz" | grep -q '/usr/libexec/slipway' ||
	fail "the packaged man page does not name /usr/libexec/slipway"

# lintian on the .changes (the .deb and the .buildinfo with it): no error
lintian "$changes" >"$W/lintian.log" 2>&1
lrc=$?
if grep -q '^E: ' "$W/lintian.log"; then
	cat "$W/lintian.log" >&2
	fail "lintian reports errors"
fi
[ "$lrc" -le 1 ] || { cat "$W/lintian.log" >&2; fail "lintian failed (status $lrc)"; }
sed 's/^/lintian: /' "$W/lintian.log"
if [ -n "${DEB_OUT:-}" ]; then
	if ! mkdir -p "$DEB_OUT" || ! cp "$deb" "$DEB_OUT/"; then
		fail "cannot leave the package in $DEB_OUT"
	fi
fi
end=$(date +%s)
echo "PASS: $(basename "$deb"): $(echo "$files" | wc -w) files and links, lintian no errors" \
	"(build $((build_end - start)) s, all $((end - start)) s)"

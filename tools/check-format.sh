#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check-format.sh - the tree's C files are as clang-format writes them
#
#   check-format.sh ROOT
#	checks every .c and .h file git tracks under ROOT (or, outside a
#	git checkout, under ROOT/src, tests and tools) against ROOT's
#	.clang-format; names each file that differs with the command that
#	fixes it; exit 1 if there is any
#   check-format.sh --self-test ROOT
#	proves the check can fail: a formatted copy of one file passes, the
#	same with one badly formatted line does not
#
# Exit 77 (meson: skipped) without clang-format (apt-get install -y
# clang-format; tools/deps.sh installs it with WITH_CLANG=1).
command -v clang-format >/dev/null || {
	echo "clang-format is not installed: skipped (apt-get install -y clang-format)"
	exit 77
}

# check DIR FILE...: 0 if every FILE is formatted
check() {
	local dir=$1 f bad=0
	shift
	for f in "$@"; do
		if ! (cd "$dir" && clang-format --dry-run --Werror "$f") >/dev/null 2>&1; then
			echo "not formatted: $f (fix: clang-format -i $f)"
			bad=$((bad + 1))
		fi
	done
	echo "$# files checked, $bad not formatted"
	[ "$bad" = 0 ]
}

if [ "$1" = --self-test ]; then
	root=$2
	tmp=$(mktemp -d) || exit 1
	trap 'rm -rf "$tmp"' EXIT
	cp "$root/.clang-format" "$root/src/util/util.h" "$tmp/" || exit 1
	check "$tmp" util.h || { echo "self-test: a formatted file failed"; exit 1; }
	printf 'static int  badly ( int x ) { return x ; }\n' >>"$tmp/util.h"
	if check "$tmp" util.h; then
		echo "self-test: a badly formatted line passed"
		exit 1
	fi
	echo "self-test: ok"
	exit 0
fi

root=${1:?usage: check-format.sh [--self-test] ROOT}
cd "$root" || exit 1
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	mapfile -t files < <(git ls-files '*.c' '*.h')
else
	mapfile -t files < <(find src tests tools -name '*.[ch]' | sort)
fi
check . "${files[@]}"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check-docs.sh - the documents name only what exists
#
#   check-docs.sh TOP
#	in the tree at TOP, prints each finding and exits 1 if there is any:
#	- every `name()` in docs/design.md, and every name() in a theory
#	  block (the comment from "DOC: Theory of Operation" to its end) of
#	  src/, is defined in src/ (a function, a function-like macro or an
#	  op), unless it is a C library or system call (LIBC below);
#	- every experiment named (X1, X2, ...) in src/, docs/design.md,
#	  README.md and man/slipway.1 has its entry in docs/experiments.md;
#	- every op of struct edge_ops (src/edge/edge.h) has a row in
#	  design.md's table of the edge contract;
#	- design.md's list of theory blocks (the paragraph that starts
#	  "State machines") names exactly the files of src/ that have one;
#	- every theory block longer than THEORY_LONG lines has sub-headings
#	  (at least one line " * Title" followed by " * -----", the dashes
#	  as long as the title).
#   check-docs.sh --self-test TOP
#	proves each check can fail: in a scratch copy of TOP's docs/ and
#	src/, one planted mistake per check must be found, alone
# shellcheck disable=SC2016 # backquotes are the documents' own, literal
set -u

# C library and system calls the documents name (no definition in src/)
LIBC="abort bind clone connect epoll_wait execve getopt_long getrandom
if_nametoindex isatty kill le16toh listen open openat poll pread ptrace
read recvfrom recvmmsg send sendmmsg sendmsg sendto setns socket splice
write writev"
# named in a theory block as another program's: Go's exec.Cmd method
OTHERS="CombinedOutput"

# a theory block of more lines than this (from its "DOC:" line to its end,
# both counted) needs sub-headings
THEORY_LONG=30

# defined_names SRCDIR - every name SRCDIR defines, one a line: the first
# name before "(" on a line that starts a declaration or definition (at
# column 0), a function-like macro, a function-pointer member
defined_names() {
	{
		grep -rhE '^[A-Za-z_][^(]*\(' --include='*.c' --include='*.h' "$1" |
			sed -E 's/^([^(]*[^A-Za-z0-9_])?([A-Za-z_][A-Za-z0-9_]*)\(.*/\2/'
		grep -rhoE '#define [A-Za-z_][A-Za-z0-9_]*\(|\(\*[A-Za-z_][A-Za-z0-9_]*\)\(' \
			--include='*.c' --include='*.h' "$1" | grep -oE '[A-Za-z_][A-Za-z0-9_]*'
	} | sort -u
}

# theory_files SRCDIR - the files of SRCDIR with a theory block, relative
theory_files() {
	(cd "$1" && grep -rl --include='*.c' --include='*.h' \
		'DOC: Theory of Operation' . | sed 's|^\./||' | sort)
}

# check TOP - print each finding; status 1 if any
check() {
	local top=$1 bad=0 n x op want got ops
	local src=$top/src design=$top/docs/design.md

	# 1. names
	declare -A def=()
	for n in $(defined_names "$src") $LIBC $OTHERS; do
		def[$n]=1
	done
	for n in $({
		grep -ohE '`[A-Za-z][A-Za-z0-9_]*\(\)`' "$design" | tr -d '`()'
		# one awk over every theory block (a fork a file is slow on a
		# loaded machine)
		# shellcheck disable=SC2046 # file names have no spaces
		awk 'FNR == 1 { p = 0 }
		     /DOC: Theory of Operation/ { p = 1 }
		     p { print }
		     p && /\*\// { p = 0; nextfile }' \
			$(theory_files "$src" | sed "s|^|$src/|") |
			grep -ohE '(^|[^A-Za-z0-9_*.>])[A-Za-z][A-Za-z0-9_]*\(\)' |
			sed -E 's/^[^A-Za-z]//; s/\(\)$//'
	} | sort -u); do
		[ -n "${def[$n]-}" ] && continue
		echo "docs: $n() is named but defined nowhere in src/"
		bad=1
	done

	# 2. experiments
	declare -A entry=()
	for x in $(grep -oE '^## X[0-9]+\. ' "$top/docs/experiments.md" |
		grep -oE 'X[0-9]+'); do
		entry[$x]=1
	done
	for x in $({
		cat "$top/README.md" "$design" "$top/man/slipway.1"
		find "$src" -name '*.[ch]' -exec cat {} +
	} 2>/dev/null | grep -oE '(^|[^A-Za-z0-9_])X[0-9]+\b' | grep -oE 'X[0-9]+' | sort -u); do
		[ -n "${entry[$x]-}" ] && continue
		echo "docs: experiment $x is named but docs/experiments.md has no entry $x"
		bad=1
	done
	if grep -rnE 'experiments\.md[^)]{0,20}\(X[^0-9]' "$design" "$src" >/dev/null; then
		echo "docs: an experiment named without its number: $(grep -rnE 'experiments\.md[^)]{0,20}\(X[^0-9]' "$design" "$src" | head -1)"
		bad=1
	fi

	# 3. edge ops
	ops=$(grep -E '^\| `' "$design")
	for op in $(grep -oE '\(\*[a-z_]+\)\(' "$src/edge/edge.h" | tr -d '(*)'); do
		case $ops in *"\`$op\`"*) continue ;; esac
		echo "docs: edge op $op has no row in design.md's edge contract table"
		bad=1
	done

	# 4. the list of theory blocks
	want=$(theory_files "$src" | xargs -n1 basename | sort | tr '\n' ' ')
	got=$(awk '/^State machines/ { p = 1 } p && /^$/ { exit } p' "$design" |
		grep -oE '`[a-z_0-9]+\.[ch]`' | tr -d '`' | sort | tr '\n' ' ')
	if [ "$want" != "$got" ]; then
		echo "docs: design.md lists the theory blocks of: $got; the files that have one: $want"
		bad=1
	fi

	# 5. sub-headings in long theory blocks, one awk over every file
	# shellcheck disable=SC2046 # file names have no spaces
	x=$(awk -v src="$src/" -v long="$THEORY_LONG" '
		FNR == 1 { p = 0 }
		/DOC: Theory of Operation/ { p = 1; len = 0; head = 0; prev = "" }
		p { len++
		    if ($0 ~ /^ \* -+$/ && prev ~ /^ \* [^ -]/ &&
			length($0) == length(prev))
			    head = 1
		    prev = $0 }
		p && /\*\// { p = 0
		    if (len > long && !head)
			    printf "docs: %s: its theory block has %d lines and no sub-heading (a line \" * Title\" followed by \" * -----\" as long)\n",
				   substr(FILENAME, length(src) + 1), len
		    nextfile }' $(theory_files "$src" | sed "s|^|$src/|"))
	if [ -n "$x" ]; then
		echo "$x"
		bad=1
	fi
	return $bad
}

if [ "${1-}" != "--self-test" ]; then
	[ $# -eq 1 ] || { echo "usage: $0 TOP" >&2; exit 2; }
	check "$1" || exit 1
	echo "docs: ok ($1)"
	exit 0
fi

[ $# -eq 2 ] || { echo "usage: $0 --self-test TOP" >&2; exit 2; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/t/man"
cp -R "$2/src" "$2/docs" "$tmp/t/" && cp "$2/README.md" "$tmp/t/" &&
	cp "$2/man/slipway.1" "$tmp/t/man/" || exit 2
check "$tmp/t" >/dev/null || { echo "self-test: the real tree fails; see docs"; exit 1; }

fails=0
# plant FILE SED EXPECT - edit FILE (under the copy) with the sed
# expression SED: the check must fail with one finding matching EXPECT;
# FILE is put back after
plant() {
	cp "$tmp/t/$1" "$tmp/orig"
	sed -i "$2" "$tmp/t/$1"
	if check "$tmp/t" >"$tmp/log"; then
		echo "self-test: $1 with \"$2\" passed the check"
		fails=1
	elif [ "$(wc -l <"$tmp/log")" != 1 ] || ! grep -q "$3" "$tmp/log"; then
		echo "self-test: $1 with \"$2\": expected one finding like '$3', got:"
		cat "$tmp/log"
		fails=1
	else
		cat "$tmp/log"
	fi
	cp "$tmp/orig" "$tmp/t/$1"
}
plant docs/design.md '$a See `no_such_function()`.' 'no_such_function() is named'
plant src/core/tcp.c 's/DOC: Theory of Operation/&: calls gone_away()/' \
	'gone_away() is named'
plant docs/design.md '$a As experiment X999 showed.' 'experiment X999'
plant src/edge/edge.h '$a struct edge_ops2 { int (*zz_op)(struct edge *e); };' \
	'edge op zz_op'
plant src/shard/mbox.c 's/DOC: Theory of Operation/DOC: theory/' \
	'lists the theory blocks'
plant src/core/tcp.c '/^ \* -\+$/d' 'core/tcp.c: its theory block has'
[ $fails -eq 0 ] || exit 1
echo "self-test: every check finds its planted mistake"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t_cli_corpus.sh - the three command lines (slipway's, pasta's and
# passt's, slirp4netns's) give the same result as before a change: each
# line of the corpus is parsed by conf_dump (every field of the parsed
# configuration, or the parser's message), and what it printed on standard
# output and standard error, with its exit status, is compared with the
# expected file
#
#   t_cli_corpus.sh CONF_DUMP CORPUS EXPECTED
#	run the corpus, exit 1 on the first line whose result differs (the
#	difference shown)
#   t_cli_corpus.sh --regen CONF_DUMP CORPUS EXPECTED
#	write EXPECTED from CONF_DUMP: only on purpose, from the code whose
#	behaviour is the reference
#
# A corpus line is ARGV0 and its arguments in shell quoting, as conf_dump
# takes them; "@root " first parses it as root (geteuid() 0), else as user
# 1000. Blank lines and lines from '#' are skipped. Each line runs in a
# scratch directory of its own (files a parse opens, -l and -P, land
# there), named $TMP in the output.

set -u
regen=0
if [ "${1:-}" = --regen ]; then
	regen=1
	shift
fi
[ $# = 3 ] || {
	echo "usage: $0 [--regen] CONF_DUMP CORPUS EXPECTED" >&2
	exit 2
}
dump=$(realpath "$1")
corpus=$(realpath "$2")
expected=$3
tmp=$(mktemp -d /tmp/cli_corpus.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# run_line N LINE: the record of corpus line LINE, in scratch directory N
run_line() {
	local d=$tmp/w$1 orig=$2 line=$2 euid=1000 rc
	case "$line" in
	'@root '*)
		euid=0
		line=${line#@root }
		;;
	esac
	mkdir "$d"
	eval "set -- $line"
	(cd "$d" && CONF_DUMP_EUID=$euid exec "$dump" "$@" >"$tmp/out" \
		2>"$tmp/err" </dev/null)
	rc=$?
	printf '### %s\nexit %d\n--- stdout\n' "$orig" "$rc"
	cat "$tmp/out"
	printf -- '--- stderr\n'
	cat "$tmp/err"
}

# run_all: the records of every corpus line, the scratch directories
# named $TMP
run_all() {
	local line n=0
	while IFS= read -r line; do
		case "$line" in
		'' | '#'*) continue ;;
		esac
		n=$((n + 1))
		run_line "$n" "$line"
	done <"$corpus" | sed -E "s|$tmp/w[0-9]+|\$TMP|g"
}

if [ $regen = 1 ]; then
	run_all >"$expected"
	echo "wrote $expected: $(grep -c '^### ' "$expected") lines"
	exit 0
fi
run_all >"$tmp/actual"
n=$(grep -c '^### ' "$tmp/actual")
if ! diff -u "$expected" "$tmp/actual" >"$tmp/diff"; then
	head -60 "$tmp/diff"
	echo "FAIL: the parse of some of the $n command lines changed"
	exit 1
fi
echo "PASS: $n command lines parse as before"

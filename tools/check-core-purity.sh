#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-core-purity.sh - the core's objects call nothing outside an allowlist
#
#   check-core-purity.sh NM FILE...
#	FILE: libcore.a or objects. Every symbol they leave undefined and do
#	not define among themselves must be in ALLOW, or start with one of
#	ALLOW_PREFIX (what sanitizers insert). Prints each other one with the
#	object naming it; exit 1 if there is any.
#   check-core-purity.sh --self-test NM CC SRCDIR LIB
#	proves both guards can fail: a scratch copy of core/csum.c with a
#	call to write() appended must not compile with -DSLIPWAY_CORE_BUILD
#	and util/pure.h forced, as the core is built (it poisons the call),
#	and, built without the poison, LIB plus that object must fail the
#	check above.
#
# The allowlist is what the core really uses: the four mem* functions (and
# their _FORTIFY_SOURCE forms), the stack protector, and assert_fail(),
# which util.h declares and each program linking the core defines.
set -u

ALLOW='memcpy memmove memset memcmp __memcpy_chk __memmove_chk __memset_chk
__stack_chk_fail assert_fail _GLOBAL_OFFSET_TABLE_'
ALLOW_PREFIX='__asan_ __ubsan_ __tsan_ __sanitizer_ __gcov_ __llvm_'

# check NM FILE... - print the forbidden references; status 1 if any
check() {
	nm=$1
	shift
	defined=$("$nm" --defined-only -g "$@") || return 2
	defined=$(echo "$defined" | awk 'NF == 3 { print $3 }')
	undef=$("$nm" -A -u "$@") || return 2
	echo "$undef" | awk -v allow="$ALLOW" -v prefix="$ALLOW_PREFIX" \
		-v defined="$defined" '
	BEGIN {
		n = split(allow, a); for (i = 1; i <= n; i++) ok[a[i]] = 1
		np = split(prefix, pre)
		n = split(defined, d, "\n"); for (i = 1; i <= n; i++) ok[d[i]] = 1
	}
	NF >= 2 && $(NF - 1) == "U" {
		sym = $NF
		if (sym in ok)
			next
		for (i = 1; i <= np; i++)
			if (index(sym, pre[i]) == 1)
				next
		sub(/:$/, "", $1)
		print "core-purity: " $1 " calls " sym
		bad = 1
	}
	END { exit bad }'
}

if [ "${1-}" != "--self-test" ]; then
	[ $# -ge 2 ] || { echo "usage: $0 NM FILE..." >&2; exit 2; }
	check "$@" || {
		echo "core-purity: core/ and util/ may call only:" $ALLOW >&2
		exit 1
	}
	echo "core-purity: ok ($(shift; echo "$@"))"
	exit 0
fi

[ $# -eq 5 ] || { echo "usage: $0 --self-test NM CC SRCDIR LIB" >&2; exit 2; }
nm=$2 cc=$3 src=$4 lib=$5
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
{
	cat "$src/core/csum.c"
	printf '\nlong write(int fd, const void *buf, unsigned long n);\n'
	printf 'long purity_canary(void);\n'
	printf 'long purity_canary(void) { return write(2, "x", 1); }\n'
} > "$tmp/csum.c"

if $cc -DSLIPWAY_CORE_BUILD -include util/pure.h -I"$src/core" -I"$src" \
	-c "$tmp/csum.c" \
	-o "$tmp/poisoned.o" 2>"$tmp/cc.log"; then
	echo "self-test: a core file calling write() compiled under the poison"
	exit 1
fi
if ! grep -q 'poisoned "write"' "$tmp/cc.log"; then
	echo "self-test: the poisoned build failed for another reason:"
	cat "$tmp/cc.log"
	exit 1
fi
echo "self-test: util/pure.h rejects write() at compile time"

# the same scratch file without the poison, as an edited build would be
$cc -I"$src/core" -I"$src" -O2 -c "$tmp/csum.c" -o "$tmp/csum.o" || exit 1
check "$nm" "$lib" >/dev/null || {
	echo "self-test: the real core fails the check; see core-purity"
	exit 1
}
if check "$nm" "$lib" "$tmp/csum.o" > "$tmp/check.log"; then
	echo "self-test: the check accepted a core object calling write()"
	exit 1
fi
cat "$tmp/check.log"
if ! grep -q ' calls write$' "$tmp/check.log" ||
   [ "$(wc -l < "$tmp/check.log")" -ne 1 ]; then
	echo "self-test: expected exactly one finding, write()"
	exit 1
fi
echo "self-test: nm -u rejects write() in a core object"

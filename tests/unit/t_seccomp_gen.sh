#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t_seccomp_gen.sh - tools/seccomp-gen.sh reads only the exact annotation
#
#   t_seccomp_gen.sh GENERATOR
#
# " * #syscalls name..." adds names, " * #syscalls:setup name..." does not,
# "#syscalls" further along a line (prose) adds nothing whatever follows
# it, and a comment line starting with "#syscalls" in any other shape stops
# the generator with an error naming the line.
set -u
gen=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}
# has NAME: the generated list names NAME
has() {
	grep -q "\"$1\" }" "$T/out.h"
}

mkdir "$T/src"
cat >"$T/src/a.c" <<'EOC'
/**
 * f() - the accepted forms, and prose
 *
 * Like the #syscalls clone line of g(), and see #syscalls ptrace there.
 * // #syscalls in a path: src/#syscalls execve
 *
 * #syscalls recvmmsg sendmmsg
 * #syscalls:setup mount
 */
EOC
"$gen" "$T/out.h" "$T/src" || fail "the well-formed tree was refused"
has recvmmsg && has sendmmsg || fail "an annotated call is missing"
has brk && has futex || fail "the base list is missing"
! has mount || fail "a #syscalls:setup call is on the list"
for n in clone ptrace execve; do
	! has $n || fail "prose added $n"
done

# malformed: each must stop the generator, and leave no output
for line in ' * #syscalls clone, execve' ' * #syscalls  clone' \
	' * #syscalls: clone' ' * #syscalls:Setup mount' ' * #syscalls clone ' \
	' * #syscalls' '	* #syscalls clone' ' *	#syscalls clone' \
	'/* #syscalls clone */' '// #syscalls clone' ' * #syscalls CLONE' \
	' * #syscalls:setup' ' * #syscallsclone'; do
	printf '/**\n * g() - x\n *\n%s\n */\n' "$line" >"$T/src/b.c"
	rm -f "$T/out.h"
	if "$gen" "$T/out.h" "$T/src" 2>"$T/err"; then
		fail "accepted the malformed line '$line'"
	fi
	grep -q 'b.c:4:' "$T/err" || fail "the error does not name the line: $(cat "$T/err")"
	[ ! -e "$T/out.h" ] || fail "output written for '$line'"
done
echo "PASS: seccomp-gen.sh reads exact annotations only; prose ignored; malformed lines refused"

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
# setsockopt(): each call's (level, option) pair goes on the list when its
# function's kernel-doc names setsockopt on a #syscalls line, not on a
# #syscalls:setup one, not from prose; a call whose level or option is no
# named constant, or under a comment that names setsockopt on no
# #syscalls line, stops the generator naming the call.
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
# setsockopt() pairs: from the calls, not from prose or set-up code
rm -f "$T/src/b.c"
cat >"$T/src/c.c" <<'EOC'
/**
 * run() - made after set-up; a call split over lines
 *
 * Prose: setsockopt(fd, IPPROTO_IP, IP_TRANSPARENT, ...) is not ours.
 * #syscalls setsockopt
 */
static void run(int fd)
{
	/* setsockopt(fd, SOL_SOCKET, SO_MARK) would be bad */
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &l,
		   sizeof(l));
	if (setsockopt(fd,
		       IPPROTO_TCP,
		       TCP_NODELAY, &one, sizeof(one)))
		return;
	x = ssetsockopt(fd, IPPROTO_IP, IP_HDRINCL, &one, 4);
}

/**
 * setup() - made before the sandbox
 *
 * #syscalls:setup socket setsockopt
 */
static void setup(int fd)
{
	setsockopt(fd, IPPROTO_IP, IP_FREEBIND, &one, sizeof(one));
}
EOC
"$gen" "$T/out.h" "$T/src" || fail "the setsockopt calls were refused"
grep -q '{ SOL_SOCKET, SO_LINGER, ' "$T/out.h" &&
	grep -q '{ IPPROTO_TCP, TCP_NODELAY, ' "$T/out.h" ||
	fail "a setsockopt pair in use is missing: $(grep -A5 seccomp_sockopt "$T/out.h")"
grep -q 'define SECCOMP_SOCKOPT_N 2$' "$T/out.h" ||
	fail "other pairs are listed: $(grep -A5 seccomp_sockopt "$T/out.h")"
for n in IP_TRANSPARENT SO_MARK IP_HDRINCL IP_FREEBIND; do
	! grep -q "$n" "$T/out.h" || fail "$n is listed"
done

# no named constant, or no #syscalls line naming it: refused, with the call
for call in 'setsockopt(fd, lvl, SO_LINGER, &l, sizeof(l));' \
	'setsockopt(fd, SOL_SOCKET, q ? SO_SNDBUF : SO_RCVBUF, &v, 4);' \
	'setsockopt(fd, SOL_SOCKET, 7, &v, 4);'; do
	printf '/**\n * d() - x\n *\n * #syscalls setsockopt\n */\nvoid d(void)\n{\n\t%s\n}\n' \
		"$call" >"$T/src/d.c"
	rm -f "$T/out.h"
	if "$gen" "$T/out.h" "$T/src" 2>"$T/err"; then
		fail "accepted '$call'"
	fi
	grep -q 'd.c:8: ' "$T/err" || fail "the error does not name the call: $(cat "$T/err")"
	[ ! -e "$T/out.h" ] || fail "output written for '$call'"
done
printf '/**\n * d() - x\n *\n * #syscalls close\n */\nvoid d(void)\n{\n\t%s\n}\n' \
	'setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));' >"$T/src/d.c"
if "$gen" "$T/out.h" "$T/src" 2>"$T/err"; then
	fail "accepted a setsockopt() that its #syscalls lines do not name"
fi
grep -q 'd.c:8: ' "$T/err" || fail "the error does not name the call: $(cat "$T/err")"
echo "PASS: seccomp-gen.sh reads exact annotations only; prose ignored; malformed lines refused; setsockopt pairs from the calls"

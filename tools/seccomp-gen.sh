#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# seccomp-gen.sh - build the seccomp allowlist header from the source tree
#
#   tools/seccomp-gen.sh OUTPUT SRCDIR
#
# Every function that makes system calls says so in its kernel-doc comment:
#
#	 * #syscalls recvmmsg sendmmsg
#
# The allowlist is the union of those names over every file under SRCDIR,
# plus the base list below (what libc does on our behalf). A line tagged
#
#	 * #syscalls:setup unshare mount
#
# names calls made only before the sandbox is entered (in start-up code or
# in helper children forked before it): they are left out, so that the
# running gateway cannot make them. Nothing else is special: a new file,
# or a new function with its own line, slots in without touching this
# script.
#
# Only that exact form is read: a comment line (in a .c or .h file) that is
# " * #syscalls" or " * #syscalls:setup", then names of [a-z0-9_], each
# after one space, and nothing else. A comment line whose text starts with
# "#syscalls" in any other shape (a comma, a colon too many, a tab, a word
# in capitals, trailing blanks) stops the build: a typo must not quietly
# add or drop a name. "#syscalls" further along a line is prose and never
# read, whatever follows it.
#
# setsockopt() is allowed only with the (level, option) pairs that code
# after set-up passes it, and those are read from the calls themselves:
# every "setsockopt(" in a .c or .h file outside comments, its second and
# third arguments. Each must be a named constant (SOL_SOCKET, SO_LINGER: a
# variable or an expression there stops the build: the pair could not be
# known), and the call's function must name setsockopt on a #syscalls
# line of the kernel-doc comment right before it: on a plain one, the pair
# goes on the list; on a #syscalls:setup one, it does not (the call is
# made before the sandbox). A call under a comment that names setsockopt
# on neither stops the build too. So a new setsockopt() cannot be
# forgotten, and the list is exactly what the code uses.
#
# The output is a C header with one entry per name, each guarded by
# #ifdef __NR_name: a name the architecture lacks (open, waitpid on
# x86_64) drops out at compile time, and the numbers come from the same
# <sys/syscall.h> the code is built with. src/os/seccomp.c turns the
# list into a BPF program. The header is build output, never committed.
set -eu
out=$1
src=$2

# The base list: system calls that libc (and the kernel's own signal
# return path) make for us without a line of ours naming them.
#   memory:   brk mmap munmap mremap mprotect madvise (malloc, thread stacks)
#   threads:  futex (mutexes, barriers, pthread_join), exit (a thread's end),
#             set_robust_list rseq (what a new thread does first: the
#             filter may reach it, through TSYNC, before it got there)
#   signals:  rt_sigreturn (return from any handler), rt_sigprocmask
#             (libc masks signals around some calls), restart_syscall
#   time:     clock_gettime gettimeofday (vDSO fallbacks), nanosleep
#             clock_nanosleep (usleep, sleep)
#   process:  exit_group (exit), getpid gettid tgkill (abort() on ASSERT),
#             sched_yield
#   misc:     getrandom (malloc's tcache randomisation in glibc 2.36+),
#             fstat newfstatat (stdio's first use of a FILE), lseek
# Thread creation (clone, clone3) is deliberately absent: the shard
# threads exist before the filter is installed (SECCOMP_FILTER_FLAG_TSYNC
# gives it to all of them), and nothing may start a process later.
base="brk mmap munmap mremap mprotect madvise
futex exit set_robust_list rseq
rt_sigreturn rt_sigprocmask restart_syscall
clock_gettime gettimeofday nanosleep clock_nanosleep
exit_group getpid gettid tgkill sched_yield
getrandom fstat newfstatat lseek"

# every comment line whose text starts with "#syscalls" (file:line:text)
lines=$(grep -rnE --include='*.c' --include='*.h' \
	'^[[:space:]]*(/\*+|\*|//)[[:space:]]*#syscalls' "$src" || true)
bad=$(printf '%s\n' "$lines" |
	grep -vE '^[^:]+:[0-9]+: \* #syscalls(:setup)?( [a-z0-9_]+)+$' |
	grep -v '^$' || true)
if [ -n "$bad" ]; then
	printf '%s\n' "seccomp-gen.sh: malformed #syscalls line (the form is \" * #syscalls[:setup] name name...\"):" "$bad" >&2
	exit 1
fi

names=$( {
	printf '%s\n' $base
	# " * #syscalls name...", not " * #syscalls:setup name..."
	printf '%s\n' "$lines" |
		sed -nE 's/^[^:]+:[0-9]+: \* #syscalls( [a-z0-9_]+)+$/&/p' |
		sed -E 's/^[^:]+:[0-9]+: \* #syscalls //' | tr ' ' '\n'
} | grep -E '^[a-z0-9_]+$' | LC_ALL=C sort -u)

# setsockopt() pairs: "LEVEL OPT file:line" for each call made after set-up
# (the first call of each pair is named)
pairs=$(find "$src" \( -name '*.c' -o -name '*.h' \) -type f | LC_ALL=C sort |
	xargs awk -v src="$src/" '
	function fail(msg) {
		printf "%s:%d: %s\n", substr(FILENAME, length(src) + 1), cl, msg > "/dev/stderr"
		bad = 1
	}
	FNR == 1 { doc = 0; rt = 0; setup = 0; pend = "" }
	# a kernel-doc comment: what its #syscalls lines say of setsockopt
	!doc && /^[ \t]*\/\*\*([^\/]|$)/ { doc = 1; rt = 0; setup = 0 }
	doc {
		if ($0 ~ /^ \* #syscalls( [a-z0-9_]+)* setsockopt( |$)/)
			rt = 1
		if ($0 ~ /^ \* #syscalls:setup( [a-z0-9_]+)* setsockopt( |$)/)
			setup = 1
		if ($0 ~ /\*\//)
			doc = 0
		next
	}
	pend == "" && /^[ \t]*(\*|\/\*|\/\/)/ { next }
	{
		if (pend == "") {
			if (!match($0, /(^|[^A-Za-z0-9_])setsockopt[ \t]*\(/))
				next
			pend = substr($0, RSTART + RLENGTH)
			cl = FNR
		} else {
			pend = pend " " $0
		}
		if (gsub(/,/, ",", pend) < 3 && pend !~ /\)/)
			next
		n = split(pend, a, ",")
		lvl = a[2]; opt = a[3]
		gsub(/^[ \t]+|[ \t]+$/, "", lvl)
		gsub(/^[ \t]+|[ \t]+$/, "", opt)
		pend = ""
		if (n < 4 || lvl !~ /^[A-Z][A-Z0-9_]*$/ || opt !~ /^[A-Z][A-Z0-9_]*$/)
			fail("setsockopt(): the level and the option must be named constants")
		else if (rt)
			printf "%s %s %s:%d\n", lvl, opt, substr(FILENAME, length(src) + 1), cl
		else if (!setup)
			fail("setsockopt() under a kernel-doc comment that names it on no #syscalls line")
	}
	END { exit bad }') || {
	echo "seccomp-gen.sh: setsockopt() calls the allowlist cannot take (see above)" >&2
	exit 1
}
pairs=$(printf '%s\n' "$pairs" | grep -v '^$' | LC_ALL=C sort -k1,1 -k2,2 -k3,3V |
	awk '!seen[$1 " " $2]++')

tmp=$out.tmp
{
	echo "/* Generated by tools/seccomp-gen.sh from the #syscalls lines in src/: do not edit */"
	echo "#ifndef SLIPWAY_SECCOMP_ALLOW_H"
	echo "#define SLIPWAY_SECCOMP_ALLOW_H"
	echo "#include <sys/syscall.h>"
	echo ""
	echo "/* names, for the log and the tests */"
	echo "static const struct { long nr; const char *name; } seccomp_allow[] = {"
	for n in $names; do
		printf '#ifdef __NR_%s\n\t{ __NR_%s, "%s" },\n#endif\n' "$n" "$n" "$n"
	done
	echo "};"
	echo ""
	echo "/* setsockopt(): the (level, option) pairs that code after set-up uses,"
	echo " * each with its first call */"
	echo "#include <netinet/in.h>"
	echo "#include <netinet/tcp.h>"
	echo "#include <sys/socket.h>"
	echo "#define SECCOMP_SOCKOPT_N $(printf '%s\n' "$pairs" | grep -c .)"
	echo "static const struct { int level, opt; const char *name; } seccomp_sockopt[] = {"
	printf '%s\n' "$pairs" | while read -r l o w; do
		[ -n "$l" ] || continue
		printf '\t{ %s, %s, "%s %s" }, /* %s */\n' "$l" "$o" "$l" "$o" "$w"
	done
	echo "	{ -1, -1, \"\" } /* (not counted: the list may be empty) */"
	echo "};"
	echo ""
	echo "#endif /* SLIPWAY_SECCOMP_ALLOW_H */"
} >"$tmp"
mv "$tmp" "$out"

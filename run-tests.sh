#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-tests.sh - build slipway twice (plain with -Werror, and ASan+UBSan),
# run every test suite in both (unit, fuzz corpus replay, integration with
# real namespaces), the threaded integration tests in a third build with
# ThreadSanitizer, optionally a bounded libFuzzer run, and end with the
# line "N passed, N failed".
#   FUZZ_SECONDS=N  seconds per libFuzzer target (default 4; 0: replay only)
set -u
cd "$(dirname "$0")"
top=$PWD
FUZZ_SECONDS=${FUZZ_SECONDS:-4}
tools/deps.sh || exit 1
[ "$FUZZ_SECONDS" -gt 0 ] && { WITH_CLANG=1 tools/deps.sh || exit 1; }

setup() { # dir [meson options]
	local d=$1
	shift
	if [ ! -f "$d/build.ninja" ]; then
		meson setup "$d" "$@" >"$d.setup.log" 2>&1 ||
			{ cat "$d.setup.log"; echo "0 passed, 1 failed"; exit 1; }
	fi
	ninja -C "$d" >"$d.build.log" 2>&1 ||
		{ tail -40 "$d.build.log"; echo "0 passed, 1 failed"; exit 1; }
}
setup build --werror
setup build-asan --werror -Db_sanitize=address,undefined -Db_lundef=false
# -Wno-tsan: GCC warns that TSan does not model atomic_thread_fence(); ours
# order guest-memory accesses against the vhost-user frontend, another
# process TSan cannot see anyway
setup build-tsan --werror -Db_sanitize=thread -Db_lundef=false -Dc_args=-Wno-tsan

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
rc=0
meson test -C build --print-errorlogs --num-processes 2 "$@" || rc=1
# the long QEMU guests (suite qemu-long) run in the plain build only:
# each takes a minute or more under TCG, and the vhost-user path they
# drive runs under ASan in the swvu and shorter QEMU tests too
meson test -C build-asan --print-errorlogs --num-processes 2 --no-suite qemu-long "$@" || rc=1
# ThreadSanitizer: the tests whose slipway runs several threads on one
# guest (--shards 2, a multi-queue vhost-user VM, many flows spread over
# the shards, a kill mid-transfer, a live migration with its own thread);
# a race makes slipway exit 66, which the tests see. Not the rootless
# ones: TSan's own thread forbids a user namespace. TSAN_TESTS overrides
# the list ("" skips the tree).
TSAN_TESTS=${TSAN_TESTS-integ-shards integ-parallel-200 integ-qemu-vu-mq integ-vu-proto integ-vu-mq-hostile integ-kill-midtransfer integ-transfer-1g integ-qemu-migrate}
if [ -n "$TSAN_TESTS" ]; then
	# shellcheck disable=SC2086
	TSAN_OPTIONS=halt_on_error=0:exitcode=66:second_deadlock_stack=1:suppressions=$top/tests/tsan.supp \
		SW_SHARDS=2 meson test -C build-tsan --print-errorlogs --num-processes 2 $TSAN_TESTS || rc=1
fi

extra_pass=0
extra_fail=0
if [ "$FUZZ_SECONDS" -gt 0 ]; then
	CC=clang setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false
	for f in build-fuzz/tests/fuzz/fuzz_*; do
		[ -f "$f" ] && [ -x "$f" ] || continue
		n=$(basename "$f")
		mkdir -p "build-fuzz/corpus-$n"
		if "$f" -seed=1 -max_total_time="$FUZZ_SECONDS" "build-fuzz/corpus-$n" \
			"tests/fuzz/corpus/$n" >"build-fuzz/$n.log" 2>&1; then
			echo "libFuzzer $n: ok ($(grep -o 'exec/s: [0-9]*' "build-fuzz/$n.log" | tail -1))"
			extra_pass=$((extra_pass + 1))
		else
			echo "libFuzzer $n: FAILED, see build-fuzz/$n.log"
			tail -30 "build-fuzz/$n.log"
			extra_fail=$((extra_fail + 1))
			rc=1
		fi
	done
fi

# count from meson's own logs: every test in both builds
tsan_dir=
[ -n "$TSAN_TESTS" ] && tsan_dir=$top/build-tsan
read -r p f s < <(/usr/bin/python3 - "$top/build" "$top/build-asan" $tsan_dir <<'PY'
import json, sys
p = f = s = 0
for d in sys.argv[1:]:
    try:
        lines = open(d + "/meson-logs/testlog.json").read().splitlines()
    except OSError:
        f += 1
        continue
    for l in lines:
        r = json.loads(l)["result"]
        if r in ("OK", "EXPECTEDFAIL"):
            p += 1
        elif r == "SKIP":
            s += 1
        else:
            f += 1
print(p, f, s)
PY
)
p=$((p + extra_pass))
f=$((f + extra_fail))
[ "$f" -gt 0 ] && rc=1
echo "$p passed, $f failed, $s skipped"
exit $rc

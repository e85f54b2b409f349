#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/fuzz/run-fuzz.sh - a bounded fuzzing run inside `make check` (picked up by tests/run.sh).
#
# Builds the libFuzzer targets (make fuzz-build, clang) and runs each for PT_FUZZ_RUNS inputs
# (default 200000) from a fixed PT_FUZZ_SEED (default 1), at most PT_FUZZ_SECONDS (default 20),
# over its seed corpus tests/fuzz/corpus/NAME/ (which holds every input that once
# found a bug, so those run first, every time). Any crash, sanitizer report, leak or failed
# check fails the test; the input is left in build-fuzz/crash-*. Exit 77 (skipped) when clang
# cannot build a libFuzzer program. Nothing is written to tests/fuzz/corpus/.
#
# The seed and the run count make this run reproducible: `make check` passes or fails the same
# way on every machine for the same tree (a slower one may stop earlier, on a prefix of the same
# inputs), so CI does not fail by the luck of a random seed. Open-ended, randomly seeded fuzzing
# is `make fuzz`.
#
# Building the targets first takes minutes on a loaded machine: tests/run.sh gives it longer.
# pt-timeout-factor: 3

cd "$(dirname "$0")/../.." || exit 2
secs=${PT_FUZZ_SECONDS:-20}
runs=${PT_FUZZ_RUNS:-200000}
seed=${PT_FUZZ_SEED:-1}
CC=${FUZZ_CC:-clang}

probe=$(mktemp -d) || exit 2
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\n%s\n' \
	'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return 0; }' \
	>"$probe/p.c"
if ! command -v "$CC" >/dev/null 2>&1 ||
	! "$CC" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" >/dev/null 2>&1; then
	rm -rf "$probe"
	echo "skip: $CC cannot build libFuzzer targets"
	exit 77
fi
rm -rf "$probe"

make --no-print-directory -j"$(nproc 2>/dev/null || echo 2)" fuzz-build || exit 1

# A directory of its own: several `make check` may run at once in one tree.
mkdir -p build-fuzz && work=$(mktemp -d build-fuzz/check.XXXXXX) || exit 2
status=0
for t in build-fuzz/fuzz_*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	n=${t##*/}
	mkdir -p "$work/$n" tests/fuzz/corpus/"$n"
	echo "== $n (seed $seed, $runs runs, at most ${secs}s)"
	# -error_exitcode: libFuzzer's default is 77, which tests/run.sh would count as skipped
	"$t" -seed="$seed" -runs="$runs" -max_total_time="$secs" -rss_limit_mb=2048 -error_exitcode=1 -timeout=25 \
		-print_final_stats=1 -artifact_prefix=build-fuzz/ \
		"$work/$n" tests/fuzz/corpus/"$n" >"$work/$n.log" 2>&1
	rc=$?
	grep -E '^stat::number_of_executed_units|^Done' "$work/$n.log"
	if [ $rc -ne 0 ]; then
		echo "FAIL $n (exit $rc):"
		grep -v '^INFO:\|^#[0-9]' "$work/$n.log" | tail -n 40
		status=1
	fi
done
# The logs of a failed run stay for a look; a passing run leaves nothing behind.
[ $status -eq 0 ] && rm -rf "$work"
exit $status

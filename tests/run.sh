#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/run.sh - the runner behind `make check` (the builds are made before it runs).
#
# Runs, each bounded by `timeout 300`:
#   build/tests/test_*  and  build-san/tests/test_*       unit tests (cmocka)
#   tests/scenarios/*.sim through build/pkttables sim  and  build-san/pkttables sim
#   every executable tests/*/run-*.sh                       other suites (exit 77 = skipped;
#                                                           PT_BIN names the binary to use)
# One line per test: PASS|FAIL|SKIP name. The last line is exactly "N passed, N failed, N skipped".
# Exit status 1 if anything failed.
#
# A suite that needs longer (it builds something first, e.g. the fuzz targets) says so in a line
# "# pt-timeout-factor: N" of its own: its bound is N times the common one.
#
# Environment: PT_NO_SAN=1 skips the build-san ones; PT_TEST_TIMEOUT overrides 300 (seconds);
# PT_VERBOSE=1 prints the whole output of failed tests (otherwise the last 30 lines);
# PT_BUILD / PT_BUILD_SAN name other build directories (default build, build-san).
# Logs of every test are kept in $PT_BUILD/test-logs/.

cd "$(dirname "$0")/.." || exit 2

limit=${PT_TEST_TIMEOUT:-300}
plain=${PT_BUILD:-build}
san=${PT_BUILD_SAN:-build-san}
logdir=$plain/test-logs
mkdir -p "$logdir" || exit 2
passed=0
failed=0
skipped=0

# Sanitizers: fail loudly at the first report, keep the leak checker on.
ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export ASAN_OPTIONS UBSAN_OPTIONS

have_timeout=""
command -v timeout >/dev/null 2>&1 && have_timeout=1

# run NAME COMMAND... : run one test and account for its result.
run() {
	name=$1
	shift
	bound=$limit
	case $1 in
	tests/*.sh)
		f=$(sed -n 's/^# pt-timeout-factor: *\([0-9][0-9]*\).*/\1/p' "$1" | head -n 1)
		[ -n "$f" ] && bound=$((limit * f))
		;;
	esac
	bounded=""
	[ -n "$have_timeout" ] && bounded="timeout -k 10 $bound"
	log="$logdir/$(printf '%s' "$name" | tr '/ ' '__').log"
	# shellcheck disable=SC2086
	$bounded "$@" >"$log" 2>&1 </dev/null
	rc=$?
	case $rc in
	0)
		echo "PASS $name"
		passed=$((passed + 1))
		;;
	77)
		echo "SKIP $name"
		skipped=$((skipped + 1))
		;;
	*)
		if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
			echo "FAIL $name (timed out after ${bound}s)"
		else
			echo "FAIL $name (exit $rc)"
		fi
		if [ "${PT_VERBOSE:-0}" = 1 ]; then
			sed 's/^/    /' "$log"
		else
			tail -n 30 "$log" | sed 's/^/    /'
		fi
		failed=$((failed + 1))
		;;
	esac
}

builds="$plain"
[ "${PT_NO_SAN:-0}" = 1 ] || builds="$plain $san"

for b in $builds; do
	prefix=""
	[ "$b" = "$san" ] && prefix="san:"
	for t in "$b"/tests/test_*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		run "${prefix}unit/${t##*/}" "$t"
	done
	for s in tests/scenarios/*.sim; do
		[ -f "$s" ] || continue
		if [ ! -x "$b/pkttables" ]; then
			echo "FAIL ${prefix}scenario/${s##*/} ($b/pkttables missing)"
			failed=$((failed + 1))
			continue
		fi
		run "${prefix}scenario/${s##*/}" "$b/pkttables" sim "$s"
	done
done

# Suites find the binary through PT_BIN (tests/diff/run-*.sh do).
PT_BIN=${PT_BIN:-$plain/pkttables}
export PT_BIN
for t in tests/*/run-*.sh; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	d=${t%/*}
	run "${d#tests/}/${t##*/}" "$t"
done

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

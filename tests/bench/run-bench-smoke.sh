#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/bench/run-bench-smoke.sh - the benchmarks still build (-Werror) and run, at sizes that
# take a second, so `make bench` does not rot between the times someone runs it.
#
#   bench_ctl  a 3000-entry table: dump complete over the socket, every event counted
#              (received + lost), the data path forwards during a dump
#   bench_nat  every configuration: flows translated, no new connection dropped
#   bench_engine rules100
#   bench_stack every configuration (the workshop's rows): every packet forwarded
#
# The bench binaries are not part of `make all tests`: this builds them (into the directory of
# PT_BIN, build/ by default) with the same make the check ran. Numbers are not judged here.
cd "$(dirname "$0")/../.." || exit 2
BIN=${PT_BIN:-build/pkttables}
B=$(dirname "$BIN")
case $B in /*) B=${B#"$PWD"/} ;; esac
SAN=
[ "$B" = build-san ] && SAN=1
T="timeout -k 2 60"
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

make --no-print-directory -s SAN=$SAN "$B/bench/bench_ctl" "$B/bench/bench_nat" \
	"$B/bench/bench_engine" "$B/bench/bench_stack" || { echo "FAIL: the bench binaries do not build"; exit 1; }

out=$($T "$B/bench/bench_ctl" --entries 3000 --events 1000 --seconds 0.1) || bad "bench_ctl exit $?"
echo "$out"
echo "$out" | grep -q '^ctl_dump_entries 3000 ' || bad "bench_ctl: the dump is not the whole table"
echo "$out" | grep -q '^datapath_ratio_during_dump ' || bad "bench_ctl: no data-path ratio"

for c in plain snat masquerade new-plain new-snat new-apd new-full; do
	line=$($T "$B/bench/bench_nat" "$c" --packets 1000) || { bad "bench_nat $c exit $?"; continue; }
	echo "$line"
	set -- $line
	[ "$5" = 0 ] || bad "bench_nat $c: $5 dropped"
done

$T "$B/bench/bench_engine" rules100 --packets 2000 || bad "bench_engine exit $?"

for v in "" -v6 -1500; do
	for c in forward conntrack empty full full-rules1000; do
		$T "$B/bench/bench_stack" "$c$v" --packets 2000 || bad "bench_stack $c$v exit $?"
	done
done

[ "$fails" -eq 0 ] && echo "PASS: benches build and run"
[ "$fails" -eq 0 ]

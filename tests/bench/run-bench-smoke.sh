#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/bench/run-bench-smoke.sh - the benchmarks still build (-Werror) and run, at sizes that
# take a second, so `make bench` does not rot between the times someone runs it.
#
#   bench_ctl  a 3000-entry table: dump complete over the socket, every event counted
#              (received + lost), the data path forwards during a dump
#   bench_nat  every configuration: flows translated, no new connection dropped
#   bench_engine rules100
#   bench_set  every set type at 2000 elements: half the packets' keys found (hash:net more)
#   bench_string every scan row (no pattern found where none can be), chains of 1 and 10 rules
#   bench_stack every configuration (the workshop's rows): every packet forwarded;
#              full-rules1000's FORWARD chain compiled, -linear's and full-plain1000's not
#   bench_cls_update, bench_acl  with the ClassBench data (and, for bench_acl, libdpdk)
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
	"$B/bench/bench_engine" "$B/bench/bench_stack" "$B/bench/bench_string" \
	"$B/bench/bench_set" || { echo "FAIL: the bench binaries do not build"; exit 1; }

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

out=$($T "$B/bench/bench_set" --elements 2000 --seconds 0.01 --memory 20000) ||
	bad "bench_set exit $?"
echo "$out"
[ "$(echo "$out" | awk '$4 == "ns" && $1 != "hash:net" && $NF != "0.50"' | wc -l)" = 0 ] ||
	bad "bench_set: a set type did not find half the keys"
echo "$out" | grep -q '^hash:ip 20000 elements' || bad "bench_set: no memory line"

out=$($T "$B/bench/bench_string" scan --packets 1024) || bad "bench_string scan exit $?"
echo "$out"
echo "$out" | grep -q "found?" && bad "bench_string: a pattern that cannot occur was found"
for n in 1 10; do
	$T "$B/bench/bench_string" chain $n --packets 512 || bad "bench_string chain $n exit $?"
	$T "$B/bench/bench_string" chain $n --separate --packets 512 ||
		bad "bench_string chain $n --separate exit $?"
done

for v in "" -v6 -1500; do
	for c in forward conntrack empty full full-rules1000 full-rules1000-linear full-plain1000; do
		$T "$B/bench/bench_stack" "$c$v" --packets 2000 || bad "bench_stack $c$v exit $?"
	done
done
# full-rules1000 is the compiled classifier's row, its -linear twin and full-plain1000 the scan's
out=$($T "$B/bench/bench_stack" full-rules1000 --packets 2 --classifier 2>&1) ||
	bad "bench_stack --classifier exit $?"
echo "$out" | grep -q '^ipv4 filter FORWARD: compiled, 1021 rules' ||
	bad "bench_stack full-rules1000: FORWARD not compiled"
for c in full-rules1000-linear full-plain1000-v6; do
	out=$($T "$B/bench/bench_stack" $c --packets 2 --classifier 2>&1) ||
		bad "bench_stack $c --classifier exit $?"
	echo "$out" | grep -q 'filter FORWARD: linear, 1021 rules (mode linear)' ||
		bad "bench_stack $c: FORWARD not scanned"
done
# with the ClassBench data (../shared, research use, read in place): a reload of acl1_1k's
# chain with one rule changed is made from the running classifier; rte_acl where DPDK is in
CB=${PT_CLASSBENCH:-../shared/data/classbench}
if [ -r "$CB/acl1_1k" ]; then
	make --no-print-directory -s SAN=$SAN "$B/bench/bench_cls_update" ||
		bad "bench_cls_update does not build"
	out=$($T "$B/bench/bench_cls_update" acl1_1k "$CB/acl1_1k") || bad "bench_cls_update exit $?"
	echo "$out"
	echo "$out" | grep -q '^acl1_1k,942,delete,' || bad "bench_cls_update: no delete row"
	if pkg-config --exists libdpdk 2>/dev/null; then
		make --no-print-directory -s SAN=$SAN bench-acl || bad "bench_acl does not build"
		out=$($T "$B/bench/bench_acl" --seconds 0.05 acl1_1k "$CB/acl1_1k" \
			"$CB/acl1_1k_trace" 2>&1) || bad "bench_acl exit $?"
		echo "$out"
		echo "$out" | grep -q '^acl1_1k,942,rte_acl-scalar,' || bad "bench_acl: no scalar row"
	fi
fi

[ "$fails" -eq 0 ] && echo "PASS: benches build and run"
[ "$fails" -eq 0 ]

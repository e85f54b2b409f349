#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/bench/run-bench-table-smoke.sh - `make bench-table` still runs: one short round of the
# workshop's table, kernel (iptables-legacy) and pkttables live, 64-byte frames. The rates are
# not judged (that is the benchmark's job); what is checked: every row was measured, the
# counts are consistent (the receiver counted no more than the router forwarded, the router
# forwarded no more than the sender sent) and each row names its limiting side.
cd "$(dirname "$0")/../.." || exit 2
BIN=${PT_BIN:-build/pkttables}
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (network namespaces, packet sockets)"; exit 77; }
for t in ip sysctl taskset iptables-legacy-restore; do
	command -v "$t" >/dev/null 2>&1 || { echo "SKIP: $t not installed (tools/install-deps.sh)"; exit 77; }
done
[ "$(nproc)" -ge 2 ] || { echo "SKIP: needs two CPUs"; exit 77; }
ip netns add ptbsmoke$$ 2>/dev/null || { echo "SKIP: cannot create network namespaces"; exit 77; }
ip netns del ptbsmoke$$
out=$(mktemp -d /tmp/pt-bts.XXXXXX)
trap 'rm -rf "$out"' EXIT
PT_BIN=$BIN BENCH_TABLE_OUT=$out BENCH_TABLE_ROUNDS=1 BENCH_TABLE_SECONDS=0.5 \
	BENCH_TABLE_SIZES=64 BENCH_TABLE_FLOWS=100 BENCH_TABLE_SYSTEMS="kernel-legacy pkttables" \
	BENCH_TABLE_ENGINE=/nonexistent timeout -k 2 240 sh bench/table.sh >"$out/log" 2>&1
rc=$?
cat "$out/log"
[ $rc -eq 0 ] || { echo "FAIL: bench/table.sh exit $rc"; exit 1; }
awk -F, '
NR == 1 { next }
{
	n++
	seen[$1 "/" $2] = 1
	if ($4 <= 0) { print "FAIL: " $1 " " $2 ": nothing received"; bad++ }
	if ($4 > $7 * 1.01 + 0.1 || $7 > $6 * 1.01 + 0.1) { print "FAIL: " $1 " " $2 ": received > forwarded or forwarded > sent"; bad++ }
	if ($10 != "sender" && $10 != "router" && $10 != "receiver") { print "FAIL: " $1 " " $2 ": no limit named"; bad++ }
}
END {
	split("forward conntrack empty full full-rules1000", r, " ")
	split("kernel-legacy pkttables", s, " ")
	for (i in s) for (j in r) if (!((s[i] "/" r[j]) in seen)) { print "FAIL: row " s[i] " " r[j] " missing"; bad++ }
	if (bad) exit 1
	print "PASS: " n " rows measured, each with its limit"
}' "$out/bench-table.csv"

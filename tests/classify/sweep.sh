#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make classify-sweep: the compiled classifier against the linear scan on every ClassBench
# set: the 1k and 10k sets on their whole traces, the 100k sets on a uniform trace made here
# by the data's own gentrace.c (compiled and written in a temporary directory: nothing
# derived from the data is kept). Skipped (77) without the data ($PT_CLASSBENCH).
# PT_SWEEP_PACKETS: packets of the 100k traces (default 20000; the linear scan is the slow side).
D=${PT_CLASSBENCH:-../shared/data/classbench}
T=${PT_BUILD:-build}/tests/test_classify_classbench
N=${PT_SWEEP_PACKETS:-20000}
[ -r "$D/acl1_1k" ] || { echo "SKIP: no ClassBench data at $D"; exit 77; }
[ -x "$T" ] || { echo "classify-sweep: $T not built" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
failed=0
for s in acl1 fw1 ipc1; do
	for size in 1k 10k; do
		PT_CLASSBENCH=$D "$T" "$D/${s}_$size" "$D/${s}_${size}_trace" || failed=1
	done
done
if cc -O2 -o "$tmp/gentrace" "$D/gentrace.c"; then
	for s in acl1 fw1 ipc1; do
		"$tmp/gentrace" "$D/${s}_100k" "$N" 1 >"$tmp/${s}_100k_trace" &&
			"$T" "$D/${s}_100k" "$tmp/${s}_100k_trace" || failed=1
	done
else
	echo "classify-sweep: cannot compile $D/gentrace.c" >&2
	failed=1
fi
[ $failed = 0 ] && echo "classify-sweep: every packet's first match equals the linear scan's"
exit $failed

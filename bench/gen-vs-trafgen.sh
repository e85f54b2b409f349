#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/gen-vs-trafgen.sh - part of make bench-table: `pkttables gen` against netsniff-ng's
# trafgen on the same veth, in one run, alternating, BENCH_GEN_ROUNDS (5) rounds of
# BENCH_GEN_SECONDS (3) s each, both pinned to the same CPU, one sending process each. Both
# send the same 64-byte frame (the first frame gen writes to a capture, turned into trafgen's
# byte list; trafgen repeats it, gen rewrites its headers and signature per packet). The rate
# is what arrived at the veth's other end (its rx_packets), not what a sender says.
# Prints one line per run and the medians; appends them to build/bench-table.txt. Root only.
cd "$(dirname "$0")/.." || exit 2
BIN=${PT_BIN:-$PWD/build/pkttables}
ROUNDS=${BENCH_GEN_ROUNDS:-5}
SECS=${BENCH_GEN_SECONDS:-3}
TXT=${BENCH_TABLE_OUT:-build}/bench-table.txt
NS=pbg$$
D=$(mktemp -d /tmp/pt-gencmp.XXXXXX)
trap 'ip netns del $NS 2>/dev/null; rm -rf "$D"' EXIT
trap 'exit 1' INT TERM HUP

[ "$(id -u)" -eq 0 ] || { echo "gen-vs-trafgen: skipped: needs root"; exit 0; }
command -v trafgen >/dev/null 2>&1 || { echo "gen-vs-trafgen: skipped: trafgen not installed (netsniff-ng)"; exit 0; }
ip netns add $NS || { echo "gen-vs-trafgen: skipped: cannot create a network namespace"; exit 0; }
ip link add a0 netns $NS type veth peer name a1 netns $NS || exit 1
ip -n $NS link set a0 up
ip -n $NS link set a1 up

# the same frame for both: gen's first frame (60 bytes without FCS) as trafgen's byte list
"$BIN" gen -o "$D/one.pcap" -n 1 --quiet >/dev/null || exit 1
od -An -v -tx1 -j 40 -N 60 "$D/one.pcap" |
	awk '{ for (i = 1; i <= NF; i++) b = b (b == "" ? "" : ", ") "0x" $i } END { print "{ " b " }" }' >"$D/frame.cfg"

rx() { ip netns exec $NS cat /sys/class/net/a1/statistics/rx_packets; }
run() { # NAME -> pps that arrived in the steady part (from 0.5 s after the start to 0.5 s
	# before the end: neither start-up nor tear-down is counted, for either sender)
	case $1 in
	gen) ip netns exec $NS taskset -c 1 timeout -k 2 $((SECS + 5)) "$BIN" gen -i a0 -t "$SECS" \
		--flows 1000 --quiet >/dev/null 2>&1 & ;;
	trafgen) ip netns exec $NS timeout -s INT -k 2 "$SECS" taskset -c 1 trafgen --dev a0 \
		--conf "$D/frame.cfg" --cpus 1 --notouch-irq --no-sock-mem --no-cpu-stats >/dev/null 2>&1 & ;;
	esac
	pid=$!
	sleep 0.5
	a=$(rx)
	t0=$(date +%s.%N)
	sleep "$(awk -v s="$SECS" 'BEGIN { print s - 1 }')"
	b=$(rx)
	t1=$(date +%s.%N)
	wait $pid
	echo "$a $b $t0 $t1" | awk '{ printf "%.0f\n", ($2 - $1) / ($4 - $3) }'
}

: >"$D/gen" && : >"$D/trafgen"
r=1
while [ $r -le "$ROUNDS" ]; do
	for s in gen trafgen; do
		p=$(run $s)
		echo "$p" >>"$D/$s"
		echo "  round $r: $s $p pps"
	done
	r=$((r + 1))
done
med() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
{
	echo "64-byte frames on one veth, same CPU, $ROUNDS alternating rounds of $SECS s (pps arrived):"
	echo "  pkttables gen: $(tr '\n' ' ' <"$D/gen")-> median $(med "$D/gen")"
	echo "  trafgen:       $(tr '\n' ' ' <"$D/trafgen")-> median $(med "$D/trafgen")"
} | tee -a "$TXT"

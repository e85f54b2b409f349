#!/bin/sh
# make bench: time each configuration once (ratios within one run are what counts on a noisy
# machine), count instructions per packet with callgrind (the difference between two packet
# counts, so set-up cost cancels out), write build/bench.csv and build/bench.png.
set -eu
B=build/bench/bench_engine
OUT=build/bench.csv
CONFIGS="none empty rules100 rules1000 rules10000"
SECONDS_PER=${BENCH_SECONDS:-1}

[ -x "$B" ] || { echo "bench: $B not built" >&2; exit 1; }

# instructions per packet between n1 and n2 packets
instr() {
	cfg=$1 n1=$2 n2=$3
	i1=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$B" "$cfg" --packets "$n1" 2>&1 >/dev/null |
		sed -n 's/.*Collected : *\([0-9]*\).*/\1/p')
	i2=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$B" "$cfg" --packets "$n2" 2>&1 >/dev/null |
		sed -n 's/.*Collected : *\([0-9]*\).*/\1/p')
	echo "$i1 $i2 $n1 $n2" | awk '{ printf "%.0f", ($2 - $1) / ($4 - $3) }'
}

echo "name,packets,ns_per_packet,mpps,ratio,instructions_per_packet" > "$OUT"
base=""
printf '%-12s %10s %10s %8s %7s %12s\n' config packets ns/pkt Mpps ratio instr/pkt
for c in $CONFIGS; do
	set -- $("$B" "$c" --seconds "$SECONDS_PER")
	pk=$2 ns=$3 mpps=$4
	[ -n "$base" ] || base=$mpps
	ratio=$(echo "$mpps $base" | awk '{ printf "%.3f", $1 / $2 }')
	if command -v valgrind >/dev/null 2>&1; then
		case $c in
		rules10000) ip=$(instr "$c" 200 400) ;;
		rules1000) ip=$(instr "$c" 1000 2000) ;;
		*) ip=$(instr "$c" 5000 10000) ;;
		esac
	else
		ip=""
	fi
	printf '%-12s %10s %10s %8s %7s %12s\n' "$c" "$pk" "$ns" "$mpps" "$ratio" "$ip"
	echo "$c,$pk,$ns,$mpps,$ratio,$ip" >> "$OUT"
done
echo "wrote $OUT"

# Conntrack: new-connection rate, lookup+update cost, memory per entry (one run).
if [ -x build/bench/bench_ct ]; then
	echo
	echo "conntrack (bench_ct, one run):"
	build/bench/bench_ct | tee build/bench-ct.txt | sed 's/^/  /'
fi

if command -v gnuplot >/dev/null 2>&1; then
	gnuplot <<GP
set terminal png size 900,500
set output 'build/bench.png'
set datafile separator ','
set title 'pkttables: forwarding rate relative to no tables (one run)'
set style data histograms
set style fill solid 0.7
set ylabel 'ratio to no tables'
set y2label 'instructions per packet'
set y2tics
set logscale y2
set yrange [0:1.1]
set xtics nomirror
plot '$OUT' using 5:xtic(1) title 'rate ratio' axes x1y1, \
     '' using 0:6 with linespoints lw 2 pt 7 title 'instructions/packet' axes x1y2
GP
	echo "wrote build/bench.png"
fi

# Live forwarding through pkttables (AF_PACKET and NFQUEUE) against the kernel, one run, in
# network namespaces (root only: it says so and skips otherwise). Rows appended to $OUT.
echo
sh bench/live.sh || echo "bench: bench/live.sh failed" >&2

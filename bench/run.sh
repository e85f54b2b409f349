#!/bin/sh
# make bench: time each configuration once (ratios within one run are what counts on a noisy
# machine), count instructions per packet with callgrind (the difference between two packet
# counts, so set-up cost cancels out), write build/bench.csv and build/bench.png.
set -eu
B=build/bench/bench_engine
OUT=build/bench.csv
# rulesN: the box's default classifier (chains of 32 rules or more compiled); rulesN-linear:
# the same rules scanned one by one
CONFIGS="none empty rules100 rules1000 rules10000 rules1000-linear rules10000-linear"
SECONDS_PER=${BENCH_SECONDS:-1}

[ -x "$B" ] || { echo "bench: $B not built" >&2; exit 1; }

# instructions per packet between n1 and n2 packets (of bench_engine, or of the 4th argument)
instr() {
	cfg=$1 n1=$2 n2=$3 bin=${4:-$B}
	i1=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$cfg" --packets "$n1" 2>&1 >/dev/null |
		sed -n 's/.*Collected : *\([0-9]*\).*/\1/p')
	i2=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$cfg" --packets "$n2" 2>&1 >/dev/null |
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
		rules10000-linear | rules1000-linear) ip=$(instr "$c" 200 400) ;;
		rules10000 | rules1000) ip=$(instr "$c" 1000 2000) ;;
		*) ip=$(instr "$c" 5000 10000) ;;
		esac
	else
		ip=""
	fi
	printf '%-12s %10s %10s %8s %7s %12s\n' "$c" "$pk" "$ns" "$mpps" "$ratio" "$ip"
	echo "$c,$pk,$ns,$mpps,$ratio,$ip" >> "$OUT"
done
echo "wrote $OUT"

# The workshop's rows (bench_stack, issue 12): 10k established flows, out of lan0 and the reply
# in, through forward (no tables), conntrack (one ESTABLISHED rule), empty (raw, mangle, nat,
# filter without rules), full (conntrack, SNAT, a MARK rule, 20 filter rules, ESTABLISHED first),
# full-rules1000 (1000 rules before it, compiled classifier), full-plain1000 (1000 rules before it
# that fail in their standard part, scanned one by one: (full-plain1000 - full) / 1000 is the cost
# of such a rule); 64-byte IPv4, then -v6 (64-byte IPv6), -1500 (1500-byte IPv4) and -burst
# (64-byte IPv4 through box_receive_burst, 32 packets a burst). ratio: to forward of the same
# traffic (forward-v6, ...).
# Instructions per packet: callgrind on the measured loop only (stack_loop), so set-up and
# warm-up (each flow's first packet and reply) do not count.
S=build/bench/bench_stack
if [ -x "$S" ]; then
	echo
	echo "workshop rows (bench_stack, one run):"
	for v in "" -v6 -1500 -burst; do
		sbase=""
		for c in forward conntrack empty full full-rules1000 full-plain1000; do
			set -- $("$S" "$c$v" --seconds "$SECONDS_PER")
			pk=$2 ns=$3 mpps=$4
			[ -n "$sbase" ] || sbase=$mpps
			ratio=$(echo "$mpps $sbase" | awk '{ printf "%.3f", $1 / $2 }')
			ip=""
			if command -v valgrind >/dev/null 2>&1; then
				n=20000
				case $c in *1000) n=4000 ;; esac
				ip=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
					--collect-atstart=no '--toggle-collect=stack_loop*' \
					"$S" "$c$v" --packets $n 2>&1 >/dev/null |
					sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' |
					awk -v n=$n '{ printf "%.0f", $1 / n }')
			fi
			printf '%-20s %10s %10s %8s %7s %12s\n' "$c$v" "$pk" "$ns" "$mpps" "$ratio" "$ip"
			echo "$c$v,$pk,$ns,$mpps,$ratio,$ip" >> "$OUT"
		done
	done
fi

# Pattern search (bench_string, issue 15): GB/s per algorithm on 64- and 1500-byte texts (one
# run; instructions per scan from callgrind), then -m string chains of 0/1/10/100/1000 rules on
# 1500-byte frames, compiled together (one pass) and --separate (each rule alone). Rows ts-*,
# multi-*, string-rules*; for ts-*/multi-* "packets" is the text length and mpps is GB/s.
T=build/bench/bench_string
if [ -x "$T" ]; then
	echo
	echo "pattern search (bench_string, one run):"
	printf '  %-22s %6s %10s %8s %12s\n' name bytes ns/scan GB/s instr/scan
	"$T" scan --seconds "$SECONDS_PER" | while read -r name bytes ns gbs rest; do
		case $bytes in
		'' | *[!0-9]*) echo "  $name $bytes $ns $gbs $rest"; continue ;; # not in this build
		esac
		ip=""
		if command -v valgrind >/dev/null 2>&1; then
			i1=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$T" scan --packets 2048 --only "$name" 2>&1 >/dev/null |
				sed -n 's/.*Collected : *\([0-9]*\).*/\1/p')
			i2=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$T" scan --packets 4096 --only "$name" 2>&1 >/dev/null |
				sed -n 's/.*Collected : *\([0-9]*\).*/\1/p')
			ip=$(echo "$i1 $i2" | awk '{ printf "%.0f", ($2 - $1) / 2048 }')
		fi
		printf '  %-22s %6s %10s %8s %12s %s\n' "$name" "$bytes" "$ns" "$gbs" "$ip" "$rest"
		echo "$name,$bytes,$ns,$gbs,,$ip" >> "$OUT"
	done
	printf '  %-26s %10s %10s %8s %12s\n' config packets ns/pkt Mpps instr/pkt
	for n in 0 1 10 100 1000; do
		for sep in "" --separate; do
			[ "$n" -le 1 ] && [ -n "$sep" ] && continue # nothing to compile together
			set -- $("$T" chain "$n" $sep --seconds "$SECONDS_PER")
			name=$1 pk=$2 ns=$3 mpps=$4
			ip=""
			if command -v valgrind >/dev/null 2>&1; then
				p1=2000 p2=4000
				[ "$n" -ge 100 ] && [ -n "$sep" ] && p1=100 p2=200
				i1=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$T" chain "$n" $sep --packets $p1 2>&1 >/dev/null |
					sed -n 's/.*Collected : *\([0-9]*\).*/\1/p')
				i2=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$T" chain "$n" $sep --packets $p2 2>&1 >/dev/null |
					sed -n 's/.*Collected : *\([0-9]*\).*/\1/p')
				ip=$(echo "$i1 $i2 $p1 $p2" | awk '{ printf "%.0f", ($2 - $1) / ($4 - $3) }')
			fi
			printf '  %-26s %10s %10s %8s %12s\n' "$name" "$pk" "$ns" "$mpps" "$ip"
			echo "$name,$pk,$ns,$mpps,,$ip" >> "$OUT"
		done
	done
fi

# Conntrack: new-connection rate, lookup+update cost, memory per entry (one run).
if [ -x build/bench/bench_ct ]; then
	echo
	echo "conntrack (bench_ct, one run):"
	build/bench/bench_ct | tee build/bench-ct.txt | sed 's/^/  /'
fi

if command -v gnuplot >/dev/null 2>&1; then
	gnuplot <<GP
set terminal png size 1400,560
set output 'build/bench.png'
set datafile separator ','
set title 'pkttables: rate relative to no tables / forward (one run)'
set style data histograms
set style fill solid 0.7
set ylabel 'ratio to no tables'
set y2label 'instructions per packet'
set y2tics
set logscale y2
set yrange [0:1.1]
set xtics nomirror rotate by -45
plot '$OUT' using 5:xtic(1) title 'rate ratio' axes x1y1, \
     '' using 0:6 with linespoints lw 2 pt 7 title 'instructions/packet' axes x1y2
GP
	echo "wrote build/bench.png"
fi

# NAT (bench_nat): translation cost of established flows with and without a NAT rule, and the
# rate of new bindings. Rows nat-*; for nat-new-* "packets" are connections and mpps is millions
# of connections per second. Ratios against nat-plain / nat-new-plain (conntrack, no NAT).
N=build/bench/bench_nat
if [ -x "$N" ]; then
	echo
	echo "NAT (bench_nat, one run):"
	printf '  %-16s %10s %10s %8s %7s %12s %8s\n' config packets ns/pkt Mpps ratio instr/pkt dropped
	nbase="" nnbase="" nat_ns="" nat_ip="" plain_ns="" plain_ip=""
	for c in plain snat masquerade new-plain new-snat new-apd new-full; do
		set -- $("$N" "$c" --seconds "$SECONDS_PER")
		pk=$2 ns=$3 mpps=$4 drop=$5
		case $c in
		plain) nbase=$mpps ;;
		new-plain) nnbase=$mpps ;;
		esac
		case $c in
		new-*) b=$nnbase ;;
		*) b=$nbase ;;
		esac
		ratio=$(echo "$mpps $b" | awk '{ printf "%.3f", $1 / $2 }')
		ip=""
		if command -v valgrind >/dev/null 2>&1; then
			case $c in
			new-full) ip=$(instr "$c" 1000 2000 "$N") ;;
			*) ip=$(instr "$c" 2000 4000 "$N") ;;
			esac
		fi
		case $c in
		plain) plain_ns=$ns plain_ip=$ip ;;
		snat) nat_ns=$ns nat_ip=$ip ;;
		esac
		printf '  %-16s %10s %10s %8s %7s %12s %8s\n' "$c" "$pk" "$ns" "$mpps" "$ratio" "$ip" "$drop"
		echo "nat-$c,$pk,$ns,$mpps,$ratio,$ip" >> "$OUT"
	done
	echo "$plain_ns $nat_ns $plain_ip $nat_ip" | awk '{ printf "  SNAT translation cost: %.1f ns/packet, %s instructions/packet (snat - plain)\n", $2 - $1, ($3 != "" && $4 != "") ? $4 - $3 : "?" }'
fi

# Control socket (bench_ctl): dump of a 1M-entry table, events, and the data path's rate while a
# dump runs. Rows ctl-*: for ctl-dump and ctl-events "packets" are entries/events and mpps is
# millions of them per second; ctl-datapath-* are the packet mix served between process calls.
C=build/bench/bench_ctl
if [ -x "$C" ]; then
	echo
	echo "control socket (bench_ctl, one run, ${BENCH_CTL_ENTRIES:-1000000} entries):"
	"$C" --entries "${BENCH_CTL_ENTRIES:-1000000}" --seconds "$SECONDS_PER" > build/bench-ctl.txt ||
		echo "bench: bench_ctl failed" >&2
	# instructions per dumped entry, server and client (user space only), from callgrind
	if command -v valgrind >/dev/null 2>&1; then
		ci=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
			--toggle-collect=part_dump_inproc "$C" --entries 20000 --only dump-inproc 2>&1 |
			sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' | awk '{ printf "%.0f", $1 / 20000 }')
		echo "ctl_dump_instructions_per_entry $ci instructions" >> build/bench-ctl.txt
	fi
	sed 's/^/  /' build/bench-ctl.txt
	awk -v out="$OUT" '
		{ v[$1] = $2 }
		function row(name, n, rate, ratio, ip) {
			printf "%s,%s,%.1f,%.3f,%s,%s\n", name, n, 1e9 / rate, rate / 1e6, ratio, ip >> out
		}
		END {
			if (v["ctl_dump_entries_per_s"] > 0)
				row("ctl-dump", v["ctl_dump_entries"], v["ctl_dump_entries_per_s"], "",
				    v["ctl_dump_instructions_per_entry"])
			if (v["ctl_events_per_s"] > 0)
				row("ctl-events", v["ctl_events_received"], v["ctl_events_per_s"], "", "")
			if (v["datapath_pps_idle"] > 0) {
				row("ctl-datapath-idle", "", v["datapath_pps_idle"], "1.000", "")
				row("ctl-datapath-during-dump", "", v["datapath_pps_during_dump"],
				    v["datapath_ratio_during_dump"], "")
			}
			printf "  summary: dump %.0f entries/s (%s instructions/entry), events %.0f/s (%d lost), data path during a dump %.3f of its rate, longest process call %s us, peak RSS growth %s kB\n",
			    v["ctl_dump_entries_per_s"], v["ctl_dump_instructions_per_entry"],
			    v["ctl_events_per_s"], v["ctl_events_lost"],
			    v["datapath_ratio_during_dump"], v["datapath_during_dump_max_process_us"],
			    v["ctl_dump_peak_rss_growth_kb"]
		}' build/bench-ctl.txt
fi

# Live forwarding through pkttables (AF_PACKET and NFQUEUE) against the kernel, one run, in
# network namespaces (root only: it says so and skips otherwise). Rows appended to $OUT.
echo
sh bench/live.sh || echo "bench: bench/live.sh failed" >&2

# Compiled classifier (bench_classify) against the linear scan on the ClassBench sets, one run,
# one core: build/bench-classify.csv (set,rules,engine,mlookups_per_s,bytes,build_s) and the
# one-rule update times in build/bench-classify-update.txt. The 100k sets get a uniform trace
# from the data's gentrace.c, made in a temporary directory. DPDK's rte_acl (bench_acl, built
# when pkg-config finds libdpdk) adds its rows on the same traces: rte_acl-scalar and its fastest
# vector algorithm (all of them in build/bench-classify-acl.txt).
K=build/bench/bench_classify
CB=${PT_CLASSBENCH:-../shared/data/classbench}
if [ -x "$K" ] && [ -r "$CB/acl1_1k" ]; then
	echo
	echo "classifier (bench_classify, one run):"
	ktmp=$(mktemp -d)
	set --
	for s in acl1 fw1 ipc1; do
		for size in 1k 10k; do
			set -- "$@" "${s}_$size" "$CB/${s}_$size" "$CB/${s}_${size}_trace"
		done
	done
	if [ "${BENCH_CLASSIFY_100K:-1}" = 1 ] && cc -O2 -o "$ktmp/gentrace" "$CB/gentrace.c"; then
		for s in acl1 fw1 ipc1; do
			"$ktmp/gentrace" "$CB/${s}_100k" 1000000 1 >"$ktmp/${s}_100k_trace" &&
				set -- "$@" "${s}_100k" "$CB/${s}_100k" "$ktmp/${s}_100k_trace"
		done
	fi
	"$K" --seconds "$SECONDS_PER" "$@" > "$ktmp/out" || echo "bench: bench_classify failed" >&2
	grep -v '^#' "$ktmp/out" > build/bench-classify.csv || true
	grep '^#' "$ktmp/out" | sed 's/^# //' > build/bench-classify-update.txt || true
	rm -f build/bench-classify-acl.txt
	if [ -x build/bench/bench_acl ]; then
		build/bench/bench_acl --seconds "$SECONDS_PER" "$@" > "$ktmp/acl" ||
			echo "bench: bench_acl failed" >&2
		grep -v '^#' "$ktmp/acl" >> build/bench-classify.csv || true
		grep '^#' "$ktmp/acl" | sed 's/^# //' > build/bench-classify-acl.txt || true
	else
		echo "  rte_acl not measured: build/bench/bench_acl not built (no libdpdk; sh tools/install-deps.sh --bench)"
	fi
	rm -rf "$ktmp"
	# a reload of a 10k-rule chain with one rule added or deleted (bench_cls_update)
	if [ -x build/bench/bench_cls_update ]; then
		set --
		for s in acl1 fw1 ipc1; do set -- "$@" "${s}_10k" "$CB/${s}_10k"; done
		build/bench/bench_cls_update "$@" > build/bench-cls-reload.csv ||
			echo "bench: bench_cls_update failed" >&2
	fi
	column -s, -t < build/bench-classify.csv | sed 's/^/  /'
	sed 's/^/  /' build/bench-classify-update.txt
	[ ! -s build/bench-classify-acl.txt ] || sed 's/^/  /' build/bench-classify-acl.txt
	[ ! -s build/bench-cls-reload.csv ] || column -s, -t < build/bench-cls-reload.csv | sed 's/^/  /'
	echo "wrote build/bench-classify.csv, build/bench-cls-reload.csv"
fi

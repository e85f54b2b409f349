#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/table.sh - make bench-table: the netfilter workshop's cost table (forwarding only,
# + conntrack, + empty tables, full stack, full + 1000 rules), measured in one run for the
# kernel (iptables-legacy and iptables-nft), for pkttables live (AF_PACKET and AF_XDP) and for
# pkttables in memory.
#
#   sender ${P}s (pkttables gen)  ---  router ${P}r  ---  receiver ${P}v (pkttables gen --receive)
#   eth0 10.1.0.2/16                 L 10.1.0.1/16 | W 10.2.0.1/24    eth0 10.2.0.2/24
#
# Each measurement builds the three namespaces anew (so a kernel row never inherits a table or
# a conntrack hook of the row before), loads the row's ruleset into the router, sends 1000
# one-way UDP flows as fast as the sender goes for BENCH_TABLE_SECONDS (2) and counts at three
# points: frames the sender handed to the kernel, frames the router put on its egress veth,
# signed frames the receiver counted. CPU 0 is the sender's (taskset), CPU 1 the router's
# (its ingress queue steered there with RPS; pkttables pinned there): the busy share of each
# CPU from /proc/stat says which side was the limit.
#
# Rows are interleaved (every row of a round before the next round) and each figure is the
# median of BENCH_TABLE_ROUNDS (3) rounds, since the machine is noisy. 64-byte frames and
# frames of 1500-byte IP datagrams (1518 on the wire). Then the in-memory rows from
# bench_stack (one core, no I/O). Writes build/bench-table.csv, build/bench-table.txt and,
# with gnuplot, build/bench-table.png. Without root or namespaces it says so and runs the
# in-memory rows only.
#
# BENCH_TABLE_ROWS picks the rows (default: all five, in-memory rows included).
# BENCH_TABLE_SYSTEMS picks the systems (default: kernel-legacy kernel-nft pkttables
# pkttables-afxdp); pkttables-kernelmac is pkttables over AF_PACKET with `mac kernel` on its
# interfaces (docs/live.md), for the difference a MAC of its own makes in the same run;
# pkttables-sendmmsg is pkttables over AF_PACKET sending with sendmmsg (`io afpacket sendmmsg`)
# instead of the transmit ring, for the A/B of the two in one run; pkttables-copy is pkttables
# over AF_PACKET copying each received frame out of the ring (`io afpacket copy`, the receive
# path before zero-copy receive), for that A/B.
#
# BENCH_TABLE_BOOST=1: on a shared, loaded machine, the sender, the receiver and pkttables each
# run in a scheduling group of their own at nice -20 (setsid: a new autogroup; its nice set
# through /proc/PID/autogroup), so they get their CPUs nearly as on an idle machine. The
# kernel's forwarding needs no such help: it runs in softirq, ahead of every process. Off by
# default; the figures say which (docs/benchmark.md).
cd "$(dirname "$0")/.." || exit 2
BIN=${PT_BIN:-$PWD/build/pkttables}
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
ENGINE=${BENCH_TABLE_ENGINE:-$PWD/build/bench/bench_stack}
SECS=${BENCH_TABLE_SECONDS:-2}
ROUNDS=${BENCH_TABLE_ROUNDS:-3}
FLOWS=${BENCH_TABLE_FLOWS:-1000}
SIZES=${BENCH_TABLE_SIZES:-"64 1518"}
ROWS=${BENCH_TABLE_ROWS:-"forward conntrack empty full full-rules1000"}
SYSTEMS=${BENCH_TABLE_SYSTEMS:-"kernel-legacy kernel-nft pkttables pkttables-afxdp"}
OUTDIR=${BENCH_TABLE_OUT:-build}
CSV=$OUTDIR/bench-table.csv
TXT=$OUTDIR/bench-table.txt
PNG=$OUTDIR/bench-table.png
T="timeout -k 2"
P=pbt$$
S=${P}s R=${P}r V=${P}v L=${P}l W=${P}w
D=$(mktemp -d /tmp/pt-bench-table.XXXXXX)
# whole seconds for timeouts around a run of SECS (which may be fractional)
RXSECS=$(awk -v s="$SECS" 'BEGIN { print s + 1 }')
TMO=$(awk -v s="$SECS" 'BEGIN { printf "%d", s + 9 }')
PT=""
BOOST=""

[ -x "$BIN" ] || { echo "bench-table: $BIN missing (make)" >&2; exit 1; }
if [ -n "${BENCH_TABLE_BOOST:-}" ]; then
	printf '#!/bin/sh\necho -20 >/proc/self/autogroup 2>/dev/null\nexec "$@"\n' >"$D/boost"
	chmod +x "$D/boost"
	BOOST="setsid $D/boost"
fi

teardown() {
	[ -n "$PT" ] && kill "$PT" 2>/dev/null && wait "$PT" 2>/dev/null
	PT=""
	for n in $S $R $V; do ip netns pids "$n" 2>/dev/null | xargs -r kill 2>/dev/null; done
	for n in $S $R $V; do ip netns del "$n" 2>/dev/null; done
}
trap 'teardown; rm -rf "$D"' EXIT
trap 'exit 1' INT TERM HUP

live=yes
why=""
if [ "$(id -u)" -ne 0 ]; then
	live=no why="not root"
else
	for t in ip sysctl taskset iptables-legacy-restore iptables-nft-restore; do
		command -v "$t" >/dev/null 2>&1 || { live=no why="$t not installed (tools/install-deps.sh)"; }
	done
	[ "$(nproc)" -ge 2 ] || { live=no why="needs two CPUs (sender and router apart)"; }
	if [ $live = yes ] && ! ip netns add ${P}probe 2>/dev/null; then
		live=no why="cannot create network namespaces"
	fi
	ip netns del ${P}probe 2>/dev/null
fi

# The rulesets. FORWARD accepts the bench's traffic (UDP to port 9) after 19 other rules in
# the full rows; one-way UDP flows stay NEW in conntrack (no reply is ever seen), in the
# kernel as in pkttables, so the ESTABLISHED rule first does not shortcut them: every packet
# walks the 20 rules (and the 1000 before them in full-rules1000).
nomatch() { # N OCTET: N FORWARD rules the traffic never matches (sources OCTET.x.y.z, TCP)
	awk -v n="$1" -v o="$2" 'BEGIN { for (i = 0; i < n; i++)
		printf "-A FORWARD -s %d.%d.%d.%d/32 -p tcp -m tcp --dport %d -j DROP\n",
			o, int(i / 65536) % 256, int(i / 256) % 256, i % 256, 1 + i % 65000 }'
}
ruleset() { # ROW -> iptables-restore input on stdout
	case $1 in
	forward) ;;
	conntrack)
		printf '*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n'
		echo "-A FORWARD -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT"
		echo COMMIT
		;;
	empty)
		for t in raw mangle; do
			printf '*%s\n:PREROUTING ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n' $t
			[ $t = mangle ] && printf ':INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\n'
			echo COMMIT
		done
		printf '*nat\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\nCOMMIT\n'
		printf '*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n'
		;;
	full | full-rules1000)
		printf '*raw\n:PREROUTING ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n'
		printf '*mangle\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n'
		printf ':OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\n'
		echo "-A PREROUTING -i $L -j MARK --set-xmark 0x1/0xffffffff"
		echo COMMIT
		printf '*nat\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\n'
		echo "-A POSTROUTING -o $W -j SNAT --to-source 10.2.0.1"
		echo COMMIT
		printf '*filter\n:INPUT ACCEPT [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT ACCEPT [0:0]\n'
		[ "$1" = full-rules1000 ] && nomatch 1000 100
		echo "-A FORWARD -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT"
		nomatch 18 172
		echo "-A FORWARD -i $L -o $W -p udp -m udp --dport 9 -j ACCEPT"
		echo COMMIT
		;;
	esac
}

# topo SYSTEM ROW: build the namespaces, the router as SYSTEM with ROW's ruleset; 0 when it
# forwards (a probe frame from the sender reaches the receiver's interface)
topo() {
	ip netns add $S && ip netns add $R && ip netns add $V || return 1
	ip link add $L netns $R type veth peer name eth0 netns $S || return 1
	ip link add $W netns $R type veth peer name eth0 netns $V || return 1
	for n in $S $V; do
		ip netns exec $n sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null
		ip -n $n link set lo up
		ip -n $n link set eth0 up
	done
	ip netns exec $R sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null
	ip -n $R link set lo up
	ip -n $S addr add 10.1.0.2/16 dev eth0
	ip -n $V addr add 10.2.0.2/24 dev eth0
	# the receiver's stack drops the flood before UDP (no ICMP back); packet sockets see it first
	ip netns exec $V iptables-legacy -t raw -A PREROUTING -p udp --dport 9 -j DROP 2>/dev/null ||
		ip netns exec $V iptables-nft -t raw -A PREROUTING -p udp --dport 9 -j DROP
	ruleset "$2" >"$D/rules"
	case $1 in
	kernel-*)
		ip -n $R addr add 10.1.0.1/16 dev $L
		ip -n $R addr add 10.2.0.1/24 dev $W
		ip -n $R link set $L up
		ip -n $R link set $W up
		ip netns exec $R sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 \
			net.ipv4.conf.default.rp_filter=0
		if [ -s "$D/rules" ]; then
			ip netns exec $R "iptables-${1#kernel-}-restore" <"$D/rules" || return 1
		fi
		;;
	pkttables | pkttables-afxdp | pkttables-kernelmac | pkttables-sendmmsg | pkttables-copy)
		ip netns exec $R sysctl -qw net.ipv4.ip_forward=0
		for d in $L $W; do
			ip -n $R link set $d arp off
			ip -n $R link set $d up
		done
		{
			[ "$1" = pkttables-afxdp ] && echo "io afxdp"
			[ "$1" = pkttables-sendmmsg ] && echo "io afpacket sendmmsg"
			[ "$1" = pkttables-copy ] && echo "io afpacket copy"
			# pkttables-kernelmac: AF_PACKET with the interfaces' own MACs (the old default:
			# the router namespace's stack then routes every frame; docs/live.md)
			km=""
			[ "$1" = pkttables-kernelmac ] && km=" mac kernel"
			echo "iface $L$km"
			echo "iface $W$km"
			echo "addr $L 10.1.0.1/16"
			echo "addr $W 10.2.0.1/24"
			[ -s "$D/rules" ] && echo "rules rules"
		} >"$D/live.conf"
		$BOOST ip netns exec $R taskset -c 1 "$BIN" run --config "$D/live.conf" 2>"$D/pt.log" &
		PT=$!
		;;
	esac
	# the router's receive work on CPU 1, whatever CPU the sender's transmit runs on
	ip netns exec $R sh -c "echo 2 > /sys/class/net/$L/queues/rx-0/rps_cpus" 2>/dev/null
	smac=$(ip -n $S -o link show eth0 | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
	# ready when probe frames arrive (pkttables started, the receiver's address resolved). The
	# sender learns the router's MAC as a host does, by ARP: pkttables over AF_PACKET answers
	# with a MAC of its own, not the interface's (docs/live.md)
	i=0
	rmac=""
	while [ $i -lt 40 ]; do
		if [ -z "$rmac" ]; then
			ip netns exec $S ping -c 1 -W 1 10.1.0.1 >/dev/null 2>&1
			rmac=$(ip -n $S neigh show 10.1.0.1 dev eth0 |
				sed -n 's/.*lladdr \([0-9a-f:]*\).*/\1/p')
			[ -n "$rmac" ] || { i=$((i + 1)); continue; }
		fi
		a=$(ip netns exec $V cat /sys/class/net/eth0/statistics/rx_packets)
		ip netns exec $S "$BIN" gen -i eth0 --dmac "$rmac" --smac "$smac" --src 10.1.1.1 \
			--dst 10.2.0.2 -n 3 --quiet >/dev/null 2>&1
		sleep 0.1
		b=$(ip netns exec $V cat /sys/class/net/eth0/statistics/rx_packets)
		[ "$b" -gt "$a" ] && return 0
		i=$((i + 1))
	done
	return 1
}

cpu_ticks() { # -> "busy0 total0 busy1 total1"
	awk '/^cpu0 / || /^cpu1 / { t = 0; for (i = 2; i <= NF; i++) t += $i;
		printf "%d %d ", t - $5 - $6, t } END { print "" }' /proc/stat
}

# measure SYSTEM ROW SIZE -> "rx_pps tx_pps fwd_pps cpu0 cpu1" (or nothing when it failed)
measure() {
	if ! topo "$1" "$2"; then
		echo "bench-table: $1 $2: the router did not forward" >&2
		[ -f "$D/pt.log" ] && tail -3 "$D/pt.log" >&2
		teardown
		return 1
	fi
	$T "$TMO" $BOOST ip netns exec $V "$BIN" gen --receive eth0 -t "$RXSECS" \
		--flows "$FLOWS" --quiet >"$D/rx" 2>"$D/rxerr" &
	rxpid=$!
	sleep 0.3
	f0=$(ip netns exec $R cat /sys/class/net/$W/statistics/tx_packets)
	c0=$(cpu_ticks)
	$T "$TMO" $BOOST ip netns exec $S taskset -c 0 "$BIN" gen -i eth0 --dmac "$rmac" \
		--smac "$smac" --src 10.1.1.1 --dst 10.2.0.2 --flows "$FLOWS" --size "$3" \
		-t "$SECS" --quiet >"$D/tx" 2>"$D/txerr"
	c1=$(cpu_ticks)
	# the receiver stops a second after the sender: what the router still had queued is in
	wait $rxpid
	f1=$(ip netns exec $R cat /sys/class/net/$W/statistics/tx_packets)
	teardown
	txl=$(cat "$D/tx") rxl=$(cat "$D/rx")
	case "$txl" in tx*) ;; *) echo "bench-table: $1 $2: sender: $(cat "$D/txerr")" >&2; return 1 ;; esac
	case "$rxl" in rx*) ;; *) echo "bench-table: $1 $2: receiver: $(cat "$D/rxerr")" >&2; return 1 ;; esac
	echo "$txl|$rxl|$((f1 - f0))|$c0|$c1" | awk -F'|' '
	function kv(line, k,   n, a, i) { n = split(line, a, " ");
		for (i = 1; i <= n; i++) if (index(a[i], k "=") == 1) return substr(a[i], length(k) + 2);
		return 0 }
	{ secs = kv($1, "seconds"); frames = kv($1, "frames"); rx = kv($2, "received");
	  split($4, a, " "); split($5, b, " ");
	  u0 = (b[2] - a[2]) > 0 ? (b[1] - a[1]) / (b[2] - a[2]) : 0;
	  u1 = (b[4] - a[4]) > 0 ? (b[3] - a[3]) / (b[4] - a[4]) : 0;
	  if (secs <= 0) secs = 1;
	  printf "%.0f %.0f %.0f %.2f %.2f %.2f\n", rx / secs, frames / secs, $3 / secs, u0, u1,
		kv($1, "blocked") }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print 0 }'; }

mkdir -p "$OUTDIR"
: >"$TXT"
echo "system,row,frame,kpps,ratio,sent_kpps,forwarded_kpps,sender_cpu,router_cpu,limit,rounds,sender_blocked" >"$CSV"

if [ $live = yes ]; then
	echo "bench-table: $ROUNDS rounds of ${SECS} s per row, $FLOWS UDP flows, sizes $SIZES${BOOST:+, boosted}; load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$TXT"
	r=1
	while [ $r -le "$ROUNDS" ]; do
		for size in $SIZES; do
			for sys in $SYSTEMS; do
				for row in $ROWS; do
					# the kernel forwards alike under both front ends: measured once
					[ "$sys" = kernel-nft ] && [ $row = forward ] && continue
					res=$(measure "$sys" "$row" "$size") || continue
					echo "$res" >>"$D/res.$sys.$row.$size"
					echo "  round $r: $sys $row $size: rx/tx/fwd pps, cpu0 cpu1: $res" >>"$TXT"
				done
			done
		done
		echo "bench-table: round $r of $ROUNDS done" >&2
		r=$((r + 1))
	done
	for size in $SIZES; do
		for sys in $SYSTEMS; do
			base=""
			for row in $ROWS; do
				f=$D/res.$sys.$row.$size
				[ "$sys" = kernel-nft ] && [ $row = forward ] && f=$D/res.kernel-legacy.forward.$size
				[ -s "$f" ] || continue
				rx=$(cut -d' ' -f1 "$f" | median) tx=$(cut -d' ' -f2 "$f" | median)
				fw=$(cut -d' ' -f3 "$f" | median) u0=$(cut -d' ' -f4 "$f" | median)
				u1=$(cut -d' ' -f5 "$f" | median) n=$(wc -l <"$f")
				bl=$(cut -d' ' -f6 "$f" | median)
				[ -n "$base" ] || base=$rx
				# the limit: the router dropped what it was offered (it forwarded under 97 % of
				# what was sent) or held the sender back (the sender waited for the kernel to
				# take frames over 20 % of the time: a veth's socket-buffer backpressure, no
				# drops); else the receiver lost what was forwarded; else the sender
				lim=$(echo "$rx $tx $fw ${bl:-0}" | awk '{ l = "sender"
					if ($3 < 0.97 * $2 || $4 > 0.2) l = "router"; else if ($1 < 0.97 * $3) l = "receiver"
					print l }')
				echo "$sys $row $size $rx $base $tx $fw $u0 $u1 $lim $n ${bl:-0}" | awk '{
					printf "%s,%s,%s,%.1f,%.3f,%.1f,%.1f,%.2f,%.2f,%s,%d,%.2f\n", $1, $2, $3,
						$4 / 1e3, ($5 > 0 ? $4 / $5 : 0), $6 / 1e3, $7 / 1e3, $8, $9, $10, $11, $12 }' >>"$CSV"
			done
		done
	done
else
	echo "bench-table: live rows skipped: $why; in-memory rows only" | tee -a "$TXT"
fi

# In memory: bench_stack's rows of the same names (one core, no I/O, 10k established flows,
# the flow's packet and its reply; the fast-path issue's benchmark).
if [ -x "$ENGINE" ]; then
	for size in $SIZES; do
		base=""
		sfx=""
		[ "$size" = 64 ] || sfx=-1500
		for row in $ROWS; do
			out=$("$ENGINE" "$row$sfx" --seconds 1 2>/dev/null) || continue
			set -- $out
			[ -n "$base" ] || base=$4
			echo "pkttables-memory $row $size $4 $base" | awk '{
				printf "%s,%s,%s,%.1f,%.3f,,,,,cpu,1,\n", $1, $2, $3, $4 * 1e3, ($5 > 0 ? $4 / $5 : 0) }' >>"$CSV"
		done
	done
else
	echo "bench-table: $ENGINE not built: no in-memory rows" | tee -a "$TXT"
fi

# The workshop's table: rate and ratio to forwarding only, per row and system.
{
	echo
	echo "The workshop's table (kpps received, ratio to forwarding only; median of $ROUNDS rounds; limit = the side that was the bottleneck):"
	awk -F, -v sizes="$SIZES" 'NR > 1 { sys[$1] = 1
		v[$1, $3, $2] = sprintf("%8.1f %5.2f %-8s", $4, $5, $10) }
	END {
		ns = split("kernel-legacy kernel-nft pkttables pkttables-copy pkttables-sendmmsg pkttables-kernelmac pkttables-afxdp pkttables-memory", S, " ")
		nr = split("forward conntrack empty full full-rules1000", Rw, " ")
		nz = split(sizes, Z, " ")
		for (k = 1; k <= nz; k++) {
			z = Z[k]
			printf "\n  frames of %s bytes\n  %-15s", z, "row"
			for (i = 1; i <= ns; i++) if (S[i] in sys) printf " %-24s", S[i]
			printf "\n"
			for (j = 1; j <= nr; j++) {
				printf "  %-15s", Rw[j]
				for (i = 1; i <= ns; i++) if (S[i] in sys)
					printf " %-24s", ((S[i], z, Rw[j]) in v) ? v[S[i], z, Rw[j]] : "-"
				printf "\n"
			}
		}
	}' "$CSV"
	echo
	echo "  workshop (2004): forwarding 800 kpps; conntrack -200 kpps (0.75); empty ruleset -25 %; full 350 kpps (0.44)"
} | tee -a "$TXT"

if command -v gnuplot >/dev/null 2>&1; then
	for size in $SIZES; do
		awk -F, -v z="$size" 'NR > 1 && $3 == z { v[$2, $1] = $5; s[$1] = 1 }
		END { printf "row"; n = split("kernel-legacy kernel-nft pkttables pkttables-copy pkttables-sendmmsg pkttables-kernelmac pkttables-afxdp pkttables-memory", S, " ")
			for (i = 1; i <= n; i++) printf " %s", S[i]; printf "\n"
			m = split("forward conntrack empty full full-rules1000", R, " ")
			for (j = 1; j <= m; j++) { printf "%s", R[j]
				for (i = 1; i <= n; i++) printf " %s", ((R[j], S[i]) in v) ? v[R[j], S[i]] : "0"
				printf "\n" } }' "$CSV" >"$D/plot.$size"
	done
	set -- $SIZES
	{
		echo "set terminal png size 1200,500"
		echo "set output '$PNG'"
		echo "set style data histograms"
		echo "set style histogram clustered gap 1"
		echo "set style fill solid 0.8"
		echo "set yrange [0:1.2]"
		echo "set ylabel 'rate / forwarding only'"
		echo "set key top right"
		echo "set multiplot layout 1,$#"
		for size in "$@"; do
			echo "set title 'frames of $size bytes'"
			echo "plot for [c=2:9] '$D/plot.$size' using c:xtic(1) title columnheader(c)"
		done
		echo "unset multiplot"
	} | gnuplot && echo "wrote $PNG"
fi
echo "bench-table: load at the end $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$TXT"
echo "wrote $CSV and $TXT"

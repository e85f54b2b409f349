#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/live.sh - make bench, live part: forwarding through pkttables against the kernel, in
# one run on the same machine, in the same topology, with the same ruleset.
#
#   pbc$$ (client, iperf3 -c)  ---  pbr$$ (router)  ---  pbs$$ (server, iperf3 -s)
#   192.0.2.2/24                192.0.2.1 | 198.51.100.1       198.51.100.2/24
#
# The router is, in turn:
#   kernel    the kernel forwards, the ruleset loaded with iptables-restore (nf_tables on a
#             system whose iptables is iptables-nft, as Debian's: labelled kernel-nft)
#   kernel_legacy  the same with iptables-legacy-restore (x_tables: labelled kernel-legacy),
#             the kernel full stack issue 20's goal is set against; left out when the system
#             has no iptables-legacy-restore
#   pkttables pkttables run --config (AF_PACKET; the kernel's stack kept out, docs/live.md)
#   afxdp     the same with `io afxdp` (AF_XDP sockets, native XDP on the veths)
#   pkttables2, afxdp2   the same two with `workers 2` (src/live/workers.h); afxdp2's veths
#             have two queues each, so each worker reads its own AF_XDP socket
#   nfqueue   the kernel forwards, mangle FORWARD -j NFQUEUE, pkttables run --nfqueue 0 decides
# BENCH_LIVE_STACK=full: every router runs the full stack instead of the filter ruleset
# (conntrack, mangle MARK, SNAT to the router's address, a 20-rule default-drop filter after
# an ESTABLISHED rule), as bench/table.sh's full row; the nfqueue router is left out then.
#   MODE_gso  any of them with the offloads left on (by default kernel_gso, kernel_legacy_gso,
#             pkttables_gso and afxdp_gso); through AF_XDP the end hosts keep their checksum
#             offload (pkttables tells partial checksums by their field), but the XDP program
#             on the router's veths takes their peers' TSO (veth does: docs/live.md)
#   afxdptxoff_gso  afxdp_gso with the end hosts' transmit checksum offload off (what AF_XDP
#             needed before pkttables told partial checksums), for an A/B in one run; only
#             when BENCH_LIVE_MODES names it
# BENCH_LIVE_MODES: the routers to run (default all of the above).
# Offloads (TSO/GSO/GRO, checksum) are off on all four veth ends for every router but the _gso
# ones, so that those compare like for like; a _gso row's ratios are to kernel_legacy_gso and
# kernel_gso.
#
# Measured: (a) TCP throughput client -> server (iperf3, one stream), (b) UDP packets per second
# arriving at the server for 64-byte datagrams from one sender as fast as it goes
# (build/bench/udp_flood, sendmmsg; iperf3 -u would measure its own receiver instead).
# Prints Gbit/s, kpps and the ratios to the kernel (legacy and nft), writes build/bench-live.csv
# (config,io,workers,udp64_kpps,tcp_gbps), appends rows to build/bench.csv
# (name,packets,ns_per_packet,mpps,ratio,instructions_per_packet; TCP packets are bytes / 1448,
# the MSS with timestamps on a 1500 MTU; the ratio there is to the kernel's legacy row, or to
# nft's when legacy was not run) and writes build/bench-live.txt.
# BENCH_LIVE_SECONDS (3) per measurement; about 10 s per router. Skipped (exit 0) when not root.
# Called by bench/run.sh after the plot, so bench.png shows the engine rows only.
cd "$(dirname "$0")/.." || exit 2
BIN=${PT_BIN:-$PWD/build/pkttables}
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
OUT=build/bench.csv
TXT=build/bench-live.txt
SECS=${BENCH_LIVE_SECONDS:-3}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
T="timeout -k 2"

skip() { echo "bench/live.sh: skipped: $*"; exit 0; }
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, AF_PACKET, nfnetlink)"
FLOOD=$PWD/build/bench/udp_flood
[ -x "$BIN" ] && [ -x "$FLOOD" ] || { echo "bench/live.sh: $BIN or $FLOOD missing" >&2; exit 1; }
for t in ip iperf3 iptables-restore ethtool "$PY"; do
	command -v "$t" >/dev/null 2>&1 || skip "$t not installed (tools/install-deps.sh)"
done

C=pbc$$ R=pbr$$ S=pbs$$ L=pbl$$ W=pbw$$
D=$(mktemp -d /tmp/pt-bench.XXXXXX)
PT=""

teardown() {
	[ -n "$PT" ] && kill "$PT" 2>/dev/null && wait "$PT" 2>/dev/null
	PT=""
	for n in $C $R $S; do ip netns pids "$n" 2>/dev/null | xargs -r kill 2>/dev/null; done
	for n in $C $R $S; do ip netns del "$n" 2>/dev/null; done
}
trap 'teardown; rm -rf "$D"' EXIT
trap 'exit 1' INT TERM HUP

# The ruleset of all three: a default-drop FORWARD with rules the traffic walks past first.
STACK=${BENCH_LIVE_STACK:-filter}
if [ "$STACK" = full ]; then
	printf '*mangle\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n'
	printf ':OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\n'
	echo "-A PREROUTING -i $L -j MARK --set-xmark 0x1/0xffffffff"
	echo COMMIT
	printf '*nat\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\n'
	echo "-A POSTROUTING -o $W -j SNAT --to-source 198.51.100.1"
	echo COMMIT
	printf '*filter\n:INPUT ACCEPT [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT ACCEPT [0:0]\n'
	echo "-A FORWARD -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT"
	for p in 21 22 23 25 53 80 110 143 443 993 995 3306 5432 6379 8080 9000 9001; do
		echo "-A FORWARD -s 203.0.113.0/24 -p tcp --dport $p -j ACCEPT"
	done
	echo "-A FORWARD -i $L -o $W -p tcp --dport 5201 -j ACCEPT"
	echo "-A FORWARD -i $L -o $W -p udp --dport 5201 -j ACCEPT"
	echo "-A FORWARD -p icmp -j ACCEPT"
	echo "COMMIT"
fi >"$D/full.rules"
[ "$STACK" = full ] || {
	echo "*filter"
	echo ":INPUT ACCEPT [0:0]"
	echo ":FORWARD DROP [0:0]"
	echo ":OUTPUT ACCEPT [0:0]"
	for p in 21 22 23 25 53 80 110 143 443 993 995 3306 5432 6379 8080 9000; do
		echo "-A FORWARD -s 203.0.113.0/24 -p tcp --dport $p -j ACCEPT"
	done
	echo "-A FORWARD -p tcp --dport 5201 -j ACCEPT"
	echo "-A FORWARD -p tcp --sport 5201 -j ACCEPT"
	echo "-A FORWARD -p udp --dport 5201 -j ACCEPT"
	echo "-A FORWARD -p udp --sport 5201 -j ACCEPT"
	echo "-A FORWARD -p icmp -j ACCEPT"
	echo "COMMIT"
} >"$D/bench.rules"
[ "$STACK" = full ] && cp "$D/full.rules" "$D/bench.rules"

# topo MODE: build the three namespaces with the router as MODE; 0 when it forwards.
topo() {
	gso=""
	[ "${1%_gso}" = "$1" ] || gso=1
	set -- "${1%_gso}"
	ip netns add $C && ip netns add $R && ip netns add $S || return 1
	# afxdp2: two queues on every veth end, an AF_XDP socket (and a worker) for each
	q=""
	[ "$1" = afxdp2 ] && q="numrxqueues 2 numtxqueues 2"
	# shellcheck disable=SC2086
	ip link add $L netns $R $q type veth peer name eth0 netns $C $q || return 1
	# shellcheck disable=SC2086
	ip link add $W netns $R $q type veth peer name eth0 netns $S $q || return 1
	for n in $C $R $S; do ip -n $n link set lo up; done
	for n in $C $S; do
		[ -n "$gso" ] ||
			ip netns exec $n ethtool -K eth0 rx off tx off gso off tso off gro off >/dev/null 2>&1
		case $gso$1 in 1afxdptxoff) ip netns exec $n ethtool -K eth0 tx off >/dev/null 2>&1 ;; esac
		ip -n $n link set eth0 up
	done
	for d in $L $W; do
		[ -n "$gso" ] ||
			ip netns exec $R ethtool -K $d rx off tx off gso off tso off gro off >/dev/null 2>&1
	done
	ip -n $C addr add 192.0.2.2/24 dev eth0
	ip -n $C route add default via 192.0.2.1
	ip -n $S addr add 198.51.100.2/24 dev eth0
	ip -n $S route add default via 198.51.100.1
	case $1 in
	kernel | kernel_legacy | nfqueue)
		ip -n $R addr add 192.0.2.1/24 dev $L
		ip -n $R addr add 198.51.100.1/24 dev $W
		ip -n $R link set $L up
		ip -n $R link set $W up
		ip netns exec $R sysctl -qw net.ipv4.ip_forward=1
		restore=iptables-restore
		[ "$1" = kernel_legacy ] && restore=iptables-legacy-restore
		ip netns exec $R $restore <"$D/bench.rules" || return 1
		;;
	pkttables* | afxdp*)
		ip netns exec $R sysctl -qw net.ipv4.ip_forward=0 net.ipv6.conf.all.forwarding=0
		for d in $L $W; do
			ip netns exec $R sysctl -qw net.ipv6.conf.$d.disable_ipv6=1
			ip -n $R link set $d arp off
			ip -n $R link set $d up
		done
		io=afpacket workers=1
		case $1 in afxdp*) io=afxdp ;; esac
		case $1 in *2) workers=2 ;; esac
		cat >"$D/live.conf" <<CONF
io $io
workers $workers
iface $L
iface $W
addr $L 192.0.2.1/24
addr $W 198.51.100.1/24
rules bench.rules
CONF
		ip netns exec $R "$BIN" run --config "$D/live.conf" 2>"$D/pt.log" &
		PT=$!
		;;
	esac
	if [ "$1" = nfqueue ]; then
		# The kernel's filter table accepts what pkttables accepted.
		printf '*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n' |
			ip netns exec $R iptables-restore
		ip netns exec $R iptables -t mangle -A FORWARD -j NFQUEUE --queue-num 0 || return 1
		ip netns exec $R "$BIN" run --nfqueue 0 --queue-maxlen 4096 --rules "$D/bench.rules" \
			2>"$D/pt.log" &
		PT=$!
	fi
	ip netns exec $S iptables -t raw -A PREROUTING -p udp --dport 5201 -j DROP
	ip netns exec $S $T 60 iperf3 -s >/dev/null 2>&1 &
	# Ready when a ping goes through (pkttables started, neighbours resolved).
	for i in $(seq 1 30); do
		ip netns exec $C ping -c 1 -W 1 198.51.100.2 >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

# iperf3 JSON -> "bytes_or_packets per_second"
tcp_rate() {
	"$PY" -c 'import json,sys
j = json.load(sys.stdin)["end"]["sum_received"]
print(j["bytes"], j["bits_per_second"])'
}

: >"$TXT"
MODES=${BENCH_LIVE_MODES:-kernel kernel_legacy pkttables afxdp pkttables2 afxdp2 nfqueue kernel_gso kernel_legacy_gso pkttables_gso afxdp_gso}
[ "$STACK" = full ] && MODES=$(echo "$MODES" | sed 's/nfqueue//')
command -v iptables-legacy-restore >/dev/null 2>&1 ||
	MODES=$(echo "$MODES" | sed 's/kernel_legacy[a-z_]*//g')
echo "bench/live.sh: $STACK ruleset; $(nproc) CPUs, shared by sender, router and receiver; load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$TXT"
for mode in $MODES; do
	if ! topo $mode; then
		echo "bench/live.sh: $mode: the topology did not forward" | tee -a "$TXT"
		[ -f "$D/pt.log" ] && tail -3 "$D/pt.log"
		teardown
		continue
	fi
	sleep 0.3
	ip netns exec $C $T $((SECS + 10)) iperf3 -c 198.51.100.2 -t "$SECS" -J >"$D/tcp.json" 2>&1
	set -- $(tcp_rate <"$D/tcp.json" 2>/dev/null)
	eval "tcp_bytes_$mode=${1:-0} tcp_bps_$mode=${2:-0}"
	[ -n "${2:-}" ] || echo "bench/live.sh: $mode TCP: $(grep -m1 '"error"' "$D/tcp.json")"
	# UDP: what arrives at the server's interface while one sender floods (dropped there in
	# raw PREROUTING: no socket, no ICMP back).
	rx0=$(ip netns exec $S cat /sys/class/net/eth0/statistics/rx_packets)
	sent=$(ip netns exec $C $T $((SECS + 5)) "$FLOOD" 198.51.100.2 5201 "$SECS" 64)
	sleep 0.2
	rx1=$(ip netns exec $S cat /sys/class/net/eth0/statistics/rx_packets)
	n=$((rx1 - rx0))
	eval "udp_pkts_$mode=$n udp_pps_$mode=$(echo "$n $SECS" | awk '{ printf "%.0f", $1 / $2 }')"
	echo "bench/live.sh: $mode: UDP sent ${sent:-?}, arrived $n" | tee -a "$TXT"
	teardown
done

# row NAME PACKETS PPS BASE_PPS -> bench.csv and the table
row() {
	echo "$1 $2 $3 $4" | awk '{
		ns = $3 > 0 ? 1e9 / $3 : 0; r = $4 > 0 ? $3 / $4 : 0
		printf "%s,%d,%.1f,%.4f,%.3f,\n", $1, $2, ns, $3 / 1e6, r }' >>"$OUT"
}
[ -f "$OUT" ] || echo "name,packets,ns_per_packet,mpps,ratio,instructions_per_packet" >"$OUT"
# describe MODE: what the router was, $label for the table and $csvrow for bench-live.csv
describe() {
	case ${1%_gso} in
	kernel) label=kernel-nft csvrow="kernel-nft-$STACK,kernel,-" ;;
	kernel_legacy) label=kernel-legacy csvrow="kernel-legacy-$STACK,kernel,-" ;;
	pkttables) label="pkttables AF_PACKET" csvrow="pkttables-$STACK,afpacket,1" ;;
	afxdp) label="pkttables AF_XDP" csvrow="pkttables-$STACK,afxdp,1" ;;
	afxdptxoff) label="pkttables AF_XDP, hosts' tx csum off" csvrow="pkttables-$STACK-txcsumoff,afxdp,1" ;;
	pkttables2) label="pkttables AF_PACKET x2" csvrow="pkttables-$STACK,afpacket,2" ;;
	afxdp2) label="pkttables AF_XDP x2" csvrow="pkttables-$STACK,afxdp,2" ;;
	nfqueue) label="kernel-nft+NFQUEUE" csvrow="kernel-nft+pkttables-nfqueue,nfqueue,1" ;;
	*) label=$1 csvrow="$1,-,-" ;;
	esac
	if [ "${1%_gso}" != "$1" ]; then
		label="$label, offloads on"
		csvrow=$(echo "$csvrow" | sed 's/,/-offloads,/')
	fi
	case $1 in afxdp*_gso) label="$label (peers' TSO off by XDP)" ;; esac
}
{
	echo "live forwarding, one run, client -> router -> server (veth, offloads off but _gso);"
	echo "ratios to the kernel's legacy (x_tables) and nft (nf_tables) rows of the same offloads:"
	printf '  %-50s %10s %7s %7s   %11s %7s %7s\n' router "TCP Gbit/s" legacy nft "UDP-64 kpps" legacy nft
	for mode in $MODES; do
		eval "b=\$tcp_bps_$mode by=\$tcp_bytes_$mode p=\$udp_pps_$mode n=\$udp_pkts_$mode"
		[ -n "$b" ] || continue
		sfx=""
		[ "${mode%_gso}" = "$mode" ] || sfx=_gso
		eval "tl=\${tcp_bps_kernel_legacy$sfx:-0} ul=\${udp_pps_kernel_legacy$sfx:-0}"
		eval "tn=\${tcp_bps_kernel$sfx:-0} un=\${udp_pps_kernel$sfx:-0}"
		describe $mode
		echo "$b $tl $tn $p $ul $un" | awk -v name="$label" '
			function r(a, b) { return b > 0 ? sprintf("%.3f", a / b) : "-" }
			{ printf "  %-50s %10.2f %7s %7s   %11.1f %7s %7s\n", name, $1 / 1e9, r($1, $2),
				r($1, $3), $4 / 1e3, r($4, $5), r($4, $6) }'
		# bench.csv: one ratio, to legacy when it ran
		tcp_base=$tl udp_base=$ul
		[ "$tl" != 0 ] || tcp_base=$tn
		[ "$ul" != 0 ] || udp_base=$un
		tpps=$(echo "$b" | awk '{ printf "%.0f", $1 / 8 / 1448 }')
		kpps=$(echo "$tcp_base" | awk '{ printf "%.0f", $1 / 8 / 1448 }')
		row "live-tcp-$mode" "$(echo "$by" | awk '{ printf "%.0f", $1 / 1448 }')" "$tpps" "$kpps"
		row "live-udp64-$mode" "$n" "$p" "$udp_base"
	done
} | tee -a "$TXT"
# the same figures by configuration, I/O mode and data-path threads
echo "config,io,workers,udp64_kpps,tcp_gbps" >build/bench-live.csv
for mode in $MODES; do
	eval "b=\$tcp_bps_$mode p=\$udp_pps_$mode"
	[ -n "$b" ] || continue
	describe $mode
	echo "$csvrow $p $b" | awk '{ printf "%s,%.1f,%.3f\n", $1, $2 / 1e3, $3 / 1e9 }' >>build/bench-live.csv
done
echo "appended to $OUT, wrote $TXT and build/bench-live.csv"

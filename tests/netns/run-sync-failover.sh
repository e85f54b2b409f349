#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/run-sync-failover.sh - a pair of boxes taking over live connections (issue 19),
# pkttables or Linux + conntrackd in either role.
#
#   client ${P}c$$ (br0: 192.0.2.2,            server ${P}s$$ (br0: 198.51.100.2,
#                   2001:db8:1::2)                             2001:db8:2::2)
#      |  lA --- lan0 [box A] wan0 --- wA  |
#      |  lB --- lan0 [box B] wan0 --- wB  |     both boxes: the gateway addresses 192.0.2.1,
#                   sync0 --- sync0              2001:db8:1::1 / 198.51.100.1, 2001:db8:2::1 (a
#               192.168.79.1    .2               kernel standby gets them at the takeover), MACs
#                                                of their own; strict rulesets (new TCP must be a
#                                                SYN; SNAT --random-fully, IPv4 and IPv6); FTFW
#                                                over UDP 3780 on their own link
#
# Each round: box A is active (the client's and the server's neighbour entries for the gateway
# name its MACs), box B the standby. Per family (IPv4 and IPv6) 20 paced TCP transfers (10
# downloads, 10 uploads, sha256-checked) and 20 UDP request/response flows (one request per
# 10 ms; the server answers with the address and port it saw) run through A
# (tests/netns/sync_traffic.py). FO_CUT s after every flow is up: A is SIGKILLed (all of its
# namespace's processes: pkttables, or conntrackd) and its bridge ports stop forwarding (its
# links are cut); B commits what A replicated, as keepalived's notify script would (`pkttables
# sync commit` or `conntrackd -c`, then a kernel box gets the addresses); the neighbour entries
# then name B's MACs (what a gratuitous ARP / unsolicited NA does). Counted per family:
# transfers that complete intact, UDP flows answered after the cut, UDP flows whose external
# address:port changed. Measured, reported and never asserted: the UDP outage (the last answer
# before the cut to the first after it, median and max over the flows), the TCP stall (the
# receiver's longest pause between two reads that ended after the cut), the commit's duration,
# and with FO_LATENCY=1 the replication latency on the wire (tcpdump on the client's port of A
# and on B's sync link: 50 single UDP requests 20 ms apart per family before the flows, "idle",
# and the flows' own connections, all opened at once, "burst").
#
# Pairings (FO_PAIRS, A->B): pt-pt (pkttables pair), pt-wt (the same with `sync
# window-tracking`: strict window checks once both directions passed), ctd-pt (kernel +
# conntrackd active, pkttables standby), pt-ctd (pkttables active, kernel + conntrackd
# standby), nosync (pkttables pair without sync: the control, which must lose every TCP
# transfer, or the test proves nothing). Asserted: with sync every TCP transfer and UDP flow survives and no UDP binding
# changes; without sync no TCP transfer survives.
#
# Environment (defaults: the compact form make check runs; bench/failover.sh runs the rest):
#   FO_PAIRS "pt-pt pt-wt ctd-pt nosync"   FO_ROUNDS 1   FO_CUT 2 (s)   FO_BYTES 1000000 (per
#   transfer: 2048 bytes each 10 ms, about 5 s)   FO_STALL 6 (s a flow may stall before it is
#   counted lost)   FO_CSV FILE (append one row per pairing, round and family)   FO_LATENCY 0|1
#   FO_PT_LINES (more lines for the pkttables boxes' configs, e.g. "workers 1")
# Exit 77 (skipped) when not root or without namespaces, bridges, python3 (or tcpdump for
# FO_LATENCY=1); a kernel pairing is left out (saying why) without conntrackd, conntrack,
# iptables-restore or the kernel's NAT.
# Every wait is bounded.
# pt-timeout-factor: 2
cd "$(dirname "$0")/../.." || exit 2
. tests/netns/lib.sh
. tests/netns/sync-lib.sh
PAIRS=${FO_PAIRS:-pt-pt pt-wt ctd-pt nosync}
ROUNDS=${FO_ROUNDS:-1}
CUT=${FO_CUT:-2}
BYTES=${FO_BYTES:-1000000}
STALL=${FO_STALL:-6}
LAT=${FO_LATENCY:-0}
need=""
[ "$LAT" = 1 ] && need=tcpdump
sync_init failover "network namespaces" bridge "$PY" $need
TR=$PWD/tests/netns/sync_traffic.py
C=sfc$$ S=sfs$$
sync_ns $C $S
for n in $C $S; do
	ip -n $n link add br0 type bridge mcast_snooping 0 2>/dev/null || skip "no bridges"
	netns_quiet $n br0
done
ip -n $C addr add 192.0.2.2/24 dev br0
ip -n $C addr add 2001:db8:1::2/64 dev br0 nodad
ip -n $S addr add 198.51.100.2/24 dev br0
ip -n $S addr add 2001:db8:2::2/64 dev br0 nodad
for n in $C $S; do
	ip -n $n link set br0 up
	ip netns exec $n ethtool -K br0 tx off >/dev/null 2>&1
done
ip -n $C route add default via 192.0.2.1
ip -n $C -6 route add default via 2001:db8:1::1
ip -n $S route add default via 198.51.100.1
ip -n $S -6 route add default via 2001:db8:2::1

cat >"$D/rules" <<'RULES'
*nat
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
-A POSTROUTING -o wan0 -j SNAT --to-source 198.51.100.1 --random-fully
COMMIT
*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A FORWARD -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A FORWARD -i lan0 -p tcp --syn -m conntrack --ctstate NEW -j ACCEPT
-A FORWARD -i lan0 -p udp -m conntrack --ctstate NEW -j ACCEPT
COMMIT
RULES
sed 's/198.51.100.1/2001:db8:2::1/' "$D/rules" >"$D/rules6"
head -c "$BYTES" /dev/urandom >"$D/blob"

# The kernel pairings need conntrackd and the kernel's conntrack and NAT in a namespace.
kernel_ok=""
for t in conntrackd conntrack iptables-restore ip6tables-restore; do
	command -v $t >/dev/null 2>&1 || kernel_ok="$t not installed (tools/install-deps.sh)"
done
if [ -z "$kernel_ok" ]; then
	ip netns add sfk$$ && ip netns exec sfk$$ iptables-restore <"$D/rules" 2>"$D/k.err" &&
		ip netns exec sfk$$ ip6tables-restore <"$D/rules6" 2>>"$D/k.err" ||
		kernel_ok="the kernel refuses the NAT rules: $(head -n 1 "$D/k.err")"
	ip netns del sfk$$ 2>/dev/null
fi

ip netns exec $S $PY "$TR" server "$D/blob" >"$D/server.log" 2>&1 &
sync_bg $!
wait_for 5 grep -q ready "$D/server.log" || { cat "$D/server.log"; echo "FAIL: server"; exit 1; }

# box NS NAME KIND(pt|ctd) SYNC(yes|no) LOCAL PEER ACTIVE(yes|no): set up and start one box
box() {
	_ns=$1 _n=$2 _kind=$3 _sync=$4 _me=$5 _peer=$6 _act=$7
	_l=l$(echo $_n | tr ab AB) _w=w$(echo $_n | tr ab AB)
	ip link add lan0 netns $_ns type veth peer name $_l netns $C || exit 1
	ip link add wan0 netns $_ns type veth peer name $_w netns $S || exit 1
	ip -n $C link set $_l master br0
	ip -n $S link set $_w master br0
	ip -n $C link set $_l up
	ip -n $S link set $_w up
	ip -n $_ns addr add $_me/24 dev sync0
	ip -n $_ns link set sync0 up
	ip -n $_ns link set lan0 address 02:00:5e:10:0$_n:01
	ip -n $_ns link set wan0 address 02:00:5e:10:0$_n:02
	for d in lan0 wan0; do
		ip netns exec $_ns ethtool -K $d rx off tx off gso off tso off gro off >/dev/null 2>&1
	done
	if [ $_kind = pt ]; then
		nsysctl $_ns net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
		for d in lan0 wan0; do
			ip -n $_ns link set $d arp off
			ip -n $_ns link set $d up
		done
		cat >"$D/$_n.conf" <<CONF
iface lan0 mac 02:00:5e:10:0$_n:01
iface wan0 mac 02:00:5e:10:0$_n:02
addr lan0 192.0.2.1/24
addr lan0 2001:db8:1::1/64
addr wan0 198.51.100.1/24
addr wan0 2001:db8:2::1/64
rules rules
rules6 rules6
control ./$_n.ctl
CONF
		[ $_sync = yes ] && cat >>"$D/$_n.conf" <<CONF
sync mode ftfw
sync udp local $_me peer $_peer port 3780
sync peer-kind $PEERKIND
sync ignore-addr 192.168.79.0/24
CONF
		[ $_sync = yes ] && [ "$WT" = yes ] && echo "sync window-tracking" >>"$D/$_n.conf"
		[ -n "$FO_PT_LINES" ] && printf '%s\n' "$FO_PT_LINES" >>"$D/$_n.conf"
		rm -f "$D/$_n.ctl"
		pt_start $_ns $_n "$D/$_n.conf"
	else
		netns_quiet $_ns lan0 wan0
		nsysctl $_ns net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
		ip netns exec $_ns iptables-restore <"$D/rules" || exit 1
		ip netns exec $_ns ip6tables-restore <"$D/rules6" || exit 1
		ip -n $_ns link set lan0 up
		ip -n $_ns link set wan0 up
		[ $_act = yes ] && kaddrs $_ns
		ctd_conf $_n 192.168.79.0/24 <<CONF
	Mode FTFW {
		DisableExternalCache no
	}
	UDP {
		IPv4_address $_me
		IPv4_Destination_Address $_peer
		Port 3780
		Interface sync0
		Checksum on
	}
CONF
		ctd_start $_ns $_n
	fi
}
kaddrs() {
	ip -n $1 addr add 192.0.2.1/24 dev lan0
	ip -n $1 addr add 2001:db8:1::1/64 dev lan0 nodad
	ip -n $1 addr add 198.51.100.1/24 dev wan0
	ip -n $1 addr add 2001:db8:2::1/64 dev wan0 nodad
}
# cut_a: A's ports on the two bridges stop forwarding (its links are cut)
cut_a() {
	ip netns exec $S bridge link set dev wA state 0 || exit 1
	ip netns exec $C bridge link set dev lA state 0 || exit 1
}
# gateway (_gw=a|b): the client's and the server's neighbour entries for the gateway addresses
# name that box's MACs, what a gratuitous ARP / unsolicited NA does when the addresses move: so
# the standby (a pkttables box has the addresses in its config) is never asked for them before.
# Not static: the hosts must take the new box's MAC from its first solicitation (an IPv6 host
# answers an NS through its own entry; one still naming the dead box cost 1.1 s).
gateway() {
	for x in "$C 192.0.2.1 2001:db8:1::1 01" "$S 198.51.100.1 2001:db8:2::1 02"; do
		set -- $x
		ip -n $1 neigh replace $2 lladdr 02:00:5e:10:0$_gw:$4 dev br0 nud reachable
		ip -n $1 -6 neigh replace $3 lladdr 02:00:5e:10:0$_gw:$4 dev br0 nud reachable
	done
}
now() { date +%s.%N; }
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", (b - a) * 1000 }'; }

# round PAIR N: one failover; its client output in $D/PAIR.N.out, times in $D/PAIR.N.times
round() {
	_p=$1 _r=$2
	_o=$D/$_p.$_r
	case $_p in
	pt-pt) ka=pt kb=pt sy=yes ;;
	pt-wt) ka=pt kb=pt sy=yes ;;
	ctd-pt) ka=ctd kb=pt sy=yes ;;
	pt-ctd) ka=pt kb=ctd sy=yes ;;
	nosync) ka=pt kb=pt sy=no ;;
	esac
	A=sfa$$ B=sfb$$
	sync_ns $A $B
	ip link add sync0 netns $A type veth peer name sync0 netns $B || exit 1
	PEERKIND=conntrackd WT=no
	case $_p in pt-pt | pt-wt | nosync) PEERKIND=pkttables ;; esac
	[ $_p = pt-wt ] && WT=yes
	box $A a $ka $sy 192.168.79.1 192.168.79.2 yes
	box $B b $kb $sy 192.168.79.2 192.168.79.1 no
	_gw=a
	gateway
	if [ $sy = yes ]; then # the handshake, seen from a pkttables side
		[ $kb = pt ] && _h=b || _h=a
		wait_for 5 has "rx_hello [1-9]" psync $_h stats || bad "$_p: no HELLO reached $_h"
		sleep 1.2
	fi
	_cap=""
	if [ "$LAT" = 1 ]; then
		ip netns exec $C tcpdump -i lA -s 128 -U --time-stamp-precision=nano -w "$_o.flows.pcap" \
			'(ip and tcp[tcpflags] & (tcp-syn|tcp-ack) == tcp-syn) or (ip6 and ip6[6] == 6 and ip6[53] & 0x12 == 2) or (udp dst port 7777)' \
			>"$_o.tcpdump1" 2>&1 &
		_cap="$!"
		ip netns exec $B tcpdump -i sync0 -s 0 -U --time-stamp-precision=nano -w "$_o.sync.pcap" \
			udp port 3780 >"$_o.tcpdump2" 2>&1 &
		_cap="$_cap $!"
		sync_bg $_cap
		wait_for 5 grep -q listening "$_o.tcpdump1" && wait_for 5 grep -q listening "$_o.tcpdump2"
	fi
	_pr=0
	[ "$LAT" = 1 ] && _pr=50
	ip netns exec $C $T 120 $PY "$TR" client "$D/blob" "$_o.cut" 4 6 --bytes "$BYTES" --probes $_pr \
		--stall "$STALL" --deadline $((CUT + 30 + STALL)) --started "$_o.started" >"$_o.out" 2>&1 &&
		echo end >"$_o.done" &
	_cl=$!
	sync_bg $_cl
	if ! wait_for 15 test -s "$_o.started"; then
		bad "$_p round $_r: the flows did not start through A"
		cat "$_o.out"
	fi
	sleep "$CUT"
	# the failover: A dies, its links are cut; B commits, then takes the addresses
	_t0=$(now)
	ip netns pids $A | xargs -r kill -9
	cut_a
	_t1=$(now)
	echo "$_t1" >"$_o.cut" # A is dead and cut off: every answer after this is B's
	if [ $sy = yes ] && [ $kb = pt ]; then
		psync b commit >"$_o.commit" 2>&1 || bad "$_p: sync commit: $(cat "$_o.commit")"
	elif [ $sy = yes ]; then
		ctd $B b -c >"$_o.commit" 2>&1 || bad "$_p: conntrackd -c: $(cat "$_o.commit")"
		kaddrs $B
	fi
	_t2=$(now)
	_gw=b
	gateway
	echo "cut $_t1 commit_ms $(ms "$_t1" "$_t2") up_ms $(ms "$_t0" "$(now)")" >"$_o.times"
	wait_for $((CUT + 40 + STALL)) test -s "$_o.done" || bad "$_p round $_r: the client did not end"
	[ -n "$_cap" ] && sleep 0.5 && kill -INT $_cap 2>/dev/null && sleep 0.3
	if [ "$LAT" = 1 ]; then
		$PY "$TR" latency "$_o.flows.pcap" "$_o.sync.pcap" >"$_o.lat" 2>&1
	fi
	for n in $A $B; do
		ip netns pids $n 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns del $n 2>/dev/null
	done
	# The kernel takes a namespace down in the background, after its processes' sockets are
	# released (an RCU grace period for each packet socket); its veths' ends in the client's
	# and the server's namespaces go then. The next pairing makes links of the same names.
	wait_for 20 sh -c "! ip -n $C link show lA && ! ip -n $C link show lB &&
		! ip -n $S link show wA && ! ip -n $S link show wB" ||
		bad "$_p round $_r: the boxes' links were still there 20 s after their namespaces went"
}

[ -n "$FO_CSV" ] && [ ! -s "$FO_CSV" ] &&
	echo "pairing,round,family,tcp_ok,tcp_n,up_ok,down_ok,udp_alive,udp_n,udp_changed,udp_gap_med_ms,udp_gap_max_ms,tcp_stall_med_ms,tcp_stall_max_ms,commit_ms,idle_n,idle_p50_us,idle_p99_us,idle_max_us,burst_n,burst_p50_us,burst_p99_us,burst_max_us" >"$FO_CSV"
for p in $PAIRS; do
	case $p in
	pt-pt | pt-wt | nosync) ;;
	ctd-pt | pt-ctd)
		if [ -n "$kernel_ok" ]; then
			echo "SKIP: pairing $p: $kernel_ok"
			continue
		fi
		;;
	*) echo "FAIL: unknown pairing $p"; exit 1 ;;
	esac
	r=1
	while [ $r -le "$ROUNDS" ]; do
		round $p $r
		o=$D/$p.$r
		set -- $(cat "$o.times")
		cms=$4
		for fam in 4 6; do
			line=$(grep "^sum $fam " "$o.out")
			idle=$(grep "^latency $fam idle " "$o.lat" 2>/dev/null | cut -d' ' -f4-)
			burst=$(grep "^latency $fam burst " "$o.lat" 2>/dev/null | cut -d' ' -f4-)
			[ -n "$line" ] || { bad "$p round $r: no result"; cat "$o.out"; continue; }
			set -- $line
			tcp_ok=$4 tcp_n=$5 up=$7 down=$9 alive=${11} udp_n=${12} changed=${14}
			echo "$p round $r IPv$fam: TCP $tcp_ok/$tcp_n intact ($up uploads, $down downloads)," \
				"UDP $alive/$udp_n answered after the cut, $changed bindings changed;" \
				"outage UDP median ${16} ms (max ${17}), TCP stall median ${19} ms (max ${20});" \
				"commit $cms ms${idle:+; replication on the wire (n p50 p99 max, us): idle $idle, burst $burst}"
			grep "^latency-missing $fam " "$o.lat" 2>/dev/null
			if [ -n "$FO_CSV" ]; then
				set -- $line
				l1=$(echo "$idle" | tr ' ' ',') l2=$(echo "$burst" | tr ' ' ',')
				echo "$p,$r,$fam,$4,$5,$7,$9,${11},${12},${14},${16},${17},${19},${20},$cms,${l1:-,,,},${l2:-,,,}" >>"$FO_CSV"
			fi
			if [ $p = nosync ]; then
				[ "$tcp_ok" -eq 0 ] && ok "nosync IPv$fam: no TCP transfer survives (the ruleset is strict)" ||
					bad "nosync IPv$fam: $tcp_ok/$tcp_n TCP transfers survived without state"
			else
				[ "$tcp_ok" -eq 20 ] && [ "$tcp_n" -eq 20 ] && ok "$p IPv$fam: 20/20 TCP transfers survive" ||
					{ bad "$p IPv$fam: $tcp_ok/$tcp_n TCP transfers survive"; grep "^tcp $fam .* \(bad\|early\)" "$o.out" | head -n 5; }
				[ "$alive" -eq 20 ] && [ "$changed" -eq 0 ] && ok "$p IPv$fam: 20/20 UDP flows survive, no binding changed" ||
					bad "$p IPv$fam: $alive/20 UDP flows survive, $changed bindings changed"
			fi
		done
		r=$((r + 1))
	done
done
[ $fails -eq 0 ] || for f in "$D"/*.out "$D"/*.log; do echo "--- $f"; tail -n 30 "$f"; done
exit $((fails > 0))

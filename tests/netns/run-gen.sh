#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/run-gen.sh - `pkttables gen` sends a known count through a kernel router and
# `pkttables gen --receive` counts it back exactly (no traffic leaves the namespaces):
#   client eth0 --(veth)-- router (the kernel, forwarding) --(veth)-- server eth0
# IPv4 (UDP, 100 flows, PACKET_TX_RING) and IPv6 (TCP data, 64 flows, sendmmsg), each 3000
# datagrams at a modest rate. The counts are compared exactly: every datagram is received or
# dropped where the kernel counts the drop (a loaded machine may drop, never uncounted);
# no duplicates; every flow seen when nothing was dropped.
cd "$(dirname "$0")/../.." || exit 2
. tests/netns/lib.sh

netns_init pg gen "namespaces and raw sockets" ip sysctl timeout
netns_end_hosts
inr sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 \
	net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
	net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
ip -n $R link set lo up
ip -n $R link set $L up
ip -n $R link set $W up
ip -n $R addr add 192.0.2.1/24 dev $L
ip -n $R addr add 198.51.100.1/24 dev $W
ip -n $R addr add 2001:db8:1::1/64 dev $L nodad
ip -n $R addr add 2001:db8:2::1/64 dev $W nodad
# the server's address resolved up front: the first packets do not wait for ARP/ND
smac=$(ip -n $S -o link show eth0 | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
ip -n $R neigh replace 198.51.100.2 lladdr "$smac" dev $W nud permanent
ip -n $R neigh replace 2001:db8:2::2 lladdr "$smac" dev $W nud permanent
rmac=$(ip -n $R -o link show $L | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
cmac=$(ip -n $C -o link show eth0 | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
# the generator's sources 192.0.2.100.. and 2001:db8:1::100.. live behind the client
ip -n $R neigh replace 192.0.2.100 lladdr "$cmac" dev $L nud permanent

# one_round NAME COUNT FLOWS GEN-ARGS...: receiver first, then the sender; compare the counts
one_round() {
	name=$1 n=$2 flows=$3
	shift 3
	$T 30 ip netns exec $S "$BIN" gen --receive eth0 -n "$n" -t 20 --flows "$flows" \
		--quiet >"$D/$name.rx" 2>"$D/$name.rxerr" &
	rx=$!
	# the receiver says so once its ring is bound (bounded wait): no frame before that counts
	i=0
	while [ $i -lt 100 ] && ! grep -q "^gen: receiving on" "$D/$name.rxerr" 2>/dev/null; do
		sleep 0.05
		i=$((i + 1))
	done
	d0=$(drops)
	$T 30 ip netns exec $C "$BIN" gen -i eth0 --dmac "$rmac" --smac "$cmac" -n "$n" \
		--flows "$flows" "$@" --quiet >"$D/$name.tx" 2>"$D/$name.txerr" ||
		bad "$name: sender failed: $(cat "$D/$name.txerr")"
	wait $rx || bad "$name: receiver failed: $(grep -v '^gen: receiving' "$D/$name.rxerr")"
	line=$(cat "$D/$name.rx")
	echo "  $name: $(cat "$D/$name.tx")"
	echo "  $name: $line"
	# Every datagram is accounted for: counted by the receiver, or dropped where the kernel
	# counts it (a full backlog behind a veth: the veths' dropped counters; the receiver's
	# full ring: ring_drops). On a quiet machine these stay 0; on a loaded one the kernel may
	# drop, but never without counting.
	kd=$(($(drops)-d0))
	rd=$(echo "$line" | sed -n 's/.* ring_drops=\([0-9]*\).*/\1/p')
	kd=$((kd + ${rd:-0}))
	got=$(echo "$line" | sed -n 's/^rx received=\([0-9]*\) lost=\([0-9]*\) reordered=[0-9]* duplicated=\([0-9]*\) flows=\([0-9]*\) .*/\1 \2 \3 \4/p')
	set -- $got
	if [ "${1:-x}" = "$((n - kd))" ] && [ "$2" -le "$kd" ] && [ "$3" = 0 ] &&
		{ [ "$4" = "$flows" ] || [ "$kd" -gt 0 ]; }; then
		ok "$name: $1 of $n counted back, $kd dropped and counted by the kernel"
	else
		bad "$name: want received=$((n - kd)) (kernel drops $kd) lost<=$kd duplicated=0 flows=$flows"
	fi
}

# datagrams the kernel dropped and counted on the way: a veth counts a frame its peer's
# backlog refused as tx_dropped of the sending end (and some kernels as rx_dropped of the
# other), so both counters of all four ends are summed
drops() {
	t=0
	for nd in "$C eth0" "$R $L" "$R $W" "$S eth0"; do
		set -- $nd
		for k in rx_dropped tx_dropped; do
			t=$((t + $(ip netns exec $1 cat /sys/class/net/$2/statistics/$k)))
		done
	done
	echo $t
}

one_round udp4 3000 100 --src 192.0.2.100 --dst 198.51.100.2 --rate 20kpps --tx ring
one_round tcp6 3000 64 -6 --proto tcp --src6 2001:db8:1::100 --dst6 2001:db8:2::2 --dport 5001 \
	--size 200 --rate 20kpps --tx mmsg

[ $fails -eq 0 ] || exit 1

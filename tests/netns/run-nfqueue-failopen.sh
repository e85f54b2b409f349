#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/run-nfqueue-failopen.sh - what happens to packets pkttables cannot judge:
#
#   client eth0 --- router (the kernel routes; mangle FORWARD -j NFQUEUE) --- server eth0
#
# pkttables' rules drop every UDP datagram to port 7000; a kernel filter FORWARD rule after the
# queue counts what got past. pkttables is stopped (SIGSTOP) while the client sends 10
# datagrams, so no verdict comes and the kernel's queue (--queue-maxlen 1) overflows at once:
#   --fail-open (NFQA_CFG_F_FAIL_OPEN)  the overflow is accepted unjudged: 9 get past
#   without it (fail closed, the default) the overflow is dropped: none gets past
# and once pkttables has gone (no program on the queue), the kernel rule decides:
#   -j NFQUEUE --queue-bypass           accepted: all 10 get past
#   -j NFQUEUE                          dropped: none
# The counts are exact: the datagrams are sent while no verdict can be given, and the one the
# queue holds gets pkttables' DROP after SIGCONT.
cd "$(dirname "$0")/../.." || exit 2
. tests/netns/lib.sh
netns_init pf nfqfo "network namespaces, nfnetlink" ip iptables iptables-save
inr iptables -t mangle -A FORWARD -p udp --dport 7000 -j NFQUEUE --queue-num 3 2>/dev/null ||
	skip "iptables -j NFQUEUE refused (no nfnetlink_queue / xt_NFQUEUE)"
[ -r /proc/net/netfilter/nfnetlink_queue ] || skip "no nfnetlink_queue in this kernel"
inr iptables -A FORWARD -p udp --dport 7000 -m comment --comment past
nsysctl $R net.ipv4.ip_forward=1
netns_quiet $R $L $W
ip -n $R link set lo up
ip -n $R addr add 192.0.2.1/24 dev $L
ip -n $R addr add 198.51.100.1/24 dev $W
ip -n $R link set $L up
ip -n $R link set $W up
netns_end_hosts
# the server drops them before any socket: no ICMP back
ins iptables -t raw -A PREROUTING -p udp --dport 7000 -j DROP
printf '*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n-A FORWARD -p udp --dport 7000 -j DROP\nCOMMIT\n' >"$D/drop.rules"
# the server's address resolved first: no datagram waits for ARP
inc ping -c 1 -W 2 198.51.100.2 >/dev/null 2>&1

past() { inr iptables-save -c -t filter | sed -n 's/^\[\([0-9]*\):[0-9]*\] .*--comment past$/\1/p'; }
send10() {
	inc "$PY" -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(10): s.sendto(b"x%d" % i, ("198.51.100.2", 7000))'
}

# one_run NAME [--fail-open] -> datagrams past the queue while pkttables was stopped
one_run() {
	name=$1
	shift
	ip netns exec $R "$BIN" run --nfqueue 3 --queue-maxlen 1 "$@" --rules "$D/drop.rules" \
		2>"$D/$name.log" &
	PT=$!
	i=0
	while ! grep -q "serving nfqueue 3" "$D/$name.log" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q "serving nfqueue 3" "$D/$name.log" || { cat "$D/$name.log"; bad "$name: no start"; return; }
	before=$(past)
	kill -STOP $PT
	send10
	sleep 0.5
	kill -CONT $PT
	sleep 0.5
	kill -TERM $PT
	wait $PT
	PT=""
	echo $(($(past) - before))
}

n=$(one_run failopen --fail-open)
[ "$n" = 9 ] && ok "--fail-open: the 9 datagrams the full queue could not hold went past unjudged" ||
	bad "--fail-open: $n past (want 9)"
n=$(one_run failclosed)
[ "$n" = 0 ] && ok "fail closed (default): nothing past the full queue" || bad "fail closed: $n past (want 0)"

# no program on the queue: the kernel rule's --queue-bypass decides
before=$(past)
send10
sleep 0.5
n=$(($(past) - before))
[ "$n" = 0 ] && ok "no program on queue 3, no --queue-bypass: all dropped" || bad "unbound: $n past"
inr iptables -t mangle -R FORWARD 1 -p udp --dport 7000 -j NFQUEUE --queue-num 3 --queue-bypass
before=$(past)
send10
sleep 0.5
n=$(($(past) - before))
[ "$n" = 10 ] && ok "no program on queue 3, --queue-bypass: all 10 accepted" || bad "bypass: $n past"
[ $fails -eq 0 ] || exit 1

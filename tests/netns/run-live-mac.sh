#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/run-live-mac.sh - pkttables over AF_PACKET speaks from a MAC of its own, so the
# router namespace's own IP stack never sees the frames it forwards (docs/live.md, "A MAC of
# its own").
#
#   ptmc$$ (client)            ptmr$$ (pkttables, no kernel addresses)          ptms$$ (server)
#   eth0 192.0.2.2/24  ---  ptml$$  [pkttables run]  ptmw$$  ---  eth0 198.51.100.2/24
#
# Checks: the client learns by ARP a MAC for 192.0.2.1 that is not the interface's, locally
# administered and unicast, and the frames pkttables sends carry it; 200 pings through leave the
# router namespace's IpInReceives unmoved (the frames reach ip_rcv as PACKET_OTHERHOST, dropped
# before they are counted); pinned to the kernel's MAC instead, the client's pings still pass
# (pkttables takes both), and then the router's stack receives every one of them (the per-frame
# route lookup the own MAC spares); `iface NAME mac kernel` answers ARP with the kernel's MAC.
# Exit 77 (skipped) when not root or namespaces are unavailable. Every command is bounded.
cd "$(dirname "$0")/../.." || exit 2
. tests/netns/lib.sh
netns_init ptm livemac "network namespaces, AF_PACKET" ip ping
[ -z "${PT_LIVE_IO:-}" ] || [ "$PT_LIVE_IO" = afpacket ] || skip "AF_PACKET only (io $PT_LIVE_IO)"

netns_live_router
echo ready >"$D/server.log"
kmac=$(ip -n $R -o link show $L | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
printf 'iface %s\niface %s\naddr %s 192.0.2.1/24\naddr %s 198.51.100.1/24\n' $L $W $L $W \
	>"$D/live.conf"

in_receives() { # the router namespace's IpInReceives
	inr awk '/^Ip:/ { if (!h) { for (i = 1; i <= NF; i++) if ($i == "InReceives") c = i; h = 1 }
		else print $c }' /proc/net/snmp
}
neigh_mac() { # the client's neighbour entry for 192.0.2.1
	inc ip neigh show 192.0.2.1 dev eth0 | sed -n 's/.*lladdr \([0-9a-f:]*\).*/\1/p'
}

netns_start_live "$D/live.conf"
inc $T 8 ping -c 2 -i 0.2 -W 2 198.51.100.2 >"$D/p0" 2>&1 && ok "ping through pkttables" ||
	{ bad "ping 198.51.100.2"; cat "$D/p0"; }
own=$(neigh_mac)
first=$(printf '%s' "$own" | cut -d: -f1)
if [ -n "$own" ] && [ "$own" != "$kmac" ] && [ $((0x${first:-0} & 3)) -eq 2 ]; then
	ok "ARP for 192.0.2.1 answers $own: not the interface's $kmac, locally administered, unicast"
else
	bad "ARP for 192.0.2.1 answered '$own' (interface $kmac)"
fi
grep -q "forwarding on $L (afpacket, mac $own)" "$D/pt.log" && ok "the start line names it" ||
	{ bad "start line without 'mac $own'"; cat "$D/pt.log"; }
# the frames pkttables sends come from that MAC: the server learnt it for its gateway
smac=$(ip netns exec $S ip neigh show 198.51.100.1 dev eth0 | sed -n 's/.*lladdr \([0-9a-f:]*\).*/\1/p')
wmac=$(ip -n $R -o link show $W | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
[ -n "$smac" ] && [ "$smac" != "$wmac" ] && ok "the server's side too: $smac, not $wmac" ||
	bad "server's neighbour 198.51.100.1 is '$smac' (interface $wmac)"

a=$(in_receives)
inc $T 20 ping -c 200 -i 0.01 -W 2 -q 198.51.100.2 >"$D/p1" 2>&1
b=$(in_receives)
grep -q " 0% packet loss" "$D/p1" && ok "200 pings through" || { bad "200 pings"; cat "$D/p1"; }
# every ping and its reply cross L or W: 400 frames; a stray broadcast may be counted
[ $((b - a)) -lt 20 ] && ok "the router's own stack received $((b - a)) of 400 frames" ||
	bad "the router's own stack received $((b - a)) of 400 frames (IpInReceives $a -> $b)"

# a neighbour that still has the kernel's MAC (learnt before pkttables started) gets through
inc ip neigh replace 192.0.2.1 lladdr "$kmac" dev eth0 nud permanent
a=$(in_receives)
inc $T 20 ping -c 200 -i 0.01 -W 2 -q 198.51.100.2 >"$D/p2" 2>&1
b=$(in_receives)
grep -q " 0% packet loss" "$D/p2" && ok "200 pings to the kernel's MAC forwarded too" ||
	{ bad "200 pings to $kmac"; cat "$D/p2"; }
# ... at the kernel's cost: each request reaches its IP stack (routed there, then dropped)
[ $((b - a)) -ge 200 ] && ok "to the kernel's MAC, its stack received $((b - a)) frames (>= 200)" ||
	bad "to the kernel's MAC its stack received only $((b - a)) frames"
inc ip neigh del 192.0.2.1 dev eth0

netns_stop_live && ok "SIGTERM: exit 0" || bad "SIGTERM"

# mac kernel: the interface's own MAC, as before
printf 'iface %s mac kernel\niface %s\naddr %s 192.0.2.1/24\naddr %s 198.51.100.1/24\n' $L $W \
	$L $W >"$D/live2.conf"
inc ip neigh flush dev eth0
netns_start_live "$D/live2.conf"
inc $T 8 ping -c 2 -i 0.2 -W 2 198.51.100.2 >"$D/p3" 2>&1 && ok "ping through (mac kernel)" ||
	{ bad "ping with mac kernel"; cat "$D/p3"; }
grep -q "forwarding on $L (afpacket) " "$D/pt.log" && ok "mac kernel: the start line names none" ||
	{ bad "start line with mac kernel"; cat "$D/pt.log"; }
got=$(neigh_mac)
[ "$got" = "$kmac" ] && ok "iface $L mac kernel: ARP answers the interface's $kmac" ||
	bad "mac kernel: ARP answered '$got', interface $kmac"
netns_stop_live || bad "SIGTERM (mac kernel)"

[ $fails -eq 0 ] && echo "all live MAC checks passed" || { echo "$fails live MAC checks failed"; exit 1; }

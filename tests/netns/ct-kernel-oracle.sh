#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/ct-kernel-oracle.sh [CASE...] - ask the running kernel's conntrack what it makes
# of the packet sequences in ct_kernel_oracle.py (TCP window scaling, out-of-window, simultaneous
# open, ICMP errors RELATED and forged, SCTP handshake, tags and shutdown, GRE keys and PPTP call
# ids). Two namespaces per case, created and removed here:
#
#   ctk$$ (server 10.9.0.1, tracks)  v0 ---- v1  cte$$ (client 10.9.0.2)
#
# Prints one line per packet (which --ctstate counter moved) and conntrack -L. Not run by
# tests/run.sh (it reads the kernel, not pkttables); its answers are in tests/unit/test_ct_*.c.
# Needs root, iproute2, iptables, conntrack, python3-scapy.
cd "$(dirname "$0")" || exit 2
PY=/usr/bin/python3
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }
K=ctk$$ E=cte$$
cleanup() { ip netns del $K 2>/dev/null; ip netns del $E 2>/dev/null; }
trap cleanup EXIT INT TERM
[ $# -gt 0 ] || set -- scaled unscaled oow lower simopen icmp sctp sctpinit sctpshut gre
for c in "$@"; do
	cleanup
	ip netns add $K && ip netns add $E || exit 1
	ip link add v0 netns $K address 02:00:00:00:00:08 type veth peer name v1 netns $E \
		address 02:00:00:00:00:09 || exit 1
	ip netns exec $K sh -c '
		sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
		ip link set lo up; ip link set v0 up; ip addr add 10.9.0.1/24 dev v0
		ip neigh replace 10.9.0.2 lladdr 02:00:00:00:00:09 dev v0 nud permanent
		ethtool -K v0 tx off rx off gro off >/dev/null 2>&1
		iptables -t raw -A OUTPUT -p tcp -m ttl ! --ttl-eq 99 -j DROP
		iptables -t raw -A OUTPUT -p sctp -m ttl ! --ttl-eq 99 -j DROP
		for ch in INPUT OUTPUT; do for s in NEW ESTABLISHED RELATED INVALID; do
			iptables -A $ch -m conntrack --ctstate $s; done; done' || exit 1
	ip netns exec $E sh -c '
		ip link set lo up; ip link set v1 up; ip addr add 10.9.0.2/24 dev v1
		ip neigh replace 10.9.0.1 lladdr 02:00:00:00:00:08 dev v1 nud permanent
		ethtool -K v1 tx off rx off gro off >/dev/null 2>&1
		iptables -t raw -A OUTPUT -p tcp -m ttl ! --ttl-eq 99 -j DROP
		iptables -t raw -A OUTPUT -p sctp -m ttl ! --ttl-eq 99 -j DROP' || exit 1
	timeout 60 $PY ct_kernel_oracle.py "$c" $K $E 2>&1 | grep -v WARNING
done

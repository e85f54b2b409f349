#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/run-sync-conntrackd.sh - pkttables and the kernel + conntrackd 1.4.7 on one sync
# link, FTFW over UDP (docs/sync.md).
#
#   ${P}a$$: pkttables run (sync udp 192.168.77.1 -> .2:3780, control $D/a.ctl; its forwarding
#            interface is one end of a veth pair: connections are made over the control socket)
#   ${P}b$$: conntrackd -C $D/b.conf (FTFW, UDP 192.168.77.2 -> .1:3780) and the kernel's table
#
# Checks, each way: a TCP connection (mark, ESTABLISHED, ASSURED, timeout) and a UDP one with
# SNAT address and port made on one side appear in the other's external cache with the same
# tuples, NAT, mark and timeout (+-2 s); committed, they are in the table (`conntrack -L` on
# the kernel side, `pkttables ct -L` on ours) with the translated reply tuple. Then 40 more
# connections each way with 10 % loss on the link (tc netem): all arrive, by NACK and resend.
# Exit 77 (skipped) when not root, without namespaces or without conntrackd/conntrack/tc.
# Every wait is bounded.
cd "$(dirname "$0")/../.." || exit 2
. tests/netns/lib.sh
. tests/netns/sync-lib.sh
sync_init sync "network namespaces" conntrackd conntrack
sync_ctd_pair sy 192.168.77 udp

# timeout field of a line: "N" right after the protocol number (external) or as conntrack -L
tmo_ok() { [ "$1" -ge $(($2 - 2)) ] && [ "$1" -le $(($2 + 2)) ]; }

# the handshake: each side says HELLO, gets HELLO_BACK
sync_hello a

# ---- kernel + conntrackd -> pkttables ---------------------------------------------------
sync_two_flows a "conntrackd -> pkttables" kct $B
line=$SYNC_LINE
t=$(echo "$line" | awk '{print $3}')
tmo_ok "${t:-0}" 900 && ok "timeout $t (900 +-2)" || bad "timeout '$t', want 900 +-2"
psync a commit | grep -q "committed 2" && ok "pkttables sync commit: 2" || bad "commit"
pct a -L >"$D/a.L" 2>&1
grep -q "src=10.7.0.2 dst=10.8.0.2 sport=5353 dport=53 .*src=10.8.0.2 dst=203.0.113.9 sport=53 dport=61000" "$D/a.L" &&
	ok "committed UDP: reply tuple to 203.0.113.9:61000" || { bad "committed UDP reply"; cat "$D/a.L"; }
grep "src=10.7.0.1 dst=10.8.0.1 sport=5000 dport=22" "$D/a.L" | grep -q "ESTABLISHED.*mark=7" &&
	ok "committed TCP: ESTABLISHED mark=7" || { bad "committed TCP"; cat "$D/a.L"; }

# ---- pkttables -> kernel + conntrackd ---------------------------------------------------
pct a -I -s 10.9.0.1 -d 10.10.0.1 -p tcp --sport 6000 --dport 80 --state ESTABLISHED -t 600 \
	-u SEEN_REPLY,ASSURED -m 85 >/dev/null 2>&1 || bad "pkttables ct -I tcp"
pct a -I -s 10.9.0.2 -d 10.10.0.2 -p udp --sport 7000 --dport 53 -t 120 \
	--src-nat 198.51.100.7:41000 >/dev/null 2>&1 || bad "pkttables ct -I udp snat"
if wait_for 5 has "src=10.9.0.2" ctd $B b -e; then
	ok "pkttables -> conntrackd: in its external cache"
else
	bad "pkttables -> conntrackd: nothing in -e"; ctd $B b -e; ctd $B b -s network
fi
line=$(ctd $B b -e | grep "src=10.9.0.1")
case $line in
*ESTABLISHED*sport=6000*dport=80*mark=85*) ok "pkttables -> conntrackd: TCP ESTABLISHED mark 85" ;;
*) bad "pkttables -> conntrackd: TCP: '$line'" ;;
esac
ctd $B b -c >/dev/null 2>&1 || bad "conntrackd -c"
kct $B -L >"$D/b.L" 2>/dev/null
grep -q "src=10.9.0.2 dst=10.10.0.2 sport=7000 dport=53 .*src=10.10.0.2 dst=198.51.100.7 sport=53 dport=41000" "$D/b.L" &&
	ok "kernel after commit: UDP reply to 198.51.100.7:41000" || { bad "kernel UDP NAT"; cat "$D/b.L"; }
l=$(grep "src=10.9.0.1 dst=10.10.0.1" "$D/b.L")
t=$(echo "$l" | awk '{print $3}')
case $l in
*ESTABLISHED*mark=85*) tmo_ok "${t:-0}" 600 && ok "kernel after commit: TCP ESTABLISHED mark=85 timeout $t" ||
	bad "kernel TCP timeout '$t'" ;;
*) bad "kernel TCP: '$l'" ;;
esac
if ctd $B b -s network | grep -qi "malformed.*[1-9]"; then
	bad "conntrackd counted malformed messages"; ctd $B b -s network
else
	ok "conntrackd refused none of our messages"
fi

# ---- 10 % loss on the link, both ways -----------------------------------------------------
# netem when the kernel has it, else the kernel's own random drop on the way out
if ip netns exec $A tc qdisc add dev vA root netem loss 10% 2>/dev/null; then
	ip netns exec $B tc qdisc add dev vB root netem loss 10%
	how=netem
else
	for n in $A $B; do
		ip netns exec $n iptables -A OUTPUT -p udp --dport 3780 -m statistic \
			--mode random --probability 0.1 -j DROP || skip "neither netem nor iptables statistic"
	done
	how="iptables statistic"
fi
for i in $(seq 1 40); do
	kct $B -I -s 10.11.0.$i -d 10.12.0.1 -p udp --sport 1000 --dport 53 -t 300 >/dev/null 2>&1
	pct a -I -s 10.13.0.$i -d 10.14.0.1 -p udp --sport 1000 --dport 53 -t 300 >/dev/null 2>&1
done
n1=0 n2=0
for i in $(seq 100); do
	n1=$(psync a external | grep -c "src=10.11.0.")
	n2=$(ctd $B b -e 2>/dev/null | grep -c "src=10.13.0.")
	[ "$n1" -eq 40 ] && [ "$n2" -eq 40 ] && break
	sleep 0.2
done
[ "$n1" -eq 40 ] && ok "10% loss ($how): 40/40 conntrackd -> pkttables" || bad "10% loss: $n1/40 arrived at pkttables"
[ "$n2" -eq 40 ] && ok "10% loss ($how): 40/40 pkttables -> conntrackd" || { bad "10% loss: $n2/40 arrived at conntrackd"; ctd $B b -s network; }
psync a stats | grep -E "^(tx_nack|rx_nack|resent|seq_lost) " | tr '\n' ' '
echo

sync_report a b
exit $((fails > 0))

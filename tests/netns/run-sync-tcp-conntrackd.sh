#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/run-sync-tcp-conntrackd.sh - pkttables and the kernel + conntrackd 1.4.7 on one
# sync link over TCP (conntrackd's `TCP` channel), FTFW.
#
#   ${P}a$$: pkttables run (sync tcp 192.168.76.1 <-> .2:3780, control $D/a.ctl)
#   ${P}b$$: conntrackd -C $D/b.conf (FTFW, TCP 192.168.76.2 <-> .1:3780) and the kernel's table
#
# Checks: both TCP connections come up; each way a TCP connection (mark, state) and a UDP one
# with SNAT address and port arrive in the other's cache; conntrackd refuses none of our
# messages and pkttables none of conntrackd's.
# Exit 77 (skipped) when not root, without namespaces or without conntrackd/conntrack.
cd "$(dirname "$0")/../.." || exit 2
. tests/netns/lib.sh
. tests/netns/sync-lib.sh
sync_init synctcpctd "network namespaces" conntrackd conntrack
sync_ctd_pair tc 192.168.76 tcp

wait_for 8 has "rx_hello [1-9]" psync a stats && ok "conntrackd's HELLO arrived over TCP" ||
	bad "no HELLO from conntrackd over TCP"
wait_for 8 has "tcp_connected 1" psync a stats && wait_for 5 has "tcp_accepts [1-9]" psync a stats &&
	ok "both TCP connections up" || bad "TCP connections: $(psync a stats | grep tcp_ | tr '\n' ' ')"
sleep 1.2

sync_two_flows a "conntrackd -> pkttables over TCP" kct $B

pct a -I -s 10.9.0.1 -d 10.10.0.1 -p tcp --sport 6000 --dport 80 --state ESTABLISHED -t 600 \
	-u SEEN_REPLY,ASSURED -m 85 >/dev/null 2>&1 || bad "pkttables ct -I tcp"
pct a -I -s 10.9.0.2 -d 10.10.0.2 -p udp --sport 7000 --dport 53 -t 120 \
	--src-nat 198.51.100.7:41000 >/dev/null 2>&1 || bad "pkttables ct -I udp snat"
if wait_for 5 has "src=10.9.0.2" ctd $B b -e; then
	ok "pkttables -> conntrackd over TCP: in its external cache"
else
	bad "pkttables -> conntrackd: nothing in -e"; ctd $B b -e; ctd $B b -s network
fi
line=$(ctd $B b -e 2>/dev/null | grep "src=10.9.0.1")
case $line in
*ESTABLISHED*sport=6000*dport=80*mark=85*) ok "pkttables -> conntrackd over TCP: TCP ESTABLISHED mark 85" ;;
*) bad "pkttables -> conntrackd: TCP: '$line'" ;;
esac
mal=$(ctd $B b -s network 2>/dev/null | grep -i "malformed" | grep -o "[0-9][0-9]*" | head -1)
[ "${mal:-0}" -eq 0 ] && ok "conntrackd refused none of our messages" ||
	{ bad "conntrackd counted malformed messages"; ctd $B b -s network; }
m=$(psync a stats | awk '$1 == "rx_malformed" {print $2}')
[ "${m:-1}" -eq 0 ] && ok "pkttables refused none of conntrackd's" || bad "rx_malformed $m"
psync a stats | grep -E "^tcp_" | tr '\n' ' '
echo
sync_report a b
exit $((fails > 0))

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/run-sync-conntrackd-modes.sh - pkttables and conntrackd 1.4.7 in the other modes
# and on the other transport: NOTRACK over IPv4 multicast (225.0.0.50, port 3780) and ALARM
# over UDP unicast (docs/sync.md).
#
#   ${P}a$$: pkttables run (sync ..., control $D/a.ctl)    ${P}b$$: conntrackd -C $D/b.conf
#
# Each mode, each way: a UDP connection made on one side is in the other's external cache with
# its tuple and mark. ALARM: a connection whose first message was lost (the link down) arrives
# with the next refresh. Exit 77 (skipped) when not root, without namespaces or conntrackd.
# Every wait is bounded.
cd "$(dirname "$0")/../.." || exit 2
. tests/netns/lib.sh
. tests/netns/sync-lib.sh
sync_init syncmodes "network namespaces" conntrackd conntrack iptables
A=sma$$ B=smb$$
sync_ns $A $B
sync_link $A vA 192.168.77.1/24 $B vB 192.168.77.2/24
sync_fwd $A
PTPID="" CTDPID=""
stop() {
	[ -n "$PTPID" ] && kill "$PTPID" 2>/dev/null
	[ -n "$CTDPID" ] && kill "$CTDPID" 2>/dev/null
	[ -n "$PTPID" ] && wait "$PTPID" 2>/dev/null
	[ -n "$CTDPID" ] && wait "$CTDPID" 2>/dev/null
	PTPID="" CTDPID=""
	rm -f "$D/a.ctl" "$D/b.ctl"
}

# start MODE-LINES-FOR-PKTTABLES CONNTRACKD-SYNC-BLOCK
start() {
	printf 'iface fwd0\naddr fwd0 10.99.0.1/24\ncontrol ./a.ctl\n%s\n' "$1" >"$D/a.conf"
	echo "$2" | ctd_conf b 192.168.77.0/24
	pt_start $A a "$D/a.conf"
	PTPID=$PT_PID
	ctd_start $B b
	CTDPID=$CTD_PID
	sleep 1.5
}

# ---- NOTRACK over multicast --------------------------------------------------------------
start "sync mode notrack
sync multicast group 225.0.0.50 local 192.168.77.1 port 3780" "	Mode NOTRACK {
		DisableExternalCache no
	}
	Multicast {
		IPv4_address 225.0.0.50
		Group 3780
		IPv4_interface 192.168.77.2
		Interface vB
		Checksum on
	}" || exit 1
kct $B -I -s 10.7.1.1 -d 10.8.1.1 -p udp --sport 1111 --dport 53 -t 300 -m 5 >/dev/null 2>&1
wait_for 5 has "src=10.7.1.1 dst=10.8.1.1 sport=1111 dport=53.*mark=5" psync a external &&
	ok "NOTRACK multicast: conntrackd -> pkttables" || { bad "NOTRACK: conntrackd -> pkttables"; psync a stats; }
pct a -I -s 10.9.1.1 -d 10.10.1.1 -p udp --sport 2222 --dport 53 -t 300 -m 6 >/dev/null 2>&1
wait_for 5 has "src=10.9.1.1" ctd $B b -e && ok "NOTRACK multicast: pkttables -> conntrackd" ||
	{ bad "NOTRACK: pkttables -> conntrackd"; ctd $B b -s network; }
psync a stats | grep -q "^rx_malformed 0" && ok "NOTRACK: nothing refused" || bad "NOTRACK: refused messages"
stop

# ---- ALARM over UDP ------------------------------------------------------------------------
start "sync mode alarm
sync refresh-time 2
sync cache-timeout 30
sync udp local 192.168.77.1 peer 192.168.77.2 port 3781" "	Mode ALARM {
		RefreshTime 2
		CacheTimeout 30
	}
	UDP {
		IPv4_address 192.168.77.2
		IPv4_Destination_Address 192.168.77.1
		Port 3781
		Interface vB
		Checksum on
	}" || exit 1
kct $B -I -s 10.7.2.1 -d 10.8.2.1 -p udp --sport 1111 --dport 53 -t 300 -m 7 >/dev/null 2>&1
wait_for 5 has "src=10.7.2.1 dst=10.8.2.1 sport=1111 dport=53.*mark=7" psync a external &&
	ok "ALARM: conntrackd -> pkttables" || bad "ALARM: conntrackd -> pkttables"
# the first message lost: our refresh brings it
ip netns exec $A iptables -A OUTPUT -p udp --dport 3781 -j DROP
pct a -I -s 10.9.2.1 -d 10.10.2.1 -p udp --sport 2222 --dport 53 -t 300 -m 8 >/dev/null 2>&1
sleep 0.5
ip netns exec $A iptables -D OUTPUT -p udp --dport 3781 -j DROP
ctd $B b -e 2>/dev/null | grep -q "src=10.9.2.1" && bad "ALARM: the drop did not drop"
wait_for 6 has "src=10.9.2.1" ctd $B b -e && ok "ALARM: lost message refreshed to conntrackd" ||
	{ bad "ALARM: pkttables -> conntrackd"; ctd $B b -s network; }
stop

sync_report a b
exit $((fails > 0))

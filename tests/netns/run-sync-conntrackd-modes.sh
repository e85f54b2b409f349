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
BIN=${PT_BIN:-$PWD/build/pkttables}
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
T="timeout -k 2"
fails=0
ok() { echo "PASS: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
skip() { echo "SKIP: $*"; exit 77; }

[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces)"
[ -x "$BIN" ] || { echo "FAIL: $BIN missing"; exit 1; }
for t in ip conntrackd conntrack iptables; do
	command -v $t >/dev/null 2>&1 || skip "$t not installed (tools/install-deps.sh)"
done
A=sma$$ B=smb$$
D=$(mktemp -d /tmp/pt-syncmodes.XXXXXX)
PTPID="" CTDPID=""
stop() {
	[ -n "$PTPID" ] && kill "$PTPID" 2>/dev/null
	[ -n "$CTDPID" ] && kill "$CTDPID" 2>/dev/null
	[ -n "$PTPID" ] && wait "$PTPID" 2>/dev/null
	[ -n "$CTDPID" ] && wait "$CTDPID" 2>/dev/null
	PTPID="" CTDPID=""
	rm -f "$D/a.ctl" "$D/b.lock"
}
cleanup() {
	stop
	ip netns del $A 2>/dev/null
	ip netns del $B 2>/dev/null
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
ip netns add $A 2>/dev/null || skip "cannot create network namespaces"
ip netns add $B || exit 1
ip link add vA netns $A type veth peer name vB netns $B || skip "cannot create veth pairs"
ip -n $A addr add 192.168.77.1/24 dev vA
ip -n $B addr add 192.168.77.2/24 dev vB
for n in $A $B; do ip -n $n link set lo up; done
ip -n $A link set vA up
ip -n $B link set vB up
ip -n $A link add fwd0 type veth peer name fwd1 && ip -n $A link set fwd0 up && ip -n $A link set fwd1 up || exit 1

psync() { $T 10 "$BIN" sync --socket "$D/a.ctl" "$@"; }
pct() { $T 10 "$BIN" ct --socket "$D/a.ctl" "$@"; }
ctd() { ip netns exec $B $T 10 conntrackd -C "$D/b.conf" "$@"; }
kct() { ip netns exec $B $T 10 conntrack "$@"; }
wait_for() {
	_n=$(($1 * 10))
	shift
	while [ $_n -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
		_n=$((_n - 1))
	done
	return 1
}
has() { _f=$1; shift; "$@" 2>/dev/null | grep -q -- "$_f"; }

# start MODE-LINES-FOR-PKTTABLES CONNTRACKD-SYNC-BLOCK
start() {
	printf 'iface fwd0\naddr fwd0 10.99.0.1/24\ncontrol ./a.ctl\n%s\n' "$1" >"$D/a.conf"
	cat >"$D/b.conf" <<CONF
Sync {
$2
}
General {
	Systemd no
	HashSize 8192
	HashLimit 65536
	LogFile $D/b.log
	Syslog no
	LockFile $D/b.lock
	UNIX {
		Path $D/b.ctl
	}
	NetlinkBufferSize 2097152
	NetlinkBufferSizeMaxGrowth 8388608
	Filter From Userspace {
		Address Ignore {
			IPv4_address 127.0.0.1
			IPv4_address 192.168.77.0/24
		}
	}
}
CONF
	ip netns exec $A $BIN run --config "$D/a.conf" >"$D/a.out" 2>&1 &
	PTPID=$!
	wait_for 5 test -S "$D/a.ctl" || { cat "$D/a.out"; bad "pkttables did not start"; return 1; }
	ip netns exec $B conntrackd -C "$D/b.conf" >"$D/b.out" 2>&1 &
	CTDPID=$!
	wait_for 5 test -S "$D/b.ctl" || { cat "$D/b.out"; bad "conntrackd did not start"; return 1; }
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
kct -I -s 10.7.1.1 -d 10.8.1.1 -p udp --sport 1111 --dport 53 -t 300 -m 5 >/dev/null 2>&1
wait_for 5 has "src=10.7.1.1 dst=10.8.1.1 sport=1111 dport=53.*mark=5" psync external &&
	ok "NOTRACK multicast: conntrackd -> pkttables" || { bad "NOTRACK: conntrackd -> pkttables"; psync stats; }
pct -I -s 10.9.1.1 -d 10.10.1.1 -p udp --sport 2222 --dport 53 -t 300 -m 6 >/dev/null 2>&1
wait_for 5 has "src=10.9.1.1" ctd -e && ok "NOTRACK multicast: pkttables -> conntrackd" ||
	{ bad "NOTRACK: pkttables -> conntrackd"; ctd -s network; }
psync stats | grep -q "^rx_malformed 0" && ok "NOTRACK: nothing refused" || bad "NOTRACK: refused messages"
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
kct -I -s 10.7.2.1 -d 10.8.2.1 -p udp --sport 1111 --dport 53 -t 300 -m 7 >/dev/null 2>&1
wait_for 5 has "src=10.7.2.1 dst=10.8.2.1 sport=1111 dport=53.*mark=7" psync external &&
	ok "ALARM: conntrackd -> pkttables" || bad "ALARM: conntrackd -> pkttables"
# the first message lost: our refresh brings it
ip netns exec $A iptables -A OUTPUT -p udp --dport 3781 -j DROP
pct -I -s 10.9.2.1 -d 10.10.2.1 -p udp --sport 2222 --dport 53 -t 300 -m 8 >/dev/null 2>&1
sleep 0.5
ip netns exec $A iptables -D OUTPUT -p udp --dport 3781 -j DROP
ctd -e 2>/dev/null | grep -q "src=10.9.2.1" && bad "ALARM: the drop did not drop"
wait_for 6 has "src=10.9.2.1" ctd -e && ok "ALARM: lost message refreshed to conntrackd" ||
	{ bad "ALARM: pkttables -> conntrackd"; ctd -s network; }
stop

[ $fails -eq 0 ] || { echo "--- pkttables"; cat "$D/a.out"; echo "--- conntrackd"; tail -20 "$D/b.log"; }
exit $((fails > 0))

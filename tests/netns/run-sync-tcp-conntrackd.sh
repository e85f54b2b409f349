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
BIN=${PT_BIN:-$PWD/build/pkttables}
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
T="timeout -k 2"
fails=0
ok() { echo "PASS: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
skip() { echo "SKIP: $*"; exit 77; }

[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces)"
[ -x "$BIN" ] || { echo "FAIL: $BIN missing"; exit 1; }
for t in ip conntrackd conntrack; do
	command -v $t >/dev/null 2>&1 || skip "$t not installed (tools/install-deps.sh)"
done
A=tca$$ B=tcb$$
D=$(mktemp -d /tmp/pt-synctcpctd.XXXXXX)
PTPID="" CTDPID=""
cleanup() {
	[ -n "$PTPID" ] && kill "$PTPID" 2>/dev/null
	[ -n "$CTDPID" ] && kill "$CTDPID" 2>/dev/null
	sleep 0.2
	ip netns del $A 2>/dev/null
	ip netns del $B 2>/dev/null
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
ip netns add $A 2>/dev/null || skip "cannot create network namespaces"
ip netns add $B || exit 1
ip link add vA netns $A type veth peer name vB netns $B || skip "cannot create veth pairs"
ip -n $A addr add 192.168.76.1/24 dev vA
ip -n $B addr add 192.168.76.2/24 dev vB
for n in $A $B; do ip -n $n link set lo up; done
ip -n $A link set vA up
ip -n $B link set vB up
ip -n $A link add fwd0 type veth peer name fwd1 && ip -n $A link set fwd0 up && ip -n $A link set fwd1 up || exit 1

cat >"$D/a.conf" <<CONF
iface fwd0
addr fwd0 10.99.0.1/24
sync mode ftfw
sync tcp local 192.168.76.1 peer 192.168.76.2 port 3780
sync peer-kind conntrackd
control ./a.ctl
CONF
cat >"$D/b.conf" <<CONF
Sync {
	Mode FTFW {
		ResendQueueSize 131072
		ACKWindowSize 300
		DisableExternalCache no
	}
	TCP {
		IPv4_address 192.168.76.2
		IPv4_Destination_Address 192.168.76.1
		Port 3780
		Interface vB
		Checksum on
	}
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
			IPv4_address 192.168.76.0/24
			IPv6_address ::1
		}
	}
}
CONF
(cd "$D" && ip netns exec $A $BIN run --config "$D/a.conf" >"$D/a.out" 2>&1) &
PTPID=$!
for i in $(seq 50); do [ -S "$D/a.ctl" ] && break; sleep 0.1; done
[ -S "$D/a.ctl" ] || { cat "$D/a.out"; echo "FAIL: pkttables did not start"; exit 1; }
ip netns exec $B conntrackd -C "$D/b.conf" >"$D/b.out" 2>&1 &
CTDPID=$!

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

wait_for 8 has "rx_hello [1-9]" psync stats && ok "conntrackd's HELLO arrived over TCP" ||
	bad "no HELLO from conntrackd over TCP"
wait_for 8 has "tcp_connected 1" psync stats && wait_for 5 has "tcp_accepts [1-9]" psync stats &&
	ok "both TCP connections up" || bad "TCP connections: $(psync stats | grep tcp_ | tr '\n' ' ')"
sleep 1.2

kct -I -s 10.7.0.1 -d 10.8.0.1 -p tcp --sport 5000 --dport 22 --state ESTABLISHED -t 900 \
	-u ASSURED -m 7 >/dev/null 2>&1 || bad "conntrack -I tcp"
kct -I -s 10.7.0.2 -d 10.8.0.2 -p udp --sport 5353 --dport 53 -t 120 \
	--src-nat 203.0.113.9:61000 >/dev/null 2>&1 || bad "conntrack -I udp snat"
if wait_for 5 has "src=10.7.0.2 dst=10.8.0.2 sport=5353 dport=53 snat=203.0.113.9 spat=61000" \
	psync external; then
	ok "conntrackd -> pkttables over TCP: UDP with SNAT address and port"
else
	bad "conntrackd -> pkttables: UDP SNAT flow missing"; psync external
fi
line=$(psync external | grep "src=10.7.0.1 dst=10.8.0.1 sport=5000 dport=22")
case $line in
*ESTABLISHED*mark=7*) ok "conntrackd -> pkttables over TCP: TCP ESTABLISHED, mark 7" ;;
*) bad "conntrackd -> pkttables: TCP flow: '$line'" ;;
esac

pct -I -s 10.9.0.1 -d 10.10.0.1 -p tcp --sport 6000 --dport 80 --state ESTABLISHED -t 600 \
	-u SEEN_REPLY,ASSURED -m 85 >/dev/null 2>&1 || bad "pkttables ct -I tcp"
pct -I -s 10.9.0.2 -d 10.10.0.2 -p udp --sport 7000 --dport 53 -t 120 \
	--src-nat 198.51.100.7:41000 >/dev/null 2>&1 || bad "pkttables ct -I udp snat"
if wait_for 5 has "src=10.9.0.2" ctd -e; then
	ok "pkttables -> conntrackd over TCP: in its external cache"
else
	bad "pkttables -> conntrackd: nothing in -e"; ctd -e; ctd -s network
fi
line=$(ctd -e 2>/dev/null | grep "src=10.9.0.1")
case $line in
*ESTABLISHED*sport=6000*dport=80*mark=85*) ok "pkttables -> conntrackd over TCP: TCP ESTABLISHED mark 85" ;;
*) bad "pkttables -> conntrackd: TCP: '$line'" ;;
esac
mal=$(ctd -s network 2>/dev/null | grep -i "malformed" | grep -o "[0-9][0-9]*" | head -1)
[ "${mal:-0}" -eq 0 ] && ok "conntrackd refused none of our messages" ||
	{ bad "conntrackd counted malformed messages"; ctd -s network; }
m=$(psync stats | awk '$1 == "rx_malformed" {print $2}')
[ "${m:-1}" -eq 0 ] && ok "pkttables refused none of conntrackd's" || bad "rx_malformed $m"
psync stats | grep -E "^tcp_" | tr '\n' ' '
echo
[ $fails -eq 0 ] || { echo "--- a"; cat "$D/a.out"; echo "--- b"; cat "$D/b.out" "$D/b.log" 2>/dev/null | tail -20; }
exit $((fails > 0))

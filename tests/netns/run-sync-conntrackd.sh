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
A=sya$$ B=syb$$
D=$(mktemp -d /tmp/pt-sync.XXXXXX)
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
ip -n $A addr add 192.168.77.1/24 dev vA
ip -n $B addr add 192.168.77.2/24 dev vB
ip -n $A link set vA up
ip -n $B link set vB up
ip -n $A link set lo up
ip -n $B link set lo up
ip -n $A link add fwd0 type veth peer name fwd1 && ip -n $A link set fwd0 up && ip -n $A link set fwd1 up || exit 1

cat >"$D/a.conf" <<CONF
iface fwd0
addr fwd0 10.99.0.1/24
sync mode ftfw
sync udp local 192.168.77.1 peer 192.168.77.2 port 3780
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
	UDP {
		IPv4_address 192.168.77.2
		IPv4_Destination_Address 192.168.77.1
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
			IPv4_address 192.168.77.0/24
			IPv6_address ::1
		}
	}
}
CONF
ip netns exec $A $BIN run --config "$D/a.conf" >"$D/a.out" 2>&1 &
PTPID=$!
for i in $(seq 50); do [ -S "$D/a.ctl" ] && break; sleep 0.1; done
[ -S "$D/a.ctl" ] || { cat "$D/a.out"; echo "FAIL: pkttables did not start"; exit 1; }
ip netns exec $B conntrackd -C "$D/b.conf" >"$D/b.out" 2>&1 &
CTDPID=$!

psync() { $T 10 "$BIN" sync --socket "$D/a.ctl" "$@"; }
pct() { $T 10 "$BIN" ct --socket "$D/a.ctl" "$@"; }
ctd() { ip netns exec $B $T 10 conntrackd -C "$D/b.conf" "$@"; }
kct() { ip netns exec $B $T 10 conntrack "$@"; }
# wait_for SECONDS CMD... : until CMD succeeds (0.1 s steps)
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
# timeout field of a line: "N" right after the protocol number (external) or as conntrack -L
tmo_ok() { [ "$1" -ge $(($2 - 2)) ] && [ "$1" -le $(($2 + 2)) ]; }

# the handshake: each side says HELLO, gets HELLO_BACK
wait_for 5 has "rx_hello [1-9]" psync stats || bad "no HELLO from conntrackd"
sleep 1.2

# ---- kernel + conntrackd -> pkttables ---------------------------------------------------
kct -I -s 10.7.0.1 -d 10.8.0.1 -p tcp --sport 5000 --dport 22 --state ESTABLISHED -t 900 \
	-u ASSURED -m 7 >/dev/null 2>&1 || bad "conntrack -I tcp"
kct -I -s 10.7.0.2 -d 10.8.0.2 -p udp --sport 5353 --dport 53 -t 120 \
	--src-nat 203.0.113.9:61000 >/dev/null 2>&1 || bad "conntrack -I udp snat"
if wait_for 5 has "src=10.7.0.2 dst=10.8.0.2 sport=5353 dport=53 snat=203.0.113.9 spat=61000" \
	psync external; then
	ok "conntrackd -> pkttables: UDP with SNAT address and port (little-endian SPAT) arrived"
else
	bad "conntrackd -> pkttables: UDP SNAT flow missing"; psync external
fi
line=$(psync external | grep "src=10.7.0.1 dst=10.8.0.1 sport=5000 dport=22")
case $line in
*ESTABLISHED*mark=7*) ok "conntrackd -> pkttables: TCP ESTABLISHED, mark 7" ;;
*) bad "conntrackd -> pkttables: TCP flow: '$line'" ;;
esac
t=$(echo "$line" | awk '{print $3}')
tmo_ok "${t:-0}" 900 && ok "timeout $t (900 +-2)" || bad "timeout '$t', want 900 +-2"
psync commit | grep -q "committed 2" && ok "pkttables sync commit: 2" || bad "commit"
pct -L >"$D/a.L" 2>&1
grep -q "src=10.7.0.2 dst=10.8.0.2 sport=5353 dport=53 .*src=10.8.0.2 dst=203.0.113.9 sport=53 dport=61000" "$D/a.L" &&
	ok "committed UDP: reply tuple to 203.0.113.9:61000" || { bad "committed UDP reply"; cat "$D/a.L"; }
grep "src=10.7.0.1 dst=10.8.0.1 sport=5000 dport=22" "$D/a.L" | grep -q "ESTABLISHED.*mark=7" &&
	ok "committed TCP: ESTABLISHED mark=7" || { bad "committed TCP"; cat "$D/a.L"; }

# ---- pkttables -> kernel + conntrackd ---------------------------------------------------
pct -I -s 10.9.0.1 -d 10.10.0.1 -p tcp --sport 6000 --dport 80 --state ESTABLISHED -t 600 \
	-u SEEN_REPLY,ASSURED -m 85 >/dev/null 2>&1 || bad "pkttables ct -I tcp"
pct -I -s 10.9.0.2 -d 10.10.0.2 -p udp --sport 7000 --dport 53 -t 120 \
	--src-nat 198.51.100.7:41000 >/dev/null 2>&1 || bad "pkttables ct -I udp snat"
if wait_for 5 has "src=10.9.0.2" ctd -e; then
	ok "pkttables -> conntrackd: in its external cache"
else
	bad "pkttables -> conntrackd: nothing in -e"; ctd -e; ctd -s network
fi
line=$(ctd -e | grep "src=10.9.0.1")
case $line in
*ESTABLISHED*sport=6000*dport=80*mark=85*) ok "pkttables -> conntrackd: TCP ESTABLISHED mark 85" ;;
*) bad "pkttables -> conntrackd: TCP: '$line'" ;;
esac
ctd -c >/dev/null 2>&1 || bad "conntrackd -c"
kct -L >"$D/b.L" 2>/dev/null
grep -q "src=10.9.0.2 dst=10.10.0.2 sport=7000 dport=53 .*src=10.10.0.2 dst=198.51.100.7 sport=53 dport=41000" "$D/b.L" &&
	ok "kernel after commit: UDP reply to 198.51.100.7:41000" || { bad "kernel UDP NAT"; cat "$D/b.L"; }
l=$(grep "src=10.9.0.1 dst=10.10.0.1" "$D/b.L")
t=$(echo "$l" | awk '{print $3}')
case $l in
*ESTABLISHED*mark=85*) tmo_ok "${t:-0}" 600 && ok "kernel after commit: TCP ESTABLISHED mark=85 timeout $t" ||
	bad "kernel TCP timeout '$t'" ;;
*) bad "kernel TCP: '$l'" ;;
esac
if ctd -s network | grep -qi "malformed.*[1-9]"; then
	bad "conntrackd counted malformed messages"; ctd -s network
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
	kct -I -s 10.11.0.$i -d 10.12.0.1 -p udp --sport 1000 --dport 53 -t 300 >/dev/null 2>&1
	pct -I -s 10.13.0.$i -d 10.14.0.1 -p udp --sport 1000 --dport 53 -t 300 >/dev/null 2>&1
done
n1=0 n2=0
for i in $(seq 100); do
	n1=$(psync external | grep -c "src=10.11.0.")
	n2=$(ctd -e 2>/dev/null | grep -c "src=10.13.0.")
	[ "$n1" -eq 40 ] && [ "$n2" -eq 40 ] && break
	sleep 0.2
done
[ "$n1" -eq 40 ] && ok "10% loss ($how): 40/40 conntrackd -> pkttables" || bad "10% loss: $n1/40 arrived at pkttables"
[ "$n2" -eq 40 ] && ok "10% loss ($how): 40/40 pkttables -> conntrackd" || { bad "10% loss: $n2/40 arrived at conntrackd"; ctd -s network; }
psync stats | grep -E "^(tx_nack|rx_nack|resent|seq_lost) " | tr '\n' ' '
echo

[ $fails -eq 0 ] || { echo "--- pkttables"; cat "$D/a.out"; echo "--- conntrackd"; tail -20 "$D/b.log"; }
exit $((fails > 0))

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/afpacket-alloc.sh - heap allocations of live mode per forwarded packet (docs/performance.md,
# "Zero-copy AF_PACKET receive"): pkttables run under valgrind in the router namespace of
# tests/netns/lib.sh's topology, a warm-up (pings, 1,000 datagrams), then N UDP datagrams of
# one flow client -> server (or, with `gso`, a TCP upload of N bytes with the veths' offloads
# as the kernel sets them: GSO frames), its heap summary and dump printed; run for N1 and N2,
# (allocs(N2) - allocs(N1)) / (N2 - N1) is the figure.
#
#   sh bench/afpacket-alloc.sh "IO LINE" WORKERS N1 N2 [gso]
#   e.g. sh bench/afpacket-alloc.sh "afpacket copy" 2 2000 4000
#
# PT_CPU=1: without valgrind; prints pkttables' CPU time instead (user and system seconds from
# /proc/PID/stat, all its threads), the figure per forwarded frame or byte being the difference
# between N2 and N1 over the difference in work (on a loaded machine CPU time moves less than
# throughput does).
# Needs root, valgrind (not with PT_CPU=1), python3. PT_BIN picks the binary.
cd "$(dirname "$0")/.." || exit 2
[ $# -ge 4 ] || { echo "usage: $0 'IO LINE' WORKERS N1 N2 [gso]" >&2; exit 2; }
IO=$1 WK=$2 N1=$3 N2=$4 GSO=${5:-}
. tests/netns/lib.sh
BIN=${PT_BIN:-$BIN}
one() {
	cnt=$1
	tools="ip valgrind"
	[ -n "${PT_CPU:-}" ] && tools=ip
	# shellcheck disable=SC2086
	netns_init pta alloc "network namespaces, AF_PACKET" $tools
	if [ -n "$GSO" ]; then
		nsysctl $R net.ipv4.ip_forward=0 net.ipv6.conf.all.forwarding=0
		for d in $L $W; do nsysctl $R net.ipv6.conf.$d.disable_ipv6=1; ip -n $R link set $d arp off; ip -n $R link set $d up; done
		ip -n $R link set lo up
		netns_end_hosts
	else
		netns_live_router
	fi
	printf 'io %s\nworkers %s\niface %s\niface %s\naddr %s 192.0.2.1/24\naddr %s 198.51.100.1/24\n' "$IO" $WK $L $W $L $W >"$D/c.conf"
	VG="valgrind --log-file=$D/vg.log"
	[ -n "${PT_CPU:-}" ] && VG=""
	# shellcheck disable=SC2086
	ip netns exec $R $VG "$BIN" run --config "$D/c.conf" 2>"$D/pt.log" &
	PT=$!
	for i in $(seq 1 100); do grep -q "forwarding on" "$D/pt.log" && break; sleep 0.1; done
	# warm-up: both neighbours resolved, the pools filled by a first burst
	inc timeout 20 ping -c 3 -i 0.5 -W 5 198.51.100.2 >/dev/null 2>&1
	inc timeout 20 python3 -c "
import socket,time
u=socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(1000):
    u.sendto(b'y'*18, ('198.51.100.2', 7001))
    if i % 50 == 49: time.sleep(0.01)"
	sleep 1
	if [ -n "$GSO" ]; then
		head -c $cnt /dev/zero > "$D/f"
		ins timeout 60 python3 -c "
import socket
l=socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); l.bind(('0.0.0.0',9000)); l.listen(1)
c,_=l.accept(); t=0
while True:
    d=c.recv(1<<20)
    if not d: break
    t+=len(d)
print(t)" > "$D/srv.out" &
		sleep 0.5
		inc timeout 60 python3 -c "
import socket,sys
s=socket.create_connection(('198.51.100.2',9000)); s.sendall(b'\0'*$cnt); s.close()"
		sleep 1
		echo "received $(cat $D/srv.out)"
	else
		ins timeout 60 python3 -c "
import socket
u=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(('0.0.0.0',7000)); u.settimeout(3); k=0
try:
    while True:
        u.recv(100); k+=1
except socket.timeout: pass
print(k)" > "$D/srv.out" &
		sleep 0.3
		inc timeout 60 python3 -c "
import socket,time
u=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.connect(('198.51.100.2',7000))
for i in range($cnt):
    u.send(b'x'*18)
    if i % 50 == 49: time.sleep(0.01)"
		sleep 3.5
		echo "received $(cat $D/srv.out) of $cnt"
	fi
	kill -USR1 $PT; sleep 1
	grep -E "^iface|zero-copy" "$D/pt.log" | tail -3
	[ -n "${PT_CPU:-}" ] && awk -v hz="$(getconf CLK_TCK)" '{ printf "cpu user %.2f s, system %.2f s\n", $14 / hz, $15 / hz }' /proc/$PT/stat
	kill -TERM $PT
	for i in $(seq 1 100); do kill -0 $PT 2>/dev/null || break; sleep 0.1; done
	PT=""
	grep -E "total heap usage|Command" "$D/vg.log"
	cleanup
	trap - EXIT
}
one $N1
one $N2

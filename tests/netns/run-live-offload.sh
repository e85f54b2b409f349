#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/run-live-offload.sh - pkttables as a live router with every veth's offloads left
# as the kernel sets them (TSO, GSO, checksum offload on): local senders hand it 64 KiB TCP
# frames with partial checksums (PACKET_VNET_HDR says so), it forwards them whole with SNAT.
#
#   client (192.0.2.2) --- [pkttables, SNAT to 198.51.100.1] --- server (198.51.100.2)
#
# Twice: with the router's veths as created (the kernel hands the big frames on whole), then
# with TSO off on both router veths (the kernel must cut what pkttables sends). Each time: an
# 8 MB TCP download and a 6 MB upload (sha256 compared) over IPv4 through SNAT and over IPv6
# (forwarded), UDP datagrams sent with UDP_SEGMENT
# (a UDP GSO frame of 10 datagrams each time) all arriving intact, the server seeing the SNAT
# address, and pkttables' counters showing frames bigger than the MTU were received.
# Exit 77 (skipped) when not root or namespaces are unavailable. Every command is bounded.
# AF_PACKET only: through `io afxdp` a local sender's partial checksums arrive unmarked
# (docs/live.md), so PT_LIVE_IO=afxdp is a skip.
cd "$(dirname "$0")/../.." || exit 2
case ${PT_LIVE_IO:-afpacket} in afpacket | "afpacket copy") ;; *) echo "SKIP: io $PT_LIVE_IO: offloads need AF_PACKET"; exit 77 ;; esac
. tests/netns/lib.sh
netns_init pto offload "network namespaces, AF_PACKET" ip ethtool

# The router namespace's own stack stays out of the way; offloads are not touched.
nsysctl $R net.ipv4.ip_forward=0 net.ipv6.conf.all.forwarding=0
for d in $L $W; do
	nsysctl $R net.ipv6.conf.$d.disable_ipv6=1
	ip -n $R link set $d arp off
	ip -n $R link set $d up
done
ip -n $R link set lo up
netns_end_hosts

cat >"$D/live.conf" <<CONF
iface $L
iface $W
addr $L 192.0.2.1/24
addr $W 198.51.100.1/24
addr $L 2001:db8:1::1/64
addr $W 2001:db8:2::1/64
rules router.rules
rules6 router6.rules
CONF
cat >"$D/router.rules" <<RULES
*nat
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
-A POSTROUTING -o $W -j SNAT --to-source 198.51.100.1
COMMIT
*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A FORWARD -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT
-A FORWARD -i $L -m conntrack --ctstate NEW -j ACCEPT
COMMIT
RULES
# IPv6: the same filter, no NAT
sed -n '/^\*filter/,$p' "$D/router.rules" >"$D/router6.rules"

# the transfers and their checks (tests/netns/xfer.py), for the scripts below
export PYTHONPATH="$PWD/tests/netns"
# Server: TCP 9000 "get N" sends N pattern bytes, "put N" takes N bytes and answers their
# sha256 and the peer's address; UDP 7778 checks each datagram against its pattern, "end"
# answers the count of good and bad ones and the peer's address.
cat >"$D/srv.py" <<'PYEOF'
import socket
from xfer import pattern, serve_tcp
serve_tcp(9000)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("0.0.0.0", 7778))
print("ready", flush=True)
good = bad = 0
while True:
    d, a = u.recvfrom(65536)
    if d == b"end":
        u.sendto(b"%d %d %s" % (good, bad, a[0].encode()), a); good = bad = 0
    else:
        if len(d) == 1400 and d[4:] == pattern(1396, d[:4]):
            good += 1
        else:
            bad += 1
        if (good + bad) % 10 == 0:
            u.sendto(b"ack", a)  # the sender waits for it: no burst overruns a buffer
PYEOF
cat >"$D/cli.py" <<'PYEOF'
import socket, sys
from xfer import get, pattern, put
what = sys.argv[1]
server = "198.51.100.2"
if what.endswith("6"):
    what, server = what[:-1], "2001:db8:2::2"
if what == "get":
    print(get(server, int(sys.argv[2])))
elif what == "put":
    ok, peer = put(server, int(sys.argv[2]))
    print("ok %s" % peer if ok else "bad %s" % peer)
else:
    # UDP_SEGMENT (103): one send of 14000 bytes leaves as 10 datagrams of 1400
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(3)
    u.setsockopt(socket.SOL_UDP, 103, 1400)
    u.connect(("198.51.100.2", 7778))
    for i in range(20):
        u.send(b"".join(k.to_bytes(4, "big") + pattern(1396, k.to_bytes(4, "big"))
                        for k in range(i * 10, i * 10 + 10)))
        try:
            u.recv(100)
        except socket.timeout:
            pass  # a datagram lost: the count below says so
    u.setsockopt(socket.SOL_UDP, 103, 0)
    u.send(b"end")
    print(u.recv(100).decode())
PYEOF
ins $T 120 "$PY" "$D/srv.py" >"$D/server.log" 2>&1 &

netns_start_live "$D/live.conf"

# rx counters of the router's interface toward NAME: frames and bytes
rx_of() {
	kill -USR1 "$PT"
	sleep 0.3
	grep "^iface $1: rx" "$D/pt.log" | tail -n 1 | sed 's/^iface [^ ]*: rx \([0-9]*\) (\([0-9]*\) bytes).*/\1 \2/'
}

round() {
	r=$(inc $T 30 "$PY" "$D/cli.py" get 8388608 2>&1)
	[ "$r" = ok ] && ok "$1: 8 MB TCP download, sha256 equal" || bad "$1: download: $r"
	r=$(inc $T 30 "$PY" "$D/cli.py" put 6291456 2>&1)
	[ "$r" = "ok 198.51.100.1" ] && ok "$1: 6 MB TCP upload, sha256 equal, SNAT source seen" ||
		bad "$1: upload: $r"
	r=$(inc $T 10 "$PY" "$D/cli.py" udp 2>&1)
	[ "$r" = "200 0 198.51.100.1" ] &&
		ok "$1: 200 UDP datagrams sent as UDP GSO frames, all intact, SNAT source seen" ||
		bad "$1: UDP: $r (good bad source)"
	r=$(inc $T 30 "$PY" "$D/cli.py" get6 8388608 2>&1)
	[ "$r" = ok ] && ok "$1: 8 MB TCP download over IPv6, sha256 equal" || bad "$1: IPv6 download: $r"
	r=$(inc $T 30 "$PY" "$D/cli.py" put6 6291456 2>&1)
	[ "$r" = "ok 2001:db8:1::2" ] && ok "$1: 6 MB TCP upload over IPv6, sha256 equal" ||
		bad "$1: IPv6 upload: $r"
}

round "offloads on"
set -- $(rx_of $L)
[ -n "$1" ] && [ "$1" -gt 0 ] && [ $(($2 / $1)) -gt 1514 ] &&
	ok "frames from the client averaged $(($2 / $1)) bytes: GSO frames taken whole" ||
	bad "no frames bigger than the MTU from the client (rx $1 frames, $2 bytes)"
set -- $(rx_of $W)
[ -n "$1" ] && [ "$1" -gt 0 ] && [ $(($2 / $1)) -gt 1514 ] &&
	ok "frames from the server averaged $(($2 / $1)) bytes" ||
	bad "no frames bigger than the MTU from the server (rx $1 frames, $2 bytes)"

# The kernel must cut what pkttables sends: the router's veths take no TSO.
for d in $L $W; do
	inr $T 5 ethtool -K $d tso off >/dev/null 2>&1 || bad "ethtool -K $d tso off"
done
round "TSO off on the router's veths"
grep -q "bad-offload 0 " "$D/pt.log" && ok "no frame's offload state refused" ||
	bad "bad-offload: $(grep -o 'bad-offload [0-9]*' "$D/pt.log" | tail -n 1)"

kill -TERM "$PT"
i=0
while kill -0 "$PT" 2>/dev/null && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
kill -0 "$PT" 2>/dev/null && bad "pkttables did not stop on SIGTERM"
[ $fails -eq 0 ] || { tail -n 30 "$D/pt.log"; exit 1; }
echo "all passed"

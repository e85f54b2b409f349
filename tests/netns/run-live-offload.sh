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
# With PT_LIVE_IO=afxdp (tests/netns/run-live-afxdp.sh) the same transfers go through AF_XDP:
# there the XDP program on the router's veths takes TSO from their peers (veth does), so the
# frames arrive at most MTU-sized, but with partial checksums and nothing that marks them:
# pkttables must tell them by their checksum field and finish them (docs/live.md), which the
# csum-partial counter shows, instead of conntrack finding them INVALID.
cd "$(dirname "$0")/../.." || exit 2
IO=${PT_LIVE_IO:-afpacket}
case $IO in afpacket | "afpacket copy" | afxdp) ;; *) echo "SKIP: io $IO: not a mode this test knows"; exit 77 ;; esac
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

# the senders' transmit checksum offload is on: the frames they send carry partial checksums
for n in $C $S; do
	ip netns exec $n ethtool -k eth0 2>/dev/null | grep -q "^tx-checksumming: on" ||
		bad "$n: transmit checksum offload not on"
done
round "offloads on"
csum_partial() { grep -o 'csum-partial [0-9]*' "$D/pt.log" | tail -n 1 | cut -d' ' -f2; }
if [ "$IO" = afxdp ]; then
	set -- $(rx_of $L)
	[ -n "$1" ] && [ "$1" -gt 0 ] && [ $(($2 / $1)) -le 1514 ] &&
		ok "AF_XDP: frames from the client averaged $(($2 / $1)) bytes (no GSO with XDP on veth)" ||
		bad "AF_XDP: frames from the client (rx $1 frames, $2 bytes)"
	n=$(csum_partial)
	[ -n "$n" ] && [ "$n" -gt 1000 ] &&
		ok "AF_XDP: $n frames with a partial checksum told and finished" ||
		bad "AF_XDP: csum-partial ${n:-missing}"
else
	set -- $(rx_of $L)
	[ -n "$1" ] && [ "$1" -gt 0 ] && [ $(($2 / $1)) -gt 1514 ] &&
		ok "frames from the client averaged $(($2 / $1)) bytes: GSO frames taken whole" ||
		bad "no frames bigger than the MTU from the client (rx $1 frames, $2 bytes)"
	set -- $(rx_of $W)
	[ -n "$1" ] && [ "$1" -gt 0 ] && [ $(($2 / $1)) -gt 1514 ] &&
		ok "frames from the server averaged $(($2 / $1)) bytes" ||
		bad "no frames bigger than the MTU from the server (rx $1 frames, $2 bytes)"
fi

# The kernel must cut what pkttables sends: the router's veths take no TSO.
for d in $L $W; do
	inr $T 5 ethtool -K $d tso off >/dev/null 2>&1 || bad "ethtool -K $d tso off"
done
round "TSO off on the router's veths"
grep -q "bad-offload 0 " "$D/pt.log" && ok "no frame's offload state refused" ||
	bad "bad-offload: $(grep -o 'bad-offload [0-9]*' "$D/pt.log" | tail -n 1)"

# A frame with a wrong UDP checksum from a packet socket (no offload state): conntrack finds
# it INVALID in either mode, and AF_XDP does not take it for a partial one. A frame whose
# field holds the pseudo-header sum is one AF_XDP cannot tell from a partial one: it is
# finished and forwarded there (docs/live.md), INVALID through AF_PACKET, which is told.
cat >"$D/raw.py" <<'PYEOF'
import socket, struct, sys
def s16(b):
    if len(b) % 2: b += b"\0"
    t = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while t >> 16: t = (t & 0xffff) + (t >> 16)
    return t
dst_mac = bytes.fromhex(sys.argv[1].replace(":", ""))
src, dst = socket.inet_aton("192.0.2.2"), socket.inet_aton("198.51.100.2")
pay = b"bad checksum"
udp = struct.pack("!HHHH", 40000, 7779, 8 + len(pay), 0) + pay
pseudo = s16(src + dst + struct.pack("!HH", 17, len(udp)))
good = 0xffff - s16(struct.pack("!H", pseudo) + udp) or 0xffff
field = pseudo if sys.argv[2] == "pseudo" else good ^ 0x0101
udp = udp[:6] + struct.pack("!H", field) + udp[8:]
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0, src, dst)
ip = ip[:10] + struct.pack("!H", 0xffff - s16(ip)) + ip[12:] + udp
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("eth0", 0))
src_mac = bytes.fromhex(open("/sys/class/net/eth0/address").read().strip().replace(":", ""))
s.send(dst_mac + src_mac + b"\x08\x00" + ip)
PYEOF
ct_invalid() {
	kill -USR1 "$PT"
	sleep 0.3
	grep -o 'conntrack entries .* invalid [0-9]*' "$D/pt.log" | tail -n 1 | sed 's/.*invalid //'
}
rmac=$(inc ping -c1 -W1 198.51.100.2 >/dev/null; ip -n $C neigh show 192.0.2.1 | grep -o 'lladdr [0-9a-f:]*' | cut -d' ' -f2)
i0=$(ct_invalid) p0=$(csum_partial)
inc $T 5 "$PY" "$D/raw.py" "$rmac" wrong || bad "raw frame not sent"
i1=$(ct_invalid) p1=$(csum_partial)
[ -n "$i0" ] && [ "$i1" = $((i0 + 1)) ] && [ "$p1" = "$p0" ] &&
	ok "a wrong UDP checksum: INVALID, not taken for a partial one" ||
	bad "a wrong UDP checksum: invalid $i0 -> $i1, csum-partial $p0 -> $p1"
inc $T 5 "$PY" "$D/raw.py" "$rmac" pseudo || bad "raw frame not sent"
i2=$(ct_invalid) p2=$(csum_partial)
if [ "$IO" = afxdp ]; then
	[ "$i2" = "$i1" ] && [ "$p2" = $((p1 + 1)) ] &&
		ok "AF_XDP: a field holding the pseudo-header sum is taken for a partial checksum" ||
		bad "AF_XDP: pseudo-header sum field: invalid $i1 -> $i2, csum-partial $p1 -> $p2"
else
	[ "$i2" = $((i1 + 1)) ] && [ "$p2" = "$p1" ] &&
		ok "AF_PACKET: a field holding the pseudo-header sum, unmarked: INVALID" ||
		bad "AF_PACKET: pseudo-header sum field: invalid $i1 -> $i2, csum-partial $p1 -> $p2"
fi

kill -TERM "$PT"
i=0
while kill -0 "$PT" 2>/dev/null && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
kill -0 "$PT" 2>/dev/null && bad "pkttables did not stop on SIGTERM"
[ $fails -eq 0 ] || { tail -n 30 "$D/pt.log"; exit 1; }
echo "all passed"

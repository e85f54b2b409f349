#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/run-live-txring.sh - what pkttables sends through AF_PACKET's transmit ring (the
# default) arrives intact, GSO frames included, and the same with `io afpacket sendmmsg`.
#
#   client (192.0.2.2) --- [pkttables, offloads as the kernel sets them] --- server (198.51.100.2)
#
# Each mode: UDP datagrams of 0 to 1472 bytes (frames from 42 to 1514 bytes: one per ring
# slot, copied whole), UDP GSO frames that fit a slot (3 datagrams of 400 bytes: a GSO frame
# through the ring, with its virtio_net_hdr) and that do not (10 of 1400: by sendmmsg), each
# datagram checked byte for byte by the server; TCP with a 500-byte MSS written in 1,200-byte
# pieces (small GSO frames) and an 8 MB download (64 KiB GSO frames), sha256 compared. The dump's
# counters say which path carried them: in ring mode the small GSO frames left by the ring as
# whole frames (fewer frames than datagrams), with sendmmsg nothing did. A third round,
# `io afpacket copy`, sends by the ring from frames copied out of the receive ring (the old
# receive path); the first two use the frames in place (zero-copy receive: a GSO frame too big
# for a slot goes to sendmmsg straight from the receive ring), and the dump says so.
# Exit 77 (skipped) when not root or namespaces are unavailable. Every command is bounded.
cd "$(dirname "$0")/../.." || exit 2
case ${PT_LIVE_IO:-afpacket} in afpacket | "afpacket copy") ;; *) echo "SKIP: io $PT_LIVE_IO: the transmit ring is AF_PACKET's"; exit 77 ;; esac
. tests/netns/lib.sh
netns_init ptx txring "network namespaces, AF_PACKET" ip

nsysctl $R net.ipv4.ip_forward=0 net.ipv6.conf.all.forwarding=0
for d in $L $W; do
	nsysctl $R net.ipv6.conf.$d.disable_ipv6=1
	ip -n $R link set $d arp off
	ip -n $R link set $d up
done
ip -n $R link set lo up
netns_end_hosts

# the transfers and their checks (tests/netns/xfer.py), for the scripts below
export PYTHONPATH="$PWD/tests/netns"
# Server: UDP 7778 checks each datagram against the pattern its first 4 bytes (its length and
# a counter) name, acks every one (the sender waits: no burst overruns a buffer), "end"
# answers "good bad"; TCP 9000 the transfers of xfer.py.
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
        u.sendto(b"%d %d" % (good, bad), a); good = bad = 0
        continue
    if len(d) < 4:
        ok = d == pattern(len(d), len(d))
    else:
        ok = int.from_bytes(d[:2], "big") == len(d) and d[4:] == pattern(len(d) - 4, d[:4])
    good += ok; bad += not ok
    u.sendto(b"ack", a)
PYEOF
cat >"$D/cli.py" <<'PYEOF'
import socket, sys
from xfer import get, pattern, put
def dgram(n, k):
    if n < 4:
        return pattern(n, n)
    h = n.to_bytes(2, "big") + (k % 65536).to_bytes(2, "big")
    return h + pattern(n - 4, h)
def acks(u, n):
    for _ in range(n):
        try:
            u.recv(100)
        except socket.timeout:
            return  # a datagram lost: the count at the end says so
def end(u):
    u.setsockopt(socket.SOL_UDP, 103, 0)
    u.send(b"end")
    while True:
        r = u.recv(100)
        if r != b"ack":
            return r.decode()
what = sys.argv[1]
server = "198.51.100.2"
if what == "sizes":  # one datagram of each size: frames of every length a slot takes
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(3)
    u.connect((server, 7778))
    sizes = list(range(0, 80)) + list(range(80, 1473, 37)) + [1471, 1472]
    for k, n in enumerate(sizes):
        u.send(dgram(n, k)); acks(u, 1)
    print(len(sizes), end(u))
elif what == "gso":  # UDP_SEGMENT (103): one send leaves as COUNT datagrams of SEG bytes
    seg, count, sends = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(3)
    u.setsockopt(socket.SOL_UDP, 103, seg)
    u.connect((server, 7778))
    k = 0
    for i in range(sends):
        u.send(b"".join(dgram(seg, k + j) for j in range(count)))
        k += count
        acks(u, count)
    print(k, end(u))
elif what == "smallseg":  # TCP, MSS 500, 1,200-byte writes: GSO frames of 3 segments
    s = socket.socket(); s.settimeout(20)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 500)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    ok, peer = put(server, int(sys.argv[2]), sock=s, chunk=1200)
    print("ok" if ok else "bad %s" % peer)
else:  # get N: a download, the server's 64 KiB GSO frames
    print(get(server, int(sys.argv[2])))
PYEOF
ins $T 120 "$PY" "$D/srv.py" >"$D/server.log" 2>&1 &

cat >"$D/live.conf" <<CONF
iface $L
iface $W
addr $L 192.0.2.1/24
addr $W 198.51.100.1/24
CONF

# the dump's counters of the router's interface DEV: "tx tx-ring"
tx_of() {
	kill -USR1 "$PT"
	_i=0
	while [ $_i -lt 30 ]; do
		sleep 0.1
		_n=$(grep -c "^iface $1: rx" "$D/pt.log")
		[ "$_n" -gt "${2:-0}" ] && break
		_i=$((_i + 1))
	done
	grep "^iface $1: rx" "$D/pt.log" | tail -n 1 |
		sed 's/.* tx \([0-9]*\) (.* tx-ring \([0-9]*\).*/\1 \2/'
}

# round MODE: every check through pkttables started with `io MODE`
round() {
	m=$1
	rm -f "$D/pt.log"
	{ echo "io $m"; cat "$D/live.conf"; } >"$D/live.$2.conf"
	netns_start_live "$D/live.$2.conf"
	r=$(inc $T 30 "$PY" "$D/cli.py" sizes 2>&1)
	case $r in
	"$(echo "$r" | cut -d' ' -f1) $(echo "$r" | cut -d' ' -f1) 0") ok "$m: $(echo "$r" | cut -d' ' -f1) UDP datagrams of 0 to 1472 bytes arrived intact" ;;
	*) bad "$m: UDP sizes: $r (sent good bad)" ;;
	esac
	set -- $(tx_of $W)
	tx0=$1 ring0=$2
	r=$(inc $T 30 "$PY" "$D/cli.py" gso 400 3 20 2>&1)
	[ "$r" = "60 60 0" ] && ok "$m: 20 UDP GSO frames of 3 x 400 bytes: 60 datagrams intact" ||
		bad "$m: small UDP GSO: $r (sent good bad)"
	set -- $(tx_of $W 1)
	dtx=$(($1 - tx0)) dring=$(($2 - ring0))
	if [ "$m" != "afpacket sendmmsg" ]; then
		# 60 datagrams left in fewer frames than 2 per send: GSO frames went out whole, and
		# by the ring
		[ "$dring" -ge 20 ] && [ "$dtx" -lt 40 ] &&
			ok "$m: the small GSO frames left whole through the ring ($dtx frames, $dring by the ring)" ||
			bad "$m: small GSO frames: $dtx frames sent, $dring by the ring (want >= 20 by the ring, < 40 in all)"
	else
		[ "$dring" -eq 0 ] && [ "$dtx" -ge 20 ] && ok "$m: no frame by the ring ($dtx sent)" ||
			bad "$m: $dtx frames sent, $dring by the ring (want 0)"
	fi
	r=$(inc $T 30 "$PY" "$D/cli.py" gso 1400 10 20 2>&1)
	[ "$r" = "200 200 0" ] && ok "$m: 20 UDP GSO frames of 10 x 1400 bytes (too big for a slot): 200 datagrams intact" ||
		bad "$m: big UDP GSO: $r (sent good bad)"
	r=$(inc $T 30 "$PY" "$D/cli.py" smallseg 600000 2>&1)
	[ "$r" = ok ] && ok "$m: TCP upload with MSS 500 in 1200-byte writes, sha256 equal" ||
		bad "$m: small-segment upload: $r"
	r=$(inc $T 30 "$PY" "$D/cli.py" get 8388608 2>&1)
	[ "$r" = ok ] && ok "$m: 8 MB TCP download, sha256 equal" || bad "$m: download: $r"
	grep -q "forwarding on $L ($m, mac" "$D/pt.log" &&
		ok "$m: the start line names the mode" || bad "$m: start line: $(grep 'forwarding on' "$D/pt.log")"
	set -- $(tx_of $L 2)
	[ "$m" = "afpacket sendmmsg" ] || [ "${2:-0}" -gt 0 ] && ok "$m: toward the client: ${1:-?} frames, ${2:-?} by the ring" ||
		bad "$m: toward the client: ${1:-?} frames, ${2:-?} by the ring"
	# every frame received was lent (zero-copy) or none was (copy)
	lent=$(grep "^zero-copy receive:" "$D/pt.log" | tail -n 1 | sed 's/^zero-copy receive: \([0-9]*\) .*/\1/')
	rx=$(grep "^iface $W: rx" "$D/pt.log" | tail -n 1 | sed 's/^iface [^ ]*: rx \([0-9]*\) .*/\1/')
	case $m in
	*copy) [ "$lent" = 0 ] && ok "$m: no packet over a lent frame" || bad "$m: $lent packets over lent frames" ;;
	*) [ "${lent:-0}" -ge "${rx:-1}" ] && ok "$m: $lent packets over lent frames (>= the $rx received on $W)" ||
		bad "$m: $lent packets over lent frames, $rx received on $W" ;;
	esac
	netns_stop_live || bad "$m: pkttables did not stop cleanly"
}

round afpacket ring
round "afpacket sendmmsg" mmsg
round "afpacket copy" copy
[ $fails -eq 0 ] || { tail -n 30 "$D/pt.log"; exit 1; }
echo "all passed"

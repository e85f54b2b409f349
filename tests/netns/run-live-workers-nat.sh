#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/run-live-workers-nat.sh - two data-path workers, one box: a NATed connection
# whose packets and replies cross the workers, and ruleset replacements under load.
#
# The topology is run-live.sh's (tests/netns/lib.sh). pkttables runs `workers 2 rr`: the
# kernel hands each interface's frames to the two workers in turn (PACKET_FANOUT_LB), so every
# connection's packets, and its replies, are handled by both workers, the worst case for
# shared state. The client's traffic leaves with SNAT --random-fully to the box's own address
# 198.51.100.1, so the server's replies reach the box for that address and must be translated
# back by the conntrack entry the other worker may have made.
# Checks: a 16 MB TCP download through SNAT intact (sha256), both workers took frames, the
# conntrack table shows the translation; then 30 rulesets restored over the control socket
# while a rate-limited download and UDP echoes run. Every ruleset sets a mark in mangle
# PREROUTING and logs (NFLOG to a pcap) and drops in filter FORWARD any packet without that
# same mark: a packet that saw half of one ruleset and half of the next would be logged. None
# may be; the download must complete intact. A ruleset torn on purpose (mark 1 set, mark 2
# demanded) shows that the log would see it. Exit 77 when not root or without namespaces.
# With PT_LIVE_IO=afxdp a worker reads the AF_XDP socket of its receive queue, so the veths get
# two queues and the end hosts' frames are steered by queue (tc skbedit on their egress: a
# veth delivers on the peer's receive queue of the transmit queue's number): the client's to
# queue 0, worker 0; the server's, the replies, to queue 1, worker 1.
cd "$(dirname "$0")/../.." || exit 2
. tests/netns/lib.sh
[ "${PT_LIVE_IO:-afpacket}" = afxdp ] && PT_LIVE_QUEUES=2
netns_init ptn livenat "network namespaces, AF_PACKET" ip ping curl ethtool sha256sum

netns_live_router
if [ -n "${PT_LIVE_QUEUES:-}" ]; then
	for _h in "$C 0" "$S 1"; do
		set -- $_h
		{ ip netns exec $1 tc qdisc add dev eth0 clsact &&
			ip netns exec $1 tc filter add dev eth0 egress matchall \
				action skbedit queue_mapping $2; } >"$D/tc.err" 2>&1 ||
			skip "tc skbedit queue_mapping refused: $(head -n 1 "$D/tc.err")"
	done
fi

CTL=$D/live.ctl
cat >"$D/live.conf" <<CONF
workers 2 rr
iface $L
iface $W
addr $L 192.0.2.1/24
addr $W 198.51.100.1/24
rules router.rules
control $CTL
nflog 5 torn.pcap
nflog 6 control.pcap
CONF
# mangle_filter SET WANT GROUP: mark SET in PREROUTING; FORWARD logs to GROUP and drops what
# has not the mark WANT
mangle_filter() {
	cat <<RULES
*mangle
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
-A PREROUTING -j MARK --set-mark $1
COMMIT
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A FORWARD -m mark ! --mark $2 -j NFLOG --nflog-group $3
-A FORWARD -m mark ! --mark $2 -j DROP
-A FORWARD -m conntrack --ctstate NEW,RELATED,ESTABLISHED
COMMIT
RULES
}
{
	mangle_filter 0x1 0x1 5
	cat <<RULES
*nat
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
-A POSTROUTING -o $W -j SNAT --to-source 198.51.100.1 --random-fully
COMMIT
RULES
} >"$D/router.rules"
mangle_filter 0x1 0x1 5 >"$D/a.rules"
mangle_filter 0x2 0x2 5 >"$D/b.rules"
mangle_filter 0x1 0x2 6 >"$D/torn.rules"

head -c 16777216 /dev/urandom >"$D/big"
head -c 3145728 /dev/urandom >"$D/slow"
netns_write_py
ins $T 60 "$PY" "$D/server.py" "$D" >"$D/server.log" 2>&1 &
netns_start_live "$D/live.conf"
grep -q "forwarding on .*, 2 workers" "$D/pt.log" && ok "two workers" || bad "not two workers: $(head -3 "$D/pt.log")"

# ---- a NATed download, its packets and replies on both workers ----
want=$(sha256sum <"$D/big" | cut -d' ' -f1)
res=$(inc $T 40 curl -s --max-time 35 -o "$D/got" -w '%{size_download} %{time_total}' \
	http://198.51.100.2:8080/big)
got=$(sha256sum <"$D/got" 2>/dev/null | cut -d' ' -f1)
[ "$got" = "$want" ] && ok "16 MB download through SNAT --random-fully, two workers: $res, sha256 equal" ||
	bad "download through SNAT ($res): sha256 $got != $want"
kill -USR1 "$PT"
for i in $(seq 1 30); do grep -q "^live: " "$D/pt.log" && break; sleep 0.1; done
w0=$(sed -n 's/^workers: 0 rx \([0-9]*\), 1 rx \([0-9]*\)$/\1/p' "$D/pt.log" | tail -n 1)
w1=$(sed -n 's/^workers: 0 rx \([0-9]*\), 1 rx \([0-9]*\)$/\2/p' "$D/pt.log" | tail -n 1)
[ "${w0:-0}" -gt 1000 ] && [ "${w1:-0}" -gt 1000 ] &&
	ok "both workers took the connection's frames (worker 0: $w0, worker 1: $w1)" ||
	bad "frames per worker: '$w0' '$w1'"
grep -q "^tcp .*dst=198.51.100.2 sport=[0-9]* dport=8080 src=198.51.100.2 dst=198.51.100.1 " "$D/pt.log" &&
	ok "the conntrack table has the download, its reply to the NAT address" ||
	{ bad "no SNATed entry"; grep "^tcp" "$D/pt.log" | tail -3; }

# ---- rulesets replaced under load ----
cat >"$D/udp.py" <<'PYEOF'
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(0.2)
end = time.time() + float(sys.argv[1]); n = 0
while time.time() < end:
    s.sendto(b"x" * 64, ("198.51.100.2", 7777))
    try:
        s.recvfrom(2048); n += 1
    except socket.timeout:
        pass
print(n)
PYEOF
want=$(sha256sum <"$D/slow" | cut -d' ' -f1)
inc $T 30 curl -s --max-time 25 --limit-rate 1M -o "$D/slowgot" http://198.51.100.2:8080/slow &
CURL=$!
inc $T 20 "$PY" "$D/udp.py" 4 >"$D/udp.out" 2>&1 &
UDP=$!
sleep 0.3
okn=0
for i in $(seq 1 30); do
	f=$D/a.rules
	[ $((i % 2)) -eq 0 ] && f=$D/b.rules
	$T 10 "$BIN" rules --socket "$CTL" restore "$f" && okn=$((okn + 1))
	sleep 0.05
done
[ $okn -eq 30 ] && ok "30 rulesets restored over the control socket under load" ||
	bad "restores: $okn of 30 taken"
wait $UDP
echoes=$(cat "$D/udp.out")
[ "${echoes:-0}" -gt 100 ] && ok "UDP echoes during the restores: $echoes" ||
	bad "UDP echoes during the restores: '$echoes'"
wait $CURL
got=$(sha256sum <"$D/slowgot" 2>/dev/null | cut -d' ' -f1)
[ "$got" = "$want" ] && ok "a 3 MB download spanning the 30 restores completed intact" ||
	bad "download across restores: sha256 $got != $want"
# the control: a ruleset that is half one and half the other is seen by its log
$T 10 "$BIN" rules --socket "$CTL" restore "$D/torn.rules" || bad "restore of the torn ruleset"
inc $T 5 ping -c 2 -i 0.2 -W 1 198.51.100.2 >/dev/null 2>&1 && bad "ping passed a torn ruleset"
$T 10 "$BIN" rules --socket "$CTL" restore "$D/a.rules" || bad "restore after the torn ruleset"

netns_stop_live && ok "SIGTERM: clean stop" || bad "no clean stop on SIGTERM"
# pcap records: after the 24-byte file header, a 16-byte record header with the length
count='import struct,sys
d=open(sys.argv[1],"rb").read(); o=24; n=0
while o+16<=len(d): n+=1; o+=16+struct.unpack("<I",d[o+8:o+12])[0]
print(n)'
torn=$("$PY" -c "$count" "$D/torn.pcap")
ctrl=$("$PY" -c "$count" "$D/control.pcap")
[ "$ctrl" -gt 0 ] 2>/dev/null && ok "the torn ruleset on purpose was logged ($ctrl packets)" ||
	bad "the control log is empty ('$ctrl'): the check below would see nothing"
[ "$torn" = 0 ] && ok "no packet saw half a ruleset during the 30 restores (log empty)" ||
	bad "$torn packets saw a mark from one ruleset and the filter of another"
echo "--- pkttables log (last lines) ---"
tail -n 6 "$D/pt.log"
[ $fails -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all two-worker NAT and reload checks passed"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/run-stun.sh - issue 6's STUN evidence: real STUN clients through pkttables' NAT in
# live mode, and through the kernel's MASQUERADE in the same topology for comparison.
#
#   stc$$ (two inside hosts)      str$$ (router)                      sts$$ (STUN servers)
#   eth0 192.0.2.2/24  ---  stl$$  [pkttables run | kernel]  stw$$  ---  eth0 198.51.100.2/24
#        192.0.2.3/24           192.0.2.1          198.51.100.1 (public)      198.51.100.3/24
#
# Server: stund (RFC 3489) on .2/.3 ports 3478/3479, coturn's turnserver (RFC 5780) on .2/.3
# ports 3480/3481. For each router configuration, at the same time:
#   stun 198.51.100.2                           RFC 3489 classification (its "Primary:" line)
#   turnutils_natdiscovery -m / -f              RFC 5780 mapping and filtering behaviour
#   clash: stun -p PORT -i 192.0.2.2, then -i 192.0.2.3 with the same PORT (two inside hosts,
#          one public address, one source port, one server)
#   hairpin: $D/hairpin.py - both hosts learn their mappings from stund, A sends to B's mapping,
#          B must see A's mapping as the source and its answer must come back
# pkttables' configurations are asserted (what it guarantees); the kernel's are asserted as
# measured on 6.18 (issue 6). The table of results is printed at the end; PT_STUN_TABLE=FILE
# also writes it there (docs/nat-stun.md holds one run's).
# Exit 77 (skipped) when not root or a tool is missing. Every command is bounded.
cd "$(dirname "$0")/../.." || exit 2
. tests/netns/lib.sh
netns_init st stun "network namespaces, AF_PACKET" ip ethtool iptables-restore stun stund \
	turnserver turnutils_natdiscovery

nsysctl $R net.ipv4.ip_forward=0 net.ipv6.conf.all.forwarding=0
for d in $L $W; do
	nsysctl $R net.ipv6.conf.$d.disable_ipv6=1
	ip netns exec $R ethtool -K $d rx off tx off gso off tso off gro off >/dev/null 2>&1
	ip -n $R link set $d up
done
ip -n $R link set lo up
for n in $C $S; do
	ip netns exec $n ethtool -K eth0 rx off tx off gso off tso off gro off >/dev/null 2>&1
done
netns_end_hosts
ip -n $C addr add 192.0.2.3/24 dev eth0
ip -n $S addr add 198.51.100.3/24 dev eth0

ins $T 120 stund -h 198.51.100.2 -a 198.51.100.3 >"$D/stund.log" 2>&1 &
ins $T 120 turnserver -n -L 198.51.100.2 -L 198.51.100.3 -p 3480 --alt-listening-port 3481 \
	--no-auth --no-tls --no-dtls --no-tcp --no-cli --no-tcp-relay --db "$D/turndb" \
	--pidfile "$D/turn.pid" --log-file "$D/turn.log" --simple-log --no-stdout-log \
	>/dev/null 2>&1 &

cat >"$D/hairpin.py" <<'PYEOF'
# hairpin.py PORT: hosts A (192.0.2.2) and B (192.0.2.3), both on PORT, learn their public
# mappings with a STUN binding request to stund, then A sends to B's mapping.
import os, socket, struct, sys
port = int(sys.argv[1])
def mapped(s):
    tid = os.urandom(12)
    for _ in range(3):
        s.sendto(struct.pack("!HHI", 1, 0, 0x2112A442) + tid, ("198.51.100.2", 3478))
        try:
            d, _ = s.recvfrom(2048)
        except socket.timeout:
            continue
        i = 20
        while i + 4 <= len(d):
            t, n = struct.unpack("!HH", d[i:i + 4])
            v = d[i + 4:i + 4 + n]
            if t == 0x0001 and n == 8:  # MAPPED-ADDRESS: 0, family, port, address
                return socket.inet_ntoa(v[4:8]), struct.unpack("!H", v[2:4])[0]
            i += 4 + n
    sys.exit("no STUN answer")
socks = []
for a in ("192.0.2.2", "192.0.2.3"):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((a, port)); s.settimeout(1)
    socks.append(s)
ma, mb = mapped(socks[0]), mapped(socks[1])
print("mappings A %s:%d B %s:%d" % (ma + mb))
socks[0].sendto(b"a to b", mb)
try:
    d, src = socks[1].recvfrom(2048)
except socket.timeout:
    print("hairpin no"); sys.exit(0)
# B must see A's public address: A's mapping towards the server (EI), or towards B's public
# address (an address-dependent mapping, which is another one)
if src[0] != ma[0]:
    print("hairpin bad-source %s:%d" % src); sys.exit(0)
how = "yes" if src == ma else "yes-other-mapping"
socks[1].sendto(b"b to a", src)
try:
    d, back = socks[0].recvfrom(2048)
except socket.timeout:
    print("hairpin one-way"); sys.exit(0)
print("hairpin " + how if back == mb and d == b"b to a" else "hairpin bad-answer %s:%d" % back)
PYEOF

cat >"$D/live.conf" <<CONF
iface $L
iface $W
addr $L 192.0.2.1/24
addr $W 198.51.100.1/24
rules nat.rules
CONF
nat_rules() {
	printf '*nat\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n'
	printf ':POSTROUTING ACCEPT [0:0]\n-A POSTROUTING -o %s -j %s\nCOMMIT\n' "$W" "$1"
}

pt_start() {
	nat_rules "$1" >"$D/nat.rules"
	ip netns exec $R "$BIN" run --config "$D/live.conf" 2>"$D/pt.log" &
	PT=$!
	(sleep 30; kill -KILL $PT 2>/dev/null) >/dev/null 2>&1 &
	DOG=$!
	for i in $(seq 1 50); do
		grep -q "forwarding on" "$D/pt.log" 2>/dev/null && return 0
		sleep 0.1
	done
	cat "$D/pt.log"
	echo "FAIL: pkttables did not start"
	exit 1
}
pt_stop() {
	kill -USR1 $PT 2>/dev/null
	sleep 0.3
	kill -TERM $PT 2>/dev/null
	i=0
	while kill -0 $PT 2>/dev/null && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
	kill -KILL $PT 2>/dev/null
	wait $PT 2>/dev/null
	kill $DOG 2>/dev/null
	wait $DOG 2>/dev/null
	PT="" DOG=""
	cp "$D/pt.log" "$D/last-pt.log"
}
kernel_router() {
	# the hosts learnt pkttables' own MAC for the router (docs/live.md): the kernel answers
	# with the interfaces' own, as a router replaced on a real link would
	ip -n $C neigh flush dev eth0
	ip -n $S neigh flush dev eth0
	ip -n $R addr add 192.0.2.1/24 dev $L
	ip -n $R addr add 198.51.100.1/24 dev $W
	nsysctl $R net.ipv4.ip_forward=1
}
kernel_rules() {
	nat_rules "$1" | inr iptables-restore || { bad "iptables-restore refused $1"; return 1; }
	inr conntrack -F >/dev/null 2>&1
	return 0
}

# The port a stun -v output was mapped to (its first MappedAddress).
stun_port() {
	sed -n 's/^MappedAddress = [0-9.]*:\([0-9]*\).*/\1/p' "$1" | head -n 1
}
nd_what() { # FILE Mapping|Filtering
	sed -n "s/^NAT with \(.*\) $2!$/\1/p; s/^No NAT! (\(.*\) $2)$/\1 (no NAT)/p" "$1" |
		head -n 1
}

# measure NAME CLASH_PORT: every client at once; results in $D/NAME.*
measure() {
	_n=$1 _cp=$2
	inc $T 20 stun 198.51.100.2 -v >"$D/$_n.stun" 2>&1 &
	_p1=$!
	inc $T 20 turnutils_natdiscovery -m -p 3480 198.51.100.2 >"$D/$_n.ndm" 2>&1 &
	_p2=$!
	inc $T 20 turnutils_natdiscovery -f -p 3480 198.51.100.2 >"$D/$_n.ndf" 2>&1 &
	_p3=$!
	inc $T 10 "$PY" "$D/hairpin.py" $((_cp + 5)) >"$D/$_n.hp" 2>&1 &
	_p4=$!
	inc $T 20 stun 198.51.100.2 -v -p $_cp -i 192.0.2.2 >"$D/$_n.ca" 2>&1
	inc $T 20 stun 198.51.100.2 -v -p $_cp -i 192.0.2.3 >"$D/$_n.cb" 2>&1
	wait $_p1 $_p2 $_p3 $_p4
	sed -n 's/^Primary: \(.*\)[[:space:]]*$/\1/p' "$D/$_n.stun" | sed 's/[[:space:]]*$//' \
		>"$D/$_n.class"
	_ca=$(stun_port "$D/$_n.ca") _cb=$(stun_port "$D/$_n.cb")
	_cls=$(cat "$D/$_n.class")
	_map=$(nd_what "$D/$_n.ndm" Mapping) _flt=$(nd_what "$D/$_n.ndf" Filtering)
	_hp=$(sed -n 's/^hairpin //p' "$D/$_n.hp")
	_cba=$(sed -n 's/^Primary: \([A-Za-z]* Mapping\).*/\1/p' "$D/$_n.cb")
	echo "$_n: stun: $_cls | natdiscovery: $_map mapping, $_flt filtering | hairpin: $_hp |" \
		"clash: A $_ca, B $_cb ($_cba)"
	echo "| $_n | $_cls | $_map | $_flt | ${_hp:-?} | A $_ca, B $_cb: ${_cba:-?} |" \
		>>"$D/table"
}

# expect NAME STUN-CLASS MAPPING FILTERING HAIRPIN CLASH
#   CLASH: ei (B's port differs from A's and is the same towards both server addresses, stun
#   says Independent for both), moved (B's port differs from A's), - (not checked)
expect() {
	_n=$1
	_cls=$(cat "$D/$_n.class")
	[ "$_cls" = "$2" ] && ok "$_n: stun says \"$2\"" ||
		{ bad "$_n: stun says \"$_cls\", want \"$2\""; tail -n 12 "$D/$_n.stun"; }
	_m=$(nd_what "$D/$_n.ndm" Mapping)
	[ "$_m" = "$3" ] && ok "$_n: natdiscovery: $3 Mapping" ||
		{ bad "$_n: natdiscovery mapping \"$_m\", want \"$3\""; tail -n 8 "$D/$_n.ndm"; }
	_f=$(nd_what "$D/$_n.ndf" Filtering)
	[ "$_f" = "$4" ] && ok "$_n: natdiscovery: $4 Filtering" ||
		{ bad "$_n: natdiscovery filtering \"$_f\", want \"$4\""; tail -n 8 "$D/$_n.ndf"; }
	_h=$(sed -n 's/^hairpin //p' "$D/$_n.hp")
	[ "$_h" = "$5" ] && ok "$_n: hairpin $5" ||
		{ bad "$_n: hairpin \"$_h\", want $5"; cat "$D/$_n.hp"; }
	_a=$(stun_port "$D/$_n.ca") _b=$(stun_port "$D/$_n.cb")
	case $6 in
	ei)
		if [ -n "$_a" ] && [ -n "$_b" ] && [ "$_a" != "$_b" ] &&
			grep -q "^Primary: Independent Mapping" "$D/$_n.ca" &&
			grep -q "^Primary: Independent Mapping" "$D/$_n.cb"; then
			ok "$_n: clash: A keeps $_a, B gets $_b, both endpoint-independent"
		else
			bad "$_n: clash: A $_a, B $_b"; grep "^Primary" "$D/$_n.ca" "$D/$_n.cb"
		fi ;;
	moved)
		[ -n "$_a" ] && [ -n "$_b" ] && [ "$_b" != "$_a" ] &&
			ok "$_n: clash: A keeps $_a, B gets $_b" ||
			bad "$_n: clash: A $_a, B $_b" ;;
	esac
}

{
	echo "| configuration | stun (RFC 3489) | natdiscovery mapping | natdiscovery filtering" \
		"| hairpin | clash: mapped ports of A, B (B's stun mapping) |"
	echo "|---|---|---|---|---|---|"
} >"$D/table"

for i in $(seq 1 30); do
	ins ss -uln 2>/dev/null >"$D/ss"
	grep -q "198.51.100.3:3481" "$D/ss" && grep -q "198.51.100.3:3479" "$D/ss" && break
	sleep 0.1
done

M="Independent Mapping"
pt_start "MASQUERADE"
measure "pkttables MASQUERADE" 40000
pt_stop
expect "pkttables MASQUERADE" "$M, Port Dependent Filter, preserves ports, will hairpin" \
	"Endpoint Independent" "Address and Port Dependent" yes ei

# The SIGUSR1 dump's conntrack table holds B's clash connection with its translated reply.
b=$(stun_port "$D/pkttables MASQUERADE.cb")
want="src=192.0.2.3 dst=198.51.100.2 sport=40000 dport=3478"
want="$want src=198.51.100.2 dst=198.51.100.1 sport=3478 dport=$b "
grep -q "^udp .*$want" "$D/last-pt.log" &&
	ok "pkttables MASQUERADE: the conntrack dump shows B's connection mapped to port $b" ||
	{ bad "B's connection (port $b) not in the conntrack dump"; grep "^udp" "$D/last-pt.log"; }
# Its NAT counters: the servers' answers from another address or port were filtered, the
# hairpin went through the mapping.
nat_line() { grep "^ *nat mappings" "$D/last-pt.log"; }
nat_line | grep -q " inbound_filtered [1-9]" && nat_line | grep -q " hairpinned [1-9]" &&
	ok "pkttables MASQUERADE: counters: $(nat_line | sed 's/^ *//')" ||
	{ bad "NAT counters of the default run"; nat_line; }

pt_start "SNAT --to-source 198.51.100.1 --filtering endpoint-independent"
measure "pkttables SNAT --filtering endpoint-independent" 40010
pt_stop
expect "pkttables SNAT --filtering endpoint-independent" \
	"$M, Independent Filter, preserves ports, will hairpin" \
	"Endpoint Independent" "Endpoint Independent" yes ei
nat_line | grep -q " inbound [1-9]" && ! nat_line | grep -q inbound_filtered &&
	ok "--filtering endpoint-independent admitted all: $(nat_line | sed 's/^ *//')" ||
	{ bad "NAT counters with --filtering endpoint-independent"; nat_line; }

pt_start "MASQUERADE --filtering address-dependent"
measure "pkttables MASQUERADE --filtering address-dependent" 40020
pt_stop
expect "pkttables MASQUERADE --filtering address-dependent" \
	"$M, Address Dependent Filter, preserves ports, will hairpin" \
	"Endpoint Independent" "Address Dependent" yes ei

# Each start seeds its PRNG anew: B's clash port is not the same in all three runs (it was,
# 17500, when live mode kept the fixed default seed).
n=$(for c in "pkttables MASQUERADE" "pkttables SNAT --filtering endpoint-independent" \
	"pkttables MASQUERADE --filtering address-dependent"; do
	stun_port "$D/$c.cb"
done | sort -u | wc -l)
[ "$n" -gt 1 ] && ok "the clash port differs from start to start (PRNG seeded per run)" ||
	bad "B got the same clash port in three runs: a fixed PRNG seed?"

pt_start "MASQUERADE --mapping address-port-dependent"
measure "pkttables MASQUERADE --mapping address-port-dependent" 40030
pt_stop
expect "pkttables MASQUERADE --mapping address-port-dependent" \
	"$M, Port Dependent Filter, preserves ports, no hairpin" \
	"Endpoint Independent" "Address and Port Dependent" no moved

pt_start "MASQUERADE --mapping address-dependent"
measure "pkttables MASQUERADE --mapping address-dependent" 40040
pt_stop
expect "pkttables MASQUERADE --mapping address-dependent" \
	"Dependent Mapping, preserves ports, will hairpin" \
	"Address Dependent" "Address and Port Dependent" yes-other-mapping moved

pt_start "MASQUERADE --random"
measure "pkttables MASQUERADE --random" 40050
pt_stop
expect "pkttables MASQUERADE --random" "Dependent Mapping, random port, no hairpin" \
	"Address and Port Dependent" "Address and Port Dependent" no moved

pt_start "MASQUERADE --filtering endpoint-independent --refresh both --no-hairpin"
measure "pkttables MASQUERADE --filtering endpoint-independent --refresh both --no-hairpin" 40080
pt_stop
expect "pkttables MASQUERADE --filtering endpoint-independent --refresh both --no-hairpin" \
	"$M, Independent Filter, preserves ports, no hairpin" \
	"Endpoint Independent" "Endpoint Independent" no ei

# The kernel, as measured on 6.18 (issue 6): endpoint-independent while nothing clashes,
# symmetric with --random / --random-fully; filtering always address-and-port dependent; no
# hairpinning. The clash gives the second host another port, which its later connections
# reuse (the kernel looks for the source's current mapping when the address changes): B stays
# endpoint-independent too.
kernel_router
kernel_rules MASQUERADE &&
	measure "kernel MASQUERADE" 40060 &&
	expect "kernel MASQUERADE" "$M, Port Dependent Filter, preserves ports, no hairpin" \
		"Endpoint Independent" "Address and Port Dependent" no ei
for k in --random --random-fully; do
	kernel_rules "MASQUERADE $k" || continue
	measure "kernel MASQUERADE $k" $((40070 + ${#k}))
	expect "kernel MASQUERADE $k" "Dependent Mapping, random port, no hairpin" \
		"Address and Port Dependent" "Address and Port Dependent" no moved
done

echo "--- results ---"
cat "$D/table"
[ -n "$PT_STUN_TABLE" ] && cp "$D/table" "$PT_STUN_TABLE"
[ $fails -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all STUN checks passed"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/run-live.sh - pkttables as a live router between two network namespaces.
#
#   ptc$$ (client)            ptr$$ (pkttables, no kernel addresses)          pts$$ (server)
#   eth0 192.0.2.2/24  ---  ptl$$  [pkttables run]  ptw$$  ---  eth0 198.51.100.2/24
#        2001:db8:1::2/64        192.0.2.1, 2001:db8:1::1  198.51.100.1, 2001:db8:2::1
#                                                                    2001:db8:2::2/64
# Checks: ping/ping6 to and through it, TTL / hop-limit expiry answered from its address, an
# 8 MB TCP download (sha256 compared), a UDP exchange, REJECT --reject-with tcp-reset seen as
# ECONNREFUSED although the server listens, SIGHUP (a broken file refused with FILE:LINE, a good
# one taken) during a rate-limited download that must complete intact, SIGUSR1 counters and
# conntrack table, SIGTERM. The server's link has mtu 1280: DF pings of 1428 bytes get
# "fragmentation needed" (mtu 1280) from pkttables, pings without DF are fragmented, ping6 of
# 1448 gets "packet too big".
# Exit 77 (skipped) when not root or namespaces are unavailable. Every command is bounded.
# PT_BIN: the pkttables binary (default build/pkttables; tests/run.sh sets it).
cd "$(dirname "$0")/../.." || exit 2
. tests/netns/lib.sh
netns_init pt live "network namespaces, AF_PACKET" ip ping curl ethtool sha256sum

# The middle namespace's own stack stays out of the way: no addresses, no ARP, no IPv6, no
# forwarding. Offloads off everywhere: pkttables sees and sends plain, complete frames.
netns_live_router
ip -n $R link set $W mtu 1280
ip -n $S link set eth0 mtu 1280

cat >"$D/live.conf" <<CONF
# pkttables between client and server
iface $L
iface $W
addr $L 192.0.2.1/24
addr $L 2001:db8:1::1/64
addr $W 198.51.100.1/24
addr $W 2001:db8:2::1/64
rules router.rules
rules6 router6.rules
CONF
rules_v1() {
	cat <<RULES
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A FORWARD -p tcp --dport 8082 -j REJECT --reject-with tcp-reset
-A FORWARD -m conntrack --ctstate NEW,RELATED,ESTABLISHED
RULES
}
{ rules_v1; echo COMMIT; } >"$D/router.rules"
sed 's/^-A .*//' "$D/router.rules" >"$D/router6.rules"

# Server: HTTP on 8080 (the files), a listener on 8082 (so only REJECT can refuse it), UDP echo
# on 7777. Bounded by the namespace's lifetime and by timeout.
head -c 8388608 /dev/urandom >"$D/big"
head -c 4194304 /dev/urandom >"$D/slow"
netns_write_py
ins $T 60 "$PY" "$D/server.py" "$D" 8082 >"$D/server.log" 2>&1 &

netns_start_live "$D/live.conf"

# ---- ICMP ----
inc $T 5 ping -c 2 -i 0.2 -W 2 192.0.2.1 >"$D/p0" 2>&1 && ok "ping pkttables' own address" ||
	{ bad "ping 192.0.2.1"; cat "$D/p0"; }
inc $T 8 ping -c 3 -i 0.2 -W 2 198.51.100.2 >"$D/p1" 2>&1 && ok "ping through pkttables" ||
	{ bad "ping 198.51.100.2"; cat "$D/p1"; }
inc $T 8 ping -6 -c 3 -i 0.2 -W 2 2001:db8:2::2 >"$D/p2" 2>&1 && ok "ping6 through pkttables" ||
	{ bad "ping6 2001:db8:2::2"; cat "$D/p2"; }
inc $T 5 ping -c 1 -W 2 -t 1 198.51.100.2 >"$D/p3" 2>&1
grep -q "From 192.0.2.1.*Time to live exceeded" "$D/p3" && ok "TTL 1: time exceeded from 192.0.2.1" ||
	{ bad "ping -t 1"; cat "$D/p3"; }
inc $T 5 ping -6 -c 1 -W 2 -t 1 2001:db8:2::2 >"$D/p4" 2>&1
grep -q "From 2001:db8:1::1.*Time exceeded" "$D/p4" && ok "hop limit 1: time exceeded from 2001:db8:1::1" ||
	{ bad "ping6 -t 1"; cat "$D/p4"; }

# ---- path MTU (the server's link is 1280) ----
inc $T 5 ping -c 1 -W 2 -M do -s 1400 198.51.100.2 >"$D/p5" 2>&1
grep -q "From 192.0.2.1.*Frag needed.*mtu = 1280" "$D/p5" &&
	ok "DF ping of 1428 bytes: fragmentation needed, mtu 1280, from 192.0.2.1" ||
	{ bad "ping -M do -s 1400"; cat "$D/p5"; }
inc $T 5 ping -c 1 -W 2 -M dont -s 1400 198.51.100.2 >"$D/p6" 2>&1 &&
	ok "ping of 1428 bytes without DF: fragmented by pkttables, answered" ||
	{ bad "ping -M dont -s 1400"; cat "$D/p6"; }
inc $T 5 ping -6 -c 1 -W 2 -s 1400 2001:db8:2::2 >"$D/p7" 2>&1
grep -q "From 2001:db8:1::1.*Packet too big.*mtu=1280" "$D/p7" &&
	ok "ping6 of 1448 bytes: packet too big, mtu 1280, from 2001:db8:1::1" ||
	{ bad "ping6 -s 1400"; cat "$D/p7"; }

# ---- TCP download ----
want=$(sha256sum <"$D/big" | cut -d' ' -f1)
res=$(inc $T 30 curl -s --max-time 25 -o "$D/got" -w '%{size_download} %{time_total}' \
	http://198.51.100.2:8080/big)
got=$(sha256sum <"$D/got" 2>/dev/null | cut -d' ' -f1)
[ "$got" = "$want" ] && ok "TCP download through pkttables: bytes, seconds = $res, sha256 equal" ||
	bad "TCP download ($res), sha256 $got != $want"

# ---- UDP and REJECT ----
r=$(inc $T 10 "$PY" "$D/client.py" udp 2>&1)
[ "$r" = "udp ok" ] && ok "UDP exchange (5 datagrams echoed)" || bad "UDP exchange: $r"
r=$(inc $T 5 "$PY" "$D/client.py" connect 8082 2>&1)
[ "$r" = "refused" ] && ok "REJECT --reject-with tcp-reset: connection refused" ||
	bad "REJECT to 8082: $r"
r=$(inc $T 5 "$PY" "$D/client.py" connect 8080 2>&1)
[ "$r" = "connected" ] || bad "connect to 8080 (not rejected): $r"

# ---- SIGHUP under traffic ----
want=$(sha256sum <"$D/slow" | cut -d' ' -f1)
inc $T 30 curl -s --max-time 25 --limit-rate 1M -o "$D/slowgot" http://198.51.100.2:8080/slow &
CURL=$!
sleep 1
{ rules_v1; echo "-A FORWARD -p tcp --dport 8080 -j NOSUCHTARGET"; echo COMMIT; } >"$D/router.rules"
kill -HUP "$PT"
sleep 0.5
grep -q "router.rules:7:" "$D/pt.log" && grep -q "ruleset refused" "$D/pt.log" &&
	ok "broken ruleset refused on SIGHUP with file:line" ||
	{ bad "broken ruleset not reported"; tail -5 "$D/pt.log"; }
{ rules_v1; echo "-A FORWARD -p tcp --dport 8083 -j DROP"; echo COMMIT; } >"$D/router.rules"
kill -HUP "$PT"
sleep 0.5
grep -q "ruleset reloaded" "$D/pt.log" && ok "SIGHUP reload taken" || bad "no reload message"
r=$(inc $T 5 "$PY" "$D/client.py" connect 8083 2>&1)
[ "$r" = "timeout" ] && ok "the reloaded ruleset is in force (8083 dropped)" ||
	bad "8083 after reload: $r"
wait $CURL
got=$(sha256sum <"$D/slowgot" 2>/dev/null | cut -d' ' -f1)
[ "$got" = "$want" ] && ok "a 4 MB download spanning both reloads completed intact" ||
	bad "download across reload: sha256 $got != $want"

# ---- SIGUSR1, SIGTERM ----
kill -USR1 "$PT"
sleep 0.3
grep -q -- "-A FORWARD -p tcp -m tcp --dport 8082 -j REJECT --reject-with tcp-reset" "$D/pt.log" &&
	grep -q "^neighbours:" "$D/pt.log" && ok "SIGUSR1 printed counters" ||
	{ bad "SIGUSR1 dump"; tail -20 "$D/pt.log"; }
grep -q "^# conntrack table" "$D/pt.log" && grep -q "^tcp .*dport=8080" "$D/pt.log" &&
	ok "SIGUSR1 printed the conntrack table" || { bad "SIGUSR1 conntrack table"; tail -20 "$D/pt.log"; }
kill -TERM "$PT"
i=0
while kill -0 "$PT" 2>/dev/null && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 "$PT" 2>/dev/null; then
	bad "pkttables did not stop on SIGTERM"
else
	wait "$PT"
	rc=$?
	[ $rc -eq 0 ] && grep -q "stopped" "$D/pt.log" && ok "SIGTERM: clean stop" ||
		bad "exit status $rc after SIGTERM"
fi
PT=""
echo "--- pkttables log (last lines) ---"
tail -n 12 "$D/pt.log"
[ $fails -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all live checks passed"

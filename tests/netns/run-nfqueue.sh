#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/run-nfqueue.sh - pkttables run --nfqueue 0: the kernel routes, pkttables decides.
#
#   pqc$$ (client)             pqr$$ (the kernel routes)                  pqs$$ (server)
#   eth0 192.0.2.2/24  ---  pql$$ 192.0.2.1      pqw$$ 198.51.100.1  ---  eth0 198.51.100.2/24
#        2001:db8:1::2/64        2001:db8:1::1         2001:db8:2::1           2001:db8:2::2/64
#
# In the router: mangle FORWARD -j NFQUEUE --queue-num 0 (iptables and ip6tables), so that the
# filter FORWARD chain, which runs after the verdict, can count what pkttables did to the packets
# it accepted: their mark (-m mark), their rewritten DSCP (-m dscp) and MSS (-m tcpmss).
# Checks: ping/ping6 through (marked 2), a UDP exchange (marked 1, DSCP set to 10, so a
# rewritten payload with a correct IP checksum reached the server), an 8 MB TCP download with
# its SYN's MSS rewritten to 1200 (sha256 compared), a dropped TCP port (timeout although the
# server listens), a REJECT (dropped, its RST sent through the kernel: connection refused), SIGHUP
# (broken file refused, good one taken), counters on SIGUSR1, SIGTERM. Exit 77 when not root or without NFQUEUE.
# Every command is bounded; the namespaces are always removed.
cd "$(dirname "$0")/../.." || exit 2
. tests/netns/lib.sh
netns_init pq nfq "network namespaces, nfnetlink" ip iptables ip6tables iptables-save ip6tables-save ping curl sha256sum
# PT_NFQ_BALANCE=1: queues 0 and 1 served by two workers of one box (run --nfqueue 0:1
# --workers 2). ICMP always to queue 0 and UDP to queue 1, so both surely serve packets; TCP
# through the kernel's --queue-balance 0:1.
QARGS="--nfqueue 0"
if [ "${PT_NFQ_BALANCE:-0}" = 1 ]; then
	QARGS="--nfqueue 0:1 --workers 2"
	for ipt in iptables ip6tables; do
		proto=icmp
		[ $ipt = ip6tables ] && proto=ipv6-icmp
		inr $ipt -t mangle -A FORWARD -p $proto -j NFQUEUE --queue-num 0 2>/dev/null &&
			inr $ipt -t mangle -A FORWARD -p udp -j NFQUEUE --queue-num 1 &&
			inr $ipt -t mangle -A FORWARD -j NFQUEUE --queue-balance 0:1 ||
			skip "$ipt -j NFQUEUE --queue-balance refused (no nfnetlink_queue / xt_NFQUEUE)"
	done
	[ -r /proc/net/netfilter/nfnetlink_queue ] || skip "no nfnetlink_queue in this kernel"
else
	inr iptables -t mangle -A FORWARD -j NFQUEUE --queue-num 0 2>/dev/null ||
		skip "iptables -j NFQUEUE refused (no nfnetlink_queue / xt_NFQUEUE)"
	[ -r /proc/net/netfilter/nfnetlink_queue ] || skip "no nfnetlink_queue in this kernel"
	inr ip6tables -t mangle -A FORWARD -j NFQUEUE --queue-num 0 || skip "ip6tables -j NFQUEUE refused"
fi
# After the verdict: what did pkttables do to what it accepted?
inr iptables -A FORWARD -m mark --mark 0x1 -m dscp --dscp 10 -m comment --comment udp-marked
inr iptables -A FORWARD -m mark --mark 0x2 -m comment --comment icmp-marked
inr iptables -A FORWARD -p tcp --tcp-flags SYN,RST SYN -m tcpmss --mss 1200 -m comment --comment mss-1200
inr iptables -A FORWARD -p tcp --dport 8083 -m comment --comment dropped-port
inr ip6tables -A FORWARD -m mark --mark 0x2 -m comment --comment icmp6-marked

nsysctl $R net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
netns_quiet $R $L $W
ip -n $R link set lo up
ip -n $R addr add 192.0.2.1/24 dev $L
ip -n $R addr add 2001:db8:1::1/64 dev $L nodad
ip -n $R addr add 198.51.100.1/24 dev $W
ip -n $R addr add 2001:db8:2::1/64 dev $W nodad
ip -n $R link set $L up
ip -n $R link set $W up
netns_end_hosts

# pkttables' rules, for the hook the packets come from (FORWARD: mangle, then filter). -i/-o
# name the router's real interfaces.
cat >"$D/nfq.rules" <<RULES
*mangle
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
-A FORWARD -i $L -o $W -p udp --dport 7777 -j MARK --set-mark 0x1
-A FORWARD -i $L -o $W -p udp --dport 7777 -j DSCP --set-dscp 10
-A FORWARD -p icmp -j MARK --set-mark 0x2
-A FORWARD -p tcp --tcp-flags SYN,RST SYN -j TCPMSS --set-mss 1200
COMMIT
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A FORWARD -p tcp --dport 8083 -j DROP
-A FORWARD -p tcp --dport 8084 -j REJECT --reject-with tcp-reset
COMMIT
RULES
cat >"$D/nfq6.rules" <<RULES
*mangle
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
-A FORWARD -p ipv6-icmp -j MARK --set-mark 0x2
COMMIT
RULES

head -c 8388608 /dev/urandom >"$D/big"
netns_write_py
ins $T 40 "$PY" "$D/server.py" "$D" 8083 8084 >"$D/server.log" 2>&1 &

# Not under timeout(1) (it would take the signals for itself): a watchdog bounds it.
# shellcheck disable=SC2086
ip netns exec $R "$BIN" run $QARGS --rules "$D/nfq.rules" --rules6 "$D/nfq6.rules" 2>"$D/pt.log" &
PT=$!
(sleep 40; kill -KILL $PT 2>/dev/null) >/dev/null 2>&1 &
DOG=$!
for i in $(seq 1 50); do
	grep -q "serving nfqueue 0" "$D/pt.log" 2>/dev/null && grep -q ready "$D/server.log" && break
	sleep 0.1
done
grep -q "serving nfqueue 0" "$D/pt.log" || { cat "$D/pt.log"; echo "FAIL: pkttables did not start"; exit 1; }

# counter COMMENT [ip6tables-save]: packets of the router's rule with that comment
counter() {
	inr ${2:-iptables-save} -c -t filter | sed -n "s/^\[\([0-9]*\):[0-9]*\] .*--comment $1\$/\1/p"
}

inc $T 8 ping -c 3 -i 0.2 -W 2 198.51.100.2 >"$D/p1" 2>&1 && ok "ping through the kernel, verdicts from pkttables" ||
	{ bad "ping 198.51.100.2"; cat "$D/p1"; }
inc $T 8 ping -6 -c 3 -i 0.2 -W 2 2001:db8:2::2 >"$D/p2" 2>&1 && ok "ping6 through" ||
	{ bad "ping6 2001:db8:2::2"; cat "$D/p2"; }
n=$(counter icmp-marked)
[ "${n:-0}" -ge 6 ] && ok "ICMP accepted with mark 0x2 ($n packets after the queue)" || bad "icmp mark: $n"
n=$(counter icmp6-marked ip6tables-save)
[ "${n:-0}" -ge 6 ] && ok "ICMPv6 accepted with mark 0x2 ($n)" || bad "icmp6 mark: $n"

r=$(inc $T 10 "$PY" "$D/client.py" udp 2>&1)
[ "$r" = "udp ok" ] && ok "UDP exchange (5 datagrams echoed)" || bad "UDP exchange: $r"
n=$(counter udp-marked)
[ "${n:-0}" -eq 5 ] && ok "UDP requests came back with mark 0x1 and DSCP 10 (rewritten payload)" ||
	bad "udp mark+dscp after the queue: $n (want 5)"

want=$(sha256sum <"$D/big" | cut -d' ' -f1)
res=$(inc $T 20 curl -s --max-time 15 -o "$D/got" -w '%{size_download} %{time_total}' \
	http://198.51.100.2:8080/big)
got=$(sha256sum <"$D/got" 2>/dev/null | cut -d' ' -f1)
[ "$got" = "$want" ] && ok "TCP download: bytes, seconds = $res, sha256 equal" ||
	bad "TCP download ($res), sha256 $got != $want"
n=$(counter mss-1200)
[ "${n:-0}" -ge 2 ] && ok "SYNs rewritten to MSS 1200 ($n)" || bad "TCPMSS after the queue: $n"

r=$(inc $T 5 "$PY" "$D/client.py" connect 8083 2>&1)
[ "$r" = "timeout" ] && ok "TCP 8083 dropped by pkttables (timeout, the server listens)" ||
	bad "8083: $r"
n=$(counter dropped-port)
[ "${n:-1}" -eq 0 ] && ok "no packet to 8083 got past the verdict" || bad "8083 after the queue: $n"

# REJECT: the verdict is NF_DROP, and the RST it makes goes to the kernel through a raw
# socket; the kernel routes it to the client, which sees the connection refused at once.
r=$(inc $T 5 "$PY" "$D/client.py" connect 8084 2>&1)
[ "$r" = "refused" ] && ok "REJECT under nfqueue: its RST reaches the client (connection refused)" ||
	bad "8084 (REJECT): $r"

# SIGHUP: a broken file is refused with FILE:LINE, a good one (8083 no longer dropped) taken.
cp "$D/nfq.rules" "$D/nfq.rules.orig"
sed 's/--dport 8083 -j DROP/--dport 8083 -j NOSUCHTARGET/' "$D/nfq.rules.orig" >"$D/nfq.rules"
kill -HUP "$PT"
sleep 0.3
grep -q "nfq.rules:[0-9]*:" "$D/pt.log" && grep -q "ruleset refused" "$D/pt.log" &&
	ok "broken ruleset refused on SIGHUP with file:line" || bad "broken ruleset not reported"
grep -v -- "--dport 8083" "$D/nfq.rules.orig" >"$D/nfq.rules"
kill -HUP "$PT"
sleep 0.3
r=$(inc $T 5 "$PY" "$D/client.py" connect 8083 2>&1)
grep -q "ruleset reloaded" "$D/pt.log" && [ "$r" = "connected" ] &&
	ok "SIGHUP reload taken (8083 connects now)" || bad "reload: $r"
cp "$D/nfq.rules.orig" "$D/nfq.rules"
kill -HUP "$PT"
sleep 0.3

kill -USR1 "$PT"
sleep 0.3
grep -q "^nfqueue: packets [1-9]" "$D/pt.log" && grep -q "dropped [1-9]" "$D/pt.log" &&
	grep -q -- "-A FORWARD -p tcp -m tcp --dport 8083 -j DROP" "$D/pt.log" &&
	grep -q "emitted [1-9][0-9]* (errors 0)" "$D/pt.log" &&
	ok "SIGUSR1 printed counters" || { bad "SIGUSR1 dump"; tail -20 "$D/pt.log"; }
if [ "${PT_NFQ_BALANCE:-0}" = 1 ]; then
	grep -q "^nfqueue 0: packets [1-9][0-9]* (worker 0)" "$D/pt.log" &&
		grep -q "^nfqueue 1: packets [1-9][0-9]* (worker 1)" "$D/pt.log" &&
		grep -q "^kernel queue 0:" "$D/pt.log" && grep -q "^kernel queue 1:" "$D/pt.log" &&
		ok "queues 0 and 1 both served, by workers 0 and 1 of one box" ||
		{ bad "queue-balance 0:1"; grep -E "^(nfqueue|kernel queue)" "$D/pt.log"; }
fi
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
grep -E "^(nfqueue|kernel queue|received|  dropped)" "$D/pt.log" | tail -n 10
[ $fails -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all nfqueue checks passed"

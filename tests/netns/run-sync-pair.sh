#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/run-sync-pair.sh - two pkttables boxes on one sync link, FTFW over UDP with the
# authenticated envelope (sync key), as examples/failover-pair/ sets them up.
#
#   ${P}a$$: pkttables run (sync 192.168.78.1 <-> .2, key, control $D/a.ctl)
#   ${P}b$$: pkttables run (sync 192.168.78.2 <-> .1, same key, control $D/b.ctl)
#
# Checks: a TCP connection with mark and a UDP one with SNAT address and port made on A (over
# its control socket) are in B's external cache with the same tuples, NAT, mark, timeout; B
# commits them and lists them with the translated reply tuple; a connection B makes reaches A;
# a datagram from a third sender with another key is refused (counted) and changes nothing;
# `sync resync` from B brings everything again; `sync flush` empties B's cache.
# Exit 77 (skipped) when not root or without namespaces. Every wait is bounded.
cd "$(dirname "$0")/../.." || exit 2
. tests/netns/lib.sh
. tests/netns/sync-lib.sh
sync_init syncpair "network namespaces"
A=spa$$ B=spb$$
sync_ns $A $B
sync_link $A sA 192.168.78.1/24 $B sB 192.168.78.2/24
ip -n $A addr add 192.168.78.3/24 dev sA # the third sender's
sync_fwd $A
sync_fwd $B
head -c 32 /dev/urandom >"$D/sync.key"
head -c 32 /dev/urandom >"$D/other.key"
conf() { # NAME LOCAL PEER KEY
	cat <<CONF
iface fwd0
addr fwd0 10.99.0.1/24
control ./$1.ctl
sync mode ftfw
sync udp local $2 peer $3 port 3780
sync peer-kind pkttables
sync key $4
CONF
}
conf a 192.168.78.1 192.168.78.2 sync.key >"$D/a.conf"
conf b 192.168.78.2 192.168.78.1 sync.key >"$D/b.conf"
pt_start $A a "$D/a.conf"
pt_start $B b "$D/b.conf"

sync_hello b
sync_two_flows b "A -> B" pct a
line=$SYNC_LINE
t=$(echo "$line" | awk '{print $3}')
[ "${t:-0}" -ge 898 ] && [ "${t:-0}" -le 902 ] && ok "timeout $t (900 +-2)" || bad "timeout '$t'"
psync b commit | grep -q "committed 2" && ok "B commits 2" || bad "B commit"
pct b -L >"$D/b.L" 2>&1
grep -q "src=10.7.0.2 dst=10.8.0.2 sport=5353 dport=53 .*src=10.8.0.2 dst=203.0.113.9 sport=53 dport=61000" "$D/b.L" &&
	ok "B's table: UDP reply to 203.0.113.9:61000" || { bad "B's UDP entry"; cat "$D/b.L"; }
pct b -I -s 10.9.0.1 -d 10.10.0.1 -p udp --sport 1 --dport 2 -t 60 >/dev/null || bad "ct -I on B"
wait_for 5 has "src=10.9.0.1" psync a external && ok "B -> A" || bad "B -> A missing"

# a third sender with another key: refused, counted, nothing applied
conf c 192.168.78.3 192.168.78.2 other.key | sed 's/fwd0/fwd1/g; s/10.99.0.1/10.99.1.1/' >"$D/c.conf"
f0=$(psync b stats | awk '$1 == "rx_auth_fail" {print $2}')
pt_start $A c "$D/c.conf"
PC=$PT_PID
pct c -I -s 10.66.0.1 -d 10.66.0.2 -p udp --sport 1 --dport 2 -t 60 >/dev/null
sleep 1.5
f1=$(psync b stats | awk '$1 == "rx_auth_fail" {print $2}')
[ "${f1:-0}" -gt "${f0:-0}" ] && ok "wrong key: refused ($f0 -> $f1 authentication failures)" ||
	bad "wrong key not counted ($f0 -> $f1)"
psync b external | grep -q "10.66.0.1" && bad "wrong key: applied" || ok "wrong key: nothing applied"
kill $PC 2>/dev/null
PC=""

# flush, then resync brings A's table again
psync b flush external >/dev/null
[ "$(psync b external | grep -c src=)" -eq 0 ] && ok "B's cache flushed" || bad "flush"
psync b resync >/dev/null || bad "resync"
wait_for 5 has "src=10.7.0.2" psync b external && ok "resync: A's table back in B's cache" ||
	bad "resync brought nothing"
psync b stats | grep -E "^(rx_malformed|rx_auth_fail|seq_lost|tx_ack|rx_ack) " | tr '\n' ' '
echo
sync_report a b
exit $((fails > 0))

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/run-sync-tcp.sh - two pkttables boxes on a sync link over TCP (conntrackd's TCP
# channel: each box listens and opens its own connection to the other), FTFW, authenticated.
#
#   ${P}a$$: pkttables run (sync tcp 192.168.79.1 <-> .2, key, control $D/a.ctl)
#   ${P}b$$: pkttables run (sync tcp 192.168.79.2 <-> .1, same key, control $D/b.ctl)
#
# Checks: connections made on each box (over the control socket) are in the other's external
# cache with NAT, mark and timeout; both TCP connections are up; B is killed, A keeps making
# connections (its sender buffers or drops, counted), B is started again, A reconnects by
# itself and B's RESYNC brings A's whole table, nothing refused.
# Exit 77 (skipped) when not root or without namespaces. Every wait is bounded.
cd "$(dirname "$0")/../.." || exit 2
. tests/netns/lib.sh
. tests/netns/sync-lib.sh
sync_init synctcp "network namespaces"
A=sta$$ B=stb$$
sync_ns $A $B
sync_link $A sA 192.168.79.1/24 $B sB 192.168.79.2/24
sync_fwd $A
sync_fwd $B
head -c 32 /dev/urandom >"$D/sync.key"
conf() { # NAME LOCAL PEER
	cat <<CONF
iface fwd0
addr fwd0 10.99.0.1/24
control ./$1.ctl
sync mode ftfw
sync tcp local $2 peer $3 port 3781
sync peer-kind pkttables
sync key sync.key
CONF
}
conf a 192.168.79.1 192.168.79.2 >"$D/a.conf"
conf b 192.168.79.2 192.168.79.1 >"$D/b.conf"
pt_start $A a "$D/a.conf"
pt_start $B b "$D/b.conf"
PB=$PT_PID
stat_of() { psync "$1" stats 2>/dev/null | awk -v k="$2" '$1 == k {print $2}'; }

wait_for 5 has "rx_hello [1-9]" psync b stats || bad "no HELLO reached B over TCP"
wait_for 5 has "tcp_connected 1" psync a stats && wait_for 5 has "tcp_connected 1" psync b stats &&
	ok "both connections up" || { bad "connections"; psync a stats | grep tcp_; }
sync_two_flows b "A -> B over TCP" pct a
pct b -I -s 10.9.0.1 -d 10.10.0.1 -p udp --sport 1 --dport 2 -t 60 >/dev/null || bad "ct -I on B"
wait_for 5 has "src=10.9.0.1" psync a external && ok "B -> A over TCP" || bad "B -> A missing"

# B dies; A carries on; B comes back: A reconnects by itself, a RESYNC brings everything
kill $PB 2>/dev/null
sleep 0.3
rm -f "$D/b.ctl"
pct a -I -s 10.7.0.3 -d 10.8.0.3 -p udp --sport 7 --dport 7 -t 300 >/dev/null || bad "ct -I on A"
e0=$(stat_of a tcp_established)
sleep 1.5
mv "$D/b.out" "$D/b.out.1"
pt_start $B b "$D/b.conf"
if wait_for 8 sh -c "[ \"\$($T 10 $BIN sync --socket $D/a.ctl stats | awk '\$1 == \"tcp_established\" {print \$2}')\" -gt ${e0:-0} ]"; then
	ok "A reconnected to the restarted B ($(stat_of a tcp_connects) attempts in all)"
else
	bad "A did not reconnect"; psync a stats | grep tcp_
fi
psync b resync >/dev/null || bad "resync"
if wait_for 8 has "src=10.7.0.3" psync b external && has "src=10.7.0.1" psync b external; then
	ok "after the restart: A's table in B's cache (resync)"
else
	bad "after the restart: B's cache"; psync b external; psync b stats | grep -E "tcp_|rx_"
fi
m=$(stat_of b rx_malformed) f=$(stat_of b rx_auth_fail) r=$(stat_of b tcp_rx_bad_frames)
[ "${m:-1}" -eq 0 ] && [ "${f:-1}" -eq 0 ] && [ "${r:-1}" -eq 0 ] &&
	ok "nothing refused (malformed $m, auth $f, bad frames $r)" ||
	bad "refused: malformed $m auth $f bad frames $r"
psync a stats | grep -E "^tcp_" | tr '\n' ' '
echo
sync_report a b
exit $((fails > 0))

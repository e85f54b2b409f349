#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/ctl/run-ctl-nat.sh - `pkttables ct -L` NAT filters (-n -g -j [IP[:PORT]]) and -z against
# a simulated NAT gateway (tests/ctl/nat.sim: SNAT, SNAT to a port, DNAT, no NAT; accounting).
# What each filter shows is counted by the entries' source ports (orig sport=). Every wait is
# bounded. PT_BIN: the pkttables binary (default build/pkttables).
cd "$(dirname "$0")/../.." || exit 2
. tests/ctl/lib.sh
ctl_init ctl-nat

ctl_serve tests/ctl/nat.sim "$D/gw.ctl"

# sports OPTIONS...: the original source ports -L lists, sorted, space-separated
sports() {
	timeout -k 2 10 "$BIN" ct --socket "$D/gw.ctl" -L "$@" 2>"$D/err" |
		sed -n 's/^[a-z]* *[0-9]* [0-9]* [A-Z_]* *src=[^ ]* dst=[^ ]* sport=\([0-9]*\).*/\1/p' |
		sort | tr '\n' ' ' | sed 's/ $//'
}
check() {
	want=$1
	shift
	got=$(sports "$@")
	[ "$got" = "$want" ] && ok "-L $*: $want" || bad "-L $*: '$got', want '$want' ($(cat "$D/err"))"
}
check "40000 5000 5001 5002"
check "5000 5001" -n
check "5000 5001" --src-nat
check "40000" -g
check "40000 5000 5001" -j
check "5000 5001" -n 203.0.113.1
check "5001" -n 203.0.113.1:61000
check "5001" --src-nat=203.0.113.1:61000
check "5000 5001" -n203.0.113.1
check "" -n 203.0.113.9
check "40000" -g 192.168.1.20
check "40000" -j 192.168.1.20
check "" -n -g
check "5000 5001" -n -p udp
grep -q "2 flow entries have been shown" "$D/err" && ok "-n -p udp: the count of those shown" ||
	bad "-n -p udp summary: $(cat "$D/err")"
timeout -k 2 10 "$BIN" ct --socket "$D/gw.ctl" -L -n -j >/dev/null 2>"$D/err"
[ $? -eq 2 ] && grep -q "cannot specify \`--src-nat' or \`--dst-nat' with \`--any-nat'" "$D/err" &&
	ok "-n -j refused as conntrack does" || bad "-n -j: $(cat "$D/err")"
timeout -k 2 10 "$BIN" ct --socket "$D/gw.ctl" -L -n 203.0.113.1:x >/dev/null 2>"$D/err"
[ $? -eq 2 ] && grep -q "Invalid port \`x'" "$D/err" && ok "-n IP:x: Invalid port" ||
	bad "-n IP:x: $(cat "$D/err")"

# -z: the counters as they were, then zero
timeout -k 2 10 "$BIN" ct --socket "$D/gw.ctl" -L -z >"$D/z1" 2>"$D/err"
timeout -k 2 10 "$BIN" ct --socket "$D/gw.ctl" -L >"$D/z2" 2>>"$D/err"
[ "$(grep -c 'sport=5000 .*packets=1 bytes=48 ' "$D/z1")" = 1 ] && ok "-z lists the counters" ||
	bad "-z listing: $(cat "$D/z1" "$D/err")"
[ "$(grep -c 'packets=0 bytes=0 .*packets=0 bytes=0' "$D/z2")" = 4 ] &&
	ok "after -z every counter is zero" || bad "after -z: $(cat "$D/z2")"
timeout -k 2 10 "$BIN" ct --socket "$D/gw.ctl" -L -z -p udp >/dev/null 2>"$D/err"
[ $? -eq 2 ] && grep -q "Can't use -z with filtering parameters" "$D/err" &&
	ok "-z -p udp refused as conntrack does" || bad "-z -p udp: $(cat "$D/err")"
timeout -k 2 10 "$BIN" ct --socket "$D/gw.ctl" -D -z >/dev/null 2>"$D/err"
[ $? -eq 2 ] && grep -q "Illegal option \`--zero' with this command" "$D/err" &&
	ok "-D -z refused" || bad "-D -z: $(cat "$D/err")"

[ $fails -eq 0 ] || exit 1

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/ctl/run-ctl-recent.sh - the lists of -m recent over the control socket, as
# /proc/net/xt_recent is read and written: `pkttables rules recent` lists the names, prints a
# list, adds (+ADDR), removes (-ADDR) and flushes (/); a write changes what the next packet
# meets (checked with `ctl`-less means: the list as printed). Errors: an unknown list, a bad
# address. PT_BIN: the pkttables binary (default build/pkttables).
cd "$(dirname "$0")/../.." || exit 2
. tests/ctl/lib.sh
ctl_init ctl-recent
T="timeout -k 2 10"
recent() { $T "$BIN" rules --socket "$D/fw.ctl" recent "$@"; }

ctl_serve tests/ctl/recent.sim "$D/fw.ctl"

[ "$(recent)" = SSH ] && ok "rules recent: the names of the lists" || bad "names: $(recent 2>&1)"
out=$(recent SSH)
echo "$out" | grep -q '^src=198.51.100.7 ttl: 64 last_seen: 25250 oldest_pkt: 2 25000, 25250$' &&
	ok "rules recent SSH: the /proc/net/xt_recent line (jiffies at 250 Hz)" || bad "list: $out"
recent SSH +192.0.2.5 && recent SSH | grep -q '^src=192.0.2.5 ' &&
	ok "rules recent SSH +ADDR adds" || bad "add: $(recent SSH 2>&1)"
recent SSH +2001:db8::7 && recent SSH | grep -q '^src=2001:db8::7 ' &&
	ok "rules recent SSH +IPv6 adds" || bad "add v6: $(recent SSH 2>&1)"
recent SSH -198.51.100.7 && ! recent SSH | grep -q '198.51.100.7' &&
	ok "rules recent SSH -ADDR removes" || bad "remove: $(recent SSH 2>&1)"
[ "$(recent SSH | wc -l)" = 2 ] && ok "two addresses left" || bad "count: $(recent SSH)"
recent SSH / && [ -z "$(recent SSH)" ] && ok "rules recent SSH / flushes" || bad "flush: $(recent SSH)"
recent NOPE >/dev/null 2>"$D/err"
[ $? -eq 1 ] && grep -q "no recent list 'NOPE'" "$D/err" && ok "an unknown list: exit 1, named" ||
	bad "unknown list: $(cat "$D/err")"
recent SSH +not-an-address 2>"$D/err"
[ $? -eq 1 ] && grep -q "not an address" "$D/err" && ok "a bad address: exit 1, said so" ||
	bad "bad address: $(cat "$D/err")"
recent SSH '*1.2.3.4' 2>"$D/err"
[ $? -eq 1 ] && grep -q "need +ADDRESS" "$D/err" && ok "a bad command: exit 1, said so" ||
	bad "bad command: $(cat "$D/err")"
recent NEW +192.0.2.9 && [ "$(recent | tr '\n' ' ')" = "SSH NEW " ] &&
	ok "writing to a new list makes it" || bad "new list: $(recent)"
[ $fails -eq 0 ]

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/ctl/run-ctl-big-restore.sh - a ruleset of 100,000 rules (6.7 MB, more than one 1 MiB
# request) through `pkttables rules restore` into `pkttables sim --serve`: sent in parts
# (CTL_RF_MORE), swapped whole; `rules save | wc -l` counts them; a bad line near the end is
# reported at its line and changes nothing. Prints the restore's time. PT_BIN: the binary.
cd "$(dirname "$0")/../.." || exit 2
. tests/ctl/lib.sh
ctl_init ctl-big

printf 'box fw\niface lan0\n' >"$D/box.sim"
ctl_serve "$D/box.sim" "$D/fw.ctl" 120

N=100000
awk -v n=$N 'BEGIN {
	print "*filter"; print ":INPUT ACCEPT [0:0]"; print ":FORWARD DROP [0:0]"
	print ":OUTPUT ACCEPT [0:0]"
	for (i = 0; i < n; i++)
		printf "-A FORWARD -s 10.%d.%d.%d/32 -p tcp -m tcp --dport %d -j ACCEPT\n",
			int(i / 65536) % 256, int(i / 256) % 256, i % 256, 1 + i % 65000
	print "COMMIT" }' >"$D/big.rules"
t0=$(date +%s.%N)
timeout -k 2 60 "$BIN" rules --socket "$D/fw.ctl" restore "$D/big.rules" 2>"$D/err"
rc=$?
t1=$(date +%s.%N)
[ $rc -eq 0 ] && ok "restore of $N rules ($(wc -c <"$D/big.rules") bytes) in $(awk "BEGIN { print $t1 - $t0 }") s" ||
	bad "restore: rc $rc $(cat "$D/err")"
n=$(timeout -k 2 60 "$BIN" rules --socket "$D/fw.ctl" save | grep -c '^-A FORWARD')
[ "$n" = $N ] && ok "save lists $N rules" || bad "save lists $n rules, want $N"
sed '99990s/-j ACCEPT/-j BOGUS/' "$D/big.rules" >"$D/bad.rules"
timeout -k 2 60 "$BIN" rules --socket "$D/fw.ctl" restore "$D/bad.rules" 2>"$D/err"
[ $? -eq 1 ] && grep -q "bad.rules:99990: .*BOGUS" "$D/err" && ok "a bad line 99990: FILE:LINE" ||
	bad "bad restore: $(cat "$D/err")"
n=$(timeout -k 2 60 "$BIN" rules --socket "$D/fw.ctl" save | grep -c '^-A FORWARD')
[ "$n" = $N ] && ok "after the refused restore still $N rules" || bad "after refusal: $n rules"
[ $fails -eq 0 ] || exit 1

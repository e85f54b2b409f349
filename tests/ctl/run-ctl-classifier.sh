#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/ctl/run-ctl-classifier.sh - `pkttables rules classifier` over the control socket of
# `pkttables sim --serve` (RULES_CLASSIFIER, docs/ctl.md): per chain compiled or linear (and
# why), rules, memory, the rules left to the candidates; a one-rule `restore --noflush` into a
# chain of 2000 rules makes its classifier from the running one (updated in place); -t picks
# a table, an unknown one is refused. PT_BIN: the binary.
cd "$(dirname "$0")/../.." || exit 2
. tests/ctl/lib.sh
ctl_init ctl-cls

printf 'classifier auto\nbox fw\niface lan0\n' >"$D/box.sim"
ctl_serve "$D/box.sim" "$D/fw.ctl" 60
R() { timeout -k 2 30 "$BIN" rules --socket "$D/fw.ctl" "$@"; }

N=2000
awk -v n=$N 'BEGIN {
	print "*filter"; print ":INPUT ACCEPT [0:0]"; print ":FORWARD DROP [0:0]"
	print ":OUTPUT ACCEPT [0:0]"
	for (i = 0; i < n; i++)
		if (i == 10)
			print "-A FORWARD -p udp -m limit --limit 5/sec -j ACCEPT"
		else
			printf "-A FORWARD -s 10.%d.%d.0/24 -p tcp -m tcp --dport %d -j ACCEPT\n",
				int(i / 256) % 256, i % 256, 1 + i % 6000
	print "-A OUTPUT -o lan0 -j ACCEPT"
	print "COMMIT" }' >"$D/big.rules"
R restore "$D/big.rules" 2>"$D/err" || bad "restore: $(cat "$D/err")"

R classifier >"$D/out" 2>"$D/err"
rc=$?
[ $rc -eq 0 ] && ok "rules classifier answers" || bad "rules classifier: rc $rc $(cat "$D/err")"
head -1 "$D/out" | grep -qx "classifier auto" && ok "the box's mode first" ||
	bad "mode line: $(head -1 "$D/out")"
grep -q "^ipv4 filter FORWARD: compiled, $N rules, build .*bytes, 1 with matches left to candidates (first: rule 11)$" "$D/out" &&
	ok "FORWARD compiled, $N rules, the limit rule left to the candidates" ||
	bad "FORWARD line: $(grep FORWARD "$D/out")"
grep -qx "ipv4 filter INPUT: linear, 0 rules (no rules)" "$D/out" && ok "INPUT: linear (no rules)" ||
	bad "INPUT line: $(grep INPUT "$D/out")"
grep -qx "ipv4 filter OUTPUT: linear, 1 rules (fewer than 32 rules)" "$D/out" &&
	ok "OUTPUT: linear (fewer than 32 rules)" || bad "OUTPUT line: $(grep OUTPUT "$D/out")"

# one rule more, the rest as it is: the chain's classifier is the running one, changed
printf '*filter\n-A FORWARD -s 192.0.2.0/24 -p udp -m udp --dport 53 -j DROP\nCOMMIT\n' >"$D/one.rules"
R restore --noflush "$D/one.rules" 2>"$D/err" || bad "restore --noflush: $(cat "$D/err")"
R classifier -t filter >"$D/out2" 2>"$D/err"
grep -q "^ipv4 filter FORWARD: compiled, $((N + 1)) rules, .*updated in place (1 rules changed)" "$D/out2" &&
	ok "restore --noflush of one rule: updated in place" ||
	bad "after --noflush: $(grep FORWARD "$D/out2") $(cat "$D/err")"
R save | grep -q -- "-A FORWARD -s 192.0.2.0/24 -p udp -m udp --dport 53 -j DROP" &&
	ok "the new rule is in the ruleset" || bad "the new rule is missing"
[ "$(grep -c . "$D/out2")" = 4 ] && ok "-t filter: the mode and the filter table's 3 chains" ||
	bad "-t filter printed: $(cat "$D/out2")"
R classifier -t nosuch >/dev/null 2>"$D/err"
[ $? -ne 0 ] && grep -q "no table" "$D/err" && ok "an unknown table is refused" ||
	bad "-t nosuch: $(cat "$D/err")"
[ $fails -eq 0 ] || exit 1

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/ctl/run-ctl-labels.sh - connection labels set by rules (-m connlabel --set, by number
# and by name) in a simulated box (tests/ctl/labels.sim), read with `pkttables ct -o labels`
# (text and xml) and picked with -l, the names from a connlabel.conf this test writes
# (PKTTABLES_CONNLABEL_CONF, read by the rules and by pkttables ct alike); then a label added
# and one removed over the control socket. Every wait is bounded. PT_BIN: the pkttables binary.
cd "$(dirname "$0")/../.." || exit 2
. tests/ctl/lib.sh
ctl_init ctl-labels
printf '%s\n' '# bits and names' '1 dns' '2 interactive' '5 ssh' '9 spare' >"$D/connlabel.conf"
PKTTABLES_CONNLABEL_CONF=$D/connlabel.conf
export PKTTABLES_CONNLABEL_CONF

ct() { timeout -k 2 10 "$BIN" ct --socket "$D/gw.ctl" "$@" 2>"$D/err"; }
has() {
	what=$1
	shift
	ct "$@" >"$D/out"
	grep -qF -- "$what" "$D/out" && ok "$* shows '$what'" ||
		bad "$*: no '$what' in: $(cat "$D/out" "$D/err")"
}

ctl_serve tests/ctl/labels.sim "$D/gw.ctl"
has "sport=5000 dport=53 [UNREPLIED] src=198.51.100.8 dst=192.168.1.10 sport=53 dport=5000 mark=0 use=1 labels=dns" -L -o labels
has "sport=40000 dport=22 [UNREPLIED] src=198.51.100.9 dst=192.168.1.10 sport=22 dport=40000 mark=0 use=1 labels=interactive,ssh" -L -o labels
# room for labels, none set: no labels= (as conntrack prints an empty set)
ct -L -o labels -p tcp --dport 80 >"$D/out"
grep -q "dport=80 .*mark=0 use=1$" "$D/out" && ! grep -q "labels=" "$D/out" &&
	ok "-o labels: none set, none shown" || bad "-o labels of the HTTP entry: $(cat "$D/out" "$D/err")"
has "<labels><label>interactive</label><label>ssh</label></labels>" -L -o xml,labels -p tcp --dport 22
# -l picks by label (all those given must be set)
ct -L -l ssh >"$D/out"
[ "$(wc -l <"$D/out")" -eq 1 ] && grep -q "dport=22 " "$D/out" && ok "-l ssh: the SSH entry" ||
	bad "-l ssh: $(cat "$D/out" "$D/err")"
ct -L -l dns,ssh >"$D/out"
[ ! -s "$D/out" ] && ok "-l dns,ssh: none has both" || bad "-l dns,ssh: $(cat "$D/out")"
# changed over the control socket: the rule's bits stay beside the new one
ct -U -p tcp --dport 22 --label-add spare >/dev/null
grep -q "1 flow entries have been updated" "$D/err" && ok "--label-add spare" || bad "--label-add: $(cat "$D/err")"
ct -U -p tcp --dport 22 --label-del interactive >/dev/null
has "dport=40000 mark=0 use=1 labels=ssh,spare" -L -o labels -p tcp --dport 22
# the HTTP connection came after the rules used labels: it has room for them
ct -U -p tcp --dport 80 --label-add spare >/dev/null
grep -q "1 flow entries have been updated" "$D/err" && ok "HTTP entry: room for labels" ||
	bad "--label-add on the HTTP entry: $(cat "$D/err")"
has "dport=40001 mark=0 use=1 labels=spare" -L -o labels -p tcp --dport 80
has "labels=dns" -L -o labels -p udp

[ $fails -eq 0 ] && echo "all ctl-labels checks passed" && exit 0
echo "$fails ctl-labels checks FAILED"
exit 1

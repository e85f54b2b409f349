#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/ctl/run-ctl-tstamp.sh - conntrack timestamps (`conntrack set timestamp 1`) read with
# `pkttables ct -o ktimestamp` from a simulated box (tests/ctl/tstamp.sim): the start times
# are the box clock's when the packets came, delta-time counts to the box's now, the destroy
# event of a delete shows the stop time; -o xml carries them; with the setting off there are
# none. Every wait is bounded. PT_BIN: the pkttables binary (default build/pkttables).
cd "$(dirname "$0")/../.." || exit 2
. tests/ctl/lib.sh
ctl_init ctl-tstamp
export TZ=UTC

ct() { timeout -k 2 10 "$BIN" ct --socket "$D/gw.ctl" "$@" 2>"$D/err"; }
has() {
	what=$1
	shift
	ct "$@" >"$D/out"
	grep -qF -- "$what" "$D/out" && ok "$* shows '$what'" || bad "$*: no '$what' in: $(cat "$D/out" "$D/err")"
}

ctl_serve tests/ctl/tstamp.sim "$D/gw.ctl"
has "sport=5000 dport=53 [UNREPLIED] src=198.51.100.8 dst=192.168.1.10 sport=53 dport=5000 mark=0 delta-time=25 use=1" -L
has "sport=5001 dport=53 [UNREPLIED] src=198.51.100.8 dst=192.168.1.10 sport=53 dport=5001 mark=0 delta-time=5 [start=Thu Jan  1 00:02:00 1970] use=1" -L -o ktimestamp
has "mark=0 delta-time=25 [start=Thu Jan  1 00:01:40 1970] use=1 id=" -L -o ktimestamp,id -p udp --sport 5000
has "<timestamp><start>100000000000</start></timestamp><deltatime>25</deltatime>" -L -o xml,ktimestamp
# -D prints the entry as the dump found it (no stop yet, as conntrack); its destroy event has it,
# and no mark= (the kernel's destroy events carry the mark only when it is not 0)
timeout -k 2 10 "$BIN" ct --socket "$D/gw.ctl" -E -o ktimestamp >"$D/ev" 2>"$D/ev.err" &
EV=$!
sleep 0.5
has "delta-time=25 [start=Thu Jan  1 00:01:40 1970] use=1" -D -p udp --sport 5000 -o ktimestamp
sleep 0.5
kill -TERM $EV 2>/dev/null
wait $EV 2>/dev/null
grep -qF "[DESTROY] udp      17 5 src=192.168.1.10 dst=198.51.100.8 sport=5000 dport=53 [UNREPLIED] src=198.51.100.8 dst=192.168.1.10 sport=53 dport=5000 delta-time=25 [start=Thu Jan  1 00:01:40 1970] [stop=Thu Jan  1 00:02:05 1970]" "$D/ev" &&
	ok "-E -o ktimestamp: the destroy event's stop time" || bad "-E: $(cat "$D/ev" "$D/ev.err")"
ct -D -p udp --sport 5001 >/dev/null
grep -q "1 flow entries have been deleted." "$D/err" && ok "-D of the other" || bad "-D: $(cat "$D/err")"
kill "$SIM" 2>/dev/null
wait "$SIM" 2>/dev/null

# the setting off: no timestamps
grep -v 'conntrack set timestamp' tests/ctl/tstamp.sim >"$D/off.sim"
ctl_serve "$D/off.sim" "$D/gw.ctl"
ct -L -o ktimestamp >"$D/out"
[ "$(wc -l <"$D/out")" -eq 2 ] && ! grep -q 'delta-time\|start=' "$D/out" &&
	ok "timestamp off: none shown" || bad "timestamp off: $(cat "$D/out" "$D/err")"

[ $fails -eq 0 ] && echo "all ctl-tstamp checks passed" && exit 0
echo "$fails ctl-tstamp checks FAILED"
exit 1

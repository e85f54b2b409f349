#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/run-ctl-live.sh - the control socket of `pkttables run`, under traffic.
#
#   client pqc$$ --- pql$$ [pkttables run, control $D/live.ctl] pqw$$ --- server pqs$$
#                                  ^
#                                  | pkttables rules --socket $D/live.ctl save|restore|zero
#                                  | pkttables ct --socket $D/live.ctl -L   (when ct exists)
#
# Checks: rules save is the config's ruleset; during a rate-limited 4 MB download a broken
# restore is refused (FILE:LINE, nothing applied), a good one swaps the ruleset (a port it
# drops times out at once, save shows it), ct -L lists the download; the download completes
# intact (sha256); counters and zero; a SIGHUP reload after a restore; `--control NAME` on the
# command line wins over the config; SIGTERM removes the socket file; `run --nfqueue N
# --control PATH` serves the same requests; `rules classifier` shows the config's
# `classifier` line at work. Exit 77 (skipped) when not root or namespaces are unavailable.
# Every wait is bounded.
# PT_BIN: the pkttables binary (default build/pkttables; tests/run.sh sets it).
cd "$(dirname "$0")/../.." || exit 2
. tests/netns/lib.sh
netns_init pq ctllive "network namespaces, AF_PACKET" ip curl ethtool sha256sum

netns_live_router

cat >"$D/live.conf" <<CONF
iface $L
iface $W
addr $L 192.0.2.1/24
addr $W 198.51.100.1/24
rules router.rules
control ./live.ctl
classifier compiled
CONF
cat >"$D/router.rules" <<'RULES'
*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A FORWARD -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A FORWARD -i ptl -j ACCEPT
COMMIT
RULES
sed -i "s/-i ptl /-i $L /" "$D/router.rules"
CTL=$D/./live.ctl
rules() { $T 10 "$BIN" rules --socket "$CTL" "$@"; }
# The ruleset a save shows, without its comments and chain counters: what reached INPUT and
# OUTPUT is the end hosts' and the box's own chatter (neighbour discovery), not this test's.
ruleset() { grep -v '^#' | sed 's/^\(:[^ ]* [^ ]*\) \[[0-9]*:[0-9]*\]$/\1 [0:0]/'; }

head -c 4194304 /dev/urandom >"$D/slow"
netns_write_py
ins $T 60 "$PY" "$D/server.py" "$D" 8083 >"$D/server.log" 2>&1 &

netns_start_live "$D/live.conf"
grep -q "control socket $CTL" "$D/pt.log" && [ -S "$CTL" ] && ok "control socket $CTL (config line, path relative to it)" ||
	{ bad "no control socket"; cat "$D/pt.log"; }

rules save | ruleset | diff -u "$D/router.rules" - >"$D/diff" && ok "rules save: the config's ruleset" ||
	{ bad "rules save"; cat "$D/diff"; }
# the config's `classifier compiled` (unless a test run forces a mode): timed builds
if [ -z "${PT_CLASSIFIER:-}" ]; then
	rules classifier >"$D/cls" 2>&1
	head -1 "$D/cls" | grep -qx "classifier compiled" &&
		grep -q "^ipv4 filter FORWARD: compiled, 2 rules, build [0-9.]* ms, [0-9]* bytes" "$D/cls" &&
		ok "rules classifier: the config's mode, FORWARD compiled with its build time" ||
		{ bad "rules classifier"; cat "$D/cls"; }
fi

# ---- a download while the ruleset is replaced ----
want=$(sha256sum <"$D/slow" | cut -d' ' -f1)
inc $T 30 curl -s --max-time 25 --limit-rate 1M -o "$D/slowgot" http://198.51.100.2:8080/slow &
CURL=$!
sleep 1
sed 's/^-A FORWARD -i .*/-A FORWARD -p tcp --dport 8083 -j NOSUCHTARGET/' "$D/router.rules" >"$D/bad.rules"
rules restore "$D/bad.rules" 2>"$D/err"
rc=$?
[ $rc -eq 1 ] && grep -q "^$D/bad.rules:6: " "$D/err" && rules save | ruleset | diff -q "$D/router.rules" - >/dev/null &&
	ok "broken restore under traffic: exit 1, $(sed "s|$D/||" "$D/err"), nothing applied" ||
	bad "broken restore: rc $rc, $(cat "$D/err")"
{
	sed '/^-A/,$d' "$D/router.rules"
	echo "-A FORWARD -p tcp --dport 8083 -j DROP"
	sed -n '/^-A/,$p' "$D/router.rules"
} >"$D/new.rules"
t0=$(date +%s%N)
rules restore "$D/new.rules" 2>"$D/err" && ok "rules restore under traffic: $(( ($(date +%s%N) - t0) / 1000000 )) ms round trip" ||
	bad "restore: $(cat "$D/err")"
rules save | grep -q -- '^-A FORWARD -p tcp -m tcp --dport 8083 -j DROP$' && ok "save shows the restored ruleset" ||
	{ bad "save after restore"; rules save; }
r=$(inc $T 5 "$PY" "$D/client.py" connect 8083 2>&1)
[ "$r" = "timeout" ] && ok "the restored ruleset is in force (8083 dropped)" || bad "8083 after restore: $r"
if "$BIN" ct --help >/dev/null 2>&1; then
	$T 10 "$BIN" ct --socket "$CTL" -L >"$D/ct" 2>&1
	# the download's entry, in whatever state it is by now (a fast path may have finished
	# the rate-limited transfer already: TIME_WAIT then)
	grep -Eq '^tcp +6 +[0-9]+ [A-Z_]+ src=192.0.2.2 dst=198.51.100.2 .*dport=8080' "$D/ct" &&
		ok "ct -L lists the download" || { bad "ct -L"; cat "$D/ct"; }
else
	echo "NOTE: pkttables ct is not there yet: ct -L not checked"
fi
wait $CURL
got=$(sha256sum <"$D/slowgot" 2>/dev/null | cut -d' ' -f1)
[ "$got" = "$want" ] && ok "the 4 MB download across both restores completed intact" ||
	bad "download across restore: sha256 $got != $want"

# ---- counters ----
# one more download now, after the restores: its packets are counted by the ruleset in force,
# however early the rate-limited one finished (a restore starts the counters at 0)
inc $T 15 curl -s --max-time 10 -o /dev/null http://198.51.100.2:8080/slow
rules save -c | grep -q '^\[[1-9][0-9]*:[0-9]*\] -A FORWARD -m conntrack --ctstate RELATED,ESTABLISHED' &&
	ok "save -c: the ESTABLISHED rule counted the download" || { bad "save -c"; rules save -c; }
# After zero: every rule and the FORWARD chain (where the downloads were counted) at [0:0]; the
# INPUT and OUTPUT policies may count chatter again as soon as they are zeroed.
rules zero && ! rules save -c | grep -E '^(\[|:FORWARD )' | grep -q '\[[1-9]' && ok "rules zero" ||
	{ bad "zero"; rules save -c; }

# ---- SIGHUP after a restore: the files win, one swap after the other ----
kill -HUP "$PT"
i=0
while ! grep -q "ruleset reloaded" "$D/pt.log" && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
rules save | ruleset | diff -q "$D/router.rules" - >/dev/null && ok "SIGHUP after restore: the config's files again" ||
	{ bad "after SIGHUP"; rules save; }

# ---- SIGTERM ----
kill -TERM "$PT"
i=0
while kill -0 "$PT" 2>/dev/null && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 "$PT" 2>/dev/null; then
	bad "pkttables did not stop on SIGTERM"
else
	wait "$PT"
	rc=$?
	[ $rc -eq 0 ] && [ ! -e "$CTL" ] && ok "SIGTERM: clean stop, socket removed" || bad "rc $rc after SIGTERM"
fi
PT=""

# ---- --control NAME wins over the config's line ----
PKTTABLES_RUNDIR=$D/run ip netns exec $R "$BIN" run --config "$D/live.conf" --control edge 2>"$D/pt2.log" &
PT=$!
for i in $(seq 1 50); do grep -q "forwarding on" "$D/pt2.log" 2>/dev/null && break; sleep 0.1; done
PKTTABLES_RUNDIR=$D/run $T 10 "$BIN" rules --name edge save | ruleset | diff -q "$D/router.rules" - >/dev/null &&
	[ ! -e "$CTL" ] && ok "run --control NAME: socket $D/run/edge.ctl, not the config's" ||
	{ bad "--control NAME"; cat "$D/pt2.log"; }
kill -TERM "$PT"
i=0
while kill -0 "$PT" 2>/dev/null && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
wait "$PT" 2>/dev/null
PT=""
[ ! -e "$D/run/edge.ctl" ] || bad "edge.ctl left behind"

# ---- NFQUEUE mode: the same socket from the verdict loop ----
ip netns exec $R "$BIN" run --nfqueue 7 --rules "$D/router.rules" --control "$D/nfq.ctl" 2>"$D/pt3.log" &
PT=$!
for i in $(seq 1 50); do grep -q "serving nfqueue" "$D/pt3.log" 2>/dev/null && break; sleep 0.1; done
CTL=$D/nfq.ctl
rules save | ruleset | diff -q "$D/router.rules" - >/dev/null && rules restore "$D/new.rules" &&
	rules save | grep -q -- '--dport 8083 -j DROP' && rules policy INPUT DROP &&
	rules save | grep -q '^:INPUT DROP' && ok "run --nfqueue --control: save, restore, policy" ||
	{ bad "nfqueue control socket"; cat "$D/pt3.log"; }
kill -TERM "$PT"
i=0
while kill -0 "$PT" 2>/dev/null && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
wait "$PT" 2>/dev/null
PT=""
[ ! -e "$D/nfq.ctl" ] || bad "nfq.ctl left behind"

echo "--- pkttables log (last lines) ---"
tail -n 8 "$D/pt.log"
[ $fails -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all ctl-live checks passed"

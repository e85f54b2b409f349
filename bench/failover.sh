#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/failover.sh - make bench-failover: issue 19's failover figures, three rounds of each
# pairing (pkttables pair, the same with window-tracking, kernel+conntrackd -> pkttables,
# pkttables -> kernel+conntrackd, and the pkttables pair without sync), IPv4 and IPv6, the
# active box killed at t = 5 s of 10 s transfers, with the replication latency on the wire (tests/netns/run-sync-failover.sh says
# how each figure is taken).
#
# Writes build/failover.csv (one row per pairing, round and family) and build/failover.txt
# (the test's lines, then per pairing and family: survivors over the rounds, the median of the
# rounds' median outages and their range, the commit's median, the latency). Root only; the
# heavy part runs under flock /work/coord/check.lock when that exists (a shared machine).
# Environment: BENCH_FAILOVER_ROUNDS (3), BENCH_FAILOVER_PAIRS ("pt-pt pt-wt ctd-pt pt-ctd nosync").
cd "$(dirname "$0")/.." || exit 2
CSV=build/failover.csv
TXT=build/failover.txt
mkdir -p build
rm -f "$CSV"
lock=""
[ -e /work/coord/check.lock ] && command -v flock >/dev/null 2>&1 && lock="flock /work/coord/check.lock"
echo "bench-failover: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -r), $(conntrackd -v 2>/dev/null | head -n 1)" >"$TXT"
FO_PAIRS=${BENCH_FAILOVER_PAIRS:-pt-pt pt-wt ctd-pt pt-ctd nosync} FO_ROUNDS=${BENCH_FAILOVER_ROUNDS:-3} \
	FO_CUT=5 FO_BYTES=2000000 FO_STALL=10 FO_LATENCY=1 FO_CSV=$PWD/$CSV \
	$lock sh tests/netns/run-sync-failover.sh >>"$TXT" 2>&1
rc=$?
[ $rc -eq 77 ] && { cat "$TXT"; exit 0; }
[ -s "$CSV" ] || { cat "$TXT"; echo "bench-failover: no figures"; exit 1; }
awk -F, 'NR > 1 {
	k = $1 " IPv" $3
	if (!(k in n)) order[++nk] = k
	n[k]++; tok[k] += $4; tn[k] += $5; ua[k] += $8; un[k] += $9; ch[k] += $10
	ug[k, n[k]] = $11; ts[k, n[k]] = $13; cm[k, n[k]] = $15
	ip50[k, n[k]] = $17; if ($18 > ip99[k]) ip99[k] = $18
	bp50[k, n[k]] = $21; if ($22 > bp99[k]) bp99[k] = $22
}
function med(a, k, m,    i, j, t, v) {
	for (i = 1; i <= m; i++) v[i] = a[k, i] + 0
	for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
	return sprintf("%g (%g-%g)", v[int((m + 1) / 2)], v[1], v[m])
}
END {
	printf "\n%-14s %-9s %-9s %-8s %-18s %-18s %-16s %-22s %s\n", "pairing", "TCP", "UDP", "changed",
		"UDP outage ms", "TCP stall ms", "commit ms", "idle p50 us (p99 max)", "burst p50 us (p99 max)"
	for (i = 1; i <= nk; i++) {
		k = order[i]
		printf "%-14s %-9s %-9s %-8d %-18s %-18s %-16s %-22s %s\n", k, tok[k] "/" tn[k], ua[k] "/" un[k],
			ch[k], med(ug, k, n[k]), med(ts, k, n[k]), med(cm, k, n[k]),
			med(ip50, k, n[k]) " " ip99[k], med(bp50, k, n[k]) " " bp99[k]
	}
	print "(medians over the rounds of each round'"'"'s median, range in brackets; -1: none; nosync: no commit, no sync)"
}' "$CSV" >>"$TXT"
cat "$TXT"
exit $rc

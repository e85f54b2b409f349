#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pkttables replay against the real kernel on TCP tracking's corner cases (RST on closing
# connections, SYN_SENT/SYN_RECV restarts, challenge ACKs, old SYN-ACKs, SYN retransmits with
# a new ISN, window scaling, ACK-loss stall, SYN on TIME_WAIT): tests/diff/tcp-corners.rules
# and tests/diff/tcp-corners-{4,6}.pcap (written by make-tcp-corners.py, which lists the
# cases), references tcp-corners-{4,6}.kernel recorded with kernel-replay.py --conntrack
# (Linux 6.18, nf_tables backend). Needs no root: the kernel's answers are in the tree.
#
# Compared, per family: every frame's verdict, the rule counters, and the conntrack table at
# the end (state, ASSURED/UNREPLIED, per original tuple). No exceptions: all must agree.
set -u
cd "$(dirname "$0")/../.." || exit 2
bin=${PT_BIN:-build/pkttables}
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3) || { echo "SKIP: no python3"; exit 77; }
mkdir -p build/test-logs
rc=0
for fam in 4 6; do
	name=tcp-corners-$fam
	out=build/test-logs/$name.pkttables
	if ! "$bin" replay --rules tests/diff/tcp-corners.rules \
		--rules6 tests/diff/tcp-corners.rules tests/diff/$name.pcap \
		--verdicts "$out" > "$out.stdout" 2> "$out.stderr"; then
		echo "replay of $name failed:"
		cat "$out.stderr"
		exit 1
	fi
	"$py" tests/diff/ctdiff.py "$name" tests/diff/$name.kernel "$out" "$out.stdout" || rc=1
done
exit $rc

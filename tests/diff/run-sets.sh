#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pkttables replay against the real kernel with ipsets: tests/diff/sets.ipset restored before
# tests/diff/sets.rules (every set type in FORWARD, -j SET filling a set, element counters),
# tests/diff/sets.pcap written by make-sets.py; the reference sets.kernel was recorded with
#   kernel-replay.py --sets tests/diff/sets.ipset --rules tests/diff/sets.rules \
#           tests/diff/sets.pcap                     (Linux 6.18, nf_tables backend, ipset 7.17)
# Needs no root: the kernel's answers are in the tree. Compared: every frame's verdict and the
# rule counters. No exceptions: all must agree.
set -u
cd "$(dirname "$0")/../.." || exit 2
bin=${PT_BIN:-build/pkttables}
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3) || { echo "SKIP: no python3"; exit 77; }
mkdir -p build/test-logs
out=build/test-logs/sets.pkttables
if ! "$bin" replay --sets tests/diff/sets.ipset --rules tests/diff/sets.rules \
	tests/diff/sets.pcap --verdicts "$out" >"$out.stdout" 2>"$out.stderr"; then
	echo "replay of sets failed:"
	cat "$out.stderr"
	exit 1
fi
"$py" tests/diff/ctdiff.py sets tests/diff/sets.kernel "$out" "$out.stdout"

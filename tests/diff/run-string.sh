#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# -m string: pkttables replay against the kernel's verdicts (xt_string, Linux 6.18, nf_tables
# backend) for tests/diff/string.rules and tests/diff/string.pcap (written by
# make-string-capture.py): --string/--hex-string, bm and kmp, --icase, !, --from/--to edges, a
# chain of 20 string rules (pkttables scans it in one pass), IPv4 and IPv6, and two words split
# across two IPv4 fragments (reassembled: the rules carry a conntrack match). Reference:
# tests/diff/string.kernel (kernel-replay.py). Needs no root: the kernel's answers are in the tree.
#
# Compared: every frame's verdict (by frame number: a held fragment's verdict is printed when
# its datagram completes) and every rule and policy counter. One deliberate difference, and only
# it, is accepted: the kernel's bm searches each part of a reassembled datagram (its fragment
# list) on its own and misses "splitbm", which spans two; pkttables' bm finds it, so that rule's
# counter reads [1:90] here and [0:0] in the kernel.
set -u
cd "$(dirname "$0")/../.." || exit 2
bin=${PT_BIN:-build/pkttables}
ref=tests/diff/string.kernel
out=build/test-logs/string.pkttables
mkdir -p build/test-logs

"$bin" replay --rules tests/diff/string.rules tests/diff/string.pcap \
	--verdicts "$out" >/dev/null || { echo "replay failed"; exit 1; }

# Verdict lines sorted by frame number, counter lines in order; the one accepted difference
# is rewritten to the kernel's value.
normalize() {
	grep -v '^#' "$1" | awk '
	/^[0-9]+ / { print "v", $1, $0; next }
	{ n++; print "c", n, $0 }' | sort -k1,1 -k2,2n | cut -d' ' -f3- |
		sed 's/^\[1:90\] \(-A FORWARD -p udp -m string --string "splitbm" --algo bm\)$/[0:0] \1/'
}

normalize "$ref" >"$out.ref.norm"
normalize "$out" >"$out.norm"
if diff -u "$out.ref.norm" "$out.norm" >"$out.diff"; then
	echo "string: pkttables agrees with the kernel on $(grep -c '^[0-9]' "$out") frames and" \
		"$(grep -c '^\[' "$out") rule counters (splitbm: found here, missed by the kernel's bm)"
	grep -q '^\[1:90\] -A FORWARD -p udp -m string --string "splitbm"' "$out" ||
		{ echo "string: the split word was not found by pkttables' bm"; exit 1; }
	exit 0
fi
echo "string: pkttables differs from the kernel (- kernel, + pkttables):"
cat "$out.diff"
exit 1

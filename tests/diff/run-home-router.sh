#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pkttables replay against the real kernel's verdicts for the shipped example.
#
# The reference is home-router.kernel-legacy (x_tables semantics: port and flag matches never
# match non-first fragments, a truncated TCP header is hotdropped). The nf_tables backend differs
# on two frames (185, 191), see README.md. Compared exactly: the verdict of every frame, every
# packet the gateway generated, and every rule and policy counter of both families. Table
# blocks are compared irrespective of the order the tools print them in.
set -u
cd "$(dirname "$0")/../.." || exit 2
bin=${PT_BIN:-build/pkttables}
ref=tests/diff/home-router.kernel-legacy
out=build/test-logs/home-router.pkttables
mkdir -p build/test-logs

"$bin" replay --rules examples/home-router.rules examples/home-router.pcap \
	--verdicts "$out" >/dev/null || { echo "replay failed"; exit 1; }

# Verdict lines as they are; counter sections as (section, table) blocks sorted by name.
normalize() {
	awk -v OFS='\t' '
	/^# iptables-save -c/  { sec = "4"; next }
	/^# ip6tables-save -c/ { sec = "6"; next }
	/^#/ { next }
	sec == "" { print "0", "", NR, $0; next }
	/^\*/ { tbl = substr($0, 2) }
	{ print sec, tbl, NR, $0 }
	' "$1" | sort -t '	' -k1,1 -k2,2 -k3,3n | cut -f4-
}

normalize "$ref" > "$out.ref.norm"
normalize "$out" > "$out.norm"
if diff -u "$out.ref.norm" "$out.norm" > "$out.diff"; then
	echo "home-router: pkttables agrees with the kernel on $(grep -c '^[0-9]' "$out") frames"
	exit 0
fi
echo "home-router: pkttables differs from the kernel (- kernel, + pkttables):"
cat "$out.diff"
exit 1

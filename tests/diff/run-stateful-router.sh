#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pkttables replay with connection tracking against the real kernel: examples/stateful-router.rules
# and examples/stateful-router.pcap, reference tests/diff/stateful-router.kernel (nf_tables
# backend; legacy gives the same verdicts, counters and tables, see README.md).
#
# Compared: the verdict and generated packets of every frame, every rule and policy counter of
# both families, and the conntrack and expectation tables at the end (timeouts normalised,
# entries matched by original tuple). Prints the agreement rates. Differences that are
# understood are listed, with their reason, in stateful-router.exceptions; anything else fails.
# Skips (77) when pkttables cannot load the ruleset at all (a missing extension).
set -u
cd "$(dirname "$0")/../.." || exit 2
bin=${PT_BIN:-build/pkttables}
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3) || { echo "SKIP: no python3"; exit 77; }
ref=tests/diff/stateful-router.kernel
out=build/test-logs/stateful-router.pkttables
mkdir -p build/test-logs

if ! "$bin" replay --rules examples/stateful-router.rules examples/stateful-router.pcap \
	--verdicts "$out" > "$out.stdout" 2> "$out.stderr"; then
	if grep -q "unknown option\|unknown target\|unknown match\|not supported by pkttables" "$out.stderr"; then
		echo "SKIP: pkttables cannot load examples/stateful-router.rules yet:"
		cat "$out.stderr"
		exit 77
	fi
	echo "replay failed:"
	cat "$out.stderr"
	exit 1
fi
exec "$py" tests/diff/ctdiff.py stateful-router "$ref" "$out" "$out.stdout" \
	tests/diff/stateful-router.exceptions

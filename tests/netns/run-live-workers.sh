#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/run-live-workers.sh - the live tests again with two data-path workers around one
# box: run-live.sh and run-ctl-live.sh with `workers 2` (AF_PACKET fanout by flow hash, and
# run-live.sh again through AF_XDP: on one-queue veths, read by worker 0 and written by both,
# and on two-queue veths, a socket and a worker per queue), and
# run-nfqueue.sh with queues 0 and 1 served by two workers (--queue-balance 0:1). Everything
# they check must hold the same. Skipped (77) when not root or without namespaces.
# pt-timeout-factor: 3
cd "$(dirname "$0")/../.." || exit 2
rc=0
# a bad `workers` line is refused with its FILE:LINE before anything opens (no root needed)
BIN=${PT_BIN:-build/pkttables}
D=$(mktemp -d /tmp/pt-workers.XXXXXX)
trap 'rm -rf "$D"' EXIT
for bad in "workers 0" "workers 65" "workers 2 spray" "workers"; do
	printf '# bad\n%s\niface lo\n' "$bad" >"$D/bad.conf"
	out=$(timeout 10 "$BIN" run --config "$D/bad.conf" 2>&1)
	case "$out" in *"bad.conf:2: usage: workers N [hash|cpu|rr] (N from 1 to 64)"*)
		echo "PASS: '$bad' refused at bad.conf:2" ;;
	*) echo "FAIL: '$bad': $out"; rc=1 ;; esac
done
[ "$(id -u)" -eq 0 ] || { [ $rc -eq 0 ] || exit 1; echo "SKIP: needs root (network namespaces)"; exit 77; }
. tests/netns/parts.sh
run PT_LIVE_WORKERS=2 sh tests/netns/run-live.sh
run PT_LIVE_WORKERS=2 sh tests/netns/run-ctl-live.sh
run PT_LIVE_WORKERS=2 PT_LIVE_IO=afxdp sh tests/netns/run-live.sh
run PT_LIVE_WORKERS=2 PT_LIVE_IO=afxdp PT_LIVE_QUEUES=2 sh tests/netns/run-live.sh
run PT_NFQ_BALANCE=1 sh tests/netns/run-nfqueue.sh
[ $ran -eq 0 ] && { echo "SKIP: every part skipped"; exit 77; }
[ $rc -eq 0 ] && echo "PASS: live tests with two workers ($ran of 5 parts ran)"
exit $rc

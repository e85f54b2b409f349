#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/run-live-afxdp.sh - the live tests again with `io afxdp`: pkttables reads and
# writes its interfaces through AF_XDP sockets (native XDP on the veths) instead of AF_PACKET,
# and everything run-live.sh and run-ctl-live.sh check must hold the same. Skipped (77) when
# not root, without namespaces, or when the kernel refuses AF_XDP.
cd "$(dirname "$0")/../.." || exit 2
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (network namespaces, AF_XDP)"; exit 77; }
rc=0
for t in run-live.sh run-ctl-live.sh; do
	echo "== $t with io afxdp"
	PT_LIVE_IO=afxdp sh tests/netns/$t
	r=$?
	[ $r -eq 77 ] && { echo "SKIP: $t with io afxdp skipped"; exit 77; }
	[ $r -eq 0 ] || rc=1
done
# refusals: an unknown io mode (FILE:LINE), and an interface with two receive queues (one
# AF_XDP socket on queue 0 would miss half the frames)
D=$(mktemp -d /tmp/pt-afxdp.XXXXXX)
NS=ptx$$
trap 'ip netns del $NS 2>/dev/null; rm -rf "$D"' EXIT
BIN=${PT_BIN:-build/pkttables}
printf 'io fast\niface lo\n' >"$D/bad.conf"
out=$(timeout 10 "$BIN" run --config "$D/bad.conf" 2>&1)
case "$out" in *"bad.conf:1: usage: io afpacket|afxdp|auto"*) echo "PASS: io fast refused at bad.conf:1" ;;
*) echo "FAIL: io fast: $out"; rc=1 ;; esac
if ip netns add $NS 2>/dev/null &&
	ip link add q0 netns $NS numrxqueues 2 numtxqueues 2 type veth peer name q1 netns $NS 2>/dev/null; then
	ip -n $NS link set q0 up
	ip -n $NS link set q1 up
	printf 'io afxdp\niface q0\n' >"$D/mq.conf"
	out=$(timeout 10 ip netns exec $NS "$BIN" run --config "$D/mq.conf" 2>&1)
	case "$out" in *"mq.conf:2: q0: 2 receive queues"*) echo "PASS: two receive queues refused at mq.conf:2" ;;
	*) echo "FAIL: two queues: $out"; rc=1 ;; esac
fi
[ $rc -eq 0 ] && echo "PASS: live tests through AF_XDP"
exit $rc

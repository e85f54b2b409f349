#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/run-live-afxdp.sh - the live tests again with `io afxdp`: pkttables reads and
# writes its interfaces through AF_XDP sockets (native XDP on the veths) instead of AF_PACKET,
# and everything run-live.sh, run-ctl-live.sh and run-live-offload.sh (the senders' offloads
# on: partial checksums told by their field) check must hold the same. Skipped (77) when
# not root, without namespaces, or when the kernel refuses AF_XDP.
cd "$(dirname "$0")/../.." || exit 2
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (network namespaces, AF_XDP)"; exit 77; }
rc=0
for t in run-live.sh run-ctl-live.sh run-live-offload.sh; do
	echo "== $t with io afxdp"
	PT_LIVE_IO=afxdp sh tests/netns/$t
	r=$?
	[ $r -eq 77 ] && { echo "SKIP: $t with io afxdp skipped"; exit 77; }
	[ $r -eq 0 ] || rc=1
done
# refusals: an unknown io mode (FILE:LINE), and an interface with two receive queues and one
# worker (a queue without its socket would have its frames passed to the kernel); with two
# workers each queue has its socket
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
	printf 'io afxdp\nworkers 1\niface q0\n' >"$D/mq.conf"
	out=$(timeout 10 ip netns exec $NS "$BIN" run --config "$D/mq.conf" 2>&1)
	case "$out" in *"mq.conf:3: q0: 2 receive queues, 1 worker"*) echo "PASS: two receive queues, one worker: refused at mq.conf:3" ;;
	*) echo "FAIL: two queues: $out"; rc=1 ;; esac
	# two workers: a socket on each queue
	printf 'io afxdp\nworkers 2\niface q0\n' >"$D/mq2.conf"
	ip netns exec $NS "$BIN" run --config "$D/mq2.conf" 2>"$D/mq2.log" &
	pid=$!
	for i in $(seq 1 30); do grep -q "forwarding on" "$D/mq2.log" && break; sleep 0.1; done
	kill -TERM $pid 2>/dev/null
	wait $pid
	grep -q "forwarding on q0 (afxdp .*, queue 0), 2 workers" "$D/mq2.log" &&
		echo "PASS: two receive queues, two workers: AF_XDP on both" ||
		{ echo "FAIL: two queues, two workers: $(cat "$D/mq2.log")"; rc=1; }
fi
[ $rc -eq 0 ] && echo "PASS: live tests through AF_XDP"
exit $rc

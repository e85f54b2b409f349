#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/run-live-copy.sh - the live tests again with `io afpacket copy`: every frame
# copied out of the receive ring at once (the receive path before zero-copy receive, kept for
# comparison), where the default uses frames in place. run-live.sh with one and two workers and
# run-live-offload.sh (64 KiB GSO frames) must hold the same; run-live-txring.sh runs a copy
# round of its own. Skipped (77) when not root or without namespaces.
# pt-timeout-factor: 3
cd "$(dirname "$0")/../.." || exit 2
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (network namespaces)"; exit 77; }
rc=0
. tests/netns/parts.sh
run PT_LIVE_IO="afpacket copy" sh tests/netns/run-live.sh
run PT_LIVE_IO="afpacket copy" PT_LIVE_WORKERS=2 sh tests/netns/run-live.sh
run PT_LIVE_IO="afpacket copy" sh tests/netns/run-live-offload.sh
[ $ran -eq 0 ] && { echo "SKIP: every part skipped"; exit 77; }
[ $rc -eq 0 ] && echo "PASS: live tests with io afpacket copy ($ran of 3 parts ran)"
exit $rc

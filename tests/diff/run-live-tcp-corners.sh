#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/diff/run-live-tcp-corners.sh - tests/diff/live/tcp-corners.case (TCP tracking's corner
# cases, IPv4 and IPv6: written by make-tcp-corners.py --live) through pkttables run and
# through the kernel's forwarding, live, compared packet for packet (README.md, "Live
# comparison" and "TCP corner cases"). Apart from run-live-diff.sh so that each keeps its own
# time budget. Exit 0 all agree, 1 a difference or a broken case, 77 skipped (not root, no
# scapy). PT_BIN: the pkttables binary (default build/pkttables; tests/run.sh sets it).
cd "$(dirname "$0")/../.." || exit 2
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (network namespaces, AF_PACKET)"; exit 77; }
"$PY" -c 'import scapy' 2>/dev/null || { echo "SKIP: python3-scapy not installed"; exit 77; }
# run.py bounds itself (SIGALRM, --budget) and removes its namespaces; timeout(1) is the last
# resort.
exec timeout -k 5 150 "$PY" tests/diff/live/run.py --budget 120 \
	--bin "${PT_BIN:-build/pkttables}" tests/diff/live/tcp-corners.case

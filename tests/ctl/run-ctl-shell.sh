#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/ctl/run-ctl-shell.sh - the interactive simulator serves its control sockets while it
# waits for input (libedit's read is where it waits): shell_serves.py drives it on a pty.
# Exit 77 (skipped) without python3 or when no pty can be had (a chroot or container without
# /dev/pts: python's pty.fork() then says "out of pty devices"). PT_BIN: the pkttables binary (default build/pkttables).
cd "$(dirname "$0")/../.." || exit 2
BIN=${PT_BIN:-$PWD/build/pkttables}
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
[ -x "$BIN" ] || { echo "FAIL: $BIN missing"; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not installed"; exit 77; }
# forkpty is what pty.fork() tries first; its own error says why (pty.fork's fallback does not)
why=$(timeout -k 2 10 python3 -c 'import os
try:
    pid, fd = os.forkpty()
except OSError as e:
    print(e)
    raise SystemExit(0)
if pid == 0:
    os._exit(0)
os.waitpid(pid, 0)' 2>&1) || why="the pty probe failed: $why"
[ -z "$why" ] || { echo "SKIP: no pty in this environment ($why)"; exit 77; }
D=$(mktemp -d /tmp/pt-ctl-shell.XXXXXX)
trap 'rm -rf "$D"' EXIT
# libedit never frees what EL_ADDFN copies (wcsdup of the name and help of the completion
# function): not ours, and the only leak a sanitizer build reports here
echo "leak:wcsdup" >"$D/lsan.supp"
LSAN_OPTIONS="suppressions=$D/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
timeout -k 2 30 python3 tests/ctl/shell_serves.py "$BIN" "$D"

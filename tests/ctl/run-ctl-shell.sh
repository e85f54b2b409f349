#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/ctl/run-ctl-shell.sh - the interactive simulator serves its control sockets while it
# waits for input (libedit's read is where it waits): shell_serves.py drives it on a pty.
# Exit 77 (skipped) without python3. PT_BIN: the pkttables binary (default build/pkttables).
cd "$(dirname "$0")/../.." || exit 2
BIN=${PT_BIN:-$PWD/build/pkttables}
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
[ -x "$BIN" ] || { echo "FAIL: $BIN missing"; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not installed"; exit 77; }
D=$(mktemp -d /tmp/pt-ctl-shell.XXXXXX)
trap 'rm -rf "$D"' EXIT
# libedit never frees what EL_ADDFN copies (wcsdup of the name and help of the completion
# function): not ours, and the only leak a sanitizer build reports here
echo "leak:wcsdup" >"$D/lsan.supp"
LSAN_OPTIONS="suppressions=$D/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
timeout -k 2 30 python3 tests/ctl/shell_serves.py "$BIN" "$D"

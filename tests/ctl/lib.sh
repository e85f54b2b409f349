# SPDX-License-Identifier: GPL-2.0-or-later
# tests/ctl/lib.sh - what the control-socket tests share; sourced from the project root:
#
#   cd "$(dirname "$0")/../.." || exit 2
#   . tests/ctl/lib.sh
#   ctl_init NAME          # BIN (PT_BIN or build/pkttables, absolute), D (a fresh temp dir,
#                          # removed on exit), SIM (set it to the served simulator's pid: it is
#                          # killed on exit), fails, ok/bad
#   ctl_serve SCRIPT SOCK [S]  # `pkttables sim --serve SOCK SCRIPT` in the background (SIM),
#                          # for S seconds at most (60); returns once it serves, exits 1 if not
#
# Sets `exit 1` on INT/TERM/HUP, so the EXIT trap cleans up on every way out.
ctl_init() {
	BIN=${PT_BIN:-$PWD/build/pkttables}
	case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
	[ -x "$BIN" ] || { echo "FAIL: $BIN missing"; exit 1; }
	D=$(mktemp -d "/tmp/pt-$1.XXXXXX")
	SIM=""
	fails=0
	trap ctl_cleanup EXIT
	trap 'exit 1' INT TERM HUP
}
ctl_cleanup() {
	[ -n "$SIM" ] && kill "$SIM" 2>/dev/null
	rm -rf "$D"
}
ctl_serve() {
	rm -f "$D/ready"
	timeout -k 2 "${3:-60}" "$BIN" sim -q --serve "$2" --serve-ready "$D/ready" "$1" \
		>"$D/sim.out" 2>"$D/sim.err" &
	SIM=$!
	i=0
	while [ ! -s "$D/ready" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$D/ready" ] || { cat "$D/sim.out" "$D/sim.err"; echo "FAIL: sim did not serve"; exit 1; }
}
ok() { echo "PASS: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

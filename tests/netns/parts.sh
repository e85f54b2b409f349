# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/parts.sh - for a test that runs other live tests again under other settings;
# sourced (not run) from the repository root after `rc=0`.
#
# run ENV=VALUE... COMMAND...   one part: COMMAND with those variables; exit 77 counts as
#                               skipped, anything but 0 sets rc=1; `ran` counts the parts run
ran=0
run() {
	echo "== $*"
	env "$@"
	r=$?
	[ $r -eq 77 ] && { echo "SKIP: $* skipped"; return; }
	ran=$((ran + 1))
	[ $r -eq 0 ] || { echo "FAIL: $*"; rc=1; }
}

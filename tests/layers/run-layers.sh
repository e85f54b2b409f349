#!/bin/sh
# The layering rules (tools/check-layers.sh): no forbidden include in src/, src/io includes no
# live/sim/ctl (--io), and no file in src/ is over 900 lines (--lines). PT_CHECK_LINES=0 leaves
# the line limit out (for a work in progress that has not split its file yet).
cd "$(dirname "$0")/../.." || exit 2
set --
[ "${PT_CHECK_LINES:-1}" = 1 ] && set -- "$@" --lines
set -- "$@" --io
sh tools/check-layers.sh "$@"

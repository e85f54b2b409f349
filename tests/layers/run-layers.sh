#!/bin/sh
# The layering rules (tools/check-layers.sh): no forbidden include in src/. PT_CHECK_LINES=1
# adds "no file in src/ over 900 lines", PT_CHECK_IO=1 "src/io includes no live/sim/ctl":
# turn them on in this file once the splits and the move of live mode have landed.
cd "$(dirname "$0")/../.." || exit 2
set --
[ "${PT_CHECK_LINES:-0}" = 1 ] && set -- "$@" --lines
[ "${PT_CHECK_IO:-0}" = 1 ] && set -- "$@" --io
sh tools/check-layers.sh "$@"

#!/bin/sh
# The layering rules (tools/check-layers.sh): no forbidden include in src/, and src/io includes
# no live/sim/ctl (--io, strict since live mode moved to src/live). PT_CHECK_LINES=1 adds "no
# file in src/ over 900 lines": turn it on in this file once the splits have landed.
cd "$(dirname "$0")/../.." || exit 2
set --
[ "${PT_CHECK_LINES:-0}" = 1 ] && set -- "$@" --lines
set -- "$@" --io
sh tools/check-layers.sh "$@"

#!/bin/sh
# tools/check-layers.sh [--lines] [--io] - the layering rules of ../shared/DESIGN.md, on src/.
#
#   includes (always): a file of a layer may not include a header of a layer it must not know:
#     src/engine     -> src/ct, src/nat, src/sync, src/set    (they plug in; the engine knows none)
#     src/ct         -> src/nat                               (NAT is built on conntrack)
#     src/pkt        -> anything but src/pkt                  (the bottom layer)
#     src/textsearch -> anything but src/pkt, src/textsearch
#     src/rules      -> anything but src/pkt, src/textsearch, src/rules
#     src/ctl        -> src/live, src/sim, src/cmd            (the applications are above ctl)
#   --io: also src/io -> src/live, src/sim, src/ctl (packet I/O is below the applications;
#         an option so the script's callers from before the move keep working, on in tests)
#   --lines: also no file in src/ over 900 lines (a file a reader can hold; off until the
#            files over it are split).
# Prints every offender as FILE:LINE: ... and exits 1 when there is one, else 0.
cd "$(dirname "$0")/.." || exit 2
max_lines=900
lines=0
io=0
for a in "$@"; do
	case $a in
	--lines) lines=1 ;;
	--io) io=1 ;;
	*) echo "usage: $0 [--lines] [--io]" >&2; exit 2 ;;
	esac
done
bad=0

# forbid DIR PATTERN WHY: includes of "PATTERN..." from files under src/DIR
forbid() {
	dir=$1 pat=$2 why=$3
	[ -d "src/$dir" ] || return 0
	out=$(grep -HnE "^[[:space:]]*#[[:space:]]*include[[:space:]]+\"($pat)/" "src/$dir"/*.c "src/$dir"/*.h 2>/dev/null)
	if [ -n "$out" ]; then
		echo "$out" | sed "s|\$|   ($why)|"
		bad=1
	fi
}

above_pkt='textsearch|rules|engine|classify|ct|nat|set|ext|sync|ctl|io|live|sim|gen|cmd|plugins'
forbid engine 'ct|nat|sync|set' 'the engine knows no plug-in'
forbid ct 'nat' 'conntrack does not know NAT'
forbid pkt "$above_pkt" 'src/pkt is the bottom layer'
forbid textsearch "${above_pkt#textsearch|}" 'textsearch is below rules'
forbid rules 'engine|classify|ct|nat|set|ext|sync|ctl|io|live|sim|gen|cmd|plugins' 'rules is below the engine'
forbid ctl 'live|sim|cmd' 'the applications are above ctl'
[ $io = 1 ] && forbid io 'live|sim|ctl' 'packet I/O is below the applications'

if [ $lines = 1 ]; then
	for f in src/*/*.c src/*/*.h; do
		n=$(wc -l < "$f")
		if [ "$n" -gt $max_lines ]; then
			echo "$f: $n lines (over $max_lines)"
			bad=1
		fi
	done
fi
exit $bad

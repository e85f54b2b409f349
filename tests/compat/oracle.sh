#!/bin/bash
# oracle.sh - fill in / verify tests/compat/*.t case files against the real iptables.
#
# The kernel (through iptables-restore / iptables-save, nf_tables backend by default) is the
# oracle: every expected column is what the real tools print, never a guess.
#
# Usage:
#   oracle.sh FILE...            print FILE with the expected columns filled in (stdout)
#   oracle.sh -w FILE...         rewrite FILE in place with the oracle's answers
#   oracle.sh -c FILE...         check: report every case whose columns disagree; exit 1 if any
#   oracle.sh -r FILE.save...    ruleset mode: load FILE.save with restore -c, print save -c
#                                (minus the "# Generated/Completed" timestamp lines); with -w
#                                write FILE.expected, with -c diff against FILE.expected
#                                (with -l: FILE.legacy-expected).  "# family: -6" in the file
#                                selects ip6tables.
# Options (before the files):
#   -l                           use iptables-legacy / ip6tables-legacy instead of the default
#   -v                           say what is being run on stderr
#
# A line '# ipset: COMMAND' runs `ipset -exist COMMAND` in the namespace when it is read (the
# kernel refuses -m set / -j SET naming a set that does not exist).
# Case file format: see README.md next to this script.  In short: '*table', ':CHAIN[,CHAIN..]',
# '-4' / '-6' set the context; 'rule;printed;OK|FAIL' lines are cases; '#' lines are comments.
# An empty printed column or a '?' result means "unknown, ask the oracle".
#
# How it stays fast: all cases of one context are loaded in ONE iptables-restore, each case
# preceded by a marker rule (-m comment --comment PTMARK-n) so that the iptables-save output
# maps back to the cases in order, even when one case prints as several rules.  If the batch is
# refused, the line number in the error message names the culprit, which is then confirmed on
# its own; without a usable line number the batch is bisected.  A case is FAIL only if it is
# refused when loaded on its own.
set -u

mode=fill
ruleset=0
legacy=0
verbose=0
while getopts "wcrlv" opt; do
	case $opt in
	w) mode=write ;;
	c) mode=check ;;
	r) ruleset=1 ;;
	l) legacy=1 ;;
	v) verbose=1 ;;
	*) sed -n '2,20p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { sed -n '2,20p' "$0" >&2; exit 2; }

NS=pt-compat-$$
TMP=
cleanup() { ip netns del "$NS" 2>/dev/null; [ -n "$TMP" ] && rm -f "$TMP" "$TMP".*; }
trap cleanup EXIT
trap 'exit 130' INT TERM
ip netns add "$NS" || { echo "oracle.sh: cannot create namespace $NS" >&2; exit 2; }
TMP=$(mktemp /tmp/pt-compat.XXXXXX)

log() { [ $verbose = 1 ] && echo "oracle: $*" >&2; return 0; }

tool() {	# tool FAMILY restore|save -> command name
	local base=iptables
	[ "$1" = 6 ] && base=ip6tables
	if [ $legacy = 1 ]; then echo "$base-legacy-$2"; else echo "$base-$2"; fi
}

builtin_chains() {
	case $1 in
	filter|security) echo "INPUT FORWARD OUTPUT" ;;
	nat) echo "PREROUTING INPUT OUTPUT POSTROUTING" ;;
	mangle) echo "PREROUTING INPUT FORWARD OUTPUT POSTROUTING" ;;
	raw) echo "PREROUTING OUTPUT" ;;
	*) echo "" ;;
	esac
}

# ---------------------------------------------------------------- ruleset mode
if [ $ruleset = 1 ]; then
	rc=0
	suffix=expected
	[ $legacy = 1 ] && suffix=legacy-expected
	for f in "$@"; do
		fam=4
		grep -q '^# family: *-6' "$f" && fam=6
		# each file gets a namespace of its own: tables left by the previous file would
		# otherwise show up in this file's output
		ip netns del "$NS" 2>/dev/null
		ip netns add "$NS" || exit 2
		if ! ip netns exec "$NS" "$(tool $fam restore)" -c <"$f"; then
			echo "oracle.sh: $f refused" >&2
			rc=1
			continue
		fi
		ip netns exec "$NS" "$(tool $fam save)" -c |
			grep -v '^# \(Generated\|Completed\)' >"$TMP.save"
		case $mode in
		write) cp "$TMP.save" "${f%.save}.$suffix" ;;
		check) diff -u "${f%.save}.$suffix" "$TMP.save" || rc=1 ;;
		*) cat "$TMP.save" ;;
		esac
	done
	exit $rc
fi

# ---------------------------------------------------------------- case files
# Per-context state of the batch being resolved.
G_TABLE= G_CHAIN= G_FAM= G_DECL=	# table, chain the rules go to, family, chains to declare
declare -a C_RULE C_RES C_OUT		# per case in the current context

# write_restore OUT IDX... : restore input holding cases IDX..., marker before each when
# $MARK=1.  Sets LINEMAP[line]=idx.
declare -A LINEMAP
write_restore() {
	local out=$1 n=1 i c
	shift
	LINEMAP=()
	{
		echo "*$G_TABLE"
		for c in $G_DECL; do
			if [[ " $(builtin_chains "$G_TABLE") " == *" $c "* ]]; then
				echo ":$c ACCEPT [0:0]"
			else
				echo ":$c - [0:0]"
			fi
			n=$((n + 1))
		done
		for i in "$@"; do
			if [ "$MARK" = 1 ]; then
				echo "-A $G_CHAIN -m comment --comment PTMARK-$i"
				n=$((n + 1))
			fi
			echo "-A $G_CHAIN ${C_RULE[$i]}"
			n=$((n + 1))
			LINEMAP[$n]=$i
		done
		echo COMMIT
	} >"$out"
}

restore() {	# restore FILE -> rc; stderr in $TMP.err
	ip netns exec "$NS" "$(tool "$G_FAM" restore)" <"$1" 2>"$TMP.err"
}

# batch IDX... : resolve the given cases, filling C_RES / C_OUT.
batch() {
	local i line idx hint
	[ $# -ge 1 ] || return 0
	MARK=1 write_restore "$TMP.in" "$@"
	log "batch of $# in $G_TABLE/$G_CHAIN -$G_FAM"
	if restore "$TMP.in"; then
		for i in "$@"; do C_RES[$i]=OK; C_OUT[$i]=; C_SEEN[$i]=; done
		idx=
		while IFS= read -r line; do
			# a rule with no options at all prints as a bare "-A CHAIN"
			[ "$line" = "-A $G_CHAIN" ] && line="-A $G_CHAIN "
			[[ "$line" == "-A $G_CHAIN "* ]] || continue
			line=${line#"-A $G_CHAIN "}
			if [[ "$line" =~ ^-m\ comment\ --comment\ \"?PTMARK-([0-9]+)\"?$ ]]; then
				idx=${BASH_REMATCH[1]}
				continue
			fi
			[ -n "$idx" ] || continue
			if [ -z "${C_SEEN[$idx]:-}" ]; then
				C_SEEN[$idx]=1
				C_OUT[$idx]=$line
			else
				C_OUT[$idx]="${C_OUT[$idx]}\\n$line"	# several printed rules
			fi
		done < <(ip netns exec "$NS" "$(tool "$G_FAM" save)" -t "$G_TABLE")
		return 0
	fi
	if [ $# -eq 1 ]; then
		C_RES[$1]=FAIL
		C_OUT[$1]=
		C_ERR[$1]=$(head -c 300 "$TMP.err" | tr '\n' ' ')
		return 0
	fi
	# The error message names a line ("line: N" or "line N:"); try that case alone.
	hint=$(grep -o 'line:\? *[0-9]\+' "$TMP.err" | head -1 | grep -o '[0-9]\+')
	if [ -n "$hint" ] && [ -n "${LINEMAP[$hint]:-}" ]; then
		idx=${LINEMAP[$hint]}
		MARK=0 write_restore "$TMP.one" "$idx"
		if ! restore "$TMP.one"; then
			C_RES[$idx]=FAIL
			C_OUT[$idx]=
			C_ERR[$idx]=$(head -c 300 "$TMP.err" | tr '\n' ' ')
			local rest=()
			for i in "$@"; do [ "$i" = "$idx" ] || rest+=("$i"); done
			batch "${rest[@]}"
			return 0
		fi
	fi
	local args=("$@") half=$(($# / 2))
	batch "${args[@]:0:$half}"
	batch "${args[@]:$half}"
}

declare -a C_ERR C_SEEN
process_file() {
	local f=$1 table=filter chains=INPUT fam=4 line ctx n=0 i
	local -a L_KIND L_TEXT L_CTX L_RULE L_EXP L_RES
	local -A CTX_CASES
	local -a CTX_ORDER
	# pass 1: parse
	while IFS= read -r line || [ -n "$line" ]; do
		L_TEXT[$n]=$line
		L_KIND[$n]=text
		case $line in
		'# ipset: '*)
			# shellcheck disable=SC2086
			ip netns exec "$NS" ipset -exist ${line#'# ipset: '} ||
				echo "$f:$((n + 1)): ipset refused: ${line#'# ipset: '}" >&2
			;;
		'#'*|'') ;;
		'*'*) table=${line#\*} ;;
		:*) chains=${line#:} ;;
		-4) fam=4 ;;
		-6) fam=6 ;;
		*\;*\;*)
			L_KIND[$n]=case
			L_RULE[$n]=${line%%;*}
			L_RES[$n]=${line##*;}
			local mid=${line#*;}
			L_EXP[$n]=${mid%;*}
			ctx="$table|$chains|$fam"
			L_CTX[$n]=$ctx
			if [ -z "${CTX_CASES[$ctx]:-}" ]; then CTX_ORDER+=("$ctx"); fi
			CTX_CASES[$ctx]="${CTX_CASES[$ctx]:-} $n"
			;;
		*) echo "$f:$((n + 1)): not a case line: $line" >&2 ;;
		esac
		n=$((n + 1))
	done <"$f"

	# pass 2: ask the oracle, one batch per context
	local -A R_RES R_OUT R_ERR
	for ctx in "${CTX_ORDER[@]}"; do
		G_TABLE=${ctx%%|*}
		local rest=${ctx#*|}
		chains=${rest%|*}
		G_FAM=${rest##*|}
		G_CHAIN=${chains%%,*}
		G_DECL=${chains//,/ }
		C_RULE=() C_RES=() C_OUT=() C_ERR=() C_SEEN=()
		local idxs=()
		for i in ${CTX_CASES[$ctx]}; do
			C_RULE[$i]=${L_RULE[$i]}
			idxs+=("$i")
		done
		batch "${idxs[@]}"
		for i in "${idxs[@]}"; do
			R_RES[$i]=${C_RES[$i]}
			R_OUT[$i]=${C_OUT[$i]:-}
			R_ERR[$i]=${C_ERR[$i]:-}
		done
	done

	# pass 3: output or compare
	local bad=0 exp got out
	for ((i = 0; i < n; i++)); do
		if [ "${L_KIND[$i]}" != case ]; then
			[ $mode = check ] || printf '%s\n' "${L_TEXT[$i]}"
			continue
		fi
		got=${R_RES[$i]}
		out=${R_OUT[$i]}
		[ "$got" = OK ] && [ "$out" = "${L_RULE[$i]}" ] && out='='
		if [ $mode = check ]; then
			exp=${L_EXP[$i]}
			[ "$exp" = "${L_RULE[$i]}" ] && exp='='
			if [ "${L_RES[$i]}" != "$got" ] || { [ "$got" = OK ] && [ "$exp" != "$out" ]; }; then
				printf '%s:%d: MISMATCH %s\n   file:   %s;%s\n   oracle: %s;%s\n' \
					"$f" $((i + 1)) "${L_CTX[$i]}" "${L_RES[$i]}" "$exp" "$got" "$out"
				[ "$got" = FAIL ] && printf '   error:  %s\n' "${R_ERR[$i]}"
				bad=$((bad + 1))
			fi
		else
			printf '%s;%s;%s\n' "${L_RULE[$i]}" "$out" "$got"
		fi
	done
	return $bad
}

status=0
for f in "$@"; do
	if grep -q '^#.*hand-written, not from the kernel oracle' "$f"; then
		echo "oracle.sh: skipping $f (hand-written, not from the kernel oracle)" >&2
		continue
	fi
	if [ $mode = write ]; then
		process_file "$f" >"$TMP.new" && cat "$TMP.new" >"$f" || status=1
	else
		process_file "$f" || status=1
	fi
done
exit $status

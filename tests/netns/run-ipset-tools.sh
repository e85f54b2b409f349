#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/run-ipset-tools.sh - `pkttables ipset` against the real ipset(8), the kernel as
# reference.
#
#   ptips$$ (a network namespace: its own, empty kernel ipset)   ipset WORDS  -> k.N.{out,err,rc}
#   a pkttables box served at $D/box.ctl (pkttables sim --serve)  pkttables ipset --socket
#                                                                  $D/box.ctl WORDS -> p.N.*
# The same command lines run on both sides, in order (creates of every type, adds with ranges
# and options, tests, errors, list, save, swap, rename, flush, destroy, a restore), and their
# stdout, stderr and exit status are compared after normalising only what must differ:
#   - "initval 0x..." (a random number the kernel picks; pkttables derives it from the box's
#     key) -> initval I; "Size in memory: N" (the kernel's allocator) -> N;
#   - remaining timeouts (they count down on the kernel, the served box's clock stands still)
#     -> T; "References:" (the kernel counts its own) -> R;
#   - members are sorted on both sides (the kernel lists hash sets in bucket order);
#   - `restore` of a file with a bad line: the kernel applies the lines before it, pkttables
#     nothing (atomic per file, as documented): checked on pkttables' side, then the kernel's
#     half-made set is destroyed; the kernel's order of sets after that is its own, so that
#     last list of names is compared sorted.
# Types the kernel here lacks (hash:mac: "set type not supported") are skipped on both sides.
# Exit 0 when all agree, 1 otherwise, 77 (skipped) when not root, or ip/ipset are missing.
cd "$(dirname "$0")/../.." || exit 2
. tests/ctl/lib.sh
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, the kernel's ipset)"
for t in ip ipset; do
	command -v "$t" >/dev/null 2>&1 || skip "$t not installed (tools/install-deps.sh)"
done
ctl_init ipset-tools
[ -n "${PT_IPSET_KEEP:-}" ] && ctl_cleanup() { [ -n "$SIM" ] && kill "$SIM" 2>/dev/null; echo "kept $D"; }
NS=ptips$$
ip netns add "$NS" || skip "cannot create a network namespace"
trap 'ip netns del "$NS" 2>/dev/null; ctl_cleanup' EXIT
T="timeout -k 2 10"
printf 'box b\n' >"$D/box.sim"
ctl_serve "$D/box.sim" "$D/box.ctl"

n=0
norm() {
	sed -e 's/initval 0x[0-9a-f]*/initval I/' -e 's/^Size in memory: .*/Size in memory: N/' \
	    -e 's/ timeout [0-9][0-9]*\( \|$\)/ timeout T\1/g' -e 's/^References: .*/References: R/' \
	    -e 's/^ipset v[0-9.]*: /ipset: /' -e 's/^ipset v[0-9.]* (pkttables): /ipset: /' "$1"
}
# run WORDS...: both sides, compare
run() {
	n=$((n + 1))
	$T ip netns exec "$NS" ipset "$@" >"$D/k.$n.out" 2>"$D/k.$n.err" </dev/null
	echo $? >"$D/k.$n.rc"
	$T "$BIN" ipset --socket "$D/box.ctl" "$@" >"$D/p.$n.out" 2>"$D/p.$n.err" </dev/null
	echo $? >"$D/p.$n.rc"
	cmp_one "$*"
}
maybe_sort() { if [ -n "${SORTED:-}" ]; then sort; else cat; fi; }
cmp_one() {
	for x in out err rc; do
		norm "$D/k.$n.$x" | sort_members | maybe_sort >"$D/k.$n.$x.n"
		norm "$D/p.$n.$x" | sort_members | maybe_sort >"$D/p.$n.$x.n"
		if ! cmp -s "$D/k.$n.$x.n" "$D/p.$n.$x.n"; then
			bad "ipset $1: $x differs"
			diff "$D/k.$n.$x.n" "$D/p.$n.$x.n" | sed 's/^/    /' | head -20
			return
		fi
	done
	agree=$((agree + 1))
}
# Sort the lines after each "Members:" up to a blank line, and runs of "add " lines.
sort_members() {
	awk 'function flush() { if (nb) { cmd = "sort"; for (i = 1; i <= nb; i++) print b[i] | cmd; close(cmd); nb = 0 } }
	     /^add / { b[++nb] = $0; next }
	     m && NF { b[++nb] = $0; next }
	     { flush(); m = 0; print } /^Members:$/ { m = 1 }
	     END { flush() }'
}
agree=0
run create a hash:ip
run create a hash:ip
run -exist create a hash:ip
run add a 192.0.2.1
run add a 192.0.2.1
run -exist add a 192.0.2.1
run add a 10.0.0.0/30
run add a 10.0.1.1-10.0.1.3
run add a ::1
run add a foo
run test a 10.0.0.2
run test a 10.0.0.9
run -q test a 10.0.0.9
run del a 10.0.0.9
run -exist del a 10.0.0.9
run del a 10.0.0.0/30
run list a
run create t hash:ip timeout 60 counters comment skbinfo maxelem 3
run add t 198.51.100.1 timeout 0 packets 5 bytes 100 comment "x" skbmark 0x10/0xff skbprio 1:2 skbqueue 3
run add t 198.51.100.2
run add t 198.51.100.3 packets 1
run add t 198.51.100.4
run add a 1.2.3.4 timeout 5
run add a 1.2.3.4 packets 5
run add a 1.2.3.4 comment x
run create n hash:net family inet6 hashsize 2048 maxelem 1000
run add n 2001:db8::/32 nomatch
run add n 2001:db8:1::/48
run add n 2001:db8:1::/0
run test n 2001:db8:1::1
run create np hash:net,port
run add np 10.0.0.0/8,80
run add np 10.0.0.1,udp:53
run add np 10.0.0.1,icmp:echo-request
run create ipp hash:ip,port
run add ipp 10.0.0.2,80-82
run add ipp 10.0.0.1,sctp:5
run add ipp 10.0.0.1,gre:0
run add ipp 10.0.0.1,icmp:3/1
run create ipi hash:ip,port,ip
run add ipi 10.0.0.1,tcp:80,192.0.2.1
run create ipn hash:ip,port,net
run add ipn 10.0.0.1,udp:53,192.168.0.0/16
run create ni hash:net,iface
run add ni 10.0.0.0/8,eth0
run add ni 10.0.0.0/8,physdev:eth1
run create b bitmap:ip range 10.0.0.0/24 netmask 30
run add b 10.0.0.6
run add b 10.0.1.6
run create b2 bitmap:ip 10.0.0.0/24
run create bp bitmap:port range 1000-2000 counters
run add bp 1500
run add bp 2001
run create l list:set size 4
run add l a
run add l np before a
run add l nosuch
run add l l
run save
run list -t
run list -n
run swap a t
run swap a ipp
run swap a zz
run rename t a
run rename t t2
run destroy a
run flush ipp
run list ipp
run create x hash:foo
run create x hash:ip family inet7
run create x hash:ip hashsize abc
run create x hash:ip bogus
run bogus
run create
run destroy nosuch
printf 'create r hash:ip\nadd r 192.0.2.9\nadd r 192.0.2.10\n' >"$D/good"
run restore -file "$D/good"
run list r
printf 'create r2 hash:ip\nadd r2 192.0.2.9\nadd r2 bad\n' >"$D/bad"
run restore -file "$D/bad"
# the kernel kept r2 (created before the bad line), pkttables did not: atomic per file
"$BIN" ipset --socket "$D/box.ctl" list r2 >/dev/null 2>&1 && bad "restore: r2 half-applied" ||
	ok "a restore with a bad line left nothing behind"
ip netns exec "$NS" ipset destroy r2
# the kernel numbers sets in its own way after a destroy: compare the names, sorted
SORTED=1 run -n list
run flush
run destroy
run list
echo "$agree/$n commands agree"
[ $fails -eq 0 ]

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/run-ct-tools.sh - `pkttables ct` against conntrack-tools, the kernel as reference.
#
#   ptct$$ (a network namespace: its own, empty kernel conntrack table)
#     conntrack -I ... / -L / -G / -U / -D / -C / -E / -L expect      -> $D/k.NAME.{out,err,rc}
#   a pkttables box served at $D/box.ctl (pkttables sim --serve, or the unit test's harness)
#     pkttables ct --socket $D/box.ctl (the same words)              -> $D/p.NAME.{out,err,rc}
#
# The same entries are made on both sides with the same `-I` options: TCP established and
# assured, TCP SYN_SENT with a mark, UDP unreplied, UDP replied (assured), UDP in zone 7,
# ICMP echo, IPv6 TCP and UDP, ICMPv6 echo, a TCP connection whose reply is NAT-ed (-r -q; not
# NAT-ed for the NAT filters -n -g -j, which need the IPS_*_NAT_DONE bits on both sides), and
# an expectation on an FTP control connection (the kernel's is a real connection over lo with
# CT --helper ftp, pkttables' is made with -I --helper ftp on the same tuple, then `-I expect`
# on both). Then every command is run on both sides and their stdout, stderr and exit status
# compared line by line, after normalising only what must differ (see normalise() below):
#   - timeouts (the 3rd field of an entry, the 1st of an expectation): they count down from
#     creation, the two sides created their entries at different moments, and a simulated
#     box's clock stands still while it serves; they must agree within the seconds the run
#     took plus 2 (checked and reported), then both are replaced by T;
#   - use=: the kernel counts its own references (use=2 while it answers a -G or -U, the
#     reference of the request in flight), pkttables the table's; replaced by use=U;
#   - id=: the kernel's ids are hashes of addresses, pkttables' a counter; replaced by id=I;
#   - events: the kernel marks those a netlink client caused with "[USERSPACE] portid=N
#     progname=conntrack" (pkttables' come from a socket of its own, not from netlink ports);
#     that suffix is removed;
#   - -S: the kernel has a line per CPU with its own counts; the first line's field names
#     are compared, their values replaced by N;
#   - the master's source port of the expectation is the kernel's ephemeral one: used on both
#     sides, so it is not normalised;
#   - line order: both sides list in hash order; stdout is sorted before comparing.
# Prints every differing pair and "N/M lines agree". Exit 0 when all agree, 1 otherwise,
# 77 (skipped) when not root, or ip/conntrack/python3 or network namespaces are missing.
# PT_BIN names the pkttables binary. The box: `pkttables sim --serve` of a script that turns
# conntrack on (its clock stands still while it serves: its timeouts do not count down, which
# the 3 s allowance covers); PT_CT_BOX=harness uses test_cmd_ct --serve next to PT_BIN instead
# (a box whose clock follows real time).
# PT_CT_KEEP=1 keeps the outputs ($D) for reading.
cd "$(dirname "$0")/../.." || exit 2
BIN=${PT_BIN:-$PWD/build/pkttables}
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
SERVE=${PT_CT_SERVE:-$(dirname "$BIN")/tests/test_cmd_ct}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
T="timeout -k 2 20"

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, the kernel's conntrack table)"
for t in ip conntrack "$PY"; do
	command -v "$t" >/dev/null 2>&1 || skip "$t not installed (tools/install-deps.sh)"
done
[ -x "$BIN" ] || { echo "FAIL: $BIN missing"; exit 1; }

NS=ptct$$
D=$(mktemp -d /tmp/pt-ct-tools.XXXXXX)
SOCK=$D/box.ctl
BOX=""
cleanup() {
	[ -n "$BOX" ] && kill "$BOX" 2>/dev/null && wait "$BOX" 2>/dev/null
	ip netns pids "$NS" 2>/dev/null | xargs -r kill 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	if [ -n "$PT_CT_KEEP" ]; then echo "outputs kept in $D"; else rm -rf "$D"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
ip netns add "$NS" 2>/dev/null || skip "cannot create network namespaces"
ip -n "$NS" link set lo up
kern() { ip netns exec "$NS" "$@"; }
kern conntrack -L >/dev/null 2>&1 || skip "no conntrack in the namespace's kernel"
# timestamps on both sides (the kernel's per namespace, the box's `timestamp` setting)
TSTAMP=no
kern sysctl -qw net.netfilter.nf_conntrack_timestamp=1 2>/dev/null && TSTAMP=yes

# The box, with conntrack on.
if [ "${PT_CT_BOX:-sim}" = sim ] && "$BIN" sim --help 2>&1 | grep -q -- --serve; then
	printf 'box ct\nconntrack on\n' >"$D/box.sim"
	[ $TSTAMP = yes ] && echo 'conntrack set timestamp 1' >>"$D/box.sim"
	"$BIN" sim -q --serve "$SOCK" --serve-ready "$D/ready" "$D/box.sim" >"$D/box.log" 2>&1 &
	BOX=$!
	BOXKIND="pkttables sim --serve"
else
	SERVE_MODE=--serve
	[ $TSTAMP = yes ] && SERVE_MODE=--serve-tstamp
	"$SERVE" $SERVE_MODE "$SOCK" >"$D/box.log" 2>&1 &
	BOX=$!
	BOXKIND="test_cmd_ct --serve"
fi
i=0
while [ ! -S "$SOCK" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ -S "$SOCK" ] || { echo "FAIL: the box did not listen at $SOCK"; cat "$D/box.log"; exit 1; }
echo "box: $BOXKIND at $SOCK"

# both NAME WORDS...: the same command on both sides, outputs kept for the comparison.
CMDS=""
both() {
	name=$1
	shift
	$T ip netns exec "$NS" conntrack "$@" >"$D/k.$name.out" 2>"$D/k.$name.err"
	echo $? >"$D/k.$name.rc"
	$T "$BIN" ct --socket "$SOCK" "$@" >"$D/p.$name.out" 2>"$D/p.$name.err"
	echo $? >"$D/p.$name.rc"
	CMDS="$CMDS $name"
	printf '%s\n' "$*" >"$D/cmd.$name"
}
# both_sh NAME 'SHELL WORDS': the same shell line on both sides, $CT the side's conntrack
# (pipes: `$CT -L -o save | sed ... | $CT -R -`).
both_sh() {
	name=$1
	CT="ip netns exec $NS conntrack" $T sh -c "$2" >"$D/k.$name.out" 2>"$D/k.$name.err"
	echo $? >"$D/k.$name.rc"
	CT="$BIN ct --socket $SOCK" $T sh -c "$2" >"$D/p.$name.out" 2>"$D/p.$name.err"
	echo $? >"$D/p.$name.rc"
	CMDS="$CMDS $name"
	printf '%s\n' "$2" >"$D/cmd.$name"
}

# ---- the entries -------------------------------------------------------------------------
START=$(date +%s)
both i-tcp -I -p tcp -s 10.0.0.2 -d 192.0.2.1 --sport 1234 --dport 80 --state ESTABLISHED \
	-t 300 -u ASSURED,SEEN_REPLY
both i-tcp-mark -I -p tcp -s 10.0.0.2 -d 192.0.2.1 --sport 1235 --dport 443 --state SYN_SENT \
	-t 120 -m 42
both i-udp -I -p udp -s 10.0.0.2 -d 192.0.2.1 --sport 5000 --dport 53 -t 300
both i-udp-replied -I -p udp -s 10.0.0.3 -d 192.0.2.1 --sport 5001 --dport 123 -t 120 \
	-u SEEN_REPLY,ASSURED
both i-udp-zone -I -p udp -s 10.0.0.4 -d 192.0.2.1 --sport 5002 --dport 53 -t 300 -w 7
both i-icmp -I -p icmp -s 10.0.0.2 -d 192.0.2.1 --icmp-type 8 --icmp-code 0 --icmp-id 77 -t 300
both i-tcp6 -I -p tcp -s 2001:db8::2 -d 2001:db8::1 --sport 40000 --dport 22 \
	--state ESTABLISHED -t 200 -u SEEN_REPLY,ASSURED
both i-udp6 -I -p udp -s 2001:db8::2 -d 2001:db8::53 --sport 5353 --dport 53 -t 300
both i-icmp6 -I -p icmpv6 -s 2001:db8::2 -d 2001:db8::1 --icmpv6-type 128 --icmpv6-code 0 \
	--icmpv6-id 9 -t 300
both i-nat -I -p tcp -s 10.0.0.5 -d 198.51.100.7 --sport 3333 --dport 443 -r 198.51.100.7 \
	-q 203.0.113.1 --reply-port-src 443 --reply-port-dst 61000 --state ESTABLISHED -t 300 \
	-u SEEN_REPLY
both i-exists -I -p udp -s 10.0.0.2 -d 192.0.2.1 --sport 5000 --dport 53 -t 300
# NAT on create: the box binds the entry (its reply tuple, the IPS_*_NAT bits, the NAT layer's
# by-source index), the kernel sets it up as ctnetlink does (nf_nat_setup_info); one
# translation, both, a port, from the reply alone, IPv6 with [ADDR]:PORT. No two of them
# share a translated tuple: a clash makes each side pick another port, and the kernel's pick
# is its own (run-ctl-nat-create.sh checks the box's).
both i-snat -I -s 10.0.5.1 -d 192.0.2.9 --src-nat 203.0.113.5 -p tcp --sport 10 --dport 20 \
	--state LISTEN -u SEEN_REPLY -t 300
both i-dnat -I -s 10.0.5.2 -d 192.0.2.9 --dst-nat 10.0.6.3:80 -p tcp --sport 11 --dport 20 \
	--state ESTABLISHED -t 300
both i-snat-dnat -I -s 10.0.5.3 -d 192.0.2.9 --src-nat 203.0.113.5:1000 --dst-nat 10.0.6.4:81 \
	-p udp --sport 12 --dport 20 -t 300
both i-snat-reply -I -r 192.0.2.9 -q 10.0.5.4 --src-nat 203.0.113.6 -p udp --reply-port-src 20 \
	--reply-port-dst 13 -t 300
both i-snat6 -I -s 2001:db8::5 -d 2001:db8::9 --src-nat [2001:db8::99]:99 -p udp --sport 10 \
	--dport 20 -t 300
both i-dnat6 -I -s 2001:db8::6 -d 2001:db8::9 --dst-nat 2001:db8::98 -p tcp --sport 10 \
	--dport 20 --state ESTABLISHED -t 300
both i-nat-exists -I -s 10.0.5.1 -d 192.0.2.9 --src-nat 203.0.113.7 -p tcp --sport 10 \
	--dport 20 --state LISTEN -t 300
both i-nat-family -I -s 10.0.5.9 -d 192.0.2.9 --dst-nat 2001:db8::1 -p udp --sport 1 \
	--dport 2 -t 30
both i-nat6-noport -I -s 2001:db8::7 -d 2001:db8::9 --dst-nat [2001:db8::3] -p udp --sport 1 \
	--dport 2 -t 30

# conntrack 1.4.7's -I forms: from the reply alone, LISTEN (the kernel's SYN_SENT2), a protocol
# by its /etc/protocols name, a stray leading word (its own test suite passes one)
both i-reply -I -r 10.0.2.2 -q 10.0.2.1 -p udp --reply-port-src 53 --reply-port-dst 999 -t 300
both i-listen -I -p tcp -s 10.0.1.1 -d 10.0.1.2 --sport 10 --dport 20 --state LISTEN -t 50 -w 9
both i-igmp -I -t 300 -s 0.0.0.0 -d 224.0.0.22 -p igmp
both i-stray conntrack -I -p udp -s 10.0.4.1 -d 10.0.4.2 --sport 7 --dport 8 -t 300 -w 9
both i-bad-cidr -I -p udp -s 10.0.4.0/24 -d 10.0.4.2 --sport 7 --dport 8 -t 300

# ---- listing and reading -----------------------------------------------------------------
both list -L
both list-ext -L -o extended
both list-id -L -o id
both list-tcp -L -p tcp
both list-v6 -L -f ipv6
both list-mark -L -m 42
both list-zone -L -w 7
both list-src -L -s 10.0.0.2
both list-dport -L -p udp --dport 53
both list-reply -L -r 198.51.100.7 -q 203.0.113.1
both list-status -L -u ASSURED
both list-state -L -p tcp --state SYN_SENT
# NAT filters: an entry made by -I with a reply that differs (i-nat) is not NAT-ed on either side
# (the kernel sets no IPS_*_NAT bits for it); those made with --src-nat/--dst-nat are
both list-snat -L -n
both list-dnat -L -g
both list-anynat -L -j
both list-snat-ip -L -n 203.0.113.1
both list-snat-port -L --src-nat 203.0.113.1:61000
both list-snat-ip5 -L -n 203.0.113.5
both list-snat-port5 -L --src-nat 203.0.113.5:1000
both list-snat-port5x -L --src-nat 203.0.113.5:1001
both list-dnat-ip -L --dst-nat 10.0.6.3
both list-dnat-port -L -g 10.0.6.3:80
both list-anynat-port -L -j 10.0.6.4:81
both list-snat6 -L --src-nat [2001:db8::99]:99
both list-dnat6 -L --dst-nat 2001:db8::98
both list-dnat6-port -L --dst-nat [2001:db8::98]:20
both list-nat-save -L -o save -s 10.0.5.0/24
both list-nat-save6 -L -o save -f ipv6
both list-nat-xml -L -o xml -d 192.0.2.9
both bad-nat -L -n -j
both bad-nat-port -L -n 1.2.3.4:x
# -z: the entries and their counters (none: no accounting on either side), then zeroed
both list-zero -L -z
both bad-zero -L -z -p tcp
# output types, masks, protocol names
both list-save -L -o save
both list-xml -L -o xml
both list-xml-id -L -o xml,id -p tcp
both list-save-ext -L -o save,extended
both list-cidr -L -s 10.0.0.0/24
both list-cidr-dst -L -s 10.0.0.0/8 -d 192.0.2.1/32
both list-mask -L -s 10.0.0.0 --mask-src 255.255.255.0 -d 192.0.2.0 --mask-dst 255.255.255.0
both list-cidr6 -L -s 2001:db8::/64
both list-mask-none -L -s 10.9.0.0/16
both bad-mask -L --mask-src 255.0.0.0
both bad-mask-family -L -s 10.0.0.0 --mask-src ffff::
both bad-netmask -L -s 10.0.0.0/33
both bad-cidr-reply -L -r 10.0.0.0/8
both list-igmp -L -p igmp
both list-kts -L -o ktimestamp
both list-ts -L -o timestamp
both list-labels -L -o labels
both list-userspace -L -o userspace
both list-userspace-ext -L -o userspace,extended,id -p tcp
both bad-save-ext -L -o save,xml
both list-kts-ext -L -o ktimestamp,extended,id -p udp
both list-xml-kts -L -o xml,ktimestamp -p tcp
both list-listen -L -p tcp --state LISTEN
both list-stray conntrack -L -p tcp -w 9
both bad-table -C foo
both bad-nat6-port -L --dst-nat [2001:db8::1]:
both get -G -p udp -s 10.0.0.2 -d 192.0.2.1 --sport 5000 --dport 53
both get-v6 -G -p tcp -s 2001:db8::2 -d 2001:db8::1 --sport 40000 --dport 22
both get-none -G -p udp -s 10.0.0.2 -d 192.0.2.1 --sport 5999 --dport 53
both get-nat-reply -G -p tcp -r 192.0.2.9 -q 203.0.113.5 --reply-port-src 20 --reply-port-dst 10
both get-nat-orig -G -p udp -s 10.0.5.3 -d 192.0.2.9 --sport 12 --dport 20 -o save
both count -C
both stats -S

# ---- expectations: an FTP master with its helper on each side ----------------------------
# The kernel's: a real FTP control connection over lo with CT --helper ftp, whose PORT
# command the kernel's helper turns into an expectation (the helper reads a command only
# at the start of a line it has seen begin, hence the USER line first). conntrack 1.4.7's own
# `-I expect` sends a tuple without its protocol (the kernel lists proto=<garbage>) and its
# `-D expect`/`-G expect` demand reply options, then fail: those are not compared.
# pkttables': the same master tuple made with -I --helper ftp, the expectation with -I expect.
EXPECT=no
if command -v iptables >/dev/null 2>&1 &&
	kern iptables -t raw -A OUTPUT -p tcp --dport 21 -j CT --helper ftp 2>/dev/null; then
	cat >"$D/ftp.py" <<'EOF'
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 21)); s.listen(1)
c = socket.create_connection(("127.0.0.1", 21)); a, _ = s.accept()
def say(w, r, line): w.sendall(line); r.recv(100)
say(a, c, b"220 ready\r\n"); say(c, a, b"USER ftp\r\n"); say(a, c, b"230 in\r\n")
say(c, a, b"PORT 127,0,0,1,19,137\r\n"); say(a, c, b"200 ok\r\n")
print(c.getsockname()[1], flush=True)
time.sleep(float(sys.argv[1]))
EOF
	kern $T "$PY" "$D/ftp.py" 15 >"$D/ftp.port" 2>"$D/ftp.err" &
	FTP=$!
	i=0
	while [ ! -s "$D/ftp.port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	CPORT=$(cat "$D/ftp.port")
	if [ -n "$CPORT" ]; then
		EXPECT=yes
		"$BIN" ct --socket "$SOCK" -I -p tcp -s 127.0.0.1 -d 127.0.0.1 --sport "$CPORT" \
			--dport 21 --state ESTABLISHED -t 431999 -u SEEN_REPLY,ASSURED --helper ftp \
			2>"$D/master.err" || { echo "FAIL: pkttables ct -I --helper ftp"; cat "$D/master.err"; }
		"$BIN" ct --socket "$SOCK" -I expect -p tcp -s 127.0.0.1 -d 127.0.0.1 --sport "$CPORT" \
			--dport 21 --tuple-src 127.0.0.1 --tuple-dst 127.0.0.1 --tuple-port-src 0 \
			--tuple-port-dst 5001 --mask-src 255.255.255.255 --mask-dst 255.255.255.255 \
			--mask-port-src 0 --mask-port-dst 65535 -t 300 2>"$D/exp.err" ||
			{ echo "FAIL: pkttables ct -I expect"; cat "$D/exp.err"; }
	fi
fi
if [ $EXPECT = yes ]; then
	both exp-list -L expect
	both exp-list-ext -L expect -o extended
	both exp-count -C expect
	both master -L -p tcp --dport 21
	both exp-flush -F expect
	both exp-list-empty -L expect
	both exp-count-empty -C expect
	# the masters are not part of the entry comparison that follows (the connection closed
	# first: its last packets would make a new entry in the kernel's table after the delete)
	ip netns pids "$NS" | xargs -r kill 2>/dev/null # ftp.py, the only process in there now
	wait "$FTP" 2>/dev/null
	sleep 0.2
	kern conntrack -D -p tcp --dport 21 >/dev/null 2>&1
	"$BIN" ct --socket "$SOCK" -D -p tcp --dport 21 >/dev/null 2>&1
else
	echo "note: no FTP helper in this kernel (iptables CT --helper ftp): expectations not compared"
fi

# ---- changing ----------------------------------------------------------------------------
# events: a listener on each side while a UDP entry is made, updated and deleted
kern $T conntrack -E -p udp >"$D/k.events.out" 2>"$D/k.events.err" &
KEV=$!
$T "$BIN" ct --socket "$SOCK" -E -p udp >"$D/p.events.out" 2>"$D/p.events.err" &
PEV=$!
sleep 1 # both subscribed (neither says when it is)
both ev-create -I -p udp -s 10.0.0.9 -d 192.0.2.1 --sport 6000 --dport 53 -t 30
both ev-update -U -p udp -s 10.0.0.9 -d 192.0.2.1 --sport 6000 --dport 53 -m 3
both ev-delete -D -p udp -s 10.0.0.9 -d 192.0.2.1 --sport 6000 --dport 53
both ev-create-nat -I -p udp -s 10.0.0.10 -d 192.0.2.1 --sport 6001 --dport 53 -t 30 \
	--src-nat 203.0.113.8:6100
both ev-delete-nat -D -p udp -r 192.0.2.1 -q 203.0.113.8 --reply-port-src 53 \
	--reply-port-dst 6100
sleep 1 # the events printed
# conntrack -E ends on SIGINT; its parent here is `ip netns exec` under timeout
ip netns pids "$NS" | while read -r p; do
	[ "$(cat /proc/$p/comm 2>/dev/null)" = conntrack ] && kill -INT "$p"
done
kill -TERM $PEV 2>/dev/null
wait $KEV
echo $? >"$D/k.events.rc"
wait $PEV
echo $? >"$D/p.events.rc"
CMDS="$CMDS events"
echo "-E -p udp (during ev-*)" >"$D/cmd.events"

both update -U -p tcp -s 10.0.0.2 -d 192.0.2.1 --sport 1234 --dport 80 -m 0x10/0x3
# an update that changes nothing is not made nor counted; -u adds bits
both update-same -U -p tcp --sport 1235 --dport 443 -m 42
both update-status -U -p udp -s 10.0.0.3 -u ASSURED
both update-fixed -U -p tcp -s 10.0.0.2 --sport 1234 --dport 80 -u FIXED_TIMEOUT
both list-fixed -L -o save -p tcp --sport 1234
# -R: lines of commands from a file or a pipe; a zone copied with -o save | sed | -R -
printf '%s\n' '-I -p udp -s 10.0.9.1 -d 10.0.9.2 --sport 1 --dport 2 -t 30 -w 5' '' '# c' \
	'-I -p tcp -s 10.0.9.1 -d 10.0.9.2 --sport 3 --dport 4 --state ESTABLISHED -t 30 -w 5' \
	'-I -p udp -s 10.0.9.3 -d 10.0.9.2 --sport 1 --dport 2 -t 30' \
	'-D -w 123' '-U -p udp -s 10.0.9.3 -m 3' >"$D/load.ct"
both load -R "$D/load.ct"
# the same lines again: each -I fails (exit 1); conntrack 1.4.7 says so for some failed lines
# and not others (its last errno), so only the status is compared
both_sh load-again '$CT -R '"$D/load.ct"' 2>/dev/null'
both_sh load-stdin '$CT -R - <'"$D/load.ct"' 2>/dev/null'
both_sh load-copy '$CT -L -w 5 -o save | sed "s/-w 5/-w 6/" | $CT -R -'
both list-copied -L -w 6
both_sh load-move '$CT -D -w 6 -o save | sed "s/-w 6/-w 8/; s/-D /-I /" | $CT -R -'
both list-moved -L -o save -w 8
# the NAT-ed entries saved, deleted and loaded back: the same table (the save lines carry -n/-g,
# which -R reads as --src-nat/--dst-nat); timeouts blanked, they tick between the two lists.
# Not the entry with both translations (10.0.5.3): its line has neither -r nor -q, so conntrack
# makes its reply the original's inverse and drops --reply-port-src/dst, and the translated
# ports do not come back (the kernel's table differs after the round trip; so does the box's)
both nat-both-delete -D -s 10.0.5.3
both_sh nat-roundtrip 'f=$(mktemp); $CT -L -o save -s 10.0.5.0/24 | sed "s/-t [0-9]* //" | sort >$f.a
$CT -L -o save -s 10.0.5.0/24 >$f; $CT -D -s 10.0.5.0/24 >/dev/null
$CT -R $f; echo "loaded: $?"; $CT -L -o save -s 10.0.5.0/24 | sed "s/-t [0-9]* //" | sort >$f.b
cat $f.b; cmp -s $f.a $f.b && echo "the same table"; rm -f $f $f.a $f.b'
both_sh load-refused 'echo -L | $CT -R -'
both_sh load-bad 'echo "-I -x" | $CT -R -'
both load-nofile -R "$D/nonexistent"
both_sh load-empty '$CT -R - </dev/null'
both update-none -U -p sctp -m 1
both list-after-update -L -m 0x10
both delete -D -p udp -s 10.0.0.4
both delete-none -D -p tcp -s 10.9.9.9
both count-after -C
both bad-option -L --bogus
both bad-proto -L -p foo
both bad-family -L -s 10.0.0.2 -f ipv6
both bad-combo -L -G
both bad-port -L --sport 80
both bad-timeout -I -p udp -s 10.0.0.2 -d 192.0.2.1 --sport 1 --dport 2
both bad-state -I -p tcp -s 10.0.0.2 -d 192.0.2.1 --sport 1 --dport 2 -t 10
both flush -F
both count-flushed -C
both list-flushed -L

# ---- comparison --------------------------------------------------------------------------
SLACK=$(($(date +%s) - START + 2))
"$PY" - "$D" "$SLACK" $CMDS <<'EOF'
import difflib, re, sys

d, slack, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
ENTRY = re.compile(r"^((?:\s*\[\w+\] )?(?:ipv[46] +\d+ )?[a-z0-9]+ +\d+ )(\d+)( .*)$")
EXP = re.compile(r"^(\d+)( proto=\d+ .*)$")
worst = 0


def normalise(name, stream, text):
    """What must differ between the kernel and pkttables, and nothing else (header above)."""
    out = []
    for line in text.splitlines():
        if name == "stats" and stream == "out":
            if not line.startswith("cpu=0 "):
                continue  # the kernel's other CPUs
            line = re.sub(r"=\d+", "=N", line)
        line = re.sub(r" \[USERSPACE\] portid=\d+( progname=\S+)?$", "", line)
        line = re.sub(r"\buse=\d+", "use=U", line)
        line = re.sub(r"<use>\d+</use>", "<use>U</use>", line)
        # timestamps: the box's clock is not the kernel's; the shape is compared
        line = re.sub(r"\bdelta-time=\d+", "delta-time=D", line)
        line = re.sub(r"\[(start|stop)=[^]]*\]", r"[\1=DATE]", line)
        line = re.sub(r"<(start|stop|deltatime)>\d+</", r"<\1>N</", line)
        line = re.sub(r"<id>\d+</id>", "<id>I</id>", line)
        xm = re.search(r"<timeout>(\d+)</timeout>", line) or re.match(r"^-[ADU] -t (\d+) ", line)
        if xm:
            out.append((line[: xm.start(1)] + "T" + line[xm.end(1) :], int(xm.group(1))))
            continue
        line = re.sub(r"\bid=\d+$", "id=I", line)
        m = ENTRY.match(line) or EXP.match(line)
        if m and m.re is ENTRY:
            out.append((m.group(1) + "T" + m.group(3), int(m.group(2))))
        elif m:
            out.append(("T" + m.group(2), int(m.group(1))))
        else:
            out.append((line, None))
    if stream == "out" and name != "events":
        out.sort()
    return out


agree = total = 0
for n in names:
    cmd = open(f"{d}/cmd.{n}").read().strip()
    for stream in ("out", "err", "rc"):
        k = normalise(n, stream, open(f"{d}/k.{n}.{stream}").read())
        p = normalise(n, stream, open(f"{d}/p.{n}.{stream}").read())
        # pair the lines up (a missing or extra line must not shift all that follow)
        sm = difflib.SequenceMatcher(None, [l for l, _ in k], [l for l, _ in p], autojunk=False)
        for op, i1, i2, j1, j2 in sm.get_opcodes():
            if op == "equal":
                for (kl, kt), (pl, pt) in zip(k[i1:i2], p[j1:j2]):
                    total += 1
                    if kt is not None and pt is not None:
                        worst = max(worst, abs(kt - pt))
                        if abs(kt - pt) > slack:
                            print(f"DIFF {n} ({cmd}) {stream}: timeouts {kt} and {pt}\n  {kl}")
                            continue
                    agree += 1
                continue
            for i in range(max(i2 - i1, j2 - j1)):
                total += 1
                kl = k[i1 + i][0] if i1 + i < i2 else "(no line)"
                pl = p[j1 + i][0] if j1 + i < j2 else "(no line)"
                print(f"DIFF {n} ({cmd}) {stream}:\n  conntrack: {kl}\n  pkttables: {pl}")
print(f"timeouts: the largest difference was {worst} s ({slack} allowed)")
print(f"{agree}/{total} lines agree with conntrack-tools (kernel in a namespace)")
sys.exit(0 if agree == total else 1)
EOF

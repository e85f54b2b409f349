#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/gen/run-gen-replay.sh - captures written by `pkttables gen` replay through pkttables with
# the verdicts their flows call for, and the same command writes the same file twice.
#   1. 500 UDP flows, 1000 datagrams: a rule accepts source port 10000 (flows 0..249), the
#      FORWARD policy drops the rest: exactly 500 forwarded, 500 dropped.
#   2. 200 TCP flows with the handshake through a strict stateful ruleset (new TCP must be a
#      SYN): every packet forwarded, 200 ESTABLISHED entries.
#   3. IPv6, fragmented 1518-byte frames: reassembled by the box, a --dport rule accepts them.
#   4. seeded: two runs with one seed give identical files; another seed does not.
cd "$(dirname "$0")/../.." || exit 2
BIN=${PT_BIN:-build/pkttables}
D=$(mktemp -d /tmp/pt-genreplay.XXXXXX)
trap 'rm -rf "$D"' EXIT
fails=0
ok() { echo "PASS: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# count VERDICTS_FILE WORD: lines whose second field is WORD
count() { awk -v w="$2" '$2 == w { n++ } END { print n + 0 }' "$1"; }

cat >"$D/udp.rules" <<'R'
*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A FORWARD -p udp -m udp --sport 10000 -j ACCEPT
COMMIT
R
$BIN gen -o "$D/udp.pcap" --src 10.0.0.1 --dst 203.0.113.1 --flows 500 -n 1000 >/dev/null ||
	bad "gen udp"
$BIN replay --rules "$D/udp.rules" "$D/udp.pcap" --verdicts "$D/udp.v" --quiet >/dev/null
f=$(count "$D/udp.v" forwarded) d=$(count "$D/udp.v" dropped)
[ "$f" = 500 ] && [ "$d" = 500 ] && ok "udp: 500 forwarded, 500 dropped" ||
	bad "udp: $f forwarded, $d dropped (want 500, 500)"
# the same packets as pcapng: the same verdicts, packet for packet
$BIN gen -o "$D/udp.pcapng" --src 10.0.0.1 --dst 203.0.113.1 --flows 500 -n 1000 >/dev/null ||
	bad "gen udp pcapng"
$BIN replay --rules "$D/udp.rules" "$D/udp.pcapng" --verdicts "$D/udpng.v" --quiet >/dev/null
cmp -s "$D/udp.v" "$D/udpng.v" && [ "$(head -c 4 "$D/udp.pcapng" | od -An -tx1 | tr -d ' ')" = 0a0d0d0a ] &&
	ok "pcapng: the same 1000 verdicts as pcap" || bad "pcapng: verdicts differ from pcap's"

cat >"$D/tcp.rules" <<'R'
*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A FORWARD -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A FORWARD -m conntrack --ctstate INVALID -j DROP
-A FORWARD -p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -m conntrack --ctstate NEW -j ACCEPT
COMMIT
R
$BIN gen -o "$D/tcp.pcap" --proto tcp-handshake --src 10.0.0.1 --dst 203.0.113.1 \
	--flows 200 -n 1000 --size 200 >/dev/null || bad "gen tcp"
$BIN replay --rules "$D/tcp.rules" "$D/tcp.pcap" --verdicts "$D/tcp.v" >"$D/tcp.out"
f=$(count "$D/tcp.v" forwarded)
est=$(grep -c 'ESTABLISHED' "$D/tcp.out")
[ "$f" = 1000 ] && ok "tcp handshake: 1000 of 1000 forwarded" ||
	bad "tcp handshake: $f of 1000 forwarded"
[ "$est" -ge 200 ] && ok "tcp handshake: 200 established entries" ||
	bad "tcp handshake: $est lines with ESTABLISHED (want 200)"

cat >"$D/frag6.rules" <<'R'
*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A FORWARD -p udp -m udp --dport 9 -m conntrack --ctstate NEW,ESTABLISHED -j ACCEPT
COMMIT
R
$BIN gen -o "$D/frag6.pcap" -6 --src6 fd00::1 --dst6 2001:db8:99::1 --size 1518 --frag 504 \
	--flows 4 -n 20 >/dev/null || bad "gen frag6"
$BIN replay --rules6 "$D/frag6.rules" "$D/frag6.pcap" --verdicts "$D/frag6.v" --quiet >/dev/null
f=$(count "$D/frag6.v" forwarded) n=$(grep -c "^[0-9]" "$D/frag6.v")
[ "$n" = 60 ] && [ "$f" = 60 ] && [ "$(count "$D/frag6.v" dropped)" = 0 ] &&
	ok "ipv6 fragments: 60 frames of 20 datagrams, none dropped" ||
	bad "ipv6 fragments: $n frames, $f forwarded, $(count "$D/frag6.v" dropped) dropped"

$BIN gen -o "$D/a.pcap" --flows 100 --dist zipf --size imix --family 46 -n 500 --seed 7 >/dev/null
$BIN gen -o "$D/b.pcap" --flows 100 --dist zipf --size imix --family 46 -n 500 --seed 7 >/dev/null
$BIN gen -o "$D/c.pcap" --flows 100 --dist zipf --size imix --family 46 -n 500 --seed 8 >/dev/null
cmp -s "$D/a.pcap" "$D/b.pcap" && ok "same seed, same bytes" || bad "same seed, other bytes"
cmp -s "$D/a.pcap" "$D/c.pcap" && bad "another seed, same bytes" || ok "another seed, other bytes"

# bad input: a clear message and a non-zero exit, no file written
$BIN gen -o "$D/x.pcap" --size 40 2>"$D/err" && bad "size 40 accepted"
grep -q "below the headers" "$D/err" && [ ! -e "$D/x.pcap" ] && ok "size below the headers refused" ||
	bad "size 40: $(cat "$D/err")"
$BIN gen -o "$D/x.pcap" --rate 0pps 2>"$D/err" && bad "rate 0 accepted"
grep -q "rate" "$D/err" && ok "rate 0 refused" || bad "rate 0: $(cat "$D/err")"
$BIN gen -i pt-no-such-if0 -n 1 2>"$D/err" && bad "unknown interface accepted"
grep -q "no such interface" "$D/err" && ok "unknown interface refused" ||
	bad "unknown interface: $(cat "$D/err")"

[ $fails -eq 0 ] || exit 1

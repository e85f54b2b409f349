# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/lib.sh - what the live-mode tests share; sourced (not run) from the repository root.
#
#   client ${P}c$$            router ${P}r$$                       server ${P}s$$
#   eth0 192.0.2.2/24  ---  ${P}l$$ (L)      ${P}w$$ (W)  ---  eth0 198.51.100.2/24
#        2001:db8:1::2/64   (192.0.2.1, 2001:db8:1::1 / 198.51.100.1, 2001:db8:2::1)  2001:db8:2::2/64
#
# netns_init PREFIX TAG WHY TOOL...   checks root and the tools (sysctl always; exit 77 =
#                                     skipped, saying why), creates the namespaces and veth
#                                     pairs, removes them on exit
# nsysctl NS KEY=VALUE...             sets sysctls in namespace NS; skips the test when it cannot
#                                     (a read-only /proc/sys, a kernel without the key)
# netns_quiet NS DEV...               the namespace's own stack sends nothing by itself on DEVs:
#                                     no DAD, no router solicitations
# netns_end_hosts                     client and server addresses and default routes via the
#                                     router; their stacks quiet (netns_quiet)
# netns_live_router                   the router namespace's own stack out of pkttables' way (no
#                                     forwarding, IPv6, ARP on L and W; offloads off on all four
#                                     veth ends; docs/live.md), then netns_end_hosts
# netns_stop_live                     SIGTERM to $PT, up to 3 s to stop; 0 when it exited with 0
# netns_write_py                      $D/server.py DIR PORT... (HTTP on 8080 serving DIR, TCP
#                                     listeners on the PORTs, UDP echo on 7777) and
#                                     $D/client.py udp | connect PORT
# Variables: BIN PY T C R S L W D, PT and DOG (pids the cleanup kills), fails.

BIN=${PT_BIN:-$PWD/build/pkttables}
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
T="timeout -k 2"
PT=""
DOG=""
fails=0

skip() { echo "SKIP: $*"; exit 77; }
ok() { echo "PASS: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
inc() { ip netns exec $C "$@"; }
ins() { ip netns exec $S "$@"; }
inr() { ip netns exec $R "$@"; }

cleanup() {
	[ -n "$PT" ] && kill "$PT" 2>/dev/null
	[ -n "$DOG" ] && kill "$DOG" 2>/dev/null
	for n in $C $R $S; do ip netns pids "$n" 2>/dev/null | xargs -r kill 2>/dev/null; done
	for n in $C $R $S; do ip netns del "$n" 2>/dev/null; done
	[ -n "$D" ] && rm -rf "$D"
}

netns_init() {
	_p=$1 _tag=$2 _why=$3
	shift 3
	[ "$(id -u)" -eq 0 ] || skip "needs root ($_why)"
	[ -x "$BIN" ] || { echo "FAIL: $BIN missing"; exit 1; }
	for t in "$@" sysctl "$PY"; do
		command -v "$t" >/dev/null 2>&1 || skip "$t not installed (tools/install-deps.sh)"
	done
	C=${_p}c$$ R=${_p}r$$ S=${_p}s$$ L=${_p}l$$ W=${_p}w$$
	D=$(mktemp -d /tmp/pt-$_tag.XXXXXX)
	trap cleanup EXIT
	trap 'exit 1' INT TERM HUP
	ip netns add $C 2>/dev/null || skip "cannot create network namespaces"
	ip netns add $R && ip netns add $S || exit 1
	# PT_LIVE_QUEUES=N: veths with N queues each (AF_XDP: a socket per queue, a worker each)
	_q=""
	[ -n "${PT_LIVE_QUEUES:-}" ] && _q="numrxqueues $PT_LIVE_QUEUES numtxqueues $PT_LIVE_QUEUES"
	# shellcheck disable=SC2086
	ip link add $L netns $R $_q type veth peer name eth0 netns $C $_q || skip "cannot create veth pairs"
	# shellcheck disable=SC2086
	ip link add $W netns $R $_q type veth peer name eth0 netns $S $_q || exit 1
}

nsysctl() {
	_ns=$1
	shift
	ip netns exec "$_ns" sysctl -qw "$@" >"$D/sysctl.err" 2>&1 ||
		skip "cannot set sysctl $* in a network namespace: $(head -n 1 "$D/sysctl.err")"
}

# A device's own setting counts, not only all/default (DAD runs unless both all's and the
# device's accept_dad are 0; router_solicitations is per device): the veths exist already.
netns_quiet() {
	_ns=$1
	shift
	nsysctl "$_ns" net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 \
		net.ipv6.conf.default.router_solicitations=0
	for _d in "$@"; do
		nsysctl "$_ns" net.ipv6.conf.$_d.accept_dad=0 net.ipv6.conf.$_d.router_solicitations=0
	done
}

netns_end_hosts() {
	for n in $C $S; do
		netns_quiet $n eth0
		ip -n $n link set lo up
		ip -n $n link set eth0 up
	done
	ip -n $C addr add 192.0.2.2/24 dev eth0
	ip -n $C addr add 2001:db8:1::2/64 dev eth0 nodad
	ip -n $C route add default via 192.0.2.1
	ip -n $C -6 route add default via 2001:db8:1::1
	ip -n $S addr add 198.51.100.2/24 dev eth0
	ip -n $S addr add 2001:db8:2::2/64 dev eth0 nodad
	ip -n $S route add default via 198.51.100.1
	ip -n $S -6 route add default via 2001:db8:2::1
}

netns_live_router() {
	nsysctl $R net.ipv4.ip_forward=0 net.ipv6.conf.all.forwarding=0
	for _d in $L $W; do
		nsysctl $R net.ipv6.conf.$_d.disable_ipv6=1
		ip -n $R link set $_d arp off
		ip netns exec $R ethtool -K $_d rx off tx off gso off tso off gro off >/dev/null 2>&1
		ip -n $R link set $_d up
	done
	ip -n $R link set lo up
	for _n in $C $S; do
		ip netns exec $_n ethtool -K eth0 rx off tx off gso off tso off gro off >/dev/null 2>&1
	done
	netns_end_hosts
}

netns_stop_live() {
	kill -TERM "$PT"
	_i=0
	while kill -0 "$PT" 2>/dev/null && [ $_i -lt 30 ]; do sleep 0.1; _i=$((_i + 1)); done
	kill -0 "$PT" 2>/dev/null && return 1
	wait "$PT"
	_rc=$?
	PT=""
	return $_rc
}

netns_write_py() {
	cat >"$D/server.py" <<'PYEOF'
import http.server, socket, socketserver, sys, threading, os
os.chdir(sys.argv[1])
class Q(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a): pass
class TS(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True
threading.Thread(target=TS(("0.0.0.0", 8080), Q).serve_forever, daemon=True).start()
def acc(l):
    while True:
        c, _ = l.accept(); c.close()
for port in sys.argv[2:]:
    l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    l.bind(("0.0.0.0", int(port))); l.listen(8)
    threading.Thread(target=acc, args=(l,), daemon=True).start()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("0.0.0.0", 7777))
print("ready", flush=True)
while True:
    d, a = u.recvfrom(2048); u.sendto(d[::-1], a)
PYEOF
	cat >"$D/client.py" <<'PYEOF'
import errno, socket, sys
what = sys.argv[1]
if what == "udp":
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(2)
    for i in range(5):
        m = b"pkttables udp %d" % i
        s.sendto(m, ("198.51.100.2", 7777))
        d, a = s.recvfrom(2048)
        assert d == m[::-1] and a == ("198.51.100.2", 7777), (d, a)
    print("udp ok")
elif what == "connect":
    s = socket.socket(); s.settimeout(1.5)
    try:
        s.connect(("198.51.100.2", int(sys.argv[2]))); print("connected")
    except socket.timeout:
        print("timeout")
    except OSError as e:
        print("refused" if e.errno == errno.ECONNREFUSED else "error %s" % e)
PYEOF
}

# Start `pkttables run --config CONF` in the router namespace $R (stderr to $D/pt.log), with a
# line `io $PT_LIVE_IO` put first when that is set (a test run through AF_XDP) and a line
# `workers ${PT_LIVE_WORKERS:-1}`, with a
# 90 s watchdog (not under timeout(1): that would take SIGHUP for itself); wait up to 5 s for
# "forwarding on" and the end hosts' server ($D/server.log "ready"). Sets PT and DOG; exits the
# test when pkttables does not start.
netns_start_live() {
	_conf=$1
	# the same test through another I/O mode, or with other data-path workers (one unless
	# PT_LIVE_WORKERS says: the default, one per CPU, is not what the test was written for)
	{
		[ -n "${PT_LIVE_IO:-}" ] && echo "io $PT_LIVE_IO"
		echo "workers ${PT_LIVE_WORKERS:-1}"
		cat "$1"
	} >"$1.io"
	_conf=$1.io
	ip netns exec $R "$BIN" run --config "$_conf" 2>"$D/pt.log" &
	PT=$!
	(sleep 90; kill -KILL $PT 2>/dev/null) >/dev/null 2>&1 &
	DOG=$!
	for i in $(seq 1 50); do
		grep -q "forwarding on" "$D/pt.log" 2>/dev/null && grep -q ready "$D/server.log" && break
		sleep 0.1
	done
	if ! grep -q "forwarding on" "$D/pt.log" && grep -q "AF_XDP socket" "$D/pt.log"; then
		skip "io $PT_LIVE_IO: this kernel or driver refuses AF_XDP: $(cat "$D/pt.log")"
	fi
	grep -q "forwarding on" "$D/pt.log" ||
		{ cat "$D/pt.log"; echo "FAIL: pkttables did not start"; exit 1; }
}

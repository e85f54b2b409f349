# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/sync-lib.sh - what the sync tests (run-sync-*.sh) share; sourced (not run) from
# the repository root, after tests/netns/lib.sh (BIN, PY, T, skip/ok/bad, nsysctl).
#
# sync_init TAG WHY TOOL...        root and the tools (exit 77 = skipped, saying why); $D, a
#                                  temporary directory; on exit everything below is undone
# sync_ns NS...                    new namespaces (lo up), deleted on exit
# sync_bg PID...                   processes killed (SIGKILL) on exit
# sync_link NS1 DEV1 ADDR1 NS2 DEV2 ADDR2
#                                  a veth pair DEV1 (in NS1) -- DEV2 (in NS2), up, with the
#                                  addresses (ADDR/PLEN, or - for none)
# sync_fwd NS                      fwd0 -- fwd1 inside NS, up: an interface for a box that only
#                                  syncs (its connections are made over the control socket)
# pt_start NS NAME CONF            `pkttables run --config CONF` in NS (output $D/NAME.out),
#                                  waits up to 5 s for its control socket $D/NAME.ctl; the
#                                  config says `control ./NAME.ctl`. Sets $PT_PID
# ctd_conf NAME IGNORE             conntrackd's config $D/NAME.conf: stdin is the body of its
#                                  Sync section; General has files $D/NAME.{log,lock,ctl} and
#                                  a userspace filter that ignores 127.0.0.1, ::1 and the
#                                  prefix IGNORE (the sync link's)
# sync_ctd_pair P NET udp|tcp        namespaces A=${P}a$$ (pkttables, box a) and B=${P}b$$
#                                  (conntrackd, config b) joined by vA NET.1/24 -- vB NET.2/24,
#                                  FTFW over UDP or TCP port 3780; both started
# ctd_start NS NAME                `conntrackd -C $D/NAME.conf` in NS, waits up to 5 s for its
#                                  socket. Sets $CTD_PID
# psync NAME ARGS / pct NAME ARGS  pkttables sync|ct against box NAME's control socket
# ctd NS NAME ARGS / kct NS ARGS   conntrackd -C $D/NAME.conf ARGS / conntrack ARGS in NS
# wait_for SECONDS CMD...          until CMD succeeds (0.1 s steps); 1 when it never did
# has PATTERN CMD...               CMD's output has PATTERN (grep)
# sync_hello NAME                  box NAME got a HELLO within 5 s, then 1.2 s for the answer
# sync_two_flows NAME LABEL MAKE... MAKE (kct NS, or pct BOX: conntrack's -I) makes a TCP
#                                  connection (ESTABLISHED, ASSURED, mark 7, 900 s) and a UDP
#                                  one with SNAT 203.0.113.9:61000; both must reach pkttables
#                                  box NAME's external cache within 5 s. $SYNC_LINE: the TCP one's
# sync_report NAME...              on failure: the logs of the boxes NAME

SYNC_NS=""
SYNC_PIDS=""

sync_cleanup() {
	for p in $SYNC_PIDS; do kill -9 "$p" 2>/dev/null; done
	for n in $SYNC_NS; do ip netns pids "$n" 2>/dev/null | xargs -r kill -9 2>/dev/null; done
	for n in $SYNC_NS; do ip netns del "$n" 2>/dev/null; done
	[ -n "$D" ] && [ -z "$PT_KEEP" ] && rm -rf "$D"
}

sync_init() {
	_tag=$1 _why=$2
	shift 2
	[ "$(id -u)" -eq 0 ] || skip "needs root ($_why)"
	[ -x "$BIN" ] || { echo "FAIL: $BIN missing"; exit 1; }
	for t in ip "$@"; do
		command -v "$t" >/dev/null 2>&1 || skip "$t not installed (tools/install-deps.sh)"
	done
	D=$(mktemp -d /tmp/pt-$_tag.XXXXXX)
	trap sync_cleanup EXIT
	trap 'exit 1' INT TERM HUP
}

sync_ns() {
	for n in "$@"; do
		ip netns add "$n" 2>/dev/null || skip "cannot create network namespaces"
		SYNC_NS="$SYNC_NS $n"
		ip -n "$n" link set lo up
	done
}

sync_bg() { SYNC_PIDS="$SYNC_PIDS $*"; }

sync_link() {
	ip link add "$2" netns "$1" type veth peer name "$5" netns "$4" || skip "cannot create veth pairs"
	[ "$3" = - ] || ip -n "$1" addr add "$3" dev "$2"
	[ "$6" = - ] || ip -n "$4" addr add "$6" dev "$5"
	ip -n "$1" link set "$2" up
	ip -n "$4" link set "$5" up
}

sync_fwd() {
	ip -n "$1" link add fwd0 type veth peer name fwd1 || exit 1
	ip -n "$1" link set fwd0 up
	ip -n "$1" link set fwd1 up
}

pt_start() {
	ip netns exec "$1" "$BIN" run --config "$3" >"$D/$2.out" 2>&1 &
	PT_PID=$!
	sync_bg $PT_PID
	wait_for 5 test -S "$D/$2.ctl" || { cat "$D/$2.out"; echo "FAIL: pkttables $2 did not start"; exit 1; }
}

ctd_conf() {
	{
		echo "Sync {"
		cat
		cat <<CONF
}
General {
	Systemd no
	HashSize 8192
	HashLimit 65536
	LogFile $D/$1.log
	Syslog no
	LockFile $D/$1.lock
	UNIX {
		Path $D/$1.ctl
	}
	NetlinkBufferSize 2097152
	NetlinkBufferSizeMaxGrowth 8388608
	Filter From Userspace {
		Address Ignore {
			IPv4_address 127.0.0.1
			IPv4_address $2
			IPv6_address ::1
		}
	}
}
CONF
	} >"$D/$1.conf"
}

ctd_start() {
	rm -f "$D/$2.lock"
	ip netns exec "$1" conntrackd -C "$D/$2.conf" >"$D/$2.out" 2>&1 &
	CTD_PID=$!
	sync_bg $CTD_PID
	wait_for 5 test -S "$D/$2.ctl" || { cat "$D/$2.out"; echo "FAIL: conntrackd $2 did not start"; exit 1; }
}

sync_ctd_pair() {
	_net=$2 _kind=$3
	A=${1}a$$ B=${1}b$$
	sync_ns $A $B
	sync_link $A vA $_net.1/24 $B vB $_net.2/24
	sync_fwd $A
	cat >"$D/a.conf" <<CONF
iface fwd0
addr fwd0 10.99.0.1/24
sync mode ftfw
sync $_kind local $_net.1 peer $_net.2 port 3780
sync peer-kind conntrackd
control ./a.ctl
CONF
	ctd_conf b $_net.0/24 <<CONF
	Mode FTFW {
		ResendQueueSize 131072
		ACKWindowSize 300
		DisableExternalCache no
	}
	$(echo "$_kind" | tr a-z A-Z) {
		IPv4_address $_net.2
		IPv4_Destination_Address $_net.1
		Port 3780
		Interface vB
		Checksum on
	}
CONF
	pt_start $A a "$D/a.conf"
	ctd_start $B b
}

psync() { _s=$1; shift; $T 10 "$BIN" sync --socket "$D/$_s.ctl" "$@"; }
pct() { _s=$1; shift; $T 10 "$BIN" ct --socket "$D/$_s.ctl" "$@"; }
ctd() { _n=$1 _s=$2; shift 2; ip netns exec "$_n" $T 10 conntrackd -C "$D/$_s.conf" "$@"; }
kct() { _n=$1; shift; ip netns exec "$_n" $T 10 conntrack "$@"; }

wait_for() {
	_n=$(($1 * 10))
	shift
	while [ $_n -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
		_n=$((_n - 1))
	done
	return 1
}

has() { _f=$1; shift; "$@" 2>/dev/null | grep -q -- "$_f"; }

sync_hello() {
	wait_for 5 has "rx_hello [1-9]" psync "$1" stats || bad "no HELLO reached $1"
	sleep 1.2
}

sync_two_flows() {
	_who=$1 _lbl=$2
	shift 2
	"$@" -I -s 10.7.0.1 -d 10.8.0.1 -p tcp --sport 5000 --dport 22 --state ESTABLISHED -t 900 \
		-u SEEN_REPLY,ASSURED -m 7 >/dev/null 2>&1 || bad "$_lbl: making the TCP connection"
	"$@" -I -s 10.7.0.2 -d 10.8.0.2 -p udp --sport 5353 --dport 53 -t 120 \
		--src-nat 203.0.113.9:61000 >/dev/null 2>&1 || bad "$_lbl: making the UDP connection"
	if wait_for 5 has "src=10.7.0.2 dst=10.8.0.2 sport=5353 dport=53 snat=203.0.113.9 spat=61000" \
		psync "$_who" external; then
		ok "$_lbl: UDP with SNAT 203.0.113.9:61000 (SPAT little-endian on the wire)"
	else
		bad "$_lbl: UDP with SNAT missing"; psync "$_who" external; psync "$_who" stats
	fi
	SYNC_LINE=$(psync "$_who" external | grep "src=10.7.0.1 dst=10.8.0.1 sport=5000 dport=22")
	case $SYNC_LINE in
	*ESTABLISHED*mark=7*) ok "$_lbl: TCP ESTABLISHED, mark 7" ;;
	*) bad "$_lbl: TCP '$SYNC_LINE'" ;;
	esac
}

sync_report() {
	[ $fails -eq 0 ] && return
	for n in "$@"; do
		echo "--- $n"
		cat "$D/$n.out" 2>/dev/null
		tail -n 20 "$D/$n.log" 2>/dev/null
	done
}

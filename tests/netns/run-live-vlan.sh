#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/run-live-vlan.sh - 802.1Q-tagged frames through pkttables in live mode, in both
# receive modes: frames used in place in the AF_PACKET ring (the default, zero-copy receive:
# the tag the kernel took off is put back in the room before the frame) and `io afpacket copy`.
#
#   client eth0 (raw socket) --- [pkttables] --- server eth0 (raw socket)
#
# The client sends UDP frames tagged VLAN 100 (priority 3) from a raw socket, of payloads 0 to
# 1400 bytes; the receiving kernel takes the tag off (it has no VLAN device: the core does it
# for every tagged frame) and AF_PACKET hands it over with the tag beside it. The box keeps the
# tag a frame came with (it rewrites only the MAC addresses), so the server's raw socket must
# see every frame with tag 100 and priority 3, its payload intact and its TTL one less. The
# frames the server saw must be the same byte for byte in both modes, and in zero-copy mode
# every frame received must have been used in place.
# Exit 77 (skipped) when not root or namespaces are unavailable. Every command is bounded.
cd "$(dirname "$0")/../.." || exit 2
case ${PT_LIVE_IO:-afpacket} in afpacket | "afpacket copy") ;; *) echo "SKIP: io $PT_LIVE_IO: AF_PACKET's receive modes"; exit 77 ;; esac
. tests/netns/lib.sh
netns_init ptv vlan "network namespaces, AF_PACKET" ip
netns_live_router

cat >"$D/vlan.py" <<'PYEOF'
import hashlib, socket, struct, sys, time
ETH_P_ALL, SOL_PACKET, PACKET_AUXDATA = 3, 263, 8
TP_STATUS_VLAN_VALID = 0x10
def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
def payload(n, k):
    return bytes((k * 7 + i) & 0xff for i in range(n))
def frame(dst, src, k, n):
    udp = struct.pack("!HHHH", 4000 + k, 9999, 8 + n, 0) + payload(n, k)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), k, 0, 64, 17, 0,
                     socket.inet_aton("192.0.2.2"), socket.inet_aton("198.51.100.2"))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return dst + src + struct.pack("!HH", 0x8100, 3 << 13 | 100) + b"\x08\x00" + ip + udp
sizes = [0, 1, 2, 17, 100, 333, 1000, 1400] + [(k * 37) % 1401 for k in range(40)]
if sys.argv[1] == "send":  # send IF DSTMAC
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((sys.argv[2], 0))
    src = s.getsockname()[4][:6]
    dst = bytes.fromhex(sys.argv[3].replace(":", ""))
    for k, n in enumerate(sizes):
        s.send(frame(dst, src, k, n))
        time.sleep(0.002)
    print("sent", len(sizes))
else:  # recv IF SECONDS: every frame to UDP 9999, checked; prints count, bad, digest
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
    s.bind((sys.argv[2], 0))
    print("ready", flush=True)
    end = time.time() + float(sys.argv[3])
    got, bad, h = 0, [], hashlib.sha256()
    while got < len(sizes) and time.time() < end:
        s.settimeout(max(0.01, end - time.time()))
        try:
            d, anc, _, _ = s.recvmsg(65536, 64)
        except socket.timeout:
            break
        tci = None
        for lvl, typ, data in anc:
            if lvl == SOL_PACKET and typ == PACKET_AUXDATA:
                st, _, _, _, _, vt, _ = struct.unpack("IIIHHHH", data[:20])
                if st & TP_STATUS_VLAN_VALID:
                    tci = vt
        if d[12:14] == b"\x81\x00":  # the tag still in the frame
            tci = struct.unpack("!H", d[14:16])[0]
            d = d[:12] + d[16:]
        if d[12:14] != b"\x08\x00" or d[23] != 17 or struct.unpack("!H", d[36:38])[0] != 9999:
            continue
        k = struct.unpack("!H", d[18:20])[0]
        n = struct.unpack("!H", d[38:40])[0] - 8
        ok = (k < len(sizes) and n == sizes[k] and d[42:42 + n] == payload(n, k) and
              d[22] == 63 and tci == (3 << 13 | 100) and csum(d[14:34]) == 0)
        got += 1
        if not ok:
            bad.append("%d(tci %s ttl %d len %d)" % (k, tci, d[22], n))
        h.update(d[:42 + n])
    print(got, len(bad), h.hexdigest(), " ".join(bad[:5]))
PYEOF
printf 'iface %s mac kernel\niface %s mac kernel\naddr %s 192.0.2.1/24\naddr %s 198.51.100.1/24\n' \
	$L $W $L $W >"$D/live.conf"
lmac=$(ip -n $R -o link show $L | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
echo ready >"$D/server.log" # netns_start_live waits for it
nsent=$($PY -c "exec(open('$D/vlan.py').read().split('if sys.argv')[0]); print(len(sizes))")

# round MODE TAG: tagged frames through pkttables started with `io MODE`
round() {
	m=$1
	rm -f "$D/pt.log"
	{ echo "io $m"; cat "$D/live.conf"; } >"$D/live.$2.conf"
	netns_start_live "$D/live.$2.conf"
	# the router learns the server's MAC first (untagged ARP, answered by its eth0)
	inc $T 8 ping -c 2 -i 0.2 -W 2 198.51.100.2 >"$D/p.$2" 2>&1 ||
		{ bad "$m: ping through pkttables"; cat "$D/p.$2"; }
	ins $T 20 "$PY" "$D/vlan.py" recv eth0 10 >"$D/recv.$2" 2>&1 &
	rp=$!
	for i in $(seq 1 50); do grep -q ready "$D/recv.$2" && break; sleep 0.1; done
	inc $T 10 "$PY" "$D/vlan.py" send eth0 "$lmac" >"$D/send.$2" 2>&1 || bad "$m: send: $(cat "$D/send.$2")"
	wait $rp
	set -- $(tail -n 1 "$D/recv.$2")
	[ "${1:-0}" = "$nsent" ] && [ "${2:-1}" = 0 ] &&
		ok "$m: $1 tagged UDP frames of 0 to 1400 bytes forwarded with their tag (VLAN 100, priority 3), intact" ||
		bad "$m: tagged frames: $(tail -n 1 "$D/recv.$2") (want $nsent received, 0 bad)"
	eval "digest_$2=\${3:-none}"
	kill -USR1 "$PT"
	for i in $(seq 1 30); do grep -q "^zero-copy receive:" "$D/pt.log" && break; sleep 0.1; done
	lent=$(grep "^zero-copy receive:" "$D/pt.log" | tail -n 1 | sed 's/^zero-copy receive: \([0-9]*\) .*/\1/')
	rx=$(grep "^iface $L: rx" "$D/pt.log" | tail -n 1 | sed 's/^iface [^ ]*: rx \([0-9]*\) .*/\1/')
	case $m in
	*copy) [ "$lent" = 0 ] && ok "$m: no packet over a lent frame" || bad "$m: $lent packets over lent frames" ;;
	*) [ "${lent:-0}" -ge "${rx:-1}" ] && [ "${rx:-0}" -ge "$nsent" ] &&
		ok "$m: $lent packets over lent frames, $rx frames received on $L: the tagged ones used in place" ||
		bad "$m: $lent packets over lent frames, $rx received on $L" ;;
	esac
	netns_stop_live || bad "$m: pkttables did not stop cleanly"
}

round afpacket zc
round "afpacket copy" copy
[ "$digest_zc" = "$digest_copy" ] && [ "$digest_zc" != none ] &&
	ok "the server saw the same frames, byte for byte, in both modes" ||
	bad "the frames differ between the modes ($digest_zc, $digest_copy)"
[ $fails -eq 0 ] || { tail -n 30 "$D/pt.log"; exit 1; }
echo "all passed"

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write tests/diff/string.pcap: frames for tests/diff/string.rules (-m string against the kernel).

Every frame comes from the inside (192.168.1.10 / fd00:1::10) and goes out through the gateway,
so its verdict is "forwarded wan0" or "dropped". Payload offsets: UDP data starts at IP offset
28 (IPv4) / 48 (IPv6), TCP data at 40 / 60. Each TCP frame is its own connection (a new port:
conntrack's loose pick-up takes the first segment of an unknown flow as NEW).
Deterministic: fixed timestamps from 2026-01-01T00:00:00Z, 10 ms apart.
Run: /usr/bin/python3 tests/diff/make-string-capture.py [OUT.pcap]
"""
import os
import struct
import sys

from scapy.all import IP, TCP, UDP, Ether, IPv6, Raw, fragment

GW_LAN = "02:00:00:00:00:01"
HOST = "02:00:00:00:01:0a"
T0 = 1767225600
frames = []
port = [40000]


def emit(pkt):
    frames.append(bytes(Ether(src=HOST, dst=GW_LAN) / pkt))


def udp4(data, dport=9, **kw):
    return IP(src="192.168.1.10", dst="198.51.100.1", **kw) / UDP(sport=5000, dport=dport) / Raw(data)


def tcp(data, v6=False, dport=80):
    port[0] += 1
    ip = IPv6(src="fd00:1::10", dst="2001:db8::1") if v6 else IP(src="192.168.1.10", dst="198.51.100.1")
    return ip / TCP(sport=port[0], dport=dport, flags="PA", seq=1000, ack=1) / Raw(data)


def udp6(data, dport=9):
    return IPv6(src="fd00:1::10", dst="2001:db8::1") / UDP(sport=5000, dport=dport) / Raw(data)


# IPv4, FORWARD rules 1..8
emit(udp4(b"xx needle xx"))                   # 1: needle anywhere
emit(udp4(b"haystack and more"))              # 2: haystack at 28..35, --from 28 --to 36
emit(udp4(b"xhaystack and more"))             # ends at 37: past --to 36
emit(udp4(b"\x00\x01\xde\xad\xbe\xef\x02"))   # 3: hex
emit(udp4(b"\x00\x01\xde\xad\xbe\x02\xef"))   # not quite
emit(udp4(b"my cAsE here"))                   # 4: --icase
emit(udp4(b"my C\xc1SE here"))                # Latin-1 is not 'A' either way
emit(tcp(b"GET /admin HTTP/1.0\r\n\r\n"))     # 5
emit(tcp(b"GET /other HTTP/1.0\r\n\r\n"))
emit(udp4(b"all ok here", dport=7))           # 6: ! --string ok, to port 7
emit(udp4(b"bad news", dport=7))
# split across two fragments after reassembly (first fragment: UDP header + 40 data bytes)
for word, fid in ((b"splitbm", 0x501), (b"splitkmp", 0x502)):
    data = b"0" * 36 + word + b" and the rest of it"
    for f in fragment(udp4(data, id=fid), fragsize=48):
        emit(f)
# a chain of 20 string rules: several match, the counters say which
for data in (b"w3 w17 w11", b"nothing at all", b"W5 w5", b"w19w20w0", b"w1"):
    emit(udp4(data, dport=9999))
# --from/--to edges: "edge" at 28 with --to 32 (fits), --from 29 (misses), --to 31 (misses)
emit(udp4(b"edge", dport=10))
emit(udp4(b"edgeedge", dport=10))
# IPv6
emit(udp6(b"v6needle!"))                      # 1: --from 48 --to 56
emit(udp6(b"_v6needle"))                      # 3 (2 does not: past --to)
emit(tcp(b"x\x00PiNg\x00x", v6=True))         # 2: hex + icase
emit(tcp(b"x\x00pong\x00x", v6=True))

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                          "string.pcap")
with open(out, "wb") as fp:
    fp.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i, f in enumerate(frames):
        usec = i * 10000
        fp.write(struct.pack("<IIII", T0 + usec // 1000000, usec % 1000000, len(f), len(f)))
        fp.write(f)
print("%s: %d frames" % (out, len(frames)))

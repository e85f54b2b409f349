#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write examples/home-router.pcap: a synthetic capture at the home router's two interfaces.

The file holds every frame as the gateway *received* it, from both sides, in time order (what
`tcpdump -i any`-style merging of lan0 and wan0 ingress would give), never the forwarded copy.
Ethernet addresses:
    02:00:00:00:00:01  gateway lan0        02:00:00:00:00:02  gateway wan0
    02:00:00:00:01:NN  inside host .NN     02:00:00:00:02:01  ISP router (everything on wan)
Deterministic: fixed seed, timestamps from 2026-01-01T00:00:00Z, 10 ms apart.
Run from anywhere: /usr/bin/python3 examples/make-capture.py [OUT.pcap]
"""
import os
import random
import struct
import sys

from scapy.all import (DNS, DNSQR, DNSRR, ICMP, IP, TCP, UDP, BOOTP, DHCP, Ether, IPv6,
                       ICMPv6EchoRequest, ICMPv6EchoReply, ICMPv6ND_RS, IPv6ExtHdrFragment,
                       Raw, fragment, fragment6)

GW_LAN = "02:00:00:00:00:01"
GW_WAN = "02:00:00:00:00:02"
ISP = "02:00:00:00:02:01"
T0 = 1767225600  # 2026-01-01T00:00:00Z

rng = random.Random(20260101)
frames = []  # list of (description, bytes)


def host_mac(ip):
    # .20 and ::20 are the same machine: the last group read as decimal in both families
    last = int(ip.replace(":", ".").split(".")[-1] or "0") & 0xff
    return "02:00:00:00:01:%02x" % last


def inside(ip):
    return ip.startswith(("192.168.", "10.", "172.16.", "fd00:", "fc"))


def eth_for(src):
    """Frame from an inside host to gw lan0, or from the ISP router to gw wan0."""
    if inside(src):
        return Ether(src=host_mac(src), dst=GW_LAN)
    return Ether(src=ISP, dst=GW_WAN)


def emit(pkt, eth=None):
    l3 = pkt
    if eth is None:
        eth = eth_for(l3.src)
    frames.append(bytes(eth / l3))


def emit_raw(eth, raw):
    frames.append(bytes(eth) + raw)


def ipl(src, dst, **kw):
    return (IPv6(src=src, dst=dst, **kw) if ":" in src else
            IP(src=src, dst=dst, id=rng.randrange(1, 65535), **kw))


class Tcp:
    """A TCP conversation with consistent sequence numbers."""

    def __init__(self, c, cport, s, sport):
        self.c, self.cport, self.s, self.sport = c, cport, s, sport
        self.cseq = rng.randrange(1 << 32)
        self.sseq = rng.randrange(1 << 32)

    def c2s(self, flags, data=b""):
        p = ipl(self.c, self.s) / TCP(sport=self.cport, dport=self.sport, flags=flags,
                                       seq=self.cseq, ack=self.sseq if "A" in flags else 0,
                                       window=64240)
        emit(p / Raw(data) if data else p)
        self.cseq = (self.cseq + len(data) + (1 if ("S" in flags or "F" in flags) else 0)) & 0xffffffff

    def s2c(self, flags, data=b""):
        p = ipl(self.s, self.c) / TCP(sport=self.sport, dport=self.cport, flags=flags,
                                       seq=self.sseq, ack=self.cseq, window=65160)
        emit(p / Raw(data) if data else p)
        self.sseq = (self.sseq + len(data) + (1 if ("S" in flags or "F" in flags) else 0)) & 0xffffffff

    def session(self, request, responses):
        self.c2s("S")
        self.sseq_isn = self.sseq
        p = ipl(self.s, self.c) / TCP(sport=self.sport, dport=self.cport, flags="SA",
                                       seq=self.sseq, ack=self.cseq, window=65160)
        emit(p)
        self.sseq = (self.sseq + 1) & 0xffffffff
        self.c2s("A")
        self.c2s("PA", request)
        for r in responses:
            self.s2c("PA", r)
            self.c2s("A")
        self.c2s("FA")
        self.s2c("FA")
        self.c2s("A")


def ntp(mode, stratum=0, ref=0, orig=0, recv=0, sent=0):
    """An NTPv4 header built by hand: scapy fills unset timestamps from the wall clock."""
    def ts(t):
        return struct.pack(">II", int(t), int((t - int(t)) * (1 << 32)))
    return Raw(struct.pack(">BBbbII4s", (4 << 3) | mode, stratum, 6, -20, 0, 0, b"GPS\0" if stratum == 1 else b"\0" * 4)
               + ts(ref) + ts(orig) + ts(recv) + ts(sent))


def rnd(n):
    return bytes(rng.randrange(256) for _ in range(n))


def dns(client, server, name, qtype, answers, cport=None):
    cport = cport or rng.randrange(32768, 61000)
    qid = rng.randrange(65536)
    emit(ipl(client, server) / UDP(sport=cport, dport=53) /
         DNS(id=qid, rd=1, qd=DNSQR(qname=name, qtype=qtype)))
    an = None
    for a in answers:
        rr = DNSRR(rrname=name, type=qtype, ttl=300, rdata=a)
        an = rr if an is None else an / rr
    emit(ipl(server, client) / UDP(sport=53, dport=cport) /
         DNS(id=qid, qr=1, rd=1, ra=1, qd=DNSQR(qname=name, qtype=qtype), an=an))


def ping(a, b, n, reply=True, size=56):
    ident = rng.randrange(65536)
    for i in range(n):
        data = rnd(size)
        if ":" in a:
            emit(ipl(a, b, hlim=64) / ICMPv6EchoRequest(id=ident, seq=i + 1, data=data))
            if reply:
                emit(ipl(b, a, hlim=57) / ICMPv6EchoReply(id=ident, seq=i + 1, data=data))
        else:
            emit(ipl(a, b, ttl=64) / ICMP(type=8, id=ident, seq=i + 1) / Raw(data))
            if reply:
                emit(ipl(b, a, ttl=57) / ICMP(type=0, id=ident, seq=i + 1) / Raw(data))


def syn(src, dst, dport, flags="S", sport=None):
    emit(ipl(src, dst) / TCP(sport=sport or rng.randrange(1024, 65535), dport=dport,
                             flags=flags, seq=rng.randrange(1 << 32), window=1024))


H20, H21, H30, SRV = "192.168.1.20", "192.168.1.21", "192.168.1.30", "192.168.1.10"
H6_20, SRV6 = "fd00:1::20", "fd00:1::10"
DNS4, DNS6 = "198.51.100.53", "2001:db8::53"
WEB4, WEB6 = "203.0.113.80", "2001:db8:80::443"
SCANNER, SCANNER6 = "203.0.113.66", "2001:db8:bad::66"

# --- 1. link-local chatter to the gateway itself (INPUT)
emit(IP(src=H20, dst="255.255.255.255", ttl=64) / UDP(sport=68, dport=67) /
     BOOTP(chaddr=bytes.fromhex("020000000114"), ciaddr=H20, xid=0x5eed) /
     DHCP(options=[("message-type", "request"), "end"]),
     Ether(src=host_mac(H20), dst="ff:ff:ff:ff:ff:ff"))
emit(IPv6(src=H6_20, dst="ff02::2", hlim=255) / ICMPv6ND_RS(),
     Ether(src=host_mac(H20), dst="33:33:00:00:00:02"))

# --- 2. ordinary use: DNS, NTP, web over IPv4 and IPv6, ping
dns(H20, DNS4, "www.example.com", "A", [WEB4])
dns(H20, DNS4, "www.example.com", "AAAA", [WEB6])
dns(H6_20, DNS6, "www.example.org", "AAAA", [WEB6])
emit(ipl(H20, "203.0.113.123") / UDP(sport=123, dport=123) / ntp(mode=3, sent=3976214400.25))
emit(ipl("203.0.113.123", H20) / UDP(sport=123, dport=123) / ntp(mode=4, stratum=2, ref=3976214000,
                                                             orig=3976214400.25, recv=3976214400.27,
                                                             sent=3976214400.27))
Tcp(H20, 50100, WEB4, 443).session(rnd(300), [rnd(1200), rnd(1200), rnd(400)])
Tcp(H21, 50200, "203.0.113.81", 80).session(
    b"GET / HTTP/1.1\r\nHost: example.net\r\nUser-Agent: demo\r\n\r\n",
    [b"HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\nhello, world"])
Tcp(H6_20, 50300, WEB6, 443).session(rnd(250), [rnd(1000), rnd(300)])
ping(H20, "198.51.100.1", 3)
ping(H6_20, "2001:db8::1", 3)

Tcp(H21, 50150, "198.51.100.22", 22).session(rnd(40), [rnd(40), rnd(120), rnd(40)])   # ssh out
dns(H30, DNS4, "mail.example.com", "A", ["203.0.113.143"])
Tcp(H30, 50160, "203.0.113.143", 993).session(rnd(120), [rnd(600), rnd(80)])
emit(ipl(H6_20, "2001:db8::123") / UDP(sport=123, dport=123) / ntp(mode=3,
                                                                   sent=3976214400.5))
emit(ipl("2001:db8::123", H6_20) / UDP(sport=123, dport=123) / ntp(mode=4, stratum=1,
                                                                   ref=3976214000,
                                                                   orig=3976214400.5,
                                                                   recv=3976214400.51,
                                                                   sent=3976214400.51))
Tcp(H6_20, 50170, "2001:db8:80::80", 443).session(rnd(220), [rnd(1200), rnd(1200), rnd(200)])

# --- 3. inside traffic the router refuses or finds odd
emit(ipl(H21, "203.0.113.25") / TCP(sport=50400, dport=25, flags="S", seq=1000))   # smtp
emit(ipl(H21, "198.51.100.137") / UDP(sport=137, dport=137) / Raw(rnd(50)))         # netbios
emit(ipl(H6_20, "2001:db8::137") / UDP(sport=50401, dport=138) / Raw(rnd(40)))
emit(ipl("10.9.9.9", WEB4) / TCP(sport=40000, dport=80, flags="S", seq=7),
     Ether(src=host_mac(H30), dst=GW_LAN))                                          # spoofed
emit(ipl(H20, H30) / UDP(sport=5353, dport=9999) / Raw(b"hairpin"))                 # lan->lan
emit(ipl(H20, WEB4, ttl=1) / UDP(sport=40001, dport=33434) / Raw(rnd(24)))           # traceroute
emit(ipl(H6_20, WEB6, hlim=1) / UDP(sport=40002, dport=33434) / Raw(rnd(24)))

# --- 4. the internet knocking: port scans, flag scans, UDP probes
for p in (21, 22, 23, 25, 80, 139, 445, 3389, 5900, 8080):
    syn(SCANNER, H20, p, sport=61000)
for p in (23, 8080, 443):
    syn(SCANNER, SRV, p, sport=61001)
syn(SCANNER, H20, 80, flags="")          # null
syn(SCANNER, H20, 80, flags="FPU")       # xmas
syn(SCANNER, H20, 80, flags="SF")        # syn+fin
syn(SCANNER, H20, 80, flags="A")         # ack scan: passes a stateless filter
for p in (161, 1900, 53):
    emit(ipl(SCANNER, H20) / UDP(sport=61002, dport=p) / Raw(rnd(16)))
for p in (22, 23, 80, 443):
    syn(SCANNER6, H6_20, p, sport=61003)
emit(ipl(SCANNER6, H6_20) / UDP(sport=61004, dport=161) / Raw(rnd(16)))
emit(ipl("198.51.100.7", "203.0.113.9") / TCP(sport=3333, dport=80, flags="S", seq=3))  # wan->wan

# --- 5. the internet using the inside server; SSH attempts beyond the limit
t = Tcp("198.51.100.200", 51000, SRV, 443)
t.session(rnd(200), [rnd(900)])
Tcp("2001:db8:cafe::200", 51001, SRV6, 80).session(b"GET / HTTP/1.1\r\nHost: srv\r\n\r\n",
                                                   [b"HTTP/1.1 204 No Content\r\n\r\n"])
for i in range(8):
    c = Tcp("203.0.113.99", 52000 + i, SRV, 22)
    c.c2s("S")
    if i < 3:
        c.s2c("SA")
for i in range(4):
    Tcp("2001:db8:99::99", 52100 + i, SRV6, 22).c2s("S")
ping("198.51.100.7", H20, 4, reply=False)
ping("2001:db8:7::7", H6_20, 3, reply=False)

# --- 6. malformed frames (from the internet side)
good = bytes(IP(src=SCANNER, dst=H20, id=4242) / TCP(sport=61005, dport=80, flags="S"))
emit_raw(Ether(src=ISP, dst=GW_WAN, type=0x0800), good[:16])                                   # ip hdr cut
bad_ihl = bytearray(good)
bad_ihl[0] = 0x44                                                                   # ihl 4
emit_raw(Ether(src=ISP, dst=GW_WAN, type=0x0800), bytes(bad_ihl))
short = IP(src=SCANNER, dst=H20, id=4243, len=30, proto=6) / Raw(good[20:30])                # tcp hdr cut
emit(short)
short6 = IPv6(src=SCANNER6, dst=H6_20, nh=6, plen=10) / Raw(good[20:30])
emit(short6)
bad_csum = IP(src=SCANNER, dst=H20, id=4244) / TCP(sport=61006, dport=80, flags="S", chksum=0x1234)
emit(bad_csum)                                                                       # bad tcp csum
emit(IP(src=SCANNER, dst=H20, id=4245, len=200) / TCP(sport=61007, dport=80, flags="S"))  # len>frame
emit(ipl(H21, WEB4) / TCP(sport=50500, dport=25, flags="S", chksum=0x4321))         # bad csum, lan

# --- 7. fragments
big_dns = (IP(src=DNS4, dst=H20, id=777) / UDP(sport=53, dport=40100) /
           DNS(id=1, qr=1, qd=DNSQR(qname="big.example.com", qtype="TXT"),
               an=DNSRR(rrname="big.example.com", type="TXT", rdata=[rnd(200).hex()[:250]] * 6)))
for f in fragment(IP(bytes(big_dns)), fragsize=600):
    emit(f)
for f in fragment(IP(bytes(IP(src=H20, dst=WEB4, id=778) / UDP(sport=40200, dport=4500) /
                           Raw(rnd(1800)))), fragsize=800):
    emit(f)
# a tiny first fragment: 8 bytes of TCP (ports only), then the rest at offset 1
tcp = bytes(TCP(sport=61008, dport=23, flags="S", seq=99, window=1024))
p = IP(src=SCANNER, dst=H20, id=779, flags="MF", frag=0, proto=6) / Raw(tcp[:8])
emit(p)
emit(IP(src=SCANNER, dst=H20, id=779, frag=1, proto=6) / Raw(tcp[8:]))
# a non-first fragment long enough to be misread as a TCP header (its byte 13 says ACK)
emit(IP(src=SCANNER, dst=H20, id=780, frag=100, proto=6) / Raw(b"\0" * 13 + b"\x10" + b"\0" * 26))
big6 = (IPv6(src=DNS6, dst=H6_20) / IPv6ExtHdrFragment(id=0x6001) /
        UDP(sport=53, dport=40300) / Raw(rnd(1800)))
for f in fragment6(IPv6(bytes(big6)), 1280):
    emit(f)
big6o = (IPv6(src=H6_20, dst="2001:db8::1") / IPv6ExtHdrFragment(id=0x6002) /
         ICMPv6EchoRequest(id=9, seq=1, data=rnd(2000)))
for f in fragment6(IPv6(bytes(big6o)), 1280):
    emit(f)
# an inbound IPv6 TCP SYN to a scanned port, in two fragments (second carries no ports)
syn6 = (IPv6(src=SCANNER6, dst=H6_20) / IPv6ExtHdrFragment(id=0x6003) /
        TCP(sport=61009, dport=23, flags="S") / Raw(rnd(1400)))
for f in fragment6(IPv6(bytes(syn6)), 1000):
    emit(f)

# --- a last round of ordinary browsing, so the capture does not end on the odd cases
dns(H21, DNS4, "news.example.net", "A", ["198.51.100.80"])
Tcp(H21, 50600, "198.51.100.80", 443).session(rnd(280), [rnd(1400), rnd(1400), rnd(1400), rnd(600)])
Tcp(H6_20, 50700, "2001:db8:80::80", 80).session(b"GET /feed HTTP/1.1\r\nHost: n\r\n\r\n",
                                                 [rnd(1200), rnd(800)])
# --- protocols the ruleset has no rule for: WAN_IN runs to RETURN, back through the goto to
# the FORWARD policy
emit(IP(src="198.51.100.50", dst=H20, proto=50) / Raw(struct.pack(">II", 0x1001, 1) + rnd(48)))  # esp
emit(IPv6(src="2001:db8:50::50", dst=H6_20, nh=47) / Raw(b"\0\0\x86\xdd" + rnd(40)))        # gre

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                          "home-router.pcap")
# classic pcap, microsecond timestamps, written by hand so the bytes never depend on float maths
with open(out, "wb") as fp:
    fp.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i, f in enumerate(frames):
        usec = i * 10000
        fp.write(struct.pack("<IIII", T0 + usec // 1000000, usec % 1000000, len(f), len(f)))
        fp.write(f)
print("%s: %d frames" % (out, len(frames)))

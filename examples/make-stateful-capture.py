#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write examples/stateful-router.pcap: a synthetic capture at a stateful gateway (for
examples/stateful-router.rules and tests/diff/run-stateful-router.sh).

Every frame as the gateway *received* it, from both sides, interleaved in the order it would
receive them (never the forwarded copy). TCP conversations have consistent sequence and ack
numbers and negotiate window scaling, so the kernel's window tracking accepts them; the
out-of-window segments are out of window on purpose.
Ethernet addresses:
    02:00:00:00:00:01  gateway lan0        02:00:00:00:00:02  gateway wan0
    02:00:00:00:01:NN  inside host .NN     02:00:00:00:02:01  ISP router (everything on wan)
Deterministic: fixed seed, timestamps from 2026-01-01T00:00:00Z, 30 ms apart (about what the
kernel harness spends per packet, so both clocks see the same few seconds: no conntrack timeout,
the shortest being 10 s for TCP CLOSE, can expire during a run).
Run from anywhere: /usr/bin/python3 examples/make-stateful-capture.py [OUT.pcap]
The frame numbers the scenarios get are printed on stderr (they are the ones in the tests'
exceptions and README).
"""
import os
import random
import struct
import sys

from scapy.all import (DNS, DNSQR, DNSRR, ICMP, IP, TCP, UDP, Ether, IPv6, ICMPv6EchoRequest,
                       ICMPv6EchoReply, ICMPv6PacketTooBig, ICMPv6DestUnreach, Raw, fragment,
                       fragment6, IPv6ExtHdrFragment)

GW_LAN = "02:00:00:00:00:01"
GW_WAN = "02:00:00:00:00:02"
ISP = "02:00:00:00:02:01"
T0 = 1767225600  # 2026-01-01T00:00:00Z
GAP_US = 30000

rng = random.Random(20260104)
frames = []


def host_mac(ip):
    last = int(ip.replace(":", ".").split(".")[-1] or "0", 16 if ":" in ip else 10) & 0xff
    return "02:00:00:00:01:%02x" % last


def inside(ip):
    return ip.startswith(("192.168.", "10.", "172.16.", "fd00:", "fc"))


def emit(pkt):
    eth = (Ether(src=host_mac(pkt.src), dst=GW_LAN) if inside(pkt.src)
           else Ether(src=ISP, dst=GW_WAN))
    frames.append(bytes(eth / pkt))


def note(what):
    print("%4d %s" % (len(frames) + 1, what), file=sys.stderr)


def ipl(src, dst, **kw):
    return (IPv6(src=src, dst=dst, **kw) if ":" in src else
            IP(src=src, dst=dst, id=rng.randrange(1, 65535), **kw))


def rnd(n):
    return bytes(rng.randrange(256) for _ in range(n))


class Tcp:
    """One TCP connection, client c:cport to server s:sport, with consistent sequence numbers.
    Both ends announce window scaling (client 7, server 8) and send scaled windows after the
    handshake."""

    def __init__(self, c, cport, s, sport, cscale=7, sscale=8):
        self.c, self.cport, self.s, self.sport = c, cport, s, sport
        self.cseq, self.sseq = rng.randrange(1 << 32), rng.randrange(1 << 32)
        self.cscale, self.sscale = cscale, sscale
        self.cwin, self.swin = 502, 251  # 64256 and 64256 bytes once scaled

    def _pkt(self, fromc, flags, data, seq=None, ack=None, win=None, opts=None):
        src, sp, dst, dp = ((self.c, self.cport, self.s, self.sport) if fromc else
                            (self.s, self.sport, self.c, self.cport))
        mine = self.cseq if fromc else self.sseq
        theirs = self.sseq if fromc else self.cseq
        p = ipl(src, dst) / TCP(sport=sp, dport=dp, flags=flags,
                                seq=mine if seq is None else seq,
                                ack=(theirs if ack is None else ack) if "A" in flags else 0,
                                window=(self.cwin if fromc else self.swin) if win is None
                                else win, options=opts or [])
        return p / Raw(data) if data else p

    def send(self, fromc, flags, data=b"", advance=True, **kw):
        emit(self._pkt(fromc, flags, data, **kw))
        if advance:
            n = len(data) + (1 if ("S" in flags or "F" in flags) else 0)
            if fromc:
                self.cseq = (self.cseq + n) & 0xffffffff
            else:
                self.sseq = (self.sseq + n) & 0xffffffff

    def c2s(self, flags, data=b"", **kw):
        self.send(True, flags, data, **kw)

    def s2c(self, flags, data=b"", **kw):
        self.send(False, flags, data, **kw)

    def handshake(self):
        self.c2s("S", win=64240, opts=[("MSS", 1460), ("SAckOK", b""), ("NOP", None),
                                       ("WScale", self.cscale)])
        self.s2c("SA", win=65160, opts=[("MSS", 1460), ("SAckOK", b""), ("NOP", None),
                                        ("WScale", self.sscale)])
        self.c2s("A")

    def close(self):
        self.c2s("FA")
        self.s2c("FA")
        self.c2s("A")


def udp(a, ap, b, bp, data):
    emit(ipl(a, b) / UDP(sport=ap, dport=bp) / Raw(data))


def dns(client, server, name, qtype, answers, cport):
    qid = rng.randrange(65536)
    emit(ipl(client, server) / UDP(sport=cport, dport=53) /
         DNS(id=qid, rd=1, qd=DNSQR(qname=name, qtype=qtype)))
    an = None
    for a in answers:
        rr = DNSRR(rrname=name, type=qtype, ttl=300, rdata=a)
        an = rr if an is None else an / rr
    emit(ipl(server, client) / UDP(sport=53, dport=cport) /
         DNS(id=qid, qr=1, rd=1, ra=1, qd=DNSQR(qname=name, qtype=qtype), an=an))


def ping(a, b, ident, n):
    for i in range(n):
        data = rnd(56)
        if ":" in a:
            emit(ipl(a, b, hlim=64) / ICMPv6EchoRequest(id=ident, seq=i + 1, data=data))
            emit(ipl(b, a, hlim=57) / ICMPv6EchoReply(id=ident, seq=i + 1, data=data))
        else:
            emit(ipl(a, b, ttl=64) / ICMP(type=8, id=ident, seq=i + 1) / Raw(data))
            emit(ipl(b, a, ttl=57) / ICMP(type=0, id=ident, seq=i + 1) / Raw(data))


def ftp_addr(ip, port):
    return ",".join(ip.split(".") + [str(port >> 8), str(port & 255)])


H10, H20, H21, H30 = "192.168.1.10", "192.168.1.20", "192.168.1.21", "192.168.1.30"
H6_10, H6_20 = "fd00:1::10", "fd00:1::20"
DNS4, DNS6 = "198.51.100.53", "2001:db8::53"
WEB4, WEB6 = "203.0.113.80", "2001:db8:80::443"
FTP4 = "203.0.113.21"
REMOTE, REMOTE6 = "198.51.100.200", "2001:db8:200::200"
SCANNER, SCANNER6 = "203.0.113.66", "2001:db8:bad::66"

# --- DNS (UDP: NEW out, ESTABLISHED back), IPv4 and IPv6
note("dns v4 query/reply, twice on one flow, then a v6 one")
dns(H20, DNS4, "www.example.com", "A", [WEB4], 40053)
dns(H20, DNS4, "www.example.com", "AAAA", [WEB6], 40053)
dns(H6_20, DNS6, "www.example.org", "AAAA", [WEB6], 40054)

# --- an IPv4 web connection: handshake with window scaling, data both ways, retransmission,
#     out-of-window segments, FIN teardown
note("tcp v4 web: handshake, data, retransmission, out-of-window, FIN")
t = Tcp(H20, 50100, WEB4, 443)
t.handshake()
req = rnd(300)
t.c2s("PA", req)
t.s2c("A")
t.s2c("PA", rnd(1200))
t.s2c("PA", rnd(1200))
t.c2s("A")
note("  retransmission of the client's request (old seq, in window)")
t.c2s("PA", req, seq=(t.cseq - len(req)) & 0xffffffff, advance=False)
note("  client data far beyond the window (INVALID)")
t.c2s("PA", rnd(100), seq=(t.cseq + (1 << 30)) & 0xffffffff, advance=False)
note("  server acks data the client never sent (INVALID)")
t.s2c("A", ack=(t.cseq + 500000) & 0xffffffff, advance=False)
t.s2c("PA", rnd(400))
t.c2s("A")
t.close()

# --- an IPv4 connection reset by the server
note("tcp v4: handshake, data, RST from the server")
t = Tcp(H21, 50200, "203.0.113.81", 80)
t.handshake()
t.c2s("PA", b"GET / HTTP/1.1\r\nHost: example.net\r\n\r\n")
t.s2c("A")
t.s2c("RA")

# --- inbound SSH to the one host that offers it (NEW from wan allowed), client resets
note("tcp v4 inbound ssh to .10 (allowed), data, RST from the client")
t = Tcp(REMOTE, 51022, H10, 22)
t.handshake()
t.s2c("PA", b"SSH-2.0-OpenSSH_9.6\r\n")
t.c2s("PA", b"SSH-2.0-demo\r\n")
t.s2c("A")
t.c2s("R", advance=False)

note("tcp v4 inbound ssh to .20 (not allowed: dropped), ident SYN to .20 (REJECT tcp-reset)")
Tcp(REMOTE, 51023, H20, 22).c2s("S", win=64240, opts=[("MSS", 1460)])
Tcp(REMOTE, 51113, H20, 113).c2s("S", win=64240, opts=[("MSS", 1460)])

# --- state oddities
note("inbound SYN-ACK of no connection (INVALID)")
Tcp(SCANNER, 443, H20, 50999).c2s("SA", ack=12345, win=1024)
note("outbound mid-stream ACK of an unknown connection (tcp_loose: NEW, allowed), reply")
t = Tcp(H30, 50300, "198.51.100.30", 8443)
t.c2s("A")
t.c2s("PA", rnd(200))
t.s2c("A")
note("inbound mid-stream ACK of an unknown connection (NEW from wan: dropped)")
Tcp(SCANNER, 8080, H30, 50301).c2s("A", ack=777)

# --- UDP probes from outside: unsolicited, and a traceroute port answered by REJECT
note("unsolicited inbound UDP (dropped), traceroute probe (REJECT icmp port-unreachable)")
udp(SCANNER, 61000, H20, 161, rnd(16))
udp(SCANNER, 61001, H20, 33434, rnd(24))

# --- ping, both families, and an echo request from outside
note("ping v4 out, ping6 out, ping v4 in to .10")
ping(H20, "198.51.100.1", 0x1201, 2)
ping(H6_20, "2001:db8::1", 0x1202, 2)
ping(REMOTE, H10, 0x1203, 1)

# --- ICMP errors: RELATED when they quote a tracked flow, INVALID when they quote nothing
note("udp v4 to a closed port, port-unreachable back (RELATED); forged one (INVALID)")
probe = ipl(H20, "198.51.100.77") / UDP(sport=40777, dport=7777) / Raw(rnd(20))
emit(probe)
emit(IP(src="198.51.100.77", dst=H20, id=rng.randrange(1, 65535)) /
     ICMP(type=3, code=3) / bytes(probe)[:28])
forged = IP(src=H20, dst="198.51.100.78", id=4242) / UDP(sport=40778, dport=7778) / Raw(rnd(20))
emit(IP(src="198.51.100.78", dst=H20, id=rng.randrange(1, 65535)) /
     ICMP(type=3, code=3) / bytes(forged)[:28])

# --- IPv6 TCP: handshake, data, packet-too-big about it (RELATED), FIN; inbound ssh to ::10
note("tcp v6 web: handshake, data, packet-too-big (RELATED), forged one (INVALID), FIN")
t = Tcp(H6_20, 50400, WEB6, 443)
t.handshake()
big = t._pkt(True, "PA", rnd(1300))
t.c2s("PA", big[Raw].load)
emit(IPv6(src="2001:db8:1::1", dst=H6_20) / ICMPv6PacketTooBig(mtu=1280) / bytes(big)[:1232])
t.s2c("A")
t.s2c("PA", rnd(600))
ghost = IPv6(src=H6_20, dst="2001:db8:80::444") / UDP(sport=40779, dport=7779) / Raw(rnd(20))
emit(IPv6(src="2001:db8:1::1", dst=H6_20) / ICMPv6DestUnreach(code=4) / bytes(ghost))
t.c2s("A")
t.close()
note("tcp v6 inbound ssh to ::10 (allowed, -m state NEW), teardown")
t = Tcp(REMOTE6, 52022, H6_10, 22)
t.handshake()
t.s2c("PA", b"SSH-2.0-OpenSSH_9.6\r\n")
t.c2s("A")
t.close()
note("tcp v6 inbound SYN to ::20 port 80 (dropped)")
Tcp(SCANNER6, 52080, H6_20, 80).c2s("S", win=64240, opts=[("MSS", 1440)])

# --- NTP: raw NOTRACK, passes as UNTRACKED, never in the table
note("ntp v4 out and back (NOTRACK: UNTRACKED)")
udp(H30, 123, "203.0.113.123", 123, rnd(48))
udp("203.0.113.123", 123, H30, 123, rnd(48))

# --- FTP: the helper on port 21 (raw CT --helper ftp)
note("ftp control: handshake, login")
f = Tcp(H20, 40021, FTP4, 21)
f.handshake()
f.s2c("PA", b"220 ftp.example.net ready\r\n")
f.c2s("PA", b"USER anonymous\r\n")
f.s2c("PA", b"331 Password please\r\n")
f.c2s("PA", b"PASS guest\r\n")
f.s2c("PA", b"230 Logged in\r\n")
note("  PASV, 227 announces port 50000; data connection to it (RELATED, out)")
f.c2s("PA", b"PASV\r\n")
f.s2c("PA", b"227 Entering Passive Mode (%s).\r\n" % ftp_addr(FTP4, 50000).encode())
f.c2s("PA", b"LIST\r\n")
d = Tcp(H20, 40100, FTP4, 50000)
d.handshake()
f.s2c("PA", b"150 Here comes the listing\r\n")
d.s2c("PA", b"-rw-r--r-- 1 ftp ftp 42 Jan 01 00:00 README\r\n")
d.c2s("A")
d.s2c("FA")
d.c2s("FA")
d.s2c("A")
f.s2c("PA", b"226 Done\r\n")
note("  PORT announces 192.168.1.20:40001; server's data connection to it (RELATED, in)")
f.c2s("PA", b"PORT %s\r\n" % ftp_addr(H20, 40001).encode())
f.s2c("PA", b"200 PORT ok\r\n")
f.c2s("PA", b"RETR README\r\n")
d = Tcp(FTP4, 20, H20, 40001)
d.handshake()
f.s2c("PA", b"150 Opening data connection\r\n")
d.c2s("PA", b"forty-two bytes of a file nobody will read")
d.s2c("A")
d.close()
f.s2c("PA", b"226 Transfer complete\r\n")
note("  server's data connection to a port nobody announced (NEW from wan: dropped)")
Tcp(FTP4, 20, H20, 40002).c2s("S", win=64240, opts=[("MSS", 1460)])
note("  PASV announcing 50002, never used (stays in the expectation table)")
f.c2s("PA", b"PASV\r\n")
f.s2c("PA", b"227 Entering Passive Mode (%s).\r\n" % ftp_addr(FTP4, 50002).encode())
f.c2s("A")

# --- fragments of UDP datagrams in allowed flows: inbound IPv4 in order, inbound IPv6 reversed
note("udp v4 flow out, reply in 2 fragments (in order)")
udp(H30, 40500, REMOTE, 9500, rnd(40))
big4 = IP(src=REMOTE, dst=H30, id=0x4242) / UDP(sport=9500, dport=40500) / Raw(rnd(2000))
for fr in fragment(big4, fragsize=1200):
    emit(fr)
note("udp v6 flow out, reply in 2 fragments (last first)")
udp(H6_20, 40600, REMOTE6, 9600, rnd(40))
big6 = (IPv6(src=REMOTE6, dst=H6_20) / IPv6ExtHdrFragment(id=0x6161) /
        UDP(sport=9600, dport=40600) / Raw(rnd(2000)))
for fr in reversed(fragment6(big6, 1280)):
    emit(fr)
note("end")

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                          "stateful-router.pcap")
with open(out, "wb") as fp:
    fp.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i, fr in enumerate(frames):
        usec = i * GAP_US
        fp.write(struct.pack("<IIII", T0 + usec // 1000000, usec % 1000000, len(fr), len(fr)))
        fp.write(fr)
print("%s: %d frames" % (out, len(frames)), file=sys.stderr)

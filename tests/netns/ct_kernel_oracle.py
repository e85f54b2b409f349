# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/ct_kernel_oracle.py CASE KT EX - the kernel's conntrack verdict per packet.
#
# Run by ct-kernel-oracle.sh. Namespace KT holds the server 10.9.0.1 (its packets are sent
# from KT with a raw socket, OUTPUT), EX the client 10.9.0.2 (its packets arrive at KT's
# INPUT). After each packet, which INPUT/OUTPUT --ctstate counter of KT moved is printed;
# then KT's conntrack -L. Packets are sent with TTL 99: the kernels' own TCP answers (TTL 64)
# are dropped in raw OUTPUT so that only the listed packets are tracked. The unit tests
# tests/unit/test_ct_*.c carry these answers.
import socket, subprocess, sys
from scapy.all import IP, TCP, UDP, ICMP, GRE, GRE_PPTP
from scapy.layers.sctp import (SCTP, SCTPChunkInit, SCTPChunkInitAck, SCTPChunkCookieEcho,
    SCTPChunkCookieAck, SCTPChunkData, SCTPChunkShutdown, SCTPChunkShutdownAck,
    SCTPChunkShutdownComplete)
import time
C, SV = "10.9.0.2", "10.9.0.1"
name, KT, EX = sys.argv[1], sys.argv[2], sys.argv[3]
def send(ns, p):
    b = bytes(p).hex()
    subprocess.run(["ip", "netns", "exec", ns, "/usr/bin/python3", "-c",
        "import socket,sys;s=socket.socket(socket.AF_INET,socket.SOCK_RAW,socket.IPPROTO_RAW);b=bytes.fromhex(sys.argv[1]);s.sendto(b,(sys.argv[2],0))", b, p[IP].dst], check=True)
def counters():
    out = subprocess.run(["ip","netns","exec",KT,"iptables","-L","-v","-n","-x"],capture_output=True,text=True).stdout
    res = {}
    chain = None
    for l in out.splitlines():
        if l.startswith("Chain"): chain = l.split()[1]
        elif "ctstate" in l: res[(chain, l.split()[-1])] = int(l.split()[0])
    return res
def C2S(**k): return IP(src=C, dst=SV, ttl=99)/TCP(sport=1234, dport=80, **k)
def S2C(**k): return IP(src=SV, dst=C, ttl=99)/TCP(sport=80, dport=1234, **k)
def SC(tag, ch): return IP(src=C, dst=SV, ttl=99)/SCTP(sport=5000, dport=80, tag=tag)/ch
def SS(tag, ch): return IP(src=SV, dst=C, ttl=99)/SCTP(sport=80, dport=5000, tag=tag)/ch
def GC(**k): return IP(src=C, dst=SV, ttl=99)/GRE(**k)/IP(src="192.0.2.7", dst="192.0.2.8")
def GS(**k): return IP(src=SV, dst=C, ttl=99)/GRE(**k)/IP(src="192.0.2.8", dst="192.0.2.7")
A, B = 0x11111111, 0x22222222
sctp_hs = [(EX, SC(0, SCTPChunkInit(init_tag=A))), (KT, SS(A, SCTPChunkInitAck(init_tag=B))),
           (EX, SC(B, SCTPChunkCookieEcho(cookie=b"c"*8))), (KT, SS(A, SCTPChunkCookieAck()))]
def opts(ws): return [("WScale", ws)] if ws is not None else []
cases = {
 "scaled": [(EX, C2S(flags="S", seq=1000, window=64240, options=opts(7))),
            (KT, S2C(flags="SA", seq=5000, ack=1001, window=1000, options=opts(7))),
            (EX, C2S(flags="A", seq=1001, ack=5001, window=502)),
            (KT, S2C(flags="A", seq=5001, ack=1001, window=1000)),
            (EX, C2S(flags="A", seq=50001, ack=5001, window=502)/(b"x"*100))],
 "unscaled": [(EX, C2S(flags="S", seq=1000, window=64240, options=opts(7))),
            (KT, S2C(flags="SA", seq=5000, ack=1001, window=1000)),
            (EX, C2S(flags="A", seq=1001, ack=5001, window=502)),
            (KT, S2C(flags="A", seq=5001, ack=1001, window=1000)),
            (EX, C2S(flags="A", seq=50001, ack=5001, window=502)/(b"x"*100))],
 "oow": [(EX, C2S(flags="S", seq=1000, window=64240)),
            (KT, S2C(flags="SA", seq=5000, ack=1001, window=65160)),
            (EX, C2S(flags="A", seq=1001, ack=5001, window=502)),
            (EX, C2S(flags="A", seq=300000, ack=5001, window=502)/(b"x"*10)),
            (EX, C2S(flags="A", seq=1001, ack=900000, window=502)),
            (KT, S2C(flags="A", seq=4000000000, ack=1001, window=509)/(b"x"*10)),
            (KT, S2C(flags="R", seq=4000)),
            (KT, S2C(flags="R", seq=5001))],
 "lower": [(EX, C2S(flags="S", seq=1000, window=64240)),
            (KT, S2C(flags="SA", seq=5000, ack=1001, window=65160)),
            (EX, C2S(flags="A", seq=1001, ack=5001, window=502)),
            (EX, C2S(flags="A", seq=1001, ack=4000000000, window=502)),
            (EX, C2S(flags="A", seq=4000000000, ack=5001, window=502)),
            (EX, C2S(flags="FA", seq=4000000000, ack=5001, window=502)),
            (EX, C2S(flags="R", seq=4000000000)),
            (EX, C2S(flags="A", seq=1001, ack=5001, window=502))],
 "icmp": [(EX, IP(src=C, dst=SV)/UDP(sport=5000, dport=53)/(b"q"*20)),
            (KT, IP(src=SV, dst=C)/UDP(sport=7000, dport=9)/(b"q"*20)),
            (EX, IP(src=C, dst=SV)/ICMP(type=3, code=3)/IP(src=SV, dst=C)/UDP(sport=7001, dport=9)),
            (EX, IP(src=C, dst=SV)/ICMP(type=3, code=3)/IP(src=C, dst=SV)/UDP(sport=5000, dport=53)),
            (EX, IP(src=C, dst=SV)/ICMP(type=3, code=3)/IP(src=SV, dst=C)/UDP(sport=7000, dport=9)),
            (EX, IP(src=C, dst=SV)/ICMP(type=8, id=77, seq=1)),
            (EX, IP(src=C, dst=SV)/ICMP(type=0, id=99, seq=1)),
            (EX, IP(src=C, dst=SV)/ICMP(type=9))],
 "sctp": sctp_hs + [(EX, SC(A, SCTPChunkData(data=b"x"*4))),
            (KT, SS(B, SCTPChunkData(data=b"x"*4))),
            (EX, SC(B, SCTPChunkData(data=b"x"*4)))],
 "sctpinit": sctp_hs[:1],
 "sctpshut": sctp_hs + [(EX, SC(B, SCTPChunkShutdown())), (KT, SS(A, SCTPChunkShutdownAck())),
            (EX, SC(B, SCTPChunkShutdownComplete()))],
 "gre": [(EX, GC()), (KT, GS()), (EX, GC()), (EX, GC(key_present=1, key=1)),
            (KT, GS(key_present=1, key=1)), (EX, IP(src=C, dst=SV, ttl=99)/GRE_PPTP(call_id=0x1111))],
 "simopen": [(EX, C2S(flags="S", seq=100, window=64240)),
            (KT, S2C(flags="S", seq=300, window=64240)),
            (KT, S2C(flags="SA", seq=300, ack=101, window=64240)),
            (EX, C2S(flags="SA", seq=100, ack=301, window=64240)),
            (KT, S2C(flags="A", seq=301, ack=101, window=64240))],
}
for ns, p in cases[name]:
    before = counters()
    send(ns, p)
    time.sleep(0.1)
    after = counters()
    hit = [k for k in after if after[k] != before.get(k, 0)]
    print(name, "server" if ns == KT else "client", p.summary(), "->", ",".join(f"{c}:{s}" for c, s in hit))
print(subprocess.run(["ip","netns","exec",KT,"conntrack","-L"],capture_output=True,text=True).stdout, end="")

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write tests/diff/sets.pcap: traffic for tests/diff/sets.rules with tests/diff/sets.ipset
(the kernel's answers: tests/diff/sets.kernel, recorded with kernel-replay.py --sets).

Inside hosts 192.168.1.x / fd00:1::x on lan0, outside hosts on wan0. Each frame is there to
hit one set type: hash:ip (blocked, filled by -j SET), hash:net with a nomatch hole
(lannets), hash:ip,port (websvc), hash:net,port (sshfrom), hash:ip,port,ip (pinhole),
hash:ip,port,net (dmzin), hash:net,iface (ifnets), bitmap:ip and list:set (allow), bitmap:port
(lowports), an inet6 hash:net (v6nets), and element counters (--packets-lt on 'metered').
Deterministic: timestamps from 2026-01-01T00:00:00Z, 40 ms apart; every timeout in the sets
is far longer than the capture.
Run: /usr/bin/python3 tests/diff/make-sets.py [DIR]
"""
import os
import sys

from scapy.all import IP, TCP, UDP, Ether, IPv6, wrpcap

GW_LAN, GW_WAN = "02:00:00:00:00:01", "02:00:00:00:00:02"
LAN_MAC, ISP = "02:00:00:00:01:02", "02:00:00:00:02:01"
T0 = 1767225600


def lan(pkt):
    return Ether(src=LAN_MAC, dst=GW_LAN) / pkt


def wan(pkt):
    return Ether(src=ISP, dst=GW_WAN) / pkt


def syn(sport, dport):
    return TCP(sport=sport, dport=dport, flags="S", seq=1000, window=64240)


FRAMES = [
    # lan -> web service (hash:net in, hash:net,iface, hash:ip,port)
    lan(IP(src="192.168.1.10", dst="198.51.100.7") / syn(40001, 443)),
    lan(IP(src="192.168.1.10", dst="198.51.100.7") / syn(40002, 22)),          # not a service
    lan(IP(src="192.168.1.10", dst="198.51.100.8") / UDP(sport=5353, dport=53)),
    lan(IP(src="192.168.1.150", dst="198.51.100.7") / syn(40003, 443)),        # nomatch /25
    lan(IP(src="192.168.1.200", dst="198.51.100.7") / syn(40004, 443)),        # /32 in the hole
    lan(IP(src="192.168.1.30", dst="198.51.100.99") / syn(40005, 1)),          # bitmap in list
    lan(IP(src="192.168.1.31", dst="198.51.100.99") / syn(40006, 1)),
    # wan -> lan: hash:net,port, hash:ip,port,ip, hash:ip,port,net, bitmap:port
    wan(IP(src="203.0.113.9", dst="192.168.1.10") / syn(50001, 22)),
    wan(IP(src="203.0.113.5", dst="192.168.1.10") / syn(50002, 8080)),
    wan(IP(src="203.0.113.6", dst="192.168.1.10") / syn(50003, 8080)),        # wrong source
    wan(IP(src="198.51.100.77", dst="192.168.1.20") / syn(50004, 25)),
    wan(IP(src="192.0.2.1", dst="192.168.1.10") / UDP(sport=123, dport=123)),
    # the rest from outside: -j SET adds the source to 'blocked', then it is blocked both ways
    wan(IP(src="192.0.2.50", dst="192.168.1.10") / syn(50005, 8080)),
    wan(IP(src="192.0.2.50", dst="192.168.1.10") / syn(50006, 22)),
    lan(IP(src="192.168.1.10", dst="192.0.2.50") / syn(40007, 443)),
    # element counters: the first two packets to 198.51.100.9:443 pass, then no more
    lan(IP(src="192.168.1.11", dst="198.51.100.9") / syn(40008, 443)),
    lan(IP(src="192.168.1.11", dst="198.51.100.9") / syn(40009, 443)),
    lan(IP(src="192.168.1.11", dst="198.51.100.9") / syn(40010, 443)),
    # IPv6: an inet6 hash:net from inside, the rest refused
    lan(IPv6(src="fd00:1::10", dst="2001:db8:7::7") / syn(40011, 443)),
    lan(IPv6(src="fd00:2::10", dst="2001:db8:7::7") / syn(40012, 443)),
]


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for i, f in enumerate(FRAMES):
        f.time = T0 + i * 0.04
    wrpcap(os.path.join(d, "sets.pcap"), FRAMES)


if __name__ == "__main__":
    main()

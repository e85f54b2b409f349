#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write tests/diff/tcp-corners-4.pcap and tcp-corners-6.pcap: TCP corner cases of connection
tracking, as a stateful gateway receives them (for tests/diff/tcp-corners.rules and
tests/diff/run-tcp-corners.sh; the kernel's answers are tests/diff/tcp-corners-{4,6}.kernel).

Each case is one connection (client port 41000 + case number, server port 80): the client
10.1.0.2 / fd00:1::2 sits on lan0, the server 203.0.113.10 / 2001:db8:2::10 on wan0. The
same cases, packet for packet, make the IPv4 and the IPv6 capture. Sequence numbers are
absolute and chosen by hand so that every packet is in or out of window on purpose; the
comment of each case says what the current kernel decides (the .kernel files are the proof).
Deterministic: timestamps from 2026-01-01T00:00:00Z, 40 ms apart (about what the kernel
harness spends per packet). The cases whose connection ends in CLOSE come last, so that no
clock reaches TCP CLOSE's 10 s timeout before the tables are listed.
Run from anywhere: /usr/bin/python3 tests/diff/make-tcp-corners.py [DIR]
The frame numbers of the cases are printed on stderr. With --live instead, it writes
tests/diff/live/tcp-corners.case: a part of the cases for the live comparison, each
packet marked with the kernel's verdict from tcp-corners-4.kernel.
"""
import os
import struct
import sys

from scapy.all import IP, TCP, Ether, IPv6, Raw

GW_LAN, GW_WAN = "02:00:00:00:00:01", "02:00:00:00:00:02"
CLIENT_MAC, ISP = "02:00:00:00:01:02", "02:00:00:00:02:01"
T0 = 1767225600
GAP_US = 40000
ADDR = {4: ("10.1.0.2", "203.0.113.10"), 6: ("fd00:1::2", "2001:db8:2::10")}


def C(flags, seq, ack=0, win=64240, n=0, opts=None):
    return ("c", flags, seq, ack, win, n, opts or [])


def S(flags, seq, ack=0, win=65160, n=0, opts=None):
    return ("s", flags, seq, ack, win, n, opts or [])


def hs(cisn=1000, sisn=5000, cwin=64240, swin=65160, copts=None, sopts=None):
    """The three-way handshake: SYN, SYN-ACK, ACK."""
    return [C("S", cisn, win=cwin, opts=copts), S("SA", sisn, cisn + 1, win=swin, opts=sopts),
            C("A", cisn + 1, sisn + 1)]


def est():
    """Handshake, 100 bytes each way, acknowledged: client at 1101, server at 5101."""
    return hs() + [C("PA", 1001, 5001, n=100), S("A", 5001, 1101), S("PA", 5001, 1101, n=100),
                   C("A", 1101, 5101)]


CASES = [
    # --- SYN_SENT / SYN_RECV: a side starts over only on a SYN
    ("syn-sent-stray-rst", "client RST beyond its SYN in SYN_SENT: INVALID, the connection goes on",
     [C("S", 1000), C("R", 200000), S("SA", 5000, 1001), C("A", 1001, 5001)]),
    ("syn-recv-stray-rst", "server RST beyond its SYN-ACK in SYN_RECV: INVALID, ESTABLISHED after",
     [C("S", 1000), S("SA", 5000, 1001), S("R", 300000), C("A", 1001, 5001)]),
    ("syn-recv-stray-ack", "server data beyond its window in SYN_RECV: INVALID",
     [C("S", 1000), S("SA", 5000, 1001), S("PA", 900000, 1001, n=10), C("A", 1001, 5001)]),
    ("syn-new-isn", "SYN retransmitted with a higher ISN: tracking starts over from it",
     [C("S", 1000), C("S", 3000000), S("SA", 5000, 3000001), C("A", 3000001, 5001),
      C("PA", 3000001, 5001, n=10)]),
    ("syn-lower-isn", "SYN retransmitted with a lower ISN: passes, the first one is kept",
     [C("S", 1000), C("S", 500), S("SA", 5000, 501), C("A", 501, 5001)]),
    ("synack-new-isn", "SYN-ACK retransmitted with a higher ISN in SYN_RECV: starts over",
     [C("S", 1000), S("SA", 5000, 1001), S("SA", 2000000, 1001), C("A", 1001, 2000001)]),
    # --- challenge ACKs
    ("syn-challenge-ack", "SYN answered by a challenge ACK: only an RST at its number passes",
     [C("S", 1000), S("A", 7000, 400000), C("R", 400001), C("R", 400000), C("S", 1000),
      S("SA", 5000, 1001), C("A", 1001, 5001)]),
    ("synack-reuse", "SYN on an established connection, challenge ACK, RST, SYN again",
     est() + [C("S", 2000, opts=[("WScale", 7)]), S("A", 5101, 1101), C("RA", 1101, 5101),
              C("S", 2000, opts=[("WScale", 0)]), S("SA", 6000, 2001)]),
    ("last-ack-syn", "SYN in LAST_ACK, then an ACK from the same side: TIME_WAIT",
     est() + [S("FA", 5101, 1101), C("FA", 1101, 5102), C("S", 3000), C("A", 1102, 5102)]),
    ("last-ack-challenge", "SYN in LAST_ACK answered by a challenge ACK: stays LAST_ACK",
     est() + [S("FA", 5101, 1101), C("FA", 1101, 5102), C("S", 3000), S("A", 5102, 1102),
              S("A", 5102, 1102)]),
    # --- SYN-ACKs of an older incarnation
    ("synack-old-higher", "stale SYN-ACK, then the right one (higher ISN): both pass after",
     [C("S", 1000), S("SA", 5000, 9999), S("SA", 90000, 1001), C("A", 1001, 90001),
      C("PA", 1001, 90001, n=20), S("A", 90001, 1021)]),
    ("synack-old-lower", "stale SYN-ACK, SYN retransmit, the right one 65535 below",
     [C("S", 1000, win=65535, opts=[("MSS", 1460), ("SAckOK", b""), ("WScale", 8)]),
      S("SA", 145824453, 643160523, win=240, opts=[("MSS", 1440), ("WScale", 0)]),
      C("S", 1000, win=65535, opts=[("MSS", 1460), ("SAckOK", b""), ("WScale", 8)]),
      S("SA", 145758918, 1001, win=250, opts=[("MSS", 1460), ("WScale", 0)]),
      C("PA", 1001, 145758919, win=256, n=1), S("A", 145758919, 1002, win=250)]),
    # --- RSTs in ESTABLISHED
    ("invalid-rst", "RSTs below the last ACK or beyond the window: INVALID, data goes on",
     est() + [C("R", 1000), C("R", 1001101), C("PA", 1101, 5101, n=10), S("A", 5101, 1111)]),
    ("invalid-fin-then-rst", "an out-of-window FIN, then an RST at the end of the data",
     est() + [C("PA", 1101, 5101, n=50), C("FA", 900000, 5101), C("R", 1151),
              S("A", 5101, 1151)]),
    # --- windows
    ("ack-loss-stall", "data beyond a window the tracker never saw open: passes, and its ACK",
     hs(swin=1000) + [C("PA", 1001, 5001, n=500), C("PA", 1501, 5001, n=500),
                      C("PA", 2001, 5001, n=500), C("PA", 2501, 5001, n=500),
                      S("A", 5001, 3001, win=1000), C("PA", 3001, 5001, n=500)]),
    ("retransmit-acked", "a retransmit of data acknowledged long ago passes",
     hs(swin=1000) + [C("PA", 1001, 5001, n=1000), S("A", 5001, 2001, win=1000),
                      C("PA", 2001, 5001, n=1000), S("A", 5001, 3001, win=1000),
                      C("PA", 3001, 5001, n=1000), S("A", 5001, 4001, win=1000),
                      C("PA", 1001, 5001, n=1000), S("A", 5001, 4001, win=1000)]),
    ("wscale", "both sides scale: data up to the scaled window passes, beyond it INVALID",
     hs(copts=[("WScale", 7)], sopts=[("WScale", 2)]) +
     [S("A", 5001, 1001, win=60000), C("PA", 200001, 5001, win=502, n=100),
      C("PA", 500001, 5001, win=502, n=100)]),
    ("wscale-one-side", "only the client offers scaling: windows unscaled, so INVALID",
     hs(copts=[("WScale", 7)]) +
     [S("A", 5001, 1001, win=60000), C("PA", 15001, 5001, win=502, n=100),
      C("PA", 200001, 5001, win=502, n=100)]),
    # --- SYN on TIME_WAIT
    ("syn-time-wait", "a new SYN in TIME_WAIT opens a new connection",
     est() + [C("FA", 1101, 5101), S("FA", 5101, 1102), C("A", 1102, 5102),
              C("S", 20000), S("SA", 9000, 20001), C("A", 20001, 9001)]),
    ("syn-time-wait-reply", "the server's SYN in TIME_WAIT opens one the other way round",
     est() + [C("FA", 1101, 5101), S("FA", 5101, 1102), C("A", 1102, 5102),
              S("S", 8000), C("SA", 20000, 8001), S("A", 8001, 20001)]),
    ("simopen-overshoot", "SYN in TIME_WAIT from each side (simultaneous open), SYN-ACK beyond",
     est() + [C("FA", 1101, 5101), S("FA", 5101, 1102), C("A", 1102, 5102),
              S("S", 8000), C("S", 20000), S("SA", 9000, 20001), C("A", 20001, 9001)]),
    # --- the cases that end in CLOSE come last: such an entry lives 10 s in the kernel
    # --- RST on a closing connection: the kernel checks no sequence number any more
    ("rst-fin-wait", "RST below the client's last ACK in FIN_WAIT: passes, CLOSE",
     est() + [C("FA", 1101, 5101), S("R", 4000)]),
    ("rst-close-wait", "RST below the client's last ACK in CLOSE_WAIT: passes, CLOSE",
     est() + [C("FA", 1101, 5101), S("A", 5101, 1102), S("R", 5000)]),
    ("rst-last-ack", "client RST below the server's last ACK in LAST_ACK: passes, CLOSE",
     est() + [C("FA", 1101, 5101), S("A", 5101, 1102), S("FA", 5101, 1102), C("R", 900)]),
    ("rst-time-wait", "RST below the client's last ACK in TIME_WAIT: passes, CLOSE",
     est() + [C("FA", 1101, 5101), S("FA", 5101, 1102), C("A", 1102, 5102), S("R", 5050)]),
    ("rst-close", "a second RST, below the last ACK, in CLOSE: passes",
     est() + [C("R", 1101), S("R", 4000)]),
    ("rst-fin-wait-far", "RST far beyond the window in FIN_WAIT: passes, CLOSE",
     est() + [S("FA", 5101, 1101), C("R", 2000000)]),
    ("rst-to-ignored-syn", "SYN in ESTABLISHED is ignored, the RST answering it closes",
     est() + [C("S", 77777), S("RA", 0, 77778)]),
    ("inexact-rst", "RST in window but not exact: passes, stays ESTABLISHED; exact one closes",
     est() + [C("R", 1150), S("A", 5101, 1101), C("R", 1101)]),
    ("rst-train", "RST right after the same side's data: CLOSE",
     est() + [C("PA", 1101, 5101, n=50), C("R", 1151)]),
]


def frame(fam, i, p):
    side, flags, seq, ack, win, n, opts = p
    cli, srv = ADDR[fam]
    cport, sport = 41000 + i, 80
    src, dst, sp, dp = (cli, srv, cport, sport) if side == "c" else (srv, cli, sport, cport)
    ip = IP(src=src, dst=dst, id=0x1000 + i) if fam == 4 else IPv6(src=src, dst=dst)
    tcp = TCP(sport=sp, dport=dp, flags=flags, seq=seq, ack=ack, window=win, options=opts)
    pkt = ip / tcp / Raw(b"d" * n) if n else ip / tcp
    eth = Ether(src=CLIENT_MAC, dst=GW_LAN) if side == "c" else Ether(src=ISP, dst=GW_WAN)
    return bytes(eth / pkt)


def write(path, frames):
    with open(path, "wb") as fp:
        fp.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            usec = i * GAP_US
            fp.write(struct.pack("<IIII", T0 + usec // 1000000, usec % 1000000, len(fr), len(fr)))
            fp.write(fr)


# The cases tests/diff/live/tcp-corners.case runs live (the ones pkttables decided as
# older kernels did, and a few around them), with the live topology's addresses.
LIVE = ["syn-sent-stray-rst", "syn-recv-stray-rst", "syn-challenge-ack", "synack-old-higher",
        "last-ack-syn", "invalid-fin-then-rst", "ack-loss-stall", "rst-fin-wait",
        "rst-time-wait", "rst-fin-wait-far", "rst-to-ignored-syn"]
LIVE_ADDR = {4: ("10.1.0.2", "10.2.0.2"), 6: ("2001:db8:1::2", "2001:db8:2::2")}
FLAG_WORDS = {"F": "fin", "S": "syn", "R": "rst", "P": "psh", "A": "ack"}


def live_line(fam, i, p, verdict):
    side, flags, seq, ack, win, n, opts = p
    cli, srv = LIVE_ADDR[fam]
    ep = (lambda a, port: "%s:%d" % (a, port)) if fam == 4 else (
        lambda a, port: "[%s]:%d" % (a, port))
    c, s_ = ep(cli, 42000 + i), ep(srv, 80)
    src, dst = (c, s_) if side == "c" else (s_, c)
    words = ",".join(FLAG_WORDS[f] for f in "FSRPA" if f in flags)
    text = "tcp %s > %s %s seq=%d" % (src, dst, words, seq)
    if "A" in flags:
        text += " ack=%d" % ack
    text += " win=%d" % win
    for kind, val in opts:
        text += {"MSS": " mss=%d", "WScale": " wscale=%d"}.get(kind, " sackok") % (
            (val,) if kind in ("MSS", "WScale") else ())
    if n:
        text += " len=%d" % n
    return "%s: %s => %s" % ("client" if side == "c" else "server", text, verdict)


def write_live(path, kernel_ref):
    """The LIVE cases as a live-diff case, each packet with the kernel's verdict from the
    recorded IPv4 reference (the IPv6 one is the same)."""
    dropped = set()
    with open(kernel_ref) as f:
        for line in f:
            w = line.split()
            if len(w) == 2 and w[1] == "dropped":
                dropped.add(int(w[0]))
    lines = ["# Written by tests/diff/make-tcp-corners.py --live (do not edit): TCP tracking's corner",
             "# cases where pkttables decided as kernels before ~6.1 did (RST on closing connections,",
             "# restarts in SYN_SENT/SYN_RECV only on a SYN, the RST at a challenge ACK's number, the",
             "# right SYN-ACK after a stale one), live, IPv4 and IPv6. tests/diff/README.md, \"TCP corner",
             "# cases\", says what the kernel decides and why. A longer gap than the default, so that",
             "# a loaded machine does not push a forwarded packet into the next one's time.",
             "gap 70ms",
             "rules <<EOF", "*filter", ":INPUT ACCEPT [0:0]", ":FORWARD ACCEPT [0:0]",
             ":OUTPUT ACCEPT [0:0]", "-A FORWARD -m conntrack --ctstate INVALID -j DROP",
             "COMMIT", "EOF"]
    for fam in (4, 6):
        frameno = 0
        for i, (name, what, pkts) in enumerate(CASES):
            if name not in LIVE:
                frameno += len(pkts)
                continue
            lines.append("# %s (IPv%d): %s" % (name, fam, what))
            for p in pkts:
                frameno += 1
                verdict = "dropped" if frameno in dropped else "forwarded"
                lines.append(live_line(fam, i, p, verdict))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("%s: %d packets" % (path, sum(1 for x in lines if x.startswith(("client:", "server:")))),
          file=sys.stderr)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    if len(sys.argv) > 1 and sys.argv[1] == "--live":
        write_live(os.path.join(here, "live", "tcp-corners.case"),
                   os.path.join(here, "tcp-corners-4.kernel"))
        return
    out = sys.argv[1] if len(sys.argv) > 1 else here
    for fam in (4, 6):
        frames = []
        for i, (name, what, pkts) in enumerate(CASES):
            if fam == 4:
                print("%4d-%-4d %-20s %s" % (len(frames) + 1, len(frames) + len(pkts), name,
                                             what), file=sys.stderr)
            frames += [frame(fam, i, p) for p in pkts]
        path = os.path.join(out, "tcp-corners-%d.pcap" % fam)
        write(path, frames)
        print("%s: %d frames" % (path, len(frames)), file=sys.stderr)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""kernel-replay: run a pcap through the real kernel's netfilter, as the reference for
`pkttables replay`. Needs root, iproute2, ethtool, iptables and python3-scapy.

    kernel-replay.py --rules RULES [-4|-6|--unified] [--legacy] [--gap SEC] [--conntrack]
                     IN.pcap > OUT

Three namespaces, lan -- gw -- wan, joined by veth pairs; the gateway's interfaces are named
lan0 and wan0 as in the default box of `pkttables replay`:

    [lan] eth0 ==== lan0 [gw] wan0 ==== eth0 [wan]
     10/8 172.16/12 192.168/16 fc00::/7   everything else (default routes)

The ruleset is loaded in gw (iptables-restore and/or ip6tables-restore). Each frame of the
capture is injected, in order, from the end namespace its source address routes to, and both
end namespaces are watched for what comes out during --gap seconds. See tests/diff/README.md.
"""
import argparse
import ipaddress
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nsock import PACKET_OUTGOING, ns_socket  # noqa: E402

# Addresses the harness gives the gateway and its neighbours. They never appear on the wire
# except as Ethernet addresses: the gateway has no IP address at all (like the default box).
GW_MAC = {"lan0": "02:6b:00:00:00:01", "wan0": "02:6b:00:00:00:02"}
END_MAC = {"lan0": "02:6b:00:00:01:00", "wan0": "02:6b:00:00:02:00"}
NEXTHOP4 = {"lan0": "169.254.1.1", "wan0": "169.254.2.1"}
NEXTHOP6 = "fe80::1"  # on each link
INSIDE = [ipaddress.ip_network(n) for n in
          ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")]


class Timeout(Exception):
    pass


def sh(ns, *cmd, stdin=None, check=True):
    full = (["ip", "netns", "exec", ns] if ns else []) + list(cmd)
    r = subprocess.run(full, input=stdin, capture_output=True, timeout=20)
    if check and r.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(full), r.returncode,
                                                r.stderr.decode(errors="replace").strip()))
    return r.stdout.decode(errors="replace")


def sysctl(ns, *pairs):
    for k, v in pairs:
        sh(ns, "sysctl", "-q", "-w", "%s=%s" % (k, v))


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    if magic in (0xa1b2c3d4, 0xa1b23c4d):
        e = "<"
    elif magic in (0xd4c3b2a1, 0x4d3cb2a1):
        e = ">"
    else:
        raise SystemExit("%s: not a classic pcap file (pcapng is not supported)" % path)
    linktype = struct.unpack(e + "I", data[20:24])[0]
    if linktype != 1:
        raise SystemExit("%s: link type %d, need Ethernet (1)" % (path, linktype))
    off, frames = 24, []
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(e + "IIII", data[off:off + 16])
        frames.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return frames


def l3_of(frame):
    """(ethertype, offset of the L3 header), skipping 802.1Q tags."""
    off = 12
    et = struct.unpack("!H", frame[off:off + 2])[0] if len(frame) >= 14 else 0
    while et in (0x8100, 0x88a8) and len(frame) >= off + 6:
        off += 4
        et = struct.unpack("!H", frame[off:off + 2])[0]
    return et, off + 2


def source_side(frame):
    """lan0 when the source address is an inside one, else wan0 (also when unreadable)."""
    et, o = l3_of(frame)
    src = None
    if et == 0x0800 and len(frame) >= o + 16:
        src = ipaddress.ip_address(frame[o + 12:o + 16])
    elif et == 0x86dd and len(frame) >= o + 24:
        src = ipaddress.ip_address(frame[o + 8:o + 24])
    if src is not None and any(src in n for n in INSIDE if n.version == src.version):
        return "lan0"
    return "wan0"


def mac_bytes(m):
    return bytes(int(x, 16) for x in m.split(":"))


def rewrite(frame, side):
    """Unicast destination MAC := the gw interface the frame enters; multicast kept."""
    if frame[0] & 1:
        return frame
    return mac_bytes(GW_MAC[side]) + frame[6:]


def norm_l3(frame):
    """L3 bytes without what forwarding changes (TTL/hop limit, IPv4 checksum, the
    identification of an IPv6 fragment header right after the fixed header), trimmed to the
    length the IP header claims. None for non-IP."""
    et, o = l3_of(frame)
    b = bytearray(frame[o:])
    if et == 0x0800 and len(b) >= 20:
        tot = struct.unpack("!H", b[2:4])[0]
        if 20 <= tot <= len(b):
            del b[tot:]
        b[8] = 0
        b[10:12] = b"\0\0"
        return bytes(b)
    if et == 0x86dd and len(b) >= 40:
        plen = struct.unpack("!H", b[4:6])[0]
        if 40 + plen <= len(b):
            del b[40 + plen:]
        b[7] = 0
        if b[6] == 44 and len(b) >= 48:
            # A reassembled datagram is refragmented on the way out with a new identification
            # (the kernel picks one per destination, not the sender's): the same fragment
            # under another number is still this frame's copy.
            b[44:48] = b"\0\0\0\0"
        return bytes(b)
    return None


TCPFLAGS = "FSRPAUEC"


def describe(frame):
    """One line for a frame the gateway sent on its own (REJECT, ICMP errors, ...)."""
    from scapy.all import Ether, IP, IPv6, TCP, UDP, ICMP, ICMPv6EchoRequest  # noqa: F401
    from scapy.layers.inet6 import _ICMPv6Error  # noqa: F401
    p = Ether(frame)
    if IP in p:
        ip = p[IP]
        head = "IPv4 %s > %s ttl=%d" % (ip.src, ip.dst, ip.ttl)
        l4 = ip.payload
    elif IPv6 in p:
        ip = p[IPv6]
        head = "IPv6 %s > %s hlim=%d" % (ip.src, ip.dst, ip.hlim)
        l4 = ip.payload
    else:
        return "non-IP ethertype 0x%04x len=%d" % (p.type, len(frame))
    if isinstance(l4, TCP):
        flags = "".join(c for i, c in enumerate(TCPFLAGS) if int(l4.flags) & (1 << i))
        return "%s tcp %d > %d flags=%s seq=%d ack=%d win=%d len=%d" % (
            head, l4.sport, l4.dport, flags, l4.seq, l4.ack, l4.window, len(l4.payload))
    raw = bytes(l4)
    nh = ip.proto if isinstance(ip, IP) else ip.nh
    if (nh == 1 or nh == 58) and len(raw) >= 8:
        name = "icmp" if nh == 1 else "icmp6"
        inner = quoted(raw[8:], 4 if nh == 1 else 6)
        return "%s %s type=%d code=%d%s len=%d" % (head, name, raw[0], raw[1],
                                                   (" quoting " + inner) if inner else "",
                                                   len(raw))
    return "%s proto=%d len=%d" % (head, nh, len(raw))


def quoted(b, ver):
    """Short description of the packet an ICMP error quotes."""
    try:
        if ver == 4 and len(b) >= 20:
            ihl = (b[0] & 15) * 4
            src, dst = socket.inet_ntop(socket.AF_INET, b[12:16]), socket.inet_ntop(
                socket.AF_INET, b[16:20])
            proto, l4 = b[9], b[ihl:]
        elif ver == 6 and len(b) >= 40:
            src, dst = socket.inet_ntop(socket.AF_INET6, b[8:24]), socket.inet_ntop(
                socket.AF_INET6, b[24:40])
            proto, l4 = b[6], b[40:]
        else:
            return ""
        name = {6: "tcp", 17: "udp", 1: "icmp", 58: "icmp6", 44: "frag"}.get(proto, str(proto))
        if proto in (6, 17) and len(l4) >= 4:
            sp, dp = struct.unpack("!HH", l4[:4])
            return "%s %s:%d > %s:%d" % (name, src, sp, dst, dp)
        return "%s %s > %s" % (name, src, dst)
    except (ValueError, OSError):
        return ""


def is_mld(frame):
    """MLD reports the gateway sends when it joins groups: background noise, not a verdict."""
    et, o = l3_of(frame)
    if et != 0x86dd or len(frame) < o + 48:
        return False
    nh, off = frame[o + 6], o + 40
    if nh == 0 and len(frame) >= off + 8:          # hop-by-hop (router alert)
        nh, off = frame[off], off + (frame[off + 1] + 1) * 8
    return nh == 58 and len(frame) > off and frame[off] in (130, 131, 132, 143)


def setup(ns, rules_text, family, legacy, sets_text=None):
    lan, gw, wan = ns
    for n in ns:
        sh(None, "ip", "netns", "add", n)
    for side, end in (("lan0", lan), ("wan0", wan)):
        sh(None, "ip", "link", "add", side, "netns", gw, "address", GW_MAC[side], "type", "veth",
           "peer", "name", "eth0", "netns", end, "address", END_MAC[side])
    # End namespaces: no addresses, no IPv6 (so no DAD/RS/MLD chatter), never forward.
    for end in (lan, wan):
        sysctl(end, ("net.ipv4.ip_forward", 0), ("net.ipv6.conf.all.disable_ipv6", 1),
               ("net.ipv6.conf.default.disable_ipv6", 1), ("net.ipv6.conf.eth0.disable_ipv6", 1))
        sh(end, "ip", "link", "set", "eth0", "up")
    # Gateway: forwarding, no reverse-path filter, no redirects, no DAD, and no addresses at all
    # (addr_gen_mode 1: not even IPv6 link-local ones).
    sysctl(gw, ("net.ipv4.ip_forward", 1), ("net.ipv6.conf.all.forwarding", 1),
                 ("net.ipv4.conf.all.rp_filter", 0), ("net.ipv4.conf.default.rp_filter", 0),
                 ("net.ipv4.conf.all.send_redirects", 0),
                 ("net.ipv4.conf.default.send_redirects", 0),
                 ("net.ipv6.conf.all.accept_dad", 0), ("net.ipv6.conf.default.accept_dad", 0),
                 ("net.ipv6.conf.all.accept_ra", 0), ("net.ipv6.conf.default.accept_ra", 0))
    for side in ("lan0", "wan0"):
        for k, v in (("ipv4.conf.%s.rp_filter", 0), ("ipv4.conf.%s.send_redirects", 0),
                     ("ipv6.conf.%s.accept_dad", 0), ("ipv6.conf.%s.addr_gen_mode", 1),
                     ("ipv6.conf.%s.accept_ra", 0), ("ipv6.conf.%s.forwarding", 1)):
            sh(gw, "sysctl", "-q", "-w", "net.%s=%s" % (k % side, v))
    for dev in ("lan0", "wan0"):
        sh(gw, "ip", "link", "set", dev, "up")
    sh(gw, "ip", "link", "set", "lo", "up")
    for dev, n in (("lan0", gw), ("wan0", gw), ("eth0", lan), ("eth0", wan)):
        sh(n, "ethtool", "-K", dev, "tx", "off", "rx", "off", "gro", "off", "gso", "off",
           "tso", "off", check=False)
    for side in ("lan0", "wan0"):
        sh(gw, "ip", "neigh", "replace", NEXTHOP4[side], "lladdr", END_MAC[side], "dev", side,
           "nud", "permanent")
        sh(gw, "ip", "-6", "neigh", "replace", NEXTHOP6, "lladdr", END_MAC[side], "dev", side,
           "nud", "permanent")
    for net in INSIDE:
        if net.version == 4:
            sh(gw, "ip", "route", "add", str(net), "via", NEXTHOP4["lan0"], "dev", "lan0",
               "onlink")
        else:
            sh(gw, "ip", "-6", "route", "add", str(net), "via", NEXTHOP6, "dev", "lan0")
    sh(gw, "ip", "route", "add", "default", "via", NEXTHOP4["wan0"], "dev", "wan0", "onlink")
    sh(gw, "ip", "-6", "route", "add", "default", "via", NEXTHOP6, "dev", "wan0")
    tools = []
    if family in ("4", "unified"):
        tools.append("iptables-legacy" if legacy else "iptables")
    if family in ("6", "unified"):
        tools.append("ip6tables-legacy" if legacy else "ip6tables")
    if sets_text is not None:   # the sets first: the kernel refuses rules naming missing ones
        sh(gw, "ipset", "restore", stdin=sets_text.encode())
    for t in tools:
        sh(gw, t + "-restore", stdin=rules_text.encode())
    return tools


def snapshot(gw, tools):
    """{(family, table, chain, rule number or 'policy'): packets} from *-save -c, in order."""
    snap = {}
    for t in tools:
        fam = "6" if t.startswith("ip6") else "4"
        table, idx = None, {}
        for line in sh(gw, t + "-save", "-c").splitlines():
            if line.startswith("*"):
                table = line[1:]
            elif line.startswith(":"):
                name, policy, cnt = line[1:].split()
                if policy != "-":
                    snap[(fam, table, name, "policy")] = int(cnt[1:].split(":")[0])
            elif line.startswith("["):
                cnt, rest = line.split(" ", 1)
                chain = rest.split()[1]
                idx[(table, chain)] = idx.get((table, chain), 0) + 1
                snap[(fam, table, chain, idx[(table, chain)])] = int(cnt[1:].split(":")[0])
    return snap


def hits(before, after):
    out = []
    for k, v in after.items():
        if v != before.get(k, 0):
            fam, table, chain, n = k
            out.append("%s/%s/%s%s%s" % (fam, table, chain, ":" if n == "policy" else "#", n)
                       + ("" if v - before.get(k, 0) == 1 else "x%d" % (v - before.get(k, 0))))
    return out


# conntrack-tools 1.4.7 lists both families without -f: ask per family so no entry is listed
# twice.
CT_TABLES = (("conntrack -L -f ipv4", ["-L", "-f", "ipv4"]),
             ("conntrack -L -f ipv6", ["-L", "-f", "ipv6"]),
             ("conntrack -L expect -f ipv4", ["-L", "expect", "-f", "ipv4"]),
             ("conntrack -L expect -f ipv6", ["-L", "expect", "-f", "ipv6"]))


def ct_normalise(line, expect):
    """One conntrack-tools line without what depends on wall-clock time: the timeout field
    (third for an entry, first for an expectation) becomes T. Nothing else is changed."""
    f = line.split()
    i = 0 if expect else 2
    if len(f) > i and f[i].isdigit():
        f[i] = "T"
    return " ".join(f)


def ct_dump(gw):
    """The gateway's conntrack and expectation tables, normalised and sorted (conntrack -L
    lists in hash order, which changes from run to run)."""
    out = []
    for title, args in CT_TABLES:
        out.append("# " + title)
        text = sh(gw, "conntrack", *args, check=False)
        out.extend(sorted(ct_normalise(l, "expect" in args) for l in text.splitlines()
                          if l.strip()))
    return out


def teardown(ns):
    for n in ns:
        subprocess.run(["ip", "netns", "del", n], capture_output=True, timeout=20)


def collect(socks, deadline):
    """Frames seen on the end sockets until deadline: [(side, frame)], outgoing ones skipped."""
    got = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        r, _, _ = select.select(list(socks.values()), [], [], left)
        for side, s in socks.items():
            if s not in r:
                continue
            while True:
                try:
                    data, addr = s.recvfrom(65535)
                except BlockingIOError:
                    break
                if addr[2] != PACKET_OUTGOING:
                    got.append((side, data))
    return got


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", required=True)
    g = ap.add_mutually_exclusive_group()
    g.add_argument("-4", dest="family", action="store_const", const="4")
    g.add_argument("-6", dest="family", action="store_const", const="6")
    g.add_argument("--unified", dest="family", action="store_const", const="unified")
    ap.add_argument("--legacy", action="store_true",
                    help="iptables-legacy instead of the nf_tables backend")
    ap.add_argument("--gap", type=float, default=0.03, help="seconds per packet (0.03)")
    ap.add_argument("--settle", type=float, default=2.5,
                    help="seconds to let the gateway's MLD joins finish before loading rules")
    ap.add_argument("--hits", action="store_true",
                    help="after each packet, list the rules whose counters moved (slower)")
    ap.add_argument("--conntrack", action="store_true",
                    help="conntrack -F before the first frame; the conntrack and expectation "
                    "tables (timeouts normalised to T, sorted) after the counters")
    ap.add_argument("--sets", help="an `ipset save` file, restored in gw before the rules")
    ap.add_argument("pcap")
    a = ap.parse_args()
    family = a.family or "unified"
    if os.geteuid() != 0:
        raise SystemExit("kernel-replay: needs root")
    frames = read_pcap(a.pcap)
    with open(a.rules) as f:
        rules_text = f.read()
    sets_text = None
    if a.sets:
        with open(a.sets) as f:
            sets_text = f.read()

    tag = "kr%d" % os.getpid()
    ns = (tag + "-lan", tag + "-gw", tag + "-wan")
    budget = int(30 + a.settle + len(frames) * (a.gap + (0.5 if a.hits else 0.2)))

    def on_signal(signum, _frame):
        raise Timeout("signal %d" % signum)

    signal.signal(signal.SIGALRM, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    signal.alarm(budget)
    out = []
    try:
        tools = setup(ns, rules_text, family, False if not a.legacy else True, sets_text)
        socks = {"lan0": ns_socket(ns[0], "eth0"), "wan0": ns_socket(ns[2], "eth0")}
        time.sleep(a.settle)
        for side, fr in collect(socks, time.monotonic() + 0.05):
            if not is_mld(fr):
                print("kernel-replay: before start, on %s: %s" % (side, describe(fr)),
                      file=sys.stderr)
        # Counters from zero: the settle time may have let MLD reports through OUTPUT.
        for t in tools:
            sh(ns[1], t, "-Z")
            sh(ns[1], t, "-t", "mangle", "-Z")
            for extra in ("raw", "security"):   # only when the rules have it: -Z makes it
                if ("*%s\n" % extra) in rules_text:
                    sh(ns[1], t, "-t", extra, "-Z")
        if a.conntrack:
            sh(ns[1], "conntrack", "-F", check=False)
            sh(ns[1], "conntrack", "-F", "expect", check=False)
        out.append("# kernel-replay: rules=%s%s family=%s backend=%s pcap=%s packets=%d gap=%dms"
                   % (os.path.basename(a.rules),
                      " sets=" + os.path.basename(a.sets) if a.sets else "", family,
                      "legacy" if a.legacy else "nft", os.path.basename(a.pcap), len(frames),
                      round(a.gap * 1000)))
        out.append("# gw interfaces: lan0 (10/8 172.16/12 192.168/16 fc00::/7) and wan0 (the "
                   "rest); verdict = where the injected packet came out")
        snap = snapshot(ns[1], tools) if a.hits else None
        # Per frame: the interfaces its forwarded copies left by, and the lines it caused. A
        # frame the gateway holds (a fragment waiting for the rest of its datagram) may leave
        # during a later frame's gap: a copy that matches no frame of its own gap but an
        # earlier frame still without a copy is credited to that earlier frame.
        fwd = {}
        lines = {}
        want = {}
        for i, fr in enumerate(frames, 1):
            side = source_side(fr)
            inj = rewrite(fr, side)
            want[i] = norm_l3(inj)
            fwd[i], lines[i] = [], []
            deadline = time.monotonic() + a.gap
            socks[side].send(inj)
            for oside, got in collect(socks, deadline):
                g = norm_l3(got)
                held = [j for j in range(i - 1, 0, -1) if not fwd[j] and want[j] == g]
                if want[i] is not None and g == want[i]:
                    fwd[i].append(oside)
                elif g is not None and held:
                    fwd[held[0]].append(oside)
                    print("kernel-replay: frame %d left during frame %d" % (held[0], i),
                          file=sys.stderr)
                elif is_mld(got):
                    print("kernel-replay: packet %d: MLD noise on %s ignored" % (i, oside),
                          file=sys.stderr)
                else:
                    lines[i].append("  generated %s: %s" % (oside, describe(got)))
            if a.hits:
                now = snapshot(ns[1], tools)
                lines[i].append("  hits: " + (" ".join(hits(snap, now)) or "none"))
                snap = now
        for i in range(1, len(frames) + 1):
            out.append("%d %s" % (i, ("forwarded " + ",".join(fwd[i])) if fwd[i] else "dropped"))
            out.extend(lines[i])
        for t in tools:
            out.append("# %s-save -c" % t.replace("-legacy", ""))
            for line in sh(ns[1], t + "-save", "-c").splitlines():
                if not line.startswith("#"):
                    out.append(line)
        if a.conntrack:
            out.extend(ct_dump(ns[1]))
    finally:
        signal.alarm(0)
        teardown(ns)
    print("\n".join(out))


if __name__ == "__main__":
    main()

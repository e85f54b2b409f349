#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""live-diff: the same scripted packets through pkttables and through the kernel, compared.

    run.py [--bin build/pkttables] [--gap 0.04] [-v] [CASE.case ...]   (default: cases/*.case)

Two topologies per case, identical on the wire (same interface names, MACs and addresses):

    [C] eth0 ==== lan0 [R] wan0 ==== eth0 [S]        once with `pkttables run` in R (the
    client                            server         kernel kept off lan0/wan0), once with the
                                                     kernel forwarding in R (iptables-restore)

Each packet line of the case is sent, as an Ethernet frame from an AF_PACKET socket, out of
the client's or server's eth0 in both topologies at once; what arrives at either end within
the gap is that packet's outcome. The outcomes are compared after normalisation. Exit 0 when
all cases agree, 1 when any differs (or a case is broken), 77 when not root. See
tests/diff/README.md, "Live comparison".
"""
import argparse
import glob
import ipaddress
import os
import re
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from nsock import PACKET_OUTGOING, ns_socket  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))

# The same MACs in both topologies: the frames injected are byte for byte the same.
MAC = {"lan0": "02:6c:00:00:00:01", "wan0": "02:6c:00:00:00:02",
       "client": "02:6c:00:00:01:00", "server": "02:6c:00:00:02:00"}
SIDE_IF = {"client": "lan0", "server": "wan0"}

DEFAULT_ADDRS = [("lan0", "10.1.0.1/24"), ("lan0", "2001:db8:1::1/64"),
                 ("wan0", "10.2.0.1/24"), ("wan0", "2001:db8:2::1/64")]
DEFAULT_ROUTES = ["default via 10.2.0.2 dev wan0", "default6 via 2001:db8:2::2 dev wan0"]
DEFAULT_HOSTS = {"client": ["10.1.0.2", "2001:db8:1::2"],
                 "server": ["10.2.0.2", "2001:db8:2::2"]}

PROCS = []  # every pkttables started: killed at the end whatever happened


class Abort(Exception):
    pass


class CaseError(Exception):
    pass


# ---------------------------------------------------------------- case files

class Step:
    def __init__(self, line, side=None, text=None, sleep=0.0, expect=None, masks=(),
                 xfail=False):
        self.line, self.side, self.text, self.sleep, self.expect = line, side, text, sleep, expect
        self.xfail = xfail  # a known pkttables difference: reported, not a failure
        self.shown = text   # as written (text gets quote(...) replaced by hex)
        self.masks = list(masks)  # [(field, name, (lo, hi) or None)]: see mask_fields
        self.l3 = None


class Case:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)[:-len(".case")]
        self.addrs, self.routes, self.hosts = None, None, {}
        self.rules, self.family = None, "unified"
        self.gap = None
        self.linux_nat = False
        self.steps = []
        self.parse()

    def err(self, n, msg):
        return CaseError("%s:%d: %s" % (self.path, n, msg))

    def parse(self):
        with open(self.path) as f:
            lines = f.read().split("\n")
        i = 0
        while i < len(lines):
            n, raw = i + 1, lines[i]
            i += 1
            # Packet text may hold '#' in a payload: there only " #" starts a comment.
            packet = raw.lstrip().startswith(("client:", "server:"))
            line = raw.strip() if packet else raw.split("#", 1)[0].strip()
            if not line:
                continue
            w = line.split()
            if w[0] == "rules":
                m = re.fullmatch(r"rules(?:\s+(-4|-6))?\s+<<(\w+)", line)
                if not m:
                    raise self.err(n, "expected: rules [-4|-6] <<EOF")
                self.family = {"-4": "4", "-6": "6"}.get(m.group(1), "unified")
                end, body = m.group(2), []
                while i < len(lines) and lines[i].strip() != end:
                    body.append(lines[i])
                    i += 1
                if i >= len(lines):
                    raise self.err(n, "no line '%s' ends the ruleset" % end)
                i += 1
                self.rules = "\n".join(body) + "\n"
            elif w[0] == "addr" and len(w) == 3 and w[1] in ("lan0", "wan0"):
                ipaddress.ip_interface(w[2])
                self.addrs = (self.addrs or []) + [(w[1], w[2])]
            elif w[0] == "route" and len(w) >= 3:
                self.routes = (self.routes or []) + [" ".join(w[1:])]
            elif w[0] in ("client", "server") and len(w) >= 2:
                for a in w[1:]:
                    ipaddress.ip_address(a)
                self.hosts[w[0]] = self.hosts.get(w[0], []) + w[1:]
            elif w == ["linux-nat"]:
                self.linux_nat = True
            elif w[0] == "gap" and len(w) == 2:
                self.gap = duration(w[1], self.err(n, "bad duration"))
            elif w[0] == "sleep" and len(w) == 2:
                self.steps.append(Step(n, sleep=duration(w[1], self.err(n, "bad duration"))))
            elif w[0] in ("client:", "server:"):
                text = line.split(":", 1)[1].split(" #", 1)[0].strip()
                expect, masks, xfail = None, [], False
                if "=>" in text:
                    text, after = (x.strip() for x in text.split("=>", 1))
                    for word in after.split():
                        m = re.fullmatch(r"(sport|dport|id)~(\w+)(?::(\d+)-(\d+))?", word)
                        if m:
                            masks.append((m.group(1), m.group(2), (int(m.group(3)),
                                          int(m.group(4))) if m.group(3) else None))
                        elif expect is None and word in ("forwarded", "dropped", "answered"):
                            expect = word
                        elif word == "xfail":
                            xfail = True
                        else:
                            raise self.err(n, "=> [forwarded|dropped|answered] "
                                           "[sport|dport|id~NAME[:LO-HI] ...] [xfail]")
                self.steps.append(Step(n, side=w[0][:-1], text=text, expect=expect,
                                       masks=masks, xfail=xfail))
            else:
                raise self.err(n, "unknown line '%s'" % line)
        if self.rules is None:
            raise self.err(1, "no 'rules <<EOF' block")
        if not any(s.text for s in self.steps):
            raise self.err(1, "no packets")
        self.addrs = self.addrs or DEFAULT_ADDRS
        self.routes = self.routes if self.routes is not None else DEFAULT_ROUTES
        for k, v in DEFAULT_HOSTS.items():
            self.hosts.setdefault(k, v)


def duration(s, e):
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s)", s)
    if not m:
        raise e
    return float(m.group(1)) / (1000 if m.group(2) == "ms" else 1)


def is_v6_text(text):
    w = text.split()
    return w[0] == "icmp6" or (len(w) > 1 and (w[1].startswith("[") or w[1].count(":") > 1))


QUOTE = re.compile(r"quote\(([^()]*)\)")


def build_packets(case, binary, tmp):
    """L3 bytes of every packet line, built by pkttables' own packet builder (`sim`: a box
    sends them out of one interface that is captured). Every IPv4 packet without id= gets a
    distinct IP ID and every IPv6 packet without flow= a distinct flow label, so that "the
    router kept the sender's value" is told apart from "the router chose one" (normalise).
    `payload=quote(PACKET TEXT)` (the datagram an ICMP error quotes) is built first, as it is,
    and becomes `payload=hex:...`."""
    steps = [s for s in case.steps if s.text]
    quotes = [(st, q) for st in steps for q in QUOTE.findall(st.text)]
    if quotes:
        built = run_builder(case, binary, tmp, "quote", quotes)
        for st, q in quotes:
            st.text = st.text.replace("quote(%s)" % q, "hex:" + built.pop(0).hex(), 1)
    lines = []
    for k, st in enumerate(steps):
        text = st.text
        if is_v6_text(text):
            if not re.search(r"(^|\s)flow=", text):
                text += " flow=%d" % (0x5a000 + k + 1)
        else:
            key = "ipid" if text.startswith("icmp ") else "id"
            if not re.search(r"(^|\s)%s=" % key, text):
                text += " %s=%d" % (key, 0x5a00 + k + 1)
        lines.append((st, text))
    for st, l3 in zip(steps, run_builder(case, binary, tmp, "build", lines)):
        st.l3 = l3


def run_builder(case, binary, tmp, what, lines):
    """[(step, packet text)] -> their L3 bytes, from one `pkttables sim` run."""
    pcap = os.path.join(tmp, "%s.%s.pcap" % (case.name, what))
    script = ["box b", "iface out", "route default dev out", "route default6 dev out",
              "capture out %s" % pcap]
    first = len(script) + 1
    script += ["send " + text for _, text in lines]
    script.append("capture out off")
    sp = os.path.join(tmp, "%s.%s.sim" % (case.name, what))
    with open(sp, "w") as f:
        f.write("\n".join(script) + "\n")
    r = subprocess.run([binary, "sim", "-q", sp], capture_output=True, timeout=20)
    if r.returncode != 0:
        msg = (r.stderr + r.stdout).decode(errors="replace").strip()
        m = re.search(r":(\d+):", msg)
        where = case.steps[0].line
        if m and 0 <= int(m.group(1)) - first < len(lines):
            where = lines[int(m.group(1)) - first][0].line
        raise CaseError("%s:%d: the packet builder refused it: %s" % (case.path, where, msg))
    frames = read_pcap(pcap)
    if len(frames) != len(lines):
        raise CaseError("%s: built %d packets for %d lines" % (case.path, len(frames),
                                                                len(lines)))
    return [fr[14:] for fr in frames]


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    e = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
    off, frames = 24, []
    while off + 16 <= len(data):
        incl = struct.unpack(e + "I", data[off + 8:off + 12])[0]
        frames.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return frames


# ---------------------------------------------------------------- namespaces

def sh(ns, *cmd, stdin=None, check=True):
    full = (["ip", "netns", "exec", ns] if ns else []) + list(cmd)
    r = subprocess.run(full, input=stdin, capture_output=True, timeout=20)
    if check and r.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(full), r.returncode,
                                                r.stderr.decode(errors="replace").strip()))
    return r.stdout.decode(errors="replace")


def sysctls(ns, pairs):
    sh(ns, "sysctl", "-q", "-w", *("%s=%s" % kv for kv in pairs))


# End hosts: addresses (so that their kernels answer ARP and neighbour solicitations for the
# router, which must resolve them), but a firewall that lets nothing else in or out: their
# kernels never answer the packets they receive and send no MLD/RS of their own.
END_RULES4 = "*filter\n:INPUT DROP [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT DROP [0:0]\nCOMMIT\n"
END_RULES6 = """*filter
:INPUT DROP [0:0]
:FORWARD DROP [0:0]
:OUTPUT DROP [0:0]
-A INPUT -p ipv6-icmp -m icmp6 --icmpv6-type 135 -j ACCEPT
-A INPUT -p ipv6-icmp -m icmp6 --icmpv6-type 136 -j ACCEPT
-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type 135 -j ACCEPT
-A OUTPUT -p ipv6-icmp -m icmp6 --icmpv6-type 136 -j ACCEPT
COMMIT
"""
OFFLOADS = ("rx", "off", "tx", "off", "gso", "off", "tso", "off", "gro", "off")
EMPTY_RULES = "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n"


class Topology:
    """client -- router -- server; mode 'kernel' or 'pkttables'."""

    def __init__(self, tag, mode, case, binary, tmp, registry):
        self.mode, self.case, self.binary, self.tmp = mode, case, binary, tmp
        self.ns = {r: "%s%s%s" % (tag, mode[0], r[0]) for r in ("client", "router", "server")}
        self.registry = registry
        self.proc = None
        self.log = None
        self.socks = {}

    def up(self):
        c = self.case
        R = self.ns["router"]
        for n in self.ns.values():
            sh(None, "ip", "netns", "add", n)
            self.registry.append(n)
        for side, dev in SIDE_IF.items():
            sh(None, "ip", "link", "add", dev, "netns", R, "address", MAC[dev], "type", "veth",
               "peer", "name", "eth0", "netns", self.ns[side], "address", MAC[side])
        for side, dev in SIDE_IF.items():
            E = self.ns[side]
            sysctls(E, [("net.ipv4.ip_forward", 0), ("net.ipv6.conf.all.forwarding", 0),
                        ("net.ipv6.conf.all.accept_dad", 0), ("net.ipv6.conf.eth0.accept_dad", 0),
                        ("net.ipv6.conf.default.accept_dad", 0)])
            sh(E, "iptables-restore", stdin=END_RULES4.encode())
            sh(E, "ip6tables-restore", stdin=END_RULES6.encode())
            sh(E, "ethtool", "-K", "eth0", *OFFLOADS, check=False)
            for a in c.hosts[side]:
                plen = next((ipaddress.ip_interface(p).network.prefixlen for d, p in c.addrs
                             if d == dev and ipaddress.ip_address(a) in
                             ipaddress.ip_interface(p).network),
                            32 if ":" not in a else 128)
                sh(E, "ip", "addr", "add", "%s/%d" % (a, plen), "dev", "eth0",
                   *(["nodad"] if ":" in a else []))
            sh(E, "ip", "link", "set", "lo", "up")
            sh(E, "ip", "link", "set", "eth0", "up")
        sh(R, "ip", "link", "set", "lo", "up")
        if self.mode == "kernel":
            self.kernel_router()
        else:
            self.pkttables_router()
        self.socks = {side: ns_socket(self.ns[side], "eth0") for side in SIDE_IF}

    def kernel_router(self):
        c, R = self.case, self.ns["router"]
        pairs = [("net.ipv4.ip_forward", 1), ("net.ipv6.conf.all.forwarding", 1),
                 ("net.ipv4.conf.all.rp_filter", 0), ("net.ipv4.conf.default.rp_filter", 0),
                 ("net.ipv4.conf.all.send_redirects", 0),
                 ("net.ipv4.conf.default.send_redirects", 0),
                 ("net.ipv6.conf.all.accept_dad", 0), ("net.ipv6.conf.default.accept_dad", 0),
                 ("net.ipv6.conf.all.accept_ra", 0), ("net.ipv6.conf.default.accept_ra", 0),
                 # pkttables does not rate-limit ICMP errors; the harness sends more per second
                 # to one host than the kernel's default token bucket lets through.
                 ("net.ipv4.icmp_ratelimit", 0), ("net.ipv6.icmp.ratelimit", 0)]
        for dev in SIDE_IF.values():
            pairs += [("net.ipv4.conf.%s.rp_filter" % dev, 0),
                      ("net.ipv4.conf.%s.send_redirects" % dev, 0),
                      ("net.ipv6.conf.%s.accept_dad" % dev, 0),
                      ("net.ipv6.conf.%s.accept_ra" % dev, 0),
                      ("net.ipv6.conf.%s.forwarding" % dev, 1)]
        sysctls(R, pairs)
        for dev in SIDE_IF.values():
            sh(R, "ethtool", "-K", dev, *OFFLOADS, check=False)
        for dev, a in c.addrs:
            sh(R, "ip", "addr", "add", a, "dev", dev, *(["nodad"] if ":" in a else []))
        for dev in SIDE_IF.values():
            sh(R, "ip", "link", "set", dev, "up")
        # Static neighbours: the kernel never has to resolve the end hosts (no ARP races).
        for side, dev in SIDE_IF.items():
            for a in c.hosts[side]:
                sh(R, "ip", "neigh", "replace", a, "lladdr", MAC[side], "dev", dev, "nud",
                   "permanent")
        for r in c.routes:
            sh(R, "ip", *kernel_route(r))
        tools = {"4": ["iptables"], "6": ["ip6tables"],
                 "unified": ["iptables", "ip6tables"]}[c.family]
        for t in tools:
            sh(R, t + "-restore", stdin=c.rules.encode())

    def pkttables_router(self):
        c, R = self.case, self.ns["router"]
        # The router namespace's own stack stays off lan0/wan0 (docs/live.md).
        sysctls(R, [("net.ipv4.ip_forward", 0), ("net.ipv6.conf.all.forwarding", 0)] +
                [("net.ipv6.conf.%s.disable_ipv6" % d, 1) for d in SIDE_IF.values()])
        for dev in SIDE_IF.values():
            sh(R, "ip", "link", "set", dev, "arp", "off")
            sh(R, "ethtool", "-K", dev, *OFFLOADS, check=False)
            sh(R, "ip", "link", "set", dev, "up")
        d = os.path.join(self.tmp, c.name)
        os.makedirs(d, exist_ok=True)
        conf = ["iface lan0", "iface wan0"] + ["addr %s %s" % a for a in c.addrs] + \
            ["route " + r for r in c.routes]
        with open(os.path.join(d, "rules"), "w") as f:
            f.write(linux_nat(c.rules) if c.linux_nat else c.rules)
        with open(os.path.join(d, "empty.rules"), "w") as f:
            f.write(EMPTY_RULES)
        # Unified means "loaded by iptables-restore and by ip6tables-restore": for pkttables
        # that is the file as both rulesets (`rules` alone takes IPv6 from a unified file only
        # when it has -6 rules; untagged rules would then be IPv4 only).
        conf += {"unified": ["rules rules", "rules6 rules"],
                 "4": ["rules rules", "rules6 empty.rules"],
                 "6": ["rules empty.rules", "rules6 rules"]}[c.family]
        path = os.path.join(d, "live.conf")
        with open(path, "w") as f:
            f.write("\n".join(conf) + "\n")
        self.logpath = os.path.join(d, "pkttables.log")
        self.log = open(self.logpath, "w+")
        self.proc = subprocess.Popen(["ip", "netns", "exec", R, self.binary, "run", "--config",
                                      path], stdout=self.log, stderr=self.log,
                                     stdin=subprocess.DEVNULL)
        PROCS.append(self.proc)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            with open(self.logpath) as f:
                if "forwarding on" in f.read():
                    return
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        with open(self.logpath) as f:
            raise CaseError("%s: pkttables did not start: %s" % (c.path, f.read().strip()))

    def pkttables_log(self):
        if not self.log:
            return ""
        with open(self.logpath) as f:
            return f.read()

    def down(self):
        for s in self.socks.values():
            s.close()
        self.socks = {}
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGUSR1)   # counters into the log (printed with -v)
            time.sleep(0.1)
            self.proc.terminate()
            try:
                self.proc.wait(3)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(3)
        self.proc = None
        if self.log:
            self.log.close()
        for n in self.ns.values():
            if n in self.registry:
                subprocess.run(["ip", "netns", "del", n], capture_output=True, timeout=20)
                self.registry.remove(n)


def linux_nat(rules):
    """The ruleset in pkttables' Linux-compatible NAT mode (docs/nat.md): every SNAT and
    MASQUERADE rule that does not say otherwise gets `--mapping address-port-dependent`
    (pkttables' default is endpoint-independent; Linux allocates per connection)."""
    out = []
    for ln in rules.split("\n"):
        if re.search(r"\s-j\s+(SNAT|MASQUERADE)\b", ln) and "--mapping" not in ln:
            ln = ln.rstrip() + " --mapping address-port-dependent"
        out.append(ln)
    return "\n".join(out)


def kernel_route(r):
    """A pkttables `route` line as `ip route add` arguments."""
    w = r.split()
    fam = []
    if w[0] == "default6":
        w[0], fam = "default", ["-6"]
    elif ":" in w[0]:
        fam = ["-6"]
    if len(w) == 2 and w[1] in ("unreachable", "prohibit", "blackhole"):
        return fam + ["route", "add", w[1], w[0]]
    return fam + ["route", "add"] + w


# ---------------------------------------------------------------- on the wire

def eth_of(mac):
    return bytes(int(x, 16) for x in mac.split(":"))


def frame_for(step):
    et = b"\x86\xdd" if step.l3[0] >> 4 == 6 else b"\x08\x00"
    return eth_of(MAC[SIDE_IF[step.side]]) + eth_of(MAC[step.side]) + et + step.l3


def noise(frame):
    """Link-layer chatter, not an outcome: ARP, IPv6 neighbour discovery and MLD."""
    if len(frame) < 14:
        return True
    et = struct.unpack("!H", frame[12:14])[0]
    if et == 0x0806:
        return True
    if et != 0x86dd or len(frame) < 14 + 41:
        return et != 0x0800
    nh, off = frame[14 + 6], 14 + 40
    if nh == 0 and len(frame) >= off + 8:
        nh, off = frame[off], off + (frame[off + 1] + 1) * 8
    return nh == 58 and len(frame) > off and frame[off] in (130, 131, 132, 133, 134, 135, 136,
                                                           137, 143)


def collect(socks, until, into):
    """Frames arriving at the ends until `until`: into[(topology, side)] lists."""
    fds = {s: key for key, s in socks.items()}
    while True:
        left = until - time.monotonic()
        if left <= 0:
            return
        r, _, _ = select.select(list(fds), [], [], left)
        for s in r:
            while True:
                try:
                    data, addr = s.recvfrom(65535)
                except BlockingIOError:
                    break
                if addr[2] != PACKET_OUTGOING and not noise(data):
                    into.append((fds[s], data))


# ---------------------------------------------------------------- comparison

def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def normalise(frame, sent):
    """(side-independent) normalised L3 bytes and notes about what was normalised.

    - MAC addresses: dropped (compare L3 only; the routers' and hosts' MACs are the same in
      both topologies anyway, but pkttables may learn them differently).
    - Ethernet padding: cut at the IP length.
    - IPv4 header checksum: checked (a bad one is a note), then zeroed.
    - IPv4 ID / IPv6 flow label: kept when equal to the sent packet's (forwarded, translated
      or not), else zeroed: a packet the router generated carries an ID / flow label of the
      router's choosing (Linux: a per-destination hash; pkttables: its own).
    """
    b = bytearray(frame[14:])
    notes = []
    if b and b[0] >> 4 == 4 and len(b) >= 20:
        tot = struct.unpack("!H", b[2:4])[0]
        if 20 <= tot <= len(b):
            del b[tot:]
        ihl = (b[0] & 15) * 4
        if csum(bytes(b[:ihl])) != 0xffff:
            notes.append("bad IPv4 header checksum")
        if sent[0] >> 4 != 4 or b[4:6] != sent[4:6]:
            b[4:6] = b"\0\0"
        b[10:12] = b"\0\0"
    elif b and b[0] >> 4 == 6 and len(b) >= 40:
        plen = struct.unpack("!H", b[4:6])[0]
        if 40 + plen <= len(b):
            del b[40 + plen:]
        if sent[0] >> 4 != 6 or (b[1] & 15, b[2], b[3]) != (sent[1] & 15, sent[2], sent[3]):
            b[1] &= 0xf0
            b[2] = b[3] = 0
    return bytes(b), notes


def transport(b):
    """(protocol, offset of the transport header) of an L3 packet without IPv6 extension
    headers, (None, None) when it has none (or is a non-first fragment)."""
    if len(b) >= 20 and b[0] >> 4 == 4 and not struct.unpack("!H", b[6:8])[0] & 0x1fff:
        return b[9], (b[0] & 15) * 4
    if len(b) >= 40 and b[0] >> 4 == 6:
        return b[6], 40
    return None, None


# Transport fields a case may mask: protocol -> {field: offset}, and the checksum's offset.
MASKABLE = {6: ({"sport": 0, "dport": 2}, 16), 17: ({"sport": 0, "dport": 2}, 6),
            1: ({"id": 4}, 2), 58: ({"id": 4}, 2)}
ECHO = {1: (0, 8), 58: (128, 129)}


def transport_csum_ok(b, proto, off):
    seg = bytes(b[off:])
    if b[0] >> 4 == 4:
        pseudo = b[12:20] + struct.pack("!BBH", 0, proto, len(seg)) if proto != 1 else b""
    else:
        pseudo = b[8:40] + struct.pack("!IxxxB", len(seg), proto)
    return csum(pseudo + seg) == 0xffff


def mask_fields(b, st, binds):
    """Apply the packet line's `FIELD~NAME[:LO-HI]` masks to one normalised arrival (one
    topology): -> (bytes, notes, {NAME: value seen}). A masked field is a port (or ICMP echo
    id) whose value is a choice the comparison cannot expect to be the same (the kernel picks
    a clashing connection's new port at random). Instead of its bytes, its properties are
    checked: it differs from the value sent (unless LO-HI is given and holds it: a random pick
    may land there), it is in LO-HI if given, else in the sent value's
    class (ports 1-1023 or 1024-65535; ids any), and a NAME used again (in this topology) has
    the same value. The transport checksum, which covers it, is verified, then both are
    zeroed."""
    proto, off = transport(b)
    if proto not in MASKABLE or not st.masks:
        return b, [], {}
    fields, csum_off = MASKABLE[proto]
    if proto in ECHO and len(b) > off and b[off] not in ECHO[proto]:
        return b, [], {}
    sproto, soff = transport(st.l3)
    b, notes, seen = bytearray(b), [], {}
    for field, name, rng in st.masks:
        if field not in fields or len(b) < off + fields[field] + 2:
            continue
        at = off + fields[field]
        v = struct.unpack("!H", b[at:at + 2])[0]
        sent = None
        if sproto == proto:
            sent = struct.unpack("!H", st.l3[soff + fields[field]:soff + fields[field] + 2])[0]
        if not seen and not transport_csum_ok(b, proto, off):
            notes.append("bad transport checksum")
        # a random pick over a small explicit range lands on the sent port now and then (the
        # kernel kept 700 of 600-1023 once: 1 in 424), so only an unranged mask, where that
        # chance is 1 in 64512, treats a kept port as a difference
        if v == sent and not (rng and rng[0] <= sent <= rng[1]):
            notes.append("%s %d kept, %s expects another" % (field, v, name))
        if rng and not rng[0] <= v <= rng[1]:
            notes.append("%s %d not in %d-%d" % (field, v, rng[0], rng[1]))
        elif not rng and sent is not None and field != "id" and (v < 1024) != (sent < 1024):
            notes.append("%s %d not in the class of %d" % (field, v, sent))
        if binds.setdefault(name, v) != v:
            notes.append("%s %d, but %s was %d" % (field, v, name, binds[name]))
        seen[name] = v
        b[at:at + 2] = b"\0\0"
    if seen:
        b[off + csum_off:off + csum_off + 2] = b"\0\0"
    return bytes(b), notes, seen


TCPF = [(0x01, "fin"), (0x02, "syn"), (0x04, "rst"), (0x08, "psh"), (0x10, "ack"),
        (0x20, "urg"), (0x40, "ece"), (0x80, "cwr")]


def ip_summary(b, quoted=False):
    """pkttables-like text of an IP packet (bytes): what the report prints."""
    try:
        v = b[0] >> 4
        if v == 4:
            ihl = (b[0] & 15) * 4
            src, dst = socket.inet_ntop(socket.AF_INET, b[12:16]), socket.inet_ntop(
                socket.AF_INET, b[16:20])
            proto, l4, extra = b[9], b[ihl:], "ttl=%d tos=0x%02x id=%d len=%d" % (
                b[8], b[1], struct.unpack("!H", b[4:6])[0], struct.unpack("!H", b[2:4])[0])
            sfmt = "%s:%d"
        elif v == 6:
            src, dst = socket.inet_ntop(socket.AF_INET6, b[8:24]), socket.inet_ntop(
                socket.AF_INET6, b[24:40])
            proto, l4 = b[6], b[40:]
            tc = ((b[0] & 15) << 4) | (b[1] >> 4)
            flow = ((b[1] & 15) << 16) | (b[2] << 8) | b[3]
            extra = "hlim=%d tc=0x%02x flow=%d plen=%d" % (b[7], tc, flow,
                                                           struct.unpack("!H", b[4:6])[0])
            sfmt = "[%s]:%d"
        else:
            return "non-IP %s" % b[:16].hex()
    except (IndexError, ValueError, OSError, struct.error):
        return "short %s" % bytes(b).hex()
    if proto in (6, 17) and len(l4) >= 8:
        sp, dp = struct.unpack("!HH", l4[:4])
        head = "%s %s > %s" % ("tcp" if proto == 6 else "udp", sfmt % (src, sp), sfmt % (dst, dp))
        if proto == 6 and len(l4) >= 20:
            fl = ",".join(n for m, n in TCPF if l4[13] & m) or "none"
            seq, ack = struct.unpack("!II", l4[4:12])
            head += " %s seq=%d ack=%d win=%d" % (fl, seq, ack, struct.unpack("!H", l4[14:16])[0])
            opts = tcp_opts(l4[20:(l4[12] >> 4) * 4])
            if opts:
                head += " " + opts
        return head + " " + extra
    if proto in (1, 58) and len(l4) >= 8:
        head = "%s %s > %s type=%d code=%d" % ("icmp" if proto == 1 else "icmp6", src, dst,
                                              l4[0], l4[1])
        is_err = (proto == 1 and l4[0] in (3, 4, 5, 11, 12)) or (proto == 58 and l4[0] < 128)
        if is_err and not quoted:
            head += " len=%d quoting [%s]" % (len(l4), ip_summary(l4[8:], True))
        return head + " " + extra
    return "proto=%d %s > %s %s" % (proto, src, dst, extra)


def tcp_opts(o):
    out, i = [], 0
    while i < len(o):
        k = o[i]
        if k == 0:
            break
        if k == 1:
            i += 1
            continue
        if i + 1 >= len(o) or o[i + 1] < 2:
            out.append("badopt")
            break
        ln = o[i + 1]
        if k == 2 and ln == 4:
            out.append("mss=%d" % struct.unpack("!H", o[i + 2:i + 4])[0])
        else:
            out.append("opt%d:%s" % (k, o[i + 2:i + ln].hex()))
        i += ln
    return " ".join(out)


def field_diff(a, b):
    """Fields in which two normalised L3 packets differ, via scapy's dissection."""
    from scapy.all import IP, IPv6, conf  # noqa: F401
    conf.verb = 0

    def flat(raw):
        p = IP(raw) if raw[0] >> 4 == 4 else IPv6(raw)
        out, layer, depth = {}, p, 0
        while layer and depth < 10:
            for k, v in layer.fields.items():
                out["%s.%s" % (layer.__class__.__name__, k)] = v
            layer = layer.payload
            depth += 1
        return out
    try:
        fa, fb = flat(a), flat(b)
    except Exception as e:  # noqa: BLE001 - any dissection failure: report bytes instead
        return ["dissection failed (%s)" % e]
    diffs = []
    for k in list(fa) + [k for k in fb if k not in fa]:
        if fa.get(k) != fb.get(k):
            diffs.append("%s: kernel %r, pkttables %r" % (k, fa.get(k, "-"), fb.get(k, "-")))
    if len(a) != len(b):
        diffs.append("length: kernel %d, pkttables %d" % (len(a), len(b)))
    return diffs


def outcome(side, arrivals):
    sides = {s for s, _ in arrivals}
    if not sides:
        return "dropped"
    other = "server" if side == "client" else "client"
    return "forwarded" if other in sides else "answered"


def run_case(case, binary, gap, tmp, tag, registry, verbose):
    build_packets(case, binary, tmp)
    topo = {m: Topology(tag, m, case, binary, tmp, registry) for m in ("kernel", "pkttables")}
    try:
        for t in topo.values():
            t.up()
        socks = {(m, side): s for m, t in topo.items() for side, s in t.socks.items()}
        # Let link-up chatter (the kernel router's MLD, pkttables' first probes) pass.
        collect(socks, time.monotonic() + 0.15, [])
        results, cur = [], None
        for st in case.steps:
            if st.text is None:
                if cur is not None:
                    collect(socks, time.monotonic() + st.sleep, cur[1])
                else:
                    time.sleep(st.sleep)
                continue
            cur = (st, [])
            results.append(cur)
            fr = frame_for(st)
            for m in topo:
                socks[(m, st.side)].send(fr)
            collect(socks, time.monotonic() + gap, cur[1])
        if cur is not None:
            collect(socks, time.monotonic() + 0.2, cur[1])
    finally:
        for t in topo.values():
            t.down()
    pklog = topo["pkttables"].pkttables_log()
    return compare(case, results, verbose, pklog)


def compare(case, results, verbose, pklog):
    sent, agree_pk, arr_agree, arr_total, lines, expect_bad, xfail = 0, 0, 0, 0, [], [], 0
    binds = {"kernel": {}, "pkttables": {}}
    for st, got in results:
        sent += 1
        per, seen = {}, {"kernel": {}, "pkttables": {}}
        for (m, side), fr in got:
            n, notes = normalise(fr, st.l3)
            n, more, vals = mask_fields(n, st, binds[m])
            seen[m].update(vals)
            per.setdefault(m, []).append((side, n, notes + more))
        k = sorted(per.get("kernel", []), key=lambda x: (x[0], x[1]))
        p = sorted(per.get("pkttables", []), key=lambda x: (x[0], x[1]))
        pk_left = list(p)
        matched, k_only = [], []
        for item in k:
            hit = next((q for q in pk_left if q[0] == item[0] and q[1] == item[1]), None)
            if hit:
                pk_left.remove(hit)
                matched.append((item, hit))
            else:
                k_only.append(item)
        arr_agree += len(matched)
        arr_total += len(matched) + len(k_only) + len(pk_left)
        ok = not k_only and not pk_left and not any(x[2] for x in k + p)
        agree_pk += ok
        xfail += st.xfail and not ok
        kout = outcome(st.side, [(s, n) for s, n, _ in k])
        if st.expect and st.expect != kout:
            expect_bad.append("%s:%d: the kernel's outcome is '%s', the case expects '%s'" %
                              (case.path, st.line, kout, st.expect))
        if verbose or not ok or st.masks or st.xfail:
            tag = ("XPASS" if st.xfail else "ok  ") if ok else ("xfail" if st.xfail else "DIFF")
            lines.append("  %s line %d %s: %s  [kernel: %s]" % (tag, st.line, st.side, st.shown,
                                                              kout))
            for name in sorted(set(seen["kernel"]) | set(seen["pkttables"])):
                lines.append("      masked %s: kernel %s, pkttables %s" % (
                    name, seen["kernel"].get(name, "-"), seen["pkttables"].get(name, "-")))
            for (side, n, _), _ in matched if verbose else []:
                lines.append("      both    -> %s: %s" % (side, ip_summary(n)))
            kk, pp = list(k_only), list(pk_left)
            for side, n, notes in k_only:
                lines.append("      kernel  -> %s: %s%s" % (side, ip_summary(n),
                                                           "".join(" (%s)" % x for x in notes)))
            for side, n, notes in pk_left:
                lines.append("      pkttables -> %s: %s%s" % (side, ip_summary(n),
                                                             "".join(" (%s)" % x for x in notes)))
            for who, mine in (("kernel", k), ("pkttables", p)):
                if not mine and (k or p):
                    lines.append("      %s -> nothing arrived" % who)
            for (side, n, kn), (_, _, pn) in matched:
                if kn or pn:
                    lines.append("      both -> %s: %s (kernel: %s; pkttables: %s)" % (
                        side, ip_summary(n), ", ".join(kn) or "-", ", ".join(pn) or "-"))
            # The same packet, differing in some fields: say which.
            for a in kk:
                b = next((q for q in pp if q[0] == a[0] and q[1][:1] == a[1][:1]), None)
                if b:
                    pp.remove(b)
                    for d in field_diff(a[1], b[1]):
                        lines.append("        differs: " + d)
    return sent, agree_pk, xfail, arr_agree, arr_total, lines, expect_bad, pklog


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.environ.get("PT_BIN", os.path.join(ROOT, "build",
                                                                            "pkttables")))
    ap.add_argument("--gap", type=float, default=0.05,
                    help="seconds to wait for arrivals after each packet (0.05)")
    ap.add_argument("--budget", type=int, default=120, help="hard time limit, seconds (120)")
    ap.add_argument("-v", "--verbose", action="store_true", help="every packet, not only "
                    "differences; the pkttables log of differing cases")
    ap.add_argument("cases", nargs="*")
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("SKIP: live-diff needs root (network namespaces, AF_PACKET)")
        return 77
    binary = os.path.abspath(a.bin)
    if not os.access(binary, os.X_OK):
        print("FAIL: %s missing" % binary)
        return 1
    for t in ("ip", "iptables-restore", "ip6tables-restore", "ethtool", "sysctl"):
        if subprocess.run(["sh", "-c", "command -v " + t], capture_output=True).returncode:
            print("SKIP: %s not installed" % t)
            return 77
    paths = a.cases or sorted(glob.glob(os.path.join(HERE, "cases", "*.case")))
    tag = "ld%d" % os.getpid()
    registry = []

    def on_signal(signum, _frame):
        # Once: the cleanup below must not be interrupted by a second signal.
        for sig in (signal.SIGALRM, signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        raise Abort("signal %d" % signum)
    for s in (signal.SIGALRM, signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, on_signal)
    signal.alarm(a.budget)
    t0 = time.monotonic()
    tot = [0, 0, 0, 0, 0]
    differing, known, broken = [], [], []
    try:
        with tempfile.TemporaryDirectory(prefix="pt-live-diff.") as tmp:
            for path in paths:
                try:
                    case = Case(path)
                    sent, okp, xf, aa, at, lines, exp_bad, pklog = run_case(
                        case, binary, case.gap or a.gap, tmp, tag, registry, a.verbose)
                except (CaseError, RuntimeError) as e:
                    print("BROKEN %s: %s" % (os.path.basename(path), e))
                    broken.append(os.path.basename(path))
                    continue
                tot = [tot[0] + sent, tot[1] + okp, tot[2] + aa, tot[3] + at, tot[4] + xf]
                verdict = "agree" if okp == sent else "known" if okp + xf == sent else "DIFFER"
                print("%-6s %-22s packets sent %2d, agreeing %2d/%-2d, arrivals agreeing %2d/%d%s"
                      % (verdict, case.name, sent, okp, sent, aa, at,
                         ", %d known differences (xfail)" % xf if xf else ""))
                for ln in lines:
                    print(ln)
                for ln in exp_bad:
                    print("  BROKEN " + ln)
                if exp_bad:
                    broken.append(case.name)
                if okp + xf != sent:
                    differing.append(case.name)
                elif xf:
                    known.append(case.name)
                if okp != sent:
                    if a.verbose:
                        print("  --- pkttables log ---\n" + "".join(
                            "    " + x + "\n" for x in pklog.splitlines()), end="")
    except Abort as e:
        print("FAIL: aborted (%s); namespaces removed" % e)
        return 1
    finally:
        signal.alarm(0)
        for pr in PROCS:
            if pr.poll() is None:
                pr.kill()
                pr.wait(3)
        for n in list(registry):
            subprocess.run(["ip", "netns", "del", n], capture_output=True, timeout=20)
    rate = 100.0 * tot[1] / tot[0] if tot[0] else 0.0
    print("live-diff: %d cases, %d packets, %d agree (%.1f%%), %d known differences (xfail), "
          "arrivals %d/%d agree; differing: %s; with known differences: %s; broken: %s; %.1f s"
          % (len(paths), tot[0], tot[1], rate, tot[4], tot[2], tot[3],
             " ".join(differing) or "none", " ".join(known) or "none",
             " ".join(broken) or "none", time.monotonic() - t0))
    return 0 if not differing and not broken else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Regenerate the seed corpora of the fuzz targets under tests/fuzz/corpus/NAME/.

Run from the repository root: python3 tests/fuzz/make-corpus.py
Seeds come from small real inputs only:
  fuzz_rules_parse  tests/compat/ruleset-*.save, examples/home-router.rules, and per case file
                    tests/compat/*.t a ruleset of its OK rules
  fuzz_pkt_spec     packet texts used by the unit tests and the scenarios (inject lines)
  fuzz_pkt_parse    frames of examples/home-router.pcap and packets built from those texts
                    (through tests/fuzz/spec2bin.c compiled with src/pkt), with the target's
                    leading control byte
  fuzz_box          the same packets as [ctl][time][len=0] records
Files named crash-* or regress-* (inputs that found bugs) are kept as they are.
"""
import glob
import hashlib
import os
import re
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus")


def reset(name):
    d = os.path.join(CORPUS, name)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        if not f.startswith(("crash-", "regress-")):
            os.unlink(os.path.join(d, f))
    return d


def put(d, data, prefix="seed"):
    h = hashlib.sha1(data).hexdigest()[:12]
    with open(os.path.join(d, "%s-%s" % (prefix, h)), "wb") as f:
        f.write(data)


def pcap_frames(path):
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    endian = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    off, out = 24, []
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(endian + "IIII", data[off:off + 16])
        out.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return out


def compat_rulesets():
    """One ruleset per .t file and family: its OK rules appended to the first chain."""
    out = []
    for t in sorted(glob.glob(os.path.join(ROOT, "tests", "compat", "*.t"))):
        fam, table, chain, rules = "-4", "filter", "INPUT", {}
        for line in open(t, encoding="utf-8", errors="replace"):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            if line in ("-4", "-6"):
                fam = line
            elif line.startswith("*"):
                table = line[1:]
            elif line.startswith(":"):
                chain = line[1:].split(",")[0]
            else:
                parts = line.rsplit(";", 2)
                if len(parts) == 3 and parts[2] == "OK":
                    rules.setdefault((fam, table), []).append((chain, parts[0]))
        for (f, tb), rs in rules.items():
            chains = sorted({c for c, _ in rs})
            text = "*%s\n" % tb
            for c in chains:
                text += ":%s ACCEPT [0:0]\n" % c
            for c, r in rs[:40]:
                text += "-A %s %s\n" % (c, r)
            text += "COMMIT\n"
            out.append((f, text))
    return out


def spec_texts():
    texts = set()
    for f in glob.glob(os.path.join(ROOT, "tests", "unit", "*.c")):
        src = open(f, encoding="utf-8", errors="replace").read()
        for m in re.finditer(r'"((?:tcp|udp|udplite|icmp6?|sctp|dccp|gre|esp|ah|proto=\d+) '
                             r'[^"\\]*(?:\\.[^"\\]*)*)"', src):
            texts.add(m.group(1).encode().decode("unicode_escape"))
    for f in glob.glob(os.path.join(ROOT, "tests", "scenarios", "*.sim")):
        for line in open(f, encoding="utf-8", errors="replace"):
            m = re.match(r"\s*inject\s+\S+\s+(.*)$", line)
            if m and not m.group(1).startswith("pcap"):
                texts.add(m.group(1).strip())
    extra = [
        "tcp 10.0.0.2:1 > 10.0.0.3:2 syn mss=1460 sackok ts=1:2 wscale=7 ipopt=rr,ts,ra eth vlan=5,6",
        "udp [2001:db8::2]:53 > [2001:db8::1]:53 ext=hop,dst,rt,frag,ah len=20 eth",
        "udplite 10.0.0.1:1 > 10.0.0.2:2 cov=8 len=30",
        "sctp [2001:db8::1]:1 > [2001:db8::2]:2 init,data,sack,heartbeat,abort,shutdown",
        "tcp 10.0.0.2:1 > 10.0.0.3:2 ack ipopt=lsrr,ssrr,nop,eol",
        "tcp 10.0.0.2:1 > 10.0.0.3:2 ack tcpopt=hex:0101080a0000000100000002",
        "icmp 10.0.0.2 > 10.0.0.3 echo-request id=7 seq=9 payload=\"ab\\r\\n\\x41\"",
        "gre [2001:db8::1] > [2001:db8::2] key=1 greproto=0x86dd len=40",
        "dccp 10.0.0.1:5 > 10.0.0.2:6 syncack seq=1 ack=2",
        "proto=59 2001:db8::1 > 2001:db8::2 ext=hop,dst",
        "udp 10.0.0.1:1 > 10.0.0.2:2 nocsum badipsum len=3",
        "tcp 10.0.0.1:1 > 10.0.0.2:2 badsum frag=off:0,mf id=99 df",
        "udp [fd00:1::10]:1 > [2001:db8::9]:2 frag=off:0,mf id=5 flow=0x12345 tc=0x20 hlim=1",
    ]
    texts.update(extra)
    return sorted(t for t in texts if "\n" not in t)


def main():
    os.chdir(ROOT)
    d = reset("fuzz_rules_parse")
    for f in sorted(glob.glob("tests/compat/ruleset-*.save")) + ["examples/home-router.rules"]:
        put(d, open(f, "rb").read())
    for fam, text in compat_rulesets():
        put(d, text.encode())

    texts = spec_texts()
    d = reset("fuzz_pkt_spec")
    for t in texts[:150]:
        put(d, t.encode())

    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "spec2bin")
        subprocess.check_call(["cc", "-std=c11", "-D_GNU_SOURCE", "-O1", "-Isrc",
                               "tests/fuzz/spec2bin.c"] + sorted(glob.glob("src/pkt/*.c")) +
                              ["-o", exe])
        out = os.path.join(tmp, "bin")
        os.mkdir(out)
        subprocess.run([exe, out], input="\n".join(texts).encode(), check=True)
        built = [open(os.path.join(out, f), "rb").read() for f in sorted(os.listdir(out))]

    frames = pcap_frames("examples/home-router.pcap")
    # A spread of the capture (every 4th frame) keeps the corpus small.
    picked = frames[::4]
    d = reset("fuzz_pkt_parse")
    for i, fr in enumerate(picked):
        put(d, bytes([i * 17 & 0xff]) + fr)
    for i, b in enumerate(built[:70]):
        put(d, bytes([i * 17 & 0xff]) + b[1:])  # the target parses every input both ways

    d = reset("fuzz_box")
    for i, fr in enumerate(picked):
        src = fr[26:30] if fr[12:14] == b"\x08\x00" else b""
        lan = src[:1] in (b"\x0a", b"\xc0", b"\xac") or fr[12:14] == b"\x86\xdd" and fr[22] == 0xfd
        put(d, bytes([(0 if lan else 1) | (i % 4) << 6, 0, 0]) + fr)
    for i, b in enumerate(built[:60]):
        # Ethernet frames to lan0 or wan0; raw IP ones to a raw-IP lan0/wan0 or box_output
        where = i % 2 if b[0] == 0 else [0 | 4, 1 | 4, 2][i % 3]
        put(d, bytes([where | (i % 2) << 3 | (i % 4) << 4, i % 3, 0]) + b[1:])
    for name in sorted(os.listdir(CORPUS)):
        files = os.listdir(os.path.join(CORPUS, name))
        size = sum(os.path.getsize(os.path.join(CORPUS, name, f)) for f in files)
        print("%-18s %4d files %7d bytes" % (name, len(files), size))


if __name__ == "__main__":
    sys.exit(main())

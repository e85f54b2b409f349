#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""ctdiff: compare `pkttables replay` of a stateful case with its kernel reference.

    ctdiff.py NAME KERNEL_REF VERDICTS REPLAY_STDOUT [EXCEPTIONS]

KERNEL_REF is what tests/diff/kernel-replay.py --conntrack wrote; VERDICTS is the --verdicts
file of `pkttables replay`, REPLAY_STDOUT its standard output (which holds the conntrack table
after a "Conntrack" line). Both sides are normalised the same way:
  - frames: the verdict line and its "generated" lines, as they are;
  - counters: *-save -c blocks per (family, table), in any order the tools print them;
  - conntrack and expectation tables: blanks collapsed, the timeout field replaced by T (the
    kernel runs on wall-clock time, pkttables on the capture's), split per family, sorted, and
    matched by protocol and original tuple.
EXCEPTIONS lists the differences that are understood, one a line ('#' comments):
    N reason                     frame N may differ
    ct KEY -- reason             the conntrack entry whose key (printed in the report) may differ
    counters F/TABLE -- reason   the counters of that family (4|6) and table may differ
An exception that is no longer needed is reported (not an error). Exit 0 when every difference
is an exception, 1 otherwise.
"""
import difflib
import sys


def parse_ref(path):
    """frames {N: [lines]}, counters {(fam, table): [lines]}, ct {section: [lines]}."""
    frames, counters, ct = {}, {}, {}
    sec, cur, table = None, None, None
    with open(path) as f:
        for line in f.read().splitlines():
            if line.startswith("# iptables-save") or line.startswith("# ip6tables-save"):
                sec, table = ("4" if "ip6" not in line else "6"), None
                continue
            if line.startswith("# conntrack "):
                sec = line[2:]
                ct.setdefault(sec, [])
                continue
            if line.startswith("#"):
                continue
            if sec is None:
                if line.startswith("  "):
                    if cur is not None:
                        frames[cur].append(line)
                elif line.strip():
                    cur = int(line.split()[0])
                    frames[cur] = [line]
            elif sec in ("4", "6"):
                if line.startswith("*"):
                    table = line[1:]
                counters.setdefault((sec, table), []).append(line)
            else:
                if line.strip():
                    ct[sec].append(line)
    return frames, counters, ct


def ct_family(line):
    for tok in line.split():
        if tok.startswith("src="):
            return "ipv6" if ":" in tok else "ipv4"
    return "ipv4"


def ct_norm(line):
    f = line.split()
    expect = len(f) > 1 and f[1].startswith("proto=")
    i = 0 if expect else 2
    if len(f) > i and (f[i].isdigit() or f[i] == "T"):
        f[i] = "T"
    return " ".join(f), expect


def ct_key(line, expect):
    """Protocol and original tuple; an expectation by its tuple and master."""
    f = line.split()
    if expect:
        return " ".join(t for t in f[1:] if not t.startswith(("mask-", "class=", "helper=")))
    out, seen_src = [f[0]], 0
    for t in f[1:]:
        if t.startswith("src="):
            seen_src += 1
            if seen_src == 2:
                break
        if seen_src and "=" in t and not t.startswith(("packets=", "bytes=")):
            out.append(t)
    return " ".join(out)


def parse_replay_ct(path):
    """The conntrack lines pkttables replay printed, into the reference's sections."""
    ct = {"conntrack -L -f ipv4": [], "conntrack -L -f ipv6": [],
          "conntrack -L expect -f ipv4": [], "conntrack -L expect -f ipv6": []}
    tracked = False
    with open(path) as f:
        lines = f.read().splitlines()
    inside = False
    for line in lines:
        if line.strip() in ("Conntrack", "Expectations", "Conntrack expectations"):
            inside, tracked = True, True
            continue
        if inside and not line.strip():
            inside = False
            continue
        if inside:
            n, expect = ct_norm(line)
            ct["conntrack -L %s-f %s" % ("expect " if expect else "", ct_family(n))].append(n)
    for k in ct:
        ct[k].sort()
    return ct, tracked


def main():
    name, ref, verdicts, stdout = sys.argv[1:5]
    exc_path = sys.argv[5] if len(sys.argv) > 5 else None
    exc_frames, exc_ct, exc_counters, used = {}, {}, {}, set()
    if exc_path:
        with open(exc_path) as f:
            for line in f.read().splitlines():
                s = line.strip()
                if not s or s.startswith("#"):
                    continue
                if s.startswith("ct "):
                    key, _, why = s[3:].partition(" -- ")
                    exc_ct[key.strip()] = why
                elif s.startswith("counters "):
                    key, _, why = s[9:].partition(" -- ")
                    exc_counters[key.strip()] = why
                else:
                    n, _, why = s.partition(" ")
                    exc_frames[int(n)] = why
    kf, kc, kct = parse_ref(ref)
    pf, pc, _ = parse_ref(verdicts)
    pct, tracked = parse_replay_ct(stdout)
    bad = 0
    report = []

    # --- frames
    agree = excepted = 0
    for n in sorted(set(kf) | set(pf)):
        k, p = kf.get(n, ["%d (missing)" % n]), pf.get(n, ["%d (missing)" % n])
        if k == p:
            agree += 1
            if n in exc_frames:
                report.append("stale exception: frame %d agrees now (%s)" % (n, exc_frames[n]))
            continue
        if n in exc_frames:
            excepted += 1
            used.add(("frame", n))
            report.append("frame %d differs, excepted: %s" % (n, exc_frames[n]))
            continue
        bad += 1
        report.append("frame %d differs:" % n)
        report.extend("  - " + x for x in k)
        report.extend("  + " + x for x in p)
    total = len(set(kf) | set(pf))
    print("%s: frames %d/%d agree (%.1f%%), %d excepted, %d differ" % (
        name, agree, total, 100.0 * agree / max(total, 1), excepted, total - agree - excepted))

    # --- conntrack and expectations
    for kind, secs in (("conntrack entries", ("conntrack -L -f ipv4", "conntrack -L -f ipv6")),
                       ("expectations", ("conntrack -L expect -f ipv4",
                                         "conntrack -L expect -f ipv6"))):
        kent, pent = {}, {}
        for sec in secs:
            for line in kct.get(sec, []):
                n, e = ct_norm(line)
                kent[ct_key(n, e)] = n
            for line in pct.get(sec, []):
                n, e = ct_norm(line)
                pent[ct_key(n, e)] = n
        a = ex = 0
        keys = sorted(set(kent) | set(pent))
        for key in keys:
            k, p = kent.get(key), pent.get(key)
            if k == p:
                a += 1
                if key in exc_ct:
                    report.append("stale exception: ct %s agrees now" % key)
                continue
            if key in exc_ct:
                ex += 1
                report.append("ct %s differs, excepted: %s" % (key, exc_ct[key]))
                continue
            bad += 1
            report.append("%s differs: %s" % (kind[:-1] if kind == "expectations" else
                                             "conntrack entry", key))
            report.append("  - " + (k or "(absent)"))
            report.append("  + " + (p or "(absent)"))
        print("%s: %s %d/%d agree (%.1f%%), %d excepted, %d differ%s" % (
            name, kind, a, len(keys), 100.0 * a / max(len(keys), 1), ex, len(keys) - a - ex,
            "" if tracked or not keys else " (pkttables printed no conntrack table)"))

    # --- counters
    lines_total = lines_agree = 0
    for key in sorted(set(kc) | set(pc)):
        k, p = kc.get(key, []), pc.get(key, [])
        same = sum(1 for x in k if x in p)
        lines_total += max(len(k), len(p))
        lines_agree += same
        if k == p:
            continue
        tag = "%s/%s" % key
        if tag in exc_counters:
            report.append("counters %s differ, excepted: %s" % (tag, exc_counters[tag]))
            continue
        bad += 1
        report.append("counters %s differ (- kernel, + pkttables):" % tag)
        report.extend("  " + d for d in difflib.unified_diff(k, p, lineterm="", n=0)
                      if not d.startswith(("---", "+++", "@@")))
    print("%s: counter lines %d/%d agree" % (name, lines_agree, lines_total))
    for n in exc_frames:
        if ("frame", n) not in used and n not in kf:
            report.append("stale exception: frame %d is not in the reference" % n)
    for line in report:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

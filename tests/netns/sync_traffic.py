# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/sync_traffic.py - the failover test's traffic (tests/netns/run-sync-failover.sh).
#
#   server BLOB                  TCP 9000 and UDP 7777 on [::] (IPv4 too). TCP: a line
#                                "down N CHUNK MS" gets the first N bytes of BLOB, CHUNK bytes
#                                every MS ms; "up" reads to the end and answers "SHA256 GAP_MS
#                                GAP_END" (the longest pause between two reads, and when it
#                                ended). UDP: each datagram is answered with "ADDR PORT SEQ":
#                                the address and port the server saw, so a changed NAT binding
#                                shows.
#   client BLOB CUTFILE FAMILY... [--tcp N] [--udp N] [--bytes N] [--chunk N] [--ms N]
#          [--deadline S] [--stall S] [--started FILE] [--probes N]
#                                first, per FAMILY, N single UDP requests from ports 42000+i,
#                                20 ms apart (the idle link's replication latency); then per
#                                FAMILY (4 or 6): N TCP transfers (half downloads, half uploads,
#                                each sha256-checked, CHUNK bytes every MS ms; a flow quiet for
#                                STALL s is lost) and N UDP request/response flows (a request
#                                every MS ms from a fixed port 41000+i) to SERVER4/SERVER6. When
#                                every flow is up, writes the time to FILE (the test cuts after
#                                that). After all ends (or DEADLINE s), reads the cut time (epoch
#                                seconds, written by the test) from CUTFILE and prints one line
#                                per flow and one summary line per family:
#   tcp FAM up|down I ok|bad STALL_MS      bad: incomplete, refused or wrong checksum; STALL_MS:
#                                          the receiver's longest pause between two reads that
#                                          ended after the cut (-1 without one)
#   udp FAM I alive CHANGED GAP_MS         alive: an answer came after the cut; CHANGED 1 when
#                                          an answer after the cut shows another address:port
#                                          than the last one before; GAP_MS: last answer before
#                                          the cut to the first one after it
#   sum FAM tcp OK N up OK down OK udp ALIVE N changed C udp_gap_ms MED MAX tcp_stall_ms MED MAX
#                                          N: the transfers still running at the cut (one that
#                                          ended before it is listed "early" and not counted)
#   latency FLOWS.pcap SYNC.pcap  replication on the wire: for each connection's first packet in
#                                FLOWS.pcap (a TCP SYN or a UDP datagram to port 7777, caught
#                                on the client's side of the active box), the first sync message
#                                (NEW or UPDATE) with its original tuple in SYNC.pcap (caught at
#                                the standby); prints "latency FAM KIND N P50_US P99_US MAX_US"
#                                and "latency-missing FAM KIND N" for connections never seen on
#                                the link; KIND idle: the probes, burst: the flows (all at once)
# Every wait is bounded (socket timeouts, DEADLINE).
import hashlib, select, socket, struct, sys, threading, time

SERVER = {4: "198.51.100.2", 6: "2001:db8:2::2"}
TCP_PORT, UDP_PORT = 9000, 7777


def longest_gap(stamps, after):
    best = None
    for a, b in zip(stamps, stamps[1:]):
        if b > after and (best is None or b - a > best):
            best = b - a
    return best


def paced_send(s, blob, n, chunk, ms):
    for off in range(0, n, chunk):
        s.sendall(blob[off:min(n, off + chunk)])
        time.sleep(ms / 1000.0)


def receive_all(read):
    """reads to the end: (sha256 hex digest, bytes, the time of each read)."""
    h, n, stamps = hashlib.sha256(), 0, []
    while True:
        d = read(65536)
        if not d:
            return h.hexdigest(), n, stamps
        stamps.append(time.time())
        h.update(d)
        n += len(d)


def serve_tcp(c, blob):
    c.settimeout(30)
    f = c.makefile("rb")
    words = f.readline().split()
    if words[:1] == [b"down"]:
        paced_send(c, blob, int(words[1]), int(words[2]), int(words[3]))
    elif words[:1] == [b"up"]:
        digest, _, stamps = receive_all(f.read1)
        gap, end = 0.0, 0.0
        for a, b in zip(stamps, stamps[1:]):
            if b - a > gap:
                gap, end = b - a, b
        c.sendall(b"%s %.1f %.6f\n" % (digest.encode(), gap * 1000, end))
    c.close()


def server(blobfile):
    blob = open(blobfile, "rb").read()
    l = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    l.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    l.bind(("::", TCP_PORT))
    l.listen(128)

    def acc():
        while True:
            c, _ = l.accept()
            threading.Thread(target=serve_tcp, args=(c, blob), daemon=True).start()

    threading.Thread(target=acc, daemon=True).start()
    u = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    u.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    u.bind(("::", UDP_PORT))
    print("ready", flush=True)
    while True:
        d, a = u.recvfrom(2048)
        host = a[0][7:] if a[0].startswith("::ffff:") else a[0]
        u.sendto(b"%s %d %s" % (host.encode(), a[1], d), a)


def opt(args, name, default):
    if name in args:
        i = args.index(name)
        v = args[i + 1]
        del args[i:i + 2]
        return type(default)(v)
    return default


def tcp_flow(fam, up, idx, blob, o, res):
    af = socket.AF_INET if fam == 4 else socket.AF_INET6
    want = hashlib.sha256(blob[:o["bytes"]]).hexdigest()
    s = socket.socket(af, socket.SOCK_STREAM)
    s.settimeout(o["stall"])
    ok, stamps, gap_end = False, [], None
    try:
        s.bind(("0.0.0.0" if fam == 4 else "::", 0))
        s.connect((SERVER[fam], TCP_PORT))
        o["connected"].release()
        if up:
            s.sendall(b"up\n")
            paced_send(s, blob, o["bytes"], o["chunk"], o["ms"])
            s.shutdown(socket.SHUT_WR)
            ans = b""
            while not ans.endswith(b"\n"):
                d = s.recv(200)
                if not d:
                    break
                ans += d
            w = ans.split()
            ok = len(w) == 3 and w[0].decode() == want
            if ok:
                gap_end = (float(w[1]) / 1000.0, float(w[2]))
        else:
            s.sendall(b"down %d %d %d\n" % (o["bytes"], o["chunk"], o["ms"]))
            digest, n, stamps = receive_all(s.recv)
            ok = n == o["bytes"] and digest == want
    except OSError:
        ok = False
    s.close()
    res.append((fam, "up" if up else "down", idx, ok, stamps, gap_end, time.time()))


def udp_flows(fams, o, res):
    socks = {}
    for fam in fams:
        for i in range(o["udp"]):
            af = socket.AF_INET if fam == 4 else socket.AF_INET6
            s = socket.socket(af, socket.SOCK_DGRAM)
            if fam == 6:
                s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            s.bind(("0.0.0.0" if fam == 4 else "::", 41000 + i))
            socks[s] = (fam, i, [])
    end = time.time() + o["udp_secs"]
    seq, nxt = 0, time.time()
    while time.time() < end:
        now = time.time()
        if now >= nxt:
            for s, (fam, i, _) in socks.items():
                s.sendto(b"%d" % seq, (SERVER[fam], UDP_PORT))
            seq += 1
            nxt += o["ms"] / 1000.0
        r, _, _ = select.select(list(socks), [], [], max(0, min(nxt, end) - time.time()))
        for s in r:
            d = s.recv(2048)
            w = d.split()
            if len(w) == 3:
                socks[s][2].append((time.time(), w[0] + b":" + w[1]))
                if len(socks[s][2]) == 1:
                    o["connected"].release()
    for s, (fam, i, answers) in socks.items():
        res.append((fam, i, answers))
        s.close()


def median(v):
    v = sorted(v)
    return v[len(v) // 2] if v else -1


def client(args):
    o = {"tcp": opt(args, "--tcp", 20), "udp": opt(args, "--udp", 20),
         "bytes": opt(args, "--bytes", 1000000), "chunk": opt(args, "--chunk", 2048),
         "ms": opt(args, "--ms", 10), "deadline": opt(args, "--deadline", 60.0),
         "stall": opt(args, "--stall", 10.0), "probes": opt(args, "--probes", 0), "started": opt(args, "--started", ""),
         "connected": threading.Semaphore(0)}
    blob = open(args[0], "rb").read()
    cutfile, fams = args[1], [int(f) for f in args[2:]]
    o["udp_secs"] = o["bytes"] / o["chunk"] * o["ms"] / 1000.0 + 1
    for fam in fams:  # the idle link's probes: one connection at a time (latency)
        for i in range(o["probes"]):
            s = socket.socket(socket.AF_INET if fam == 4 else socket.AF_INET6, socket.SOCK_DGRAM)
            s.bind(("0.0.0.0" if fam == 4 else "::", 42000 + i))
            s.settimeout(1)
            s.sendto(b"p", (SERVER[fam], UDP_PORT))
            try:
                s.recv(100)
            except OSError:
                pass
            s.close()
            time.sleep(0.02)
    tres, ures, threads = [], [], []
    for fam in fams:
        for i in range(o["tcp"]):
            t = threading.Thread(target=tcp_flow, args=(fam, i % 2 == 1, i, blob, o, tres),
                                 daemon=True)
            threads.append(t)
    threads.append(threading.Thread(target=udp_flows, args=(fams, o, ures), daemon=True))
    for t in threads:
        t.start()
    stop = time.time() + o["deadline"]
    # every TCP flow connected and every UDP flow answered once: the test may cut now
    if all(o["connected"].acquire(timeout=max(0.0, stop - time.time()))
           for _ in range(len(fams) * (o["tcp"] + o["udp"]))) and o["started"]:
        open(o["started"], "w").write("%.6f\n" % time.time())
    for t in threads:
        t.join(max(0.0, stop - time.time()))
    try:
        cut = float(open(cutfile).read().split()[0])
    except (OSError, ValueError, IndexError):
        cut = float("inf")
    for fam in fams:
        stalls, n_ok, n_up, n_down, n_cross = [], 0, 0, 0, 0
        for (f, d, i, ok, stamps, gap_end, t_end) in sorted(x for x in tres if x[0] == fam):
            if ok and t_end <= cut:
                print("tcp %d %s %d early" % (f, d, i))  # ended before the cut: not counted
                continue
            n_cross += 1
            st = longest_gap(stamps, cut) if d == "down" else (
                gap_end[0] if gap_end and gap_end[1] > cut else None)
            if ok and st is not None:
                stalls.append(st * 1000)
            n_ok += ok
            n_up += ok and d == "up"
            n_down += ok and d == "down"
            print("tcp %d %s %d %s %.1f" % (f, d, i, "ok" if ok else "bad",
                                            -1 if st is None else st * 1000))
        gaps, alive, changed = [], 0, 0
        for (f, i, answers) in sorted(x for x in ures if x[0] == fam):
            before = [a for a in answers if a[0] <= cut]
            after = [a for a in answers if a[0] > cut]
            ch = int(bool(before and any(a[1] != before[-1][1] for a in after)))
            gap = (after[0][0] - before[-1][0]) * 1000 if before and after else -1
            alive += bool(after)
            changed += ch
            if gap >= 0:
                gaps.append(gap)
            print("udp %d %d %s %d %.1f" % (f, i, "alive" if after else "dead", ch, gap))
        n_miss = o["tcp"] - len([x for x in tres if x[0] == fam])  # still running: lost
        n_cross += n_miss
        print("sum %d tcp %d %d up %d down %d udp %d %d changed %d udp_gap_ms %.0f %.0f "
              "tcp_stall_ms %.0f %.0f" % (
                  fam, n_ok, n_cross, n_up, n_down, alive, o["udp"], changed, median(gaps),
                  max(gaps, default=-1), median(stalls), max(stalls, default=-1)))


def pcap_frames(path):
    """(timestamp, ethernet frame) of a pcap file, micro- or nanosecond."""
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    div = 1e9 if magic == 0xA1B23C4D else 1e6
    off = 24
    while off + 16 <= len(data):
        sec, frac, caplen, _ = struct.unpack("<IIII", data[off:off + 16])
        yield sec + frac / div, data[off + 16:off + 16 + caplen]
        off += 16 + caplen


def l4(frame):
    """(family, proto, src, dst, L4 bytes) of an Ethernet frame, or None."""
    et = struct.unpack("!H", frame[12:14])[0]
    if et == 0x0800:
        ihl = (frame[14] & 15) * 4
        return 4, frame[23], frame[26:30], frame[30:34], frame[14 + ihl:]
    if et == 0x86DD:
        return 6, frame[20], frame[22:38], frame[38:54], frame[54:]
    return None


def sync_tuples(payload):
    """the original tuples of the conntrack NEW/UPDATE messages in one sync datagram."""
    off = 0
    while off + 8 <= len(payload):
        typ, ln = payload[off] & 15, struct.unpack("!H", payload[off + 2:off + 4])[0]
        if ln < 8:
            return
        if typ in (0, 1):
            a, end, t = off + 8, off + ln, {}
            while a + 4 < end:
                alen, aid = struct.unpack("!HH", payload[a:a + 4])
                if alen < 4:
                    break
                v = payload[a + 4:a + alen]
                if aid == 0:
                    t["fam"], t["src"], t["dst"] = 4, v[:4], v[4:8]
                elif aid == 1:
                    t["fam"], t["src"], t["dst"] = 6, v[:16], v[16:32]
                elif aid == 2:
                    t["proto"] = v[0]
                elif aid == 3:
                    t["ports"] = v[:4]
                a += (alen + 3) & ~3
            if len(t) == 5:
                yield (t["fam"], t["proto"], t["src"], t["dst"], t["ports"])
        off += ln


def latency(flows_pcap, sync_pcap):
    first = {}
    for ts, fr in pcap_frames(flows_pcap):
        p = l4(fr)
        if p and p[1] in (6, 17):
            k = (p[0], p[1], p[2], p[3], p[4][:4])
            first.setdefault(k, ts)
    seen = {}
    for ts, fr in pcap_frames(sync_pcap):
        p = l4(fr)
        if p and p[1] == 17:
            for k in sync_tuples(p[4][8:]):
                if k in first and k not in seen and ts >= first[k]:
                    seen[k] = ts
    for fam in (4, 6):
        for kind in ("idle", "burst"):
            ks = [k for k in first if k[0] == fam and (k[1] == 17 and 42000 <= struct.unpack(
                "!H", k[4][:2])[0] < 43000) == (kind == "idle")]
            lat = sorted((seen[k] - first[k]) * 1e6 for k in ks if k in seen)
            miss = len([k for k in ks if k not in seen])
            if lat:
                print("latency %d %s %d %.0f %.0f %.0f" % (
                    fam, kind, len(lat), lat[len(lat) // 2],
                    lat[min(len(lat) - 1, len(lat) * 99 // 100)], lat[-1]))
            if miss:
                print("latency-missing %d %s %d" % (fam, kind, miss))


if __name__ == "__main__":
    if sys.argv[1] == "server":
        server(sys.argv[2])
    elif sys.argv[1] == "latency":
        latency(sys.argv[2], sys.argv[3])
    else:
        client(sys.argv[2:])

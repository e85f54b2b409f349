# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/xfer.py - the TCP transfers the offload tests check byte for byte (imported by
# their server and client scripts, PYTHONPATH=tests/netns).
#
#   server: serve_tcp(PORT) answers "get N" with N pattern bytes, "put N" takes N bytes and
#           answers "SHA256 PEER" (PEER: the address it saw, IPv4 without the ::ffff: prefix)
#   client: get(SERVER, N) -> "ok" or "bad ..."; put(SERVER, N, sock=None) -> (sha ok, peer)
import hashlib, random, socket, threading


def pattern(n, seed):
    return random.Random(seed).randbytes(n)


def _serve(c, a):
    f = c.makefile("rb")
    cmd, n = f.readline().split()
    n = int(n)
    if cmd == b"get":
        c.sendall(pattern(n, n))
    else:
        h, left = hashlib.sha256(), n
        while left:
            d = f.read(min(left, 65536))
            if not d:
                break
            h.update(d); left -= len(d)
        peer = a[0][7:] if a[0].startswith("::ffff:") else a[0]
        c.sendall(b"%s %s\n" % (h.hexdigest().encode(), peer.encode()))
    c.close()


def serve_tcp(port):
    l = socket.socket(socket.AF_INET6); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    l.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    l.bind(("::", port)); l.listen(8)

    def acc():
        while True:
            c, a = l.accept()
            threading.Thread(target=_serve, args=(c, a), daemon=True).start()
    threading.Thread(target=acc, daemon=True).start()


def get(server, n, port=9000):
    s = socket.create_connection((server, port), timeout=20)
    s.sendall(b"get %d\n" % n)
    h, got = hashlib.sha256(), 0
    while True:
        d = s.recv(65536)
        if not d:
            break
        h.update(d); got += len(d)
    ok = got == n and h.hexdigest() == hashlib.sha256(pattern(n, n)).hexdigest()
    return "ok" if ok else "bad %d bytes" % got


def put(server, n, port=9000, sock=None, chunk=None):
    """Send N pattern bytes (in pieces of CHUNK when given) on SOCK (a new connection when
    None); returns (whether the server's sha256 matched, the peer address it saw)."""
    s = sock or socket.create_connection((server, port), timeout=20)
    if sock:
        s.connect((server, port))
    s.sendall(b"put %d\n" % n)
    data = pattern(n, n)
    step = chunk or n or 1
    for i in range(0, n, step):
        s.sendall(data[i:i + step])
    r = s.makefile("rb").readline().split()
    ok = bool(r) and r[0].decode() == hashlib.sha256(data).hexdigest()
    return ok, (r[1].decode() if len(r) > 1 else "")

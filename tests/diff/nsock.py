# SPDX-License-Identifier: GPL-2.0-or-later
"""The packet socket both kernel harnesses inject with and capture on (kernel-replay.py,
live/run.py): an AF_PACKET socket opened inside a network namespace and bound to one of its
interfaces. The socket keeps the namespace it was created in, so the calling thread returns
to its own at once."""
import ctypes
import os
import socket

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4  # sll_pkttype of our own transmissions, seen again on a receiving socket
CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


def ns_socket(ns, ifname):
    """A non-blocking AF_PACKET socket (all protocols, 4 MiB receive buffer) in namespace ns
    (a name under /var/run/netns), bound to ifname. OSError when setns fails."""
    home = os.open("/proc/self/ns/net", os.O_RDONLY)
    target = os.open("/var/run/netns/" + ns, os.O_RDONLY)
    try:
        if _libc.setns(target, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), "setns " + ns)
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
        s.bind((ifname, 0))
        s.setblocking(False)
    finally:
        _libc.setns(home, CLONE_NEWNET)
        os.close(home)
        os.close(target)
    return s

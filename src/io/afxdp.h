/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * AF_XDP access to one network interface (libxdp's xsk API), beside AF_PACKET: the same frame
 * callback and the same iovec send, so live mode takes either through io/port.h.
 *
 *   UMEM: AFXDP_FRAMES frames of AFXDP_FRAME_SIZE bytes in one mapping of ours.
 *         frames [0, RX)   receive: handed to the kernel in the fill ring, come back in the
 *                          rx ring with a frame, go back to the fill ring after the callback
 *         frames [RX, N)   transmit: a free list; a frame to send is copied into one, put
 *                          in the tx ring, and returns through the completion ring
 *
 * The XDP program is libxdp's default one: every frame arriving on a queue goes to that queue's
 * socket (live mode keeps the kernel's stack out anyway and answers ARP/ND itself). Attach
 * order: native (driver) mode with zero-copy, native with copy, generic (skb) mode with copy;
 * the first that binds wins and afxdp_mode() says which. The caller opens every receive queue
 * (io/port.c refuses an interface with more queues than workers: a queue without a socket
 * would have its frames passed to the kernel).
 * Sending: copy mode (every veth, any driver without zero-copy) transmits inside the kick
 * (sendto), which the kernel limits to 32 frames a call unless the socket allows more
 * (XDP_MAX_TX_SKB_BUDGET, set to the ring size where the kernel has it); a flush is kicked
 * until the ring is taken. Zero-copy is kicked only when the ring asks (XDP_USE_NEED_WAKEUP).
 * Offloads: XDP passes no checksum state, so a frame whose TCP/UDP checksum field holds the
 * pseudo-header sum is taken for a partial checksum (a sender on this machine with checksum
 * offload) and marked csum_partial for the callback to finish; no GSO frames (a UMEM frame
 * is 2 KiB, and veth takes its peer's TSO while an XDP program is attached).
 * The program leaves with the socket; a process killed outright leaves it attached until the
 * interface goes (`ip link set DEV xdp off` removes it).
 */
#ifndef IO_AFXDP_H
#define IO_AFXDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "io/afpacket.h"

#define AFXDP_FRAMES	 4096
#define AFXDP_FRAME_SIZE 2048

struct afxdp;

enum afxdp_attach {
	AFXDP_ANY,     /* native zero-copy, native copy, generic: the first that works */
	AFXDP_NATIVE,  /* driver mode only (zero-copy or copy) */
	AFXDP_GENERIC, /* skb mode only */
};

/*
 * Open `ifname` on receive queue `queue`. 0 and *out, or -errno with err filled (-EPERM without
 * CAP_NET_ADMIN/CAP_BPF, -ENODEV, -EOPNOTSUPP: no AF_XDP). The caller opens one socket per
 * receive queue (afxdp_rx_queues): the XDP program sends each queue's frames to its socket.
 */
int afxdp_open(const char *ifname, unsigned queue, enum afxdp_attach attach, struct afxdp **out,
	       char *err, size_t errlen);
/* The interface's receive queues (sysfs), 1 when it cannot tell. */
unsigned afxdp_rx_queues(const char *ifname);
/* How x was attached, for the other queues of its interface: AFXDP_NATIVE or AFXDP_GENERIC. */
enum afxdp_attach afxdp_attach_of(const struct afxdp *x);
void afxdp_close(struct afxdp *x);
int afxdp_fd(const struct afxdp *x);
const char *afxdp_name(const struct afxdp *x);
/* "native zero-copy", "native copy" or "generic copy" */
const char *afxdp_mode(const struct afxdp *x);
/* Hand every frame waiting (at most `budget`) to fn; returns how many. */
unsigned afxdp_receive(struct afxdp *x, unsigned budget, afpacket_rx_fn fn, void *arg);
/* Send n frames (iovec arrays); returns how many went into the tx ring, the rest tx_errors. */
unsigned afxdp_send(struct afxdp *x, struct iovec *const *frames, const unsigned *nvec, unsigned n);
/*
 * Does the Ethernet frame carry a partial TCP/UDP checksum (CHECKSUM_PARTIAL: a sender on this
 * machine left it to the device)? True when the checksum field holds the pseudo-header sum,
 * folded and not complemented; then off->csum_start (from the frame's start) and
 * off->csum_offset say where it is. Untagged or one 802.1Q/802.1ad tag; IPv4 not fragmented,
 * IPv6 with TCP or UDP as the first next header; the datagram must lie inside `len`.
 */
bool afxdp_csum_partial(const uint8_t *frame, uint32_t len, struct afpacket_offload *off);
/* Counters in AF_PACKET's shape; kernel_drops = the socket's rx drops + full fill ring. */
void afxdp_get_stats(struct afxdp *x, struct afpacket_stats *st);

#endif

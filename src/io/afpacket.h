/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * AF_PACKET access to one network interface: a TPACKET_V3 receive ring (mmap), a TPACKET_V2
 * transmit ring (or sendmmsg()) for sending, plus a poll over several of them.
 *
 *   receive ring (TPACKET_V3): nblocks blocks of block_size bytes, each filled by the kernel
 *   with several frames and handed over whole (full, or retired after a timeout):
 *
 *   block: [tpacket_block_desc | tpacket3_hdr | sockaddr_ll | pad | frame ... | next hdr ...]
 *          block_status TP_STATUS_USER: ours until we write TP_STATUS_KERNEL back (after
 *          its frames were handled; in lend mode after the caller's burst: afpacket_rx_release)
 *
 *   transmit ring (PACKET_TX_RING, on a second socket bound with protocol 0, which receives
 *   nothing): frames of a fixed size, written here in ring order, handed over by one send()
 *   per burst; a slot is ours again when the kernel has freed the frame's skb
 *
 *   slot:  [tpacket2_hdr (tp_status, tp_len) | pad to 32 | virtio_net_hdr | frame bytes ...]
 *          tp_status AVAILABLE -> (we write) SEND_REQUEST -> (send) SENDING -> AVAILABLE
 *
 * A frame too big for a slot (a GSO packet of up to 64 KiB) goes out by sendmmsg() on the
 * receive socket, after the ring was kicked, so the order on the wire stays the order given.
 *
 * Frames the interface itself sent (PACKET_OUTGOING, including our own) are never returned.
 * The interface is put in promiscuous mode (a packet membership: undone when the socket
 * closes, so a crash leaves nothing behind).
 */
#ifndef IO_AFPACKET_H
#define IO_AFPACKET_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

struct afpacket;

struct afpacket_stats {
	uint64_t rx, rx_bytes, rx_outgoing; /* frames returned; outgoing ones skipped */
	uint64_t tx, tx_bytes, tx_errors;   /* frames sent; refused by sendmmsg or no free slot */
	uint64_t kernel_drops;		    /* PACKET_STATISTICS tp_drops: ring was full */
	uint64_t tx_ring; /* of tx: through the transmit ring (the rest sendmmsg) */
	uint64_t rx_lent; /* of rx: lent in place (zero-copy receive), not copied by the caller */
};

/* How frames are sent. */
enum afpacket_tx {
	AFPACKET_TX_RING,     /* a transmit ring, sendmmsg for what does not fit a slot */
	AFPACKET_TX_SENDMMSG, /* sendmmsg for every frame (an skb allocated and filled per call) */
};

/* What the kernel says about the interface. */
struct afpacket_link {
	int ifindex;
	uint8_t mac[6];
	uint32_t mtu;
};

/* Read index, MAC and MTU of a netdev by name. 0 or -errno (-ENODEV: no such interface). */
int afpacket_link_info(const char *ifname, struct afpacket_link *out);

/*
 * Open `ifname`: socket, ring, bind, promiscuous. 0 and *out, or -errno (-EPERM without
 * CAP_NET_RAW, -ENODEV).
 */
int afpacket_open(const char *ifname, struct afpacket **out);
/*
 * The same, sending as `tx` says. AFPACKET_TX_RING falls back to sendmmsg where the kernel
 * refuses the ring (afpacket_tx_mode says which it got). afpacket_open is AFPACKET_TX_SENDMMSG.
 */
int afpacket_open_tx(const char *ifname, enum afpacket_tx tx, struct afpacket **out);
enum afpacket_tx afpacket_tx_mode(const struct afpacket *a);
void afpacket_close(struct afpacket *a);
int afpacket_fd(const struct afpacket *a);
const char *afpacket_name(const struct afpacket *a);

/*
 * A frame's offloads, as the kernel's struct virtio_net_hdr says them (PACKET_VNET_HDR; host
 * order here): gso_type VIRTIO_NET_HDR_GSO_* (0: none), needs_csum with where the checksum
 * field is (csum_start from the frame's first byte, csum_offset from there).
 */
struct afpacket_offload {
	uint8_t gso_type;
	bool needs_csum;
	uint16_t hdr_len, gso_size;
	uint16_t csum_start, csum_offset;
};

/*
 * One received frame; `data` points into the ring and is valid only during the callback, unless
 * `lend` is set: then the same bytes may be used in place (and written) until the socket's next
 * afpacket_rx_release, which gives the ring's blocks back.
 */
struct afpacket_frame {
	const uint8_t *data;
	uint32_t len;
	uint8_t *lend; /* == data, writable, valid until afpacket_rx_release; NULL: copy */
	uint32_t
	    headroom; /* with lend: bytes before data free to overwrite (a VLAN tag put back) */
	int vlan_tci; /* the 802.1Q tag the kernel took off the frame, or -1 */
	uint64_t tstamp_ns; /* when the kernel received it, CLOCK_REALTIME ns (tp_sec/tp_nsec) */
	bool csum_valid; /* TP_STATUS_CSUM_VALID: the kernel or the NIC verified the L4 checksum */
	bool csum_partial; /* TP_STATUS_CSUMNOTREADY: the L4 checksum holds only the pseudo-header
			    * sum (offload by a local sender); fix it before forwarding */
	struct afpacket_offload off; /* GSO and where the partial checksum is (zero without) */
};

/*
 * Hand every frame waiting in the ring to fn, at most `budget`; returns how many. Frames the
 * kernel left in the transmit ring at the last send (its send buffer was full) are handed to it
 * again first.
 */
typedef void (*afpacket_rx_fn)(void *arg, const struct afpacket_frame *f);
unsigned afpacket_receive(struct afpacket *a, unsigned budget, afpacket_rx_fn fn, void *arg);
/*
 * Zero-copy receive (on: the default of afpacket_open_tx's callers in live mode): the blocks
 * afpacket_receive read stay the caller's, their frames lent (afpacket_frame.lend), until
 * afpacket_rx_release gives them back to the kernel, oldest first. Off: each block goes back as
 * soon as its frames were handed over (the frames must be copied in the callback).
 */
void afpacket_set_lend(struct afpacket *a, bool on);
/* Give back the blocks held since the last call (lend mode; nothing otherwise). */
void afpacket_rx_release(struct afpacket *a);

/*
 * Send n frames, each given as an iovec array (frames[i], nvec[i] entries, at most
 * AFPACKET_MAX_IOV): copied into the transmit ring and one send() for them all, or with one
 * sendmmsg() where possible. off: each frame's offloads (NULL: none; only where
 * afpacket_offloads says yes). Returns how many were sent; the rest are counted as tx_errors (a
 * full queue or ring is not waited for: a router drops rather than stalls).
 */
#define AFPACKET_MAX_IOV 16
unsigned afpacket_send(struct afpacket *a, struct iovec *const *frames, const unsigned *nvec,
		       const struct afpacket_offload *off, unsigned n);
/*
 * The socket speaks virtio_net_hdr (PACKET_VNET_HDR, asked for at open): frames may be GSO
 * packets and carry partial checksums both ways. False on a kernel without it.
 */
bool afpacket_offloads(const struct afpacket *a);

/*
 * Join a fanout group of the interface, so several sockets share its frames; `mode` is the
 * kernel's PACKET_FANOUT_HASH (each flow, by its symmetric hash, to one member), _CPU or _LB.
 * *id < 0: a new group whose id the kernel picks (written to *id); else that group. 0 or -errno.
 */
int afpacket_fanout(struct afpacket *a, int mode, int *id);

/* Counters, with the kernel's ring drops read (and accumulated) now. */
void afpacket_get_stats(struct afpacket *a, struct afpacket_stats *st);

/*
 * Wait until one of the sockets has frames or `timeout_ms` passes, with `sigmask` installed
 * while waiting (ppoll), so a signal blocked elsewhere ends the wait at once. ready[i] is set
 * for each socket with frames. Returns the number ready, 0 on timeout, -EINTR on a signal.
 */
int afpacket_poll(struct afpacket *const *socks, unsigned n, int timeout_ms,
		  const sigset_t *sigmask, bool *ready);

#endif

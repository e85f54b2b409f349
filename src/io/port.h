/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A port: live mode's way in and out of one interface, AF_PACKET or AF_XDP behind one set of
 * calls (the frame callback, iovec sends, counters and the wait are AF_PACKET's shapes).
 *
 *   io afpacket   TPACKET_V3 receive ring, TPACKET_V2 transmit ring (io/afpacket.h)
 *   io afpacket sendmmsg   the same receive ring, sendmmsg for sending
 *   io afpacket copy       (either of the above, plus `copy`) each received frame copied out
 *                 of the ring at once; without `copy` frames are used in place (zero-copy
 *                 receive: io_port_rx_release gives the ring's blocks back after the burst)
 *   io afxdp      AF_XDP socket per receive queue, native mode where the driver has it,
 *                 else generic (io/afxdp.h)
 *   io auto       AF_XDP in native mode when the interface takes it, else AF_PACKET
 *
 * With several workers (io_port_open_workers) each worker has its own port of an interface:
 * AF_PACKET sockets in one fanout group (the kernel spreads flows by their hash), AF_XDP one
 * socket per receive queue; a worker beyond the queues shares a queue's socket for sending
 * only, under the port's transmit lock (the one port call that may be made from two threads).
 */
#ifndef IO_PORT_H
#define IO_PORT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "io/afpacket.h"

enum io_kind {
	IO_AFPACKET,
	IO_AFXDP,
	IO_AUTO,
	IO_AFPACKET_SENDMMSG, /* AF_PACKET, sending by sendmmsg instead of the transmit ring */
	IO_AFPACKET_COPY,     /* IO_AFPACKET, received frames copied (no zero-copy receive) */
	IO_AFPACKET_SENDMMSG_COPY,
};

struct io_port;

/* How the kernel spreads an AF_PACKET interface's frames over the workers' sockets. */
enum io_spread {
	IO_SPREAD_HASH, /* by flow (symmetric hash of addresses and ports): PACKET_FANOUT_HASH */
	IO_SPREAD_CPU,	/* by the CPU that received the frame: PACKET_FANOUT_CPU */
	IO_SPREAD_RR,	/* frame by frame in turn: PACKET_FANOUT_LB (a flow crosses workers) */
};

/* "hash", "cpu", "rr" -> spread; -1 for anything else. */
int io_spread_parse(const char *s);

/* "afpacket", "afxdp", "auto" -> kind; -1 for anything else. */
int io_kind_parse(const char *s);
/* `io afpacket WORD`: "txring" -> IO_AFPACKET, "sendmmsg" -> IO_AFPACKET_SENDMMSG; else -1. */
int io_afpacket_tx_parse(const char *s);
/*
 * The words of an `io` line after "io": afpacket|afxdp|auto, or afpacket with "txring" or
 * "sendmmsg" and/or "copy" (in that order). The kind, or -1.
 */
int io_kind_parse_words(int argc, char *const *argv);
/* The kind is one of AF_PACKET's. */
bool io_kind_afpacket(int kind);
/* Open ifname as `want`. 0 and *out, or -errno with err filled. */
int io_port_open(const char *ifname, enum io_kind want, struct io_port **out, char *err,
		 size_t errlen);
/*
 * The ports of ifname for n workers: out[w] is worker w's, rx[w] whether w receives on it (a
 * port is received on by one worker only). n == 1 is io_port_open. 0, or -errno with err
 * filled and nothing left open (AF_XDP: -EOPNOTSUPP when the interface has more receive
 * queues than workers).
 */
int io_port_open_workers(const char *ifname, enum io_kind want, unsigned n, enum io_spread spread,
			 struct io_port **out, bool *rx, char *err, size_t errlen);
/* Drop one user of p (a port shared by workers has one per worker); the last closes it. */
void io_port_close(struct io_port *p);
int io_port_fd(const struct io_port *p);
const char *io_port_name(const struct io_port *p);
/* What the port is: "afpacket", "afxdp native copy", ... */
const char *io_port_mode(const struct io_port *p);
unsigned io_port_receive(struct io_port *p, unsigned budget, afpacket_rx_fn fn, void *arg);
/* After a burst: the frames io_port_receive lent (afpacket_frame.lend) are given back; no
 * packet may point at them any more. Nothing to do for a port that lends nothing. */
void io_port_rx_release(struct io_port *p);
/* off: each frame's offloads, or NULL; only for a port io_port_offloads says yes to. */
unsigned io_port_send(struct io_port *p, struct iovec *const *frames, const unsigned *nvec,
		      const struct afpacket_offload *off, unsigned n);
/* The port carries GSO packets and partial checksums (AF_PACKET with PACKET_VNET_HDR). */
bool io_port_offloads(const struct io_port *p);
void io_port_get_stats(struct io_port *p, struct afpacket_stats *st);
/*
 * Wait until one of the ports has frames or timeout_ms passes, sigmask installed while
 * waiting; ready[i] set for each port to look at. The number ready, 0, or -EINTR.
 */
int io_port_poll(struct io_port *const *ports, unsigned n, int timeout_ms, const sigset_t *sigmask,
		 bool *ready);

#endif

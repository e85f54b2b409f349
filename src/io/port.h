/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A port: live mode's way in and out of one interface, AF_PACKET or AF_XDP behind one set of
 * calls (the frame callback, iovec sends, counters and the wait are AF_PACKET's shapes).
 *
 *   io afpacket   TPACKET_V3 receive ring, sendmmsg (io/afpacket.h)
 *   io afxdp      AF_XDP socket on queue 0, native mode where the driver has it, else
 *                 generic (io/afxdp.h)
 *   io auto       AF_XDP in native mode when the interface takes it, else AF_PACKET
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
};

struct io_port;

/* "afpacket", "afxdp", "auto" -> kind; -1 for anything else. */
int io_kind_parse(const char *s);
/* Open ifname as `want`. 0 and *out, or -errno with err filled. */
int io_port_open(const char *ifname, enum io_kind want, struct io_port **out, char *err,
		 size_t errlen);
void io_port_close(struct io_port *p);
int io_port_fd(const struct io_port *p);
const char *io_port_name(const struct io_port *p);
/* What the port is: "afpacket", "afxdp native copy", ... */
const char *io_port_mode(const struct io_port *p);
unsigned io_port_receive(struct io_port *p, unsigned budget, afpacket_rx_fn fn, void *arg);
unsigned io_port_send(struct io_port *p, struct iovec *const *frames, const unsigned *nvec,
		      unsigned n);
void io_port_get_stats(struct io_port *p, struct afpacket_stats *st);
/*
 * Wait until one of the ports has frames or timeout_ms passes, sigmask installed while
 * waiting; ready[i] set for each port to look at. The number ready, 0, or -EINTR.
 */
int io_port_poll(struct io_port *const *ports, unsigned n, int timeout_ms, const sigset_t *sigmask,
		 bool *ready);

#endif

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * port.c: AF_PACKET or AF_XDP behind one set of calls (port.h).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/if_packet.h>

#include "io/afxdp.h"
#include "io/port.h"

struct io_port {
	enum io_kind kind; /* IO_AFPACKET or IO_AFXDP */
	struct afpacket *ap;
	struct afxdp *xp;
	char mode[48];
	unsigned users;		 /* workers holding it: more than one shares it for sending */
	pthread_mutex_t tx_lock; /* taken for sends and counters while users > 1 */
};

int io_kind_parse(const char *s)
{
	if (!strcmp(s, "afpacket"))
		return IO_AFPACKET;
	if (!strcmp(s, "afxdp"))
		return IO_AFXDP;
	if (!strcmp(s, "auto"))
		return IO_AUTO;
	return -1;
}

int io_afpacket_tx_parse(const char *s)
{
	if (!strcmp(s, "txring"))
		return IO_AFPACKET;
	if (!strcmp(s, "sendmmsg"))
		return IO_AFPACKET_SENDMMSG;
	return -1;
}

int io_kind_parse_words(int argc, char *const *argv)
{
	int k;

	if (argc < 1)
		return -1;
	if (argc == 1)
		return io_kind_parse(argv[0]);
	if (strcmp(argv[0], "afpacket") || argc > 3)
		return -1;
	k = io_afpacket_tx_parse(argv[1]);
	if (argc == 2 && k < 0 && !strcmp(argv[1], "copy"))
		return IO_AFPACKET_COPY;
	if (argc == 3 && (k < 0 || strcmp(argv[2], "copy")))
		return -1;
	if (argc == 3)
		return k == IO_AFPACKET ? IO_AFPACKET_COPY : IO_AFPACKET_SENDMMSG_COPY;
	return k;
}

static bool is_afpacket(enum io_kind k)
{
	return k == IO_AFPACKET || k == IO_AFPACKET_SENDMMSG || k == IO_AFPACKET_COPY ||
	       k == IO_AFPACKET_SENDMMSG_COPY;
}

bool io_kind_afpacket(int kind)
{
	return is_afpacket((enum io_kind)kind);
}

int io_spread_parse(const char *s)
{
	if (!strcmp(s, "hash"))
		return IO_SPREAD_HASH;
	if (!strcmp(s, "cpu"))
		return IO_SPREAD_CPU;
	if (!strcmp(s, "rr"))
		return IO_SPREAD_RR;
	return -1;
}

static struct io_port *port_new(void)
{
	struct io_port *p = calloc(1, sizeof(*p));

	if (p && pthread_mutex_init(&p->tx_lock, NULL)) {
		free(p);
		return NULL;
	}
	if (p)
		p->users = 1;
	return p;
}

static void port_free(struct io_port *p)
{
	afpacket_close(p->ap);
	afxdp_close(p->xp);
	pthread_mutex_destroy(&p->tx_lock);
	free(p);
}

/* One port on AF_XDP queue `queue` (attach as given), or AF_PACKET. */
static int port_open_one(const char *ifname, enum io_kind want, unsigned queue,
			 enum afxdp_attach attach, struct io_port **out, char *err, size_t errlen)
{
	struct io_port *p = port_new();
	bool mmsg, copy;
	int r;

	*out = NULL;
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (!is_afpacket(want)) {
		r = afxdp_open(ifname, queue, attach, &p->xp, err, errlen);
		if (r == 0) {
			p->kind = IO_AFXDP;
			snprintf(p->mode, sizeof(p->mode), "afxdp %s", afxdp_mode(p->xp));
			*out = p;
			return 0;
		}
		if (want == IO_AFXDP) {
			port_free(p);
			return r;
		}
	}
	mmsg = want == IO_AFPACKET_SENDMMSG || want == IO_AFPACKET_SENDMMSG_COPY;
	copy = want == IO_AFPACKET_COPY || want == IO_AFPACKET_SENDMMSG_COPY;
	r = afpacket_open_tx(ifname, mmsg ? AFPACKET_TX_SENDMMSG : AFPACKET_TX_RING, &p->ap);
	if (r < 0) {
		snprintf(err, errlen, "cannot open '%s' (AF_PACKET): %s", ifname, strerror(-r));
		port_free(p);
		return r;
	}
	p->kind = IO_AFPACKET;
	afpacket_set_lend(p->ap, !copy);
	/* the transmit ring and zero-copy receive are the default and unnamed; sendmmsg (asked
	 * for, or the kernel refused the ring) and copy are named */
	snprintf(p->mode, sizeof(p->mode), "afpacket%s%s",
		 afpacket_tx_mode(p->ap) == AFPACKET_TX_RING ? "" : " sendmmsg",
		 copy ? " copy" : "");
	*out = p;
	return 0;
}

int io_port_open(const char *ifname, enum io_kind want, struct io_port **out, char *err,
		 size_t errlen)
{
	bool rx;

	return io_port_open_workers(ifname, want, 1, IO_SPREAD_HASH, out, &rx, err, errlen);
}

/* AF_XDP for n workers: queue q's socket to worker q; workers past the queues share one. */
static int open_afxdp_workers(const char *ifname, enum io_kind want, unsigned n,
			      struct io_port **out, bool *rx, char *err, size_t errlen)
{
	unsigned nq = afxdp_rx_queues(ifname);
	/* auto takes AF_XDP only where the driver runs it natively: generic mode is AF_PACKET's
	 * cost with more set-up */
	enum afxdp_attach attach = want == IO_AUTO ? AFXDP_NATIVE : AFXDP_ANY;
	int r;

	if (nq > n) {
		snprintf(err, errlen,
			 "%s: %u receive queues, %u worker%s; AF_XDP needs a worker per queue "
			 "(workers %u, ethtool -L %s combined %u, or io afpacket)",
			 ifname, nq, n, n == 1 ? "" : "s", nq, ifname, n);
		return -EOPNOTSUPP;
	}
	for (unsigned q = 0; q < nq; q++) {
		r = port_open_one(ifname, IO_AFXDP, q, attach, &out[q], err, errlen);
		if (r < 0) {
			while (q--)
				io_port_close(out[q]);
			return r;
		}
		/* the other queues as the first was bound (the program is attached once) */
		attach = afxdp_attach_of(out[0]->xp);
		rx[q] = true;
		if (nq > 1)
			snprintf(out[q]->mode, sizeof(out[q]->mode), "afxdp %s, queue %u",
				 afxdp_mode(out[q]->xp), q);
	}
	for (unsigned w = nq; w < n; w++) {
		out[w] = out[w % nq];
		out[w]->users++;
		rx[w] = false;
	}
	return 0;
}

int io_port_open_workers(const char *ifname, enum io_kind want, unsigned n, enum io_spread spread,
			 struct io_port **out, bool *rx, char *err, size_t errlen)
{
	static const int fanout[] = {[IO_SPREAD_HASH] = PACKET_FANOUT_HASH,
				     [IO_SPREAD_CPU] = PACKET_FANOUT_CPU,
				     [IO_SPREAD_RR] = PACKET_FANOUT_LB};
	int r, group = -1;

	if (!is_afpacket(want)) {
		r = open_afxdp_workers(ifname, want, n, out, rx, err, errlen);
		if (r == 0 || want == IO_AFXDP)
			return r;
	}
	for (unsigned w = 0; w < n; w++) {
		r = port_open_one(ifname, is_afpacket(want) ? want : IO_AFPACKET, 0, AFXDP_ANY,
				  &out[w], err, errlen);
		/* one worker: no fanout, the socket sees every frame as it always did */
		if (r == 0 && n > 1 &&
		    (r = afpacket_fanout(out[w]->ap, fanout[spread], &group)) < 0)
			snprintf(err, errlen, "%s: AF_PACKET fanout: %s", ifname, strerror(-r));
		if (r < 0) {
			if (out[w])
				io_port_close(out[w]);
			while (w--)
				io_port_close(out[w]);
			return r;
		}
		rx[w] = true;
	}
	return 0;
}

void io_port_close(struct io_port *p)
{
	if (!p)
		return;
	/* the workers have stopped: no lock is needed to count down */
	if (--p->users == 0)
		port_free(p);
}

int io_port_fd(const struct io_port *p)
{
	return p->kind == IO_AFXDP ? afxdp_fd(p->xp) : afpacket_fd(p->ap);
}

const char *io_port_name(const struct io_port *p)
{
	return p->kind == IO_AFXDP ? afxdp_name(p->xp) : afpacket_name(p->ap);
}

const char *io_port_mode(const struct io_port *p)
{
	return p->mode;
}

unsigned io_port_receive(struct io_port *p, unsigned budget, afpacket_rx_fn fn, void *arg)
{
	return p->kind == IO_AFXDP ? afxdp_receive(p->xp, budget, fn, arg)
				   : afpacket_receive(p->ap, budget, fn, arg);
}

void io_port_rx_release(struct io_port *p)
{
	if (p->kind == IO_AFPACKET)
		afpacket_rx_release(p->ap);
}

/* users is fixed once the workers run: only io_port_close changes it, after they stopped */
unsigned io_port_send(struct io_port *p, struct iovec *const *frames, const unsigned *nvec,
		      const struct afpacket_offload *off, unsigned n)
{
	bool shared = p->users > 1;
	unsigned r;

	if (shared)
		pthread_mutex_lock(&p->tx_lock);
	r = p->kind == IO_AFXDP ? afxdp_send(p->xp, frames, nvec, n)
				: afpacket_send(p->ap, frames, nvec, off, n);
	if (shared)
		pthread_mutex_unlock(&p->tx_lock);
	return r;
}

bool io_port_offloads(const struct io_port *p)
{
	return p->kind == IO_AFPACKET && afpacket_offloads(p->ap);
}

void io_port_get_stats(struct io_port *p, struct afpacket_stats *st)
{
	bool shared = p->users > 1;

	if (shared)
		pthread_mutex_lock(&p->tx_lock);
	if (p->kind == IO_AFXDP)
		afxdp_get_stats(p->xp, st);
	else
		afpacket_get_stats(p->ap, st);
	if (shared)
		pthread_mutex_unlock(&p->tx_lock);
}

int io_port_poll(struct io_port *const *ports, unsigned n, int timeout_ms, const sigset_t *sigmask,
		 bool *ready)
{
	struct pollfd pfd[64];
	struct timespec ts = {.tv_sec = timeout_ms / 1000,
			      .tv_nsec = (timeout_ms % 1000) * 1000000L};
	int r;

	if (n > 64)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++)
		pfd[i] = (struct pollfd){.fd = io_port_fd(ports[i]), .events = POLLIN};
	r = ppoll(pfd, n, &ts, sigmask);
	if (r < 0)
		return -errno;
	/* every port is looked at: an AF_PACKET block may be retired without POLLIN, and a
	 * look at an empty ring costs a load */
	for (unsigned i = 0; i < n; i++)
		ready[i] = true;
	return (int)n;
}

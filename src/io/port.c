// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * port.c: AF_PACKET or AF_XDP behind one set of calls (port.h).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/afxdp.h"
#include "io/port.h"

struct io_port {
	enum io_kind kind; /* IO_AFPACKET or IO_AFXDP */
	struct afpacket *ap;
	struct afxdp *xp;
	char mode[32];
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

int io_port_open(const char *ifname, enum io_kind want, struct io_port **out, char *err,
		 size_t errlen)
{
	struct io_port *p = calloc(1, sizeof(*p));
	int r;

	*out = NULL;
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (want != IO_AFPACKET) {
		/* auto takes AF_XDP only where the driver runs it natively: generic mode is
		 * AF_PACKET's cost with more set-up */
		r = afxdp_open(ifname, want == IO_AUTO ? AFXDP_NATIVE : AFXDP_ANY, &p->xp, err,
			       errlen);
		if (r == 0) {
			p->kind = IO_AFXDP;
			snprintf(p->mode, sizeof(p->mode), "afxdp %s", afxdp_mode(p->xp));
			*out = p;
			return 0;
		}
		if (want == IO_AFXDP) {
			free(p);
			return r;
		}
	}
	r = afpacket_open(ifname, &p->ap);
	if (r < 0) {
		snprintf(err, errlen, "cannot open '%s' (AF_PACKET): %s", ifname, strerror(-r));
		free(p);
		return r;
	}
	p->kind = IO_AFPACKET;
	snprintf(p->mode, sizeof(p->mode), "afpacket");
	*out = p;
	return 0;
}

void io_port_close(struct io_port *p)
{
	if (!p)
		return;
	afpacket_close(p->ap);
	afxdp_close(p->xp);
	free(p);
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

unsigned io_port_send(struct io_port *p, struct iovec *const *frames, const unsigned *nvec,
		      unsigned n)
{
	return p->kind == IO_AFXDP ? afxdp_send(p->xp, frames, nvec, n)
				   : afpacket_send(p->ap, frames, nvec, n);
}

void io_port_get_stats(struct io_port *p, struct afpacket_stats *st)
{
	if (p->kind == IO_AFXDP)
		afxdp_get_stats(p->xp, st);
	else
		afpacket_get_stats(p->ap, st);
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

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * afxdp.c: AF_XDP sockets through libxdp (see afxdp.h for the UMEM layout and attach order).
 */
#include <dirent.h>
#include <errno.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include <xdp/xsk.h>

#include "io/afxdp.h"
#include "io/clock.h"
#include "pkt/pkt.h"

#define RX_FRAMES (AFXDP_FRAMES / 2)
#define RING_SIZE 2048 /* rx, tx, fill and completion rings: powers of two */

/* Copy mode sends in the kick's system call, at most 32 descriptors per call unless the socket
 * is allowed more (XDP_MAX_TX_SKB_BUDGET, Linux 6.17); older kernels say EAGAIN when a kick
 * left descriptors behind, and are kicked again. */
#ifndef XDP_MAX_TX_SKB_BUDGET
#define XDP_MAX_TX_SKB_BUDGET 9
#endif
#define KERNEL_TX_BATCH 32

struct afxdp {
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct xsk_ring_prod fq, tx;
	struct xsk_ring_cons cq, rx;
	uint8_t *area;
	uint64_t free_tx[AFXDP_FRAMES - RX_FRAMES]; /* transmit frames not in flight */
	unsigned nfree, inflight;
	unsigned tx_budget; /* descriptors one kick sends (copy mode) */
	bool zc;	    /* zero-copy: the driver sends; kicks only when the ring asks */
	const char *mode;
	enum afxdp_attach attach; /* AFXDP_NATIVE or AFXDP_GENERIC: how it was bound */
	char name[IF_NAMESIZE];
	struct afpacket_stats st;
};

/* libxdp and libbpf explain their fallbacks on stderr (no bpffs, no dispatcher): quiet. */
static int quiet_print(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static int quiet_bpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

unsigned afxdp_rx_queues(const char *ifname)
{
	char path[64 + IF_NAMESIZE];
	struct dirent *e;
	unsigned n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", ifname);
	d = opendir(path);
	if (!d)
		return 1; /* cannot tell: assume one */
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, "rx-", 3);
	closedir(d);
	return n ? n : 1;
}

static int try_bind(struct afxdp *x, const char *ifname, unsigned queue, uint32_t xdp_flags,
		    uint16_t bind_flags)
{
	struct xsk_socket_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.rx_size = RING_SIZE;
	cfg.tx_size = RING_SIZE;
	cfg.xdp_flags = xdp_flags;
	cfg.bind_flags = bind_flags;
	return xsk_socket__create(&x->xsk, ifname, queue, x->umem, &x->rx, &x->tx, &cfg);
}

int afxdp_open(const char *ifname, unsigned queue, enum afxdp_attach attach, struct afxdp **out,
	       char *err, size_t errlen)
{
	static const struct {
		enum afxdp_attach need;
		uint32_t xdp;
		uint16_t bind;
		const char *mode;
	} tries[] = {
	    {AFXDP_NATIVE, XDP_FLAGS_DRV_MODE, XDP_ZEROCOPY | XDP_USE_NEED_WAKEUP,
	     "native zero-copy"},
	    {AFXDP_NATIVE, XDP_FLAGS_DRV_MODE, XDP_COPY | XDP_USE_NEED_WAKEUP, "native copy"},
	    {AFXDP_GENERIC, XDP_FLAGS_SKB_MODE, XDP_COPY | XDP_USE_NEED_WAKEUP, "generic copy"},
	};
	struct afxdp *x;
	unsigned idx;
	int r = -EOPNOTSUPP;

	*out = NULL;
	if (!if_nametoindex(ifname)) {
		snprintf(err, errlen, "%s: no such interface", ifname);
		return -ENODEV;
	}
	libxdp_set_print(quiet_print);
	libbpf_set_print(quiet_bpf_print);
	x = calloc(1, sizeof(*x));
	if (!x) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	snprintf(x->name, sizeof(x->name), "%s", ifname);
	x->area = mmap(NULL, (size_t)AFXDP_FRAMES * AFXDP_FRAME_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (x->area == MAP_FAILED) {
		free(x);
		snprintf(err, errlen, "out of memory for the UMEM");
		return -ENOMEM;
	}
	{
		struct xsk_umem_config uc = {
		    .fill_size = RING_SIZE,
		    .comp_size = RING_SIZE,
		    .frame_size = AFXDP_FRAME_SIZE,
		    .frame_headroom = 0,
		};

		r = xsk_umem__create(&x->umem, x->area, (uint64_t)AFXDP_FRAMES * AFXDP_FRAME_SIZE,
				     &x->fq, &x->cq, &uc);
	}
	if (r) {
		snprintf(err, errlen, "%s: AF_XDP UMEM: %s", ifname, strerror(-r));
		goto fail;
	}
	r = -EOPNOTSUPP;
	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		if (attach != AFXDP_ANY && attach != tries[i].need)
			continue;
		r = try_bind(x, ifname, queue, tries[i].xdp, tries[i].bind);
		if (r == 0) {
			x->mode = tries[i].mode;
			x->attach = tries[i].need;
			x->zc = (tries[i].bind & XDP_ZEROCOPY) != 0;
			break;
		}
		x->xsk = NULL;
	}
	if (r) {
		snprintf(err, errlen, "%s: AF_XDP socket: %s%s", ifname, strerror(-r),
			 r == -EPERM ? " (needs CAP_NET_ADMIN and CAP_BPF: run as root)" : "");
		goto fail;
	}
	{
		unsigned budget = RING_SIZE;

		x->tx_budget = KERNEL_TX_BATCH;
		if (!setsockopt(xsk_socket__fd(x->xsk), SOL_XDP, XDP_MAX_TX_SKB_BUDGET, &budget,
				sizeof(budget)))
			x->tx_budget = budget;
	}
	/* every receive frame to the kernel, every transmit frame free */
	if (xsk_ring_prod__reserve(&x->fq, RX_FRAMES, &idx) != RX_FRAMES) {
		snprintf(err, errlen, "%s: AF_XDP fill ring too small", ifname);
		r = -ENOSPC;
		goto fail;
	}
	for (unsigned i = 0; i < RX_FRAMES; i++)
		*xsk_ring_prod__fill_addr(&x->fq, idx + i) = (uint64_t)i * AFXDP_FRAME_SIZE;
	xsk_ring_prod__submit(&x->fq, RX_FRAMES);
	for (unsigned i = 0; i < AFXDP_FRAMES - RX_FRAMES; i++)
		x->free_tx[x->nfree++] = (uint64_t)(RX_FRAMES + i) * AFXDP_FRAME_SIZE;
	*out = x;
	return 0;
fail:
	afxdp_close(x);
	return r;
}

void afxdp_close(struct afxdp *x)
{
	if (!x)
		return;
	if (x->xsk)
		xsk_socket__delete(x->xsk); /* detaches the program when it was the last user */
	if (x->umem)
		xsk_umem__delete(x->umem);
	if (x->area && x->area != MAP_FAILED)
		munmap(x->area, (size_t)AFXDP_FRAMES * AFXDP_FRAME_SIZE);
	free(x);
}

int afxdp_fd(const struct afxdp *x)
{
	return xsk_socket__fd(x->xsk);
}

const char *afxdp_name(const struct afxdp *x)
{
	return x->name;
}

enum afxdp_attach afxdp_attach_of(const struct afxdp *x)
{
	return x->attach;
}

const char *afxdp_mode(const struct afxdp *x)
{
	return x->mode;
}

/*
 * AF_XDP hands over the bytes only, and XDP has no checksum metadata, so the field tells: a
 * partial one holds the pseudo-header sum, folded and not complemented (afxdp.h). A complete
 * checksum holds that value only by chance (about 1 in 65,536 frames), and then finishing it
 * again writes the same value; only a corrupted frame whose field happens to hold it is
 * mended instead of being found bad (docs/live.md).
 */
bool afxdp_csum_partial(const uint8_t *d, uint32_t len, struct afpacket_offload *off)
{
	uint32_t l3 = 14, l4, l4len, sum, field;
	uint16_t type;
	uint8_t proto;

	if (len < 18 + 20) /* a tag and an IPv4 header: each case checks its own length below */
		return false;
	type = pkt_get16(d + 12);
	if (type == 0x8100 || type == 0x88a8) {
		type = pkt_get16(d + 16);
		l3 = 18;
	}
	if (type == 0x0800) {
		uint32_t ihl = (d[l3] & 0xfu) * 4u, tot = pkt_get16(d + l3 + 2);

		if (len < l3 + 20 || d[l3] >> 4 != 4 || ihl < 20 || tot < ihl || l3 + tot > len ||
		    (pkt_get16(d + l3 + 6) & 0x3fff))
			return false; /* a fragment's checksum was finished before it was cut */
		proto = d[l3 + 9];
		l4 = l3 + ihl;
		l4len = tot - ihl;
		sum = 0;
		for (uint32_t i = 12; i < 20; i += 2)
			sum += pkt_get16(d + l3 + i);
	} else if (type == 0x86dd) {
		if (len < l3 + 40 || d[l3] >> 4 != 6 || l3 + 40 + pkt_get16(d + l3 + 4) > len)
			return false;
		proto = d[l3 + 6];
		l4 = l3 + 40;
		l4len = pkt_get16(d + l3 + 4);
		sum = 0;
		for (uint32_t i = 8; i < 40; i += 2)
			sum += pkt_get16(d + l3 + i);
	} else {
		return false;
	}
	if (proto == 6 && l4len >= 20)
		field = 16;
	else if (proto == 17 && l4len >= 8)
		field = 6;
	else
		return false;
	sum += proto + (l4len >> 16) + (l4len & 0xffff);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	if (pkt_get16(d + l4 + field) != sum)
		return false;
	off->csum_start = (uint16_t)l4;
	off->csum_offset = (uint16_t)field;
	return true;
}

unsigned afxdp_receive(struct afxdp *x, unsigned budget, afpacket_rx_fn fn, void *arg)
{
	unsigned idx, fidx, n = xsk_ring_cons__peek(&x->rx, budget, &idx);
	uint64_t now;

	if (!n) {
		/* the kernel waits for room in the fill ring only when told to look again */
		if (xsk_ring_prod__needs_wakeup(&x->fq))
			recvfrom(xsk_socket__fd(x->xsk), NULL, 0, MSG_DONTWAIT, NULL, NULL);
		return 0;
	}
	now = io_realtime_ns(); /* no per-frame time stamp in AF_XDP: one per batch */
	for (unsigned i = 0; i < n; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&x->rx, idx + i);
		struct afpacket_frame f = {
		    .data = xsk_umem__get_data(x->area, d->addr),
		    .len = d->len,
		    .vlan_tci = -1, /* XDP sees the tag in the frame */
		    .tstamp_ns = now,
		    .csum_partial = false,
		};

		/* the callback finishes a partial checksum and marks it verified (io/offload.h) */
		f.csum_partial = afxdp_csum_partial(f.data, f.len, &f.off);
		x->st.rx++;
		x->st.rx_bytes += d->len;
		fn(arg, &f);
	}
	/* the frames go straight back to the fill ring: the callback copied what it keeps */
	if (xsk_ring_prod__reserve(&x->fq, n, &fidx) == n) {
		for (unsigned i = 0; i < n; i++) {
			const struct xdp_desc *d = xsk_ring_cons__rx_desc(&x->rx, idx + i);

			*xsk_ring_prod__fill_addr(&x->fq, fidx + i) =
			    xsk_umem__extract_addr(d->addr) & ~(uint64_t)(AFXDP_FRAME_SIZE - 1);
		}
		xsk_ring_prod__submit(&x->fq, n);
	}
	xsk_ring_cons__release(&x->rx, n);
	return n;
}

/* Transmit frames the kernel is done with back to the free list. */
static void reclaim(struct afxdp *x)
{
	unsigned idx, n = xsk_ring_cons__peek(&x->cq, RING_SIZE, &idx);

	for (unsigned i = 0; i < n; i++)
		x->free_tx[x->nfree++] = *xsk_ring_cons__comp_addr(&x->cq, idx + i);
	xsk_ring_cons__release(&x->cq, n);
	x->inflight -= n;
}

/*
 * Have the kernel send what is in the tx ring. Copy mode sends in the call, tx_budget
 * descriptors at a time: kicked until the ring is taken or the kernel has no room (bounded).
 * Zero-copy: the driver sends; a kick only when the ring says the driver sleeps.
 */
static void kick_tx(struct afxdp *x)
{
	unsigned kicks = x->inflight / x->tx_budget + 1; /* what the ring can hold, at most */

	if (x->zc && !xsk_ring_prod__needs_wakeup(&x->tx))
		return;
	while (kicks--) {
		if (sendto(xsk_socket__fd(x->xsk), NULL, 0, MSG_DONTWAIT, NULL, 0) >= 0 || x->zc ||
		    (errno != EAGAIN && errno != EBUSY))
			return;
	}
}

static uint32_t frame_len(const struct iovec *v, unsigned n)
{
	size_t len = 0;

	for (unsigned s = 0; s < n; s++)
		len += v[s].iov_len;
	return len > AFXDP_FRAME_SIZE ? 0 : (uint32_t)len;
}

unsigned afxdp_send(struct afxdp *x, struct iovec *const *frames, const unsigned *nvec, unsigned n)
{
	unsigned idx, want = 0, got, k = 0, sent = 0;

	reclaim(x);
	for (unsigned i = 0; i < n; i++)
		want += frame_len(frames[i], nvec[i]) != 0; /* too big for a frame: not sent */
	if (want > x->nfree)
		want = x->nfree;
	got = want ? xsk_ring_prod__reserve(&x->tx, want, &idx) : 0;
	for (unsigned i = 0; i < n && k < got; i++) {
		uint32_t len = frame_len(frames[i], nvec[i]), off = 0;
		uint64_t addr;
		uint8_t *dst;

		if (!len)
			continue;
		addr = x->free_tx[--x->nfree];
		dst = xsk_umem__get_data(x->area, addr);
		for (unsigned s = 0; s < nvec[i]; s++) {
			memcpy(dst + off, frames[i][s].iov_base, frames[i][s].iov_len);
			off += (uint32_t)frames[i][s].iov_len;
		}
		xsk_ring_prod__tx_desc(&x->tx, idx + k)->addr = addr;
		xsk_ring_prod__tx_desc(&x->tx, idx + k)->len = len;
		x->st.tx_bytes += len;
		k++;
		sent++;
	}
	if (got) {
		xsk_ring_prod__submit(&x->tx, got);
		x->inflight += got;
		kick_tx(x);
	}
	x->st.tx += sent;
	x->st.tx_errors += n - sent;
	return sent;
}

void afxdp_get_stats(struct afxdp *x, struct afpacket_stats *st)
{
	struct xdp_statistics xs;
	socklen_t len = sizeof(xs);

	*st = x->st;
	if (getsockopt(xsk_socket__fd(x->xsk), SOL_XDP, XDP_STATISTICS, &xs, &len) == 0)
		st->kernel_drops = xs.rx_dropped + xs.rx_ring_full + xs.rx_fill_ring_empty_descs;
}

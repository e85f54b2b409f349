// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tx.c: the generator's live sender on an interface, through AF_PACKET.
 *
 * Two ways out, the faster first:
 *   ring   PACKET_TX_RING (TPACKET_V2) with PACKET_QDISC_BYPASS: frames are written in place
 *          into ring slots the kernel sends from; one send() hands over a batch. A slot is
 *          zeroed once (mmap) and afterwards only its headers and signature are rewritten
 *          (gen_next_reuse), so a 1500-byte frame costs what a 64-byte one does.
 *
 *          slot: [tpacket2_hdr | pad to 32 | frame ...]   tp_status: AVAILABLE -> SEND_REQUEST
 *                                                          -> (kernel) AVAILABLE or WRONG_FORMAT
 *   mmsg   sendmmsg() of up to 64 reused buffers, also with PACKET_QDISC_BYPASS.
 *
 * Pacing: packet n is due at start + n * interval (pps) or after the bits of the frames before
 * it (bits/s, FCS included); the sender hands over what is due, then sleeps or spins to the
 * next due time. A full queue is waited for (a generator must not drop its own packets).
 */
#include <errno.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "gen/tx.h"
#include "io/clock.h"

#define RING_FRAMES 4096
#define MMSG_BATCH  64
#define KICK_BATCH  64

struct gen_tx {
	int fd;
	enum gen_tx_mode mode;
	/* ring */
	uint8_t *ring;
	size_t ring_len;
	unsigned frame_size, frame_nr, head;
	unsigned vnet; /* bytes of virtio_net_hdr before each frame in a slot (0 or 10) */
	/* mmsg */
	uint8_t *bufs;
	struct mmsghdr msgs[MMSG_BATCH];
	struct iovec iov[MMSG_BATCH];
	char ifname[IF_NAMESIZE];
};

static int open_socket(const char *ifname, int *ifindex, char *err, size_t errlen)
{
	struct sockaddr_ll sll;
	int fd, one = 1;
	unsigned idx = if_nametoindex(ifname);

	if (!idx) {
		snprintf(err, errlen, "%s: no such interface", ifname);
		return -ENODEV;
	}
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0); /* protocol 0: send only */
	if (fd < 0) {
		int e = errno;

		snprintf(err, errlen, "%s: packet socket: %s%s", ifname, strerror(e),
			 e == EPERM ? " (needs CAP_NET_RAW: run as root)" : "");
		return -e;
	}
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = (int)idx;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		int e = errno;

		snprintf(err, errlen, "%s: bind: %s", ifname, strerror(e));
		close(fd);
		return -e;
	}
	/* not fatal: older kernels, or no qdisc to bypass */
	(void)setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
	*ifindex = (int)idx;
	return fd;
}

static int setup_ring(struct gen_tx *t, unsigned max_frame)
{
	struct tpacket_req req;
	int v = TPACKET_V2, one = 1;
	unsigned need = TPACKET_ALIGN(sizeof(struct tpacket2_hdr)) + max_frame, fs = 2048;

	while (fs < need)
		fs *= 2;
	if (setsockopt(t->fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) < 0)
		return -errno;
	/*
	 * A virtio_net_hdr before each frame whose hdr_len is the whole frame makes the kernel
	 * copy the frame into the skb's linear part. Without it the bytes past the Ethernet header
	 * stay in the ring's pages as zero-copy fragments, and a veth (or anything that forwards
	 * the skb) must copy them into newly allocated pages and signal completion per frame: on
	 * a veth about a fifth of the sender's time (perf, 64-byte frames). Not fatal if refused.
	 */
	if (setsockopt(t->fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) == 0) {
		t->vnet = sizeof(struct virtio_net_hdr);
		need += t->vnet;
		while (fs < need)
			fs *= 2;
	}
	memset(&req, 0, sizeof(req));
	req.tp_frame_size = fs;
	req.tp_block_size = fs < 65536 ? 65536 : fs;
	req.tp_frame_nr = RING_FRAMES;
	req.tp_block_nr = RING_FRAMES / (req.tp_block_size / fs);
	req.tp_frame_nr = req.tp_block_nr * (req.tp_block_size / fs);
	if (setsockopt(t->fd, SOL_PACKET, PACKET_TX_RING, &req, sizeof(req)) < 0)
		return -errno;
	t->ring_len = (size_t)req.tp_block_size * req.tp_block_nr;
	t->ring = mmap(NULL, t->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, 0);
	if (t->ring == MAP_FAILED) {
		t->ring = NULL;
		return -errno;
	}
	t->frame_size = fs;
	t->frame_nr = req.tp_frame_nr;
	return 0;
}

int gen_tx_open(const char *ifname, enum gen_tx_mode mode, unsigned max_frame, struct gen_tx **out,
		char *err, size_t errlen)
{
	struct gen_tx *t;
	int ifindex, r;

	t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	snprintf(t->ifname, sizeof(t->ifname), "%s", ifname);
	t->fd = open_socket(ifname, &ifindex, err, errlen);
	if (t->fd < 0) {
		r = t->fd;
		free(t);
		return r;
	}
	if (mode != GEN_TX_MMSG) {
		r = setup_ring(t, max_frame);
		if (r == 0) {
			t->mode = GEN_TX_RING;
			*out = t;
			return 0;
		}
		if (mode == GEN_TX_RING) {
			snprintf(err, errlen, "%s: PACKET_TX_RING: %s", ifname, strerror(-r));
			gen_tx_close(t);
			return r;
		}
		/* auto: a ring socket cannot go back; start over for sendmmsg */
		close(t->fd);
		t->fd = open_socket(ifname, &ifindex, err, errlen);
		if (t->fd < 0) {
			r = t->fd;
			free(t);
			return r;
		}
	}
	t->mode = GEN_TX_MMSG;
	t->bufs = calloc(MMSG_BATCH, GEN_MAX_FRAME);
	if (!t->bufs) {
		snprintf(err, errlen, "out of memory");
		gen_tx_close(t);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < MMSG_BATCH; i++) {
		t->iov[i].iov_base = t->bufs + (size_t)i * GEN_MAX_FRAME;
		t->msgs[i].msg_hdr.msg_iov = &t->iov[i];
		t->msgs[i].msg_hdr.msg_iovlen = 1;
	}
	*out = t;
	return 0;
}

void gen_tx_close(struct gen_tx *t)
{
	if (!t)
		return;
	if (t->ring)
		munmap(t->ring, t->ring_len);
	if (t->fd >= 0)
		close(t->fd);
	free(t->bufs);
	free(t);
}

enum gen_tx_mode gen_tx_mode(const struct gen_tx *t)
{
	return t->mode;
}

static void sleep_until(uint64_t due)
{
	uint64_t now = io_monotonic_ns();

	if (due <= now)
		return;
	if (due - now > 100000) { /* leave 50 us to spin: sleeps overshoot */
		struct timespec ts = {0, (long)(due - now - 50000)};

		nanosleep(&ts, NULL);
	}
	while (io_monotonic_ns() < due)
		;
}

static inline struct tpacket2_hdr *slot(struct gen_tx *t, unsigned i)
{
	return (struct tpacket2_hdr *)(t->ring + (size_t)i * t->frame_size);
}

/*
 * Hand the queued slots to the kernel; wait (bounded) while it has no room. The waits are
 * added to *blocked, unless that is NULL (a caller that counts a longer wait as a whole).
 */
static int ring_kick(struct gen_tx *t, struct gen_tx_stats *st, uint64_t *blocked)
{
	for (int tries = 0; tries < 1000; tries++) {
		if (send(t->fd, NULL, 0, MSG_DONTWAIT) >= 0)
			return 0;
		if (errno != EAGAIN && errno != ENOBUFS && errno != EINTR) {
			st->errors++;
			return -errno;
		}
		struct pollfd pfd = {.fd = t->fd, .events = POLLOUT};
		uint64_t t0 = io_monotonic_ns();

		poll(&pfd, 1, 1);
		if (blocked)
			*blocked += io_monotonic_ns() - t0;
	}
	return -EAGAIN;
}

/* Wait until slot i is free again (the kernel sent it), at most ~1 s. */
static int ring_wait_slot(struct gen_tx *t, unsigned i, struct gen_tx_stats *st)
{
	struct tpacket2_hdr *h = slot(t, i);
	uint64_t deadline = 0, since = 0;

	for (;;) {
		uint32_t s = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);

		if (s == TP_STATUS_AVAILABLE || (s & TP_STATUS_WRONG_FORMAT)) {
			if (since)
				st->blocked_ns += io_monotonic_ns() - since;
			if (s == TP_STATUS_AVAILABLE)
				return 0;
			st->errors++;
			__atomic_store_n(&h->tp_status, TP_STATUS_AVAILABLE, __ATOMIC_RELEASE);
			return 0;
		}
		if (!deadline) {
			since = io_monotonic_ns();
			deadline = since + 1000000000ull;
		} else if (io_monotonic_ns() > deadline) {
			st->blocked_ns += io_monotonic_ns() - since;
			return -ETIMEDOUT;
		}
		ring_kick(t, st, NULL); /* this wait is counted as a whole, above */
		struct pollfd pfd = {.fd = t->fd, .events = POLLOUT};

		poll(&pfd, 1, 1);
	}
}

static void mmsg_flush(struct gen_tx *t, unsigned *batch, struct gen_tx_stats *st)
{
	unsigned done = 0;
	int spins = 0;

	while (done < *batch && spins < 1000) {
		int k = sendmmsg(t->fd, t->msgs + done, *batch - done, 0);

		if (k > 0) {
			done += (unsigned)k;
			continue;
		}
		if (k < 0 && errno != EINTR && errno != ENOBUFS && errno != EAGAIN)
			break;
		struct pollfd pfd = {.fd = t->fd, .events = POLLOUT};
		uint64_t t0 = io_monotonic_ns();

		poll(&pfd, 1, 1);
		st->blocked_ns += io_monotonic_ns() - t0;
		spins++;
	}
	st->errors += *batch - done;
	*batch = 0;
}

/* Hand over what is written and not yet sent. */
static void flush(struct gen_tx *t, unsigned *pending, struct gen_tx_stats *st)
{
	if (!*pending)
		return;
	if (t->mode == GEN_TX_RING) {
		ring_kick(t, st, &st->blocked_ns);
		*pending = 0;
	} else {
		mmsg_flush(t, pending, st);
	}
}

/* Write the next frame into the ring or the batch; its length, or 0 when the ring is stuck. */
static size_t produce(struct gen_tx *t, struct gen *g, unsigned *pending, struct gen_tx_stats *st)
{
	size_t len;

	if (t->mode == GEN_TX_RING) {
		struct tpacket2_hdr *h = slot(t, t->head);

		if (ring_wait_slot(t, t->head, st))
			return 0;
		uint8_t *data = (uint8_t *)h + TPACKET_ALIGN(sizeof(*h));

		len = gen_next_reuse(g, data + t->vnet, io_realtime_ns());
		if (t->vnet) {
			struct virtio_net_hdr *vh = (struct virtio_net_hdr *)data;

			memset(vh, 0, sizeof(*vh));  /* no offload asked: no checksum, no GSO */
			vh->hdr_len = (uint16_t)len; /* host order: the socket's vnet header is */
		}
		h->tp_len = (uint32_t)(len + t->vnet);
		__atomic_store_n(&h->tp_status, TP_STATUS_SEND_REQUEST, __ATOMIC_RELEASE);
		t->head = t->head + 1 == t->frame_nr ? 0 : t->head + 1;
		if (++*pending >= KICK_BATCH)
			flush(t, pending, st);
		return len;
	}
	len = gen_next_reuse(g, t->iov[*pending].iov_base, io_realtime_ns());
	t->iov[*pending].iov_len = len;
	if (++*pending == MMSG_BATCH)
		flush(t, pending, st);
	return len;
}

int gen_tx_run(struct gen_tx *t, struct gen *g, const struct gen_tx_opts *o,
	       struct gen_tx_stats *st)
{
	uint64_t start = io_monotonic_ns(), due = start, last_report = start, n = 0;
	double interval = o->rate_pps ? 1e9 / (double)o->rate_pps : 0;
	double ns_per_bit = o->rate_bps ? 1e9 / (double)o->rate_bps : 0;
	bool paced = interval > 0 || ns_per_bit > 0;
	unsigned pending = 0;
	int r = 0;

	memset(st, 0, sizeof(*st));
	for (;; n++) {
		bool mid = gen_in_datagram(g); /* a fragmented datagram is always finished */
		uint64_t now;
		size_t len;

		if (!mid && o->count && gen_datagrams(g) >= o->count)
			break;
		if (!mid && o->stop && *o->stop)
			break;
		if (paced && !mid && io_monotonic_ns() < due) {
			flush(t, &pending, st);
			sleep_until(due);
		}
		if ((n & 255) == 0) {
			now = io_monotonic_ns();
			if (!mid && o->duration_ns && now - start >= o->duration_ns)
				break;
			if (o->progress && now - last_report >= 1000000000ull) {
				st->seconds = (double)(now - start) / 1e9;
				o->progress(o->arg, st);
				last_report = now;
			}
		}
		len = produce(t, g, &pending, st);
		if (!len) {
			r = -ETIMEDOUT;
			break;
		}
		st->frames++;
		st->bytes += len;
		if (ns_per_bit)
			due += (uint64_t)((double)(len + GEN_FCS) * 8 * ns_per_bit);
		else if (interval)
			due = start + (uint64_t)((double)gen_datagrams(g) * interval);
	}
	flush(t, &pending, st);
	if (t->mode == GEN_TX_RING)
		for (unsigned i = 0; i < t->frame_nr; i++) /* drained: the counts are what left */
			if (ring_wait_slot(t, i, st))
				break;
	st->frames -= st->errors < st->frames ? st->errors : st->frames;
	st->datagrams = gen_datagrams(g);
	st->seconds = (double)(io_monotonic_ns() - start) / 1e9;
	return r;
}

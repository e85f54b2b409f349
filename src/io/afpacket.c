/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * AF_PACKET socket with a TPACKET_V3 receive ring; a TPACKET_V2 transmit ring on a second
 * socket, or sendmmsg(), for sending.
 *
 * One frame inside a block of the ring:
 *
 *   +------------------+ <- block start (struct tpacket_block_desc: status, count, first)
 *   | block descriptor |
 *   +------------------+ <- first frame: offset_to_first_pkt
 *   | tpacket3_hdr     |    tp_next_offset -> next frame in the block (0 for the last)
 *   | sockaddr_ll      |    at TPACKET_ALIGN(sizeof(tpacket3_hdr)): sll_pkttype
 *   | ...              |
 *   | frame bytes      |    at tp_mac, tp_snaplen bytes
 *   +------------------+
 *
 * Lend mode (zero-copy receive): the caller uses the frames where they lie, so a block read
 * stays user-owned until afpacket_rx_release; blocks go back oldest first, the order the kernel
 * fills them in.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <endian.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "io/afpacket.h"

#define RING_BLOCK_SIZE (1u << 18) /* 256 KiB: a whole 64 KiB frame always fits */
#define RING_BLOCKS	32
#define RING_FRAME_SIZE 2048		  /* only for the kernel's frame-count check */
#define RING_RETIRE_MS	1		  /* a partly filled block is handed over after this long */
#define RING_HOLD_MAX	(RING_BLOCKS / 2) /* lend mode: blocks held at most between releases */
#define SEND_BATCH	64

/*
 * The transmit ring: TX_FRAMES slots of a power of two from 2 KiB (an MTU of 1500 with its
 * headers) up to TX_SLOT_MAX; bigger frames take sendmmsg. The frame starts TX_DATA_OFF into
 * its slot (the kernel's TPACKET_ALIGN(sizeof(struct tpacket2_hdr))).
 */
#define TX_FRAMES   1024
#define TX_SLOT_MIN 2048u
#define TX_SLOT_MAX 16384u
#define TX_DATA_OFF TPACKET_ALIGN(sizeof(struct tpacket2_hdr))
/* a slot the kernel still holds: queued for sending, being sent, refused */
#define TX_BUSY (TP_STATUS_SEND_REQUEST | TP_STATUS_SENDING | TP_STATUS_WRONG_FORMAT)

struct afpacket {
	char name[IF_NAMESIZE];
	int fd;
	int ifindex;
	uint8_t *ring;
	size_t ring_len;
	unsigned block; /* the next block to read */
	bool vnet;	/* PACKET_VNET_HDR: a virtio_net_hdr before each frame, both ways */
	bool lend;	/* zero-copy receive: blocks read are held until afpacket_rx_release */
	unsigned held;	/* blocks held: the `held` before `block`, oldest first */
	/* the transmit ring (txfd < 0: none, sendmmsg on fd) */
	int txfd;
	uint8_t *tx;
	size_t tx_len;
	uint32_t tx_slot;   /* bytes per slot */
	unsigned tx_head;   /* the next slot to fill: the kernel sends in the same order */
	unsigned tx_queued; /* slots filled since the last send() */
	bool tx_unsent;	    /* the last send() left frames in the ring: send again */
	struct afpacket_stats st;
};

int afpacket_link_info(const char *ifname, struct afpacket_link *out)
{
	struct ifreq ifr;
	int fd, err = 0;

	if (strlen(ifname) >= IF_NAMESIZE)
		return -EINVAL;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, ifname, strlen(ifname));
	if (ioctl(fd, SIOCGIFINDEX, &ifr) < 0) {
		err = -errno;
		goto out;
	}
	out->ifindex = ifr.ifr_ifindex;
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
		err = -errno;
		goto out;
	}
	memcpy(out->mac, ifr.ifr_hwaddr.sa_data, 6);
	if (ioctl(fd, SIOCGIFMTU, &ifr) < 0) {
		err = -errno;
		goto out;
	}
	out->mtu = (uint32_t)ifr.ifr_mtu;
out:
	close(fd);
	return err;
}

static int set_opt(int fd, int level, int name, const void *val, socklen_t len)
{
	return setsockopt(fd, level, name, val, len) < 0 ? -errno : 0;
}

static uint32_t tx_slot_size(uint32_t mtu)
{
	/* header, virtio_net_hdr, Ethernet with one VLAN tag, the MTU */
	size_t need = TX_DATA_OFF + sizeof(struct virtio_net_hdr) + ETH_HLEN + 4 + (size_t)mtu;
	uint32_t slot = TX_SLOT_MIN;

	while (slot < need && slot < TX_SLOT_MAX)
		slot <<= 1;
	return slot;
}

/*
 * The transmit ring on a socket of its own: a socket with a ring sends only from it, and the
 * receive socket stays free for sendmmsg of frames too big for a slot. Bound with protocol 0,
 * it is given no frames to receive; the kernel reads the protocol from each frame's header.
 */
static int tx_ring_open(struct afpacket *a, uint32_t mtu)
{
	struct tpacket_req req;
	struct sockaddr_ll sll;
	int ver = TPACKET_V2, one = 1, err;
	int sndbuf;
	long page = sysconf(_SC_PAGESIZE);
	uint32_t block;

	a->tx_slot = tx_slot_size(mtu);
	block = a->tx_slot > (uint32_t)page ? a->tx_slot : (uint32_t)page;
	a->txfd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (a->txfd < 0)
		return -errno;
	err = set_opt(a->txfd, SOL_PACKET, PACKET_VERSION, &ver, sizeof(ver));
	/* the same header in front of each frame as the receive socket has, or no ring */
	if (!err && a->vnet)
		err = set_opt(a->txfd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one));
	/* a frame the kernel refuses is skipped (its slot made free), not left blocking the ring */
	if (!err)
		err = set_opt(a->txfd, SOL_PACKET, PACKET_LOSS, &one, sizeof(one));
	if (err)
		return err;
	/* Room in the send buffer for every slot's skb at once, so a send() is never cut short
	 * by it (frames left in the ring wait for the next send). SO_SNDBUFFORCE needs
	 * CAP_NET_ADMIN; without it SO_SNDBUF, up to net.core.wmem_max. */
	sndbuf = (int)(TX_FRAMES * (a->tx_slot + 1024u));
	if (set_opt(a->txfd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)))
		set_opt(a->txfd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	memset(&req, 0, sizeof(req));
	req.tp_block_size = block;
	req.tp_frame_size = a->tx_slot;
	req.tp_frame_nr = TX_FRAMES;
	req.tp_block_nr = (unsigned)((size_t)TX_FRAMES * a->tx_slot / block);
	err = set_opt(a->txfd, SOL_PACKET, PACKET_TX_RING, &req, sizeof(req));
	if (err)
		return err;
	a->tx_len = (size_t)TX_FRAMES * a->tx_slot;
	a->tx = mmap(NULL, a->tx_len, PROT_READ | PROT_WRITE, MAP_SHARED, a->txfd, 0);
	if (a->tx == MAP_FAILED) {
		a->tx = NULL;
		return -errno;
	}
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = a->ifindex;
	if (bind(a->txfd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		return -errno;
	return 0;
}

static void tx_ring_close(struct afpacket *a)
{
	if (a->tx)
		munmap(a->tx, a->tx_len);
	if (a->txfd >= 0)
		close(a->txfd);
	a->tx = NULL;
	a->txfd = -1;
}

int afpacket_open(const char *ifname, struct afpacket **out)
{
	return afpacket_open_tx(ifname, AFPACKET_TX_SENDMMSG, out);
}

int afpacket_open_tx(const char *ifname, enum afpacket_tx tx, struct afpacket **out)
{
	struct tpacket_req3 req;
	struct packet_mreq mr;
	struct sockaddr_ll sll;
	struct afpacket_link link;
	struct afpacket *a;
	int ver = TPACKET_V3, one = 1, err;

	err = afpacket_link_info(ifname, &link);
	if (err)
		return err;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	snprintf(a->name, sizeof(a->name), "%s", ifname);
	a->ifindex = link.ifindex;
	a->txfd = -1;
	a->fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (a->fd < 0) {
		err = -errno;
		free(a);
		return err;
	}
	err = set_opt(a->fd, SOL_PACKET, PACKET_VERSION, &ver, sizeof(ver));
	if (err)
		goto fail;
	/* Not even queued for us: what we send would otherwise come back on the ring. Older
	 * kernels lack it; the pkttype check in afpacket_receive covers them. */
	set_opt(a->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	/* GSO frames whole and partial checksums, described (before the ring: the kernel
	 * refuses it after); without it a local sender's 64 KiB frames could not be sent on */
	a->vnet = set_opt(a->fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) == 0;

	memset(&req, 0, sizeof(req));
	req.tp_block_size = RING_BLOCK_SIZE;
	req.tp_block_nr = RING_BLOCKS;
	req.tp_frame_size = RING_FRAME_SIZE;
	req.tp_frame_nr = RING_BLOCK_SIZE / RING_FRAME_SIZE * RING_BLOCKS;
	req.tp_retire_blk_tov = RING_RETIRE_MS;
	err = set_opt(a->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req));
	if (err)
		goto fail;
	a->ring_len = (size_t)RING_BLOCK_SIZE * RING_BLOCKS;
	a->ring =
	    mmap(NULL, a->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_LOCKED, a->fd, 0);
	if (a->ring == MAP_FAILED) /* MAP_LOCKED may exceed RLIMIT_MEMLOCK: try without */
		a->ring = mmap(NULL, a->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, a->fd, 0);
	if (a->ring == MAP_FAILED) {
		err = -errno;
		a->ring = NULL;
		goto fail;
	}

	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = a->ifindex;
	if (bind(a->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		err = -errno;
		goto fail;
	}
	memset(&mr, 0, sizeof(mr));
	mr.mr_ifindex = a->ifindex;
	mr.mr_type = PACKET_MR_PROMISC;
	err = set_opt(a->fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr));
	if (err)
		goto fail;
	/* a kernel that refuses the ring (old, or no memory for it) is sent to by sendmmsg */
	if (tx == AFPACKET_TX_RING && tx_ring_open(a, link.mtu) < 0)
		tx_ring_close(a);
	*out = a;
	return 0;
fail:
	afpacket_close(a);
	return err;
}

void afpacket_close(struct afpacket *a)
{
	if (!a)
		return;
	tx_ring_close(a);
	if (a->ring)
		munmap(a->ring, a->ring_len);
	if (a->fd >= 0)
		close(a->fd);
	free(a);
}

int afpacket_fd(const struct afpacket *a)
{
	return a->fd;
}

const char *afpacket_name(const struct afpacket *a)
{
	return a->name;
}

enum afpacket_tx afpacket_tx_mode(const struct afpacket *a)
{
	return a->tx ? AFPACKET_TX_RING : AFPACKET_TX_SENDMMSG;
}

static struct tpacket_block_desc *block_at(struct afpacket *a, unsigned i)
{
	return (struct tpacket_block_desc *)(a->ring + (size_t)i * RING_BLOCK_SIZE);
}

/* One frame of a block: hand it over unless the interface sent it. */
static void frame_one(struct afpacket *a, struct tpacket3_hdr *h, afpacket_rx_fn fn, void *arg)
{
	const struct sockaddr_ll *sll =
	    (const struct sockaddr_ll *)((uint8_t *)h + TPACKET_ALIGN(sizeof(*h)));
	struct afpacket_frame f;

	if (sll->sll_pkttype == PACKET_OUTGOING) {
		a->st.rx_outgoing++;
		return;
	}
	f.data = (const uint8_t *)h + h->tp_mac;
	f.len = h->tp_snaplen;
	f.lend = NULL;
	f.headroom = 0;
	if (a->lend) {
		/* what lies between the address and the frame (the virtio_net_hdr, read below
		 * before fn runs, and padding) may be overwritten */
		uint32_t hdr = TPACKET_ALIGN(sizeof(*h)) + sizeof(*sll);

		f.lend = (uint8_t *)h + h->tp_mac;
		f.headroom = h->tp_mac > hdr ? h->tp_mac - hdr : 0;
		a->st.rx_lent++;
	}
	f.tstamp_ns = (uint64_t)h->tp_sec * 1000000000ull + h->tp_nsec;
	f.vlan_tci =
	    (h->tp_status & TP_STATUS_VLAN_VALID) ? (int)(h->hv1.tp_vlan_tci & 0xffff) : -1;
	f.csum_partial = (h->tp_status & TP_STATUS_CSUMNOTREADY) != 0;
	f.csum_valid = (h->tp_status & TP_STATUS_CSUM_VALID) != 0;
	memset(&f.off, 0, sizeof(f.off));
	if (a->vnet && h->tp_mac >= sizeof(struct virtio_net_hdr)) {
		/* the kernel writes it just before the frame */
		struct virtio_net_hdr vh;

		memcpy(&vh, (const uint8_t *)h + h->tp_mac - sizeof(vh), sizeof(vh));
		f.off.gso_type = vh.gso_type;
		f.off.gso_size = le16toh(vh.gso_size);
		f.off.hdr_len = le16toh(vh.hdr_len);
		f.off.needs_csum = (vh.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) != 0;
		f.off.csum_start = le16toh(vh.csum_start);
		f.off.csum_offset = le16toh(vh.csum_offset);
		f.csum_partial |= f.off.needs_csum;
		f.csum_valid |= (vh.flags & VIRTIO_NET_HDR_F_DATA_VALID) != 0;
	}
	a->st.rx++;
	a->st.rx_bytes += f.len;
	fn(arg, &f);
}

static void tx_kick(struct afpacket *a);

unsigned afpacket_receive(struct afpacket *a, unsigned budget, afpacket_rx_fn fn, void *arg)
{
	unsigned done = 0;

	if (a->tx_unsent) /* the loop comes here at least every wait: nothing waits for long */
		tx_kick(a);

	/* Whole blocks only: a block goes back to the kernel when all its frames are handled
	 * (lend mode: at afpacket_rx_release), so the budget is checked between blocks (a block
	 * holds at most ~128 full frames). */
	while (done < budget && a->held < RING_HOLD_MAX) {
		struct tpacket_block_desc *bd = block_at(a, a->block);
		struct tpacket3_hdr *h;
		uint32_t n;

		if (!(__atomic_load_n(&bd->hdr.bh1.block_status, __ATOMIC_ACQUIRE) &
		      TP_STATUS_USER))
			break;
		n = bd->hdr.bh1.num_pkts;
		h = (struct tpacket3_hdr *)((uint8_t *)bd + bd->hdr.bh1.offset_to_first_pkt);
		for (uint32_t i = 0; i < n; i++) {
			frame_one(a, h, fn, arg);
			h = (struct tpacket3_hdr *)((uint8_t *)h + h->tp_next_offset);
		}
		done += n;
		a->block = (a->block + 1) % RING_BLOCKS;
		if (!a->lend)
			__atomic_store_n(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL,
					 __ATOMIC_RELEASE);
		else
			a->held++; /* until afpacket_rx_release (at most RING_HOLD_MAX: the kernel
				    * keeps the other half to fill meanwhile) */
	}
	return done;
}

void afpacket_set_lend(struct afpacket *a, bool on)
{
	if (!on)
		afpacket_rx_release(a);
	a->lend = on;
}

void afpacket_rx_release(struct afpacket *a)
{
	/* in ring order: the kernel fills them again in that order */
	for (; a->held; a->held--) {
		unsigned i = (a->block + RING_BLOCKS - a->held) % RING_BLOCKS;

		__atomic_store_n(&block_at(a, i)->hdr.bh1.block_status, TP_STATUS_KERNEL,
				 __ATOMIC_RELEASE);
	}
}

bool afpacket_offloads(const struct afpacket *a)
{
	return a->vnet;
}

static void vnet_hdr(const struct afpacket_offload *o, struct virtio_net_hdr *vh)
{
	memset(vh, 0, sizeof(*vh));
	if (!o)
		return;
	vh->gso_type = o->gso_type;
	vh->gso_size = htole16(o->gso_size);
	vh->hdr_len = htole16(o->hdr_len);
	if (o->needs_csum) {
		vh->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		vh->csum_start = htole16(o->csum_start);
		vh->csum_offset = htole16(o->csum_offset);
	}
}

/* With PACKET_VNET_HDR every frame starts with its header: a first iovec in front. */
static void msgs_vnet(struct mmsghdr *msgs, unsigned k, struct iovec *const *frames,
		      const unsigned *nvec, const struct afpacket_offload *off,
		      struct iovec (*iov)[AFPACKET_MAX_IOV + 1], struct virtio_net_hdr *vh)
{
	for (unsigned i = 0; i < k; i++) {
		unsigned nv = nvec[i] < AFPACKET_MAX_IOV ? nvec[i] : AFPACKET_MAX_IOV;

		vnet_hdr(off ? &off[i] : NULL, &vh[i]);
		iov[i][0].iov_base = &vh[i];
		iov[i][0].iov_len = sizeof(vh[i]);
		memcpy(&iov[i][1], frames[i], nv * sizeof(struct iovec));
		msgs[i].msg_hdr.msg_iov = iov[i];
		msgs[i].msg_hdr.msg_iovlen = nv + 1;
	}
}

static unsigned send_mmsg(struct afpacket *a, struct iovec *const *frames, const unsigned *nvec,
			  const struct afpacket_offload *off, unsigned n)
{
	struct mmsghdr msgs[SEND_BATCH];
	struct iovec iov[SEND_BATCH][AFPACKET_MAX_IOV + 1];
	struct virtio_net_hdr vh[SEND_BATCH];
	unsigned sent = 0, ok = 0;

	while (sent < n) {
		unsigned k = n - sent < SEND_BATCH ? n - sent : SEND_BATCH;
		int r;

		memset(msgs, 0, sizeof(msgs[0]) * k);
		if (a->vnet)
			msgs_vnet(msgs, k, frames + sent, nvec + sent, off ? off + sent : NULL, iov,
				  vh);
		else
			for (unsigned i = 0; i < k; i++) {
				msgs[i].msg_hdr.msg_iov = frames[sent + i];
				msgs[i].msg_hdr.msg_iovlen = nvec[sent + i];
			}
		r = sendmmsg(a->fd, msgs, k, MSG_DONTWAIT);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			/* The frame at the head was refused (queue full, too big): drop it and
			 * go on with the rest. */
			a->st.tx_errors++;
			sent++;
			continue;
		}
		for (int i = 0; i < r; i++) {
			a->st.tx++;
			a->st.tx_bytes += msgs[i].msg_len - (a->vnet ? sizeof(vh[0]) : 0);
		}
		sent += (unsigned)r;
		ok += (unsigned)r;
	}
	return ok;
}

/* Whether the slot is free: the kernel has freed the skb of the frame it last held. */
static struct tpacket2_hdr *tx_slot_free(struct afpacket *a)
{
	struct tpacket2_hdr *h = (struct tpacket2_hdr *)(a->tx + (size_t)a->tx_head * a->tx_slot);

	return __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) & TX_BUSY ? NULL : h;
}

/* Hand the filled slots to the kernel: it sends them in ring order, now, in this call. */
static void tx_kick(struct afpacket *a)
{
	unsigned last = (a->tx_head + TX_FRAMES - 1) % TX_FRAMES;
	const struct tpacket2_hdr *h;

	if (!a->tx_queued && !a->tx_unsent)
		return;
	a->tx_queued = 0;
	while (send(a->txfd, NULL, 0, MSG_DONTWAIT) < 0 && errno == EINTR)
		;
	/* The kernel stops early only when it could not have an skb (send buffer full, no
	 * memory, interface down); then the last frame filled is still queued. */
	h = (const struct tpacket2_hdr *)(a->tx + (size_t)last * a->tx_slot);
	a->tx_unsent = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) & TP_STATUS_SEND_REQUEST;
}

/* One frame into the next slot: 0, or -ENOSPC when the kernel holds that slot still. */
static int tx_fill(struct afpacket *a, const struct iovec *iov, unsigned nv,
		   const struct afpacket_offload *o, size_t len)
{
	struct tpacket2_hdr *h = tx_slot_free(a);
	uint8_t *d;

	if (!h && a->tx_queued) { /* what we filled may free it: send it and look again */
		tx_kick(a);
		h = tx_slot_free(a);
	}
	if (!h)
		return -ENOSPC;
	d = (uint8_t *)h + TX_DATA_OFF;
	if (a->vnet) {
		struct virtio_net_hdr vh;

		vnet_hdr(o, &vh);
		/* hdr_len is what the kernel copies into the skb; the rest it would take as pages
		 * of the ring. A frame that is not GSO is copied whole: no page reference that
		 * keeps the slot (or, on a veth, costs a page copy), as sendmmsg does. */
		if (!vh.gso_type)
			vh.hdr_len = htole16((uint16_t)len);
		memcpy(d, &vh, sizeof(vh));
		d += sizeof(vh);
	}
	for (unsigned k = 0; k < nv; k++) {
		memcpy(d, iov[k].iov_base, iov[k].iov_len);
		d += iov[k].iov_len;
	}
	h->tp_len = (uint32_t)(len + (a->vnet ? sizeof(struct virtio_net_hdr) : 0));
	__atomic_store_n(&h->tp_status, TP_STATUS_SEND_REQUEST, __ATOMIC_RELEASE);
	a->tx_head = (a->tx_head + 1) % TX_FRAMES;
	a->tx_queued++;
	return 0;
}

static unsigned send_ring(struct afpacket *a, struct iovec *const *frames, const unsigned *nvec,
			  const struct afpacket_offload *off, unsigned n)
{
	size_t room = a->tx_slot - TX_DATA_OFF - (a->vnet ? sizeof(struct virtio_net_hdr) : 0);
	unsigned ok = 0;

	for (unsigned i = 0; i < n; i++) {
		unsigned nv = nvec[i] < AFPACKET_MAX_IOV ? nvec[i] : AFPACKET_MAX_IOV;
		const struct afpacket_offload *o = off ? &off[i] : NULL;
		size_t len = 0;

		for (unsigned k = 0; k < nv; k++)
			len += frames[i][k].iov_len;
		if (len > room) {
			/* too big for a slot: after what is in the ring, by sendmmsg */
			tx_kick(a);
			ok += send_mmsg(a, frames + i, nvec + i, o, 1);
			continue;
		}
		if (tx_fill(a, frames[i], nv, o, len) < 0) {
			a->st.tx_errors++;
			continue;
		}
		a->st.tx++;
		a->st.tx_ring++;
		a->st.tx_bytes += len;
		ok++;
	}
	tx_kick(a);
	return ok;
}

unsigned afpacket_send(struct afpacket *a, struct iovec *const *frames, const unsigned *nvec,
		       const struct afpacket_offload *off, unsigned n)
{
	return a->tx ? send_ring(a, frames, nvec, off, n) : send_mmsg(a, frames, nvec, off, n);
}

void afpacket_get_stats(struct afpacket *a, struct afpacket_stats *st)
{
	struct tpacket_stats_v3 ks;
	socklen_t len = sizeof(ks);

	/* Reading resets the kernel's counters: accumulate. */
	if (getsockopt(a->fd, SOL_PACKET, PACKET_STATISTICS, &ks, &len) == 0)
		a->st.kernel_drops += ks.tp_drops;
	*st = a->st;
}

int afpacket_poll(struct afpacket *const *socks, unsigned n, int timeout_ms,
		  const sigset_t *sigmask, bool *ready)
{
	struct pollfd pfd[64];
	struct timespec ts = {.tv_sec = timeout_ms / 1000,
			      .tv_nsec = (timeout_ms % 1000) * 1000000L};
	int r, nready = 0;

	if (n > 64)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		pfd[i].fd = socks[i]->fd;
		pfd[i].events = POLLIN;
		pfd[i].revents = 0;
	}
	r = ppoll(pfd, n, &ts, sigmask);
	if (r < 0)
		return -errno;
	for (unsigned i = 0; i < n; i++) {
		/* POLLIN or not, a retired block may be waiting: the ring is the truth. */
		ready[i] =
		    (pfd[i].revents & (POLLIN | POLLERR)) ||
		    (block_at(socks[i], socks[i]->block)->hdr.bh1.block_status & TP_STATUS_USER);
		nready += ready[i];
	}
	return nready;
}

int afpacket_fanout(struct afpacket *a, int mode, int *id)
{
	/* id in the low 16 bits, mode and flags above */
	int arg =
	    *id < 0 ? (mode | PACKET_FANOUT_FLAG_UNIQUEID) << 16 : mode << 16 | (*id & 0xffff);
	socklen_t len = sizeof(arg);

	if (setsockopt(a->fd, SOL_PACKET, PACKET_FANOUT, &arg, sizeof(arg)) < 0)
		return -errno;
	if (*id < 0) { /* the id the kernel chose: the low 16 bits */
		if (getsockopt(a->fd, SOL_PACKET, PACKET_FANOUT, &arg, &len) < 0)
			return -errno;
		*id = arg & 0xffff;
	}
	return 0;
}

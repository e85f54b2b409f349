/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Live mode: the loop, the config file, ARP/ND for the box's own addresses, next-hop
 * resolution after ops.xmit, and the little local stack (echo, RST, port unreachable).
 *
 * Where the destination MAC comes from: the box writes the interface's peer_mac (a fixed
 * per-interface MAC, right for the simulator's point-to-point wires); here the frame's
 * destination is rewritten after ops.xmit from the neighbour table, for the next hop of the
 * route the box used (its gateway, or the destination when directly connected). The route is
 * looked up again on the same thread with the same table and the same destination, so it is
 * the box's decision; doing it here keeps the engine free of resolution, queues and timers,
 * which only live mode needs.
 *
 * Box-setup lines of the config file (iface, addr, route, forwarding, conntrack set,
 * ct-timeout) go through box_setup_command (src/engine/setup.c), as the simulator's do, so a
 * box reads the same in a script, in replay --box and here.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ct/ct.h"
#include "ct/ct_plugin.h"
#include "classify/ruleset.h"
#include "ctl/client.h"
#include "ctl/server.h"
#include "engine/box.h"
#include "engine/setup.h"
#include "set/set_plugin.h"
#include "io/afpacket.h"
#include "io/port.h"
#include "io/clock.h"
#include "io/ndisc.h"
#include "io/neigh.h"
#include "io/offload.h"
#include "io/pcapio.h"
#include "live/live.h"
#include "live/sync.h"
#include "pkt/gso.h"
#include "pkt/reply.h"
#include "rules/rules.h"

#include "live/live_int.h"

/* ---- transmit ---------------------------------------------------------------------------- */

/* A worker and an interface of the box, for the frame and segment callbacks. */
struct rx_ctx {
	struct live_worker *w;
	int ifindex;
};

static void txq_flush_one(struct live_worker *w, unsigned i);
static void txq_push_segment(void *arg, struct pkt *p);

/* Queue a frame on the transmit queue of the worker holding the box lock. */
static void txq_push(struct live *l, int ifindex, struct pkt *p)
{
	struct live_worker *w = l->cur;
	struct live_txq *q;

	if (ifindex < 1 || (unsigned)ifindex > l->nsock) {
		pkt_free(p);
		return;
	}
	if ((p->gso_size || p->csum_partial) && !io_port_offloads(w->port[ifindex - 1])) {
		/* AF_XDP: the segments a GSO packet stands for, whole checksums */
		struct rx_ctx c = {w, ifindex};

		io_offload_fit(p, txq_push_segment, &c);
		return;
	}
	q = &w->txq[ifindex - 1];
	if (q->n == LIVE_TXQ)
		txq_flush_one(w, (unsigned)ifindex - 1); /* the batch is full: out with it now */
	q->p[q->n++] = p;
}

/* Every frame queued on one interface out in sendmmsg batches; the segments are the iovecs. */
static void txq_flush_one(struct live_worker *w, unsigned i)
{
	struct live_txq *q = &w->txq[i];
	struct iovec iov[LIVE_TXQ][PKT_MAX_SEGS];
	struct iovec *frames[LIVE_TXQ];
	unsigned nvec[LIVE_TXQ];
	struct afpacket_offload off[LIVE_TXQ];
	bool offloads = io_port_offloads(w->port[i]);

	if (!q->n)
		return;
	for (unsigned k = 0; k < q->n; k++) {
		struct pkt *p = q->p[k];

		if (offloads)
			io_offload_tx(p, &off[k]);

		for (unsigned s = 0; s < p->nsegs; s++) {
			iov[k][s].iov_base = p->seg[s].data;
			iov[k][s].iov_len = p->seg[s].len;
		}
		frames[k] = iov[k];
		nvec[k] = p->nsegs;
	}
	io_port_send(w->port[i], frames, nvec, offloads ? off : NULL, q->n);
	for (unsigned k = 0; k < q->n; k++)
		pkt_free(q->p[k]);
	q->n = 0;
}

/* Out of the box lock: the kernel's side of sending runs beside the other workers. */
static void txq_flush(struct live_worker *w)
{
	for (unsigned i = 0; i < w->l->nsock; i++)
		txq_flush_one(w, i);
}

static void send_frame(struct live *l, int ifindex, const uint8_t *frame, size_t len)
{
	struct pkt *p = pkt_from_bytes(frame, (uint32_t)len);

	if (!p) {
		l->cur->st.nomem++;
		return;
	}
	txq_push(l, ifindex, p);
}

/* ---- neighbour resolution ---------------------------------------------------------------- */

/* Our address on ifindex to speak from toward `to`: one in the same prefix, else the first. */
static const union pt_addr *source_for(const struct live *l, int ifindex, int family,
				       const union pt_addr *to)
{
	const union pt_addr *first = NULL;
	const struct box_addr *a;

	for (unsigned i = 0; (a = box_addr_at(l->box, i)); i++) {
		union pt_addr m;

		if (a->ifindex != ifindex || a->family != family)
			continue;
		pt_mask_from_len(family, a->plen, &m);
		if (to && pt_addr_match(to, &a->addr, &m))
			return &a->addr;
		if (!first)
			first = &a->addr;
	}
	return first;
}

static bool is_ours(const struct live *l, int ifindex, int family, const union pt_addr *x)
{
	const struct box_addr *a;

	for (unsigned i = 0; (a = box_addr_at(l->box, i)); i++)
		if (a->ifindex == ifindex && a->family == family && pt_addr_eq(&a->addr, x))
			return true;
	return false;
}

static void neigh_probe_cb(void *arg, int ifindex, int family, const union pt_addr *addr,
			   const uint8_t *mac)
{
	struct live *l = arg;
	const struct box_iface *ifc = box_iface(l->box, ifindex);
	const union pt_addr *src = source_for(l, ifindex, family, addr);
	union pt_addr zero = {0};
	uint8_t buf[NDISC_FRAME_MAX];
	size_t n;

	if (!ifc)
		return;
	if (family == AF_INET)
		n = ndisc_build_arp(buf, NDISC_REQUEST, ifc->mac, src ? src : &zero, mac, addr);
	else if (src)
		n = ndisc_build_ns(buf, ifc->mac, src, addr, mac);
	else
		return; /* no IPv6 address on the link to ask from */
	send_frame(l, ifindex, buf, n);
}

static void neigh_send_cb(void *arg, int ifindex, struct pkt *p, const uint8_t mac[6])
{
	struct live *l = arg;

	pkt_store(p, 0, mac, 6);
	txq_push(l, ifindex, p);
}

static void neigh_drop_cb(void *arg, int ifindex, struct pkt *p, bool unresolved)
{
	struct live *l = arg;

	l->cur->st.neigh_drops++;
	pkt_free(p);
}

static const struct neigh_ops live_neigh_ops = {
    .probe = neigh_probe_cb, .send = neigh_send_cb, .drop = neigh_drop_cb};

/* Destination MACs that need no resolution: broadcast and multicast. */
static bool group_mac(const struct box *b, int family, const union pt_addr *dst, uint8_t mac[6])
{
	if (family == AF_INET6) {
		if (dst->b[0] != 0xff)
			return false;
		ndisc_ipv6_mcast_mac(dst, mac);
		return true;
	}
	if ((dst->b[0] & 0xf0) == 0xe0) {
		mac[0] = 0x01;
		mac[1] = 0x00;
		mac[2] = 0x5e;
		mac[3] = dst->b[1] & 0x7f;
		mac[4] = dst->b[2];
		mac[5] = dst->b[3];
		return true;
	}
	if (dst->w[0] == 0xffffffffu) {
		memset(mac, 0xff, 6);
		return true;
	}
	return false;
}

/* ops.xmit: the frame carries the box's Ethernet header; give it the next hop's MAC. */
static void live_xmit(void *user, struct box *b, int oif, struct pkt *p)
{
	struct live *l = user;
	const struct box_route *r;
	union pt_addr dst, nh;
	uint8_t mac[6];
	int fam = p->info.family;

	memset(&dst, 0, sizeof(dst));
	if (pkt_copy_out(p, p->info.l3off + (fam == AF_INET6 ? 24 : 16), dst.b,
			 fam == AF_INET6 ? 16 : 4)) {
		pkt_free(p);
		return;
	}
	if (group_mac(b, fam, &dst, mac)) {
		pkt_store(p, 0, mac, 6);
		txq_push(l, oif, p);
		return;
	}
	r = box_route_lookup(b, fam, &dst);
	nh = dst;
	if (r && r->oif == oif) {
		static const union pt_addr zero;

		if (!pt_addr_eq(&r->gw, &zero))
			nh = r->gw;
	}
	switch (neigh_output(l->neigh, oif, fam, &nh, p, box_now(b), mac)) {
	case NEIGH_SEND:
		pkt_store(p, 0, mac, 6);
		txq_push(l, oif, p);
		break;
	case NEIGH_QUEUED:
	case NEIGH_DROPPED:
		break;
	}
}

/* ---- the local stack --------------------------------------------------------------------- */

/*
 * An echo reply: a fresh IP header (no options, no extension headers) over the request's
 * ICMP message with the type changed. Raw IP, for box_output.
 */
static struct pkt *echo_reply(const struct pkt *req)
{
	const struct pkt_info *in = &req->info;
	bool v6 = in->family == AF_INET6;
	uint32_t hl = v6 ? 40 : 20, ml = in->l4len;
	struct pkt *p;
	uint8_t *d;

	if (ml < 8 || hl + ml > 65535)
		return NULL;
	p = pkt_alloc(hl + ml);
	if (!p)
		return NULL;
	d = pkt_linear_data(p);
	if (pkt_copy_out(req, in->l4off, d + hl, ml)) {
		pkt_free(p);
		return NULL;
	}
	if (v6) {
		d[0] = 0x60;
		d[4] = (uint8_t)(ml >> 8);
		d[5] = (uint8_t)ml;
		d[6] = 58;
		d[7] = 64;
		memcpy(d + 8, in->dst.b, 16);
		memcpy(d + 24, in->src.b, 16);
		d[hl] = 129;
	} else {
		d[0] = 0x45;
		d[2] = (uint8_t)((hl + ml) >> 8);
		d[3] = (uint8_t)(hl + ml);
		d[8] = 64;
		d[9] = 1;
		memcpy(d + 12, in->dst.b, 4);
		memcpy(d + 16, in->src.b, 4);
		d[hl] = 0;
	}
	if (pkt_parse(p, PKT_LINK_RAW, false)) {
		pkt_free(p);
		return NULL;
	}
	pkt_ip_csum_update(p);
	pkt_l4_csum_update(p);
	return p;
}

/* ops.deliver: what a host with no listening sockets answers. Answers are sent after the
 * packet in hand is done (the box is not re-entered from its own callback). */
static void live_deliver(void *user, struct box *b, struct pkt *p)
{
	struct live *l = user;
	const struct pkt_info *in = &p->info;
	struct pkt *ans = NULL;

	if (!in->has_l4 || !box_is_local(b, in->family, &in->dst))
		goto out;
	if ((in->l4proto == 1 && in->icmp_type == 8) || (in->l4proto == 58 && in->icmp_type == 128))
		ans = echo_reply(p);
	else if (in->l4proto == 6)
		pkt_reply_tcp_rst(p, NULL, &ans);
	else if (in->l4proto == 17)
		pkt_reply_icmp(p, in->family == AF_INET6 ? 1 : 3, in->family == AF_INET6 ? 4 : 3, 0,
			       NULL, &ans);
	if (!ans)
		goto out;
	if (l->nlocal == LIVE_LOCALQ) {
		l->cur->st.local_full++;
		pkt_free(ans);
	} else {
		l->localq[l->nlocal++] = ans;
		l->cur->st.local_answers++;
	}
out:
	pkt_free(p);
}

static void run_local(struct live *l)
{
	for (unsigned i = 0; i < l->nlocal; i++)
		box_output(l->box, l->localq[i]);
	l->nlocal = 0;
}

static void live_nflog(void *user, struct box *b, unsigned group, const char *prefix,
		       const struct pkt *p)
{
	struct live *l = user;
	uint8_t buf[PKT_MAX_LEN];
	uint32_t n = p->info.l3len;

	(void)prefix;
	if (p->gso_size) {
		/* the capture shows what goes on the wire: the segments, whole checksums */
		unsigned max = pkt_gso_nsegs(p);
		struct pkt **segs = calloc(max, sizeof(*segs));
		int k = segs ? pkt_gso_segment(p, segs, max) : -ENOMEM;

		for (int i = 0; i < k; i++) {
			live_nflog(user, b, group, prefix, segs[i]);
			pkt_free(segs[i]);
		}
		free(segs);
		return;
	}
	if (n > sizeof(buf) || pkt_copy_out(p, p->info.l3off, buf, n) < 0)
		return;
	for (unsigned i = 0; i < l->nnflog; i++)
		if (l->nflog[i].group == group)
			pcapio_write_bytes(l->nflog[i].w, buf, n, box_now(b));
}

static void live_log(void *user, struct box *b, int level, const char *line)
{
	struct live *l = user;

	fprintf(l->err, "pkttables: log <%d> %s\n", level, line);
}

static void live_trace(void *user, struct box *b, const struct pkt *p, const char *line)
{
	struct live *l = user;

	fprintf(l->err, "pkttables: trace %s\n", line);
}

/* ---- receive ----------------------------------------------------------------------------- */

/* ARP, NS, NA: answer for our own addresses on this interface, learn who asked. */
static void handle_ndisc(struct live *l, int ifindex, const struct ndisc_msg *m)
{
	const struct box_iface *ifc = box_iface(l->box, ifindex);
	bool for_us = is_ours(l, ifindex, m->family, &m->target);
	static const union pt_addr zero;
	bool unspec = pt_addr_eq(&m->sender, &zero);
	const uint8_t *mac = m->has_lladdr ? m->lladdr : m->eth_src;
	uint8_t buf[NDISC_FRAME_MAX];
	uint64_t now = box_now(l->box);

	l->cur->st.ndisc_in++;
	if (m->op == NDISC_REPLY) {
		/* ARP reply: its sender; NA: its target. Only entries we asked for are updated
		 * (no creation from unsolicited answers, as the kernel by default). */
		neigh_update(l->neigh, ifindex, m->family,
			     m->family == AF_INET ? &m->sender : &m->target, mac, false, now);
		return;
	}
	if (!unspec)
		neigh_update(l->neigh, ifindex, m->family, &m->sender, mac, for_us, now);
	if (!for_us)
		return;
	if (m->family == AF_INET) {
		send_frame(
		    l, ifindex, buf,
		    ndisc_build_arp(buf, NDISC_REPLY, ifc->mac, &m->target, m->lladdr, &m->sender));
	} else {
		union pt_addr all_nodes = {.b = {0xff, 0x02, [15] = 1}};
		uint8_t amac[6];

		/* RFC 4861 7.2.4: to the solicitor; from the unspecified address (DAD), to all
		 * nodes and not solicited. */
		if (unspec) {
			ndisc_ipv6_mcast_mac(&all_nodes, amac);
			send_frame(l, ifindex, buf,
				   ndisc_build_na(buf, ifc->mac, &m->target, &all_nodes, amac, true,
						  false));
		} else {
			send_frame(
			    l, ifindex, buf,
			    ndisc_build_na(buf, ifc->mac, &m->target, &m->sender, mac, true, true));
		}
	}
	l->cur->st.ndisc_answers++;
}

/*
 * A frame as a packet: over the ring's bytes where the port lends them (io_frame_lend, a packet
 * of the worker's pool); else copied with the 802.1Q tag the kernel took off put back: one
 * worker into the box's pool (box_pkt_get), several into malloc's (made outside the box lock,
 * freed by any worker: live/workers.h).
 */
static struct pkt *frame_to_pkt(struct live_worker *w, const struct afpacket_frame *f)
{
	struct pkt *p = io_frame_lend(w->lend, f);

	if (p || (f->vlan_tci >= 0 && f->len >= 12))
		return p ? p : io_frame_copy_tagged(f);
	if (w->l->nworkers == 1)
		return box_pkt_get(w->l->box, f->data, f->len);
	return pkt_from_bytes(f->data, f->len);
}

_Static_assert(LIVE_RX_BUDGET <= BOX_BURST_MAX, "a staged batch is one burst at most");

/*
 * Under the box lock, after a batch: what it made that is due now (a new connection, its
 * handshake: tx-hold 0) leaves at once from this worker, the send being non-blocking; what is
 * held for later (tx-hold, tx-hold-update) is worker 0's timer, so worker 0 is woken when it
 * would sleep past it (l->sync_due: when it wakes next).
 */
static void sync_after_batch(struct live *l, struct live_worker *w, uint64_t now)
{
	static const uint64_t one = 1;
	uint64_t due;

	if (!l->sync)
		return;
	if (live_sync_next(l->sync) <= now)
		live_sync_tick(l->sync, now);
	due = live_sync_next(l->sync);
	if (w->id && due < l->sync_due && l->sync_wake >= 0) {
		l->sync_due = due;
		if (write(l->sync_wake, &one, sizeof(one)) < 0) {
			/* only a full counter (EAGAIN): worker 0 is woken anyway */
		}
	}
}

/*
 * The staged batch through the box, under the box lock: ARP/ND first (an answer learnt may
 * release packets waiting for it), then the packets in the order they came. The clock is read
 * under the lock, so the box's time never goes back whichever worker sets it.
 */
static void run_stage(struct live_worker *w)
{
	struct live *l = w->l;
	uint64_t now;

	if (!w->nstage && !w->nnd)
		return;
	live_pool_lock(&l->pool);
	l->cur = w;
	now = io_monotonic_ns();
	box_set_time(l->box, now);
	for (unsigned i = 0; i < w->nnd; i++)
		handle_ndisc(l, w->nd_if[i], &w->nd[i]);
	/* each run of packets from one interface as one burst; the local stack's answers
	 * (at most one per packet: LIVE_LOCALQ) after it */
	for (unsigned i = 0, j; i < w->nstage; i = j) {
		for (j = i; j < w->nstage && w->stage_if[j] == w->stage_if[i]; j++) {
			w->stage[j]->tstamp_ns = now;
			w->stage[j]->id = ++l->pkt_id;
		}
		box_receive_burst(l->box, w->stage_if[i], &w->stage[i], j - i, NULL);
		run_local(l);
	}
	sync_after_batch(l, w, now);
	live_pool_unlock(&l->pool);
	w->nstage = w->nnd = 0;
}

/* io_offload_fit's emit: one segment onto the interface's queue. */
static void txq_push_segment(void *arg, struct pkt *p)
{
	struct rx_ctx *c = arg;

	txq_push(c->w->l, c->ifindex, p);
}

/* One frame out of a ring, without the box lock: what is not ours is left, the rest copied
 * into the worker's batch. */
static void rx_frame(void *arg, const struct afpacket_frame *f)
{
	struct rx_ctx *c = arg;
	struct live_worker *w = c->w;
	struct ndisc_msg *m;
	struct pkt *p;
	int rc;

	if (f->len < ETH_HLEN)
		return;
	/* Promiscuous: unicast frames for other hosts on the link are not ours to route. Frames
	 * to the kernel's MAC are (a neighbour that learnt it before pkttables took its own). */
	if (!(f->data[0] & 1) && memcmp(f->data, w->l->mac[c->ifindex - 1], 6) &&
	    memcmp(f->data, w->l->kmac[c->ifindex - 1], 6)) {
		w->st.not_for_us++;
		return;
	}
	if (f->vlan_tci < 0) {
		if (w->nnd == LIVE_NDISC_BATCH)
			run_stage(w);
		m = &w->nd[w->nnd];
		rc = ndisc_parse(f->data, f->len, m);
		if (rc == 0) {
			w->nd_if[w->nnd++] = c->ifindex;
			return;
		}
		if (rc == -EBADMSG) {
			w->st.ndisc_bad++;
			return;
		}
	}
	p = frame_to_pkt(w, f);
	if (!p) {
		w->st.nomem++;
		return;
	}
	/* A GSO frame stays one packet (as netfilter sees the kernel's), with its partial
	 * checksum; one frame's partial checksum is finished now; the verified flag is kept so
	 * conntrack need not sum it again */
	if (io_offload_rx(p, f)) {
		w->st.bad_offload++;
		pkt_free(p);
		return;
	}
	w->st.csum_partial += f->csum_partial;
	if (w->nstage == LIVE_RX_BUDGET)
		run_stage(w);
	w->stage[w->nstage] = p;
	w->stage_if[w->nstage++] = c->ifindex;
}

/* ---- rulesets ---------------------------------------------------------------------------- */

int live_reload(struct live *l)
{
	int rc = live_load_rules(l->box, l->rules, l->rules6, l->err);

	if (rc < 0)
		l->st.reload_errors++;
	else
		l->st.reloads++;
	return rc;
}

static int workers_new(struct live *l)
{
	if (!l->nworkers)
		l->nworkers = live_workers_default();
	if (live_pool_init(&l->pool, l->nworkers) < 0)
		return -ENOMEM;
	for (unsigned i = 0; i < l->nworkers; i++) {
		if (!(l->w[i] = calloc(1, sizeof(*l->w[i]))))
			return -ENOMEM;
		l->w[i]->l = l;
		l->w[i]->id = i;
		if (!(l->w[i]->lend = pkt_pool_new(LIVE_LEND_IDLE, 64))) /* io_frame_lend's */
			return -ENOMEM;
	}
	l->cur = l->w[0]; /* until the workers run: the opening thread */
	return 0;
}

int live_open(const char *config, int classifier, FILE *err, struct live **out)
{
	static const struct box_ops ops = {.xmit = live_xmit,
					   .deliver = live_deliver,
					   .log = live_log,
					   .trace = live_trace,
					   .nflog = live_nflog};
	struct live *l = calloc(1, sizeof(*l));
	int rc;

	if (!l)
		return -ENOMEM;
	l->err = err;
	l->sync_wake = -1;
	l->box = box_new("live", &ops, l);
	l->neigh = neigh_new(NULL, &live_neigh_ops, l);
	if (!l->box || !l->neigh) {
		live_free(l);
		return -ENOMEM;
	}
	box_set_time(l->box, io_monotonic_ns());
	io_seed_box(l->box);
	l->cls_forced = classifier;
	box_set_classifier(l->box, classifier >= 0 ? classifier : CLS_MODE_AUTO, io_monotonic_s);
	rc = live_read_config(l, config);
	if (rc == 0)
		rc = workers_new(l);
	if (rc == 0)
		rc = live_open_ports(l);
	if (rc == 0)
		rc = live_reload(l);
	if (rc == 0 && l->sync)
		rc = live_sync_start(l->sync, l->box, err);
	if (rc == 0 && l->sync && (l->sync_wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0)
		rc = -errno;
	if (rc < 0) {
		live_free(l);
		return rc;
	}
	*out = l;
	return 0;
}

static void worker_free(struct live_worker *w, unsigned nsock)
{
	for (unsigned i = 0; i < nsock; i++) {
		for (unsigned k = 0; k < w->txq[i].n; k++)
			pkt_free(w->txq[i].p[k]);
		io_port_close(w->port[i]); /* a shared port: the last user closes it */
	}
	for (unsigned i = 0; i < w->nstage; i++)
		pkt_free(w->stage[i]);
	pkt_pool_free(w->lend); /* after its packets: they were all in stage or txq */
	free(w);
}

void live_free(struct live *l)
{
	if (!l)
		return;
	for (unsigned i = 0; i < l->nlocal; i++)
		pkt_free(l->localq[i]);
	for (unsigned i = 0; i < l->nnflog; i++)
		pcapio_finish(l->nflog[i].w);
	ctl_server_free(l->ctl); /* unlinks the socket */
	live_sync_free(l->sync); /* before the box: it watches the box's conntrack table */
	if (l->sync_wake >= 0)
		close(l->sync_wake);
	for (unsigned i = 0; i < LIVE_MAX_WORKERS; i++)
		if (l->w[i])
			worker_free(l->w[i], l->nsock);
	if (l->w[0])
		live_pool_destroy(&l->pool);
	neigh_free(l->neigh);
	box_free(l->box);
	free(l);
}

/* ---- the control socket ------------------------------------------------------------------ */

int live_set_control(struct live *l, const char *spec)
{
	if (snprintf(l->control, sizeof(l->control), "%s", spec) >= (int)sizeof(l->control))
		return -ENAMETOOLONG;
	return 0;
}

/*
 * A worker's wait: the ports it receives on, and for worker 0 the control socket and the sync
 * link and its wake-up (sync_after_batch), in one ppoll, until the sync's own timer at the latest
 * (sync_due, box clock, computed under the lock by worker0_chores; waitmask: worker 0's signals;
 * NULL for the others, which keep every signal blocked). Every ring is then looked at (as
 * afpacket_poll does, the ring is the truth: a retired block may be waiting without POLLIN).
 * Returns what ppoll did; *ctl_ready when requests wait.
 */
static int worker_wait(struct live_worker *w, const sigset_t *waitmask, uint64_t sync_due,
		       bool *ctl_ready, bool *sync_ready)
{
	struct live *l = w->l;
	struct pollfd pfd[BOX_MAX_IFACES + 3];
	struct timespec ts = {.tv_sec = 0, .tv_nsec = LIVE_WAIT_MS * 1000000L};
	uint64_t due = w->id ? UINT64_MAX : sync_due, now = io_monotonic_ns(), v;
	unsigned n = 0;
	int r;

	/* a sync timer (held events, the 1 s ALIVE) wakes us up earlier than the usual bound */
	if (due != UINT64_MAX)
		ts.tv_nsec = due <= now				? 0
			     : due - now < (uint64_t)ts.tv_nsec ? (long)(due - now)
								: ts.tv_nsec;
	for (unsigned i = 0; i < l->nsock; i++)
		if (w->rx[i])
			pfd[n++] = (struct pollfd){.fd = io_port_fd(w->port[i]), .events = POLLIN};
	/* a descriptor of -1 is ignored by poll: no control socket, or no sync link */
	pfd[n] =
	    (struct pollfd){.fd = !w->id && l->ctl ? ctl_server_fd(l->ctl) : -1, .events = POLLIN};
	pfd[n + 1] = (struct pollfd){.fd = w->id ? -1 : live_sync_fd(l->sync), .events = POLLIN};
	pfd[n + 2] = (struct pollfd){.fd = w->id ? -1 : l->sync_wake, .events = POLLIN};
	r = ppoll(pfd, n + 3, &ts, waitmask);
	if (r < 0)
		return -errno;
	*ctl_ready = pfd[n].revents != 0;
	*sync_ready = pfd[n + 1].revents != 0;
	if (pfd[n + 2].revents && read(l->sync_wake, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return -errno;
	return (int)n;
}

/* ---- the loop and the counters ----------------------------------------------------------- */

/* The counters this worker keeps outside the lock, copied for the dump. */
static void worker_snapshot(struct live_worker *w)
{
	for (unsigned i = 0; i < w->l->nsock; i++)
		if (w->rx[i])
			io_port_get_stats(w->port[i], &w->snap_port[i]);
	w->snap_st = w->st;
	pkt_pool_stats(w->lend, &w->snap_lend);
}

/* Worker 0's share between batches, under the box lock: signals, the control socket, sync and
 * the neighbours' timers. */
static void worker0_chores(struct live *l, struct live_flags *flags, bool ctl_ready,
			   bool sync_ready, uint64_t *last_tick, uint64_t *sync_due)
{
	bool dump = flags->dump;
	uint64_t now;

	if (dump) {
		/* the other workers copy their counters when they next wake (bounded) */
		flags->dump = 0;
		if (!live_pool_snap_request(&l->pool, 10 * LIVE_WAIT_MS))
			fprintf(l->err,
				"pkttables: a worker did not answer: its counters are old\n");
		worker_snapshot(l->w[0]);
	}
	live_pool_lock(&l->pool);
	l->cur = l->w[0];
	now = io_monotonic_ns();
	box_set_time(l->box, now);
	if (flags->reload) {
		flags->reload = 0;
		if (live_reload(l) == 0)
			fprintf(l->err, "pkttables: ruleset reloaded\n");
	}
	/* a ruleset replaced here and a SIGHUP reload both go through box_set_ruleset under the
	 * lock, one after the other; no worker is inside the box meanwhile */
	if (ctl_ready)
		ctl_server_process(l->ctl);
	/* what the batch changed in the table goes out now, packed */
	if (sync_ready)
		live_sync_input(l->sync, now);
	else
		live_sync_tick(l->sync, now);
	if (now - *last_tick >= LIVE_WAIT_MS * 1000000ull) {
		neigh_tick(l->neigh, now);
		*last_tick = now;
	}
	if (dump)
		live_dump(l, l->err);
	/* worker 0's next wake for sync; another worker's batch moves it earlier (and wakes it) */
	*sync_due = live_sync_next(l->sync);
	l->sync_due = *sync_due < now + LIVE_WAIT_MS * 1000000ull ? *sync_due
								  : now + LIVE_WAIT_MS * 1000000ull;
	live_pool_unlock(&l->pool);
}

/* One worker's loop until the pool stops (worker 0: until flags->stop). */
static int worker_loop(struct live_worker *w, struct live_flags *flags, const sigset_t *waitmask)
{
	struct live *l = w->l;
	uint64_t last_tick = 0, sync_due = 0;

	uint64_t waited = 0;
	bool busy = false;

	while (!live_pool_stopping(&l->pool) && !(flags && flags->stop)) {
		bool ctl_ready = false, sync_ready = false;
		uint64_t now = io_monotonic_ns();
		int r = 0;

		/* A pass that found frames is followed by another without the wait, as long as
		 * the last wait is under LIVE_BUSY_NS old: worker 0's signals, control socket and
		 * sync link are looked at in the wait */
		if (!busy || now - waited >= LIVE_BUSY_NS) {
			r = worker_wait(w, waitmask, sync_due, &ctl_ready, &sync_ready);
			waited = now;
		}
		if (r < 0 && r != -EINTR) {
			fprintf(l->err, "pkttables: worker %u: poll: %s\n", w->id, strerror(-r));
			return r;
		}
		busy = false;
		for (unsigned i = 0; r >= 0 && i < l->nsock; i++) {
			struct rx_ctx c = {w, (int)i + 1};

			if (!w->rx[i])
				continue;
			busy |= io_port_receive(w->port[i], LIVE_RX_BUDGET, rx_frame, &c) != 0;
			run_stage(w);
		}
		if (flags)
			worker0_chores(l, flags, ctl_ready, sync_ready, &last_tick, &sync_due);
		else if (live_pool_snap_due(&l->pool, w->id)) {
			worker_snapshot(w);
			live_pool_snap_done(&l->pool, w->id);
		}
		txq_flush(w);
		/* nothing of this pass points into the rings any more: their blocks go back */
		for (unsigned i = 0; i < l->nsock; i++)
			if (w->rx[i])
				io_port_rx_release(w->port[i]);
	}
	return 0;
}

static int worker_thread(void *arg)
{
	return worker_loop(arg, NULL, NULL);
}

int live_run(struct live *l, struct live_flags *flags, const sigset_t *waitmask)
{
	int rc;

	if (l->control[0] && !l->ctl && !(l->ctl = live_control_open(l->box, l->control, l->err)))
		return -EADDRNOTAVAIL;
	if (l->ctl && l->sync)
		ctl_server_set_sync(l->ctl, live_sync_command, l->sync);
	fprintf(l->err, "pkttables: forwarding on");
	for (unsigned i = 0; i < l->nsock; i++) {
		const uint8_t *m = l->mac[i];

		fprintf(l->err, " %s (%s", box_iface(l->box, (int)i + 1)->name,
			io_port_mode(l->w[0]->port[i]));
		/* a MAC other than the interface's is said: it is what neighbours will learn */
		if (memcmp(m, l->kmac[i], 6))
			fprintf(l->err, ", mac %02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2],
				m[3], m[4], m[5]);
		fprintf(l->err, ")");
	}
	if (l->nworkers > 1)
		fprintf(l->err, ", %u workers", l->nworkers);
	fprintf(l->err, "\n");
	/* the other workers inherit the caller's blocked signals: worker 0 takes them all */
	rc = live_pool_start(&l->pool, worker_thread, (void *const *)l->w);
	if (rc < 0) {
		fprintf(l->err, "pkttables: workers: %s\n", strerror(-rc));
		return rc;
	}
	rc = worker_loop(l->w[0], flags, waitmask);
	if (live_pool_stop(&l->pool) < 0 && rc == 0)
		rc = -EIO; /* a worker failed (said why) */
	l->cur = l->w[0];
	return rc;
}

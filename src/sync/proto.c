// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sync protocol engine: one sequence counter for everything sent, the transmit and resend
 * queues, FTFW's HELLO/ACK/NACK/RESYNC/ALIVE, NOTRACK's best effort and ALARM's periodic
 * refresh, as SYNC-WIRE.md sections 6-8 describe conntrackd 1.4.7 doing them.
 *
 *   ct event --> sync_queue_entry --> tx ring --(sync_tick / after a receive)--> transmit():
 *       seq = next, flags += HELLO until answered, HELLO_BACK once when asked;
 *       packed into a datagram of at most mtu - 28 bytes; FTFW keeps all but ALIVE in the
 *       resend ring (bounded: the oldest goes) until an ACK covers it; a NACK moves them back
 *       to the tx ring (sent again with new numbers). Nothing is resent on a timeout.
 *
 *   receive: framing and version (wire.c) --> the mode's classification --> FTFW sequence
 *       check (before: dropped; gap: applied, then NACK for the hole) --> apply --> ACK every
 *       ack_window messages, and on the 1 s timer for what is still unacknowledged.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ct/ct.h"
#include "ct/create.h"
#include "ct/expect.h"
#include "ct/helper.h"
#include "sync/sync_int.h"

/* ---- config, life ------------------------------------------------------------------------ */

void sync_config_default(struct sync_config *c)
{
	memset(c, 0, sizeof(*c));
	c->mode = SYNC_MODE_FTFW;
	c->peer = SYNC_PEER_CONNTRACKD;
	c->ack_window = 300;
	c->resend_max = 131072;
	c->tx_max = 262144;
	c->external_max = 262144;
	c->mtu = 1500;
	c->tx_hold_update = SYNC_TX_HOLD_AUTO;
	c->alive_interval = 1000000000ull;
	c->refresh_time = 60000000000ull;
	c->cache_timeout = 180000000000ull;
	c->map_max = 65536;
}

static void ct_event(void *priv, uint32_t events, const struct ct_entry *e,
		     enum ct_destroy_reason why);

struct sync *sync_new(const struct sync_config *c, struct ct_table *ct, struct nat_table *nat,
		      const struct sync_ops *ops, void *priv, uint64_t now)
{
	struct sync *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return NULL;
	s->cfg = *c;
	if (s->cfg.tx_hold_update == SYNC_TX_HOLD_AUTO) /* active-active: every change at once */
		s->cfg.tx_hold_update = s->cfg.disable_external ? 0 : 500000;
	if (s->cfg.tx_hold_update < s->cfg.tx_hold)
		s->cfg.tx_hold_update = s->cfg.tx_hold;
	if (!s->cfg.ack_window)
		s->cfg.ack_window = 1;
	if (s->cfg.mtu < 576)
		s->cfg.mtu = 576;
	s->ct = ct;
	s->nat = nat;
	s->ops = *ops;
	s->priv = priv;
	s->seq = c->seq_start ? c->seq_start : (uint32_t)(now / 1000000000ull);
	s->window = s->cfg.ack_window;
	s->tx.max = s->cfg.tx_max ? s->cfg.tx_max : 1;
	s->rs.max = s->cfg.resend_max ? s->cfg.resend_max : 1;
	s->dcap = s->cfg.mtu - 28;
	s->next_alive = now + s->cfg.alive_interval;
	s->refresh_last = now;
	s->bulk_phase = 3;
	{
		const struct sync_filter *fl = &s->cfg.filter;
		uint32_t any = 0;

		for (unsigned i = 0; i < 8; i++)
			any |= fl->proto_ignore[i];
		s->filter_on = any || fl->naddr || fl->tcp_state_ignore || fl->mark_set ||
			       (fl->no_local && fl->local_fn);
	}
	s->auth_counter = c->auth_counter_start ? c->auth_counter_start : now;
	if ((s->cfg.auth && sync_auth_init() < 0) || !(s->dgram = malloc(s->dcap)) ||
	    sync_ext_init(s) < 0) {
		sync_free(s);
		return NULL;
	}
	if ((r = ct_event_subscribe(ct, ct_event, s)) < 0) {
		sync_ext_free(s);
		free(s->dgram);
		free(s);
		errno = -r;
		return NULL;
	}
	if (s->cfg.mode == SYNC_MODE_FTFW && s->cfg.startup_resync) {
		uint8_t m[SYNC_CTL_LEN];

		sync_queue(s, m, sync_ctl_put(m, SYNC_F_RESYNC, 0, 0, 0));
		s->st.tx_resync++;
	}
	return s;
}

void sync_free(struct sync *s)
{
	if (!s)
		return;
	if (s->ct)
		ct_event_unsubscribe(s->ct, ct_event, s);
	sync_ring_free(s, &s->tx);
	sync_ring_free(s, &s->rs);
	sync_pend_free(s);
	sync_map_free(s);
	sync_msg_pool_free(s);
	sync_ext_free(s);
	free(s->dgram);
	free(s);
}

const struct sync_config *sync_get_config(const struct sync *s)
{
	return &s->cfg;
}

const struct sync_stats *sync_stats(const struct sync *s)
{
	return &s->st;
}

/* ---- events ------------------------------------------------------------------------------ */

static void transmit_one(struct sync *s, struct sync_msg *m, uint64_t now);

/* Put a message made by sync_msg_new (len set) on the transmit queue; freed if full. While
 * transmit() flushes the pending connections with nothing queued before them, it goes
 * straight into the datagram instead. */
static int queue_msg(struct sync *s, struct sync_msg *m)
{
	int r;

	m->seq = 0;
	m->dead = false;
	if (s->tx_direct && !s->tx.len) {
		transmit_one(s, m, s->tx_now);
		s->tx_direct_sent = true;
		return 0;
	}
	if ((r = sync_ring_push(&s->tx, m)) < 0) {
		sync_msg_free(s, m);
		s->st.tx_dropped++;
		return r;
	}
	return 0;
}

int sync_queue(struct sync *s, const uint8_t *buf, size_t len)
{
	struct sync_msg *m = sync_msg_new(s, len);

	if (!m) {
		s->st.tx_dropped++;
		return -ENOMEM;
	}
	m->len = (uint16_t)len;
	memcpy(m->data, buf, len);
	return queue_msg(s, m);
}

void sync_queue_entry(struct sync *s, const struct ct_entry *e, uint8_t type, uint64_t now)
{
	struct sync_flow f;

	sync_flow_from_entry(&f, e, s->cfg.tcp_window_tracking, now);
	sync_queue_flow(s, &f, type);
}

void sync_queue_flow(struct sync *s, struct sync_flow *fl, uint8_t type)
{
	struct sync_msg *m = sync_msg_new(s, SYNC_SLOT_DATA);
	int n, r;

	if (!m) {
		s->st.tx_dropped++;
		return;
	}
	if (s->cfg.commit_timeout) /* as conntrackd with CommitTimeout */
		fl->have &= ~(1ull << SA_TIMEOUT);
	/* encoded straight into the slot; a longer message (labels, a long helper name) into a
	 * buffer of its own */
	n = sync_ct_encode(m->data, SYNC_SLOT_DATA, type, fl, s->cfg.peer);
	if (n < 0) {
		uint8_t buf[SYNC_MSG_MAX];

		sync_msg_free(s, m);
		m = NULL;
		n = sync_ct_encode(buf, sizeof(buf), type, fl, s->cfg.peer);
		if (n > 0 && (m = sync_msg_new(s, (size_t)n)))
			memcpy(m->data, buf, (size_t)n);
	}
	if (n < 0 || !m) {
		s->st.tx_dropped++;
		return;
	}
	m->len = (uint16_t)n;
	if ((r = queue_msg(s, m)) == 0) {
		if (type == SYNC_T_CT_NEW)
			s->st.int_sent_new++;
		else if (type == SYNC_T_CT_UPD)
			s->st.int_sent_upd++;
		else
			s->st.int_sent_del++;
	}
}

/* Every event but the common one (below). Out of line, so that the common one costs a few
 * instructions on the data path. */
__attribute__((noinline)) static void ct_event_slow(struct sync *s, uint32_t events,
						    const struct ct_entry *e)
{
	uint8_t type;

	if (s->applying) {
		/* our own commit: the peer knows it already */
		if (events & CT_EV_DESTROY)
			sync_pend_forget(s, e); /* its address may be another entry's soon */
		return;
	}
	if (s->filter_on && !sync_filter_pass(s, e)) {
		if (events & CT_EV_DESTROY)
			sync_pend_forget(s, e);
		s->st.filtered++;
		return;
	}
	if (events & CT_EV_DESTROY)
		type = SYNC_T_CT_DEL;
	else if (events & CT_EV_NEW)
		type = SYNC_T_CT_NEW;
	else
		type = SYNC_T_CT_UPD;
	/* events carry no time: the table's latest clock is when it happened */
	if (sync_pend_event(s, e, type, events, ct_table_clock(s->ct)) < 0) {
		if (type == SYNC_T_CT_DEL) {
			struct sync_flow f;

			sync_flow_del(&f, ct_entry_tuple(e, CT_DIR_ORIGINAL));
			sync_queue_flow(s, &f, type);
		} else {
			sync_queue_entry(s, e, type, ct_table_clock(s->ct));
		}
	}
}

static void ct_event(void *priv, uint32_t events, const struct ct_entry *e,
		     enum ct_destroy_reason why)
{
	struct sync *s = priv;

	(void)why;
	/* one more event of the connection the last one went to: it is pending already */
	if (s->pend_last_e == e && !(events & CT_EV_DESTROY) && !s->applying && !s->filter_on) {
		sync_pend_merge(s, events);
		s->st.coalesced++;
		return;
	}
	ct_event_slow(s, events, e);
}

/* ---- transmit ---------------------------------------------------------------------------- */

static size_t dgram_room(const struct sync *s)
{
	return s->dcap - (s->cfg.auth ? SYNC_AUTH_OVERHEAD : 0);
}

static void dgram_flush(struct sync *s, uint64_t now)
{
	size_t len = s->dlen;
	int r;

	if (!s->dlen)
		return;
	if (s->cfg.auth)
		len = sync_auth_seal(s, s->dgram, s->dlen, now);
	r = s->ops.send(s->priv, s->dgram, len);
	if (r < 0) {
		s->st.tx_errors++;
	} else {
		s->st.tx_dgrams++;
		s->st.tx_bytes += len;
	}
	s->dlen = 0;
}

/* Append one message; a datagram holds messages only while its total stays below the room
 * (conntrackd's rule), so a full one goes first. */
static void dgram_add(struct sync *s, const uint8_t *m, size_t len, uint64_t now)
{
	size_t base = s->cfg.auth ? SYNC_AUTH_HDR : 0;

	if (len >= dgram_room(s)) {
		s->st.tx_dropped++; /* cannot happen with our messages (< 300 bytes) */
		return;
	}
	if (s->dlen && s->dlen + len >= dgram_room(s))
		dgram_flush(s, now);
	memcpy(s->dgram + base + s->dlen, m, len);
	s->dlen += len;
	s->st.tx_msgs++;
}

static void rs_keep(struct sync *s, struct sync_msg *m)
{
	while (s->rs.len >= s->rs.max) {
		sync_msg_free(s, sync_ring_pop(&s->rs)); /* full: the oldest is forgotten */
		s->st.rs_dropped++;
	}
	if (sync_ring_push(&s->rs, m) < 0) {
		sync_msg_free(s, m);
		s->st.rs_dropped++;
	}
}

static void transmit_one(struct sync *s, struct sync_msg *m, uint64_t now)
{
	uint8_t *d = m->data;
	bool alive =
	    (d[0] & 0x0f) == SYNC_T_CTL && !(d[1] & (SYNC_F_ACK | SYNC_F_NACK | SYNC_F_RESYNC));

	d[1] &= (uint8_t) ~(SYNC_F_HELLO | SYNC_F_HELLO_BACK);
	if (s->cfg.mode == SYNC_MODE_FTFW) {
		if (s->hello == HELLO_INIT)
			s->hello = HELLO_SAY;
		if (s->hello == HELLO_SAY)
			d[1] |= SYNC_F_HELLO;
		if (s->hello_back) {
			d[1] |= SYNC_F_HELLO_BACK;
			s->hello_back = false;
		}
	}
	m->seq = s->seq++;
	d[4] = (uint8_t)(m->seq >> 24);
	d[5] = (uint8_t)(m->seq >> 16);
	d[6] = (uint8_t)(m->seq >> 8);
	d[7] = (uint8_t)m->seq;
	dgram_add(s, d, m->len, now);
	if (s->cfg.mode == SYNC_MODE_FTFW && !alive)
		rs_keep(s, m);
	else
		sync_msg_free(s, m);
}

static void bulk_step(struct sync *s, uint64_t now, unsigned budget);

/* Everything queued goes out now, packed; the alive timer restarts after any transmission. */
static void transmit(struct sync *s, uint64_t now)
{
	struct sync_msg *m;
	bool sent;

	s->tx_direct = true;
	s->tx_direct_sent = false;
	s->tx_now = now;
	sync_pend_flush(s, now, false);
	s->tx_direct = false;
	sent = s->tx_direct_sent;
	for (;;) {
		while ((m = sync_ring_pop(&s->tx))) {
			transmit_one(s, m, now);
			sent = true;
		}
		if (s->bulk_phase >= 3)
			break;
		bulk_step(s, now, 4096);
	}
	dgram_flush(s, now);
	if (sent)
		s->next_alive = now + s->cfg.alive_interval;
	s->st.tx_len = s->tx.len;
	s->st.rs_len = s->rs.len;
}

static void queue_ctl(struct sync *s, uint8_t flags, uint32_t from, uint32_t to)
{
	uint8_t m[SYNC_CTL_LEN];

	sync_queue(s, m, sync_ctl_put(m, flags, 0, from, to));
	if (flags & SYNC_F_ACK)
		s->st.tx_ack++;
	else if (flags & SYNC_F_NACK)
		s->st.tx_nack++;
	else if (flags & SYNC_F_RESYNC)
		s->st.tx_resync++;
	else
		s->st.tx_alive++;
}

/* ---- bulk (RESYNC, sync bulk): masters, then expectations, then related connections ------ */

struct bulk_walk {
	struct sync *s;
	uint64_t now;
	bool related;
};

static enum ct_walk_action bulk_visit(void *priv, struct ct_entry *e)
{
	struct bulk_walk *w = priv;

	if ((ct_entry_master(e) != NULL) == w->related && sync_filter_pass(w->s, e))
		sync_queue_entry(w->s, e, SYNC_T_CT_NEW, w->now);
	return CT_WALK_NEXT;
}

static void queue_expect(struct sync *s, const struct ct_expect *x, uint64_t now)
{
	struct sync_exp e;
	uint8_t buf[SYNC_MSG_MAX];
	const struct ct_helper *h = x->master ? ct_entry_helper(x->master) : NULL;
	int n;

	memset(&e, 0, sizeof(e));
	e.master = *ct_entry_tuple(x->master, CT_DIR_ORIGINAL);
	e.expect = x->tuple;
	e.mask = x->tuple;
	e.mask.src = x->mask_src;
	memset(e.mask.dst.b, 0xff, sizeof(e.mask.dst.b));
	e.mask.s.port = x->mask_sport;
	e.mask.d.port = 0xffff;
	e.have = 1u << SE_TIMEOUT | 1u << SE_CLASS;
	e.timeout = x->expires > now ? (uint32_t)((x->expires - now) / 1000000000ull) : 0;
	e.flags = x->flags & CT_EXPECT_PERMANENT;
	e.class_ = x->class;
	if (h && h->name)
		snprintf(e.helper, sizeof(e.helper) - 4, "%s", h->name);
	if ((n = sync_exp_encode(buf, sizeof(buf), SYNC_T_EXP_NEW, &e)) > 0)
		sync_queue(s, buf, (size_t)n);
}

/* Queue up to about `budget` more messages of the bulk in progress. */
static void bulk_step(struct sync *s, uint64_t now, unsigned budget)
{
	struct bulk_walk w = {.s = s, .now = now};

	if (s->bulk_phase == 1) {
		/* resumed by id, not by pointer: the list is in id order, and an expectation
		 * removed between two steps must not leave the walk holding it */
		const struct ct_expect *x = ct_expect_next(s->ct, NULL);

		while (x && x->id < s->bulk_exp_id)
			x = ct_expect_next(s->ct, x);
		for (; x && budget; x = ct_expect_next(s->ct, x), budget--) {
			if (x->master && sync_filter_pass(s, x->master))
				queue_expect(s, x, now);
			s->bulk_exp_id = x->id + 1;
		}
		if (!x) {
			s->bulk_phase = 2;
			s->bulk_cursor = 0;
		}
		return;
	}
	w.related = s->bulk_phase == 2;
	if (ct_walk(s->ct, &s->bulk_cursor, budget, now, bulk_visit, &w)) {
		s->bulk_phase++;
		s->bulk_cursor = 0;
		s->bulk_exp_id = 0;
	}
}

unsigned sync_bulk(struct sync *s, uint64_t now)
{
	unsigned before = s->tx.len;

	s->bulk_phase = 0;
	s->bulk_cursor = 0;
	s->bulk_exp_id = 0;
	sync_map_all(s);
	sync_map_tick(s, now);
	transmit(s, now);
	return ct_table_stats(s->ct)->count + before;
}

int sync_request_resync(struct sync *s, uint64_t now)
{
	if (s->cfg.mode == SYNC_MODE_ALARM)
		return -EOPNOTSUPP;
	queue_ctl(s, SYNC_F_RESYNC, 0, 0);
	transmit(s, now);
	return 0;
}

void sync_flush(struct sync *s, bool internal, bool external)
{
	if (internal) {
		sync_pend_free(s);
		sync_ring_free(s, &s->tx);
		sync_ring_free(s, &s->rs);
		s->tx.max = s->cfg.tx_max ? s->cfg.tx_max : 1;
		s->rs.max = s->cfg.resend_max ? s->cfg.resend_max : 1;
		s->bulk_phase = 3;
		s->st.tx_len = s->st.rs_len = 0;
	}
	if (external) {
		sync_ext_free(s);
		sync_ext_init(s);
	}
}

/* ---- receive ----------------------------------------------------------------------------- */

static void rs_ack(struct sync *s, uint32_t from, uint32_t to)
{
	/* the queue is in sequence order (numbers are given at transmission, resends get new
	 * ones at the tail): stop at the first one past the range, which is usually near the
	 * head, so a bulk of a million entries does not rescan the queue at every ACK */
	for (uint32_t i = 0; i < s->rs.len; i++) {
		struct sync_msg *m = sync_ring_at(&s->rs, i);

		if (sync_seq_after(m->seq, to))
			break;
		if (!sync_seq_before(m->seq, from))
			m->dead = true;
	}
	while (s->rs.len && sync_ring_at(&s->rs, 0)->dead)
		sync_msg_free(s, sync_ring_pop(&s->rs));
}

static void rs_nack(struct sync *s, uint32_t from, uint32_t to)
{
	struct sync_ring keep = {.max = s->rs.max};
	struct sync_msg *m;

	while ((m = sync_ring_pop(&s->rs))) {
		if (m->dead) {
			sync_msg_free(s, m);
		} else if (!sync_seq_before(m->seq, from) && !sync_seq_after(m->seq, to)) {
			if (queue_msg(s, m) == 0) /* the same slot goes out again */
				s->st.resent++;
		} else if (sync_ring_push(&keep, m) < 0) {
			sync_msg_free(s, m);
		}
	}
	sync_ring_free(s, &s->rs);
	s->rs = keep;
}

enum kind { K_BAD, K_DATA, K_CTL, K_IGNORE };

/* A data message type: conntrack and expectation messages, and from a pkttables peer a NAT
 * mapping (conntrackd refuses type 6 like any type above 5). */
static bool data_type(const struct sync *s, uint8_t type)
{
	return type <= SYNC_T_EXP_DEL ||
	       (type == SYNC_T_PT_MAP && s->cfg.peer == SYNC_PEER_PKTTABLES);
}

static enum kind classify(const struct sync *s, const struct sync_hdr *h)
{
	const uint8_t hello = SYNC_F_HELLO | SYNC_F_HELLO_BACK;

	switch (s->cfg.mode) {
	case SYNC_MODE_FTFW:
		if (data_type(s, h->type) && !(h->flags & ~hello))
			return K_DATA;
		if (h->type == SYNC_T_CTL &&
		    (h->flags & (SYNC_F_ACK | SYNC_F_NACK | SYNC_F_RESYNC | SYNC_F_ALIVE)))
			return K_CTL;
		return K_BAD;
	case SYNC_MODE_NOTRACK:
		if (data_type(s, h->type) && !(h->flags & ~hello))
			return K_DATA;
		if (h->type == SYNC_T_CTL && !(h->flags & (SYNC_F_ACK | SYNC_F_NACK)) &&
		    (h->flags & (SYNC_F_RESYNC | SYNC_F_ALIVE)))
			return K_CTL;
		return K_BAD;
	case SYNC_MODE_ALARM:
		if (h->flags)
			return K_IGNORE;
		return data_type(s, h->type) ? K_DATA : K_BAD;
	}
	return K_BAD;
}

static void rx_error(struct sync *s, enum sync_rx_error e)
{
	s->st.rx_err[e]++;
	s->st.rx_malformed++;
}

static void data_msg(struct sync *s, const uint8_t *msg, const struct sync_hdr *h, uint64_t now)
{
	int r;

	if (h->type == SYNC_T_PT_MAP) {
		sync_map_apply(s, msg, h->len, now);
	} else if (h->type <= SYNC_T_CT_DEL) {
		struct sync_flow f;

		if ((r = sync_ct_decode(msg, h->len, &f)) < 0) {
			rx_error(s, (enum sync_rx_error)(-r - 1));
			return;
		}
		sync_apply(s, h->type, &f, now);
	} else {
		struct sync_exp x;

		if ((r = sync_exp_decode(msg, h->len, &x)) < 0) {
			rx_error(s, (enum sync_rx_error)(-r - 1));
			return;
		}
		sync_apply_exp(s, h->type, &x, now);
	}
}

/* A control message; false when it is malformed (ACK/NACK range backwards). */
static bool ctl_msg(struct sync *s, const struct sync_hdr *h, uint64_t now)
{
	if (h->flags & (SYNC_F_ACK | SYNC_F_NACK)) {
		if (sync_seq_before(h->to, h->from))
			return false;
		if (h->flags & SYNC_F_ACK) {
			s->st.rx_ack++;
			rs_ack(s, h->from, h->to);
		} else {
			s->st.rx_nack++;
			rs_nack(s, h->from, h->to);
		}
	} else if (h->flags & SYNC_F_RESYNC) {
		s->st.rx_resync++;
		s->bulk_phase = 0;
		s->bulk_cursor = 0;
		s->bulk_exp_id = 0;
		sync_map_all(s);
	}
	return true;
}

static void window_step(struct sync *s, uint32_t seq)
{
	if (!s->ack_open) {
		s->ack_from = seq;
		s->ack_open = true;
	}
	if (--s->window == 0) {
		queue_ctl(s, SYNC_F_ACK, s->ack_from, seq);
		s->window = s->cfg.ack_window;
		s->ack_open = false;
	}
}

static void ftfw_msg(struct sync *s, const uint8_t *msg, const struct sync_hdr *h, enum kind k,
		     uint64_t now)
{
	bool gap = false;
	uint32_t expected = s->last_seq + 1;

	if ((h->flags & SYNC_F_HELLO_BACK) && s->hello == HELLO_SAY)
		s->hello = HELLO_DONE;
	if (h->flags & SYNC_F_HELLO) {
		s->st.rx_hello++;
		s->hello_back = true;
		sync_map_all(s); /* a restarted peer knows none of our mappings */
		if (s->ack_open && sync_seq_before(h->seq, s->ack_from)) {
			s->window = s->cfg.ack_window - 1;
			s->ack_from = h->seq;
		}
		sync_ring_free(s, &s->rs); /* the restarted peer knows nothing of them */
		s->rs.max = s->cfg.resend_max ? s->cfg.resend_max : 1;
		/* A peer says HELLO on every message until our HELLO_BACK reaches it, and
		 * conntrackd skips the sequence check for them, so a loss in that time would go
		 * unnoticed. A small forward gap is NACKed anyway: if the peer really restarted,
		 * it holds nothing under those numbers and the NACK costs one message. */
		if (s->have_last && sync_seq_after(h->seq, expected) && h->seq - expected < 65536)
			gap = true;
	} else if (s->have_last && h->seq != expected) {
		if (sync_seq_before(h->seq, expected)) {
			s->st.seq_before++;
			return;
		}
		gap = true;
	}
	if (k == K_DATA)
		data_msg(s, msg, h, now);
	else if (!ctl_msg(s, h, now)) {
		rx_error(s, SYNC_RX_BAD_HEADER);
		return;
	}
	if (gap) {
		s->st.seq_lost += h->seq - s->last_seq + 1;
		if (s->ack_open)
			queue_ctl(s, SYNC_F_ACK, s->ack_from, expected - 1);
		queue_ctl(s, SYNC_F_NACK, expected, h->seq - 1);
		s->window = s->cfg.ack_window - 1;
		s->ack_from = h->seq;
		s->ack_open = true;
		if (s->window == 0) {
			queue_ctl(s, SYNC_F_ACK, h->seq, h->seq);
			s->window = s->cfg.ack_window;
			s->ack_open = false;
		}
	} else {
		window_step(s, h->seq);
	}
	if (h->flags & SYNC_F_HELLO && !s->tx.len && s->ack_open) {
		/* answer a HELLO at once (conntrackd waits for its 1 s timer): the peer stops
		 * saying HELLO, and so skipping sequence checks, one round trip later */
		queue_ctl(s, SYNC_F_ACK, s->ack_from, h->seq);
		s->ack_open = false;
	}
	s->last_seq = h->seq;
	s->have_last = true;
}

static void other_msg(struct sync *s, const uint8_t *msg, const struct sync_hdr *h, enum kind k,
		      uint64_t now)
{
	if (s->cfg.mode == SYNC_MODE_NOTRACK && s->have_last && h->seq != s->last_seq + 1) {
		if (sync_seq_before(h->seq, s->last_seq + 1))
			s->st.seq_before++;
		else
			s->st.seq_lost += h->seq - s->last_seq + 1;
	}
	if (k == K_DATA)
		data_msg(s, msg, h, now);
	else if (h->flags & SYNC_F_RESYNC)
		ctl_msg(s, h, now);
	s->last_seq = h->seq;
	s->have_last = true;
}

void sync_receive(struct sync *s, const void *dgram, size_t len, uint64_t now)
{
	const uint8_t *d = dgram;
	struct sync_hdr h;
	size_t off = 0;
	int n;

	s->st.rx_dgrams++;
	s->st.rx_bytes += len;
	if (s->cfg.auth) {
		if (sync_auth_open(s, dgram, len, &d, &len) < 0)
			return;
	}
	while ((n = sync_hdr_next(d, len, off, &h)) > 0) {
		const uint8_t *msg = d + off;
		enum kind k;

		off += (size_t)n;
		s->st.rx_msgs++;
		if (h.version != SYNC_VERSION) {
			rx_error(s, SYNC_RX_BAD_VERSION);
			continue;
		}
		if (!data_type(s, h.type) && h.type != SYNC_T_CTL) {
			rx_error(s, SYNC_RX_BAD_TYPE);
			continue;
		}
		k = classify(s, &h);
		if (k == K_IGNORE)
			continue;
		if (k == K_BAD) {
			rx_error(s, SYNC_RX_BAD_HEADER);
			continue;
		}
		if (s->cfg.mode == SYNC_MODE_FTFW)
			ftfw_msg(s, msg, &h, k, now);
		else
			other_msg(s, msg, &h, k, now);
	}
	if (n < 0)
		rx_error(s, (enum sync_rx_error)(-n - 1));
	transmit(s, now);
}

/* ---- timers ------------------------------------------------------------------------------ */

struct refresh_walk {
	struct sync *s;
	uint64_t now;
};

static enum ct_walk_action refresh_visit(void *priv, struct ct_entry *e)
{
	struct refresh_walk *w = priv;

	if (sync_filter_pass(w->s, e))
		sync_queue_entry(w->s, e, SYNC_T_CT_NEW, w->now);
	return CT_WALK_NEXT;
}

/* ALARM: every connection is sent again once per refresh_time, spread over the period. */
static void alarm_refresh(struct sync *s, uint64_t now)
{
	uint64_t count = ct_table_stats(s->ct)->count, quota;
	struct refresh_walk w = {.s = s, .now = now};

	if (now <= s->refresh_last || !count)
		return;
	quota = count * (now - s->refresh_last) / (s->cfg.refresh_time ? s->cfg.refresh_time : 1);
	if (!quota)
		return;
	s->refresh_last = now;
	if (quota > 65536)
		quota = 65536;
	if (ct_walk(s->ct, &s->refresh_cursor, (unsigned)quota, now, refresh_visit, &w))
		s->refresh_cursor = 0;
}

void sync_tick(struct sync *s, uint64_t now)
{
	sync_map_tick(s, now);
	if (s->cfg.mode == SYNC_MODE_ALARM) {
		alarm_refresh(s, now);
		sync_ext_expire(s, now);
	} else if (now >= s->next_alive && !s->tx.len) {
		if (s->cfg.mode == SYNC_MODE_FTFW && s->ack_open && s->have_last) {
			queue_ctl(s, SYNC_F_ACK, s->ack_from, s->last_seq);
			s->ack_open = false;
		} else {
			queue_ctl(s, SYNC_F_ALIVE, 0, 0);
		}
	}
	transmit(s, now);
}

uint64_t sync_next_timer(const struct sync *s)
{
	uint64_t due = sync_pend_due(s);

	if (s->tx.len || s->bulk_phase < 3)
		return 0;
	if (s->cfg.mode == SYNC_MODE_ALARM)
		return due; /* its refresh runs on the caller's ticks */
	return due < s->next_alive ? due : s->next_alive;
}

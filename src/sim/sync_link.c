// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Sync links between simulated boxes (sync_link.h): the datagrams in flight with their loss,
 * duplication, reordering and delay; the clock stepped through every sync timer; boxes killed
 * and restarted. The sync protocol itself is src/sync's, used through its public API only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ct/ct_plugin.h"
#include "nat/nat_plugin.h"
#include "sim/sync_link.h"

#define SETTLE_ROUNDS 100000 /* settle rounds per step: a datagram storm stops there */
#define ADVANCE_STEPS 10000000

static uint32_t link_rand(struct sim_sync_link *l)
{
	l->rng ^= l->rng << 13;
	l->rng ^= l->rng >> 7;
	l->rng ^= l->rng << 17;
	return (uint32_t)(l->rng >> 16);
}

/* Does the pattern take this datagram (and count it)? */
static bool next_takes(struct sim_sync_next *p, struct sim_box *from)
{
	if (!p->n || (p->from && p->from != from))
		return false;
	p->n--;
	return true;
}

struct sim_sync_link *sim_sync_link_find(struct sim *s, const char *name)
{
	for (unsigned i = 0; i < s->nsynclinks; i++)
		if (!strcmp(s->synclinks[i]->name, name))
			return s->synclinks[i];
	return NULL;
}

/* ---- in flight --------------------------------------------------------------------------- */

static void enqueue(struct sim_sync_link *l, struct sim_box *to, const uint8_t *d, size_t len,
		    uint64_t due)
{
	struct sim_sync_dgram *g, **pp = &l->q;

	if (l->nq >= SIM_SYNC_QUEUE_MAX || !(g = malloc(sizeof(*g) + len))) {
		l->lost++;
		return;
	}
	g->to = to;
	g->due = due;
	g->seq = l->seq++;
	g->len = len;
	memcpy(g->d, d, len);
	while (*pp && (*pp)->due <= due)
		pp = &(*pp)->next;
	g->next = *pp;
	*pp = g;
	l->nq++;
}

/* To every other member, now + delay (twice when duplicated). */
static void fan_out(struct sim_sync_link *l, struct sim_box *from, const uint8_t *d, size_t len,
		    bool dup)
{
	uint64_t due = from->sim->now + l->delay;

	for (unsigned i = 0; i < l->n; i++) {
		if (l->member[i] == from)
			continue;
		enqueue(l, l->member[i], d, len, due);
		if (dup)
			enqueue(l, l->member[i], d, len, due);
	}
	if (dup)
		l->duplicated++;
}

static void hist_keep(struct sim_sync_link *l, struct sim_box *from, const uint8_t *d, size_t len)
{
	unsigned i = l->hpos % SIM_SYNC_HIST;
	uint8_t *c = malloc(len);

	if (!c)
		return;
	free(l->hist[i].d);
	memcpy(c, d, len);
	l->hist[i].from = from;
	l->hist[i].d = c;
	l->hist[i].len = len;
	l->hpos++;
}

void sim_sync_link_put(struct sim_sync_link *l, struct sim_box *from, const uint8_t *d, size_t len,
		       bool replay)
{
	bool dup;

	l->sent++;
	if (replay)
		l->replayed++;
	else
		hist_keep(l, from, d, len);
	if (l->down || next_takes(&l->drop, from) ||
	    (l->loss_pct && link_rand(l) % 100 < l->loss_pct)) {
		l->lost++;
		return;
	}
	dup = next_takes(&l->dup, from) || (l->dup_pct && link_rand(l) % 100 < l->dup_pct);
	if (!l->held.d && next_takes(&l->reorder, from)) {
		/* held back: it leaves right after its sender's next datagram */
		if ((l->held.d = malloc(len))) {
			memcpy(l->held.d, d, len);
			l->held.len = len;
			l->held.from = from;
			l->reordered++;
			return;
		}
	}
	fan_out(l, from, d, len, dup);
	if (l->held.d && l->held.from == from) {
		fan_out(l, from, l->held.d, l->held.len, false);
		free(l->held.d);
		l->held.d = NULL;
	}
}

static int link_send(void *priv, const void *buf, size_t len)
{
	struct sim_box *sb = priv;

	sim_sync_link_put(sb->sync->link, sb, buf, len, false);
	return 0;
}

static const struct sync_ops sim_sync_ops = {.send = link_send};

/* What the data messages of a datagram are, in order, into the box's run list. */
static void record_order(struct sim_sync *e, const uint8_t *d, size_t len)
{
	struct sync_hdr h;
	size_t off = 0;
	int n;

	if (e->cfg.auth)
		return;
	while ((n = sync_hdr_next(d, len, off, &h)) > 0) {
		int cls = -1;

		if (h.type <= SYNC_T_CT_DEL) {
			struct sync_flow f;

			if (sync_ct_decode(d + off, (size_t)n, &f) == 0)
				cls = f.have & (1ull << SA_MASTER_L4PROTO) ? SIM_SYNC_RELATED
									   : SIM_SYNC_CONN;
		} else if (h.type <= SYNC_T_EXP_DEL) {
			cls = SIM_SYNC_EXPECT;
		}
		if (cls >= 0 && (!e->norder || e->order[e->norder - 1] != cls)) {
			if (e->norder < SIM_SYNC_ORDER_MAX)
				e->order[e->norder++] = (uint8_t)cls;
			else
				e->order_overflow = true;
		}
		off += (size_t)n;
	}
}

static void deliver(struct sim_sync_link *l, struct sim_sync_dgram *g)
{
	struct sim_sync *e = g->to->sync;

	if (g->to->dead || !e || !e->sync) {
		l->to_dead++;
		return;
	}
	l->delivered++;
	record_order(e, g->d, g->len);
	sync_receive(e->sync, g->d, g->len, box_now(g->to->box));
}

void sim_sync_link_drain(struct sim *s, struct sim_sync_link *l, bool deliver_all)
{
	struct sim_sync_dgram *g;

	if (l->held.d) {
		if (deliver_all)
			fan_out(l, l->held.from, l->held.d, l->held.len, false);
		else
			l->lost++;
		free(l->held.d);
		l->held.d = NULL;
	}
	while ((g = l->q)) {
		l->q = g->next;
		l->nq--;
		if (deliver_all)
			deliver(l, g);
		else
			l->lost++;
		free(g);
	}
	if (deliver_all)
		sim_sync_settle(s);
}

/* ---- time -------------------------------------------------------------------------------- */

static bool live_end(const struct sim_box *sb)
{
	return sb->sync && sb->sync->sync && !sb->dead;
}

void sim_sync_settle(struct sim *s)
{
	for (unsigned round = 0; round < SETTLE_ROUNDS; round++) {
		bool again = false;

		for (unsigned i = 0; i < s->nboxes; i++)
			if (live_end(s->boxes[i]))
				sync_tick(s->boxes[i]->sync->sync, box_now(s->boxes[i]->box));
		for (unsigned k = 0; k < s->nsynclinks; k++) {
			struct sim_sync_link *l = s->synclinks[k];
			struct sim_sync_dgram *g;

			while ((g = l->q) && g->due <= s->now) {
				l->q = g->next;
				l->nq--;
				deliver(l, g);
				free(g);
				again = true;
			}
		}
		for (unsigned i = 0; i < s->nboxes && !again; i++)
			if (live_end(s->boxes[i]) &&
			    sync_next_timer(s->boxes[i]->sync->sync) <= s->now)
				again = true;
		if (!again)
			return;
	}
	fprintf(s->err, "sim: sync still busy after %u rounds at one time; stepping on\n",
		SETTLE_ROUNDS);
}

/* The next time after now something of sync is due, UINT64_MAX when nothing is. */
static uint64_t next_event(struct sim *s)
{
	uint64_t t = UINT64_MAX;

	for (unsigned i = 0; i < s->nboxes; i++) {
		struct sim_box *sb = s->boxes[i];
		uint64_t d;

		if (!live_end(sb))
			continue;
		d = sync_next_timer(sb->sync->sync);
		if (sb->sync->cfg.mode == SYNC_MODE_ALARM && s->now + SIM_SYNC_ALARM_TICK < d)
			d = s->now + SIM_SYNC_ALARM_TICK;
		if (d < t)
			t = d;
	}
	for (unsigned k = 0; k < s->nsynclinks; k++)
		if (s->synclinks[k]->q && s->synclinks[k]->q->due < t)
			t = s->synclinks[k]->q->due;
	if (s->nwire && s->wire[0].due < t)
		t = s->wire[0].due;
	return t <= s->now ? s->now + 1 : t;
}

void sim_sync_advance(struct sim *s, uint64_t to)
{
	if (!s->nsynclinks)
		return;
	for (unsigned steps = 0; steps < ADVANCE_STEPS; steps++) {
		uint64_t t = next_event(s);

		if (t >= to)
			return;
		sim_clock_to(s, t);
	}
	fprintf(s->err, "sim: more than %u sync steps in one move of the clock\n", ADVANCE_STEPS);
}

/* ---- boxes ------------------------------------------------------------------------------- */

/* Start the box's sync instance on its conntrack table (turned on), from its config. */
static int end_start(struct sim *s, struct sim_box *sb)
{
	struct sim_sync *e = sb->sync;
	struct ct_table *ct;

	if (ct_box_enable(sb->box, true) < 0 || !(ct = ct_box_table(sb->box)))
		return sim_errorf(s, "%s: cannot turn conntrack on", box_name(sb->box));
	e->sync =
	    sync_new(&e->cfg, ct, nat_box_table(sb->box), &sim_sync_ops, sb, box_now(sb->box));
	if (!e->sync)
		return sim_errorf(s, "%s: cannot start sync: %s", box_name(sb->box),
				  strerror(errno));
	return 0;
}

static bool local_addr(void *priv, int family, const union pt_addr *a)
{
	return box_is_local(priv, family, a);
}

int sim_sync_link_new(struct sim *s, const char *name, struct sim_box **boxes, unsigned n,
		      enum sync_mode mode)
{
	struct sim_sync_link *l;

	if (s->nsynclinks == SIM_MAX_SYNC_LINKS)
		return sim_errorf(s, "sync link: at most %d links", SIM_MAX_SYNC_LINKS);
	if (sim_sync_link_find(s, name))
		return sim_errorf(s, "sync link %s exists", name);
	for (unsigned i = 0; i < n; i++)
		if (boxes[i]->sync && boxes[i]->sync->link)
			return sim_errorf(s, "sync link: %s is on link %s already",
					  box_name(boxes[i]->box), boxes[i]->sync->link->name);
	l = calloc(1, sizeof(*l));
	if (!l)
		return sim_errorf(s, "out of memory");
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->mode = mode;
	l->rng = 1;
	s->synclinks[s->nsynclinks++] = l;
	for (unsigned i = 0; i < n; i++) {
		struct sim_box *sb = boxes[i];

		if (!sb->sync) {
			if (!(sb->sync = calloc(1, sizeof(*sb->sync))))
				return sim_errorf(s, "out of memory");
			sync_config_default(&sb->sync->cfg);
		}
		sb->sync->link = l;
		sb->sync->sb = sb;
		sb->sync->cfg.mode = mode;
		sb->sync->cfg.filter.local_fn = local_addr;
		sb->sync->cfg.filter.local_priv = sb->box;
		l->member[l->n++] = sb;
		if (!sb->dead && end_start(s, sb) < 0)
			return -1;
	}
	return 0;
}

int sim_sync_kill(struct sim *s, struct sim_box *sb)
{
	if (sb->dead)
		return sim_errorf(s, "%s is dead already", box_name(sb->box));
	if (sb->sync) {
		sync_free(sb->sync->sync); /* before its conntrack table */
		sb->sync->sync = NULL;
		sb->sync->norder = 0;
	}
	ct_box_enable(sb->box, false);
	sb->dead = true;
	sim_event_line(sb, "killed (its conntrack and sync state are gone)", NULL);
	return 0;
}

int sim_sync_restart(struct sim *s, struct sim_box *sb)
{
	if (!sb->dead)
		return sim_errorf(s, "%s is not dead (kill it first)", box_name(sb->box));
	sb->dead = false;
	sim_event_line(sb, "restarted", NULL);
	if (sb->sync && sb->sync->link)
		return end_start(s, sb);
	return 0;
}

void sim_sync_reset(struct sim *s)
{
	for (unsigned i = 0; i < s->nboxes; i++) {
		struct sim_box *sb = s->boxes[i];

		if (sb->sync)
			sync_free(sb->sync->sync);
		free(sb->sync);
		sb->sync = NULL;
	}
	for (unsigned k = 0; k < s->nsynclinks; k++) {
		struct sim_sync_link *l = s->synclinks[k];
		struct sim_sync_dgram *g;

		while ((g = l->q)) {
			l->q = g->next;
			free(g);
		}
		free(l->held.d);
		for (unsigned i = 0; i < SIM_SYNC_HIST; i++)
			free(l->hist[i].d);
		free(l);
	}
	s->nsynclinks = 0;
}

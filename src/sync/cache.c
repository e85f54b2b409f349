// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the peer sent: the external cache (conntrackd's), its commit into the conntrack table,
 * and the direct mode (DisableExternalCache) that applies each message to the table at once.
 *
 *   NEW  replaces the cached flow     UPD  merges into it (or creates)     DEL  removes it
 *
 * The cache is keyed by the original tuple (zone included), bounded by external_max (a new
 * flow beyond it is refused and counted), and kept in update order so ALARM's expiry takes the
 * oldest first. In FTFW and NOTRACK nothing expires by time (SYNC-WIRE.md 8.7).
 *
 * Commit (conntrackd -c): flows without a master first, then related ones. Each becomes a
 * confirmed entry whose reply tuple is the mirror of the original with the NAT attributes
 * applied (4.6.1), with the remaining timeout less the time since it arrived (60 s when that
 * is negative, as conntrackd), the status bits a table lets one set, mark, labels, helper and
 * TCP state. NAT adopts the binding; TCP is picked up unchecked until both sides were seen.
 * An entry already in the table is replaced, as conntrackd deletes and creates on EEXIST.
 * Events of our own commit are not sent back (sync->applying).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ct/create.h"
#include "ct/expect.h"
#include "ct/helper.h"
#include "nat/nat.h"
#include "pkt/hash.h"
#include "sync/sync_int.h"

#define BIT(id) (1ull << (id))

/* A received expectation (the cache keeps at most external_max / 16 of them, 64 at least). */
struct sync_xexp {
	struct sync_xexp *next;
	struct sync_exp x;
	uint64_t lastupdate;
};

static uint32_t exp_max(const struct sync *s)
{
	return s->cfg.external_max / 16 > 64 ? s->cfg.external_max / 16 : 64;
}

static void exps_free(struct sync *s)
{
	struct sync_xexp *e, *next;

	for (e = s->exps; e; e = next) {
		next = e->next;
		free(e);
	}
	s->exps = NULL;
	s->st.exp_count = 0;
}

int sync_ext_init(struct sync *s)
{
	uint32_t n = 1024;

	while (n < s->cfg.external_max / 2 && n < (1u << 20))
		n <<= 1;
	s->bucket = calloc(n, sizeof(*s->bucket));
	if (!s->bucket)
		return -ENOMEM;
	s->bmask = n - 1;
	memcpy(s->seed, ct_table_config(s->ct)->seed, sizeof(s->seed));
	s->oldest = s->newest = NULL;
	s->st.ext_count = 0;
	return 0;
}

void sync_ext_free(struct sync *s)
{
	struct sync_ext *x = s->oldest, *next;

	for (; x; x = next) {
		next = x->next;
		free(x);
	}
	free(s->bucket);
	s->bucket = NULL;
	s->oldest = s->newest = NULL;
	s->st.ext_count = 0;
	exps_free(s);
}

static uint32_t bucket_of(const struct sync *s, const struct ct_tuple *t)
{
	return (uint32_t)pkt_hash(s->seed, t, sizeof(*t)) & s->bmask;
}

static struct sync_ext **find_slot(const struct sync *s, const struct ct_tuple *t)
{
	struct sync_ext **pp = &s->bucket[bucket_of(s, t)];

	for (; *pp; pp = &(*pp)->hnext)
		if (ct_tuple_eq(&(*pp)->f.orig, t))
			return pp;
	return pp;
}

const struct sync_flow *sync_external_find(const struct sync *s, const struct ct_tuple *orig)
{
	struct sync_ext *x = s->bucket ? *find_slot(s, orig) : NULL;

	return x ? &x->f : NULL;
}

static void age_unlink(struct sync *s, struct sync_ext *x)
{
	if (x->prev)
		x->prev->next = x->next;
	else
		s->oldest = x->next;
	if (x->next)
		x->next->prev = x->prev;
	else
		s->newest = x->prev;
	x->prev = x->next = NULL;
}

static void age_append(struct sync *s, struct sync_ext *x)
{
	x->prev = s->newest;
	x->next = NULL;
	if (s->newest)
		s->newest->next = x;
	else
		s->oldest = x;
	s->newest = x;
}

static void ext_remove(struct sync *s, struct sync_ext **pp)
{
	struct sync_ext *x = *pp;

	*pp = x->hnext;
	age_unlink(s, x);
	free(x);
	s->st.ext_count--;
}

/* UPD: what the message carries replaces what the cache had; the rest stays (10.5). */
static void merge(struct sync_flow *to, const struct sync_flow *from)
{
	uint64_t h = from->have;

	if (h & BIT(SA_STATUS))
		to->status = from->status;
	if (h & BIT(SA_TIMEOUT))
		to->timeout = from->timeout;
	if (h & BIT(SA_MARK))
		to->mark = from->mark;
	if (h & BIT(SA_TCP_STATE))
		to->tcp_state = from->tcp_state;
	if (h & BIT(SA_TCP_WSCALE_ORIG))
		to->wscale[0] = from->wscale[0];
	if (h & BIT(SA_TCP_WSCALE_REPL))
		to->wscale[1] = from->wscale[1];
	if (h & (BIT(SA_SNAT_IPV4) | BIT(SA_SNAT_IPV6)))
		to->snat = from->snat;
	if (h & (BIT(SA_DNAT_IPV4) | BIT(SA_DNAT_IPV6)))
		to->dnat = from->dnat;
	if (h & BIT(SA_SPAT_PORT))
		to->spat = from->spat;
	if (h & BIT(SA_DPAT_PORT))
		to->dpat = from->dpat;
	if (h & BIT(SA_MASTER_L4PROTO))
		to->master = from->master;
	if (h & BIT(SA_HELPER_NAME))
		memcpy(to->helper, from->helper, sizeof(to->helper));
	if (h & BIT(SA_LABELS))
		memcpy(to->labels, from->labels, sizeof(to->labels));
	if (h & BIT(SA_NAT_SEQ_ADJ))
		memcpy(to->seqadj, from->seqadj, sizeof(to->seqadj));
	if (h & BIT(SA_SYNPROXY))
		memcpy(to->synproxy, from->synproxy, sizeof(to->synproxy));
	to->sctp_state = (h & BIT(SA_SCTP_STATE)) ? from->sctp_state : to->sctp_state;
	to->dccp_state = (h & BIT(SA_DCCP_STATE)) ? from->dccp_state : to->dccp_state;
	to->have |= h;
}

static void ext_apply(struct sync *s, uint8_t type, const struct sync_flow *f, uint64_t now)
{
	struct sync_ext **pp = find_slot(s, &f->orig), *x = *pp;

	if (type == SYNC_T_CT_DEL) {
		if (x) {
			ext_remove(s, pp);
			s->st.ext_del++;
		}
		return;
	}
	if (!x) {
		if (s->st.ext_count >= s->cfg.external_max || !(x = calloc(1, sizeof(*x)))) {
			s->st.ext_full++;
			return;
		}
		x->f = *f;
		x->since = now;
		*pp = x;
		s->st.ext_count++;
		s->st.ext_new++;
	} else {
		age_unlink(s, x);
		if (type == SYNC_T_CT_NEW)
			x->f = *f;
		else
			merge(&x->f, f);
		s->st.ext_upd++;
	}
	x->lastupdate = now;
	age_append(s, x);
}

void sync_ext_expire(struct sync *s, uint64_t now)
{
	while (s->oldest && s->oldest->lastupdate + s->cfg.cache_timeout <= now) {
		ext_remove(s, find_slot(s, &s->oldest->f.orig));
		s->st.ext_expired++;
	}
}

/* ---- into the conntrack table ------------------------------------------------------------ */

static int reply_of(const struct sync_flow *f, struct ct_tuple *r)
{
	if (ct_tuple_invert(&f->orig, r) < 0)
		return -EINVAL;
	if (f->have & (BIT(SA_SNAT_IPV4) | BIT(SA_SNAT_IPV6)))
		r->dst = f->snat;
	if (f->have & BIT(SA_SPAT_PORT))
		r->d.port = f->spat;
	if (f->have & (BIT(SA_DNAT_IPV4) | BIT(SA_DNAT_IPV6)))
		r->src = f->dnat;
	if (f->have & BIT(SA_DPAT_PORT))
		r->s.port = f->dpat;
	return 0;
}

static void attrs_of(const struct sync_flow *f, uint64_t timeout_ns, struct ct_entry_attrs *a)
{
	memset(a, 0, sizeof(*a));
	a->orig = f->orig;
	reply_of(f, &a->reply);
	a->have = CT_ATTR_REPLY | CT_ATTR_STATUS | CT_ATTR_TIMEOUT | CT_ATTR_MARK;
	a->status = f->status & (CT_S_SEEN_REPLY | CT_S_ASSURED);
	a->timeout = timeout_ns;
	a->mark = f->mark;
	a->mark_mask = 0xffffffffu;
	if (f->orig.l4proto == 6 && (f->have & BIT(SA_TCP_STATE))) {
		a->have |= CT_ATTR_PROTO_STATE;
		a->proto_state = f->tcp_state;
	}
	if (f->have & BIT(SA_LABELS)) {
		a->have |= CT_ATTR_LABELS;
		memcpy(a->labels.words, f->labels, sizeof(a->labels.words));
		memset(a->labels_mask.words, 0xff, sizeof(a->labels_mask.words));
	}
}

/* Make (or remake) the entry of f in the table. 0 or <0. */
static int create_entry(struct sync *s, const struct sync_flow *f, uint64_t timeout_ns,
			uint64_t now)
{
	struct ct_entry_attrs a;
	struct ct_entry *e, *old;
	int r;

	if (ct_tuple_invert(&f->orig, &a.reply) < 0)
		return -EINVAL;
	attrs_of(f, timeout_ns, &a);
	if (f->have & BIT(SA_HELPER_NAME)) {
		if (!(a.helper = ct_helper_find(s->ct, f->helper)))
			return -EOPNOTSUPP; /* as the kernel answers conntrackd */
		a.have |= CT_ATTR_HELPER;
	}
	/* replaced whole, as conntrackd deletes and creates on EEXIST */
	if ((old = ct_lookup(s->ct, &a.orig, now, NULL)))
		ct_kill(s->ct, old);
	if ((old = ct_lookup(s->ct, &a.reply, now, NULL)))
		ct_kill(s->ct, old);
	if ((r = ct_entry_create(s->ct, &a, now, &e)) < 0)
		return r;
	if (s->nat && (r = nat_entry_adopt(s->nat, e)) < 0) {
		ct_kill(s->ct, e);
		return r;
	}
	ct_entry_set_tcp_pickup(e, (f->have & BIT(SA_TCP_WSCALE_ORIG)) &&
					   (f->have & BIT(SA_TCP_WSCALE_REPL))
				       ? f->wscale
				       : NULL);
	return 0;
}

static uint64_t commit_timeout(const struct sync *s, const struct sync_ext *x, uint64_t now)
{
	uint64_t age = now > x->lastupdate ? now - x->lastupdate : 0, t;

	if (s->cfg.commit_timeout)
		return s->cfg.commit_timeout;
	t = (uint64_t)x->f.timeout * 1000000000ull;
	return t > age ? t - age : 60 * 1000000000ull;
}

/* Register x with its master, which must be in the table with a helper. 0 or <0. */
static int create_expect(struct sync *s, const struct sync_exp *x, uint64_t timeout_ns,
			 uint64_t now)
{
	const struct ct_tuple *t = &x->expect;
	bool any_src = x->have & ((1u << SE_MASK_IPV4) | (1u << SE_MASK_IPV6)) &&
		       !(x->mask.src.w[0] | x->mask.src.w[1] | x->mask.src.w[2] | x->mask.src.w[3]);
	bool any_sport = (x->have & (1u << SE_MASK_PORT)) && !x->mask.s.port;
	struct ct_entry *m = ct_lookup(s->ct, &x->master, now, NULL);
	struct ct_expect e;

	if (!m)
		return -ENOENT;
	ct_expect_init(&e, x->class_ < CT_EXPECT_CLASS_MAX ? x->class_ : 0, t->family,
		       any_src ? NULL : &t->src, &t->dst, t->l4proto, any_sport ? NULL : &t->s.port,
		       t->d.port);
	e.flags = x->flags & CT_EXPECT_PERMANENT;
	return ct_expect_create(s->ct, m, &e, timeout_ns, now);
}

static bool same_exp(const struct sync_exp *a, const struct sync_exp *b)
{
	return ct_tuple_eq(&a->master, &b->master) && ct_tuple_eq(&a->expect, &b->expect);
}

void sync_apply_exp(struct sync *s, uint8_t type, const struct sync_exp *x, uint64_t now)
{
	struct sync_xexp **pp, *e;

	s->st.exp_received++;
	if (s->cfg.disable_external) {
		if (type == SYNC_T_EXP_DEL) {
			struct ct_expect *found = ct_expect_find(s->ct, &x->expect, now);

			if (found)
				ct_expect_remove(s->ct, found);
			return;
		}
		s->applying = true;
		if (create_expect(s, x, (uint64_t)x->timeout * 1000000000ull, now) == 0)
			s->st.exp_committed++;
		else
			s->st.exp_failed++;
		s->applying = false;
		return;
	}
	for (pp = &s->exps; *pp && !same_exp(&(*pp)->x, x); pp = &(*pp)->next)
		;
	if (type == SYNC_T_EXP_DEL) {
		if ((e = *pp)) {
			*pp = e->next;
			free(e);
			s->st.exp_count--;
		}
		return;
	}
	if (!(e = *pp)) {
		if (s->st.exp_count >= exp_max(s) || !(e = calloc(1, sizeof(*e)))) {
			s->st.exp_full++;
			return;
		}
		e->next = s->exps;
		s->exps = e;
		s->st.exp_count++;
	}
	e->x = *x;
	e->lastupdate = now;
}

unsigned sync_commit(struct sync *s, uint64_t now)
{
	unsigned n = 0;

	if (s->cfg.disable_external)
		return 0; /* nothing is cached: -c does nothing (11.3) */
	s->applying = true;
	for (int related = 0; related < 2; related++) {
		/* expectations between their masters and the connections they let in */
		for (struct sync_xexp *e = related ? s->exps : NULL; e; e = e->next) {
			uint64_t age = now > e->lastupdate ? now - e->lastupdate : 0;
			uint64_t to = (uint64_t)e->x.timeout * 1000000000ull;

			if (s->cfg.commit_timeout)
				to = s->cfg.commit_timeout;
			else
				to = to > age ? to - age : 60 * 1000000000ull;
			if (create_expect(s, &e->x, to, now) == 0) {
				n++;
				s->st.exp_committed++;
			} else {
				s->st.exp_failed++;
			}
		}
		for (struct sync_ext *x = s->oldest; x; x = x->next) {
			if (!!(x->f.have & BIT(SA_MASTER_L4PROTO)) != related)
				continue;
			if (create_entry(s, &x->f, commit_timeout(s, x, now), now) == 0) {
				n++;
				s->st.committed++;
			} else {
				s->st.commit_failed++;
			}
		}
	}
	s->applying = false;
	return n;
}

/* Direct mode: NEW creates (replacing), UPD changes what it carries or creates, DEL kills. */
static int direct_apply(struct sync *s, uint8_t type, const struct sync_flow *f, uint64_t now)
{
	struct ct_entry *e = ct_lookup(s->ct, &f->orig, now, NULL);
	uint64_t to = (uint64_t)f->timeout * 1000000000ull;
	struct ct_entry_attrs a;

	if (s->cfg.commit_timeout || !(f->have & BIT(SA_TIMEOUT)))
		to = s->cfg.commit_timeout ? s->cfg.commit_timeout : 60 * 1000000000ull;
	if (type == SYNC_T_CT_DEL) {
		if (e)
			ct_kill(s->ct, e);
		return 0;
	}
	if (type == SYNC_T_CT_NEW || !e)
		return create_entry(s, f, to, now);
	attrs_of(f, to, &a);
	a.have &= ~(uint32_t)(CT_ATTR_REPLY | CT_ATTR_STATUS);
	/* status bits only ever get set: SEEN_REPLY, ASSURED */
	a.status = (ct_entry_status(e) | f->status) & (CT_S_SEEN_REPLY | CT_S_ASSURED);
	a.have |= CT_ATTR_STATUS;
	if (!(f->have & BIT(SA_MARK)))
		a.have &= ~(uint32_t)CT_ATTR_MARK;
	return ct_entry_change(s->ct, e, &a, now);
}

void sync_apply(struct sync *s, uint8_t type, const struct sync_flow *f, uint64_t now)
{
	if (!s->cfg.disable_external) {
		ext_apply(s, type, f, now);
		return;
	}
	s->applying = true;
	if (direct_apply(s, type, f, now) == 0)
		s->st.direct_applied++;
	else
		s->st.direct_failed++;
	s->applying = false;
}

unsigned sync_dump_external(const struct sync *s, FILE *f, uint64_t now)
{
	char line[512];
	unsigned n = 0;

	for (const struct sync_ext *x = s->oldest; x; x = x->next, n++) {
		sync_flow_format(&x->f, line, sizeof(line));
		fprintf(f, "%s [active since %llus]\n", line,
			(unsigned long long)((now - x->since) / 1000000000ull));
	}
	return n;
}

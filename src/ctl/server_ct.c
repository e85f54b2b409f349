// SPDX-License-Identifier: GPL-2.0-or-later
/* The control socket server: conntrack entries and expectations (server_int.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ct/create.h"
#include "ct/ct_plugin.h"
#include "ct/helper.h"
#include "ctl/server_int.h"
#include "nat/nat_plugin.h"

/* ---- requests: conntrack ----------------------------------------------------------------- */

static struct ct_entry *find_entry(struct ctl_server *s, const struct ctl_request *req)
{
	struct ct_table *t = ct_box_table(s->box);
	const struct ct_tuple *tu = (req->ct.have & CTL_C_ORIG) ? &req->ct.orig : &req->ct.reply;

	return t ? ct_lookup(t, tu, box_now(s->box), NULL) : NULL;
}

/* The request's entry attributes for ct_entry_create / ct_entry_change. */
static void entry_attrs(const struct ctl_ct *cc, struct ct_entry_attrs *a)
{
	memset(a, 0, sizeof(*a));
	a->orig = cc->orig;
	a->reply = cc->reply;
	if ((cc->have & (CTL_C_ORIG | CTL_C_REPLY)) == (CTL_C_ORIG | CTL_C_REPLY))
		a->have |= CT_ATTR_REPLY;
	if (cc->have & CTL_C_STATUS) {
		a->have |= CT_ATTR_STATUS;
		a->status = cc->status;
	}
	if (cc->have & CTL_C_MARK) {
		a->have |= CT_ATTR_MARK;
		a->mark = cc->mark;
		/* as ctnetlink: CTA_MARK_MASK names the bits cleared before ^ CTA_MARK; without
		 * it the mark is replaced */
		a->mark_mask = (cc->have & CTL_C_MARK_MASK) ? cc->mark_mask : 0xffffffffu;
	}
	if (cc->have & CTL_C_TIMEOUT) {
		a->have |= CT_ATTR_TIMEOUT;
		a->timeout = (uint64_t)cc->timeout * CT_SEC;
	}
	if (cc->have & CTL_C_PROTOINFO) {
		a->have |= CT_ATTR_PROTO_STATE;
		a->proto_state = cc->proto_state;
	}
	if (cc->have & CTL_C_LABELS) {
		/* as ctnetlink: CTA_LABELS_MASK names the bits CTA_LABELS sets, else all */
		a->have |= CT_ATTR_LABELS;
		memcpy(a->labels.words, cc->labels, sizeof(a->labels.words));
		memset(a->labels_mask.words, 0xff, sizeof(a->labels_mask.words));
		if (cc->have & CTL_C_LABELS_MASK)
			memcpy(a->labels_mask.words, cc->labels_mask, sizeof(a->labels_mask.words));
	}
}

/* CTA_NAT_SRC/DST of a create, as the NAT layer's ranges (ct_entry_attrs.bind's priv). */
struct create_nat {
	struct nat_table *n;
	struct nat_range r[2]; /* [0] source, [1] destination, as ctl_ct.nat */
	bool want[2];
};

static void nat_range_of(const struct ctl_nat *c, uint8_t family, struct nat_range *r)
{
	memset(r, 0, sizeof(*r));
	r->family = family;
	if (c->family) {
		r->flags |= NAT_R_MAP_IPS;
		r->min_addr = c->min;
		r->max_addr = c->max;
	}
	if (c->has_port) {
		r->flags |= NAT_R_PROTO;
		r->min_port = c->min_port;
		r->max_port = c->max_port;
	}
}

static int create_bind(void *priv, struct ct_entry *e, uint64_t now)
{
	struct create_nat *cn = priv;

	return nat_bind_entry(cn->n, e, cn->want[0] ? &cn->r[0] : NULL,
			      cn->want[1] ? &cn->r[1] : NULL, now);
}

/* CT_NEW: update the entry the tuple names, or create it (NLM_F_CREATE), as ctnetlink. */
static void do_ct_new(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
		      const struct ctl_request *req)
{
	struct ct_table *t = ct_box_table(s->box);
	struct ct_entry_attrs a;
	struct ct_entry *e = find_entry(s, req);
	struct create_nat cn;
	bool nat = req->ct.have & (CTL_C_NAT_SRC | CTL_C_NAT_DST);
	uint64_t exhausted;
	int r;

	entry_attrs(&req->ct, &a);
	if (!e && (req->ct.have & (CTL_C_ORIG | CTL_C_REPLY)) == (CTL_C_ORIG | CTL_C_REPLY))
		e = ct_lookup(t, &req->ct.reply, box_now(s->box), NULL);
	if (e) {
		if (req->flags & NLM_F_EXCL) {
			ctl_srv_reply_error(c, nlh, -EEXIST, "conntrack entry exists");
			return;
		}
		if (nat) { /* ctnetlink: NAT only for new entries */
			ctl_srv_reply_error(
			    c, nlh, -EOPNOTSUPP,
			    "CTA_NAT_SRC/CTA_NAT_DST: an existing entry's NAT cannot change");
			return;
		}
		if ((r = ct_entry_change(t, e, &a, box_now(s->box))) < 0) {
			ctl_srv_reply_error(c, nlh, r,
					    "CTA_STATUS: SEEN_REPLY and ASSURED cannot be cleared");
			return;
		}
		ctl_srv_send_ack(c, nlh);
		return;
	}
	if (!(req->flags & NLM_F_CREATE)) {
		ctl_srv_reply_error(c, nlh, -ENOENT, "no such conntrack entry");
		return;
	}
	if (!t) {
		ctl_srv_reply_error(c, nlh, -EOPNOTSUPP, "connection tracking is off in this box");
		return;
	}
	if (!(req->ct.have & CTL_C_ORIG)) {
		struct ctl_error err = {.code = -EINVAL, .missing = CTA_TUPLE_ORIG};

		snprintf(err.msg, sizeof(err.msg), "CTA_TUPLE_ORIG: required to create an entry");
		ctl_srv_send_error(c, nlh, &err);
		return;
	}
	if (!(req->ct.have & CTL_C_TIMEOUT)) {
		struct ctl_error err = {.code = -EINVAL, .missing = CTA_TIMEOUT};

		snprintf(err.msg, sizeof(err.msg), "CTA_TIMEOUT: required to create an entry");
		ctl_srv_send_error(c, nlh, &err);
		return;
	}
	if (req->ct.have & CTL_C_HELPER) {
		if (!(a.helper = ct_helper_find(t, req->ct.helper))) {
			ctl_srv_reply_error(c, nlh, -EOPNOTSUPP,
					    "CTA_HELP: no helper '%s' in this box", req->ct.helper);
			return;
		}
		a.have |= CT_ATTR_HELPER;
	}
	if (nat) {
		memset(&cn, 0, sizeof(cn));
		if (!(cn.n = nat_box_table(s->box))) {
			ctl_srv_reply_error(c, nlh, -EOPNOTSUPP,
					    "CTA_NAT_SRC/CTA_NAT_DST: no NAT in this box");
			return;
		}
		for (int i = 0; i < 2; i++) {
			const struct ctl_nat *cnat = &req->ct.nat[i];

			if (!(req->ct.have & (i ? CTL_C_NAT_DST : CTL_C_NAT_SRC)))
				continue;
			if (cnat->family && cnat->family != req->ct.orig.family) {
				ctl_srv_reply_error(c, nlh, -EINVAL,
						    "%s: not the entry's address family",
						    i ? "CTA_NAT_DST" : "CTA_NAT_SRC");
				return;
			}
			cn.want[i] = true;
			nat_range_of(cnat, req->ct.orig.family, &cn.r[i]);
		}
		a.bind = create_bind;
		a.bind_priv = &cn;
	}
	exhausted = nat ? nat_table_stats(cn.n)->exhausted : 0;
	r = ct_entry_create(t, &a, box_now(s->box), NULL);
	if (r == -EINVAL && nat)
		ctl_srv_reply_error(c, nlh, r, "cannot create the entry with that NAT");
	else if (r == -ENOSPC && nat && nat_table_stats(cn.n)->exhausted != exhausted)
		ctl_srv_reply_error(c, nlh, r,
				    "CTA_NAT_SRC/CTA_NAT_DST: no free tuple for the translation");
	else if (r == -EINVAL)
		ctl_srv_reply_error(c, nlh, r, "CTA_TUPLE_REPLY: does not answer CTA_TUPLE_ORIG");
	else if (r < 0)
		ctl_srv_reply_error(c, nlh, r, "cannot create the entry: %s", strerror(-r));
	else
		ctl_srv_send_ack(c, nlh);
}

void ctl_srv_do_ct(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
		   const struct ctl_request *req)
{
	struct ct_table *t = ct_box_table(s->box);
	struct ct_entry *e;
	struct ctl_stats st;
	size_t room;
	void *p;

	switch (CTL_MSG(req->type)) {
	case CTL_CT_GET:
	case CTL_CT_GET_CTRZERO:
		if (req->flags & NLM_F_DUMP) {
			ctl_srv_job_start(c, JOB_DUMP, req);
			return;
		}
		if (!(e = find_entry(s, req))) {
			ctl_srv_reply_error(c, nlh, -ENOENT, "no such conntrack entry");
			return;
		}
		if (!ctl_srv_queue_entry(c, e, req->seq, 0) &&
		    CTL_MSG(req->type) == CTL_CT_GET_CTRZERO)
			ct_entry_zero_counters(e);
		ctl_srv_send_ack(c, nlh);
		return;
	case CTL_CT_DELETE:
		if (!req->has_ct) {
			ctl_srv_job_start(c, JOB_DELETE, req);
			return;
		}
		if (!(e = find_entry(s, req))) {
			ctl_srv_reply_error(c, nlh, -ENOENT, "no such conntrack entry");
			return;
		}
		ct_kill(t, e);
		ctl_srv_send_ack(c, nlh);
		return;
	case CTL_CT_FLUSH:
		ctl_srv_job_start(c, JOB_DELETE, req);
		return;
	case CTL_CT_NEW:
		do_ct_new(s, c, nlh, req);
		return;
	case CTL_CT_GET_STATS_CPU:
	case CTL_CT_GET_STATS:
		memset(&st, 0, sizeof(st));
		if (t) {
			const struct ct_stats *cs = ct_table_stats(t);

			st.entries = cs->count;
			st.max_entries = ct_table_config(t)->max_entries;
			st.found = cs->found;
			st.new = cs->new;
			st.invalid = cs->invalid;
			st.insert = cs->insert;
			st.insert_failed = cs->insert_failed;
			st.drop = cs->drop;
			st.early_drop = cs->early_drop;
			st.search_restart = cs->search_restart;
			st.clash = cs->clash;
			st.expired = cs->expired;
		}
		st.events_lost = c->lost;
		if ((p = ctl_srv_out_room(c, MSG_ROOM, &room))) {
			struct nlmsghdr *m =
			    ctl_msg_start(p, room, req->type, 0, req->seq, AF_UNSPEC, false);
			int r = !m ? -EMSGSIZE
				: CTL_MSG(req->type) == CTL_CT_GET_STATS
				    ? ctl_put_stats_global(m, room, &st)
				    : ctl_put_stats_cpu(m, room, &st);

			if (!r)
				ctl_srv_out_commit(c, m);
		}
		ctl_srv_send_ack(c, nlh);
		return;
	case CTL_CT_EVENTS:
		if (!c->evq && !(c->evq = malloc((size_t)s->cfg.event_qlen * EV_SLOT))) {
			ctl_srv_reply_error(c, nlh, -ENOMEM, "no memory for an event queue");
			return;
		}
		c->subscribed = true;
		c->ev_mask =
		    req->event_mask ? req->event_mask : CTL_EV_NEW | CTL_EV_UPDATE | CTL_EV_DESTROY;
		c->ev_filtered = req->has_filter;
		if (req->has_filter)
			c->ev_filter = req->filter;
		ctl_srv_ensure_subscription(s);
		ctl_srv_send_ack(c, nlh);
		return;
	default:
		ctl_srv_reply_error(c, nlh, -EOPNOTSUPP, "%s: not supported",
				    ctl_msg_name(req->type));
	}
}

/* ---- requests: expectations -------------------------------------------------------------- */

static int queue_exp(struct client *c, const struct ct_expect *x, uint32_t seq, uint16_t flags)
{
	struct ctl_exp ce;
	struct nlmsghdr *nlh;
	size_t room;
	void *p = ctl_srv_out_room(c, MSG_ROOM, &room);

	if (!p)
		return -ENOMEM;
	ctl_exp_from_expect(&ce, x, box_now(c->srv->box));
	nlh = ctl_msg_start(p, room, CTL_TYPE(CTL_SUBSYS_EXP, CTL_EXP_NEW), flags, seq,
			    x->tuple.family, false);
	if (!nlh || ctl_put_exp(nlh, room, &ce) < 0)
		return -EMSGSIZE;
	ctl_srv_out_commit(c, nlh);
	return 0;
}

/* The expectation registered for exactly this tuple (compared under its own mask). */
static struct ct_expect *find_exp(struct ct_table *t, const struct ctl_exp *q)
{
	struct ct_tuple want = q->tuple.t;

	if (q->have & CTL_X_ZONE)
		want.zone = q->zone;
	for (struct ct_expect *x = ct_expect_next(t, NULL); x; x = ct_expect_next(t, x)) {
		struct ct_tuple m = want;

		for (int w = 0; w < 4; w++)
			m.src.w[w] &= x->mask_src.w[w];
		m.s.all &= x->mask_sport;
		if (ct_tuple_eq(&m, &x->tuple))
			return x;
	}
	return NULL;
}

static void do_exp_new(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
		       const struct ctl_exp *q)
{
	struct ct_table *t = ct_box_table(s->box);
	const struct ct_tuple *tu = &q->tuple.t;
	struct ct_entry *master;
	struct ct_expect x;
	int r;

	if (!(master = ct_lookup(t, &q->master.t, box_now(s->box), NULL))) {
		ctl_srv_reply_error(c, nlh, -ENOENT, "CTA_EXPECT_MASTER: no such conntrack entry");
		return;
	}
	ct_expect_init(&x, (q->have & CTL_X_CLASS) ? q->class : CT_EXPECT_CLASS_DEFAULT, tu->family,
		       &tu->src, &tu->dst, tu->l4proto, &tu->s.port, tu->d.port);
	if (q->have & CTL_X_MASK) {
		x.mask_src = q->mask.t.src;
		x.mask_sport = (q->mask.have & CTL_T_SPORT) ? q->mask.t.s.all : 0xffff;
	}
	if (q->have & CTL_X_FLAGS)
		x.flags = (uint8_t)(q->flags & (CT_EXPECT_PERMANENT | CT_EXPECT_INACTIVE));
	r = ct_expect_create(t, master, &x, (uint64_t)q->timeout * CT_SEC, box_now(s->box));
	switch (r) {
	case 0:
		ctl_srv_send_ack(c, nlh);
		break;
	case -ESHUTDOWN: /* as ctnetlink: an expectation needs a master with a helper */
		ctl_srv_reply_error(c, nlh, -EOPNOTSUPP,
				    "CTA_EXPECT_MASTER: the entry has no helper");
		break;
	case -EBUSY:
		ctl_srv_reply_error(c, nlh, -EBUSY,
				    "CTA_EXPECT_TUPLE: clashes with another expectation");
		break;
	default:
		ctl_srv_reply_error(c, nlh, r, "cannot create the expectation: %s", strerror(-r));
	}
}

void ctl_srv_do_exp(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
		    const struct ctl_request *req)
{
	struct ct_table *t = ct_box_table(s->box);
	struct ct_expect *x;

	if (!t) {
		if (CTL_MSG(req->type) == CTL_EXP_GET && (req->flags & NLM_F_DUMP))
			ctl_srv_send_done(c, req->seq);
		else
			ctl_srv_reply_error(c, nlh, -ENOENT,
					    "connection tracking is off in this box");
		return;
	}
	ct_expect_sweep(t, box_now(s->box));
	switch (CTL_MSG(req->type)) {
	case CTL_EXP_GET:
		if (req->flags & NLM_F_DUMP) {
			/* a table of at most nf_conntrack_expect_max (a few hundred): at once */
			for (x = ct_expect_next(t, NULL); x; x = ct_expect_next(t, x))
				if (!req->family || req->family == x->tuple.family)
					queue_exp(c, x, req->seq, NLM_F_MULTI);
			ctl_srv_send_done(c, req->seq);
			return;
		}
		if (!(x = find_exp(t, &req->exp))) {
			ctl_srv_reply_error(c, nlh, -ENOENT, "no such expectation");
			return;
		}
		queue_exp(c, x, req->seq, 0);
		ctl_srv_send_ack(c, nlh);
		return;
	case CTL_EXP_DELETE:
		if (!(x = find_exp(t, &req->exp))) {
			ctl_srv_reply_error(c, nlh, -ENOENT, "no such expectation");
			return;
		}
		ct_expect_remove(t, x);
		ctl_srv_send_ack(c, nlh);
		return;
	case CTL_EXP_NEW:
		do_exp_new(s, c, nlh, &req->exp);
		return;
	}
}

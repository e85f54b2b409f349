// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The control socket server (server.h): requests in, replies, dumps and events out.
 *
 *   request  --> parse (msg.c) --> error?  NLMSG_ERROR naming the attribute
 *                               \-> run    data messages ..., then NLMSG_ERROR 0 (ACK)
 *                                          or, for a dump, NLM_F_MULTI messages ..., NLMSG_DONE
 *
 * Per client, output waits in a queue of records (one SOCK_SEQPACKET datagram each, several
 * netlink messages packed in it, at most REC_SIZE bytes):
 *
 *   out: [rec]->[rec]->...   sent head first while the socket takes them
 *   job: a dump or delete-by-filter with its ct_walk cursor; one batch is produced only when
 *        `out` is empty, so a slow reader holds at most one batch of memory and no table lock
 *   evq: a ring of encoded events (cfg.event_qlen); full: the event is counted as lost and a
 *        CTL_CT_EVENTS_LOST message with the running total goes out before the next ones
 *
 * While a client has output pending or a job running its requests are not read (back-pressure).
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <linux/netfilter.h>
#include <linux/netlink.h>

#include "ct/ct_plugin.h"
#include "classify/ruleset.h"
#include "ctl/msg.h"
#include "ctl/server.h"
#include "ct/create.h"
#include "ct/expect.h"
#include "ct/helper.h"
#include "engine/box.h"
#include "nat/nat.h"
#include "nat/nat_plugin.h"
#include "plugins/load.h"
#include "plugins/recent_plugin.h"
#include "set/set_cmd.h"
#include "set/set_plugin.h"
#include "rules/rules.h"

#define REC_SIZE      32768u
#define EV_SLOT	      512u /* an encoded entry takes < 400 bytes */
#define MSG_ROOM      1200u /* room asked for one entry or error message */
#define TEXT_CHUNK    16384u
#define MAX_REQUEST   (1u << 20)
#define MAX_RESTORE   ((size_t)64 << 20)
#define MAX_EPOLL_EVS 64
/* Dump entries per client per process call. The data path waits for one batch: 256 left it a
 * fifth of its idle rate during a 1M dump, 64 half, at half the dump rate (bench/README.md). */
#define CTL_DEFAULT_BATCH 64u

struct rec {
	struct rec *next;
	size_t len;
	char data[REC_SIZE];
};

enum job_kind { JOB_NONE, JOB_DUMP, JOB_DELETE };

struct client {
	int fd;
	bool denied, gone;
	uid_t uid;
	uint32_t interest;
	struct rec *out, *out_tail;
	/* a dump or delete walking the table */
	enum job_kind job;
	struct ct_table *job_table;
	uint32_t cursor, job_seq, deleted;
	bool job_filtered, job_zero; /* job_zero: CT_GET_CTRZERO, counters zeroed once queued */
	struct ctl_filter job_filter;
	/* events */
	bool subscribed, ev_filtered, lost_pending;
	uint32_t ev_mask;
	struct ctl_filter ev_filter;
	unsigned char *evq; /* event_qlen slots of EV_SLOT bytes */
	unsigned ev_head, ev_count;
	uint64_t lost;
	/* a restore in several RULES_REPLACE messages (CTL_RF_MORE): the text so far */
	char *rtext;
	size_t rlen, rcap;
	uint8_t rfamily;
	struct ctl_server *srv;
};

struct ctl_server {
	struct box *box;
	struct ctl_server_config cfg;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int lfd, epfd;
	struct client **clients;
	unsigned nclients;
	struct ct_table *sub_table; /* the table our event callback is registered with */
	size_t restore_held;	    /* bytes of every client's rtext (cfg.max_restore) */
	unsigned char *rx;	    /* one request record */
	size_t rxcap;
	unsigned char scratch[EV_SLOT];
	ctl_sync_fn sync_fn;
	void *sync_priv;
};

void ctl_server_set_sync(struct ctl_server *s, ctl_sync_fn fn, void *priv)
{
	s->sync_fn = fn;
	s->sync_priv = priv;
}

void ctl_server_config_default(struct ctl_server_config *c)
{
	memset(c, 0, sizeof(*c));
	c->mode = 0600;
	c->batch = CTL_DEFAULT_BATCH;
	c->event_qlen = 4096;
	c->max_clients = 64;
	c->uid = (uid_t)-1;
}

/* ---- output ------------------------------------------------------------------------------ */

/* Room for a message of up to `need` bytes at the end of the queue; NULL on ENOMEM. */
static void *out_room(struct client *c, size_t need, size_t *room)
{
	struct rec *r = c->out_tail;

	if (!r || REC_SIZE - r->len < need) {
		if (!(r = malloc(sizeof(*r))))
			return NULL;
		r->next = NULL;
		r->len = 0;
		if (c->out_tail)
			c->out_tail->next = r;
		else
			c->out = r;
		c->out_tail = r;
	}
	*room = REC_SIZE - r->len;
	return r->data + r->len;
}

static void out_commit(struct client *c, const struct nlmsghdr *nlh)
{
	c->out_tail->len += MNL_ALIGN(nlh->nlmsg_len);
}

static void send_error(struct client *c, const struct nlmsghdr *req, const struct ctl_error *err)
{
	size_t room;
	void *p = out_room(c, MSG_ROOM, &room);

	if (p && ctl_put_error(p, room, req, err) > 0)
		out_commit(c, p);
}

static void send_ack(struct client *c, const struct nlmsghdr *req)
{
	send_error(c, req, NULL);
}

__attribute__((format(printf, 4, 5))) static void reply_error(struct client *c,
							      const struct nlmsghdr *req, int code,
							      const char *fmt, ...)
{
	struct ctl_error err;
	va_list ap;

	memset(&err, 0, sizeof(err));
	err.code = code;
	va_start(ap, fmt);
	vsnprintf(err.msg, sizeof(err.msg), fmt, ap);
	va_end(ap);
	send_error(c, req, &err);
}

static void send_done(struct client *c, uint32_t seq)
{
	size_t room;
	void *p = out_room(c, 64, &room);
	struct nlmsghdr *nlh;

	if (p && (nlh = ctl_put_done(p, room, seq)))
		out_commit(c, nlh);
}

/* An entry as a CTL_CT_NEW message into the queue. */
static int queue_entry(struct client *c, const struct ct_entry *e, uint32_t seq, uint16_t flags)
{
	struct ctl_ct cc;
	struct nlmsghdr *nlh;
	size_t room;
	void *p = out_room(c, MSG_ROOM, &room);

	if (!p)
		return -ENOMEM;
	ctl_ct_from_entry(&cc, e, box_now(c->srv->box));
	nlh = ctl_msg_start(p, room, CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_NEW), flags, seq,
			    ct_entry_tuple(e, CT_DIR_ORIGINAL)->family, false);
	if (!nlh || ctl_put_ct(nlh, room, &cc) < 0)
		return -EMSGSIZE;
	out_commit(c, nlh);
	return 0;
}

/* ---- clients ----------------------------------------------------------------------------- */

static bool client_busy(const struct client *c)
{
	return c->out || c->job != JOB_NONE;
}

static void client_update_interest(struct client *c)
{
	uint32_t want = 0;
	struct epoll_event ev;

	if (!client_busy(c))
		want |= EPOLLIN;
	if (c->out || c->job != JOB_NONE || c->ev_count || c->lost_pending)
		want |= EPOLLOUT;
	if (want == c->interest)
		return;
	ev.events = want;
	ev.data.ptr = c;
	if (epoll_ctl(c->srv->epfd, EPOLL_CTL_MOD, c->fd, &ev) == 0)
		c->interest = want;
}

static void client_free(struct client *c)
{
	struct rec *r, *n;

	for (r = c->out; r; r = n) {
		n = r->next;
		free(r);
	}
	epoll_ctl(c->srv->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->srv->restore_held -= c->rcap;
	free(c->rtext);
	free(c->evq);
	free(c);
}

static void client_drop(struct ctl_server *s, unsigned i)
{
	client_free(s->clients[i]);
	s->clients[i] = s->clients[--s->nclients];
}

/* ---- events ------------------------------------------------------------------------------ */

static void event_cb(void *priv, uint32_t events, const struct ct_entry *e,
		     enum ct_destroy_reason why)
{
	struct ctl_server *s = priv;
	uint32_t kind = (events & CT_EV_DESTROY) ? CTL_EV_DESTROY
			: (events & CT_EV_NEW)	 ? CTL_EV_NEW
						 : CTL_EV_UPDATE;
	struct nlmsghdr *nlh = NULL;
	struct ctl_ct cc;

	(void)why;
	for (unsigned i = 0; i < s->nclients; i++) {
		struct client *c = s->clients[i];

		if (!c->subscribed || !(c->ev_mask & kind) ||
		    (c->ev_filtered && !ctl_filter_match(&c->ev_filter, e)))
			continue;
		if (!nlh) { /* encoded once, for every listener that wants it */
			uint16_t type = CTL_TYPE(CTL_SUBSYS_CT,
						 kind == CTL_EV_DESTROY ? CTL_CT_DELETE : CTL_CT_NEW);
			uint16_t flags = kind == CTL_EV_NEW ? NLM_F_CREATE | NLM_F_EXCL : 0;

			ctl_ct_from_entry(&cc, e, box_now(s->box));
			/* as ctnetlink: a destroy event carries the mark only when there is one */
			if (kind == CTL_EV_DESTROY && !(events & CT_EV_MARK) && !cc.mark)
				cc.have &= ~(uint32_t)CTL_C_MARK;
			nlh = ctl_msg_start(s->scratch, sizeof(s->scratch), type, flags, 0,
					    cc.orig.family, false);
			if (!nlh || ctl_put_ct(nlh, sizeof(s->scratch), &cc) < 0)
				return;
		}
		if (c->ev_count == s->cfg.event_qlen) {
			c->lost++;
			c->lost_pending = true;
			continue;
		}
		memcpy(c->evq + (size_t)((c->ev_head + c->ev_count) % s->cfg.event_qlen) * EV_SLOT,
		       nlh, nlh->nlmsg_len);
		if (c->ev_count++ == 0)
			client_update_interest(c);
	}
}

static void ensure_subscription(struct ctl_server *s)
{
	struct ct_table *t = ct_box_table(s->box);

	if (t && t != s->sub_table && ct_event_subscribe(t, event_cb, s) == 0)
		s->sub_table = t;
}

/* Move queued events into output records (they follow any reply already queued). */
static void events_to_out(struct ctl_server *s, struct client *c)
{
	size_t room;
	void *p;

	if (c->lost_pending && (p = out_room(c, MSG_ROOM, &room))) {
		struct nlmsghdr *nlh = ctl_msg_start(p, room,
						     CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_EVENTS_LOST),
						     0, 0, AF_UNSPEC, false);

		if (nlh && mnl_attr_put_u64_check(nlh, room, CTL_A_EVENTS_LOST, htobe64(c->lost))) {
			out_commit(c, nlh);
			c->lost_pending = false;
		}
	}
	/* up to a record's worth at a time: the ring keeps the rest (and counts losses) */
	while (c->ev_count) {
		const struct nlmsghdr *ev =
		    (const void *)(c->evq + (size_t)c->ev_head * EV_SLOT);

		if (c->out_tail && REC_SIZE - c->out_tail->len < ev->nlmsg_len)
			break;
		if (!(p = out_room(c, ev->nlmsg_len, &room)))
			break;
		memcpy(p, ev, ev->nlmsg_len);
		out_commit(c, p);
		c->ev_head = (c->ev_head + 1) % s->cfg.event_qlen;
		c->ev_count--;
	}
}

/* ---- jobs: dumps and deletes in batches -------------------------------------------------- */

static enum ct_walk_action job_cb(void *priv, struct ct_entry *e)
{
	struct client *c = priv;

	if (c->job_filtered && !ctl_filter_match(&c->job_filter, e))
		return CT_WALK_NEXT;
	if (c->job == JOB_DELETE) {
		c->deleted++;
		return CT_WALK_KILL;
	}
	/* zeroed only once its message is queued: a failed queue must not lose the counts */
	if (!queue_entry(c, e, c->job_seq, NLM_F_MULTI) && c->job_zero)
		ct_entry_zero_counters(e);
	return CT_WALK_NEXT;
}

static void job_finish(struct client *c)
{
	struct nlmsghdr req = { .nlmsg_seq = c->job_seq };

	if (c->job == JOB_DUMP) {
		send_done(c, c->job_seq);
	} else {
		size_t room;
		void *p = out_room(c, MSG_ROOM, &room);
		struct nlmsghdr *nlh;

		if (p && (nlh = ctl_msg_start(p, room, CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_DELETE), 0,
					      c->job_seq, AF_UNSPEC, false)) &&
		    mnl_attr_put_u32_check(nlh, room, CTL_A_COUNT, htonl(c->deleted)))
			out_commit(c, nlh);
		send_ack(c, &req);
	}
	c->job = JOB_NONE;
}

static void job_step(struct ctl_server *s, struct client *c)
{
	struct ct_table *t = ct_box_table(s->box);

	if (c->job == JOB_NONE || c->out)
		return;
	if (!t || t != c->job_table) { /* tracking went off (or never was on): nothing more */
		job_finish(c);
		return;
	}
	if (ct_walk(t, &c->cursor, s->cfg.batch, box_now(s->box), job_cb, c))
		job_finish(c);
}

static void job_start(struct client *c, enum job_kind kind, const struct ctl_request *req)
{
	c->job = kind;
	c->job_table = ct_box_table(c->srv->box);
	c->cursor = 0;
	c->deleted = 0;
	c->job_seq = req->seq;
	c->job_zero = CTL_MSG(req->type) == CTL_CT_GET_CTRZERO;
	c->job_filtered = req->has_filter;
	if (req->has_filter)
		c->job_filter = req->filter;
	else
		memset(&c->job_filter, 0, sizeof(c->job_filter));
	if (!req->has_filter && req->family) { /* conntrack -L -f ipv6 */
		c->job_filtered = true;
		c->job_filter.family = req->family;
	}
}

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
			reply_error(c, nlh, -EEXIST, "conntrack entry exists");
			return;
		}
		if (nat) { /* ctnetlink: NAT only for new entries */
			reply_error(
			    c, nlh, -EOPNOTSUPP,
			    "CTA_NAT_SRC/CTA_NAT_DST: an existing entry's NAT cannot change");
			return;
		}
		if ((r = ct_entry_change(t, e, &a, box_now(s->box))) < 0) {
			reply_error(c, nlh, r, "CTA_STATUS: SEEN_REPLY and ASSURED cannot be cleared");
			return;
		}
		send_ack(c, nlh);
		return;
	}
	if (!(req->flags & NLM_F_CREATE)) {
		reply_error(c, nlh, -ENOENT, "no such conntrack entry");
		return;
	}
	if (!t) {
		reply_error(c, nlh, -EOPNOTSUPP, "connection tracking is off in this box");
		return;
	}
	if (!(req->ct.have & CTL_C_ORIG)) {
		struct ctl_error err = { .code = -EINVAL, .missing = CTA_TUPLE_ORIG };

		snprintf(err.msg, sizeof(err.msg), "CTA_TUPLE_ORIG: required to create an entry");
		send_error(c, nlh, &err);
		return;
	}
	if (!(req->ct.have & CTL_C_TIMEOUT)) {
		struct ctl_error err = { .code = -EINVAL, .missing = CTA_TIMEOUT };

		snprintf(err.msg, sizeof(err.msg), "CTA_TIMEOUT: required to create an entry");
		send_error(c, nlh, &err);
		return;
	}
	if (req->ct.have & CTL_C_HELPER) {
		if (!(a.helper = ct_helper_find(t, req->ct.helper))) {
			reply_error(c, nlh, -EOPNOTSUPP, "CTA_HELP: no helper '%s' in this box",
				    req->ct.helper);
			return;
		}
		a.have |= CT_ATTR_HELPER;
	}
	if (nat) {
		memset(&cn, 0, sizeof(cn));
		if (!(cn.n = nat_box_table(s->box))) {
			reply_error(c, nlh, -EOPNOTSUPP,
				    "CTA_NAT_SRC/CTA_NAT_DST: no NAT in this box");
			return;
		}
		for (int i = 0; i < 2; i++) {
			const struct ctl_nat *cnat = &req->ct.nat[i];

			if (!(req->ct.have & (i ? CTL_C_NAT_DST : CTL_C_NAT_SRC)))
				continue;
			if (cnat->family && cnat->family != req->ct.orig.family) {
				reply_error(c, nlh, -EINVAL, "%s: not the entry's address family",
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
		reply_error(c, nlh, r, "cannot create the entry with that NAT");
	else if (r == -ENOSPC && nat && nat_table_stats(cn.n)->exhausted != exhausted)
		reply_error(c, nlh, r,
			    "CTA_NAT_SRC/CTA_NAT_DST: no free tuple for the translation");
	else if (r == -EINVAL)
		reply_error(c, nlh, r, "CTA_TUPLE_REPLY: does not answer CTA_TUPLE_ORIG");
	else if (r < 0)
		reply_error(c, nlh, r, "cannot create the entry: %s", strerror(-r));
	else
		send_ack(c, nlh);
}

static void do_ct(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
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
			job_start(c, JOB_DUMP, req);
			return;
		}
		if (!(e = find_entry(s, req))) {
			reply_error(c, nlh, -ENOENT, "no such conntrack entry");
			return;
		}
		if (!queue_entry(c, e, req->seq, 0) && CTL_MSG(req->type) == CTL_CT_GET_CTRZERO)
			ct_entry_zero_counters(e);
		send_ack(c, nlh);
		return;
	case CTL_CT_DELETE:
		if (!req->has_ct) {
			job_start(c, JOB_DELETE, req);
			return;
		}
		if (!(e = find_entry(s, req))) {
			reply_error(c, nlh, -ENOENT, "no such conntrack entry");
			return;
		}
		ct_kill(t, e);
		send_ack(c, nlh);
		return;
	case CTL_CT_FLUSH:
		job_start(c, JOB_DELETE, req);
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
		if ((p = out_room(c, MSG_ROOM, &room))) {
			struct nlmsghdr *m = ctl_msg_start(p, room, req->type, 0, req->seq,
							   AF_UNSPEC, false);
			int r = !m ? -EMSGSIZE
				: CTL_MSG(req->type) == CTL_CT_GET_STATS ? ctl_put_stats_global(m, room, &st)
									 : ctl_put_stats_cpu(m, room, &st);

			if (!r)
				out_commit(c, m);
		}
		send_ack(c, nlh);
		return;
	case CTL_CT_EVENTS:
		if (!c->evq && !(c->evq = malloc((size_t)s->cfg.event_qlen * EV_SLOT))) {
			reply_error(c, nlh, -ENOMEM, "no memory for an event queue");
			return;
		}
		c->subscribed = true;
		c->ev_mask = req->event_mask ? req->event_mask
					     : CTL_EV_NEW | CTL_EV_UPDATE | CTL_EV_DESTROY;
		c->ev_filtered = req->has_filter;
		if (req->has_filter)
			c->ev_filter = req->filter;
		ensure_subscription(s);
		send_ack(c, nlh);
		return;
	default:
		reply_error(c, nlh, -EOPNOTSUPP, "%s: not supported", ctl_msg_name(req->type));
	}
}

/* ---- requests: expectations -------------------------------------------------------------- */

static int queue_exp(struct client *c, const struct ct_expect *x, uint32_t seq, uint16_t flags)
{
	struct ctl_exp ce;
	struct nlmsghdr *nlh;
	size_t room;
	void *p = out_room(c, MSG_ROOM, &room);

	if (!p)
		return -ENOMEM;
	ctl_exp_from_expect(&ce, x, box_now(c->srv->box));
	nlh = ctl_msg_start(p, room, CTL_TYPE(CTL_SUBSYS_EXP, CTL_EXP_NEW), flags, seq,
			    x->tuple.family, false);
	if (!nlh || ctl_put_exp(nlh, room, &ce) < 0)
		return -EMSGSIZE;
	out_commit(c, nlh);
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
		reply_error(c, nlh, -ENOENT, "CTA_EXPECT_MASTER: no such conntrack entry");
		return;
	}
	ct_expect_init(&x, (q->have & CTL_X_CLASS) ? q->class : CT_EXPECT_CLASS_DEFAULT,
		       tu->family, &tu->src, &tu->dst, tu->l4proto, &tu->s.port, tu->d.port);
	if (q->have & CTL_X_MASK) {
		x.mask_src = q->mask.t.src;
		x.mask_sport = (q->mask.have & CTL_T_SPORT) ? q->mask.t.s.all : 0xffff;
	}
	if (q->have & CTL_X_FLAGS)
		x.flags = (uint8_t)(q->flags & (CT_EXPECT_PERMANENT | CT_EXPECT_INACTIVE));
	r = ct_expect_create(t, master, &x, (uint64_t)q->timeout * CT_SEC, box_now(s->box));
	switch (r) {
	case 0:
		send_ack(c, nlh);
		break;
	case -ESHUTDOWN: /* as ctnetlink: an expectation needs a master with a helper */
		reply_error(c, nlh, -EOPNOTSUPP, "CTA_EXPECT_MASTER: the entry has no helper");
		break;
	case -EBUSY:
		reply_error(c, nlh, -EBUSY, "CTA_EXPECT_TUPLE: clashes with another expectation");
		break;
	default:
		reply_error(c, nlh, r, "cannot create the expectation: %s", strerror(-r));
	}
}

static void do_exp(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
		   const struct ctl_request *req)
{
	struct ct_table *t = ct_box_table(s->box);
	struct ct_expect *x;

	if (!t) {
		if (CTL_MSG(req->type) == CTL_EXP_GET && (req->flags & NLM_F_DUMP))
			send_done(c, req->seq);
		else
			reply_error(c, nlh, -ENOENT, "connection tracking is off in this box");
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
			send_done(c, req->seq);
			return;
		}
		if (!(x = find_exp(t, &req->exp))) {
			reply_error(c, nlh, -ENOENT, "no such expectation");
			return;
		}
		queue_exp(c, x, req->seq, 0);
		send_ack(c, nlh);
		return;
	case CTL_EXP_DELETE:
		if (!(x = find_exp(t, &req->exp))) {
			reply_error(c, nlh, -ENOENT, "no such expectation");
			return;
		}
		ct_expect_remove(t, x);
		send_ack(c, nlh);
		return;
	case CTL_EXP_NEW:
		do_exp_new(s, c, nlh, &req->exp);
		return;
	}
}

/* ---- requests: rulesets ------------------------------------------------------------------ */

static void restore_forget(struct client *c)
{
	c->srv->restore_held -= c->rcap;
	free(c->rtext);
	c->rtext = NULL;
	c->rlen = c->rcap = 0;
}

/*
 * Append this message's text to the client's pending restore (CTL_RF_MORE before, or now).
 * The memory of all clients' pending texts together stays within cfg.max_restore. 0, or an
 * error has been sent and the pending text dropped.
 */
static int restore_append(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
			  const struct ctl_request *req)
{
	size_t need = c->rlen + req->text_len + 1, cap = c->rcap ? c->rcap : 1u << 20;
	char *nt;

	if (c->rtext && req->family != c->rfamily) {
		restore_forget(c);
		reply_error(c, nlh, -EINVAL, "RULES_REPLACE: family %u continues a restore of %u",
			    req->family, c->rfamily);
		return -EINVAL;
	}
	while (cap < need)
		cap *= 2;
	if (cap > c->rcap && s->restore_held - c->rcap + cap > s->cfg.max_restore)
		cap = need; /* doubling would pass the bound: exactly what is needed */
	if (cap > c->rcap && s->restore_held - c->rcap + cap > s->cfg.max_restore) {
		restore_forget(c);
		reply_error(c, nlh, -EFBIG,
			    "ruleset text of more than %zu bytes (the server's max_restore, "
			    "all clients together)",
			    s->cfg.max_restore);
		return -EFBIG;
	}
	if (cap > c->rcap) {
		if (!(nt = realloc(c->rtext, cap))) {
			restore_forget(c);
			reply_error(c, nlh, -ENOMEM, "no memory for the ruleset text");
			return -ENOMEM;
		}
		s->restore_held += cap - c->rcap;
		c->rtext = nt;
		c->rcap = cap;
	}
	c->rfamily = req->family;
	ctl_copy_text(nlh, c->rtext + c->rlen);
	c->rlen += req->text_len;
	c->rtext[c->rlen] = '\0';
	return 0;
}

static void do_replace(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
		       const struct ctl_request *req)
{
	const char *name = req->name ? req->name : "<control socket>";
	struct box_load l = {0};
	struct box_load_error le;
	struct ctl_error err;
	unsigned flags = 0;
	char *text;
	size_t len;
	int r;

	if (req->rflags & CTL_RF_MORE) { /* held until the message without it */
		if (!restore_append(s, c, nlh, req))
			send_ack(c, nlh);
		return;
	}
	if (c->rtext) { /* the last part of a restore in several messages */
		if (restore_append(s, c, nlh, req))
			return;
		text = c->rtext;
		len = c->rlen;
		c->rtext = NULL;
		s->restore_held -= c->rcap;
		c->rlen = c->rcap = 0;
	} else {
		if (!(text = malloc(req->text_len + 1))) {
			reply_error(c, nlh, -ENOMEM, "no memory for the ruleset text");
			return;
		}
		ctl_copy_text(nlh, text);
		len = req->text_len;
		text[len] = '\0';
	}
	if (req->rflags & CTL_RF_NOFLUSH)
		flags |= RULES_PARSE_NOFLUSH;
	r = box_load_parse(s->box, &l, text, len, name, req->family, flags, &le);
	free(text);
	if (r < 0) {
		box_load_free(&l);
		memset(&err, 0, sizeof(err));
		err.code = r;
		err.line = le.parse.line;
		box_load_error_format(&le, err.msg, sizeof(err.msg));
		send_error(c, nlh, &err);
		return;
	}
	if (box_load_check(s->box, &l, &le) < 0) { /* refused as at a load from a file */
		box_load_free(&l);
		if (le.refused[0]) { /* CT --timeout names no policy of this box */
			reply_error(c, nlh, -EINVAL, "%s: %s", name, le.refused);
			return;
		}
		memset(&err, 0, sizeof(err)); /* -m set / -j SET names no set of it */
		err.code = -EINVAL;
		err.line = le.parse.line;
		box_load_error_format(&le, err.msg, sizeof(err.msg));
		send_error(c, nlh, &err);
		return;
	}
	if (!(req->rflags & CTL_RF_COUNTERS))
		for (int i = 0; i < 2; i++)
			if (l.rs[i])
				rules_zero_counters(l.rs[i]); /* iptables-restore without -c */
	box_load_install(s->box, &l);
	send_ack(c, nlh);
}

/* Text as CTL_RA_TEXT messages of TEXT_CHUNK bytes, then NLMSG_DONE. */
static void send_text(struct client *c, const struct ctl_request *req, const char *text,
		      size_t len)
{
	for (size_t off = 0; off < len; off += TEXT_CHUNK) {
		size_t n = len - off < TEXT_CHUNK ? len - off : TEXT_CHUNK, room;
		void *p = out_room(c, n + 64, &room);
		struct nlmsghdr *m;

		if (!p || !(m = ctl_msg_start(p, room, req->type, NLM_F_MULTI, req->seq,
					      req->family, false)) ||
		    !mnl_attr_put_check(m, room, CTL_RA_TEXT, n, text + off))
			break;
		out_commit(c, m);
	}
	send_done(c, req->seq);
}

/*
 * RULES_RECENT: with CTL_RA_TEXT, write it to list CTL_RA_LIST as to /proc/net/xt_recent/NAME
 * ("+ADDR", "-ADDR", "/") and ACK; without, the list's lines (or, without CTL_RA_LIST, the
 * lists' names) as text.
 */
static void do_recent(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
		      const struct ctl_request *req)
{
	char cmd[128], msg[256];
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	if (req->text_first) {
		if (req->text_len >= sizeof(cmd)) {
			reply_error(c, nlh, -EINVAL, "CTL_RA_TEXT: a command of %zu bytes",
				    req->text_len);
			return;
		}
		ctl_copy_text(nlh, cmd);
		cmd[req->text_len] = '\0';
		cmd[strcspn(cmd, "\n")] = '\0';
		rc = recent_box_write(s->box, req->list, cmd, msg, sizeof(msg));
		if (rc < 0)
			reply_error(c, nlh, rc, "recent %s: %s", req->list, msg);
		else
			send_ack(c, nlh);
		return;
	}
	if (!(f = open_memstream(&text, &len))) {
		reply_error(c, nlh, -ENOMEM, "no memory to print the list");
		return;
	}
	rc = recent_box_print(s->box, req->list, f);
	fclose(f);
	if (rc < 0)
		reply_error(c, nlh, rc, "CTL_RA_LIST: no recent list '%s'", req->list);
	else
		send_text(c, req, text, len);
	free(text);
}

static void do_dump_rules(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
			  const struct ctl_request *req)
{
	struct rules_ruleset *rs = box_ruleset(s->box, req->family);
	unsigned flags = 0;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (rs) {
		if (req->rflags & CTL_RF_COUNTERS)
			flags |= RULES_PRINT_COUNTERS;
		if (req->rflags & CTL_RF_HEADER)
			flags |= RULES_PRINT_HEADER;
		if (!(f = open_memstream(&text, &len))) {
			reply_error(c, nlh, -ENOMEM, "no memory to print the ruleset");
			return;
		}
		rules_print(rs, f, flags);
		fclose(f);
	}
	send_text(c, req, text, len);
	free(text);
}

/* show classifier: one message per chain of the family's ruleset (-t TABLE: that table's). */
static void do_dump_cls(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
			const struct ctl_request *req)
{
	const struct rules_ruleset *rs = box_ruleset(s->box, req->family);
	const struct cls_ruleset *cr = rs ? rs->compiled : NULL;
	int mode = box_classifier(s->box),
	    table = req->table ? rules_table_by_name(req->table) : -1;

	if (req->table && table < 0) {
		reply_error(c, nlh, -ENOENT, "CTL_RA_TABLE: no table '%s'", req->table);
		return;
	}
	for (unsigned t = 0; rs && t < TABLE_MAX; t++) {
		if (!rs->tables[t].present || (table >= 0 && (unsigned)table != t))
			continue;
		for (unsigned i = 0; i < rs->tables[t].nchains; i++) {
			const struct rules_chain *ch = &rs->tables[t].chains[i];
			const struct cls_chain *cc =
			    cr && i < cr->nchains[t] ? &cr->chains[t][i] : NULL;
			struct ctl_cls_chain m = {.rules = ch->nrules};
			struct nlmsghdr *out;
			size_t room;
			void *p = out_room(c, 512, &room);

			snprintf(m.table, sizeof(m.table), "%s", rules_table_name(t));
			snprintf(m.chain, sizeof(m.chain), "%s", ch->name);
			snprintf(m.why, sizeof(m.why), "%s",
				 cc ? (cc->why ? cc->why : "") : "not compiled");
			if (cc && cc->cls) {
				m.engine = CTL_CLS_ENGINE_COMPILED;
				m.why[0] = '\0';
				m.partial = cc->partial;
				m.first_partial = cc->first_partial;
				m.bytes = cc->bytes;
				m.updated = cc->updated;
				m.has_build = cc->build_s >= 0;
				m.build_ns = m.has_build ? (uint64_t)(cc->build_s * 1e9) : 0;
			}
			if (!p ||
			    !(out = ctl_msg_start(p, room, req->type, NLM_F_MULTI, req->seq,
						  req->family, false)) ||
			    ctl_put_cls(out, room, &m,
					mode == CLS_MODE_LINEAR	    ? CTL_CLS_LINEAR
					: mode == CLS_MODE_COMPILED ? CTL_CLS_COMPILED
								    : CTL_CLS_AUTO))
				break;
			out_commit(c, out);
		}
	}
	send_done(c, req->seq);
}

/* The table and chain a request names; replies itself and returns false on error. */
static bool find_chain(struct client *c, const struct nlmsghdr *nlh, const struct ctl_request *req,
		       struct rules_ruleset *rs, int *table, int *chain)
{
	*table = -1;
	*chain = -1;
	if (!req->table)
		return true;
	*table = rules_table_by_name(req->table);
	if (*table < 0 || !rs || !rs->tables[*table].present) {
		reply_error(c, nlh, -ENOENT, "CTL_RA_TABLE: no table '%s'", req->table);
		return false;
	}
	if (req->chain && (*chain = rules_chain_find(&rs->tables[*table], req->chain)) < 0) {
		reply_error(c, nlh, -ENOENT, "CTL_RA_CHAIN: no chain '%s' in table %s", req->chain,
			    req->table);
		return false;
	}
	return true;
}

static void zero_chain(struct rules_chain *ch)
{
	ch->pkts = ch->bytes = 0;
	for (unsigned i = 0; i < ch->nrules; i++)
		ch->rules[i].pkts = ch->rules[i].bytes = 0;
}

static void do_rules(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
		     const struct ctl_request *req)
{
	struct rules_ruleset *rs = box_ruleset(s->box, req->family);
	struct rules_chain *ch;
	int table, chain;

	switch (CTL_MSG(req->type)) {
	case CTL_RULES_REPLACE:
		do_replace(s, c, nlh, req);
		return;
	case CTL_RULES_DUMP:
		do_dump_rules(s, c, nlh, req);
		return;
	case CTL_RULES_RECENT:
		do_recent(s, c, nlh, req);
		return;
	case CTL_RULES_CLASSIFIER:
		do_dump_cls(s, c, nlh, req);
		return;
	case CTL_RULES_ZERO:
		if (!find_chain(c, nlh, req, rs, &table, &chain))
			return;
		if (rs && table < 0)
			rules_zero_counters(rs);
		else if (rs && chain < 0)
			for (unsigned i = 0; i < rs->tables[table].nchains; i++)
				zero_chain(&rs->tables[table].chains[i]);
		else if (rs)
			zero_chain(&rs->tables[table].chains[chain]);
		send_ack(c, nlh);
		return;
	case CTL_RULES_POLICY:
		if (!find_chain(c, nlh, req, rs, &table, &chain))
			return;
		ch = &rs->tables[table].chains[chain];
		if (!ch->builtin) {
			reply_error(c, nlh, -EINVAL, "CTL_RA_CHAIN: %s is not a built-in chain",
				    ch->name);
			return;
		}
		ch->policy = req->policy == NF_ACCEPT ? EXT_ACCEPT : EXT_DROP;
		send_ack(c, nlh);
		return;
	}
}

/* A text command of the sync subsystem; its printed answer goes back as CTL_RA_TEXT. */
static void do_sync(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
		    const struct ctl_request *req)
{
	char cmd[64], *text = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	if (!s->sync_fn) {
		reply_error(c, nlh, -EOPNOTSUPP, "this box has no sync section");
		return;
	}
	if (!req->text_first || req->text_len >= sizeof(cmd)) {
		reply_error(c, nlh, -EINVAL, "CTL_RA_TEXT: a sync command word is needed");
		return;
	}
	ctl_copy_text(nlh, cmd);
	cmd[req->text_len] = '\0';
	if (!(f = open_memstream(&text, &len))) {
		reply_error(c, nlh, -ENOMEM, "no memory for the answer");
		return;
	}
	r = s->sync_fn(s->sync_priv, cmd, f);
	fclose(f);
	if (r < 0) {
		reply_error(c, nlh, r, "sync %s: %s", cmd, text && len ? text : strerror(-r));
		free(text);
		return;
	}
	for (size_t off = 0; off < len; off += TEXT_CHUNK) {
		size_t n = len - off < TEXT_CHUNK ? len - off : TEXT_CHUNK, room;
		void *p = out_room(c, n + 64, &room);
		struct nlmsghdr *m;

		if (!p || !(m = ctl_msg_start(p, room, req->type, NLM_F_MULTI, req->seq,
					      req->family, false)) ||
		    !mnl_attr_put_check(m, room, CTL_RA_TEXT, n, text + off))
			break;
		out_commit(c, m);
	}
	free(text);
	send_done(c, req->seq);
}

/* ---- sets: an ipset(8) command line --------------------------------------------------------- */

static void do_set(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
		   const struct ctl_request *req)
{
	struct set_table *t = set_box_table(s->box, true);
	char *argv[CTL_SET_MAX_ARGS], *text = NULL, *out = NULL, msg[1024];
	size_t len = 0, outlen = 0;
	void *p;
	size_t room;
	struct nlmsghdr *m;
	FILE *f;
	int rc;

	if (req->rflags & CTL_RF_MORE) { /* restore input held until the message without it */
		if (!restore_append(s, c, nlh, req))
			send_ack(c, nlh);
		return;
	}
	if (c->rtext) {
		if (restore_append(s, c, nlh, req))
			return;
		text = c->rtext;
		len = c->rlen;
		c->rtext = NULL;
		s->restore_held -= c->rcap;
		c->rlen = c->rcap = 0;
	} else if (req->text_len) {
		if (!(text = malloc(req->text_len + 1))) {
			reply_error(c, nlh, -ENOMEM, "no memory for the restore input");
			return;
		}
		ctl_copy_text(nlh, text);
		len = req->text_len;
		text[len] = '\0';
	}
	if (!t || !(f = open_memstream(&out, &outlen))) {
		free(text);
		reply_error(c, nlh, -ENOMEM, "no memory for the sets");
		return;
	}
	for (unsigned i = 0; i < req->nargs; i++)
		argv[i] = (char *)req->args[i];
	/* the data-path thread runs this between two packets: the command applies whole for
	 * the next packet */
	rc = set_cmd_line(t, (int)req->nargs, argv, text, len, box_now(s->box), f, msg,
			  sizeof(msg));
	fclose(f);
	free(text);
	for (size_t off = 0; off < outlen; off += TEXT_CHUNK) {
		size_t n = outlen - off < TEXT_CHUNK ? outlen - off : TEXT_CHUNK;

		if (!(p = out_room(c, n + 64, &room)) ||
		    !(m = ctl_msg_start(p, room, req->type, NLM_F_MULTI, req->seq, req->family,
					false)) ||
		    !mnl_attr_put_check(m, room, CTL_SA_OUTPUT, n, out + off))
			break;
		out_commit(c, m);
	}
	free(out);
	if ((p = out_room(c, strlen(msg) + 128, &room)) &&
	    (m = ctl_msg_start(p, room, req->type, NLM_F_MULTI, req->seq, req->family, false)) &&
	    mnl_attr_put_u32_check(m, room, CTL_SA_STATUS, htonl((uint32_t)rc)) &&
	    mnl_attr_put_strz_check(m, room, CTL_SA_MESSAGE, msg))
		out_commit(c, m);
	send_done(c, req->seq);
}

/* ---- reading requests -------------------------------------------------------------------- */

static void handle_message(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh)
{
	struct ctl_request req;
	struct ctl_error err;

	if (c->denied) {
		reply_error(c, nlh, -EPERM, "uid %u may not use this socket", (unsigned)c->uid);
		return;
	}
	if (ctl_parse_request(nlh, &req, &err) < 0) {
		send_error(c, nlh, &err);
		return;
	}
	switch (CTL_SUBSYS(req.type)) {
	case CTL_SUBSYS_CT:
		do_ct(s, c, nlh, &req);
		break;
	case CTL_SUBSYS_RULES:
		do_rules(s, c, nlh, &req);
		break;
	case CTL_SUBSYS_SYNC:
		do_sync(s, c, nlh, &req);
		break;
	case CTL_SUBSYS_SET:
		do_set(s, c, nlh, &req);
		break;
	default:
		do_exp(s, c, nlh, &req);
	}
}

/* Read one record and serve the messages in it. false: the client is gone. */
static bool client_read(struct ctl_server *s, struct client *c)
{
	ssize_t n = recv(c->fd, NULL, 0, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
	const struct nlmsghdr *nlh;
	int rem;

	if (n == 0)
		return false;
	if (n < 0)
		return errno == EAGAIN || errno == EINTR;
	if ((size_t)n > MAX_REQUEST) {
		/* dropped, but its header kept: the answer carries the request's seq, which is
		 * what the client waits for */
		struct nlmsghdr h;
		bool whole = recv(c->fd, &h, sizeof(h), MSG_DONTWAIT) == (ssize_t)sizeof(h);

		reply_error(c, whole ? &h : NULL, -EMSGSIZE, "request of %zd bytes (at most %u)", n,
			    MAX_REQUEST);
		return true;
	}
	if ((size_t)n > s->rxcap) {
		unsigned char *nb = realloc(s->rx, (size_t)n);

		if (!nb)
			return false;
		s->rx = nb;
		s->rxcap = (size_t)n;
	}
	n = recv(c->fd, s->rx, s->rxcap, MSG_DONTWAIT);
	if (n <= 0)
		return n < 0 && (errno == EAGAIN || errno == EINTR);
	rem = (int)n;
	for (nlh = (const void *)s->rx; ctl_nlmsg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem))
		handle_message(s, c, nlh);
	if (rem > 0)
		reply_error(c, NULL, -EINVAL, "%d bytes that are not a netlink message", rem);
	return true;
}

/* Send queued records until the socket is full. false: the client is gone. */
static bool client_flush(struct client *c)
{
	while (c->out) {
		struct rec *r = c->out;
		ssize_t n = send(c->fd, r->data, r->len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
		c->out = r->next;
		if (!c->out)
			c->out_tail = NULL;
		free(r);
	}
	return true;
}

static void accept_clients(struct ctl_server *s)
{
	for (;;) {
		int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct ucred cr;
		socklen_t crl = sizeof(cr);
		struct epoll_event ev;
		struct client *c;

		if (fd < 0)
			return;
		if (s->nclients == s->cfg.max_clients || !(c = calloc(1, sizeof(*c)))) {
			close(fd);
			continue;
		}
		c->fd = fd;
		c->srv = s;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crl) < 0) {
			c->denied = true;
			c->uid = (uid_t)-1;
		} else {
			c->uid = cr.uid;
			c->denied = !(cr.uid == 0 || cr.uid == s->cfg.uid);
		}
		ev.events = EPOLLIN;
		ev.data.ptr = c;
		if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			close(fd);
			free(c);
			continue;
		}
		c->interest = EPOLLIN;
		s->clients[s->nclients++] = c;
	}
}

int ctl_server_process(struct ctl_server *s)
{
	struct epoll_event evs[MAX_EPOLL_EVS];
	int n = epoll_wait(s->epfd, evs, MAX_EPOLL_EVS, 0);

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n; i++) {
		struct client *c = evs[i].data.ptr;

		if (!c) {
			accept_clients(s);
			continue;
		}
		/* a hang-up is noticed by the read (0) or the send (EPIPE) below */
		if ((evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && !client_busy(c) &&
		    !client_read(s, c))
			c->gone = true; /* dropped below, where the list is walked */
	}
	for (unsigned i = 0; i < s->nclients;) {
		struct client *c = s->clients[i];

		if (c->gone) {
			client_drop(s, i);
			continue;
		}
		if (c->subscribed)
			ensure_subscription(s);
		job_step(s, c);
		if (!c->out)
			events_to_out(s, c);
		if (!client_flush(c)) {
			client_drop(s, i);
			continue;
		}
		/* the socket took it all: more events now, but a dump's next batch waits for the
		 * next call (one batch per client per call bounds the data path's wait) */
		if (!c->out && c->job == JOB_NONE) {
			events_to_out(s, c);
			if (!client_flush(c)) {
				client_drop(s, i);
				continue;
			}
		}
		client_update_interest(c);
		i++;
	}
	return 0;
}

/* ---- the server -------------------------------------------------------------------------- */

struct ctl_server *ctl_server_new(struct box *b, const char *path,
				  const struct ctl_server_config *cfg)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ctl_server *s;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	struct stat st;
	int e;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	if (!(s = calloc(1, sizeof(*s))))
		return NULL;
	s->box = b;
	if (cfg)
		s->cfg = *cfg;
	else
		ctl_server_config_default(&s->cfg);
	if (!s->cfg.mode)
		s->cfg.mode = 0600;
	if (!s->cfg.batch)
		s->cfg.batch = CTL_DEFAULT_BATCH;
	if (!s->cfg.max_restore)
		s->cfg.max_restore = MAX_RESTORE;
	if (!s->cfg.event_qlen)
		s->cfg.event_qlen = 4096;
	if (!s->cfg.max_clients)
		s->cfg.max_clients = 64;
	if (s->cfg.uid == (uid_t)-1)
		s->cfg.uid = geteuid();
	snprintf(s->path, sizeof(s->path), "%s", path);
	memcpy(sa.sun_path, path, strlen(path));
	s->lfd = s->epfd = -1;
	if (!(s->clients = calloc(s->cfg.max_clients, sizeof(*s->clients))))
		goto fail;
	/* replace a stale socket, never anything else */
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			errno = EEXIST;
			goto fail;
		}
		unlink(path);
	}
	s->lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->lfd < 0 || bind(s->lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		goto fail;
	/* before listen(): nobody can connect while the file still has the umask's mode */
	if (chmod(path, s->cfg.mode) < 0 || listen(s->lfd, 16) < 0)
		goto fail_unlink;
	if ((s->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
	    epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->lfd, &ev) < 0)
		goto fail_unlink;
	return s;
fail_unlink:
	e = errno;
	unlink(path);
	errno = e;
fail:
	e = errno;
	if (s->lfd >= 0)
		close(s->lfd);
	if (s->epfd >= 0)
		close(s->epfd);
	free(s->clients);
	free(s);
	errno = e;
	return NULL;
}

void ctl_server_free(struct ctl_server *s)
{
	if (!s)
		return;
	while (s->nclients)
		client_drop(s, s->nclients - 1);
	if (s->sub_table && s->sub_table == ct_box_table(s->box))
		ct_event_unsubscribe(s->sub_table, event_cb, s);
	close(s->lfd);
	close(s->epfd);
	unlink(s->path);
	free(s->clients);
	free(s->rx);
	free(s);
}

int ctl_server_fd(const struct ctl_server *s)
{
	return s->epfd;
}

int ctl_server_clients(const struct ctl_server *s)
{
	return (int)s->nclients;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `pkttables ct` (ct_cli.h): conntrack(8)'s command line over the control socket.
 *
 *   command          request(s)                                         prints
 *   -L               CT_GET|DUMP + CTL_A_FILTER                         lines, "N flow entries
 *                                                                        have been shown."
 *   -L expect        EXP_GET|DUMP                                       "N expectations ..."
 *   -G               CT_GET tuple                                       the line
 *   -D, -U           CT_GET|DUMP + filter, then CT_DELETE / CT_NEW per  each entry (as conntrack
 *                    entry by its original tuple (as conntrack 1.4.7)    1.4.7; 0 of them: exit 1)
 *   -I, -A           CT_NEW|CREATE(|EXCL) tuple + attributes            "1 flow entries have been
 *                                                                        created."
 *   -I/-D/-G expect  EXP_NEW / EXP_DELETE / EXP_GET
 *   -F               CT_FLUSH (expect: dump, delete each)
 *   -C, -S           CT_GET_STATS, CT_GET_STATS_CPU
 *   -E               CT_EVENTS + filter, then events until *stop
 *   -R FILE|-        each line a command (-I -A -U -D -F), as -o save prints them, on one
 *                    connection; no summaries, a failed line makes the status 1
 *
 * Options: ct_cli_opts.c; filters the client checks and output types: ct_cli_show.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include <linux/netlink.h>

#include "ct/create.h"
#include "ct/expect.h"
#include "ctl/ct_cli_int.h"

/* ---- talking to the box ------------------------------------------------------------------ */

struct run {
	const struct ctl_ct_cli *o;
	struct ctl_client *cl;
	FILE *out, *err;
	unsigned n;
	/* -D / -U: the entries the dump found (expectations: their tuples, in .orig) */
	struct ctl_ct *found;
	unsigned nfound, capfound;
	bool collect;
	bool xml_head;			/* -o xml: the document was opened */
	struct ctl_cli_labelmap labels; /* -o labels: their names */
	bool labels_read;		/* connlabel.conf was read (or its absence said) */
	struct ctl_stats st;		/* -C, -S */
	char line[2048];
};

static int collect(struct run *r, const struct ctl_ct *c)
{
	if (r->nfound == r->capfound) {
		unsigned cap = r->capfound ? 2 * r->capfound : 64;
		struct ctl_ct *n = realloc(r->found, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		r->found = n;
		r->capfound = cap;
	}
	r->found[r->nfound++] = *c;
	return 0;
}

/* One entry on out, as -o asks. */
static void print_entry(struct run *r, const struct ctl_ct *c, const char *save_cmd)
{
	if ((r->o->fmt & CTL_CLI_FMT_XML) && !r->xml_head && r->o->cmd == CTL_CLI_LIST) {
		fputs(CTL_CLI_XML_HEAD, r->out);
		r->xml_head = true;
	}
	ctl_cli_format(c, r->o->fmt, save_cmd, &r->labels, r->line, sizeof(r->line));
	fprintf(r->out, "%s\n", r->line);
}

static int fail_op(struct run *r, int code, const char *msg)
{
	if (code == -ENOENT && r->o->expect)
		fprintf(r->err,
			CTL_CLI_PREFIX "Operation failed: such expectation doesn't exist\n");
	else if (code == -ENOENT)
		fprintf(r->err, CTL_CLI_PREFIX "Operation failed: such conntrack doesn't exist\n");
	else if (code == -EEXIST && !r->o->expect)
		fprintf(r->err, CTL_CLI_PREFIX
			"Operation failed: Such conntrack exists, try -U to update\n");
	else if (code == -EINVAL) /* conntrack's words for it, whatever the command */
		fprintf(r->err, CTL_CLI_PREFIX "Operation failed: invalid parameters\n");
	else
		fprintf(r->err, CTL_CLI_PREFIX "Operation failed: %s%s%s\n", strerror(-code),
			msg && *msg ? " (" : "", msg && *msg ? msg : "");
	(void)msg;
	return 1;
}

static struct nlmsghdr *start(struct run *r, void *buf, size_t room, uint16_t type, uint16_t flags,
			      uint8_t family)
{
	return ctl_msg_start(buf, room, type, (uint16_t)(NLM_F_REQUEST | NLM_F_ACK | flags),
			     ctl_client_seq(r->cl), family, true);
}

/* The filter of -L/-D/-U/-E: the tuple parts given, mark, zone, status. */
static void put_filter(struct run *r, struct nlmsghdr *nlh, size_t room)
{
	const struct ctl_ct_cli *o = r->o;
	struct ctl_filter f;

	memset(&f, 0, sizeof(f));
	f.orig = o->orig;
	f.orig.have &= ~(o->mask.have & (CTL_T_SRC | CTL_T_DST)); /* ctl_cli_passes */
	f.reply = o->reply;
	f.reply.have &= ~(uint32_t)CTL_T_PROTO;
	if (f.reply.have)
		f.reply.have |= o->orig.have & CTL_T_PROTO;
	if ((o->opts & OB(O_MARK)) && o->cmd != CTL_CLI_UPDATE) {
		f.have |= CTL_FH_MARK;
		f.mark = o->mark & o->mark_mask;
		f.mark_mask = o->mark_mask;
	}
	if ((o->opts & OB(O_STATUS)) && o->cmd != CTL_CLI_UPDATE) {
		f.have |= CTL_FH_STATUS;
		f.status = f.status_mask = o->status;
	}
	if (f.orig.have || f.reply.have || f.have)
		ctl_put_filter(nlh, room, &f);
}

static int on_entry(const struct nlmsghdr *nlh, void *priv)
{
	struct run *r = priv;
	struct ctl_error e;
	struct ctl_ct c;

	if (nlh->nlmsg_type != CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_NEW) || ctl_parse_ct(nlh, &c, &e))
		return 0;
	if (!ctl_cli_passes(r->o, &c))
		return 0;
	if (r->collect)
		return collect(r, &c);
	print_entry(r, &c, "-A");
	r->n++;
	return 0;
}

static int on_exp(const struct nlmsghdr *nlh, void *priv)
{
	struct run *r = priv;
	struct ctl_error e;
	struct ctl_exp x;

	if (nlh->nlmsg_type != CTL_TYPE(CTL_SUBSYS_EXP, CTL_EXP_NEW) || ctl_parse_exp(nlh, &x, &e))
		return 0;
	if (r->collect) {
		struct ctl_ct c = {.orig = x.tuple.t};

		return collect(r, &c);
	}
	ctl_exp_format(&x, r->line, sizeof(r->line));
	fprintf(r->out, "%s\n", r->line);
	r->n++;
	return 0;
}

static int request(struct run *r, const struct nlmsghdr *nlh, ctl_msg_cb cb)
{
	char msg[512];

	return ctl_client_request(r->cl, nlh, cb, r, msg, sizeof(msg), NULL);
}

static int request_msg(struct run *r, const struct nlmsghdr *nlh, ctl_msg_cb cb, char *msg,
		       size_t len)
{
	return ctl_client_request(r->cl, nlh, cb, r, msg, len, NULL);
}

/* A tuple as a lookup key (every part its protocol has). */
static struct ctl_tuple key(const struct ct_tuple *t)
{
	struct ctl_tuple k = {.t = *t, .have = CTL_T_SRC | CTL_T_DST | CTL_T_PROTO};
	uint8_t kind = ctl_cli_proto_kind(t->l4proto);

	if (kind == P_PORTS || kind == P_TCP)
		k.have |= CTL_T_SPORT | CTL_T_DPORT;
	else if (ICMPISH(kind))
		k.have |= CTL_T_SPORT | CTL_T_ICMP_TYPE | CTL_T_ICMP_CODE;
	if (t->zone)
		k.have |= CTL_T_ZONE;
	return k;
}

/* Every expectation of the family, to on_exp: printed, or their tuples collected. */
static int dump_exp(struct run *r, bool collect)
{
	char buf[256];

	r->collect = collect;
	return request(r,
		       start(r, buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_EXP, CTL_EXP_GET), NLM_F_DUMP,
			     r->o->family),
		       on_exp);
}

/* EXP_GET or EXP_DELETE of the expectation of tuple t, in a message of family. */
static int exp_by_tuple(struct run *r, uint16_t type, const struct ct_tuple *t, uint8_t family,
			ctl_msg_cb cb)
{
	char buf[1024];
	struct nlmsghdr *nlh =
	    start(r, buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_EXP, type), 0, family);
	struct ctl_tuple k = key(t);

	ctl_put_tuple(nlh, sizeof(buf), CTA_EXPECT_TUPLE, &k);
	return request(r, nlh, cb);
}

static int dump(struct run *r, bool collect)
{
	char buf[2048];
	uint16_t type = (r->o->opts & OB(O_ZERO)) ? CTL_CT_GET_CTRZERO : CTL_CT_GET;
	struct nlmsghdr *nlh =
	    start(r, buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_CT, type), NLM_F_DUMP, r->o->family);

	put_filter(r, nlh, sizeof(buf));
	r->collect = collect;
	return request(r, nlh, on_entry);
}

static int do_list(struct run *r)
{
	int e;

	/* a box's data path runs between requests: no entry is half made or half gone then */
	if (r->o->empty_table) {
		fprintf(r->err, CTL_CLI_PREFIX "0 flow entries have been shown.\n");
		return 0;
	}
	if (r->o->expect) {
		if ((e = dump_exp(r, false)) < 0)
			return fail_op(r, e, NULL);
		fprintf(r->err, CTL_CLI_PREFIX "%u expectations have been shown.\n", r->n);
		return 0;
	}
	if ((e = dump(r, false)) < 0)
		return fail_op(r, e, NULL);
	if (r->xml_head)
		fputs(CTL_CLI_XML_TAIL, r->out);
	fprintf(r->err, CTL_CLI_PREFIX "%u flow entries have been shown.\n", r->n);
	return 0;
}

static int get_one(struct run *r, const struct ct_tuple *t)
{
	char buf[1024];
	struct nlmsghdr *nlh =
	    start(r, buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_GET), 0, t->family);
	struct ctl_tuple k = key(t);

	ctl_put_tuple(nlh, sizeof(buf), CTA_TUPLE_ORIG, &k);
	r->collect = false;
	return request(r, nlh, on_entry);
}

static int do_get(struct run *r)
{
	const struct ctl_ct_cli *o = r->o;
	int e;

	if (o->expect) {
		if ((e = exp_by_tuple(r, CTL_EXP_GET, &o->orig.t, o->family, on_exp)) < 0)
			return fail_op(r, e, NULL);
		fprintf(r->err, CTL_CLI_PREFIX "%u expectations have been shown.\n", r->n);
		return 0;
	}
	if (o->get_by_reply)
		return fail_op(r, -EINVAL, NULL);
	if ((e = get_one(r, &o->orig.t)) < 0)
		return fail_op(r, e, NULL);
	fprintf(r->err, CTL_CLI_PREFIX "%u flow entries have been shown.\n", r->n);
	return 0;
}

/* -U: the entry e with the changes asked; false when it would not change (not sent, not
 * counted, as conntrack 1.4.7: "-U -m 42" of an entry whose mark is 42 updates nothing). */
static bool update_of(const struct ctl_ct_cli *o, const struct ctl_ct *e, struct ctl_ct *c)
{
	bool changed = false;

	memset(c, 0, sizeof(*c));
	c->have = CTL_C_ORIG;
	c->orig = e->orig;
	if (o->opts & OB(O_MARK)) {
		c->have |= CTL_C_MARK;
		c->mark = (e->mark & ~o->mark_mask) ^ o->mark;
		changed |= c->mark != e->mark;
	}
	if (o->opts & OB(O_TIMEOUT)) {
		c->have |= CTL_C_TIMEOUT;
		c->timeout = o->timeout;
		changed = true; /* a timeout given is always set anew */
	}
	if (o->opts & OB(O_STATUS)) {
		/* conntrack ORs the bits named into the entry's: none is cleared */
		c->have |= CTL_C_STATUS;
		c->status = e->status | o->status;
		changed |= c->status != e->status;
	}
	if ((o->opts & OB(O_STATE)) && e->orig.l4proto == IPPROTO_TCP) {
		c->have |= CTL_C_PROTOINFO;
		c->proto_state = o->state;
		changed |= !(e->have & CTL_C_PROTOINFO) || e->proto_state != o->state;
	}
	if (o->opts & (OB(O_LABEL_ADD) | OB(O_LABEL_DEL))) {
		/* the whole new set, as conntrack sends it */
		c->have |= CTL_C_LABELS;
		for (int i = 0; i < 4; i++) {
			uint32_t was = (e->have & CTL_C_LABELS) ? e->labels[i] : 0;

			c->labels[i] = (was | o->label_add[i]) & ~o->label_del[i];
			changed |= c->labels[i] != was;
		}
	}
	return changed;
}

/* -D and -U: every entry the filter takes, by its original tuple, as conntrack 1.4.7 does. */
static int do_each(struct run *r, bool del)
{
	const struct ctl_ct_cli *o = r->o;
	unsigned done = 0;
	int e;

	if ((e = dump(r, true)) < 0)
		return fail_op(r, e, NULL);
	for (unsigned i = 0; i < r->nfound; i++) {
		const struct ctl_ct *f = &r->found[i];
		char buf[1024];
		struct nlmsghdr *nlh = start(
		    r, buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_CT, del ? CTL_CT_DELETE : CTL_CT_NEW),
		    0, f->orig.family);
		struct ctl_tuple k = key(&f->orig);
		struct ctl_ct c;

		if (del) {
			ctl_put_tuple(nlh, sizeof(buf), CTA_TUPLE_ORIG, &k);
		} else {
			if (!update_of(o, f, &c))
				continue;
			ctl_put_ct(nlh, sizeof(buf), &c);
		}
		if (request(r, nlh, NULL) < 0)
			continue;
		if (del)
			print_entry(r, f, "-D"); /* as it was, when it went */
		else
			get_one(r, &f->orig); /* as it is now */
		done++;
	}
	if (o->batch)
		return 0; /* conntrack -R counts nothing */
	fprintf(r->err, CTL_CLI_PREFIX "%u flow entries have been %s.\n", done,
		del ? "deleted" : "updated");
	return done ? 0 : 1;
}

/*
 * -I / -A's entry: the original tuple given, or the inverse of the reply given alone
 * (-I -r A -q B ...); the reply given, else the inverse of the original. --src-nat and
 * --dst-nat go as CTA_NAT_SRC / CTA_NAT_DST (one address, the port when given), as conntrack
 * sends them: the box binds the entry to them, which makes its reply tuple.
 */
static void create_tuples(const struct ctl_ct_cli *o, struct ctl_ct *c)
{
	struct ct_tuple inv;

	c->orig = o->orig.t;
	if (o->from_reply) {
		struct ct_tuple rep = o->reply.t;

		rep.l4proto = o->orig.t.l4proto;
		rep.zone = o->orig.t.zone;
		if (ct_tuple_invert(&rep, &c->orig) < 0)
			c->orig = rep;
		c->orig.zone = o->orig.t.zone;
		c->reply = rep;
		c->have |= CTL_C_REPLY;
		return;
	}
	if (ct_tuple_invert(&o->orig.t, &inv) < 0)
		inv = o->orig.t;
	c->reply = inv;
	/* conntrack: without -r or -q the reply is the original's inverse, whatever
	 * --reply-port-src/dst say (so a saved NAT-ed entry's translated ports do not load back) */
	if (!(o->reply.have & (CTL_T_SRC | CTL_T_DST)))
		return;
	if (o->reply.have & CTL_T_SRC)
		c->reply.src = o->reply.t.src;
	if (o->reply.have & CTL_T_DST)
		c->reply.dst = o->reply.t.dst;
	if (o->reply.have & CTL_T_SPORT)
		c->reply.s.port = o->reply.t.s.port;
	if (o->reply.have & CTL_T_DPORT)
		c->reply.d.port = o->reply.t.d.port;
	if (o->reply.have & (CTL_T_SRC | CTL_T_DST | CTL_T_SPORT | CTL_T_DPORT))
		c->have |= CTL_C_REPLY;
}

static void create_nat(const struct ctl_ct_cli *o, struct ctl_ct *c)
{
	const struct ctl_cli_nat *want[2] = {&o->snat, &o->dnat};

	for (int i = 0; i < 2; i++) {
		struct ctl_nat *n = &c->nat[i];

		if (!(o->opts & OB(i ? O_DST_NAT : O_SRC_NAT)))
			continue;
		c->have |= i ? CTL_C_NAT_DST : CTL_C_NAT_SRC;
		n->family = want[i]->family;
		n->min = n->max = want[i]->addr;
		n->has_port = want[i]->has_port;
		n->min_port = n->max_port = want[i]->port;
	}
}

static int do_create(struct run *r)
{
	const struct ctl_ct_cli *o = r->o;
	char buf[2048], msg[512];
	struct nlmsghdr *nlh;
	int e;

	if (o->expect) {
		struct ctl_exp x;

		memset(&x, 0, sizeof(x));
		x.master = key(&o->orig.t);
		x.tuple = o->tuple;
		x.tuple.t.l4proto = o->orig.t.l4proto;
		x.tuple.have |= CTL_T_PROTO;
		if (ctl_cli_proto_kind(o->orig.t.l4proto) != P_ANY)
			x.tuple.have |= CTL_T_SPORT | CTL_T_DPORT;
		x.mask = o->mask;
		x.mask.t.l4proto = o->orig.t.l4proto;
		x.mask.have |= CTL_T_PROTO | CTL_T_DPORT;
		x.mask.t.d.all = 0xffff;
		if (!(o->mask.have & CTL_T_SPORT) && ctl_cli_proto_kind(o->orig.t.l4proto) != P_ANY)
			x.mask.have |= CTL_T_SPORT;
		x.timeout = o->timeout;
		x.have = CTL_X_MASTER | CTL_X_TUPLE | CTL_X_MASK | CTL_X_TIMEOUT;
		nlh = start(r, buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_EXP, CTL_EXP_NEW),
			    NLM_F_CREATE | NLM_F_EXCL, o->family);
		ctl_put_exp(nlh, sizeof(buf), &x);
		if ((e = request_msg(r, nlh, NULL, msg, sizeof(msg))) < 0)
			return fail_op(r, e, NULL);
		return 0; /* conntrack 1.4.7 says nothing when it made one */
	} else {
		struct ctl_ct c;
		bool add = o->cmd == CTL_CLI_ADD;

		memset(&c, 0, sizeof(c));
		c.have = CTL_C_ORIG | CTL_C_TIMEOUT;
		create_tuples(o, &c);
		create_nat(o, &c);
		c.timeout = o->timeout;
		if (o->opts & OB(O_STATUS)) {
			c.have |= CTL_C_STATUS;
			c.status = o->status;
		}
		if (o->opts & OB(O_MARK)) {
			c.have |= CTL_C_MARK;
			c.mark = o->mark;
		}
		if (o->opts & OB(O_STATE)) {
			c.have |= CTL_C_PROTOINFO;
			c.proto_state = o->state;
		}
		if (o->zone) {
			c.have |= CTL_C_ZONE;
			c.zone = o->zone;
		}
		if (o->helper) {
			c.have |= CTL_C_HELPER;
			snprintf(c.helper, sizeof(c.helper), "%s", o->helper);
		}
		if (o->opts & OB(O_LABEL_ADD)) {
			c.have |= CTL_C_LABELS;
			memcpy(c.labels, o->label_add, sizeof(c.labels));
		}
		/* -A as -I, but an entry that exists is no failure (conntrack 1.4.7) */
		nlh = start(r, buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_NEW),
			    NLM_F_CREATE | NLM_F_EXCL, c.orig.family);
		if (ctl_put_ct(nlh, sizeof(buf), &c) < 0)
			return fail_op(r, -EMSGSIZE, NULL);
		e = request_msg(r, nlh, NULL, msg, sizeof(msg));
		if (e < 0 && !(add && e == -EEXIST))
			return fail_op(r, e, NULL);
		if (!o->batch)
			fprintf(r->err, CTL_CLI_PREFIX "%d flow entries have been %s.\n",
				e < 0 ? 0 : 1, add ? "added" : "created");
		return 0;
	}
}

static int delete_exp(struct run *r, const struct ct_tuple *t)
{
	return exp_by_tuple(r, CTL_EXP_DELETE, t, t->family, NULL);
}

static int do_delete(struct run *r)
{
	int e;

	if (!r->o->expect)
		return do_each(r, true);
	if ((e = delete_exp(r, &r->o->orig.t)) < 0)
		return fail_op(r, e, NULL);
	fprintf(r->err, CTL_CLI_PREFIX "1 expectations have been deleted.\n");
	return 0;
}

static int do_flush(struct run *r)
{
	char buf[256];
	int e;

	if (r->o->expect) {
		if ((e = dump_exp(r, true)) < 0)
			return fail_op(r, e, NULL);
		for (unsigned i = 0; i < r->nfound; i++)
			delete_exp(r, &r->found[i].orig);
		fprintf(r->err, CTL_CLI_PREFIX "expectation table has been emptied.\n");
		return 0;
	}
	e = request(
	    r, start(r, buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_FLUSH), 0, r->o->family),
	    NULL);
	if (e < 0)
		return fail_op(r, e, NULL);
	fprintf(r->err, CTL_CLI_PREFIX "connection tracking table has been emptied.\n");
	return 0;
}

static int on_stats(const struct nlmsghdr *nlh, void *priv)
{
	struct run *r = priv;
	struct ctl_error e;

	ctl_parse_stats(nlh, &r->st, &e);
	return 0;
}

static int do_stats(struct run *r, bool count)
{
	char buf[256];
	int e;

	if (count && r->o->expect) {
		if ((e = dump_exp(r, true)) < 0)
			return fail_op(r, e, NULL);
		fprintf(r->out, "%u\n", r->nfound);
		return 0;
	}
	e = request(r,
		    start(r, buf, sizeof(buf),
			  CTL_TYPE(CTL_SUBSYS_CT, count ? CTL_CT_GET_STATS : CTL_CT_GET_STATS_CPU),
			  0, AF_UNSPEC),
		    on_stats);
	if (e < 0)
		return fail_op(r, e, NULL);
	if (count) {
		fprintf(r->out, "%u\n", r->st.entries);
		return 0;
	}
	/* one data path thread: one "cpu", in conntrack's layout */
	fprintf(
	    r->out,
	    "cpu=%-4u\tfound=%llu invalid=%llu insert=%llu insert_failed=%llu drop=%llu "
	    "early_drop=%llu error=%u search_restart=%llu clash_resolve=%llu chaintoolong=%u \n",
	    0u, (unsigned long long)r->st.found, (unsigned long long)r->st.invalid,
	    (unsigned long long)r->st.insert, (unsigned long long)r->st.insert_failed,
	    (unsigned long long)r->st.drop, (unsigned long long)r->st.early_drop, 0u,
	    (unsigned long long)r->st.search_restart, (unsigned long long)r->st.clash, 0u);
	return 0;
}

/* ---- events ------------------------------------------------------------------------------ */

static int on_event(const struct nlmsghdr *nlh, void *priv)
{
	struct run *r = priv;
	struct ctl_error e;
	struct ctl_ct c;
	uint64_t lost;
	static const char *const event_name[] = {"[NEW]", "[UPDATE]", "[DESTROY]"};
	static const char *const save_cmd[] = {"-A", "-U", "-D"};
	int kind;

	if (nlh->nlmsg_type == CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_EVENTS_LOST) &&
	    ctl_get_u64(nlh, CTL_A_EVENTS_LOST, &lost)) {
		fprintf(r->err,
			"WARNING: We have hit ENOBUFS! We are losing events.\n"
			"%llu events lost so far: this listener is too slow.\n",
			(unsigned long long)lost);
		return 0;
	}
	if (ctl_parse_ct(nlh, &c, &e) < 0 || !ctl_cli_passes(r->o, &c))
		return 0;
	if (CTL_MSG(nlh->nlmsg_type) != CTL_CT_DELETE)
		c.have &=
		    ~(uint32_t)CTL_C_TSTAMP; /* as the kernel's: only destroy events carry it */
	if (CTL_MSG(nlh->nlmsg_type) == CTL_CT_DELETE)
		kind = 2;
	else if (nlh->nlmsg_flags & (NLM_F_CREATE | NLM_F_EXCL))
		kind = 0;
	else
		kind = 1;
	if ((r->o->fmt & CTL_CLI_FMT_TIMESTAMP) && !(r->o->fmt & CTL_CLI_FMT_XML)) {
		struct timespec ts;

		/* conntrack's: when this listener printed it (the CLI's clock, not the box's) */
		clock_gettime(CLOCK_REALTIME, &ts);
		fprintf(r->out, "[%-.8lld.%-.6ld]\t", (long long)ts.tv_sec, ts.tv_nsec / 1000);
	}
	ctl_cli_format(&c, r->o->fmt | CTL_FMT_EVENT, save_cmd[kind], &r->labels, r->line,
		       sizeof(r->line));
	if (r->o->fmt & (CTL_CLI_FMT_SAVE | CTL_CLI_FMT_XML))
		fprintf(r->out, "%s\n", r->line);
	else
		fprintf(r->out, "%9s %s\n", event_name[kind], r->line);
	fflush(r->out);
	r->n++;
	return 0;
}

static int do_event(struct run *r, volatile sig_atomic_t *stop)
{
	char buf[2048];
	struct nlmsghdr *nlh =
	    start(r, buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_EVENTS), 0, r->o->family);
	int e;

	if (r->o->event_mask)
		mnl_attr_put_u32(nlh, CTL_A_EVENT_MASK, htonl(r->o->event_mask));
	put_filter(r, nlh, sizeof(buf));
	if ((e = request(r, nlh, NULL)) < 0)
		return fail_op(r, e, NULL);
	while (!stop || !*stop) {
		e = ctl_client_recv(r->cl, on_event, r, 200);
		if (e == -ECONNRESET) {
			break;
		}
		if (e < 0 && e != -EINTR) {
			fprintf(r->err, CTL_CLI_PREFIX "Operation failed: %s\n", strerror(-e));
			break;
		}
	}
	fprintf(r->err, CTL_CLI_PREFIX "%u flow events have been shown.\n", r->n);
	return 0;
}

static void usage(FILE *f)
{
	fputs("Command line interface for the connection tracking system of a pkttables box.\n"
	      "Usage: pkttables ct [--socket PATH | --name BOX] [commands] [options]\n"
	      "   (the commands, options and output of conntrack(8), version 1.4.7)\n\n"
	      "Commands:\n"
	      "  -L [table] [options]\t\tList conntrack or expectation table\n"
	      "  -G [table] parameters\t\tGet conntrack or expectation\n"
	      "  -D [table] parameters\t\tDelete conntrack or expectation\n"
	      "  -I [table] parameters\t\tCreate a conntrack or expectation\n"
	      "  -U [table] parameters\t\tUpdate a conntrack\n"
	      "  -E [table] [options]\t\tShow events\n"
	      "  -F [table]\t\t\tFlush table\n"
	      "  -C [table]\t\t\tShow counter\n"
	      "  -S\t\t\t\tShow statistics\n\n"
	      "Tables: conntrack, expect\n\n"
	      "Options: -s -d -r -q -p -f -t -u -m -w --sport --dport --reply-port-src\n"
	      "  --reply-port-dst --state --icmp-type --icmp-code --icmp-id -o extended,id\n"
	      "  -e NEW,UPDATES,DESTROY --tuple-src --tuple-dst --mask-src --mask-dst\n"
	      "  --tuple-port-src --tuple-port-dst --mask-port-src --mask-port-dst\n"
	      "  --socket PATH, --name BOX   the box (default: the box named \"default\")\n",
	      f);
}

/* The box's client for o (its --socket/--name), or NULL with the message and *status. */
static struct ctl_client *open_box(const struct ctl_ct_cli *o, FILE *err, int *status)
{
	struct ctl_client *cl;
	char path[256];
	int e;

	if ((e = ctl_socket_path(o->socket, path, sizeof(path))) < 0) {
		fprintf(err, CTL_CLI_PREFIX "Bad parameter `%s': %s\n", o->socket ? o->socket : "",
			strerror(-e));
		*status = 2;
		return NULL;
	}
	if (!(cl = ctl_client_open(path))) {
		fprintf(err, CTL_CLI_PREFIX "Can't open handler: %s: %s\n", path, strerror(errno));
		*status = 1;
	}
	return cl;
}

/* One command on r's connection; r's per-command state is reset. The exit status. */
static int run_one(struct run *r, const struct ctl_ct_cli *o, volatile sig_atomic_t *stop)
{
	int status;

	r->o = o;
	r->n = r->nfound = 0;
	r->collect = r->xml_head = false;
	if ((o->fmt & CTL_CLI_FMT_LABELS) && !r->labels_read) {
		int e = ctl_cli_labelmap_load(&r->labels);

		/* conntrack says so (its perror), once */
		if (e < 0)
			fprintf(r->err, "nfct_labelmap_new: %s\n", strerror(-e));
		r->labels_read = true;
	}
	switch (o->cmd) {
	case CTL_CLI_LIST:
		status = do_list(r);
		break;
	case CTL_CLI_GET:
		status = do_get(r);
		break;
	case CTL_CLI_DELETE:
		status = do_delete(r);
		break;
	case CTL_CLI_CREATE:
	case CTL_CLI_ADD:
		status = do_create(r);
		break;
	case CTL_CLI_UPDATE:
		status = do_each(r, false);
		break;
	case CTL_CLI_FLUSH:
		status = do_flush(r);
		break;
	case CTL_CLI_COUNT:
		status = do_stats(r, true);
		break;
	case CTL_CLI_STATS:
		status = do_stats(r, false);
		break;
	case CTL_CLI_EVENT:
		status = do_event(r, stop);
		break;
	default:
		status = 2;
	}
	return status;
}

int ctl_ct_cli_run(const struct ctl_ct_cli *o, FILE *out, FILE *err, volatile sig_atomic_t *stop)
{
	struct run r = {.o = o, .out = out, .err = err};
	int status = 0;

	if (o->cmd == CTL_CLI_HELP) {
		usage(out);
		return 0;
	}
	if (o->cmd == CTL_CLI_VERSION) {
		fprintf(out, "conntrack v1.4.7 (conntrack-tools) (pkttables ct)\n");
		return 0;
	}
	if (!(r.cl = open_box(o, err, &status)))
		return status;
	status = run_one(&r, o, stop);
	free(r.found);
	ctl_client_close(r.cl);
	return status;
}

int ctl_cli_run_each(const struct ctl_ct_cli *const *cmds, size_t n, FILE *out, FILE *err,
		     volatile sig_atomic_t *stop)
{
	struct run r = {.out = out, .err = err};
	int status = 0;

	if (!n || !(r.cl = open_box(cmds[0], err, &status)))
		return status;
	for (size_t i = 0; i < n; i++)
		if (run_one(&r, cmds[i], stop))
			status = 1;
	free(r.found);
	ctl_client_close(r.cl);
	return status;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Conntrack in a box: the "conntrack" plug-in (engine/box.h, "plug-ins"). Its slot holds the
 * table, the defragmenter and the IPv6 datagrams reassembled and still in the box. Hook
 * functions at the kernel's priorities:
 *
 *   PREROUTING  BOX_PRIO_DEFRAG     defrag_hook: held fragments are stolen, refused ones dropped
 *   OUTPUT      BOX_PRIO_DEFRAG     (BOX_DROP_DEFRAG), a complete datagram replaces the packet
 *   PREROUTING  BOX_PRIO_CONNTRACK  ct_in (from outside: checksums verified)
 *   OUTPUT      BOX_PRIO_CONNTRACK  ct_in (local)
 *   INPUT       300                 ct_helper_run: the entry's helper reads the payload
 *   POSTROUTING 300                 ct_helper_run
 *   INPUT       BOX_PRIO_CONFIRM    ct_confirm
 *   POSTROUTING BOX_PRIO_CONFIRM    ct_confirm
 *   transmit    0                   tx_hook: an IPv6 shadow leaves as its original fragments
 *                                   (registered only while one is in the box)
 *
 * A reassembled IPv4 datagram needs no record: it carries frag_max_size, and the box cuts it
 * again to min(mtu, frag_max_size) on transmit. An IPv6 shadow is remembered (struct ct_reasm,
 * found by the packet's address) until it leaves:
 *
 *   xmit     ct_defrag6_sync into each original, the originals leave, the shadow is freed
 *   deliver  the shadow is delivered, the originals freed (release)
 *   drop     all freed, one drop counted (release)
 *
 * The packet keeps its conntrack reference until the box is done with it (xmit, deliver, any
 * drop: release), as an skb keeps its nfct; so an entry made for a packet dropped before
 * confirmation is freed at once. A looped-back packet still carries its entry and is not
 * tracked twice. After the release pkt->ct stays readable while the entry is in the table.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ct/ct_int.h"
#include "ct/ct_plugin.h"
#include "ct/defrag.h"
#include "ct/helper.h"
#include "ct/prefetch.h"

#define BOX_PRIO_CT_HELPER 300 /* NF_IP_PRI_CONNTRACK_HELPER: after SNAT (100) */

/* An IPv6 shadow in the box and the original fragments it stands for. */
struct ct_reasm {
	struct ct_reasm *next;
	struct pkt *pkt;
	struct pkt **orig; /* in arrival order */
	unsigned norig;
};

struct ct_box {
	struct box *box;
	struct ct_table *table;
	struct ct_defrag *defrag;
	struct ct_reasm *reasm;
	bool tx_on;		/* tx_hook registered: only while reasm holds a record */
	struct ct_burst *burst; /* the last burst's hints (prefetch.h); made at the first */
};

_Static_assert(CT_BURST_MAX >= BOX_BURST_MAX, "a hint for every packet of a burst");

static int tx_hook(void *priv, struct box_hook_state *st, struct pkt *p);

/* The transmit hook is there only while an IPv6 shadow is in the box, so that every other
 * packet's way out costs nothing. 0 or -ENOSPC. */
static int tx_sync(struct ct_box *c)
{
	int rc = 0;

	if (c->reasm && !c->tx_on)
		rc = box_register_tx_hook(c->box, AF_INET6, 0, tx_hook, c);
	else if (!c->reasm && c->tx_on)
		box_unregister_tx_hook(c->box, AF_INET6, tx_hook, c);
	else
		return 0;
	if (!rc)
		c->tx_on = !c->tx_on;
	return rc;
}

/* ---- reassembled IPv6 datagrams ---------------------------------------------------------- */

static struct ct_reasm *reasm_take(struct ct_box *c, const struct pkt *p)
{
	for (struct ct_reasm **pp = &c->reasm; *pp; pp = &(*pp)->next) {
		struct ct_reasm *r = *pp;

		if (r->pkt == p) {
			*pp = r->next;
			return r;
		}
	}
	return NULL;
}

/* Free a record and the originals it still holds (not the shadow itself). */
static void reasm_free(struct ct_reasm *r)
{
	if (!r)
		return;
	for (unsigned i = 0; i < r->norig; i++)
		pkt_free(r->orig[i]);
	free(r->orig);
	free(r);
}

/* ---- hook functions ---------------------------------------------------------------------- */

static int defrag_hook(void *priv, struct box_hook_state *st, struct pkt *p)
{
	struct ct_box *c = priv;
	const struct box_iface *ifc;
	struct ct_defrag_out out;
	struct ct_reasm *r;

	if (!p->info.is_fragment || st->in == BOX_IFINDEX_LO)
		return EXT_ACCEPT; /* not one; looped back: reassembled at OUTPUT already */
	ifc = st->in > 0 ? box_iface(st->box, st->in) : NULL;
	switch (
	    ct_defrag_in(c->defrag, p, ifc ? ifc->link : PKT_LINK_RAW, box_now(st->box), &out)) {
	case CT_DEFRAG_PASS:
		return EXT_ACCEPT;
	case CT_DEFRAG_HELD:
		return EXT_STOLEN;
	case CT_DEFRAG_DROP:
		st->drop.reason = out.reason;
		return box_hook_drop(st, BOX_DROP_DEFRAG, -1);
	case CT_DEFRAG_DONE:
		break;
	}
	out.pkt->frag_max_size = out.frag_max_size;
	st->replaced = out.pkt;
	if (!out.orig)
		return EXT_ACCEPT;
	r = calloc(1, sizeof(*r));
	if (!r) {
		for (unsigned i = 0; i < out.norig; i++)
			pkt_free(out.orig[i]);
		free(out.orig);
		st->drop.reason = CT_DEFRAG_ST_NOMEM;
		return box_hook_drop(st, BOX_DROP_DEFRAG, -1);
	}
	*r = (struct ct_reasm){
	    .next = c->reasm, .pkt = out.pkt, .orig = out.orig, .norig = out.norig};
	c->reasm = r;
	if (tx_sync(c) < 0) {
		c->reasm = r->next;
		reasm_free(r);
		st->drop.reason = CT_DEFRAG_ST_NOMEM;
		return box_hook_drop(st, BOX_DROP_DEFRAG, -1);
	}
	return EXT_ACCEPT;
}

static int hook_in(void *priv, struct box_hook_state *st, struct pkt *p)
{
	struct ct_box *c = priv;

	if (ct_in_hinted(c->table, p, st->hook == HOOK_PREROUTING, 0, box_now(st->box), c->burst,
			 box_burst_index(st->box)) < 0)
		return box_hook_drop(st, BOX_DROP_CONNTRACK, -1);
	return EXT_ACCEPT;
}

/* hook_confirm past its first test (out of line: the common packet needs no stack frame) */
static __attribute__((noinline)) int confirm_now(struct ct_box *c, struct box_hook_state *st,
						 struct pkt *p)
{
	if (ct_confirm(c->table, p, box_now(st->box)) == -ENOMEM)
		return box_hook_drop(st, BOX_DROP_CONNTRACK, -1);
	return EXT_ACCEPT;
}

static int hook_confirm(void *priv, struct box_hook_state *st, struct pkt *p)
{
	const struct ct_entry *e = ct_pkt_entry(p);

	/* a confirmed connection's packet with no event to deliver: nothing to do */
	if (!e || ((e->status & CT_S_CONFIRMED) && !e->events))
		return EXT_ACCEPT;
	return confirm_now(priv, st, p);
}

/* The entry's helper reads the payload (nf_conntrack's helper hook, priority 300) */
static int hook_helper(void *priv, struct box_hook_state *st, struct pkt *p)
{
	struct ct_box *c = priv;
	const struct ct_entry *e = ct_pkt_entry(p);
	const char *why;

	/* no helper extension: no helper (ct_helper_run's first test; an entry with only NAT's
	 * binding or counters has extensions, but nothing to run) */
	if (!e || !ct_ext_get(e, CT_EXT_HELPER))
		return EXT_ACCEPT;
	if (ct_helper_run(c->table, p, box_now(st->box), &why) < 0)
		return box_hook_drop(st, BOX_DROP_HOOK, -1);
	return EXT_ACCEPT;
}

/* An IPv6 shadow leaves: what the rules changed goes into the original fragments, which leave
 * instead (or all is dropped when the largest does not fit or they no longer line up). */
static int tx_hook(void *priv, struct box_hook_state *st, struct pkt *p)
{
	struct ct_box *c = priv;
	struct ct_reasm *r = c->reasm ? reasm_take(c, p) : NULL;
	struct pkt **orig;
	unsigned n;

	if (!r)
		return EXT_ACCEPT;
	tx_sync(c); /* unregistering cannot fail; the runner stops after this function */
	if (!box_iface(st->box, st->out)) {
		reasm_free(r);
		return box_hook_drop(st, BOX_DROP_NOROUTE, -1);
	}
	if (p->frag_max_size > st->mtu) {
		/* the largest fragment does not fit: Packet Too Big (forwarded ones were refused
		 * before FORWARD already) */
		reasm_free(r);
		if (p->iif)
			box_send_icmp_error_rest(st->box, p, 2, 0, st->mtu);
		return box_hook_drop(st, BOX_DROP_MTU, -1);
	}
	for (unsigned i = 0; i < r->norig; i++) {
		if (ct_defrag6_sync(p, r->orig[i]) < 0) {
			reasm_free(r);
			st->drop.reason = CT_DEFRAG_ST_MAX; /* "desync" */
			return box_hook_drop(st, BOX_DROP_DEFRAG, -1);
		}
	}
	orig = r->orig;
	n = r->norig;
	r->orig = NULL;
	r->norig = 0;
	reasm_free(r);
	box_pkt_free(st->box, p);
	for (unsigned i = 0; i < n; i++) {
		orig[i]->oif = st->out;
		box_xmit_frame(st->box, orig[i], st->out);
	}
	free(orig);
	return EXT_STOLEN;
}

static const struct {
	unsigned hook;
	int prio;
	box_hook_fn fn;
} ct_hooks[] = {
    {HOOK_PREROUTING, BOX_PRIO_DEFRAG, defrag_hook},
    {HOOK_OUTPUT, BOX_PRIO_DEFRAG, defrag_hook},
    {HOOK_PREROUTING, BOX_PRIO_CONNTRACK, hook_in},
    {HOOK_OUTPUT, BOX_PRIO_CONNTRACK, hook_in},
    {HOOK_INPUT, BOX_PRIO_CT_HELPER, hook_helper},
    {HOOK_POSTROUTING, BOX_PRIO_CT_HELPER, hook_helper},
    {HOOK_INPUT, BOX_PRIO_CONFIRM, hook_confirm},
    {HOOK_POSTROUTING, BOX_PRIO_CONFIRM, hook_confirm},
};
#define NHOOKS (sizeof(ct_hooks) / sizeof(ct_hooks[0]))

/* ---- the plug-in ------------------------------------------------------------------------- */

static uint64_t seed64(struct box *b)
{
	uint64_t hi = box_random(b);

	return hi << 32 | box_random(b);
}

static void plugin_free(struct box *b, void *priv)
{
	struct ct_box *c = priv;

	if (c->tx_on)
		box_unregister_tx_hook(b, AF_INET6, tx_hook, c);
	for (unsigned i = 0; i < NHOOKS; i++)
		box_unregister_hook(b, 0, ct_hooks[i].hook, ct_hooks[i].fn, c);
	while (c->reasm) {
		struct ct_reasm *r = c->reasm;

		c->reasm = r->next;
		pkt_free(r->pkt);
		reasm_free(r);
	}
	ct_table_free(c->table);
	ct_defrag_free(c->defrag);
	free(c->burst);
	free(c);
}

static int plugin_init(struct box *b, void **priv)
{
	struct ct_box *c = calloc(1, sizeof(*c));
	struct ct_config cc;
	struct ct_defrag_config dc;
	int rc = 0;

	if (!c)
		return -ENOMEM;
	c->box = b;
	ct_config_default(&cc);
	cc.seed[0] = seed64(b);
	cc.seed[1] = seed64(b);
	c->table = ct_table_new(&cc);
	ct_defrag_config_default(&dc);
	dc.seed[0] = seed64(b);
	dc.seed[1] = seed64(b);
	c->defrag = c->table ? ct_defrag_new(&dc) : NULL;
	if (!c->table || !c->defrag) {
		plugin_free(b, c);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < NHOOKS && !rc; i++)
		rc = box_register_hook(b, 0, ct_hooks[i].hook, ct_hooks[i].prio, ct_hooks[i].fn, c);
	if (rc < 0) {
		plugin_free(b, c); /* unregistering what was not registered is harmless */
		return rc;
	}
	*priv = c;
	return 0;
}

/* The packet leaves the box: an IPv6 shadow's record goes with it (out of line: rare). */
static __attribute__((noinline)) void release_reasm(struct ct_box *c, struct pkt *p)
{
	reasm_free(reasm_take(c, p));
	tx_sync(c);
}

static void plugin_release(void *priv, struct pkt *p)
{
	struct ct_box *c = priv;

	ct_pkt_put(c->table, p);
	if (c->reasm)
		release_reasm(c, p);
}

/* A burst's tuples hashed and their chains prefetched (prefetch.h); without memory for the
 * hints, every packet hashes its own. */
static void plugin_prepare_burst(void *priv, struct pkt *const *pkts, unsigned n)
{
	struct ct_box *c = priv;

	if (!c->burst && !(c->burst = calloc(1, sizeof(*c->burst))))
		return;
	ct_burst_prepare(c->table, c->burst, pkts, n);
}

static void plugin_clock(void *priv, uint64_t now)
{
	struct ct_box *c = priv;

	ct_defrag_expire(c->defrag, now);
	/* by elapsed time, bounded (replay moves the clock at nearly every packet); lookups and
	 * listings skip expired entries meanwhile */
	ct_sweep_elapsed(c->table, now);
	ct_expect_sweep_elapsed(c->table, now);
}

/*
 * Conntrack and defragmentation counters:
 *   conntrack entries 2 found 5 new 3 invalid 1 insert 2 ... (conntrack -S names)
 *   defrag ipv4 frags 3 reassembled 1 overlap 1                (the non-zero ones)
 */
static void plugin_stats(void *priv, FILE *f, const char *indent)
{
	struct ct_box *c = priv;
	const struct ct_stats *s = ct_table_stats(c->table);
	const struct ct_defrag_stats *d = ct_defrag_stats(c->defrag);

	fprintf(f,
		"%sconntrack entries %u found %" PRIu64 " new %" PRIu64 " invalid %" PRIu64
		" insert %" PRIu64 " insert_failed %" PRIu64 " drop %" PRIu64 " early_drop %" PRIu64
		" expired %" PRIu64 " clash %" PRIu64 "\n",
		indent, s->count, s->found, s->new, s->invalid, s->insert, s->insert_failed,
		s->drop, s->early_drop, s->expired, s->clash);
	for (int fam = 0; fam < 2; fam++) {
		const uint64_t *v = fam ? d->v6 : d->v4;

		fprintf(f, "%sdefrag %s", indent, fam ? "ipv6" : "ipv4");
		for (int i = 0; i < CT_DEFRAG_ST_MAX; i++)
			if (v[i] || i == CT_DEFRAG_ST_FRAGS)
				fprintf(f, " %s %" PRIu64,
					ct_defrag_stat_name((enum ct_defrag_stat)i), v[i]);
		fputc('\n', f);
	}
}

/* Rules decide, not tables: an empty nat table does nothing stateful here (the NAT targets
 * declare needs_conntrack). */
static bool plugin_wants(const struct rules_ruleset *rs)
{
	for (unsigned t = 0; t < TABLE_MAX; t++) {
		const struct rules_table *tb = &rs->tables[t];

		for (unsigned c = 0; tb->present && c < tb->nchains; c++) {
			const struct rules_chain *ch = &tb->chains[c];

			for (unsigned i = 0; i < ch->nrules; i++) {
				const struct rules_rule *r = &ch->rules[i];

				if (r->target.kind == RULES_T_EXT && r->target.ext.target &&
				    r->target.ext.target->needs_conntrack)
					return true;
				for (unsigned m = 0; m < r->nmatches; m++)
					if (r->matches[m].match &&
					    r->matches[m].match->needs_conntrack)
						return true;
			}
		}
	}
	return false;
}

static void *plugin_ext_data(void *priv)
{
	return ((struct ct_box *)priv)->table;
}

/* An explicit setting turns tracking on, as writing a nf_conntrack sysctl needs the module. */
static struct ct_table *table_for_setup(struct box *b, char *err, size_t errlen)
{
	struct ct_table *t = ct_box_enable(b, true) < 0 ? NULL : ct_box_table(b);

	if (!t)
		snprintf(err, errlen, "cannot turn conntrack on");
	return t;
}

/* conntrack set NAME VALUE */
static int setup_conntrack(struct box *b, int argc, char **argv, char *err, size_t errlen)
{
	struct ct_table *t;
	struct ct_config c;
	int rc;

	if (argc < 2 || strcmp(argv[1], "set")) {
		snprintf(err, errlen, "unknown command '%s'", argv[0]);
		return -1;
	}
	if (argc != 4) {
		snprintf(err, errlen, "usage: %s", ct_plugin.setup[0].usage);
		return -1;
	}
	t = table_for_setup(b, err, errlen);
	if (!t)
		return -1;
	c = *ct_table_config(t);
	rc = ct_config_set(&c, argv[2], argv[3]);
	if (rc < 0) {
		snprintf(err, errlen,
			 rc == -ENOENT ? "conntrack set: no setting '%s'"
				       : "conntrack set %s: bad value '%s'",
			 argv[2], argv[3]);
		return -1;
	}
	rc = ct_table_set_config(t, &c); /* buckets: -ENOMEM keeps the old size */
	if (rc < 0) {
		snprintf(err, errlen, "conntrack set %s %s: %s", argv[2], argv[3], strerror(-rc));
		return -1;
	}
	return 0;
}

/* ct-timeout NAME PROTO [STATE=SEC...] */
static int setup_ct_timeout(struct box *b, int argc, char **argv, char *err, size_t errlen)
{
	struct ct_table *t;

	if (argc < 3) {
		snprintf(err, errlen, "usage: %s", ct_plugin.setup[1].usage);
		return -1;
	}
	t = table_for_setup(b, err, errlen);
	if (!t)
		return -1;
	return ct_timeout_policy_set(t, argv[1], argv[2], argc - 3, argv + 3, err, errlen) < 0 ? -1
											       : 0;
}

static const struct box_setup_cmd ct_setup[] = {
    {"conntrack", setup_conntrack, "conntrack set NAME VALUE"},
    {"ct-timeout", setup_ct_timeout, "ct-timeout NAME PROTO [STATE=SECONDS...]"},
    {NULL, NULL, NULL},
};

const struct box_plugin_ops ct_plugin = {
    .name = "conntrack",
    .wants = plugin_wants,
    .init = plugin_init,
    .free = plugin_free,
    .release = plugin_release,
    .clock = plugin_clock,
    .stats = plugin_stats,
    .setup = ct_setup,
    .ext_data = plugin_ext_data,
    .prepare_burst = plugin_prepare_burst,
};

/* ---- for the box's users ----------------------------------------------------------------- */

int ct_box_enable(struct box *b, bool on)
{
	return on ? box_plugin_on(b, &ct_plugin) : box_plugin_off(b, &ct_plugin);
}

struct ct_table *ct_box_table(struct box *b)
{
	struct ct_box *c = box_plugin_data(b, &ct_plugin);

	return c ? c->table : NULL;
}

const struct ct_burst *ct_box_burst(const struct box *b)
{
	const struct ct_box *c = box_plugin_peek(b, &ct_plugin);

	return c ? c->burst : NULL;
}

const struct ct_stats *ct_box_stats(const struct box *b)
{
	const struct ct_box *c = box_plugin_peek(b, &ct_plugin);

	return c ? ct_table_stats(c->table) : NULL;
}

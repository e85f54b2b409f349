/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The five tables as hook functions, and chain traversal as ipt_do_table / ip6t_do_table do it:
 *
 *   rule 1..n of the chain, in order:
 *     standard part (-s -d with masks, -i -o with '+', -p, -f; each with '!'): the chain's
 *       rows of masked words against the packet's key (rules/plain.h), a run of rules that
 *       fail it skipped in one loop without a call
 *     (an IPv6 packet with unwalkable extension headers: rules_ip_match, which may hotdrop)
 *     every match (false: next rule; hotdrop: drop now)
 *     counters += 1 packet, IP datagram length bytes (chain->ctr[i], beside the rules); TRACE
 *     target:   ACCEPT / DROP                 verdict
 *               -j CHAIN                      push (chain, next rule), enter CHAIN
 *               -g CHAIN                      enter CHAIN, no push
 *               RETURN                        pop; nothing to pop: the built-in's policy
 *               extension                     EXT_CONTINUE: next rule; else its verdict
 *   end of a user chain:   as RETURN (TRACE ":return:")
 *   end of a built-in:     policy, policy counters (TRACE ":policy:")
 *
 * The stack holds return positions only (so goto then RETURN lands after the rule that jumped
 * into the chain that did the goto). The kernel refuses loops at load time; a hand-made
 * ruleset may have them, so depth and runs of gotos are bounded here (BOX_DROP_LOOP).
 *
 * A chain with a compiled classifier (src/classify) is walked the same way, except that the
 * classifier names the next rule worth evaluating (rules it skips cannot match the packet as
 * it is); the key is taken again after a target ran, since the target may have changed the
 * packet (MARK). Each candidate is evaluated whole, as above.
 *
 * The engine registers the tables that run for every packet (raw, mangle, filter, security).
 * A table with a gate of its own is run by its plug-in's hook function through box_table_run:
 * NAT runs the nat table only for a connection's first packet (src/nat/plugin.c).
 */
#include <string.h>

#include "classify/ruleset.h"
#include "engine/engine_int.h"
#include "rules/plain.h"

struct table_hook_desc {
	unsigned table;
	unsigned hook;
	int prio;
};

static const struct table_hook_desc table_hooks[] = {
    {TABLE_RAW, HOOK_PREROUTING, BOX_PRIO_RAW},
    {TABLE_RAW, HOOK_OUTPUT, BOX_PRIO_RAW},
    {TABLE_MANGLE, HOOK_PREROUTING, BOX_PRIO_MANGLE},
    {TABLE_MANGLE, HOOK_INPUT, BOX_PRIO_MANGLE},
    {TABLE_MANGLE, HOOK_FORWARD, BOX_PRIO_MANGLE},
    {TABLE_MANGLE, HOOK_OUTPUT, BOX_PRIO_MANGLE},
    {TABLE_MANGLE, HOOK_POSTROUTING, BOX_PRIO_MANGLE},
    {TABLE_FILTER, HOOK_INPUT, BOX_PRIO_FILTER},
    {TABLE_FILTER, HOOK_FORWARD, BOX_PRIO_FILTER},
    {TABLE_FILTER, HOOK_OUTPUT, BOX_PRIO_FILTER},
    {TABLE_SECURITY, HOOK_INPUT, BOX_PRIO_SECURITY},
    {TABLE_SECURITY, HOOK_FORWARD, BOX_PRIO_SECURITY},
    {TABLE_SECURITY, HOOK_OUTPUT, BOX_PRIO_SECURITY},
};

/* The key's words of interface idx, named name (box_ifname). */
static inline void iface_words(const struct box *b, int idx, const char *name, uint64_t w[2])
{
	if (idx >= 1 && (unsigned)idx <= b->nifaces) {
		/* zero after the NUL: box_add_iface clears the array before it writes the name */
		memcpy(w, b->ifaces[idx - 1].name, 16);
	} else if (!name[0]) {
		w[0] = w[1] = 0;
	} else {
		rules_plain_name(name, w); /* "lo" */
	}
}

/* iface_words for interface idx without its name: the same words. */
static inline void iface_words_at(const struct box *b, int idx, uint64_t w[2])
{
	if (idx >= 1 && (unsigned)idx <= b->nifaces)
		memcpy(w, b->ifaces[idx - 1].name, 16);
	else if (idx == BOX_IFINDEX_LO)
		rules_plain_name("lo", w);
	else
		w[0] = w[1] = 0;
}

/* box_ifname without the call: "lo", the interface's name, or "" for none. */
static inline const char *ifname(const struct box *b, int idx)
{
	if (idx >= 1 && (unsigned)idx <= b->nifaces)
		return b->ifaces[idx - 1].name;
	return idx == BOX_IFINDEX_LO ? "lo" : "";
}

/* The first rule from ri on whose standard part the packet passes (rules/plain.h): a loop per
 * family, each with its row width as a constant. */
static inline unsigned plain_next(const struct rules_chain *c, unsigned ri, unsigned n,
				  const struct rules_plain_key *k, bool v4)
{
	return v4 ? rules_plain_next(&c->plain, ri, n, k, RULES_PLAIN_W4)
		  : rules_plain_next(&c->plain, ri, n, k, RULES_PLAIN_W6);
}

/*
 * The kernel names a traced rule by what it finds at that position: an unconditional rule
 * with a standard verdict (ACCEPT, DROP, RETURN; no matches) looks like a chain's tail, so it
 * is traced as "policy" in a built-in chain and "return" in a user chain. Reproduced.
 */
static bool rule_is_tail_like(const struct rules_rule *r)
{
	static const struct rules_ipmatch zero;
	const struct rules_ipmatch *ip = &r->ip;

	if (r->nmatches || (r->target.kind != RULES_T_ACCEPT && r->target.kind != RULES_T_DROP &&
			    r->target.kind != RULES_T_RETURN))
		return false;
	return !memcmp(&ip->src, &zero.src, sizeof(ip->src)) &&
	       !memcmp(&ip->smsk, &zero.smsk, sizeof(ip->smsk)) &&
	       !memcmp(&ip->dst, &zero.dst, sizeof(ip->dst)) &&
	       !memcmp(&ip->dmsk, &zero.dmsk, sizeof(ip->dmsk)) && !ip->in_len && !ip->in_wild &&
	       !ip->out_len && !ip->out_wild && !ip->proto && !ip->frag && !ip->inv;
}

struct frame {
	unsigned chain, next;
};

static int drop_at(struct box_hook_state *st, enum box_drop_kind kind, unsigned table,
		   const char *chain, unsigned rulenum)
{
	st->drop = (struct box_drop){.kind = kind,
				     .table = (int)table,
				     .hook = st->hook,
				     .chain = chain,
				     .rulenum = rulenum};
	return EXT_DROP;
}

/*
 * The traversal (the loop at the top of this file) from rule ri0 of the table's built-in chain
 * at the hook (0: from its start; more: where quick_walk left it, nothing of rule ri0 evaluated
 * yet), counting `bytes` per rule and policy (the packet's length when it entered the table).
 */
static __attribute__((noinline)) int do_table_general(struct box *b, struct box_hook_state *st,
						      struct rules_table *t, unsigned table,
						      struct pkt *p, const struct cls_ruleset *cr,
						      unsigned ri0, uint64_t bytes)
{
	struct frame stack[BOX_MAX_DEPTH];
	unsigned sp = 0, gotos = 0, base = (unsigned)t->builtin[st->hook], ci = base, ri = ri0;
	const char *in = ifname(b, st->in), *out = ifname(b, st->out);
	struct ext_scan_cache scan; /* hits[] are written only by the owner's scan */
	struct rules_chain *bc = &t->chains[base];
	struct ext_pkt_ctx ctx = {
	    .pkt = p,
	    .info = &p->info,
	    .family = st->family,
	    .hook = st->hook,
	    .table = table,
	    .in = in,
	    .out = out,
	    .now_ns = b->now,
	    .env = &b->env,
	    .scan = &scan,
	};
	uint32_t key[CLS_NDIMS];
	int keystate = 0; /* 0: not taken, 1: key valid, -1: this packet scans linearly */
	unsigned cur_chain = UINT32_MAX;
	struct cls_cursor cur;
	struct rules_plain_key pk;
	uint64_t inw[2], outw[2];
	bool pk_ok = false, names_ok = false, v4 = st->family == AF_INET;
	/* only rules_ip_match knows when an IPv6 rule with -p drops the packet at once */
	bool exact = !v4 && p->info.bad == PKT_BAD_EXTHDR;

	scan.owner = NULL;
	for (;;) {
		struct rules_chain *c = &t->chains[ci];
		const struct classifier *cl;
		struct rules_rule *r;
		const struct ext_match *em = NULL;
		bool hot = false, ok = true, cand = false;
		bool rows = !exact && c->plain.rows && c->plain.nrules == c->nrules;
		unsigned m;
		int v;

		if (cr && keystate >= 0 && ri < c->nrules &&
		    (cl = cls_ruleset_chain(cr, table, ci))) {
			if (!keystate)
				keystate = cls_key(cr, &ctx, key) ? 1 : -1;
			if (keystate > 0) {
				if (cur_chain != ci) {
					ri = cls_cursor_start(cl, key, &cur, ri);
					cur_chain = ci;
				} else {
					ri = cls_cursor_next(&cur, ri);
				}
				cand = true;
			}
		}
		/* a candidate whose constraints are its standard part has passed it */
		if (rows && ri < c->nrules && ri >= c->plain.open &&
		    !(cand && cls_ruleset_std_exact(cr, table, ci, ri))) {
			if (!pk_ok) {
				if (!names_ok) {
					iface_words(b, st->in, in, inw);
					iface_words(b, st->out, out, outw);
					names_ok = true;
				}
				rules_plain_key(&pk, st->family, &p->info, inw, outw);
				pk_ok = true;
			}
			if (!cand) { /* the rules that fail their standard part, skipped at once */
				ri = plain_next(c, ri, c->nrules, &pk, v4);
			} else if (plain_next(c, ri, ri + 1, &pk, v4) != ri) {
				ri++; /* the classifier's candidate fails it */
				continue;
			}
		}
		if (ri >= c->nrules) {
			if (c->builtin)
				break;
			if (p->trace || b->trace_all)
				box_trace(b, p, table, c->name, "return", c->nrules + 1, in, out);
			goto do_return;
		}
		r = &c->rules[ri];
		ctx.chain = c->name;
		ctx.rulenum = ri + 1;
		if (!rows && !rules_ip_match(st->family, &r->ip, &p->info, in, out, &hot)) {
			if (hot)
				return drop_at(st, BOX_DROP_HOTDROP, table, c->name, ri + 1);
			ri++;
			continue;
		}
		for (m = 0; m < r->nmatches; m++) {
			em = r->matches[m].match;
			ok = !em || !em->match || em->match(&ctx, &r->matches[m]);
			if (ctx.hotdrop)
				return drop_at(st, BOX_DROP_HOTDROP, table, c->name, ri + 1);
			if (!ok)
				break;
		}
		if (!ok) {
			/* the failed match may know that the next rules cannot match either */
			ri = em && em->next_candidate ? em->next_candidate(&ctx, &r->matches[m], ri)
						      : ri + 1;
			continue;
		}
		c->ctr[ri].pkts++;
		c->ctr[ri].bytes += bytes;
		if (p->trace || b->trace_all)
			box_trace(b, p, table, c->name,
				  rule_is_tail_like(r) ? (c->builtin ? "policy" : "return")
						       : "rule",
				  ri + 1, in, out);
		switch (r->target.kind) {
		case RULES_T_NONE:
			ri++;
			continue;
		case RULES_T_ACCEPT:
			return EXT_ACCEPT;
		case RULES_T_DROP:
			return drop_at(st, BOX_DROP_RULE, table, c->name, ri + 1);
		case RULES_T_RETURN:
			goto do_return;
		case RULES_T_JUMP:
			if (sp >= BOX_MAX_DEPTH || r->target.chain >= t->nchains)
				return drop_at(st, BOX_DROP_LOOP, table, c->name, ri + 1);
			stack[sp++] = (struct frame){ci, ri + 1};
			gotos = 0;
			ci = r->target.chain;
			ri = 0;
			cur_chain = UINT32_MAX;
			continue;
		case RULES_T_GOTO:
			/* Without a push, a run of gotos longer than the number of chains must
			 * revisit one: a loop. */
			if (++gotos > t->nchains || r->target.chain >= t->nchains)
				return drop_at(st, BOX_DROP_LOOP, table, c->name, ri + 1);
			ci = r->target.chain;
			ri = 0;
			cur_chain = UINT32_MAX;
			continue;
		case RULES_T_EXT:
			if (!r->target.ext.target || !r->target.ext.target->target) {
				ri++;
				continue;
			}
			ctx.queue_num = 0;
			ctx.queue_flags = 0;
			v = r->target.ext.target->target(&ctx, &r->target.ext);
			keystate =
			    keystate < 0 ? -1 : 0; /* the target may have changed the packet */
			pk_ok = false;
			scan.owner = NULL;
			cur_chain = UINT32_MAX;
			if (v == EXT_CONTINUE) {
				ri++;
				continue;
			}
			if (v == EXT_RETURN)
				goto do_return;
			if (v == EXT_DROP)
				return drop_at(st, BOX_DROP_RULE, table, c->name, ri + 1);
			if (v == EXT_QUEUE) {
				drop_at(st, BOX_DROP_QUEUE, table, c->name, ri + 1);
				st->queue_num = ctx.queue_num;
				st->queue_flags = ctx.queue_flags;
			}
			return v;
		}
		return drop_at(st, BOX_DROP_HOOK, table, c->name, ri + 1);
	do_return:
		if (sp == 0)
			break; /* RETURN from the built-in chain, or off a chain it went to */
		sp--;
		ci = stack[sp].chain;
		ri = stack[sp].next;
		gotos = 0;
		cur_chain = UINT32_MAX;
	}
	bc->pkts++;
	bc->bytes += bytes;
	if (p->trace || b->trace_all)
		box_trace(b, p, table, bc->name, "policy", bc->nrules + 1, in, out);
	if (bc->policy == EXT_DROP)
		return drop_at(st, BOX_DROP_POLICY, table, bc->name, 0);
	return EXT_ACCEPT;
}

/* quick_walk's answer when do_table_general must go on (from *at). */
#define QUICK_MORE (-100)

/*
 * The common case of a table's built-in chain c, as do_table_general would walk it, in a small
 * frame with the per-table set-up only where a rule needs it (the match context, with the
 * interface names, at the first rule that tests something or has a match or a target; the plain
 * key at the first rule that tests something). For a packet that is not
 * traced and that rules_ip_match need not see (not IPv6 with unwalkable extension headers), in a
 * chain that is scanned (no compiled classifier) and has its rows (quick_ok). Every rule is
 * evaluated, counted and applied as there. It hands over (QUICK_MORE, *at: the rule to go on
 * from) before it evaluates anything of a rule that jumps or goes to a chain (that rule's
 * matches run once, there), and after a target that turned TRACE on (the next rules are traced,
 * there); do_table_general then counts `bytes` as this did. v4: the family is AF_INET (a
 * constant in each caller, so that each family gets its own loop).
 * tests/unit/test_engine_quick.c drives both on the same random rulesets and packets.
 */
/* quick_walk's match context, made at the first rule that needs it. */
static inline __attribute__((always_inline)) void quick_ctx(struct ext_pkt_ctx *ctx, struct box *b,
							    const struct box_hook_state *st,
							    unsigned table, struct pkt *p,
							    struct ext_scan_cache *scan, bool v4)
{
	/* field by field, without clearing it first: chain and rulenum are written before each
	 * rule's matches and target, queue_num and queue_flags before a target */
	ctx->pkt = p;
	ctx->info = &p->info;
	ctx->family = v4 ? AF_INET : AF_INET6;
	ctx->hook = st->hook;
	ctx->table = table;
	ctx->in = ifname(b, st->in);
	ctx->out = ifname(b, st->out);
	ctx->now_ns = b->now;
	ctx->env = &b->env;
	ctx->scan = scan;
	ctx->hotdrop = false;
	scan->owner = NULL;
}

static inline __attribute__((always_inline)) int
quick_walk(struct box *b, struct box_hook_state *st, unsigned table, struct rules_chain *c,
	   struct pkt *p, uint64_t bytes, unsigned *at, const bool v4)
{
	const unsigned n = c->nrules;
	struct ext_scan_cache scan; /* hits[] are written only by the owner's scan */
	struct ext_pkt_ctx ctx;
	struct rules_plain_key pk;
	uint64_t inw[2], outw[2];
	bool pk_ok = false, ctx_ok = false, words_ok = false;
	unsigned ri = 0;

	for (;;) {
		struct rules_rule *r;
		const struct ext_match *em = NULL;
		bool ok = true;
		unsigned m;
		int v;

		if (ri < n && ri >= c->plain.open) {
			if (!pk_ok) {
				if (!words_ok) { /* no match context needed for them */
					iface_words_at(b, st->in, inw);
					iface_words_at(b, st->out, outw);
					words_ok = true;
				}
				rules_plain_key(&pk, v4 ? AF_INET : AF_INET6, &p->info, inw, outw);
				pk_ok = true;
			}
			ri = v4 ? rules_plain_next(&c->plain, ri, n, &pk, RULES_PLAIN_W4)
				: rules_plain_next(&c->plain, ri, n, &pk, RULES_PLAIN_W6);
		}
		if (ri >= n)
			break;
		r = &c->rules[ri];
		if (r->target.kind == RULES_T_JUMP || r->target.kind == RULES_T_GOTO) {
			*at = ri;
			return QUICK_MORE;
		}
		if (!ctx_ok && (r->nmatches || r->target.kind == RULES_T_EXT)) {
			quick_ctx(&ctx, b, st, table, p, &scan, v4);
			ctx_ok = true;
		}
		if (r->nmatches) {
			ctx.chain = c->name;
			ctx.rulenum = ri + 1;
			for (m = 0; m < r->nmatches; m++) {
				em = r->matches[m].match;
				ok = !em || !em->match || em->match(&ctx, &r->matches[m]);
				if (ctx.hotdrop)
					return drop_at(st, BOX_DROP_HOTDROP, table, c->name,
						       ri + 1);
				if (!ok)
					break;
			}
			if (!ok) {
				/* the failed match may know that the next rules cannot match */
				ri = em && em->next_candidate
					 ? em->next_candidate(&ctx, &r->matches[m], ri)
					 : ri + 1;
				continue;
			}
		}
		c->ctr[ri].pkts++;
		c->ctr[ri].bytes += bytes;
		switch (r->target.kind) {
		case RULES_T_NONE:
			ri++;
			continue;
		case RULES_T_ACCEPT:
			return EXT_ACCEPT;
		case RULES_T_DROP:
			return drop_at(st, BOX_DROP_RULE, table, c->name, ri + 1);
		case RULES_T_RETURN:
			break;
		case RULES_T_EXT:
			if (!r->target.ext.target || !r->target.ext.target->target) {
				ri++;
				continue;
			}
			ctx.chain = c->name;
			ctx.rulenum = ri + 1;
			ctx.queue_num = 0;
			ctx.queue_flags = 0;
			v = r->target.ext.target->target(&ctx, &r->target.ext);
			pk_ok = false; /* the target may have changed the packet */
			scan.owner = NULL;
			if (v == EXT_CONTINUE || v == EXT_RETURN) {
				/* RETURN from the built-in chain: its policy */
				ri = v == EXT_CONTINUE ? ri + 1 : n;
				if (p->trace) { /* TRACE: the rest is traced */
					*at = ri;
					return QUICK_MORE;
				}
				continue;
			}
			if (v == EXT_DROP)
				return drop_at(st, BOX_DROP_RULE, table, c->name, ri + 1);
			if (v == EXT_QUEUE) {
				drop_at(st, BOX_DROP_QUEUE, table, c->name, ri + 1);
				st->queue_num = ctx.queue_num;
				st->queue_flags = ctx.queue_flags;
			}
			return v;
		default:
			return drop_at(st, BOX_DROP_HOOK, table, c->name, ri + 1);
		}
		break; /* RETURN */
	}
	c->pkts++;
	c->bytes += bytes;
	if (c->policy == EXT_DROP)
		return drop_at(st, BOX_DROP_POLICY, table, c->name, 0);
	return EXT_ACCEPT;
}

/* Whether quick_walk may take the packet through the table's built-in chain c (number ci):
 * what holds for the ruleset's life (box_table_quick: a chain's rules never change once
 * published, nor its rows or its compiled form) and what the packet says. */
static inline bool quick_chain(const struct rules_chain *c, unsigned table, unsigned ci,
			       const struct cls_ruleset *cr)
{
	return c->plain.rows && c->plain.nrules == c->nrules && !cls_ruleset_chain(cr, table, ci);
}

static inline bool quick_pkt(const struct box *b, const struct box_hook_state *st,
			     const struct pkt *p)
{
	return !p->trace && !b->trace_all &&
	       (st->family == AF_INET || p->info.bad != PKT_BAD_EXTHDR);
}

/* quick_walk for the packet's family, then do_table_general from where it stopped (ri 0: from
 * the start) if it must go on. */
static inline __attribute__((always_inline)) int
do_table_from(struct box *b, struct box_hook_state *st, unsigned table, struct rules_chain *c,
	      struct pkt *p, bool quick)
{
	const uint64_t bytes = p->info.l3len;
	struct rules_ruleset *rs;
	unsigned at = 0;

	if (quick) {
		int v = st->family == AF_INET ? quick_walk(b, st, table, c, p, bytes, &at, true)
					      : quick_walk(b, st, table, c, p, bytes, &at, false);

		if (v != QUICK_MORE)
			return v;
	}
	rs = b->cur[box_fam_index(st->family)];
	return do_table_general(b, st, &rs->tables[table], table, p, rs->compiled, at, bytes);
}

/* The traversal of table t of ruleset rs at st->hook, whose built-in chain there is c (number
 * ci): quick_walk where it applies, do_table_general for the rest. */
static inline __attribute__((always_inline)) int do_table(struct box *b, struct box_hook_state *st,
							  struct rules_ruleset *rs, unsigned table,
							  struct rules_chain *c, unsigned ci,
							  struct pkt *p)
{
	return do_table_from(b, st, table, c, p,
			     quick_pkt(b, st, p) && quick_chain(c, table, ci, rs->compiled));
}

int box_table_run(struct box_hook_state *st, struct pkt *p, unsigned table)
{
	struct rules_ruleset *rs = st->box->cur[box_fam_index(st->family)];
	struct rules_chain *bc;
	struct rules_table *t;
	unsigned ci;

	if (!rs || table >= TABLE_MAX)
		return EXT_ACCEPT;
	t = &rs->tables[table];
	if (!t->present || t->builtin[st->hook] < 0 || (unsigned)t->builtin[st->hook] >= t->nchains)
		return EXT_ACCEPT;
	ci = (unsigned)t->builtin[st->hook];
	bc = &t->chains[ci];
	if (!bc->nrules && !p->trace && !st->box->trace_all) { /* the policy, counted */
		bc->pkts++;
		bc->bytes += p->info.l3len;
		if (bc->policy == EXT_DROP)
			return drop_at(st, BOX_DROP_POLICY, table, bc->name, 0);
		return EXT_ACCEPT;
	}
	return do_table(st->box, st, rs, table, bc, ci, p);
}

bool box_table_quick(const struct rules_ruleset *rs, unsigned table, const struct rules_chain *c)
{
	const struct rules_table *t = &rs->tables[table];

	return quick_chain(c, table, (unsigned)(c - t->chains), rs->compiled);
}

int box_table_enter(struct box_hook_state *st, struct pkt *p, const struct box_hook_entry *e)
{
	struct box *b = st->box;

	return do_table_from(b, st, (unsigned)e->table, e->chain, p,
			     e->kind == BOX_HOOK_QUICK && quick_pkt(b, st, p));
}

int box_table_hook(void *priv, struct box_hook_state *st, struct pkt *p)
{
	const struct table_hook_desc *d = priv;

	return box_table_run(st, p, d->table);
}

void box_register_tables(struct box *b)
{
	for (size_t i = 0; i < sizeof(table_hooks) / sizeof(table_hooks[0]); i++)
		box_register_table_hook(b, 0, table_hooks[i].hook, table_hooks[i].prio,
					box_table_hook, (void *)&table_hooks[i],
					(int)table_hooks[i].table);
}

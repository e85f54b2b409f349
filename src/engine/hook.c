/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hook machinery: per family and hook, a list of hook functions sorted by priority (equal
 * priorities in registration order), run in order for every packet at that hook, as the
 * kernel's nf_hook_slow runs nf_hook_entries.
 *
 * NFQUEUE follows nf_reinject: the userspace verdict ACCEPT goes on with the *next* hook
 * function, REPEAT runs the queueing function again, DROP drops. Without a handler
 * (ops.queue NULL) the packet is dropped, unless the rule said --queue-bypass: then it goes on
 * as if accepted (nf_queue's -ESRCH with NF_VERDICT_FLAG_QUEUE_BYPASS).
 *
 * A function may replace the packet (st->replaced with EXT_ACCEPT): the functions after it
 * and the path after the hook go on with the new one. Defragmentation does (src/ct registers
 * it at BOX_PRIO_DEFRAG, so functions below that priority see the fragment: the kernel's
 * "raw before defrag"). The transmit stage is a list of its own, run between POSTROUTING and
 * the link (box_run_tx_hooks).
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "engine/engine_int.h"

static int add_one(struct box_hook_list *l, int prio, box_hook_fn fn, void *priv, int table)
{
	unsigned pos = 0;

	if (l->n >= BOX_MAX_HOOK_FNS)
		return -ENOSPC;
	while (pos < l->n && l->e[pos].prio <= prio)
		pos++;
	memmove(&l->e[pos + 1], &l->e[pos], (l->n - pos) * sizeof(l->e[0]));
	l->e[pos] = (struct box_hook_entry){
	    .prio = prio, .fn = fn, .priv = priv, .table = (int16_t)table, .kind = BOX_HOOK_FN};
	l->n++;
	return 0;
}

static int remove_one(struct box_hook_list *l, box_hook_fn fn, void *priv)
{
	for (unsigned i = 0; i < l->n; i++) {
		if (l->e[i].fn != fn || l->e[i].priv != priv)
			continue;
		memmove(&l->e[i], &l->e[i + 1], (l->n - i - 1) * sizeof(l->e[0]));
		l->n--;
		return 1;
	}
	return 0;
}

int box_register_table_hook(struct box *b, int family, unsigned hook, int priority, box_hook_fn fn,
			    void *priv, int table)
{
	int lo = family == AF_INET6 ? 1 : 0, hi = family == AF_INET ? 0 : 1;

	if (hook >= HOOK_MAX || !fn || (family && family != AF_INET && family != AF_INET6))
		return -EINVAL;
	for (int f = lo; f <= hi; f++)
		if (b->hooks[f][hook].n >= BOX_MAX_HOOK_FNS)
			return -ENOSPC;
	for (int f = lo; f <= hi; f++)
		add_one(&b->hooks[f][hook], priority, fn, priv, table);
	b->hook_gen++;
	return 0;
}

int box_register_hook(struct box *b, int family, unsigned hook, int priority, box_hook_fn fn,
		      void *priv)
{
	return box_register_table_hook(b, family, hook, priority, fn, priv, -1);
}

int box_unregister_hook(struct box *b, int family, unsigned hook, box_hook_fn fn, void *priv)
{
	int lo = family == AF_INET6 ? 1 : 0, hi = family == AF_INET ? 0 : 1, found = 0;

	if (hook >= HOOK_MAX)
		return -EINVAL;
	for (int f = lo; f <= hi; f++)
		found |= remove_one(&b->hooks[f][hook], fn, priv);
	b->hook_gen++;
	return found ? 0 : -ENOENT;
}

/* The userspace side of NFQUEUE. Returns EXT_ACCEPT, EXT_REPEAT or EXT_DROP (drop filled). */
int box_hook_drop(struct box_hook_state *st, enum box_drop_kind kind, int table)
{
	st->drop.kind = kind;
	st->drop.table = table;
	st->drop.hook = st->hook;
	st->drop.chain = NULL;
	st->drop.rulenum = 0;
	return EXT_DROP;
}

static int queue_packet(struct box *b, struct box_hook_state *st, struct pkt *p,
			struct box_drop *drop)
{
	uint32_t mark = p->mark;
	int v;

	if (!b->ops.queue) {
		if (st->queue_flags & EXT_QUEUE_BYPASS)
			return EXT_ACCEPT;
		*drop = st->drop;
		drop->kind = BOX_DROP_QUEUE;
		return EXT_DROP;
	}
	b->stats.queued++;
	v = b->ops.queue(b->user, b, st->queue_num, p, &mark);
	p->mark = mark;
	if (v == EXT_ACCEPT || v == EXT_REPEAT)
		return v;
	/* The verdict of a program: counted like the rule that queued the packet dropping it. */
	*drop = st->drop;
	drop->kind = BOX_DROP_RULE;
	return EXT_DROP;
}

/*
 * The table of a table's hook function has no chain at this hook in the packet's ruleset rs (or
 * there is no ruleset): calling it would return EXT_ACCEPT at once.
 */
static inline bool table_absent(const struct rules_ruleset *rs, unsigned hook, int table)
{
	return !rs || !rs->tables[table].present || rs->tables[table].builtin[hook] < 0;
}

/* hook_vec's work when the vector is stale: built again for the list and the packet's ruleset.
 * An engine table function's entry gets its table's built-in chain at the hook and a kind
 * (BOX_HOOK_POLICY, _QUICK or _TABLE: what run_list does with it, found here once per ruleset
 * instead of per packet); a plug-in's table function (NAT's, behind its gate) does not. */
static __attribute__((noinline)) const struct box_hook_vec *
hook_vec_build(struct box *b, unsigned f, unsigned hook)
{
	struct rules_ruleset *rs = b->cur[f];
	struct box_hook_vec *v = &b->hook_vec[f][hook];
	const struct box_hook_list *l = &b->hooks[f][hook];

	v->n = 0;
	for (unsigned i = 0; i < l->n; i++) {
		struct box_hook_entry e = l->e[i];

		e.chain = NULL;
		e.kind = BOX_HOOK_FN;
		if (e.table >= 0 && table_absent(rs, hook, e.table))
			continue;
		if (e.table >= 0 && e.fn == box_table_hook) {
			struct rules_table *t = &rs->tables[e.table];

			if ((unsigned)t->builtin[hook] < t->nchains) {
				e.chain = &t->chains[t->builtin[hook]];
				e.kind = !e.chain->nrules ? BOX_HOOK_POLICY
					 : box_table_quick(rs, (unsigned)e.table, e.chain)
					     ? BOX_HOOK_QUICK
					     : BOX_HOOK_TABLE;
			}
		}
		v->e[v->n++] = e;
	}
	v->e[v->n] = (struct box_hook_entry){.table = -1, .kind = BOX_HOOK_END};
	v->lead = 0;
	while (v->lead < v->n && v->e[v->lead].kind == BOX_HOOK_POLICY)
		v->lead++;
	v->rs_serial = rs ? rs->serial : 0;
	v->gen = b->hook_gen;
	return v;
}

/* The vector of (family index f, hook) for the packet's ruleset, built again if the list or the
 * ruleset changed since it was built. A zeroed vector is right for a box that never registered
 * a function (hook_gen 0) and has no ruleset (serial 0). */
static inline const struct box_hook_vec *hook_vec(struct box *b, unsigned f, unsigned hook)
{
	const struct rules_ruleset *rs = b->cur[f];
	const struct box_hook_vec *v = &b->hook_vec[f][hook];

	if (v->gen == b->hook_gen && v->rs_serial == (rs ? rs->serial : 0))
		return v;
	return hook_vec_build(b, f, hook);
}

unsigned box_hooks_idle_find(struct box *b, unsigned f)
{
	const struct rules_ruleset *rs = b->cur[f];
	unsigned mask = 0;

	for (unsigned h = 0; h < HOOK_MAX; h++)
		if (hook_vec(b, f, h)->n == 0)
			mask |= 1u << h;
	b->idle[f].gen = b->hook_gen;
	b->idle[f].rs_serial = rs ? rs->serial : 0;
	b->idle[f].mask = mask;
	return mask;
}

/* What a hook function may write, as the next one must find it: the hook's own drop record,
 * no queue, no replacement. */
static inline void state_reset(struct box_hook_state *st)
{
	st->drop = (struct box_drop){.kind = BOX_DROP_HOOK, .table = -1, .hook = st->hook};
	st->queue_num = 0;
	st->queue_flags = 0;
	st->replaced = NULL;
}

/* The policy of the chain of a vector's entry e (a table's built-in chain at hook), counted as
 * the traversal counts it (box_table_run): EXT_ACCEPT, or EXT_DROP with *drop filled as run_list
 * fills it from the traversal's record. */
static inline __attribute__((always_inline)) int chain_policy(const struct box_hook_entry *e,
							      const struct pkt *p, unsigned hook,
							      struct box_drop *drop)
{
	struct rules_chain *c = e->chain;

	c->pkts++;
	c->bytes += p->info.l3len;
	if (c->policy == EXT_DROP) {
		*drop = (struct box_drop){
		    .kind = BOX_DROP_POLICY, .table = e->table, .hook = hook, .chain = c->name};
		return EXT_DROP;
	}
	return EXT_ACCEPT;
}

/* A vector entry's function called (or its table entered: not BOX_HOOK_FN). */
static inline __attribute__((always_inline)) int
call_entry(const struct box_hook_entry *e, struct box_hook_state *st, struct pkt *p)
{
	return e->kind != BOX_HOOK_FN ? box_table_enter(st, p, e) : e->fn(e->priv, st, p);
}

/* What run_list goes on with after an entry: its verdict, and the packet (replaced or not). */
struct run_out {
	int v;
	struct pkt *p;
};

/*
 * run_list's work after entry e answered v for p other than EXT_ACCEPT with the packet kept:
 * NFQUEUE, NF_REPEAT (e called again, up to BOX_MAX_REPEAT times), a replacement, the drop
 * record. EXT_ACCEPT (the state reset for the next function), EXT_DROP (*drop filled) or
 * EXT_STOLEN; out of line, as rare.
 */
static __attribute__((noinline)) struct run_out
run_verdict(struct box *b, const struct box_hook_entry *e, struct box_hook_state *st, struct pkt *p,
	    struct box_drop *drop, int v)
{
	const unsigned hook = st->hook;
	unsigned repeats = 0;

	for (;;) {
		if (v == EXT_QUEUE)
			v = queue_packet(b, st, p, &st->drop);
		if (v != EXT_REPEAT || ++repeats > BOX_MAX_REPEAT)
			break;
		state_reset(st);
		v = call_entry(e, st, p);
		if (v == EXT_ACCEPT && !st->replaced)
			return (struct run_out){EXT_ACCEPT,
						p}; /* the state as the function found it */
	}
	if (v == EXT_REPEAT) {
		st->drop.kind = BOX_DROP_LOOP;
		v = EXT_DROP;
	}
	if (v == EXT_DROP) {
		*drop = st->drop;
		drop->hook = hook;
	}
	if (st->replaced && (v == EXT_ACCEPT || v == EXT_DROP))
		p = st->replaced;
	if (v == EXT_ACCEPT) {
		state_reset(st);
		return (struct run_out){EXT_ACCEPT, p};
	}
	if (v != EXT_DROP && v != EXT_STOLEN) {
		*drop = (struct box_drop){.kind = BOX_DROP_HOOK, .table = -1, .hook = hook};
		v = EXT_DROP;
	}
	return (struct run_out){v, p};
}

/*
 * The functions from e up to end (the caller's window of priorities; NULL: up to a vector's
 * BOX_HOOK_END, one test of the kind per entry instead of two), for *pp; a function may
 * replace it. One state serves them all, the caller's, which starts reset: what a function may
 * write (drop, queue, replaced) is written only with another outcome than EXT_ACCEPT with the
 * packet kept (box_hook_fn), so the state is reset after those only (run_verdict); the rest
 * (box, family, hook, interfaces, mtu) is only read. The common outcome (EXT_ACCEPT, packet not
 * replaced) is tested first. The entry's kind, found once per ruleset (hook_vec_build), says
 * what to do: call a function; apply an engine table's chain without rules, outside TRACE, here
 * without a call or a hook state (what traversing it would do, box_table_run: chain_policy);
 * enter an engine table by a direct call.
 */
static inline __attribute__((always_inline)) int
run_list(struct box *b, const struct box_hook_entry *e, const struct box_hook_entry *end,
	 struct box_hook_state *st, struct pkt **pp, struct box_drop *drop)
{
	struct pkt *p = *pp;

	for (;; e++) {
		const unsigned kind = end ? (e < end ? e->kind : BOX_HOOK_END) : e->kind;
		struct run_out o;
		int v;

		if (__builtin_expect(kind == BOX_HOOK_FN, 1)) {
			v = e->fn(e->priv, st, p);
			if (__builtin_expect(v == EXT_ACCEPT && !st->replaced, 1))
				continue;
		} else if (kind == BOX_HOOK_END) {
			break;
		} else {
			if (kind == BOX_HOOK_POLICY && !p->trace && !b->trace_all) {
				if (chain_policy(e, p, st->hook, drop) == EXT_ACCEPT)
					continue;
				return EXT_DROP;
			}
			v = box_table_enter(st, p, e);
			if (v == EXT_ACCEPT)
				continue;
		}
		o = run_verdict(b, e, st, p, drop, v);
		if (o.p != p)
			*pp = p = o.p;
		if (o.v != EXT_ACCEPT)
			return o.v;
	}
	return EXT_ACCEPT;
}

/* A hook state for (family, hook) between interfaces in and out, reset. */
static inline struct box_hook_state hook_state(struct box *b, int family, unsigned hook, int in,
					       int out)
{
	return (struct box_hook_state){
	    .box = b,
	    .family = family,
	    .hook = hook,
	    .in = in,
	    .out = out,
	    .drop = {.kind = BOX_DROP_HOOK, .table = -1, .hook = hook},
	};
}

int box_run_hook_prio(struct box *b, int family, unsigned hook, int in, int out, struct pkt **pp,
		      struct box_drop *drop, int lo, int hi)
{
	const struct box_hook_vec *v = hook_vec(b, (unsigned)box_fam_index(family), hook);
	const struct box_hook_entry *e = v->e, *end = v->e + v->n;
	struct box_hook_state st = hook_state(b, family, hook, in, out);

	while (e < end && e->prio < lo)
		e++;
	while (hi != INT_MAX && end > e && end[-1].prio > hi)
		end--;
	return run_list(b, e, end, &st, pp, drop);
}

int box_run_hook_all(struct box *b, const struct box_hook_vec *v, int family, unsigned hook, int in,
		     int out, struct pkt **pp, struct box_drop *drop)
{
	const struct rules_ruleset *rs = b->cur[box_fam_index(family)];

	if (v->gen != b->hook_gen || v->rs_serial != (rs ? rs->serial : 0))
		v = hook_vec_build(b, (unsigned)box_fam_index(family), hook);
	return box_run_hook_vec(b, v, family, hook, in, out, pp, drop);
}

int box_run_hook_vec(struct box *b, const struct box_hook_vec *v, int family, unsigned hook, int in,
		     int out, struct pkt **pp, struct box_drop *drop)
{
	struct box_hook_state st = hook_state(b, family, hook, in, out);

	return run_list(b, v->e, NULL, &st, pp, drop);
}

/* box_run_hook's call for a current vector of engine tables of no rules only, outside TRACE:
 * their policies, counted, in order (chain_policy, without a call per table). */
int box_hook_policies(struct box *b, const struct box_hook_vec *v, const struct pkt *p,
		      unsigned hook, struct box_drop *drop)
{
	(void)b;
	for (const struct box_hook_entry *e = v->e, *end = v->e + v->n; e < end; e++)
		if (chain_policy(e, p, hook, drop) == EXT_DROP)
			return EXT_DROP;
	return EXT_ACCEPT;
}

/* ---- the transmit stage ------------------------------------------------------------------ */

int box_register_tx_hook(struct box *b, int family, int priority, box_hook_fn fn, void *priv)
{
	int lo = family == AF_INET6 ? 1 : 0, hi = family == AF_INET ? 0 : 1;

	if (!fn || (family && family != AF_INET && family != AF_INET6))
		return -EINVAL;
	for (int f = lo; f <= hi; f++)
		if (b->tx_hooks[f].n >= BOX_MAX_HOOK_FNS)
			return -ENOSPC;
	for (int f = lo; f <= hi; f++)
		add_one(&b->tx_hooks[f], priority, fn, priv, -1);
	return 0;
}

int box_unregister_tx_hook(struct box *b, int family, box_hook_fn fn, void *priv)
{
	int lo = family == AF_INET6 ? 1 : 0, hi = family == AF_INET ? 0 : 1, found = 0;

	for (int f = lo; f <= hi; f++)
		found |= remove_one(&b->tx_hooks[f], fn, priv);
	return found ? 0 : -ENOENT;
}

int box_run_tx_hooks(struct box *b, struct pkt *p, int oif, uint32_t mtu, struct box_drop *drop)
{
	const struct box_hook_list *l = &b->tx_hooks[box_fam_index(p->info.family)];
	struct box_hook_state st;

	if (!l->n)
		return EXT_ACCEPT;
	st = (struct box_hook_state){
	    .box = b,
	    .family = p->info.family,
	    .hook = HOOK_POSTROUTING,
	    .in = p->iif,
	    .out = oif,
	    .drop = {.kind = BOX_DROP_HOOK, .table = -1, .hook = HOOK_POSTROUTING},
	    .mtu = mtu,
	};
	return run_list(b, l->e, l->e + l->n, &st, &p, drop);
}

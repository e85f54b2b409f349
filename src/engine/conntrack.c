// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Connection tracking and defragmentation owned by the box, as a Linux network namespace owns
 * its nf_conntrack table and fragment queues.
 *
 *   box_set_ruleset(rs needing it) --> ct_wanted --(data-path thread, between packets)--+
 *   box_set_conntrack(b, true) ------------------------------------------------------+--> on:
 *        table + defragmenter made (hash keys from box_random), ct_attach's hooks registered,
 *        then NAT's (nat_attach, detached again before the table goes)
 *
 * While on, every packet the box finishes with passes box_pkt_release (the one caller of
 * ct_pkt_release): an entry made for a packet that was dropped before confirmation goes with
 * it. Reassembled packets are remembered (struct box_reasm) until they leave:
 *
 *   IPv4 datagram  xmit: ct_defrag4_fragment to min(mtu, frag_max_size); DF and too big:
 *                        ICMP "fragmentation needed", BOX_DROP_MTU
 *   IPv6 shadow    xmit: ct_defrag6_sync into each original, the originals leave, the shadow
 *                        is freed; deliver: the shadow is delivered, the originals freed;
 *                        drop: all freed, one drop counted
 *
 * The record is found by the packet's address, so every way a packet leaves goes through
 * box_pkt_free, xmit or deliver in path.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ct/ct.h"
#include "ct/ct_attach.h"
#include "ct/defrag.h"
#include "engine/engine_int.h"
#include "nat/nat_attach.h"

/* Hash buckets ct_sweep visits per clock move: replay moves the clock at every packet, so a
 * whole table (max_entries / 2 buckets) is visited every 128 moves; lookups and listings skip
 * expired entries meanwhile. */
#define BOX_CT_SWEEP_BUCKETS 256
/* NAT mappings nat_sweep looks at per clock move (the oldest first). */
#define BOX_NAT_SWEEP_MAPPINGS 64

static uint64_t seed64(struct box *b)
{
	uint64_t hi = box_random(b);

	return hi << 32 | box_random(b);
}

int box_set_conntrack(struct box *b, bool on)
{
	int rc;

	if (!on) {
		atomic_store(&b->ct_wanted, false);
		if (!b->ct_on)
			return 0;
		nat_helpers_detach(b, b->nat, b->ct);
		nat_detach(b, b->nat);
		b->nat = NULL;
		ct_detach(b, b->ct);
		b->ct_on = false;
		box_ct_free(b);
		return 0;
	}
	if (b->ct_on)
		return 0;
	if (!b->ct) {
		struct ct_config c;

		ct_config_default(&c);
		c.seed[0] = seed64(b);
		c.seed[1] = seed64(b);
		b->ct = ct_table_new(&c);
		if (!b->ct)
			return -ENOMEM;
	}
	if (!b->defrag) {
		struct ct_defrag_config d;

		ct_defrag_config_default(&d);
		d.seed[0] = seed64(b);
		d.seed[1] = seed64(b);
		b->defrag = ct_defrag_new(&d);
		if (!b->defrag)
			return -ENOMEM;
	}
	rc = ct_attach(b, b->ct);
	if (rc < 0)
		return rc;
	b->nat = nat_attach(b, b->ct);
	if (!b->nat) {
		rc = errno ? -errno : -ENOMEM;
		ct_detach(b, b->ct);
		return rc;
	}
	rc = nat_helpers_attach(b, b->nat, b->ct);
	if (rc < 0) {
		nat_detach(b, b->nat);
		b->nat = NULL;
		ct_detach(b, b->ct);
		return rc;
	}
	b->ct_on = true;
	return 0;
}

void box_ct_apply(struct box *b)
{
	if (b->ct_on || !atomic_load(&b->ct_wanted))
		return;
	atomic_store(&b->ct_wanted, false);
	box_set_conntrack(b, true); /* on failure it stays off: packets go untracked */
}

bool box_conntrack_on(struct box *b)
{
	box_ct_apply(b);
	return b->ct_on;
}

struct ct_table *box_ct(struct box *b)
{
	box_ct_apply(b);
	return b->ct_on ? b->ct : NULL;
}

struct ct_defrag *box_defrag(struct box *b)
{
	box_ct_apply(b);
	return b->ct_on ? b->defrag : NULL;
}

const struct ct_stats *box_ct_stats(const struct box *b)
{
	return b->ct_on ? ct_table_stats(b->ct) : NULL;
}

const struct ct_defrag_stats *box_defrag_stats(const struct box *b)
{
	return b->ct_on ? ct_defrag_stats(b->defrag) : NULL;
}

const struct nat_stats *box_nat_stats(const struct box *b)
{
	return b->ct_on && b->nat ? nat_table_stats(b->nat) : NULL;
}

bool box_ruleset_needs_conntrack(const struct rules_ruleset *rs)
{
	/* Rules decide, not tables: an empty nat table does nothing stateful here (the NAT
	 * targets, when they exist, declare needs_conntrack). */
	if (!rs)
		return false;
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

void box_ct_clock(struct box *b)
{
	box_ct_apply(b);
	if (!b->ct_on)
		return;
	ct_defrag_expire(b->defrag, b->now);
	ct_sweep(b->ct, b->now, BOX_CT_SWEEP_BUCKETS);
	nat_sweep(b->nat, b->now, BOX_NAT_SWEEP_MAPPINGS);
}

void box_ct_free(struct box *b)
{
	while (b->reasm) {
		struct box_reasm *r = b->reasm;

		b->reasm = r->next;
		pkt_free(r->pkt);
		box_reasm_free(r);
	}
	nat_helpers_detach(b, b->nat, b->ct);
	nat_detach(b, b->nat); /* it watches the table: before it */
	b->nat = NULL;
	ct_table_free(b->ct);
	ct_defrag_free(b->defrag);
	b->ct = NULL;
	b->defrag = NULL;
}

/* ---- packets ----------------------------------------------------------------------------- */

void box_pkt_release(struct box *b, struct pkt *p)
{
	if (b->ct && p->ct)
		ct_pkt_release(b->ct, p);
}

struct box_reasm *box_reasm_take(struct box *b, const struct pkt *p)
{
	for (struct box_reasm **pp = &b->reasm; *pp; pp = &(*pp)->next) {
		struct box_reasm *r = *pp;

		if (r->pkt == p) {
			*pp = r->next;
			return r;
		}
	}
	return NULL;
}

void box_reasm_free(struct box_reasm *r)
{
	if (!r)
		return;
	for (unsigned i = 0; i < r->norig; i++)
		pkt_free(r->orig[i]);
	free(r->orig);
	free(r);
}

void box_pkt_free(struct box *b, struct pkt *p)
{
	box_pkt_release(b, p);
	if (b->reasm)
		box_reasm_free(box_reasm_take(b, p));
	pkt_free(p);
}

int box_defrag_step(struct box *b, unsigned hook, struct pkt **pp, enum pkt_link link,
		    struct box_drop *drop)
{
	struct ct_defrag_out out;
	struct box_reasm *r;

	switch (ct_defrag_in(b->defrag, *pp, link, b->now, &out)) {
	case CT_DEFRAG_PASS:
		return EXT_ACCEPT;
	case CT_DEFRAG_HELD:
		return EXT_STOLEN;
	case CT_DEFRAG_DROP:
		*drop = (struct box_drop){
		    .kind = BOX_DROP_DEFRAG, .table = -1, .hook = hook, .defrag = out.reason};
		return EXT_DROP;
	case CT_DEFRAG_DONE:
		break;
	}
	*pp = out.pkt;
	r = calloc(1, sizeof(*r));
	if (!r) {
		for (unsigned i = 0; i < out.norig; i++)
			pkt_free(out.orig[i]);
		free(out.orig);
		*drop = (struct box_drop){.kind = BOX_DROP_DEFRAG,
					  .table = -1,
					  .hook = hook,
					  .defrag = CT_DEFRAG_ST_NOMEM};
		return EXT_DROP;
	}
	r->pkt = out.pkt;
	r->orig = out.orig;
	r->norig = out.norig;
	r->frag_max_size = out.frag_max_size;
	r->next = b->reasm;
	b->reasm = r;
	return EXT_ACCEPT;
}

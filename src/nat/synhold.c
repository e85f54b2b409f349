// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * RFC 5382 REQ-4: an unsolicited inbound SYN is not answered for at least 6 s. If the inside
 * host opens that connection meanwhile (simultaneous open through the NAT: both peers
 * learnt each other's mapping elsewhere), the original SYN is dropped silently and the
 * peer's retransmission gets in; otherwise port unreachable is sent for it.
 *
 *   PREROUTING  nat_inbound: a mapping's filtering refuses a TCP SYN -> binding.syn_refused
 *   INPUT       (the box's filter accepted it) nat_syn_hold: copied to the queue, the
 *               packet dropped (the box's own stack must not answer it with a RST)
 *   POSTROUTING an outbound SYN whose reply tuple is a held SYN's tuple: that one is freed
 *   clock       nat_sweep -> nat_held_expire: older than syn_hold_timeout -> port unreachable
 *
 * The queue is a FIFO (arrival order is expiry order) of at most syn_hold_max copies.
 */
#include <stdlib.h>
#include <string.h>

#include "nat/nat_int.h"

void nat_set_syn_unreach(struct nat_table *n, void (*fn)(void *priv, const struct pkt *syn),
			 void *priv)
{
	n->syn_unreach = fn;
	n->syn_unreach_priv = priv;
}

bool nat_syn_hold(struct nat_table *n, const struct pkt *p, uint64_t now)
{
	struct ct_entry *e = ct_pkt_entry(p);
	struct nat_binding *b = e ? ct_ext_find(e, CT_EXT_NAT) : NULL;
	struct nat_held *h;

	if (!b || !b->syn_refused)
		return false;
	b->syn_refused = false;
	if (!n->cfg.syn_hold_timeout)
		return true; /* never answered: dropped now */
	if (n->nheld >= n->cfg.syn_hold_max) {
		n->stats.syn_held_overflow++;
		return true;
	}
	h = malloc(sizeof(*h));
	if (!h || !(h->syn = pkt_clone(p))) {
		free(h);
		n->stats.syn_held_overflow++;
		return true;
	}
	h->syn->ct = NULL; /* the entry goes with the original packet */
	h->orig = e->th[CT_DIR_ORIGINAL].tuple;
	h->at = now;
	h->next = NULL;
	if (n->held_tail)
		n->held_tail->next = h;
	else
		n->held = h;
	n->held_tail = h;
	n->nheld++;
	n->stats.syn_held++;
	return true;
}

static void held_unlink(struct nat_table *n, struct nat_held *prev, struct nat_held *h)
{
	if (prev)
		prev->next = h->next;
	else
		n->held = h->next;
	if (n->held_tail == h)
		n->held_tail = prev;
	n->nheld--;
	pkt_free(h->syn);
	free(h);
}

void nat_syn_outbound(struct nat_table *n, const struct pkt *p)
{
	const struct ct_entry *e = ct_pkt_entry(p);
	const struct ct_tuple *rt;

	if (!n->held || !e || p->info.l4proto != 6 || !p->info.has_l4 ||
	    (p->info.tcp_flags & 0x12) != 0x02)
		return;
	rt = &e->th[CT_DIR_REPLY].tuple;
	for (struct nat_held *h = n->held, *prev = NULL, *nx; h; h = nx) {
		nx = h->next;
		if (!memcmp(&h->orig, rt, sizeof(*rt))) {
			n->stats.syn_held_dropped++;
			held_unlink(n, prev, h);
		} else {
			prev = h;
		}
	}
}

void nat_held_expire(struct nat_table *n, uint64_t now)
{
	while (n->held && now - n->held->at >= n->cfg.syn_hold_timeout) {
		if (n->cfg.syn_hold_timeout && n->syn_unreach) {
			n->syn_unreach(n->syn_unreach_priv, n->held->syn);
			n->stats.syn_unreachable++;
		}
		held_unlink(n, NULL, n->held);
	}
}

void nat_held_free(struct nat_table *n)
{
	while (n->held)
		held_unlink(n, NULL, n->held);
}

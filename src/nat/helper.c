// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the NAT helpers share: binding an expected connection after its master's translation,
 * and resizing a TCP payload (helper.h). The IP fields a resize touches:
 *
 *   IPv4  +2 total length   (+10 header checksum, RFC 1624)     IPv6  +4 payload length
 *   TCP   +16 checksum: recomputed over the segment (every byte after the change moved; an
 *         incremental update would have to read them all anyway, as Linux's mangling does)
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "nat/helper.h"
#include "nat/seqadj.h"

bool nat_entry_translated(const struct ct_entry *e)
{
	const struct nat_binding *b = ct_ext_find(e, CT_EXT_NAT);

	return b && b->status;
}

void nat_follow_master(struct ct_table *t, struct ct_entry *child, const struct ct_expect *x,
		       uint64_t now)
{
	const struct ct_helper *h = ct_entry_helper(x->master);
	struct nat_table *n = h ? ct_helper_nat_priv(t, h->id) : NULL;
	const struct ct_tuple *mt = ct_entry_tuple(x->master, (enum ct_dir)x->dir);
	struct nat_range r;
	struct pkt p;

	if (!n)
		return;
	/* nat_setup finds the entry through a packet; this one carries nothing else */
	memset(&p, 0, sizeof(p));
	p.ct = child;
	memset(&r, 0, sizeof(r));
	r.family = mt->family;
	r.mapping = NAT_B_APD; /* one tuple, no mapping of its own: it lives with its master */
	r.flags = NAT_R_MAP_IPS;
	r.min_addr = r.max_addr = mt->dst;
	/* failures leave that manip undecided: the connection passes untranslated, as when
	 * the kernel finds no unique tuple */
	nat_setup(n, &p, NAT_MANIP_SRC, &r, NULL, now);
	r.flags |= NAT_R_PROTO;
	r.min_addr = r.max_addr = mt->src;
	r.min_port = r.max_port = x->saved_port;
	nat_setup(n, &p, NAT_MANIP_DST, &r, NULL, now);
}

int nat_expect_port(struct nat_table *n, struct ct_table *t, struct ct_entry *e,
		    struct ct_expect *x, uint16_t port, uint64_t now)
{
	const struct nat_pool *pl = nat_pool_get(n, x->tuple.family, &x->tuple.dst,
						 x->tuple.l4proto, ct_entry_zone(e), false);
	int r = -EBUSY;

	for (uint32_t q = port; q && q <= 65535; q++) {
		/* a mapping's inbound traffic must not be taken for a data connection */
		if (nat_pool_test(pl, (uint16_t)q))
			continue;
		x->tuple.d.port = (uint16_t)q;
		r = ct_expect_related(t, e, x, now);
		if (r != -EBUSY)
			break;
	}
	return r;
}

int nat_mangle_tcp(struct ct_table *t, struct pkt *p, struct ct_entry *e, enum ct_dir dir,
		   uint32_t off, uint32_t len, const char *text, uint32_t tlen)
{
	struct pkt_info *in = &p->info;
	int32_t delta = (int32_t)tlen - (int32_t)len;
	uint16_t iplen, ipcheck;
	uint8_t sb[4];
	uint32_t seq, lenoff = in->l3off + (in->family == AF_INET ? 2 : 4);
	int r;

	if (!in->has_l4 || in->l4proto != IPPROTO_TCP || off < in->payload_off ||
	    off + len > in->l3off + in->l3len)
		return -EINVAL;
	if (pkt_copy_out(p, in->l4off + 4, sb, 4) || pkt_load_be16(p, lenoff, &iplen))
		return -EINVAL;
	seq = (uint32_t)sb[0] << 24 | (uint32_t)sb[1] << 16 | (uint32_t)sb[2] << 8 | sb[3];
	if ((int64_t)iplen + delta > 65535 || (int64_t)iplen + delta < 0)
		return -EMSGSIZE;
	r = pkt_splice(p, off, len, text, tlen);
	if (r)
		return r;
	pkt_store_be16(p, lenoff, (uint16_t)(iplen + delta));
	if (in->family == AF_INET && !pkt_load_be16(p, in->l3off + 10, &ipcheck))
		pkt_store_be16(p, in->l3off + 10,
			       pkt_csum_replace2(ipcheck, iplen, (uint16_t)(iplen + delta)));
	in->l3len = (uint32_t)((int64_t)in->l3len + delta);
	in->l4len = (uint32_t)((int64_t)in->l4len + delta);
	pkt_l4_csum_update(p);
	return nat_seqadj_set(t, e, dir, seq, delta);
}

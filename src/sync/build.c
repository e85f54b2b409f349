// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A connection of the table as a message carries it (what conntrackd's build step takes from
 * a kernel flow, SYNC-WIRE.md 4.3/4.4), and a flow printed for `sync external/internal`.
 *
 * NAT is not sent as such: the receiver rebuilds the reply tuple from the original one plus
 *   SNAT address = reply destination   SPAT port = reply destination port
 *   DNAT address = reply source        DPAT port = reply source port
 * each sent only when it differs from the original tuple (4.6.1).
 */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "ct/ct.h"
#include "ct/expect.h"
#include "ct/helper.h"
#include "ct/labels.h"
#include "sync/sync_int.h"

#define BIT(id) (1ull << (id))

static bool has_ports(uint8_t l4)
{
	return l4 == 6 || l4 == 17 || l4 == 132 || l4 == 33;
}

/* pt_addr_eq's comparison of all 16 bytes, inline: two loads a side instead of a call */
static inline bool addr_eq(const union pt_addr *a, const union pt_addr *b)
{
	uint64_t x[2], y[2];

	memcpy(x, a->b, sizeof(x));
	memcpy(y, b->b, sizeof(y));
	return !((x[0] ^ y[0]) | (x[1] ^ y[1]));
}

void sync_flow_from_entry(struct sync_flow *f, const struct ct_entry *e, bool wscale, uint64_t now)
{
	const struct ct_tuple *o = ct_entry_tuple(e, CT_DIR_ORIGINAL);
	const struct ct_tuple *r = ct_entry_tuple(e, CT_DIR_REPLY);
	const struct ct_entry *m = ct_entry_master(e);
	const struct ct_helper *h = ct_entry_helper(e);
	struct ct_labels lb;
	uint64_t left = ct_entry_expires_in(e, now);
	bool ports = has_ports(o->l4proto);

	/* not cleared whole (a quarter of a kilobyte per message): a field is read only when its
	 * bit of have is set, and each is written where its bit is set */
	f->orig = *o;
	f->have = BIT(o->family == AF_INET ? SA_IPV4 : SA_IPV6) | BIT(SA_L4PROTO) | BIT(SA_STATUS) |
		  BIT(SA_TIMEOUT) | BIT(SA_MARK);
	f->tcp_state = 0;
	f->status = ct_entry_status(e) & ~(uint32_t)CT_S_DYING;
	f->timeout = (uint32_t)((left + CT_SEC - 1) / CT_SEC);
	f->mark = ct_entry_mark(e);
	if (ports)
		f->have |= BIT(SA_PORT);
	if (o->l4proto == 6) {
		f->tcp_state = (uint8_t)ct_entry_tcp_state(e);
		if (f->tcp_state)
			f->have |= BIT(SA_TCP_STATE);
		if (wscale && ct_entry_tcp_wscale(e, f->wscale))
			f->have |= BIT(SA_TCP_WSCALE_ORIG) | BIT(SA_TCP_WSCALE_REPL);
	}
	if (m) {
		f->master = *ct_entry_tuple(m, CT_DIR_ORIGINAL);
		f->have |= BIT(f->master.family == AF_INET ? SA_MASTER_IPV4 : SA_MASTER_IPV6) |
			   BIT(SA_MASTER_L4PROTO);
		if (has_ports(f->master.l4proto))
			f->have |= BIT(SA_MASTER_PORT);
	}
	if (!addr_eq(&r->dst, &o->src)) {
		f->snat = r->dst;
		f->have |= BIT(o->family == AF_INET ? SA_SNAT_IPV4 : SA_SNAT_IPV6);
	}
	if (ports && r->d.port != o->s.port) {
		f->spat = r->d.port;
		f->have |= BIT(SA_SPAT_PORT);
	}
	if (f->have & (BIT(SA_SNAT_IPV4) | BIT(SA_SNAT_IPV6) | BIT(SA_SPAT_PORT)))
		f->status |= SYNC_IPS_SRC_NAT | SYNC_IPS_SRC_NAT_DONE;
	if (!addr_eq(&r->src, &o->dst)) {
		f->dnat = r->src;
		f->have |= BIT(o->family == AF_INET ? SA_DNAT_IPV4 : SA_DNAT_IPV6);
	}
	if (ports && r->s.port != o->d.port) {
		f->dpat = r->s.port;
		f->have |= BIT(SA_DPAT_PORT);
	}
	if (f->have & (BIT(SA_DNAT_IPV4) | BIT(SA_DNAT_IPV6) | BIT(SA_DPAT_PORT)))
		f->status |= SYNC_IPS_DST_NAT | SYNC_IPS_DST_NAT_DONE;
	if (h && h->name && strlen(h->name) < SYNC_HELPER_MAX - 4) {
		snprintf(f->helper, sizeof(f->helper), "%s", h->name);
		f->have |= BIT(SA_HELPER_NAME);
	}
	if (ct_entry_labels(e, &lb) && (lb.words[0] | lb.words[1] | lb.words[2] | lb.words[3])) {
		memcpy(f->labels, lb.words, sizeof(f->labels));
		f->have |= BIT(SA_LABELS);
	}
	if (o->zone)
		f->have |= BIT(SA_ZONE);
}

void sync_flow_del(struct sync_flow *f, const struct ct_tuple *orig)
{
	memset(f, 0, sizeof(*f));
	f->orig = *orig;
	f->have = BIT(orig->family == AF_INET ? SA_IPV4 : SA_IPV6) | BIT(SA_L4PROTO);
	if (has_ports(orig->l4proto))
		f->have |= BIT(SA_PORT);
	if (orig->zone)
		f->have |= BIT(SA_ZONE);
}

/* ---- what is not replicated (sync_filter) ----------------------------------------------- */

static bool prefix_match(int family, const union pt_addr *a, const union pt_addr *p, unsigned plen)
{
	unsigned bytes = plen / 8, bits = plen % 8;

	if (plen > (family == AF_INET ? 32u : 128u))
		return false;
	if (memcmp(a->b, p->b, bytes))
		return false;
	if (bits) {
		uint8_t m = (uint8_t)(0xff << (8 - bits));

		return (a->b[bytes] & m) == (p->b[bytes] & m);
	}
	return true;
}

bool sync_filter_pass(const struct sync *s, const struct ct_entry *e)
{
	const struct sync_filter *fl = &s->cfg.filter;
	const struct ct_tuple *o = ct_entry_tuple(e, CT_DIR_ORIGINAL);
	const struct ct_tuple *r = ct_entry_tuple(e, CT_DIR_REPLY);

	if (fl->proto_ignore[o->l4proto / 32] >> (o->l4proto % 32) & 1)
		return false;
	for (unsigned i = 0; i < fl->naddr; i++) {
		const union pt_addr *p = &fl->addr_ignore[i].addr;

		if (fl->addr_ignore[i].family != o->family)
			continue;
		if (prefix_match(o->family, &o->src, p, fl->addr_ignore[i].plen) ||
		    prefix_match(o->family, &o->dst, p, fl->addr_ignore[i].plen) ||
		    prefix_match(o->family, &r->src, p, fl->addr_ignore[i].plen) ||
		    prefix_match(o->family, &r->dst, p, fl->addr_ignore[i].plen))
			return false;
	}
	if (o->l4proto == 6 && (fl->tcp_state_ignore >> ct_entry_tcp_state(e) & 1))
		return false;
	if (fl->mark_set && (ct_entry_mark(e) & fl->mark_mask) != fl->mark_value)
		return false;
	if (fl->no_local && fl->local_fn && fl->local_fn(fl->local_priv, o->family, &o->dst))
		return false;
	return true;
}

static const char *proto_name(uint8_t l4)
{
	switch (l4) {
	case 6:
		return "tcp";
	case 17:
		return "udp";
	case 1:
		return "icmp";
	case 58:
		return "icmpv6";
	case 132:
		return "sctp";
	case 33:
		return "dccp";
	default:
		return "unknown";
	}
}

static const char *const tcp_states[] = {
    "NONE",	  "SYN_SENT", "SYN_RECV",  "ESTABLISHED", "FIN_WAIT",
    "CLOSE_WAIT", "LAST_ACK", "TIME_WAIT", "CLOSE",	  "SYN_SENT2",
};

int sync_flow_format(const struct sync_flow *f, char *buf, size_t len)
{
	char a[64], b[64];
	size_t n = 0;
	const struct ct_tuple *t = &f->orig;

#define OUT(...)                                                                                   \
	do {                                                                                       \
		int k_ = snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__);                    \
		if (k_ > 0)                                                                        \
			n += (size_t)k_;                                                           \
	} while (0)
	OUT("%s %u", proto_name(t->l4proto), t->l4proto);
	if (f->have & BIT(SA_TIMEOUT))
		OUT(" %u", f->timeout);
	if (t->l4proto == 6 && (f->have & BIT(SA_TCP_STATE)) && f->tcp_state < 10)
		OUT(" %s", tcp_states[f->tcp_state]);
	OUT(" src=%s dst=%s", pt_addr_str(t->family, &t->src, a, sizeof(a)),
	    pt_addr_str(t->family, &t->dst, b, sizeof(b)));
	if (has_ports(t->l4proto))
		OUT(" sport=%u dport=%u", t->s.port, t->d.port);
	else if (t->l4proto == 1 || t->l4proto == 58)
		OUT(" type=%u code=%u id=%u", t->d.icmp.type, t->d.icmp.code, t->s.icmp_id);
	if (f->have & (BIT(SA_SNAT_IPV4) | BIT(SA_SNAT_IPV6)))
		OUT(" snat=%s", pt_addr_str(t->family, &f->snat, a, sizeof(a)));
	if (f->have & BIT(SA_SPAT_PORT))
		OUT(" spat=%u", f->spat);
	if (f->have & (BIT(SA_DNAT_IPV4) | BIT(SA_DNAT_IPV6)))
		OUT(" dnat=%s", pt_addr_str(t->family, &f->dnat, a, sizeof(a)));
	if (f->have & BIT(SA_DPAT_PORT))
		OUT(" dpat=%u", f->dpat);
	if (f->have & BIT(SA_MARK))
		OUT(" mark=%u", f->mark);
	if (t->zone)
		OUT(" zone=%u", t->zone);
	if (f->have & BIT(SA_HELPER_NAME))
		OUT(" helper=%s", f->helper);
	if (f->have & BIT(SA_LABELS))
		OUT(" labels=%08x%08x%08x%08x", f->labels[3], f->labels[2], f->labels[1],
		    f->labels[0]);
#undef OUT
	return (int)n;
}

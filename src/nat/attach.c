// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NAT hooked into a box (the one file of src/nat that knows the engine). Attached by
 * box_set_conntrack (src/engine/conntrack.c) when tracking turns on.
 *
 *   PREROUTING, OUTPUT    BOX_PRIO_NAT_DST + 1   after the nat table (which runs only for a
 *   POSTROUTING, INPUT    BOX_PRIO_NAT_SRC + 1   NEW packet whose manip is not bound yet):
 *       NEW: a target's request -> nat_setup (MASQUERADE: the outgoing interface's first
 *            address of the family; REDIRECT: the incoming one's, loopback at OUTPUT);
 *            none -> nat_inbound at PREROUTING, else the null binding
 *       NEW at INPUT: a TCP SYN a mapping's filtering refused is held (synhold.c, RFC 5382
 *            REQ-4) and dropped; NEW at POSTROUTING: an outbound SYN ends such a hold
 *       every packet: nat_translate, then nat_hold (session timers, RFC 5382 REQ-5)
 *   an address removed from an interface (box_del_addr): nat_addr_removed (MASQUERADE)
 *   A request that cannot be bound (no free port) drops the packet, as the kernel does; a rule
 *   with a BEHAVE mapping (not the Linux-compatible mode) also tells the sender with
 *   "communication administratively prohibited" (RFC 5508 REQ-8).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nat/nat_attach.h"

static uint32_t box_rand(void *b)
{
	return box_random(b);
}

/* The first address of an interface in a family; false if it has none. */
static bool iface_addr(struct box *b, int ifindex, int family, union pt_addr *a)
{
	const struct box_addr *ba;

	for (unsigned i = 0; (ba = box_addr_at(b, i)); i++)
		if (ba->ifindex == ifindex && ba->family == family) {
			*a = ba->addr;
			return true;
		}
	return false;
}

static int drop(struct box_hook_state *st)
{
	return box_hook_drop(st, BOX_DROP_HOOK, TABLE_NAT);
}

static int bind_new(struct nat_table *n, struct box_hook_state *st, struct pkt *p,
		    enum nat_manip m, uint64_t now)
{
	const struct nat_range *req = nat_pending(p, m);
	struct nat_where w = {.in = st->in, .out = st->out};
	struct nat_range r;

	if (!req) {
		if (m == NAT_MANIP_DST && st->hook == HOOK_PREROUTING &&
		    nat_inbound(n, p, &w, now) != 0)
			return 0;
		return nat_setup_null(n, p, m);
	}
	r = *req;
	if (r.flags & (NAT_R_MASQUERADE | NAT_R_REDIRECT)) {
		union pt_addr a;

		memset(&a, 0, sizeof(a));
		if (r.flags & NAT_R_MASQUERADE) {
			if (!iface_addr(st->box, st->out, st->family, &a))
				return -EADDRNOTAVAIL;
		} else if (st->hook == HOOK_OUTPUT) {
			if (st->family == AF_INET)
				a.b[0] = 127, a.b[3] = 1;
			else
				a.b[15] = 1;
		} else if (!iface_addr(st->box, st->in, st->family, &a)) {
			return -EADDRNOTAVAIL;
		}
		r.min_addr = r.max_addr = a;
		r.flags |= NAT_R_MAP_IPS;
	}
	return nat_setup(n, p, m, &r, &w, now);
}

static int nat_hook(void *priv, struct box_hook_state *st, struct pkt *p)
{
	struct nat_table *n = priv;
	uint64_t now = box_now(st->box);
	enum nat_manip m = st->hook == HOOK_PREROUTING || st->hook == HOOK_OUTPUT ? NAT_MANIP_DST
										  : NAT_MANIP_SRC;

	if (!p->ct)
		return EXT_ACCEPT;
	if (ct_pkt_ctinfo(p) == CT_NEW && !nat_bound(p, m)) {
		const struct nat_range *req = nat_pending(p, m);
		bool behave = req && nat_range_mapping(req) != NAT_B_APD;
		int err = bind_new(n, st, p, m, now);

		if (err == -ENOSPC && behave) /* RFC 5508 REQ-8; Linux drops silently */
			box_send_icmp_error(st->box, p, st->family == AF_INET ? 3 : 1,
					    st->family == AF_INET ? 13 : 1);
		if (err < 0)
			return drop(st);
	}
	if (st->hook == HOOK_INPUT && ct_pkt_ctinfo(p) == CT_NEW && nat_syn_hold(n, p, now))
		return drop(st); /* RFC 5382 REQ-4: held, the box must not answer it */
	if (nat_translate(n, p, st->hook, now) < 0)
		return drop(st);
	nat_hold(n, p, now);
	if (st->hook == HOOK_POSTROUTING && ct_pkt_ctinfo(p) == CT_NEW)
		nat_syn_outbound(n, p);
	return EXT_ACCEPT;
}

/* RFC 5382 REQ-4: port unreachable (ICMPv6: port unreachable, 1/4) for a held SYN. */
static void syn_unreach(void *b, const struct pkt *syn)
{
	bool v4 = syn->info.family == AF_INET;

	box_send_icmp_error(b, syn, v4 ? 3 : 1, v4 ? 3 : 4);
}

static void addr_gone(void *priv, struct box *b, int ifindex, int family, const union pt_addr *a)
{
	nat_addr_removed(priv, ifindex, family, a, box_now(b));
}

static const struct {
	unsigned hook;
	int prio;
} nat_hooks[] = {
    {HOOK_PREROUTING, BOX_PRIO_NAT_DST + 1},
    {HOOK_OUTPUT, BOX_PRIO_NAT_DST + 1},
    {HOOK_POSTROUTING, BOX_PRIO_NAT_SRC + 1},
    {HOOK_INPUT, BOX_PRIO_NAT_SRC + 1},
};

struct nat_table *nat_attach(struct box *b, struct ct_table *ct)
{
	struct nat_table *n = nat_table_new(ct, NULL, box_rand, b);

	if (!n)
		return NULL;
	nat_set_syn_unreach(n, syn_unreach, b);
	for (unsigned i = 0; i < sizeof(nat_hooks) / sizeof(nat_hooks[0]); i++)
		if (box_register_hook(b, 0, nat_hooks[i].hook, nat_hooks[i].prio, nat_hook, n)) {
			nat_detach(b, n);
			errno = ENOSPC;
			return NULL;
		}
	if (box_watch_addr_gone(b, addr_gone, n)) {
		nat_detach(b, n);
		errno = ENOSPC;
		return NULL;
	}
	return n;
}

void nat_detach(struct box *b, struct nat_table *n)
{
	if (!n)
		return;
	for (unsigned i = 0; i < sizeof(nat_hooks) / sizeof(nat_hooks[0]); i++)
		box_unregister_hook(b, 0, nat_hooks[i].hook, nat_hook, n);
	box_unwatch_addr_gone(b, addr_gone, n);
	nat_table_free(n);
}

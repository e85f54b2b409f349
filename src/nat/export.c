// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The mapping table seen from outside, for state replication between pkttables boxes
 * (src/sync): what was made or refreshed since a time, and a mapping made on another box taken
 * in, so that a STUN-learned mapping (and the call on it) survives a failover, and so that the
 * port allocator of the box that takes over treats the mapping's port as taken (a taken-in
 * mapping owns its port in the pool's bitmap, as any mapping).
 *
 * A taken-in mapping is refreshed at `now` with the timeout it came with, so it sits at the
 * new end of the age list like any refreshed one (the list stays in refresh order), and lives
 * that long unless the sender refreshes it again or a local connection uses it.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "nat/nat_int.h"

static void state_of(const struct nat_mapping *m, struct nat_map_state *s)
{
	memset(s, 0, sizeof(*s));
	s->family = m->family;
	s->l4proto = m->l4proto;
	s->mode = m->mode;
	s->zone = m->zone;
	s->int_addr = m->int_addr;
	s->ext_addr = m->ext_addr;
	s->remote = m->remote;
	s->int_port = m->int_port;
	s->ext_port = m->ext_port;
	s->timeout = m->timeout;
	s->refreshed = m->expires - m->timeout;
	s->range = m->range;
}

unsigned nat_mapping_export(struct nat_table *n, uint64_t since,
			    bool (*fn)(void *priv, const struct nat_map_state *m), void *priv)
{
	unsigned seen = 0;

	/* the age list is in refresh order: from the newest back to the first older one */
	for (const struct nat_mapping *m = n->newest; m; m = m->prev) {
		struct nat_map_state s;

		if (m->expires - m->timeout < since)
			break;
		state_of(m, &s);
		seen++;
		if (!fn(priv, &s))
			break;
	}
	return seen;
}

static bool valid(const struct nat_map_state *s)
{
	if ((s->family != AF_INET && s->family != AF_INET6) ||
	    (s->mode != NAT_B_EI && s->mode != NAT_B_AD) || !pkt_proto(s->l4proto)->ports ||
	    !s->int_port || !s->ext_port || !s->timeout)
		return false;
	if (s->range.family && s->range.family != s->family)
		return false;
	return s->range.mapping <= NAT_B_APD && s->range.filtering <= NAT_B_APD &&
	       s->range.refresh <= NAT_REFRESH_BOTH && s->range.hairpin <= NAT_HAIRPIN_OFF &&
	       s->range.netmap <= 1;
}

int nat_mapping_import(struct nat_table *n, const struct nat_map_state *s, uint64_t now)
{
	const union pt_addr *remote = s->mode == NAT_B_AD ? &s->remote : NULL;
	struct nat_mapping *m;
	struct nat_pool *pl;
	struct ct_tuple orig;

	if (!valid(s))
		return -EINVAL;
	m = nat_mapping_find_ext(n, s->family, &s->ext_addr, s->ext_port, s->l4proto, s->zone, now);
	if (m) {
		if (m->mode != s->mode || m->int_port != s->int_port ||
		    !pt_addr_eq(&m->int_addr, &s->int_addr) ||
		    (remote && !pt_addr_eq(&m->remote, remote)))
			return -EEXIST; /* that external endpoint is another internal one's here */
		nat_mapping_refresh(n, m, now);
		m->timeout = s->timeout;
		m->expires = now + s->timeout;
		return 0;
	}
	if (nat_mapping_find_int(n, s->family, &s->int_addr, s->int_port, s->l4proto, s->zone,
				 remote, now))
		return -EEXIST; /* the internal endpoint has another mapping here */
	if (!(pl = nat_pool_get(n, s->family, &s->ext_addr, s->l4proto, s->zone, true)))
		return -ENOSPC;
	if (nat_pool_test(pl, s->ext_port)) {
		nat_pool_put(n, pl);
		return -EEXIST; /* the port is owned here */
	}
	ct_tuple_zero(&orig);
	orig.family = s->family;
	orig.l4proto = s->l4proto;
	orig.zone = s->zone;
	orig.src = s->int_addr;
	orig.s.port = s->int_port;
	if (remote)
		orig.dst = *remote;
	if (!(m = nat_mapping_new(n, pl, s->ext_port, &orig, &s->range,
				  (enum nat_behave_mode)s->mode, NULL, now))) {
		nat_pool_put(n, pl);
		return -ENOSPC;
	}
	m->timeout = s->timeout;
	m->expires = now + s->timeout;
	return 1;
}

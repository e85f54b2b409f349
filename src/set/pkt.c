// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Sets and packets: the key of a packet for a set (each dimension from the source or the
 * destination side, as -m set's "src,dst" flags say), -m set's lookup with its counter
 * conditions, -j SET's add, delete and map.
 *
 *   dimension   src side                     dst side
 *   ip, net     source address               destination address
 *   port        TCP/UDP/SCTP/UDP-Lite source port; ICMP type/code (either side); other
 *               protocols port 0; a non-first fragment has no key
 *   iface       in interface                 out interface (physdev: never, no bridge)
 *   mac         Ethernet source              Ethernet destination (none on a raw IP link)
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "set/set_int.h"

static bool port_of(const struct set *s, const struct pkt_info *in, bool src, struct set_key *k)
{
	uint8_t p = in->l4proto;

	if (!in->has_l4)
		return false;
	if (s->c.type->kind == SET_K_BITMAP_PORT && p != IPPROTO_TCP && p != IPPROTO_UDP &&
	    p != IPPROTO_UDPLITE)
		return false;
	k->proto = s->c.type->kind == SET_K_BITMAP_PORT ? 0 : p;
	if (p == IPPROTO_ICMP || p == IPPROTO_ICMPV6)
		k->port = (uint16_t)(in->icmp_type << 8 | in->icmp_code);
	else if (in->has_ports && p != IPPROTO_DCCP)
		k->port = src ? in->sport : in->dport;
	else
		k->port = 0;
	return true;
}

/* The key of the packet for set s; false when the packet has none (wrong family, missing
 * header, fewer flags than the set has dimensions). */
static bool key_of(const struct set *s, const struct set_pkt *sp, uint8_t dim, uint8_t dirs,
		   struct set_key *k)
{
	const struct pkt_info *in = &sp->pkt->info;
	unsigned ai = 0;

	memset(k, 0, sizeof(*k));
	if (dim < s->c.type->ndims)
		return false;
	if (!s->c.type->any_family && s->c.family != sp->family)
		return false;
	for (unsigned d = 0; d < s->c.type->ndims; d++) {
		bool src = dirs & (1u << d);

		switch (s->c.type->dims[d]) {
		case SET_D_IP:
		case SET_D_NET:
			k->ip[ai] = src ? in->src : in->dst;
			k->cidr[ai++] = (uint8_t)(s->alen * 8);
			break;
		case SET_D_PORT:
			if (!port_of(s, in, src, k))
				return false;
			break;
		case SET_D_IFACE: {
			const char *name = src ? sp->in : sp->out;

			if (!name || !*name)
				return false;
			snprintf(k->iface, sizeof(k->iface), "%s", name);
			break;
		}
		case SET_D_MAC:
			if (in->l2off == UINT32_MAX ||
			    pkt_copy_out(sp->pkt, in->l2off + (src ? 6 : 0), k->mac, 6) < 0)
				return false;
			break;
		default:
			return false;
		}
	}
	return true;
}

static bool cmp(uint8_t op, uint64_t have, uint64_t want)
{
	switch (op) {
	case SET_CMP_EQ:
		return have == want;
	case SET_CMP_NE:
		return have != want;
	case SET_CMP_LT:
		return have < want;
	case SET_CMP_GT:
		return have > want;
	default:
		return true;
	}
}

/* The counters of a found element: the update first, then the conditions on the updated
 * values, as the kernel does (tests/diff/sets: --packets-gt 1 drops the second packet). */
static bool counters_pass(const struct set *s, struct set_elem *e, const struct set_pkt *sp,
			  const struct set_match_opts *mo, bool skip_update)
{
	struct set_counters *cn = set_elem_counters(s, e);

	if (!cn)
		return true;
	if (!skip_update) {
		cn->packets++;
		cn->bytes += sp->len;
	}
	return cmp(mo->packets_op, cn->packets, mo->packets) &&
	       cmp(mo->bytes_op, cn->bytes, mo->bytes);
}

bool set_match_pkt(struct set_table *t, int id, const struct set_pkt *sp,
		   const struct set_match_opts *mo)
{
	struct set *s = set_get(t, id);
	struct set_elem *e;
	struct set_key k;

	if (!s)
		return false;
	if (s->c.type->kind == SET_K_LIST) {
		struct set_match_opts sub = *mo;

		sub.skip_counters = mo->skip_subcounters;
		sub.packets_op = sub.bytes_op = SET_CMP_NONE;
		for (uint32_t i = 0; i < s->nmember; i++) {
			struct set_key mk;

			e = s->slot[i];
			if (!set_elem_live(e, sp->now))
				continue;
			set_key_unpack(s, e->data + s->off_key, &mk);
			if (set_get(t, (int)mk.set_id) &&
			    set_get(t, (int)mk.set_id)->c.type->kind != SET_K_LIST &&
			    set_match_pkt(t, (int)mk.set_id, sp, &sub))
				return counters_pass(s, e, sp, mo, mo->skip_counters);
		}
		return false;
	}
	if (!key_of(s, sp, mo->dim, mo->dirs, &k) || !(e = set_lookup(s, &k, sp->now)))
		return false;
	if ((e->flags & SET_EF_NOMATCH) && !mo->return_nomatch)
		return false;
	return counters_pass(s, e, sp, mo, mo->skip_counters);
}

int set_add_pkt(struct set_table *t, int id, const struct set_pkt *sp, uint8_t dim, uint8_t dirs,
		const struct set_elem_opts *o, unsigned flags)
{
	struct set *s = set_get(t, id);
	struct set_elem_opts eo = *o;
	struct set_key k;

	if (!s)
		return -SET_E_NOSET;
	if (!s->c.has_timeout)
		eo.has_timeout = false;
	if (s->c.type->kind == SET_K_LIST) {
		/* into the first member that takes it */
		for (uint32_t i = 0; i < s->nmember; i++) {
			struct set_key mk;

			set_key_unpack(s, s->slot[i]->data + s->off_key, &mk);
			if (set_elem_live(s->slot[i], sp->now) &&
			    set_add_pkt(t, (int)mk.set_id, sp, dim, dirs, o, flags) == 0)
				return 0;
		}
		return -SET_E_NOSET;
	}
	if (!key_of(s, sp, dim, dirs, &k))
		return -EINVAL;
	return set_add(t, s, &k, &eo, flags, sp->now);
}

int set_del_pkt(struct set_table *t, int id, const struct set_pkt *sp, uint8_t dim, uint8_t dirs)
{
	struct set *s = set_get(t, id);
	struct set_elem_opts eo = {0};
	struct set_key k;

	if (!s)
		return -SET_E_NOSET;
	if (s->c.type->kind == SET_K_LIST) {
		for (uint32_t i = 0; i < s->nmember; i++) {
			struct set_key mk;

			set_key_unpack(s, s->slot[i]->data + s->off_key, &mk);
			if (set_elem_live(s->slot[i], sp->now) &&
			    set_del_pkt(t, (int)mk.set_id, sp, dim, dirs) == 0)
				return 0;
		}
		return -SET_E_NOELEM;
	}
	if (!key_of(s, sp, dim, dirs, &k))
		return -EINVAL;
	return set_del(t, s, &k, &eo, 0, sp->now);
}

int set_map_pkt(struct set_table *t, int id, const struct set_pkt *sp, uint8_t dim, uint8_t dirs,
		struct set_elem_opts *o)
{
	struct set *s = set_get(t, id);
	struct set_skbinfo *sk;
	struct set_elem *e;
	struct set_key k;

	memset(o, 0, sizeof(*o));
	if (!s)
		return -1;
	if (s->c.type->kind == SET_K_LIST) {
		for (uint32_t i = 0; i < s->nmember; i++) {
			struct set_key mk;

			set_key_unpack(s, s->slot[i]->data + s->off_key, &mk);
			if (set_elem_live(s->slot[i], sp->now) &&
			    set_map_pkt(t, (int)mk.set_id, sp, dim, dirs, o) == 0)
				return 0;
		}
		return -1;
	}
	if (!key_of(s, sp, dim, dirs, &k) || !(e = set_lookup(s, &k, sp->now)) ||
	    (e->flags & SET_EF_NOMATCH))
		return -1;
	if ((sk = set_elem_skbinfo(s, e))) {
		o->has_mark = o->has_prio = o->has_queue = true;
		o->skbmark = sk->mark;
		o->skbmarkmask = sk->mask;
		o->skbprio = sk->prio;
		o->skbqueue = sk->queue;
	}
	return 0;
}

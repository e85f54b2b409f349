// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NAT in a box: the "nat" plug-in (engine/box.h, "plug-ins"), on right after conntrack and off
 * right before it. It runs the nat table itself, behind its own gate (the kernel's
 * nf_nat_inet_fn): only a tracked connection's first packet (NEW), and only while the manip of
 * the hook (DST at PREROUTING/OUTPUT, SRC at POSTROUTING/INPUT) is not bound yet.
 *
 *   PREROUTING, OUTPUT    BOX_PRIO_NAT_DST       the nat table (box_table_run), gated
 *   POSTROUTING, INPUT    BOX_PRIO_NAT_SRC
 *   PREROUTING, OUTPUT    BOX_PRIO_NAT_DST + 1   right after it:
 *   POSTROUTING, INPUT    BOX_PRIO_NAT_SRC + 1
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
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ct/ct_plugin.h"
#include "nat/established.h"
#include "nat/nat_int.h"
#include "nat/nat_plugin.h"

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

static int bind_new(struct nat_table *n, struct box_hook_state *st, struct pkt *p, enum nat_manip m,
		    uint64_t now)
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

static enum nat_manip manip_of(unsigned hook)
{
	return hook == HOOK_PREROUTING || hook == HOOK_OUTPUT ? NAT_MANIP_DST : NAT_MANIP_SRC;
}

/* The nat table, for a connection's first packet whose manip is not decided yet. */
static int table_hook(void *priv, struct box_hook_state *st, struct pkt *p)
{
	(void)priv;
	if (!p->ct || ct_pkt_ctinfo(p) != CT_NEW || nat_bound(p, manip_of(st->hook)))
		return EXT_ACCEPT;
	return box_table_run(st, p, TABLE_NAT);
}

static int nat_hook(void *priv, struct box_hook_state *st, struct pkt *p)
{
	struct nat_table *n = priv;
	struct ct_entry *e = ct_pkt_entry(p);
	enum nat_manip m = manip_of(st->hook);
	struct nat_binding *b;
	uint64_t now;

	if (!e)
		return EXT_ACCEPT;
	now = box_now(st->box);
	if (ct_pkt_ctinfo(p) == CT_NEW) {
		if (!nat_bound(p, m)) {
			const struct nat_range *req = nat_pending(p, m);
			bool behave = req && nat_range_mapping(req) != NAT_B_APD;
			int err = bind_new(n, st, p, m, now);

			if (err == -ENOSPC && behave) /* RFC 5508 REQ-8; Linux drops silently */
				box_send_icmp_error(st->box, p, st->family == AF_INET ? 3 : 1,
						    st->family == AF_INET ? 13 : 1);
			if (err < 0)
				return drop(st);
		}
		if (st->hook == HOOK_INPUT && nat_syn_hold(n, p, now))
			return drop(st); /* RFC 5382 REQ-4: held, the box must not answer it */
		if (nat_translate(n, p, st->hook, now) < 0)
			return drop(st);
		nat_hold(n, p, now);
		if (st->hook == HOOK_POSTROUTING)
			nat_syn_outbound(n, p);
		return EXT_ACCEPT;
	}
	/* a packet after the first: its binding is there or never will be; found once */
	b = ct_ext_get(e, CT_EXT_NAT);
	if (!b)
		return EXT_ACCEPT;
	if (ct_pkt_ctinfo(p) == CT_ESTABLISHED || ct_pkt_ctinfo(p) == CT_ESTABLISHED_REPLY)
		return nat_established(n, p, e, b, st->hook, now) < 0 ? drop(st) : EXT_ACCEPT;
	if (nat_translate_binding(n, p, e, b, st->hook, now) < 0)
		return drop(st);
	nat_hold_binding(n, p, e, b, now);
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
	box_hook_fn fn;
} nat_hooks[] = {
    {HOOK_PREROUTING, BOX_PRIO_NAT_DST, table_hook},
    {HOOK_OUTPUT, BOX_PRIO_NAT_DST, table_hook},
    {HOOK_INPUT, BOX_PRIO_NAT_SRC, table_hook},
    {HOOK_POSTROUTING, BOX_PRIO_NAT_SRC, table_hook},
    {HOOK_PREROUTING, BOX_PRIO_NAT_DST + 1, nat_hook},
    {HOOK_OUTPUT, BOX_PRIO_NAT_DST + 1, nat_hook},
    {HOOK_POSTROUTING, BOX_PRIO_NAT_SRC + 1, nat_hook},
    {HOOK_INPUT, BOX_PRIO_NAT_SRC + 1, nat_hook},
};
#define NHOOKS (sizeof(nat_hooks) / sizeof(nat_hooks[0]))

static void plugin_free(struct box *b, void *priv)
{
	struct nat_table *n = priv;

	nat_helpers_detach(b, n, n->ct);
	for (unsigned i = 0; i < NHOOKS; i++)
		box_unregister_hook(b, 0, nat_hooks[i].hook, nat_hooks[i].fn, n);
	box_unwatch_addr_gone(b, addr_gone, n);
	nat_table_free(n);
}

static int plugin_init(struct box *b, void **priv)
{
	struct ct_table *ct = ct_box_table(b);
	struct nat_table *n = ct ? nat_table_new(ct, NULL, box_rand, b) : NULL;
	int rc = 0;

	if (!n)
		return ct ? (errno ? -errno : -ENOMEM) : -ENOENT;
	nat_set_syn_unreach(n, syn_unreach, b);
	for (unsigned i = 0; i < NHOOKS && !rc; i++)
		rc = box_register_hook(b, 0, nat_hooks[i].hook, nat_hooks[i].prio, nat_hooks[i].fn,
				       n);
	if (!rc)
		rc = box_watch_addr_gone(b, addr_gone, n);
	if (!rc)
		rc = nat_helpers_attach(b, n, ct);
	if (rc < 0) {
		plugin_free(b, n);
		return rc;
	}
	*priv = n;
	return 0;
}

static void plugin_clock(void *priv, uint64_t now)
{
	nat_sweep_elapsed(priv, now); /* bounded, by elapsed time: replay moves it per packet */
}

/* nat mappings 2 pools 1 bindings 4 inbound_filtered 2 ... (struct nat_stats names; the
 * non-zero ones) */
static void plugin_stats(void *priv, FILE *f, const char *indent)
{
	const struct nat_stats *n = nat_table_stats(priv);
	const struct {
		const char *name;
		uint64_t v;
	} c[] = {
	    {"bindings", n->bindings},
	    {"null_bindings", n->null_bindings},
	    {"mappings_created", n->mappings_created},
	    {"mappings_reused", n->mappings_reused},
	    {"mappings_expired", n->mappings_expired},
	    {"port_preserved", n->port_preserved},
	    {"port_changed", n->port_changed},
	    {"source_reused", n->source_reused},
	    {"exhausted", n->exhausted},
	    {"table_full", n->table_full},
	    {"inbound", n->inbound},
	    {"inbound_filtered", n->inbound_filtered},
	    {"hairpinned", n->hairpinned},
	    {"icmp_errors", n->icmp_errors},
	    {"icmp_bad_quoted", n->icmp_bad_quoted},
	    {"syn_held", n->syn_held},
	    {"syn_held_overflow", n->syn_held_overflow},
	    {"syn_held_dropped", n->syn_held_dropped},
	    {"syn_unreachable", n->syn_unreachable},
	};

	fprintf(f, "%snat mappings %u pools %u", indent, n->mappings, n->pools);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		if (c[i].v)
			fprintf(f, " %s %" PRIu64, c[i].name, c[i].v);
	fputc('\n', f);
}

/* nat set NAME VALUE: turns tracking on (the NAT table comes with it, as nf_nat with
 * nf_conntrack) */
static int setup_nat(struct box *b, int argc, char **argv, char *err, size_t errlen)
{
	struct nat_table *n;
	struct nat_config c;
	int rc;

	if (argc < 2 || strcmp(argv[1], "set")) {
		snprintf(err, errlen, "unknown command '%s'", argv[0]);
		return -1;
	}
	if (argc != 4) {
		snprintf(err, errlen, "usage: %s", nat_plugin.setup[0].usage);
		return -1;
	}
	if (ct_box_enable(b, true) < 0 || !(n = box_plugin_data(b, &nat_plugin))) {
		snprintf(err, errlen, "cannot turn conntrack on");
		return -1;
	}
	c = *nat_table_config(n);
	rc = nat_config_set(&c, argv[2], argv[3]);
	if (rc < 0) {
		snprintf(err, errlen,
			 rc == -ENOENT	 ? "nat set: no setting '%s' (nat show lists them)"
			 : rc == -ERANGE ? "nat set %s: '%s' out of range"
					 : "nat set %s: bad value '%s'",
			 argv[2], argv[3]);
		return -1;
	}
	nat_table_set_config(n, &c);
	return 0;
}

static const struct box_setup_cmd nat_setup_cmds[] = {
    {"nat", setup_nat, "nat set NAME VALUE"},
    {NULL, NULL, NULL},
};

const struct box_plugin_ops nat_plugin = {
    .name = "nat",
    .follows = "conntrack",
    .init = plugin_init,
    .free = plugin_free,
    .clock = plugin_clock,
    .stats = plugin_stats,
    .setup = nat_setup_cmds,
};

struct nat_table *nat_box_table(const struct box *b)
{
	return box_plugin_peek(b, &nat_plugin);
}

int nat_box_print_config(FILE *f, struct box *b)
{
	struct nat_table *n = box_plugin_data(b, &nat_plugin);

	if (!n)
		return -ENOENT;
	nat_config_print(nat_table_config(n), f);
	return 0;
}

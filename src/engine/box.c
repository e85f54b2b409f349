/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The box itself: lifetime, interfaces, addresses, routes, clock, PRNG, stats, ruleset swap.
 * The packet paths are in path.c, the hooks in hook.c, the tables and their traversal in
 * traverse.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* liburcu's read-side lock and unlock inline (its LGPL inline functions), not a call into the
 * library and its thread-local lookup per packet. */
#define _LGPL_SOURCE
#include <urcu/urcu-memb.h>
#include <urcu/pointer.h>

#include "classify/ruleset.h"
#include "engine/engine_int.h"
#include "engine/section.h"
#include "rules/plain.h"

#define BOX_DEFAULT_SEED 0x706b747461626c65ULL /* "pkttable" */
#define BOX_DEFAULT_MTU	 1500

static const char *const drop_names[BOX_DROP_MAX] = {
    [BOX_DROP_RULE] = "rule",	     [BOX_DROP_POLICY] = "policy",
    [BOX_DROP_HOTDROP] = "hotdrop",  [BOX_DROP_MALFORMED] = "malformed",
    [BOX_DROP_NOROUTE] = "no-route", [BOX_DROP_TTL] = "ttl",
    [BOX_DROP_NOT_IP] = "not-ip",    [BOX_DROP_QUEUE] = "queue",
    [BOX_DROP_LOOP] = "loop",	     [BOX_DROP_HOOK] = "hook",
    [BOX_DROP_DEFRAG] = "defrag",    [BOX_DROP_CONNTRACK] = "conntrack",
    [BOX_DROP_MTU] = "mtu",
};

const char *box_drop_kind_name(enum box_drop_kind k)
{
	if ((unsigned)k >= BOX_DROP_MAX)
		return "?";
	return drop_names[k];
}

/*
 * liburcu wants every thread that reads registered exactly once. A thread may hold several
 * boxes, so registration is counted per thread. This is the one piece of mutable state outside
 * a box: it mirrors liburcu's own per-thread registration and belongs to the thread, not to
 * any box.
 */
static _Thread_local unsigned box_thread_refs;

void box_thread_register(void)
{
	if (box_thread_refs++ == 0)
		urcu_memb_register_thread();
}

void box_thread_unregister(void)
{
	if (box_thread_refs && --box_thread_refs == 0)
		urcu_memb_unregister_thread();
}

/* ---- lifetime ---------------------------------------------------------------------------- */

struct box *box_new(const char *name, const struct box_ops *ops, void *user)
{
	struct box *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->fib = box_fib_new();
	if (!b->fib) {
		free(b);
		return NULL;
	}
	snprintf(b->name, sizeof(b->name), "%s", name ? name : "box");
	if (ops)
		b->ops = *ops;
	b->user = user;
	b->forwarding[0] = b->forwarding[1] = true;
	b->burst_index = -1;
	box_seed(b, BOX_DEFAULT_SEED);
	box_env_init(b);
	box_register_tables(b);
	box_plugins_init(b);
	box_thread_register();
	return b;
}

void box_free(struct box *b)
{
	if (!b)
		return;
	/* No packet may be in flight and no other thread may use the box: free directly. */
	box_plugins_free(b);
	for (unsigned i = 0; i < 2; i++)
		if (b->rs[i])
			rules_ruleset_free(b->rs[i]);
	for (unsigned i = 0; i < b->nparked; i++)
		rules_ruleset_free(b->parked[i]);
	free(b->parked);
	free(b->addrs);
	free(b->routes);
	box_fib_free(b->fib);
	pkt_pool_free(b->pool); /* packets still out free themselves, and the pool last */
	free(b);
	box_thread_unregister();
}

struct pkt *box_pkt_get(struct box *b, const void *data, uint32_t len)
{
	if (!b->pool)
		b->pool = pkt_pool_new(BOX_POOL_IDLE, BOX_POOL_BUF);
	return pkt_pool_get(b->pool, data, len); /* without a pool: a packet of its own */
}

void box_pool_stats(const struct box *b, struct pkt_pool_stats *st)
{
	if (b->pool)
		pkt_pool_stats(b->pool, st);
	else
		memset(st, 0, sizeof(*st));
}

const char *box_name(const struct box *b)
{
	return b->name;
}

/* ---- interfaces -------------------------------------------------------------------------- */

/* FNV-1a over "box/iface" (and a salt), made a locally administered unicast MAC. */
static void derive_mac(const char *box, const char *ifname, const char *salt, uint8_t mac[6])
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const char *parts[3] = {salt, box, ifname};

	for (unsigned i = 0; i < 3; i++) {
		for (const char *s = parts[i]; *s; s++)
			h = (h ^ (uint8_t)*s) * 0x100000001b3ULL;
		h = (h ^ '/') * 0x100000001b3ULL;
	}
	mac[0] = 0x02;
	for (unsigned i = 1; i < 6; i++)
		mac[i] = (uint8_t)(h >> (8 * i));
}

/* The destination and source MACs of frames out of ifc, as one block for the packet path. */
static void iface_eth_macs(struct box_iface *ifc)
{
	memcpy(ifc->eth_macs, ifc->peer_mac, 6);
	memcpy(ifc->eth_macs + 6, ifc->mac, 6);
}

int box_add_iface(struct box *b, const char *name, const uint8_t mac[6])
{
	struct box_iface *ifc;

	if (!name || !name[0] || strlen(name) >= BOX_IFNAME_MAX)
		return -EINVAL;
	if (box_iface_index(b, name) > 0)
		return -EEXIST;
	if (b->nifaces >= BOX_MAX_IFACES)
		return -ENOSPC;
	ifc = &b->ifaces[b->nifaces];
	memset(ifc, 0, sizeof(*ifc));
	snprintf(ifc->name, sizeof(ifc->name), "%s", name);
	ifc->index = (int)++b->nifaces;
	if (mac)
		memcpy(ifc->mac, mac, 6);
	else
		derive_mac(b->name, name, "mac", ifc->mac);
	derive_mac(b->name, name, "peer", ifc->peer_mac);
	iface_eth_macs(ifc);
	ifc->mtu = BOX_DEFAULT_MTU;
	ifc->link = PKT_LINK_ETHERNET;
	ifc->up = true;
	box_fib_changed(b); /* a route through it may be there already */
	return ifc->index;
}

int box_iface_index(const struct box *b, const char *name)
{
	for (unsigned i = 0; i < b->nifaces; i++)
		if (!strcmp(b->ifaces[i].name, name))
			return b->ifaces[i].index;
	return -ENOENT;
}

const struct box_iface *box_iface(const struct box *b, int index)
{
	return box_iface_at(b, index);
}

static struct box_iface *iface_mut(struct box *b, int index)
{
	return (struct box_iface *)box_iface(b, index);
}

unsigned box_iface_count(const struct box *b)
{
	return b->nifaces;
}

const char *box_ifname(const struct box *b, int index)
{
	const struct box_iface *ifc;

	if (index == BOX_IFINDEX_LO)
		return "lo";
	ifc = box_iface(b, index);
	return ifc ? ifc->name : "";
}

int box_set_iface_mtu(struct box *b, int index, uint32_t mtu)
{
	struct box_iface *ifc = iface_mut(b, index);

	if (!ifc)
		return -ENOENT;
	if (mtu < 68 || mtu > 65535)
		return -EINVAL;
	ifc->mtu = mtu;
	box_fib_changed(b); /* the fib's groups keep their MTUs */
	return 0;
}

int box_set_iface_link(struct box *b, int index, enum pkt_link link)
{
	struct box_iface *ifc = iface_mut(b, index);

	if (!ifc)
		return -ENOENT;
	if (link != PKT_LINK_ETHERNET && link != PKT_LINK_RAW)
		return -EINVAL;
	ifc->link = link;
	return 0;
}

int box_set_iface_peer_mac(struct box *b, int index, const uint8_t mac[6])
{
	struct box_iface *ifc = iface_mut(b, index);

	if (!ifc)
		return -ENOENT;
	memcpy(ifc->peer_mac, mac, 6);
	iface_eth_macs(ifc);
	return 0;
}

int box_set_iface_up(struct box *b, int index, bool up)
{
	struct box_iface *ifc = iface_mut(b, index);

	if (!ifc)
		return -ENOENT;
	ifc->up = up;
	return 0;
}

/* ---- addresses and routes ---------------------------------------------------------------- */

static int family_bits(int family)
{
	return family == AF_INET ? 32 : family == AF_INET6 ? 128 : -1;
}

/* The first plen bits of a and net are equal. One code path for both families. */
static bool prefix_eq(const union pt_addr *a, const union pt_addr *net, int plen)
{
	int full = plen / 8, rest = plen % 8;

	if (memcmp(a->b, net->b, (size_t)full))
		return false;
	if (rest) {
		uint8_t m = (uint8_t)(0xff << (8 - rest));

		if ((a->b[full] & m) != (net->b[full] & m))
			return false;
	}
	return true;
}

/* Zero the host part (bits plen..127); IPv4's unused bytes are zero already. */
static void prefix_clear_host(union pt_addr *a, int plen)
{
	for (int i = plen; i < 128; i++)
		a->b[i / 8] &= (uint8_t) ~(0x80 >> (i % 8));
}

static int grow(void **arr, unsigned *cap, unsigned n, size_t sz)
{
	void *na;
	unsigned ncap;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	na = realloc(*arr, ncap * sz);
	if (!na)
		return -ENOMEM;
	*arr = na;
	*cap = ncap;
	return 0;
}

static int route_find(const struct box *b, int family, const union pt_addr *net, int plen,
		      bool any_metric, uint32_t metric)
{
	for (unsigned i = 0; i < b->nroutes; i++) {
		const struct box_route *r = &b->routes[i];

		if (r->family == family && r->plen == plen && pt_addr_eq(&r->net, net) &&
		    (any_metric || r->metric == metric))
			return (int)i;
	}
	return -1;
}

int box_add_route(struct box *b, const struct box_route *r)
{
	struct box_route nr;
	int bits = family_bits(r->family);

	if (bits < 0 || r->plen < 0 || r->plen > bits)
		return -EINVAL;
	if ((r->type == BOX_RT_UNICAST && !box_iface(b, r->oif)) ||
	    (r->oif && !box_iface(b, r->oif)))
		return -ENODEV;
	nr = *r;
	prefix_clear_host(&nr.net, nr.plen);
	if (route_find(b, nr.family, &nr.net, nr.plen, false, nr.metric) >= 0)
		return -EEXIST;
	if (grow((void **)&b->routes, &b->routecap, b->nroutes, sizeof(*b->routes)))
		return -ENOMEM;
	b->routes[b->nroutes++] = nr;
	box_fib_changed(b);
	return 0;
}

int box_del_route(struct box *b, int family, const union pt_addr *net, int plen)
{
	union pt_addr n = *net;
	int i;

	if (family_bits(family) < 0 || plen < 0 || plen > family_bits(family))
		return -EINVAL;
	prefix_clear_host(&n, plen);
	i = route_find(b, family, &n, plen, true, 0);
	if (i < 0)
		return -ESRCH;
	memmove(&b->routes[i], &b->routes[i + 1],
		(b->nroutes - (unsigned)i - 1) * sizeof(*b->routes));
	b->nroutes--;
	box_fib_changed(b);
	return 0;
}

/*
 * Longest prefix wins, then the lower metric, then the route added first. Routes through a
 * down interface are skipped, as the kernel skips dead next hops. The scan decides when the
 * lookup structure (fib.c) could not be built.
 */
const struct box_route *box_route_scan(const struct box *b, int family, const union pt_addr *dst)
{
	const struct box_route *best = NULL;

	for (unsigned i = 0; i < b->nroutes; i++) {
		const struct box_route *r = &b->routes[i];
		const struct box_iface *ifc = r->oif ? box_iface(b, r->oif) : NULL;

		if (r->family != family || !prefix_eq(dst, &r->net, r->plen))
			continue;
		if (ifc && !ifc->up)
			continue;
		if (!best || r->plen > best->plen ||
		    (r->plen == best->plen && r->metric < best->metric))
			best = r;
	}
	return best;
}

int box_add_addr(struct box *b, int ifindex, int family, const union pt_addr *a, int plen)
{
	struct box_route cr;
	int bits = family_bits(family), err;

	if (bits < 0 || plen < 0 || plen > bits)
		return -EINVAL;
	if (!box_iface(b, ifindex))
		return -ENODEV;
	for (unsigned i = 0; i < b->naddrs; i++)
		if (b->addrs[i].family == family && b->addrs[i].ifindex == ifindex &&
		    pt_addr_eq(&b->addrs[i].addr, a))
			return -EEXIST;
	if (grow((void **)&b->addrs, &b->addrcap, b->naddrs, sizeof(*b->addrs)))
		return -ENOMEM;
	b->addrs[b->naddrs++] =
	    (struct box_addr){.family = family, .ifindex = ifindex, .addr = *a, .plen = plen};
	box_fib_changed(b);
	/* The connected route, as `ip addr add` makes it (v4 metric 0, v6 metric 256). */
	memset(&cr, 0, sizeof(cr));
	cr.family = family;
	cr.net = *a;
	cr.plen = plen;
	cr.oif = ifindex;
	cr.metric = family == AF_INET6 ? 256 : 0;
	cr.type = BOX_RT_UNICAST;
	err = box_add_route(b, &cr);
	return err == -EEXIST ? 0 : err;
}

int box_del_addr(struct box *b, int ifindex, int family, const union pt_addr *a)
{
	for (unsigned i = 0; i < b->naddrs; i++) {
		struct box_addr d = b->addrs[i];
		bool shared = false;
		union pt_addr net;
		int r;

		if (d.family != family || d.ifindex != ifindex || !pt_addr_eq(&d.addr, a))
			continue;
		memmove(&b->addrs[i], &b->addrs[i + 1], (b->naddrs - i - 1) * sizeof(*b->addrs));
		b->naddrs--;
		box_fib_changed(b);
		/* Remove the connected route unless another address on the link still needs it. */
		for (unsigned j = 0; j < b->naddrs; j++)
			if (b->addrs[j].family == family && b->addrs[j].ifindex == ifindex &&
			    b->addrs[j].plen == d.plen &&
			    prefix_eq(&b->addrs[j].addr, &d.addr, d.plen))
				shared = true;
		net = d.addr;
		prefix_clear_host(&net, d.plen);
		r = route_find(b, family, &net, d.plen, false, family == AF_INET6 ? 256 : 0);
		if (!shared && r >= 0 && b->routes[r].oif == ifindex)
			memmove(&b->routes[r], &b->routes[r + 1],
				(b->nroutes - (unsigned)r - 1) * sizeof(*b->routes)),
			    b->nroutes--;
		for (unsigned k = 0; k < BOX_MAX_ADDR_WATCHERS; k++)
			if (b->addr_watch[k].fn)
				b->addr_watch[k].fn(b->addr_watch[k].priv, b, ifindex, family, a);
		return 0;
	}
	return -EADDRNOTAVAIL;
}

int box_watch_addr_gone(struct box *b, box_addr_gone_fn fn, void *priv)
{
	for (unsigned k = 0; k < BOX_MAX_ADDR_WATCHERS; k++)
		if (!b->addr_watch[k].fn) {
			b->addr_watch[k].fn = fn;
			b->addr_watch[k].priv = priv;
			return 0;
		}
	return -ENOSPC;
}

void box_send_icmp_error(struct box *b, const struct pkt *orig, uint8_t type, uint8_t code)
{
	box_send_icmp_error_rest(b, orig, type, code, 0);
}

int box_unwatch_addr_gone(struct box *b, box_addr_gone_fn fn, void *priv)
{
	for (unsigned k = 0; k < BOX_MAX_ADDR_WATCHERS; k++)
		if (b->addr_watch[k].fn == fn && b->addr_watch[k].priv == priv) {
			b->addr_watch[k].fn = NULL;
			b->addr_watch[k].priv = NULL;
			return 0;
		}
	return -ENOENT;
}

const struct box_route *box_route_lookup(const struct box *b, int family, const union pt_addr *dst)
{
	const struct box_route *r;

	if (box_fib_route(b, family, dst, &r) == 0)
		return r;
	return box_route_scan(b, family, dst);
}

/* One of the box's addresses (BOX_ADDR_LOCAL), or its network's IPv4 broadcast (BOX_ADDR_BCAST),
 * or 0. */
int box_addr_kind(const struct box *b, int family, const union pt_addr *a)
{
	int k = box_fib_addr_kind(b, family, a);

	if (k >= 0)
		return k;
	k = 0;
	for (unsigned i = 0; i < b->naddrs; i++) {
		const struct box_addr *x = &b->addrs[i];
		union pt_addr m;

		if (x->family != family)
			continue;
		if (pt_addr_eq(&x->addr, a))
			k |= BOX_ADDR_LOCAL;
		if (family != AF_INET || x->plen >= 31)
			continue;
		pt_mask_from_len(AF_INET, x->plen, &m);
		if ((a->w[0] & m.w[0]) == (x->addr.w[0] & m.w[0]) &&
		    (a->w[0] | m.w[0]) == 0xffffffffu)
			k |= BOX_ADDR_BCAST;
	}
	return k;
}

bool box_is_local_route(const struct box *b, int family, const union pt_addr *a,
			const struct box_route *r)
{
	return (box_addr_kind(b, family, a) & BOX_ADDR_LOCAL) || (r && r->type == BOX_RT_LOCAL);
}

bool box_is_local(const struct box *b, int family, const union pt_addr *a)
{
	return box_is_local_route(b, family, a, box_route_lookup(b, family, a));
}

const struct box_addr *box_addr_at(const struct box *b, unsigned i)
{
	return i < b->naddrs ? &b->addrs[i] : NULL;
}

const struct box_route *box_route_at(const struct box *b, unsigned i)
{
	return i < b->nroutes ? &b->routes[i] : NULL;
}

int box_setup_default_gateway(struct box *b)
{
	static const struct {
		const char *net;
		int plen;
		bool wan;
	} routes[] = {
	    {"10.0.0.0", 8, false}, {"172.16.0.0", 12, false}, {"192.168.0.0", 16, false},
	    {"fc00::", 7, false},   {"0.0.0.0", 0, true},      {"::", 0, true},
	};
	int lan = box_add_iface(b, "lan0", NULL), wan, err;

	if (lan < 0)
		return lan;
	wan = box_add_iface(b, "wan0", NULL);
	if (wan < 0)
		return wan;
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		struct box_route r;

		memset(&r, 0, sizeof(r));
		r.family = pt_addr_parse(routes[i].net, &r.net);
		r.plen = routes[i].plen;
		r.oif = routes[i].wan ? wan : lan;
		r.type = BOX_RT_UNICAST;
		err = box_add_route(b, &r);
		if (err)
			return err;
	}
	return 0;
}

void box_set_forwarding(struct box *b, int family, bool on)
{
	b->forwarding[box_fam_index(family)] = on;
	box_fib_changed(b); /* the fib's groups know it (fib_group.fwd) */
}

void box_set_fwd_general(struct box *b, bool on)
{
	b->fwd_general = on;
	box_fib_changed(b);
}

/* ---- rulesets ---------------------------------------------------------------------------- */

int box_set_classifier(struct box *b, int mode, double (*clock_s)(void))
{
	if (mode != CLS_MODE_AUTO && mode != CLS_MODE_LINEAR && mode != CLS_MODE_COMPILED)
		return -EINVAL;
	b->cls_mode = mode;
	b->cls_clock = clock_s;
	return 0;
}

int box_classifier(const struct box *b)
{
	return b->cls_mode;
}

void box_set_ruleset(struct box *b, struct rules_ruleset *rs, int family)
{
	struct rules_ruleset *old;

	/* Compiled here, in the loader's thread, before any packet can see rs. Failing to
	 * compile leaves chains linear, never the ruleset unloaded. The rules' standard parts
	 * as rows of masked words (rules/plain.h); without memory for them, a chain's rules are
	 * tested one by one as parsed. */
	if (rs)
		rules_ruleset_prepare(rs);
	if (rs && !rs->compiled)
		cls_ruleset_compile_from(rs, rcu_dereference(b->rs[box_fam_index(family)]),
					 (enum cls_mode)b->cls_mode, NULL, b->cls_clock);
	/* Before publishing: the first packet that sees the rules has the plug-ins it needs on
	 * (box_plugins_apply). */
	box_plugins_want(b, rs);
	if (rs)
		rs->serial = atomic_fetch_add(&b->rs_serial, 1) + 1;
	old = rcu_xchg_pointer(&b->rs[box_fam_index(family)], rs);
	if (!old)
		return;
	if (urcu_memb_read_ongoing()) {
		/* Called from a callback of the data path: this thread's own packet may still use
		 * `old`, and waiting for a grace period inside a read-side section would never
		 * end. Freed when the outermost packet is done. */
		if (!grow((void **)&b->parked, &b->parkcap, b->nparked, sizeof(*b->parked)))
			b->parked[b->nparked++] = old;
		/* else: out of memory; leaking is the only safe choice here */
		return;
	}
	urcu_memb_synchronize_rcu();
	rules_ruleset_free(old);
}

struct rules_ruleset *box_ruleset(struct box *b, int family)
{
	return rcu_dereference(b->rs[box_fam_index(family)]);
}

void box_pkt_begin(struct box *b, struct rules_ruleset *saved[2])
{
	box_section_enter(b, saved);
}

void box_free_parked(struct box *b)
{
	if (urcu_memb_read_ongoing())
		return;
	urcu_memb_synchronize_rcu();
	for (unsigned i = 0; i < b->nparked; i++)
		rules_ruleset_free(b->parked[i]);
	b->nparked = 0;
}

void box_pkt_end(struct box *b, struct rules_ruleset *saved[2])
{
	box_section_leave(b, saved);
}

/* ---- clock, PRNG, stats ------------------------------------------------------------------ */

uint64_t box_now(const struct box *b)
{
	return b->now;
}

void box_set_time(struct box *b, uint64_t ns)
{
	if (ns == b->now)
		return;
	b->now = ns;
	box_plugins_clock(b);
}

void box_advance(struct box *b, uint64_t ns)
{
	if (!ns)
		return;
	b->now += ns;
	box_plugins_clock(b);
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void box_seed(struct box *b, uint64_t seed)
{
	for (unsigned i = 0; i < 4; i++)
		b->rng[i] = splitmix64(&seed);
	/* further steps of the same sequence: the key does not consume the PRNG's values */
	b->hash_key[0] = splitmix64(&seed);
	b->hash_key[1] = splitmix64(&seed);
}

const uint64_t *box_hash_key(const struct box *b)
{
	return b->hash_key;
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256** (Blackman & Vigna), the upper 32 bits. */
uint32_t box_random(struct box *b)
{
	uint64_t *s = b->rng;
	uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return (uint32_t)(r >> 32);
}

void box_set_trace_all(struct box *b, bool on)
{
	b->trace_all = on;
}

const struct box_stats *box_stats(const struct box *b)
{
	return &b->stats;
}

void box_zero_stats(struct box *b)
{
	memset(&b->stats, 0, sizeof(b->stats));
}

void box_log(struct box *b, int level, const char *line)
{
	if (b->ops.log)
		b->ops.log(b->user, b, level, line);
}

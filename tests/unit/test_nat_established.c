// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NAT's established paths against the general pair they stand for (nat_translate_binding,
 * then nat_hold_binding): nat_established (decided per packet) and nat_planned (decided once
 * per binding by nat_plan_make, as the NAT hook runs it: the plan made at the first
 * ESTABLISHED packet of a confirmed entry, nat_established for that one). Three identical
 * conntrack + NAT tables are fed the same random packet and time sequence as a router between
 * lan (1) and wan (2) would: IPv4 and IPv6 TCP, UDP and ICMP echo flows from a few inside hosts
 * to a few remote ones and their replies, unsolicited packets to the mapped ports (admitted
 * by a mapping's filtering, or not), SNAT ranges of every mapping, filtering and refresh
 * policy and of the Linux-compatible per-tuple kind; connections from the remote side DNATed
 * to an inside host, some also SNATed to the router's lan address (all four manip and
 * direction pairs rewrite); packets whose address or port something changed after conntrack
 * saw them, and CHECKSUM_PARTIAL ones (the planned sums do not apply: the general rewrite
 * does it); clock steps from nothing to past every timer, timeout settings changed on the
 * way, sweeps. After every packet: the verdicts, the bytes and parse of the packet, the
 * entry's timer, and every mapping's timer, timeout, peers and place in the age list (RFC 4787
 * REQ-6 and RFC 5382 REQ-5: what decides when a mapping expires) must be equal; at the end,
 * every counter.
 */
#include <arpa/inet.h>

#include "ct_test.h"

#include "ct/ct_int.h"
#include "nat/established.h"
#include "nat/nat.h"
#include "nat/nat_int.h"
#include "rules/ext.h"
#include "test_rng.h"

#define LAN   1
#define WAN   2
#define SEC   1000000000ull
#define NFLOW 24

struct env {
	struct ct_table *ct;
	struct nat_table *nat;
	uint64_t rng; /* the NAT's own PRNG (--random-fully): the same sequence in both */
};

static uint32_t env_rnd(void *priv)
{
	uint64_t *s = priv;

	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 16);
}

static void env_init(struct env *e, const struct nat_config *nc)
{
	struct ct_config c;

	ct_config_default(&c);
	c.max_entries = 1024;
	e->rng = 0x1234567;
	e->ct = ct_table_new(&c);
	assert_non_null(e->ct);
	e->nat = nat_table_new(e->ct, nc, env_rnd, &e->rng);
	assert_non_null(e->nat);
}

static void env_fini(struct env *e)
{
	nat_table_free(e->nat);
	ct_table_free(e->ct);
}

struct flow {
	uint8_t proto; /* IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP */
	bool v6;
	bool dnat;   /* the remote side opens it, DNATed to the host */
	bool snat2;  /* dnat: the source also SNATed to the router's lan address */
	bool opened; /* dnat: its first packet went in */
	unsigned host, remote;
	uint16_t iport, rport;
	unsigned range;	    /* index into ranges[] */
	uint16_t ext_port;  /* the mapped port last seen leaving (0: none yet) */
	union pt_addr back; /* dnat: where the host's replies go (the translated source) */
	uint16_t back_port;
	uint32_t cseq, sseq; /* TCP: next sequence numbers of client and server */
	bool synced;	     /* TCP: the SYN went out */
};

static struct nat_range ranges[2][8];	  /* [v6] */
static struct nat_range dnat_to[2][3][4]; /* [v6][host][iport - 1024]: DNAT to the host */
static struct nat_range lan_src[2];	  /* SNAT to the router's lan address */

static const char *const hosts[2][3] = {{"10.0.0.2", "10.0.0.3", "10.0.0.4"},
					{"fd00::2", "fd00::3", "fd00::4"}};
static const char *const remotes[2][3] = {{"198.51.100.1", "198.51.100.2", "198.51.100.3"},
					  {"2001:db8:1::1", "2001:db8:2::1", "2001:db8:3::1"}};
static const char *const ext_addr[2] = {"203.0.113.1", "2001:db8:ff::1"};
static const char *const lan_addr[2] = {"10.0.0.1", "fd00::1"};

static void one_addr(struct nat_range *r, int family, const char *addr)
{
	memset(r, 0, sizeof(*r));
	r->family = (uint8_t)family;
	assert_int_equal(pt_addr_parse(addr, &r->min_addr), family);
	r->max_addr = r->min_addr;
	r->flags = NAT_R_MAP_IPS;
}

static void make_ranges(void)
{
	for (unsigned v6 = 0; v6 < 2; v6++) {
		int family = v6 ? AF_INET6 : AF_INET;
		struct nat_range *rs = ranges[v6];

		for (unsigned i = 0; i < 8; i++)
			one_addr(&rs[i], family, ext_addr[v6]);
		rs[1].mapping = NAT_B_EI, rs[1].filtering = NAT_B_EI;
		rs[2].mapping = NAT_B_AD, rs[2].filtering = NAT_B_AD;
		rs[3].mapping = NAT_B_EI, rs[3].filtering = NAT_B_AD;
		rs[3].refresh = NAT_REFRESH_BOTH;
		rs[4].mapping = NAT_B_APD; /* per 5-tuple, as Linux: no mapping */
		rs[5].refresh = NAT_REFRESH_BOTH, rs[5].filtering = NAT_B_EI;
		rs[6].flags |= NAT_R_PROTO; /* a port range: ports change */
		rs[6].min_port = 20000, rs[6].max_port = 20007;
		rs[7].flags |= NAT_R_RANDOM_FULLY;
		for (unsigned h = 0; h < 3; h++)
			for (unsigned k = 0; k < 4; k++) {
				struct nat_range *r = &dnat_to[v6][h][k];

				one_addr(r, family, hosts[v6][h]);
				r->flags |= NAT_R_PROTO;
				r->min_port = r->max_port = (uint16_t)(1024 + k);
			}
		one_addr(&lan_src[v6], family, lan_addr[v6]);
	}
}

/* One packet through the three routers (in: LAN or WAN): a takes the general pair for every
 * packet, b nat_established and c nat_planned for ESTABLISHED ones. */
struct run {
	struct env a, b, c;
	uint64_t now;
	unsigned est, est_rewritten, planned, new_conns, inbound, dnat, dropped, poked, partial;
	unsigned slots_rewritten[4];
};

enum path { PATH_GENERAL, PATH_ESTABLISHED, PATH_PLANNED };

/* What the NAT hook does after the NEW decisions, by path. */
static int nat_step(struct env *e, struct pkt *p, unsigned hook, enum path path, uint64_t now,
		    struct run *r)
{
	struct ct_entry *ce = ct_pkt_entry(p);
	struct nat_binding *b = ce ? ct_ext_get(ce, CT_EXT_NAT) : NULL;
	unsigned ci = ct_pkt_ctinfo(p);
	enum nat_manip m = hook == HOOK_PREROUTING ? NAT_MANIP_DST : NAT_MANIP_SRC;
	int rc;

	if (!b)
		return 0;
	if (ci == CT_NEW) {
		rc = nat_translate(e->nat, p, hook, now);
		if (rc >= 0)
			nat_hold(e->nat, p, now);
		return rc;
	}
	if (path != PATH_GENERAL && (ci == CT_ESTABLISHED || ci == CT_ESTABLISHED_REPLY)) {
		unsigned s = NAT_PLAN_SLOT(m, ci == CT_ESTABLISHED_REPLY);

		if (path == PATH_ESTABLISHED) {
			r->est++;
			r->est_rewritten +=
			    !!(b->status & (ci == CT_ESTABLISHED ? 1u << m : 1u << !m));
			return nat_established(e->nat, p, ce, b, hook, now);
		}
		if (!b->plan.act[s]) { /* as the NAT hook: planned from the next packet on */
			if (ce->status & CT_S_CONFIRMED)
				nat_plan_make(b, ce);
			return nat_established(e->nat, p, ce, b, hook, now);
		}
		r->planned++;
		if (b->plan.act[s] & NAT_DO_REWRITE)
			r->slots_rewritten[s]++;
		return nat_planned(e->nat, p, ce, b, s, m, now);
	}
	rc = nat_translate_binding(e->nat, p, ce, b, hook, now);
	if (rc >= 0)
		nat_hold_binding(e->nat, p, ce, b, now);
	return rc;
}

/* Something changed the packet after conntrack saw it: a byte of an address or a port. */
struct poke {
	bool on;
	unsigned hook; /* before the NAT step of this hook */
	uint32_t off;
	uint8_t x;
};

static void poke_apply(struct pkt *p, const struct poke *k, unsigned hook)
{
	uint8_t v;

	if (!k->on || k->hook != hook || pkt_copy_out(p, k->off, &v, 1))
		return;
	v ^= k->x;
	assert_int_equal(pkt_store(p, k->off, &v, 1), 0);
}

/* The router: PREROUTING (DST; NEW from the wan: the flow's DNAT, else nat_inbound, else null),
 * the SNAT decision for NEW (from the lan: range; a DNATed one with snat2: the lan address),
 * POSTROUTING (SRC), confirm. The return codes in rc[]. */
static struct pkt *route(struct env *e, struct pkt *p, int in, const struct flow *f, enum path path,
			 const struct poke *k, uint64_t now, struct run *r, int rc[4])
{
	struct nat_where w = {.in = in, .out = in == LAN ? WAN : LAN};
	const struct nat_range *range = &ranges[f->v6][f->range];

	rc[0] = ct_in(e->ct, p, in == WAN, 0, now);
	rc[1] = rc[2] = rc[3] = 0;
	if (rc[0] != 0 || !p->ct)
		return p;
	if (ct_pkt_ctinfo(p) == CT_NEW && !nat_bound(p, NAT_MANIP_DST)) {
		if (in == WAN && f->dnat)
			rc[1] = nat_setup(e->nat, p, NAT_MANIP_DST,
					  &dnat_to[f->v6][f->host][f->iport - 1024], &w, now);
		else if (in == LAN || nat_inbound(e->nat, p, &w, now) == 0)
			nat_setup_null(e->nat, p, NAT_MANIP_DST);
	}
	if (rc[1] < 0)
		return p;
	poke_apply(p, k, HOOK_PREROUTING);
	rc[1] = nat_step(e, p, HOOK_PREROUTING, path, now, r);
	if (rc[1] < 0)
		return p;
	if (ct_pkt_ctinfo(p) == CT_NEW && !nat_bound(p, NAT_MANIP_SRC)) {
		if (in == LAN)
			rc[2] = nat_setup(e->nat, p, NAT_MANIP_SRC, range, &w, now);
		else if (f->dnat && f->snat2)
			rc[2] = nat_setup(e->nat, p, NAT_MANIP_SRC, &lan_src[f->v6], &w, now);
		else
			nat_setup_null(e->nat, p, NAT_MANIP_SRC);
	}
	if (rc[2] < 0)
		return p;
	poke_apply(p, k, HOOK_POSTROUTING);
	rc[3] = nat_step(e, p, HOOK_POSTROUTING, path, now, r);
	if (rc[3] >= 0)
		ct_confirm(e->ct, p, now);
	return p;
}

static void assert_same_pkt(const struct pkt *x, const struct pkt *y)
{
	uint8_t bx[256], by[256];

	assert_int_equal(x->len, y->len);
	assert_true(x->len <= sizeof(bx));
	assert_int_equal(pkt_copy_out(x, 0, bx, x->len), 0);
	assert_int_equal(pkt_copy_out(y, 0, by, y->len), 0);
	assert_memory_equal(bx, by, x->len);
	assert_memory_equal(&x->info, &y->info, sizeof(x->info));
	assert_int_equal(x->written, y->written);
	assert_int_equal(!x->ct, !y->ct);
	if (x->ct) {
		const struct ct_entry *ex = ct_pkt_entry(x), *ey = ct_pkt_entry(y);

		assert_int_equal(ct_pkt_ctinfo(x), ct_pkt_ctinfo(y));
		assert_int_equal(ex->expires, ey->expires);
		assert_int_equal(ex->status, ey->status);
		assert_memory_equal(&ex->th[1].tuple, &ey->th[1].tuple, sizeof(struct ct_tuple));
	}
}

/* Every mapping, in age-list order (what the sweep, the table-full reaping and the export
 * go by): the same endpoints, timer, timeout and peers. */
static unsigned assert_same_mappings(const struct nat_table *x, const struct nat_table *y)
{
	const struct nat_mapping *m = x->oldest, *k = y->oldest;
	unsigned n = 0;

	for (; m && k; m = m->next, k = k->next, n++) {
		assert_memory_equal(&m->int_addr, &k->int_addr, sizeof(m->int_addr));
		assert_memory_equal(&m->ext_addr, &k->ext_addr, sizeof(m->ext_addr));
		assert_int_equal(m->int_port, k->int_port);
		assert_int_equal(m->ext_port, k->ext_port);
		assert_int_equal(m->l4proto, k->l4proto);
		assert_int_equal(m->expires, k->expires);
		assert_int_equal(m->timeout, k->timeout);
		assert_int_equal(m->conns, k->conns);
		assert_int_equal(m->npeers, k->npeers);
		for (unsigned i = 0; i < m->npeers; i++) {
			assert_memory_equal(&m->peer[i].addr, &k->peer[i].addr,
					    sizeof(m->peer[i].addr));
			assert_int_equal(m->peer[i].port, k->peer[i].port);
			assert_int_equal(m->peer[i].last, k->peer[i].last);
		}
	}
	assert_null(m);
	assert_null(k);
	assert_true((x->newest == NULL) == (y->newest == NULL));
	return n;
}

/* The text of the flow's next packet. out: from the inside host; else from the remote side,
 * from the flow's remote or (stranger) another one. */
static void spec(struct flow *f, bool out, bool stranger, char *buf, size_t len)
{
	const char *flags = "ack";
	unsigned v = f->v6, rmt = stranger ? (f->remote + 1 + rng() % 2) % 3 : f->remote;
	uint16_t rport = stranger && rng() % 2 ? (uint16_t)(f->rport + 1) : f->rport;
	uint16_t ext = f->dnat ? f->iport : f->ext_port ? f->ext_port : f->iport;
	char host[64], remote[64], target[64], back[64];
	bool client = f->dnat ? !out : out; /* the side that opened it */

	/* IPv6 with a port: in brackets */
	snprintf(host, sizeof(host), v ? "[%s]" : "%s", hosts[v][f->host]);
	snprintf(remote, sizeof(remote), v ? "[%s]" : "%s", remotes[v][rmt]);
	snprintf(target, sizeof(target), v ? "[%s]" : "%s", ext_addr[v]);
	if (f->dnat && f->opened) {
		char a[INET6_ADDRSTRLEN];

		assert_non_null(inet_ntop(v ? AF_INET6 : AF_INET, f->back.b, a, sizeof(a)));
		snprintf(back, sizeof(back), v ? "[%s]" : "%s", a);
	} else {
		snprintf(back, sizeof(back), "%s", remote);
	}
	if (f->proto == IPPROTO_ICMP) { /* never dnat */
		const char *icmp = v ? "icmp6" : "icmp";

		if (out)
			snprintf(buf, len, "%s %s > %s echo-request id=%u seq=%u", icmp,
				 hosts[v][f->host], remotes[v][f->remote], f->iport, rng() % 100);
		else
			snprintf(buf, len, "%s %s > %s echo-reply id=%u seq=%u", icmp,
				 remotes[v][rmt], ext_addr[v], ext, rng() % 100);
		return;
	}
	if (f->proto == IPPROTO_UDP) {
		if (out)
			snprintf(buf, len, "udp %s:%u > %s:%u len=%u", host, f->iport,
				 f->dnat ? back : remote,
				 f->dnat && f->opened ? f->back_port : f->rport, rng() % 40);
		else
			snprintf(buf, len, "udp %s:%u > %s:%u len=%u%s", remote, rport, target, ext,
				 rng() % 40, v || rng() % 8 ? "" : " nocsum");
		return;
	}
	if (client && !f->synced) {
		flags = "syn";
		f->synced = true;
	} else if (!client && !stranger && rng() % 4 == 0) {
		flags = "syn,ack";
	} else if (rng() % 40 == 0) {
		flags = rng() % 2 ? "fin,ack" : "rst";
	}
	if (out)
		snprintf(
		    buf, len, "tcp %s:%u > %s:%u %s seq=%u ack=%u win=65535 len=%u", host, f->iport,
		    f->dnat ? back : remote, f->dnat && f->opened ? f->back_port : f->rport, flags,
		    client ? f->cseq : f->sseq, client ? f->sseq : f->cseq, rng() % 3 ? 0 : 10);
	else
		snprintf(buf, len, "tcp %s:%u > %s:%u %s seq=%u ack=%u win=65535", remote, rport,
			 target, ext, flags, client ? f->cseq : f->sseq,
			 client ? f->sseq : f->cseq);
	if (client && !strcmp(flags, "syn"))
		f->cseq++;
	if (!client && !strcmp(flags, "syn,ack"))
		f->sseq++;
}

static void one_packet(struct run *r, struct flow *fl)
{
	char text[200];
	struct flow *f = &fl[rng() % NFLOW];
	bool out = f->dnat && !f->opened ? false : rng() % 2;
	bool stranger = !out && !f->dnat && rng() % 6 == 0;
	bool partial = rng() % 40 == 0;
	struct pkt *pa, *pb, *pc;
	struct poke k = {.on = rng() % 25 == 0};
	int ra[4], rb[4], rc[4];

	spec(f, out, stranger, text, sizeof(text));
	pa = ct_test_pkt(text);
	pb = ct_test_pkt(text);
	pc = ct_test_pkt(text);
	if (k.on) { /* a byte of the source or destination address or port */
		unsigned what = rng() % 4;
		bool v6 = pa->info.family == AF_INET6;

		k.hook = rng() % 2 ? HOOK_PREROUTING : HOOK_POSTROUTING;
		k.x = (uint8_t)(1 + rng() % 255);
		if (what < 2)
			k.off = pa->info.l3off +
				(v6 ? 8u + 16 * what + rng() % 16 : 12u + 4 * what + rng() % 4);
		else
			k.off = pa->info.l4off + 2 * (what - 2) + rng() % 2;
		r->poked++;
	}
	if (partial) /* rewritten as the general path rewrites a GSO packet's sum */
		pa->csum_partial = pb->csum_partial = pc->csum_partial = true;
	r->partial += partial;
	route(&r->a, pa, out ? LAN : WAN, f, PATH_GENERAL, &k, r->now, r, ra);
	route(&r->b, pb, out ? LAN : WAN, f, PATH_ESTABLISHED, &k, r->now, r, rb);
	route(&r->c, pc, out ? LAN : WAN, f, PATH_PLANNED, &k, r->now, r, rc);
	assert_memory_equal(ra, rb, sizeof(ra));
	assert_memory_equal(ra, rc, sizeof(ra));
	assert_same_pkt(pa, pb);
	assert_same_pkt(pa, pc);
	if (ra[0] || ra[1] < 0 || ra[2] < 0 || ra[3] < 0) {
		r->dropped++;
	} else if (f->dnat && !out && pa->ct && !k.on && !partial) {
		if (!f->opened && ct_pkt_ctinfo(pa) == CT_NEW)
			r->dnat++;
		f->opened = true;
		f->back = pa->info.src;
		f->back_port = pa->info.has_ports ? pa->info.sport : 0;
	} else if (!f->dnat && out && pa->ct && pa->info.has_ports && f->proto != IPPROTO_ICMP) {
		f->ext_port = pa->info.sport;
	} else if (!f->dnat && out && pa->ct && f->proto == IPPROTO_ICMP) {
		f->ext_port = pa->info.icmp_id;
	}
	if (pa->ct && ct_pkt_ctinfo(pa) == CT_NEW)
		r->new_conns++;
	if (pa->ct && !out && ct_pkt_ctinfo(pa) == CT_NEW)
		r->inbound++;
	ct_pkt_release(r->a.ct, pa);
	ct_pkt_release(r->b.ct, pb);
	ct_pkt_release(r->c.ct, pc);
	pkt_free(pa);
	pkt_free(pb);
	pkt_free(pc);
}

static void new_flows(struct flow *fl)
{
	static const uint16_t rports[] = {80, 53, 3478, 443};

	for (unsigned i = 0; i < NFLOW; i++) {
		struct flow *f = &fl[i];
		unsigned k = rng() % 10;

		memset(f, 0, sizeof(*f));
		f->proto = k < 5 ? IPPROTO_TCP : k < 9 ? IPPROTO_UDP : IPPROTO_ICMP;
		f->v6 = rng() % 3 == 0;
		f->dnat = f->proto != IPPROTO_ICMP && rng() % 4 == 0;
		f->snat2 = f->dnat && rng() % 2;
		f->host = rng() % 3;
		f->remote = rng() % 3;
		f->iport = (uint16_t)(1024 + rng() % 4);
		f->rport = rports[rng() % 4];
		f->range = rng() % 8;
		f->cseq = rng();
		f->sseq = rng();
	}
}

static void test_established_equals_general(void **state)
{
	struct nat_config nc;
	struct run r;
	struct flow fl[NFLOW];
	unsigned maps_seen = 0;

	(void)state;
	rng_state = 0x2545f4914f6cdd1dull;
	make_ranges();
	memset(&r, 0, sizeof(r));
	nat_config_default(&nc);
	env_init(&r.a, &nc);
	env_init(&r.b, &nc);
	env_init(&r.c, &nc);
	for (unsigned round = 0; round < 60000; round++) {
		unsigned k = rng() % 1000;

		if (round % 2000 == 0)
			new_flows(fl);
		/* the clock: mostly still or a few ms, sometimes seconds, rarely past timers */
		if (k < 300)
			r.now += rng() % 1000000;
		else if (k < 320)
			r.now += (uint64_t)(rng() % 30) * SEC;
		else if (k < 323)
			r.now += (uint64_t)(100 + rng() % 8000) * SEC;
		if (k == 500 || k == 501) {
			/* a timeout setting changed: applies from each mapping's next refresh */
			nat_config_default(&nc);
			nc.udp_timeout = (uint64_t)(120 + rng() % 400) * SEC;
			nc.tcp_timeout = (uint64_t)(k == 500 ? 7440 : 100 + rng() % 500) * SEC;
			nc.tcp_transitory_timeout = (uint64_t)(rng() % 3 ? 240 : 0) * SEC;
			nc.icmp_timeout = (uint64_t)(60 + rng() % 100) * SEC;
			nat_table_set_config(r.a.nat, &nc);
			nat_table_set_config(r.b.nat, &nc);
			nat_table_set_config(r.c.nat, &nc);
		}
		if (k >= 990) {
			unsigned na = nat_sweep_elapsed(r.a.nat, r.now);

			assert_int_equal(na, nat_sweep_elapsed(r.b.nat, r.now));
			assert_int_equal(na, nat_sweep_elapsed(r.c.nat, r.now));
			na = ct_sweep(r.a.ct, r.now, 64);
			assert_int_equal(na, ct_sweep(r.b.ct, r.now, 64));
			assert_int_equal(na, ct_sweep(r.c.ct, r.now, 64));
		}
		one_packet(&r, fl);
		maps_seen += assert_same_mappings(r.a.nat, r.b.nat);
		assert_same_mappings(r.a.nat, r.c.nat);
	}
	assert_memory_equal(nat_table_stats(r.a.nat), nat_table_stats(r.b.nat),
			    sizeof(struct nat_stats));
	assert_memory_equal(ct_table_stats(r.a.ct), ct_table_stats(r.b.ct),
			    sizeof(struct ct_stats));
	assert_memory_equal(nat_table_stats(r.a.nat), nat_table_stats(r.c.nat),
			    sizeof(struct nat_stats));
	assert_memory_equal(ct_table_stats(r.a.ct), ct_table_stats(r.c.ct),
			    sizeof(struct ct_stats));
	/* the inputs reached what they are for */
	print_message("established %u (rewritten %u), planned %u (rewritten by slot %u %u %u %u), "
		      "new %u, inbound %u (DNAT %u), dropped %u, poked %u, partial %u, "
		      "mappings seen %u\n",
		      r.est, r.est_rewritten, r.planned, r.slots_rewritten[0], r.slots_rewritten[1],
		      r.slots_rewritten[2], r.slots_rewritten[3], r.new_conns, r.inbound, r.dnat,
		      r.dropped, r.poked, r.partial, maps_seen);
	assert_true(r.est > 20000);
	assert_true(r.est_rewritten > 5000);
	assert_true(r.new_conns > 1000);
	assert_true(r.inbound > 100);
	assert_true(maps_seen > 100000);
	assert_true(nat_table_stats(r.a.nat)->mappings_expired > 50);
	assert_true(r.planned > 20000);
	for (unsigned i = 0; i < 4; i++)
		assert_true(r.slots_rewritten[i] > 300);
	assert_true(r.dnat > 100);
	assert_true(r.poked > 1000);
	env_fini(&r.a);
	env_fini(&r.b);
	env_fini(&r.c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_established_equals_general),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

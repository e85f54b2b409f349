// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NAT's established path (nat_established: the NAT hook's way for a packet of an ESTABLISHED
 * connection) against the general pair it stands for (nat_translate_binding, then
 * nat_hold_binding), on two identical conntrack + NAT tables fed the same random packet and
 * time sequence as a router between lan (1) and wan (2) would: TCP, UDP and ICMP echo flows
 * from a few inside hosts to a few remote ones, their replies, unsolicited packets to the
 * mapped ports (admitted by a mapping's filtering, or not), SNAT ranges of every mapping,
 * filtering and refresh policy and of the Linux-compatible per-tuple kind, clock steps from
 * nothing to past every timer, timeout settings changed on the way, sweeps. After every
 * packet: the verdicts, the bytes and parse of the packet, the entry's timer, and every
 * mapping's timer, timeout, peers and place in the age list (RFC 4787 REQ-6 and RFC 5382
 * REQ-5: what decides when a mapping expires) must be equal; at the end, every counter.
 */
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
	unsigned host, remote;
	uint16_t iport, rport;
	unsigned range;	     /* index into ranges[] */
	uint16_t ext_port;   /* the mapped port last seen leaving (0: none yet) */
	uint32_t cseq, sseq; /* TCP: next sequence numbers of client and server */
	bool synced;	     /* TCP: the SYN went out */
};

static struct nat_range ranges[8];

static void make_ranges(void)
{
	for (unsigned i = 0; i < 8; i++) {
		struct nat_range *r = &ranges[i];

		memset(r, 0, sizeof(*r));
		r->family = AF_INET;
		pt_addr_parse("203.0.113.1", &r->min_addr);
		r->max_addr = r->min_addr;
		r->flags = NAT_R_MAP_IPS;
	}
	ranges[1].mapping = NAT_B_EI, ranges[1].filtering = NAT_B_EI;
	ranges[2].mapping = NAT_B_AD, ranges[2].filtering = NAT_B_AD;
	ranges[3].mapping = NAT_B_EI, ranges[3].filtering = NAT_B_AD;
	ranges[3].refresh = NAT_REFRESH_BOTH;
	ranges[4].mapping = NAT_B_APD; /* per 5-tuple, as Linux: no mapping */
	ranges[5].refresh = NAT_REFRESH_BOTH, ranges[5].filtering = NAT_B_EI;
	ranges[6].flags |= NAT_R_PROTO; /* a port range: ports change */
	ranges[6].min_port = 20000, ranges[6].max_port = 20007;
	ranges[7].flags |= NAT_R_RANDOM_FULLY;
}

/* One packet through both routers (in: LAN or WAN); fast: b's NAT hooks take nat_established
 * for ESTABLISHED packets. Counts the packets that took it. */
struct run {
	struct env a, b;
	uint64_t now;
	unsigned est, est_rewritten, new_conns, inbound, dropped;
};

/* What the NAT hook does after the NEW decisions: general (a) or established-aware (b). */
static int nat_step(struct env *e, struct pkt *p, unsigned hook, bool fast, uint64_t now,
		    struct run *r)
{
	struct ct_entry *ce = ct_pkt_entry(p);
	struct nat_binding *b = ce ? ct_ext_get(ce, CT_EXT_NAT) : NULL;
	unsigned ci = ct_pkt_ctinfo(p);
	int rc;

	if (!b)
		return 0;
	if (ci == CT_NEW) {
		rc = nat_translate(e->nat, p, hook, now);
		if (rc >= 0)
			nat_hold(e->nat, p, now);
		return rc;
	}
	if (fast && (ci == CT_ESTABLISHED || ci == CT_ESTABLISHED_REPLY)) {
		unsigned m = hook == HOOK_PREROUTING ? NAT_MANIP_DST : NAT_MANIP_SRC;

		r->est++;
		r->est_rewritten += !!(b->status & (ci == CT_ESTABLISHED ? 1u << m : 1u << !m));
		return nat_established(e->nat, p, ce, b, hook, now);
	}
	rc = nat_translate_binding(e->nat, p, ce, b, hook, now);
	if (rc >= 0)
		nat_hold_binding(e->nat, p, ce, b, now);
	return rc;
}

/* The router: PREROUTING (DST; NEW from the wan: nat_inbound, else null), the SNAT decision
 * for NEW from the lan (range), POSTROUTING (SRC), confirm. The return codes in rc[]. */
static struct pkt *route(struct env *e, struct pkt *p, int in, const struct nat_range *range,
			 bool fast, uint64_t now, struct run *r, int rc[4])
{
	struct nat_where w = {.in = in, .out = in == LAN ? WAN : LAN};

	rc[0] = ct_in(e->ct, p, in == WAN, 0, now);
	rc[1] = rc[2] = rc[3] = 0;
	if (rc[0] != 0 || !p->ct)
		return p;
	if (ct_pkt_ctinfo(p) == CT_NEW && !nat_bound(p, NAT_MANIP_DST))
		if (in == LAN || nat_inbound(e->nat, p, &w, now) == 0)
			nat_setup_null(e->nat, p, NAT_MANIP_DST);
	rc[1] = nat_step(e, p, HOOK_PREROUTING, fast, now, r);
	if (rc[1] < 0)
		return p;
	if (ct_pkt_ctinfo(p) == CT_NEW && !nat_bound(p, NAT_MANIP_SRC)) {
		if (in == LAN && range)
			rc[2] = nat_setup(e->nat, p, NAT_MANIP_SRC, range, &w, now);
		else
			nat_setup_null(e->nat, p, NAT_MANIP_SRC);
	}
	if (rc[2] < 0)
		return p;
	rc[3] = nat_step(e, p, HOOK_POSTROUTING, fast, now, r);
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

static const char *const hosts[] = {"10.0.0.2", "10.0.0.3", "10.0.0.4"};
static const char *const remotes[] = {"198.51.100.1", "198.51.100.2", "198.51.100.3"};

/* The text of the flow's next packet. out: from the inside host; else towards the mapped
 * port, from the flow's remote or (stranger) another one. */
static void spec(struct flow *f, bool out, bool stranger, char *buf, size_t len)
{
	const char *flags = "ack";
	unsigned rmt = stranger ? (f->remote + 1 + rng() % 2) % 3 : f->remote;
	uint16_t rport = stranger && rng() % 2 ? (uint16_t)(f->rport + 1) : f->rport;
	uint16_t ext = f->ext_port ? f->ext_port : f->iport;

	if (f->proto == IPPROTO_ICMP) {
		if (out)
			snprintf(buf, len, "icmp %s > %s echo-request id=%u seq=%u", hosts[f->host],
				 remotes[f->remote], f->iport, rng() % 100);
		else
			snprintf(buf, len, "icmp %s > 203.0.113.1 echo-reply id=%u seq=%u",
				 remotes[rmt], ext, rng() % 100);
		return;
	}
	if (f->proto == IPPROTO_UDP) {
		if (out)
			snprintf(buf, len, "udp %s:%u > %s:%u len=%u", hosts[f->host], f->iport,
				 remotes[f->remote], f->rport, rng() % 40);
		else
			snprintf(buf, len, "udp %s:%u > 203.0.113.1:%u len=%u%s", remotes[rmt],
				 rport, ext, rng() % 40, rng() % 8 ? "" : " nocsum");
		return;
	}
	if (out && !f->synced) {
		flags = "syn";
		f->synced = true;
	} else if (!out && !stranger && rng() % 4 == 0) {
		flags = "syn,ack";
	} else if (rng() % 40 == 0) {
		flags = rng() % 2 ? "fin,ack" : "rst";
	}
	if (out)
		snprintf(buf, len, "tcp %s:%u > %s:%u %s seq=%u ack=%u win=65535 len=%u",
			 hosts[f->host], f->iport, remotes[f->remote], f->rport, flags, f->cseq,
			 f->sseq, rng() % 3 ? 0 : 10);
	else
		snprintf(buf, len, "tcp %s:%u > 203.0.113.1:%u %s seq=%u ack=%u win=65535",
			 remotes[rmt], rport, ext, flags, f->sseq, f->cseq);
	if (out && !strcmp(flags, "syn"))
		f->cseq++;
	if (!out && !strcmp(flags, "syn,ack"))
		f->sseq++;
}

static void one_packet(struct run *r, struct flow *fl)
{
	char text[160];
	bool out = rng() % 2, stranger = !out && rng() % 6 == 0;
	struct flow *f = &fl[rng() % NFLOW];
	struct pkt *pa, *pb;
	int ra[4], rb[4];

	spec(f, out, stranger, text, sizeof(text));
	pa = ct_test_pkt(text);
	pb = ct_test_pkt(text);
	route(&r->a, pa, out ? LAN : WAN, &ranges[f->range], false, r->now, r, ra);
	route(&r->b, pb, out ? LAN : WAN, &ranges[f->range], true, r->now, r, rb);
	assert_memory_equal(ra, rb, sizeof(ra));
	assert_same_pkt(pa, pb);
	if (ra[1] < 0 || ra[2] < 0 || ra[3] < 0)
		r->dropped++;
	else if (out && pa->ct && pa->info.has_ports && f->proto != IPPROTO_ICMP)
		f->ext_port = pa->info.sport;
	else if (out && pa->ct && f->proto == IPPROTO_ICMP)
		f->ext_port = pa->info.icmp_id;
	if (pa->ct && ct_pkt_ctinfo(pa) == CT_NEW)
		r->new_conns++;
	if (pa->ct && !out && ct_pkt_ctinfo(pa) == CT_NEW)
		r->inbound++;
	ct_pkt_release(r->a.ct, pa);
	ct_pkt_release(r->b.ct, pb);
	pkt_free(pa);
	pkt_free(pb);
}

static void new_flows(struct flow *fl)
{
	static const uint16_t rports[] = {80, 53, 3478, 443};

	for (unsigned i = 0; i < NFLOW; i++) {
		struct flow *f = &fl[i];
		unsigned k = rng() % 10;

		memset(f, 0, sizeof(*f));
		f->proto = k < 5 ? IPPROTO_TCP : k < 9 ? IPPROTO_UDP : IPPROTO_ICMP;
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
		}
		if (k >= 990) {
			assert_int_equal(nat_sweep_elapsed(r.a.nat, r.now),
					 nat_sweep_elapsed(r.b.nat, r.now));
			assert_int_equal(ct_sweep(r.a.ct, r.now, 64), ct_sweep(r.b.ct, r.now, 64));
		}
		one_packet(&r, fl);
		maps_seen += assert_same_mappings(r.a.nat, r.b.nat);
	}
	assert_memory_equal(nat_table_stats(r.a.nat), nat_table_stats(r.b.nat),
			    sizeof(struct nat_stats));
	assert_memory_equal(ct_table_stats(r.a.ct), ct_table_stats(r.b.ct),
			    sizeof(struct ct_stats));
	/* the inputs reached what they are for */
	print_message("established %u (rewritten %u), new %u, inbound %u, dropped %u, "
		      "mappings seen %u\n",
		      r.est, r.est_rewritten, r.new_conns, r.inbound, r.dropped, maps_seen);
	assert_true(r.est > 20000);
	assert_true(r.est_rewritten > 5000);
	assert_true(r.new_conns > 1000);
	assert_true(r.inbound > 100);
	assert_true(maps_seen > 100000);
	assert_true(nat_table_stats(r.a.nat)->mappings_expired > 50);
	env_fini(&r.a);
	env_fini(&r.b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_established_equals_general),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

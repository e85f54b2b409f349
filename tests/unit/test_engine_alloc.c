// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fast path allocates nothing: an established connection's packets, forwarded both ways
 * through the `full` configuration of bench_stack (conntrack, SNAT, a mangle MARK rule, a
 * filter chain with the ESTABLISHED rule first), make no call to malloc, calloc or realloc
 * (and no free) in the engine, from box_receive to ops.xmit. Counted by replacing the
 * allocator in this program (the calls go on to glibc's own); the packets are made before
 * counting starts and handed back by ops.xmit, as a driver that recycles buffers does, and
 * get their first bytes back between sends (not counted).
 *
 * Under AddressSanitizer the allocator is the sanitizer's: the test says so and skips.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "ct/ct.h"
#include "ct/ct_plugin.h"
#include "engine/box.h"
#include "pkt/build.h"
#include "rules/rules.h"

#include "alloc_count.h"

#define FLOWS 64

struct flows {
	struct pkt *out[FLOWS], *in[FLOWS];
	uint8_t out_bytes[FLOWS][64], in_bytes[FLOWS][64]; /* as first sent */
	struct pkt *back;				   /* what ops.xmit handed back */
	int lan, wan;
	unsigned xmit, other;
};

static void on_xmit(void *user, struct box *b, int oif, struct pkt *p)
{
	struct flows *f = user;

	(void)b;
	(void)oif;
	f->xmit++;
	f->back = p;
}

static void on_deliver(void *user, struct box *b, struct pkt *p)
{
	((struct flows *)user)->other++;
	(void)b;
	pkt_free(p);
}

static void on_dropped(void *user, struct box *b, const struct pkt *p, const struct box_drop *why)
{
	((struct flows *)user)->other++;
	(void)b;
	(void)p;
	(void)why;
}

static const struct box_ops ops = {
    .xmit = on_xmit,
    .deliver = on_deliver,
    .dropped = on_dropped,
};

static const char ruleset[] =
    "*mangle\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
    ":OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\n"
    "-A PREROUTING -i lan0 -j MARK --set-mark 0x1\nCOMMIT\n"
    "*nat\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
    ":POSTROUTING ACCEPT [0:0]\n-A POSTROUTING -o wan0 -j SNAT --to-source 192.0.2.1\nCOMMIT\n"
    "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT ACCEPT [0:0]\n"
    "-A FORWARD -m conntrack --ctstate ESTABLISHED -j ACCEPT\n"
    "-A FORWARD -s 172.16.0.0/12 -p tcp -m tcp --dport 22 -j DROP\n"
    "-A FORWARD -i lan0 -o wan0 -j ACCEPT\nCOMMIT\n";

/* Flow i: TCP ACK (UDP for every third) 10.0.0.i:(1024+i) -> 203.0.113.i, 64-byte frames. */
static struct pkt *flow_packet(unsigned i, const union pt_addr *src, const union pt_addr *dst,
			       uint16_t sport, uint16_t dport)
{
	struct pkt_spec *s = malloc(sizeof(*s));
	struct pkt *p;

	assert_non_null(s);
	pkt_spec_init(s);
	s->eth = true;
	s->family = AF_INET;
	s->src = *src;
	s->dst = *dst;
	s->proto = i % 3 ? 6 : 17;
	s->sport = sport;
	s->dport = dport;
	s->tcp_flags = 0x10;
	s->ttl = 255;
	s->payload_len = 64 - 14 - 20 - (s->proto == 6 ? 20 : 8);
	p = pkt_build(s);
	free(s);
	assert_non_null(p);
	return p;
}

/* Flow i's packet out of lan0, its bytes kept in f->out_bytes[i]. */
static struct pkt *flow_out(struct flows *f, unsigned i)
{
	union pt_addr src = {0}, dst = {0};
	struct pkt *o;

	src.w[0] = htonl(0x0a000001u + i);
	dst.w[0] = htonl(0xcb007100u + i);
	o = flow_packet(i, &src, &dst, (uint16_t)(1024 + i), 443);
	pkt_copy_out(o, 0, f->out_bytes[i], 64);
	return o;
}

/* Send p in at ifindex; the packet that came out (NULL if none). */
static struct pkt *send_one(struct box *b, struct flows *f, int ifindex, struct pkt *p)
{
	f->back = NULL;
	p->ct = NULL;
	p->ctinfo = 0;
	p->mark = 0;
	p->l4_csum_verified = false;
	box_receive(b, ifindex, p);
	return f->back;
}

static void pool_rounds(struct box *b, struct flows *f);

/* The default gateway box, its interfaces in f. */
static struct box *gateway(struct flows *f)
{
	struct box *b = box_new("alloc", &ops, f);

	assert_non_null(b);
	assert_int_equal(box_setup_default_gateway(b), 0);
	f->lan = box_iface_index(b, "lan0");
	f->wan = box_iface_index(b, "wan0");
	return b;
}

static void test_no_allocation_per_established_packet(void **state)
{
	struct rules_ruleset *rs = NULL;
	struct rules_error err;
	struct flows f = {0};
	union pt_addr wan_addr;
	struct ct_config cc;
	struct box *b;

	(void)state;
	if (!ALLOC_COUNTING)
		skip();
	b = gateway(&f);
	pt_addr_parse("192.0.2.1", &wan_addr);
	assert_int_equal(box_add_addr(b, f.wan, AF_INET, &wan_addr, 24), 0);
	assert_int_equal(ct_box_enable(b, true), 0);
	cc = *ct_table_config(ct_box_table(b));
	cc.tcp_be_liberal = true; /* streams picked up in the middle */
	ct_table_set_config(ct_box_table(b), &cc);
	assert_int_equal(rules_parse_buffer(ruleset, strlen(ruleset), "alloc", AF_INET,
					    ext_registry_default(), NULL, 0, &rs, &err),
			 0);
	box_set_ruleset(b, rs, AF_INET);

	/* each flow's first packet and its reply: connections, NAT bindings */
	for (unsigned i = 0; i < FLOWS; i++) {
		struct pkt *o = send_one(b, &f, f.lan, flow_out(&f, i));

		assert_non_null(o);
		assert_int_equal(pkt_parse(o, PKT_LINK_ETHERNET, false), 0);
		assert_true(pt_addr_eq(&o->info.src, &wan_addr)); /* translated */
		f.out[i] = o;
		f.in[i] = flow_packet(i, &o->info.dst, &o->info.src, o->info.dport, o->info.sport);
		pkt_copy_out(f.in[i], 0, f.in_bytes[i], 64);
		f.in[i] = send_one(b, &f, f.wan, f.in[i]);
		assert_non_null(f.in[i]);
	}
	/* the established packets, counted; each is sent with the bytes it had the first time
	 * (the box rewrote TTL and addresses), restored while not counting */
	{ /* the counting itself works */
		void *volatile x;

		counting = 1;
		x = malloc(16);
		free(x);
		counting = 0;
		assert_int_equal(n_alloc, 1);
		assert_int_equal(n_free, 1);
	}
	n_alloc = n_free = 0;
	for (unsigned round = 0; round < 8; round++)
		for (unsigned i = 0; i < FLOWS; i++) {
			pkt_store(f.out[i], 0, f.out_bytes[i], 64);
			counting = 1;
			f.out[i] = send_one(b, &f, f.lan, f.out[i]);
			counting = 0;
			assert_non_null(f.out[i]);
			pkt_store(f.in[i], 0, f.in_bytes[i], 64);
			counting = 1;
			f.in[i] = send_one(b, &f, f.wan, f.in[i]);
			counting = 0;
			assert_non_null(f.in[i]);
		}
	counting = 0;
	printf("allocations %lu, frees %lu for %u forwarded packets\n", n_alloc, n_free,
	       2 * 8 * FLOWS);
	assert_int_equal(n_alloc, 0);
	assert_int_equal(n_free, 0);
	assert_int_equal(f.other, 0);
	for (unsigned i = 0; i < FLOWS; i++) {
		pkt_free(f.out[i]);
		pkt_free(f.in[i]);
	}
	/* A driver that copies each frame in (a capture, a socket) takes its packet from the
	 * box's pool and frees what comes out: after one round that fills the pool, nothing is
	 * allocated per packet, the packet itself included. */
	pool_rounds(b, &f);
	box_free(b);
}

/* 8 rounds of every flow's packet and reply copied into packets of the box's pool, the
 * forwarded ones freed (back to the pool); the first round not counted. */
static void pool_rounds(struct box *b, struct flows *f)
{
	struct pkt_pool_stats st;

	n_alloc = n_free = 0;
	for (unsigned round = 0; round < 9; round++)
		for (unsigned i = 0; i < FLOWS; i++) {
			struct pkt *p;

			counting = round > 0;
			p = send_one(b, f, f->lan, box_pkt_get(b, f->out_bytes[i], 64));
			assert_non_null(p);
			pkt_free(p);
			p = send_one(b, f, f->wan, box_pkt_get(b, f->in_bytes[i], 64));
			assert_non_null(p);
			pkt_free(p);
			counting = 0;
		}
	printf("from the pool: allocations %lu, frees %lu for %u forwarded packets\n", n_alloc,
	       n_free, 2 * 8 * FLOWS);
	assert_int_equal(n_alloc, 0);
	assert_int_equal(n_free, 0);
	box_pool_stats(b, &st);
	assert_int_equal(st.gets, 2 * 9 * FLOWS);
	assert_int_equal(st.made, 1); /* one packet at a time: one block serves them all */
	assert_int_equal(st.out, 0);
	assert_int_equal(f->other, 0);
}

/* The forward row: no tables, no conntrack. */
static void test_no_allocation_forwarding_from_pool(void **state)
{
	struct flows f = {0};
	struct box *b;

	(void)state;
	if (!ALLOC_COUNTING)
		skip();
	b = gateway(&f);
	for (unsigned i = 0; i < FLOWS; i++) {
		union pt_addr src = {0}, dst = {0};
		struct pkt *o = flow_out(&f, i);

		src.w[0] = htonl(0x0a000001u + i);
		dst.w[0] = htonl(0xcb007100u + i);
		pkt_free(o);
		o = flow_packet(i, &dst, &src, 443, (uint16_t)(1024 + i));
		pkt_copy_out(o, 0, f.in_bytes[i], 64);
		pkt_free(o);
	}
	pool_rounds(b, &f);
	box_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_no_allocation_per_established_packet),
	    cmocka_unit_test(test_no_allocation_forwarding_from_pool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The NAT plug-in's hook in a box: the clock it keeps for the established path (box_clock) is
 * the box's at every move (box_set_time, box_advance, the plug-in made again), and the packets
 * of an established SNATed flow through the default gateway box (lan0 = 1, wan0 = 2) take the
 * binding's plan (made at its first ESTABLISHED packet) and leave translated: TCP (after its
 * handshake) and UDP, IPv4 and IPv6, many packets each way, the mapping's timer following the
 * outbound ones. (test_nat_established holds the plan against the general path packet by
 * packet; this is the hook that runs it.)
 */
#include "engine_test.h"

#include "ct/ct.h"
#include "ct/ct_int.h"
#include "ct/ct_plugin.h"
#include "nat/nat_int.h"
#include "nat/nat_plugin.h"
#include "rules/ext.h"

#define SEC 1000000000ull

static void test_box_clock(void **state)
{
	struct rec r = {0};
	struct box *b = gw_box(&r, NULL);
	uint64_t s = 0x853c49e6748fea9bull;
	struct nat_table *n;

	(void)state;
	assert_int_equal(ct_box_enable(b, true), 0);
	box_set_time(b, 5 * SEC);
	n = nat_box_table(b);
	assert_non_null(n);
	assert_int_equal(n->box_clock, box_now(b));
	for (unsigned i = 0; i < 2000; i++) {
		uint64_t k = xorshift_step(&s);

		if (k % 3 == 0)
			box_set_time(b, box_now(b) + k % (100 * SEC));
		else if (k % 3 == 1)
			box_advance(b, k % 1000);
		else
			box_set_time(b, box_now(b)); /* no move */
		if (k % 97 == 0) { /* the plug-in made again: its clock from the box */
			assert_int_equal(ct_box_enable(b, false), 0);
			box_advance(b, 1 + k % SEC);
			assert_int_equal(ct_box_enable(b, true), 0);
			box_set_time(b, box_now(b) + 1);
		}
		n = nat_box_table(b);
		assert_non_null(n);
		assert_int_equal(n->box_clock, box_now(b));
	}
	box_free(b);
	rec_free(&r);
}

static void load_snat(struct box *b, int family, const char *to)
{
	char text[512];
	struct rules_ruleset *rs;
	struct rules_error err;

	snprintf(text, sizeof(text),
		 "*nat\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
		 ":POSTROUTING ACCEPT [0:0]\n-A POSTROUTING -o wan0 -j SNAT --to-source %s\n"
		 "COMMIT\n",
		 to);
	assert_int_equal(rules_parse_buffer(text, strlen(text), "snat", family,
					    ext_registry_default(), NULL, 0, &rs, &err),
			 0);
	box_set_ruleset(b, rs, family);
}

/* Receive `in` on interface ifindex; the one packet sent must be `out` on oif. */
static void through(struct box *b, struct rec *r, int ifindex, const char *in, int oif,
		    const char *out)
{
	char got[256];
	struct pkt *o;

	assert_int_equal(r->nxmit, 0);
	assert_int_equal(box_receive(b, ifindex, mk(in)), EXT_ACCEPT);
	assert_int_equal(r->nxmit, 1);
	o = r->xmit[0];
	assert_int_equal(r->xmit_oif[0], oif);
	assert_int_equal(pkt_parse(o, PKT_LINK_ETHERNET, true), 0);
	assert_true(pkt_spec_format(o, got, sizeof(got)) > 0);
	if (!strstr(got, out))
		fail_msg("sent '%s', want '%s'", got, out);
	pkt_free(o); /* the recorder keeps REC_MAX */
	r->nxmit = 0;
}

static const struct nat_binding *binding_of(struct box *b, const char *spec)
{
	struct pkt *p = mk(spec);
	struct ct_tuple t;
	const struct ct_entry *e;

	assert_int_equal(pkt_parse(p, PKT_LINK_ETHERNET, true), 0);
	assert_int_equal(ct_tuple_from_pkt(p, 0, &t), 0);
	pkt_free(p);
	e = ct_lookup(ct_box_table(b), &t, box_now(b), NULL);
	assert_non_null(e);
	return ct_ext_get(e, CT_EXT_NAT);
}

/* A flow's first packet out and its reply, then the packets of the established flow, each
 * with the text of what must leave. */
struct flow_text {
	const char *first, *first_out, *reply, *reply_out;
	const char *out, *out_out, *back, *back_out;
};

/* The plan is made at the first ESTABLISHED packet and its slots say what each hook does;
 * every packet leaves translated; the mapping's timer follows the outbound ones. */
static void flow(struct box *b, struct rec *r, const struct flow_text *f)
{
	const struct nat_binding *nb;
	unsigned src_orig = NAT_PLAN_SLOT(NAT_MANIP_SRC, CT_DIR_ORIGINAL);
	unsigned dst_reply = NAT_PLAN_SLOT(NAT_MANIP_DST, CT_DIR_REPLY);

	through(b, r, 1, f->first, 2, f->first_out);
	nb = binding_of(b, f->first);
	assert_non_null(nb);
	assert_non_null(nb->map);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(nb->plan.act[i], 0); /* a NEW packet: not yet */
	through(b, r, 2, f->reply, 1, f->reply_out);
	for (unsigned i = 0; i < 20; i++) {
		box_advance(b, SEC);
		through(b, r, 1, f->out, 2, f->out_out);
		assert_int_equal(nb->map->expires, box_now(b) + nb->map->timeout);
		box_advance(b, SEC);
		through(b, r, 2, f->back, 1, f->back_out);
	}
	/* SNAT through a mapping: the source side rewrites outbound packets and refreshes the
	 * mapping with a peer, the destination side rewrites replies, the others do not */
	assert_true(nb->plan.act[src_orig] & NAT_DO_REWRITE);
	assert_true(nb->plan.act[src_orig] & NAT_DO_RW_PLANNED);
	assert_true(nb->plan.act[src_orig] & NAT_DO_MAP_PEER);
	assert_true(nb->plan.act[dst_reply] & NAT_DO_REWRITE);
	assert_true(nb->plan.act[dst_reply] & NAT_DO_RW_PLANNED);
	assert_false(nb->plan.act[NAT_PLAN_SLOT(NAT_MANIP_DST, CT_DIR_ORIGINAL)] & NAT_DO_REWRITE);
	assert_false(nb->plan.act[NAT_PLAN_SLOT(NAT_MANIP_SRC, CT_DIR_REPLY)] & NAT_DO_REWRITE);
}

static void test_snat_flows_planned(void **state)
{
	struct rec r = {0};
	struct box *b = gw_box(&r, NULL);
	static const struct flow_text tcp4 = {
	    "tcp 10.0.0.2:40000 > 198.51.100.7:80 syn seq=1000 win=64240 eth",
	    "tcp 203.0.113.1:40000 > 198.51.100.7:80",
	    "tcp 198.51.100.7:80 > 203.0.113.1:40000 syn,ack seq=5000 ack=1001 win=64240 eth",
	    "tcp 198.51.100.7:80 > 10.0.0.2:40000",
	    "tcp 10.0.0.2:40000 > 198.51.100.7:80 ack seq=1001 ack=5001 win=64240 eth",
	    "tcp 203.0.113.1:40000 > 198.51.100.7:80",
	    "tcp 198.51.100.7:80 > 203.0.113.1:40000 ack seq=5001 ack=1001 win=64240 eth",
	    "tcp 198.51.100.7:80 > 10.0.0.2:40000"};
	static const struct flow_text udp4 = {
	    "udp 10.0.0.3:5000 > 198.51.100.8:53 eth",	  "udp 203.0.113.1:5000 > 198.51.100.8:53",
	    "udp 198.51.100.8:53 > 203.0.113.1:5000 eth", "udp 198.51.100.8:53 > 10.0.0.3:5000",
	    "udp 10.0.0.3:5000 > 198.51.100.8:53 eth",	  "udp 203.0.113.1:5000 > 198.51.100.8:53",
	    "udp 198.51.100.8:53 > 203.0.113.1:5000 eth", "udp 198.51.100.8:53 > 10.0.0.3:5000"};
	static const struct flow_text udp6 = {"udp [fd00::3]:5000 > [2001:db8::53]:53 eth",
					      "udp [2001:db8:ffff::9]:5000 > [2001:db8::53]:53",
					      "udp [2001:db8::53]:53 > [2001:db8:ffff::9]:5000 eth",
					      "udp [2001:db8::53]:53 > [fd00::3]:5000",
					      "udp [fd00::3]:5000 > [2001:db8::53]:53 eth",
					      "udp [2001:db8:ffff::9]:5000 > [2001:db8::53]:53",
					      "udp [2001:db8::53]:53 > [2001:db8:ffff::9]:5000 eth",
					      "udp [2001:db8::53]:53 > [fd00::3]:5000"};

	(void)state;
	assert_int_equal(ct_box_enable(b, true), 0);
	box_set_time(b, 10 * SEC);
	load_snat(b, AF_INET, "203.0.113.1");
	load_snat(b, AF_INET6, "2001:db8:ffff::9");
	flow(b, &r, &tcp4);
	flow(b, &r, &udp4);
	flow(b, &r, &udp6);
	box_free(b);
	rec_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_box_clock),
	    cmocka_unit_test(test_snat_flows_planned),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

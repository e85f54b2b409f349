/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Hook order, chain traversal (jump/goto/RETURN/policy), counters, standard matches, TRACE,
 * NFQUEUE and ruleset swap, on hand-built rulesets. */
#include "ct/ct_plugin.h"
#include "engine_test.h"

static char order[512];

static int record_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	static const char *const t[] = {"raw", "mangle", "nat", "filter", "security"};

	snprintf(order + strlen(order), sizeof(order) - strlen(order), "%s%s:%s",
		 order[0] ? " " : "", t[ctx->table], rules_hook_name(ctx->hook));
	return EXT_CONTINUE;
}

static const struct ext_target rec_target = {.name = "REC", .target = record_target};

/* Every built-in chain of every table gets a REC rule. */
static struct rules_ruleset *recording_ruleset(int family)
{
	struct rules_ruleset *rs = rules_ruleset_new(family);

	assert_non_null(rs);
	for (unsigned t = 0; t < TABLE_MAX; t++)
		for (unsigned h = 0; h < HOOK_MAX; h++)
			if (rs->tables[t].builtin[h] >= 0)
				add_ext_target(rs, t, (unsigned)rs->tables[t].builtin[h],
					       &rec_target);
	return rs;
}

static void test_hook_order_forward(void **state)
{
	struct rec r = {0};
	struct box *b = gw_box(&r, NULL);

	/* nat is traversed by a tracked connection's first packet only */
	assert_int_equal(ct_box_enable(b, true), 0);
	order[0] = 0;
	box_set_ruleset(b, recording_ruleset(AF_INET), AF_INET);
	assert_int_equal(box_receive(b, 1, mk("tcp 10.0.0.2:1234 > 192.0.2.1:80 syn eth")),
			 EXT_ACCEPT);
	assert_string_equal(order, "raw:PREROUTING mangle:PREROUTING nat:PREROUTING "
				   "mangle:FORWARD filter:FORWARD security:FORWARD "
				   "mangle:POSTROUTING nat:POSTROUTING");
	assert_int_equal(r.nxmit, 1);
	assert_int_equal(r.xmit_oif[0], 2);
	assert_int_equal(box_stats(b)->forwarded, 1);
	rec_free(&r);
	box_free(b);
}

static void test_hook_order_input(void **state)
{
	struct rec r = {0};
	struct box *b = gw_box(&r, NULL);
	union pt_addr a;

	addr("10.0.0.1", &a);
	assert_int_equal(box_add_addr(b, 1, AF_INET, &a, 8), 0);
	assert_int_equal(ct_box_enable(b, true), 0);
	order[0] = 0;
	box_set_ruleset(b, recording_ruleset(AF_INET), AF_INET);
	assert_int_equal(box_receive(b, 1, mk("udp 10.0.0.2:1234 > 10.0.0.1:53 eth")), EXT_ACCEPT);
	assert_string_equal(order, "raw:PREROUTING mangle:PREROUTING nat:PREROUTING "
				   "mangle:INPUT filter:INPUT security:INPUT nat:INPUT");
	assert_int_equal(r.ndeliver, 1);
	assert_int_equal(r.nxmit, 0);
	rec_free(&r);
	box_free(b);
}

static void test_hook_order_output(void **state)
{
	struct rec r = {0};
	struct box *b = gw_box(&r, NULL);
	const uint8_t *d;

	assert_int_equal(ct_box_enable(b, true), 0);
	order[0] = 0;
	box_set_ruleset(b, recording_ruleset(AF_INET6), AF_INET6);
	assert_int_equal(box_output(b, mk("udp [fd00::1]:5 > [2001:db8::1]:53")), EXT_ACCEPT);
	assert_string_equal(order, "raw:OUTPUT mangle:OUTPUT nat:OUTPUT filter:OUTPUT "
				   "security:OUTPUT mangle:POSTROUTING nat:POSTROUTING");
	assert_int_equal(r.nxmit, 1);
	assert_int_equal(r.xmit_oif[0], 2);
	/* wan0 is Ethernet: the box framed the socket's datagram with its MACs */
	d = pkt_linear_data(r.xmit[0]);
	assert_non_null(d);
	assert_memory_equal(d, box_iface(b, 2)->peer_mac, 6);
	assert_memory_equal(d + 6, box_iface(b, 2)->mac, 6);
	assert_int_equal(d[12] << 8 | d[13], 0x86dd);
	rec_free(&r);
	box_free(b);
}

/*
 * FORWARD: 1 -j A, 2 (count only), policy DROP
 * A:       1 -g B, 2 -j ACCEPT (never reached: B's RETURN goes back to FORWARD)
 * B:       1 -j RETURN
 */
static void test_jump_goto_return(void **state)
{
	struct rec r = {0};
	struct box *b = gw_box(&r, NULL);
	struct rules_ruleset *rs = rules_ruleset_new(AF_INET);
	unsigned fwd = builtin(rs, TABLE_FILTER, HOOK_FORWARD);
	unsigned ca = add_chain(rs, TABLE_FILTER, "A"), cb = add_chain(rs, TABLE_FILTER, "B");
	struct rules_chain *ch;

	add_target(rs, TABLE_FILTER, fwd, RULES_T_JUMP, ca);
	add_target(rs, TABLE_FILTER, fwd, RULES_T_NONE, 0);
	add_target(rs, TABLE_FILTER, ca, RULES_T_GOTO, cb);
	add_target(rs, TABLE_FILTER, ca, RULES_T_ACCEPT, 0);
	add_target(rs, TABLE_FILTER, cb, RULES_T_RETURN, 0);
	rs->tables[TABLE_FILTER].chains[fwd].policy = EXT_DROP;
	box_set_ruleset(b, rs, AF_INET);
	box_set_trace_all(b, true);

	assert_int_equal(box_receive(b, 1, mk("udp 10.0.0.2:1 > 192.0.2.1:2 eth")), EXT_DROP);
	ch = rs->tables[TABLE_FILTER].chains;
	assert_int_equal(ch[fwd].ctr[0].pkts, 1);
	assert_int_equal(ch[fwd].ctr[1].pkts, 1);
	assert_int_equal(ch[ca].ctr[0].pkts, 1);
	assert_int_equal(ch[ca].ctr[1].pkts, 0);
	assert_int_equal(ch[cb].ctr[0].pkts, 1);
	assert_int_equal(ch[fwd].pkts, 1); /* policy counter */
	assert_int_equal(r.ndrop, 1);
	assert_int_equal(r.drop[0].kind, BOX_DROP_POLICY);
	assert_string_equal(r.drop[0].chain, "FORWARD");
	assert_int_equal(r.drop[0].table, TABLE_FILTER);
	assert_int_equal(r.drop[0].hook, HOOK_FORWARD);
	assert_int_equal(box_stats(b)->dropped[BOX_DROP_POLICY], 1);
	/* Tables without rules trace their policy; filter shows the walk. An unconditional
	 * RETURN is named "return", as the kernel names what looks like a chain's tail. */
	{
		const char *want[] = {"TRACE: filter:FORWARD:rule:1 ", "TRACE: filter:A:rule:1 ",
				      "TRACE: filter:B:return:1 ", "TRACE: filter:FORWARD:rule:2 ",
				      "TRACE: filter:FORWARD:policy:3 "};
		unsigned k = 0;

		for (unsigned i = 0; i < r.ntrace && k < 5; i++)
			if (!strncmp(r.trace[i], "TRACE: filter:", 14)) {
				assert_true(!strncmp(r.trace[i], want[k], strlen(want[k])));
				k++;
			}
		assert_int_equal(k, 5);
	}
	rec_free(&r);
	box_free(b);
}

/* RETURN in a built-in chain applies its policy; falling off a user chain returns. */
static void test_builtin_return_and_falloff(void **state)
{
	struct rec r = {0};
	struct box *b = gw_box(&r, NULL);
	struct rules_ruleset *rs = rules_ruleset_new(AF_INET);
	unsigned fwd = builtin(rs, TABLE_FILTER, HOOK_FORWARD);
	unsigned ca = add_chain(rs, TABLE_FILTER, "EMPTY");
	struct rules_chain *ch;

	add_target(rs, TABLE_FILTER, fwd, RULES_T_JUMP, ca);  /* falls off, comes back */
	add_target(rs, TABLE_FILTER, fwd, RULES_T_RETURN, 0); /* policy */
	add_target(rs, TABLE_FILTER, fwd, RULES_T_ACCEPT, 0); /* not reached */
	rs->tables[TABLE_FILTER].chains[fwd].policy = EXT_DROP;
	box_set_ruleset(b, rs, AF_INET);
	assert_int_equal(box_receive(b, 1, mk("udp 10.0.0.2:1 > 192.0.2.1:2 eth")), EXT_DROP);
	ch = rs->tables[TABLE_FILTER].chains;
	assert_int_equal(ch[fwd].ctr[1].pkts, 1);
	assert_int_equal(ch[fwd].ctr[2].pkts, 0);
	assert_int_equal(ch[fwd].pkts, 1);
	assert_int_equal(r.drop[0].kind, BOX_DROP_POLICY);
	rec_free(&r);
	box_free(b);
}

/* -g from a built-in chain then falling off: nothing to return to, the built-in's policy. */
static void test_goto_from_builtin_falloff(void **state)
{
	struct rec r = {0};
	struct box *b = gw_box(&r, NULL);
	struct rules_ruleset *rs = rules_ruleset_new(AF_INET);
	unsigned fwd = builtin(rs, TABLE_FILTER, HOOK_FORWARD);
	unsigned ca = add_chain(rs, TABLE_FILTER, "G");

	add_target(rs, TABLE_FILTER, fwd, RULES_T_GOTO, ca);
	add_target(rs, TABLE_FILTER, fwd, RULES_T_ACCEPT, 0);
	rs->tables[TABLE_FILTER].chains[fwd].policy = EXT_DROP;
	box_set_ruleset(b, rs, AF_INET);
	assert_int_equal(box_receive(b, 1, mk("udp 10.0.0.2:1 > 192.0.2.1:2 eth")), EXT_DROP);
	assert_int_equal(rs->tables[TABLE_FILTER].chains[fwd].ctr[1].pkts, 0);
	assert_int_equal(r.drop[0].kind, BOX_DROP_POLICY);
	rec_free(&r);
	box_free(b);
}

static void test_loop_guard(void **state)
{
	struct rec r = {0};
	struct box *b = gw_box(&r, NULL);
	struct rules_ruleset *rs = rules_ruleset_new(AF_INET);
	unsigned fwd = builtin(rs, TABLE_FILTER, HOOK_FORWARD);
	unsigned ca = add_chain(rs, TABLE_FILTER, "L");

	add_target(rs, TABLE_FILTER, fwd, RULES_T_JUMP, ca);
	add_target(rs, TABLE_FILTER, ca, RULES_T_JUMP, ca);
	box_set_ruleset(b, rs, AF_INET);
	assert_int_equal(box_receive(b, 1, mk("udp 10.0.0.2:1 > 192.0.2.1:2 eth")), EXT_DROP);
	assert_int_equal(r.drop[0].kind, BOX_DROP_LOOP);
	assert_string_equal(r.drop[0].chain, "L");
	rec_free(&r);
	box_free(b);
}

/* Counters: bytes are the IP datagram (not the Ethernet frame, not the padding). */
static void test_counters_bytes(void **state)
{
	struct rec r = {0};
	struct box *b = gw_box(&r, NULL);
	struct rules_ruleset *rs = rules_ruleset_new(AF_INET);
	unsigned fwd = builtin(rs, TABLE_FILTER, HOOK_FORWARD);

	add_target(rs, TABLE_FILTER, fwd, RULES_T_NONE, 0);
	box_set_ruleset(b, rs, AF_INET);
	box_receive(b, 1, mk("udp 10.0.0.2:1 > 192.0.2.1:2 len=10 eth"));
	box_receive(b, 1, mk("tcp 10.0.0.2:1 > 192.0.2.1:2 syn eth"));
	assert_int_equal(rs->tables[TABLE_FILTER].chains[fwd].ctr[0].pkts, 2);
	assert_int_equal(rs->tables[TABLE_FILTER].chains[fwd].ctr[0].bytes, (20 + 8 + 10) + 40);
	assert_int_equal(rs->tables[TABLE_FILTER].chains[fwd].pkts, 2);
	assert_int_equal(rs->tables[TABLE_FILTER].chains[fwd].bytes, 78);
	rec_free(&r);
	box_free(b);
}

/* One rule in FORWARD with the given standard part, -j DROP; does the packet match it? */
static bool std_matches(const struct rules_ipmatch *ip, const char *spec, int iif)
{
	struct rec r = {0};
	struct box *b = gw_box(&r, NULL);
	struct pkt *p = mk(spec);
	int fam = p->info.family;
	struct rules_ruleset *rs = rules_ruleset_new(fam);
	struct rules_rule *rule =
	    add_target(rs, TABLE_FILTER, builtin(rs, TABLE_FILTER, HOOK_FORWARD), RULES_T_DROP, 0);
	int v;

	rule->ip = *ip;
	box_set_ruleset(b, rs, fam);
	v = box_receive(b, iif, p);
	if (v == EXT_DROP)
		assert_int_equal(r.drop[0].kind, BOX_DROP_RULE);
	rec_free(&r);
	box_free(b);
	return v == EXT_DROP;
}

static void set_if(char *name, uint8_t *len, bool *wild, const char *s)
{
	size_t n = strlen(s);

	*wild = n && s[n - 1] == '+';
	*len = (uint8_t)(*wild ? n - 1 : n);
	memcpy(name, s, *len);
	name[*len] = 0;
}

static void test_standard_match_and_inversion(void **state)
{
	const char *v4 = "udp 10.1.2.3:1 > 192.0.2.1:2 eth";
	struct rules_ipmatch ip;

	/* -s 10.0.0.0/8, ! -s 10.0.0.0/8 */
	memset(&ip, 0, sizeof(ip));
	addr("10.0.0.0", &ip.src);
	addr("255.0.0.0", &ip.smsk);
	assert_true(std_matches(&ip, v4, 1));
	ip.inv = RULES_INV_SRC;
	assert_false(std_matches(&ip, v4, 1));
	/* -d 192.0.2.0/25 and its inversion */
	memset(&ip, 0, sizeof(ip));
	addr("192.0.2.128", &ip.dst);
	addr("255.255.255.128", &ip.dmsk);
	assert_false(std_matches(&ip, v4, 1));
	ip.inv = RULES_INV_DST;
	assert_true(std_matches(&ip, v4, 1));
	/* -i lan0, -i lan+, -i la (no prefix match without '+'), ! -i lan+ */
	memset(&ip, 0, sizeof(ip));
	set_if(ip.in, &ip.in_len, &ip.in_wild, "lan0");
	assert_true(std_matches(&ip, v4, 1));
	set_if(ip.in, &ip.in_len, &ip.in_wild, "lan+");
	assert_true(std_matches(&ip, v4, 1));
	set_if(ip.in, &ip.in_len, &ip.in_wild, "lan");
	assert_false(std_matches(&ip, v4, 1));
	set_if(ip.in, &ip.in_len, &ip.in_wild, "lan+");
	ip.inv = RULES_INV_IN;
	assert_false(std_matches(&ip, v4, 1));
	/* -o wan+, ! -o wan0 */
	memset(&ip, 0, sizeof(ip));
	set_if(ip.out, &ip.out_len, &ip.out_wild, "wan+");
	assert_true(std_matches(&ip, v4, 1));
	set_if(ip.out, &ip.out_len, &ip.out_wild, "wan0");
	ip.inv = RULES_INV_OUT;
	assert_false(std_matches(&ip, v4, 1));
	/* -p udp, ! -p udp, -p tcp */
	memset(&ip, 0, sizeof(ip));
	ip.proto = 17;
	assert_true(std_matches(&ip, v4, 1));
	ip.inv = RULES_INV_PROTO;
	assert_false(std_matches(&ip, v4, 1));
	ip.proto = 6;
	ip.inv = 0;
	assert_false(std_matches(&ip, v4, 1));
	/* -f: non-first fragments only; ! -f: the rest (first fragments included) */
	memset(&ip, 0, sizeof(ip));
	ip.frag = true;
	assert_false(std_matches(&ip, v4, 1));
	assert_false(std_matches(&ip, "udp 10.1.2.3:1 > 192.0.2.1:2 frag=mf eth", 1));
	assert_true(std_matches(&ip, "udp 10.1.2.3 > 192.0.2.1 frag=off:10 eth", 1));
	ip.inv = RULES_INV_FRAG;
	assert_true(std_matches(&ip, "udp 10.1.2.3:1 > 192.0.2.1:2 frag=mf eth", 1));
	assert_false(std_matches(&ip, "udp 10.1.2.3 > 192.0.2.1 frag=off:10 eth", 1));
	/* IPv6: -s fc00::/7 with inversion, -p through an extension header chain */
	memset(&ip, 0, sizeof(ip));
	addr("fc00::", &ip.src);
	addr("fe00::", &ip.smsk);
	assert_true(std_matches(&ip, "udp [fd00::2]:1 > [2001:db8::1]:2 eth", 1));
	ip.inv = RULES_INV_SRC;
	assert_false(std_matches(&ip, "udp [fd00::2]:1 > [2001:db8::1]:2 eth", 1));
	memset(&ip, 0, sizeof(ip));
	ip.proto = 17;
	assert_true(std_matches(&ip, "udp [fd00::2]:1 > [2001:db8::1]:2 ext=hop,dst eth", 1));
}

/* A match that sets hotdrop drops at once, counted as HOTDROP, rule counter untouched. */
static bool hot_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	ctx->hotdrop = !ctx->info->has_l4;
	return ctx->info->has_l4;
}

static const struct ext_match hot = {.name = "hot", .match = hot_match};

static void test_hotdrop_on_truncated_l4(void **state)
{
	struct rec r = {0};
	struct box *b = gw_box(&r, NULL);
	struct rules_ruleset *rs = rules_ruleset_new(AF_INET);
	unsigned fwd = builtin(rs, TABLE_FILTER, HOOK_FORWARD);
	struct rules_rule *rule = add_target(rs, TABLE_FILTER, fwd, RULES_T_ACCEPT, 0);
	struct pkt *p = mk("tcp 10.0.0.2:1 > 192.0.2.1:2 syn");
	uint8_t bytes[24];

	rule->matches = calloc(1, sizeof(*rule->matches));
	rule->matches[0].match = &hot;
	rule->nmatches = 1;
	box_set_ruleset(b, rs, AF_INET);
	assert_int_equal(box_receive(b, 1, mk("tcp 10.0.0.2:1 > 192.0.2.1:2 syn eth")), EXT_ACCEPT);
	/* raw IP on a raw link: IP header + 4 bytes of TCP, lengths fixed to say so */
	memcpy(bytes, pkt_linear_data(p), 24);
	bytes[2] = 0;
	bytes[3] = 24;
	bytes[10] = bytes[11] = 0;
	{
		uint16_t sum = pkt_csum_fold(pkt_csum_bytes(bytes, 20, 0));

		bytes[10] = (uint8_t)(sum >> 8);
		bytes[11] = (uint8_t)sum;
	}
	pkt_free(p);
	p = pkt_from_bytes(bytes, 24);
	assert_int_equal(box_set_iface_link(b, 1, PKT_LINK_RAW), 0);
	assert_int_equal(box_receive(b, 1, p), EXT_DROP);
	assert_int_equal(r.drop[0].kind, BOX_DROP_HOTDROP);
	assert_int_equal(r.drop[0].rulenum, 1);
	assert_int_equal(rule_ctr(rs, TABLE_FILTER, fwd, 0)->pkts, 1); /* only the intact packet */
	assert_int_equal(box_stats(b)->malformed[PKT_BAD_L4_TRUNC], 0);
	rec_free(&r);
	box_free(b);
}

static int queue_target_fn(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	ctx->queue_num = 7;
	ctx->queue_flags = inst->seen; /* test: bypass flag carried in `seen` */
	return EXT_QUEUE;
}

static const struct ext_target nfq = {.name = "NFQ", .target = queue_target_fn};

static int queue_case(struct rec *r, const struct box_ops *ops, uint16_t flags, uint32_t *mark)
{
	struct box *b = gw_box(r, ops);
	struct rules_ruleset *rs = rules_ruleset_new(AF_INET);
	unsigned fwd = builtin(rs, TABLE_MANGLE, HOOK_FORWARD);
	struct pkt *p = mk("udp 10.0.0.2:1 > 192.0.2.1:2 eth");
	int v;

	add_ext_target(rs, TABLE_MANGLE, fwd, &nfq)->target.ext.seen = flags;
	/* filter FORWARD drops what does not carry mark 5 */
	add_target(rs, TABLE_FILTER, builtin(rs, TABLE_FILTER, HOOK_FORWARD), RULES_T_NONE, 0);
	box_set_ruleset(b, rs, AF_INET);
	v = box_receive(b, 1, p);
	if (r->nxmit)
		*mark = r->xmit[0]->mark;
	/* the filter table ran after the queue's ACCEPT: the next hook function */
	if (v == EXT_ACCEPT)
		assert_int_equal(rs->tables[TABLE_FILTER]
				     .chains[builtin(rs, TABLE_FILTER, HOOK_FORWARD)]
				     .ctr[0]
				     .pkts,
				 1);
	box_free(b);
	return v;
}

static void test_nfqueue(void **state)
{
	struct box_ops ops = rec_ops;
	struct rec r = {0};
	uint32_t mark = 0;

	ops.queue = rec_queue;
	r.queue_verdict = EXT_ACCEPT;
	r.queue_mark = 5;
	assert_int_equal(queue_case(&r, &ops, 0, &mark), EXT_ACCEPT);
	assert_int_equal(r.nqueue, 1);
	assert_int_equal(r.queue_num, 7);
	assert_int_equal(mark, 5);
	rec_free(&r);

	r.queue_verdict = EXT_DROP;
	assert_int_equal(queue_case(&r, &ops, 0, &mark), EXT_DROP);
	assert_int_equal(r.drop[0].kind, BOX_DROP_RULE);
	assert_int_equal(r.drop[0].table, TABLE_MANGLE);
	rec_free(&r);

	/* no handler: dropped, unless --queue-bypass */
	assert_int_equal(queue_case(&r, NULL, 0, &mark), EXT_DROP);
	assert_int_equal(r.drop[0].kind, BOX_DROP_QUEUE);
	rec_free(&r);
	assert_int_equal(queue_case(&r, NULL, EXT_QUEUE_BYPASS, &mark), EXT_ACCEPT);
	assert_int_equal(r.nxmit, 1);
	rec_free(&r);
}

static void test_trace_line_format(void **state)
{
	struct rec r = {0};
	struct box *b = gw_box(&r, NULL);
	struct rules_ruleset *rs = rules_ruleset_new(AF_INET);
	struct pkt *p = mk("tcp 10.0.0.2:1234 > 192.0.2.1:80 syn seq=7 win=512 ttl=64 df eth "
			   "smac=02:00:00:00:00:01 dmac=02:00:00:00:00:02");

	add_target(rs, TABLE_FILTER, builtin(rs, TABLE_FILTER, HOOK_FORWARD), RULES_T_NONE, 0);
	box_set_ruleset(b, rs, AF_INET);
	p->trace = true;
	p->mark = 0x10;
	box_receive(b, 1, p);
	assert_true(r.ntrace >= 2);
	/* raw and mangle PREROUTING policy lines come first; find filter's rule line */
	for (unsigned i = 0; i < r.ntrace; i++)
		if (!strncmp(r.trace[i], "TRACE: filter:FORWARD:rule:1 ", 29)) {
			assert_string_equal(
			    r.trace[i],
			    "TRACE: filter:FORWARD:rule:1 IN=lan0 OUT=wan0 "
			    "MAC=02:00:00:00:00:02:02:00:00:00:00:01:08:00 SRC=10.0.0.2 "
			    "DST=192.0.2.1 LEN=40 TOS=0x00 PREC=0x00 TTL=63 ID=0 DF PROTO=TCP "
			    "SPT=1234 DPT=80 SEQ=7 ACK=0 WINDOW=512 RES=0x00 SYN URGP=0 "
			    "MARK=0x10");
			rec_free(&r);
			box_free(b);
			return;
		}
	fail_msg("no filter rule trace; first: %s", r.trace[0]);
}

/* Swap rulesets between packets, and from inside a callback of the data path. */
static struct box *swap_box;

static void swap_deliver(void *u, struct box *b, struct pkt *p)
{
	struct rules_ruleset *rs = rules_ruleset_new(AF_INET);

	rs->tables[TABLE_FILTER].chains[builtin(rs, TABLE_FILTER, HOOK_INPUT)].policy = EXT_DROP;
	box_set_ruleset(b, rs, AF_INET); /* inside the read-side section: parked */
	rec_deliver(u, b, p);
}

static void test_ruleset_swap(void **state)
{
	struct box_ops ops = rec_ops;
	struct rec r = {0};
	struct box *b;
	struct rules_ruleset *rs = rules_ruleset_new(AF_INET);
	union pt_addr a;

	ops.deliver = swap_deliver;
	b = swap_box = gw_box(&r, &ops);
	addr("10.0.0.1", &a);
	box_add_addr(b, 1, AF_INET, &a, 8);
	rs->tables[TABLE_FILTER].chains[builtin(rs, TABLE_FILTER, HOOK_FORWARD)].policy = EXT_DROP;
	box_set_ruleset(b, rs, AF_INET);
	assert_ptr_equal(box_ruleset(b, AF_INET), rs);
	assert_int_equal(box_receive(b, 1, mk("udp 10.0.0.2:1 > 192.0.2.1:2 eth")), EXT_DROP);
	box_set_ruleset(b, rules_ruleset_new(AF_INET), AF_INET); /* old one freed */
	assert_int_equal(box_receive(b, 1, mk("udp 10.0.0.2:1 > 192.0.2.1:2 eth")), EXT_ACCEPT);
	/* delivered: the callback installs INPUT policy DROP; the next local packet sees it */
	assert_int_equal(box_receive(b, 1, mk("udp 10.0.0.2:1 > 10.0.0.1:2 eth")), EXT_ACCEPT);
	assert_int_equal(box_receive(b, 1, mk("udp 10.0.0.2:1 > 10.0.0.1:2 eth")), EXT_DROP);
	assert_int_equal(r.drop[r.ndrop - 1].kind, BOX_DROP_POLICY);
	assert_string_equal(r.drop[r.ndrop - 1].chain, "INPUT");
	box_set_ruleset(b, NULL, AF_INET);
	assert_null(box_ruleset(b, AF_INET));
	rec_free(&r);
	box_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hook_order_forward),
	    cmocka_unit_test(test_hook_order_input),
	    cmocka_unit_test(test_hook_order_output),
	    cmocka_unit_test(test_jump_goto_return),
	    cmocka_unit_test(test_builtin_return_and_falloff),
	    cmocka_unit_test(test_goto_from_builtin_falloff),
	    cmocka_unit_test(test_loop_guard),
	    cmocka_unit_test(test_counters_bytes),
	    cmocka_unit_test(test_standard_match_and_inversion),
	    cmocka_unit_test(test_hotdrop_on_truncated_l4),
	    cmocka_unit_test(test_nfqueue),
	    cmocka_unit_test(test_trace_line_format),
	    cmocka_unit_test(test_ruleset_swap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Targets through parsed rules: REJECT answers, LOG lines as the kernel wrote them, MARK,
 * DSCP/TOS/TCPMSS rewrites with valid checksums, NFQUEUE balance. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include <netinet/in.h>

#include "ext_fake_env.h"

static struct fake_box fb;
static const struct ext_env env = { &fake_ops, &fb };

static int fire(struct rules_ruleset **rs, int fam, const char *table, const char *chain,
		unsigned hook, const char *rule, struct pkt *p)
{
	struct rules_rule *r = fake_rule(rs, fam, table, chain, rule);
	struct ext_pkt_ctx ctx;
	int v;

	assert_non_null(r);
	assert_non_null(p);
	fake_ctx(&ctx, p, &env, hook, 0);
	v = r->target.ext.target->target(&ctx, &r->target.ext);
	fb.level[7] = ctx.queue_num; /* scratch for NFQUEUE */
	return v;
}

static void test_mark(void **state)
{
	static const struct {
		const char *rule;
		uint32_t in, out;
	} c[] = {
		{ "-j MARK --set-mark 1/2", 0xf0, 0xf1 },   { "-j MARK --and-mark 0xf0", 0xff, 0xf0 },
		{ "-j MARK --or-mark 3", 0x10, 0x13 },      { "-j MARK --xor-mark 3", 0x11, 0x12 },
		{ "-j MARK --set-xmark 5/0xf", 0x3f, 0x35 },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct rules_ruleset *rs = NULL;
		struct pkt *p = fake_pkt("udp 10.0.0.2:1 > 10.0.0.1:2");

		p->mark = c[i].in;
		assert_int_equal(fire(&rs, AF_INET, "mangle", "FORWARD", HOOK_FORWARD, c[i].rule, p),
				 EXT_CONTINUE);
		assert_int_equal(p->mark, c[i].out);
		pkt_free(p);
		rules_ruleset_free(rs);
	}
}

static void test_reject_rst(void **state)
{
	struct rules_ruleset *rs = NULL;
	struct pkt *p = fake_pkt("tcp 10.0.0.2:1234 > 192.0.2.1:80 syn seq=1000");
	struct pkt *r;
	uint8_t th[20];

	fake_reset(&fb);
	assert_int_equal(fire(&rs, AF_INET, "filter", "INPUT", HOOK_INPUT,
			      "-p tcp -j REJECT --reject-with tcp-reset", p),
			 EXT_DROP);
	assert_int_equal(fb.nemitted, 1);
	r = fb.emitted[0];
	assert_int_equal(r->info.l4proto, IPPROTO_TCP);
	assert_int_equal(r->info.sport, 80);
	assert_int_equal(r->info.dport, 1234);
	assert_int_equal(r->info.tcp_flags, 0x14); /* RST ACK */
	pkt_copy_out(r, r->info.l4off, th, 20);
	assert_int_equal((uint32_t)th[8] << 24 | th[9] << 16 | th[10] << 8 | th[11], 1001);
	assert_true(pkt_l4_csum_ok(r));
	fake_reset(&fb);
	pkt_free(p);
	rules_ruleset_free(rs);
}

static void test_reject_icmp(void **state)
{
	struct rules_ruleset *rs = NULL;
	struct pkt *p = fake_pkt("udp 10.0.0.2:5000 > 192.0.2.1:53 len=20");
	struct pkt *r;
	uint8_t q[48], o[48];

	fake_reset(&fb);
	assert_int_equal(fire(&rs, AF_INET, "filter", "INPUT", HOOK_INPUT, "-j REJECT", p),
			 EXT_DROP);
	assert_int_equal(fb.nemitted, 1);
	r = fb.emitted[0];
	assert_int_equal(r->info.icmp_type, 3);
	assert_int_equal(r->info.icmp_code, 3);
	assert_true(pkt_l4_csum_ok(r));
	/* the quote is the offending datagram */
	pkt_copy_out(r, r->info.l4off + 8, q, 48);
	pkt_copy_out(p, p->info.l3off, o, 48);
	assert_memory_equal(q, o, 48);
	fake_reset(&fb);
	pkt_free(p);
	/* no answer to an ICMP error or to multicast */
	p = fake_pkt("icmp 10.0.0.2 > 192.0.2.1 port-unreachable");
	fire(&rs, AF_INET, "filter", "INPUT", HOOK_INPUT, "-j REJECT", p);
	pkt_free(p);
	p = fake_pkt("udp 10.0.0.2:1 > 224.0.0.1:2");
	fire(&rs, AF_INET, "filter", "INPUT", HOOK_INPUT, "-j REJECT", p);
	pkt_free(p);
	assert_int_equal(fb.nemitted, 0);
	rules_ruleset_free(rs);
}

/* Lines copied from dmesg of a real kernel (6.18, nf_log_all_netns=1), same packets. */
static void test_log_kernel_lines(void **state)
{
	static const struct {
		int fam;
		unsigned hook;
		const char *rule, *spec, *line;
	} c[] = {
		{ AF_INET, HOOK_INPUT, "-j LOG --log-prefix \"PTX4 \"",
		  "udp 10.0.0.2:39619 > 10.0.0.1:53 df id=34880 payload=\"hi\\n\" "
		  "smac=02:00:00:00:00:01 dmac=02:00:00:00:00:02",
		  "PTX4 IN=lan0 OUT= MAC=02:00:00:00:00:02:02:00:00:00:00:01:08:00 SRC=10.0.0.2 "
		  "DST=10.0.0.1 LEN=31 TOS=0x00 PREC=0x00 TTL=64 ID=34880 DF PROTO=UDP SPT=39619 "
		  "DPT=53 LEN=11 " },
		{ AF_INET, HOOK_INPUT,
		  "-j LOG --log-prefix \"PTX4 \" --log-tcp-sequence --log-tcp-options "
		  "--log-ip-options",
		  "tcp 10.0.0.2:34412 > 10.0.0.1:80 syn seq=153353457 win=64240 df id=9776 "
		  "tcpopt=hex:020405B40402080A5124F49E000000000103030A "
		  "smac=02:00:00:00:00:01 dmac=02:00:00:00:00:02",
		  "PTX4 IN=lan0 OUT= MAC=02:00:00:00:00:02:02:00:00:00:00:01:08:00 SRC=10.0.0.2 "
		  "DST=10.0.0.1 LEN=60 TOS=0x00 PREC=0x00 TTL=64 ID=9776 DF PROTO=TCP SPT=34412 "
		  "DPT=80 SEQ=153353457 ACK=0 WINDOW=64240 RES=0x00 SYN URGP=0 "
		  "OPT (020405B40402080A5124F49E000000000103030A) " },
		{ AF_INET, HOOK_OUTPUT, "-j LOG --log-prefix \"PTX4O \"",
		  "tcp 10.0.0.1:80 > 10.0.0.2:34412 rst,ack win=0 df id=0",
		  "PTX4O IN= OUT=wan0 SRC=10.0.0.1 DST=10.0.0.2 LEN=40 TOS=0x00 PREC=0x00 TTL=64 "
		  "ID=0 DF PROTO=TCP SPT=80 DPT=34412 WINDOW=0 RES=0x00 ACK RST URGP=0 " },
		{ AF_INET6, HOOK_INPUT, "-j LOG --log-prefix \"PTX6 \"",
		  "udp [2001:db8::2]:52229 > [2001:db8::1]:53 flow=72033 payload=\"hi\\n\" "
		  "smac=02:00:00:00:00:01 dmac=02:00:00:00:00:02",
		  "PTX6 IN=lan0 OUT= MAC=02:00:00:00:00:02:02:00:00:00:00:01:86:dd "
		  "SRC=2001:0db8:0000:0000:0000:0000:0000:0002 "
		  "DST=2001:0db8:0000:0000:0000:0000:0000:0001 LEN=51 TC=0 HOPLIMIT=64 "
		  "FLOWLBL=72033 PROTO=UDP SPT=52229 DPT=53 LEN=11 " },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct rules_ruleset *rs = NULL;
		struct pkt *p = fake_pkt(c[i].spec);

		fake_reset(&fb);
		assert_int_equal(fire(&rs, c[i].fam, "filter",
				      c[i].hook == HOOK_OUTPUT ? "OUTPUT" : "INPUT", c[i].hook,
				      c[i].rule, p),
				 EXT_CONTINUE);
		assert_int_equal(fb.nlog, 1);
		assert_string_equal(fb.log[0], c[i].line);
		assert_int_equal(fb.level[0], 4);
		pkt_free(p);
		rules_ruleset_free(rs);
	}
}

static void test_dscp_tos_csum(void **state)
{
	struct rules_ruleset *rs = NULL;
	struct pkt *p = fake_pkt("udp 10.0.0.2:1 > 10.0.0.1:2 tos=0x01");

	assert_int_equal(fire(&rs, AF_INET, "mangle", "FORWARD", HOOK_FORWARD,
			      "-j DSCP --set-dscp-class EF", p),
			 EXT_CONTINUE);
	assert_int_equal(p->info.tos, 0xb9);
	assert_int_equal(pkt_parse(p, PKT_LINK_RAW, true), 0); /* header checksum verified */
	rules_ruleset_free(rs);
	rs = NULL;
	assert_int_equal(fire(&rs, AF_INET, "mangle", "FORWARD", HOOK_FORWARD,
			      "-j TOS --set-tos Minimize-Delay", p),
			 EXT_CONTINUE);
	assert_int_equal(p->info.tos, 0x90);
	assert_int_equal(pkt_parse(p, PKT_LINK_RAW, true), 0);
	assert_int_equal(p->info.tos, 0x90);
	pkt_free(p);
	rules_ruleset_free(rs);
}

static void test_tcpmss(void **state)
{
	struct rules_ruleset *rs = NULL;
	struct pkt *p = fake_pkt("tcp 10.0.0.2:1 > 10.0.0.1:80 syn mss=1460");
	uint8_t opt[4];

	fb.mtu = 1400;
	assert_int_equal(fire(&rs, AF_INET, "mangle", "FORWARD", HOOK_FORWARD,
			      "-p tcp -j TCPMSS --clamp-mss-to-pmtu", p),
			 EXT_CONTINUE);
	pkt_copy_out(p, p->info.l4off + 20, opt, 4);
	assert_int_equal(opt[2] << 8 | opt[3], 1360);
	assert_true(pkt_l4_csum_ok(p));
	pkt_free(p);
	rules_ruleset_free(rs);
	rs = NULL;
	/* no MSS option: one is inserted, at most 536 */
	p = fake_pkt("tcp 10.0.0.2:1 > 10.0.0.1:80 syn");
	assert_int_equal(fire(&rs, AF_INET, "mangle", "FORWARD", HOOK_FORWARD,
			      "-p tcp -j TCPMSS --set-mss 1000", p),
			 EXT_CONTINUE);
	assert_int_equal(p->info.tcp_doff, 24);
	assert_int_equal(p->info.l3len, 44);
	pkt_copy_out(p, p->info.l4off + 20, opt, 4);
	assert_int_equal(opt[2] << 8 | opt[3], 536);
	assert_true(pkt_l4_csum_ok(p));
	assert_int_equal(pkt_parse(p, PKT_LINK_RAW, true), 0);
	pkt_free(p);
	rules_ruleset_free(rs);
}

static void test_nfqueue_balance(void **state)
{
	struct rules_ruleset *rs = NULL;
	struct pkt *a = fake_pkt("udp 10.0.0.2:1 > 10.0.0.1:2");
	struct pkt *b = fake_pkt("udp 10.0.0.1:2 > 10.0.0.2:1");
	int qa, qb;

	assert_int_equal(fire(&rs, AF_INET, "filter", "INPUT", HOOK_INPUT,
			      "-j NFQUEUE --queue-balance 2:5 --queue-bypass", a),
			 EXT_QUEUE);
	qa = fb.level[7];
	rules_ruleset_free(rs);
	rs = NULL;
	fire(&rs, AF_INET, "filter", "INPUT", HOOK_INPUT,
	     "-j NFQUEUE --queue-balance 2:5 --queue-bypass", b);
	qb = fb.level[7];
	assert_true(qa >= 2 && qa <= 5);
	assert_int_equal(qa, qb); /* both directions on one queue */
	pkt_free(a);
	pkt_free(b);
	rules_ruleset_free(rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mark),
		cmocka_unit_test(test_reject_rst),
		cmocka_unit_test(test_reject_icmp),
		cmocka_unit_test(test_log_kernel_lines),
		cmocka_unit_test(test_dscp_tos_csum),
		cmocka_unit_test(test_tcpmss),
		cmocka_unit_test(test_nfqueue_balance),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

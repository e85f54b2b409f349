// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * box_receive_burst means box_receive of each packet in turn: the same packets through two
 * boxes set up alike, one packet at a time into the first and in bursts (runs of packets
 * arriving on the same interface, cut at every size from 1 to 9) into the second, give the
 * same callbacks in the same order, the same bytes out, the same verdicts and the same
 * counters. With no tables at all (every hook idle: the path a burst shortens) and with
 * conntrack, NAT, a MARK rule and a filter chain that drops some of the traffic. The traffic
 * has what leaves the common path: TTL 1 (an ICMP error the box sends), the box's own address,
 * a broadcast, a fragment, a truncated frame, IPv6, a VLAN tag.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "ct/ct.h"
#include "ct/ct_plugin.h"
#include "engine/box.h"
#include "pkt/build.h"
#include "rules/rules.h"
#include "test_log.h"

static void log_bytes(struct log *l, const struct pkt *p)
{
	uint8_t b[160];
	uint32_t n = p->len < sizeof(b) ? p->len : sizeof(b);

	assert_int_equal(pkt_copy_out(p, 0, b, n), 0);
	logf_(l, " len=%u mark=%u", p->len, p->mark);
	for (uint32_t i = 0; i < n; i++)
		logf_(l, "%02x", b[i]);
	logf_(l, "\n");
}

static void on_xmit(void *u, struct box *b, int oif, struct pkt *p)
{
	(void)b;
	logf_(u, "xmit %d", oif);
	log_bytes(u, p);
	pkt_free(p);
}

static void on_deliver(void *u, struct box *b, struct pkt *p)
{
	(void)b;
	logf_(u, "deliver");
	log_bytes(u, p);
	pkt_free(p);
}

static void on_dropped(void *u, struct box *b, const struct pkt *p, const struct box_drop *why)
{
	(void)b;
	logf_(u, "drop kind=%d hook=%u table=%d rule=%u id=%llu\n", (int)why->kind, why->hook,
	      why->table, why->rulenum, (unsigned long long)p->id);
}

static const struct box_ops log_ops = {
    .xmit = on_xmit,
    .deliver = on_deliver,
    .dropped = on_dropped,
};

static const char rules4[] = "*mangle\n"
			     ":PREROUTING ACCEPT [0:0]\n"
			     "-A PREROUTING -i lan0 -j MARK --set-mark 0x7\n"
			     "COMMIT\n"
			     "*nat\n"
			     ":POSTROUTING ACCEPT [0:0]\n"
			     "-A POSTROUTING -o wan0 -j SNAT --to-source 192.0.2.1\n"
			     "COMMIT\n"
			     "*filter\n"
			     ":INPUT ACCEPT [0:0]\n"
			     ":FORWARD ACCEPT [0:0]\n"
			     "-A FORWARD -p tcp --dport 23 -j DROP\n"
			     "-A FORWARD -m conntrack --ctstate INVALID -j DROP\n"
			     "COMMIT\n";

static struct box *setup(struct log *l, bool tables)
{
	struct box *b = box_new("gw", &log_ops, l);
	union pt_addr a;
	int wan;

	assert_non_null(b);
	assert_int_equal(box_setup_default_gateway(b), 0);
	wan = box_iface_index(b, "wan0");
	memset(&a, 0, sizeof(a));
	assert_int_equal(pt_addr_parse("192.0.2.1", &a), AF_INET);
	assert_int_equal(box_add_addr(b, wan, AF_INET, &a, 24), 0);
	if (tables) {
		struct rules_ruleset *rs = NULL;
		struct rules_error err;

		assert_int_equal(ct_box_enable(b, true), 0);
		if (rules_parse_buffer(rules4, strlen(rules4), "burst", AF_INET,
				       ext_registry_default(), NULL, 0, &rs, &err)) {
			rules_error_print(&err, stderr);
			fail();
		}
		box_set_ruleset(b, rs, AF_INET);
	}
	return b;
}

/* Interface, then the packet's text form. */
static const char *const traffic[][2] = {
    {"lan0", "tcp 10.0.0.2:1000 > 203.0.113.5:80 syn eth"},
    {"lan0", "udp 10.0.0.3:2000 > 203.0.113.6:53 len=20 eth"},
    {"lan0", "tcp 10.0.0.2:1001 > 203.0.113.5:23 syn eth"},
    {"lan0", "udp 10.0.0.4:2001 > 203.0.113.6:53 ttl=1 len=8 eth"},
    {"wan0", "tcp 203.0.113.5:80 > 192.0.2.1:1000 syn,ack eth"},
    {"wan0", "udp 198.51.100.1:53 > 192.0.2.1:9 len=4 eth"},
    {"wan0", "udp 198.51.100.1:53 > 192.0.2.255:9 len=4 eth"},
    {"lan0", "tcp 10.0.0.2:1000 > 203.0.113.5:80 ack len=10 eth"},
    {"lan0", "udp 10.0.0.5:7 > 203.0.113.7:7 frag=off:0,mf id=4 len=16 eth"},
    {"lan0", "tcp [fd00::2]:1000 > [2001:db8::5]:80 syn eth"},
    {"lan0", "udp 10.0.0.6:5 > 203.0.113.8:5 vlan=5 len=3 eth"},
    {"lan0", "tcp 10.0.0.7:1 > 203.0.113.9:2 ack tos=16 len=1 eth"},
    {"wan0", "udp 203.0.113.6:53 > 10.0.0.3:2000 len=9 eth"},
    {"lan0", "udp 10.0.0.3:2000 > 203.0.113.6:53 len=21 eth"},
};

#define NTRAFFIC (sizeof(traffic) / sizeof(traffic[0]))
#define ROUNDS	 3

/* Packet k of the traffic (ROUNDS times over; every 5th of the third round cut short). */
static struct pkt *packet(unsigned k)
{
	struct pkt_spec *s = malloc(sizeof(*s));
	char err[128];
	struct pkt *p;

	assert_non_null(s);
	if (pkt_spec_parse(traffic[k % NTRAFFIC][1], s, err, sizeof(err)))
		fail_msg("%s: %s", traffic[k % NTRAFFIC][1], err);
	p = pkt_build(s);
	free(s);
	assert_non_null(p);
	if (k / NTRAFFIC == 2 && k % 5 == 0)
		pkt_trim(p, p->len - 3);
	p->id = k;
	return p;
}

static void compare(bool tables)
{
	struct log one = {0}, burst = {0}, vone = {0}, vburst = {0};
	struct box *a = setup(&one, tables), *b = setup(&burst, tables);
	unsigned total = NTRAFFIC * ROUNDS, k = 0, cut = 1;

	for (unsigned i = 0; i < total; i++) {
		int v = box_receive(a, box_iface_index(a, traffic[i % NTRAFFIC][0]), packet(i));

		logf_(&vone, "%d\n", v);
	}
	while (k < total) {
		const char *ifname = traffic[k % NTRAFFIC][0];
		struct pkt *v[16];
		int verdicts[16];
		unsigned n = 0;

		while (k + n < total && n < cut &&
		       !strcmp(traffic[(k + n) % NTRAFFIC][0], ifname)) {
			v[n] = packet(k + n);
			n++;
		}
		assert_true(box_receive_burst(b, box_iface_index(b, ifname), v, n, verdicts) >= 0);
		for (unsigned i = 0; i < n; i++)
			logf_(&vburst, "%d\n", verdicts[i]);
		k += n;
		cut = cut % 9 + 1;
	}
	/* the traffic went every way: out, delivered, dropped (a rule, a malformed frame) */
	assert_non_null(strstr(one.text, "xmit 2"));
	assert_non_null(strstr(one.text, "xmit 1")); /* the ICMP error back to lan0 */
	assert_non_null(strstr(one.text, "deliver"));
	assert_non_null(strstr(one.text, "drop kind="));
	if (one.len != burst.len || memcmp(one.text, burst.text, one.len)) {
		fprintf(stderr, "one at a time:\n%.*s\nbursts:\n%.*s\n", (int)one.len, one.text,
			(int)burst.len, burst.text);
		fail_msg("bursts differ from single packets (tables %d)", tables);
	}
	assert_int_equal(vone.len, vburst.len);
	assert_memory_equal(vone.text, vburst.text, vone.len);
	assert_memory_equal(box_stats(a), box_stats(b), sizeof(struct box_stats));
	box_free(a);
	box_free(b);
	free(one.text);
	free(burst.text);
	free(vone.text);
	free(vburst.text);
}

static void test_burst_no_tables(void **state)
{
	(void)state;
	compare(false);
}

static void test_burst_tables_conntrack_nat(void **state)
{
	(void)state;
	compare(true);
}

static void test_burst_refused(void **state)
{
	struct log l = {0};
	struct box *b = setup(&l, false);
	struct pkt *v[2] = {packet(0), NULL};
	int verdicts[2] = {0, 0};

	(void)state;
	assert_int_equal(box_receive_burst(b, 1, v, 2, verdicts), -EINVAL); /* nothing taken */
	assert_int_equal(box_receive_burst(b, 1, v, BOX_BURST_MAX + 1, NULL), -EINVAL);
	v[1] = packet(1);
	assert_int_equal(box_receive_burst(b, 99, v, 2, verdicts), -ENODEV); /* both freed */
	assert_int_equal(verdicts[0], -ENODEV);
	assert_int_equal(verdicts[1], -ENODEV);
	assert_int_equal(box_receive_burst(b, 1, NULL, 0, NULL), 0);
	box_free(b);
	free(l.text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_burst_no_tables),
	    cmocka_unit_test(test_burst_tables_conntrack_nat),
	    cmocka_unit_test(test_burst_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

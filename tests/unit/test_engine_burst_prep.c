// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A burst's prepare stage (conntrack hashes every tuple and prefetches its chain before the
 * first packet goes its way; ct_in takes the hash as a hint when the tuple is still the same)
 * changes nothing: the same random traffic through two boxes set up alike, one packet at a
 * time (box_receive: no prepare, every packet hashes its own tuple) and in bursts of random
 * sizes (box_receive_burst: prepared), gives the same callbacks in the same order, the same
 * bytes out, the same verdicts, the same box and conntrack counters and the same conntrack
 * table, line for line.
 *
 * The traffic: random TCP and UDP flows of both families, new and established (their replies),
 * SYNs, RSTs and FINs; a raw-table CT --zone rule that moves some flows into zone 7 and a
 * NOTRACK rule (so the tuple conntrack makes differs from the one the prepare made); SNAT for
 * one subnet; a `-m statistic --mode nth` rule, which sees the packets in their order; ICMP
 * echo (no hint); IPv4 fragment pairs (the reassembled datagram is another packet: no hint);
 * truncated frames. Between bursts the clock moves (some entries expire on the way) and the
 * table is resized now and then, so bursts are prepared while a resize is under way and new
 * entries move chains during a burst. The hints must have been taken and refused, or the test
 * proves nothing.
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
#include "ct/prefetch.h"
#include "engine/box.h"
#include "pkt/build.h"
#include "rules/rules.h"
#include "test_log.h"

static void log_pkt(struct log *l, const struct pkt *p)
{
	uint8_t b[128];
	uint32_t n = p->len < sizeof(b) ? p->len : sizeof(b);

	assert_int_equal(pkt_copy_out(p, 0, b, n), 0);
	logf_(l, " id=%llu len=%u mark=%u ctinfo=%u ct=%d ", (unsigned long long)p->id, p->len,
	      p->mark, p->ctinfo, p->ct != NULL);
	for (uint32_t i = 0; i < n; i++)
		logf_(l, "%02x", b[i]);
	logf_(l, "\n");
}

static void on_xmit(void *u, struct box *b, int oif, struct pkt *p)
{
	(void)b;
	logf_(u, "xmit %d", oif);
	log_pkt(u, p);
	pkt_free(p);
}

static void on_deliver(void *u, struct box *b, struct pkt *p)
{
	(void)b;
	logf_(u, "deliver");
	log_pkt(u, p);
	pkt_free(p);
}

static void on_dropped(void *u, struct box *b, const struct pkt *p, const struct box_drop *why)
{
	(void)b;
	logf_(u, "drop kind=%d hook=%u table=%d rule=%u reason=%d id=%llu\n", (int)why->kind,
	      why->hook, why->table, why->rulenum, why->reason, (unsigned long long)p->id);
}

static const struct box_ops log_ops = {
    .xmit = on_xmit,
    .deliver = on_deliver,
    .dropped = on_dropped,
};

static const char rules4[] = "*raw\n"
			     ":PREROUTING ACCEPT [0:0]\n"
			     "-A PREROUTING -s 10.0.3.0/24 -j CT --zone 7\n"
			     "-A PREROUTING -d 10.0.3.0/24 -j CT --zone 7\n"
			     "-A PREROUTING -s 10.0.4.0/24 -j NOTRACK\n"
			     "COMMIT\n"
			     "*mangle\n"
			     ":PREROUTING ACCEPT [0:0]\n"
			     "-A PREROUTING -i lan0 -j MARK --set-mark 0x7\n"
			     "COMMIT\n"
			     "*nat\n"
			     ":POSTROUTING ACCEPT [0:0]\n"
			     "-A POSTROUTING -s 10.0.5.0/24 -o wan0 -j SNAT --to-source 192.0.2.1\n"
			     "COMMIT\n"
			     "*filter\n"
			     ":INPUT ACCEPT [0:0]\n"
			     ":FORWARD ACCEPT [0:0]\n"
			     "-A FORWARD -m statistic --mode nth --every 7 --packet 3 -j DROP\n"
			     "-A FORWARD -m conntrack --ctstate INVALID -j DROP\n"
			     "-A FORWARD -m conntrack --ctstate ESTABLISHED -j ACCEPT\n"
			     "-A FORWARD -p tcp --dport 23 -j DROP\n"
			     "COMMIT\n";

static const char rules6[] = "*filter\n"
			     ":FORWARD ACCEPT [0:0]\n"
			     "-A FORWARD -m conntrack --ctstate INVALID -j DROP\n"
			     "COMMIT\n";

static void load(struct box *b, const char *text, int family)
{
	struct rules_ruleset *rs = NULL;
	struct rules_error err;

	if (rules_parse_buffer(text, strlen(text), "prep", family, ext_registry_default(), NULL, 0,
			       &rs, &err)) {
		rules_error_print(&err, stderr);
		fail();
	}
	box_set_ruleset(b, rs, family);
}

static struct box *setup(struct log *l)
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
	assert_int_equal(ct_box_enable(b, true), 0);
	load(b, rules4, AF_INET);
	load(b, rules6, AF_INET6);
	return b;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#define NFLOWS 300

/* One packet: its interface and text form. */
struct item {
	char ifname[8];
	char spec[160];
	bool cut; /* trimmed by 3 bytes */
};

/* A random packet of the traffic (see the header comment). */
static void make_item(uint64_t *s, struct item *it)
{
	unsigned f = (unsigned)(rnd(s) % NFLOWS), kind = (unsigned)(rnd(s) % 100);
	unsigned net = f % 7, host = 2 + f % 50, far = 1 + f % 9;
	bool udp = f % 3 == 0, reply = rnd(s) % 2, v6 = f % 11 == 0;
	unsigned sport = 1000 + f, dport = udp ? 53 : (f % 13 == 0 ? 23 : 80);
	const char *flags = rnd(s) % 8 == 0 ? "syn" : rnd(s) % 40 == 0 ? "rst" : "ack";
	char a[64], b[64];

	memset(it, 0, sizeof(*it));
	if (kind < 4) { /* an IPv4 fragment: the first, or the rest of the datagram */
		snprintf(it->ifname, sizeof(it->ifname), "lan0");
		if (rnd(s) % 2)
			snprintf(
			    it->spec, sizeof(it->spec),
			    "udp 10.0.%u.%u:%u > 203.0.113.%u:53 frag=off:0,mf id=%u len=16 eth",
			    net, host, sport, far, f);
		else
			snprintf(it->spec, sizeof(it->spec),
				 "udp 10.0.%u.%u:%u > 203.0.113.%u:53 frag=off:3 id=%u len=8 eth",
				 net, host, sport, far, f);
		return;
	}
	if (kind < 8) { /* ICMP echo: no hint (not a tuple of ports) */
		snprintf(it->ifname, sizeof(it->ifname), "%s", reply ? "wan0" : "lan0");
		snprintf(it->spec, sizeof(it->spec), "icmp %s > %s %s id=%u eth",
			 reply ? "203.0.113.9" : "10.0.1.2", reply ? "10.0.1.2" : "203.0.113.9",
			 reply ? "echo-reply" : "echo-request", f);
		return;
	}
	if (v6) {
		snprintf(a, sizeof(a), "[fd00::%x]:%u", host, sport);
		snprintf(b, sizeof(b), "[2001:db8::%x]:%u", far, dport);
	} else {
		snprintf(a, sizeof(a), "10.0.%u.%u:%u", net, host, sport);
		snprintf(b, sizeof(b), "203.0.113.%u:%u", far, dport);
	}
	snprintf(it->ifname, sizeof(it->ifname), "%s", reply ? "wan0" : "lan0");
	snprintf(it->spec, sizeof(it->spec), "%s %s > %s %s len=%u eth", udp ? "udp" : "tcp",
		 reply ? b : a, reply ? a : b,
		 udp				    ? ""
		 : (reply && !strcmp(flags, "syn")) ? "syn,ack"
						    : flags,
		 (unsigned)(rnd(s) % 40));
	it->cut = rnd(s) % 97 == 0;
}

static struct pkt *packet(const struct item *it, unsigned id)
{
	struct pkt_spec *s = malloc(sizeof(*s));
	char err[128];
	struct pkt *p;

	assert_non_null(s);
	if (pkt_spec_parse(it->spec, s, err, sizeof(err)))
		fail_msg("%s: %s", it->spec, err);
	p = pkt_build(s);
	free(s);
	assert_non_null(p);
	if (it->cut)
		pkt_trim(p, p->len - 3);
	p->id = id;
	return p;
}

/* The conntrack table as `conntrack -L` lists it. */
static char *dump(struct box *b, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	assert_non_null(f);
	ct_dump(ct_box_table(b), f, box_now(b));
	fclose(f);
	return text;
}

static void compare_boxes(struct box *a, struct box *b, struct log *la, struct log *lb)
{
	size_t na, nb;
	char *da = dump(a, &na), *db = dump(b, &nb);

	if (la->len != lb->len || memcmp(la->text, lb->text, la->len)) {
		size_t i = 0;

		while (i < la->len && i < lb->len && la->text[i] == lb->text[i])
			i++;
		while (i > 0 && la->text[i - 1] != '\n')
			i--;
		fail_msg("bursts differ from single packets from:\none: %.300s\nburst: %.300s",
			 la->text + i, lb->text + i);
	}
	assert_int_equal(na, nb);
	assert_memory_equal(da, db, na);
	assert_memory_equal(box_stats(a), box_stats(b), sizeof(struct box_stats));
	assert_memory_equal(ct_box_stats(a), ct_box_stats(b), sizeof(struct ct_stats));
	free(da);
	free(db);
}

static void run(uint64_t seed, unsigned total, unsigned maxburst)
{
	static const uint32_t sizes[] = {16, 64, 256, 1024, 4096};
	struct log la = {0}, lb = {0}, va = {0}, vb = {0}; /* callbacks, verdicts */
	struct box *a = setup(&la), *b = setup(&lb);
	struct item *items = calloc(BOX_BURST_MAX, sizeof(*items));
	const struct ct_burst *cb;
	uint64_t s = seed;
	unsigned id = 0, bursts = 0;

	assert_non_null(items);
	while (id < total) {
		unsigned n = 1 + (unsigned)(rnd(&s) % maxburst);
		struct pkt *v[BOX_BURST_MAX];
		int verdicts[BOX_BURST_MAX];
		int ifa, ifb;

		/* a burst arrives on one interface: its packets are those of that side */
		make_item(&s, &items[0]);
		for (unsigned k = 1; k < n; k++) {
			do
				make_item(&s, &items[k]);
			while (strcmp(items[k].ifname, items[0].ifname));
		}
		ifa = box_iface_index(a, items[0].ifname);
		ifb = box_iface_index(b, items[0].ifname);
		for (unsigned k = 0; k < n; k++)
			logf_(&va, "v %d\n", box_receive(a, ifa, packet(&items[k], id + k)));
		for (unsigned k = 0; k < n; k++)
			v[k] = packet(&items[k], id + k);
		assert_true(box_receive_burst(b, ifb, v, n, verdicts) >= 0);
		for (unsigned k = 0; k < n; k++)
			logf_(&vb, "v %d\n", verdicts[k]);
		id += n;
		bursts++;
		/* the clock: mostly a little, now and then past the UDP timeouts */
		{
			uint64_t step = rnd(&s) % 23 == 0 ? 35 * 1000000000ull : rnd(&s) % 50000000;

			box_advance(a, step);
			box_advance(b, step);
		}
		if (rnd(&s) % 9 == 0) { /* a resize, left under way for the next bursts */
			uint32_t size = sizes[rnd(&s) % (sizeof(sizes) / sizeof(sizes[0]))];

			assert_int_equal(ct_table_resize(ct_box_table(a), size), 0);
			assert_int_equal(ct_table_resize(ct_box_table(b), size), 0);
		}
		if (bursts % 50 == 0)
			compare_boxes(a, b, &la, &lb);
	}
	compare_boxes(a, b, &la, &lb);
	assert_int_equal(va.len, vb.len);
	assert_memory_equal(va.text, vb.text, va.len);
	/* the traffic went every way, and the hints were both taken and refused */
	assert_non_null(strstr(la.text, "xmit 2"));
	assert_non_null(strstr(la.text, "xmit 1"));
	assert_non_null(strstr(la.text, "drop kind="));
	assert_true(ct_box_stats(a)->new > 100);
	assert_true(ct_box_stats(a)->found > 100);
	cb = ct_box_burst(b);
	assert_non_null(cb);
	assert_true(cb->used > total / 4);
	assert_true(cb->refused > 10); /* zone 7: the raw rule changed the tuple */
	assert_null(ct_box_burst(a));  /* one at a time: never prepared */
	box_free(a);
	box_free(b);
	free(items);
	free(la.text);
	free(lb.text);
	free(va.text);
	free(vb.text);
}

static void test_prep_small_bursts(void **state)
{
	(void)state;
	run(0x9e3779b97f4a7c15ull, 6000, 9);
}

static void test_prep_large_bursts(void **state)
{
	(void)state;
	run(0x2545f4914f6cdd1dull, 12000, BOX_BURST_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_prep_small_bursts),
	    cmocka_unit_test(test_prep_large_bursts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pkt.written, the flag NFQUEUE trusts instead of comparing every payload: a packet whose flag
 * is not set has the bytes it was made with.
 *
 * - Every writer of a packet's bytes sets it (pkt_store, pkt_store_be16, pkt_store_across,
 *   pkt_splice, pkt_trim that cuts); readers, linearize and parse do not; a new packet
 *   (pkt_alloc, pkt_from_bytes, a pool's, pkt_clone, pkt_reframe) starts without it.
 * - The flag against the full compare, on what box_hook_packet (NFQUEUE's entry) does to
 *   packets: every mangle, raw and nat target that pkttables has, at every hook of its table,
 *   over TCP (with and without options, with ECN bits), UDP, ICMP, IPv4 and IPv6 packets, each
 *   in a fresh box with conntrack. Wherever the bytes or the length differ from the original,
 *   the flag is set; the cases that rewrite are counted so that the test shows it drove them.
 */
#include <arpa/inet.h>
#include <limits.h>

#include "ct/ct.h"
#include "ct/ct_plugin.h"
#include "engine/nfq_hook.h"
#include "engine_test.h"

static struct pkt *packet(const char *spec)
{
	return mk(spec);
}

static void test_writers_set_it(void **state)
{
	static const uint8_t data[64] = {1, 2, 3};
	struct pkt_pool *pool = pkt_pool_new(4, 256);
	struct pkt *p, *c;
	uint8_t b[8];

	(void)state;
	assert_non_null(pool);
	p = pkt_from_bytes(data, sizeof(data));
	assert_false(p->written);
	/* readers leave it */
	assert_int_equal(pkt_copy_out(p, 0, b, 8), 0);
	assert_non_null(pkt_header(p, 4, 4, b));
	pkt_trim(p, 64); /* not shorter: nothing cut */
	assert_int_equal(pkt_linearize(p), 0);
	assert_false(p->written);
	assert_int_equal(pkt_store(p, 3, b, 0), 0); /* nothing stored: pkt_in_seg0 refuses len 0 */
	assert_int_equal(pkt_store(p, 1, b, 2), 0);
	assert_true(p->written);
	c = pkt_clone(p);
	assert_false(c->written); /* a copy is made with the bytes it has */
	pkt_trim(c, 60);
	assert_true(c->written);
	pkt_free(c);
	pkt_free(p);

	p = pkt_from_bytes_split(data, sizeof(data), 5);
	assert_int_equal(pkt_store_be16(p, 4, 0x1234), 0); /* across two segments */
	assert_true(p->written);
	pkt_free(p);
	p = pkt_from_bytes_split(data, sizeof(data), 5);
	assert_int_equal(pkt_store_across(p, 20, b, 8), 0);
	assert_true(p->written);
	assert_int_equal(pkt_linearize(p), 0);
	pkt_free(p);
	p = pkt_from_bytes_split(data, sizeof(data), 5);
	assert_int_equal(pkt_store(p, 70, b, 2), -EFAULT); /* refused: not written */
	assert_false(p->written);
	assert_int_equal(pkt_splice(p, 10, 4, b, 6), 0);
	assert_true(p->written);
	pkt_free(p);

	p = pkt_pool_get(pool, data, sizeof(data));
	assert_int_equal(pkt_store(p, 0, b, 1), 0);
	assert_true(p->written);
	pkt_free(p);
	p = pkt_pool_get(pool, data, sizeof(data)); /* the same block again, flag cleared */
	assert_false(p->written);
	pkt_free(p);
	p = pkt_alloc(20);
	assert_false(p->written);
	pkt_free(p);
	pkt_pool_free(pool);
}

/* ---- box_hook_packet: the flag against the full compare ---------------------------------- */

struct target {
	const char *table; /* mangle, nat or raw */
	const char *rule;  /* after "-A CHAIN " */
	int family;	   /* 0: both */
	bool rewrites;	   /* must rewrite some packet (the test drives it) */
};

static const struct target targets[] = {
    {"mangle", "-j MARK --set-mark 0x5", 0, false},
    {"mangle", "-j CONNMARK --set-mark 0x3", 0, false},
    {"mangle", "-j CLASSIFY --set-class 1:2", 0, false},
    {"mangle", "-j DSCP --set-dscp 10", 0, true},
    {"mangle", "-j DSCP --set-dscp 0", 0, false}, /* writes what is there: flag, same bytes */
    {"mangle", "-j TOS --set-tos 0x10", 0, true},
    {"mangle", "-p tcp -j ECN --ecn-tcp-remove", AF_INET, true},
    {"mangle", "-j TTL --ttl-set 5", AF_INET, true},
    {"mangle", "-j TTL --ttl-set 64", AF_INET, false},
    {"mangle", "-j TTL --ttl-dec 1", AF_INET, true},
    {"mangle", "-j TTL --ttl-inc 2", AF_INET, true},
    {"mangle", "-j HL --hl-set 5", AF_INET6, true},
    {"mangle", "-j HL --hl-dec 1", AF_INET6, true},
    {"mangle", "-p tcp --tcp-flags SYN,RST SYN -j TCPMSS --set-mss 500", 0, true},
    {"mangle", "-p tcp --tcp-flags SYN,RST SYN -j TCPMSS --clamp-mss-to-pmtu", 0, true},
    {"mangle", "-p tcp -j TCPOPTSTRIP --strip-options timestamp,sack-permitted", 0, true},
    {"mangle", "-p udp -j CHECKSUM --checksum-fill", 0, false},
    {"raw", "-j CT --notrack", 0, false},
    {"raw", "-j CT --zone 4", 0, false},
    {"nat", "-j SNAT --to-source 192.0.2.9", AF_INET, true},
    {"nat", "-p udp -j SNAT --to-source 192.0.2.9:2000-2100", AF_INET, true},
    {"nat", "-j SNAT --to-source 2001:db8:9::9", AF_INET6, true},
    {"nat", "-j DNAT --to-destination 10.0.0.9", AF_INET, true},
    {"nat", "-p tcp -j DNAT --to-destination 10.0.0.9:8080", AF_INET, true},
    {"nat", "-p tcp -j DNAT --to-destination [fd00::9]:8080", AF_INET6, true},
    {"nat", "-j MASQUERADE", 0, true},
    {"nat", "-p tcp -j MASQUERADE --to-ports 3000-3100 --random", 0, true},
    {"nat", "-p tcp -j REDIRECT --to-ports 3128", 0, true},
    {"nat", "-j NETMAP --to 10.9.0.0/16", AF_INET, true},
    {"nat", "-j NETMAP --to fd09::/64", AF_INET6, true},
    {"nat", "-s 10.0.0.2 -j SNAT --to-source 10.0.0.2", AF_INET, false},
};

static const char *const packets[] = {
    "tcp 10.0.0.2:40000 > 198.51.100.7:80 syn mss=1460 sackok ts=1:0 wscale=7",
    "tcp 10.0.0.2:40001 > 198.51.100.7:80 syn",
    "tcp 10.0.0.2:40002 > 198.51.100.7:80 ack,ece,cwr ts=5:6 len=20",
    "udp 10.0.0.2:5000 > 198.51.100.7:53 len=30",
    "icmp 10.0.0.2 > 198.51.100.7 echo-request id=7",
    "udp 10.0.0.2:5001 > 198.51.100.7:53 tos=0x2 len=4",
    "tcp [fd00::2]:40000 > [2001:db8:7::7]:80 syn mss=1440 sackok ts=1:0",
    "udp [fd00::2]:5000 > [2001:db8:7::7]:53 len=30",
    "icmp6 fd00::2 > 2001:db8:7::7 echo-request id=9",
};

static const char *const chain_names[HOOK_MAX] = {
    [HOOK_PREROUTING] = "PREROUTING",	[HOOK_INPUT] = "INPUT",
    [HOOK_FORWARD] = "FORWARD",		[HOOK_OUTPUT] = "OUTPUT",
    [HOOK_POSTROUTING] = "POSTROUTING",
};

/* The table's built-in chains for a hook (nat has no FORWARD). */
static bool table_has(const char *table, unsigned hook)
{
	if (!strcmp(table, "nat"))
		return hook != HOOK_FORWARD;
	if (!strcmp(table, "raw"))
		return hook == HOOK_PREROUTING || hook == HOOK_OUTPUT;
	return true;
}

static struct rules_ruleset *target_ruleset(const struct target *t, unsigned hook, int family)
{
	struct rules_ruleset *rs = NULL;
	struct rules_error err;
	char text[1024];
	int n = snprintf(text, sizeof(text), "*%s\n", t->table);

	for (unsigned h = 0; h < HOOK_MAX; h++)
		if (table_has(t->table, h))
			n += snprintf(text + n, sizeof(text) - (size_t)n, ":%s ACCEPT [0:0]\n",
				      chain_names[h]);
	n += snprintf(text + n, sizeof(text) - (size_t)n, "-A %s %s\nCOMMIT\n", chain_names[hook],
		      t->rule);
	assert_true(n < (int)sizeof(text));
	/* a target refused at this hook (CLASSIFY outside FORWARD/OUTPUT/POSTROUTING, SNAT
	 * outside INPUT/POSTROUTING...): NULL */
	if (rules_parse_buffer(text, strlen(text), "written", family, ext_registry_default(), NULL,
			       0, &rs, &err) < 0)
		return NULL;
	return rs;
}

static struct box *nfq_gateway(struct rec *r, const struct rules_ruleset *unused)
{
	struct box *b = box_new("written", &rec_ops, r);
	union pt_addr a;

	(void)unused;
	assert_non_null(b);
	assert_int_equal(box_setup_default_gateway(b), 0);
	pt_addr_parse("192.0.2.1", &a);
	assert_int_equal(box_add_addr(b, box_iface_index(b, "wan0"), AF_INET, &a, 24), 0);
	pt_addr_parse("2001:db8::1", &a);
	assert_int_equal(box_add_addr(b, box_iface_index(b, "wan0"), AF_INET6, &a, 64), 0);
	pt_addr_parse("10.0.0.1", &a);
	assert_int_equal(box_add_addr(b, box_iface_index(b, "lan0"), AF_INET, &a, 8), 0);
	pt_addr_parse("fd00::1", &a);
	assert_int_equal(box_add_addr(b, box_iface_index(b, "lan0"), AF_INET6, &a, 64), 0);
	assert_int_equal(ct_box_enable(b, true), 0);
	return b;
}

/* The hooks a packet queued at `hook` passed before it, in order, ending with `hook`: the
 * forward path (PREROUTING, FORWARD, POSTROUTING), in (PREROUTING, INPUT), out (OUTPUT,
 * POSTROUTING). Conntrack (PREROUTING, OUTPUT) so runs before NAT's later hooks. */
static unsigned hook_path(unsigned hook, unsigned path[3])
{
	switch (hook) {
	case HOOK_PREROUTING:
		path[0] = HOOK_PREROUTING;
		return 1;
	case HOOK_INPUT:
		path[0] = HOOK_PREROUTING;
		path[1] = HOOK_INPUT;
		return 2;
	case HOOK_FORWARD:
		path[0] = HOOK_PREROUTING;
		path[1] = HOOK_FORWARD;
		return 2;
	case HOOK_OUTPUT:
		path[0] = HOOK_OUTPUT;
		return 1;
	default:
		path[0] = HOOK_PREROUTING;
		path[1] = HOOK_FORWARD;
		path[2] = HOOK_POSTROUTING;
		return 3;
	}
}

struct tally {
	unsigned cases, changed, written_same;
};

/*
 * One packet of `orig`'s bytes, from the box's pool, through the hooks of `path` in order: at
 * each, the flag cleared, box_hook_packet, the bytes compared with those it had before.
 * Returns the hooks at which its bytes changed.
 */
static unsigned one_pass(struct box *b, const struct target *t, unsigned hook, const char *spec,
			 const struct pkt *orig, const unsigned *path, unsigned n, struct tally *ty)
{
	uint8_t before[256];
	unsigned changed = 0;
	struct pkt *p = box_pkt_get(b, orig->seg[0].data, orig->len);

	assert_non_null(p);
	assert_false(p->written);
	for (unsigned k = 0; k < n; k++) {
		unsigned h = path[k];
		int lan = box_iface_index(b, "lan0"), wan = box_iface_index(b, "wan0");
		/* the interfaces NFQUEUE is told at each hook */
		int in = h == HOOK_PREROUTING || h == HOOK_INPUT || h == HOOK_FORWARD ? lan : 0;
		int out = h == HOOK_FORWARD || h == HOOK_OUTPUT || h == HOOK_POSTROUTING ? wan : 0;
		uint32_t len = p->len;
		struct box_drop drop;
		bool differs;
		int v;

		assert_true(len <= sizeof(before));
		assert_int_equal(pkt_copy_out(p, 0, before, len), 0);
		p->written = false;
		v = box_hook_packet(b, h, in, out, p, &drop);
		assert_true(v == EXT_ACCEPT || v == EXT_DROP);
		assert_int_equal(pkt_linearize(p), 0);
		differs = p->len != len || memcmp(pkt_linear_data(p), before, len);
		if (differs && !p->written)
			fail_msg("'%s' in %s, at %s, on '%s': bytes changed, flag not set", t->rule,
				 chain_names[hook], chain_names[h], spec);
		ty->cases++;
		ty->changed += differs;
		ty->written_same += p->written && !differs;
		changed += differs;
		if (v != EXT_ACCEPT)
			break;
	}
	box_pkt_unref(b, p);
	pkt_free(p);
	return changed;
}

/*
 * Target t at `hook` (UINT_MAX: refused there), in a fresh box, on two packets of one flow,
 * each through the hooks before `hook` as well (one_pass). Returns the hooks that rewrote.
 */
static unsigned one_case(const struct target *t, unsigned hook, const char *spec, struct tally *ty)
{
	struct pkt *orig = packet(spec);
	int fam = orig->info.family;
	struct rules_ruleset *rs = target_ruleset(t, hook, fam);
	unsigned path[3], n = hook_path(hook, path), changed = 0;
	struct rec r = {0};
	struct box *b;

	if (!rs) {
		pkt_free(orig);
		return UINT_MAX;
	}
	b = nfq_gateway(&r, NULL);
	box_set_ruleset(b, rs, fam);
	/* the flow's first packet, then a second one: an established connection's (NAT's
	 * rewrite through pointers, nat_rewrite_fast) */
	for (unsigned round = 0; round < 2; round++)
		changed += one_pass(b, t, hook, spec, orig, path, n, ty);
	pkt_free(orig);
	rec_free(&r);
	box_free(b);
	return changed;
}

static void test_flag_against_full_compare(void **state)
{
	struct tally ty = {0};

	(void)state;
	for (size_t ti = 0; ti < sizeof(targets) / sizeof(targets[0]); ti++) {
		const struct target *t = &targets[ti];
		unsigned t_changed = 0, t_loaded = 0;

		for (size_t pi = 0; pi < sizeof(packets) / sizeof(packets[0]); pi++)
			for (unsigned hook = 0; hook < HOOK_MAX; hook++) {
				struct pkt *probe = packet(packets[pi]);
				int fam = probe->info.family;
				unsigned c;

				pkt_free(probe);
				if ((t->family && t->family != fam) || !table_has(t->table, hook))
					continue;
				c = one_case(t, hook, packets[pi], &ty);
				if (c == UINT_MAX)
					continue;
				t_loaded++;
				t_changed += c;
			}
		if (!t_loaded)
			fail_msg("'%s' loaded at no hook", t->rule);
		if (t->rewrites && !t_changed)
			fail_msg("'%s' rewrote no packet: the test does not drive it", t->rule);
		if (!t->rewrites && t_changed)
			fail_msg("'%s' rewrote a packet: the table says it does not", t->rule);
	}
	printf("%u hook passes, %u rewrote (the flag set in all), %u wrote the same bytes\n",
	       ty.cases, ty.changed, ty.written_same);
	assert_true(ty.changed > 50);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_writers_set_it),
	    cmocka_unit_test(test_flag_against_full_compare),
	};

	(void)gw_box; /* engine_test.h helpers this file has no use for */
	(void)add_target;
	return cmocka_run_group_tests(tests, NULL, NULL);
}

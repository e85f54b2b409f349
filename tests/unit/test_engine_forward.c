// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The input path's common case (src/engine/path.c: route_input) decides a forwarded packet from
 * the fib's leaf alone (box_fib_forward: the route, its interface and MTUs found when the fib is
 * built), and skips PREROUTING, FORWARD and POSTROUTING without a look when all three are idle
 * (quiet). Against the general path on the same inputs: two boxes built alike, one of them with
 * box_set_fwd_general (no leaf is fwd, every packet takes the general code) and a function at
 * PREROUTING that accepts every packet (never quiet), fed the same random packets, one by one and
 * in bursts. Corner cases come from the configuration changing
 * between packets as it does in a live box: routes of every type added and removed (prefixes
 * nesting, on interfaces that do not exist yet, with MTUs of their own), addresses added and
 * removed, interfaces' MTUs, links and up flags changed, forwarding switched per family, hook
 * functions registered and unregistered (one of them from inside a hook function, in the middle
 * of a burst); and from the packets: to the box's addresses, directed and limited broadcasts,
 * multicast, no route, TTL 0..2 and more, any size with DF or not, IPv4 options good and bad,
 * both families. Every verdict, every byte that left or was delivered and by which interface, every
 * drop record, the box's counters and the hook functions' calls must agree after each packet.
 */
#include "engine_test.h"

#include <netinet/in.h>
#include <stdio.h>

#include "engine/engine_int.h"

#define ROUNDS	250
#define PACKETS 60
#define BURST	4

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

struct side {
	struct rec r;
	struct box *b;
	struct fn_state fn[3];
	bool fn_on[3];
	/* the function at INPUT that turns fn[2] (at FORWARD) on and off every 3rd packet */
	struct fn_state toggler;
	bool toggler_on;
};

static const unsigned fn_hook[3] = {HOOK_PREROUTING, HOOK_POSTROUTING, HOOK_FORWARD};

static int toggler_fn(void *priv, struct box_hook_state *st, struct pkt *p)
{
	struct side *s = priv;

	(void)st;
	(void)p;
	if (++s->toggler.calls % 3 == 0) {
		if (s->fn_on[2])
			assert_int_equal(
			    box_unregister_hook(s->b, 0, HOOK_FORWARD, plugin_fn, &s->fn[2]), 0);
		else
			assert_int_equal(
			    box_register_hook(s->b, 0, HOOK_FORWARD, 5, plugin_fn, &s->fn[2]), 0);
		s->fn_on[2] = !s->fn_on[2];
	}
	return EXT_ACCEPT;
}

static int accept_fn(void *priv, struct box_hook_state *st, struct pkt *p)
{
	(void)priv;
	(void)st;
	(void)p;
	return EXT_ACCEPT;
}

static void parse_addr(const char *text, union pt_addr *a)
{
	memset(a, 0, sizeof(*a));
	assert_true(pt_addr_parse(text, a) != 0);
}

static const char *const own4[] = {"192.0.2.1", "10.0.0.1", "198.51.100.1"};
static const char *const own6[] = {"2001:db8:ffff::1", "fd00::1", "2001:db8:1::1"};

static void side_init(struct side *s, bool general)
{
	union pt_addr a;

	memset(s, 0, sizeof(*s));
	s->b = gw_box(&s->r, NULL);
	assert_int_equal(box_add_iface(s->b, "dmz0", NULL), 3);
	parse_addr(own4[0], &a);
	assert_true(box_add_addr(s->b, 2, AF_INET, &a, 24) >= 0);
	parse_addr(own4[1], &a);
	assert_true(box_add_addr(s->b, 1, AF_INET, &a, 8) >= 0);
	parse_addr(own6[0], &a);
	assert_true(box_add_addr(s->b, 2, AF_INET6, &a, 64) >= 0);
	parse_addr(own6[1], &a);
	assert_true(box_add_addr(s->b, 1, AF_INET6, &a, 64) >= 0);
	box_set_fwd_general(s->b, general);
	/* the general side never quiet: a function at PREROUTING that only accepts */
	if (general)
		assert_int_equal(
		    box_register_hook(s->b, 0, HOOK_PREROUTING, -1000, accept_fn, NULL), 0);
}

/* Networks the random routes and destinations come from, so that they nest and collide. */
static const char *const nets4[] = {"203.0.113.0", "198.51.100.0", "10.1.0.0",
				    "10.0.0.0",	   "224.0.0.0",	   "192.0.2.0"};
static const char *const nets6[] = {
    "2001:db8::", "2001:db8:1::", "fd00::", "2001:db8:ffff::", "ff02::"};

static void random_net(uint64_t *s, int fam, union pt_addr *a)
{
	if (fam == AF_INET) {
		parse_addr(nets4[rnd(s) % 6], a);
		if (rnd(s) % 2)
			a->b[2 + rnd(s) % 2] = (uint8_t)rnd(s);
	} else {
		parse_addr(nets6[rnd(s) % 5], a);
		if (rnd(s) % 2)
			a->b[6 + rnd(s) % 10] = (uint8_t)rnd(s);
	}
}

/* One change of configuration, the same on both sides (seed: what to change). */
static void side_change(struct side *s, uint64_t seed)
{
	unsigned what = (unsigned)(rnd(&seed) % 10);
	int fam = rnd(&seed) % 2 ? AF_INET6 : AF_INET;
	union pt_addr a;

	switch (what) {
	case 0:
	case 1: { /* a route of any type, most of them unicast */
		struct box_route r;
		static const uint32_t mtus[] = {0, 0, 0, 576, 1280, 1300, 1500, 9000};

		memset(&r, 0, sizeof(r));
		r.family = fam;
		random_net(&seed, fam, &r.net);
		r.plen = rnd(&seed) % 3
			     ? (int)(fam == AF_INET ? 16 + rnd(&seed) % 17 : 48 + rnd(&seed) % 81)
			     : (int)(rnd(&seed) % (fam == AF_INET ? 33 : 129));
		r.type =
		    (enum box_route_type)(rnd(&seed) % 8 < 4 ? BOX_RT_UNICAST : rnd(&seed) % 5);
		r.oif = r.type == BOX_RT_UNICAST || r.type == BOX_RT_LOCAL
			    ? (int)(rnd(&seed) % 8 ? 1 + rnd(&seed) % 3
						   : rnd(&seed) % 2 * 4) /* 4: not there yet */
			    : 0;
		r.metric = (uint32_t)(rnd(&seed) % 3);
		r.mtu = mtus[rnd(&seed) % 8];
		box_add_route(s->b, &r); /* -EEXIST and the like: the same on both sides */
		break;
	}
	case 2:
	case 9: { /* a route removed */
		unsigned n = 0;

		while (box_route_at(s->b, n))
			n++;
		if (n > 6) { /* not the default gateway's */
			const struct box_route *r = box_route_at(s->b, 6 + rnd(&seed) % (n - 6));

			assert_int_equal(box_del_route(s->b, r->family, &r->net, r->plen), 0);
		}
		break;
	}
	case 3: /* an interface's MTU */
		box_set_iface_mtu(s->b, 1 + (int)(rnd(&seed) % 3),
				  rnd(&seed) % 3 ? (rnd(&seed) % 2 ? 1500 : 1280)
						 : 68 + (uint32_t)(rnd(&seed) % 9000));
		break;
	case 4: /* up or down */
		box_set_iface_up(s->b, 1 + (int)(rnd(&seed) % 3), rnd(&seed) % 5 != 0);
		break;
	case 5: /* forwarding, mostly on */
		box_set_forwarding(s->b, fam, rnd(&seed) % 4 != 0);
		break;
	case 6: /* an address of the box added or removed */
		if (fam == AF_INET)
			parse_addr(own4[2], &a);
		else
			parse_addr(own6[2], &a);
		if (rnd(&seed) % 2)
			box_add_addr(s->b, 3, fam, &a, fam == AF_INET ? 24 : 64);
		else
			box_del_addr(s->b, 3, fam, &a);
		break;
	case 7: { /* a counting (sometimes dropping) function on or off */
		unsigned i = (unsigned)(rnd(&seed) % 2);

		if (s->fn_on[i])
			assert_int_equal(
			    box_unregister_hook(s->b, 0, fn_hook[i], plugin_fn, &s->fn[i]), 0);
		else
			assert_int_equal(
			    box_register_hook(s->b, 0, fn_hook[i], 0, plugin_fn, &s->fn[i]), 0);
		s->fn_on[i] = !s->fn_on[i];
		s->fn[i].every = rnd(&seed) % 3 ? 0 : 2 + (unsigned)(rnd(&seed) % 5);
		break;
	}
	case 8: /* dmz0 raw IP or Ethernet; the toggler at INPUT on or off */
		box_set_iface_link(s->b, 3, rnd(&seed) % 3 ? PKT_LINK_ETHERNET : PKT_LINK_RAW);
		if (rnd(&seed) % 2) {
			if (s->toggler_on)
				assert_int_equal(
				    box_unregister_hook(s->b, 0, HOOK_INPUT, toggler_fn, s), 0);
			else
				assert_int_equal(
				    box_register_hook(s->b, 0, HOOK_INPUT, 0, toggler_fn, s), 0);
			s->toggler_on = !s->toggler_on;
		}
		break;
	}
}

/* A destination: the box's, a broadcast, multicast, or inside (or near) a network in use. */
static void random_dst(uint64_t *s, int fam, union pt_addr *d)
{
	static const char *const special4[] = {"192.0.2.255", "10.255.255.255", "255.255.255.255",
					       "224.0.0.5",   "239.1.2.3",	"198.51.100.255",
					       "0.0.0.0"};
	static const char *const special6[] = {"ff02::1", "ff05::2", "::", "::1"};
	unsigned k = (unsigned)(rnd(s) % 10);

	if (k == 0)
		parse_addr(fam == AF_INET ? own4[rnd(s) % 3] : own6[rnd(s) % 3], d);
	else if (k == 1)
		parse_addr(fam == AF_INET ? special4[rnd(s) % 7] : special6[rnd(s) % 4], d);
	else {
		random_net(s, fam, d);
		d->b[fam == AF_INET ? 3 : 15] = (uint8_t)rnd(s);
		if (k == 2)
			d->b[fam == AF_INET ? 1 + rnd(s) % 3 : 1 + rnd(s) % 15] = (uint8_t)rnd(s);
	}
}

/* A random packet for ingress interface *ifindex (the same seed, the same packet). */
static struct pkt *random_packet(uint64_t *s, int *ifindex)
{
	static const uint8_t ttls[] = {0, 1, 2, 3, 64, 255};
	static const uint8_t protos[] = {IPPROTO_TCP, IPPROTO_UDP, IPPROTO_UDP, IPPROTO_ICMP};
	struct pkt_spec *sp = malloc(sizeof(*sp));
	int fam = rnd(s) % 3 ? AF_INET : AF_INET6;
	bool bad_opt = false;
	struct pkt *p;

	assert_non_null(sp);
	pkt_spec_init(sp);
	sp->family = (uint8_t)fam;
	random_net(s, fam, &sp->src);
	sp->src.b[fam == AF_INET ? 3 : 15] = (uint8_t)(rnd(s) | 1);
	random_dst(s, fam, &sp->dst);
	sp->proto = protos[rnd(s) % 4];
	if (fam == AF_INET6 && sp->proto == IPPROTO_ICMP)
		sp->proto = IPPROTO_ICMPV6;
	if (sp->proto == IPPROTO_ICMP || sp->proto == IPPROTO_ICMPV6) {
		sp->icmp_type = fam == AF_INET ? 8 : 128;
		sp->icmp_rest = (uint32_t)rnd(s);
	} else {
		sp->sport = (uint16_t)(rnd(s) % 60000 + 1024);
		sp->dport = (uint16_t)(rnd(s) % 1000 + 1);
		sp->tcp_flags = 0x10;
	}
	sp->ttl = rnd(s) % 3 ? ttls[4 + rnd(s) % 2] : ttls[rnd(s) % 4];
	sp->df = fam == AF_INET && rnd(s) % 2;
	if (fam == AF_INET && rnd(s) % 10 == 0) { /* options: four NOPs (or see below) */
		memset(sp->ipopt, 1, 4);
		sp->ipopt_len = 4;
		bad_opt = rnd(s) % 2;
	}
	if (rnd(s) % 3) {
		sp->payload_len = rnd(s) % 4 ? (uint32_t)(rnd(s) % 200) : (uint32_t)(rnd(s) % 9000);
	} else { /* an IP length at an MTU's edge: one of them, one byte less or more */
		static const uint32_t edges[] = {576, 1280, 1300, 1500, 9000};
		uint32_t l3 = edges[rnd(s) % 5] + (uint32_t)(rnd(s) % 3) - 1;
		uint32_t hdr = (fam == AF_INET ? 20 : 40) + (sp->proto == IPPROTO_TCP ? 20 : 8);

		sp->payload_len = l3 - hdr;
	}
	*ifindex = 1 + (int)(rnd(s) % 3);
	/* dmz0 may be a raw IP link: frames arrive as it frames them */
	sp->eth = *ifindex != 3 || rnd(s) % 3;
	p = pkt_build(sp);
	assert_non_null(p);
	if (bad_opt) { /* an option of length 1, the header's sum as with the NOPs: IP_OPTIONS */
		static const uint8_t opt[4] = {0x83, 1, 0x7f, 0};

		assert_int_equal(pkt_store(p, sp->eth ? 14 + 20 : 20, opt, 4), 0);
		assert_int_equal(pkt_parse(p, sp->eth ? PKT_LINK_ETHERNET : PKT_LINK_RAW, true),
				 -EBADMSG);
		assert_int_equal(p->info.bad, PKT_BAD_IP_OPTIONS);
	}
	free(sp);
	return p;
}

static void compare_pkts(struct pkt *x, struct pkt *y)
{
	uint8_t *a, *b;

	assert_int_equal(x->len, y->len);
	assert_int_equal(x->oif, y->oif);
	assert_int_equal(x->iif, y->iif);
	a = malloc(x->len + 1);
	b = malloc(y->len + 1);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(pkt_copy_out(x, 0, a, x->len), 0);
	assert_int_equal(pkt_copy_out(y, 0, b, y->len), 0);
	assert_memory_equal(a, b, x->len);
	assert_memory_equal(&x->info, &y->info, sizeof(x->info));
	free(a);
	free(b);
}

static void compare_sides(struct side *x, struct side *y)
{
	const struct box_stats *sx = box_stats(x->b), *sy = box_stats(y->b);

	rec_compare(&x->r, &y->r);
	for (unsigned i = 0; i < x->r.nxmit && i < REC_MAX; i++)
		compare_pkts(x->r.xmit[i], y->r.xmit[i]);
	for (unsigned i = 0; i < x->r.ndeliver && i < REC_MAX; i++)
		compare_pkts(x->r.deliver[i], y->r.deliver[i]);
	assert_memory_equal(sx, sy, sizeof(*sx));
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(x->fn[i].calls, y->fn[i].calls);
		assert_int_equal(x->fn_on[i], y->fn_on[i]);
	}
	assert_int_equal(x->toggler.calls, y->toggler.calls);
	rec_free(&x->r);
	rec_free(&y->r);
}

static void test_forward_as_general(void **state)
{
	struct side *fast = calloc(1, sizeof(*fast)), *gen = calloc(1, sizeof(*gen));
	uint64_t s = 0x2545f4914f6cdd1dull;
	unsigned fast_leaves = 0, sent = 0, forwarded = 0;

	(void)state;
	assert_non_null(fast);
	assert_non_null(gen);
	side_init(fast, false);
	side_init(gen, true);
	for (unsigned round = 0; round < ROUNDS; round++) {
		for (unsigned i = 0; i < PACKETS;) {
			struct pkt *v1[BURST], *v2[BURST];
			int r1[BURST], r2[BURST], ifx = 0, in1, in2;
			unsigned n = rnd(&s) % 3 ? 1 : 1 + (unsigned)(rnd(&s) % BURST);
			uint64_t ps = rnd(&s) | 1, ps2 = ps;

			if (rnd(&s) % 6 == 0) {
				uint64_t cs = rnd(&s) | 1;

				side_change(fast, cs);
				side_change(gen, cs);
			}
			for (unsigned k = 0; k < n; k++) {
				v1[k] = random_packet(&ps, &in1);
				v2[k] = random_packet(&ps2, &in2);
				assert_int_equal(in1, in2);
				/* one ingress interface per burst: the first packet's */
				if (k == 0)
					ifx = in1;
				/* the shortcut's leaf: there on one side only */
				assert_null(
				    box_fib_forward(gen->b, v2[k]->info.family, &v2[k]->info.dst));
				fast_leaves += box_fib_forward(fast->b, v1[k]->info.family,
							       &v1[k]->info.dst) != NULL;
			}
			if (n == 1) {
				r1[0] = box_receive(fast->b, ifx, v1[0]);
				r2[0] = box_receive(gen->b, ifx, v2[0]);
			} else {
				int f1 = box_receive_burst(fast->b, ifx, v1, n, r1);
				int f2 = box_receive_burst(gen->b, ifx, v2, n, r2);

				assert_int_equal(f1, f2);
			}
			for (unsigned k = 0; k < n; k++)
				assert_int_equal(r1[k], r2[k]);
			compare_sides(fast, gen);
			sent += n;
			i += n;
		}
	}
	forwarded = (unsigned)box_stats(fast->b)->forwarded;
	print_message("%u packets, %u to a shortcut leaf, %u forwarded, %llu delivered\n", sent,
		      fast_leaves, forwarded, (unsigned long long)box_stats(fast->b)->delivered);
	/* the inputs reach both: the shortcut's leaves, and forwarding (some of it by them) */
	assert_true(fast_leaves > sent / 8);
	assert_true(forwarded > sent / 8);
	assert_true(box_stats(fast->b)->delivered > 0);
	box_free(fast->b);
	box_free(gen->b);
	free(fast);
	free(gen);
}

/* The shortcut's own case by hand: the leaf is there for a plain forwarded destination and
 * gone for what it must not take, and a packet it forwards leaves with its TTL decremented and
 * both MACs written, as pkt_build would make the packet that leaves. */
static void test_forward_leaf(void **state)
{
	struct rec r = {0};
	struct box *b = gw_box(&r, NULL);
	struct pkt *p = mk("tcp 10.0.0.2:1234 > 203.0.113.7:80 ack len=10 eth");
	struct pkt *want = mk("tcp 10.0.0.2:1234 > 203.0.113.7:80 ack len=10 ttl=63 eth");
	union pt_addr a;
	uint8_t x[128], y[128];

	(void)state;
	parse_addr("192.0.2.1", &a);
	assert_true(box_add_addr(b, 2, AF_INET, &a, 24) >= 0);
	assert_int_equal(box_receive(b, 1, p), EXT_ACCEPT); /* builds the fib */
	assert_int_equal(r.nxmit, 1);
	assert_int_equal(r.xmit_oif[0], 2);
	assert_int_equal(r.xmit[0]->len, want->len);
	assert_true(want->len <= sizeof(x));
	assert_int_equal(pkt_copy_out(r.xmit[0], 0, x, want->len), 0);
	assert_int_equal(pkt_copy_out(want, 0, y, want->len), 0);
	assert_memory_equal(x + 12, y + 12, want->len - 12);
	assert_memory_equal(x, box_iface(b, 2)->eth_macs, 12);
	assert_non_null(box_fib_forward(b, AF_INET, &want->info.dst));
	parse_addr("192.0.2.255", &a); /* a broadcast of the box's */
	assert_null(box_fib_forward(b, AF_INET, &a));
	parse_addr("192.0.2.1", &a);
	assert_null(box_fib_forward(b, AF_INET, &a));
	box_set_iface_up(b, 2, false);
	assert_null(box_fib_forward(b, AF_INET, &want->info.dst));
	box_set_iface_up(b, 2, true);
	box_set_forwarding(b, AF_INET, false); /* the fib is stale, then built without it */
	assert_null(box_fib_forward(b, AF_INET, &want->info.dst));
	assert_int_equal(box_route_lookup(b, AF_INET, &want->info.dst)->oif, 2);
	assert_null(box_fib_forward(b, AF_INET, &want->info.dst));
	pkt_free(want);
	rec_free(&r);
	box_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_forward_leaf),
	    cmocka_unit_test(test_forward_as_general),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

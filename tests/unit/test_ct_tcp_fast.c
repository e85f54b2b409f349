// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The TCP tracker's established fast path (ct_tcp_packet_fast) against its general path
 * (ct_tcp_packet_general): two copies of the same entry, the same segment, each path on its
 * own copy; every field either writes is compared (the whole TCP state, status, events,
 * expiry, the table's statistics), and the verdict. Where the fast path declines it must have
 * changed nothing at all. Entries and segments are random around the window edges (each of
 * the four checks at its boundary, one either side), with corner values: window scale 0 and
 * 14, windows 0 and 1, sequence numbers across the 2^32 wrap, SACK blocks with and without
 * SACK-permitted, timestamps, data, retransmitted ACKs, liberal sides and tables, taken-over
 * entries, states and flags the fast path must leave alone. The fast path has two forms (one
 * that walks no options and knows no sequence adjustment, one that does): the option layouts
 * either takes (none, NOP NOP timestamps alone, the same 12 bytes in another order, a SACK
 * block in 12 bytes, timestamps and NOPs in 16, SACK beside timestamps, garbage) and entries with a
 * sequence adjustment and a timeout policy of their own (extensions) are each counted and must each
 * be taken often.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ct/ct_int.h"

#include "test_rng.h"

static uint32_t pick(const uint32_t *v, unsigned n)
{
	return v[rng() % n];
}

/* A window value: mostly ordinary, sometimes a corner. */
static uint32_t some_window(void)
{
	static const uint32_t corner[] = {0, 1, 2, 65535, 65536, 66000, 66001, 1u << 30};

	return rng() % 4 ? 1000 + rng() % 200000 : pick(corner, 8);
}

static void random_dir(struct ct_tcp_dir *d, uint32_t base)
{
	d->td_end = base + rng() % 5000;
	d->td_maxwin = rng() % 16 ? some_window() : 0;
	d->td_maxend = d->td_end + (rng() % 3 ? d->td_maxwin : rng() % 100000);
	d->td_maxack = base - rng() % 100000;
	d->td_scale = (uint8_t)(rng() % 4 ? rng() % 3 : rng() % 2 ? 14 : rng() % 15);
	d->flags =
	    (uint8_t)(rng() & (CT_TCPF_WINDOW_SCALE | CT_TCPF_SACK_PERM | CT_TCPF_CLOSE_INIT |
			       CT_TCPF_DATA_UNACKED | CT_TCPF_MAXACK_SET));
	if (rng() % 8 == 0)
		d->flags |= CT_TCPF_BE_LIBERAL;
}

/* A timeout policy of an entry's own (CT --timeout), its TCP timeouts at random. */
static struct ct_timeout_policy policy;

/* Sometimes the extensions the fast path reads: a sequence adjustment of either direction near
 * the numbers in flight, a timeout policy. */
static void random_extensions(struct ct_table *t, struct ct_entry *e)
{
	struct ct_seqadj *sa;
	struct ct_timeout_ext *x;

	if (rng() % 6 == 0 && (sa = ct_ext_add(t, e, CT_EXT_SEQADJ))) {
		for (int d = 0; d < 2; d++) {
			sa->dir[d].correction_pos = e->proto.tcp.seen[d].td_end - rng() % 4000;
			sa->dir[d].offset_before = rng() % 2 ? 0 : (int32_t)(rng() % 101) - 50;
			sa->dir[d].offset_after = (int32_t)(rng() % 201) - 100;
		}
	}
	if (rng() % 6 == 0 && (x = ct_ext_add(t, e, CT_EXT_TIMEOUT))) {
		for (int i = 0; i < CT_TCP_TIMEOUT_MAX; i++)
			policy.to.tcp[i] = CT_SEC * (1 + rng() % 500000);
		x->policy = &policy;
	}
}

static void random_entry(struct ct_entry *e)
{
	static const uint32_t states[] = {
	    CT_TCP_ESTABLISHED, CT_TCP_ESTABLISHED, CT_TCP_ESTABLISHED, CT_TCP_ESTABLISHED,
	    CT_TCP_ESTABLISHED, CT_TCP_ESTABLISHED, CT_TCP_ESTABLISHED, CT_TCP_ESTABLISHED,
	    CT_TCP_SYN_RECV,	CT_TCP_FIN_WAIT,    CT_TCP_CLOSE_WAIT,	CT_TCP_LAST_ACK};
	struct ct_tcp *tc = &e->proto.tcp;
	uint32_t base = rng() % 8 ? rng() : 0xffffffffu - rng() % 3000; /* near the wrap */

	memset(e, 0, sizeof(*e));
	e->ops = &ct_proto_tcp;
	e->list = CT_LIST_NONE;
	/* never CONFIRMED: a kill of an unconfirmed entry only marks it */
	e->status =
	    rng() % 6 ? CT_S_SEEN_REPLY | CT_S_ASSURED : rng() & (CT_S_SEEN_REPLY | CT_S_ASSURED);
	if (rng() % 10 == 0)
		e->status |= CT_S_FIXED_TIMEOUT;
	e->expires = rng();
	e->events = rng() % 4 ? 0 : CT_EV_MARK;
	random_dir(&tc->seen[0], base);
	random_dir(&tc->seen[1], rng() % 4 ? rng() : base + rng() % 3000);
	tc->state = (uint8_t)pick(states, 12);
	tc->last_dir = (uint8_t)(rng() % 2);
	tc->last_seq = rng() % 2 ? rng() : tc->seen[tc->last_dir].td_end;
	tc->last_ack = rng() % 2 ? rng() : tc->seen[!tc->last_dir].td_end;
	tc->last_end = rng() % 2 ? rng() : tc->last_seq;
	tc->last_win = (uint16_t)(rng() % 8 ? rng() : 0);
	tc->last_index = (uint8_t)(rng() % 6);
	tc->last_wscale = (uint8_t)(rng() % 15);
	tc->last_flags = (uint8_t)rng();
	tc->retrans = (uint8_t)(rng() % 3 ? rng() % 5 : 255);
	tc->pickup = (uint8_t)(rng() % 8 ? 0 : rng() & 15);
}

/* A value near one of the window checks' boundaries, or anywhere. */
static uint32_t near(uint32_t edge)
{
	return edge + (uint32_t)(int32_t)(rng() % 5) - 2;
}

struct segment {
	uint8_t bytes[20 + 60 + 64];
	uint32_t len;
};

static void put32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

/* NOP NOP and n SACK blocks at o, their edges near the ACK and the receiver's end; bytes. */
static uint32_t put_sack(uint8_t *o, unsigned n, uint32_t ack, const struct ct_tcp_dir *r)
{
	o[0] = o[1] = 1;
	o[2] = 5;
	o[3] = (uint8_t)(2 + 8 * n);
	for (unsigned b = 0; b < n; b++) {
		put32(o + 4 + 8 * b, ack + rng() % 3000);
		put32(o + 8 + 8 * b, rng() % 2 ? near(r->td_end + 1) : ack + rng() % 9000);
	}
	return 4 + 8 * n;
}

/* An IPv4 TCP segment of dir in e's connection, its numbers near e's window edges. */
static void random_segment(const struct ct_entry *e, enum ct_dir dir, struct segment *sg)
{
	static const uint32_t flags[] = {0x10, 0x10, 0x10, 0x18, 0x18, 0x30, 0xd0, 0x58,
					 0x11, 0x14, 0x04, 0x12, 0x02, 0x00, 0x19, 0x90};
	const struct ct_tcp_dir *s = &e->proto.tcp.seen[dir], *r = &e->proto.tcp.seen[!dir];
	uint32_t mw = s->td_maxwin > 66000 ? s->td_maxwin : 66000;
	uint32_t datalen = rng() % 3 ? 0 : rng() % 64, optlen = 0, seq, ack;
	uint8_t *ip = sg->bytes, *th = ip + 20, *o = th + 20;

	memset(sg->bytes, 0, sizeof(sg->bytes));
	switch (rng() % 8) {
	case 0:
		seq = near(s->td_maxend + 1);
		break;
	case 1:
		seq = near(s->td_end - r->td_maxwin - 1) - datalen;
		break;
	case 2:
		seq = rng();
		break;
	default:
		seq = s->td_end - rng() % 500;
		break;
	}
	switch (rng() % 8) {
	case 0:
		ack = near(r->td_end + 1);
		break;
	case 1:
		ack = near(r->td_end - mw - 1);
		break;
	case 2:
		ack = rng();
		break;
	default:
		ack = r->td_end - rng() % 3000;
		break;
	}
	if (rng() % 4 == 0) { /* a retransmission of the last pure ACK */
		seq = e->proto.tcp.last_seq;
		ack = e->proto.tcp.last_ack;
		datalen = 0;
	}
	switch (rng() % 10) {
	case 1: /* timestamps as nearly every stack sends them: no walk */
	case 4:
		o[0] = o[1] = 1;
		o[2] = 8;
		o[3] = 10;
		put32(o + 4, rng());
		put32(o + 8, rng());
		optlen = 12;
		break;
	case 5: /* the same 12 bytes the other way round: a walk */
		o[0] = 8;
		o[1] = 10;
		put32(o + 2, rng());
		put32(o + 6, rng());
		o[10] = o[11] = 1;
		optlen = 12;
		break;
	case 6: /* NOP NOP timestamps and four NOPs: no SACK, but not the 12 bytes: a walk */
		o[0] = o[1] = 1;
		o[2] = 8;
		o[3] = 10;
		put32(o + 4, rng());
		put32(o + 8, rng());
		put32(o + 12, 0x01010101);
		optlen = 16;
		break;
	case 7: /* timestamps, then SACK blocks */
		o[0] = o[1] = 1;
		o[2] = 8;
		o[3] = 10;
		optlen = 12 + put_sack(o + 12, 1 + rng() % 3, ack, r);
		break;
	case 8: /* garbage of any length */
		optlen = 4 * (1 + rng() % 10);
		for (uint32_t i = 0; i < optlen; i++)
			o[i] = (uint8_t)(rng() % 3 ? rng() % 9 : rng());
		break;
	case 2: /* SACK blocks (one of them: 12 bytes, as long as timestamps alone) */
		optlen = put_sack(o, 1 + rng() % 3, ack, r);
		break;
	case 3: /* malformed: a length running past the header */
		o[0] = 5;
		o[1] = 30;
		optlen = 4;
		break;
	default:
		break;
	}
	for (uint32_t i = 0; i < datalen; i++)
		o[optlen + i] = (uint8_t)rng();
	sg->len = 20 + 20 + optlen + datalen;
	ip[0] = 0x45;
	ip[2] = (uint8_t)(sg->len >> 8);
	ip[3] = (uint8_t)sg->len;
	ip[8] = 64;
	ip[9] = 6;
	put32(ip + 12, dir == CT_DIR_ORIGINAL ? 0x0a000002 : 0xc0000201);
	put32(ip + 16, dir == CT_DIR_ORIGINAL ? 0xc0000201 : 0x0a000002);
	th[0] = 0x04;
	th[1] = 0xd2;
	th[3] = 80;
	put32(th + 4, seq);
	put32(th + 8, ack);
	th[12] = (uint8_t)((20 + optlen) / 4 << 4);
	th[13] = (uint8_t)pick(flags, 16);
	th[14] = (uint8_t)(rng() % 6 ? rng() : 0);
	th[15] = (uint8_t)rng();
}

static void same_entry(const struct ct_entry *a, const struct ct_entry *b)
{
	assert_memory_equal(&a->proto.tcp, &b->proto.tcp, sizeof(a->proto.tcp));
	assert_int_equal(a->status, b->status);
	assert_int_equal(a->events, b->events);
	assert_int_equal(a->expires, b->expires);
	assert_int_equal(a->list, b->list);
}

static void test_fast_equals_general(void **state)
{
	struct ct_entry *orig = calloc(1, sizeof(*orig)), *a = calloc(1, sizeof(*a)),
			*b = calloc(1, sizeof(*b));
	unsigned taken = 0, declined = 0, invalid = 0, round;
	unsigned taken_ts = 0, taken_walk = 0, taken_seqadj = 0, taken_policy = 0;
	struct ct_config c;

	(void)state;
	assert_true(orig && a && b);
	for (round = 0; round < 200000; round++) {
		enum ct_dir dir = (enum ct_dir)(rng() % 2);
		uint64_t now = (uint64_t)rng() * 1000;
		struct ct_table *t;
		struct ct_stats sa, sb;
		enum ct_verdict va;
		struct segment sg;
		struct pkt *p;
		bool fast;

		ct_config_default(&c);
		c.max_entries = 16; /* a small bucket array: a table per round */
		c.tcp_be_liberal = rng() % 8 == 0;
		c.tcp_max_retrans = rng() % 2 ? 3 : rng() % 6;
		if (rng() % 8 == 0)
			c.timeouts.tcp[CT_TCP_ESTABLISHED] = CT_SEC * (rng() % 400);
		t = ct_table_new(&c);
		assert_non_null(t);
		random_entry(orig);
		random_extensions(t, orig);
		random_segment(orig, dir, &sg);
		p = pkt_from_bytes(sg.bytes, sg.len);
		assert_non_null(p);
		assert_int_equal(pkt_parse(p, PKT_LINK_RAW, false), 0);
		*a = *orig;
		*b = *orig;

		va = ct_tcp_packet_general(t, a, p, dir, now);
		sa = *ct_table_stats(t);
		fast = ct_tcp_packet_fast(t, b, p, dir, now);
		sb = *ct_table_stats(t);
		assert_memory_equal(&sa, &sb, sizeof(sa)); /* the fast path counts nothing */
		if (fast) {
			const uint8_t *o = sg.bytes + 40;
			uint32_t optlen = sg.bytes[32] / 16 * 4 - 20;

			assert_int_equal(va, CT_ACCEPT);
			same_entry(a, b);
			taken++;
			if (orig->proto.tcp.seen[!dir].flags & CT_TCPF_SACK_PERM) {
				if (optlen == 12 && o[0] == 1 && o[1] == 1 && o[2] == 8 &&
				    o[3] == 10)
					taken_ts++;
				else if (optlen)
					taken_walk++;
			}
			taken_seqadj += ct_ext_find(orig, CT_EXT_SEQADJ) != NULL;
			taken_policy += ct_ext_find(orig, CT_EXT_TIMEOUT) != NULL;
		} else {
			same_entry(orig, b); /* declined: untouched */
			declined++;
			invalid += va == CT_INVALID;
		}
		pkt_free(p);
		ct_ext_free(orig); /* (a and b shared it) */
		orig->ext = NULL;
		ct_table_free(t);
	}
	free(orig);
	free(a);
	free(b);
	print_message("fast path took %u, declined %u (%u of them INVALID)\n", taken, declined,
		      invalid);
	print_message("taken with SACK allowed: %u timestamps alone, %u other options walked; "
		      "%u with a sequence adjustment, %u with a timeout policy\n",
		      taken_ts, taken_walk, taken_seqadj, taken_policy);
	/* both sides of the decision were exercised, and plenty of each */
	assert_true(taken > 20000);
	assert_true(declined > 20000);
	assert_true(invalid > 1000);
	/* and each form of the fast path */
	assert_true(taken_ts > 1000);
	assert_true(taken_walk > 1000);
	assert_true(taken_seqadj > 1000);
	assert_true(taken_policy > 1000);
}

/* A segment split over two packet segments is the general path's: same result, no fast path. */
static void test_split_header_declined(void **state)
{
	struct ct_entry *e = calloc(1, sizeof(*e)), *g = calloc(1, sizeof(*g));
	struct ct_config c;
	struct ct_table *t;
	unsigned n = 0;

	(void)state;
	ct_config_default(&c);
	t = ct_table_new(&c);
	assert_true(e && g && t);
	for (int i = 0; i < 2000; i++) {
		struct segment sg;
		struct pkt *p;

		random_entry(e);
		random_segment(e, CT_DIR_ORIGINAL, &sg);
		p = pkt_from_bytes_split(sg.bytes, sg.len, 30); /* the TCP header crosses 30 */
		assert_non_null(p);
		assert_int_equal(pkt_parse(p, PKT_LINK_RAW, false), 0);
		*g = *e;
		assert_false(ct_tcp_packet_fast(t, e, p, CT_DIR_ORIGINAL, 1));
		same_entry(e, g);
		n++;
		pkt_free(p);
	}
	assert_int_equal(n, 2000);
	ct_table_free(t);
	free(e);
	free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fast_equals_general),
	    cmocka_unit_test(test_split_header_declined),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Defragmentation: a datagram built whole with pkt_build is cut into fragments here (so the
 * reassembled bytes can be compared with the original, byte for byte), fed in some order, and
 * the result, the counters and the memory charged are checked. IPv4 and IPv6 go through the
 * same tests wherever the rules are the same. Fragments lent by a receive ring (zero-copy
 * receive) are copied when they are held, so the ring's block can go back before the datagram
 * is complete.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "ct/defrag.h"
#include "engine/engine_int.h" /* box_fragment4: the refragmentation a datagram meets */
#include "pkt/build.h"

#define SEC CT_DEFRAG_SEC

static const int families[] = {AF_INET, AF_INET6};

/* ---- making datagrams and fragments ------------------------------------------------------- */

static uint8_t pattern[70000];

static void fill_pattern(uint32_t seed)
{
	for (size_t i = 0; i < sizeof(pattern); i++) {
		seed = seed * 1103515245u + 12345u;
		pattern[i] = (uint8_t)(seed >> 16);
	}
}

/* The whole datagram: `text` with the family's addresses prepended, payload from pattern. */
static struct pkt *whole(int family, const char *fmt, uint32_t payload_len)
{
	struct pkt_spec *s = malloc(sizeof(*s));
	char text[256], err[160];
	struct pkt *p;

	assert_non_null(s);
	snprintf(text, sizeof(text), fmt, family == AF_INET ? "10.0.0.2" : "[2001:db8::2]",
		 family == AF_INET ? "192.0.2.1" : "[2001:db8::1]");
	if (pkt_spec_parse(text, s, err, sizeof(err)))
		fail_msg("%s: %s", text, err);
	s->payload = pattern;
	s->payload_len = payload_len;
	p = pkt_build(s);
	if (!p)
		fail_msg("%s: build failed: %s", text, strerror(errno));
	free(s);
	return p;
}

static struct pkt *udp(int family, uint32_t payload_len)
{
	return whole(family, "udp %s:1000 > %s:53 id=77", payload_len);
}

static enum pkt_link link_of(const struct pkt *p)
{
	return p->info.l2off == UINT32_MAX ? PKT_LINK_RAW : PKT_LINK_ETHERNET;
}

/* Segment size for the fragments made (0: linear), to run the code over non-linear packets. */
static uint32_t split_chunk;
static int frag_ecn = -1; /* ECN codepoint written into the fragments made, -1: as is */

static struct pkt *finish_frag(uint8_t *b, uint32_t len, enum pkt_link link)
{
	struct pkt *p =
	    split_chunk ? pkt_from_bytes_split(b, len, split_chunk) : pkt_from_bytes(b, len);

	assert_non_null(p);
	pkt_parse(p, link, true);
	free(b);
	return p;
}

/* IPv4: the header of `w` (DF and options kept) and `len` bytes of its data from `off`. */
static struct pkt *frag4(const struct pkt *w, uint32_t off, uint32_t len, bool mf)
{
	uint32_t l3 = w->info.l3off, ihl = w->info.ihl, tot = ihl + len;
	uint8_t *b = malloc(l3 + tot), *h;
	uint16_t fo, csum;

	assert_non_null(b);
	assert_true(off + len <= w->info.l3len - ihl);
	assert_int_equal(pkt_copy_out(w, 0, b, l3 + ihl), 0);
	assert_int_equal(pkt_copy_out(w, l3 + ihl + off, b + l3 + ihl, len), 0);
	h = b + l3;
	h[2] = (uint8_t)(tot >> 8);
	h[3] = (uint8_t)tot;
	fo = (uint16_t)((h[6] & 0x40) << 8 | (mf ? 0x2000 : 0) | off / 8);
	h[6] = (uint8_t)(fo >> 8);
	h[7] = (uint8_t)fo;
	if (frag_ecn >= 0)
		h[1] = (uint8_t)((h[1] & ~3) | frag_ecn);
	h[10] = h[11] = 0;
	csum = pkt_csum_fold(pkt_csum_bytes(h, ihl, 0));
	h[10] = (uint8_t)(csum >> 8);
	h[11] = (uint8_t)csum;
	return finish_frag(b, l3 + tot, link_of(w));
}

/* The unfragmentable part of an IPv6 datagram: hop-by-hop and routing headers (RFC 8200). */
static uint32_t unfrag_len(const struct pkt *w, uint32_t *nh_off)
{
	const struct pkt_info *in = &w->info;
	uint32_t u = 40;

	*nh_off = in->l3off + 6;
	for (unsigned i = 0; i < in->n_exthdr; i++) {
		if (in->exthdr_type[i] != IPPROTO_HOPOPTS && in->exthdr_type[i] != IPPROTO_ROUTING)
			break;
		*nh_off = in->exthdr_off[i];
		u = in->exthdr_off[i] + 8 - in->l3off; /* the test's ext headers are 8 bytes */
	}
	return u;
}

/* IPv6: unfragmentable part, a fragment header, `len` bytes of the fragmentable part. */
static struct pkt *frag6(const struct pkt *w, uint32_t off, uint32_t len, bool mf)
{
	uint32_t l3 = w->info.l3off, nh_off, u = unfrag_len(w, &nh_off), plen = u - 40 + 8 + len;
	uint8_t *b = malloc(l3 + u + 8 + len), *f;
	uint16_t fo = (uint16_t)(off | (mf ? 1 : 0));

	assert_non_null(b);
	assert_true(off + len <= w->info.l3len - u);
	assert_int_equal(pkt_copy_out(w, 0, b, l3 + u), 0);
	assert_int_equal(pkt_copy_out(w, l3 + u + off, b + l3 + u + 8, len), 0);
	f = b + l3 + u;
	f[0] = b[nh_off];
	f[1] = 0;
	f[2] = (uint8_t)(fo >> 8);
	f[3] = (uint8_t)fo;
	/* identification: one per source port, so two test datagrams do not meet */
	f[4] = 0x42, f[5] = 0, f[6] = (uint8_t)(w->info.sport >> 8), f[7] = (uint8_t)w->info.sport;
	b[nh_off] = IPPROTO_FRAGMENT;
	b[l3 + 4] = (uint8_t)(plen >> 8);
	b[l3 + 5] = (uint8_t)plen;
	if (frag_ecn >= 0)
		b[l3 + 1] = (uint8_t)((b[l3 + 1] & ~0x30) | frag_ecn << 4);
	return finish_frag(b, l3 + u + 8 + len, link_of(w));
}

static struct pkt *frag(const struct pkt *w, uint32_t off, uint32_t len, bool mf)
{
	return w->info.family == AF_INET ? frag4(w, off, len, mf) : frag6(w, off, len, mf);
}

/* Bytes that are fragmented: after the IPv4 header / the IPv6 unfragmentable part. */
static uint32_t frag_part(const struct pkt *w)
{
	uint32_t nh;

	return w->info.family == AF_INET ? w->info.l3len - w->info.ihl
					 : w->info.l3len - unfrag_len(w, &nh);
}

/* Cut the whole fragmentable part in pieces of `size` bytes (multiple of 8). */
static unsigned cut(const struct pkt *w, uint32_t size, struct pkt **out, unsigned max)
{
	uint32_t total = frag_part(w), off;
	unsigned n = 0;

	for (off = 0; off < total; off += size) {
		uint32_t len = total - off < size ? total - off : size;

		assert_true(n < max);
		out[n++] = frag(w, off, len, off + len < total);
	}
	return n;
}

/* ---- checking ----------------------------------------------------------------------------- */

static struct ct_defrag *new_defrag(void)
{
	struct ct_defrag_config c;
	struct ct_defrag *d;

	ct_defrag_config_default(&c);
	c.seed[0] = 1;
	c.seed[1] = 2;
	d = ct_defrag_new(&c);
	assert_non_null(d);
	return d;
}

static uint64_t count_of(const struct ct_defrag *d, int family, enum ct_defrag_stat s)
{
	const struct ct_defrag_stats *st = ct_defrag_stats(d);

	return family == AF_INET ? st->v4[s] : st->v6[s];
}

static void assert_same_bytes(const struct pkt *a, const struct pkt *b)
{
	uint8_t *x = malloc(a->len), *y = malloc(b->len);

	assert_int_equal(a->len, b->len);
	assert_int_equal(pkt_copy_out(a, 0, x, a->len), 0);
	assert_int_equal(pkt_copy_out(b, 0, y, b->len), 0);
	assert_memory_equal(x, y, a->len);
	free(x);
	free(y);
}

/* The reassembled packet is the whole one, parsed, with a valid transport checksum. */
static void assert_reassembled(const struct ct_defrag_out *o, const struct pkt *w)
{
	assert_non_null(o->pkt);
	assert_int_equal(o->pkt->info.bad, PKT_OK);
	assert_false(o->pkt->info.is_fragment);
	assert_true(o->pkt->info.has_l4);
	assert_true(pkt_l4_csum_ok(o->pkt));
	assert_same_bytes(o->pkt, w);
}

static void assert_empty(const struct ct_defrag *d)
{
	assert_int_equal(ct_defrag_stats(d)->queues, 0);
	assert_int_equal(ct_defrag_stats(d)->mem, 0);
}

/*
 * Feed fragments in the order given by `order` (indexes into f); every one but the last must
 * be HELD, the last completes. Checks the result against w and, for IPv6, the originals.
 */
static void feed_all(struct ct_defrag *d, const struct pkt *w, struct pkt **f, unsigned n,
		     const unsigned *order, uint64_t now)
{
	struct pkt *copy[64];
	struct ct_defrag_out o;

	assert_true(n <= 64);
	for (unsigned i = 0; i < n; i++) {
		copy[i] = pkt_clone(f[order[i]]);
		f[order[i]]->id = 100 + i;
	}
	for (unsigned i = 0; i + 1 < n; i++)
		assert_int_equal(ct_defrag_in(d, f[order[i]], link_of(w), now, &o), CT_DEFRAG_HELD);
	f[order[n - 1]]->mark = 0x55;
	assert_int_equal(ct_defrag_in(d, f[order[n - 1]], link_of(w), now, &o), CT_DEFRAG_DONE);
	assert_reassembled(&o, w);
	assert_int_equal(o.pkt->mark, 0x55);
	assert_int_equal(o.pkt->id, 100 + n - 1);
	if (w->info.family == AF_INET6) {
		/* The originals, in arrival order, the very packets given, untouched. */
		assert_int_equal(o.norig, n);
		for (unsigned i = 0; i < n; i++) {
			assert_ptr_equal(o.orig[i], f[order[i]]);
			assert_same_bytes(o.orig[i], copy[i]);
		}
	} else {
		assert_int_equal(o.norig, 0);
		assert_null(o.orig);
	}
	for (unsigned i = 0; i < n; i++)
		pkt_free(copy[i]);
	ct_defrag_out_free(&o);
	assert_empty(d);
}

/* ---- tests -------------------------------------------------------------------------------- */

static void test_in_order(void **state)
{
	static const unsigned order[] = {0, 1, 2};

	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		struct ct_defrag *d = new_defrag();
		struct pkt *w = udp(families[i], 3000), *f[8];
		unsigned n = cut(w, 1480, f, 8);

		assert_int_equal(n, 3);
		feed_all(d, w, f, n, order, 0);
		assert_int_equal(count_of(d, families[i], CT_DEFRAG_ST_FRAGS), 3);
		assert_int_equal(count_of(d, families[i], CT_DEFRAG_ST_REASM), 1);
		pkt_free(w);
		ct_defrag_free(d);
	}
}

static void test_reversed(void **state)
{
	static const unsigned order[] = {4, 3, 2, 1, 0};

	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		struct ct_defrag *d = new_defrag();
		struct pkt *w = whole(families[i], "tcp %s:1 > %s:80 ack mss=1400 ts=1:2", 3900);
		struct pkt *f[8];

		assert_int_equal(cut(w, 800, f, 8), 5);
		feed_all(d, w, f, 5, order, 0);
		pkt_free(w);
		ct_defrag_free(d);
	}
}

/* Random sizes and orders, over packets in small segments, several protocols. */
static void test_random_order(void **state)
{
	static const char *const fmts[] = {
	    "udp %s:1000 > %s:53",
	    "tcp %s:1 > %s:80 ack",
	};
	uint32_t r = 12345;

	(void)state;
	for (unsigned round = 0; round < 60; round++) {
		int fam = families[round & 1];
		struct ct_defrag *d = new_defrag();
		struct pkt *w, *f[64];
		unsigned order[64], n;
		uint32_t size;

		fill_pattern(round);
		r = r * 1103515245u + 12345u;
		w = whole(fam, fmts[(round >> 1) & 1], 100 + (r >> 8) % 6000);
		r = r * 1103515245u + 12345u;
		split_chunk = round % 3 ? 0 : 7 + round % 50;
		size = 8 * (13 + (r >> 8) % 175);
		if (size >= frag_part(w))
			size = (frag_part(w) / 2 + 7) & ~7u;
		n = cut(w, size, f, 64);
		assert_true(n >= 2);
		for (unsigned i = 0; i < n; i++)
			order[i] = i;
		for (unsigned i = n; i > 1; i--) {
			unsigned j, t;

			r = r * 1103515245u + 12345u;
			j = (r >> 8) % i;
			t = order[i - 1];
			order[i - 1] = order[j];
			order[j] = t;
		}
		feed_all(d, w, f, n, order, round * SEC);
		split_chunk = 0;
		pkt_free(w);
		ct_defrag_free(d);
	}
	fill_pattern(1);
}

/* Fragments over Ethernet keep the offset-0 fragment's link header, VLAN tag and all. */
static void test_ethernet(void **state)
{
	static const unsigned order[] = {1, 0, 2};

	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		struct ct_defrag *d = new_defrag();
		struct pkt *w = whole(families[i], "udp %s:1000 > %s:53 vlan=7", 2000), *f[4];

		assert_int_equal(link_of(w), PKT_LINK_ETHERNET);
		assert_int_equal(cut(w, 1000, f, 4), 3);
		feed_all(d, w, f, 3, order, 0);
		pkt_free(w);
		ct_defrag_free(d);
	}
}

/* IPv6 unfragmentable ext headers stay in front; ext headers after the fragment header too. */
static void test_ipv6_ext_headers(void **state)
{
	static const unsigned order[] = {2, 0, 1};
	struct ct_defrag *d = new_defrag();
	struct pkt *w = whole(AF_INET6, "udp %s:1000 > %s:53 ext=hop,rt,dst", 2000), *f[4];

	(void)state;
	assert_int_equal(cut(w, 1000, f, 4), 3);
	feed_all(d, w, f, 3, order, 0);
	pkt_free(w);
	ct_defrag_free(d);
}

static void test_overlap_discards_datagram(void **state)
{
	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		int fam = families[i];
		struct ct_defrag *d = new_defrag();
		struct pkt *w = udp(fam, 3000);
		struct pkt *a = frag(w, 0, 1480, true), *b = frag(w, 1472, 1480, true);
		struct pkt *c = frag(w, 2952, frag_part(w) - 2952, false);
		struct pkt *e = frag(w, 0, 2960, true);
		struct ct_defrag_out o;

		assert_int_equal(ct_defrag_in(d, a, PKT_LINK_RAW, 0, &o), CT_DEFRAG_HELD);
		/* straddles the end of a: the whole datagram goes (RFC 5722, Linux for IPv4) */
		assert_int_equal(ct_defrag_in(d, b, PKT_LINK_RAW, 0, &o), CT_DEFRAG_DROP);
		assert_int_equal(o.reason, CT_DEFRAG_ST_OVERLAP);
		assert_null(o.pkt);
		assert_empty(d);
		assert_int_equal(count_of(d, fam, CT_DEFRAG_ST_OVERLAP), 1);
		pkt_free(b);
		/* a new queue; a fragment covering all of c and more overlaps too */
		assert_int_equal(ct_defrag_in(d, c, PKT_LINK_RAW, 0, &o), CT_DEFRAG_HELD);
		assert_int_equal(ct_defrag_in(d, e, PKT_LINK_RAW, 0, &o), CT_DEFRAG_DROP);
		assert_int_equal(o.reason, CT_DEFRAG_ST_OVERLAP);
		assert_int_equal(count_of(d, fam, CT_DEFRAG_ST_OVERLAP), 2);
		assert_empty(d);
		pkt_free(e);
		pkt_free(w);
		ct_defrag_free(d);
	}
}

static void test_duplicates(void **state)
{
	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		int fam = families[i];
		struct ct_defrag *d = new_defrag();
		struct pkt *w = udp(fam, 3000), *f[4], *dup, *inside;
		struct ct_defrag_out o;

		assert_int_equal(cut(w, 1000, f, 4), 4);
		dup = pkt_clone(f[1]);
		inside = frag(w, 992, 16, true); /* within the run f[0] f[1], across their seam */
		assert_int_equal(ct_defrag_in(d, f[0], PKT_LINK_RAW, 0, &o), CT_DEFRAG_HELD);
		assert_int_equal(ct_defrag_in(d, f[1], PKT_LINK_RAW, 0, &o), CT_DEFRAG_HELD);
		assert_int_equal(ct_defrag_in(d, dup, PKT_LINK_RAW, 0, &o), CT_DEFRAG_DROP);
		assert_int_equal(o.reason, CT_DEFRAG_ST_DUPLICATE);
		assert_int_equal(ct_defrag_in(d, inside, PKT_LINK_RAW, 0, &o), CT_DEFRAG_DROP);
		assert_int_equal(o.reason, CT_DEFRAG_ST_DUPLICATE);
		assert_int_equal(count_of(d, fam, CT_DEFRAG_ST_DUPLICATE), 2);
		assert_int_equal(ct_defrag_stats(d)->queues, 1); /* the queue is kept */
		assert_int_equal(ct_defrag_in(d, f[3], PKT_LINK_RAW, 0, &o), CT_DEFRAG_HELD);
		assert_int_equal(ct_defrag_in(d, f[2], PKT_LINK_RAW, 0, &o), CT_DEFRAG_DONE);
		assert_reassembled(&o, w);
		ct_defrag_out_free(&o);
		assert_empty(d);
		pkt_free(dup);
		pkt_free(inside);
		pkt_free(w);
		ct_defrag_free(d);
	}
}

/* A queue made at t expires at t + timeout exactly: 30 s for IPv4, 60 s for IPv6. */
static void test_timeout_exact(void **state)
{
	static const uint64_t timeout[] = {30 * SEC, 60 * SEC};
	const uint64_t t0 = 5 * SEC;

	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		int fam = families[i];
		struct ct_defrag *d = new_defrag();
		struct pkt *w = udp(fam, 1500), *f[2], *g[2];
		struct ct_defrag_out o;

		/* one nanosecond before: still there */
		assert_int_equal(cut(w, 1000, f, 2), 2);
		assert_int_equal(ct_defrag_in(d, f[0], PKT_LINK_RAW, t0, &o), CT_DEFRAG_HELD);
		assert_int_equal(ct_defrag_expire(d, t0 + timeout[i] - 1), 0);
		assert_int_equal(ct_defrag_in(d, f[1], PKT_LINK_RAW, t0 + timeout[i] - 1, &o),
				 CT_DEFRAG_DONE);
		assert_reassembled(&o, w);
		ct_defrag_out_free(&o);

		/* at the timeout: gone; the late fragment starts a new queue */
		assert_int_equal(cut(w, 1000, g, 2), 2);
		assert_int_equal(ct_defrag_in(d, g[0], PKT_LINK_RAW, t0, &o), CT_DEFRAG_HELD);
		assert_int_equal(ct_defrag_in(d, g[1], PKT_LINK_RAW, t0 + timeout[i], &o),
				 CT_DEFRAG_HELD);
		assert_int_equal(count_of(d, fam, CT_DEFRAG_ST_TIMEOUT), 1);
		assert_int_equal(ct_defrag_stats(d)->queues, 1);
		/* and the sweep removes that one at its own deadline */
		assert_int_equal(ct_defrag_expire(d, t0 + 2 * timeout[i] - 1), 0);
		assert_int_equal(ct_defrag_expire(d, t0 + 2 * timeout[i]), 1);
		assert_int_equal(count_of(d, fam, CT_DEFRAG_ST_TIMEOUT), 2);
		assert_empty(d);
		pkt_free(w);
		ct_defrag_free(d);
	}
}

static struct ct_defrag *new_defrag_mem(uint64_t high, uint64_t low)
{
	struct ct_defrag_config c;
	struct ct_defrag *d;

	ct_defrag_config_default(&c);
	c.high_thresh = high;
	c.low_thresh = low;
	d = ct_defrag_new(&c);
	assert_non_null(d);
	return d;
}

/* A first fragment of a datagram with identification `id` (IPv4), 1000 bytes of data. */
static struct pkt *first_of(int fam, unsigned id)
{
	char fmt[64];
	struct pkt *w, *f;

	snprintf(fmt, sizeof(fmt), "udp %%s:1000 > %%s:53 id=%u", id);
	w = whole(fam, fmt, 1500);
	f = frag(w, 0, 1000, true);
	if (fam == AF_INET6) { /* the IPv6 helper writes one id: vary the source instead */
		uint8_t b = (uint8_t)id;

		pkt_store(f, f->info.l3off + 23, &b, 1);
		pkt_parse(f, PKT_LINK_RAW, true);
	}
	pkt_free(w);
	return f;
}

static void test_memory_eviction(void **state)
{
	struct ct_defrag_out o;
	struct ct_defrag *d;
	struct pkt *p;
	uint64_t m;

	(void)state;
	/* what one queue with one fragment costs */
	d = new_defrag();
	assert_int_equal(ct_defrag_in(d, first_of(AF_INET, 1), PKT_LINK_RAW, 0, &o),
			 CT_DEFRAG_HELD);
	m = ct_defrag_stats(d)->mem;
	assert_true(m > 1000);
	ct_defrag_free(d);

	/* room for three; the fourth evicts the oldest down to the low mark (two queues) */
	d = new_defrag_mem(3 * m, 2 * m);
	for (unsigned id = 1; id <= 3; id++)
		assert_int_equal(ct_defrag_in(d, first_of(AF_INET, id), PKT_LINK_RAW, id * SEC, &o),
				 CT_DEFRAG_HELD);
	assert_int_equal(ct_defrag_stats(d)->mem, 3 * m);
	assert_int_equal(count_of(d, AF_INET, CT_DEFRAG_ST_EVICTED), 0);
	assert_int_equal(ct_defrag_in(d, first_of(AF_INET, 4), PKT_LINK_RAW, 4 * SEC, &o),
			 CT_DEFRAG_HELD);
	assert_int_equal(count_of(d, AF_INET, CT_DEFRAG_ST_EVICTED), 2);
	assert_int_equal(ct_defrag_stats(d)->queues, 2);
	assert_int_equal(ct_defrag_stats(d)->mem, 2 * m);
	/* 1 and 2 went: their first fragments again make new queues, 3 is still held */
	p = first_of(AF_INET, 3);
	assert_int_equal(ct_defrag_in(d, p, PKT_LINK_RAW, 5 * SEC, &o), CT_DEFRAG_DROP);
	assert_int_equal(o.reason, CT_DEFRAG_ST_DUPLICATE);
	pkt_free(p);
	ct_defrag_free(d);

	/* oldest across families: an IPv6 queue older than the IPv4 one goes first */
	d = new_defrag();
	assert_int_equal(ct_defrag_in(d, first_of(AF_INET6, 1), PKT_LINK_RAW, 1, &o),
			 CT_DEFRAG_HELD);
	assert_int_equal(ct_defrag_in(d, first_of(AF_INET, 2), PKT_LINK_RAW, 2, &o),
			 CT_DEFRAG_HELD);
	m = ct_defrag_stats(d)->mem;
	ct_defrag_free(d);
	d = new_defrag_mem(m, m);
	assert_int_equal(ct_defrag_in(d, first_of(AF_INET6, 1), PKT_LINK_RAW, 1, &o),
			 CT_DEFRAG_HELD);
	assert_int_equal(ct_defrag_in(d, first_of(AF_INET, 2), PKT_LINK_RAW, 2, &o),
			 CT_DEFRAG_HELD);
	assert_int_equal(ct_defrag_in(d, first_of(AF_INET, 3), PKT_LINK_RAW, 3, &o),
			 CT_DEFRAG_HELD);
	assert_int_equal(count_of(d, AF_INET6, CT_DEFRAG_ST_EVICTED), 1);
	assert_int_equal(count_of(d, AF_INET, CT_DEFRAG_ST_EVICTED), 0);
	assert_int_equal(ct_defrag_stats(d)->queues, 2);
	ct_defrag_free(d);

	/* a limit below one fragment: nothing to evict, the datagram is refused */
	d = new_defrag_mem(m / 4, m / 4);
	p = first_of(AF_INET, 1);
	assert_int_equal(ct_defrag_in(d, p, PKT_LINK_RAW, 0, &o), CT_DEFRAG_DROP);
	assert_int_equal(o.reason, CT_DEFRAG_ST_NOMEM);
	assert_int_equal(count_of(d, AF_INET, CT_DEFRAG_ST_NOMEM), 1);
	assert_empty(d);
	pkt_free(p);
	ct_defrag_free(d);
}

static void test_too_many_frags(void **state)
{
	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		int fam = families[i];
		struct ct_defrag_config c;
		struct ct_defrag *d;
		struct pkt *w = udp(fam, 2000), *f[8];
		struct ct_defrag_out o;

		ct_defrag_config_default(&c);
		c.max_frags = 4;
		d = ct_defrag_new(&c);
		assert_int_equal(cut(w, 400, f, 8), 6);
		for (unsigned k = 0; k < 4; k++)
			assert_int_equal(ct_defrag_in(d, f[k], PKT_LINK_RAW, 0, &o),
					 CT_DEFRAG_HELD);
		assert_int_equal(ct_defrag_in(d, f[4], PKT_LINK_RAW, 0, &o), CT_DEFRAG_DROP);
		assert_int_equal(o.reason, CT_DEFRAG_ST_TOO_MANY);
		assert_int_equal(count_of(d, fam, CT_DEFRAG_ST_TOO_MANY), 1);
		assert_empty(d);
		pkt_free(f[4]);
		pkt_free(f[5]);
		pkt_free(w);
		ct_defrag_free(d);
	}
}

/* Feed `p` expecting a drop for `why`; frees p. */
static void expect_drop(struct ct_defrag *d, struct pkt *p, enum ct_defrag_stat why)
{
	struct ct_defrag_out o;

	assert_int_equal(ct_defrag_in(d, p, link_of(p), 0, &o), CT_DEFRAG_DROP);
	if (o.reason != why)
		fail_msg("dropped for %s, expected %s", ct_defrag_stat_name(o.reason),
			 ct_defrag_stat_name(why));
	pkt_free(p);
}

static void expect_held(struct ct_defrag *d, struct pkt *p)
{
	struct ct_defrag_out o;

	assert_int_equal(ct_defrag_in(d, p, link_of(p), 0, &o), CT_DEFRAG_HELD);
}

/* RFC 3128 / RFC 7112: a first fragment must hold the whole transport header (and chain). */
static void test_tiny_first_fragment(void **state)
{
	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		int fam = families[i];
		struct ct_defrag *d = new_defrag();
		struct pkt *w = whole(fam, "tcp %s:1 > %s:80 ack mss=1400 ts=1:2", 1000);
		struct pkt *u = udp(fam, 1000);

		/* 8 bytes of a TCP header: the rest comes later; the held part is discarded */
		expect_held(d, frag(w, 8, 200, true));
		expect_drop(d, frag(w, 0, 8, true), CT_DEFRAG_ST_TINY);
		assert_empty(d);
		/* 24 of a 36-byte header (options cut: the data offset points past the fragment) */
		expect_drop(d, frag(w, 0, 24, true), CT_DEFRAG_ST_TINY);
		assert_int_equal(count_of(d, fam, CT_DEFRAG_ST_TINY), 2);
		/* the whole header is enough; for UDP that is 8 bytes */
		expect_held(d, frag(w, 0, 40, true));
		expect_held(d, frag(u, 0, 8, true));
		assert_int_equal(ct_defrag_stats(d)->queues, 2);
		pkt_free(w);
		pkt_free(u);
		ct_defrag_free(d);
	}
}

/* RFC 7112: ext headers after the fragment header must be in the first fragment too. */
static void test_tiny_ipv6_chain(void **state)
{
	struct ct_defrag *d = new_defrag();
	struct pkt *w = whole(AF_INET6, "udp %s:1000 > %s:53 ext=dst", 1000);

	(void)state;
	/* fragmentable part: dst options (8) then UDP: 8 bytes hold the options alone */
	expect_drop(d, frag(w, 0, 8, true), CT_DEFRAG_ST_TINY);
	expect_held(d, frag(w, 0, 16, true));
	pkt_free(w);
	ct_defrag_free(d);
}

/* A fragment built directly: `off` 8-byte units, `len` bytes of data, no transport header. */
static struct pkt *raw_frag(int fam, uint16_t off, uint32_t len, bool mf)
{
	struct pkt_spec s;
	struct pkt *p;

	pkt_spec_init(&s);
	s.family = (uint8_t)fam;
	pt_addr_parse(fam == AF_INET ? "10.0.0.2" : "2001:db8::2", &s.src);
	pt_addr_parse(fam == AF_INET ? "192.0.2.1" : "2001:db8::1", &s.dst);
	s.proto = IPPROTO_UDP;
	s.ip_id = 9;
	s.frag_off = off;
	s.mf = mf;
	s.payload_len = len;
	p = pkt_build(&s);
	assert_non_null(p);
	assert_true(p->info.is_fragment);
	return p;
}

static void test_too_long(void **state)
{
	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		int fam = families[i];
		struct ct_defrag *d = new_defrag();

		/* the last 8-byte unit the offset can name, plus 16 bytes: beyond 65535 */
		expect_held(d, raw_frag(fam, 100, 64, true));
		expect_drop(d, raw_frag(fam, 8191, 16, false), CT_DEFRAG_ST_TOO_LONG);
		assert_int_equal(count_of(d, fam, CT_DEFRAG_ST_TOO_LONG), 1);
		assert_empty(d);
		/* exactly at the limit is fine */
		if (fam == AF_INET)
			expect_held(d, raw_frag(fam, 8188, 65535 - 20 - 8188 * 8, false));
		else
			expect_held(d, raw_frag(fam, 8191, 65535 - 8191 * 8, false));
		ct_defrag_free(d);
	}
}

static void test_bad_lengths(void **state)
{
	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		int fam = families[i];
		struct ct_defrag *d = new_defrag();

		/* empty fragment */
		expect_drop(d, raw_frag(fam, 10, 0, true), CT_DEFRAG_ST_BAD_LEN);
		/* two last fragments with different ends */
		expect_held(d, raw_frag(fam, 10, 16, false));
		expect_drop(d, raw_frag(fam, 20, 16, false), CT_DEFRAG_ST_BAD_LEN);
		assert_empty(d);
		/* data beyond the known end */
		expect_held(d, raw_frag(fam, 10, 16, false));
		expect_drop(d, raw_frag(fam, 12, 16, true), CT_DEFRAG_ST_BAD_LEN);
		/* a last fragment ending before data already held */
		expect_held(d, raw_frag(fam, 20, 16, true));
		expect_drop(d, raw_frag(fam, 10, 16, false), CT_DEFRAG_ST_BAD_LEN);
		assert_int_equal(count_of(d, fam, CT_DEFRAG_ST_BAD_LEN), 4);
		assert_empty(d);
		ct_defrag_free(d);
	}
}

/* A non-last fragment not a multiple of 8: IPv6 refuses it, IPv4 ignores the odd bytes. */
static void test_odd_length_fragment(void **state)
{
	struct ct_defrag_out o;
	struct ct_defrag *d;
	struct pkt *w, *a, *b;

	(void)state;
	d = new_defrag();
	w = udp(AF_INET6, 1000);
	expect_drop(d, frag(w, 0, 500, true), CT_DEFRAG_ST_BAD_LEN);
	pkt_free(w);
	ct_defrag_free(d);

	d = new_defrag();
	w = udp(AF_INET, 1000);
	a = frag(w, 0, 500, true); /* 496 kept, 4 bytes ignored */
	b = frag(w, 496, frag_part(w) - 496, false);
	assert_int_equal(ct_defrag_in(d, a, PKT_LINK_RAW, 0, &o), CT_DEFRAG_HELD);
	assert_int_equal(ct_defrag_in(d, b, PKT_LINK_RAW, 0, &o), CT_DEFRAG_DONE);
	assert_reassembled(&o, w);
	ct_defrag_out_free(&o);
	pkt_free(w);
	ct_defrag_free(d);
}

static void test_not_fragments_pass(void **state)
{
	struct ct_defrag *d = new_defrag();
	struct ct_defrag_out o;
	struct pkt *p;

	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		p = udp(families[i], 100);
		assert_int_equal(ct_defrag_in(d, p, PKT_LINK_RAW, 0, &o), CT_DEFRAG_PASS);
		assert_null(o.pkt);
		pkt_free(p);
	}
	/* an atomic fragment (RFC 6946): a fragment header, offset 0, M clear */
	p = whole(AF_INET6, "udp %s:1 > %s:2 frag=off:0", 8);
	assert_true(p->info.frag_hdr_off != 0);
	assert_int_equal(ct_defrag_in(d, p, PKT_LINK_RAW, 0, &o), CT_DEFRAG_PASS);
	pkt_free(p);
	assert_int_equal(ct_defrag_stats(d)->v4[CT_DEFRAG_ST_FRAGS], 0);
	assert_int_equal(ct_defrag_stats(d)->v6[CT_DEFRAG_ST_FRAGS], 0);
	ct_defrag_free(d);
}

/* Same id, other protocol (IPv4) or other addresses: other datagrams. Other iif: the same. */
static void test_keys(void **state)
{
	struct ct_defrag *d = new_defrag();
	struct pkt *w = udp(AF_INET, 1500), *f[2], *other;
	struct ct_defrag_out o;
	uint8_t proto = IPPROTO_TCP;

	(void)state;
	assert_int_equal(cut(w, 1000, f, 2), 2);
	other = pkt_clone(f[1]);
	pkt_store(other, 9, &proto, 1);
	pkt_ip_csum_update(other);
	pkt_parse(other, PKT_LINK_RAW, true);
	f[0]->iif = 1;
	f[1]->iif = 2;
	expect_held(d, f[0]);
	expect_held(d, other);
	assert_int_equal(ct_defrag_stats(d)->queues, 2);
	assert_int_equal(ct_defrag_in(d, f[1], PKT_LINK_RAW, 0, &o), CT_DEFRAG_DONE);
	assert_int_equal(o.pkt->iif, 2); /* the metadata of the fragment that completed it */
	assert_reassembled(&o, w);
	ct_defrag_out_free(&o);
	pkt_free(w);
	ct_defrag_free(d);
}

/* DF when the largest fragment had it; ECN: CE wins over ECT, not-ECT mixed with ECT drops. */
static void test_df_and_ecn(void **state)
{
	struct ct_defrag_out o;
	struct ct_defrag *d = new_defrag();
	struct pkt *w = whole(AF_INET, "udp %s:1000 > %s:53 df tos=0x02", 1500), *a, *b;

	(void)state;
	a = frag(w, 0, 1000, true);
	frag_ecn = 3;
	b = frag(w, 1000, frag_part(w) - 1000, false);
	frag_ecn = -1;
	expect_held(d, a);
	assert_int_equal(ct_defrag_in(d, b, PKT_LINK_RAW, 0, &o), CT_DEFRAG_DONE);
	assert_true(o.pkt->info.dont_frag);
	assert_int_equal(o.pkt->info.tos, 0x03);
	assert_int_equal(o.frag_max_size, 1020);
	ct_defrag_out_free(&o);
	pkt_free(w);

	for (unsigned i = 0; i < 2; i++) {
		w = udp(families[i], 1500);
		frag_ecn = 0;
		a = frag(w, 0, 1000, true);
		frag_ecn = 2;
		b = frag(w, 1000, frag_part(w) - 1000, false);
		frag_ecn = -1;
		expect_held(d, a);
		expect_drop(d, b, CT_DEFRAG_ST_BAD_ECN);
		assert_int_equal(count_of(d, families[i], CT_DEFRAG_ST_BAD_ECN), 1);
		assert_empty(d);
		pkt_free(w);
	}
	ct_defrag_free(d);
}

/*
 * The IPv6 contract: the shadow passes the rules (which may rewrite it, as NAT would); the
 * originals, synced from it, are what goes out, and they reassemble to the rewritten shadow.
 */
static void test_shadow_and_originals(void **state)
{
	static const uint8_t new_dst[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
					    0,	  0,	0,    0,    0, 0, 0, 0x99};
	struct ct_defrag *d = new_defrag(), *d2 = new_defrag();
	struct pkt *w = whole(AF_INET6, "tcp %s:1 > %s:80 ack", 3000), *f[4], *longer;
	struct ct_defrag_out o, o2;
	uint8_t hlim = 63, port[2] = {0x1f, 0x90};

	(void)state;
	assert_int_equal(cut(w, 1232, f, 4), 3);
	expect_held(d, f[2]);
	expect_held(d, f[0]);
	assert_int_equal(ct_defrag_in(d, f[1], PKT_LINK_RAW, 0, &o), CT_DEFRAG_DONE);
	assert_reassembled(&o, w);
	assert_int_equal(o.norig, 3);
	assert_ptr_equal(o.orig[0], f[2]);
	assert_ptr_equal(o.orig[2], f[1]);
	assert_true(o.orig[1]->info.is_fragment);

	/* what the rules did to the shadow: hop limit, DNAT to another address and port */
	pkt_store(o.pkt, 7, &hlim, 1);
	pkt_store(o.pkt, 24, new_dst, 16);
	pkt_store(o.pkt, o.pkt->info.l4off + 2, port, 2);
	pkt_parse(o.pkt, PKT_LINK_RAW, false);
	pkt_l4_csum_update(o.pkt);
	o.pkt->mark = 7;
	assert_true(pkt_l4_csum_ok(o.pkt));

	/* a shadow that changed length cannot be cut back into these fragments */
	longer = pkt_clone(o.pkt);
	assert_int_equal(pkt_splice(longer, longer->len, 0, "abcdefgh", 8), 0);
	longer->info.l3len += 8;
	assert_int_equal(ct_defrag6_sync(longer, o.orig[0]), -EINVAL); /* the last one */
	pkt_free(longer);

	for (unsigned i = 0; i < o.norig; i++) {
		assert_int_equal(ct_defrag6_sync(o.pkt, o.orig[i]), 0);
		assert_int_equal(o.orig[i]->mark, 7);
		assert_int_equal(o.orig[i]->info.ttl, 63);
	}
	/* the next hop reassembles the originals into exactly the rewritten shadow */
	for (unsigned i = 0; i + 1 < o.norig; i++) {
		struct pkt *c = pkt_clone(o.orig[i]);

		pkt_parse(c, PKT_LINK_RAW, true);
		expect_held(d2, c);
	}
	{
		struct pkt *c = pkt_clone(o.orig[o.norig - 1]);

		pkt_parse(c, PKT_LINK_RAW, true);
		assert_int_equal(ct_defrag_in(d2, c, PKT_LINK_RAW, 0, &o2), CT_DEFRAG_DONE);
	}
	assert_reassembled(&o2, o.pkt);
	ct_defrag_out_free(&o2);
	ct_defrag_out_free(&o);
	pkt_free(w);
	ct_defrag_free(d);
	ct_defrag_free(d2);
}

/* Refragment and reassemble: all must come back to `w`. Frees the fragments. */
static void assert_reassembles_to(struct pkt **f, int n, const struct pkt *w)
{
	struct ct_defrag *d = new_defrag();
	struct ct_defrag_out o;

	assert_true(n >= 2);
	for (int i = 0; i + 1 < n; i++)
		expect_held(d, f[i]);
	assert_int_equal(ct_defrag_in(d, f[n - 1], link_of(w), 0, &o), CT_DEFRAG_DONE);
	assert_reassembled(&o, w);
	ct_defrag_out_free(&o);
	ct_defrag_free(d);
}

/* IPv4 out: a reassembled datagram leaves as the fragments it came in (Linux, frag_max_size). */
static void test_refragment_ipv4(void **state)
{
	struct pkt *w, *f[8], *copy[8], *out[16];
	struct ct_defrag *d = new_defrag();
	struct ct_defrag_out o;
	uint8_t b[60];
	int n;

	(void)state;
	for (unsigned df = 0; df < 2; df++) {
		w = whole(AF_INET, df ? "udp %s:1 > %s:2 df" : "udp %s:1 > %s:2", 3000);
		assert_int_equal(cut(w, 1480, f, 8), 3);
		for (unsigned i = 0; i < 3; i++)
			copy[i] = pkt_clone(f[i]);
		expect_held(d, f[2]);
		expect_held(d, f[0]);
		assert_int_equal(ct_defrag_in(d, f[1], PKT_LINK_RAW, 0, &o), CT_DEFRAG_DONE);
		assert_int_equal(o.frag_max_size, 1500);
		assert_int_equal(o.pkt->info.dont_frag, df);
		/* a bigger link: still the sender's fragments, byte for byte */
		assert_int_equal(box_fragment4(o.pkt, 9000, o.frag_max_size, out, 16), 3);
		for (unsigned i = 0; i < 3; i++) {
			assert_same_bytes(out[i], copy[i]);
			pkt_free(out[i]);
			pkt_free(copy[i]);
		}
		assert_int_equal(box_fragment4(o.pkt, 9000, o.frag_max_size, out, 2), -ENOSPC);
		/* a smaller link: DF refuses (fragmentation needed), else smaller fragments */
		n = box_fragment4(o.pkt, 1000, o.frag_max_size, out, 16);
		if (df) {
			assert_int_equal(n, -EMSGSIZE);
		} else {
			assert_int_equal(n, 4); /* 3008 bytes in 976-byte pieces */
			assert_reassembles_to(out, n, w);
		}
		ct_defrag_out_free(&o);
		pkt_free(w);
	}
	ct_defrag_free(d);

	/* not reassembled here: as is when it fits, cut when it does not */
	w = whole(AF_INET, "udp %s:1 > %s:2 ipopt=rr,ra", 1400);
	assert_int_equal(box_fragment4(w, 1500, 0, out, 16), 1);
	assert_same_bytes(out[0], w);
	pkt_free(out[0]);
	n = box_fragment4(w, 576, 0, out, 16);
	assert_int_equal(n, 3);
	/* after the first fragment record route (not copied) is NOPs, router alert stays */
	assert_int_equal(pkt_copy_out(out[1], 0, b, out[1]->info.ihl), 0);
	assert_int_equal(out[1]->info.ihl, w->info.ihl);
	assert_int_equal(b[20], 1);
	assert_non_null(memchr(b + 20, 148, out[1]->info.ihl - 20));
	assert_int_equal(pkt_copy_out(out[0], 0, b, out[0]->info.ihl), 0);
	assert_int_equal(b[20], 7);
	assert_reassembles_to(out, n, w);
	assert_int_equal(box_fragment4(w, 27, 0, out, 16), -EINVAL);
	pkt_free(w);
	w = whole(AF_INET, "udp %s:1 > %s:2 df", 1400);
	assert_int_equal(box_fragment4(w, 576, 0, out, 16), -EMSGSIZE);
	pkt_free(w);
}

/* Freeing an instance that still holds fragments frees them (ASan says so). */
static void test_free_with_queues(void **state)
{
	struct ct_defrag *d = new_defrag();

	(void)state;
	for (unsigned i = 0; i < 2; i++)
		expect_held(d, raw_frag(families[i], 10, 64, true));
	assert_int_equal(ct_defrag_stats(d)->queues, 2);
	ct_defrag_free(d);
}

static void test_config_and_names(void **state)
{
	struct ct_defrag_config c;
	const char *seen[CT_DEFRAG_ST_MAX];

	(void)state;
	ct_defrag_config_default(&c);
	assert_int_equal(c.timeout4, 30 * SEC);
	assert_int_equal(c.timeout6, 60 * SEC);
	assert_int_equal(c.high_thresh, 4 << 20);
	assert_int_equal(c.low_thresh, 3 << 20);
	c.low_thresh = c.high_thresh + 1;
	assert_null(ct_defrag_new(&c));
	assert_int_equal(errno, EINVAL);
	for (int s = 0; s < CT_DEFRAG_ST_MAX; s++) {
		seen[s] = ct_defrag_stat_name(s);
		assert_non_null(seen[s]);
		assert_string_not_equal(seen[s], "?");
		for (int t = 0; t < s; t++)
			assert_string_not_equal(seen[s], seen[t]);
	}
	assert_string_equal(ct_defrag_stat_name(CT_DEFRAG_ST_MAX), "?");
	assert_string_equal(ct_defrag_stat_name(CT_DEFRAG_ST_OVERLAP), "overlap");
}

static int setup(void **state)
{
	(void)state;
	fill_pattern(1);
	return 0;
}

/*
 * Each fragment lent from a block of its own (a stand-in for a ring's block: pkt_pool_lend over
 * it, parsed), the block poisoned and freed as soon as the fragment was handed over, as the
 * receive loop gives blocks back after its burst. A held fragment still pointing into its block
 * would spoil the datagram (or, under ASan, be a read after free). IPv6's originals come back
 * as the very packets given, now owning copies of their bytes.
 */
static void test_lent_fragments_kept(void **state)
{
	static const unsigned order[] = {2, 0, 3, 1};

	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		struct ct_defrag *d = new_defrag();
		struct pkt_pool *pp = pkt_pool_new(8, 64);
		struct pkt *w = udp(families[i], 4000), *f[8], *lent[8];
		unsigned n = cut(w, 1232, f, 8);
		struct pkt_pool_stats st;
		struct ct_defrag_out o;

		assert_int_equal(n, 4);
		for (unsigned k = 0; k < n; k++) {
			uint32_t len = f[order[k]]->len;
			uint8_t *blk = malloc(len);
			int v;

			assert_non_null(blk);
			assert_int_equal(pkt_copy_out(f[order[k]], 0, blk, len), 0);
			lent[k] = pkt_pool_lend(pp, blk, len);
			assert_non_null(lent[k]);
			pkt_parse(lent[k], link_of(w), true);
			v = ct_defrag_in(d, lent[k], link_of(w), 0, &o);
			assert_int_equal(v, k + 1 < n ? CT_DEFRAG_HELD : CT_DEFRAG_DONE);
			memset(blk, 0xee, len);
			free(blk);
		}
		assert_reassembled(&o, w);
		if (families[i] == AF_INET6) {
			assert_int_equal(o.norig, n);
			for (unsigned k = 0; k < n; k++) {
				assert_ptr_equal(o.orig[k], lent[k]);
				assert_false(pkt_lent(o.orig[k]));
				assert_same_bytes(o.orig[k], f[order[k]]);
			}
		}
		pkt_pool_stats(pp, &st);
		assert_int_equal(st.lent, n);
		assert_int_equal(st.kept, n);
		ct_defrag_out_free(&o);
		for (unsigned k = 0; k < n; k++)
			pkt_free(f[k]);
		pkt_free(w);
		pkt_pool_free(pp);
		ct_defrag_free(d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_in_order),
	    cmocka_unit_test(test_reversed),
	    cmocka_unit_test(test_random_order),
	    cmocka_unit_test(test_ethernet),
	    cmocka_unit_test(test_ipv6_ext_headers),
	    cmocka_unit_test(test_overlap_discards_datagram),
	    cmocka_unit_test(test_duplicates),
	    cmocka_unit_test(test_timeout_exact),
	    cmocka_unit_test(test_memory_eviction),
	    cmocka_unit_test(test_too_many_frags),
	    cmocka_unit_test(test_tiny_first_fragment),
	    cmocka_unit_test(test_tiny_ipv6_chain),
	    cmocka_unit_test(test_too_long),
	    cmocka_unit_test(test_bad_lengths),
	    cmocka_unit_test(test_odd_length_fragment),
	    cmocka_unit_test(test_not_fragments_pass),
	    cmocka_unit_test(test_keys),
	    cmocka_unit_test(test_df_and_ecn),
	    cmocka_unit_test(test_shadow_and_originals),
	    cmocka_unit_test(test_refragment_ipv4),
	    cmocka_unit_test(test_free_with_queues),
	    cmocka_unit_test(test_config_and_names),
	    cmocka_unit_test(test_lent_fragments_kept),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}

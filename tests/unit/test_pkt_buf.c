// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The segmented buffer: reads, writes and edits give the same bytes whatever the segment
 * layout (every segment is its own exact-size allocation, so ASan sees any overrun).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "pkt/pkt.h"

#define N 64

static void fill(uint8_t *b, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 7 + 3);
}

static void test_header_every_range_every_layout(void **state)
{
	uint8_t data[N], buf[N];
	uint32_t chunk, off, len;

	(void)state;
	fill(data, N);
	for (chunk = 1; chunk <= 7; chunk++) {
		struct pkt *p = pkt_from_bytes_split(data, N, chunk);

		assert_non_null(p);
		assert_int_equal(p->len, N);
		assert_true(p->nsegs <= PKT_MAX_SEGS);
		for (off = 0; off <= N; off++)
			for (len = 0; off + len <= N; len++) {
				const uint8_t *h = pkt_header(p, off, len, buf);

				assert_non_null(h);
				assert_memory_equal(h, data + off, len);
			}
		/* out of range, including offset overflow */
		assert_null(pkt_header(p, N - 3, 4, buf));
		assert_null(pkt_header(p, UINT32_MAX, 2, buf));
		assert_int_equal(pkt_copy_out(p, 1, buf, N), -EFAULT);
		pkt_free(p);
	}
}

static void test_header_points_into_segment_when_contiguous(void **state)
{
	uint8_t data[N], buf[8];
	uint32_t cuts[] = {10, 20};
	struct pkt *p;

	(void)state;
	fill(data, N);
	p = pkt_from_bytes_cuts(data, N, cuts, 2);
	assert_ptr_equal(pkt_header(p, 12, 8, buf), p->seg[1].data + 2);
	assert_ptr_equal(pkt_header(p, 8, 4, buf), buf); /* spans seg 0 and 1 */
	assert_null(pkt_from_bytes_cuts(data, N, (uint32_t[]){20, 10}, 2));
	assert_null(pkt_from_bytes_cuts(data, N, (uint32_t[]){0}, 1));
	pkt_free(p);
}

static void test_store_across_segments(void **state)
{
	uint8_t data[N], want[N], got[N], patch[20];
	uint32_t chunk, off;

	(void)state;
	fill(data, N);
	memset(patch, 0xab, sizeof(patch));
	for (chunk = 1; chunk <= 7; chunk++)
		for (off = 0; off + sizeof(patch) <= N; off++) {
			struct pkt *p = pkt_from_bytes_split(data, N, chunk);

			memcpy(want, data, N);
			memcpy(want + off, patch, sizeof(patch));
			assert_int_equal(pkt_store(p, off, patch, sizeof(patch)), 0);
			assert_int_equal(pkt_copy_out(p, 0, got, N), 0);
			assert_memory_equal(got, want, N);
			assert_int_equal(pkt_store(p, N - 1, patch, 2), -EFAULT);
			pkt_free(p);
		}
}

static int count_block(const uint8_t *d, uint32_t len, void *arg)
{
	uint32_t *sum = arg;

	assert_true(len > 0);
	sum[0] += len;
	sum[1]++;
	sum[2] += d[0];
	return sum[1] == 100 ? 42 : 0;
}

static void test_for_each_block(void **state)
{
	uint8_t data[N];
	uint32_t acc[3] = {0, 0, 0};
	struct pkt *p;

	(void)state;
	fill(data, N);
	p = pkt_from_bytes_split(data, N, 4);
	assert_int_equal(pkt_for_each_block(p, 2, 11, count_block, acc), 0);
	assert_int_equal(acc[0], 11);
	assert_int_equal(acc[1], 4); /* [2,4) [4,8) [8,12) [12,13) */
	assert_int_equal(acc[2], data[2] + data[4] + data[8] + data[12]);
	acc[1] = 99;
	assert_int_equal(pkt_for_each_block(p, 0, 8, count_block, acc), 42); /* stops early */
	assert_int_equal(pkt_for_each_block(p, 60, 5, count_block, acc), -EFAULT);
	pkt_free(p);
}

static void test_linearize_trim_clone(void **state)
{
	uint8_t data[N], got[N];
	struct pkt *p, *c;

	(void)state;
	fill(data, N);
	p = pkt_from_bytes_split(data, N, 3);
	p->mark = 7;
	p->id = 99;
	assert_null(pkt_linear_data(p));
	c = pkt_clone(p);
	assert_int_equal(c->nsegs, 1);
	assert_int_equal(c->mark, 7);
	assert_int_equal(c->id, 99);
	assert_memory_equal(pkt_linear_data(c), data, N);
	assert_int_equal(pkt_linearize(p), 0);
	assert_int_equal(p->nsegs, 1);
	assert_memory_equal(pkt_linear_data(p), data, N);
	pkt_trim(p, 10);
	assert_int_equal(p->len, 10);
	assert_null(pkt_header(p, 9, 2, got));
	pkt_trim(c, 200); /* longer: no-op */
	assert_int_equal(c->len, N);
	pkt_free(p);
	/* trimming a segmented packet drops whole segments' worth */
	p = pkt_from_bytes_split(data, N, 5);
	pkt_trim(p, 12);
	assert_int_equal(p->len, 12);
	assert_int_equal(pkt_copy_out(p, 0, got, 12), 0);
	assert_memory_equal(got, data, 12);
	assert_int_equal(pkt_copy_out(p, 0, got, 13), -EFAULT);
	pkt_free(p);
	pkt_free(c);
}

/* pkt_reframe: raw -> Ethernet -> raw gives the same bytes, the metadata whole, parsed. */
static void test_reframe(void **state)
{
	/* IPv6, no payload: version 6, payload length 0, next header 59 (none), hop limit 64 */
	static const uint8_t ip6[40] = {0x60, 0, 0, 0, 0, 0, 59, 64, [23] = 1, [39] = 2};
	static const uint8_t src[6] = {2, 0, 0, 0, 0, 1}, dst[6] = {2, 0, 0, 0, 0, 2};
	struct pkt *p = pkt_from_bytes_split(ip6, sizeof(ip6), 7), *e, *r;
	const uint8_t *d;

	(void)state;
	p->mark = 5;
	p->frag_max_size = 1280;
	p->iif = 3;
	e = pkt_reframe(p, PKT_LINK_RAW, PKT_LINK_ETHERNET, src, dst);
	assert_non_null(e);
	assert_int_equal(e->len, 14 + sizeof(ip6));
	d = pkt_linear_data(e);
	assert_memory_equal(d, dst, 6);
	assert_memory_equal(d + 6, src, 6);
	assert_int_equal(d[12], 0x86);
	assert_int_equal(d[13], 0xdd);
	assert_memory_equal(d + 14, ip6, sizeof(ip6));
	assert_int_equal(e->info.family, AF_INET6);
	assert_int_equal(e->info.l3off, 14);
	assert_memory_equal(&e->meta, &p->meta, sizeof(p->meta));
	r = pkt_reframe(e, PKT_LINK_ETHERNET, PKT_LINK_RAW, NULL, NULL);
	assert_non_null(r);
	assert_int_equal(r->len, sizeof(ip6));
	assert_memory_equal(pkt_linear_data(r), ip6, sizeof(ip6));
	assert_int_equal(r->info.l3off, 0);
	assert_int_equal(r->mark, 5);
	assert_int_equal(r->frag_max_size, 1280);
	assert_int_equal(r->iif, 3);
	pkt_free(p);
	pkt_free(e);
	pkt_free(r);
}

static void test_splice(void **state)
{
	uint8_t data[N], want[N + 8], got[N + 8];
	static const uint8_t ins[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	struct pkt *p;

	(void)state;
	fill(data, N);
	/* grow: replace 2 bytes at 10 with 8 */
	p = pkt_from_bytes_split(data, N, 6);
	assert_int_equal(pkt_splice(p, 10, 2, ins, 8), 0);
	memcpy(want, data, 10);
	memcpy(want + 10, ins, 8);
	memcpy(want + 18, data + 12, N - 12);
	assert_int_equal(p->len, N + 6);
	assert_int_equal(pkt_copy_out(p, 0, got, N + 6), 0);
	assert_memory_equal(got, want, N + 6);
	/* shrink: remove those 8 again, back to the original without the 2 bytes */
	assert_int_equal(pkt_splice(p, 10, 8, NULL, 0), 0);
	assert_int_equal(p->len, N - 2);
	assert_memory_equal(pkt_linear_data(p) + 10, data + 12, N - 12);
	assert_int_equal(pkt_splice(p, N, 1, NULL, 0), -EFAULT);
	pkt_free(p);
	p = pkt_alloc(PKT_MAX_LEN);
	assert_non_null(p);
	assert_int_equal(pkt_splice(p, 0, 0, ins, 1), -EMSGSIZE);
	pkt_free(p);
	assert_null(pkt_alloc(PKT_MAX_LEN + 1));
}

static void test_init_segs_lent(void **state)
{
	uint8_t a[10], b[20];
	struct pkt_seg segs[2] = {{a, sizeof(a)}, {b, sizeof(b)}};
	struct pkt p;

	(void)state;
	fill(a, 10);
	fill(b, 20);
	assert_int_equal(pkt_init_segs(&p, segs, 2), 0);
	assert_int_equal(p.len, 30);
	assert_null(p.own[0]);
	/* splice must copy out of the lent memory, not write into or free it */
	assert_int_equal(pkt_splice(&p, 0, 1, "xy", 2), 0);
	assert_int_equal(a[0], 3);
	assert_int_equal(p.len, 31);
	assert_int_equal(pkt_linear_data(&p)[0], 'x');
	pkt_release(&p);
	assert_int_equal(pkt_init_segs(&p, segs, PKT_MAX_SEGS + 1), -EINVAL);
}

static void test_addresses(void **state)
{
	union pt_addr a, b, m, n;
	char s[64];

	(void)state;
	assert_int_equal(pt_addr_parse("192.0.2.1", &a), AF_INET);
	assert_int_equal(a.b[3], 1);
	assert_int_equal(a.w[1], 0);
	assert_string_equal(pt_addr_str(AF_INET, &a, s, sizeof(s)), "192.0.2.1");
	assert_int_equal(pt_addr_parse("2001:DB8:0:0::1", &b), AF_INET6);
	assert_string_equal(pt_addr_str(AF_INET6, &b, s, sizeof(s)), "2001:db8::1");
	assert_int_equal(pt_addr_parse("10.0.0.256", &a), 0);
	assert_int_equal(pt_addr_parse("", &a), 0);

	assert_int_equal(pt_mask_from_len(AF_INET, 20, &m), 0);
	assert_int_equal(m.b[2], 0xf0);
	assert_int_equal(pt_mask_len(AF_INET, &m), 20);
	assert_int_equal(pt_mask_from_len(AF_INET, 33, &m), -1);
	assert_int_equal(pt_mask_from_len(AF_INET6, 128, &m), 0);
	assert_int_equal(pt_mask_len(AF_INET6, &m), 128);
	assert_int_equal(pt_mask_from_len(AF_INET6, 0, &m), 0);
	assert_int_equal(pt_mask_len(AF_INET6, &m), 0);
	pt_addr_parse("255.0.255.0", &m);
	assert_int_equal(pt_mask_len(AF_INET, &m), -1);

	pt_addr_parse("10.1.2.3", &a);
	pt_addr_parse("10.1.0.0", &n);
	pt_mask_from_len(AF_INET, 16, &m);
	assert_true(pt_addr_match(&a, &n, &m));
	pt_mask_from_len(AF_INET, 24, &m);
	assert_false(pt_addr_match(&a, &n, &m));
	pt_addr_parse("10.1.2.4", &b);
	assert_true(pt_addr_cmp(&a, &b) < 0);
	assert_true(pt_addr_cmp(&b, &a) > 0);
	assert_false(pt_addr_eq(&a, &b));
	pt_addr_parse("9.255.255.255", &b);
	assert_true(pt_addr_cmp(&b, &a) < 0); /* big-endian order, not byte-sum order */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_header_every_range_every_layout),
	    cmocka_unit_test(test_header_points_into_segment_when_contiguous),
	    cmocka_unit_test(test_store_across_segments),
	    cmocka_unit_test(test_for_each_block),
	    cmocka_unit_test(test_linearize_trim_clone),
	    cmocka_unit_test(test_reframe),
	    cmocka_unit_test(test_splice),
	    cmocka_unit_test(test_init_segs_lent),
	    cmocka_unit_test(test_addresses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

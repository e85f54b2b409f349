// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pkt_hash: SipHash-2-4's published answers (the paper's key 00..0f, messages 00.. of length
 * 0 and 15), SipHash-1-3's (pkt_hash13) and its word form, and the box's hash key: two boxes with
 * different seeds place the same keys in different buckets (so nobody can precompute addresses that
 * all land in one chain of hashlimit or connlimit), the same seed places them the same way (the
 * simulator stays deterministic), and the key is what extensions get through the box's ext_env.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "engine/box.h"
#include "pkt/hash.h"
#include "rules/ext.h"

static uint64_t le64(const uint8_t b[8])
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

static void test_reference_vectors(void **state)
{
	/* SipHash-2-4 paper, appendix A and the reference vectors.h (little-endian bytes) */
	static const uint8_t want[][8] = {
	    [0] = {0x31, 0x0e, 0x0e, 0xdd, 0x47, 0xdb, 0x6f, 0x72},
	    [15] = {0xe5, 0x45, 0xbe, 0x49, 0x61, 0xca, 0x29, 0xa1},
	};
	uint8_t kb[16], msg[16];
	uint64_t key[2];

	(void)state;
	for (unsigned i = 0; i < 16; i++)
		kb[i] = msg[i] = (uint8_t)i;
	key[0] = le64(kb);
	key[1] = le64(kb + 8);
	assert_int_equal(pkt_hash(key, msg, 0), le64(want[0]));
	assert_int_equal(pkt_hash(key, msg, 15), le64(want[15]));
}

/*
 * pkt_hash13 (SipHash-1-3): answers published with an independent implementation (the
 * digest-sip_hash crate's tests: zero key, the 64-bit value), and pkt_hash13_words, the
 * unrolled form conntrack uses, agrees with it on whole words of every length it is used at.
 */
static void test_siphash13(void **state)
{
	const uint64_t zero[2] = {0, 0};
	uint64_t key[2] = {0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull}, w[5];

	(void)state;
	assert_int_equal(pkt_hash13(zero, "", 0), 0xd1fba762150c532cull);
	assert_int_equal(pkt_hash13(zero, "siphash", 7), 0x8264ceeccb16bcbeull);
	/* not 2-4 under another name */
	assert_int_not_equal(pkt_hash13(key, "siphash", 7), pkt_hash(key, "siphash", 7));
	for (unsigned i = 0; i < 5; i++)
		w[i] = 0x0123456789abcdefull * (i + 1) ^ (uint64_t)i << 60;
	for (unsigned n = 0; n <= 5; n++) {
		uint8_t bytes[40];

		for (unsigned i = 0; i < n; i++)
			for (unsigned b = 0; b < 8; b++)
				bytes[8 * i + b] = (uint8_t)(w[i] >> (8 * b)); /* little-endian */
		assert_int_equal(pkt_hash13_words(key, w, n), pkt_hash13(key, bytes, 8 * n));
	}
}

/* The bucket of each of n source addresses (a hashlimit/connlimit-like key) under key. */
static void place(const uint64_t key[2], uint32_t *bucket, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		union pt_addr a;

		memset(&a, 0, sizeof(a));
		a.b[0] = 198, a.b[1] = 51, a.b[2] = (uint8_t)(i >> 8), a.b[3] = (uint8_t)i;
		bucket[i] = pkt_hash_bucket(pkt_hash(key, &a, sizeof(a)), 1024);
	}
}

static void box_key(struct box *b, uint64_t key[2])
{
	uint64_t from_env[2];

	memcpy(key, box_hash_key(b), 2 * sizeof(uint64_t));
	ext_env_hash_key(box_ext_env(b), from_env);
	assert_memory_equal(key, from_env, sizeof(from_env));
}

static void test_seeds_place_differently(void **state)
{
	static const struct box_ops ops;
	struct box *b1 = box_new("one", &ops, NULL), *b2 = box_new("two", &ops, NULL);
	struct box *b3 = box_new("three", &ops, NULL);
	uint64_t k1[2], k2[2], k3[2];
	uint32_t p1[256], p2[256], p3[256];
	unsigned same = 0;

	(void)state;
	assert_non_null(b1);
	assert_non_null(b2);
	assert_non_null(b3);
	box_seed(b1, 1);
	box_seed(b2, 2);
	box_seed(b3, 1);
	box_key(b1, k1);
	box_key(b2, k2);
	box_key(b3, k3);
	place(k1, p1, 256);
	place(k2, p2, 256);
	place(k3, p3, 256);

	/* the same seed: the same key, the same placement */
	assert_memory_equal(k1, k3, sizeof(k1));
	assert_memory_equal(p1, p3, sizeof(p1));
	/* another seed: another key, and the keys scatter differently (by chance about 1 in
	 * 1024 lands in the same bucket; 16 of 256 would be a hash that ignores its key) */
	assert_memory_not_equal(k1, k2, sizeof(k1));
	for (unsigned i = 0; i < 256; i++)
		same += p1[i] == p2[i];
	assert_true(same < 16);
	box_free(b1);
	box_free(b2);
	box_free(b3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reference_vectors),
	    cmocka_unit_test(test_siphash13),
	    cmocka_unit_test(test_seeds_place_differently),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

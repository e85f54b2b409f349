/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one hash of pkttables: SipHash (Aumasson & Bernstein), keyed: 2-4 (pkt_hash), and 1-3
 * (pkt_hash13) for the per-packet lookups of conntrack and NAT. Every table whose keys
 * come from packets (conntrack, fragment queues, NAT, hashlimit, connlimit, neighbours) hashes
 * with it under a key of its box, so nobody who picks addresses or ports can aim them all at
 * one bucket, and two boxes place the same keys differently.
 *
 * Inline, so that a fixed-length key (the conntrack tuple, 40 bytes) compiles to its rounds
 * with the length folded in.
 */
#ifndef PKT_HASH_H
#define PKT_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t pkt_hash_rotl(uint64_t x, unsigned b)
{
	return x << b | x >> (64 - b);
}

static inline void pkt_hash_round(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = pkt_hash_rotl(v[1], 13) ^ v[0];
	v[0] = pkt_hash_rotl(v[0], 32);
	v[2] += v[3];
	v[3] = pkt_hash_rotl(v[3], 16) ^ v[2];
	v[0] += v[3];
	v[3] = pkt_hash_rotl(v[3], 21) ^ v[0];
	v[2] += v[1];
	v[1] = pkt_hash_rotl(v[1], 17) ^ v[2];
	v[2] = pkt_hash_rotl(v[2], 32);
}

/*
 * pkt_siphash - SipHash-c-d of len bytes at data (any alignment) under the 128-bit key
 * {key[0], key[1]} (key[0] holds the key's first 8 bytes, little-endian): c rounds per 8-byte
 * block, d at the end. Words are read in host order: on a little-endian host the result is the
 * reference SipHash. Callers use pkt_hash (2-4) or pkt_hash13 (1-3); c and d are constants there,
 * so the loops unroll.
 */
static inline uint64_t pkt_siphash(const uint64_t key[2], const void *data, size_t len, unsigned c,
				   unsigned d)
{
	uint64_t v[4] = {key[0] ^ 0x736f6d6570736575ull, key[1] ^ 0x646f72616e646f6dull,
			 key[0] ^ 0x6c7967656e657261ull, key[1] ^ 0x7465646279746573ull};
	const uint8_t *in = data;
	uint64_t m, last = (uint64_t)len << 56;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&m, in + i, 8);
		v[3] ^= m;
		for (unsigned r = 0; r < c; r++)
			pkt_hash_round(v);
		v[0] ^= m;
	}
	for (size_t k = 0; i + k < len; k++)
		last |= (uint64_t)in[i + k] << (8 * k);
	v[3] ^= last;
	for (unsigned r = 0; r < c; r++)
		pkt_hash_round(v);
	v[0] ^= last;
	v[2] ^= 0xff;
	for (unsigned r = 0; r < d; r++)
		pkt_hash_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/* pkt_hash - SipHash-2-4 (the paper's recommendation for a PRF). Returns the 64-bit hash. */
static inline uint64_t pkt_hash(const uint64_t key[2], const void *data, size_t len)
{
	return pkt_siphash(key, data, len, 2, 4);
}

/*
 * pkt_hash13 - SipHash-1-3: the same keyed construction with one round per block and three at
 * the end, about half the rounds of 2-4 on a short key. For the per-packet lookups of hash
 * tables (conntrack, NAT), where the output never leaves the box and an attacker learns at
 * most timing of chain lengths: what matters is that the key is secret and per box, so bucket
 * flooding needs the key (the trade Linux makes with hsiphash and Rust's HashMap with 1-3).
 */
static inline uint64_t pkt_hash13(const uint64_t key[2], const void *data, size_t len)
{
	return pkt_siphash(key, data, len, 1, 3);
}

/*
 * The SipHash state once the key is loaded (the four words before the first block): a
 * property of the key alone, so a table that hashes many keys under one key computes it once
 * (pkt_hash13_init) and starts each hash from it (pkt_hash13_words_from). The result is the
 * same SipHash-1-3 value; only the key's four XORs with the constants move out of the
 * per-packet path.
 */
struct pkt_hash_state {
	uint64_t v[4];
};

static inline void pkt_hash13_init(struct pkt_hash_state *s, const uint64_t key[2])
{
	s->v[0] = key[0] ^ 0x736f6d6570736575ull;
	s->v[1] = key[1] ^ 0x646f72616e646f6dull;
	s->v[2] = key[0] ^ 0x6c7967656e657261ull;
	s->v[3] = key[1] ^ 0x7465646279746573ull;
}

/*
 * pkt_hash13_words_from - pkt_hash13 of n 64-bit words (a message of 8 * n bytes, each word read
 * in host order: on a little-endian host the same value as pkt_hash13(key, w, 8 * n)) from the
 * key's state s. For keys built in registers (the conntrack tuple): with n a constant
 * everything unrolls, no byte loop.
 */
static inline __attribute__((always_inline)) uint64_t
pkt_hash13_words_from(const struct pkt_hash_state *s, const uint64_t *w, unsigned n)
{
	uint64_t v[4] = {s->v[0], s->v[1], s->v[2], s->v[3]};
	const uint64_t last = (uint64_t)(8 * n) << 56;

	for (unsigned i = 0; i < n; i++) {
		v[3] ^= w[i];
		pkt_hash_round(v);
		v[0] ^= w[i];
	}
	v[3] ^= last;
	pkt_hash_round(v);
	v[0] ^= last;
	v[2] ^= 0xff;
	pkt_hash_round(v);
	pkt_hash_round(v);
	pkt_hash_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/* pkt_hash13_words_from under the key itself (its state computed on the spot). */
static inline __attribute__((always_inline)) uint64_t
pkt_hash13_words(const uint64_t key[2], const uint64_t *w, unsigned n)
{
	struct pkt_hash_state s;

	pkt_hash13_init(&s, key);
	return pkt_hash13_words_from(&s, w, n);
}

/* A bucket in [0, n) for the hash h, without a division (n need not be a power of two). */
static inline uint32_t pkt_hash_bucket(uint64_t h, uint32_t n)
{
	return (uint32_t)(((h >> 32) * n) >> 32);
}

#endif

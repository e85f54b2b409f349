/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one hash of pkttables: SipHash-2-4 (Aumasson & Bernstein), keyed. Every table whose keys
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
 * pkt_hash - SipHash-2-4 of len bytes at data (any alignment) under the 128-bit key
 * {key[0], key[1]} (key[0] holds the key's first 8 bytes, little-endian).
 * Returns the 64-bit hash. Words are read in host order: on a little-endian host the result
 * is the reference SipHash-2-4.
 */
static inline uint64_t pkt_hash(const uint64_t key[2], const void *data, size_t len)
{
	uint64_t v[4] = {key[0] ^ 0x736f6d6570736575ull, key[1] ^ 0x646f72616e646f6dull,
			 key[0] ^ 0x6c7967656e657261ull, key[1] ^ 0x7465646279746573ull};
	const uint8_t *in = data;
	uint64_t m, last = (uint64_t)len << 56;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&m, in + i, 8);
		v[3] ^= m;
		pkt_hash_round(v);
		pkt_hash_round(v);
		v[0] ^= m;
	}
	for (size_t k = 0; i + k < len; k++)
		last |= (uint64_t)in[i + k] << (8 * k);
	v[3] ^= last;
	pkt_hash_round(v);
	pkt_hash_round(v);
	v[0] ^= last;
	v[2] ^= 0xff;
	for (unsigned r = 0; r < 4; r++)
		pkt_hash_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/* A bucket in [0, n) for the hash h, without a division (n need not be a power of two). */
static inline uint32_t pkt_hash_bucket(uint64_t h, uint32_t n)
{
	return (uint32_t)(((h >> 32) * n) >> 32);
}

#endif

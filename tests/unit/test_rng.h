/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The random tests' xorshift64 generator, fixed seed: a failing run repeats exactly. */
#ifndef TESTS_UNIT_TEST_RNG_H
#define TESTS_UNIT_TEST_RNG_H

#include <stdint.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static inline uint32_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

#endif

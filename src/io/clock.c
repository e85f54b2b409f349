// SPDX-License-Identifier: GPL-2.0-or-later
/* Time and seed for live boxes (clock.h). */
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "engine/box.h"
#include "io/clock.h"

uint64_t io_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double io_monotonic_s(void)
{
	return (double)io_monotonic_ns() / 1e9;
}

uint64_t io_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void io_seed_box(struct box *b)
{
	uint64_t seed;

	if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
		seed = io_monotonic_ns() ^ (uint64_t)getpid() << 32;
	box_seed(b, seed);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rates as -m limit and -m hashlimit spell, store and print them, and the kernel's clock unit.
 *
 *   "25/minute" -> period = scale * 60 / 25   (scale: 10000 for limit, 1000000 for hashlimit)
 *   the unit is any case-insensitive prefix of second, minute, hour, day; none means /second.
 *   printed back with the largest unit that still gives an integer count without losing more
 *   than the remainder (iptables' rule), e.g. period for 60/min prints as 1/sec.
 */
#ifndef EXT_RATE_H
#define EXT_RATE_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The reference kernel's CONFIG_HZ; a jiffy is 1/HZ s of the box clock. */
#define EXT_RATE_HZ 250u
#define LIMIT_SCALE 10000u
/* xt_limit: the largest power of two below 2^32 / (HZ * seconds per day): 128 at HZ 250 */
#define LIMIT_CPJ 128u

static inline uint64_t ext_rate_jiffies(uint64_t now_ns)
{
	return now_ns / (1000000000ull / EXT_RATE_HZ);
}

/*
 * Parse "N[/unit]" into the period at `scale`; *mult gets the unit in seconds (hashlimit's
 * default expiry depends on it). 0, or -EINVAL. *period may be 0: the rate is too fast.
 */
static inline int ext_rate_parse(const char *s, unsigned *mult, uint64_t *period, uint64_t scale)
{
	static const struct {
		const char *name;
		unsigned secs;
	} units[] = { { "second", 1 }, { "minute", 60 }, { "hour", 3600 }, { "day", 86400 } };
	const char *slash = strchr(s, '/');
	unsigned long long n;
	char *end;

	*mult = 1;
	if (slash) {
		size_t ulen = strlen(slash + 1);
		unsigned i;

		if (ulen == 0)
			return -EINVAL;
		for (i = 0; i < 4; i++)
			if (strncasecmp(slash + 1, units[i].name, ulen) == 0)
				break;
		if (i == 4)
			return -EINVAL;
		*mult = units[i].secs;
	}
	/* iptables reads the count with atoi/strtoull: leading digits, the rest ignored */
	n = strtoull(s, &end, 10);
	if (n == 0 || s[0] == '-')
		return -EINVAL;
	*period = scale * *mult / n;
	return 0;
}

/* Print "N/unit" for a period at `scale`; returns the printed unit in milliseconds. */
static inline uint64_t ext_rate_print(FILE *f, uint64_t period, uint64_t scale)
{
	const struct {
		const char *name;
		uint64_t mult;
	} rates[] = {
		{ "day", scale * 86400 }, { "hour", scale * 3600 }, { "min", scale * 60 },
		{ "sec", scale },
	};
	unsigned i;

	if (period == 0) {
		fprintf(f, "inf");
		return 0;
	}
	for (i = 1; i < 4; i++)
		if (period > rates[i].mult || rates[i].mult / period < rates[i].mult % period)
			break;
	fprintf(f, "%llu/%s", (unsigned long long)(rates[i - 1].mult / period), rates[i - 1].name);
	return rates[i - 1].mult / scale * 1000;
}

#endif

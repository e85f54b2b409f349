// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * struct nat_config by name: what `nat set NAME VALUE` and `nat show` read and print
 * (src/engine/setup.c). One table, as conntrack's settings: name, field, unit, range.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "nat/nat_int.h"

#define NAT_SEC	 UINT64_C(1000000000)
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

enum set_kind { K_U32, K_SECONDS };

static const struct {
	const char *name;
	size_t off;
	enum set_kind kind;
	uint64_t min, max; /* in the unit given (seconds for K_SECONDS) */
} settings[] = {
    {"max_mappings", offsetof(struct nat_config, max_mappings), K_U32, 1, 1u << 24},
    {"max_pools", offsetof(struct nat_config, max_pools), K_U32, 1, 1u << 20},
    {"udp_timeout", offsetof(struct nat_config, udp_timeout), K_SECONDS, 120, 1u << 30},
    {"tcp_timeout", offsetof(struct nat_config, tcp_timeout), K_SECONDS, 1, 1u << 30},
    {"icmp_timeout", offsetof(struct nat_config, icmp_timeout), K_SECONDS, 1, 1u << 30},
    {"other_timeout", offsetof(struct nat_config, other_timeout), K_SECONDS, 1, 1u << 30},
    {"tcp_transitory_timeout", offsetof(struct nat_config, tcp_transitory_timeout), K_SECONDS, 0,
     1u << 30},
    {"syn_hold_timeout", offsetof(struct nat_config, syn_hold_timeout), K_SECONDS, 0, 1u << 30},
    {"syn_hold_max", offsetof(struct nat_config, syn_hold_max), K_U32, 1, 1u << 16},
};

int nat_config_set(struct nat_config *c, const char *name, const char *value)
{
	char *end;
	unsigned long long v;

	for (size_t i = 0; i < NELEM(settings); i++) {
		void *p = (char *)c + settings[i].off;

		if (strcmp(settings[i].name, name))
			continue;
		if (!*value || *value == '-')
			return -EINVAL;
		errno = 0;
		v = strtoull(value, &end, 10);
		if (*end || errno)
			return -EINVAL;
		if (v < settings[i].min || v > settings[i].max)
			return -ERANGE;
		/* RFC 5382 REQ-4: at least 6 s, or 0 (never answered) */
		if (settings[i].off == offsetof(struct nat_config, syn_hold_timeout) && v && v < 6)
			return -ERANGE;
		if (settings[i].kind == K_U32)
			*(uint32_t *)p = (uint32_t)v;
		else
			*(uint64_t *)p = (uint64_t)v * NAT_SEC;
		return 0;
	}
	return -ENOENT;
}

void nat_config_print(const struct nat_config *c, FILE *f)
{
	for (size_t i = 0; i < NELEM(settings); i++) {
		const void *p = (const char *)c + settings[i].off;

		if (settings[i].kind == K_U32)
			fprintf(f, "%s = %" PRIu32 "\n", settings[i].name, *(const uint32_t *)p);
		else
			fprintf(f, "%s = %" PRIu64 "\n", settings[i].name,
				(uint64_t)(*(const uint64_t *)p / NAT_SEC));
	}
}

const struct nat_config *nat_table_config(const struct nat_table *n)
{
	return &n->cfg;
}

void nat_table_set_config(struct nat_table *n, const struct nat_config *c)
{
	n->cfg = *c;
	if (!n->cfg.max_mappings)
		n->cfg.max_mappings = 1;
	if (n->cfg.udp_timeout < 120 * NAT_SEC) /* RFC 4787 REQ-5 */
		n->cfg.udp_timeout = 120 * NAT_SEC;
}

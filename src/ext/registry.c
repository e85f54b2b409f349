/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The default registry: every extension pkttables has, in one constant table built by the
 * compiler from ext/registry.inc (one M(name) or T(name) line per extension). Nothing here
 * is written at run time.
 */
#include <stddef.h>

#include "rules/ext.h"

#define M(n) extern const struct ext_match ext_match_##n;
#define T(n) extern const struct ext_target ext_target_##n;
#include "ext/registry.inc"
#undef M
#undef T

#define M(n) &ext_match_##n,
#define T(n)
static const struct ext_match *const all_matches[] = {
#include "ext/registry.inc"
};
#undef M
#undef T

#define M(n)
#define T(n) &ext_target_##n,
static const struct ext_target *const all_targets[] = {
#include "ext/registry.inc"
};
#undef M
#undef T

static const struct ext_registry default_registry = {
	.matches = all_matches,
	.nmatches = sizeof(all_matches) / sizeof(all_matches[0]),
	.targets = all_targets,
	.ntargets = sizeof(all_targets) / sizeof(all_targets[0]),
};

const struct ext_registry *ext_registry_default(void)
{
	return &default_registry;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The default registry: every extension pkttables has, in one static table.
 *
 * During bring-up the entries are weak references, so the tree links while extensions are
 * still being written; ext_registry_default() drops the ones not linked in.
 */
#include <stddef.h>

#include "rules/ext.h"

#define M(n) extern const struct ext_match ext_match_##n __attribute__((weak));
#define T(n) extern const struct ext_target ext_target_##n __attribute__((weak));
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

/* Built once per call into the caller-invisible static const view: the table is constant,
 * only filtered for missing weak symbols. */
struct registry_view {
	const struct ext_match *m[sizeof(all_matches) / sizeof(all_matches[0])];
	const struct ext_target *t[sizeof(all_targets) / sizeof(all_targets[0])];
	struct ext_registry reg;
};

static struct registry_view *registry_build(struct registry_view *v)
{
	unsigned nm = 0, nt = 0;

	for (size_t i = 0; i < sizeof(all_matches) / sizeof(all_matches[0]); i++)
		if (all_matches[i])
			v->m[nm++] = all_matches[i];
	for (size_t i = 0; i < sizeof(all_targets) / sizeof(all_targets[0]); i++)
		if (all_targets[i])
			v->t[nt++] = all_targets[i];
	v->reg.matches = v->m;
	v->reg.nmatches = nm;
	v->reg.targets = v->t;
	v->reg.ntargets = nt;
	return v;
}

const struct ext_registry *ext_registry_default(void)
{
	/* Written once, identically by every caller, then only read: not instance state. */
	static struct registry_view view;
	static int built;

	if (!__atomic_load_n(&built, __ATOMIC_ACQUIRE)) {
		struct registry_view tmp;

		registry_build(&tmp);
		tmp.reg.matches = view.m;
		tmp.reg.targets = view.t;
		view = tmp;
		__atomic_store_n(&built, 1, __ATOMIC_RELEASE);
	}
	return &view.reg;
}

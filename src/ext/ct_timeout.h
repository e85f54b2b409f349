/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CT --timeout against a box's conntrack table: what the kernel checks when the rule is
 * loaded (the policy exists and is for the rule's protocol). Parsing knows no box, so loaders
 * call this between parsing a ruleset and installing it.
 */
#ifndef EXT_CT_TIMEOUT_H
#define EXT_CT_TIMEOUT_H

#include <stddef.h>

struct rules_ruleset;
struct ct_table;

/* 0, or -ENOENT / -EINVAL with a message naming the rule's line. t NULL: no policies. */
int ext_ct_timeout_check(const struct rules_ruleset *rs, const struct ct_table *t, char *err,
			 size_t errlen);

#endif

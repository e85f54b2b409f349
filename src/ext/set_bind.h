/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * -m set and -j SET against a box's sets: what the kernel checks when such a rule is loaded
 * (the set exists, is of the rule's family, has no more dimensions than the rule gives
 * src/dst flags). Parsing knows no box, so loaders call this between parsing a ruleset and
 * installing it; the ruleset's references then hold the sets (ipset destroy refuses them).
 */
#ifndef EXT_SET_BIND_H
#define EXT_SET_BIND_H

struct set_table;
struct rules_ruleset;
struct rules_error;

/* 0, or -ENOENT / -EINVAL with e->line, e->msg and e->token (the set's name) filled; e->file
 * is the caller's. t NULL: no sets (any rule naming one is refused). On success the rules
 * are bound and t counts them as the references of rs->family (replacing that family's
 * previous ones: call it for the ruleset about to be installed). */
int ext_set_bind(struct set_table *t, struct rules_ruleset *rs, struct rules_error *e);

#endif

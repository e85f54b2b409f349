/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Conntrack as a plug-in of the box (src/ct/plugin.c): the one part of src/ct that knows the
 * engine. A box's conntrack table and defragmenter live in its "conntrack" slot, made when
 * tracking is turned on, as Linux loads nf_conntrack per namespace: by a ruleset with a rule
 * whose match or target has needs_conntrack, by ct_box_enable, or by a setup verb
 * ("conntrack set", "ct-timeout"). Once on it stays on, whatever later rulesets hold.
 */
#ifndef CT_CT_PLUGIN_H
#define CT_CT_PLUGIN_H

#include <stdbool.h>

#include "ct/ct.h"
#include "engine/box.h"

extern const struct box_plugin_ops ct_plugin;

/* On: table (hash key from box_random), defragmenter and hooks, then the plug-ins that follow
 * conntrack (NAT). Off: they and the entries are gone. 0 or -ENOMEM/-ENOSPC. Data-path thread,
 * or no packet in flight. */
int ct_box_enable(struct box *b, bool on);
/* The box's conntrack table, NULL while tracking is off. A turn-on a ruleset asked for is
 * applied first, as before a packet (box_plugin_data): call it on the data-path thread. */
struct ct_table *ct_box_table(struct box *b);
/* Its counters, NULL while tracking is off; applies nothing. */
const struct ct_stats *ct_box_stats(const struct box *b);

#endif

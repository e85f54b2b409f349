/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * NAT as a plug-in of the box (src/nat/plugin.c, helper_attach.c): the files of src/nat that
 * know the engine. It follows conntrack: on right after it, off right before it.
 */
#ifndef NAT_NAT_PLUGIN_H
#define NAT_NAT_PLUGIN_H

#include <stdio.h>

#include "ct/ct.h"
#include "engine/box.h"
#include "nat/nat.h"

extern const struct box_plugin_ops nat_plugin;

/* The box's NAT table, NULL while tracking (and so NAT) is off; applies nothing. */
struct nat_table *nat_box_table(const struct box *b);
/* The NAT settings (`nat show`: "name = value" lines, nat_config_print). -ENOENT while
 * tracking is off (no NAT table). */
int nat_box_print_config(FILE *f, struct box *b);

/* The NAT helpers (FTP, TFTP, IRC: ct_helper_set_nat) and the sequence adjustment hooks
 * (POSTROUTING, INPUT at 301) of n (helper_attach.c). 0 or -ENOSPC/-ENOMEM. Detach before
 * the NAT table goes. */
int nat_helpers_attach(struct box *b, struct nat_table *n, struct ct_table *ct);
void nat_helpers_detach(struct box *b, struct nat_table *n, struct ct_table *ct);

#endif

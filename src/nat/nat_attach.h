/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * NAT hooked into a box (src/nat/attach.c): the engine attaches it with conntrack.
 */
#ifndef NAT_NAT_ATTACH_H
#define NAT_NAT_ATTACH_H

#include "ct/ct.h"
#include "engine/box.h"
#include "nat/nat.h"

/* A NAT table for the box's conntrack table, with its hooks (PREROUTING/OUTPUT at
 * BOX_PRIO_NAT_DST + 1, POSTROUTING/INPUT at BOX_PRIO_NAT_SRC + 1) registered for both
 * families. NULL (errno) on failure. Detach before the conntrack table is freed. */
struct nat_table *nat_attach(struct box *b, struct ct_table *ct);
void nat_detach(struct box *b, struct nat_table *n);

/* The NAT helpers (FTP, TFTP: ct_helper_set_nat) and the sequence adjustment hooks
 * (POSTROUTING, INPUT at 301) of n (src/nat/helper_attach.c). 0 or -ENOSPC/-ENOMEM. Detach
 * before nat_detach. */
int nat_helpers_attach(struct box *b, struct nat_table *n, struct ct_table *ct);
void nat_helpers_detach(struct box *b, struct nat_table *n, struct ct_table *ct);

#endif

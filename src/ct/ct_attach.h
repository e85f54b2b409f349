/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Conntrack hooked into a box (the one file of src/ct that knows the engine).
 */
#ifndef CT_CT_ATTACH_H
#define CT_CT_ATTACH_H

#include "ct/ct.h"
#include "engine/box.h"

/* Register the tracking hooks (PREROUTING/OUTPUT at BOX_PRIO_CONNTRACK) and the confirmation
 * hooks (INPUT/POSTROUTING at BOX_PRIO_CONFIRM) for both families. 0 or -ENOSPC. Called by the
 * box (box_set_conntrack) for its own table, which drops packets' references through
 * box_pkt_release: use box_set_conntrack and box_ct rather than attaching another table. */
int ct_attach(struct box *b, struct ct_table *ct);
void ct_detach(struct box *b, struct ct_table *ct);

#endif

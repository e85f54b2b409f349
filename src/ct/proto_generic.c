// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The generic tracker: protocols without their own (ESP, AH, ...) are tracked
 * by addresses and protocol number only, with one timeout (600 s, nf_conntrack_generic).
 */
#include "ct/ct_int.h"

static int generic_pkt_to_tuple(const struct pkt *p, uint32_t off, uint32_t len, struct ct_tuple *t)
{
	return 0;
}

static int generic_invert(struct ct_tuple *reply, const struct ct_tuple *orig)
{
	return 0;
}

static bool generic_new(struct ct_table *t, struct ct_entry *e, const struct pkt *p, uint64_t now)
{
	return true;
}

static enum ct_verdict generic_packet(struct ct_table *t, struct ct_entry *e, const struct pkt *p,
				      enum ct_dir dir, uint64_t now)
{
	ct_refresh(e, now, ct_timeouts_of(t, e)->generic);
	return CT_ACCEPT;
}

const struct ct_proto_ops ct_proto_generic = {
    .l4proto = 0,
    .name = "unknown",
    .pkt_to_tuple = generic_pkt_to_tuple,
    .invert = generic_invert,
    .new_conn = generic_new,
    .packet = generic_packet,
};

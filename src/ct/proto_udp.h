/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The UDP tracker's per-packet parts (proto_udp.c), inline so that ct_in calls them directly
 * for a UDP packet, the most common protocol after TCP, without two indirect calls and their
 * stack frames. ct_proto_udp's error and packet are the same functions.
 */
#ifndef CT_PROTO_UDP_H
#define CT_PROTO_UDP_H

#include <errno.h>

#include "ct/ct_int.h"

#define CT_UDP_STREAM_DELAY (2 * CT_SEC)

/*
 * The header checks of UDP (lite false) and UDP-Lite: the length field (UDP) or checksum
 * coverage (UDP-Lite) must fit the datagram, as Linux checks them, then the checksum on
 * packets from outside. 0 or -EINVAL. Out of line: the general form.
 */
int ct_udp_check(const struct ct_table *t, struct pkt *p, bool from_outside, bool lite);

/* UDP's error(): ct_udp_check with the header read where it lies when it is in the first
 * segment (nearly always), without a stack frame; the rest by ct_udp_check itself.
 * test_ct_hot.c compares the two. */
static inline int ct_udp_error(const struct ct_table *t, struct pkt *p, bool from_outside)
{
	const struct pkt_info *in = &p->info;

	if (in->has_l4 && in->l4len >= 8 && pkt_in_seg0(p, in->l4off, 8)) {
		const uint8_t *h = p->seg[0].data + in->l4off;
		uint32_t len = (uint32_t)h[4] << 8 | h[5];

		if (len > in->l4len || len < 8)
			return -EINVAL;
		if (from_outside && t->cfg.checksum && !pkt_l4_csum_check(p))
			return -EINVAL;
		return 0;
	}
	return ct_udp_check(t, p, from_outside, false);
}

/*
 * UDP's and UDP-Lite's packet(), as nf_conntrack_proto_udp does it: no reply yet, or replied
 * within 2 s of creation: udp_unreplied (30 s); replied and still active more than 2 s after
 * creation: udp_replied (120 s), ASSURED.
 */
static inline enum ct_verdict ct_udp_packet(struct ct_table *t, struct ct_entry *e, uint64_t now)
{
	const struct ct_timeouts *to = ct_timeouts_of(t, e);

	/* SEEN_REPLY is set after this runs, so the first reply still gets the short timeout */
	if (e->status & CT_S_SEEN_REPLY) {
		if (now > e->proto.udp.stream_ts) {
			ct_refresh(e, now, to->udp_replied);
			ct_set_status(t, e, CT_S_ASSURED, CT_EV_ASSURED);
		} else {
			ct_refresh(e, now, to->udp_unreplied);
		}
	} else {
		ct_refresh(e, now, to->udp_unreplied);
	}
	return CT_ACCEPT;
}

#endif

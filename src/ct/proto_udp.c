// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * UDP tracking, as nf_conntrack_proto_udp does it:
 *   no reply yet, or replied within 2 s of creation      -> udp_unreplied (30 s)
 *   replied, and still active more than 2 s after creation -> udp_replied (120 s), ASSURED
 * Bad checksums (checked on packets from outside) and truncated headers are INVALID.
 *
 *    0      7 8     15 16    23 24    31
 *   +--------+--------+--------+--------+
 *   |   source port   |    dest port    |
 *   +--------+--------+--------+--------+
 *   |     length      |    checksum     |
 *   +--------+--------+--------+--------+
 */
#include <errno.h>

#include "ct/ct_int.h"

#define UDP_STREAM_DELAY (2 * CT_SEC)

static int udp_pkt_to_tuple(const struct pkt *p, uint32_t off, uint32_t len, struct ct_tuple *t)
{
	uint8_t buf[4];
	const uint8_t *h;

	if (len < 8 || !(h = pkt_header(p, off, 4, buf)))
		return -EINVAL;
	t->s.port = (uint16_t)(h[0] << 8 | h[1]);
	t->d.port = (uint16_t)(h[2] << 8 | h[3]);
	return 0;
}

static int udp_invert(struct ct_tuple *reply, const struct ct_tuple *orig)
{
	reply->s.port = orig->d.port;
	reply->d.port = orig->s.port;
	return 0;
}

static int udp_error(struct ct_table *t, struct pkt *p, bool from_outside, uint16_t zone,
		     uint64_t now)
{
	uint8_t buf[8];
	const uint8_t *h;
	uint16_t udplen;

	if (!p->info.has_l4 || p->info.l4len < 8 || !(h = pkt_header(p, p->info.l4off, 8, buf)))
		return -EINVAL;
	/* the length field must fit the datagram (as Linux: longer or < 8 is malformed) */
	udplen = (uint16_t)(h[4] << 8 | h[5]);
	if (udplen > p->info.l4len || udplen < 8)
		return -EINVAL;
	if (from_outside && t->cfg.checksum && !pkt_l4_csum_ok(p))
		return -EINVAL;
	return 0;
}

static bool udp_new(struct ct_table *t, struct ct_entry *e, const struct pkt *p, uint64_t now)
{
	e->proto.udp.stream_ts = now + UDP_STREAM_DELAY;
	return true;
}

static enum ct_verdict udp_packet(struct ct_table *t, struct ct_entry *e, const struct pkt *p,
				  enum ct_dir dir, uint64_t now)
{
	const struct ct_timeouts *to = &t->cfg.timeouts;

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

const struct ct_proto_ops ct_proto_udp = {
    .l4proto = 17,
    .name = "udp",
    .pkt_to_tuple = udp_pkt_to_tuple,
    .invert = udp_invert,
    .error = udp_error,
    .new_conn = udp_new,
    .packet = udp_packet,
    .print_tuple = ct_print_ports,
};

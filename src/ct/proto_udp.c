// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * UDP tracking, as nf_conntrack_proto_udp does it:
 *   no reply yet, or replied within 2 s of creation      -> udp_unreplied (30 s)
 *   replied, and still active more than 2 s after creation -> udp_replied (120 s), ASSURED
 * Bad checksums (checked on packets from outside) and truncated headers are INVALID.
 * UDP-Lite (RFC 3828) is tracked the same way with the same timeouts, as Linux does; its length
 * field is the checksum coverage (0: everything, else 8..datagram), and a checksum is mandatory.
 *
 *    0      7 8     15 16    23 24    31
 *   +--------+--------+--------+--------+
 *   |   source port   |    dest port    |
 *   +--------+--------+--------+--------+
 *   |     length      |    checksum     |
 *   +--------+--------+--------+--------+
 */
#include "ct/proto_udp.h"

int ct_udp_check(const struct ct_table *t, struct pkt *p, bool from_outside, bool lite)
{
	uint8_t buf[8];
	const uint8_t *h;
	uint16_t len;

	if (!p->info.has_l4 || p->info.l4len < 8 || !(h = pkt_header(p, p->info.l4off, 8, buf)))
		return -EINVAL;
	len = (uint16_t)(h[4] << 8 | h[5]);
	if (lite && len == 0)
		len = (uint16_t)(p->info.l4len < 0xffff ? p->info.l4len : 0xffff);
	if (len > p->info.l4len || len < 8)
		return -EINVAL;
	if (lite && !h[6] && !h[7])
		return -EINVAL; /* UDP-Lite has no "no checksum" */
	if (from_outside && t->cfg.checksum && !pkt_l4_csum_check(p))
		return -EINVAL;
	return 0;
}

static int udp_error(struct ct_table *t, struct pkt *p, bool from_outside, uint16_t zone,
		     uint64_t now)
{
	return ct_udp_error(t, p, from_outside);
}

static int udplite_error(struct ct_table *t, struct pkt *p, bool from_outside, uint16_t zone,
			 uint64_t now)
{
	return ct_udp_check(t, p, from_outside, true);
}

static bool udp_new(struct ct_table *t, struct ct_entry *e, const struct pkt *p, uint64_t now)
{
	e->proto.udp.stream_ts = now + CT_UDP_STREAM_DELAY;
	return true;
}

static enum ct_verdict udp_packet(struct ct_table *t, struct ct_entry *e, const struct pkt *p,
				  enum ct_dir dir, uint64_t now)
{
	return ct_udp_packet(t, e, now);
}

const struct ct_proto_ops ct_proto_udp = {
    .l4proto = 17,
    .name = "udp",
    .pkt_to_tuple = ct_ports_to_tuple,
    .invert = ct_ports_invert,
    .error = udp_error,
    .new_conn = udp_new,
    .packet = udp_packet,
    .print_tuple = ct_print_ports,
};

const struct ct_proto_ops ct_proto_udplite = {
    .l4proto = 136,
    .name = "udplite",
    .pkt_to_tuple = ct_ports_to_tuple,
    .invert = ct_ports_invert,
    .error = udplite_error,
    .new_conn = udp_new,
    .packet = udp_packet,
    .print_tuple = ct_print_ports,
};

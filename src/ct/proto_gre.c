// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * GRE tracking: one entry per tunnel, 30 s until both directions were seen, then 180 s and
 * ASSURED (Linux's nf_conntrack_proto_gre timeouts and behaviour per entry).
 *
 *    0                   1                   2                   3
 *   +-+-+-+-+-+-----+-+---------+-----+-------------------------------+
 *   |C|R|K|S|s|Recur|A|  flags  | ver |         Protocol Type         |
 *   +-+-+-+-+-+-----+-+---------+-----+-------------------------------+
 *   |    [Checksum (C or R)]          |    [Reserved / Offset]        |
 *   +---------------------------------+-------------------------------+
 *   ver 0: [Key (K), 32 bits: RFC 2890]            [Sequence (S)]
 *   ver 1 (PPTP, RFC 2637): Payload Length (16) | Call ID (16), in the key's place; [seq] [ack]
 *
 * The tuple's two 16-bit fields are the source and destination keys, printed as conntrack
 * prints them (srckey=0x.. dstkey=0x..):
 *   version 1: destination key = the Call ID, source key 0 (as Linux without the PPTP helper,
 *     which would learn the peer's Call ID from the control connection: each direction of a
 *     PPTP call is then an entry of its own, as in Linux); a protocol other than PPP
 *     (0x880b) is INVALID.
 *   version 0 (and versions 2-7), with or without a key: both 0, one entry per address
 *     pair, as Linux has it. RFC 2890 keys are per direction, so a tunnel configured with
 *     ikey != okey would never see its reply if the key were part of the tuple; Linux ignores
 *     version 0 keys and so does pkttables. A key announced but cut off is still INVALID.
 */
#include <errno.h>
#include <stdio.h>

#include "ct/ct_int.h"

#define GRE_C	    0x8000
#define GRE_R	    0x4000
#define GRE_K	    0x2000
#define GRE_VERSION 0x0007
#define GRE_PPP	    0x880b

static int gre_pkt_to_tuple(const struct pkt *p, uint32_t off, uint32_t len, struct ct_tuple *t)
{
	uint8_t buf[12];
	const uint8_t *h;
	uint16_t flags;
	unsigned koff;

	t->s.all = 0;
	t->d.all = 0;
	if (len < 4 || !(h = pkt_header(p, off, len < 12 ? len : 12, buf)))
		return 0; /* too short to say more: by addresses alone */
	flags = (uint16_t)(h[0] << 8 | h[1]);
	switch (flags & GRE_VERSION) {
	case 1:
		if (len < 8)
			return 0;
		if ((uint16_t)(h[2] << 8 | h[3]) != GRE_PPP)
			return -EINVAL;
		t->d.all = (uint16_t)(h[6] << 8 | h[7]);
		return 0;
	case 0:
		if (!(flags & GRE_K))
			return 0;
		koff = (flags & (GRE_C | GRE_R)) ? 8 : 4;
		if (len < koff + 4)
			return -EINVAL; /* the key is announced but not there */
		return 0; /* the key is not part of the tuple (see above) */
	}
	return 0;
}

static int gre_invert(struct ct_tuple *reply, const struct ct_tuple *orig)
{
	reply->s.all = orig->d.all;
	reply->d.all = orig->s.all;
	return 0;
}

static bool gre_new(struct ct_table *t, struct ct_entry *e, const struct pkt *p, uint64_t now)
{
	return true;
}

static enum ct_verdict gre_packet(struct ct_table *t, struct ct_entry *e, const struct pkt *p,
				  enum ct_dir dir, uint64_t now)
{
	/* SEEN_REPLY is set after this runs: the first reply still gets the short timeout */
	if (e->status & CT_S_SEEN_REPLY) {
		ct_refresh(e, now, ct_timeouts_of(t, e)->gre_replied);
		ct_set_status(t, e, CT_S_ASSURED, CT_EV_ASSURED);
	} else {
		ct_refresh(e, now, ct_timeouts_of(t, e)->gre_unreplied);
	}
	return CT_ACCEPT;
}

static int gre_print_tuple(char *buf, size_t len, const struct ct_tuple *t)
{
	return snprintf(buf, len, " srckey=0x%x dstkey=0x%x", t->s.all, t->d.all);
}

const struct ct_proto_ops ct_proto_gre = {
    .l4proto = 47,
    .name = "gre",
    .pkt_to_tuple = gre_pkt_to_tuple,
    .invert = gre_invert,
    .new_conn = gre_new,
    .packet = gre_packet,
    .print_tuple = gre_print_tuple,
};

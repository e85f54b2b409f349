// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DCCP tracking, behaving as Linux's nf_conntrack_proto_dccp (as it was until 6.15, when DCCP
 * left the kernel): ports for the tuple, one state per connection moved by each packet's type
 * as sent by the client or the server (the role of each direction, reversed when a
 * connection is reopened from the other side).
 *
 *    0               1               2               3
 *   +-------------------------------+-------------------------------+
 *   |          Source Port          |           Dest Port           |
 *   +---------------+-------+-------+-------------------------------+
 *   |  Data Offset  | CCVal | CsCov |           Checksum            |
 *   +-----+-------+-+-------+-------+-------------------------------+
 *   | Res | Type  |X|   Reserved    |  Sequence Number (high bits)  |  X = 1
 *   +-----+-------+-+---------------+-------------------------------+
 *   |                  Sequence Number (low bits)                   |
 *   +---------------+---------------+-------------------------------+
 *   |   Reserved    |   (X = 0: 24-bit sequence number in bytes 9-11 instead)
 *   then, but for Request and Data, the acknowledgement number: 48 bits after 16 reserved
 *   (X = 1) or 24 bits after 8 reserved (X = 0).
 *
 * A packet is INVALID when its checksum coverage goes beyond the packet, its checksum is wrong
 * (from outside, when checked), its type is reserved (10-15), or its type is not expected in
 * the state for its sender's role (table below). Sync and SyncAck, and packets that may belong
 * to a connection we did not see end (a Request in OPEN, a Response to such a Request), are
 * passed without changing or refreshing the entry; a Response that answers an ignored Request
 * takes the roles from them. A Reset before any reply ends the entry at once. The entry is
 * ASSURED when the client's Ack names the server's Response.
 */
#include <errno.h>

#include "ct/ct_int.h"

enum {
	D_REQUEST,
	D_RESPONSE,
	D_DATA,
	D_ACK,
	D_DATAACK,
	D_CLOSEREQ,
	D_CLOSE,
	D_RESET,
	D_SYNC,
	D_SYNCACK,
	D_TYPES
};

enum { ROLE_CLIENT, ROLE_SERVER };

#define sNO CT_DCCP_NONE
#define sRQ CT_DCCP_REQUEST
#define sRS CT_DCCP_RESPOND
#define sPO CT_DCCP_PARTOPEN
#define sOP CT_DCCP_OPEN
#define sCR CT_DCCP_CLOSEREQ
#define sCG CT_DCCP_CLOSING
#define sTW CT_DCCP_TIMEWAIT
#define sIG CT_DCCP_STATE_MAX	    /* ignored: may belong to a connection we lost track of */
#define sIV (CT_DCCP_STATE_MAX + 1) /* invalid */

/*
 * next state = dccp_next[sender's role][packet type][current state], Linux's transitions:
 *   the client's Request opens (REQUEST) or reopens after TIMEWAIT; the server's Response
 *   answers (RESPOND); the client's Ack or DataAck moves to PARTOPEN, and the server's first
 *   packet after it to OPEN. CloseReq (server only) moves to CLOSEREQ, Close to CLOSING, Reset
 *   to TIMEWAIT. Data in PARTOPEN must be DataAck (RFC 4340 8.1.5); the server may not Close
 *   after its own CloseReq. (The server's Reset in TIMEWAIT refreshes it, as in Linux's table.)
 */
/* clang-format off */
static const uint8_t dccp_next[2][D_TYPES][CT_DCCP_STATE_MAX] = {
	[ROLE_CLIENT] = {
		/*		  sNO  sRQ  sRS  sPO  sOP  sCR  sCG  sTW */
		[D_REQUEST]  = { sRQ, sRQ, sRS, sIG, sIG, sIG, sIG, sRQ },
		[D_RESPONSE] = { sIV, sIG, sIG, sIG, sIG, sIG, sIG, sIV },
		[D_DATA]     = { sIV, sIV, sIV, sIV, sOP, sCR, sCG, sIV },
		[D_ACK]      = { sIV, sIV, sPO, sPO, sOP, sCR, sCG, sIV },
		[D_DATAACK]  = { sIV, sIV, sPO, sPO, sOP, sCR, sCG, sIV },
		[D_CLOSEREQ] = { sIV, sIV, sIV, sIV, sIV, sIV, sIV, sIV },
		[D_CLOSE]    = { sIV, sIV, sIV, sCG, sCG, sCG, sIV, sIV },
		[D_RESET]    = { sIV, sTW, sTW, sTW, sTW, sTW, sTW, sIG },
		[D_SYNC]     = { sIG, sIG, sIG, sIG, sIG, sIG, sIG, sIG },
		[D_SYNCACK]  = { sIG, sIG, sIG, sIG, sIG, sIG, sIG, sIG },
	},
	[ROLE_SERVER] = {
		/*		  sNO  sRQ  sRS  sPO  sOP  sCR  sCG  sTW */
		[D_REQUEST]  = { sIV, sIG, sIG, sIG, sIG, sIG, sIG, sRQ },
		[D_RESPONSE] = { sIV, sRS, sRS, sIG, sIG, sIG, sIG, sIV },
		[D_DATA]     = { sIV, sIV, sIV, sOP, sOP, sIV, sCG, sIV },
		[D_ACK]      = { sIV, sIV, sIV, sOP, sOP, sIV, sCG, sIV },
		[D_DATAACK]  = { sIV, sIV, sIV, sOP, sOP, sIV, sCG, sIV },
		[D_CLOSEREQ] = { sIV, sIV, sIV, sCR, sCR, sCR, sCR, sIV },
		[D_CLOSE]    = { sIV, sIV, sIV, sCG, sCG, sIV, sCG, sIV },
		[D_RESET]    = { sIV, sTW, sTW, sTW, sTW, sTW, sTW, sTW },
		[D_SYNC]     = { sIG, sIG, sIG, sIG, sIG, sIG, sIG, sIG },
		[D_SYNCACK]  = { sIG, sIG, sIG, sIG, sIG, sIG, sIG, sIG },
	},
};
/* clang-format on */

static const char *const dccp_state_names[CT_DCCP_STATE_MAX] = {
    [sNO] = "NONE", [sRQ] = "REQUEST",	[sRS] = "RESPOND", [sPO] = "PARTOPEN",
    [sOP] = "OPEN", [sCR] = "CLOSEREQ", [sCG] = "CLOSING", [sTW] = "TIMEWAIT",
};

/* What the tracker reads of a header (the parser has checked that Data Offset fits). */
struct dccp_hdr {
	uint8_t type;
	bool has_ack;
	uint64_t seq, ack;
};

static uint64_t get_be(const uint8_t *b, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | *b++;
	return v;
}

static int dccp_read(const struct pkt *p, struct dccp_hdr *d)
{
	uint8_t buf[24];
	const uint8_t *h;
	uint32_t doff, base;
	bool x;

	if (!p->info.has_l4 || p->info.l4len < 12 || !(h = pkt_header(p, p->info.l4off, 12, buf)))
		return -EINVAL;
	doff = (uint32_t)h[4] * 4;
	x = h[8] & 1;
	base = x ? 16 : 12;
	if (doff < base || doff > p->info.l4len)
		return -EINVAL;
	if (!(h = pkt_header(p, p->info.l4off, doff < 24 ? doff : 24, buf)))
		return -EINVAL;
	d->type = (h[8] >> 1) & 15;
	d->seq = x ? get_be(h + 10, 6) : get_be(h + 9, 3);
	/* the acknowledgement subheader, when the header is long enough to hold it */
	d->has_ack = d->type != D_REQUEST && d->type != D_DATA && doff >= base + (x ? 8 : 4);
	d->ack = !d->has_ack ? 0 : x ? get_be(h + base + 2, 6) : get_be(h + base + 1, 3);
	return 0;
}

static int dccp_error(struct ct_table *t, struct pkt *p, bool from_outside, uint16_t zone,
		      uint64_t now)
{
	struct dccp_hdr d;
	uint8_t b[2];

	if (dccp_read(p, &d) < 0 || pkt_copy_out(p, p->info.l4off + 4, b, 2) < 0)
		return -EINVAL;
	/* CsCov > 0 covers (CsCov - 1) * 4 bytes of data: more than there is is malformed */
	if ((b[1] & 15) && ((uint32_t)(b[1] & 15) - 1) * 4 > p->info.l4len)
		return -EINVAL;
	if (from_outside && t->cfg.checksum && !pkt_l4_csum_check(p))
		return -EINVAL;
	return d.type < D_TYPES ? 0 : -EINVAL;
}

static bool dccp_new(struct ct_table *t, struct ct_entry *e, const struct pkt *p, uint64_t now)
{
	struct ct_dccp *dc = &e->proto.dccp;
	struct dccp_hdr d;

	if (dccp_read(p, &d) < 0 || d.type >= D_TYPES)
		return false;
	switch (dccp_next[ROLE_CLIENT][d.type][sNO]) {
	case sRQ:
		break;
	case sIV:
		return false;
	default: /* Sync, SyncAck: pick up an existing connection only when loose */
		if (!t->cfg.dccp_loose)
			return false;
	}
	dc->role[CT_DIR_ORIGINAL] = ROLE_CLIENT;
	dc->role[CT_DIR_REPLY] = ROLE_SERVER;
	dc->state = sNO;
	dc->last_pkt = D_REQUEST;
	dc->last_dir = CT_DIR_ORIGINAL;
	dc->handshake_seq = 0;
	return true;
}

static enum ct_verdict dccp_packet(struct ct_table *t, struct ct_entry *e, const struct pkt *p,
				   enum ct_dir dir, uint64_t now)
{
	struct ct_dccp *dc = &e->proto.dccp;
	unsigned role, old_state, new_state;
	struct dccp_hdr d;

	if (dccp_read(p, &d) < 0 || d.type >= D_TYPES)
		return CT_INVALID;
	if (d.type == D_RESET && !(e->status & CT_S_SEEN_REPLY)) {
		/* a Reset as the only answer: no connection was made, forget it at once */
		ct_kill(t, e);
		return CT_ACCEPT;
	}
	role = dc->role[dir];
	old_state = dc->state;
	new_state = dccp_next[role][d.type][old_state];

	switch (new_state) {
	case sRQ:
		if (old_state == sTW && role == ROLE_SERVER) {
			/* reopened from the other side: the roles swap */
			dc->role[dir] = ROLE_CLIENT;
			dc->role[!dir] = ROLE_SERVER;
		}
		break;
	case sRS:
		if (old_state == sRQ)
			dc->handshake_seq = d.seq;
		break;
	case sPO:
		if (old_state == sRS && d.type == D_ACK && d.has_ack && d.ack == dc->handshake_seq)
			ct_set_status(t, e, CT_S_ASSURED, CT_EV_ASSURED);
		break;
	case sIG:
		if (dc->last_dir == !dir && dc->last_pkt == D_REQUEST && d.type == D_RESPONSE) {
			/* the answer to a Request we ignored: both ends agree, follow them */
			dc->role[!dir] = ROLE_CLIENT;
			dc->role[dir] = ROLE_SERVER;
			dc->handshake_seq = d.seq;
			new_state = sRS;
			break;
		}
		dc->last_dir = (uint8_t)dir;
		dc->last_pkt = d.type;
		return CT_ACCEPT;
	case sIV:
		return CT_INVALID;
	}
	dc->last_dir = (uint8_t)dir;
	dc->last_pkt = d.type;
	dc->state = (uint8_t)new_state;
	if (new_state != old_state)
		ct_event_cache(e, CT_EV_PROTOINFO);
	ct_refresh(e, now, ct_timeouts_of(t, e)->dccp[new_state]);
	return CT_ACCEPT;
}

static const char *dccp_state_name(const struct ct_entry *e)
{
	return e->proto.dccp.state < CT_DCCP_STATE_MAX ? dccp_state_names[e->proto.dccp.state]
						       : "?";
}

const struct ct_proto_ops ct_proto_dccp = {
    .l4proto = 33,
    .name = "dccp",
    .pkt_to_tuple = ct_ports_to_tuple,
    .invert = ct_ports_invert,
    .error = dccp_error,
    .new_conn = dccp_new,
    .packet = dccp_packet,
    .state_name = dccp_state_name,
    .print_tuple = ct_print_ports,
};

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SCTP tracking, behaving as Linux's nf_conntrack_proto_sctp (6.x): ports for the tuple, the
 * verification tag of each direction learnt from INIT / INIT ACK (or the first packet), and a
 * state per association driven by the chunk types each packet carries.
 *
 *    0               1               2               3
 *   +-------------------------------+-------------------------------+
 *   |          Source Port          |       Destination Port        |
 *   +-------------------------------+-------------------------------+
 *   |                       Verification Tag                        |
 *   +---------------------------------------------------------------+
 *   |                     Checksum (CRC32c, LE)                     |
 *   +===============+===============+===============================+  chunks, each padded
 *   |     Type      |     Flags     |            Length             |  to 4 bytes; Length
 *   +---------------+---------------+-------------------------------+  counts the 4 bytes
 *   |  INIT, INIT ACK: Initiate Tag | a_rwnd | streams | initial TSN (16 bytes), params  |
 *
 * A packet is INVALID when: shorter than 12 bytes; the CRC is wrong (from outside, when
 * checksums are checked); it has no chunk, a chunk of length 0, a COOKIE ECHO / COOKIE ACK not
 * first, or an INIT / INIT ACK / SHUTDOWN COMPLETE with other chunks; its tag is not the one
 * learnt for its direction (RFC 9260 8.5; INIT must carry 0, ABORT and SHUTDOWN COMPLETE the
 * peer's tag when their T bit is set, COOKIE ECHO the tag from the INIT ACK); or a chunk makes
 * a transition the table below forbids. Only INIT, SHUTDOWN ACK, ERROR, COOKIE ECHO,
 * INIT ACK, SHUTDOWN and HEARTBEAT (a second path of a known association) start entries.
 * Chunks the table has no row for (DATA, SACK, ...) leave the state as it is.
 *
 * An INIT retransmitted in CLOSED is passed without refreshing the entry, so that a client
 * (or a NAT in front of it) that keeps retrying cannot keep the entry alive for ever.
 */
#include <errno.h>

#include "ct/ct_int.h"

enum {
	C_DATA = 0,
	C_INIT = 1,
	C_INIT_ACK = 2,
	C_HEARTBEAT = 4,
	C_HEARTBEAT_ACK = 5,
	C_ABORT = 6,
	C_SHUTDOWN = 7,
	C_SHUTDOWN_ACK = 8,
	C_ERROR = 9,
	C_COOKIE_ECHO = 10,
	C_COOKIE_ACK = 11,
	C_SHUTDOWN_COMPLETE = 14,
};
/* ABORT, SHUTDOWN COMPLETE: T set, the sender had no association and used the peer's tag */
#define CHUNK_FLAG_T 0x01
#define BIT(c)	     (1u << (c))

/* Rows of the state table, by chunk type (-1: no row, the state stays). */
enum {
	R_INIT,
	R_INIT_ACK,
	R_ABORT,
	R_SHUT,
	R_SHUT_ACK,
	R_ERROR,
	R_ECHO,
	R_COOKIE_ACK,
	R_SHUT_COMP,
	R_HB,
	R_HB_ACK,
	R_MAX
};

static const int8_t chunk_row[C_SHUTDOWN_COMPLETE + 1] = {
    [C_DATA] = -1,
    [C_INIT] = R_INIT,
    [C_INIT_ACK] = R_INIT_ACK,
    [3] = -1,
    [C_HEARTBEAT] = R_HB,
    [C_HEARTBEAT_ACK] = R_HB_ACK,
    [C_ABORT] = R_ABORT,
    [C_SHUTDOWN] = R_SHUT,
    [C_SHUTDOWN_ACK] = R_SHUT_ACK,
    [C_ERROR] = R_ERROR,
    [C_COOKIE_ECHO] = R_ECHO,
    [C_COOKIE_ACK] = R_COOKIE_ACK,
    [12] = -1,
    [13] = -1,
    [C_SHUTDOWN_COMPLETE] = R_SHUT_COMP,
};

#define sNO CT_SCTP_NONE
#define sCL CT_SCTP_CLOSED
#define sCW CT_SCTP_COOKIE_WAIT
#define sCE CT_SCTP_COOKIE_ECHOED
#define sES CT_SCTP_ESTABLISHED
#define sSS CT_SCTP_SHUTDOWN_SENT
#define sSR CT_SCTP_SHUTDOWN_RECD
#define sSA CT_SCTP_SHUTDOWN_ACK_SENT
#define sHS CT_SCTP_HEARTBEAT_SENT
#define sIV CT_SCTP_STATE_MAX /* invalid */

/*
 * next state = sctp_next[direction][row][current state], Linux 6.x's transitions:
 *   INIT (original) opens in CLOSED; the INIT ACK answering it moves to COOKIE_WAIT, the COOKIE
 *   ECHO to COOKIE_ECHOED and the COOKIE ACK to ESTABLISHED (assured). SHUTDOWN moves to
 *   SHUTDOWN_SENT (original) or SHUTDOWN_RECD (reply), SHUTDOWN ACK to SHUTDOWN_ACK_SENT, and
 *   SHUTDOWN COMPLETE after it to CLOSED; ABORT closes from anywhere. A HEARTBEAT of an unknown
 *   association is a second path of one (HEARTBEAT_SENT), ESTABLISHED when its ACK comes back.
 *   In the reply direction nothing may come before the original side spoke.
 */
/* clang-format off */
static const uint8_t sctp_next[2][R_MAX][CT_SCTP_STATE_MAX] = {
	[CT_DIR_ORIGINAL] = {
		/*		  sNO  sCL  sCW  sCE  sES  sSS  sSR  sSA  sHS */
		[R_INIT]       = { sCL, sCL, sCW, sCE, sES, sCL, sCL, sSA, sCW },
		[R_INIT_ACK]   = { sCL, sCL, sCW, sCE, sES, sSS, sSR, sSA, sCL },
		[R_ABORT]      = { sCL, sCL, sCL, sCL, sCL, sCL, sCL, sCL, sCL },
		[R_SHUT]       = { sCL, sCL, sCW, sCE, sSS, sSS, sSR, sSA, sCL },
		[R_SHUT_ACK]   = { sSA, sCL, sCW, sCE, sES, sSA, sSA, sSA, sSA },
		[R_ERROR]      = { sCL, sCL, sCW, sCE, sES, sSS, sSR, sSA, sCL },
		[R_ECHO]       = { sCL, sCL, sCE, sCE, sES, sSS, sSR, sSA, sCL },
		[R_COOKIE_ACK] = { sCL, sCL, sCW, sES, sES, sSS, sSR, sSA, sCL },
		[R_SHUT_COMP]  = { sCL, sCL, sCW, sCE, sES, sSS, sSR, sCL, sCL },
		[R_HB]         = { sHS, sCL, sCW, sCE, sES, sSS, sSR, sSA, sHS },
		[R_HB_ACK]     = { sCL, sCL, sCW, sCE, sES, sSS, sSR, sSA, sHS },
	},
	[CT_DIR_REPLY] = {
		/*		  sNO  sCL  sCW  sCE  sES  sSS  sSR  sSA  sHS */
		[R_INIT]       = { sIV, sCL, sCW, sCE, sES, sSS, sSR, sSA, sIV },
		[R_INIT_ACK]   = { sIV, sCW, sCW, sCE, sES, sSS, sSR, sSA, sIV },
		[R_ABORT]      = { sIV, sCL, sCL, sCL, sCL, sCL, sCL, sCL, sIV },
		[R_SHUT]       = { sIV, sCL, sCW, sCE, sSR, sSS, sSR, sSA, sIV },
		[R_SHUT_ACK]   = { sIV, sCL, sCW, sCE, sES, sSA, sSA, sSA, sIV },
		[R_ERROR]      = { sIV, sCL, sCW, sCL, sES, sSS, sSR, sSA, sIV },
		[R_ECHO]       = { sIV, sCL, sCE, sCE, sES, sSS, sSR, sSA, sIV },
		[R_COOKIE_ACK] = { sIV, sCL, sCW, sES, sES, sSS, sSR, sSA, sIV },
		[R_SHUT_COMP]  = { sIV, sCL, sCW, sCE, sES, sSS, sSR, sCL, sIV },
		[R_HB]         = { sIV, sCL, sCW, sCE, sES, sSS, sSR, sSA, sHS },
		[R_HB_ACK]     = { sIV, sCL, sCW, sCE, sES, sSS, sSR, sSA, sES },
	},
};
/* clang-format on */

static const char *const sctp_state_names[CT_SCTP_STATE_MAX] = {
    [sNO] = "NONE",	      [sCL] = "CLOSED",
    [sCW] = "COOKIE_WAIT",    [sCE] = "COOKIE_ECHOED",
    [sES] = "ESTABLISHED",    [sSS] = "SHUTDOWN_SENT",
    [sSR] = "SHUTDOWN_RECD",  [sSA] = "SHUTDOWN_ACK_SENT",
    [sHS] = "HEARTBEAT_SENT",
};

/* One chunk header, and where it is. */
struct chunk {
	uint32_t off;
	uint16_t len;
	uint8_t type, flags;
};

/* A packet's chunks, walked from its first one. */
struct chunk_walk {
	const struct pkt *p;
	uint32_t next, end;
};

static uint32_t get32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static void walk_start(struct chunk_walk *w, const struct pkt *p)
{
	w->p = p;
	w->next = p->info.l4off + 12;
	w->end = p->info.l4off + p->info.l4len;
}

/* The next chunk whose header is complete; false at the end (trailing bytes are ignored). */
static bool walk_next(struct chunk_walk *w, struct chunk *c)
{
	uint8_t buf[4];
	const uint8_t *h;

	if (w->next >= w->end || w->end - w->next < 4 || !(h = pkt_header(w->p, w->next, 4, buf)))
		return false;
	c->off = w->next;
	c->type = h[0];
	c->flags = h[1];
	c->len = (uint16_t)(h[2] << 8 | h[3]);
	/* a zero length never advances: the checks refuse it, a walk after them stops */
	w->next = c->len ? w->next + ((c->len + 3u) & ~3u) : w->end;
	return true;
}

static int chunk_row_of(uint8_t type)
{
	return type <= C_SHUTDOWN_COMPLETE ? chunk_row[type] : -1;
}

/* The common header's verification tag. */
static uint32_t pkt_vtag(const struct pkt *p)
{
	uint8_t buf[4];
	const uint8_t *h = pkt_header(p, p->info.l4off + 4, 4, buf);

	return h ? get32(h) : 0;
}

/* The Initiate Tag of an INIT or INIT ACK chunk; -EINVAL when its fixed part is not there. */
static int init_tag(const struct pkt *p, const struct chunk *c, uint32_t *tag)
{
	uint8_t buf[16];
	const uint8_t *h;

	if ((uint64_t)c->off + 4 + 16 > (uint64_t)p->info.l4off + p->info.l4len ||
	    !(h = pkt_header(p, c->off + 4, 16, buf)))
		return -EINVAL;
	*tag = get32(h);
	return 0;
}

/* Types present (bits of the types below 32, the only ones the checks name). */
static uint32_t chunk_map(const struct pkt *p)
{
	struct chunk_walk w;
	struct chunk c;
	uint32_t map = 0;

	walk_start(&w, p);
	while (walk_next(&w, &c))
		if (c.type < 32)
			map |= BIT(c.type);
	return map;
}

static int sctp_error(struct ct_table *t, struct pkt *p, bool from_outside, uint16_t zone,
		      uint64_t now)
{
	struct chunk_walk w;
	struct chunk c;
	unsigned count = 0;
	bool alone = false;

	if (!p->info.has_l4 || p->info.l4len < 12)
		return -EINVAL;
	if (from_outside && t->cfg.checksum && !pkt_l4_csum_check(p))
		return -EINVAL;
	walk_start(&w, p);
	while (walk_next(&w, &c)) {
		if (c.type == C_INIT || c.type == C_INIT_ACK || c.type == C_SHUTDOWN_COMPLETE)
			alone = true;
		if (!c.len)
			return -EINVAL;
		if ((c.type == C_COOKIE_ECHO || c.type == C_COOKIE_ACK || alone) && count)
			return -EINVAL;
		count++;
	}
	return count ? 0 : -EINVAL;
}

/* The first packet: may it open an entry, and which tags does it tell? */
static bool sctp_new(struct ct_table *t, struct ct_entry *e, const struct pkt *p, uint64_t now)
{
	struct ct_sctp *s = &e->proto.sctp;
	uint32_t vtag = pkt_vtag(p);
	struct chunk_walk w;
	struct chunk c;

	/* out of the blue packets with these answer nothing we could track (RFC 9260 8.4) */
	if (chunk_map(p) & (BIT(C_ABORT) | BIT(C_SHUTDOWN_COMPLETE) | BIT(C_COOKIE_ACK)))
		return false;
	walk_start(&w, p);
	while (walk_next(&w, &c)) {
		int row = chunk_row_of(c.type);

		if (row < 0 || sctp_next[CT_DIR_ORIGINAL][row][sNO] == sIV)
			return false;
		if (c.type == C_INIT) {
			if (vtag != 0 || init_tag(p, &c, &s->vtag[CT_DIR_REPLY]) < 0)
				return false;
		} else if (c.type == C_HEARTBEAT) {
			s->vtag[CT_DIR_ORIGINAL] = vtag; /* a second path: its tag is known */
		} else {
			/* out of the blue: the answer (SHUTDOWN COMPLETE, ABORT) carries this tag
			 */
			s->vtag[CT_DIR_REPLY] = vtag;
		}
	}
	s->state = sNO;
	return true;
}

/*
 * The tag checks of RFC 9260 8.5.1 and the HEARTBEAT path handling for one chunk. 1: go on
 * with the transition, 0: skip this chunk (a HEARTBEAT on a path we do not know the tag of
 * yet: passed, the entry not refreshed), -1: INVALID.
 */
static int chunk_tags(struct ct_sctp *s, const struct chunk *c, uint32_t vtag, enum ct_dir dir,
		      uint32_t map, bool *ignore)
{
	bool t_bit = c->flags & CHUNK_FLAG_T;

	switch (c->type) {
	case C_INIT:
		return vtag == 0 ? 1 : -1;
	case C_ABORT:
	case C_SHUTDOWN_COMPLETE:
		return vtag == s->vtag[t_bit ? !dir : dir] ? 1 : -1;
	case C_COOKIE_ECHO:
		return vtag == s->vtag[dir] ? 1 : -1;
	case C_COOKIE_ACK:
		s->init[0] = s->init[1] = 0;
		return 1;
	case C_HEARTBEAT:
	case C_HEARTBEAT_ACK:
		if (s->vtag[dir] == 0) {
			s->vtag[dir] = vtag;
		} else if (vtag != s->vtag[dir]) {
			/* the peer restarted, or a path we missed the start of: a HEARTBEAT
			 * with a new tag, answered from the other side, replaces the tags */
			if ((map & BIT(C_DATA)) || *ignore)
				return -1;
			if (c->type == C_HEARTBEAT) {
				s->flags |= CT_SCTPF_HEARTBEAT_VTAG_FAILED;
				s->last_dir = (uint8_t)dir;
				*ignore = true;
				return 0;
			}
			if (!(s->flags & CT_SCTPF_HEARTBEAT_VTAG_FAILED) || s->last_dir == dir)
				return -1;
			s->flags &= (uint8_t)~CT_SCTPF_HEARTBEAT_VTAG_FAILED;
			s->vtag[dir] = vtag;
			s->vtag[!dir] = 0;
		} else {
			s->flags &= (uint8_t)~CT_SCTPF_HEARTBEAT_VTAG_FAILED;
		}
		return 1;
	}
	return 1;
}

/* INIT and INIT ACK tell the tag the other direction must carry from now on. */
static int learn_tags(struct ct_sctp *s, const struct pkt *p, const struct chunk *c,
		      enum ct_dir dir)
{
	uint32_t tag, prev = s->vtag[!dir];

	if (init_tag(p, c, &tag) < 0)
		return -1;
	if (c->type == C_INIT) {
		if (s->init[dir] && s->init[!dir])
			s->init[!dir] = 0;
		s->init[dir] = 1;
	} else {
		/* an INIT ACK must agree with the tag already known, unless that side's own
		 * INIT is pending; with INITs from both sides (a collision) it must agree */
		if (!s->init[!dir] && prev && prev != tag)
			return -1;
		if (s->init[dir] && s->init[!dir] && prev != tag)
			return -1;
	}
	s->vtag[!dir] = tag;
	return 0;
}

static enum ct_verdict sctp_packet(struct ct_table *t, struct ct_entry *e, const struct pkt *p,
				   enum ct_dir dir, uint64_t now)
{
	struct ct_sctp *s = &e->proto.sctp;
	uint32_t vtag = pkt_vtag(p), map = chunk_map(p);
	int old_state, new_state = sNO;
	struct chunk_walk w;
	struct chunk c;
	bool ignore = false;

	/* tags the chunks below check themselves; any other packet carries its direction's */
	if (!(map & (BIT(C_INIT) | BIT(C_SHUTDOWN_COMPLETE) | BIT(C_COOKIE_ECHO) | BIT(C_ABORT) |
		     BIT(C_SHUTDOWN_ACK) | BIT(C_HEARTBEAT) | BIT(C_HEARTBEAT_ACK))) &&
	    vtag != s->vtag[dir])
		return CT_INVALID;

	walk_start(&w, p);
	while (walk_next(&w, &c)) {
		int row, r = chunk_tags(s, &c, vtag, dir, map, &ignore);

		if (r < 0)
			return CT_INVALID;
		if (r == 0)
			continue;
		old_state = s->state;
		row = chunk_row_of(c.type);
		new_state = row < 0 ? old_state : sctp_next[dir][row][old_state];
		if (new_state == sIV)
			return CT_INVALID;
		if (c.type == C_INIT || c.type == C_INIT_ACK) {
			if (learn_tags(s, p, &c, dir) < 0)
				return CT_INVALID;
			/* a retransmitted INIT in CLOSED: pass it, do not extend the entry */
			if (c.type == C_INIT && old_state == sCL && new_state == sCL &&
			    (e->status & CT_S_CONFIRMED))
				ignore = true;
		}
		s->state = (uint8_t)new_state;
		if (old_state != new_state) {
			ct_event_cache(e, CT_EV_PROTOINFO);
			if (new_state == sES)
				ct_set_status(t, e, CT_S_ASSURED, CT_EV_ASSURED);
		}
	}
	if (!ignore)
		ct_refresh(e, now, ct_timeouts_of(t, e)->sctp[s->state]);
	return CT_ACCEPT;
}

static const char *sctp_state_name(const struct ct_entry *e)
{
	return e->proto.sctp.state < CT_SCTP_STATE_MAX ? sctp_state_names[e->proto.sctp.state]
						       : "?";
}

const struct ct_proto_ops ct_proto_sctp = {
    .l4proto = 132,
    .name = "sctp",
    .pkt_to_tuple = ct_ports_to_tuple,
    .invert = ct_ports_invert,
    .error = sctp_error,
    .new_conn = sctp_new,
    .packet = sctp_packet,
    .state_name = sctp_state_name,
    .print_tuple = ct_print_ports,
};

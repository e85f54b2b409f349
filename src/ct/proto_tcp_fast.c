// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The TCP tracker's established fast path (issue 12): an ACK in window of an established
 * connection decided with a few compares, beside the general tracker (proto_tcp.c), which
 * decides every other segment. tests/unit/test_ct_tcp_fast.c proves the two equal.
 */
#include "ct/proto_tcp.h"

/* NOP, NOP, timestamps (kind 8, length 10): the 12 option bytes of nearly every segment of a
 * connection that uses timestamps; no SACK block among them, so no walk */
#define TCP_OPT_NOP_NOP_TIMESTAMPS 0x0101080au

/* What tcp_fast did. */
enum fast_result {
	FAST_DECLINED, /* not its case, nothing changed: the general path decides */
	FAST_ACCEPTED, /* done */
	FAST_ASSURE,   /* done but for setting ASSURED (ct_set_status), the caller's part */
	FAST_FULL, /* nothing changed: for the full form (an option walk, a sequence adjustment) */
};

/*
 * The established fast path: a segment of a connection in ESTABLISHED (answered or picked up),
 * ACK set and no SYN, FIN or RST (PSH, URG, ECE, CWR as they come), its header in the packet's
 * first segment, in window (or out of it but for check I on a liberal side or table, which
 * passes it as it is): the general path would move no state, set no event and take the same
 * window update (tcp_window_update) and timeout (tcp_timeout). Anything else (a first segment
 * of a side, a taken-over entry still learning, beyond check I, out of window and not liberal)
 * is FAST_DECLINED having changed nothing, and the general path decides.
 *
 * What it spares the general path: no copy of the header or its options (read where they lie);
 * no option walk unless the receiver allowed SACK and the options are not the usual NOP NOP
 * timestamps; the window update and the timeout inline with the flags and the packet class
 * known (an ACK), only their compares left. Inline in two forms: the plain one (full false,
 * ct_tcp_packet's) calls nothing and keeps no SACK edge or sequence offset apart from the ACK, so
 * that it needs few registers; it answers FAST_FULL for a segment with options to walk or an
 * entry with a sequence adjustment, and FAST_ASSURE for its caller to set the status. The full
 * form (tcp_packet_full) does all. tests/unit/test_ct_tcp_fast.c drives both forms
 * (ct_tcp_packet_fast) and the general path on the same random and corner-case inputs and
 * compares every field they write.
 */
static inline __attribute__((always_inline)) enum fast_result
tcp_fast(struct ct_table *t, struct ct_entry *e, const struct pkt *p, enum ct_dir dir, uint64_t now,
	 bool full)
{
	const struct pkt_info *in = &p->info;
	struct ct_tcp *tc = &e->proto.tcp;
	struct ct_tcp_dir *sender = &tc->seen[dir], *receiver = &tc->seen[!dir];
	uint32_t doff = in->tcp_doff, seq, end, ack, sack, off;
	const uint64_t *to;
	const uint8_t *h;
	uint64_t timeout;
	uint16_t win;

	if (tc->state != CT_TCP_ESTABLISHED || (tc->pickup & CT_PICKUP_ON) ||
	    sender->td_maxwin == 0)
		return FAST_DECLINED;
	if (!in->has_l4 || doff < 20 || in->l4len < doff || !pkt_in_seg0(p, in->l4off, doff))
		return FAST_DECLINED;
	h = p->seg[0].data + in->l4off;
	if ((h[13] & (PKT_TCP_SYN | PKT_TCP_FIN | PKT_TCP_RST | PKT_TCP_ACK)) != PKT_TCP_ACK)
		return FAST_DECLINED;
	seq = pkt_get32(h + 4);
	ack = sack = pkt_get32(h + 8);
	win = (uint16_t)(h[14] << 8 | h[15]);
	end = seq + (in->l4len - doff);
	if (doff > 20 && (receiver->flags & CT_TCPF_SACK_PERM) &&
	    !(doff == 32 && pkt_get32(h + 20) == TCP_OPT_NOP_NOP_TIMESTAMPS)) {
		struct seg s;

		if (!full)
			return FAST_FULL;
		s.optlen = (uint8_t)(doff - 20);
		ct_tcp_seg_options(&s, h + 20);
		sack = tcp_sack(&s, ack);
	}
	/* the other side's stream resized by a NAT helper (rare): the full form's */
	if (!full && ct_ext_get(e, CT_EXT_SEQADJ))
		return FAST_FULL;
	off = full ? (uint32_t)ct_seqadj_ack_offset(e, !dir, ack) : 0;
	ack -= off;
	sack -= off;
	/* I to IV (tcp_in_window); beyond I is the general path's (its overshoot rule) */
	if (!ct_seq_before(seq, sender->td_maxend + 1))
		return FAST_DECLINED;
	if (!ct_seq_before(sack, receiver->td_end + 1) ||
	    (receiver->td_maxwin && !ct_seq_after(end, sender->td_end - receiver->td_maxwin - 1)) ||
	    !ct_seq_after(sack, receiver->td_end - max_ack_window(sender) - 1)) {
		/* out of window: passed as it is only for a liberal side or table (win_refuse),
		 * else the general path decides (INVALID or ignored) */
		if (!(sender->flags & CT_TCPF_BE_LIBERAL) && !t->cfg.tcp_be_liberal)
			return FAST_DECLINED;
		tc->pickup |= CT_PICKUP_REFUSED;
		tc->last_dir = (uint8_t)dir;
	} else {
		tc->pickup &= (uint8_t)~CT_PICKUP_REFUSED;
		tcp_retrans_note(tc, dir, win, seq, end, ack); /* (last_dir = dir) */
		tcp_window_update(sender, receiver, PKT_TCP_ACK, win, end, ack, sack);
	}
	tc->last_index = I_ACK;
	to = ct_timeouts_of(t, e)->tcp;
	timeout = tcp_timeout(t, tc, to, CT_TCP_ESTABLISHED, I_ACK);
	/* picked up mid-stream and never answered: no five-day timeout */
	if (!(e->status & CT_S_SEEN_REPLY) && timeout > to[CT_TCP_UNACK])
		timeout = to[CT_TCP_UNACK];
	ct_refresh(e, now, timeout);
	/* an answer in a picked-up connection */
	if ((e->status & (CT_S_SEEN_REPLY | CT_S_ASSURED)) == CT_S_SEEN_REPLY)
		return FAST_ASSURE;
	return FAST_ACCEPTED;
}

/* tcp_fast's FAST_ASSURE: the answer that makes a picked-up connection ASSURED, once per
 * connection, out of line (every form of the fast path sets it here) */
static __attribute__((noinline)) enum ct_verdict tcp_assure(struct ct_table *t, struct ct_entry *e)
{
	ct_set_status(t, e, CT_S_ASSURED, CT_EV_ASSURED);
	return CT_ACCEPT;
}

/* tcp_fast's full form, with its status part: the general path's if declined */
static __attribute__((noinline)) enum ct_verdict tcp_packet_full(struct ct_table *t,
								 struct ct_entry *e,
								 const struct pkt *p,
								 enum ct_dir dir, uint64_t now)
{
	switch (tcp_fast(t, e, p, dir, now, true)) {
	case FAST_DECLINED:
	case FAST_FULL: /* (not from the full form) */
		return ct_tcp_packet_general(t, e, p, dir, now);
	case FAST_ASSURE:
		return tcp_assure(t, e);
	case FAST_ACCEPTED:
		break;
	}
	return CT_ACCEPT;
}

/* tcp_packet's fast part on its own, for tests/unit/test_ct_tcp_fast.c (ct_int.h): the same
 * two forms in the same order, the status set by tcp_assure */
bool ct_tcp_packet_fast(struct ct_table *t, struct ct_entry *e, const struct pkt *p,
			enum ct_dir dir, uint64_t now)
{
	enum fast_result r = tcp_fast(t, e, p, dir, now, false);

	if (r == FAST_FULL)
		r = tcp_fast(t, e, p, dir, now, true);
	if (r == FAST_ASSURE)
		tcp_assure(t, e);
	return r != FAST_DECLINED;
}

enum ct_verdict ct_tcp_packet(struct ct_table *t, struct ct_entry *e, const struct pkt *p,
			      enum ct_dir dir, uint64_t now)
{
	switch (tcp_fast(t, e, p, dir, now, false)) {
	case FAST_ACCEPTED:
		return CT_ACCEPT;
	case FAST_ASSURE:
		return tcp_assure(t, e);
	case FAST_FULL:
		return tcp_packet_full(t, e, p, dir, now);
	case FAST_DECLINED:
		break;
	}
	return ct_tcp_packet_general(t, e, p, dir, now);
}

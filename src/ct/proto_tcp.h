/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The TCP tracker's window pieces, shared by its general path (proto_tcp.c) and its established
 * fast path (proto_tcp_fast.c): the header flags and packet classes, the segment as read, and
 * the in-window update and timeout, inline so that the fast path's constant flags leave only the
 * compares an ACK needs. Not for use outside the TCP tracker.
 */
#ifndef CT_PROTO_TCP_H
#define CT_PROTO_TCP_H

#include "ct/ct_int.h"

/* Packet classes, the second index of the state table. */
enum { I_SYN, I_SYNACK, I_FIN, I_ACK, I_RST, I_NONE, I_MAX };

/* The fixed header and its options, read once per packet. */
struct seg {
	uint32_t seq, ack, end;
	uint16_t win;
	uint8_t flags;
	uint8_t opt[40];
	uint8_t optlen;
	bool has_wscale, sack_perm, has_sack;
	uint8_t wscale;
	uint32_t sack_edge;
};

/*
 * Walk the options once (s->optlen bytes at opt): window scale, SACK-permitted, and the highest
 * SACK right edge.
 */
void ct_tcp_seg_options(struct seg *s, const uint8_t *opt);

/* The highest right edge of the SACK blocks if above `ack` (they acknowledge up to there). */
static inline uint32_t tcp_sack(const struct seg *s, uint32_t ack)
{
	return s->has_sack && ct_seq_after(s->sack_edge, ack) ? s->sack_edge : ack;
}

static inline uint32_t max_ack_window(const struct ct_tcp_dir *sender)
{
	return sender->td_maxwin > 66000 ? sender->td_maxwin : 66000;
}

/*
 * A segment found in window: the sender's and the receiver's window data. end, ack and sack as
 * the checks used them (RST and sequence adjustment corrections applied); the window as sent
 * (unscaled) and the flags from the segment. Shared by the general path (tcp_in_window) and the
 * established fast path (tcp_fast), inline in both: the fast path's constant flags leave only
 * the compares an ACK needs.
 */
static inline __attribute__((always_inline)) void
tcp_window_update(struct ct_tcp_dir *sender, struct ct_tcp_dir *receiver, uint8_t flags,
		  uint16_t rawwin, uint32_t end, uint32_t ack, uint32_t sack)
{
	uint32_t win = rawwin, swin;

	if (!(flags & PKT_TCP_SYN))
		win <<= sender->td_scale;
	swin = win + (sack - ack);
	if (sender->td_maxwin < swin)
		sender->td_maxwin = swin;
	if (ct_seq_after(end, sender->td_end)) {
		sender->td_end = end;
		sender->flags |= CT_TCPF_DATA_UNACKED;
	}
	if (flags & PKT_TCP_ACK) {
		if (!(sender->flags & CT_TCPF_MAXACK_SET)) {
			sender->td_maxack = ack;
			sender->flags |= CT_TCPF_MAXACK_SET;
		} else if (ct_seq_after(ack, sender->td_maxack)) {
			sender->td_maxack = ack;
		}
	}
	/* the receiver's view */
	if (receiver->td_maxwin != 0 && ct_seq_after(end, sender->td_maxend))
		receiver->td_maxwin += end - sender->td_maxend;
	if (ct_seq_after(sack + win, receiver->td_maxend - 1)) {
		receiver->td_maxend = sack + win;
		if (win == 0)
			receiver->td_maxend++;
	}
	if (ack == receiver->td_end)
		receiver->flags &= (uint8_t)~CT_TCPF_DATA_UNACKED;
}

/*
 * Retransmissions of the same pure ACK (the window as sent, unscaled), counted for an ACK found
 * in window (index I_ACK) beside tcp_window_update: the two touch different fields, so the fast
 * path takes this one first and has seq off its hands.
 */
static inline __attribute__((always_inline)) void tcp_retrans_note(struct ct_tcp *tc,
								   enum ct_dir dir, uint16_t rawwin,
								   uint32_t seq, uint32_t end,
								   uint32_t ack)
{
	if (tc->last_dir == dir && tc->last_seq == seq && tc->last_ack == ack &&
	    tc->last_end == end && tc->last_win == rawwin) {
		if (tc->retrans < 255)
			tc->retrans++;
	} else {
		tc->last_dir = (uint8_t)dir;
		tc->last_seq = seq;
		tc->last_ack = ack;
		tc->last_end = end;
		tc->last_win = rawwin;
		tc->retrans = 0;
	}
}

/* The timeout a segment in window gives the entry in new_state (before the unanswered
 * connection's limits). */
static inline __attribute__((always_inline)) uint64_t tcp_timeout(const struct ct_table *t,
								  const struct ct_tcp *tc,
								  const uint64_t *to, int new_state,
								  int index)
{
	if (tc->retrans >= t->cfg.tcp_max_retrans && to[new_state] > to[CT_TCP_RETRANS])
		return to[CT_TCP_RETRANS];
	if (index == I_RST)
		return to[CT_TCP_CLOSE];
	if (((tc->seen[0].flags | tc->seen[1].flags) & CT_TCPF_DATA_UNACKED) &&
	    to[new_state] > to[CT_TCP_UNACK])
		return to[CT_TCP_UNACK];
	if (tc->last_win == 0 && to[new_state] > to[CT_TCP_RETRANS])
		return to[CT_TCP_RETRANS];
	return to[new_state];
}

/* The tracker's packet(): the fast path, else the general one (ct_tcp_packet_general). */
enum ct_verdict ct_tcp_packet(struct ct_table *t, struct ct_entry *e, const struct pkt *p,
			      enum ct_dir dir, uint64_t now);

#endif

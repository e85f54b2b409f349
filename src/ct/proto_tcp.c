// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * TCP tracking with window tracking, behaving as Linux's nf_conntrack_proto_tcp (6.x): the
 * state machine over SYN / SYN-ACK / FIN / ACK / RST per direction, and Guido van Rooij's
 * "Real Stateful TCP Packet Filtering in IP Filter" window checks, with window scaling and SACK.
 *
 *    0                   1                   2                   3
 *   +-------------------------------+-------------------------------+
 *   |          Source Port          |       Destination Port        |
 *   +-------------------------------+-------------------------------+
 *   |                        Sequence Number                        |
 *   +---------------------------------------------------------------+
 *   |                    Acknowledgment Number                      |
 *   +-------+-------+---------------+-------------------------------+
 *   | doff  |       |C E U A P R S F|            Window             |
 *   +-------+-------+---------------+-------------------------------+
 *   |           Checksum            |         Urgent Pointer        |
 *   +-------------------------------+-------------------------------+
 *   |  options: kind 2 MSS, 3 window scale, 4 SACK-permitted, 5 SACK blocks, ...   |
 *
 * A segment is in window when (sender S, receiver R, end = seq + len + SYN + FIN):
 *   I   seq  <  S.maxend + 1                 not beyond what R allowed
 *   II  end  >  S.end - R.maxwin - 1         not data acknowledged long ago
 *   III ack  <  R.end + 1                    not acknowledging unseen data
 *   IV  ack  >  R.end - max(S.maxwin, 66000) - 1   not an ancient ACK
 * (comparisons in sequence space). Beyond I or III is INVALID, below II or IV is ignored
 * (passed, state untouched), unless the entry or the table is liberal. A segment beyond I only,
 * by no more than R's largest window, is ignored too, its end noted. Connections picked up
 * mid-stream (loose mode) are liberal on both sides.
 *
 * The corner cases (RSTs on closing connections, restarts in SYN_SENT / SYN_RECV, challenge
 * ACKs, stale SYN-ACKs) are decided as Linux 6.18 decides them: tests/diff/run-tcp-corners.sh
 * compares them packet for packet with the kernel's answers, IPv4 and IPv6.
 */
#include <errno.h>
#include <string.h>

#include "ct/proto_tcp.h"

#define sNO CT_TCP_NONE
#define sSS CT_TCP_SYN_SENT
#define sSR CT_TCP_SYN_RECV
#define sES CT_TCP_ESTABLISHED
#define sFW CT_TCP_FIN_WAIT
#define sCW CT_TCP_CLOSE_WAIT
#define sLA CT_TCP_LAST_ACK
#define sTW CT_TCP_TIME_WAIT
#define sCL CT_TCP_CLOSE
#define sS2 CT_TCP_SYN_SENT2
#define sIV CT_TCP_STATE_MAX	   /* invalid packet */
#define sIG (CT_TCP_STATE_MAX + 1) /* ignored: may resynchronise */

/*
 * next state = tcp_next[direction][packet class][current state]. Same transitions as Linux
 * (written down from its documented behaviour):
 *   original SYN starts (or, after TIME_WAIT/CLOSE, restarts) a connection; SYN in reply to a
 *   SYN is a simultaneous open (SYN_SENT2); SYN-ACK answers it; the first ACK after SYN_RECV
 *   establishes; a bare ACK of an unknown connection is picked up as ESTABLISHED (loose);
 *   FIN moves to FIN_WAIT, the other side's FIN to LAST_ACK, the final ACK to TIME_WAIT;
 *   RST closes from any state.
 */
/* clang-format off */
static const uint8_t tcp_next[2][I_MAX][CT_TCP_STATE_MAX] = {
	[CT_DIR_ORIGINAL] = {
		/*	     sNO  sSS  sSR  sES  sFW  sCW  sLA  sTW  sCL  sS2 */
		[I_SYN]    = { sSS, sSS, sIG, sIG, sIG, sIG, sIG, sSS, sSS, sS2 },
		[I_SYNACK] = { sIV, sIV, sSR, sIV, sIV, sIV, sIV, sIV, sIV, sSR },
		[I_FIN]    = { sIV, sIV, sFW, sFW, sLA, sLA, sLA, sTW, sCL, sIV },
		[I_ACK]    = { sES, sIV, sES, sES, sCW, sCW, sTW, sTW, sCL, sIV },
		[I_RST]    = { sIV, sCL, sCL, sCL, sCL, sCL, sCL, sCL, sCL, sCL },
		[I_NONE]   = { sIV, sIV, sIV, sIV, sIV, sIV, sIV, sIV, sIV, sIV },
	},
	[CT_DIR_REPLY] = {
		/*	     sNO  sSS  sSR  sES  sFW  sCW  sLA  sTW  sCL  sS2 */
		[I_SYN]    = { sIV, sS2, sIV, sIV, sIV, sIV, sIV, sSS, sIV, sS2 },
		[I_SYNACK] = { sIV, sSR, sIG, sIG, sIG, sIG, sIG, sIG, sIG, sSR },
		[I_FIN]    = { sIV, sIV, sFW, sFW, sLA, sLA, sLA, sTW, sCL, sIV },
		[I_ACK]    = { sIV, sIG, sSR, sES, sCW, sCW, sTW, sTW, sCL, sIG },
		[I_RST]    = { sIV, sCL, sCL, sCL, sCL, sCL, sCL, sCL, sCL, sCL },
		[I_NONE]   = { sIV, sIV, sIV, sIV, sIV, sIV, sIV, sIV, sIV, sIV },
	},
};

static const char *const tcp_state_names[CT_TCP_STATE_MAX] = {
	[sNO] = "NONE",	       [sSS] = "SYN_SENT",   [sSR] = "SYN_RECV",
	[sES] = "ESTABLISHED", [sFW] = "FIN_WAIT",   [sCW] = "CLOSE_WAIT",
	[sLA] = "LAST_ACK",    [sTW] = "TIME_WAIT",  [sCL] = "CLOSE",
	[sS2] = "SYN_SENT2",
};
/* clang-format on */

/* Flag combinations a valid segment may have (ECE, CWR, PSH aside), as Linux accepts them. */
static bool flags_valid(uint8_t f)
{
	switch (f & ~(PKT_TCP_ECE | PKT_TCP_CWR | PKT_TCP_PSH)) {
	case PKT_TCP_SYN:
	case PKT_TCP_SYN | PKT_TCP_URG:
	case PKT_TCP_SYN | PKT_TCP_ACK:
	case PKT_TCP_RST:
	case PKT_TCP_RST | PKT_TCP_ACK:
	case PKT_TCP_FIN | PKT_TCP_ACK:
	case PKT_TCP_FIN | PKT_TCP_ACK | PKT_TCP_URG:
	case PKT_TCP_ACK:
	case PKT_TCP_ACK | PKT_TCP_URG:
		return true;
	}
	return false;
}

static int seg_read(const struct pkt *p, struct seg *s)
{
	const struct pkt_info *in = &p->info;
	uint8_t buf[60];
	const uint8_t *h;
	uint32_t datalen;

	if (!in->has_l4 || in->tcp_doff < 20 || in->l4len < in->tcp_doff ||
	    !(h = pkt_header(p, in->l4off, in->tcp_doff, buf)))
		return -EINVAL;
	s->seq = (uint32_t)h[4] << 24 | (uint32_t)h[5] << 16 | (uint32_t)h[6] << 8 | h[7];
	s->ack = (uint32_t)h[8] << 24 | (uint32_t)h[9] << 16 | (uint32_t)h[10] << 8 | h[11];
	s->flags = h[13];
	s->win = (uint16_t)(h[14] << 8 | h[15]);
	s->optlen = (uint8_t)(in->tcp_doff - 20);
	memcpy(s->opt, h + 20, s->optlen);
	datalen = in->l4len - in->tcp_doff;
	s->end = s->seq + datalen + !!(s->flags & PKT_TCP_SYN) + !!(s->flags & PKT_TCP_FIN);
	ct_tcp_seg_options(s, s->opt);
	return 0;
}

static int seg_index(uint8_t f)
{
	if (f & PKT_TCP_RST)
		return I_RST;
	if (f & PKT_TCP_SYN)
		return (f & PKT_TCP_ACK) ? I_SYNACK : I_SYN;
	if (f & PKT_TCP_FIN)
		return I_FIN;
	if (f & PKT_TCP_ACK)
		return I_ACK;
	return I_NONE;
}

/*
 * Walk the options once: window scale, SACK-permitted, and the highest SACK right edge.
 * A malformed option (length < 2 or past the header) ends the walk, as in Linux. opt holds
 * s->optlen bytes (s->opt, or the header itself where it lies in one piece).
 */
void ct_tcp_seg_options(struct seg *s, const uint8_t *opt)
{
	unsigned i = 0;

	s->has_wscale = s->sack_perm = s->has_sack = false;
	while (i < s->optlen) {
		uint8_t kind = opt[i], olen;

		if (kind == 0)
			break;
		if (kind == 1) {
			i++;
			continue;
		}
		if (i + 1 >= s->optlen)
			break;
		olen = opt[i + 1];
		if (olen < 2 || i + olen > s->optlen)
			break;
		if (kind == 3 && olen == 3) {
			s->has_wscale = true;
			s->wscale = opt[i + 2] > 14 ? 14 : opt[i + 2];
		} else if (kind == 4 && olen == 2) {
			s->sack_perm = true;
		} else if (kind == 5 && olen >= 10 && (olen - 2) % 8 == 0) {
			for (unsigned b = i + 2; b + 8 <= i + olen; b += 8) {
				const uint8_t *r = opt + b + 4;
				uint32_t edge = (uint32_t)r[0] << 24 | (uint32_t)r[1] << 16 |
						(uint32_t)r[2] << 8 | r[3];

				if (!s->has_sack || ct_seq_after(edge, s->sack_edge))
					s->sack_edge = edge;
				s->has_sack = true;
			}
		}
		i += olen;
	}
}

/*
 * Window scale and SACK-permitted of a SYN into the sender's state. A SYN without options
 * leaves what was there; one with options replaces the option flags and drops the other
 * per-side flags (MAXACK_SET, CLOSE_INIT, ...) but never the liberal mark.
 */
static void tcp_options(const struct seg *s, struct ct_tcp_dir *d)
{
	if (s->optlen == 0)
		return;
	d->td_scale = 0;
	d->flags &= CT_TCPF_BE_LIBERAL;
	if (s->sack_perm)
		d->flags |= CT_TCPF_SACK_PERM;
	if (s->has_wscale) {
		d->td_scale = s->wscale;
		d->flags |= CT_TCPF_WINDOW_SCALE;
	}
}

/*
 * (Re)start one side's window tracking from its SYN or SYN-ACK. Scaling is on only when both
 * sides offered it (RFC 7323), decided when the answering side's SYN-ACK (or SYN) is seen.
 */
static void tcp_init_sender(const struct seg *s, struct ct_tcp_dir *sender,
			    struct ct_tcp_dir *receiver, enum ct_dir dir)
{
	sender->td_end = sender->td_maxend = s->end;
	sender->td_maxwin = s->win ? s->win : 1;
	tcp_options(s, sender);
	if (dir == CT_DIR_REPLY &&
	    !((sender->flags & CT_TCPF_WINDOW_SCALE) && (receiver->flags & CT_TCPF_WINDOW_SCALE)))
		sender->td_scale = receiver->td_scale = 0;
}

enum win_result { WIN_ACCEPT, WIN_IGNORE, WIN_INVALID };

/* An out-of-window verdict, unless the sender or the whole table is liberal. */
static enum win_result win_refuse(const struct ct_table *t, struct ct_tcp *tc,
				  const struct ct_tcp_dir *sender, enum win_result r)
{
	tc->pickup |= CT_PICKUP_REFUSED; /* (only read while a taken-over entry is liberal) */
	return (sender->flags & CT_TCPF_BE_LIBERAL) || t->cfg.tcp_be_liberal ? WIN_ACCEPT : r;
}

static enum win_result tcp_in_window(struct ct_table *t, struct ct_entry *e, enum ct_dir dir,
				     int index, const struct seg *s)
{
	struct ct_tcp *tc = &e->proto.tcp;
	struct ct_tcp_dir *sender = &tc->seen[dir], *receiver = &tc->seen[!dir];
	uint32_t seq = s->seq, ack = s->ack, end = s->end, win = s->win, sack, swin;

	sack = ack;
	if ((receiver->flags & CT_TCPF_SACK_PERM) && (s->flags & PKT_TCP_ACK))
		sack = tcp_sack(s, ack);
	if (s->flags & PKT_TCP_ACK) {
		/* a NAT helper resized the receiver's stream: its acknowledgements come in the
		 * numbers the sender saw after the change (src/nat/seqadj.c); back to ours */
		uint32_t off = (uint32_t)ct_seqadj_ack_offset(e, !dir, ack);

		ack -= off;
		sack -= off;
	}

	if (sender->td_maxwin == 0) {
		/* the first segment seen from this side */
		if (s->flags & PKT_TCP_SYN) {
			tcp_init_sender(s, sender, receiver, dir);
			if (!(s->flags & PKT_TCP_ACK))
				return WIN_ACCEPT; /* simultaneous open */
		} else {
			/* mid-stream: take what this segment says */
			sender->td_end = end;
			swin = win << sender->td_scale;
			sender->td_maxwin = swin ? swin : 1;
			sender->td_maxend = end + sender->td_maxwin;
			if (receiver->td_maxwin == 0)
				receiver->td_end = receiver->td_maxend = sack;
			else if (sack == receiver->td_end + 1)
				receiver->td_end++; /* answer to a keep-alive */
		}
	} else if ((s->flags & PKT_TCP_SYN) && ct_seq_after(end, sender->td_end) &&
		   (tc->state == sSS || tc->state == sSR)) {
		/* a SYN or SYN-ACK from a side that started over with a higher initial sequence
		 * number (RFC 793 lets a restarted TCP do so at once): track it from here. Only a
		 * SYN does this; any other segment of the handshake is checked as it is. */
		tcp_init_sender(s, sender, receiver, dir);
		if (dir == CT_DIR_REPLY && !(s->flags & PKT_TCP_ACK))
			return WIN_ACCEPT;
	}

	if (!(s->flags & PKT_TCP_ACK)) {
		ack = sack = receiver->td_end; /* no ACK: as if it acknowledged what we saw */
	} else if ((s->flags & (PKT_TCP_ACK | PKT_TCP_RST)) == (PKT_TCP_ACK | PKT_TCP_RST) &&
		   ack == 0) {
		ack = sack = receiver->td_end; /* stacks that send RST+ACK with ack 0 */
	}
	if ((s->flags & PKT_TCP_RST) && seq == 0 && tc->state == sSS)
		seq = end = sender->td_end; /* RST answering a SYN, from stacks that zero seq */

	if (!ct_seq_before(seq, sender->td_maxend + 1)) {
		/* I: beyond what the receiver allowed. When only that fails and by no more than
		 * the receiver's largest window (a window update the tracker never saw, or a
		 * sender overrunning it), let it pass unchecked but note where the data ends, so
		 * that the receiver's ACK of it is not refused in turn (the ACK-loss stall). */
		uint32_t overshot = end - sender->td_maxend + 1;

		if (receiver->td_maxwin &&
		    ct_seq_after(end, sender->td_end - receiver->td_maxwin - 1) &&
		    ct_seq_after(sack, receiver->td_end - max_ack_window(sender) - 1) &&
		    overshot <= receiver->td_maxwin && ct_seq_before(sack, receiver->td_end + 1)) {
			sender->td_end = end;
			sender->flags |= CT_TCPF_DATA_UNACKED;
			return win_refuse(t, tc, sender, WIN_IGNORE);
		}
		return win_refuse(t, tc, sender, WIN_INVALID);
	}
	/* III: acknowledging data never sent */
	if (!ct_seq_before(sack, receiver->td_end + 1))
		return win_refuse(t, tc, sender, WIN_INVALID);
	/* II: data acknowledged long ago (a late retransmission): passes, state untouched */
	if (receiver->td_maxwin && !ct_seq_after(end, sender->td_end - receiver->td_maxwin - 1))
		return win_refuse(t, tc, sender, WIN_IGNORE);
	/* IV: an overly delayed ACK, likewise */
	if (!ct_seq_after(sack, receiver->td_end - max_ack_window(sender) - 1))
		return win_refuse(t, tc, sender, WIN_IGNORE);

	tcp_window_update(sender, receiver, s->flags, s->win, end, ack, sack);
	if (index == I_ACK)
		tcp_retrans_note(tc, dir, s->win, seq, end, ack);
	return WIN_ACCEPT;
}

static int tcp_pkt_to_tuple(const struct pkt *p, uint32_t off, uint32_t len, struct ct_tuple *t)
{
	uint8_t buf[4];
	const uint8_t *h;

	/* 8 bytes: what an ICMP error must quote at least */
	if (len < 8 || !(h = pkt_header(p, off, 4, buf)))
		return -EINVAL;
	t->s.port = (uint16_t)(h[0] << 8 | h[1]);
	t->d.port = (uint16_t)(h[2] << 8 | h[3]);
	return 0;
}

static int tcp_invert(struct ct_tuple *reply, const struct ct_tuple *orig)
{
	reply->s.port = orig->d.port;
	reply->d.port = orig->s.port;
	return 0;
}

static int tcp_error(struct ct_table *t, struct pkt *p, bool from_outside, uint16_t zone,
		     uint64_t now)
{
	const struct pkt_info *in = &p->info;

	if (!in->has_l4 || in->tcp_doff < 20 || in->l4len < in->tcp_doff ||
	    !flags_valid(in->tcp_flags))
		return -EINVAL;
	/* the checksum last (either failure is INVALID): a tail call, nothing kept across it */
	if (from_outside && t->cfg.checksum)
		return pkt_l4_csum_check(p) ? 0 : -EINVAL;
	return 0;
}

static bool tcp_new(struct ct_table *t, struct ct_entry *e, const struct pkt *p, uint64_t now)
{
	struct ct_tcp *tc = &e->proto.tcp;
	struct seg s;
	int next;

	if (seg_read(p, &s) < 0)
		return false;
	next = tcp_next[CT_DIR_ORIGINAL][seg_index(s.flags)][sNO];
	memset(tc, 0, sizeof(*tc));
	if (next == sSS) {
		tc->seen[0].td_end = s.end;
		tc->seen[0].td_maxwin = s.win ? s.win : 1;
		tc->seen[0].td_maxend = s.end;
		tcp_options(&s, &tc->seen[0]);
	} else if (next == sES && t->cfg.tcp_loose) {
		/* picked up mid-stream: the history is lost, trust the segment, be liberal */
		tc->seen[0].td_end = s.end;
		tc->seen[0].td_maxwin = s.win ? s.win : 1;
		tc->seen[0].td_maxend = s.end + tc->seen[0].td_maxwin;
		tc->seen[0].flags = tc->seen[1].flags = CT_TCPF_SACK_PERM | CT_TCPF_BE_LIBERAL;
	} else {
		return false;
	}
	tc->state = sNO;
	tc->last_index = I_NONE;
	return true;
}

/* ESTABLISHED and assured: a connection whose handshake the tracker saw complete. */
static bool tcp_established(const struct ct_entry *e)
{
	return e->proto.tcp.state == sES && (e->status & CT_S_ASSURED);
}

/* The states of a connection that is going away (either side sent a FIN, or an RST). */
static bool tcp_closing(uint8_t state)
{
	return state == sFW || state == sCW || state == sLA || state == sTW || state == sCL;
}

enum rst_result {
	RST_WINDOW,    /* check it against the window as any segment */
	RST_UNCHECKED, /* take it as it is, no window check */
	RST_INVALID,   /* below what the peer acknowledged: INVALID */
};

/*
 * What to make of an RST before the window check (RFC 5961 and the kernel's handling of it).
 * A connection already closing may have been reused by now, its numbers are stale: its RSTs
 * are taken unchecked. Otherwise an RST below what the peer acknowledged is INVALID, and in an
 * established connection only one at exactly that number (or right after this side's data)
 * closes it: another keeps the state (*keep) so that a challenge ACK can follow. Two RSTs are
 * taken unchecked: one answering a SYN or an ACK the tracker let through ignored, and in
 * SYN_SENT one at the number of the challenge ACK a SYN drew.
 */
static enum rst_result tcp_rst_check(const struct ct_entry *e, enum ct_dir dir, const struct seg *s,
				     bool *keep)
{
	const struct ct_tcp *tc = &e->proto.tcp;
	const struct ct_tcp_dir *peer = &tc->seen[!dir];

	*keep = false;
	if (tcp_closing(tc->state))
		return RST_UNCHECKED;
	/* after a SYN let through, what the peer acknowledged may be out of date */
	if ((peer->flags & CT_TCPF_MAXACK_SET) && tc->last_index != I_SYN) {
		if (s->seq == 0 && !tcp_established(e))
			return RST_WINDOW; /* most likely the answer to a SYN let through */
		if (ct_seq_before(s->seq, peer->td_maxack))
			return RST_INVALID;
		if (!tcp_established(e) || s->seq == peer->td_maxack)
			return RST_WINDOW;
		if (tc->last_index == I_ACK && tc->last_dir == dir && s->seq == tc->last_end)
			return RST_WINDOW; /* right after this side's data */
		*keep = true;
	}
	if ((((e->status & CT_S_SEEN_REPLY) && tc->last_index == I_SYN) ||
	     (!(e->status & CT_S_ASSURED) && tc->last_index == I_ACK)) &&
	    s->ack == tc->last_end)
		return RST_UNCHECKED; /* answers a SYN or ACK let through ignored */
	if (tc->state == sSS && tc->last_index == I_ACK && tc->last_dir == CT_DIR_REPLY &&
	    s->seq == tc->last_ack)
		return RST_UNCHECKED; /* at the challenge ACK's number */
	return RST_WINDOW;
}

/*
 * A FIN or RST of an assured connection found out of window: the two ends and the tracker
 * may be out of step. Remember it; when it answers the other side's FIN or RST, shorten a
 * long timeout to the unacknowledged one so that the entry does not linger.
 */
static void tcp_invalid_close(struct ct_table *t, struct ct_entry *e, enum ct_dir dir, int index,
			      uint64_t now)
{
	struct ct_tcp *tc = &e->proto.tcp;
	uint64_t left, unack;

	if (!(e->status & CT_S_ASSURED) || (index != I_RST && index != I_FIN))
		return;
	if (tc->last_dir == dir || (tc->last_index != I_FIN && tc->last_index != I_RST)) {
		tc->last_index = (uint8_t)index;
		tc->last_dir = (uint8_t)dir;
		return;
	}
	left = e->expires > now ? e->expires - now : 0;
	unack = ct_timeouts_of(t, e)->tcp[CT_TCP_UNACK];
	if (left >= 120 * CT_SEC && left > unack)
		ct_refresh(e, now, unack);
}

/*
 * A taken-over connection (ct_entry_set_tcp_pickup) is liberal while the windows it learns from
 * the segments catch up with the stream: segments the old box forwarded are acknowledged now,
 * beyond anything this box saw. Once a segment of each direction passed the window checks
 * as they are (not thanks to being liberal), with no refusal in between, it is tracked
 * strictly.
 */
static void tcp_pickup_step(struct ct_tcp *tc, enum ct_dir dir)
{
	if (tc->pickup & CT_PICKUP_REFUSED) {
		tc->pickup = CT_PICKUP_ON;
		return;
	}
	if (tc->seen[0].td_maxwin && tc->seen[1].td_maxwin)
		tc->pickup |= dir == CT_DIR_ORIGINAL ? CT_PICKUP_CLEAN_ORIG : CT_PICKUP_CLEAN_REPLY;
	if ((tc->pickup & CT_PICKUP_CLEAN_ORIG) && (tc->pickup & CT_PICKUP_CLEAN_REPLY)) {
		tc->pickup = 0;
		tc->seen[0].flags &= (uint8_t)~CT_TCPF_BE_LIBERAL;
		tc->seen[1].flags &= (uint8_t)~CT_TCPF_BE_LIBERAL;
	}
}

enum ct_verdict ct_tcp_packet_general(struct ct_table *t, struct ct_entry *e, const struct pkt *p,
				      enum ct_dir dir, uint64_t now)
{
	const uint64_t *to = ct_timeouts_of(t, e)->tcp;
	struct ct_tcp *tc = &e->proto.tcp;
	int old_state = tc->state, new_state, index;
	uint64_t timeout;
	struct seg s;
	bool keep;

	if (seg_read(p, &s) < 0)
		return CT_INVALID;
	index = seg_index(s.flags);
	new_state = tcp_next[dir][index][old_state];

	switch (new_state) {
	case sSS:
		if (old_state < sTW)
			break;
		/* a SYN after the connection closed: a new one, when this side or the peer had
		 * closed it properly or it was reset from this side */
		if (((tc->seen[dir].flags | tc->seen[!dir].flags) & CT_TCPF_CLOSE_INIT) ||
		    (tc->last_dir == dir && tc->last_index == I_RST)) {
			ct_kill(t, e);
			return CT_REPEAT;
		}
		/* fall through */
	case sIG:
		if (index == I_SYNACK && tc->last_index == I_SYN && tc->last_dir != dir &&
		    s.ack == tc->last_end) {
			/* this SYN-ACK answers a SYN we ignored: both ends are in sync and we
			 * are not; resynchronise from what we noted of that SYN */
			struct ct_tcp_dir *o = &tc->seen[tc->last_dir], *d = &tc->seen[dir];

			old_state = sSS;
			new_state = sSR;
			o->td_end = o->td_maxend = tc->last_end;
			o->td_maxwin = tc->last_win ? tc->last_win : 1;
			o->td_scale = tc->last_wscale;
			tc->last_flags &= (uint8_t)~CT_TCPF_EXP_CHALLENGE_ACK;
			o->flags = tc->last_flags;
			d->td_end = d->td_maxend = d->td_maxwin = d->td_maxack = 0;
			d->td_scale = 0;
			d->flags &= CT_TCPF_BE_LIBERAL;
			break;
		}
		tc->last_index = (uint8_t)index;
		tc->last_dir = (uint8_t)dir;
		tc->last_seq = s.seq;
		tc->last_end = s.end;
		tc->last_win = s.win;
		if (index == I_SYN && dir == CT_DIR_ORIGINAL) {
			struct ct_tcp_dir seen = {0};

			tc->last_flags = tc->last_wscale = 0;
			tcp_options(&s, &seen);
			if (seen.flags & CT_TCPF_WINDOW_SCALE) {
				tc->last_flags |= CT_TCPF_WINDOW_SCALE;
				tc->last_wscale = seen.td_scale;
			}
			if (seen.flags & CT_TCPF_SACK_PERM)
				tc->last_flags |= CT_TCPF_SACK_PERM;
			/* RFC 5961: the peer may answer with a challenge ACK, which in LAST_ACK
			 * would look like the last ACK */
			if (old_state == sLA)
				tc->last_flags |= CT_TCPF_EXP_CHALLENGE_ACK;
		}
		/* perhaps the challenge ACK a SYN draws from a peer that holds a connection:
		 * the client's RST at its number is then let through (tcp_rst_check) */
		if (old_state == sSS && index == I_ACK && dir == CT_DIR_REPLY)
			tc->last_ack = s.ack;
		t->stats.ignore++;
		return CT_ACCEPT; /* let it through, state unchanged */
	case sIV:
		return CT_INVALID;
	case sTW:
		if (old_state == sLA && index == I_ACK && tc->last_dir != dir &&
		    tc->last_index == I_SYN && (tc->last_flags & CT_TCPF_EXP_CHALLENGE_ACK)) {
			/* the challenge ACK a SYN in LAST_ACK provokes, not the last ACK */
			tc->last_flags &= (uint8_t)~CT_TCPF_EXP_CHALLENGE_ACK;
			return CT_ACCEPT;
		}
		break;
	case sS2:
		tc->last_flags |= CT_TCPF_SIMULTANEOUS_OPEN;
		break;
	case sSR:
		if (dir == CT_DIR_REPLY && index == I_ACK &&
		    (tc->last_flags & CT_TCPF_SIMULTANEOUS_OPEN))
			new_state = sES;
		break;
	case sCL:
		if (index != I_RST)
			break;
		switch (tcp_rst_check(e, dir, &s, &keep)) {
		case RST_INVALID:
			return CT_INVALID;
		case RST_UNCHECKED:
			goto in_window;
		case RST_WINDOW:
			if (keep)
				new_state = old_state;
			break;
		}
		break;
	default:
		break;
	}

	tc->pickup &= (uint8_t)~CT_PICKUP_REFUSED;
	switch (tcp_in_window(t, e, dir, index, &s)) {
	case WIN_ACCEPT:
		if (tc->pickup & CT_PICKUP_ON)
			tcp_pickup_step(tc, dir);
		break;
	case WIN_IGNORE:
		t->stats.ignore++;
		return CT_ACCEPT;
	case WIN_INVALID:
		tcp_invalid_close(t, e, dir, index, now);
		return CT_INVALID;
	}

in_window:
	tc->last_index = (uint8_t)index;
	tc->last_dir = (uint8_t)dir;
	tc->state = (uint8_t)new_state;
	if (old_state != new_state && new_state == sFW)
		tc->seen[dir].flags |= CT_TCPF_CLOSE_INIT;

	timeout = tcp_timeout(t, tc, to, new_state, index);

	if (new_state != old_state)
		ct_event_cache(e, CT_EV_PROTOINFO);

	if (!(e->status & CT_S_SEEN_REPLY)) {
		/* a RST as the only answer: no connection was made, forget it at once */
		if (s.flags & PKT_TCP_RST) {
			ct_refresh(e, now, timeout);
			ct_kill(t, e);
			return CT_ACCEPT;
		}
		/* a retransmitted SYN does not extend the entry's life: else a client or a NAT
		 * reusing the port could keep it (and its mapping) alive for ever */
		if (index == I_SYN && old_state == sSS)
			return CT_ACCEPT;
		/* picked up mid-stream and never answered: no five-day timeout */
		if (new_state == sES && timeout > to[CT_TCP_UNACK])
			timeout = to[CT_TCP_UNACK];
	} else if (!(e->status & CT_S_ASSURED) && (old_state == sSR || old_state == sES) &&
		   new_state == sES) {
		/* a valid ACK after SYN_RECV, or an answer in a picked-up connection */
		ct_set_status(t, e, CT_S_ASSURED, CT_EV_ASSURED);
	}
	ct_refresh(e, now, timeout);
	return CT_ACCEPT;
}

static const char *tcp_state_name(const struct ct_entry *e)
{
	return e->proto.tcp.state < CT_TCP_STATE_MAX ? tcp_state_names[e->proto.tcp.state] : "?";
}

const struct ct_proto_ops ct_proto_tcp = {
    .l4proto = 6,
    .name = "tcp",
    .pkt_to_tuple = tcp_pkt_to_tuple,
    .invert = tcp_invert,
    .error = tcp_error,
    .new_conn = tcp_new,
    .packet = ct_tcp_packet,
    .print_tuple = ct_print_ports,
    .state_name = tcp_state_name,
};

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Sequence adjustment after a NAT helper resized a TCP segment (seqadj.h explains when and
 * where). The fields it rewrites:
 *
 *   TCP header   +4 sequence number       this direction's offset added
 *                +8 acknowledgement       the other direction's offset subtracted (ACK set)
 *                +16 checksum             RFC 1624 update per 32-bit word changed
 *   options      kind 5 (SACK), len 2 + 8n: n blocks | left edge | right edge |
 *                                         the other direction's offset subtracted
 */
#include <errno.h>
#include <netinet/in.h>

#include "ct/ct_int.h"
#include "nat/seqadj.h"

int nat_seqadj_set(struct ct_table *t, struct ct_entry *e, enum ct_dir dir, uint32_t seq,
		   int32_t delta)
{
	struct ct_seqadj *sa;
	struct ct_seqadj_dir *d;

	if (!delta)
		return 0;
	sa = ct_ext_add(t, e, CT_EXT_SEQADJ);
	if (!sa)
		return -ENOMEM;
	d = &sa->dir[dir];
	/* a first resizing, or one of a later segment: the boundary moves there; the resized
	 * segment sent again (at the boundary) or an older one keeps the offsets as they are */
	if (d->offset_before == d->offset_after || ct_seq_before(d->correction_pos, seq)) {
		d->correction_pos = seq;
		d->offset_before = d->offset_after;
		d->offset_after += delta;
	}
	return 0;
}

int32_t nat_seqadj_offset(const struct ct_entry *e, enum ct_dir dir, uint32_t seq)
{
	const struct ct_seqadj *sa = ct_ext_get(e, CT_EXT_SEQADJ);
	const struct ct_seqadj_dir *d;

	if (!sa)
		return 0;
	d = &sa->dir[dir];
	return ct_seq_after(seq, d->correction_pos) ? d->offset_after : d->offset_before;
}

static void wr32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

/*
 * Replace the 32-bit number at h[off] (h: the TCP header, from its first byte) by v, keeping
 * the checksum right: per 16-bit word of the header it touches, so an option at an odd
 * offset (a SACK block after one NOP) is handled too.
 */
static void replace(uint8_t *h, uint32_t off, uint32_t v, uint16_t *check)
{
	uint32_t lo = off & ~1u, words = ((off + 5) & ~1u) / 2 - lo / 2;
	uint16_t old[3];

	if (pkt_get32(h + off) == v)
		return;
	for (uint32_t i = 0; i < words; i++)
		old[i] = (uint16_t)(h[lo + 2 * i] << 8 | h[lo + 2 * i + 1]);
	wr32(h + off, v);
	for (uint32_t i = 0; i < words; i++)
		*check = pkt_csum_replace2(*check, old[i],
					   (uint16_t)(h[lo + 2 * i] << 8 | h[lo + 2 * i + 1]));
}

/* The SACK blocks in the options h[20..doff): edges of the other direction's stream. */
static void sack_adjust(const struct ct_entry *e, enum ct_dir stream, uint8_t *h, uint32_t doff,
			uint16_t *check)
{
	uint32_t i = 20, n = doff;

	while (i < n) {
		uint8_t kind = h[i], len;

		if (kind == 0)
			return;
		if (kind == 1) {
			i++;
			continue;
		}
		if (i + 1 >= n || (len = h[i + 1]) < 2 || i + len > n)
			return; /* malformed: left as it is (conntrack judged the packet) */
		if (kind == 5 && len >= 10 && (len - 2) % 8 == 0) {
			for (uint32_t b = i + 2; b + 4 <= i + len; b += 4) {
				uint32_t edge = pkt_get32(h + b);

				replace(h, b,
					edge - (uint32_t)ct_seqadj_ack_offset(e, stream, edge),
					check);
			}
		}
		i += len;
	}
}

int nat_seqadj_apply(struct pkt *p)
{
	const struct pkt_info *in = &p->info;
	struct ct_entry *e = ct_pkt_entry(p);
	uint8_t h[60];
	unsigned ci;
	enum ct_dir dir;
	uint32_t seq, doff;
	uint16_t check;

	if (!e || !ct_ext_get(e, CT_EXT_SEQADJ))
		return 0;
	if (!in->has_l4 || in->l4proto != IPPROTO_TCP || in->is_fragment)
		return 0;
	ci = ct_pkt_ctinfo(p);
	if (ci == CT_RELATED || ci == CT_RELATED_REPLY)
		return 0;
	dir = ci >= CT_IS_REPLY ? CT_DIR_REPLY : CT_DIR_ORIGINAL;
	doff = in->tcp_doff;
	if (doff < 20 || doff > sizeof(h) || pkt_copy_out(p, in->l4off, h, doff))
		return -EINVAL;
	check = (uint16_t)(h[16] << 8 | h[17]);
	seq = pkt_get32(h + 4);
	replace(h, 4, seq + (uint32_t)nat_seqadj_offset(e, dir, seq), &check);
	if (h[13] & 0x10) {
		uint32_t ack = pkt_get32(h + 8);

		replace(h, 8, ack - (uint32_t)ct_seqadj_ack_offset(e, !dir, ack), &check);
		sack_adjust(e, !dir, h, doff, &check);
	}
	h[16] = (uint8_t)(check >> 8);
	h[17] = (uint8_t)check;
	return pkt_store(p, in->l4off, h, doff);
}

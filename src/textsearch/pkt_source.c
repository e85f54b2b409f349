// SPDX-License-Identifier: GPL-2.0-or-later
/* A packet range as a textsearch source (textsearch/pkt_source.h). */
#include "textsearch/pkt_source.h"

static uint32_t pkt_next_block(void *arg, uint32_t consumed, const uint8_t **block)
{
	struct ts_pkt_range *r = arg;
	uint32_t at, in;

	if (consumed >= r->len)
		return 0;
	at = r->off + consumed;
	if (at < r->seg_start) { /* a restart behind the last block: from the first segment */
		r->seg = 0;
		r->seg_start = 0;
	}
	while (r->seg < r->p->nsegs && at >= r->seg_start + r->p->seg[r->seg].len) {
		r->seg_start += r->p->seg[r->seg].len;
		r->seg++;
	}
	if (r->seg >= r->p->nsegs)
		return 0;
	in = r->p->seg[r->seg].len - (at - r->seg_start);
	*block = r->p->seg[r->seg].data + (at - r->seg_start);
	return in < r->len - consumed ? in : r->len - consumed;
}

struct ts_source ts_pkt_source(struct ts_pkt_range *r, const struct pkt *p, uint32_t off,
			       uint32_t len)
{
	if (off > p->len)
		off = p->len;
	if (len > p->len - off)
		len = p->len - off;
	*r = (struct ts_pkt_range){.p = p, .off = off, .len = len};
	return (struct ts_source){.next_block = pkt_next_block, .arg = r};
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The segmented packet buffer.
 *
 *   offset 0                                                         p->len
 *   |<-- seg[0].len -->|<----- seg[1].len ----->|<- seg[2].len ->|
 *   [..................][.......................][................]
 *                 ^ off            ^ off+len: a range may span any number of segments
 *
 * Every access takes an absolute offset and walks the (at most PKT_MAX_SEGS) segments; nothing
 * here ever reads past a segment's len.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pkt/pkt.h"

static bool range_ok(const struct pkt *p, uint32_t off, uint32_t len)
{
	return (uint64_t)off + len <= p->len;
}

/* Index of the segment holding byte `off` and the offset inside it; off must be < p->len. */
static unsigned seg_find(const struct pkt *p, uint32_t off, uint32_t *inner)
{
	unsigned i;

	for (i = 0; i < p->nsegs; i++) {
		if (off < p->seg[i].len)
			break;
		off -= p->seg[i].len;
	}
	*inner = off;
	return i;
}

static struct pkt *pkt_new(void)
{
	return calloc(1, sizeof(struct pkt));
}

struct pkt *pkt_alloc(uint32_t len)
{
	struct pkt *p;
	uint8_t *d;

	if (len > PKT_MAX_LEN)
		return NULL;
	p = pkt_new();
	d = calloc(1, len ? len : 1);
	if (!p || !d) {
		free(p);
		free(d);
		return NULL;
	}
	p->seg[0].data = d;
	p->seg[0].len = len;
	p->own[0] = d;
	p->nsegs = 1;
	p->len = len;
	return p;
}

struct pkt *pkt_from_bytes(const void *data, uint32_t len)
{
	struct pkt *p = pkt_alloc(len);

	if (p && len)
		memcpy(p->seg[0].data, data, len);
	return p;
}

struct pkt *pkt_from_bytes_cuts(const void *data, uint32_t len, const uint32_t *cuts,
				unsigned ncuts)
{
	const uint8_t *src = data;
	uint32_t start = 0;
	struct pkt *p;
	unsigned i;

	if (len > PKT_MAX_LEN || ncuts >= PKT_MAX_SEGS)
		return NULL;
	for (i = 0; i < ncuts; i++)
		if (cuts[i] == 0 || cuts[i] >= len || (i && cuts[i] <= cuts[i - 1]))
			return NULL;
	p = pkt_new();
	if (!p)
		return NULL;
	for (i = 0; i <= ncuts; i++) {
		uint32_t end = i < ncuts ? cuts[i] : len;
		uint32_t n = end - start;
		/* Exactly n bytes (1 for an empty packet), so ASan flags any overrun. */
		uint8_t *d = malloc(n ? n : 1);

		if (!d) {
			pkt_free(p);
			return NULL;
		}
		if (n)
			memcpy(d, src + start, n);
		p->seg[i].data = d;
		p->seg[i].len = n;
		p->own[i] = d;
		p->nsegs = i + 1;
		start = end;
	}
	p->len = len;
	return p;
}

struct pkt *pkt_from_bytes_split(const void *data, uint32_t len, uint32_t chunk)
{
	uint32_t cuts[PKT_MAX_SEGS];
	unsigned n = 0;
	uint32_t off;

	if (chunk == 0)
		return NULL;
	for (off = chunk; off < len && n < PKT_MAX_SEGS - 1; off += chunk)
		cuts[n++] = off;
	return pkt_from_bytes_cuts(data, len, cuts, n);
}

int pkt_init_segs(struct pkt *p, const struct pkt_seg *segs, unsigned nsegs)
{
	uint64_t total = 0;
	unsigned i;

	if (nsegs > PKT_MAX_SEGS)
		return -EINVAL;
	for (i = 0; i < nsegs; i++)
		total += segs[i].len;
	if (total > PKT_MAX_LEN)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	for (i = 0; i < nsegs; i++)
		p->seg[i] = segs[i];
	p->nsegs = nsegs;
	p->len = (uint32_t)total;
	return 0;
}

void pkt_release(struct pkt *p)
{
	unsigned i;

	if (!p)
		return;
	for (i = 0; i < PKT_MAX_SEGS; i++) {
		free(p->own[i]);
		p->own[i] = NULL;
	}
}

void pkt_free(struct pkt *p)
{
	if (p && p->pool) {
		pkt_pool_put(p);
		return;
	}
	pkt_release(p);
	free(p);
}

struct pkt *pkt_clone(const struct pkt *p)
{
	struct pkt *c = pkt_alloc(p->len);

	if (!c)
		return NULL;
	if (pkt_copy_out(p, 0, c->seg[0].data, p->len)) {
		pkt_free(c);
		return NULL;
	}
	/* Everything but the buffer description. */
	c->info = p->info;
	c->meta = p->meta;
	c->gso_size = p->gso_size;
	c->gso_type = p->gso_type;
	c->csum_partial = p->csum_partial;
	return c;
}

struct pkt *pkt_reframe(const struct pkt *p, enum pkt_link have, enum pkt_link want,
			const uint8_t src[6], const uint8_t dst[6])
{
	static const uint8_t zero[6];
	uint32_t l3 = 0, hl = want == PKT_LINK_ETHERNET ? 14 : 0;
	uint8_t v = 0, *d;
	struct pkt *n;

	if (have == PKT_LINK_ETHERNET)
		l3 = p->info.family ? p->info.l3off : 14;
	if (l3 > p->len)
		l3 = p->len;
	n = pkt_alloc(hl + p->len - l3);
	if (!n)
		return NULL;
	d = pkt_linear_data(n);
	if (pkt_copy_out(p, l3, d + hl, p->len - l3)) {
		pkt_free(n);
		return NULL;
	}
	if (hl) {
		if (p->len > l3)
			v = d[hl] >> 4;
		memcpy(d, dst ? dst : zero, 6);
		memcpy(d + 6, src ? src : zero, 6);
		d[12] = v == 6 ? 0x86 : 0x08;
		d[13] = v == 6 ? 0xdd : 0x00;
	}
	n->meta = p->meta;
	n->gso_size = p->gso_size;
	n->gso_type = p->gso_type;
	n->csum_partial = p->csum_partial;
	pkt_parse(n, want, false);
	return n;
}

int pkt_for_each_block(const struct pkt *p, uint32_t off, uint32_t len,
		       int (*fn)(const uint8_t *data, uint32_t len, void *arg), void *arg)
{
	uint32_t inner;
	unsigned i;

	if (!range_ok(p, off, len))
		return -EFAULT;
	if (len == 0)
		return 0;
	for (i = seg_find(p, off, &inner); i < p->nsegs && len; i++, inner = 0) {
		uint32_t n = p->seg[i].len - inner;
		int ret;

		if (n == 0)
			continue;
		if (n > len)
			n = len;
		ret = fn(p->seg[i].data + inner, n, arg);
		if (ret)
			return ret;
		len -= n;
	}
	return 0;
}

struct copy_state {
	uint8_t *dst;
};

static int copy_block(const uint8_t *data, uint32_t len, void *arg)
{
	struct copy_state *st = arg;

	memcpy(st->dst, data, len);
	st->dst += len;
	return 0;
}

int pkt_copy_out_across(const struct pkt *p, uint32_t off, void *dst, uint32_t len)
{
	struct copy_state st = {.dst = dst};

	return pkt_for_each_block(p, off, len, copy_block, &st);
}

const void *pkt_header_across(const struct pkt *p, uint32_t off, uint32_t len, void *buf)
{
	uint32_t inner;
	unsigned i;

	if (!range_ok(p, off, len))
		return NULL;
	if (len == 0)
		return buf;
	i = seg_find(p, off, &inner);
	if (p->seg[i].len - inner >= len)
		return p->seg[i].data + inner;
	if (pkt_copy_out(p, off, buf, len))
		return NULL;
	return buf;
}

int pkt_store_across(struct pkt *p, uint32_t off, const void *src, uint32_t len)
{
	const uint8_t *s = src;
	uint32_t inner;
	unsigned i;

	if (!range_ok(p, off, len))
		return -EFAULT;
	if (len == 0)
		return 0;
	p->written = true;
	for (i = seg_find(p, off, &inner); i < p->nsegs && len; i++, inner = 0) {
		uint32_t n = p->seg[i].len - inner;

		if (n > len)
			n = len;
		memcpy(p->seg[i].data + inner, s, n);
		s += n;
		len -= n;
	}
	return 0;
}

/* Replace the data by one owned block of `cap` bytes (>= p->len) holding a copy of it. */
static int make_owned_linear(struct pkt *p, uint32_t cap)
{
	uint8_t *d = malloc(cap ? cap : 1);
	unsigned i;

	if (!d)
		return -ENOMEM;
	if (pkt_copy_out(p, 0, d, p->len)) {
		free(d);
		return -EFAULT;
	}
	for (i = 0; i < PKT_MAX_SEGS; i++) {
		free(p->own[i]);
		p->own[i] = NULL;
		p->seg[i].data = NULL;
		p->seg[i].len = 0;
	}
	p->seg[0].data = d;
	p->seg[0].len = p->len;
	p->own[0] = d;
	p->nsegs = 1;
	return 0;
}

bool pkt_lent(const struct pkt *p)
{
	for (unsigned i = 0; i < p->nsegs; i++)
		if (p->seg[i].len && !p->own[i] && !pkt_pool_buffer(p, p->seg[i].data))
			return true;
	return false;
}

int pkt_keep(struct pkt *p)
{
	if (!pkt_lent(p))
		return 0;
	if (make_owned_linear(p, p->len))
		return -ENOMEM;
	if (p->pool)
		pkt_pool_detach(p);
	return 0;
}

int pkt_linearize(struct pkt *p)
{
	if (p->nsegs == 1)
		return 0;
	return make_owned_linear(p, p->len);
}

uint8_t *pkt_linear_data(struct pkt *p)
{
	return p->nsegs == 1 ? p->seg[0].data : NULL;
}

void pkt_trim(struct pkt *p, uint32_t len)
{
	uint32_t left = len;
	unsigned i;

	if (len >= p->len)
		return;
	p->written = true;
	for (i = 0; i < p->nsegs; i++) {
		if (p->seg[i].len > left)
			p->seg[i].len = left;
		left -= p->seg[i].len;
	}
	p->len = len;
}

int pkt_splice(struct pkt *p, uint32_t off, uint32_t oldlen, const void *src, uint32_t newlen)
{
	uint64_t total;
	uint32_t tail;
	uint8_t *d;
	int ret;

	if (!range_ok(p, off, oldlen))
		return -EFAULT;
	total = (uint64_t)p->len - oldlen + newlen;
	if (total > PKT_MAX_LEN)
		return -EMSGSIZE;
	/* Always work on an owned block big enough for both the old and the new length. */
	ret = make_owned_linear(p, (uint32_t)(total > p->len ? total : p->len));
	if (ret)
		return ret;
	p->written = true;
	d = p->seg[0].data;
	tail = p->len - off - oldlen;
	memmove(d + off + newlen, d + off + oldlen, tail);
	if (newlen)
		memcpy(d + off, src, newlen);
	p->len = (uint32_t)total;
	p->seg[0].len = p->len;
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fragment queues: hashing, limits, overlap rules, expiry; and IPv4 reassembly.
 *
 * A queue holds the fragments of one datagram sorted by offset; none of them overlap, because a
 * fragment that would is either a duplicate (inside data already held: dropped alone) or an
 * overlap (the whole datagram is discarded). So the datagram is complete when the last
 * fragment was seen and the bytes held equal its length:
 *
 *   offset 0            1480                2960        3200 = len (last_in)
 *   [ frag 0 .......... ][ frag 1 ......... ][ frag 2 ... ]     meat == len: complete
 *   [ frag 0 .......... ]      [ dup ]                          inside a run: duplicate
 *   [ frag 0 .......... ]   [ straddles 1480 ....]              partial: overlap
 *
 * IPv4 header of a fragment (RFC 791); the datagram keeps the offset-0 fragment's header:
 *
 *   |ver|ihl| TOS(ECN) |    total length      |   identification  |0|DF|MF| offset (8 B) |
 *   | TTL | protocol | header checksum | source | destination | options (first fragment) |
 *
 * Memory: each fragment is charged its packet bytes plus the bookkeeping around it (like an
 * skb's truesize). Above high_thresh the oldest queues (by creation, either family) are
 * evicted until the new fragment fits under low_thresh. (Linux since 4.17 no longer evicts:
 * it refuses new queues above the high mark. Eviction keeps new datagrams flowing under a
 * flood of incomplete ones, which the issue asks for.)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "ct/defrag_int.h"
#include "pkt/hash.h"

#define DEFRAG_BUCKETS 1024 /* power of two */
#define IP_MAXLEN      65535

struct ct_defrag {
	struct ct_defrag_config cfg;
	struct defrag_queue *bucket[DEFRAG_BUCKETS];
	struct defrag_queue *oldest[2], *newest[2]; /* [0] IPv4, [1] IPv6 */
	struct ct_defrag_stats st;
};

/* clang-format off */
static const char *const stat_names[CT_DEFRAG_ST_MAX] = {
    [CT_DEFRAG_ST_FRAGS] = "frags",
    [CT_DEFRAG_ST_REASM] = "reassembled",
    [CT_DEFRAG_ST_OVERLAP] = "overlap",
    [CT_DEFRAG_ST_DUPLICATE] = "duplicate",
    [CT_DEFRAG_ST_TIMEOUT] = "timeout",
    [CT_DEFRAG_ST_EVICTED] = "evicted",
    [CT_DEFRAG_ST_NOMEM] = "no-memory",
    [CT_DEFRAG_ST_TOO_MANY] = "too-many-frags",
    [CT_DEFRAG_ST_TINY] = "tiny-first",
    [CT_DEFRAG_ST_TOO_LONG] = "too-long",
    [CT_DEFRAG_ST_BAD_LEN] = "bad-length",
    [CT_DEFRAG_ST_BAD_ECN] = "bad-ecn",
};
/* clang-format on */

const char *ct_defrag_stat_name(enum ct_defrag_stat s)
{
	return (unsigned)s < CT_DEFRAG_ST_MAX ? stat_names[s] : "?";
}

void ct_defrag_config_default(struct ct_defrag_config *c)
{
	memset(c, 0, sizeof(*c));
	c->timeout4 = 30 * CT_DEFRAG_SEC;
	c->timeout6 = 60 * CT_DEFRAG_SEC;
	c->high_thresh = 4u << 20;
	c->low_thresh = 3u << 20;
	c->max_frags = 128;
}

struct ct_defrag *ct_defrag_new(const struct ct_defrag_config *c)
{
	struct ct_defrag *d;

	if (!c->timeout4 || !c->timeout6 || c->low_thresh > c->high_thresh || !c->max_frags) {
		errno = EINVAL;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->cfg = *c;
	return d;
}

const struct ct_defrag_stats *ct_defrag_stats(const struct ct_defrag *d)
{
	return &d->st;
}

static unsigned fam_index(uint8_t family)
{
	return family == AF_INET6;
}

static void count(struct ct_defrag *d, uint8_t family, enum ct_defrag_stat s)
{
	(family == AF_INET6 ? d->st.v6 : d->st.v4)[s]++;
}

/* ---- hashing: pkt_hash (SipHash-2-4) over the key, keyed per instance ------------------- */

static struct defrag_queue **bucket_of(struct ct_defrag *d, const struct defrag_key *k)
{
	return &d->bucket[pkt_hash(d->cfg.seed, k, sizeof(*k)) & (DEFRAG_BUCKETS - 1)];
}

static struct defrag_queue *lookup(struct ct_defrag *d, const struct defrag_key *k)
{
	struct defrag_queue *q;

	for (q = *bucket_of(d, k); q; q = q->hnext)
		if (!memcmp(&q->key, k, sizeof(*k)))
			return q;
	return NULL;
}

/* ---- queue lifetime ----------------------------------------------------------------------- */

static void charge(struct ct_defrag *d, struct defrag_queue *q, int64_t bytes)
{
	q->mem += (uint64_t)bytes;
	d->st.mem += (uint64_t)bytes;
}

static struct defrag_queue *queue_new(struct ct_defrag *d, const struct defrag_key *k, uint64_t now)
{
	struct defrag_queue *q = calloc(1, sizeof(*q));
	struct defrag_queue **b;
	unsigned f = fam_index(k->family);

	if (!q)
		return NULL;
	q->key = *k;
	q->created = now;
	b = bucket_of(d, k);
	q->hnext = *b;
	*b = q;
	q->older = d->newest[f];
	if (q->older)
		q->older->newer = q;
	else
		d->oldest[f] = q;
	d->newest[f] = q;
	d->st.queues++;
	charge(d, q, sizeof(*q));
	return q;
}

/* Unlink and free a queue with every fragment it holds; `why` counted unless CT_DEFRAG_ST_MAX. */
static void queue_kill(struct ct_defrag *d, struct defrag_queue *q, enum ct_defrag_stat why)
{
	struct defrag_queue **pp = bucket_of(d, &q->key);
	unsigned f = fam_index(q->key.family);
	struct defrag_frag *fr, *next;

	while (*pp != q)
		pp = &(*pp)->hnext;
	*pp = q->hnext;
	if (q->older)
		q->older->newer = q->newer;
	else
		d->oldest[f] = q->newer;
	if (q->newer)
		q->newer->older = q->older;
	else
		d->newest[f] = q->older;
	for (fr = q->frags; fr; fr = next) {
		next = fr->next;
		pkt_free(fr->pkt);
		free(fr);
	}
	if (why < CT_DEFRAG_ST_MAX)
		count(d, q->key.family, why);
	d->st.mem -= q->mem;
	d->st.queues--;
	free(q);
}

void ct_defrag_free(struct ct_defrag *d)
{
	if (!d)
		return;
	for (unsigned f = 0; f < 2; f++)
		while (d->oldest[f])
			queue_kill(d, d->oldest[f], CT_DEFRAG_ST_MAX);
	free(d);
}

static uint64_t timeout_of(const struct ct_defrag *d, unsigned f)
{
	return f ? d->cfg.timeout6 : d->cfg.timeout4;
}

unsigned ct_defrag_expire(struct ct_defrag *d, uint64_t now)
{
	unsigned n = 0;

	/* Within a family, creation order is expiry order: only the heads need looking at. */
	for (unsigned f = 0; f < 2; f++)
		while (d->oldest[f] && now - d->oldest[f]->created >= timeout_of(d, f) &&
		       now >= d->oldest[f]->created) {
			queue_kill(d, d->oldest[f], CT_DEFRAG_ST_TIMEOUT);
			n++;
		}
	return n;
}

/* The oldest queue of either family other than `keep`, NULL if none. */
static struct defrag_queue *oldest_other(struct ct_defrag *d, const struct defrag_queue *keep)
{
	struct defrag_queue *c[2];

	for (unsigned f = 0; f < 2; f++) {
		c[f] = d->oldest[f];
		if (c[f] == keep)
			c[f] = c[f]->newer;
	}
	if (!c[0] || !c[1])
		return c[0] ? c[0] : c[1];
	return c[1]->created < c[0]->created ? c[1] : c[0];
}

/* Make room for `bytes` more. False when even evicting every other queue does not do it. */
static bool make_room(struct ct_defrag *d, const struct defrag_queue *keep, uint64_t bytes)
{
	struct defrag_queue *victim;

	if (d->st.mem + bytes <= d->cfg.high_thresh)
		return true;
	while (d->st.mem + bytes > d->cfg.low_thresh && (victim = oldest_other(d, keep)))
		queue_kill(d, victim, CT_DEFRAG_ST_EVICTED);
	return d->st.mem + bytes <= d->cfg.high_thresh;
}

/* ---- ECN and metadata --------------------------------------------------------------------- */

int defrag_ecn(uint8_t seen, uint8_t head)
{
	/* Codepoints: 0 not-ECT, 1 ECT(1), 2 ECT(0), 3 CE (RFC 3168). */
	if ((seen & 1) && (seen & 0xe))
		return -1;
	if (seen & 8)
		return 3;
	return head;
}

void defrag_copy_meta(struct pkt *to, const struct pkt *from)
{
	to->mark = from->mark;
	to->priority = from->priority;
	to->iif = from->iif;
	to->oif = from->oif;
	to->tstamp_ns = from->tstamp_ns;
	to->id = from->id;
	to->trace = from->trace;
	to->ct = NULL;
	to->ctinfo = 0;
}

/* ---- IPv4 --------------------------------------------------------------------------------- */

static int view4(const struct pkt *p, struct defrag_view *v)
{
	const struct pkt_info *in = &p->info;
	uint32_t dlen = in->l3len - in->ihl;

	memset(v, 0, sizeof(*v));
	v->key.src = in->src;
	v->key.dst = in->dst;
	v->key.id = in->frag_id;
	v->key.family = AF_INET;
	v->key.proto = in->l4proto;
	v->off = (uint32_t)in->frag_off * 8;
	v->end = v->off + dlen;
	v->data = in->l3off + in->ihl;
	v->hdrlen = in->ihl;
	v->size = (uint16_t)in->l3len;
	v->more = in->more_frags;
	v->df = in->dont_frag;
	v->ecn = in->tos & 3;
	/* A short non-last fragment: Linux keeps whole 8-byte units and ignores the rest. */
	if (v->more)
		v->end &= ~7u;
	if (!v->off && (in->bad == PKT_BAD_L4_TRUNC || in->bad == PKT_BAD_L4_HLEN))
		return CT_DEFRAG_ST_TINY;
	if (v->end + in->ihl > IP_MAXLEN)
		return CT_DEFRAG_ST_TOO_LONG;
	return 0;
}

/* Copy each fragment's bytes to their place; they tile [0, q->len) exactly. */
static int copy_data(const struct defrag_queue *q, struct pkt *np, uint32_t base)
{
	uint8_t *dst = pkt_linear_data(np) + base;

	for (const struct defrag_frag *f = q->frags; f; f = f->next)
		if (pkt_copy_out(f->pkt, f->data, dst + f->off, f->end - f->off))
			return -EFAULT;
	return 0;
}

static struct pkt *build4(const struct defrag_queue *q, enum pkt_link link,
			  enum ct_defrag_stat *why)
{
	const struct pkt *head = q->frags->pkt;
	uint32_t l3 = head->info.l3off, ihl = head->info.ihl;
	int ecn = defrag_ecn(q->ecn_seen, head->info.tos & 3);
	struct pkt *np;
	uint8_t *h;
	uint16_t csum;

	if (ecn < 0) {
		*why = CT_DEFRAG_ST_BAD_ECN;
		return NULL;
	}
	if (ihl + q->len > IP_MAXLEN) {
		*why = CT_DEFRAG_ST_TOO_LONG;
		return NULL;
	}
	*why = CT_DEFRAG_ST_NOMEM;
	np = pkt_alloc(l3 + ihl + q->len);
	if (!np)
		return NULL;
	h = pkt_linear_data(np);
	if (pkt_copy_out(head, 0, h, l3 + ihl) || copy_data(q, np, l3 + ihl)) {
		pkt_free(np);
		return NULL;
	}
	h += l3;
	h[1] = (uint8_t)((h[1] & ~3u) | (unsigned)ecn);
	h[2] = (uint8_t)((ihl + q->len) >> 8);
	h[3] = (uint8_t)(ihl + q->len);
	/* DF when the largest fragment had it: the path MTU it says holds (as Linux does). */
	h[6] = q->max_df_size == q->max_size ? 0x40 : 0;
	h[7] = 0;
	h[10] = h[11] = 0;
	csum = pkt_csum_fold(pkt_csum_bytes(h, ihl, 0));
	h[10] = (uint8_t)(csum >> 8);
	h[11] = (uint8_t)csum;
	pkt_parse(np, link, true);
	return np;
}

/* ---- the common path ---------------------------------------------------------------------- */

/* Where [off, end) falls among the held fragments: 0 free, DUPLICATE or OVERLAP. */
static int place(const struct defrag_queue *q, uint32_t off, uint32_t end)
{
	const struct defrag_frag *f = q->frags;

	while (f) {
		uint32_t rs = f->off, re = f->end;

		/* A run: fragments that touch end to start, as one range. */
		while (f->next && f->next->off == re) {
			f = f->next;
			re = f->end;
		}
		if (off >= rs && end <= re)
			return CT_DEFRAG_ST_DUPLICATE;
		if (off < re && end > rs)
			return CT_DEFRAG_ST_OVERLAP;
		f = f->next;
	}
	return 0;
}

/* The length rules of RFC 791 / RFC 8200 against what the queue knows. 0 or BAD_LEN. */
static int check_len(const struct defrag_queue *q, const struct defrag_view *v)
{
	if (v->end == v->off)
		return CT_DEFRAG_ST_BAD_LEN;
	if (!v->more) {
		/* The last fragment: nothing held beyond it, and only one such end. */
		if (v->end < q->len || (q->last_in && v->end != q->len))
			return CT_DEFRAG_ST_BAD_LEN;
	} else if (q->last_in && v->end > q->len) {
		return CT_DEFRAG_ST_BAD_LEN;
	}
	return 0;
}

static void frag_insert(struct defrag_queue *q, struct defrag_frag *nf, const struct defrag_view *v)
{
	struct defrag_frag **pp = &q->frags;

	while (*pp && (*pp)->off < nf->off)
		pp = &(*pp)->next;
	nf->next = *pp;
	*pp = nf;
	q->nfrags++;
	q->meat += nf->end - nf->off;
	if (!v->more) {
		q->last_in = true;
		q->len = v->end;
	} else if (v->end > q->len) {
		q->len = v->end;
	}
	if (v->size > q->max_size)
		q->max_size = v->size;
	if (v->df && v->size > q->max_df_size)
		q->max_df_size = v->size;
	q->ecn_seen |= (uint8_t)(1u << v->ecn);
}

static void frag_unlink(struct ct_defrag *d, struct defrag_queue *q, struct defrag_frag *nf)
{
	struct defrag_frag **pp = &q->frags;

	while (*pp != nf)
		pp = &(*pp)->next;
	*pp = nf->next;
	q->nfrags--;
	q->meat -= nf->end - nf->off;
	charge(d, q, -(int64_t)nf->truesize);
	free(nf);
}

/* Hand out the originals in arrival order (IPv6), leaving the queue without packets. */
static int take_originals(struct defrag_queue *q, struct ct_defrag_out *out)
{
	out->orig = calloc(q->nfrags, sizeof(*out->orig));
	if (!out->orig)
		return -ENOMEM;
	for (struct defrag_frag *f = q->frags; f; f = f->next) {
		out->orig[f->seq] = f->pkt;
		f->pkt = NULL;
	}
	out->norig = q->nfrags;
	return 0;
}

static enum ct_defrag_verdict drop(struct ct_defrag_out *out, enum ct_defrag_stat why)
{
	out->reason = why;
	return CT_DEFRAG_DROP;
}

static enum ct_defrag_verdict complete(struct ct_defrag *d, struct defrag_queue *q,
				       struct defrag_frag *nf, struct pkt *p, enum pkt_link link,
				       struct ct_defrag_out *out)
{
	enum ct_defrag_stat why;
	struct pkt *np;

	np = q->key.family == AF_INET ? build4(q, link, &why) : defrag6_build(q, link, &why);
	if (!np || (q->key.family == AF_INET6 && take_originals(q, out))) {
		pkt_free(np);
		if (np)
			why = CT_DEFRAG_ST_NOMEM;
		/* `p` goes back to the caller: it drops it; the rest of the datagram goes here. */
		frag_unlink(d, q, nf);
		queue_kill(d, q, why);
		return drop(out, why);
	}
	defrag_copy_meta(np, p);
	out->pkt = np;
	out->frag_max_size = q->max_size;
	count(d, q->key.family, CT_DEFRAG_ST_REASM);
	queue_kill(d, q, CT_DEFRAG_ST_MAX); /* IPv4: frees the fragments, `p` among them */
	return CT_DEFRAG_DONE;
}

static bool parsed_enough(const struct pkt_info *in)
{
	switch (in->bad) {
	case PKT_OK:
	case PKT_BAD_L4_TRUNC:
	case PKT_BAD_L4_HLEN:
		return true;
	case PKT_BAD_EXTHDR: /* after the fragment header of a first fragment: tiny */
		return in->family == AF_INET6 && in->frag_hdr_off;
	default:
		return false;
	}
}

enum ct_defrag_verdict ct_defrag_in(struct ct_defrag *d, struct pkt *p, enum pkt_link link,
				    uint64_t now, struct ct_defrag_out *out)
{
	const struct pkt_info *in = &p->info;
	struct defrag_view v;
	struct defrag_queue *q;
	struct defrag_frag *nf;
	uint32_t truesize;
	int why;

	memset(out, 0, sizeof(*out));
	out->reason = CT_DEFRAG_ST_MAX;
	if (!in->is_fragment || (in->family != AF_INET && in->family != AF_INET6) ||
	    !parsed_enough(in))
		return CT_DEFRAG_PASS;
	ct_defrag_expire(d, now);
	count(d, in->family, CT_DEFRAG_ST_FRAGS);

	why = in->family == AF_INET ? view4(p, &v) : defrag6_view(p, &v);
	q = lookup(d, &v.key);
	if (why) {
		/* The datagram cannot be made whole correctly any more. */
		if (q)
			queue_kill(d, q, CT_DEFRAG_ST_MAX);
		count(d, in->family, why);
		return drop(out, why);
	}
	if (!q) {
		q = queue_new(d, &v.key, now);
		if (!q) {
			count(d, in->family, CT_DEFRAG_ST_NOMEM);
			return drop(out, CT_DEFRAG_ST_NOMEM);
		}
	}
	why = check_len(q, &v);
	if (!why)
		why = place(q, v.off, v.end);
	if (why == CT_DEFRAG_ST_DUPLICATE) {
		count(d, in->family, why);
		return drop(out, why);
	}
	if (!why && q->nfrags >= d->cfg.max_frags)
		why = CT_DEFRAG_ST_TOO_MANY;
	truesize = p->len + (uint32_t)(sizeof(*p) + sizeof(*nf));
	if (!why && !make_room(d, q, truesize))
		why = CT_DEFRAG_ST_NOMEM;
	nf = why ? NULL : calloc(1, sizeof(*nf));
	/* held past the burst: a frame lent by a receive ring is copied now */
	if (!why && (!nf || pkt_keep(p) < 0))
		why = CT_DEFRAG_ST_NOMEM;
	if (why) {
		free(nf);
		queue_kill(d, q, why);
		return drop(out, why);
	}
	nf->pkt = p;
	nf->off = v.off;
	nf->end = v.end;
	nf->data = v.data;
	nf->seq = q->seq++;
	nf->truesize = truesize;
	frag_insert(q, nf, &v);
	charge(d, q, truesize);
	if (q->last_in && q->meat == q->len)
		return complete(d, q, nf, p, link, out);
	return CT_DEFRAG_HELD;
}

void ct_defrag_out_free(struct ct_defrag_out *out)
{
	for (unsigned i = 0; i < out->norig; i++)
		pkt_free(out->orig[i]);
	free(out->orig);
	pkt_free(out->pkt);
	out->orig = NULL;
	out->norig = 0;
	out->pkt = NULL;
}

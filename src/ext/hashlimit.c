/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * -m hashlimit: one token bucket per key, keys from the packet by --hashlimit-mode, with
 * xt_hashlimit (revision 3) arithmetic.
 *
 *   key = { src & srcmask | 0, dst & dstmask | 0, sport | 0, dport | 0 }  (by mode)
 *
 *   packets:  period  = 1000000 * unit / N      cost = period * CPJ_HZ   cap = cost * burst
 *   bytes:    cost    = 2^32 / (bytes/16 + 1)   a packet costs (len/16 + 1) * cost credits of
 *             a bucket of HZ * 2^24; "burst" counts how many times an empty bucket is refilled.
 *
 * The table: `size` buckets, at most `max` entries. A full table drops the packet (hotdrop)
 * and counts it. Entries expire --hashlimit-htable-expire ms after their last packet and are
 * removed by a garbage collection that runs every --hashlimit-htable-gcinterval ms of the box
 * clock, as the kernel's delayed work does; between collections an expired entry still counts.
 * A collection is done in slices of HL_GC_SLICE buckets, one per packet, so no packet pays for
 * a whole table; what it would have removed at its time is gone at once all the same: a lookup
 * that meets such an entry removes it, a full table finishes the collection before it refuses
 * a new entry, and the statistics count what is still due.
 *
 * The kernel shares one table between rules with the same --hashlimit-name; here each rule
 * instance has its own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "ext/hashlimit.h"
#include "ext/rate.h"
#include "pkt/hash.h"
#include "pkt/proto.h"
#include "rules/ext.h"

#define HL_SCALE	     1000000ull
#define HL_BURST_DEFAULT     5
#define HL_BURST_MAX	     1000000
#define HL_GCINTERVAL	     1000
#define HL_BYTE_SHIFT	     4
#define HL_BYTE_EXPIRE	     15
#define HL_BYTE_EXPIRE_BURST 60
/* the largest power of two below 2^64 / (HZ * seconds per day), at HZ 250 */
#define HL_CPJ (1ull << 39)
/* bytes mode: the largest power of two below 2^32 / HZ */
#define HL_CPJ_BYTES	(1ull << 24)
#define HL_DEFAULT_SIZE 8192

enum {
	HL_HASH_DIP = 1 << 0,
	HL_HASH_DPT = 1 << 1,
	HL_HASH_SIP = 1 << 2,
	HL_HASH_SPT = 1 << 3,
	HL_INVERT = 1 << 4,
	HL_BYTES = 1 << 5,
	HL_RATE_MATCH = 1 << 6,
};

struct hl_key {
	union pt_addr src, dst;
	uint16_t sport, dport; /* network order, as read */
};

struct hl_rate {
	uint64_t prev; /* jiffies */
	uint64_t credit, credit_cap, cost;
	/* --hashlimit-rate-match */
	uint64_t current_rate, rate, burst;
	uint32_t interval;
	bool prev_window;
};

struct hl_ent {
	struct hl_ent *next;
	struct hl_key key;
	uint64_t expires; /* jiffies */
	struct hl_rate r;
};

struct hl_table {
	uint32_t size, max, count;
	uint64_t gc_j, expire_j;
	bool started;
	uint64_t key[2];     /* pkt_hash key: the box's, taken when the table starts */
	uint64_t next_gc;    /* jiffies */
	uint64_t gc_at;	     /* the collection in progress: entries with expires <= gc_at go */
	uint32_t gc_pos;     /* its next bucket; size when none is in progress */
	uint64_t gc_buckets; /* buckets visited by collection slices */
	uint64_t full_drops, expired;
	struct hl_ent *bucket[];
};

struct hashlimit_info {
	uint64_t avg;
	uint64_t burst;
	uint32_t mode;
	uint32_t size, max, gc_interval, expire, interval;
	uint8_t srcmask, dstmask;
	char name[255];
	/* parse state */
	unsigned unit_secs; /* of the rate: the default expiry is one unit */
	bool finalized;
	struct hl_table *table;
};

enum {
	O_UPTO,
	O_ABOVE,
	O_OLDNAME,
	O_SRCMASK,
	O_DSTMASK,
	O_BURST,
	O_SIZE,
	O_MAX,
	O_GCINT,
	O_EXPIRE,
	O_MODE,
	O_NAME,
	O_RATEMATCH,
	O_INTERVAL,
};

#define HLF(f) EXT_FIELD(struct hashlimit_info, f)

static const struct ext_opt hl_opts[] = {
    [O_UPTO] = {.name = "hashlimit-upto",
		.type = EXT_T_CUSTOM,
		.flags = EXT_OPT_INVERT,
		.excl = 1u << O_ABOVE | 1u << O_OLDNAME,
		.print_as = -1},
    [O_ABOVE] = {.name = "hashlimit-above",
		 .type = EXT_T_CUSTOM,
		 .flags = EXT_OPT_INVERT,
		 .excl = 1u << O_UPTO | 1u << O_OLDNAME,
		 .print_as = -1},
    [O_OLDNAME] = {.name = "hashlimit",
		   .type = EXT_T_CUSTOM,
		   .flags = EXT_OPT_INVERT | EXT_OPT_NOPRINT,
		   .excl = 1u << O_UPTO | 1u << O_ABOVE,
		   .print_as = O_UPTO},
    [O_SRCMASK] =
	{.name = "hashlimit-srcmask", .type = EXT_T_U8, HLF(srcmask), .max = 128, .print_as = -1},
    [O_DSTMASK] =
	{.name = "hashlimit-dstmask", .type = EXT_T_U8, HLF(dstmask), .max = 128, .print_as = -1},
    [O_BURST] = {.name = "hashlimit-burst", .type = EXT_T_CUSTOM, .print_as = -1},
    [O_SIZE] = {.name = "hashlimit-htable-size", .type = EXT_T_U32, HLF(size), .print_as = -1},
    [O_MAX] = {.name = "hashlimit-htable-max", .type = EXT_T_U32, HLF(max), .print_as = -1},
    [O_GCINT] = {.name = "hashlimit-htable-gcinterval",
		 .type = EXT_T_U32,
		 HLF(gc_interval),
		 .print_as = -1},
    [O_EXPIRE] = {.name = "hashlimit-htable-expire",
		  .type = EXT_T_U32,
		  HLF(expire),
		  .print_as = -1},
    [O_MODE] = {.name = "hashlimit-mode", .type = EXT_T_CUSTOM, .print_as = -1},
    [O_NAME] = {.name = "hashlimit-name",
		.type = EXT_T_STRING,
		.flags = EXT_OPT_MANDATORY,
		HLF(name),
		.print_as = -1},
    [O_RATEMATCH] = {.name = "hashlimit-rate-match", .type = EXT_T_NONE, .print_as = -1},
    [O_INTERVAL] = {.name = "hashlimit-rate-interval",
		    .type = EXT_T_U32,
		    HLF(interval),
		    .min = 1,
		    .max = UINT32_MAX,
		    .print_as = -1},
};

/* ---- rates ---------------------------------------------------------------------------- */

static uint64_t hl_bytes_to_cost(uint64_t bytes)
{
	uint32_t r = (uint32_t)(bytes >> HL_BYTE_SHIFT);

	return UINT32_MAX / ((uint64_t)r + 1);
}

static uint64_t hl_cost_to_bytes(uint64_t cost)
{
	uint64_t r = cost ? UINT32_MAX / cost : UINT32_MAX;

	return (r - 1) << HL_BYTE_SHIFT;
}

/* "10kb/s", "2mb/s", "300b/s": 1 on success, 0 if it is not a byte rate, -EINVAL if bad. */
static int hl_parse_bytes(const char *s, uint64_t *cost, char *err, size_t errlen)
{
	const char *unit = strstr(s, "b/s");
	uint64_t factor = 1, r;

	if (!unit || unit == s)
		return 0;
	r = strtoull(s, NULL, 10);
	if (r == 0)
		return 0;
	if (unit[-1] == 'm')
		factor = 1 << 20;
	else if (unit[-1] == 'k')
		factor = 1 << 10;
	/* under 16 b/s the cost is that of 0 b/s, printed as such, which does not read back */
	if (r * factor < (1u << HL_BYTE_SHIFT)) {
		snprintf(err, errlen, "Rate too low \"%s\" (at least %ub/s)", s,
			 1u << HL_BYTE_SHIFT);
		return -EINVAL;
	}
	*cost = hl_bytes_to_cost(r * factor);
	if (*cost == 0) {
		snprintf(err, errlen, "Rate too high \"%s\"", s);
		return -EINVAL;
	}
	return 1;
}

static int hl_parse_rate(struct ext_parse_ctx *ctx, struct hashlimit_info *h, const char *arg)
{
	uint64_t v;
	int ret = hl_parse_bytes(arg, &v, ctx->err, ctx->errlen);

	if (ret < 0)
		return ret;
	if (ret == 1) {
		h->avg = v;
		h->mode |= HL_BYTES;
		h->unit_secs = HL_BYTE_EXPIRE;
		return 0;
	}
	if (ext_rate_parse(arg, &h->unit_secs, &v, HL_SCALE) < 0) {
		snprintf(ctx->err, ctx->errlen, "hashlimit: bad rate \"%s\"", arg);
		return -EINVAL;
	}
	if (v == 0) {
		snprintf(ctx->err, ctx->errlen, "Rate too fast \"%s\"", arg);
		return -EINVAL;
	}
	h->avg = v;
	h->mode &= ~HL_BYTES;
	return 0;
}

static void hl_print_bytes(FILE *f, uint64_t avg, uint64_t burst)
{
	static const struct {
		const char *name;
		uint64_t thresh;
	} units[] = {{"m", 1 << 20}, {"k", 1 << 10}, {"", 1}};
	uint64_t r = hl_cost_to_bytes(avg);
	unsigned i;

	for (i = 0; i < 2; i++)
		if (r >= units[i].thresh && hl_bytes_to_cost(r & ~(units[i].thresh - 1)) == avg)
			break;
	fprintf(f, " %llu%sb/s", (unsigned long long)(r / units[i].thresh), units[i].name);
	if (burst == 0)
		return;
	r *= burst;
	for (i = 0; i < 2; i++)
		if (r >= units[i].thresh)
			break;
	fprintf(f, " --hashlimit-burst %llu%sb", (unsigned long long)(r / units[i].thresh),
		units[i].name);
}

/* ---- options -------------------------------------------------------------------------- */

static void hl_init(struct ext_instance *inst)
{
	struct hashlimit_info *h = inst->data;

	h->burst = HL_BURST_DEFAULT;
	h->gc_interval = HL_GCINTERVAL;
	h->interval = 1;
	h->unit_secs = 1;
	/* the masks are per family: 0xff means "not given", fixed in check() */
	h->srcmask = 0xff;
	h->dstmask = 0xff;
}

static int hl_parse_mode(struct ext_parse_ctx *ctx, struct hashlimit_info *h, const char *arg)
{
	static const struct ext_name modes[] = {
	    {"dstip", HL_HASH_DIP},
	    {"srcip", HL_HASH_SIP},
	    {"dstport", HL_HASH_DPT},
	    {"srcport", HL_HASH_SPT},
	    {NULL, 0},
	};
	char buf[128];
	char *save, *tok;
	uint32_t mode = 0;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct ext_name *n;

		for (n = modes; n->name; n++)
			if (strcmp(tok, n->name) == 0)
				break;
		if (!n->name) {
			snprintf(ctx->err, ctx->errlen,
				 "hashlimit: Bad value for \"--hashlimit-mode\" option: \"%s\"",
				 arg);
			return -EINVAL;
		}
		mode |= n->value;
	}
	h->mode = (h->mode & ~(HL_HASH_DIP | HL_HASH_SIP | HL_HASH_DPT | HL_HASH_SPT)) | mode;
	return 0;
}

static int hl_parse_burst(struct ext_parse_ctx *ctx, struct hashlimit_info *h, const char *arg)
{
	unsigned long long v;
	char *end;

	v = strtoull(arg, &end, 10);
	if (end == arg || arg[0] == '-' || v < 1 || (*end == '\0' && v > HL_BURST_MAX))
		goto bad;
	switch (*end) {
	case 'k':
	case 'K':
		v <<= 10;
		break;
	case 'm':
	case 'M':
		v <<= 20;
		break;
	case 'g':
	case 'G':
		v <<= 30;
		break;
	}
	h->burst = v;
	return 0;
bad:
	snprintf(ctx->err, ctx->errlen,
		 "bad value for option \"--hashlimit-burst\", or out of range (1-%u).",
		 HL_BURST_MAX);
	return -EINVAL;
}

static int hl_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
		    const char *arg)
{
	struct hashlimit_info *h = inst->data;
	int ret;

	switch (opt) {
	case O_UPTO:
	case O_OLDNAME:
	case O_ABOVE:
		ret = hl_parse_rate(ctx, h, arg);
		if (ret < 0)
			return ret;
		/* "! --hashlimit-upto" is --hashlimit-above and the other way round */
		if ((opt == O_ABOVE) != ctx->invert)
			h->mode |= HL_INVERT;
		else
			h->mode &= ~HL_INVERT;
		return 0;
	case O_MODE:
		return hl_parse_mode(ctx, h, arg);
	case O_BURST:
		return hl_parse_burst(ctx, h, arg);
	case O_RATEMATCH:
		h->mode |= HL_RATE_MATCH;
		return 0;
	}
	return 0;
}

static uint64_t hl_credits(uint64_t user)
{
	/* user2credits() for revision 3: HZ * CPJ > scale, so multiply by the integer ratio */
	return user * (EXT_RATE_HZ * HL_CPJ / HL_SCALE);
}

/* What iptables does after the last option, then the kernel's checkentry. */
static int hl_finalize(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	struct hashlimit_info *h = inst->data;
	unsigned plen = ctx->family == AF_INET6 ? 128 : 32;

	if (!(inst->seen & (1u << O_UPTO | 1u << O_ABOVE | 1u << O_OLDNAME))) {
		snprintf(ctx->err, ctx->errlen, "You have to specify --hashlimit");
		return -EINVAL;
	}
	if (!(inst->seen & 1u << O_NAME) || h->name[0] == '\0') {
		snprintf(ctx->err, ctx->errlen,
			 "hashlimit: option \"--hashlimit-name\" must be specified");
		return -EINVAL;
	}
	if (!(inst->seen & 1u << O_EXPIRE))
		h->expire = h->unit_secs * 1000;
	if (h->mode & HL_BYTES) {
		uint64_t unit = hl_cost_to_bytes(h->avg);
		uint64_t burst = 0;

		if (inst->seen & 1u << O_BURST) {
			if (h->burst < unit) {
				snprintf(ctx->err, ctx->errlen,
					 "burst cannot be smaller than %llub",
					 (unsigned long long)unit);
				return -EINVAL;
			}
			burst = h->burst / unit + (h->burst % unit != 0);
			if (!(inst->seen & 1u << O_EXPIRE))
				h->expire = HL_BYTE_EXPIRE_BURST * 1000;
		}
		h->burst = burst;
	} else if (h->burst > HL_BURST_MAX) {
		snprintf(ctx->err, ctx->errlen,
			 "bad value for option \"--hashlimit-burst\", or out of range (1-%u).",
			 HL_BURST_MAX);
		return -EINVAL;
	}
	if (h->srcmask == 0xff)
		h->srcmask = plen;
	if (h->dstmask == 0xff)
		h->dstmask = plen;
	/* the kernel's checks */
	if (h->srcmask > plen || h->dstmask > plen || h->gc_interval == 0 || h->expire == 0) {
		snprintf(ctx->err, ctx->errlen, "hashlimit: invalid mask, gc interval or expiry");
		return -EINVAL;
	}
	/* user2credits() of the kernel, with its 64-bit wrap-around */
	if (!(h->mode & HL_BYTES) &&
	    (h->burst == 0 || hl_credits(h->avg * h->burst) < hl_credits(h->avg))) {
		snprintf(ctx->err, ctx->errlen, "hashlimit: overflow, try lower: %llu/%llu",
			 (unsigned long long)h->avg, (unsigned long long)h->burst);
		return -ERANGE;
	}
	return 0;
}

static uint64_t hl_ms_to_jiffies(uint64_t ms)
{
	return (ms * EXT_RATE_HZ + 999) / 1000;
}

static int hl_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	struct hashlimit_info *h = inst->data;
	struct hl_table *t;
	uint32_t size;
	int ret;

	if (!h->finalized) {
		ret = hl_finalize(ctx, inst);
		if (ret < 0)
			return ret;
		h->finalized = true;
	}
	if (h->table)
		return 0;
	size = h->size ? h->size : HL_DEFAULT_SIZE;
	if (size < 16)
		size = 16;
	t = calloc(1, sizeof(*t) + (size_t)size * sizeof(t->bucket[0]));
	if (!t) {
		snprintf(ctx->err, ctx->errlen, "hashlimit: out of memory");
		return -ENOMEM;
	}
	t->size = size;
	t->gc_pos = size;
	t->max = h->max ? h->max : 8 * size;
	t->gc_j = hl_ms_to_jiffies(h->gc_interval);
	t->expire_j = hl_ms_to_jiffies(h->expire);
	h->table = t;
	return 0;
}

static void hl_destroy(struct ext_instance *inst)
{
	struct hashlimit_info *h = inst->data;
	struct hl_table *t = h->table;

	if (!t)
		return;
	for (uint32_t i = 0; i < t->size; i++) {
		struct hl_ent *e = t->bucket[i], *next;

		for (; e; e = next) {
			next = e->next;
			free(e);
		}
	}
	free(t);
	h->table = NULL;
}

static void hl_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct hashlimit_info *h = inst->data;
	unsigned plen = pr->family == AF_INET6 ? 128 : 32;
	uint64_t quantum;
	FILE *f = pr->f;

	fprintf(f, h->mode & HL_INVERT ? " --hashlimit-above" : " --hashlimit-upto");
	if (h->mode & HL_BYTES) {
		hl_print_bytes(f, h->avg, h->burst);
		quantum = (h->burst ? HL_BYTE_EXPIRE_BURST : HL_BYTE_EXPIRE) * 1000;
	} else {
		fputc(' ', f);
		quantum = ext_rate_print(f, h->avg, HL_SCALE);
		fprintf(f, " --hashlimit-burst %llu", (unsigned long long)h->burst);
	}
	if (h->mode & (HL_HASH_SIP | HL_HASH_SPT | HL_HASH_DIP | HL_HASH_DPT)) {
		static const struct ext_name order[] = {
		    {"srcip", HL_HASH_SIP},
		    {"srcport", HL_HASH_SPT},
		    {"dstip", HL_HASH_DIP},
		    {"dstport", HL_HASH_DPT},
		};
		const char *sep = " --hashlimit-mode ";

		for (unsigned i = 0; i < 4; i++) {
			if (!(h->mode & order[i].value))
				continue;
			fprintf(f, "%s%s", sep, order[i].name);
			sep = ",";
		}
	}
	fprintf(f, " --hashlimit-name");
	ext_print_string(pr, h->name);
	if (h->size)
		fprintf(f, " --hashlimit-htable-size %u", h->size);
	if (h->max)
		fprintf(f, " --hashlimit-htable-max %u", h->max);
	if (h->gc_interval != HL_GCINTERVAL)
		fprintf(f, " --hashlimit-htable-gcinterval %u", h->gc_interval);
	if (h->expire != quantum)
		fprintf(f, " --hashlimit-htable-expire %u", h->expire);
	if (h->srcmask != plen && h->srcmask != 0xff)
		fprintf(f, " --hashlimit-srcmask %u", h->srcmask);
	if (h->dstmask != plen && h->dstmask != 0xff)
		fprintf(f, " --hashlimit-dstmask %u", h->dstmask);
	if (h->mode & HL_RATE_MATCH) {
		fprintf(f, " --hashlimit-rate-match");
		if (h->interval != 1)
			fprintf(f, " --hashlimit-rate-interval %u", h->interval);
	}
}

/* ---- per packet ----------------------------------------------------------------------- */

static void hl_mask(int family, union pt_addr *a, unsigned plen)
{
	union pt_addr m;

	pt_mask_from_len(family, (int)plen, &m);
	for (int i = 0; i < 4; i++)
		a->w[i] &= m.w[i];
}

static int hl_make_key(const struct ext_pkt_ctx *ctx, const struct hashlimit_info *h,
		       struct hl_key *k)
{
	const struct pkt_info *in = ctx->info;
	uint8_t buf[4];
	const uint8_t *ports; /* inside a segment: not aligned, copied out with memcpy */
	const struct pkt_proto *pr;

	memset(k, 0, sizeof(*k));
	if (h->mode & HL_HASH_SIP) {
		k->src = in->src;
		hl_mask(ctx->family, &k->src, h->srcmask);
	}
	if (h->mode & HL_HASH_DIP) {
		k->dst = in->dst;
		hl_mask(ctx->family, &k->dst, h->dstmask);
	}
	if (!(h->mode & (HL_HASH_SPT | HL_HASH_DPT)))
		return 0;
	/* ports, or the SPI of ESP and AH, as the kernel's proto_ports_offset() says */
	pr = pkt_proto(in->l4proto);
	if (!pr->flow_key)
		return 0;
	ports = pkt_header(ctx->pkt, in->l4off + pr->flow_key_off, sizeof(buf), buf);
	if (!ports)
		return -1;
	if (h->mode & HL_HASH_SPT)
		memcpy(&k->sport, ports, 2);
	if (h->mode & HL_HASH_DPT)
		memcpy(&k->dport, ports + 2, 2);
	return 0;
}

/* Keyed by the box: unkeyed, anyone choosing source addresses could fill one chain. */
static uint32_t hl_hash(const struct hl_table *t, const struct hl_key *k)
{
	return pkt_hash_bucket(pkt_hash(t->key, k, sizeof(*k)), t->size);
}

/* Buckets of a collection per packet (hl_gc). */
#define HL_GC_SLICE 64u

/* Would the collection in progress remove e? (Those that came due before it were due then.) */
static bool hl_collected(const struct hl_table *t, const struct hl_ent *e)
{
	return t->gc_pos < t->size && t->gc_at >= e->expires;
}

static void hl_remove(struct hl_table *t, struct hl_ent **pp)
{
	struct hl_ent *e = *pp;

	*pp = e->next;
	free(e);
	t->count--;
	t->expired++;
}

/* Go on with the collection in progress for at most max buckets. */
static void hl_gc_step(struct hl_table *t, uint32_t max)
{
	while (t->gc_pos < t->size && max--) {
		struct hl_ent **pp = &t->bucket[t->gc_pos++];

		t->gc_buckets++;
		while (*pp) {
			if (t->gc_at >= (*pp)->expires)
				hl_remove(t, pp);
			else
				pp = &(*pp)->next;
		}
	}
}

/* Start the latest collection that would have run up to `now` (one that is due covers the
 * earlier ones), then one slice of it. */
static void hl_gc(struct hl_table *t, uint64_t now)
{
	if (now >= t->next_gc) {
		t->gc_at = t->next_gc + (now - t->next_gc) / t->gc_j * t->gc_j;
		t->gc_pos = 0;
		t->next_gc = t->gc_at + t->gc_j;
	}
	hl_gc_step(t, HL_GC_SLICE);
}

static void hl_rate_init(struct hl_rate *r, const struct hashlimit_info *h, uint64_t now)
{
	memset(r, 0, sizeof(*r));
	r->prev = now;
	if (h->mode & HL_RATE_MATCH) {
		if (h->mode & HL_BYTES) {
			r->rate = hl_cost_to_bytes((uint32_t)h->avg);
			r->burst = h->burst ? h->burst * r->rate : r->rate;
		} else {
			r->rate = HL_SCALE / h->avg;
			r->burst = h->burst + r->rate;
		}
		r->interval = h->interval;
	} else if (h->mode & HL_BYTES) {
		r->credit = HL_CPJ_BYTES * EXT_RATE_HZ;
		r->cost = (h->avg * EXT_RATE_HZ * HL_CPJ_BYTES) >> 32;
		r->credit_cap = h->burst;
	} else {
		r->credit = hl_credits(h->avg * h->burst);
		r->cost = hl_credits(h->avg);
		r->credit_cap = r->credit;
	}
}

static void hl_rate_recalc(struct hl_rate *r, const struct hashlimit_info *h, uint64_t now)
{
	uint64_t delta = now - r->prev, cap;

	if (delta == 0)
		return;
	if (h->mode & HL_RATE_MATCH) {
		uint64_t interval = (uint64_t)r->interval * EXT_RATE_HZ;

		if (delta < interval)
			return;
		r->prev = now;
		r->prev_window = r->current_rate * interval > delta * r->rate;
		r->current_rate = 0;
		return;
	}
	r->prev = now;
	if (h->mode & HL_BYTES) {
		uint64_t old = r->credit;

		r->credit += HL_CPJ_BYTES * delta;
		cap = HL_CPJ_BYTES * EXT_RATE_HZ;
		if (old >= r->credit) {
			r->credit = cap;
			return;
		}
	} else {
		r->credit += delta * HL_CPJ;
		cap = r->credit_cap;
	}
	if (r->credit > cap)
		r->credit = cap;
}

static uint64_t hl_byte_cost(struct hl_rate *r, uint32_t len)
{
	uint64_t cost = ((uint64_t)(len >> HL_BYTE_SHIFT) + 1) * r->cost;

	if (cost > HL_CPJ_BYTES * EXT_RATE_HZ)
		cost = HL_CPJ_BYTES * EXT_RATE_HZ;
	if (r->credit < cost && r->credit_cap) {
		r->credit_cap--;
		r->credit = HL_CPJ_BYTES * EXT_RATE_HZ;
	}
	return cost;
}

static bool hl_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	struct hashlimit_info *h = inst->data;
	struct hl_table *t = h->table;
	uint64_t now = ext_rate_jiffies(ctx->now_ns);
	bool under = !(h->mode & HL_INVERT);
	struct hl_ent *e, **pp;
	struct hl_key k;
	uint32_t b;
	uint64_t cost;
	/* skb->len: the IP datagram as the hook sees it */
	uint32_t len = ctx->info->l3len;

	if (!t)
		goto hotdrop;
	if (!t->started) {
		t->started = true;
		t->next_gc = now + t->gc_j;
		ext_env_hash_key(ctx->env, t->key);
	}
	hl_gc(t, now);
	if (hl_make_key(ctx, h, &k) < 0)
		goto hotdrop;
	b = hl_hash(t, &k);
	for (pp = &t->bucket[b]; (e = *pp); pp = &e->next)
		if (memcmp(&e->key, &k, sizeof(k)) == 0)
			break;
	if (e && hl_collected(t, e)) {
		hl_remove(t, pp); /* its collection has not reached its bucket yet */
		e = NULL;
	}
	if (!e) {
		if (t->count >= t->max)
			hl_gc_step(t, UINT32_MAX); /* what is still due first */
		if (t->count >= t->max) {
			t->full_drops++;
			goto hotdrop;
		}
		e = calloc(1, sizeof(*e));
		if (!e)
			goto hotdrop;
		e->key = k;
		e->next = t->bucket[b];
		t->bucket[b] = e;
		t->count++;
		e->expires = now + t->expire_j;
		hl_rate_init(&e->r, h, now);
	} else {
		e->expires = now + t->expire_j;
		hl_rate_recalc(&e->r, h, now);
	}
	if (h->mode & HL_RATE_MATCH) {
		e->r.current_rate += h->mode & HL_BYTES ? len : 1;
		if (!e->r.prev_window && e->r.current_rate <= e->r.burst)
			return under;
		return !under;
	}
	cost = h->mode & HL_BYTES ? hl_byte_cost(&e->r, len) : e->r.cost;
	if (e->r.credit >= cost) {
		e->r.credit -= cost;
		return under;
	}
	return !under;
hotdrop:
	ctx->hotdrop = true;
	return false;
}

void ext_hashlimit_stats(const struct ext_instance *inst, struct ext_hashlimit_stats *st)
{
	const struct hashlimit_info *h = inst->data;
	const struct hl_table *t = h ? h->table : NULL;
	uint32_t due = 0;

	memset(st, 0, sizeof(*st));
	if (!t)
		return;
	/* entries the collection in progress will remove are gone already */
	for (uint32_t i = t->gc_pos; i < t->size; i++)
		for (const struct hl_ent *e = t->bucket[i]; e; e = e->next)
			due += t->gc_at >= e->expires;
	st->entries = t->count - due;
	st->max = t->max;
	st->full_drops = t->full_drops;
	st->expired = t->expired + due;
	st->gc_buckets = t->gc_buckets;
}

const struct ext_match ext_match_hashlimit = {
    .name = "hashlimit",
    .datasize = sizeof(struct hashlimit_info),
    .opts = hl_opts,
    .nopts = sizeof(hl_opts) / sizeof(hl_opts[0]),
    .init = hl_init,
    .parse = hl_parse,
    .check = hl_check,
    .destroy = hl_destroy,
    .print = hl_print,
    .match = hl_match,
};

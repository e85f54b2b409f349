/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The standard part of a rule (-s -d with masks, -i -o, -p, -f, each with '!') in the form the
 * traversal tests it: per chain, one row of 64-bit (value, mask) words per rule, built when a
 * ruleset is published (rules_ruleset_prepare), against a key of the packet taken once per
 * traversal. A rule fails when a word of the packet differs from the rule's under its mask:
 *
 *   IPv4 row (64 bytes)   IPv6 row (80 bytes)     key word
 *   src | dst << 32       src[0..7]  dst[0..7]    the addresses, 32 or 64 bits at a time
 *   in[0..7]  out[0..7]   in[0..7]  out[0..7]     interface names, zero-padded: the mask
 *                                                 covers the name and its NUL ('+': the name)
 *   proto                 proto                   l4proto | non-first fragment << 16 (IPv4)
 *
 * The row holds only the fields without '!'. A rule that has more (a field with '!', an
 * interface name of 8 bytes or more, an IPv6 prefix longer than 64 bits) also sets RULES_PLAIN_MORE
 * in the last word, which no key has: its row passing all but that bit sends the rule to
 * rules_plain_more, which tests the rest: one masked key word per test (a field with '!' must
 * differ in it; bytes 8-15 of a name or of an IPv6 address must equal), or, when a field does not
 * fit one word (an IPv6 address with '!' masked in both halves, an IPv4 mask beyond four bytes),
 * rules_plain_exact, every field and its '!' at once. All give what rules_ip_match (the kernel's
 * ip_packet_match / ip6_packet_match) gives, except for an IPv6 packet whose extension headers
 * could not be walked (PKT_BAD_EXTHDR): a rule with -p may drop it at once (hotdrop), which only
 * rules_ip_match says; the traversal takes that for such packets.
 */
#ifndef RULES_PLAIN_H
#define RULES_PLAIN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "pkt/pkt.h"
#include "rules/rules.h"

#define RULES_PLAIN_W4	     4 /* words of an IPv4 row */
#define RULES_PLAIN_W6	     5 /* words of an IPv6 row */
#define RULES_PLAIN_MORE     (1ull << 63)
#define RULES_PLAIN_NONFIRST (1u << 16) /* in the proto word: a non-first IPv4 fragment */
#define RULES_PLAIN_TESTS    6		/* tests of rules_plain_more at most */
#define RULES_PLAIN_WHOLE    0xff	/* ntests: rules_plain_exact decides */

/* One masked word of the key (rules_plain_key.w[w]): equal to v, or with neg, not. */
struct rules_plain_test {
	uint64_t v, m;
	uint8_t w;
	bool neg;
};

/* What a rule's row does not say (RULES_PLAIN_MORE): its tests, then every field. */
struct rules_plain_exact {
	uint8_t ntests; /* RULES_PLAIN_WHOLE: the fields below */
	struct rules_plain_test t[RULES_PLAIN_TESTS];
	uint64_t src[2], smsk[2], dst[2], dmsk[2]; /* 16 address bytes as two words */
	uint64_t in[2], inm[2], out[2], outm[2];
	uint32_t proto, protom; /* proto and RULES_PLAIN_NONFIRST (-f) under their masks */
	uint32_t inv;		/* RULES_INV_*, only of fields that have a test */
};

/* The packet as the rows and the rules' tests read it. */
struct rules_plain_key {
	/* the row's words, then (IPv6) bytes 8-15 of the source and destination, then bytes 8-15
	 * of the in and out names */
	uint64_t w[RULES_PLAIN_W6 + 4];
	const uint64_t *in, *out;    /* the interface names' words */
	const struct pkt_info *info; /* the addresses, for rules_plain_exact */
	uint32_t proto;
};

/* An interface name ("" none) as the key's two words: zero after its NUL. */
void rules_plain_name(const char *name, uint64_t w[2]);

/* The same from a 16-byte array that holds a name (struct box_iface.name), without a loop. */
static inline void rules_plain_name16(const char name[16], uint64_t w[2])
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	uint64_t a, b, t;

	memcpy(&a, name, 8);
	memcpy(&b, name + 8, 8);
	/* the lowest bit of t marks the first zero byte; the bytes below it are kept */
	t = (a - ones) & ~a & highs;
	if (t) {
		a &= (t ^ (t - 1)) >> 8;
		b = 0;
	} else {
		t = (b - ones) & ~b & highs;
		if (t)
			b &= (t ^ (t - 1)) >> 8;
	}
	w[0] = a;
	w[1] = b;
#else
	char s[17];

	memcpy(s, name, 16);
	s[16] = '\0';
	rules_plain_name(s, w);
#endif
}

/* The key of a packet of `family` (the ruleset's) on interfaces whose names' words are in and
 * out (rules_plain_name): they and info must outlive the key. */
static inline void rules_plain_key(struct rules_plain_key *k, int family,
				   const struct pkt_info *info, const uint64_t in[2],
				   const uint64_t out[2])
{
	k->info = info;
	k->in = in;
	k->out = out;
	k->proto = info->l4proto;
	if (family == AF_INET) {
		if (info->frag_off)
			k->proto |= RULES_PLAIN_NONFIRST;
		k->w[0] = (uint64_t)info->src.w[0] | (uint64_t)info->dst.w[0] << 32;
		k->w[1] = in[0];
		k->w[2] = out[0];
		k->w[3] = k->proto;
		k->w[4] = in[1];
		k->w[5] = out[1];
		return;
	}
	memcpy(&k->w[0], info->src.b, 8);
	memcpy(&k->w[1], info->dst.b, 8);
	k->w[2] = in[0];
	k->w[3] = out[0];
	k->w[4] = k->proto;
	memcpy(&k->w[5], info->src.b + 8, 8);
	memcpy(&k->w[6], info->dst.b + 8, 8);
	k->w[7] = in[1];
	k->w[8] = out[1];
}

/* Every field of the rule with its '!' (not the IPv6 hotdrop: see above). */
bool rules_plain_exact(const struct rules_plain_exact *x, const struct rules_plain_key *k);
/* What a rule's row left out (its tests, or rules_plain_exact). Out of line: the loop below
 * calls it only for a rule with RULES_PLAIN_MORE whose row passed. */
bool rules_plain_more(const struct rules_plain_exact *x, const struct rules_plain_key *k);

/*
 * The first rule from `i` on (below n) whose standard part the packet passes, or n. W is
 * RULES_PLAIN_W4 or RULES_PLAIN_W6: a constant, so that each family gets a loop of its own.
 */
static inline unsigned rules_plain_next(const struct rules_plain *pl, unsigned i, unsigned n,
					const struct rules_plain_key *k, const unsigned W)
{
	const uint64_t *rows = pl->rows, *d = rows + (size_t)i * 2 * W,
		       *end = rows + (size_t)n * 2 * W;
	const uint64_t k0 = k->w[0], k1 = k->w[1], k2 = k->w[2], k3 = k->w[3];
	const uint64_t kp = k->w[W - 1];

	for (; d != end; d += 2 * W) {
		uint64_t r;

		if ((k0 ^ d[0]) & d[1])
			continue;
		if ((k1 ^ d[2]) & d[3])
			continue;
		if ((k2 ^ d[4]) & d[5])
			continue;
		if (W > 4 && ((k3 ^ d[6]) & d[7]))
			continue;
		r = (kp ^ d[2 * W - 2]) & d[2 * W - 1];
		if (!r)
			break;
		if (r == RULES_PLAIN_MORE &&
		    rules_plain_more(&pl->exact[(size_t)(d - rows) / (2 * W)], k))
			break;
	}
	return (unsigned)((size_t)(d - rows) / (2 * W));
}

/* Whether rule i passes (the compiled classifier names the candidates one by one). */
static inline bool rules_plain_pass(const struct rules_plain *pl, unsigned i,
				    const struct rules_plain_key *k, const unsigned W)
{
	return rules_plain_next(pl, i, i + 1, k, W) == i;
}

/*
 * Build the rows of every chain of rs (again, where they exist): what box_set_ruleset does
 * before it publishes rs. A chain whose rows cannot be allocated is left without (NULL): the
 * traversal then tests its rules with rules_ip_match. 0 or -ENOMEM (rs still usable).
 */
int rules_ruleset_prepare(struct rules_ruleset *rs);
void rules_plain_free(struct rules_plain *pl);

/*
 * The reference: ip_packet_match / ip6_packet_match on the rule's fields as parsed. Sets
 * *hotdrop for an IPv6 packet whose extension headers could not be walked, when the rule has
 * -p and the packet is not a non-first fragment.
 */
bool rules_ip_match(int family, const struct rules_ipmatch *ip, const struct pkt_info *in,
		    const char *indev, const char *outdev, bool *hotdrop);

#endif

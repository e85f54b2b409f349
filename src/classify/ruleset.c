// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * From rules and packets to the classifier's constraints and keys (see ruleset.h).
 *
 * Every constraint is a necessary condition of the rule matching, never more: an address
 * mask that is not a prefix, an inverted IPv6 prefix longer than one word, an interface name
 * longer than four bytes under '!', all give no constraint (or a wider one), and the rule is
 * a candidate for more packets than match it. The engine's evaluation of each candidate
 * decides; the classifier only leaves out rules that cannot match.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "classify/ruleset.h"
#include "ct/ct.h"

int cls_mode_parse(const char *s)
{
	if (!strcmp(s, "auto"))
		return CLS_MODE_AUTO;
	if (!strcmp(s, "linear"))
		return CLS_MODE_LINEAR;
	if (!strcmp(s, "compiled"))
		return CLS_MODE_COMPILED;
	return -1;
}

const char *cls_mode_name(enum cls_mode m)
{
	return m == CLS_MODE_LINEAR ? "linear" : m == CLS_MODE_COMPILED ? "compiled" : "auto";
}

/* ---- rules -> constraints ---------------------------------------------------------------- */

static int constrain1(struct cls_builder *b, unsigned i, unsigned dim, uint32_t lo, uint32_t hi,
		      bool inv)
{
	struct cls_interval iv = {lo, hi};

	return cls_builder_constrain(b, i, dim, &iv, 1, inv);
}

/* A mask of leading ones (host order)? */
static bool is_prefix_mask(uint32_t m)
{
	return !(~m & (~m + 1));
}

/* -s / -d: addr & mask == net & mask, on dims base..base+3. *exact cleared when the
 * constraint is wider than the test. */
static int constrain_net(struct cls_builder *b, unsigned i, unsigned base, int family,
			 const union pt_addr *net, const union pt_addr *mask, bool inv, bool *exact)
{
	unsigned words = family == AF_INET ? 1 : 4, used = 0, last = 0;
	int err = 0;

	/* an IPv4 rule's mask past its first word still tests the packet's (zero) rest */
	for (unsigned k = words; k < 4; k++)
		if (mask->w[k])
			*exact = false;

	for (unsigned k = 0; k < words; k++)
		if (mask->w[k]) {
			used++;
			last = k;
		}
	if (!used) /* any address (the kernel's zero mask); '!' of it: none */
		return inv ? cls_builder_constrain(b, i, base, NULL, 0, false) : 0;
	/* Inverted, a conjunction over several words would become a disjunction: no test. */
	if (inv && used > 1) {
		*exact = false;
		return 0;
	}
	for (unsigned k = 0; k < words && !err; k++) {
		uint32_t m = ntohl(mask->w[k]), v = ntohl(net->w[k]) & m;

		if (m && !is_prefix_mask(m))
			*exact = false;
		if (!m || !is_prefix_mask(m))
			continue;
		err = constrain1(b, i, base + k, v, v | ~m, inv && k == last);
	}
	return err;
}

/* -i / -o: the first four bytes of the name as a number; exact while the rule's name (or
 * prefix before '+') fits in them. */
static uint32_t name_word(const char *s, unsigned len)
{
	uint32_t v = 0;

	for (unsigned k = 0; k < 4; k++)
		v = v << 8 | (k < len ? (uint8_t)s[k] : 0);
	return v;
}

static int constrain_iface(struct cls_builder *b, unsigned i, unsigned dim, const char *name,
			   unsigned len, bool wild, bool inv, bool *exact_out)
{
	uint32_t lo, hi;
	bool exact;

	if (!len && !wild) /* no -i; '!' of it: no interface is that */
		return inv ? cls_builder_constrain(b, i, dim, NULL, 0, false) : 0;
	if (!len) /* "+": every name; inverted, none */
		return inv ? constrain1(b, i, dim, 1, 0, false) : 0;
	lo = name_word(name, len);
	if (wild && len < 4) {
		hi = lo | (0xffffffffu >> (8 * len));
		exact = true;
	} else {
		hi = lo;
		/* the NUL after the name is inside the word, or the prefix fills it */
		exact = wild ? len == 4 : len < 4;
	}
	if (!exact)
		*exact_out = false;
	if (inv && !exact)
		return 0;
	return constrain1(b, i, dim, lo, hi, inv);
}

static int constrain_ip(struct cls_builder *b, unsigned i, int family,
			const struct rules_ipmatch *ip, bool *exact)
{
	int err;

	err = constrain_net(b, i, CLS_SRC0, family, &ip->src, &ip->smsk, ip->inv & RULES_INV_SRC,
			    exact);
	err |= constrain_net(b, i, CLS_DST0, family, &ip->dst, &ip->dmsk, ip->inv & RULES_INV_DST,
			     exact);
	err |= constrain_iface(b, i, CLS_IN, ip->in, ip->in_len, ip->in_wild,
			       ip->inv & RULES_INV_IN, exact);
	err |= constrain_iface(b, i, CLS_OUT, ip->out, ip->out_len, ip->out_wild,
			       ip->inv & RULES_INV_OUT, exact);
	if (ip->proto)
		err |= constrain1(b, i, CLS_PROTO, ip->proto, ip->proto, ip->inv & RULES_INV_PROTO);
	if (family == AF_INET && (ip->frag || (ip->inv & RULES_INV_FRAG))) {
		/* as ip_match: fails when (frag && first fragment) != inverted */
		bool inv = ip->inv & RULES_INV_FRAG;
		struct cls_interval iv[2];
		unsigned n = 0;

		for (uint32_t later = 0; later < 2; later++)
			if (((ip->frag && !later) != inv) == false)
				iv[n++] = (struct cls_interval){later, later};
		err |= cls_builder_constrain(b, i, CLS_FRAG, iv, n, false);
	}
	return err;
}

/* An address range test: IPv4 exactly; IPv6 on the words where lo and hi agree and the first
 * where they differ (not inverted only). */
static int constrain_range(struct cls_builder *b, unsigned i, unsigned base, int family,
			   const struct ext_cls_test *t)
{
	int err = 0;

	if (family == AF_INET)
		return constrain1(b, i, base, ntohl(t->lo.w[0]), ntohl(t->hi.w[0]), t->invert);
	if (t->invert)
		return 0;
	for (unsigned k = 0; k < 4 && !err; k++) {
		uint32_t lo = ntohl(t->lo.w[k]), hi = ntohl(t->hi.w[k]);

		err = constrain1(b, i, base + k, lo, hi, false);
		if (lo != hi)
			break;
	}
	return err;
}

static const unsigned field_dim[] = {
    [EXT_CLS_SPORT] = CLS_SPORT, [EXT_CLS_DPORT] = CLS_DPORT,	  [EXT_CLS_ICMP] = CLS_ICMP,
    [EXT_CLS_MARK] = CLS_MARK,	 [EXT_CLS_CTSTATE] = CLS_CTSTATE,
};

/* One match's tests: those of one scalar field are one union (one invert flag). */
static int constrain_tests(struct cls_builder *b, unsigned i, int family,
			   const struct ext_cls_test *t, unsigned n)
{
	struct cls_interval iv[EXT_CLS_MAX_TESTS];
	int err = 0;

	for (unsigned k = 0; k < n && !err; k++) {
		unsigned f = t[k].field, m = 0;

		if (f == EXT_CLS_SRC || f == EXT_CLS_DST) {
			err = constrain_range(b, i, f == EXT_CLS_SRC ? CLS_SRC0 : CLS_DST0, family,
					      &t[k]);
			continue;
		}
		if (f >= sizeof(field_dim) / sizeof(field_dim[0]) || !field_dim[f])
			continue;
		/* gather this field's tests once, at its first one */
		bool first = true;

		for (unsigned j = 0; j < k; j++)
			if (t[j].field == f)
				first = false;
		if (!first)
			continue;
		for (unsigned j = k; j < n; j++)
			if (t[j].field == f)
				iv[m++] = (struct cls_interval){t[j].lo.w[0], t[j].hi.w[0]};
		err = cls_builder_constrain(b, i, field_dim[f], iv, m, t[k].invert);
		/* ports and ICMP type/code: "not in the list" still needs a port (a later
		 * fragment has none and never matches) */
		if (!err && t[k].invert &&
		    (f == EXT_CLS_SPORT || f == EXT_CLS_DPORT || f == EXT_CLS_ICMP))
			err = constrain1(b, i, field_dim[f], 0, 0xffff, false);
	}
	return err;
}

/*
 * 0 and *partial = whether some match is left to the candidates' evaluation. A rule whose
 * constraints are exactly its test and whose target ends the traversal (ACCEPT, DROP) is
 * final: the classifier may drop the rules it hides.
 */
static int compile_rule(struct cls_builder *b, unsigned i, int family, const struct rules_rule *r,
			struct cls_ruleset *cr, bool *partial, bool *std_exact)
{
	struct ext_cls_test t[EXT_CLS_MAX_TESTS];
	bool exact = true;
	int err = constrain_ip(b, i, family, &r->ip, &exact);

	*std_exact = exact;
	*partial = false;
	for (unsigned m = 0; m < r->nmatches && !err; m++) {
		const struct ext_match *em = r->matches[m].match;
		bool match_exact = false;
		unsigned n;

		if (!em || !em->cls_tests) {
			*partial = true; /* and nothing after it may be used */
			exact = false;
			break;
		}
		n = em->cls_tests(&r->matches[m], family, t, &match_exact);
		exact = exact && match_exact && n <= EXT_CLS_MAX_TESTS;
		if (n > EXT_CLS_MAX_TESTS)
			n = 0;
		if (n && t[0].field == EXT_CLS_CTSTATE && !em->cls_value)
			n = 0; /* no way to read the field: no test */
		err = constrain_tests(b, i, family, t, n);
		/* a pure match with nothing the classifier can use (multiport --ports, a mark
		 * mask with holes) also leaves its test to the candidates */
		if (n == 0 && strcmp(em->name, "comment"))
			*partial = true;
	}
	if (!err && exact && (r->target.kind == RULES_T_ACCEPT || r->target.kind == RULES_T_DROP))
		err = cls_builder_final(b, i);
	return err;
}

static void compile_chain(struct cls_chain *cc, const struct rules_chain *c, int family,
			  struct cls_ruleset *cr, const struct cls_limits *lim,
			  double (*now_s)(void), const struct classifier *prev)
{
	struct cls_build_info info;
	struct cls_builder *b;
	double t0 = now_s ? now_s() : 0;
	int err = 0;

	cc->nrules = c->nrules;
	if (cr->mode == CLS_MODE_LINEAR) {
		cc->why = "mode linear";
		return;
	}
	if (!c->nrules) {
		cc->why = "no rules";
		return;
	}
	if (cr->mode == CLS_MODE_AUTO && c->nrules < CLS_AUTO_MIN_RULES) {
		cc->why = "fewer than 32 rules";
		return;
	}
	b = cls_builder_new(c->nrules);
	if (!b) {
		cc->why = "out of memory";
		return;
	}
	cc->std_exact = calloc(c->nrules, 1); /* NULL: every candidate's standard part tested */
	for (unsigned i = 0; i < c->nrules && !err; i++) {
		bool partial, std_exact;

		err = compile_rule(b, i, family, &c->rules[i], cr, &partial, &std_exact);
		if (partial && !cc->partial++)
			cc->first_partial = i + 1;
		if (cc->std_exact)
			cc->std_exact[i] = std_exact;
	}
	/* the chain's previous classifier with a few rules changed, where that works */
	if (!err && prev && !cls_update(prev, b, &cc->cls, &cc->updated))
		info.bytes = cls_bytes(cc->cls);
	else if (!err)
		cc->updated = 0, err = cls_build(b, lim, &cc->cls, &info);
	cls_builder_free(b);
	cc->build_s = now_s ? now_s() - t0 : -1;
	if (err) {
		cc->why = err == -E2BIG ? "over budget" : "out of memory";
		cc->cls = NULL;
		free(cc->std_exact);
		cc->std_exact = NULL;
		return;
	}
	cc->bytes = info.bytes;
	cr->dims |= cls_dims(cc->cls);
}

static void ruleset_free(struct cls_ruleset *cr)
{
	if (!cr)
		return;
	for (unsigned t = 0; t < TABLE_MAX; t++) {
		for (unsigned i = 0; i < cr->nchains[t]; i++) {
			cls_free(cr->chains[t][i].cls);
			free(cr->chains[t][i].std_exact);
		}
		free(cr->chains[t]);
	}
	free(cr);
}

/* The compiled chain of prev that `chain` of table t replaces (same family, table, name and
 * mode), or NULL. */
static const struct classifier *prev_chain(const struct rules_ruleset *prev, enum cls_mode mode,
					   unsigned t, const struct rules_chain *chain)
{
	const struct cls_ruleset *pc = prev ? prev->compiled : NULL;
	int i;

	if (!pc || pc->mode != mode || !prev->tables[t].present ||
	    (i = rules_chain_find(&prev->tables[t], chain->name)) < 0)
		return NULL;
	return cls_ruleset_chain(pc, t, (unsigned)i);
}

int cls_ruleset_compile(struct rules_ruleset *rs, enum cls_mode mode, const struct cls_limits *lim,
			double (*now_s)(void))
{
	return cls_ruleset_compile_from(rs, NULL, mode, lim, now_s);
}

int cls_ruleset_compile_from(struct rules_ruleset *rs, const struct rules_ruleset *prev,
			     enum cls_mode mode, const struct cls_limits *lim,
			     double (*now_s)(void))
{
	struct cls_ruleset *cr;

	if (!rs)
		return 0;
	if (rs->compiled && rs->compiled_free)
		rs->compiled_free(rs->compiled);
	rs->compiled = NULL;
	cr = calloc(1, sizeof(*cr));
	if (!cr)
		return -ENOMEM;
	cr->mode = mode;
	for (unsigned t = 0; t < TABLE_MAX; t++) {
		const struct rules_table *tb = &rs->tables[t];

		if (!tb->present || !tb->nchains)
			continue;
		cr->chains[t] = calloc(tb->nchains, sizeof(*cr->chains[t]));
		if (!cr->chains[t]) {
			ruleset_free(cr);
			return -ENOMEM;
		}
		cr->nchains[t] = tb->nchains;
		for (unsigned i = 0; i < tb->nchains; i++)
			compile_chain(&cr->chains[t][i], &tb->chains[i], rs->family, cr, lim, now_s,
				      prev && prev->family == rs->family
					  ? prev_chain(prev, mode, t, &tb->chains[i])
					  : NULL);
	}
	rs->compiled = cr;
	rs->compiled_free = ruleset_free;
	return 0;
}

/* ---- packets -> keys --------------------------------------------------------------------- */

/* The key's word of an interface name: its first four bytes, big-endian, zeros from the NUL
 * on (name_word of the rules' side). A name of three bytes or more has a fourth byte to read
 * (a character or its NUL): one load; shorter ones ("", "lo") byte by byte. */
static inline uint32_t iface_word(const char *s)
{
	uint32_t v;

	if (s[0] && s[1] && s[2]) {
		memcpy(&v, s, 4);
		return ntohl(v);
	}
	if (!s[0])
		return 0;
	return (uint32_t)(uint8_t)s[0] << 24 | (uint32_t)(uint8_t)s[1] << 16;
}

/* Transport protocols whose matches read the ports or type/code: the header bytes they need
 * (a packet with fewer is dropped by the match, in the linear scan's order); 0: none. */
static const uint8_t l4_need[256] = {
    [IPPROTO_TCP] = 20, [IPPROTO_UDP] = 8,  [IPPROTO_UDPLITE] = 8, [IPPROTO_SCTP] = 8,
    [IPPROTO_DCCP] = 8, [IPPROTO_ICMP] = 8, [IPPROTO_ICMPV6] = 8,
};

#define DIM(d) (1u << (d))
#define WORDS_1_3                                                                                  \
	(DIM(CLS_SRC1) | DIM(CLS_SRC2) | DIM(CLS_SRC3) | DIM(CLS_DST1) | DIM(CLS_DST2) |           \
	 DIM(CLS_DST3))
#define PORT_DIMS (DIM(CLS_SPORT) | DIM(CLS_DPORT))

/*
 * Only the dimensions some compiled rule of the ruleset constrains are written (cr->dims):
 * nothing reads the others, as a tree splits and a rule's check tests only constrained
 * dimensions. An IPv4 ruleset never constrains words 1-3 of an address.
 */
bool cls_key(const struct cls_ruleset *cr, const struct ext_pkt_ctx *ctx, uint32_t key[CLS_NDIMS])
{
	const struct pkt_info *in = ctx->info;
	const uint32_t d = cr->dims;
	unsigned need = l4_need[in->l4proto];
	bool ports = false;

	if (in->bad != PKT_OK)
		return false;
	if (need) {
		/* the matches on these drop a packet at once whose header is cut short, or an
		 * IPv4 fragment at offset 1 (tcp): the linear scan does that in its order */
		if (in->frag_off == 1)
			return false;
		if (!in->frag_off) {
			if (!in->has_l4 || in->l4len < need)
				return false;
			ports = true;
		}
	}
	key[CLS_SRC0] = ntohl(in->src.w[0]);
	key[CLS_DST0] = ntohl(in->dst.w[0]);
	if (d & WORDS_1_3) {
		for (unsigned k = 1; k < 4; k++) {
			key[CLS_SRC0 + k] = ctx->family == AF_INET6 ? ntohl(in->src.w[k]) : 0;
			key[CLS_DST0 + k] = ctx->family == AF_INET6 ? ntohl(in->dst.w[k]) : 0;
		}
	}
	key[CLS_PROTO] = in->l4proto;
	if (d & PORT_DIMS) {
		key[CLS_SPORT] = key[CLS_DPORT] = CLS_NO_PORT;
		if (ports && in->has_ports) {
			key[CLS_SPORT] = in->sport;
			key[CLS_DPORT] = in->dport;
		}
	}
	if (d & DIM(CLS_ICMP))
		key[CLS_ICMP] =
		    ports && (in->l4proto == IPPROTO_ICMP || in->l4proto == IPPROTO_ICMPV6)
			? (uint32_t)in->icmp_type << 8 | in->icmp_code
			: CLS_NO_PORT;
	/* the rest costs more to read: only what some rule looks at */
	if (d & DIM(CLS_IN))
		key[CLS_IN] = iface_word(ctx->in);
	if (d & DIM(CLS_OUT))
		key[CLS_OUT] = iface_word(ctx->out);
	if (d & DIM(CLS_MARK))
		key[CLS_MARK] = ctx->pkt->mark;
	if (d & DIM(CLS_CTSTATE))
		key[CLS_CTSTATE] = ct_pkt_state(ctx->pkt); /* what every cls_value reads, inline */
	if (d & DIM(CLS_FRAG))
		key[CLS_FRAG] = ctx->family == AF_INET && in->frag_off != 0;
	return true;
}

/* ---- show classifier --------------------------------------------------------------------- */

void cls_chain_print(FILE *f, const char *fam, const char *table, const char *chain, bool compiled,
		     const struct cls_chain *cc)
{
	fprintf(f, "%s %s %s: ", fam, table, chain);
	if (!compiled) {
		fprintf(f, "linear, %u rules (%s)\n", cc->nrules,
			cc->why ? cc->why : "not compiled");
		return;
	}
	fprintf(f, "compiled, %u rules, ", cc->nrules);
	if (cc->build_s >= 0)
		fprintf(f, "build %.3f ms, ", cc->build_s * 1e3);
	else
		fprintf(f, "build time not measured, ");
	fprintf(f, "%zu bytes", cc->bytes);
	if (cc->updated)
		fprintf(f, ", updated in place (%u rules changed)", cc->updated);
	if (cc->partial)
		fprintf(f, ", %u with matches left to candidates (first: rule %u)", cc->partial,
			cc->first_partial);
	fprintf(f, "\n");
}

void cls_ruleset_print(const struct rules_ruleset *rs, FILE *f)
{
	const struct cls_ruleset *cr = rs ? rs->compiled : NULL;
	const char *fam = rs && rs->family == AF_INET6 ? "ipv6" : "ipv4";

	if (!rs)
		return;
	for (unsigned t = 0; t < TABLE_MAX; t++) {
		const struct rules_table *tb = &rs->tables[t];

		if (!tb->present)
			continue;
		for (unsigned i = 0; i < tb->nchains; i++) {
			const struct cls_chain *cc =
			    cr && i < cr->nchains[t] ? &cr->chains[t][i] : NULL;
			struct cls_chain none = {.why = "not compiled",
						 .nrules = tb->chains[i].nrules};

			cls_chain_print(f, fam, rules_table_name(t), tb->chains[i].name,
					cc && cc->cls, cc ? cc : &none);
		}
	}
}

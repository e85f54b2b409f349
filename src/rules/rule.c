// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One rule: the arguments after "-A CHAIN", as iptables-restore reads them.
 *
 *   [!] -s/-d ADDR[/LEN|/MASK][,ADDR...]   [!] -i/-o NAME[+]   [!] -p PROTO   [!] -f
 *   -m MATCH [[!] --opt [ARG [ARG]]]...    -j TARGET [target options] | -g CHAIN
 *   -4 | -6   -c PKTS BYTES
 *
 * An option that no loaded extension knows loads the match named by -p (implicit
 * "-m tcp" after "-p tcp"), as iptables does. Options are looked up in the target first,
 * then in the matches from the last one loaded back to the first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rules/rules_int.h"

struct rule_build {
	struct rules_rule r;
	union pt_addr (*src)[2], (*dst)[2]; /* -s / -d lists: addr, mask */
	unsigned nsrc, ndst;
	unsigned have;  /* STD_* options given */
	bool have_target;
};

enum {
	STD_SRC = 1 << 0,
	STD_DST = 1 << 1,
	STD_IN = 1 << 2,
	STD_OUT = 1 << 3,
	STD_PROTO = 1 << 4,
	STD_FRAG = 1 << 5,
	STD_COUNTERS = 1 << 6,
	STD_FAMILY = 1 << 7,
};

struct std_opt {
	char shortname;
	const char *longname;
	unsigned bit;     /* STD_*, 0 for -j -g -m */
	bool arg;
	bool invertible;
};

static const struct std_opt std_opts[] = {
	{ 's', "source", STD_SRC, true, true },
	{ 's', "src", STD_SRC, true, true },
	{ 'd', "destination", STD_DST, true, true },
	{ 'd', "dst", STD_DST, true, true },
	{ 'i', "in-interface", STD_IN, true, true },
	{ 'o', "out-interface", STD_OUT, true, true },
	{ 'p', "protocol", STD_PROTO, true, true },
	{ 'f', "fragment", STD_FRAG, false, true },
	{ 'j', "jump", 0, true, false },
	{ 'g', "goto", 0, true, false },
	{ 'm', "match", 0, true, false },
	{ '4', "ipv4", STD_FAMILY, false, false },
	{ '6', "ipv6", STD_FAMILY, false, false },
	{ 'c', "set-counters", STD_COUNTERS, true, false },
};

static const struct std_opt *std_lookup(const char *tok)
{
	if (tok[0] != '-')
		return NULL;
	for (size_t i = 0; i < sizeof(std_opts) / sizeof(std_opts[0]); i++) {
		const struct std_opt *o = &std_opts[i];

		if (tok[1] == o->shortname && tok[2] == '\0')
			return o;
		if (tok[1] == '-' && !strcmp(tok + 2, o->longname))
			return o;
	}
	return NULL;
}

static int fail(struct rules_rule_ctx *ctx, const char *tok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct rules_rule_ctx *ctx, const char *tok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->err, ctx->errlen, fmt, ap);
	va_end(ap);
	rules_errf(ctx->errtok, ctx->errtoklen, "%s", tok ? tok : "");
	return -EINVAL;
}

/*
 * The targets of iptables 1.8.9 and xtables-addons (iptables-extensions(8), xtables-addons(8)):
 * a -j NAME that is no chain but one of these is an extension pkttables lacks, and is refused
 * as such (docs/extensions.md says why for each), not as a missing chain.
 */
static const char *const known_targets[] = {
    "AUDIT",	 "CHAOS",   "CHECKSUM", "CLASSIFY", "CLUSTERIP", "CONNMARK", "CONNSECMARK",
    "CT",	 "DELUDE",  "DHCPMAC",	"DNAT",	    "DNETMAP",	 "DNPT",     "DSCP",
    "ECHO",	 "ECN",	    "HL",	"HMARK",    "IDLETIMER", "IPMARK",   "LED",
    "LOG",	 "LOGMARK", "MARK",	"MASQUERADE", "NETMAP",	 "NFLOG",    "NFQUEUE",
    "NOTRACK",	 "PROTO",   "RATEEST",	"REDIRECT", "REJECT",	 "SECMARK",  "SET",
    "SNAT",	 "SNPT",    "SYNPROXY", "SYSRQ",    "TARPIT",	 "TCPMSS",   "TCPOPTSTRIP",
    "TEE",	 "TOS",	    "TPROXY",	"TRACE",    "TTL",	 "ULOG",
};

static bool known_target(const char *name)
{
	for (size_t i = 0; i < sizeof(known_targets) / sizeof(known_targets[0]); i++)
		if (!strcmp(known_targets[i], name))
			return true;
	return false;
}

static int parse_addr_list(struct rules_rule_ctx *ctx, const char *arg,
			   union pt_addr (**list)[2], unsigned *n)
{
	char *copy = strdup(arg), *save = NULL, *tok;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	if (!*arg || arg[strlen(arg) - 1] == ',')
		ret = -EINVAL;
	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		union pt_addr(*nl)[2] = realloc(*list, (*n + 1) * sizeof(**list));

		if (!nl) {
			ret = -ENOMEM;
			break;
		}
		*list = nl;
		if (rules_parse_net(ctx->family, tok, nl[*n]))
			ret = -EINVAL;
		else
			(*n)++;
	}
	free(copy);
	if (ret == -EINVAL)
		return fail(ctx, arg, "host/network not found or bad mask");
	return ret;
}

static int parse_iface(struct rules_rule_ctx *ctx, const char *arg, char *name, uint8_t *len,
		       bool *wild)
{
	size_t n = strlen(arg);

	if (n == 0 || n >= RULES_IFNAME_MAX)
		return fail(ctx, arg, "interface name must be 1 to %d characters",
			    RULES_IFNAME_MAX - 1);
	memcpy(name, arg, n + 1);
	*wild = arg[n - 1] == '+';
	*len = (uint8_t)(*wild ? n - 1 : n);
	return 0;
}

static int add_match(struct rules_rule *r, const struct ext_match *m)
{
	struct ext_instance *nm = realloc(r->matches, (r->nmatches + 1) * sizeof(*nm));

	if (!nm)
		return -ENOMEM;
	r->matches = nm;
	if (rules_ext_new_match(&nm[r->nmatches], m))
		return -ENOMEM;
	r->nmatches++;
	return 0;
}

static int parse_target(struct rules_rule_ctx *ctx, struct rule_build *b, const char *name,
			bool is_goto)
{
	struct rules_target *t = &b->r.target;
	const struct ext_target *et;
	int idx;

	if (b->have_target)
		return fail(ctx, name, "only one -j or -g allowed");
	b->have_target = true;
	if (!is_goto) {
		static const struct {
			const char *name;
			enum rules_target_kind kind;
		} std[] = { { "ACCEPT", RULES_T_ACCEPT },
			    { "DROP", RULES_T_DROP },
			    { "RETURN", RULES_T_RETURN } };

		for (size_t i = 0; i < sizeof(std) / sizeof(std[0]); i++)
			if (!strcmp(name, std[i].name)) {
				t->kind = std[i].kind;
				if (t->kind == RULES_T_DROP && ctx->table == TABLE_NAT)
					return fail(ctx, name, "the nat table is not intended for "
							       "filtering, DROP is inhibited");
				return 0;
			}
		et = ext_find_target(ctx->reg, name, ctx->family);
		if (et) {
			if (rules_ext_new_target(&t->ext, et))
				return -ENOMEM;
			t->kind = RULES_T_EXT;
			return 0;
		}
	}
	idx = ctx->t ? rules_chain_find(ctx->t, name) : -1;
	if (idx < 0 && known_target(name) && !ext_find_target(ctx->reg, name, 0))
		return fail(ctx, name, "extension %s is not supported by pkttables", name);
	if (idx < 0)
		return fail(ctx, name, is_goto ? "goto target chain does not exist"
					       : "chain or target does not exist");
	if (ctx->t->chains[idx].builtin)
		return fail(ctx, name, "cannot jump to a built-in chain");
	t->kind = is_goto ? RULES_T_GOTO : RULES_T_JUMP;
	t->chain = (unsigned)idx;
	return 0;
}

/* Find the extension instance that knows option `name`; loads the -p match if none does. */
static int find_ext_opt(struct rules_rule_ctx *ctx, struct rule_build *b, const char *name,
			struct ext_instance **inst, int *idx)
{
	struct rules_rule *r = &b->r;

	if (r->target.kind == RULES_T_EXT) {
		*idx = rules_ext_find_opt(&r->target.ext, name);
		if (*idx >= 0) {
			*inst = &r->target.ext;
			return 0;
		}
	}
	for (unsigned i = r->nmatches; i-- > 0;) {
		*idx = rules_ext_find_opt(&r->matches[i], name);
		if (*idx >= 0) {
			*inst = &r->matches[i];
			return 0;
		}
	}
	if (r->ip.proto) {
		const char *pname = rules_proto_name(r->ip.proto);
		const struct ext_match *m = pname ? ext_find_match(ctx->reg, pname, ctx->family)
						  : NULL;
		bool loaded = false;

		for (unsigned i = 0; m && i < r->nmatches; i++)
			loaded |= r->matches[i].match == m;
		if (m && !loaded) {
			if (add_match(r, m))
				return -ENOMEM;
			*inst = &r->matches[r->nmatches - 1];
			*idx = rules_ext_find_opt(*inst, name);
			if (*idx >= 0)
				return 0;
		}
	}
	return -ENOENT;
}

static int parse_ext_opt(struct rules_rule_ctx *ctx, struct rule_build *b, char **argv,
			 unsigned argc, unsigned *i, bool invert)
{
	const char *tok = argv[*i];
	struct ext_instance *inst;
	struct ext_parse_ctx pc;
	char joined[512], err[256] = "";
	const char *arg = NULL;
	unsigned nargs;
	int idx, ret;

	ret = find_ext_opt(ctx, b, tok + 2, &inst, &idx);
	if (ret == -ENOMEM)
		return ret;
	if (ret)
		return fail(ctx, tok, "unknown option");
	nargs = rules_ext_opt_nargs(inst, (unsigned)idx);
	if (*i + nargs >= argc)
		return fail(ctx, tok, "option requires %s argument%s", nargs == 2 ? "two" : "an",
			    nargs == 2 ? "s" : "");
	if (nargs == 1) {
		arg = argv[*i + 1];
	} else if (nargs == 2) {
		snprintf(joined, sizeof(joined), "%s %s", argv[*i + 1], argv[*i + 2]);
		arg = joined;
	}
	pc = (struct ext_parse_ctx){
		.family = ctx->family,
		.table = ctx->table,
		.proto = b->r.ip.proto,
		.proto_inverted = b->r.ip.inv & RULES_INV_PROTO,
		.invert = invert,
		.err = err,
		.errlen = sizeof(err),
	};
	ret = rules_ext_parse_opt(&pc, inst, (unsigned)idx, arg);
	if (ret)
		return fail(ctx, nargs ? argv[*i + 1] : tok, "%s", err);
	*i += nargs;
	return 0;
}

static int parse_std_opt(struct rules_rule_ctx *ctx, struct rule_build *b,
			 const struct std_opt *o, const char *tok, const char *arg, bool invert,
			 bool *skip)
{
	struct rules_ipmatch *ip = &b->r.ip;
	if (invert && !o->invertible)
		return fail(ctx, tok, "option cannot be inverted");
	if (o->bit && o->bit != STD_FAMILY && (b->have & o->bit))
		return fail(ctx, tok, "multiple %s flags not allowed", tok);
	b->have |= o->bit;
	switch (o->shortname) {
	case 's':
		ip->inv |= invert ? RULES_INV_SRC : 0;
		return parse_addr_list(ctx, arg, &b->src, &b->nsrc);
	case 'd':
		ip->inv |= invert ? RULES_INV_DST : 0;
		return parse_addr_list(ctx, arg, &b->dst, &b->ndst);
	case 'i':
		ip->inv |= invert ? RULES_INV_IN : 0;
		return parse_iface(ctx, arg, ip->in, &ip->in_len, &ip->in_wild);
	case 'o':
		ip->inv |= invert ? RULES_INV_OUT : 0;
		return parse_iface(ctx, arg, ip->out, &ip->out_len, &ip->out_wild);
	case 'p':
		ip->inv |= invert ? RULES_INV_PROTO : 0;
		if (rules_proto_parse(arg, &ip->proto))
			return fail(ctx, arg, "unknown protocol");
		if (invert && ip->proto == 0)
			return fail(ctx, arg, "rule would never match protocol");
		return 0;
	case 'f':
		if (ctx->family != AF_INET)
			return fail(ctx, tok, "-f is not supported in IPv6, use -m frag instead");
		ip->frag = true;
		ip->inv |= invert ? RULES_INV_FRAG : 0;
		return 0;
	case '4':
	case '6':
		ip->family_tag = o->shortname == '4' ? 4 : 6;
		if ((ctx->family == AF_INET) != (o->shortname == '4'))
			*skip = true;
		return 0;
	case 'm': {
		const struct ext_match *m = ext_find_match(ctx->reg, arg, ctx->family);

		/* every -m NAME loads an extension: one pkttables lacks is said to be that */
		if (!m && ext_find_match(ctx->reg, arg, ctx->family == AF_INET ? AF_INET6 : AF_INET))
			return fail(ctx, arg, "unknown match (no such extension for this family)");
		if (!m)
			return fail(ctx, arg, "extension %s is not supported by pkttables", arg);
		return add_match(&b->r, m);
	}
	case 'j':
	case 'g':
		return parse_target(ctx, b, arg, o->shortname == 'g');
	case 'c':
		return 0; /* handled by the caller: two arguments */
	}
	return 0;
}

/*
 * iptables-nft turns tcp and udp matches into native expressions and, reading the rule back,
 * gathers all of them into the first such match: "-p tcp --dport 80 -m tcp --sport 1" is
 * saved as "-p tcp -m tcp --sport 1 --dport 80" (a later value wins, inversions add up). A
 * match given without options stays a match of its own where it is. The fields copied are
 * those the option table declares (offset, size), so this works for custom options too.
 */
static void merge_native(struct rules_rule *r)
{
	for (unsigned i = 0; i < r->nmatches; i++) {
		struct ext_instance *first = &r->matches[i];
		const struct ext_match *m = first->match;

		if (!first->seen || (strcmp(m->name, "tcp") && strcmp(m->name, "udp")))
			continue;
		for (unsigned j = i + 1; j < r->nmatches;) {
			struct ext_instance *later = &r->matches[j];

			if (later->match != m || !later->seen) {
				j++;
				continue;
			}
			for (unsigned k = 0; k < m->nopts && k < 32; k++) {
				const struct ext_opt *o = &m->opts[k];

				if ((later->seen & (1u << k)) && o->size &&
				    (size_t)o->offset + o->size <= m->datasize)
					memcpy((char *)first->data + o->offset,
					       (char *)later->data + o->offset, o->size);
			}
			first->seen |= later->seen;
			first->inv |= later->inv;
			rules_ext_free(later, false);
			memmove(later, later + 1, (r->nmatches - j - 1) * sizeof(*later));
			r->nmatches--;
		}
	}
}

/* Checks that need the whole rule: extension completeness, -p requirements, tables. */
static int rule_finish(struct rules_rule_ctx *ctx, struct rule_build *b)
{
	struct rules_rule *r = &b->r;
	char err[256];

	for (unsigned i = 0; i <= r->nmatches; i++) {
		const struct ext_instance *inst;
		const char *name;
		uint16_t proto;
		uint32_t tables;

		if (i < r->nmatches) {
			inst = &r->matches[i];
			name = inst->match->name;
			proto = inst->match->proto;
			tables = inst->match->tables;
		} else if (r->target.kind == RULES_T_EXT) {
			inst = &r->target.ext;
			name = inst->target->name;
			proto = inst->target->proto;
			tables = inst->target->tables;
		} else {
			break;
		}
		if (rules_ext_finish(inst, err, sizeof(err)))
			return fail(ctx, name, "%s", err);
		if (proto && r->ip.proto != proto) {
			const char *pn = rules_proto_name(proto);

			return fail(ctx, name, "%s requires -p %s", name, pn ? pn : "?");
		}
		if (tables && !(tables & TABLE_BIT(ctx->table)))
			return fail(ctx, name, "%s is not valid in the %s table", name,
				    rules_table_name(ctx->table));
	}
	if ((r->ip.inv & RULES_INV_SRC) && b->nsrc == 1 && !pt_mask_len(ctx->family, &b->src[0][1]))
		return fail(ctx, "-s", "cannot invert a match of any address");
	if ((r->ip.inv & RULES_INV_DST) && b->ndst == 1 && !pt_mask_len(ctx->family, &b->dst[0][1]))
		return fail(ctx, "-d", "cannot invert a match of any address");
	if ((b->nsrc > 1 && (r->ip.inv & RULES_INV_SRC)) ||
	    (b->ndst > 1 && (r->ip.inv & RULES_INV_DST)))
		return fail(ctx, "!", "! not allowed with multiple source or destination addresses");
	merge_native(r);
	if (r->ip.out[0] && (!strcmp(ctx->chain, "PREROUTING") || !strcmp(ctx->chain, "INPUT")))
		return fail(ctx, "-o", "can't use -o with %s", ctx->chain);
	if (r->ip.in[0] && (!strcmp(ctx->chain, "POSTROUTING") || !strcmp(ctx->chain, "OUTPUT")))
		return fail(ctx, "-i", "can't use -i with %s", ctx->chain);
	return 0;
}

/* Multiply the rule by its -s and -d lists, in iptables' order (source outer). */
static int rule_expand(struct rule_build *b, struct rules_rule **out, unsigned *nout)
{
	unsigned ns = b->nsrc ? b->nsrc : 1, nd = b->ndst ? b->ndst : 1, n = 0;
	struct rules_rule *rules = calloc((size_t)ns * nd, sizeof(*rules));

	if (!rules)
		return -ENOMEM;
	for (unsigned s = 0; s < ns; s++)
		for (unsigned d = 0; d < nd; d++, n++) {
			struct rules_rule *r = &rules[n];

			*r = b->r;
			if (b->nsrc) {
				r->ip.src = b->src[s][0];
				r->ip.smsk = b->src[s][1];
			}
			if (b->ndst) {
				r->ip.dst = b->dst[d][0];
				r->ip.dmsk = b->dst[d][1];
			}
			if (n == 0)
				continue;
			/* copies own their extension data */
			r->matches = NULL;
			r->nmatches = 0;
			r->target.kind = RULES_T_NONE;
			if (b->r.nmatches) {
				r->matches = calloc(b->r.nmatches, sizeof(*r->matches));
				if (!r->matches)
					goto nomem;
			}
			for (unsigned i = 0; i < b->r.nmatches; i++, r->nmatches++)
				if (rules_ext_dup(&r->matches[i], &b->r.matches[i]))
					goto nomem;
			r->target = b->r.target;
			if (b->r.target.kind == RULES_T_EXT &&
			    rules_ext_dup(&r->target.ext, &b->r.target.ext)) {
				r->target.kind = RULES_T_NONE;
				goto nomem;
			}
		}
	*out = rules;
	*nout = n;
	return 0;
nomem:
	for (unsigned i = 1; i <= n && i < ns * nd; i++)
		rules_rule_free(&rules[i], false);
	free(rules);
	return -ENOMEM;
}

int rules_rule_parse(struct rules_rule_ctx *ctx, char **argv, unsigned argc,
		     struct rules_rule **out, unsigned *nout, bool *skip)
{
	struct rule_build b;
	bool invert = false;
	int ret = 0;

	memset(&b, 0, sizeof(b));
	*out = NULL;
	*nout = 0;
	*skip = false;
	for (unsigned i = 0; i < argc && !ret && !*skip; i++) {
		const char *tok = argv[i];
		const struct std_opt *o;

		if (!strcmp(tok, "!")) {
			if (invert) {
				ret = fail(ctx, tok, "multiple consecutive ! not allowed");
				break;
			}
			invert = true;
			continue;
		}
		o = std_lookup(tok);
		if (o) {
			const char *arg = NULL;

			if (o->arg) {
				if (i + 1 >= argc) {
					ret = fail(ctx, tok, "option requires an argument");
					break;
				}
				arg = argv[++i];
				if (!strcmp(arg, "!")) {
					ret = fail(ctx, arg, "use ! before the option, not after it");
					break;
				}
			}
			if (o->shortname == 'c') {
				uint64_t p, by;

				if (i + 1 >= argc || rules_strtou64(arg, &p) ||
				    rules_strtou64(argv[i + 1], &by)) {
					ret = fail(ctx, tok, "-c needs packet and byte counters");
					break;
				}
				i++;
				ctx->has_ctr = true;
				ctx->ctr = (struct rules_counter){p, by};
			}
			ret = parse_std_opt(ctx, &b, o, tok, arg, invert, skip);
		} else if (tok[0] == '-' && tok[1] == '-' && tok[2]) {
			ret = parse_ext_opt(ctx, &b, argv, argc, &i, invert);
		} else {
			ret = fail(ctx, tok, "bad argument");
		}
		invert = false;
	}
	if (!ret && !*skip && invert)
		ret = fail(ctx, "!", "nothing appropriate following !");
	if (!ret && !*skip)
		ret = rule_finish(ctx, &b);
	if (!ret && !*skip)
		ret = rule_expand(&b, out, nout);
	if (ret || *skip)
		rules_rule_free(&b.r, false);
	free(b.src);
	free(b.dst);
	if (ret == -ENOMEM)
		rules_errf(ctx->err, ctx->errlen, "out of memory");
	return ret;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Extension options declared as data: the core's parser for every ext_opt_type, and the
 * checks an option table implies (inversion, repetition, mandatory, excl, also).
 *
 * Storage per type, at inst->data + opt->offset (opt->size must be exactly this):
 *
 *   U8 U16 U32 U64   uint8_t/16/32/64      PORT        uint16_t
 *   U32_RANGE        uint32_t[2] lo,hi     PORT_RANGE  uint16_t[2] lo,hi
 *   MARKMASK         uint32_t[2] val,mask  STRING      char[size]
 *   HOST             union pt_addr         NET, ADDR_RANGE  union pt_addr[2]
 *   NAME, NAME_LIST  uint32_t              NONE, CUSTOM     nothing (size ignored)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "rules/rules_int.h"

void rules_ext_decl(const struct ext_instance *inst, struct rules_ext_decl *d)
{
	if (inst->match) {
		d->name = inst->match->name;
		d->opts = inst->match->opts;
		d->nopts = inst->match->nopts;
		d->parse = inst->match->parse;
	} else {
		d->name = inst->target->name;
		d->opts = inst->target->opts;
		d->nopts = inst->target->nopts;
		d->parse = inst->target->parse;
	}
}

int rules_ext_find_opt(const struct ext_instance *inst, const char *name)
{
	struct rules_ext_decl d;

	rules_ext_decl(inst, &d);
	for (unsigned i = 0; i < d.nopts && i < 32; i++)
		if (!strcmp(d.opts[i].name, name))
			return (int)i;
	return -1;
}

unsigned rules_ext_opt_nargs(const struct ext_instance *inst, unsigned i)
{
	struct rules_ext_decl d;

	rules_ext_decl(inst, &d);
	if (d.opts[i].type == EXT_T_NONE)
		return 0;
	return d.opts[i].flags & EXT_OPT_ARGS2 ? 2 : 1;
}

/* The bit recording option i: its own, or the one it is an alias of. */
static unsigned opt_bit(const struct ext_opt *opts, unsigned nopts, unsigned i)
{
	if ((opts[i].flags & EXT_OPT_NOPRINT) && opts[i].print_as >= 0 &&
	    (unsigned)opts[i].print_as < nopts)
		return (unsigned)opts[i].print_as;
	return i;
}

static const size_t type_size[] = {
	[EXT_T_U8] = 1,		  [EXT_T_U16] = 2,	   [EXT_T_U32] = 4,
	[EXT_T_U64] = 8,	  [EXT_T_U32_RANGE] = 8,   [EXT_T_PORT] = 2,
	[EXT_T_PORT_RANGE] = 4,	  [EXT_T_MARKMASK] = 8,	   [EXT_T_HOST] = sizeof(union pt_addr),
	[EXT_T_NET] = 2 * sizeof(union pt_addr), [EXT_T_ADDR_RANGE] = 2 * sizeof(union pt_addr),
	[EXT_T_NAME] = 4,	  [EXT_T_NAME_LIST] = 4,
};

static const uint64_t type_max[] = {
	[EXT_T_U8] = UINT8_MAX,
	[EXT_T_U16] = UINT16_MAX,
	[EXT_T_U32] = UINT32_MAX,
	[EXT_T_U64] = UINT64_MAX,
	[EXT_T_U32_RANGE] = UINT32_MAX,
};

/*
 * A port as xtables' generic option parser reads it (what udp and most extensions get):
 * decimal digits, reduced to 16 bits as getaddrinfo reduces them (65536 is 0), else a
 * service name in any protocol, exact case. No hex, no sign.
 */
static int generic_port(const char *s, uint16_t *out)
{
	if (*s && strspn(s, "0123456789") == strlen(s)) {
		*out = (uint16_t)strtoull(s, NULL, 10);
		return 0;
	}
	return rules_service_port(s, NULL, out);
}

/* "PORT", "LO:HI", "LO:", ":HI", ":"; LO > HI is kept as given, as xtables keeps it. */
static int parse_port_range(const char *arg, uint16_t out[2])
{
	const char *colon = strchr(arg, ':');
	char lo[64];
	size_t n;

	if (!colon) {
		if (generic_port(arg, &out[0]))
			return -EINVAL;
		out[1] = out[0];
		return 0;
	}
	if (strchr(colon + 1, ':'))
		return -E2BIG;
	n = (size_t)(colon - arg);
	if (n >= sizeof(lo))
		return -EINVAL;
	memcpy(lo, arg, n);
	lo[n] = '\0';
	out[0] = 0;
	out[1] = 65535;
	if (n && generic_port(lo, &out[0]))
		return -EINVAL;
	if (colon[1] && generic_port(colon + 1, &out[1]))
		return -EINVAL;
	return 0;
}

static int parse_u32_range(const char *arg, uint64_t min, uint64_t max, uint32_t out[2])
{
	const char *colon = strchr(arg, ':');
	char lo[32];
	uint64_t a = min, b = max;
	size_t n;

	if (!colon) {
		if (ext_parse_uint(arg, min, max, &a))
			return -EINVAL;
		out[0] = out[1] = (uint32_t)a;
		return 0;
	}
	n = (size_t)(colon - arg);
	if (n >= sizeof(lo))
		return -EINVAL;
	memcpy(lo, arg, n);
	lo[n] = '\0';
	if (n && ext_parse_uint(lo, min, max, &a))
		return -EINVAL;
	if (colon[1] && ext_parse_uint(colon + 1, min, max, &b))
		return -EINVAL;
	if (a > b)
		return -ERANGE;
	out[0] = (uint32_t)a;
	out[1] = (uint32_t)b;
	return 0;
}

static int parse_markmask(const char *arg, uint32_t out[2])
{
	const char *slash = strchr(arg, '/');
	char v[32];
	uint64_t a, m = UINT32_MAX;
	size_t n = slash ? (size_t)(slash - arg) : strlen(arg);

	if (n >= sizeof(v))
		return -EINVAL;
	memcpy(v, arg, n);
	v[n] = '\0';
	if (ext_parse_uint(v, 0, UINT32_MAX, &a))
		return -EINVAL;
	if (slash && ext_parse_uint(slash + 1, 0, UINT32_MAX, &m))
		return -EINVAL;
	out[0] = (uint32_t)a;
	out[1] = (uint32_t)m;
	return 0;
}

/*
 * IPv4 the way xtables reads a numeric address: one to four dot-separated parts, each a
 * number (0x and 0 prefixes allowed) up to 255; missing parts are zero ("10.1" = 10.1.0.0).
 */
static int parse_ipv4(const char *s, union pt_addr *a)
{
	unsigned part = 0;

	memset(a, 0, sizeof(*a));
	for (;;) {
		uint64_t v;
		char num[16];
		size_t n = strcspn(s, ".");

		if (part == 4 || n == 0 || n >= sizeof(num))
			return -EINVAL;
		memcpy(num, s, n);
		num[n] = '\0';
		if (ext_parse_uint(num, 0, 255, &v))
			return -EINVAL;
		a->b[part++] = (uint8_t)v;
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

static int parse_host(int family, const char *s, union pt_addr *a)
{
	int f;

	if (family == AF_INET)
		return parse_ipv4(s, a);
	f = pt_addr_parse(s, a);
	return f && f == family ? 0 : -EINVAL;
}

int rules_parse_net(int family, const char *arg, union pt_addr net[2])
{
	const char *slash = strchr(arg, '/');
	char host[64];
	size_t n = slash ? (size_t)(slash - arg) : strlen(arg);
	int bits = family == AF_INET ? 32 : 128;

	if (n >= sizeof(host))
		return -EINVAL;
	memcpy(host, arg, n);
	host[n] = '\0';
	if (parse_host(family, host, &net[0]))
		return -EINVAL;
	if (!slash) {
		pt_mask_from_len(family, bits, &net[1]);
	} else if (strchr(slash + 1, family == AF_INET ? '.' : ':')) {
		if (parse_host(family, slash + 1, &net[1]))
			return -EINVAL;
	} else {
		uint64_t len;

		if (ext_parse_uint(slash + 1, 0, (uint64_t)bits, &len))
			return -EINVAL;
		pt_mask_from_len(family, (int)len, &net[1]);
	}
	for (int i = 0; i < 4; i++)
		net[0].w[i] &= net[1].w[i];
	return 0;
}

static int parse_addr_range(int family, const char *arg, union pt_addr r[2])
{
	const char *dash = strchr(arg, '-');
	char lo[64];
	size_t n = dash ? (size_t)(dash - arg) : strlen(arg);

	if (n >= sizeof(lo))
		return -EINVAL;
	memcpy(lo, arg, n);
	lo[n] = '\0';
	if (parse_host(family, lo, &r[0]))
		return -EINVAL;
	if (!dash) {
		r[1] = r[0];
		return 0;
	}
	return parse_host(family, dash + 1, &r[1]);
}

static int parse_name(const struct ext_opt *o, const char *s, uint32_t *out)
{
	uint64_t v;

	for (const struct ext_name *n = o->names; n && n->name; n++)
		if (!strcasecmp(n->name, s)) {
			*out = n->value;
			return 0;
		}
	if ((o->flags & EXT_OPT_NUMERIC) && !ext_parse_uint(s, o->min, o->max ? o->max : UINT32_MAX,
							    &v)) {
		*out = (uint32_t)v;
		return 0;
	}
	return -EINVAL;
}

static int parse_name_list(const struct ext_opt *o, const char *arg, uint32_t *out)
{
	char buf[256];
	char *save = NULL, *tok;
	uint32_t acc = 0;

	if (strlen(arg) >= sizeof(buf) || !*arg || arg[0] == ',' || arg[strlen(arg) - 1] == ',' ||
	    strstr(arg, ",,"))
		return -EINVAL;
	strcpy(buf, arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint32_t v;

		if (parse_name(o, tok, &v))
			return -EINVAL;
		acc |= v;
	}
	*out = acc;
	return 0;
}

/* Store arg for option o into p. 0 or -EINVAL with err set. */
static int store_value(struct ext_parse_ctx *ctx, const struct ext_opt *o, void *p,
		       const char *arg)
{
	uint64_t v, max = o->max;
	int ret = 0;

	/* type_max covers the numeric types only; do not index it with the others */
	if (!max && (size_t)o->type < sizeof(type_max) / sizeof(type_max[0]))
		max = type_max[o->type];

	switch (o->type) {
	case EXT_T_U8:
	case EXT_T_U16:
	case EXT_T_U32:
	case EXT_T_U64:
		ret = ext_parse_uint(arg, o->min, max, &v);
		if (ret) {
			if (ret == -ERANGE)
				rules_errf(ctx->err, ctx->errlen,
					   "--%s: value out of range %llu..%llu", o->name,
					   (unsigned long long)o->min, (unsigned long long)max);
			else
				rules_errf(ctx->err, ctx->errlen, "--%s: invalid number", o->name);
			return -EINVAL;
		}
		if (o->type == EXT_T_U8)
			*(uint8_t *)p = (uint8_t)v;
		else if (o->type == EXT_T_U16)
			*(uint16_t *)p = (uint16_t)v;
		else if (o->type == EXT_T_U32)
			*(uint32_t *)p = (uint32_t)v;
		else
			memcpy(p, &v, sizeof(v));
		return 0;
	case EXT_T_U32_RANGE:
		ret = parse_u32_range(arg, o->min, max, p);
		if (ret)
			rules_errf(ctx->err, ctx->errlen, "--%s: invalid range (%llu..%llu)",
				   o->name, (unsigned long long)o->min, (unsigned long long)max);
		break;
	case EXT_T_PORT:
		ret = generic_port(arg, p);
		if (ret)
			rules_errf(ctx->err, ctx->errlen, "port \"%s\" does not resolve to anything",
				   arg);
		break;
	case EXT_T_PORT_RANGE:
		ret = parse_port_range(arg, p);
		if (ret == -E2BIG)
			rules_errf(ctx->err, ctx->errlen, "--%s: too many components (max: 2)",
				   o->name);
		else if (ret)
			rules_errf(ctx->err, ctx->errlen, "port \"%s\" does not resolve to anything",
				   arg);
		break;
	case EXT_T_STRING:
		if (strlen(arg) >= o->size) {
			rules_errf(ctx->err, ctx->errlen, "--%s: string longer than %u characters",
				   o->name, o->size - 1u);
			return -EINVAL;
		}
		strcpy(p, arg);
		break;
	case EXT_T_MARKMASK:
		ret = parse_markmask(arg, p);
		if (ret)
			rules_errf(ctx->err, ctx->errlen, "--%s: bad value, expected value[/mask]",
				   o->name);
		break;
	case EXT_T_HOST:
		ret = parse_host(ctx->family, arg, p);
		if (ret)
			rules_errf(ctx->err, ctx->errlen, "--%s: bad address", o->name);
		break;
	case EXT_T_NET:
		ret = rules_parse_net(ctx->family, arg, p);
		if (ret)
			rules_errf(ctx->err, ctx->errlen, "--%s: bad address or network", o->name);
		break;
	case EXT_T_ADDR_RANGE:
		ret = parse_addr_range(ctx->family, arg, p);
		if (ret)
			rules_errf(ctx->err, ctx->errlen, "--%s: bad address range", o->name);
		break;
	case EXT_T_NAME:
		ret = parse_name(o, arg, p);
		if (ret)
			rules_errf(ctx->err, ctx->errlen, "--%s: unknown value", o->name);
		break;
	case EXT_T_NAME_LIST:
		ret = parse_name_list(o, arg, p);
		if (ret)
			rules_errf(ctx->err, ctx->errlen, "--%s: unknown value in list", o->name);
		break;
	case EXT_T_NONE:
	case EXT_T_CUSTOM:
		break;
	}
	return ret ? -EINVAL : 0;
}

int rules_ext_parse_opt(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned i,
			const char *arg)
{
	struct rules_ext_decl d;
	const struct ext_opt *o;
	unsigned bit;

	rules_ext_decl(inst, &d);
	o = &d.opts[i];
	bit = opt_bit(d.opts, d.nopts, i);
	if ((inst->seen & (1u << bit)) && !(o->flags & EXT_OPT_MULTI)) {
		rules_errf(ctx->err, ctx->errlen, "%s: only one --%s allowed", d.name,
			   d.opts[bit].name);
		return -EINVAL;
	}
	if (ctx->invert && !(o->flags & EXT_OPT_INVERT)) {
		rules_errf(ctx->err, ctx->errlen, "%s: --%s cannot be inverted", d.name, o->name);
		return -EINVAL;
	}
	if (o->type != EXT_T_NONE && o->type != EXT_T_CUSTOM && !(o->flags & EXT_OPT_NOSTORE)) {
		if (o->size != (o->type == EXT_T_STRING ? o->size : type_size[o->type]) ||
		    (size_t)o->offset + o->size > (inst->match ? inst->match->datasize
							       : inst->target->datasize) ||
		    (o->type == EXT_T_STRING && o->size == 0)) {
			rules_errf(ctx->err, ctx->errlen, "%s: --%s is declared with a wrong size",
				   d.name, o->name);
			return -EINVAL;
		}
		if (store_value(ctx, o, (char *)inst->data + o->offset, arg))
			return -EINVAL;
	} else if ((o->type == EXT_T_CUSTOM || (o->flags & EXT_OPT_NOSTORE)) && !d.parse) {
		rules_errf(ctx->err, ctx->errlen, "%s: --%s has no parser", d.name, o->name);
		return -EINVAL;
	}
	inst->seen |= 1u << bit;
	if (ctx->invert)
		inst->inv |= 1u << bit;
	if (d.parse) {
		ctx->err[0] = '\0';
		if (d.parse(ctx, inst, i, arg)) {
			if (!ctx->err[0])
				rules_errf(ctx->err, ctx->errlen, "%s: bad --%s", d.name, o->name);
			return -EINVAL;
		}
	}
	return 0;
}

int rules_ext_finish(const struct ext_instance *inst, char *err, size_t errlen)
{
	struct rules_ext_decl d;

	rules_ext_decl(inst, &d);
	for (unsigned i = 0; i < d.nopts && i < 32; i++) {
		const struct ext_opt *o = &d.opts[i];
		bool seen = inst->seen & (1u << i);

		if ((o->flags & EXT_OPT_MANDATORY) && !seen) {
			rules_errf(err, errlen, "%s: --%s must be specified", d.name, o->name);
			return -EINVAL;
		}
		if (!seen)
			continue;
		if (inst->seen & o->excl) {
			unsigned j = (unsigned)__builtin_ctz(inst->seen & o->excl);

			rules_errf(err, errlen, "%s: --%s cannot be combined with --%s", d.name,
				   o->name, j < d.nopts ? d.opts[j].name : "?");
			return -EINVAL;
		}
		if ((inst->seen & o->also) != o->also) {
			unsigned j = (unsigned)__builtin_ctz(o->also & ~inst->seen);

			rules_errf(err, errlen, "%s: --%s requires --%s", d.name, o->name,
				   j < d.nopts ? d.opts[j].name : "?");
			return -EINVAL;
		}
	}
	return 0;
}

static int ext_new(struct ext_instance *inst, size_t datasize)
{
	inst->seen = inst->inv = 0;
	inst->data = calloc(1, datasize ? datasize : 1);
	return inst->data ? 0 : -ENOMEM;
}

int rules_ext_new_match(struct ext_instance *inst, const struct ext_match *m)
{
	memset(inst, 0, sizeof(*inst));
	inst->match = m;
	if (ext_new(inst, m->datasize))
		return -ENOMEM;
	if (m->init)
		m->init(inst);
	return 0;
}

int rules_ext_new_target(struct ext_instance *inst, const struct ext_target *t)
{
	memset(inst, 0, sizeof(*inst));
	inst->target = t;
	if (ext_new(inst, t->datasize))
		return -ENOMEM;
	if (t->init)
		t->init(inst);
	return 0;
}

int rules_ext_dup(struct ext_instance *dst, const struct ext_instance *src)
{
	size_t n = src->match ? src->match->datasize : src->target->datasize;

	*dst = *src;
	dst->data = malloc(n ? n : 1);
	if (!dst->data)
		return -ENOMEM;
	memcpy(dst->data, src->data, n);
	return 0;
}

void rules_ext_free(struct ext_instance *inst, bool checked)
{
	if (!inst->data)
		return;
	if (checked) {
		if (inst->match && inst->match->destroy)
			inst->match->destroy(inst);
		else if (inst->target && inst->target->destroy)
			inst->target->destroy(inst);
	}
	free(inst->data);
	inst->data = NULL;
}

const struct ext_match *ext_find_match(const struct ext_registry *r, const char *name, int family)
{
	for (int pass = 0; pass < 2; pass++)
		for (unsigned i = 0; r && i < r->nmatches; i++) {
			const struct ext_match *m = r->matches[i];

			if (m->family && family && m->family != family)
				continue;
			if (pass == 0 && !strcmp(m->name, name))
				return m;
			for (const char *const *a = m->aliases; pass == 1 && a && *a; a++)
				if (!strcmp(*a, name))
					return m;
		}
	return NULL;
}

const struct ext_target *ext_find_target(const struct ext_registry *r, const char *name,
					 int family)
{
	/* REJECT is two targets (REJECT4, REJECT6) behind one name, as in iptables. */
	for (unsigned i = 0; r && i < r->ntargets; i++) {
		const struct ext_target *t = r->targets[i];

		if (t->family && family && t->family != family)
			continue;
		if (!strcmp(t->name, name))
			return t;
	}
	return NULL;
}

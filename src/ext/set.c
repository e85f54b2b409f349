// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m set and -j SET: ipset lookups and updates (xt_set revisions 4 and 3), on the box's sets
 * (src/set: the "set" plug-in's data, reached through ext_env_ops.plugin).
 *
 *   -m set [!] --match-set NAME src|dst[,src|dst]... [--return-nomatch]
 *          [! --update-counters] [! --update-subcounters]
 *          [[!] --packets-eq N | --packets-lt N | --packets-gt N]
 *          [[!] --bytes-eq N | --bytes-lt N | --bytes-gt N]
 *   -j SET [--add-set NAME FLAGS [--exist] [--timeout N]] [--del-set NAME FLAGS]
 *          [--map-set NAME FLAGS [--map-mark] [--map-prio] [--map-queue]]
 *
 * Parsing knows no box, so the set names are bound by ext_set_bind() when a loader installs
 * the ruleset (replay --sets, the simulator, live, the control socket): a missing set, one of
 * the other family, or one with more dimensions than the rule gives flags is refused there
 * with the rule's line. A bound rule holds the set's slot: `ipset destroy` refuses it, `ipset
 * swap` gives the rule the other set's elements from the next packet on.
 * --map-queue is accepted and printed; a box has no transmit queues to pick (docs/sets.md).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "ext/set_bind.h"
#include "rules/ext.h"
#include "rules/rules.h"
#include "set/set.h"

struct set_dir_ref {
	char name[SET_NAME_MAX];
	uint8_t dim, dirs;
	int id; /* bound slot, -1 until ext_set_bind */
};

struct set_match_info {
	struct set_dir_ref ref;
	struct set_match_opts mo;
};

enum {
	M_MATCH_SET,
	M_RETURN_NOMATCH,
	M_UPDATE_COUNTERS,
	M_UPDATE_SUBCOUNTERS,
	M_PACKETS_EQ,
	M_PACKETS_LT,
	M_PACKETS_GT,
	M_BYTES_EQ,
	M_BYTES_LT,
	M_BYTES_GT,
	M_NUM
};

#define PKT_OPTS  (1u << M_PACKETS_EQ | 1u << M_PACKETS_LT | 1u << M_PACKETS_GT)
#define BYTE_OPTS (1u << M_BYTES_EQ | 1u << M_BYTES_LT | 1u << M_BYTES_GT)

static const struct ext_opt match_opts[] = {
    [M_MATCH_SET] = {.name = "match-set",
		     .type = EXT_T_CUSTOM,
		     .flags = EXT_OPT_INVERT | EXT_OPT_MANDATORY | EXT_OPT_ARGS2 | EXT_OPT_NOSTORE},
    [M_RETURN_NOMATCH] = {.name = "return-nomatch", .type = EXT_T_NONE},
    [M_UPDATE_COUNTERS] = {.name = "update-counters", .type = EXT_T_NONE, .flags = EXT_OPT_INVERT},
    [M_UPDATE_SUBCOUNTERS] = {.name = "update-subcounters",
			      .type = EXT_T_NONE,
			      .flags = EXT_OPT_INVERT},
    [M_PACKETS_EQ] = {.name = "packets-eq",
		      .type = EXT_T_U64,
		      .flags = EXT_OPT_INVERT,
		      EXT_FIELD(struct set_match_info, mo.packets),
		      .excl = PKT_OPTS & ~(1u << M_PACKETS_EQ)},
    [M_PACKETS_LT] = {.name = "packets-lt",
		      .type = EXT_T_U64,
		      EXT_FIELD(struct set_match_info, mo.packets),
		      .excl = PKT_OPTS & ~(1u << M_PACKETS_LT)},
    [M_PACKETS_GT] = {.name = "packets-gt",
		      .type = EXT_T_U64,
		      EXT_FIELD(struct set_match_info, mo.packets),
		      .excl = PKT_OPTS & ~(1u << M_PACKETS_GT)},
    [M_BYTES_EQ] = {.name = "bytes-eq",
		    .type = EXT_T_U64,
		    .flags = EXT_OPT_INVERT,
		    EXT_FIELD(struct set_match_info, mo.bytes),
		    .excl = BYTE_OPTS & ~(1u << M_BYTES_EQ)},
    [M_BYTES_LT] = {.name = "bytes-lt",
		    .type = EXT_T_U64,
		    EXT_FIELD(struct set_match_info, mo.bytes),
		    .excl = BYTE_OPTS & ~(1u << M_BYTES_LT)},
    [M_BYTES_GT] = {.name = "bytes-gt",
		    .type = EXT_T_U64,
		    EXT_FIELD(struct set_match_info, mo.bytes),
		    .excl = BYTE_OPTS & ~(1u << M_BYTES_GT)},
};

/* "NAME src,dst" (the core joins the two words with one space). */
static int ref_parse(struct ext_parse_ctx *ctx, const char *what, const char *arg,
		     struct set_dir_ref *r)
{
	const char *sp = strchr(arg, ' '), *p;
	size_t n = sp ? (size_t)(sp - arg) : strlen(arg);

	memset(r, 0, sizeof(*r));
	r->id = -1;
	if (!sp || !n) {
		snprintf(ctx->err, ctx->errlen, "--%s requires two args.", what);
		return -EINVAL;
	}
	if (n >= SET_NAME_MAX) {
		snprintf(ctx->err, ctx->errlen, "setname `%.*s' too long, max %d characters.",
			 (int)n, arg, SET_NAME_MAX - 1);
		return -EINVAL;
	}
	memcpy(r->name, arg, n);
	for (p = sp + 1; *p;) {
		size_t len = strcspn(p, ",");

		if (r->dim == SET_DIM_MAX) {
			snprintf(ctx->err, ctx->errlen, "Can't be more src/dst options than %d.",
				 SET_DIM_MAX);
			return -EINVAL;
		}
		if (len == 3 && !strncmp(p, "src", 3))
			r->dirs |= (uint8_t)(1u << r->dim);
		else if (!(len == 3 && !strncmp(p, "dst", 3))) {
			snprintf(ctx->err, ctx->errlen,
				 "You must specify (the comma separated list "
				 "of) 'src' or 'dst'.");
			return -EINVAL;
		}
		r->dim++;
		p += len;
		if (*p == ',')
			p++;
	}
	if (!r->dim) {
		snprintf(ctx->err, ctx->errlen,
			 "You must specify (the comma separated list of) "
			 "'src' or 'dst'.");
		return -EINVAL;
	}
	return 0;
}

static void ref_print(FILE *f, const struct set_dir_ref *r)
{
	fprintf(f, " %s ", r->name);
	for (unsigned i = 0; i < r->dim; i++)
		fprintf(f, "%s%s", i ? "," : "", r->dirs & (1u << i) ? "src" : "dst");
}

static void match_init(struct ext_instance *inst)
{
	((struct set_match_info *)inst->data)->ref.id = -1;
}

static int match_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
		       const char *arg)
{
	struct set_match_info *mi = inst->data;

	switch (opt) {
	case M_MATCH_SET:
		return ref_parse(ctx, "match-set", arg, &mi->ref);
	case M_UPDATE_COUNTERS:
		mi->mo.skip_counters = ctx->invert;
		return 0;
	case M_UPDATE_SUBCOUNTERS:
		mi->mo.skip_subcounters = ctx->invert;
		return 0;
	case M_RETURN_NOMATCH:
		mi->mo.return_nomatch = true;
		return 0;
	case M_PACKETS_EQ:
	case M_PACKETS_LT:
	case M_PACKETS_GT:
		mi->mo.packets_op = opt == M_PACKETS_EQ	  ? (ctx->invert ? SET_CMP_NE : SET_CMP_EQ)
				    : opt == M_PACKETS_LT ? SET_CMP_LT
							  : SET_CMP_GT;
		return 0;
	case M_BYTES_EQ:
	case M_BYTES_LT:
	case M_BYTES_GT:
		mi->mo.bytes_op = opt == M_BYTES_EQ   ? (ctx->invert ? SET_CMP_NE : SET_CMP_EQ)
				  : opt == M_BYTES_LT ? SET_CMP_LT
						      : SET_CMP_GT;
		return 0;
	}
	return 0;
}

static int match_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	struct set_match_info *mi = inst->data;

	mi->mo.dim = mi->ref.dim;
	mi->mo.dirs = mi->ref.dirs;
	return 0;
}

/* iptables-save's order: the set, --return-nomatch, the counter flags, the conditions. */
static void match_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct set_match_info *mi = inst->data;
	static const char *const op[] = {
	    [SET_CMP_EQ] = "eq", [SET_CMP_NE] = "eq", [SET_CMP_LT] = "lt", [SET_CMP_GT] = "gt"};

	fprintf(pr->f, "%s --match-set", inst->inv & (1u << M_MATCH_SET) ? " !" : "");
	ref_print(pr->f, &mi->ref);
	if (mi->mo.return_nomatch)
		fputs(" --return-nomatch", pr->f);
	if (mi->mo.skip_counters)
		fputs(" ! --update-counters", pr->f);
	if (mi->mo.skip_subcounters)
		fputs(" ! --update-subcounters", pr->f);
	if (mi->mo.packets_op)
		fprintf(pr->f, "%s --packets-%s %llu", mi->mo.packets_op == SET_CMP_NE ? " !" : "",
			op[mi->mo.packets_op], (unsigned long long)mi->mo.packets);
	if (mi->mo.bytes_op)
		fprintf(pr->f, "%s --bytes-%s %llu", mi->mo.bytes_op == SET_CMP_NE ? " !" : "",
			op[mi->mo.bytes_op], (unsigned long long)mi->mo.bytes);
}

static struct set_table *env_sets(const struct ext_pkt_ctx *ctx)
{
	const struct ext_env *env = ctx->env;

	return env && env->ops && env->ops->plugin ? env->ops->plugin(env->box, "set") : NULL;
}

static struct set_pkt pkt_of(const struct ext_pkt_ctx *ctx)
{
	return (struct set_pkt){.pkt = ctx->pkt,
				.family = ctx->family,
				.in = ctx->in,
				.out = ctx->out,
				.now = ctx->now_ns,
				.len = ctx->info->l3len};
}

static bool match_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct set_match_info *mi = inst->data;
	struct set_table *t = env_sets(ctx);
	struct set_pkt sp = pkt_of(ctx);
	bool hit = t && mi->ref.id >= 0 && set_match_pkt(t, mi->ref.id, &sp, &mi->mo);

	return hit != !!(inst->inv & (1u << M_MATCH_SET));
}

const struct ext_match ext_match_set = {
    .name = "set",
    .datasize = sizeof(struct set_match_info),
    .opts = match_opts,
    .nopts = M_NUM,
    .init = match_init,
    .parse = match_parse,
    .check = match_check,
    .print = match_print,
    .match = match_match,
};

/* ---- -j SET ------------------------------------------------------------------------------ */

struct set_target_info {
	struct set_dir_ref add, del, map;
	uint32_t timeout;
};

enum { T_ADD, T_DEL, T_MAP, T_EXIST, T_TIMEOUT, T_MAP_MARK, T_MAP_PRIO, T_MAP_QUEUE, T_NUM };

static const struct ext_opt target_opts[] = {
    [T_ADD] = {.name = "add-set", .type = EXT_T_CUSTOM, .flags = EXT_OPT_ARGS2 | EXT_OPT_NOSTORE},
    [T_DEL] = {.name = "del-set", .type = EXT_T_CUSTOM, .flags = EXT_OPT_ARGS2 | EXT_OPT_NOSTORE},
    [T_MAP] = {.name = "map-set", .type = EXT_T_CUSTOM, .flags = EXT_OPT_ARGS2 | EXT_OPT_NOSTORE},
    [T_EXIST] = {.name = "exist", .type = EXT_T_NONE},
    [T_TIMEOUT] = {.name = "timeout",
		   .type = EXT_T_U32,
		   .max = SET_TIMEOUT_MAX,
		   EXT_FIELD(struct set_target_info, timeout)},
    [T_MAP_MARK] = {.name = "map-mark", .type = EXT_T_NONE},
    [T_MAP_PRIO] = {.name = "map-prio", .type = EXT_T_NONE},
    [T_MAP_QUEUE] = {.name = "map-queue", .type = EXT_T_NONE},
};

static void target_init(struct ext_instance *inst)
{
	struct set_target_info *ti = inst->data;

	ti->add.id = ti->del.id = ti->map.id = -1;
}

static int target_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
			const char *arg)
{
	struct set_target_info *ti = inst->data;

	switch (opt) {
	case T_ADD:
		return ref_parse(ctx, "add-set", arg, &ti->add);
	case T_DEL:
		return ref_parse(ctx, "del-set", arg, &ti->del);
	case T_MAP:
		return ref_parse(ctx, "map-set", arg, &ti->map);
	}
	return 0;
}

#define SEEN(inst, o) ((inst)->seen & (1u << (o)))

static int target_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	if (!SEEN(inst, T_ADD) && !SEEN(inst, T_DEL) && !SEEN(inst, T_MAP)) {
		snprintf(ctx->err, ctx->errlen,
			 "You must specify either `--add-set' or `--del-set'");
		return -EINVAL;
	}
	if ((SEEN(inst, T_EXIST) || SEEN(inst, T_TIMEOUT)) && !SEEN(inst, T_ADD)) {
		snprintf(ctx->err, ctx->errlen, "--exist and --timeout need --add-set");
		return -EINVAL;
	}
	if ((SEEN(inst, T_MAP_MARK) || SEEN(inst, T_MAP_PRIO) || SEEN(inst, T_MAP_QUEUE)) !=
	    !!SEEN(inst, T_MAP)) {
		snprintf(ctx->err, ctx->errlen,
			 "--map-set needs one of --map-mark, --map-prio, --map-queue, and they "
			 "need --map-set");
		return -EINVAL;
	}
	if (SEEN(inst, T_MAP) && ctx->table != TABLE_MANGLE) {
		snprintf(ctx->err, ctx->errlen, "--map-set can be used in the mangle table only");
		return -EINVAL;
	}
	if ((SEEN(inst, T_MAP_PRIO) || SEEN(inst, T_MAP_QUEUE)) &&
	    (ctx->hook_mask &
	     ~(HOOK_BIT(HOOK_OUTPUT) | HOOK_BIT(HOOK_FORWARD) | HOOK_BIT(HOOK_POSTROUTING)))) {
		snprintf(ctx->err, ctx->errlen,
			 "--map-prio and --map-queue can be used in the "
			 "OUTPUT, FORWARD and POSTROUTING chains only");
		return -EINVAL;
	}
	return 0;
}

static void target_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct set_target_info *ti = inst->data;

	if (SEEN(inst, T_ADD)) {
		fputs(" --add-set", pr->f);
		ref_print(pr->f, &ti->add);
	}
	if (SEEN(inst, T_DEL)) {
		fputs(" --del-set", pr->f);
		ref_print(pr->f, &ti->del);
	}
	if (SEEN(inst, T_MAP)) {
		fputs(" --map-set", pr->f);
		ref_print(pr->f, &ti->map);
	}
	if (SEEN(inst, T_EXIST))
		fputs(" --exist", pr->f);
	if (SEEN(inst, T_TIMEOUT))
		fprintf(pr->f, " --timeout %u", ti->timeout);
	if (SEEN(inst, T_MAP_MARK))
		fputs(" --map-mark", pr->f);
	if (SEEN(inst, T_MAP_PRIO))
		fputs(" --map-prio", pr->f);
	if (SEEN(inst, T_MAP_QUEUE))
		fputs(" --map-queue", pr->f);
}

static int target_run(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct set_target_info *ti = inst->data;
	struct set_table *t = env_sets(ctx);
	struct set_pkt sp = pkt_of(ctx);

	if (!t)
		return EXT_CONTINUE;
	if (SEEN(inst, T_ADD) && ti->add.id >= 0) {
		struct set_elem_opts o = {.has_timeout = SEEN(inst, T_TIMEOUT) != 0,
					  .timeout = ti->timeout};

		set_add_pkt(t, ti->add.id, &sp, ti->add.dim, ti->add.dirs, &o,
			    SEEN(inst, T_EXIST) ? SET_F_EXIST : 0);
	}
	if (SEEN(inst, T_DEL) && ti->del.id >= 0)
		set_del_pkt(t, ti->del.id, &sp, ti->del.dim, ti->del.dirs);
	if (SEEN(inst, T_MAP) && ti->map.id >= 0) {
		struct set_elem_opts o;

		if (set_map_pkt(t, ti->map.id, &sp, ti->map.dim, ti->map.dirs, &o) == 0) {
			if (SEEN(inst, T_MAP_MARK) && o.has_mark)
				ctx->pkt->mark = (ctx->pkt->mark & ~o.skbmarkmask) ^ o.skbmark;
			if (SEEN(inst, T_MAP_PRIO) && o.has_prio)
				ctx->pkt->priority = o.skbprio;
		}
	}
	return EXT_CONTINUE;
}

const struct ext_target ext_target_SET = {
    .name = "SET",
    .datasize = sizeof(struct set_target_info),
    .opts = target_opts,
    .nopts = T_NUM,
    .init = target_init,
    .parse = target_parse,
    .check = target_check,
    .print = target_print,
    .target = target_run,
};

/* ---- binding ----------------------------------------------------------------------------- */

static int bind_ref(struct set_table *t, int family, struct set_dir_ref *r, bool count, char *msg,
		    size_t len)
{
	int id = set_find(t, r->name);
	const struct set *s = set_get(t, id);

	if (!s) {
		snprintf(msg, len, "Set %s doesn't exist.", r->name);
		return -ENOENT;
	}
	if (set_family(s) && set_family(s) != family) {
		snprintf(msg, len, "set %s is of family %s, the rule's is %s", r->name,
			 set_family(s) == AF_INET6 ? "inet6" : "inet",
			 family == AF_INET6 ? "inet6" : "inet");
		return -EINVAL;
	}
	if (r->dim < set_type_of(s)->ndims) {
		snprintf(msg, len, "set %s (%s) has %u dimensions, the rule gives %u", r->name,
			 set_type_of(s)->name, set_type_of(s)->ndims, r->dim);
		return -EINVAL;
	}
	if (count) {
		r->id = id;
		set_ref_family(t, id, family);
	}
	return 0;
}

/* Every set reference of a rule: bind (or only check, !count). 0 or -errno. */
static int bind_rule(struct set_table *t, int family, struct rules_rule *r, bool count,
		     struct rules_error *e)
{
	int rc = 0;

	for (unsigned m = 0; m < r->nmatches && !rc; m++)
		if (r->matches[m].match == &ext_match_set) {
			struct set_match_info *mi = r->matches[m].data;

			rc = bind_ref(t, family, &mi->ref, count, e->msg, sizeof(e->msg));
			if (rc)
				snprintf(e->token, sizeof(e->token), "%s", mi->ref.name);
		}
	if (!rc && r->target.kind == RULES_T_EXT && r->target.ext.target == &ext_target_SET) {
		struct set_target_info *ti = r->target.ext.data;
		struct set_dir_ref *refs[3] = {&ti->add, &ti->del, &ti->map};
		unsigned bits[3] = {T_ADD, T_DEL, T_MAP};

		for (unsigned i = 0; i < 3 && !rc; i++)
			if (r->target.ext.seen & (1u << bits[i])) {
				rc = bind_ref(t, family, refs[i], count, e->msg, sizeof(e->msg));
				if (rc)
					snprintf(e->token, sizeof(e->token), "%s", refs[i]->name);
			}
	}
	if (rc)
		e->line = r->line;
	return rc;
}

static int walk(struct set_table *t, struct rules_ruleset *rs, bool count, struct rules_error *e)
{
	for (unsigned tb = 0; tb < TABLE_MAX; tb++) {
		struct rules_table *tab = &rs->tables[tb];

		for (unsigned c = 0; tab->present && c < tab->nchains; c++)
			for (unsigned i = 0; i < tab->chains[c].nrules; i++) {
				int rc =
				    bind_rule(t, rs->family, &tab->chains[c].rules[i], count, e);

				if (rc)
					return rc;
			}
	}
	return 0;
}

int ext_set_bind(struct set_table *t, struct rules_ruleset *rs, struct rules_error *e)
{
	int rc;

	if (!rs)
		return 0;
	if (!t) {
		/* no sets at all: the first rule that names one is the error */
		struct set_table *none = set_table_new(NULL);

		if (!none)
			return -ENOMEM;
		rc = walk(none, rs, false, e);
		set_table_free(none);
		return rc;
	}
	if ((rc = walk(t, rs, false, e)))
		return rc;
	set_refs_reset_family(t, rs->family);
	return walk(t, rs, true, e);
}

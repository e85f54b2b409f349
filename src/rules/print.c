// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The canonical printer: what iptables-save 1.8.9 (nf_tables) prints.
 *
 *   *filter                          tables: mangle, security, raw, filter, nat
 *   :INPUT DROP [0:0]                built-in chains in hook order, with policy counters
 *   :alpha - [0:0]                   user chains sorted by name (strcmp)
 *   [3:180] -A INPUT -s 10.0.0.0/8 -d 192.0.2.1/32 -i eth0 -o lo -p tcp -f -m tcp --dport 22 -j alpha
 *   ^ -c only        ^ standard part, always in this order   ^ matches in rule order, then target
 *   COMMIT
 *
 * Rules are printed chain by chain, in the same order as the chain lines.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rules/rules_int.h"

static const unsigned save_order[] = { TABLE_MANGLE, TABLE_SECURITY, TABLE_RAW, TABLE_FILTER,
				       TABLE_NAT };

void ext_print_string(struct ext_printer *pr, const char *s)
{
	static const char plain[] = "_-0123456789abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	size_t n = strspn(s, plain);

	if (n > 0 && s[n] == '\0') {
		fprintf(pr->f, " %s", s);
		return;
	}
	fputs(" \"", pr->f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\' || *s == '\'')
			fputc('\\', pr->f);
		fputc(*s, pr->f);
	}
	fputc('"', pr->f);
}

void ext_print_opt(struct ext_printer *pr, const struct ext_instance *inst, unsigned opt_index)
{
	struct rules_ext_decl d;

	rules_ext_decl(inst, &d);
	if (opt_index >= d.nopts)
		return;
	fprintf(pr->f, "%s --%s", inst->inv & (1u << opt_index) ? " !" : "",
		d.opts[opt_index].name);
}

static void print_addr(struct ext_printer *pr, const union pt_addr *a)
{
	char buf[64];

	fputs(pt_addr_str(pr->family, a, buf, sizeof(buf)), pr->f);
}

/* addr/len, or addr/mask when the mask has holes. */
static void print_net(struct ext_printer *pr, const union pt_addr *a, const union pt_addr *m)
{
	int len = pt_mask_len(pr->family, m);

	print_addr(pr, a);
	if (len >= 0) {
		fprintf(pr->f, "/%d", len);
	} else {
		fputc('/', pr->f);
		print_addr(pr, m);
	}
}

static const char *name_of(const struct ext_name *names, uint32_t v)
{
	for (const struct ext_name *n = names; n && n->name; n++)
		if (n->value == v)
			return n->name;
	return NULL;
}

static void print_name_list(struct ext_printer *pr, const struct ext_name *names, uint32_t v)
{
	uint32_t left = v;
	bool first = true;

	fputc(' ', pr->f);
	if (v == 0) {
		const char *z = name_of(names, 0);

		fputs(z ? z : "0", pr->f);
		return;
	}
	for (const struct ext_name *n = names; n && n->name; n++) {
		if (!n->value || (n->value & left) != n->value || name_of(names, n->value) != n->name)
			continue;
		fprintf(pr->f, "%s%s", first ? "" : ",", n->name);
		first = false;
		left &= ~n->value;
	}
	if (left)
		fprintf(pr->f, "%s0x%x", first ? "" : ",", left);
}

void ext_print_value(struct ext_printer *pr, const struct ext_instance *inst, unsigned opt_index)
{
	struct rules_ext_decl d;
	const struct ext_opt *o;
	const void *p;
	uint64_t v = 0;

	rules_ext_decl(inst, &d);
	if (opt_index >= d.nopts)
		return;
	o = &d.opts[opt_index];
	p = (const char *)inst->data + o->offset;
	switch (o->type) {
	case EXT_T_NONE:
	case EXT_T_CUSTOM:
		return;
	case EXT_T_U8:
		v = *(const uint8_t *)p;
		break;
	case EXT_T_U16:
		v = *(const uint16_t *)p;
		break;
	case EXT_T_U32:
		v = *(const uint32_t *)p;
		break;
	case EXT_T_U64:
		memcpy(&v, p, sizeof(v));
		break;
	case EXT_T_U32_RANGE: {
		const uint32_t *r = p;

		if (r[0] == r[1])
			fprintf(pr->f, " %u", r[0]);
		else
			fprintf(pr->f, " %u:%u", r[0], r[1]);
		return;
	}
	case EXT_T_PORT:
		fprintf(pr->f, " %u", *(const uint16_t *)p);
		return;
	case EXT_T_PORT_RANGE: {
		const uint16_t *r = p;

		if (r[0] == r[1])
			fprintf(pr->f, " %u", r[0]);
		else
			fprintf(pr->f, " %u:%u", r[0], r[1]);
		return;
	}
	case EXT_T_STRING:
		ext_print_string(pr, p);
		return;
	case EXT_T_MARKMASK: {
		const uint32_t *m = p;

		if (m[1] == UINT32_MAX)
			fprintf(pr->f, " 0x%x", m[0]);
		else
			fprintf(pr->f, " 0x%x/0x%x", m[0], m[1]);
		return;
	}
	case EXT_T_HOST:
		fputc(' ', pr->f);
		print_addr(pr, p);
		return;
	case EXT_T_NET: {
		const union pt_addr *a = p;

		fputc(' ', pr->f);
		print_net(pr, &a[0], &a[1]);
		return;
	}
	case EXT_T_ADDR_RANGE: {
		const union pt_addr *a = p;

		fputc(' ', pr->f);
		print_addr(pr, &a[0]);
		fputc('-', pr->f);
		print_addr(pr, &a[1]);
		return;
	}
	case EXT_T_NAME: {
		uint32_t x = *(const uint32_t *)p;
		const char *n = name_of(o->names, x);

		if (n)
			fprintf(pr->f, " %s", n);
		else
			fprintf(pr->f, " %u", x);
		return;
	}
	case EXT_T_NAME_LIST:
		print_name_list(pr, o->names, *(const uint32_t *)p);
		return;
	}
	if (o->flags & EXT_OPT_HEX)
		fprintf(pr->f, " 0x%llx", (unsigned long long)v);
	else
		fprintf(pr->f, " %llu", (unsigned long long)v);
}

/* The core's printer for an instance: each seen, printable option in table order. */
static void print_inst(struct ext_printer *pr, const struct ext_instance *inst)
{
	struct rules_ext_decl d;

	rules_ext_decl(inst, &d);
	for (unsigned i = 0; i < d.nopts && i < 32; i++) {
		if ((d.opts[i].flags & EXT_OPT_NOPRINT) || !(inst->seen & (1u << i)))
			continue;
		ext_print_opt(pr, inst, i);
		ext_print_value(pr, inst, i);
	}
}

static void print_iface(FILE *f, const char *opt, const char *name, bool inv)
{
	if (!name[0] || (!inv && !strcmp(name, "+")))
		return;
	if (!strpbrk(name, " \t\r\v\f\"")) {
		fprintf(f, "%s %s %s", inv ? " !" : "", opt, name);
		return;
	}
	/* iptables only warns about such a name; quoted, it reads back */
	fprintf(f, "%s %s \"", inv ? " !" : "", opt);
	for (; *name; name++) {
		if (*name == '"' || *name == '\\')
			fputc('\\', f);
		fputc(*name, f);
	}
	fputc('"', f);
}

/* The rule after "-A CHAIN", each token preceded by a space. */
static void print_rule_body(const struct rules_ruleset *rs, unsigned table,
			    const struct rules_rule *r, FILE *f)
{
	struct ext_printer pr = { .f = f, .family = rs->family };
	const struct rules_ipmatch *ip = &r->ip;
	static const union pt_addr zero;

	if (!pt_addr_eq(&ip->smsk, &zero)) {
		fprintf(f, "%s -s ", ip->inv & RULES_INV_SRC ? " !" : "");
		print_net(&pr, &ip->src, &ip->smsk);
	}
	if (!pt_addr_eq(&ip->dmsk, &zero)) {
		fprintf(f, "%s -d ", ip->inv & RULES_INV_DST ? " !" : "");
		print_net(&pr, &ip->dst, &ip->dmsk);
	}
	print_iface(f, "-i", ip->in, ip->inv & RULES_INV_IN);
	print_iface(f, "-o", ip->out, ip->inv & RULES_INV_OUT);
	if (ip->proto) {
		const char *n = rules_proto_name(ip->proto);

		fprintf(f, "%s -p ", ip->inv & RULES_INV_PROTO ? " !" : "");
		if (n)
			fputs(n, f);
		else
			fprintf(f, "%u", ip->proto);
	}
	if (ip->frag)
		fprintf(f, "%s -f", ip->inv & RULES_INV_FRAG ? " !" : "");
	for (unsigned i = 0; i < r->nmatches; i++) {
		const struct ext_instance *m = &r->matches[i];

		if (m->match->omit && m->match->omit(m))
			continue;
		fprintf(f, " -m %s", m->match->name);
		if (m->match->print)
			m->match->print(&pr, m);
		else
			print_inst(&pr, m);
	}
	switch (r->target.kind) {
	case RULES_T_NONE:
		break;
	case RULES_T_ACCEPT:
		fputs(" -j ACCEPT", f);
		break;
	case RULES_T_DROP:
		fputs(" -j DROP", f);
		break;
	case RULES_T_RETURN:
		fputs(" -j RETURN", f);
		break;
	case RULES_T_JUMP:
	case RULES_T_GOTO:
		fprintf(f, " -%c %s", r->target.kind == RULES_T_JUMP ? 'j' : 'g',
			rs->tables[table].chains[r->target.chain].name);
		break;
	case RULES_T_EXT: {
		const struct ext_instance *t = &r->target.ext;

		fprintf(f, " -j %s", t->target->name);
		if (t->target->print)
			t->target->print(&pr, t);
		else
			print_inst(&pr, t);
		break;
	}
	}
}

char *rules_rule_to_string(const struct rules_ruleset *rs, unsigned table,
			   const struct rules_rule *r)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	print_rule_body(rs, table, r, f);
	if (fclose(f)) {
		free(s);
		return NULL;
	}
	return s;
}

int rules_print_rule(const struct rules_ruleset *rs, unsigned table, const struct rules_rule *r,
		     FILE *f)
{
	char *s = rules_rule_to_string(rs, table, r);

	if (!s)
		return -ENOMEM;
	fputs(s[0] == ' ' ? s + 1 : s, f);
	free(s);
	return ferror(f) ? -EIO : 0;
}

static int chain_name_cmp(const void *a, const void *b)
{
	const struct rules_chain *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

static int print_table(const struct rules_ruleset *rs, unsigned table, FILE *f, unsigned flags)
{
	const struct rules_table *t = &rs->tables[table];
	const struct rules_chain **order = calloc(t->nchains ? t->nchains : 1, sizeof(*order));
	unsigned n = 0, nbuiltin;

	if (!order)
		return -ENOMEM;
	for (unsigned h = 0; h < HOOK_MAX; h++)
		if (t->builtin[h] >= 0)
			order[n++] = &t->chains[t->builtin[h]];
	nbuiltin = n;
	for (unsigned i = 0; i < t->nchains; i++)
		if (!t->chains[i].builtin)
			order[n++] = &t->chains[i];
	qsort(order + nbuiltin, n - nbuiltin, sizeof(*order), chain_name_cmp);

	if (flags & RULES_PRINT_HEADER)
		fputs("# Generated by pkttables\n", f);
	fprintf(f, "*%s\n", rules_table_name(table));
	for (unsigned i = 0; i < n; i++) {
		const struct rules_chain *c = order[i];

		if (c->builtin)
			fprintf(f, ":%s %s [%llu:%llu]\n", c->name,
				c->policy == EXT_DROP ? "DROP" : "ACCEPT",
				(unsigned long long)c->pkts, (unsigned long long)c->bytes);
		else
			fprintf(f, ":%s - [0:0]\n", c->name);
	}
	for (unsigned i = 0; i < n; i++) {
		const struct rules_chain *c = order[i];

		for (unsigned j = 0; j < c->nrules; j++) {
			const struct rules_rule *r = &c->rules[j];

			if (flags & RULES_PRINT_COUNTERS)
				fprintf(f, "[%llu:%llu] ", (unsigned long long)c->ctr[j].pkts,
					(unsigned long long)c->ctr[j].bytes);
			fprintf(f, "-A %s", c->name);
			print_rule_body(rs, table, r, f);
			fputc('\n', f);
		}
	}
	fputs("COMMIT\n", f);
	if (flags & RULES_PRINT_HEADER)
		fputs("# Completed\n", f);
	free(order);
	return 0;
}

int rules_print(const struct rules_ruleset *rs, FILE *f, unsigned flags)
{
	for (size_t i = 0; i < sizeof(save_order) / sizeof(save_order[0]); i++) {
		int ret;

		if (!rs->tables[save_order[i]].present)
			continue;
		ret = print_table(rs, save_order[i], f, flags);
		if (ret)
			return ret;
	}
	return ferror(f) ? -EIO : 0;
}

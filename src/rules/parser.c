// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The file structure of iptables-save output, as iptables-restore reads it:
 *
 *   # comment                      ('#' in column 0)
 *   *TABLE                         starts (and flushes) a table
 *   :CHAIN POLICY [PKTS:BYTES]     built-in chain policy, or a user chain with "-"
 *   [PKTS:BYTES] -A CHAIN RULE     also -I CHAIN [N], -D CHAIN N|RULE, -R CHAIN N RULE,
 *                                  -N CHAIN, -X [CHAIN], -F [CHAIN], -P CHAIN POLICY,
 *                                  -E OLD NEW, -Z [CHAIN]
 *   COMMIT                         ends the table
 *
 * After the last line the whole ruleset is checked (check.c). All or nothing: any error
 * frees everything parsed so far.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rules/rules_int.h"

struct parser {
	const char *name;
	int family;
	const struct ext_registry *reg;
	struct rules_ruleset *rs;
	int table;             /* current table, -1 outside *table ... COMMIT */
	unsigned table_line;
	unsigned line;
	struct rules_error *err;
};

static int perr(struct parser *p, const char *tok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr(struct parser *p, const char *tok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
	va_end(ap);
	p->err->line = p->line;
	snprintf(p->err->token, sizeof(p->err->token), "%s", tok ? tok : "");
	return -EINVAL;
}

static bool is_std_target(const char *name)
{
	return !strcmp(name, "ACCEPT") || !strcmp(name, "DROP") || !strcmp(name, "RETURN") ||
	       !strcmp(name, "QUEUE");
}

static int check_chain_name(struct parser *p, const char *name)
{
	if (strlen(name) > RULES_CHAIN_NAME_MAX - 1)
		return perr(p, name, "chain name too long (must be under %d chars)",
			    RULES_CHAIN_NAME_MAX);
	if (name[0] == '-' || name[0] == '!' || !name[0])
		return perr(p, name, "chain name not allowed to start with '%c'",
			    name[0] ? name[0] : ' ');
	if (is_std_target(name))
		return perr(p, name, "chain name may not clash with target name");
	/* iptables refuses white space; a quote could not be printed so that it reads back */
	if (strpbrk(name, " \t\r\n\v\f\""))
		return perr(p, name, "Invalid chain name");
	return 0;
}

static int parse_policy(struct parser *p, const char *s, int *policy)
{
	if (!strcmp(s, "ACCEPT"))
		*policy = EXT_ACCEPT;
	else if (!strcmp(s, "DROP"))
		*policy = EXT_DROP;
	else
		return perr(p, s, "bad policy name");
	return 0;
}

/* ":NAME POLICY [p:b]" */
static int parse_chain_line(struct parser *p, struct rules_tokens *tk)
{
	struct rules_table *t = &p->rs->tables[p->table];
	const char *name = tk->tok[0] + 1;
	int idx;

	if (!name[0])
		return perr(p, tk->tok[0], "chain name missing");
	if (tk->n < 2)
		return perr(p, tk->tok[0], "chain policy missing");
	idx = rules_chain_find(t, name);
	if (idx >= 0 && t->chains[idx].builtin) {
		struct rules_chain *c = &t->chains[idx];
		uint64_t pk, by;

		if (strcmp(tk->tok[1], "-") && parse_policy(p, tk->tok[1], &c->policy))
			return -EINVAL;
		/* iptables-restore ignores counters it cannot read */
		if (tk->n >= 3 && sscanf(tk->tok[2], "[%" SCNu64 ":%" SCNu64 "]", &pk, &by) == 2) {
			c->pkts = pk;
			c->bytes = by;
		}
		c->line = p->line;
		return 0;
	}
	if (check_chain_name(p, name))
		return -EINVAL;
	if (idx >= 0)
		return 0; /* declared twice: iptables-restore accepts it */
	idx = rules_chain_add(t, name, p->line);
	return idx < 0 ? idx : 0;
}

static int find_chain(struct parser *p, const char *name)
{
	int idx = rules_chain_find(&p->rs->tables[p->table], name);

	if (idx < 0)
		perr(p, name, "chain does not exist");
	return idx;
}

/* Parse the rule in argv into *rules; *n == 0 when it is for the other family. */
static int parse_rules(struct parser *p, const char *chain, char **argv, unsigned argc,
		       struct rules_tokens *tk, struct rules_rule **rules, unsigned *n,
		       struct rules_counter *ctr)
{
	struct rules_rule_ctx ctx = {
		.family = p->family,
		.table = (unsigned)p->table,
		.t = &p->rs->tables[p->table],
		.chain = chain,
		.reg = p->reg,
		.err = p->err->msg,
		.errlen = sizeof(p->err->msg),
		.errtok = p->err->token,
		.errtoklen = sizeof(p->err->token),
	};
	bool skip;
	int ret = rules_rule_parse(&ctx, argv, argc, rules, n, &skip);

	if (ret) {
		p->err->line = p->line;
		return ret;
	}
	for (unsigned i = 0; i < *n; i++)
		(*rules)[i].line = p->line;
	/* [p:b] before the command wins over -c in the rule, as before */
	*ctr = (struct rules_counter){0, 0};
	if (tk->has_counters)
		*ctr = (struct rules_counter){tk->pkts, tk->bytes};
	else if (ctx.has_ctr)
		*ctr = ctx.ctr;
	return 0;
}

static void free_rules(struct rules_rule *rules, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		rules_rule_free(&rules[i], false);
	free(rules);
}

static int insert_rules(struct rules_table *t, struct rules_chain *c, unsigned pos,
			struct rules_rule *rules, unsigned n, const struct rules_counter *ctr)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		struct rules_target *tg = &rules[i].target;

		if (rules_chain_insert(c, pos + i, &rules[i], ctr))
			break;
		if (tg->kind == RULES_T_JUMP || tg->kind == RULES_T_GOTO)
			t->chains[tg->chain].refs++;
	}
	if (i < n) {
		for (unsigned j = i; j < n; j++)
			rules_rule_free(&rules[j], false);
		free(rules);
		return -ENOMEM;
	}
	free(rules);
	return 0;
}

/* Rule number argument, 1-based; max is the largest acceptable. */
static int rule_number(struct parser *p, const char *s, unsigned max, unsigned *out)
{
	uint64_t v;

	if (rules_strtou64(s, &v) || v < 1 || v > max)
		return perr(p, s, "index of rule out of range (chain has %u rules)",
			    max ? max : 0);
	*out = (unsigned)v;
	return 0;
}

static int delete_by_spec(struct parser *p, struct rules_chain *c, struct rules_rule *rules,
			  unsigned n)
{
	struct rules_table *t = &p->rs->tables[p->table];
	int ret = 0;

	for (unsigned i = 0; i < n && !ret; i++) {
		char *want = rules_rule_to_string(p->rs, (unsigned)p->table, &rules[i]);
		unsigned j;

		if (!want) {
			ret = -ENOMEM;
			break;
		}
		for (j = 0; j < c->nrules; j++) {
			char *have = rules_rule_to_string(p->rs, (unsigned)p->table, &c->rules[j]);
			bool same = have && !strcmp(have, want);

			free(have);
			if (same)
				break;
		}
		free(want);
		if (j == c->nrules)
			ret = perr(p, c->name, "bad rule (does a matching rule exist in that chain?)");
		else
			rules_chain_remove(t, c, j);
	}
	free_rules(rules, n);
	return ret;
}

static int delete_chain(struct parser *p, unsigned idx)
{
	struct rules_table *t = &p->rs->tables[p->table];
	struct rules_chain *c = &t->chains[idx];

	if (c->builtin)
		return perr(p, c->name, "cannot delete a built-in chain");
	if (c->refs || c->nrules)
		return perr(p, c->name, "cannot delete chain: it is in use or not empty");
	rules_chain_delete(t, idx);
	return 0;
}

/* Commands whose first argument is a chain name. */
static const char *const chain_cmds[] = {
	"-A", "--append", "-I", "--insert", "-D", "--delete", "-R", "--replace",
	"-N", "--new-chain", "-P", "--policy", "-E", "--rename-chain",
};

static int cmd_line(struct parser *p, struct rules_tokens *tk)
{
	struct rules_table *t = &p->rs->tables[p->table];
	const char *cmd = tk->tok[0];
	char **argv = tk->tok;
	unsigned argc = tk->n;
	struct rules_rule *rules;
	struct rules_counter ctr;
	unsigned n, pos = 0;
	int idx;

	for (unsigned i = 0; i < argc; i++)
		if (!strcmp(argv[i], "-t") || !strcmp(argv[i], "--table"))
			return perr(p, argv[i], "the -t option cannot be used in a restore file");
	if (cmd[0] != '-')
		return perr(p, cmd, "unknown command");
	/* the long forms too: argv[1] is read below without another check */
	for (size_t i = 0; argc < 2 && i < sizeof(chain_cmds) / sizeof(chain_cmds[0]); i++)
		if (!strcmp(cmd, chain_cmds[i]))
			return perr(p, cmd, "chain name missing");

	if (!strcmp(cmd, "-A") || !strcmp(cmd, "--append") || !strcmp(cmd, "-I") ||
	    !strcmp(cmd, "--insert")) {
		bool append = cmd[1] == 'A' || cmd[2] == 'a';
		unsigned skip = 2;

		idx = find_chain(p, argv[1]);
		if (idx < 0)
			return -EINVAL;
		pos = append ? t->chains[idx].nrules : 0;
		if (!append && argc > 2 && isdigit((unsigned char)argv[2][0])) {
			unsigned num = 0;

			if (rule_number(p, argv[2], t->chains[idx].nrules + 1, &num))
				return -EINVAL;
			pos = num - 1;
			skip = 3;
		}
		if (parse_rules(p, argv[1], argv + skip, argc - skip, tk, &rules, &n, &ctr))
			return -EINVAL;
		return insert_rules(t, &t->chains[idx], pos, rules, n, &ctr);
	}
	if (!strcmp(cmd, "-D") || !strcmp(cmd, "--delete") || !strcmp(cmd, "-R") ||
	    !strcmp(cmd, "--replace")) {
		bool replace = cmd[1] == 'R' || cmd[2] == 'r';
		struct rules_chain *c;

		idx = find_chain(p, argv[1]);
		if (idx < 0)
			return -EINVAL;
		c = &t->chains[idx];
		if (!replace && argc > 2 && isdigit((unsigned char)argv[2][0]) && argc == 3) {
			if (rule_number(p, argv[2], c->nrules, &pos))
				return -EINVAL;
			rules_chain_remove(t, c, pos - 1);
			return 0;
		}
		if (replace) {
			if (argc < 3 || rule_number(p, argv[2], c->nrules, &pos))
				return argc < 3 ? perr(p, cmd, "rule number missing") : -EINVAL;
			if (parse_rules(p, argv[1], argv + 3, argc - 3, tk, &rules, &n, &ctr))
				return -EINVAL;
			if (n != 1) {
				free_rules(rules, n);
				return n ? perr(p, cmd, "-R needs a rule with one source and "
							"destination")
					 : 0;
			}
			rules_chain_remove(t, c, pos - 1);
			return insert_rules(t, c, pos - 1, rules, n, &ctr);
		}
		if (parse_rules(p, argv[1], argv + 2, argc - 2, tk, &rules, &n, &ctr))
			return -EINVAL;
		return delete_by_spec(p, c, rules, n);
	}
	if (!strcmp(cmd, "-N") || !strcmp(cmd, "--new-chain")) {
		if (check_chain_name(p, argv[1]))
			return -EINVAL;
		if (rules_chain_find(t, argv[1]) >= 0)
			return perr(p, argv[1], "chain already exists");
		idx = rules_chain_add(t, argv[1], p->line);
		return idx < 0 ? idx : 0;
	}
	if (!strcmp(cmd, "-X") || !strcmp(cmd, "--delete-chain")) {
		if (argc >= 2) {
			idx = find_chain(p, argv[1]);
			return idx < 0 ? -EINVAL : delete_chain(p, (unsigned)idx);
		}
		for (unsigned i = t->nchains; i-- > 0;)
			if (!t->chains[i].builtin && delete_chain(p, i))
				return -EINVAL;
		return 0;
	}
	if (!strcmp(cmd, "-F") || !strcmp(cmd, "--flush") || !strcmp(cmd, "-Z") ||
	    !strcmp(cmd, "--zero")) {
		bool zero = cmd[1] == 'Z' || cmd[2] == 'z';

		for (unsigned i = 0; i < t->nchains; i++) {
			struct rules_chain *c = &t->chains[i];

			if (argc >= 2 && strcmp(c->name, argv[1]))
				continue;
			if (zero) {
				rules_chain_zero_counters(c);
			} else {
				while (c->nrules)
					rules_chain_remove(t, c, c->nrules - 1);
			}
		}
		if (argc >= 2 && rules_chain_find(t, argv[1]) < 0)
			return perr(p, argv[1], "chain does not exist");
		return 0;
	}
	if (!strcmp(cmd, "-P") || !strcmp(cmd, "--policy")) {
		if (argc < 3)
			return perr(p, cmd, "policy missing");
		idx = find_chain(p, argv[1]);
		if (idx < 0)
			return -EINVAL;
		if (!t->chains[idx].builtin)
			return perr(p, argv[1], "only built-in chains have a policy");
		return parse_policy(p, argv[2], &t->chains[idx].policy);
	}
	if (!strcmp(cmd, "-E") || !strcmp(cmd, "--rename-chain")) {
		if (argc < 3)
			return perr(p, cmd, "new chain name missing");
		idx = find_chain(p, argv[1]);
		if (idx < 0)
			return -EINVAL;
		if (t->chains[idx].builtin)
			return perr(p, argv[1], "cannot rename a built-in chain");
		if (check_chain_name(p, argv[2]))
			return -EINVAL;
		if (rules_chain_find(t, argv[2]) >= 0)
			return perr(p, argv[2], "chain already exists");
		snprintf(t->chains[idx].name, sizeof(t->chains[idx].name), "%s", argv[2]);
		return 0;
	}
	return perr(p, cmd, "unknown or unsupported command");
}

/* Trim trailing white space (and the CR of CRLF files) from [s, s+len). */
static size_t trim_len(const char *s, size_t len)
{
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	return len;
}

static int parse_line(struct parser *p, const char *s, size_t len)
{
	struct rules_tokens tk;
	char word[64];
	int ret;

	size_t raw = len && s[len - 1] == '\r' ? len - 1 : len;

	len = trim_len(s, len);
	if (len == 0 && raw)
		return perr(p, "", "no command specified (line of white space)");
	if (len == 0 || s[0] == '#')
		return 0;
	if (s[0] == '*') {
		int t;

		snprintf(word, sizeof(word), "%.*s", (int)(len - 1), s + 1);
		if (p->table >= 0)
			return perr(p, word, "COMMIT expected before a new table");
		t = rules_table_by_name(word);
		if (t < 0)
			return perr(p, word, "table name invalid");
		p->table = t;
		p->table_line = p->line;
		ret = rules_table_reset(&p->rs->tables[t], (unsigned)t, false);
		/* iptables-nft creates the table only when a line of its section needs it: an
		 * empty section (or one with only -F/-Z/-X) leaves no table behind */
		p->rs->tables[t].present = false;
		return ret;
	}
	if (len == 6 && !memcmp(s, "COMMIT", 6)) {
		if (p->table < 0)
			return perr(p, "COMMIT", "COMMIT outside a table");
		if (!p->rs->tables[p->table].present)
			rules_table_free(&p->rs->tables[p->table], false);
		p->table = -1;
		return 0;
	}
	ret = rules_lex_line(s, len, &tk, p->err->msg, sizeof(p->err->msg), p->err->token,
			     sizeof(p->err->token));
	if (ret) {
		p->err->line = p->line;
		return ret;
	}
	/*
	 * An unterminated quote runs to the end of the line and keeps the newline, as
	 * iptables-restore reads it. No printed form of a value holding a newline reads back
	 * (iptables-save's own output of it does not load), so such a line is refused.
	 */
	for (unsigned i = 0; i < tk.n; i++) {
		if (strchr(tk.tok[i], '\n')) {
			ret = perr(p, tk.tok[i], "unterminated quote");
			rules_tokens_free(&tk);
			return ret;
		}
	}
	if (tk.n == 0)
		ret = 0;
	else if (p->table < 0)
		ret = perr(p, tk.tok[0], "no table specified (missing *table line)");
	else if (tk.tok[0][0] == ':' && !tk.has_counters)
		ret = parse_chain_line(p, &tk);
	else
		ret = cmd_line(p, &tk);
	if (!ret && p->table >= 0 && tk.n && !strchr("FZX", tk.tok[0][1]))
		p->rs->tables[p->table].present = true;
	rules_tokens_free(&tk);
	if (ret == -ENOMEM)
		perr(p, "", "out of memory");
	return ret;
}

static int parse_text(struct parser *p, const char *buf, size_t len)
{
	size_t off = 0;

	p->line = 0;
	p->table = -1;
	while (off < len) {
		const char *nl = memchr(buf + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (buf + off)) : len - off;
		int ret;

		p->line++;
		if (memchr(buf + off, '\0', n))
			return perr(p, "", "NUL byte in input");
		ret = parse_line(p, buf + off, n);
		if (ret)
			return ret;
		off += n + 1;
	}
	if (p->table >= 0) {
		char tok[64];

		snprintf(tok, sizeof(tok), "*%s", rules_table_name((unsigned)p->table));
		return perr(p, tok, "COMMIT expected (table started at line %u)", p->table_line);
	}
	return 0;
}

/* NOFLUSH: start from the base's tables by reading back what it prints (fresh instances,
 * checked again like everything else). */
static int load_base(struct parser *p, const struct rules_ruleset *base)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	const char *name = p->name;
	int ret;

	if (!f)
		return -ENOMEM;
	ret = rules_print(base, f, RULES_PRINT_COUNTERS);
	if (fclose(f) || ret) {
		free(text);
		return perr(p, "", "cannot print the base ruleset");
	}
	p->name = "(base ruleset)";
	ret = parse_text(p, text, len);
	free(text);
	p->name = name;
	return ret;
}

int rules_parse_buffer(const char *buf, size_t len, const char *name, int family,
		       const struct ext_registry *reg, const struct rules_ruleset *base,
		       unsigned flags, struct rules_ruleset **out, struct rules_error *err)
{
	struct parser p = { .name = name, .family = family, .reg = reg, .err = err, .table = -1 };
	int ret;

	memset(err, 0, sizeof(*err));
	snprintf(err->file, sizeof(err->file), "%s", name ? name : "-");
	*out = NULL;
	if (family != AF_INET && family != AF_INET6) {
		rules_errf(err->msg, sizeof(err->msg), "family must be AF_INET or AF_INET6");
		return -EINVAL;
	}
	p.rs = rules_ruleset_alloc(family);
	if (!p.rs) {
		rules_errf(err->msg, sizeof(err->msg), "out of memory");
		return -ENOMEM;
	}
	ret = 0;
	if (base && (flags & RULES_PARSE_NOFLUSH)) {
		ret = load_base(&p, base);
		if (ret)
			snprintf(err->file, sizeof(err->file), "%s", p.name);
	}
	if (!ret)
		ret = parse_text(&p, buf, len);
	if (!ret) {
		ret = rules_check_ruleset(p.rs, err);
		if (ret) {
			/* rules_check_ruleset destroyed what it checked; free the rest */
			for (unsigned t = 0; t < TABLE_MAX; t++)
				rules_table_free(&p.rs->tables[t], false);
			free(p.rs);
			return ret;
		}
		if (!(flags & RULES_PARSE_SEPARATE))
			rules_prepare_chains(p.rs);
		*out = p.rs;
		return 0;
	}
	for (unsigned t = 0; t < TABLE_MAX; t++)
		rules_table_free(&p.rs->tables[t], false);
	free(p.rs);
	if (!err->msg[0])
		rules_errf(err->msg, sizeof(err->msg), "%s", strerror(-ret));
	return ret;
}

int rules_parse_file(const char *path, int family, const struct ext_registry *reg,
		     const struct rules_ruleset *base, unsigned flags,
		     struct rules_ruleset **out, struct rules_error *err)
{
	FILE *f = !strcmp(path, "-") ? stdin : fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int ret;

	*out = NULL;
	if (!f) {
		ret = -errno;
		memset(err, 0, sizeof(*err));
		snprintf(err->file, sizeof(err->file), "%s", path);
		rules_errf(err->msg, sizeof(err->msg), "%s", strerror(-ret));
		return ret;
	}
	for (;;) {
		size_t n;

		if (len == cap) {
			char *nb = realloc(buf, cap ? cap * 2 : 65536);

			if (!nb) {
				free(buf);
				if (f != stdin)
					fclose(f);
				memset(err, 0, sizeof(*err));
				snprintf(err->file, sizeof(err->file), "%s", path);
				rules_errf(err->msg, sizeof(err->msg), "out of memory");
				return -ENOMEM;
			}
			buf = nb;
			cap = cap ? cap * 2 : 65536;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (f != stdin)
		fclose(f);
	ret = rules_parse_buffer(buf, len, path, family, reg, base, flags, out, err);
	free(buf);
	return ret;
}

bool rules_buffer_has_family_tag(const char *buf, size_t len, int tag)
{
	const char *s = tag == 4 ? "-4" : "-6", *l = tag == 4 ? "--ipv4" : "--ipv6";
	size_t off = 0;
	bool found = false;

	while (off < len && !found) {
		const char *nl = memchr(buf + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (buf + off)) : len - off;
		struct rules_tokens tk;
		char msg[8], tok[8];

		if (n && buf[off] != '#' && buf[off] != '*' && buf[off] != ':' &&
		    !rules_lex_line(buf + off, n, &tk, msg, sizeof(msg), tok, sizeof(tok))) {
			for (unsigned i = 0; i < tk.n && !found; i++)
				found = !strcmp(tk.tok[i], s) || !strcmp(tk.tok[i], l);
			rules_tokens_free(&tk);
		}
		off += n + 1;
	}
	return found;
}

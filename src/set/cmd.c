// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ipset(8)'s commands on a box's sets, with its syntax, output, error texts and exit codes:
 * what `pkttables ipset` runs over the control socket and what `ipset save` files are read by.
 *
 *   create NAME TYPE [family inet|inet6] [hashsize N] [maxelem N] [timeout N] [counters]
 *          [comment] [skbinfo] [forceadd] [bucketsize N] [initval N] [range A-B|NET]
 *          [netmask N] [size N]
 *   add|del|test NAME ELEMENT [timeout N] [packets N] [bytes N] [comment "T"] [skbmark M[/K]]
 *          [skbprio MAJ:MIN] [skbqueue N] [nomatch] [before|after NAME]
 *   list|save [NAME]   flush|destroy [NAME]   rename FROM TO   swap A B   restore
 *   options: -exist (-!), -output plain|save, -terse (-t), -name (-n), -quiet (-q), -file F
 *
 * Exit codes as ipset's: 0; 1 a refused command or a syntax error in a value; 2 a usage
 * error (unknown command or argument, a missing one).
 *
 * Atomicity: one command applies whole or not at all (an element range is checked before
 * any of it is added); a restore applies whole or not at all: it runs on a copy of the slot
 * table whose sets are copied only when a line changes one that existed before (a new set is
 * made in the copy), and the copy replaces the table at the end.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "set/set_cmd.h"
#include "set/set_int.h"

#include "set/cmd_int.h"

int sx_usage_err(struct exec *x, const char *fmt, const char *a)
{
	snprintf(x->err, x->errlen, fmt, a);
	return 2;
}

int sx_fail(struct exec *x, int code)
{
	snprintf(x->err, x->errlen, "%s", set_strerror(code));
	return 1;
}

/* A set this command may change: in a restore, a copy of one that existed before. */
struct set *sx_writable(struct exec *x, int id)
{
	struct set *s = x->t->slot[id], *c;

	if (!x->cow || x->owned[id])
		return s;
	if (!(c = set_clone(s)))
		return NULL;
	x->t->slot[id] = c;
	x->owned[id] = true;
	return c;
}

int sx_parse_u32(struct exec *x, const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (!*s || *end || errno || v > UINT32_MAX || *s == '-') {
		snprintf(x->err, x->errlen, "Syntax error: '%s' is invalid as number", s);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

int sx_parse_u64(struct exec *x, const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 0);
	if (!*s || *end || errno || *s == '-') {
		snprintf(x->err, x->errlen, "Syntax error: '%s' is invalid as number", s);
		return -1;
	}
	return 0;
}

int sx_parse_timeout(struct exec *x, const char *s, uint32_t *out)
{
	if (sx_parse_u32(x, s, out))
		return -1;
	if (*out > SET_TIMEOUT_MAX) {
		snprintf(x->err, x->errlen,
			 "Syntax error: timeout value is too large, maximal value is %u",
			 SET_TIMEOUT_MAX);
		return -1;
	}
	return 0;
}

/* ---- add, del, test ---------------------------------------------------------------------- */

static bool nomatch_type(const struct set_type *ty)
{
	for (unsigned d = 0; d < ty->ndims; d++)
		if (ty->dims[d] == SET_D_NET)
			return true;
	return false;
}

static int elem_opts(struct exec *x, const struct set *s, int argc, char **argv,
		     struct set_elem_opts *o)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "nomatch") && nomatch_type(s->c.type)) {
			o->nomatch = true;
			continue;
		}
		if (!v)
			return sx_usage_err(x, "Unknown argument: `%s'", a);
		i++;
		if (!strcmp(a, "timeout")) {
			if (sx_parse_timeout(x, v, &o->timeout))
				return 1;
			o->has_timeout = true;
		} else if (!strcmp(a, "packets")) {
			if (sx_parse_u64(x, v, &o->packets))
				return 1;
			o->has_packets = true;
		} else if (!strcmp(a, "bytes")) {
			if (sx_parse_u64(x, v, &o->bytes))
				return 1;
			o->has_bytes = true;
		} else if (!strcmp(a, "comment")) {
			if (strlen(v) >= SET_COMMENT_MAX) {
				snprintf(x->err, x->errlen,
					 "Syntax error: Comment is longer than "
					 "%d characters",
					 SET_COMMENT_MAX - 1);
				return 1;
			}
			snprintf(o->comment, sizeof(o->comment), "%s", v);
			o->has_comment = true;
		} else if (!strcmp(a, "skbmark")) {
			char buf[64], *sl;

			snprintf(buf, sizeof(buf), "%s", v);
			o->skbmarkmask = 0xffffffff;
			if ((sl = strchr(buf, '/')))
				*sl = '\0';
			if (strncasecmp(buf, "0x", 2) || sx_parse_u32(x, buf, &o->skbmark) ||
			    (sl && sx_parse_u32(x, sl + 1, &o->skbmarkmask))) {
				snprintf(x->err, x->errlen, "%s",
					 "Syntax error: Invalid skbmark "
					 "format, it should be:  MARK/MASK or MARK (see manpage)");
				return 1;
			}
			o->has_mark = true;
		} else if (!strcmp(a, "skbprio")) {
			unsigned maj, min;
			char c;

			if (sscanf(v, "%x:%x%c", &maj, &min, &c) != 2 || maj > 0xffff ||
			    min > 0xffff) {
				snprintf(x->err, x->errlen, "%s",
					 "Syntax error: Invalid skbprio "
					 "format, it should be:MAJOR:MINOR (see manpage)");
				return 1;
			}
			o->skbprio = maj << 16 | min;
			o->has_prio = true;
		} else if (!strcmp(a, "skbqueue")) {
			uint32_t q;

			if (sx_parse_u32(x, v, &q) || q > 65535)
				return 1;
			o->skbqueue = (uint16_t)q;
			o->has_queue = true;
		} else if ((!strcmp(a, "before") || !strcmp(a, "after")) &&
			   s->c.type->kind == SET_K_LIST) {
			int ref = set_find(x->t, v);

			if (ref < 0) {
				snprintf(x->err, x->errlen, "%s", set_strerror(SET_E_LISTREF));
				return 1;
			}
			o->position = a[0] == 'b' ? -1 : 1;
			o->ref_id = (uint32_t)ref;
		} else
			return sx_usage_err(x, "Unknown argument: `%s'", a);
	}
	return 0;
}

struct keys {
	struct set_key *v;
	size_t n, cap;
};

static int key_collect(void *arg, const struct set_key *k)
{
	struct keys *ks = arg;

	if (ks->n == ks->cap) {
		size_t cap = ks->cap ? ks->cap * 2 : 16;
		struct set_key *v = realloc(ks->v, cap * sizeof(*v));

		if (!v)
			return -SET_E_NOMEM;
		ks->v = v;
		ks->cap = cap;
	}
	ks->v[ks->n++] = *k;
	return 0;
}

static void print_elem_text(struct exec *x, const struct set *s, const struct set_key *k, char *buf,
			    size_t len)
{
	FILE *f = fmemopen(buf, len, "w");

	buf[0] = '\0';
	if (f) {
		set_key_print(x->t, s, k, f);
		fclose(f);
	}
}

static int cmd_elem(struct exec *x, int argc, char **argv)
{
	const char *cmd = argv[0];
	struct set_elem_opts o = {0};
	struct keys ks = {0};
	struct set *s;
	int id, rc = 0;
	unsigned flags = x->exist ? SET_F_EXIST : 0;

	if (argc < 3)
		return sx_usage_err(x, "Missing mandatory argument to command %s", cmd);
	if ((id = set_find(x->t, argv[1])) < 0)
		return sx_fail(x, SET_E_NOSET);
	s = x->t->slot[id];
	if ((rc = elem_opts(x, s, argc - 3, argv + 3, &o)))
		return rc;
	if ((rc = set_elem_parse(x->t, s, argv[2], key_collect, &ks, x->err, x->errlen)) < 0) {
		free(ks.v);
		return 1;
	}
	if (!strcmp(cmd, "test")) {
		char txt[256];

		rc = set_test(x->t, s, &ks.v[0], &o, x->now);
		print_elem_text(x, s, &ks.v[0], txt, sizeof(txt));
		free(ks.v);
		if (rc < 0)
			return sx_fail(x, rc);
		if (rc) {
			if (!x->quiet)
				snprintf(x->err, x->errlen, "Warning: %s is in set %s.", txt,
					 argv[1]);
			return 0;
		}
		snprintf(x->err, x->errlen, "%s is NOT in set %s.", txt, argv[1]);
		return 1;
	}
	if (!(s = sx_writable(x, id))) {
		free(ks.v);
		return sx_fail(x, SET_E_NOMEM);
	}
	/* check every key before changing anything: one command applies whole */
	if (!strcmp(cmd, "add")) {
		uint32_t fresh = 0;

		for (size_t i = 0; i < ks.n && rc == 0 && ks.n > 1; i++) {
			int r = set_has(s, &ks.v[i], x->now);

			if (r < 0)
				rc = r;
			else if (r && !x->exist)
				rc = -SET_E_EXIST;
			fresh += !r;
		}
		if (!rc && s->c.type->kind == SET_K_HASH && !s->c.forceadd && ks.n > 1 &&
		    (uint64_t)s->count + fresh > s->c.maxelem)
			rc = -SET_E_FULL;
		for (size_t i = 0; i < ks.n && rc == 0; i++) {
			rc = set_add(x->t, s, &ks.v[i], &o, flags, x->now);
			if (rc < 0) /* no memory halfway: take back what this command added */
				for (size_t j = 0; j < i; j++)
					set_del(x->t, s, &ks.v[j], NULL, SET_F_EXIST, x->now);
		}
	} else {
		for (size_t i = 0; i < ks.n && rc == 0 && !x->exist && ks.n > 1; i++) {
			int r = set_has(s, &ks.v[i], x->now);

			rc = r < 0 ? r : r ? 0 : -SET_E_NOELEM;
		}
		for (size_t i = 0; i < ks.n && rc == 0; i++)
			rc = set_del(x->t, s, &ks.v[i], &o, flags, x->now);
	}
	free(ks.v);
	return rc < 0 ? sx_fail(x, rc) : 0;
}

/* ---- list, save -------------------------------------------------------------------------- */

static void save_one(struct exec *x, int id)
{
	const struct set *s = x->t->slot[id];
	char prefix[SET_NAME_MAX + 8];

	fprintf(x->out, "create %s %s ", x->t->name[id], s->c.type->name);
	set_print_header(s, x->out);
	fputc('\n', x->out);
	snprintf(prefix, sizeof(prefix), "add %s ", x->t->name[id]);
	set_print_members(x->t, s, x->now, x->out, prefix);
}

static void list_one(struct exec *x, int id, bool first)
{
	const struct set *s = x->t->slot[id];

	if (x->names) {
		fprintf(x->out, "%s\n", x->t->name[id]);
		return;
	}
	if (x->save_output) {
		save_one(x, id);
		return;
	}
	if (!first && x->terse)
		fputc('\n', x->out);
	fprintf(x->out, "Name: %s\nType: %s\nRevision: %u\nHeader: ", x->t->name[id],
		s->c.type->name, s->c.type->revision);
	set_print_header(s, x->out);
	fprintf(x->out, "\nSize in memory: %zu\nReferences: %u\nNumber of entries: %u\n", s->mem,
		set_refs(x->t, id), s->count);
	if (x->terse)
		return;
	fputs("Members:\n", x->out);
	set_print_members(x->t, s, x->now, x->out, "");
}

static int cmd_list(struct exec *x, int argc, char **argv, bool save)
{
	bool first = true;

	if (save)
		x->save_output = true;
	if (argc > 1) {
		int id = set_find(x->t, argv[1]);

		if (id < 0)
			return sx_fail(x, SET_E_NOSET);
		list_one(x, id, true);
		return 0;
	}
	for (unsigned i = 0; i < x->t->nslots; i++)
		if (x->t->slot[i]) {
			if (!first && !x->terse && !x->names && !x->save_output)
				fputc('\n', x->out);
			list_one(x, (int)i, first);
			first = false;
		}
	return 0;
}

/* ---- destroy, flush, rename, swap -------------------------------------------------------- */

static void slot_drop(struct exec *x, int id)
{
	if (!x->cow || x->owned[id])
		set_free(x->t, x->t->slot[id]);
	x->t->slot[id] = NULL;
	x->owned[id] = false;
	x->t->name[id][0] = '\0';
	while (x->t->nslots && !x->t->slot[x->t->nslots - 1])
		x->t->nslots--;
}

static int cmd_destroy(struct exec *x, int argc, char **argv)
{
	if (argc > 1) {
		int id = set_find(x->t, argv[1]);

		if (id < 0)
			return sx_fail(x, SET_E_NOSET);
		if (set_refs(x->t, id))
			return sx_fail(x, SET_E_INUSE);
		slot_drop(x, id);
		return 0;
	}
	for (unsigned i = 0; i < x->t->nslots; i++)
		if (x->t->slot[i] && set_refs(x->t, (int)i) > set_list_refs(x->t, (int)i))
			return sx_fail(x, SET_E_INUSE);
	for (unsigned i = x->t->nslots; i-- > 0;)
		if (x->t->slot[i])
			slot_drop(x, (int)i);
	return 0;
}

static int flush_one(struct exec *x, int id)
{
	struct set *s = x->t->slot[id], *n;

	if (!x->cow || x->owned[id]) {
		set_free_elems(x->t, s);
		return 0;
	}
	if (!(n = set_alloc(&s->c, x->t->key)))
		return sx_fail(x, SET_E_NOMEM);
	x->t->slot[id] = n;
	x->owned[id] = true;
	return 0;
}

static int cmd_flush(struct exec *x, int argc, char **argv)
{
	if (argc > 1) {
		int id = set_find(x->t, argv[1]);

		return id < 0 ? sx_fail(x, SET_E_NOSET) : flush_one(x, id);
	}
	for (unsigned i = 0; i < x->t->nslots; i++)
		if (x->t->slot[i] && flush_one(x, (int)i))
			return 1;
	return 0;
}

static int cmd_two(struct exec *x, int argc, char **argv)
{
	int rc, ia, ib;

	if (argc < 3)
		return sx_usage_err(x, "Missing mandatory argument to command %s", argv[0]);
	if (!strcmp(argv[0], "rename")) {
		if (strlen(argv[2]) >= SET_NAME_MAX)
			return sx_usage_err(x, "Syntax error: setname '%s' is too long", argv[2]);
		rc = set_rename(x->t, argv[1], argv[2]);
		return rc < 0 ? sx_fail(x, rc) : 0;
	}
	ia = set_find(x->t, argv[1]);
	ib = set_find(x->t, argv[2]);
	if ((rc = set_swap(x->t, argv[1], argv[2])) < 0)
		return sx_fail(x, rc);
	if (x->cow) {
		bool o = x->owned[ia];

		x->owned[ia] = x->owned[ib];
		x->owned[ib] = o;
	}
	return 0;
}

/* ---- dispatch ---------------------------------------------------------------------------- */

static const struct {
	const char *name, *alias1, *alias2;
} cmds[] = {
    {"create", "n", "-N"},   {"add", "-A", "a"},  {"del", "-D", "d"},	  {"test", "-T", "t"},
    {"destroy", "x", "-X"},  {"list", "-L", "l"}, {"save", "-S", "s"},	  {"flush", "-F", "f"},
    {"rename", "e", "-E"},   {"swap", "w", "-W"}, {"restore", "-R", "r"}, {"version", "-V", "v"},
    {"help", "-h", "-help"},
};

static const char *cmd_name(const char *a)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(a, cmds[i].name) || !strcmp(a, cmds[i].alias1) ||
		    !strcmp(a, cmds[i].alias2))
			return cmds[i].name;
	return NULL;
}

/* Global options anywhere on the line: taken out of argv. 0, or 2 with err set. */
static int global_opts(struct exec *x, int *argc, char **argv)
{
	int n = 0;

	for (int i = 0; i < *argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-exist") || !strcmp(a, "-!"))
			x->exist = true;
		else if (!strcmp(a, "-t") || !strcmp(a, "-terse"))
			x->terse = true;
		else if (!strcmp(a, "-n") || !strcmp(a, "-name"))
			x->names = true;
		else if (!strcmp(a, "-q") || !strcmp(a, "-quiet"))
			x->quiet = true;
		else if (!strcmp(a, "-s") || !strcmp(a, "-sorted") || !strcmp(a, "-r") ||
			 !strcmp(a, "-resolve"))
			;
		else if (!strcmp(a, "-o") || !strcmp(a, "-output")) {
			if (i + 1 >= *argc)
				return sx_usage_err(x, "Missing mandatory argument to option %s",
						    a);
			if (!strcmp(argv[i + 1], "save"))
				x->save_output = true;
			else if (strcmp(argv[i + 1], "plain"))
				return sx_usage_err(x, "Syntax error: Unknown output mode '%s'",
						    argv[i + 1]);
			i++;
		} else
			argv[n++] = argv[i];
	}
	*argc = n;
	return 0;
}

static int run_one(struct exec *x, int argc, char **argv, const char *restore_text,
		   size_t restore_len);

int set_cmd_line(struct set_table *t, int argc, char **argv, const char *input, size_t inlen,
		 uint64_t now, FILE *out, char *err, size_t errlen)
{
	struct exec *x = calloc(1, sizeof(*x));
	int rc;

	if (!x) {
		snprintf(err, errlen, "%s", set_strerror(SET_E_NOMEM));
		return 1;
	}
	*x = (struct exec){.t = t, .now = now, .out = out, .err = err, .errlen = errlen};
	err[0] = '\0';
	if ((rc = global_opts(x, &argc, argv)) == 0)
		rc = run_one(x, argc, argv, input, inlen);
	if (x->quiet)
		err[0] = '\0'; /* -quiet: no message, only the exit code */
	free(x);
	return rc;
}

/* Split a line into words; "..." quotes (a comment), no escapes. -1 when too many. */
static int tokenize(char *line, char **argv)
{
	int n = 0;

	for (char *p = line; *p;) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (!*p)
			break;
		if (n == MAX_TOKENS)
			return -1;
		if (*p == '"') {
			argv[n++] = ++p;
			while (*p && *p != '"')
				p++;
		} else {
			argv[n++] = p;
			while (*p && *p != ' ' && *p != '\t' && *p != '\r')
				p++;
		}
		if (*p)
			*p++ = '\0';
	}
	return n;
}

static void commit(struct set_table *t, struct set_table *copy)
{
	/* the originals no slot of the copy holds any more go; the copy's sets stay */
	for (unsigned i = 0; i < t->nslots; i++) {
		bool kept = false;

		for (unsigned j = 0; t->slot[i] && j < copy->nslots && !kept; j++)
			kept = copy->slot[j] == t->slot[i];
		if (t->slot[i] && !kept)
			set_free(t, t->slot[i]);
	}
	memcpy(t, copy, sizeof(*t));
}

int set_restore(struct set_table *t, const char *text, size_t len, bool exist, uint64_t now,
		FILE *out, char *err, size_t errlen, unsigned *line_out)
{
	struct set_table *copy = malloc(sizeof(*copy));
	struct exec *x = calloc(1, sizeof(*x));
	unsigned line = 0;
	size_t pos = 0;
	int rc = 0;

	err[0] = '\0';
	if (line_out)
		*line_out = 0;
	if (!copy || !x) {
		free(copy);
		free(x);
		snprintf(err, errlen, "%s", set_strerror(SET_E_NOMEM));
		return 1;
	}
	memcpy(copy, t, sizeof(*copy));
	*x = (struct exec){
	    .t = copy, .cow = true, .now = now, .out = out, .err = err, .errlen = errlen};
	while (pos < len && rc == 0) {
		size_t e = pos;
		char buf[4096], *argv[MAX_TOKENS];
		int argc;

		while (e < len && text[e] != '\n')
			e++;
		line++;
		if (e - pos >= sizeof(buf)) {
			snprintf(err, errlen, "Syntax error: line is too long");
			rc = 1;
			break;
		}
		memcpy(buf, text + pos, e - pos);
		buf[e - pos] = '\0';
		pos = e + 1;
		if ((argc = tokenize(buf, argv)) < 0) {
			rc = sx_usage_err(x, "Syntax error: too many words in line%s", "");
			break;
		}
		if (argc == 0 || argv[0][0] == '#' || !strcmp(argv[0], "COMMIT"))
			continue;
		x->exist = exist;
		x->terse = x->names = x->quiet = x->save_output = false;
		if ((rc = global_opts(x, &argc, argv)))
			break;
		if (argc == 0)
			continue;
		if (cmd_name(argv[0]) && !strcmp(cmd_name(argv[0]), "restore")) {
			rc = sx_usage_err(x, "Syntax error: %s is not allowed in restore",
					  "restore");
			break;
		}
		rc = run_one(x, argc, argv, NULL, 0);
	}
	if (rc) {
		for (unsigned i = 0; i < copy->nslots; i++)
			if (x->owned[i] && copy->slot[i])
				set_free(copy, copy->slot[i]);
		if (line_out)
			*line_out = line;
	} else {
		commit(t, copy);
	}
	free(copy);
	free(x);
	return rc;
}

static int run_one(struct exec *x, int argc, char **argv, const char *restore_text,
		   size_t restore_len)
{
	const char *cmd;

	if (argc == 0)
		return sx_usage_err(x, "No command specified%s", "");
	if (!(cmd = cmd_name(argv[0])))
		return sx_usage_err(x, "No command specified: unknown argument %s", argv[0]);
	argv[0] = (char *)cmd;
	if (!strcmp(cmd, "create"))
		return sx_cmd_create(x, argc, argv);
	if (!strcmp(cmd, "add") || !strcmp(cmd, "del") || !strcmp(cmd, "test"))
		return cmd_elem(x, argc, argv);
	if (argc > (strcmp(cmd, "rename") && strcmp(cmd, "swap") ? 2 : 3))
		return sx_usage_err(x, "Unknown argument: `%s'", argv[argc - 1]);
	if (!strcmp(cmd, "list"))
		return cmd_list(x, argc, argv, false);
	if (!strcmp(cmd, "save"))
		return cmd_list(x, argc, argv, true);
	if (!strcmp(cmd, "destroy"))
		return cmd_destroy(x, argc, argv);
	if (!strcmp(cmd, "flush"))
		return cmd_flush(x, argc, argv);
	if (!strcmp(cmd, "rename") || !strcmp(cmd, "swap"))
		return cmd_two(x, argc, argv);
	if (!strcmp(cmd, "version")) {
		fprintf(x->out, "ipset v7.17 (pkttables), protocol version: 7\n");
		return 0;
	}
	if (!strcmp(cmd, "restore")) {
		unsigned line;
		int rc = set_restore(x->t, restore_text ? restore_text : "", restore_len, x->exist,
				     x->now, x->out, x->err, x->errlen, &line);

		if (rc) {
			char msg[512];

			snprintf(msg, sizeof(msg), "Error in line %u: %s", line, x->err);
			snprintf(x->err, x->errlen, "%s", msg);
		}
		return rc;
	}
	fprintf(x->out, "ipset v7.17 (pkttables)\nUsage: ipset [options] COMMAND\n"
			"Commands: create add del test destroy list save restore flush rename "
			"swap help version\n");
	return 0;
}

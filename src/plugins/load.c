// SPDX-License-Identifier: GPL-2.0-or-later
/* Loading a ruleset into a box (plugins/load.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "ct/ct_plugin.h"
#include "engine/box.h"
#include "ext/ct_timeout.h"
#include "ext/set_bind.h"
#include "plugins/load.h"
#include "rules/ext.h"
#include "set/set_plugin.h"

static int parse_one(struct box *b, struct box_load *l, const char *buf, size_t len,
		     const char *name, int family, unsigned flags, struct box_load_error *e)
{
	const struct rules_ruleset *base =
	    (flags & RULES_PARSE_NOFLUSH) ? box_ruleset(b, family) : NULL;
	int i = family == AF_INET6, rc;
	struct rules_ruleset *rs = NULL;

	rc = rules_parse_buffer(buf, len, name, family, ext_registry_default(), base, flags, &rs,
				&e->parse);
	if (rc < 0)
		return rc;
	rules_ruleset_free(l->rs[i]);
	l->rs[i] = rs;
	l->set[i] = true;
	l->name[i] = name;
	return 0;
}

int box_load_parse(struct box *b, struct box_load *l, const char *buf, size_t len, const char *name,
		   int family, unsigned flags, struct box_load_error *e)
{
	int rc = 0;

	memset(e, 0, sizeof(*e));
	if (family != AF_INET6)
		rc = parse_one(b, l, buf, len, name, AF_INET, flags, e);
	if (rc == 0 &&
	    (family == AF_INET6 || (family == 0 && rules_buffer_has_family_tag(buf, len, 6))))
		rc = parse_one(b, l, buf, len, name, AF_INET6, flags, e);
	return rc;
}

int box_load_check(struct box *b, const struct box_load *l, struct box_load_error *e)
{
	memset(e, 0, sizeof(*e));
	for (int i = 0; i < 2; i++) {
		/* CT --timeout names a policy of this box: the kernel refuses unknown ones */
		int rc =
		    ext_ct_timeout_check(l->rs[i], ct_box_table(b), e->refused, sizeof(e->refused));

		if (rc < 0) {
			e->name = l->name[i];
			return rc;
		}
	}
	for (int i = 0; i < 2; i++) {
		/* -m set / -j SET name sets of this box; the rules hold them once bound */
		int rc = ext_set_bind(set_box_table(b, false), l->rs[i], &e->parse);

		if (rc < 0) {
			snprintf(e->parse.file, sizeof(e->parse.file), "%s", l->name[i]);
			e->name = l->name[i];
			return rc;
		}
	}
	return 0;
}

void box_load_install(struct box *b, struct box_load *l)
{
	for (int i = 0; i < 2; i++) {
		if (l->set[i])
			box_set_ruleset(b, l->rs[i], i ? AF_INET6 : AF_INET);
		l->rs[i] = NULL;
		l->set[i] = false;
	}
}

void box_load_free(struct box_load *l)
{
	for (int i = 0; i < 2; i++) {
		rules_ruleset_free(l->rs[i]);
		l->rs[i] = NULL;
		l->set[i] = false;
	}
}

int box_load_ruleset(struct box *b, const char *buf, size_t len, const char *name, int family,
		     struct box_load_error *e)
{
	struct box_load l = {0};
	int rc = box_load_parse(b, &l, buf, len, name, family, 0, e);

	if (rc == 0)
		rc = box_load_check(b, &l, e);
	if (rc < 0) {
		box_load_free(&l);
		return rc;
	}
	box_load_install(b, &l);
	return 0;
}

void box_load_error_format(const struct box_load_error *e, char *out, size_t outlen)
{
	const struct rules_error *re = &e->parse;

	if (e->refused[0])
		snprintf(out, outlen, "%s: %s", e->name ? e->name : "?", e->refused);
	else if (re->token[0])
		snprintf(out, outlen, "%s:%u: %s (near '%s')", re->file, re->line, re->msg,
			 re->token);
	else
		snprintf(out, outlen, "%s:%u: %s", re->file, re->line, re->msg);
}

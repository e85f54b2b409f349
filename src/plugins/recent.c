// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The "recent" plug-in (plugins/recent_plugin.h): owns a box's -m recent lists.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ext/recent_table.h"
#include "plugins/recent_plugin.h"

static bool recent_wants(const struct rules_ruleset *rs)
{
	for (unsigned t = 0; t < TABLE_MAX; t++) {
		const struct rules_table *tb = &rs->tables[t];

		for (unsigned c = 0; tb->present && c < tb->nchains; c++)
			for (unsigned i = 0; i < tb->chains[c].nrules; i++) {
				const struct rules_rule *r = &tb->chains[c].rules[i];

				for (unsigned m = 0; m < r->nmatches; m++)
					if (r->matches[m].match &&
					    !strcmp(r->matches[m].match->name, "recent"))
						return true;
			}
	}
	return false;
}

static int recent_init(struct box *b, void **priv)
{
	*priv = recent_tables_new(box_hash_key(b));
	return *priv ? 0 : -ENOMEM;
}

static void recent_free(struct box *b, void *priv)
{
	(void)b;
	recent_tables_free(priv);
}

static void recent_stats(void *priv, FILE *f, const char *indent)
{
	const struct recent_tables *ts = priv;
	uint64_t evicted = 0, failed = 0;

	for (unsigned i = 0; i < ts->ntables; i++) {
		evicted += ts->table[i]->stats.entries_evicted;
		failed += ts->table[i]->stats.alloc_failed;
	}
	fprintf(f,
		"%srecent lists %u evicted %" PRIu64 " alloc_failed %" PRIu64
		" lists_refused %" PRIu64 "\n",
		indent, ts->ntables, evicted, failed, ts->tables_refused);
}

int recent_box_write(struct box *b, const char *name, const char *cmd, char *err, size_t errlen)
{
	struct recent_tables *ts;
	struct recent_table *t;

	if (!name[0] || strchr(name, '/') || strlen(name) >= RECENT_NAME_LEN) {
		snprintf(err, errlen, "bad list name '%s'", name);
		return -EINVAL;
	}
	if (box_plugin_on(b, &recent_plugin) < 0 || !(ts = box_plugin_data(b, &recent_plugin))) {
		snprintf(err, errlen, "cannot make the recent lists");
		return -ENOMEM;
	}
	t = recent_table_get(ts, name, true, 0);
	if (!t) {
		snprintf(err, errlen, "no room for list '%s' (at most %d)", name,
			 RECENT_MAX_TABLES);
		return -ENOSPC;
	}
	return recent_table_write(t, cmd, box_now(b), err, errlen);
}

int recent_box_print(struct box *b, const char *name, FILE *f)
{
	struct recent_tables *ts = box_plugin_data(b, &recent_plugin);
	struct recent_table *t;

	if (!name) {
		for (unsigned i = 0; ts && i < ts->ntables; i++)
			fprintf(f, "%s\n", ts->table[i]->name);
		return 0;
	}
	t = ts ? recent_table_get(ts, name, false, 0) : NULL;
	if (!t)
		return -ENOENT;
	recent_table_print(t, f);
	return 0;
}

/* recent NAME +ADDR|-ADDR|/ */
static int setup_recent(struct box *b, int argc, char **argv, char *err, size_t errlen)
{
	if (argc != 3) {
		snprintf(err, errlen, "usage: %s", recent_plugin.setup[0].usage);
		return -1;
	}
	return recent_box_write(b, argv[1], argv[2], err, errlen) < 0 ? -1 : 0;
}

static const struct box_setup_cmd recent_setup[] = {
    {"recent", setup_recent, "recent NAME +ADDRESS|-ADDRESS|/"},
    {NULL, NULL, NULL},
};

const struct box_plugin_ops recent_plugin = {
    .name = "recent",
    .wants = recent_wants,
    .init = recent_init,
    .free = recent_free,
    .stats = recent_stats,
    .setup = recent_setup,
};

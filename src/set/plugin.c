// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Sets in a box: the "set" plug-in (set_plugin.h). It registers no hooks: -m set and -j SET
 * find the table through ext_env_ops.plugin. The clock move sweeps expired elements, a few
 * buckets of every set each time, so a set with timeouts gives back its memory without a
 * lookup having to meet each element.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "set/set_cmd.h"
#include "set/set_int.h"
#include "set/set_plugin.h"

#define SET_SWEEP_BUCKETS 64

static int plugin_init(struct box *b, void **priv)
{
	struct set_table *t = set_table_new(box_hash_key(b));

	if (!t)
		return -ENOMEM;
	*priv = t;
	return 0;
}

static void plugin_free(struct box *b, void *priv)
{
	(void)b;
	set_table_free(priv);
}

static void plugin_clock(void *priv, uint64_t now)
{
	set_table_sweep(priv, now, SET_SWEEP_BUCKETS);
}

/* sets N elements E memory B full F forced G expired X */
static void plugin_stats(void *priv, FILE *f, const char *indent)
{
	const struct set_table *t = priv;
	uint64_t sets = 0, elems = 0, mem = 0;

	for (unsigned i = 0; i < t->nslots; i++)
		if (t->slot[i]) {
			sets++;
			elems += t->slot[i]->count;
			mem += t->slot[i]->mem;
		}
	fprintf(f,
		"%ssets %" PRIu64 " elements %" PRIu64 " memory %" PRIu64 " full %" PRIu64
		" forced %" PRIu64 " expired %" PRIu64 "\n",
		indent, sets, elems, mem, t->stat_full, t->stat_forced, t->stat_expired);
}

const struct box_plugin_ops set_plugin = {
    .name = "set",
    .init = plugin_init,
    .free = plugin_free,
    .clock = plugin_clock,
    .stats = plugin_stats,
};

struct set_table *set_box_table(struct box *b, bool create)
{
	if (create && !box_plugin_is_on(b, &set_plugin) && box_plugin_on(b, &set_plugin) < 0)
		return NULL;
	return box_plugin_data(b, &set_plugin);
}

int set_box_restore(struct box *b, const char *text, size_t len, const char *name, FILE *err)
{
	struct set_table *t = set_box_table(b, true);
	char msg[512];
	unsigned line;

	if (!t) {
		fprintf(err, "%s: no memory for sets\n", name);
		return -ENOMEM;
	}
	if (set_restore(t, text, len, false, box_now(b), stdout, msg, sizeof(msg), &line)) {
		fprintf(err, "%s:%u: %s\n", name, line, msg);
		return -EINVAL;
	}
	return 0;
}

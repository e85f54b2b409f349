// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Plug-in slots: what conntrack, NAT and the plug-ins after them keep in a box, without the
 * engine knowing any of them (box.h, "plug-ins", says what a plug-in gets).
 *
 *   box_new     one slot per entry of box_plugin_list, off
 *   on          init, then the followers (ops->follows names it), each registering its hooks;
 *               its release joins b->release[] (the only list the per-packet path reads)
 *   off         the followers first (latest first), then free; release leaves b->release[]
 *   box_free    every slot off, latest first
 *
 * A ruleset's wants (box_set_ruleset, any thread) only set slot->wanted and b->plugin_wanted;
 * the turn-on happens on the data-path thread between packets (box_plugins_apply).
 */
#include <errno.h>
#include <string.h>

#include "engine/engine_int.h"

void box_plugins_init(struct box *b)
{
	for (unsigned i = 0; box_plugin_list[i] && b->nslots < BOX_MAX_PLUGINS; i++)
		b->slot[b->nslots++].ops = box_plugin_list[i];
}

static struct box_slot *slot_of(const struct box *b, const struct box_plugin_ops *ops)
{
	for (unsigned i = 0; i < b->nslots; i++)
		if (b->slot[i].ops == ops)
			return (struct box_slot *)&b->slot[i];
	return NULL;
}

/* The per-packet lists (release, prepare_burst) of the slots that are on. */
static void release_rebuild(struct box *b)
{
	b->nrelease = 0;
	b->nprepare = 0;
	for (unsigned i = 0; i < b->nslots; i++) {
		if (b->slot[i].on && b->slot[i].ops->release)
			b->release[b->nrelease++] =
			    (struct box_release){b->slot[i].ops->release, b->slot[i].priv};
		if (b->slot[i].on && b->slot[i].ops->prepare_burst)
			b->prepare[b->nprepare++] =
			    (struct box_prepare){b->slot[i].ops->prepare_burst, b->slot[i].priv};
	}
}

static bool follows(const struct box_slot *s, const struct box_plugin_ops *ops)
{
	return s->ops->follows && !strcmp(s->ops->follows, ops->name);
}

static void slot_off(struct box *b, struct box_slot *s)
{
	if (!s->on)
		return;
	for (unsigned i = b->nslots; i-- > 0;)
		if (follows(&b->slot[i], s->ops))
			slot_off(b, &b->slot[i]);
	s->on = false;
	release_rebuild(b);
	if (s->ops->free)
		s->ops->free(b, s->priv);
	s->priv = NULL;
}

static struct box_slot *slot_named(struct box *b, const char *name)
{
	for (unsigned i = 0; i < b->nslots; i++)
		if (!strcmp(b->slot[i].ops->name, name))
			return &b->slot[i];
	return NULL;
}

static int slot_on(struct box *b, struct box_slot *s)
{
	struct box_slot *lead = s->ops->follows ? slot_named(b, s->ops->follows) : NULL;
	int rc = 0;

	if (s->on)
		return 0;
	if (s->ops->follows && !lead)
		return -ENOENT;
	if (lead && !lead->on) { /* the lead turns its followers, s among them, on */
		rc = slot_on(b, lead);
		return rc < 0 ? rc : s->on ? 0 : -ENOENT;
	}
	if (s->ops->init)
		rc = s->ops->init(b, &s->priv);
	if (rc < 0)
		return rc;
	s->on = true;
	release_rebuild(b);
	for (unsigned i = 0; i < b->nslots; i++) {
		if (!follows(&b->slot[i], s->ops))
			continue;
		rc = slot_on(b, &b->slot[i]);
		if (rc < 0) {
			slot_off(b, s);
			return rc;
		}
	}
	return 0;
}

int box_plugin_on(struct box *b, const struct box_plugin_ops *ops)
{
	struct box_slot *s = slot_of(b, ops);

	return s ? slot_on(b, s) : -ENOENT;
}

int box_plugin_off(struct box *b, const struct box_plugin_ops *ops)
{
	struct box_slot *s = slot_of(b, ops);

	if (!s)
		return -ENOENT;
	atomic_store(&s->wanted, false);
	slot_off(b, s);
	return 0;
}

void box_plugins_free(struct box *b)
{
	for (unsigned i = b->nslots; i-- > 0;)
		slot_off(b, &b->slot[i]);
}

void box_plugins_want(struct box *b, const struct rules_ruleset *rs)
{
	bool any = false;

	if (!rs)
		return;
	for (unsigned i = 0; i < b->nslots; i++)
		if (b->slot[i].ops->wants && b->slot[i].ops->wants(rs)) {
			atomic_store(&b->slot[i].wanted, true);
			any = true;
		}
	if (any)
		atomic_store(&b->plugin_wanted, true);
}

void box_plugins_apply(struct box *b)
{
	if (!atomic_load_explicit(&b->plugin_wanted, memory_order_relaxed))
		return;
	atomic_store(&b->plugin_wanted, false);
	for (unsigned i = 0; i < b->nslots; i++)
		if (atomic_exchange(&b->slot[i].wanted, false))
			slot_on(b, &b->slot[i]); /* on failure it stays off: packets go without */
}

bool box_plugin_is_on(struct box *b, const struct box_plugin_ops *ops)
{
	struct box_slot *s = slot_of(b, ops);

	box_plugins_apply(b);
	return s && s->on;
}

void *box_plugin_data(struct box *b, const struct box_plugin_ops *ops)
{
	box_plugins_apply(b);
	return box_plugin_peek(b, ops);
}

void *box_plugin_peek(const struct box *b, const struct box_plugin_ops *ops)
{
	const struct box_slot *s = slot_of(b, ops);

	return s && s->on ? s->priv : NULL;
}

void box_plugins_clock(struct box *b)
{
	box_plugins_apply(b);
	for (unsigned i = 0; i < b->nslots; i++)
		if (b->slot[i].on && b->slot[i].ops->clock)
			b->slot[i].ops->clock(b->slot[i].priv, b->now);
}

const struct box_setup_cmd *box_plugins_setup_cmd(const struct box *b, const char *name)
{
	for (unsigned i = 0; i < b->nslots; i++)
		for (const struct box_setup_cmd *c = b->slot[i].ops->setup; c && c->name; c++)
			if (!strcmp(c->name, name))
				return c;
	return NULL;
}

void box_plugins_stats(const struct box *b, FILE *f, const char *indent)
{
	for (unsigned i = 0; i < b->nslots; i++)
		if (b->slot[i].on && b->slot[i].ops->stats)
			b->slot[i].ops->stats(b->slot[i].priv, f, indent);
}

void *box_plugin_ext_data(struct box *b, const char *name)
{
	const struct box_slot *s;

	box_plugins_apply(b);
	s = slot_named(b, name);
	if (!s || !s->on)
		return NULL;
	return s->ops->ext_data ? s->ops->ext_data(s->priv) : s->priv;
}

/* ---- packets ----------------------------------------------------------------------------- */

void box_pkt_unref(struct box *b, struct pkt *p)
{
	for (unsigned i = 0; i < b->nrelease; i++)
		b->release[i].fn(b->release[i].priv, p);
}

void box_pkt_free(struct box *b, struct pkt *p)
{
	box_pkt_unref(b, p);
	pkt_free(p);
}

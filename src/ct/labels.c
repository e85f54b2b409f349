// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Connection labels (labels.h): the extension and its users' count, kept by the table.
 */
#include <errno.h>
#include <string.h>

#include "ct/ct_int.h"
#include "ct/labels.h"

void ct_labels_use(struct ct_table *t, int delta)
{
	if (delta < 0 && t->labels_used)
		t->labels_used--;
	else if (delta > 0)
		t->labels_used++;
}

void ct_labels_new(struct ct_table *t, struct ct_entry *e)
{
	if (t->labels_used)
		ct_ext_add(t, e, CT_EXT_LABELS);
}

int ct_labels_add(struct ct_table *t, struct ct_entry *e)
{
	return ct_ext_add(t, e, CT_EXT_LABELS) ? 0 : -ENOMEM;
}

int ct_entry_labels_set(struct ct_entry *e, const struct ct_labels *bits,
			const struct ct_labels *mask)
{
	struct ct_labels *l = ct_ext_find(e, CT_EXT_LABELS);
	bool changed = false;

	if (!l)
		return -ENOSPC;
	for (int i = 0; i < CT_LABEL_WORDS; i++) {
		uint32_t w = (l->words[i] & ~mask->words[i]) | (bits->words[i] & mask->words[i]);

		changed |= w != l->words[i];
		l->words[i] = w;
	}
	return changed;
}

bool ct_entry_labels(const struct ct_entry *e, struct ct_labels *out)
{
	const struct ct_labels *l = ct_ext_find(e, CT_EXT_LABELS);

	if (!l)
		return false;
	*out = *l;
	return true;
}

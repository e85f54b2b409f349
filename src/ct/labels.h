/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Connection labels (the kernel's connlabel extension): 128 bits an entry carries, set and
 * read by rules (-m connlabel) and over the control socket (conntrack --label-add/-del, -l).
 * As in the kernel, an entry has room for them when it was made while something used labels
 * (a rule that needs them: ct_labels_use), or when it was created with labels over the control
 * socket; the others cannot take any (-ENOSPC).
 *
 *   bit n  =  words[n / 32] bit (n % 32)      (host order, as ctnetlink's CTA_LABELS bytes)
 */
#ifndef CT_LABELS_H
#define CT_LABELS_H

#include <stdbool.h>
#include <stdint.h>

struct ct_table;
struct ct_entry;

#define CT_LABEL_BITS  128
#define CT_LABEL_WORDS (CT_LABEL_BITS / 32)

struct ct_labels {
	uint32_t words[CT_LABEL_WORDS];
};

/* One more (delta 1) or one less (-1) user of labels in t: entries made while any is there
 * get room for labels. */
void ct_labels_use(struct ct_table *t, int delta);
/* A new entry of t: room for labels when they are in use (before any other extension). */
void ct_labels_new(struct ct_table *t, struct ct_entry *e);
/* Room for labels in an entry being created (ct_entry_create with labels). 0 or -ENOMEM. */
int ct_labels_add(struct ct_table *t, struct ct_entry *e);
/* labels = (labels & ~mask) | (bits & mask). 1 when they changed, 0 when not, -ENOSPC when the
 * entry has no room for labels. */
int ct_entry_labels_set(struct ct_entry *e, const struct ct_labels *bits,
			const struct ct_labels *mask);
/* The entry's labels; false when it has no room for them. */
bool ct_entry_labels(const struct ct_entry *e, struct ct_labels *out);

#endif

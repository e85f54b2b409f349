// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The conntrack extension area: what only some entries need lives outside struct ct_entry,
 * in one block allocated on first use (the kernel's nf_ct_ext). An entry without extensions
 * pays one pointer. Sizes are registered per table (ct_ext_register), so the core carries no
 * plug-in's layout.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ct/ct_int.h"
#include "ct/helper.h"
#include "ct/labels.h"
#include "ct/tstamp.h"

#define EXT_ALIGN    8u
#define EXT_MAX_SIZE 4096u

int ct_ext_register(struct ct_table *t, enum ct_ext_id id, size_t size)
{
	if ((unsigned)id >= CT_EXT_NUM || size == 0 || size > EXT_MAX_SIZE)
		return -EINVAL;
	if (t->ext_size[id] && t->ext_size[id] != size)
		return -EEXIST;
	t->ext_size[id] = (uint16_t)size;
	return 0;
}

void ct_ext_register_core(struct ct_table *t)
{
	ct_ext_register(t, CT_EXT_ACCT, sizeof(struct ct_acct));
	ct_ext_register(t, CT_EXT_HELPER, sizeof(struct ct_help));
	ct_ext_register(t, CT_EXT_TIMEOUT, sizeof(struct ct_timeout_ext));
	ct_ext_register(t, CT_EXT_SEQADJ, sizeof(struct ct_seqadj));
	ct_ext_register(t, CT_EXT_TSTAMP, sizeof(struct ct_tstamp));
	ct_ext_register(t, CT_EXT_LABELS, sizeof(struct ct_labels));
}

size_t ct_ext_size(const struct ct_table *t, enum ct_ext_id id)
{
	return (unsigned)id < CT_EXT_NUM ? t->ext_size[id] : 0;
}

void *ct_ext_find(const struct ct_entry *e, enum ct_ext_id id)
{
	return ct_ext_get(e, id);
}

void *ct_ext_add(struct ct_table *t, struct ct_entry *e, enum ct_ext_id id)
{
	struct ct_ext *x;
	size_t hdr = offsetof(struct ct_ext, data), used, need, size;
	void *have = ct_ext_get(e, id);

	if (have)
		return have;
	size = ct_ext_size(t, id);
	if (!size)
		return NULL;
	used = e->ext ? e->ext->len : hdr;
	used = (used + EXT_ALIGN - 1) & ~(size_t)(EXT_ALIGN - 1);
	need = used + size;
	if (need > UINT16_MAX)
		return NULL;
	x = realloc(e->ext, need);
	if (!x)
		return NULL;
	if (!e->ext)
		memset(x, 0, hdr);
	x->off[id] = (uint16_t)used;
	x->len = (uint16_t)need;
	memset((unsigned char *)x + used, 0, size);
	e->ext = x;
	return (unsigned char *)x + used;
}

void ct_ext_free(struct ct_entry *e)
{
	free(e->ext);
	e->ext = NULL;
}

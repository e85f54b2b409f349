// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The conntrack extension area: what only some entries need lives outside struct ct_entry,
 * in one block allocated on first use (the kernel's nf_ct_ext). An entry without extensions
 * pays one pointer.
 */
#include <stdlib.h>
#include <string.h>

#include "ct/ct_int.h"
#include "ct/helper.h"
#include "ct/labels.h"
#include "ct/tstamp.h"

/* Sizes of each extension; 0 = reserved, not implemented yet (ct_ext_add refuses it). */
static const uint16_t ext_size[CT_EXT_NUM] = {
    [CT_EXT_ACCT] = sizeof(struct ct_acct),
    [CT_EXT_HELPER] = sizeof(struct ct_help),
    [CT_EXT_NAT] = CT_EXT_NAT_SIZE,
    [CT_EXT_TIMEOUT] = sizeof(struct ct_timeout_ext),
    [CT_EXT_SEQADJ] = sizeof(struct ct_seqadj),
    [CT_EXT_TSTAMP] = sizeof(struct ct_tstamp),
    [CT_EXT_LABELS] = sizeof(struct ct_labels),
};

#define EXT_ALIGN 8u

size_t ct_ext_size(enum ct_ext_id id)
{
	return (unsigned)id < CT_EXT_NUM ? ext_size[id] : 0;
}

void *ct_ext_find(const struct ct_entry *e, enum ct_ext_id id)
{
	if (!e->ext || (unsigned)id >= CT_EXT_NUM || !e->ext->off[id])
		return NULL;
	return (unsigned char *)e->ext + e->ext->off[id];
}

void *ct_ext_add(struct ct_entry *e, enum ct_ext_id id)
{
	struct ct_ext *x;
	size_t hdr = offsetof(struct ct_ext, data), used, need;
	void *have = ct_ext_find(e, id);

	if (have)
		return have;
	if ((unsigned)id >= CT_EXT_NUM || !ext_size[id])
		return NULL;
	used = e->ext ? e->ext->len : hdr;
	used = (used + EXT_ALIGN - 1) & ~(size_t)(EXT_ALIGN - 1);
	need = used + ext_size[id];
	if (need > UINT16_MAX)
		return NULL;
	x = realloc(e->ext, need);
	if (!x)
		return NULL;
	if (!e->ext)
		memset(x, 0, hdr);
	x->off[id] = (uint16_t)used;
	x->len = (uint16_t)need;
	memset((unsigned char *)x + used, 0, ext_size[id]);
	e->ext = x;
	return (unsigned char *)x + used;
}

void ct_ext_free(struct ct_entry *e)
{
	free(e->ext);
	e->ext = NULL;
}

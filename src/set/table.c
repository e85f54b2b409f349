// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sets of a box: the types, the slots rules bind to, create/destroy/flush/rename/swap,
 * references, the sweep of expired elements, and ipset's error texts.
 *
 * Swap exchanges two slots' sets but not their names or references, as the kernel's swap: a
 * rule bound to slot "a" sees the other set's elements from the next packet on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "set/set_int.h"

static const struct set_type types[] = {
    {"hash:ip", SET_K_HASH, 1, {SET_D_IP}, 6, false, false},
    {"hash:net", SET_K_HASH, 1, {SET_D_NET}, 7, false, false},
    {"hash:ip,port", SET_K_HASH, 2, {SET_D_IP, SET_D_PORT}, 7, false, false},
    {"hash:net,port", SET_K_HASH, 2, {SET_D_NET, SET_D_PORT}, 8, false, false},
    {"hash:ip,port,ip", SET_K_HASH, 3, {SET_D_IP, SET_D_PORT, SET_D_IP}, 6, false, false},
    {"hash:ip,port,net", SET_K_HASH, 3, {SET_D_IP, SET_D_PORT, SET_D_NET}, 8, false, false},
    {"hash:net,iface", SET_K_HASH, 2, {SET_D_NET, SET_D_IFACE}, 8, false, false},
    {"hash:mac", SET_K_HASH, 1, {SET_D_MAC}, 1, true, false},
    {"bitmap:ip", SET_K_BITMAP_IP, 1, {SET_D_IP}, 3, false, true},
    {"bitmap:port", SET_K_BITMAP_PORT, 1, {SET_D_PORT}, 3, true, false},
    {"list:set", SET_K_LIST, 1, {SET_D_NAME}, 3, true, false},
};

const struct set_type *set_type_find(const char *name)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(types[i].name, name))
			return &types[i];
	return NULL;
}

static const char *const errs[SET_E_MAX] = {
    [SET_E_NOSET] = "The set with the given name does not exist",
    [SET_E_EXIST] = "Element cannot be added to the set: it's already added",
    [SET_E_NOELEM] = "Element cannot be deleted from the set: it's not added",
    [SET_E_FULL] = "Hash is full, cannot add more elements",
    [SET_E_LISTFULL] = "The set is full, more elements cannot be added",
    [SET_E_SETEXIST] = "Set cannot be created: set with the same name already exists",
    [SET_E_INUSE] = "Set cannot be destroyed: it is in use by a kernel component",
    [SET_E_NOTIMEOUT] = "Timeout cannot be used: set was created without timeout support",
    [SET_E_NOCOUNTERS] = "Packet/byte counters cannot be used: set was created without "
			 "counter support",
    [SET_E_NOCOMMENT] = "Comment cannot be used: set was created without comment support",
    [SET_E_NOSKBINFO] = "Skbinfo mapping cannot be used: set was created without skbinfo "
			"support",
    [SET_E_RANGE] = "Element is out of the range of the set",
    [SET_E_CIDR] = "The value of the CIDR parameter of the IP address is invalid",
    [SET_E_SWAPTYPE] = "The sets cannot be swapped: their type does not match",
    [SET_E_SWAPFAMILY] = "The sets cannot be swapped: their address family does not match",
    [SET_E_SWAPNOSET] = "Sets cannot be swapped: the second set does not exist",
    [SET_E_RENAMEEXIST] = "Set cannot be renamed: a set with the new name already exists",
    [SET_E_LISTNOSET] = "Set to be added/deleted/tested as element does not exist.",
    [SET_E_LISTLOOP] = "Sets with list:set type cannot be added to the set.",
    [SET_E_LISTREF] = "Set specified as reference in the before/after clause is not in the "
		      "list",
    [SET_E_TOOMANY] = "Kernel error received: maximal number of sets reached, cannot create "
		      "more.",
    [SET_E_NOMEM] = "Kernel error received: Cannot allocate memory",
    [SET_E_HASHSIZE] = "Kernel error received: Invalid argument",
    [SET_E_BITMAPRANGE] = "The range exceeds the size limit of the set type",
    [SET_E_FAMILY] = "The address family of the element does not match the set",
};

const char *set_strerror(int code)
{
	if (code < 0)
		code = -code;
	return code > 0 && code < SET_E_MAX && errs[code] ? errs[code] : "Unknown error";
}

struct set_table *set_table_new(const uint64_t key[2])
{
	struct set_table *t = calloc(1, sizeof(*t));

	if (t) {
		t->key[0] = key ? key[0] : 0;
		t->key[1] = key ? key[1] : 0;
	}
	return t;
}

void set_table_free(struct set_table *t)
{
	if (!t)
		return;
	/* lists first: their members' references go with them */
	for (unsigned i = 0; i < t->nslots; i++)
		if (t->slot[i] && t->slot[i]->c.type->kind == SET_K_LIST)
			set_free_elems(t, t->slot[i]);
	for (unsigned i = 0; i < t->nslots; i++)
		set_free(t, t->slot[i]);
	free(t);
}

int set_find(const struct set_table *t, const char *name)
{
	for (unsigned i = 0; t && name && i < t->nslots; i++)
		if (t->slot[i] && !strcmp(t->name[i], name))
			return (int)i;
	return -1;
}

const char *set_name(const struct set_table *t, int id)
{
	return set_get(t, id) ? t->name[id] : "";
}

unsigned set_list_refs(const struct set_table *t, int id)
{
	unsigned n = 0;

	for (unsigned i = 0; i < t->nslots; i++) {
		const struct set *l = t->slot[i];

		if (!l || l->c.type->kind != SET_K_LIST)
			continue;
		for (uint32_t m = 0; m < l->nmember; m++) {
			struct set_key k;

			set_key_unpack(l, l->slot[m]->data + l->off_key, &k);
			n += k.set_id == (uint32_t)id;
		}
	}
	return n;
}

struct set *set_get(const struct set_table *t, int id)
{
	return t && id >= 0 && (unsigned)id < t->nslots ? t->slot[id] : NULL;
}

unsigned set_table_slots(const struct set_table *t)
{
	return t ? t->nslots : 0;
}

static bool same_params(const struct set_create *a, const struct set_create *b)
{
	return a->type == b->type && a->family == b->family && a->maxelem == b->maxelem &&
	       a->has_timeout == b->has_timeout && a->timeout == b->timeout &&
	       a->counters == b->counters && a->comment == b->comment && a->skbinfo == b->skbinfo &&
	       a->forceadd == b->forceadd && !memcmp(&a->from, &b->from, sizeof(a->from)) &&
	       !memcmp(&a->to, &b->to, sizeof(a->to)) && a->pfrom == b->pfrom && a->pto == b->pto &&
	       a->netmask == b->netmask;
}

int set_create(struct set_table *t, const char *name, const struct set_create *c, bool exist,
	       int *id_out)
{
	int id = set_find(t, name);
	struct set *s;

	if (id >= 0) {
		if (exist && same_params(&t->slot[id]->c, c)) {
			if (id_out)
				*id_out = id;
			return 0;
		}
		return -SET_E_SETEXIST;
	}
	for (id = 0; id < (int)t->nslots && t->slot[id]; id++)
		;
	if (id >= SET_MAX_SETS)
		return -SET_E_TOOMANY;
	if (!(s = set_alloc(c, t->key)))
		return -SET_E_NOMEM;
	t->slot[id] = s;
	snprintf(t->name[id], sizeof(t->name[id]), "%s", name);
	t->rule_refs[0][id] = t->rule_refs[1][id] = 0;
	if ((unsigned)id >= t->nslots)
		t->nslots = (unsigned)id + 1;
	if (id_out)
		*id_out = id;
	return 0;
}

static unsigned rule_refs(const struct set_table *t, int id)
{
	return t->rule_refs[0][id] + t->rule_refs[1][id];
}

static void slot_clear(struct set_table *t, int id)
{
	set_free(t, t->slot[id]);
	t->slot[id] = NULL;
	while (t->nslots && !t->slot[t->nslots - 1])
		t->nslots--;
}

int set_destroy(struct set_table *t, const char *name)
{
	int id;

	if (name) {
		if ((id = set_find(t, name)) < 0)
			return -SET_E_NOSET;
		if (rule_refs(t, id) || set_list_refs(t, id))
			return -SET_E_INUSE;
		slot_clear(t, id);
		return 0;
	}
	for (unsigned i = 0; i < t->nslots; i++)
		if (t->slot[i] && rule_refs(t, (int)i))
			return -SET_E_INUSE;
	for (unsigned i = 0; i < t->nslots; i++)
		if (t->slot[i] && t->slot[i]->c.type->kind == SET_K_LIST)
			set_free_elems(t, t->slot[i]);
	for (unsigned i = t->nslots; i-- > 0;)
		if (t->slot[i])
			slot_clear(t, (int)i);
	return 0;
}

int set_flush(struct set_table *t, const char *name)
{
	int id;

	if (name) {
		if ((id = set_find(t, name)) < 0)
			return -SET_E_NOSET;
		set_free_elems(t, t->slot[id]);
		return 0;
	}
	for (unsigned i = 0; i < t->nslots; i++)
		if (t->slot[i])
			set_free_elems(t, t->slot[i]);
	return 0;
}

int set_rename(struct set_table *t, const char *from, const char *to)
{
	int id = set_find(t, from);

	if (id < 0)
		return -SET_E_NOSET;
	if (set_find(t, to) >= 0)
		return -SET_E_RENAMEEXIST;
	snprintf(t->name[id], sizeof(t->name[id]), "%s", to);
	return 0;
}

int set_swap(struct set_table *t, const char *a, const char *b)
{
	int ia = set_find(t, a), ib = set_find(t, b);
	struct set *sa, *sb;

	if (ia < 0)
		return -SET_E_NOSET;
	if (ib < 0)
		return -SET_E_SWAPNOSET;
	sa = t->slot[ia];
	sb = t->slot[ib];
	if (sa->c.type != sb->c.type)
		return -SET_E_SWAPTYPE;
	if (sa->c.family != sb->c.family)
		return -SET_E_SWAPFAMILY;
	/* the slots keep their names and references; the contents move */
	t->slot[ia] = sb;
	t->slot[ib] = sa;
	return 0;
}

void set_refs_reset_family(struct set_table *t, int family)
{
	memset(t->rule_refs[family == AF_INET6], 0, sizeof(t->rule_refs[0]));
}

void set_ref_family(struct set_table *t, int id, int family)
{
	if (set_get(t, id))
		t->rule_refs[family == AF_INET6][id]++;
}

const struct set_type *set_type_of(const struct set *s)
{
	return s->c.type;
}

int set_family(const struct set *s)
{
	return s->c.type->any_family ? 0 : s->c.family;
}

const struct set_create *set_params(const struct set *s)
{
	return &s->c;
}

uint32_t set_count(const struct set *s)
{
	return s->count;
}

size_t set_memsize(const struct set *s)
{
	return s->mem;
}

unsigned set_refs(const struct set_table *t, int id)
{
	return set_get(t, id) ? rule_refs(t, id) + set_list_refs(t, id) : 0;
}

void set_table_sweep(struct set_table *t, uint64_t now, unsigned budget)
{
	if (!t->nslots)
		return;
	for (unsigned n = 0; n < t->nslots; n++) {
		struct set *s = t->slot[(t->sweep_set + n) % t->nslots];

		if (s)
			set_sweep_one(t, s, now, budget);
	}
	t->sweep_set++;
}

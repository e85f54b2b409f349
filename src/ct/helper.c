// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The helper registry (per table), assignment of a helper to a new entry (from CT --helper,
 * or from the expectation that made it), and running the helper on a packet.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ct/helper_int.h"
#include "textsearch/pkt_source.h"
#include "textsearch/textsearch.h"

static const struct ct_helper *const builtin[CT_HELPER_NUM] = {
    [CT_HELPER_FTP] = &ct_helper_ftp,
    [CT_HELPER_TFTP] = &ct_helper_tftp,
    [CT_HELPER_IRC] = &ct_helper_irc,
};

static bool fits(const struct ct_helper *h, uint8_t l4proto, int family)
{
	if (l4proto && h->l4proto != l4proto)
		return false;
	if (family == AF_INET)
		return h->ipv4;
	if (family == AF_INET6)
		return h->ipv6;
	return true;
}

const struct ct_helper *ct_helper_builtin(const char *name, uint8_t l4proto, int family)
{
	for (unsigned i = 0; i < CT_HELPER_NUM; i++)
		if (!strcmp(builtin[i]->name, name) && fits(builtin[i], l4proto, family))
			return builtin[i];
	return NULL;
}

void ct_pkt_set_helper(struct pkt *p, const struct ct_helper *h)
{
	p->ctinfo = (p->ctinfo & ~CT_INFO_HELPER_MASK) |
		    (h ? ((uint32_t)h->id + 1) << CT_INFO_HELPER_SHIFT : 0);
}

/* ---- the registry ------------------------------------------------------------------------ */

static int by_name(const char *name)
{
	for (unsigned i = 0; i < CT_HELPER_NUM; i++)
		if (!strcmp(builtin[i]->name, name))
			return (int)i;
	return -ENOENT;
}

struct ct_helper_state *ct_helper_state(struct ct_table *t)
{
	struct ct_helper_state *hs = t->helpers;
	uint32_t buckets;

	if (hs)
		return hs;
	hs = calloc(1, sizeof(*hs));
	if (!hs)
		return NULL;
	hs->next_id = 1;
	for (unsigned i = 0; i < CT_HELPER_NUM; i++) {
		hs->policy[i].max_expected = builtin[i]->max_expected;
		hs->policy[i].timeout = builtin[i]->timeout;
	}
	/* nf_conntrack_expect_max: 4 per expectation hash bucket, one bucket per 256 buckets of
	 * the connection hash */
	buckets = (t->mask + 1) / 256;
	hs->stats.max = 4 * (buckets ? buckets : 1);
	t->helpers = hs;
	return hs;
}

static struct ct_helper_policy *policy(struct ct_table *t, unsigned id)
{
	struct ct_helper_state *hs = ct_helper_state(t);

	return hs ? &hs->policy[id] : NULL;
}

/* Registered in t? (a table without state has every built-in at its defaults) */
static bool available(const struct ct_table *t, unsigned id)
{
	return !t->helpers || !t->helpers->policy[id].unregistered;
}

const struct ct_helper *ct_helper_find(struct ct_table *t, const char *name)
{
	int id = by_name(name);

	return id >= 0 && available(t, (unsigned)id) ? builtin[id] : NULL;
}

static int set_registered(struct ct_table *t, const char *name, bool on)
{
	int id = by_name(name);
	struct ct_helper_policy *pol;

	if (id < 0)
		return id;
	pol = policy(t, (unsigned)id);
	if (!pol)
		return -ENOMEM;
	pol->unregistered = !on;
	return 0;
}

int ct_helper_unregister(struct ct_table *t, const char *name)
{
	return set_registered(t, name, false);
}

int ct_helper_register(struct ct_table *t, const char *name)
{
	return set_registered(t, name, true);
}

int ct_helper_set_policy(struct ct_table *t, const char *name, unsigned max_expected,
			 uint64_t timeout)
{
	int id = by_name(name);
	struct ct_helper_policy *pol;

	if (id < 0)
		return id;
	if (!max_expected)
		return -EINVAL;
	pol = policy(t, (unsigned)id);
	if (!pol)
		return -ENOMEM;
	pol->max_expected = max_expected;
	pol->timeout = timeout;
	return 0;
}

int ct_helper_set_nat(struct ct_table *t, enum ct_helper_id id, ct_helper_nat_fn fn, void *priv)
{
	struct ct_helper_policy *pol;

	if ((unsigned)id >= CT_HELPER_NUM)
		return -ENOENT;
	pol = policy(t, id);
	if (!pol)
		return -ENOMEM;
	pol->nat = fn;
	pol->nat_priv = priv;
	return 0;
}

void *ct_helper_nat_priv(const struct ct_table *t, enum ct_helper_id id)
{
	if ((unsigned)id >= CT_HELPER_NUM || !t->helpers || !t->helpers->policy[id].nat)
		return NULL;
	return t->helpers->policy[id].nat_priv;
}

/* ---- entries ----------------------------------------------------------------------------- */

struct ct_help *ct_entry_help(const struct ct_entry *e)
{
	return ct_ext_get(e, CT_EXT_HELPER);
}

const struct ct_helper *ct_entry_helper(const struct ct_entry *e)
{
	const struct ct_help *help = ct_entry_help(e);

	return help ? help->helper : NULL;
}

int ct_entry_set_helper(struct ct_table *t, struct ct_entry *e, const struct ct_helper *h)
{
	struct ct_help *help;

	if (e->status & CT_S_CONFIRMED)
		return -EBUSY;
	help = ct_ext_add(t, e, CT_EXT_HELPER);
	if (!help)
		return -ENOMEM;
	if (help->helper != h)
		memset(help->data, 0, sizeof(help->data));
	help->helper = h;
	return 0;
}

bool ct_helper_new_entry(struct ct_table *t, struct ct_entry *e, const struct pkt *p, uint64_t now)
{
	unsigned want = (p->ctinfo & CT_INFO_HELPER_MASK) >> CT_INFO_HELPER_SHIFT;
	struct ct_expect *x = ct_expect_find(t, &e->th[0].tuple, now);

	if (x) {
		ct_expect_attach_child(t, e, x, now);
		return true;
	}
	/* an unknown id or a helper unregistered here: no helper (a failed allocation too; the
	 * connection is tracked without it, as the kernel does) */
	if (want && want <= CT_HELPER_NUM && available(t, want - 1) &&
	    fits(builtin[want - 1], e->th[0].tuple.l4proto, e->th[0].tuple.family))
		ct_entry_set_helper(t, e, builtin[want - 1]);
	return false;
}

/* ---- running ----------------------------------------------------------------------------- */

void ct_helper_payload(const struct pkt *p, uint32_t *off, uint32_t *len)
{
	const struct pkt_info *in = &p->info;
	uint32_t end = in->l4off + in->l4len;

	*off = in->payload_off;
	*len = in->has_l4 && in->payload_off && in->payload_off < end ? end - in->payload_off : 0;
}

const char *ct_helper_bytes(const struct pkt *p, uint32_t off, uint32_t len, void *buf,
			    size_t buflen, void **heap)
{
	uint32_t start = 0;

	*heap = NULL;
	if (len <= buflen)
		return pkt_header(p, off, len, buf);
	for (unsigned i = 0; i < p->nsegs; start += p->seg[i].len, i++) {
		if (off >= start + p->seg[i].len)
			continue;
		if (off + len <= start + p->seg[i].len)
			return (const char *)p->seg[i].data + (off - start);
		break;
	}
	*heap = malloc(len);
	if (!*heap)
		return NULL;
	if (pkt_copy_out(p, off, *heap, len) < 0) {
		free(*heap);
		*heap = NULL;
		return NULL;
	}
	return *heap;
}

uint32_t ct_helper_search(const struct pkt *p, uint32_t off, uint32_t len, const char *pattern,
			  unsigned flags)
{
	uint64_t mem[32]; /* >= ts_config_size("kmp", CT_HELPER_PATTERN_MAX): 112 bytes */
	size_t plen = strlen(pattern);
	struct ts_config *conf;
	struct ts_pkt_range r;
	struct ts_source src;
	struct ts_state st;

	/* a config this small is prepared on the stack per call: a few table entries */
	if (plen > CT_HELPER_PATTERN_MAX ||
	    ts_prepare_at(mem, sizeof(mem), "kmp", pattern, (uint32_t)plen, flags, &conf))
		return UINT32_MAX;
	src = ts_pkt_source(&r, p, off, len);
	return ts_find(conf, &st, &src);
}

int ct_helper_expect(struct ct_table *t, struct ct_entry *e, struct pkt *p, unsigned ctinfo,
		     const struct ct_helper_match *m, struct ct_expect *x, uint64_t now,
		     const char **why)
{
	const struct ct_helper *h = ct_entry_helper(e);
	const struct ct_helper_policy *pol = t->helpers && h ? &t->helpers->policy[h->id] : NULL;
	int r;

	if (pol && pol->nat) {
		r = pol->nat(pol->nat_priv, t, e, p, ctinfo, m, x, now);
		if (r <= 0) {
			if (r < 0)
				*why = "nat helper failed";
			return r;
		}
	}
	r = ct_expect_related(t, e, x, now);
	if (r < 0)
		*why = "cannot add expectation";
	return r;
}

int ct_helper_run(struct ct_table *t, struct pkt *p, uint64_t now, const char **why)
{
	struct ct_entry *e = ct_pkt_entry(p);
	unsigned ctinfo = ct_pkt_ctinfo(p);
	const struct ct_helper *h;

	if (!e || !e->ext || ctinfo == CT_RELATED_REPLY || !(h = ct_entry_helper(e)))
		return 0; /* (no extension block: no helper) */
	if (e->status & CT_S_DYING)
		return 0;
	*why = NULL;
	return h->help(t, e, p, ctinfo, now, why);
}

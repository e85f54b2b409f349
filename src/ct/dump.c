// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Listing in conntrack-tools' `conntrack -L` format (libnetfilter_conntrack's default output):
 *
 *   tcp      6 431999 ESTABLISHED src=10.0.0.2 dst=192.0.2.1 sport=1234 dport=80 \
 *     src=192.0.2.1 dst=10.0.0.2 sport=80 dport=1234 [ASSURED] mark=0 use=1
 *
 *   name (8 wide) number timeout-seconds [state] original [packets= bytes=] [UNREPLIED]
 *   reply [packets= bytes=] [ASSURED] mark= [zone=] [helper=] use=
 */
#include <stdlib.h>

#include "ct/ct_int.h"
#include "ct/helper.h"

#define OUT(...)                                                                                   \
	do {                                                                                       \
		int n_ = snprintf(buf + (off < len ? off : len), off < len ? len - off : 0,        \
				  __VA_ARGS__);                                                    \
		if (n_ > 0)                                                                        \
			off += (size_t)n_;                                                         \
	} while (0)

int ct_entry_format(const struct ct_entry *e, uint64_t now, char *buf, size_t len)
{
	const char *st = ct_entry_proto_state(e);
	uint64_t pk, by;
	size_t off = 0;
	char tb[160];

	if (len)
		buf[0] = '\0';
	OUT("%-8s %u %llu ", e->ops->name, e->th[0].tuple.l4proto,
	    (unsigned long long)(ct_entry_expires_in(e, now) / CT_SEC));
	if (st)
		OUT("%s ", st);
	OUT("%s ", ct_tuple_str(&e->th[0].tuple, tb, sizeof(tb)));
	if (ct_entry_counters(e, CT_DIR_ORIGINAL, &pk, &by))
		OUT("packets=%llu bytes=%llu ", (unsigned long long)pk, (unsigned long long)by);
	if (!(e->status & CT_S_SEEN_REPLY))
		OUT("[UNREPLIED] ");
	OUT("%s ", ct_tuple_str(&e->th[1].tuple, tb, sizeof(tb)));
	if (ct_entry_counters(e, CT_DIR_REPLY, &pk, &by))
		OUT("packets=%llu bytes=%llu ", (unsigned long long)pk, (unsigned long long)by);
	if (e->status & CT_S_ASSURED)
		OUT("[ASSURED] ");
	OUT("mark=%u ", e->mark);
	if (e->th[0].tuple.zone)
		OUT("zone=%u ", e->th[0].tuple.zone);
	if (ct_entry_helper(e))
		OUT("helper=%s ", ct_entry_helper(e)->name);
	/* references besides the table's are packets in flight: conntrack shows the table's */
	OUT("use=%u", e->use);
	return (int)off;
}

static int by_id(const void *a, const void *b)
{
	const struct ct_entry *x = *(const struct ct_entry *const *)a;
	const struct ct_entry *y = *(const struct ct_entry *const *)b;

	return x->id < y->id ? -1 : x->id > y->id;
}

unsigned ct_dump(struct ct_table *t, FILE *f, uint64_t now)
{
	struct ct_entry **v;
	unsigned n = 0;
	char line[512];

	v = malloc(((size_t)t->stats.count + 1) * sizeof(*v));
	if (!v)
		return 0;
	for (enum ct_list_id l = CT_LIST_UNASSURED; l <= CT_LIST_ASSURED; l++)
		for (struct ct_entry *e = t->lists[l].head; e && n < t->stats.count; e = e->next)
			if (e->expires > now) /* expired, not swept yet: gone (as ctnetlink) */
				v[n++] = e;
	qsort(v, n, sizeof(*v), by_id);
	for (unsigned i = 0; i < n; i++) {
		ct_entry_format(v[i], now, line, sizeof(line));
		fprintf(f, "%s\n", line);
	}
	free(v);
	return n;
}

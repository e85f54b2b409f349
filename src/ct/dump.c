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
#include <sys/socket.h>

#include "ct/ct_int.h"
#include "ct/helper.h"

#define OUT(...)                                                                                   \
	do {                                                                                       \
		int n_ = snprintf(buf + (off < len ? off : len), off < len ? len - off : 0,        \
				  __VA_ARGS__);                                                    \
		if (n_ > 0)                                                                        \
			off += (size_t)n_;                                                         \
	} while (0)

int ct_line_format(const struct ct_line *l, unsigned flags, char *buf, size_t len)
{
	const struct ct_tuple *o = l->tuple[CT_DIR_ORIGINAL];
	size_t off = 0;
	char tb[160];

	if (len)
		buf[0] = '\0';
	if (flags & CT_LINE_FAMILY)
		OUT("%-8s %u ", o->family == AF_INET6 ? "ipv6" : "ipv4", o->family);
	OUT("%-8s %u %llu ", l->proto, o->l4proto, (unsigned long long)l->timeout);
	if (l->state)
		OUT("%s ", l->state);
	for (int d = CT_DIR_ORIGINAL; d <= CT_DIR_REPLY; d++) {
		if (d == CT_DIR_REPLY && !(l->status & CT_S_SEEN_REPLY))
			OUT("[UNREPLIED] ");
		OUT("%s ", ct_tuple_str(l->tuple[d], tb, sizeof(tb)));
		if (l->counters[d])
			OUT("packets=%llu bytes=%llu ", (unsigned long long)l->packets[d],
			    (unsigned long long)l->bytes[d]);
	}
	if (l->status & CT_S_ASSURED)
		OUT("[ASSURED] ");
	if (!l->no_mark)
		OUT("mark=%u", l->mark);
	else if (off && off <= len && buf[off - 1] == ' ')
		buf[--off] = '\0';
	if (l->zone)
		OUT(" zone=%u", l->zone);
	if (l->helper)
		OUT(" helper=%s", l->helper);
	if (!(flags & CT_LINE_NO_USE))
		OUT(" use=%u", l->use);
	if (flags & CT_LINE_ID)
		OUT(" id=%u", l->id);
	return (int)off;
}

int ct_entry_format(const struct ct_entry *e, uint64_t now, char *buf, size_t len)
{
	struct ct_line l = {
	    .proto = e->ops->name,
	    .state = ct_entry_proto_state(e),
	    .tuple = {&e->th[CT_DIR_ORIGINAL].tuple, &e->th[CT_DIR_REPLY].tuple},
	    .timeout = ct_entry_expires_in(e, now) / CT_SEC,
	    .status = e->status,
	    .mark = e->mark,
	    .zone = e->th[CT_DIR_ORIGINAL].tuple.zone,
	    .helper = ct_entry_helper(e) ? ct_entry_helper(e)->name : NULL,
	    /* references besides the table's are packets in flight: conntrack shows the table's */
	    .use = e->use,
	};

	for (int d = CT_DIR_ORIGINAL; d <= CT_DIR_REPLY; d++)
		l.counters[d] = ct_entry_counters(e, (enum ct_dir)d, &l.packets[d], &l.bytes[d]);
	return ct_line_format(&l, 0, buf, len);
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

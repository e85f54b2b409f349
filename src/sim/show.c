// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Listings shared by the simulator's `show` and by replay: counters in the shape of
 * `iptables -L -v -x -n --line-numbers`, box statistics, routes.
 *
 *   Table filter
 *   Chain INPUT (policy DROP 3 packets, 180 bytes)
 *   num        pkts      bytes target     rule
 *   1             2        120 ACCEPT     -i lo -j ACCEPT
 */
#include <inttypes.h>
#include <string.h>
#include <sys/socket.h>

#include "ct/defrag.h"
#include "sim/internal.h"

static const char *target_name(const struct rules_table *t, const struct rules_rule *r)
{
	switch (r->target.kind) {
	case RULES_T_NONE:
		return "";
	case RULES_T_ACCEPT:
		return "ACCEPT";
	case RULES_T_DROP:
		return "DROP";
	case RULES_T_RETURN:
		return "RETURN";
	case RULES_T_JUMP:
	case RULES_T_GOTO:
		return r->target.chain < t->nchains ? t->chains[r->target.chain].name : "?";
	case RULES_T_EXT:
		return r->target.ext.target ? r->target.ext.target->name : "?";
	}
	return "?";
}

void sim_print_counters(FILE *f, const struct rules_ruleset *rs, int only_table)
{
	if (!rs)
		return;
	for (unsigned t = 0; t < TABLE_MAX; t++) {
		const struct rules_table *tb = &rs->tables[t];

		if (!tb->present || (only_table >= 0 && (unsigned)only_table != t))
			continue;
		fprintf(f, "Table %s (%s)\n", rules_table_name(t),
			rs->family == AF_INET6 ? "IPv6" : "IPv4");
		for (unsigned c = 0; c < tb->nchains; c++) {
			const struct rules_chain *ch = &tb->chains[c];

			if (ch->builtin)
				fprintf(f,
					"Chain %s (policy %s %" PRIu64 " packets, %" PRIu64
					" bytes)\n",
					ch->name, ch->policy == EXT_DROP ? "DROP" : "ACCEPT",
					ch->pkts, ch->bytes);
			else
				fprintf(f, "Chain %s (%u references)\n", ch->name, ch->refs);
			fprintf(f, "%-4s %10s %12s %-10s %s\n", "num", "pkts", "bytes", "target",
				"rule");
			for (unsigned i = 0; i < ch->nrules; i++) {
				const struct rules_rule *r = &ch->rules[i];

				fprintf(f, "%-4u %10" PRIu64 " %12" PRIu64 " %-10s ", i + 1,
					r->pkts, r->bytes, target_name(tb, r));
				rules_print_rule(rs, t, r, f);
				fputc('\n', f);
			}
			fputc('\n', f);
		}
	}
}

void sim_print_routes(FILE *f, const struct box *b)
{
	static const char *const types[] = {
	    [BOX_RT_UNICAST] = "",
	    [BOX_RT_LOCAL] = "local ",
	    [BOX_RT_BLACKHOLE] = "blackhole ",
	    [BOX_RT_UNREACHABLE] = "unreachable ",
	    [BOX_RT_PROHIBIT] = "prohibit ",
	};
	const struct box_route *r;
	const struct box_addr *a;
	char n[64], g[64];

	for (unsigned i = 0; (a = box_addr_at(b, i)); i++) {
		const struct box_iface *ifc = box_iface(b, a->ifindex);

		fprintf(f, "addr %s/%d dev %s\n", pt_addr_str(a->family, &a->addr, n, sizeof(n)),
			a->plen, ifc ? ifc->name : "?");
	}
	for (unsigned i = 0; (r = box_route_at(b, i)); i++) {
		const struct box_iface *ifc = r->oif ? box_iface(b, r->oif) : NULL;
		union pt_addr zero;

		memset(&zero, 0, sizeof(zero));
		fprintf(f, "route %s%s/%d", r->type <= BOX_RT_PROHIBIT ? types[r->type] : "?",
			pt_addr_str(r->family, &r->net, n, sizeof(n)), r->plen);
		if (ifc)
			fprintf(f, " dev %s", ifc->name);
		if (!pt_addr_eq(&r->gw, &zero))
			fprintf(f, " via %s", pt_addr_str(r->family, &r->gw, g, sizeof(g)));
		if (r->metric)
			fprintf(f, " metric %u", r->metric);
		if (r->mtu)
			fprintf(f, " mtu %u", r->mtu);
		fputc('\n', f);
	}
}

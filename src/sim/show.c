// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The simulator's `show` command, and the listings it shares with replay: counters in the shape of
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

#include "ct/ct_plugin.h"
#include "plugins/recent_plugin.h"
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
					ch->ctr[i].pkts, ch->ctr[i].bytes, target_name(tb, r));
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

/* ---- the show command ------------------------------------------------------------------- */

static void print_outcomes(struct sim *s, struct sim_box *sb)
{
	char text[512], r[128];

	for (unsigned i = 0; i < sb->nout; i++) {
		const struct sim_outcome *o = &sb->out[i];
		const struct box_iface *ifc;

		switch (o->kind) {
		case SIM_OUT_XMIT:
			ifc = box_iface(sb->box, o->ifindex);
			fprintf(s->out, "out %s %s\n", ifc ? ifc->name : "?",
				o->pkt ? sim_pkt_text(o->pkt, text, sizeof(text)) : "");
			break;
		case SIM_OUT_LOCAL:
			fprintf(s->out, "local %s\n",
				o->pkt ? sim_pkt_text(o->pkt, text, sizeof(text)) : "");
			break;
		case SIM_OUT_DROP:
			fprintf(s->out, "drop %s %s\n", sim_drop_text(&o->why, r, sizeof(r)),
				o->pkt ? sim_pkt_text(o->pkt, text, sizeof(text)) : "");
			break;
		case SIM_OUT_LOG:
			fprintf(s->out, "log %s\n", o->line ? o->line : "");
			break;
		case SIM_OUT_TRACE:
			fprintf(s->out, "trace %s\n", o->line ? o->line : "");
			break;
		case SIM_OUT_QUEUE:
			fprintf(s->out, "queue %u\n", o->qnum);
			break;
		}
	}
}

int sim_cmd_show(struct sim *s, struct words *w)
{
	struct sim_box *sb = sim_cur_box(s);
	const char *what = w->argc > 1 ? w->argv[1] : "counters";
	int family = AF_INET, table = -1;

	if (!sb)
		return -1;
	for (int i = 2; i < w->argc && strcmp(what, "conntrack") && strcmp(what, "recent"); i++) {
		if (sim_rules_family_arg(w->argv[i]) > 0)
			family = sim_rules_family_arg(w->argv[i]);
		else if ((table = rules_table_by_name(w->argv[i])) < 0)
			return sim_errorf(s, "no table '%s'", w->argv[i]);
	}
	if (!strcmp(what, "counters") || !strcmp(what, "chains")) {
		for (int f = 0; f < 2; f++) {
			int fam = f ? AF_INET6 : AF_INET;
			const struct rules_ruleset *rs = box_ruleset(sb->box, fam);

			if (w->argc > 2 && fam != family)
				continue;
			if (!rs)
				continue;
			fprintf(s->out, "# %s\n", fam == AF_INET ? "IPv4" : "IPv6");
			if (!strcmp(what, "counters")) {
				sim_print_counters(s->out, rs, table);
				continue;
			}
			for (unsigned t = 0; t < TABLE_MAX; t++) {
				const struct rules_table *tb = &rs->tables[t];

				if (!tb->present || (table >= 0 && (unsigned)table != t))
					continue;
				fprintf(s->out, "%s:", rules_table_name(t));
				for (unsigned c = 0; c < tb->nchains; c++)
					fprintf(s->out, " %s", tb->chains[c].name);
				fputc('\n', s->out);
			}
		}
		return 0;
	}
	if (!strcmp(what, "classifier")) {
		sim_show_classifier(s, sb->box);
		return 0;
	}
	if (!strcmp(what, "recent")) {
		if (recent_box_print(sb->box, w->argc > 2 ? w->argv[2] : NULL, s->out) < 0)
			return sim_errorf(s, "no recent list '%s'", w->argv[2]);
		return 0;
	}
	if (!strcmp(what, "log")) {
		for (unsigned i = 0; i < sb->nout; i++)
			if (sb->out[i].kind == SIM_OUT_LOG)
				fprintf(s->out, "%s\n", sb->out[i].line);
		return 0;
	}
	if (!strcmp(what, "stats")) {
		box_print_stats(s->out, sb->box);
		return 0;
	}
	if (!strcmp(what, "routes")) {
		sim_print_routes(s->out, sb->box);
		return 0;
	}
	if (!strcmp(what, "pending")) {
		print_outcomes(s, sb);
		return 0;
	}
	if (!strcmp(what, "boxes")) {
		for (unsigned i = 0; i < s->nboxes; i++) {
			struct box *b = s->boxes[i]->box;

			fprintf(s->out, "%s%s:", s->boxes[i] == sb ? "*" : "", box_name(b));
			for (unsigned k = 1; k <= box_iface_count(b); k++) {
				const struct box_iface *ifc = box_iface(b, (int)k);
				const struct sim_link *l = &s->boxes[i]->links[k];

				if (!ifc)
					continue;
				fprintf(s->out, " %s", ifc->name);
				if (l->peer)
					fprintf(s->out, "=%s:%s", box_name(l->peer->box),
						box_iface(l->peer->box, l->peer_if)->name);
			}
			fputc('\n', s->out);
		}
		return 0;
	}
	if (!strcmp(what, "conntrack")) {
		struct ct_table *t = ct_box_table(sb->box);

		if (w->argc > 2 && !strcmp(w->argv[2], "settings")) {
			if (!t)
				return sim_errorf(s, "conntrack is off in %s", box_name(sb->box));
			ct_config_print(ct_table_config(t), s->out);
			ct_timeout_policy_print(t, s->out);
			return 0;
		}
		if (!t)
			fprintf(s->out, "# conntrack is off in %s\n", box_name(sb->box));
		else
			ct_dump(t, s->out, box_now(sb->box));
		return 0;
	}
	if (!strcmp(what, "sync"))
		return sim_sync_show(s);
	if (!strcmp(what, "time")) {
		fprintf(s->out, "%" PRIu64 ".%09" PRIu64 "\n", s->now / 1000000000u,
			s->now % 1000000000u);
		return 0;
	}
	return sim_errorf(s,
			  "usage: show counters|chains [TABLE] [-6] | log | stats | routes | "
			  "pending | boxes | conntrack [settings] | time | recent [NAME] | sync");
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `pkttables replay`: a capture through one box. Each packet enters on the interface its
 * source address routes to and leaves where the box sends it; the box's clock follows the
 * capture's timestamps. Per packet one line and the indented things it caused:
 *
 *   #12 lan0 tcp 192.168.1.10:40000 > 198.51.100.7:443 syn len=0 -> wan0
 *   #13 wan0 tcp 198.51.100.7:443 > 192.168.1.10:40000 syn len=0 -> DROP filter:FORWARD:7
 *     + wan0 tcp 192.168.1.10:40000 > 198.51.100.7:443 rst,ack len=0
 *     LOG: IN=wan0 OUT=lan0 ...
 *
 * then the counters and a summary. --verdicts writes the shape of the tests/diff .kernel files
 * (made by tests/diff/kernel-replay.py from the real kernel), so the two can be diffed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ct/ct_plugin.h"
#include "ct/expect.h"
#include "set/set_plugin.h"
#include "sim/internal.h"

/* The queue number of an NFQUEUE rule, from its printed text (the box does not report it). */
static unsigned rule_queue_num(struct box *b, int family, const struct box_drop *d)
{
	const struct rules_ruleset *rs = box_ruleset(b, family);
	const struct rules_table *t;
	char *text = NULL, *q;
	size_t n = 0;
	unsigned num = 0;
	int ci;
	FILE *m;

	if (!rs || d->table < 0 || d->table >= TABLE_MAX || !d->chain || !d->rulenum)
		return 0;
	t = &rs->tables[d->table];
	ci = rules_chain_find(t, d->chain);
	if (ci < 0 || d->rulenum > t->chains[ci].nrules)
		return 0;
	m = open_memstream(&text, &n);
	if (!m)
		return 0;
	rules_print_rule(rs, (unsigned)d->table, &t->chains[ci].rules[d->rulenum - 1], m);
	fclose(m);
	q = strstr(text, "--queue-num ");
	if (q)
		num = (unsigned)strtoul(q + 12, NULL, 10);
	q = strstr(text, "--queue-balance ");
	if (q)
		num = (unsigned)strtoul(q + 16, NULL, 10);
	free(text);
	return num;
}

/*
 * A generated packet the way tests/diff/kernel-replay.py describes one (its describe()):
 *   IPv4 A > B ttl=N tcp SP > DP flags=RA seq=S ack=A win=W len=L
 *   IPv6 A > B hlim=N icmp6 type=1 code=4 quoting udp X:1 > Y:2 len=L
 */
static void kernel_describe(const struct pkt *p, char *buf, size_t len)
{
	const struct pkt_info *in = &p->info;
	char a[64], b[64];
	size_t n;

	if (in->family != AF_INET && in->family != AF_INET6) {
		snprintf(buf, len, "non-IP len=%u", p->len);
		return;
	}
	n = (size_t)snprintf(buf, len, "%s %s > %s %s=%u", in->family == AF_INET ? "IPv4" : "IPv6",
			     pt_addr_str(in->family, &in->src, a, sizeof(a)),
			     pt_addr_str(in->family, &in->dst, b, sizeof(b)),
			     in->family == AF_INET ? "ttl" : "hlim", in->ttl);
	if (n >= len)
		return;
	if (in->has_l4 && in->l4proto == 6) {
		static const char names[] = "FSRPAUEC";
		uint8_t h[20];
		char fl[9];
		int k = 0;

		if (pkt_copy_out(p, in->l4off, h, 20) < 0)
			return;
		for (int i = 0; i < 8; i++)
			if (h[13] & (1 << i))
				fl[k++] = names[i];
		fl[k] = '\0';
		snprintf(buf + n, len - n, " tcp %u > %u flags=%s seq=%u ack=%u win=%u len=%u",
			 in->sport, in->dport, fl,
			 (unsigned)h[4] << 24 | h[5] << 16 | h[6] << 8 | h[7],
			 (unsigned)h[8] << 24 | h[9] << 16 | h[10] << 8 | h[11],
			 (unsigned)h[14] << 8 | h[15], in->l4len - in->tcp_doff);
		return;
	}
	if (in->has_l4 && (in->l4proto == 1 || in->l4proto == 58) && in->l4len >= 8) {
		bool v4 = in->l4proto == 1;
		uint8_t q[48];
		uint32_t qoff = in->l4off + 8, qlen = in->l4len - 8;
		char inner[200] = "";

		if (qlen > sizeof(q))
			qlen = sizeof(q);
		if (pkt_copy_out(p, qoff, q, qlen) == 0) {
			int qf = 0;
			uint32_t ihl = 0;
			uint8_t proto = 0;
			union pt_addr qs, qd;

			memset(&qs, 0, sizeof(qs));
			memset(&qd, 0, sizeof(qd));
			if (v4 && qlen >= 20) {
				qf = AF_INET;
				ihl = (q[0] & 15u) * 4;
				memcpy(qs.b, q + 12, 4);
				memcpy(qd.b, q + 16, 4);
				proto = q[9];
			} else if (!v4 && qlen >= 40) {
				qf = AF_INET6;
				ihl = 40;
				memcpy(qs.b, q + 8, 16);
				memcpy(qd.b, q + 24, 16);
				proto = q[6];
			}
			if (qf) {
				const char *pn = proto == 6    ? "tcp"
						 : proto == 17 ? "udp"
						 : proto == 1  ? "icmp"
						 : proto == 58 ? "icmp6"
						 : proto == 44 ? "frag"
							       : NULL;
				char pnum[8];

				snprintf(pnum, sizeof(pnum), "%u", proto);
				pt_addr_str(qf, &qs, a, sizeof(a));
				pt_addr_str(qf, &qd, b, sizeof(b));
				if ((proto == 6 || proto == 17) && qlen >= ihl + 4)
					snprintf(inner, sizeof(inner), " quoting %s %s:%u > %s:%u",
						 pn, a, q[ihl] << 8 | q[ihl + 1], b,
						 q[ihl + 2] << 8 | q[ihl + 3]);
				else
					snprintf(inner, sizeof(inner), " quoting %s %s > %s",
						 pn ? pn : pnum, a, b);
			}
		}
		snprintf(buf + n, len - n, " %s type=%u code=%u%s len=%u", v4 ? "icmp" : "icmp6",
			 in->icmp_type, in->icmp_code, inner, in->l4len);
		return;
	}
	snprintf(buf + n, len - n, " proto=%u len=%u", in->l4proto,
		 in->l3len > (in->l4off - in->l3off) ? in->l4len : 0);
}

/*
 * A fragment the box held (defragmentation) leaves later, during the frame that completed its
 * datagram: as an IPv6 original, or as the IPv4 fragment cut again at the same offset. The
 * verdicts file credits each copy to the frame it came from, as tests/diff/kernel-replay.py
 * does with the kernel's output: held frames wait here for their line.
 */
struct replay_held {
	uint64_t id;
	int family;
	union pt_addr src, dst;
	uint32_t frag_id;
	uint16_t frag_off;
	char vline[64];
};
#define REPLAY_MAX_HELD 64

struct replay_totals {
	uint64_t in, delivered, generated, queued, fwd_if[BOX_MAX_IFACES + 1];
	struct replay_held held[REPLAY_MAX_HELD];
	unsigned nheld;
};

static bool held_match(const struct replay_held *h, const struct pkt_info *in)
{
	return in->is_fragment && h->family == in->family && h->frag_id == in->frag_id &&
	       h->frag_off == in->frag_off && pt_addr_eq(&h->src, &in->src) &&
	       pt_addr_eq(&h->dst, &in->dst) && !h->vline[0];
}

/* Write the lines of held frames that have left (all of them when `all`), in frame order. */
static void held_flush(FILE *vf, struct replay_totals *tot, bool all)
{
	unsigned k = 0;

	for (unsigned i = 0; i < tot->nheld; i++) {
		struct replay_held *h = &tot->held[i];

		if (h->vline[0] || all) {
			if (vf)
				fprintf(vf, "%" PRIu64 " %s%s\n", h->id,
					h->vline[0] ? "forwarded " : "dropped", h->vline);
			continue;
		}
		tot->held[k++] = *h;
	}
	tot->nheld = k;
}

static int pick_iface(struct box *b, struct pkt *p, enum pkt_link link)
{
	const struct box_route *r;
	int wan;

	pkt_parse(p, link, false);
	if (p->info.family) {
		r = box_route_lookup(b, p->info.family, &p->info.src);
		if (r && r->oif > 0)
			return r->oif;
	}
	/* Unreadable or unroutable sources come from the outside, as in the kernel harness. */
	wan = box_iface_index(b, "wan0");
	return wan > 0 ? wan : 1;
}

static void report_packet(struct sim_box *sb, struct pkt *orig, const char *intext, int ifindex,
			  const struct sim_replay_opts *o, FILE *out, FILE *vf,
			  struct pcapio_writer *w, struct replay_totals *tot)
{
	struct box *b = sb->box;
	const struct box_iface *in = box_iface(b, ifindex);
	char verdict[192] = "", vline[256] = "", text[512], r[128];
	int fwd = 0;
	unsigned i;

	(void)orig;
	/* The input packet's own fate first. */
	for (i = 0; i < sb->nout; i++) {
		const struct sim_outcome *oc = &sb->out[i];
		const struct box_iface *ifc;

		if (oc->kind == SIM_OUT_XMIT && !oc->generated) {
			struct replay_held *h = NULL;

			ifc = box_iface(b, oc->ifindex);
			for (unsigned k = 0; oc->pkt && k < tot->nheld && !h; k++)
				if (held_match(&tot->held[k], &oc->pkt->info))
					h = &tot->held[k];
			if (h) {
				snprintf(h->vline, sizeof(h->vline), "%s", ifc ? ifc->name : "?");
				tot->fwd_if[oc->ifindex]++;
				continue;
			}
			snprintf(verdict + strlen(verdict), sizeof(verdict) - strlen(verdict),
				 "%s%s", fwd ? "," : "", ifc ? ifc->name : "?");
			snprintf(vline + strlen(vline), sizeof(vline) - strlen(vline), "%s%s",
				 fwd ? "," : "", ifc ? ifc->name : "?");
			tot->fwd_if[oc->ifindex]++;
			fwd++;
		}
	}
	if (!fwd) {
		for (i = 0; i < sb->nout && !verdict[0]; i++) {
			const struct sim_outcome *oc = &sb->out[i];

			if (oc->kind == SIM_OUT_LOCAL && oc->pkt && oc->pkt->iif) {
				snprintf(verdict, sizeof(verdict), "local");
				tot->delivered++;
			} else if (oc->kind == SIM_OUT_DROP && (!oc->pkt || oc->pkt->iif)) {
				if (oc->why.kind == BOX_DROP_QUEUE) {
					snprintf(verdict, sizeof(verdict), "QUEUE %u",
						 rule_queue_num(b, orig->info.family, &oc->why));
					tot->queued++;
				} else {
					snprintf(verdict, sizeof(verdict), "DROP %s",
						 sim_drop_text(&oc->why, r, sizeof(r)));
				}
			}
		}
		if (!verdict[0])
			snprintf(verdict, sizeof(verdict), "STOLEN");
	}
	held_flush(vf, tot, false);
	if (!o->quiet)
		fprintf(out, "#%" PRIu64 " %s %s -> %s\n", orig->id, in ? in->name : "?", intext,
			verdict);
	if (!fwd && !strcmp(verdict, "STOLEN") && orig->info.is_fragment &&
	    tot->nheld < REPLAY_MAX_HELD) {
		struct replay_held *h = &tot->held[tot->nheld++];

		memset(h, 0, sizeof(*h));
		h->id = orig->id;
		h->family = orig->info.family;
		h->src = orig->info.src;
		h->dst = orig->info.dst;
		h->frag_id = orig->info.frag_id;
		h->frag_off = orig->info.frag_off;
	} else if (vf) {
		fprintf(vf, "%" PRIu64 " %s%s\n", orig->id, fwd ? "forwarded " : "dropped", vline);
	}
	for (i = 0; i < sb->nout; i++) {
		const struct sim_outcome *oc = &sb->out[i];
		const struct box_iface *ifc;

		switch (oc->kind) {
		case SIM_OUT_XMIT:
			ifc = box_iface(b, oc->ifindex);
			if (oc->generated) {
				tot->generated++;
				if (!o->quiet)
					fprintf(out, "  + %s %s\n", ifc ? ifc->name : "?",
						sim_pkt_text(oc->pkt, text, sizeof(text)));
				if (vf) {
					kernel_describe(oc->pkt, text, sizeof(text));
					fprintf(vf, "  generated %s: %s\n", ifc ? ifc->name : "?",
						text);
				}
			}
			if (w && oc->pkt && sim_pkt_link(oc->pkt) == pcapio_writer_link(w)) {
				/* framed as the file already: written as it is, no copy */
				pcapio_write(w, oc->pkt, box_now(b));
			} else if (w && oc->pkt) {
				struct pkt *c = pkt_clone(oc->pkt);

				c = sim_frame(c, sim_pkt_link(oc->pkt), pcapio_writer_link(w),
					      ifc ? ifc->mac : NULL, ifc ? ifc->peer_mac : NULL);
				if (c) {
					pcapio_write(w, c, box_now(b));
					pkt_free(c);
				}
			}
			break;
		case SIM_OUT_DROP:
			if (oc->pkt && !oc->pkt->iif && !o->quiet)
				fprintf(out, "  + (dropped %s) %s\n",
					sim_drop_text(&oc->why, r, sizeof(r)),
					sim_pkt_text(oc->pkt, text, sizeof(text)));
			break;
		case SIM_OUT_LOG:
			if (!o->quiet)
				fprintf(out, "  LOG: %s\n", oc->line);
			break;
		case SIM_OUT_TRACE:
			/* The engine's line already starts with "TRACE: ", as the kernel's does. */
			if (!o->quiet && o->trace)
				fprintf(out, "  %s%s\n",
					strncmp(oc->line, "TRACE:", 6) ? "TRACE: " : "", oc->line);
			break;
		default:
			break;
		}
	}
	sim_box_clear_outcomes(sb);
}

static void print_summary(FILE *out, struct box *b, const struct replay_totals *tot)
{
	const struct box_stats *st = box_stats(b);
	uint64_t fwd = 0, dropped = 0, malformed = 0;
	bool first = true;

	for (unsigned i = 1; i <= BOX_MAX_IFACES; i++)
		fwd += tot->fwd_if[i];
	for (int i = 0; i < BOX_DROP_MAX; i++)
		dropped += st->dropped[i];
	for (int i = 0; i < PKT_BAD_MAX; i++)
		malformed += st->malformed[i];
	fprintf(out, "Summary\n");
	fprintf(out, "  packets in    %" PRIu64 "\n", tot->in);
	fprintf(out, "  forwarded     %" PRIu64, fwd);
	for (unsigned i = 1; i <= BOX_MAX_IFACES; i++)
		if (tot->fwd_if[i]) {
			const struct box_iface *ifc = box_iface(b, (int)i);

			fprintf(out, "%s%s %" PRIu64, first ? " (" : ", ", ifc ? ifc->name : "?",
				tot->fwd_if[i]);
			first = false;
		}
	fprintf(out, "%s\n", first ? "" : ")");
	fprintf(out, "  delivered     %" PRIu64 "\n", tot->delivered);
	fprintf(out, "  dropped       %" PRIu64 "\n", dropped);
	for (int i = 0; i < BOX_DROP_MAX; i++)
		if (st->dropped[i])
			fprintf(out, "    %-12s %" PRIu64 "\n",
				box_drop_kind_name((enum box_drop_kind)i), st->dropped[i]);
	fprintf(out, "  malformed     %" PRIu64 "\n", malformed);
	for (int i = 1; i < PKT_BAD_MAX; i++)
		if (st->malformed[i])
			fprintf(out, "    %-12s %" PRIu64 "\n", pkt_bad_name((enum pkt_bad)i),
				st->malformed[i]);
	if (tot->queued)
		fprintf(out, "  queued        %" PRIu64 "\n", tot->queued);
	fprintf(out, "  generated     %" PRIu64 "\n", tot->generated);
	box_print_plugin_stats(out, b, "  ");
}

static int load_rules(struct sim_box *sb, const char *path, int family, bool unified_v6, FILE *err)
{
	char *buf;
	size_t len;
	int rc = box_read_file(path, &buf, &len);

	if (rc < 0) {
		fprintf(err, "replay: %s: %s\n", path, strerror(-rc));
		return -1;
	}
	if (family == AF_INET && unified_v6 && rules_buffer_has_family_tag(buf, len, 6))
		family = 0; /* both halves of a unified file */
	rc = sim_load_rules(sb->box, buf, len, path, family, err);
	free(buf);
	return rc;
}

/* The capture's packets come from the box's pool: a replay allocates no packet per record. */
static struct pkt *replay_get(void *box, const void *data, uint32_t len)
{
	return box_pkt_get(box, data, len);
}

int sim_replay(const struct sim_replay_opts *o, FILE *out, FILE *err)
{
	struct sim *s = sim_new(out, err, SIM_QUIET | SIM_REPLAY);
	struct pcapio_reader *r = NULL;
	struct pcapio_writer *w = NULL;
	struct replay_totals tot;
	struct ct_expect_stats xs;
	struct sim_box *sb;
	FILE *vf = NULL;
	char ebuf[512], text[512];
	struct pkt *p;
	bool started = false, shown = false;
	int rc, status = 0;

	memset(&tot, 0, sizeof(tot));
	if (!s)
		return 1;
	sim_set_classifier(s, o->classifier);
	if (o->box) {
		FILE *f = fopen(o->box, "r");
		char dir[PATH_MAX], *slash;

		if (!f) {
			fprintf(err, "replay: %s: %s\n", o->box, strerror(errno));
			goto fail;
		}
		snprintf(dir, sizeof(dir), "%s", o->box);
		slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		else
			dir[0] = '\0';
		sim_set_dir(s, dir);
		rc = sim_run_stream(s, f, o->box);
		fclose(f);
		if (rc)
			goto fail;
		if (!s->cur) {
			fprintf(err, "replay: %s defines no box\n", o->box);
			goto fail;
		}
		sb = s->cur;
	} else {
		sb = sim_box_new(s, "gw");
		if (!sb || box_setup_default_gateway(sb->box) < 0) {
			fprintf(err, "replay: cannot set up the default gateway\n");
			goto fail;
		}
	}
	if (o->sets) {
		char *buf;
		size_t len;

		if ((rc = box_read_file(o->sets, &buf, &len)) < 0) {
			fprintf(err, "replay: %s: %s\n", o->sets, strerror(-rc));
			goto fail;
		}
		rc = set_box_restore(sb->box, buf, len, o->sets, err);
		free(buf);
		if (rc < 0)
			goto fail;
	}
	if (o->rules && load_rules(sb, o->rules, AF_INET, !o->rules6, err) < 0)
		goto fail;
	if (o->rules6 && load_rules(sb, o->rules6, AF_INET6, false, err) < 0)
		goto fail;
	box_set_trace_all(sb->box, o->trace);

	if (pcapio_open(o->in, &r, ebuf, sizeof(ebuf)) < 0) {
		fprintf(err, "replay: %s\n", ebuf);
		goto fail;
	}
	pcapio_set_get(r, replay_get, sb->box);
	for (unsigned i = 1; i <= box_iface_count(sb->box); i++)
		box_set_iface_link(sb->box, (int)i, pcapio_link(r));
	if (o->out && pcapio_create(o->out, pcapio_link(r), &w, ebuf, sizeof(ebuf)) < 0) {
		fprintf(err, "replay: %s\n", ebuf);
		goto fail;
	}
	if (o->verdicts) {
		vf = fopen(o->verdicts, "w");
		if (!vf) {
			fprintf(err, "replay: %s: %s\n", o->verdicts, strerror(errno));
			goto fail;
		}
	}

	while ((rc = pcapio_next(r, &p, ebuf, sizeof(ebuf))) == 1) {
		int ifindex = pick_iface(sb->box, p, pcapio_link(r));
		struct pkt copy;

		/* The clock follows the capture, never backwards. */
		if (!started || p->tstamp_ns > s->now) {
			sim_set_now(s, p->tstamp_ns);
			for (unsigned i = 0; i < s->nboxes; i++)
				box_set_time(s->boxes[i]->box, p->tstamp_ns);
			started = true;
		}
		tot.in++;
		sim_pkt_text(p, text, sizeof(text));
		/* Keep the metadata to report on; the box owns the packet from here. */
		memcpy(&copy, p, sizeof(copy));
		p->iif = ifindex;
		sim_inject(sb, ifindex, p);
		sim_run_wire(s);
		report_packet(sb, &copy, text, ifindex, o, out, vf, w, &tot);
		if (o->progress && tot.in % 1000 == 0 && tot.in >= 5000) {
			fprintf(err, "\rreplay: %" PRIu64 " packets", tot.in);
			shown = true;
		}
	}
	if (shown)
		fprintf(err, "\r\033[K");
	if (rc < 0) {
		fprintf(err, "replay: %s\n", ebuf);
		status = 1;
	}
	held_flush(vf, &tot, true); /* never completed: dropped (expired) */
	if (!o->quiet)
		fputc('\n', out);
	for (int f = 0; f < 2; f++) {
		int fam = f ? AF_INET6 : AF_INET;
		const struct rules_ruleset *rs = box_ruleset(sb->box, fam);

		if (!rs)
			continue;
		if (o->save) {
			fprintf(out, "# %s-save -c\n", fam == AF_INET ? "iptables" : "ip6tables");
			rules_print(rs, out, RULES_PRINT_COUNTERS);
		} else {
			sim_print_counters(out, rs, -1);
		}
		if (vf) {
			fprintf(vf, "# %s-save -c\n", fam == AF_INET ? "iptables" : "ip6tables");
			rules_print(rs, vf, RULES_PRINT_COUNTERS);
		}
	}
	if (ct_box_table(sb->box)) {
		fprintf(out, "Conntrack\n");
		ct_dump(ct_box_table(sb->box), out, box_now(sb->box));
		fputc('\n', out);
		ct_expect_sweep(ct_box_table(sb->box), box_now(sb->box));
		ct_expect_stats(ct_box_table(sb->box), &xs);
		if (xs.count) { /* conntrack -L expect */
			fprintf(out, "Expectations\n");
			ct_expect_dump(ct_box_table(sb->box), out, box_now(sb->box));
			fputc('\n', out);
		}
	}
	print_summary(out, sb->box, &tot);
	if (w && pcapio_finish(w) < 0) {
		fprintf(err, "replay: %s: write failed\n", o->out);
		status = 1;
	}
	w = NULL;
	if (vf && fclose(vf) != 0) {
		fprintf(err, "replay: %s: write failed\n", o->verdicts);
		status = 1;
	}
	vf = NULL;
	pcapio_close(r);
	sim_free(s);
	return status;
fail:
	if (vf)
		fclose(vf);
	pcapio_finish(w);
	pcapio_close(r);
	sim_free(s);
	return 1;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The simulated world: boxes, what happens in them (outcomes), the wires between them and the
 * clock. A box never re-enters itself: what it sends on a wire is queued and delivered after
 * the box has returned, in order of due time, then of sending.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ct/defrag.h"
#include "ctl/server.h"
#include "pkt/build.h"
#include "sim/internal.h"

static void outcome_free(struct sim_outcome *o)
{
	if (o->pkt)
		pkt_free(o->pkt);
	free(o->line);
	o->pkt = NULL;
	o->line = NULL;
}

/* A drop's chain name lives in its outcome (why.chain points at chain[]): point it again after
 * the array moved (realloc, memmove), or it names whatever took the old place. */
static void outcomes_moved(struct sim_box *sb)
{
	for (unsigned i = 0; i < sb->nout; i++)
		if (sb->out[i].why.chain)
			sb->out[i].why.chain = sb->out[i].chain;
}

static struct sim_outcome *outcome_add(struct sim_box *sb, enum sim_outcome_kind kind)
{
	struct sim_outcome *o;

	if (sb->nout == SIM_MAX_OUTCOMES) {
		outcome_free(&sb->out[0]);
		memmove(&sb->out[0], &sb->out[1], (sb->nout - 1) * sizeof(sb->out[0]));
		sb->nout--;
		sb->forgotten++;
		outcomes_moved(sb);
	}
	if (sb->nout == sb->cap) {
		unsigned cap = sb->cap ? sb->cap * 2 : 16;
		struct sim_outcome *n = realloc(sb->out, cap * sizeof(*n));

		if (!n)
			return NULL;
		sb->out = n;
		sb->cap = cap;
		outcomes_moved(sb);
	}
	o = &sb->out[sb->nout++];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	return o;
}

void sim_outcome_remove(struct sim_box *sb, unsigned i)
{
	outcome_free(&sb->out[i]);
	memmove(&sb->out[i], &sb->out[i + 1], (sb->nout - i - 1) * sizeof(sb->out[0]));
	sb->nout--;
	outcomes_moved(sb);
}

void sim_box_clear_outcomes(struct sim_box *sb)
{
	for (unsigned i = 0; i < sb->nout; i++)
		outcome_free(&sb->out[i]);
	sb->nout = 0;
}

void sim_event_line(struct sim_box *sb, const char *what, const struct pkt *p)
{
	char text[512];

	if (sb->sim->flags & SIM_QUIET)
		return;
	if (p)
		fprintf(sb->sim->out, "  [%s] %s %s\n", box_name(sb->box), what,
			sim_pkt_text(p, text, sizeof(text)));
	else
		fprintf(sb->sim->out, "  [%s] %s\n", box_name(sb->box), what);
}

/* ---- the wire ---------------------------------------------------------------------------- */

static void wire_push(struct sim *s, struct sim_box *to, int ifindex, uint64_t due, struct pkt *p)
{
	unsigned i;

	if (s->nwire == s->wirecap) {
		unsigned cap = s->wirecap ? s->wirecap * 2 : 64;
		struct sim_wire_item *n = realloc(s->wire, cap * sizeof(*n));

		if (!n) {
			pkt_free(p);
			return;
		}
		s->wire = n;
		s->wirecap = cap;
	}
	/* Keep sorted by (due, seq): insert after every item due no later. */
	i = s->nwire;
	while (i > 0 && s->wire[i - 1].due > due)
		i--;
	memmove(&s->wire[i + 1], &s->wire[i], (s->nwire - i) * sizeof(s->wire[0]));
	s->wire[i] = (struct sim_wire_item){to, ifindex, due, s->wireseq++, p};
	s->nwire++;
}

void sim_run_wire(struct sim *s)
{
	unsigned budget = SIM_MAX_WIRE;

	while (s->nwire && s->wire[0].due <= s->now) {
		struct sim_wire_item it = s->wire[0];

		memmove(&s->wire[0], &s->wire[1], (s->nwire - 1) * sizeof(s->wire[0]));
		s->nwire--;
		if (!budget--) {
			fprintf(s->err,
				"sim: more than %u wire deliveries in one step; a forwarding "
				"loop? the rest is discarded\n",
				SIM_MAX_WIRE);
			pkt_free(it.pkt);
			continue;
		}
		sim_inject(it.to, it.ifindex, it.pkt);
	}
	if (s->nsynclinks)
		sim_sync_settle(s); /* the connections those packets made or changed */
}

void sim_clock_to(struct sim *s, uint64_t ns)
{
	s->now = ns;
	for (unsigned i = 0; i < s->nboxes; i++)
		if (box_now(s->boxes[i]->box) < ns)
			box_set_time(s->boxes[i]->box, ns);
	sim_run_wire(s);
}

void sim_set_now(struct sim *s, uint64_t ns)
{
	sim_sync_advance(s, ns);
	sim_clock_to(s, ns);
}

/* ---- box callbacks ----------------------------------------------------------------------- */

static void cb_xmit(void *user, struct box *b, int oif, struct pkt *p)
{
	struct sim_box *sb = user;
	const struct box_iface *ifc = box_iface(b, oif);
	struct sim_outcome *o;
	struct sim_link *l;
	char what[64];
	enum pkt_link have = sim_pkt_link(p);

	/* Frame it as the interface does, so captures and the next box see a real frame. */
	if (ifc)
		p = sim_frame(p, have, ifc->link, ifc->mac, ifc->peer_mac);
	if (!p)
		return;
	o = outcome_add(sb, SIM_OUT_XMIT);
	if (o) {
		o->ifindex = oif;
		o->generated = p->iif == 0;
	}
	snprintf(what, sizeof(what), "%s %s", o && o->generated ? "sent" : "out",
		 ifc ? ifc->name : "?");
	sim_event_line(sb, what, p);
	for (unsigned i = 0; i < sb->ncaps; i++)
		if (sb->caps[i].ifindex == oif && sb->caps[i].w) {
			struct pkt *c = pkt_clone(p);

			if (c) {
				c = sim_frame(c, sim_pkt_link(c), pcapio_writer_link(sb->caps[i].w),
					      ifc ? ifc->mac : NULL, ifc ? ifc->peer_mac : NULL);
				if (c) {
					pcapio_write(sb->caps[i].w, c, box_now(b));
					pkt_free(c);
				}
			}
		}
	l = oif > 0 && oif <= BOX_MAX_IFACES ? &sb->links[oif] : NULL;
	if (l && l->peer) {
		/* A fresh packet on the wire: no metadata crosses it but its time and number. */
		struct pkt *w = pkt_clone(p);

		if (w) {
			w->meta = (struct pkt_meta){.tstamp_ns = p->tstamp_ns, .id = p->id};
			wire_push(sb->sim, l->peer, l->peer_if, sb->sim->now + l->delay_ns, w);
		}
	}
	if (o) {
		/* The outcome keeps the packet itself (no copy): what a copy would be, a packet
		 * whose checksum nobody has verified. */
		p->l4_csum_verified = false;
		o->pkt = p;
		/* kept past the burst: a no-op for the simulator's own packets, a copy for one
		 * lent by a receive ring (pkt_keep) */
		pkt_keep(p);
	} else {
		pkt_free(p);
	}
}

static void cb_deliver(void *user, struct box *b, struct pkt *p)
{
	struct sim_box *sb = user;
	struct sim_outcome *o = outcome_add(sb, SIM_OUT_LOCAL);

	sim_event_line(sb, "local", p);
	if (o) {
		o->pkt = p;
		pkt_keep(p); /* as cb_xmit's */
	} else
		pkt_free(p);
}

static void cb_dropped(void *user, struct box *b, const struct pkt *p, const struct box_drop *why)
{
	struct sim_box *sb = user;
	struct sim_outcome *o = outcome_add(sb, SIM_OUT_DROP);
	char what[160], r[128];

	snprintf(what, sizeof(what), "drop %s", sim_drop_text(why, r, sizeof(r)));
	sim_event_line(sb, what, p);
	if (!o)
		return;
	o->why = *why;
	if (why->chain) {
		snprintf(o->chain, sizeof(o->chain), "%s", why->chain);
		o->why.chain = o->chain;
	}
	o->pkt = pkt_clone(p);
}

static void cb_log(void *user, struct box *b, int level, const char *line)
{
	struct sim_box *sb = user;
	struct sim_outcome *o = outcome_add(sb, SIM_OUT_LOG);

	if (o)
		o->line = strdup(line);
	if (!(sb->sim->flags & SIM_QUIET))
		fprintf(sb->sim->out, "  [%s] log %s\n", box_name(b), line);
}

/* -j NFLOG: the IP datagram into the group's captures, as nflog delivers it (no link header) */
static void cb_nflog(void *user, struct box *b, unsigned group, const char *prefix,
		     const struct pkt *p)
{
	struct sim_box *sb = user;
	uint8_t buf[PKT_MAX_LEN];
	uint32_t n = p->info.l3len;

	(void)prefix;
	if (n > sizeof(buf) || pkt_copy_out(p, p->info.l3off, buf, n) < 0)
		return;
	for (unsigned i = 0; i < sb->ncaps; i++)
		if (sb->caps[i].ifindex == SIM_CAP_NFLOG(group) && sb->caps[i].w)
			pcapio_write_bytes(sb->caps[i].w, buf, n, box_now(b));
}

static void cb_trace(void *user, struct box *b, const struct pkt *p, const char *line)
{
	struct sim_box *sb = user;
	struct sim_outcome *o = outcome_add(sb, SIM_OUT_TRACE);

	if (o)
		o->line = strdup(line);
	if (!(sb->sim->flags & SIM_QUIET))
		fprintf(sb->sim->out, "  [%s] %s%s\n", box_name(b),
			strncmp(line, "TRACE:", 6) ? "TRACE: " : "", line);
}

static int cb_queue(void *user, struct box *b, unsigned qnum, struct pkt *p, uint32_t *mark)
{
	struct sim_box *sb = user;
	struct sim_queue_handler *q = NULL;
	struct sim_outcome *o;
	char what[96];
	int v = EXT_DROP;

	for (unsigned i = 0; i < SIM_MAX_QUEUES; i++)
		if (sb->queues[i].used && sb->queues[i].num == qnum)
			q = &sb->queues[i];
	if (q) {
		v = q->verdict;
		if (q->set_mark)
			*mark = q->mark;
		q->count++;
	}
	o = outcome_add(sb, SIM_OUT_QUEUE);
	if (o) {
		o->qnum = qnum;
		o->verdict = v;
		o->pkt = pkt_clone(p);
	}
	snprintf(what, sizeof(what), "queue %u -> %s%s", qnum,
		 !q		   ? "drop (no handler)"
		 : v == EXT_ACCEPT ? "accept"
		 : v == EXT_REPEAT ? "repeat"
				   : "drop",
		 q && q->set_mark ? " mark" : "");
	sim_event_line(sb, what, p);
	return v;
}

static const struct box_ops sim_ops = {
    .xmit = cb_xmit,
    .deliver = cb_deliver,
    .dropped = cb_dropped,
    .log = cb_log,
    .nflog = cb_nflog,
    .trace = cb_trace,
    .queue = cb_queue,
};

/* Replay has no NFQUEUE listener: the box applies its own rule (drop unless --queue-bypass). */
static const struct box_ops replay_ops = {
    .xmit = cb_xmit,
    .deliver = cb_deliver,
    .dropped = cb_dropped,
    .log = cb_log,
    .nflog = cb_nflog,
    .trace = cb_trace,
    .queue = NULL,
};

/* ---- boxes ------------------------------------------------------------------------------- */

struct sim_box *sim_box_find(struct sim *s, const char *name)
{
	for (unsigned i = 0; i < s->nboxes; i++)
		if (!strcmp(box_name(s->boxes[i]->box), name))
			return s->boxes[i];
	return NULL;
}

struct sim_box *sim_box_new(struct sim *s, const char *name)
{
	struct sim_box *sb;

	if (s->nboxes == SIM_MAX_BOXES)
		return NULL;
	sb = calloc(1, sizeof(*sb));
	if (!sb)
		return NULL;
	sb->sim = s;
	sb->box = box_new(name, (s->flags & SIM_REPLAY) ? &replay_ops : &sim_ops, sb);
	if (sb->box)
		box_set_classifier(sb->box, s->cls_mode, NULL);
	if (!sb->box) {
		free(sb);
		return NULL;
	}
	box_set_time(sb->box, s->now);
	box_set_trace_all(sb->box, s->trace);
	s->boxes[s->nboxes++] = sb;
	return sb;
}

static void sim_box_free(struct sim_box *sb)
{
	sim_box_clear_outcomes(sb);
	free(sb->out);
	for (unsigned i = 0; i < sb->ncaps; i++)
		pcapio_finish(sb->caps[i].w);
	ctl_server_free(sb->ctl); /* before the box it serves */
	box_free(sb->box);
	free(sb);
}

int sim_inject(struct sim_box *sb, int ifindex, struct pkt *p)
{
	const struct box_iface *ifc = box_iface(sb->box, ifindex);
	char what[64];

	if (!ifc || sb->dead) {
		if (ifc)
			sim_event_line(sb, "dead: lost a packet", NULL);
		pkt_free(p);
		return ifc ? 0 : -ENOENT;
	}
	p = sim_frame(p, sim_pkt_link(p), ifc->link, ifc->peer_mac, ifc->mac);
	if (!p)
		return -ENOMEM;
	if (!p->info.family && !p->info.bad)
		pkt_parse(p, ifc->link, false); /* for the event line; the box parses it again */
	if (!p->tstamp_ns)
		p->tstamp_ns = sb->sim->now;
	snprintf(what, sizeof(what), "in %s", ifc->name);
	sim_event_line(sb, what, p);
	return box_receive(sb->box, ifindex, p);
}

int sim_send(struct sim_box *sb, struct pkt *p)
{
	if (sb->dead) {
		pkt_free(p);
		return -EHOSTDOWN;
	}
	if (!p->tstamp_ns)
		p->tstamp_ns = sb->sim->now;
	sim_event_line(sb, "send", p);
	return box_output(sb->box, p);
}

/* ---- the simulation ---------------------------------------------------------------------- */

struct sim *sim_new(FILE *out, FILE *err, unsigned flags)
{
	struct sim *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->out = out;
	s->err = err;
	s->flags = flags;
	return s;
}

void sim_reset(struct sim *s)
{
	sim_sync_reset(s); /* sync instances before the conntrack tables they watch */
	for (unsigned i = 0; i < s->nboxes; i++)
		sim_box_free(s->boxes[i]);
	s->nboxes = 0;
	s->cur = NULL;
	for (unsigned i = 0; i < s->nwire; i++)
		pkt_free(s->wire[i].pkt);
	s->nwire = 0;
	s->now = 0;
	s->trace = false;
}

void sim_free(struct sim *s)
{
	if (!s)
		return;
	sim_reset(s);
	if (s->tmpdir[0]) {
		DIR *d = opendir(s->tmpdir);
		struct dirent *e;
		char p[PATH_MAX + 256];

		while (d && (e = readdir(d)))
			if (e->d_name[0] != '.') {
				snprintf(p, sizeof(p), "%s/%s", s->tmpdir, e->d_name);
				unlink(p);
			}
		if (d)
			closedir(d);
		rmdir(s->tmpdir);
	}
	free(s->wire);
	free(s->heredoc_buf);
	free(s);
}

void sim_set_dir(struct sim *s, const char *dir)
{
	snprintf(s->dir, sizeof(s->dir), "%s", dir ? dir : "");
}

void sim_path(struct sim *s, const char *path, char *out, size_t len)
{
	/* @tmp/NAME: a directory of this simulation, removed when it ends (captures a test
	 * writes and reads back). */
	if (!strncmp(path, "@tmp/", 5)) {
		if (!s->tmpdir[0]) {
			const char *t = getenv("TMPDIR");

			snprintf(s->tmpdir, sizeof(s->tmpdir), "%s/pkttables-sim.XXXXXX",
				 t && *t ? t : "/tmp");
			if (!mkdtemp(s->tmpdir))
				s->tmpdir[0] = '\0';
		}
		snprintf(out, len, "%s/%s", s->tmpdir[0] ? s->tmpdir : "/tmp", path + 5);
		return;
	}
	if (path[0] == '/' || !s->dir[0])
		snprintf(out, len, "%s", path);
	else
		snprintf(out, len, "%s/%s", s->dir, path);
}

bool sim_in_heredoc(const struct sim *s)
{
	return s->in_heredoc;
}

/* ---- text -------------------------------------------------------------------------------- */

const char *sim_pkt_text(const struct pkt *p, char *buf, size_t len)
{
	char *r, *w;

	if (pkt_spec_format(p, buf, len) < 0) {
		snprintf(buf, len, "? len=%u", p->len);
		return buf;
	}
	/* Every frame of an Ethernet interface carries MACs; they are noise in a verdict line.
	 * (Patterns still see them: sim_pkt_matches uses the full text.) */
	for (r = w = buf; *r;) {
		size_t n = strcspn(r, " ");

		if ((n > 5 && (!strncmp(r, "smac=", 5) || !strncmp(r, "dmac=", 5))) ||
		    (n == 3 && !strncmp(r, "eth", 3))) {
			r += n;
			r += strspn(r, " ");
			continue;
		}
		if (w != buf)
			*w++ = ' ';
		memmove(w, r, n);
		w += n;
		r += n;
		r += strspn(r, " ");
	}
	*w = '\0';
	return buf;
}

const char *sim_pkt_text_full(const struct pkt *p, char *buf, size_t len)
{
	if (pkt_spec_format(p, buf, len) < 0)
		snprintf(buf, len, "? len=%u", p->len);
	return buf;
}

const char *sim_drop_text(const struct box_drop *d, char *buf, size_t len)
{
	const char *table = d->table >= 0 ? rules_table_name((unsigned)d->table) : NULL;
	const char *chain = d->chain ? d->chain : "";

	switch (d->kind) {
	case BOX_DROP_RULE:
		snprintf(buf, len, "%s:%s:%u", table ? table : "?", chain, d->rulenum);
		break;
	case BOX_DROP_POLICY:
		snprintf(buf, len, "policy %s:%s", table ? table : "?", chain);
		break;
	case BOX_DROP_MALFORMED:
		snprintf(buf, len, "malformed (%s)", pkt_bad_name(d->bad));
		break;
	case BOX_DROP_DEFRAG:
		snprintf(buf, len, "defrag (%s)",
			 d->reason < CT_DEFRAG_ST_MAX ? ct_defrag_stat_name(d->reason) : "desync");
		break;
	case BOX_DROP_HOTDROP:
	case BOX_DROP_QUEUE:
		if (table && d->chain)
			snprintf(buf, len, "%s %s:%s:%u", box_drop_kind_name(d->kind), table, chain,
				 d->rulenum);
		else
			snprintf(buf, len, "%s", box_drop_kind_name(d->kind));
		break;
	default:
		snprintf(buf, len, "%s", box_drop_kind_name(d->kind));
		break;
	}
	return buf;
}

/* ---- framing ----------------------------------------------------------------------------- */

enum pkt_link sim_pkt_link(const struct pkt *p)
{
	uint8_t b[2];

	/* A parsed packet says where its IP header starts: past an Ethernet header or at 0. */
	if (p->info.family)
		return p->info.l3off >= 14 ? PKT_LINK_ETHERNET : PKT_LINK_RAW;
	/* Unparsed: an IP version nibble at byte 0 means raw IP. */
	if (pkt_copy_out(p, 0, b, 1) == 0 && (b[0] >> 4 == 4 || b[0] >> 4 == 6))
		return PKT_LINK_RAW;
	return p->len >= 14 ? PKT_LINK_ETHERNET : PKT_LINK_RAW;
}

struct pkt *sim_frame(struct pkt *p, enum pkt_link have, enum pkt_link want, const uint8_t src[6],
		      const uint8_t dst[6])
{
	struct pkt *n;

	if (!p || have == want)
		return p;
	n = pkt_reframe(p, have, want, src, dst);
	pkt_free(p);
	return n;
}

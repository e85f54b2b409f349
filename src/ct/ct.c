// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Conntrack per packet: classify (ct_in), confirm, release; the entry accessors.
 *
 * ct_in, as nf_conntrack_in does it:
 *   untracked / already attached (looped back) -> leave alone
 *   not IP, malformed, fragment                -> INVALID (no defragmentation yet)
 *   tracker's error()                          -> INVALID, or handled (ICMP error: RELATED)
 *   tuple -> lookup -> none: new unconfirmed entry (tracker's new_conn may refuse: INVALID)
 *   ctinfo: reply direction ESTABLISHED_REPLY, seen a reply ESTABLISHED, else NEW
 *   tracker's packet(): INVALID / REPEAT (killed: look up again) / ACCEPT
 *   accounting, SEEN_REPLY, attach to the packet
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ct/ct_int.h"
#include "ct/helper.h"
#include "ct/labels.h"
#include "ct/prefetch.h"
#include "ct/proto_udp.h"
#include "ct/tstamp.h"

void ct_config_default(struct ct_config *c)
{
	struct ct_timeouts *to = &c->timeouts;

	memset(c, 0, sizeof(*c));
	c->max_entries = 65536;
	c->seed[0] = 0x0123456789abcdefull;
	c->seed[1] = 0xfedcba9876543210ull;
	c->tcp_loose = true;
	c->tcp_max_retrans = 3;
	c->checksum = true;
	/* Linux's defaults (nf_conntrack_proto_*.c, 6.x) */
	to->tcp[CT_TCP_NONE] = 0;
	to->tcp[CT_TCP_SYN_SENT] = 120 * CT_SEC;
	to->tcp[CT_TCP_SYN_RECV] = 60 * CT_SEC;
	to->tcp[CT_TCP_ESTABLISHED] = 5ull * 24 * 3600 * CT_SEC;
	to->tcp[CT_TCP_FIN_WAIT] = 120 * CT_SEC;
	to->tcp[CT_TCP_CLOSE_WAIT] = 60 * CT_SEC;
	to->tcp[CT_TCP_LAST_ACK] = 30 * CT_SEC;
	to->tcp[CT_TCP_TIME_WAIT] = 120 * CT_SEC;
	to->tcp[CT_TCP_CLOSE] = 10 * CT_SEC;
	to->tcp[CT_TCP_SYN_SENT2] = 120 * CT_SEC;
	to->tcp[CT_TCP_RETRANS] = 300 * CT_SEC;
	to->tcp[CT_TCP_UNACK] = 300 * CT_SEC;
	to->udp_unreplied = 30 * CT_SEC;
	to->udp_replied = 120 * CT_SEC;
	to->icmp = 30 * CT_SEC;
	to->icmpv6 = 30 * CT_SEC;
	to->generic = 600 * CT_SEC;
	to->sctp[CT_SCTP_NONE] = 10 * CT_SEC; /* the kernel's "new" slot: as CLOSED */
	to->sctp[CT_SCTP_CLOSED] = 10 * CT_SEC;
	to->sctp[CT_SCTP_COOKIE_WAIT] = 3 * CT_SEC;
	to->sctp[CT_SCTP_COOKIE_ECHOED] = 3 * CT_SEC;
	to->sctp[CT_SCTP_ESTABLISHED] = 210 * CT_SEC;
	to->sctp[CT_SCTP_SHUTDOWN_SENT] = 3 * CT_SEC;
	to->sctp[CT_SCTP_SHUTDOWN_RECD] = 3 * CT_SEC;
	to->sctp[CT_SCTP_SHUTDOWN_ACK_SENT] = 3 * CT_SEC;
	to->sctp[CT_SCTP_HEARTBEAT_SENT] = 30 * CT_SEC;
	c->dccp_loose = true;
	to->dccp[CT_DCCP_REQUEST] = 240 * CT_SEC; /* 2 MSL */
	to->dccp[CT_DCCP_RESPOND] = 480 * CT_SEC; /* 4 MSL */
	to->dccp[CT_DCCP_PARTOPEN] = 480 * CT_SEC;
	to->dccp[CT_DCCP_OPEN] = 12ull * 3600 * CT_SEC;
	to->dccp[CT_DCCP_CLOSEREQ] = 64 * CT_SEC;
	to->dccp[CT_DCCP_CLOSING] = 64 * CT_SEC;
	to->dccp[CT_DCCP_TIMEWAIT] = 240 * CT_SEC;
	to->gre_unreplied = 30 * CT_SEC;
	to->gre_replied = 180 * CT_SEC;
}

void ct_set_status_change(struct ct_table *t, struct ct_entry *e, uint32_t bits, uint32_t ev)
{
	e->status |= bits;
	ct_event_cache(e, ev);
	/* an assured entry is no longer a candidate for eviction */
	if ((bits & CT_S_ASSURED) && e->list == CT_LIST_UNASSURED) {
		ct_list_del(t, e);
		ct_list_add_tail(t, e, CT_LIST_ASSURED);
	}
}

static void set_invalid(struct ct_table *t, struct pkt *p)
{
	t->stats.invalid++;
	p->ct = NULL;
	p->ctinfo = 0;
}

void ct_pkt_set_untracked(struct pkt *p)
{
	p->ct = NULL;
	p->ctinfo = (p->ctinfo & ~CT_INFO_MASK) | CT_UNTRACKED;
}

void ct_pkt_set_zone(struct pkt *p, uint16_t zone)
{
	p->ctinfo = (p->ctinfo & ((1u << CT_INFO_ZONE_SHIFT) - 1)) | (uint32_t)zone
									 << CT_INFO_ZONE_SHIFT;
}

/* A new unconfirmed entry for the packet's tuple, or NULL (errno ENOMEM: table full). */
static struct ct_entry *entry_new(struct ct_table *t, const struct ct_tuple *orig, uint32_t hash,
				  const struct ct_proto_ops *ops)
{
	struct ct_entry *e;

	if (t->stats.count >= t->cfg.max_entries && !ct_early_drop(t)) {
		errno = ENOMEM;
		return NULL;
	}
	e = ct_entry_alloc();
	if (!e)
		return NULL;
	e->th[0].tuple = *orig;
	e->th[0].hash = hash; /* the lookup's: ct_confirm links with it */
	e->th[0].dir = CT_DIR_ORIGINAL;
	e->th[1].dir = CT_DIR_REPLY;
	if (ct_tuple_invert(orig, &e->th[1].tuple) < 0) {
		free(e);
		errno = EINVAL;
		return NULL;
	}
	e->ops = ops;
	e->id = t->next_id++;
	e->use = 0; /* ct_pkt_attach takes the packet's reference */
	ct_labels_new(t, e);
	ct_tstamp_new(t, e);
	ct_list_add_tail(t, e, CT_LIST_UNCONFIRMED);
	t->stats.unconfirmed++;
	return e;
}

/* Accounting (CT_EXT_ACCT), for an entry with the extension or a table that counts: the caller
 * tests that, so that the common entry costs a test or two. */
static __attribute__((noinline)) void account(struct ct_table *t, struct ct_entry *e,
					      const struct pkt *p, enum ct_dir d)
{
	struct ct_acct *a = ct_ext_get(e, CT_EXT_ACCT);

	if (!a && t->cfg.acct && !(e->status & CT_S_CONFIRMED))
		a = ct_ext_add(t, e, CT_EXT_ACCT);
	if (!a)
		return;
	a->dir[d].packets++;
	a->dir[d].bytes += p->info.l3len;
}

/* CT --timeout: the new entry keeps a pointer to its policy (for a connection of the policy's
 * protocol; the rule's -p guarantees it when the rule was checked against the table). */
static void attach_timeout(struct ct_table *t, struct ct_entry *e, const struct pkt *p)
{
	int id = (int)((p->ctinfo & CT_INFO_TIMEOUT_MASK) >> CT_INFO_TIMEOUT_SHIFT);
	const struct ct_timeout_policy *pol = ct_timeout_policy_get(t, id);
	struct ct_timeout_ext *x;

	if (!pol)
		return;
	if (pol->l4proto != e->th[0].tuple.l4proto &&
	    !(pol->l4proto == 255 && e->ops == &ct_proto_generic))
		return;
	x = ct_ext_add(t, e, CT_EXT_TIMEOUT);
	if (x)
		x->policy = pol; /* on ENOMEM the entry keeps the table's timeouts */
}

void ct_pkt_set_timeout(struct pkt *p, int id)
{
	if (id < 0 || id > CT_TIMEOUT_POLICY_MAX)
		id = 0;
	p->ctinfo = (p->ctinfo & ~CT_INFO_TIMEOUT_MASK) | (uint32_t)id << CT_INFO_TIMEOUT_SHIFT;
}

const struct ct_timeout_policy *ct_entry_timeout_policy(const struct ct_entry *e)
{
	const struct ct_timeout_ext *x = ct_ext_find(e, CT_EXT_TIMEOUT);

	return x ? x->policy : NULL;
}

/* ct_in and ct_in_hinted: one body, inline in both, so that ct_in (cb NULL) has no hint to
 * test and no extra call */
static inline __attribute__((always_inline)) int track(struct ct_table *t, struct pkt *p,
						       bool from_outside, uint16_t zone,
						       uint64_t now, struct ct_burst *cb, int idx)
{
	const struct pkt_info *in = &p->info;
	const struct ct_proto_ops *ops;
	struct ct_tuple tuple;
	struct ct_entry *e;
	enum ct_dir dir = CT_DIR_ORIGINAL;
	unsigned ctinfo;
	uint32_t hash;
	int r, tries = 0;

	if (p->ct || (p->ctinfo & CT_INFO_MASK) == CT_UNTRACKED)
		return 0;
	if (!zone)
		zone = (uint16_t)(p->ctinfo >> CT_INFO_ZONE_SHIFT);
	if ((in->family != AF_INET && in->family != AF_INET6) || in->bad != PKT_OK ||
	    in->is_fragment) {
		set_invalid(t, p);
		return 0;
	}
	ops = ct_proto_find(in->l4proto);
	/* UDP's own functions called directly (its ops hold the same), the others' through ops */
	if (ops == &ct_proto_udp || ops->error) {
		r = ops == &ct_proto_udp ? ct_udp_error(t, p, from_outside)
					 : ops->error(t, p, from_outside, zone, now);
		if (r < 0) {
			set_invalid(t, p);
			return 0;
		}
		if (r > 0)
			return 0;
	}
	/* (the family is IPv4 or IPv6: tested above) */
	if (!ct_tuple_from_ports_ip(in, zone, &tuple) && ct_tuple_from_pkt(p, zone, &tuple) < 0) {
		set_invalid(t, p);
		return 0;
	}
	/* a burst's hint (ct_in_hinted), or hashed */
	hash = cb ? ct_burst_hash(t, cb, idx, p, &tuple) : (uint32_t)ct_hash_tuple(t, &tuple);
again:
	e = ct_find_hashed(t, &tuple, hash, now, &dir);
	if (!e) {
		e = entry_new(t, &tuple, hash, ops);
		if (!e) {
			if (errno == ENOMEM) {
				t->stats.drop++;
				p->ct = NULL;
				p->ctinfo = 0;
				return -ENOMEM;
			}
			set_invalid(t, p);
			return 0;
		}
		if (!ops->new_conn(t, e, p, now)) {
			ct_list_del(t, e);
			free(e);
			set_invalid(t, p);
			return 0;
		}
		t->stats.new ++;
		attach_timeout(t, e, p);
		dir = CT_DIR_ORIGINAL;
		/* expected by a helper: RELATED, master linked (or the helper CT asked for) */
		ctinfo = ct_helper_new_entry(t, e, p, now) ? CT_RELATED : CT_NEW;
	} else {
		t->stats.found++;
		if (dir == CT_DIR_REPLY)
			ctinfo = CT_ESTABLISHED_REPLY;
		else if (e->status & CT_S_SEEN_REPLY)
			ctinfo = CT_ESTABLISHED;
		else if (e->status & CT_S_EXPECTED)
			ctinfo = CT_RELATED;
		else
			ctinfo = CT_NEW;
	}
	/* hold the entry while the tracker may kill it */
	ct_pkt_attach(p, e, ctinfo);
	/* e->ops is ops: the tracker of the tuple's protocol, which is the packet's */
	switch (ops == &ct_proto_udp ? ct_udp_packet(t, e, now) : ops->packet(t, e, p, dir, now)) {
	case CT_ACCEPT:
		break;
	case CT_REPEAT:
		ct_pkt_release(t, p);
		if (++tries < 2) {
			t->stats.search_restart++;
			goto again;
		}
		set_invalid(t, p);
		return 0;
	case CT_INVALID:
	default:
		ct_pkt_release(t, p);
		set_invalid(t, p);
		return 0;
	}
	if (t->cfg.acct || (e->ext && e->ext->off[CT_EXT_ACCT]))
		account(t, e, p, dir);
	if (ctinfo == CT_ESTABLISHED_REPLY)
		ct_set_status(t, e, CT_S_SEEN_REPLY, CT_EV_REPLY);
	return 0;
}

int ct_in(struct ct_table *t, struct pkt *p, bool from_outside, uint16_t zone, uint64_t now)
{
	return track(t, p, from_outside, zone, now, NULL, -1);
}

int ct_in_hinted(struct ct_table *t, struct pkt *p, bool from_outside, uint16_t zone, uint64_t now,
		 struct ct_burst *cb, int idx)
{
	return track(t, p, from_outside, zone, now, cb, idx);
}

/* ct_confirm past its first test: a packet of an unconfirmed entry, or events to deliver. */
static __attribute__((noinline)) int confirm(struct ct_table *t, struct pkt *p, uint64_t now)
{
	struct ct_entry *e = p->ct, *other;

	if (e->status & CT_S_CONFIRMED) {
		uint32_t ev = e->events;

		e->events = 0;
		if (ev && !(e->status & CT_S_DYING))
			ct_deliver_events(t, e, ev, CT_GONE_KILLED);
		return 0;
	}
	if (e->status & CT_S_DYING) {
		/* killed before it was ever inserted: the packet goes on untracked */
		ct_pkt_release(t, p);
		p->ct = NULL;
		return 0;
	}
	/* A packet of the same connection confirmed first (a queued packet reinjected late):
	 * keep that one, as the kernel's clash resolution does for UDP. */
	/* th[0].hash is the lookup's (entry_new); the reply tuple may have changed since (NAT) */
	e->th[1].hash = (uint32_t)ct_hash_tuple(t, &e->th[1].tuple);
	other = ct_find_hashed(t, &e->th[0].tuple, e->th[0].hash, now, NULL);
	if (!other)
		other = ct_find_hashed(t, &e->th[1].tuple, e->th[1].hash, now, NULL);
	if (other) {
		unsigned ctinfo = p->ctinfo & CT_INFO_MASK;

		t->stats.clash++;
		ct_pkt_release(t, p);
		ct_pkt_attach(p, other, ctinfo);
		return -EEXIST;
	}
	if (t->stats.count >= t->cfg.max_entries && !ct_early_drop(t)) {
		t->stats.insert_failed++;
		ct_pkt_release(t, p);
		p->ct = NULL;
		p->ctinfo = 0;
		return -ENOMEM;
	}
	ct_list_del(t, e);
	ct_hash_link(t, e);
	ct_list_add_tail(t, e, (e->status & CT_S_ASSURED) ? CT_LIST_ASSURED : CT_LIST_UNASSURED);
	e->status |= CT_S_CONFIRMED;
	ct_tstamp_start(e, now);
	e->use++; /* the table's reference */
	t->stats.count++;
	t->stats.insert++;
	{
		uint32_t ev = e->events | CT_EV_NEW;

		e->events = 0;
		ct_deliver_events(t, e, ev, CT_GONE_KILLED);
	}
	return 0;
}

int ct_confirm(struct ct_table *t, struct pkt *p, uint64_t now)
{
	const struct ct_entry *e = p->ct;

	/* no entry; a confirmed connection's packet with no event to deliver: nothing to do */
	if (!e || ((e->status & CT_S_CONFIRMED) && !e->events))
		return 0;
	return confirm(t, p, now);
}

void ct_pkt_release(struct ct_table *t, struct pkt *p)
{
	ct_pkt_put(t, p);
}

/* ---- accessors --------------------------------------------------------------------------- */

const struct ct_tuple *ct_entry_tuple(const struct ct_entry *e, enum ct_dir dir)
{
	return &e->th[dir].tuple;
}

uint32_t ct_entry_status(const struct ct_entry *e)
{
	return e->status;
}

uint32_t ct_entry_mark(const struct ct_entry *e)
{
	return e->mark;
}

void ct_entry_set_mark(struct ct_entry *e, uint32_t mark)
{
	if (e->mark == mark)
		return;
	e->mark = mark;
	ct_event_cache(e, CT_EV_MARK);
}

uint16_t ct_entry_zone(const struct ct_entry *e)
{
	return e->th[0].tuple.zone;
}

uint64_t ct_entry_id(const struct ct_entry *e)
{
	return e->id;
}

uint64_t ct_entry_expires_in(const struct ct_entry *e, uint64_t now)
{
	return e->expires > now ? e->expires - now : 0;
}

const char *ct_entry_proto_state(const struct ct_entry *e)
{
	return e->ops->state_name ? e->ops->state_name(e) : NULL;
}

enum ct_tcp_state ct_entry_tcp_state(const struct ct_entry *e)
{
	return e->ops == &ct_proto_tcp ? (enum ct_tcp_state)e->proto.tcp.state : CT_TCP_NONE;
}

unsigned ct_entry_use(const struct ct_entry *e)
{
	return e->use;
}

bool ct_entry_counters(const struct ct_entry *e, enum ct_dir dir, uint64_t *packets,
		       uint64_t *bytes)
{
	const struct ct_acct *a = ct_ext_find(e, CT_EXT_ACCT);

	if (!a)
		return false;
	*packets = a->dir[dir].packets;
	*bytes = a->dir[dir].bytes;
	return true;
}

bool ct_entry_zero_counters(struct ct_entry *e)
{
	struct ct_acct *a = ct_ext_find(e, CT_EXT_ACCT);

	if (!a)
		return false;
	memset(a->dir, 0, sizeof(a->dir));
	return true;
}

void ct_entry_set_tcp_liberal(struct ct_entry *e, bool on)
{
	if (e->ops != &ct_proto_tcp)
		return;
	for (int d = 0; d < 2; d++) {
		if (on)
			e->proto.tcp.seen[d].flags |= CT_TCPF_BE_LIBERAL;
		else
			e->proto.tcp.seen[d].flags &= ~CT_TCPF_BE_LIBERAL;
	}
}

void ct_entry_set_tcp_pickup(struct ct_entry *e, const uint8_t *wscale)
{
	struct ct_tcp *tc = &e->proto.tcp;

	if (e->ops != &ct_proto_tcp)
		return;
	for (int d = 0; d < 2; d++) {
		tc->seen[d].td_end = tc->seen[d].td_maxend = 0;
		tc->seen[d].td_maxwin = tc->seen[d].td_maxack = 0;
		tc->seen[d].flags |= CT_TCPF_BE_LIBERAL;
		if (wscale) {
			tc->seen[d].td_scale = wscale[d] <= 14 ? wscale[d] : 14;
			tc->seen[d].flags |= CT_TCPF_WINDOW_SCALE;
		}
	}
	/* without the scale factors a window read from a segment is too small by up to 2^14:
	 * checking it would refuse most of the stream, so such an entry stays liberal */
	tc->pickup = wscale ? CT_PICKUP_ON : 0;
}

bool ct_entry_tcp_wscale(const struct ct_entry *e, uint8_t wscale[2])
{
	if (e->ops != &ct_proto_tcp)
		return false;
	for (int d = 0; d < 2; d++)
		wscale[d] = e->proto.tcp.seen[d].td_scale;
	return true;
}

size_t ct_entry_size(void)
{
	return sizeof(struct ct_entry);
}

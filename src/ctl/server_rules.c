// SPDX-License-Identifier: GPL-2.0-or-later
/* The control socket server: rulesets, recent lists, the classifier, sync and sets (server_int.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netfilter.h>

#include "classify/ruleset.h"
#include "ctl/server_int.h"
#include "plugins/load.h"
#include "plugins/recent_plugin.h"
#include "set/set_cmd.h"
#include "set/set_plugin.h"

/* ---- requests: rulesets ------------------------------------------------------------------ */

static void restore_forget(struct client *c)
{
	c->srv->restore_held -= c->rcap;
	free(c->rtext);
	c->rtext = NULL;
	c->rlen = c->rcap = 0;
}

/*
 * Append this message's text to the client's pending restore (CTL_RF_MORE before, or now).
 * The memory of all clients' pending texts together stays within cfg.max_restore. 0, or an
 * error has been sent and the pending text dropped.
 */
static int restore_append(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
			  const struct ctl_request *req)
{
	size_t need = c->rlen + req->text_len + 1, cap = c->rcap ? c->rcap : 1u << 20;
	char *nt;

	if (c->rtext && req->family != c->rfamily) {
		restore_forget(c);
		ctl_srv_reply_error(c, nlh, -EINVAL,
				    "RULES_REPLACE: family %u continues a restore of %u",
				    req->family, c->rfamily);
		return -EINVAL;
	}
	while (cap < need)
		cap *= 2;
	if (cap > c->rcap && s->restore_held - c->rcap + cap > s->cfg.max_restore)
		cap = need; /* doubling would pass the bound: exactly what is needed */
	if (cap > c->rcap && s->restore_held - c->rcap + cap > s->cfg.max_restore) {
		restore_forget(c);
		ctl_srv_reply_error(
		    c, nlh, -EFBIG,
		    "ruleset text of more than %zu bytes (the server's max_restore, "
		    "all clients together)",
		    s->cfg.max_restore);
		return -EFBIG;
	}
	if (cap > c->rcap) {
		if (!(nt = realloc(c->rtext, cap))) {
			restore_forget(c);
			ctl_srv_reply_error(c, nlh, -ENOMEM, "no memory for the ruleset text");
			return -ENOMEM;
		}
		s->restore_held += cap - c->rcap;
		c->rtext = nt;
		c->rcap = cap;
	}
	c->rfamily = req->family;
	ctl_copy_text(nlh, c->rtext + c->rlen);
	c->rlen += req->text_len;
	c->rtext[c->rlen] = '\0';
	return 0;
}

/*
 * The text of a request that may come in several messages (CTL_RF_MORE on all but the last):
 * 1 when there is nothing to run yet (a part held and acknowledged, or an error sent); else 0
 * with *text (malloc'ed, NUL-terminated; NULL when the request has none and `empty_ok`) and *len.
 */
static int restore_take(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
			const struct ctl_request *req, const char *what, bool empty_ok, char **text,
			size_t *len)
{
	*text = NULL;
	*len = 0;
	if (req->rflags & CTL_RF_MORE) { /* held until the message without it */
		if (!restore_append(s, c, nlh, req))
			ctl_srv_send_ack(c, nlh);
		return 1;
	}
	if (c->rtext) { /* the last part of a text in several messages */
		if (restore_append(s, c, nlh, req))
			return 1;
		*text = c->rtext;
		*len = c->rlen;
		c->rtext = NULL;
		s->restore_held -= c->rcap;
		c->rlen = c->rcap = 0;
		return 0;
	}
	if (empty_ok && !req->text_len)
		return 0;
	if (!(*text = malloc(req->text_len + 1))) {
		ctl_srv_reply_error(c, nlh, -ENOMEM, "no memory for the %s", what);
		return 1;
	}
	ctl_copy_text(nlh, *text);
	*len = req->text_len;
	(*text)[*len] = '\0';
	return 0;
}

static void do_replace(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
		       const struct ctl_request *req)
{
	const char *name = req->name ? req->name : "<control socket>";
	struct box_load l = {0};
	struct box_load_error le;
	struct ctl_error err;
	unsigned flags = 0;
	char *text;
	size_t len;
	int r;

	if (restore_take(s, c, nlh, req, "ruleset text", false, &text, &len))
		return;
	if (req->rflags & CTL_RF_NOFLUSH)
		flags |= RULES_PARSE_NOFLUSH;
	r = box_load_parse(s->box, &l, text, len, name, req->family, flags, &le);
	free(text);
	if (r < 0) {
		box_load_free(&l);
		memset(&err, 0, sizeof(err));
		err.code = r;
		err.line = le.parse.line;
		box_load_error_format(&le, err.msg, sizeof(err.msg));
		ctl_srv_send_error(c, nlh, &err);
		return;
	}
	if (box_load_check(s->box, &l, &le) < 0) { /* refused as at a load from a file */
		box_load_free(&l);
		if (le.refused[0]) { /* CT --timeout names no policy of this box */
			ctl_srv_reply_error(c, nlh, -EINVAL, "%s: %s", name, le.refused);
			return;
		}
		memset(&err, 0, sizeof(err)); /* -m set / -j SET names no set of it */
		err.code = -EINVAL;
		err.line = le.parse.line;
		box_load_error_format(&le, err.msg, sizeof(err.msg));
		ctl_srv_send_error(c, nlh, &err);
		return;
	}
	if (!(req->rflags & CTL_RF_COUNTERS))
		for (int i = 0; i < 2; i++)
			if (l.rs[i])
				rules_zero_counters(l.rs[i]); /* iptables-restore without -c */
	box_load_install(s->box, &l);
	ctl_srv_send_ack(c, nlh);
}

/* Text as NLM_F_MULTI messages of TEXT_CHUNK bytes each in attribute `attr`. */
static void send_chunks(struct client *c, const struct ctl_request *req, uint16_t attr,
			const char *text, size_t len)
{
	for (size_t off = 0; off < len; off += TEXT_CHUNK) {
		size_t n = len - off < TEXT_CHUNK ? len - off : TEXT_CHUNK, room;
		void *p = ctl_srv_out_room(c, n + 64, &room);
		struct nlmsghdr *m;

		if (!p ||
		    !(m = ctl_msg_start(p, room, req->type, NLM_F_MULTI, req->seq, req->family,
					false)) ||
		    !mnl_attr_put_check(m, room, attr, n, text + off))
			break;
		ctl_srv_out_commit(c, m);
	}
}

/* Text as CTL_RA_TEXT messages of TEXT_CHUNK bytes, then NLMSG_DONE. */
static void send_text(struct client *c, const struct ctl_request *req, const char *text, size_t len)
{
	send_chunks(c, req, CTL_RA_TEXT, text, len);
	ctl_srv_send_done(c, req->seq);
}

/*
 * RULES_RECENT: with CTL_RA_TEXT, write it to list CTL_RA_LIST as to /proc/net/xt_recent/NAME
 * ("+ADDR", "-ADDR", "/") and ACK; without, the list's lines (or, without CTL_RA_LIST, the
 * lists' names) as text.
 */
static void do_recent(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
		      const struct ctl_request *req)
{
	char cmd[128], msg[256];
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	if (req->text_first) {
		if (req->text_len >= sizeof(cmd)) {
			ctl_srv_reply_error(c, nlh, -EINVAL, "CTL_RA_TEXT: a command of %zu bytes",
					    req->text_len);
			return;
		}
		ctl_copy_text(nlh, cmd);
		cmd[req->text_len] = '\0';
		cmd[strcspn(cmd, "\n")] = '\0';
		rc = recent_box_write(s->box, req->list, cmd, msg, sizeof(msg));
		if (rc < 0)
			ctl_srv_reply_error(c, nlh, rc, "recent %s: %s", req->list, msg);
		else
			ctl_srv_send_ack(c, nlh);
		return;
	}
	if (!(f = open_memstream(&text, &len))) {
		ctl_srv_reply_error(c, nlh, -ENOMEM, "no memory to print the list");
		return;
	}
	rc = recent_box_print(s->box, req->list, f);
	fclose(f);
	if (rc < 0)
		ctl_srv_reply_error(c, nlh, rc, "CTL_RA_LIST: no recent list '%s'", req->list);
	else
		send_text(c, req, text, len);
	free(text);
}

static void do_dump_rules(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
			  const struct ctl_request *req)
{
	struct rules_ruleset *rs = box_ruleset(s->box, req->family);
	unsigned flags = 0;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (rs) {
		if (req->rflags & CTL_RF_COUNTERS)
			flags |= RULES_PRINT_COUNTERS;
		if (req->rflags & CTL_RF_HEADER)
			flags |= RULES_PRINT_HEADER;
		if (!(f = open_memstream(&text, &len))) {
			ctl_srv_reply_error(c, nlh, -ENOMEM, "no memory to print the ruleset");
			return;
		}
		rules_print(rs, f, flags);
		fclose(f);
	}
	send_text(c, req, text, len);
	free(text);
}

/* show classifier: one message per chain of the family's ruleset (-t TABLE: that table's). */
static void do_dump_cls(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
			const struct ctl_request *req)
{
	const struct rules_ruleset *rs = box_ruleset(s->box, req->family);
	const struct cls_ruleset *cr = rs ? rs->compiled : NULL;
	int mode = box_classifier(s->box),
	    table = req->table ? rules_table_by_name(req->table) : -1;

	if (req->table && table < 0) {
		ctl_srv_reply_error(c, nlh, -ENOENT, "CTL_RA_TABLE: no table '%s'", req->table);
		return;
	}
	for (unsigned t = 0; rs && t < TABLE_MAX; t++) {
		if (!rs->tables[t].present || (table >= 0 && (unsigned)table != t))
			continue;
		for (unsigned i = 0; i < rs->tables[t].nchains; i++) {
			const struct rules_chain *ch = &rs->tables[t].chains[i];
			const struct cls_chain *cc =
			    cr && i < cr->nchains[t] ? &cr->chains[t][i] : NULL;
			struct ctl_cls_chain m = {.rules = ch->nrules};
			struct nlmsghdr *out;
			size_t room;
			void *p = ctl_srv_out_room(c, 512, &room);

			snprintf(m.table, sizeof(m.table), "%s", rules_table_name(t));
			snprintf(m.chain, sizeof(m.chain), "%s", ch->name);
			snprintf(m.why, sizeof(m.why), "%s",
				 cc ? (cc->why ? cc->why : "") : "not compiled");
			if (cc && cc->cls) {
				m.engine = CTL_CLS_ENGINE_COMPILED;
				m.why[0] = '\0';
				m.partial = cc->partial;
				m.first_partial = cc->first_partial;
				m.bytes = cc->bytes;
				m.updated = cc->updated;
				m.has_build = cc->build_s >= 0;
				m.build_ns = m.has_build ? (uint64_t)(cc->build_s * 1e9) : 0;
			}
			if (!p ||
			    !(out = ctl_msg_start(p, room, req->type, NLM_F_MULTI, req->seq,
						  req->family, false)) ||
			    ctl_put_cls(out, room, &m,
					mode == CLS_MODE_LINEAR	    ? CTL_CLS_LINEAR
					: mode == CLS_MODE_COMPILED ? CTL_CLS_COMPILED
								    : CTL_CLS_AUTO))
				break;
			ctl_srv_out_commit(c, out);
		}
	}
	ctl_srv_send_done(c, req->seq);
}

/* The table and chain a request names; replies itself and returns false on error. */
static bool find_chain(struct client *c, const struct nlmsghdr *nlh, const struct ctl_request *req,
		       struct rules_ruleset *rs, int *table, int *chain)
{
	*table = -1;
	*chain = -1;
	if (!req->table)
		return true;
	*table = rules_table_by_name(req->table);
	if (*table < 0 || !rs || !rs->tables[*table].present) {
		ctl_srv_reply_error(c, nlh, -ENOENT, "CTL_RA_TABLE: no table '%s'", req->table);
		return false;
	}
	if (req->chain && (*chain = rules_chain_find(&rs->tables[*table], req->chain)) < 0) {
		ctl_srv_reply_error(c, nlh, -ENOENT, "CTL_RA_CHAIN: no chain '%s' in table %s",
				    req->chain, req->table);
		return false;
	}
	return true;
}

void ctl_srv_do_rules(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
		      const struct ctl_request *req)
{
	struct rules_ruleset *rs = box_ruleset(s->box, req->family);
	struct rules_chain *ch;
	int table, chain;

	switch (CTL_MSG(req->type)) {
	case CTL_RULES_REPLACE:
		do_replace(s, c, nlh, req);
		return;
	case CTL_RULES_DUMP:
		do_dump_rules(s, c, nlh, req);
		return;
	case CTL_RULES_RECENT:
		do_recent(s, c, nlh, req);
		return;
	case CTL_RULES_CLASSIFIER:
		do_dump_cls(s, c, nlh, req);
		return;
	case CTL_RULES_ZERO:
		if (!find_chain(c, nlh, req, rs, &table, &chain))
			return;
		if (rs && table < 0)
			rules_zero_counters(rs);
		else if (rs && chain < 0)
			for (unsigned i = 0; i < rs->tables[table].nchains; i++)
				rules_chain_zero_counters(&rs->tables[table].chains[i]);
		else if (rs)
			rules_chain_zero_counters(&rs->tables[table].chains[chain]);
		ctl_srv_send_ack(c, nlh);
		return;
	case CTL_RULES_POLICY:
		if (!find_chain(c, nlh, req, rs, &table, &chain))
			return;
		ch = &rs->tables[table].chains[chain];
		if (!ch->builtin) {
			ctl_srv_reply_error(c, nlh, -EINVAL,
					    "CTL_RA_CHAIN: %s is not a built-in chain", ch->name);
			return;
		}
		ch->policy = req->policy == NF_ACCEPT ? EXT_ACCEPT : EXT_DROP;
		ctl_srv_send_ack(c, nlh);
		return;
	}
}

/* A text command of the sync subsystem; its printed answer goes back as CTL_RA_TEXT. */
void ctl_srv_do_sync(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
		     const struct ctl_request *req)
{
	char cmd[64], *text = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	if (!s->sync_fn) {
		ctl_srv_reply_error(c, nlh, -EOPNOTSUPP, "this box has no sync section");
		return;
	}
	if (!req->text_first || req->text_len >= sizeof(cmd)) {
		ctl_srv_reply_error(c, nlh, -EINVAL, "CTL_RA_TEXT: a sync command word is needed");
		return;
	}
	ctl_copy_text(nlh, cmd);
	cmd[req->text_len] = '\0';
	if (!(f = open_memstream(&text, &len))) {
		ctl_srv_reply_error(c, nlh, -ENOMEM, "no memory for the answer");
		return;
	}
	r = s->sync_fn(s->sync_priv, cmd, f);
	fclose(f);
	if (r < 0) {
		ctl_srv_reply_error(c, nlh, r, "sync %s: %s", cmd,
				    text && len ? text : strerror(-r));
		free(text);
		return;
	}
	send_text(c, req, text, len);
	free(text);
}

/* ---- sets: an ipset(8) command line --------------------------------------------------------- */

void ctl_srv_do_set(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
		    const struct ctl_request *req)
{
	struct set_table *t = set_box_table(s->box, true);
	char *argv[CTL_SET_MAX_ARGS], *text = NULL, *out = NULL, msg[1024];
	size_t len = 0, outlen = 0;
	void *p;
	size_t room;
	struct nlmsghdr *m;
	FILE *f;
	int rc;

	if (restore_take(s, c, nlh, req, "restore input", true, &text, &len))
		return;
	if (!t || !(f = open_memstream(&out, &outlen))) {
		free(text);
		ctl_srv_reply_error(c, nlh, -ENOMEM, "no memory for the sets");
		return;
	}
	for (unsigned i = 0; i < req->nargs; i++)
		argv[i] = (char *)req->args[i];
	/* the data-path thread runs this between two packets: the command applies whole for
	 * the next packet */
	rc =
	    set_cmd_line(t, (int)req->nargs, argv, text, len, box_now(s->box), f, msg, sizeof(msg));
	fclose(f);
	free(text);
	send_chunks(c, req, CTL_SA_OUTPUT, out, outlen);
	free(out);
	if ((p = ctl_srv_out_room(c, strlen(msg) + 128, &room)) &&
	    (m = ctl_msg_start(p, room, req->type, NLM_F_MULTI, req->seq, req->family, false)) &&
	    mnl_attr_put_u32_check(m, room, CTL_SA_STATUS, htonl((uint32_t)rc)) &&
	    mnl_attr_put_strz_check(m, room, CTL_SA_MESSAGE, msg))
		ctl_srv_out_commit(c, m);
	ctl_srv_send_done(c, req->seq);
}

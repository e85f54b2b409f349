/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The control protocol's messages (docs/ctl.md is the reference for other programs): netlink
 * format, built and parsed with libmnl, attribute numbers and encodings of ctnetlink where it
 * defines the same thing.
 *
 *   +-----------------+-------------------+----------------------------------------------+
 *   | struct nlmsghdr | struct nfgenmsg   | attributes (struct nlattr + payload, 4-aligned)|
 *   | len type flags  | family version(0) |  CTL_A_VERSION (be32, every request)          |
 *   | seq pid         | res_id (be16)     |  CTA_TUPLE_ORIG { CTA_TUPLE_IP {...} ...} ... |
 *   +-----------------+-------------------+----------------------------------------------+
 *   type = subsystem << 8 | message  (as nfnetlink: CT 1, EXP 2, RULES 0x20)
 *
 * Parsing is two steps: validation (every attribute known at its level has the right type and
 * length, recursively, by the tables in msg*.c; unknown ones are skipped) and then access
 * (decoding into the structs below, with the semantic checks: families that agree, required
 * attributes present). Both fill struct ctl_error, which names the offending attribute.
 */
#ifndef CTL_MSG_H
#define CTL_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libmnl/libmnl.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>

#include "ct/ct.h"

#define CTL_VERSION 1

#define CTL_SUBSYS_CT	 1 /* NFNL_SUBSYS_CTNETLINK */
#define CTL_SUBSYS_EXP	 2 /* NFNL_SUBSYS_CTNETLINK_EXP */
#define CTL_SUBSYS_RULES 0x20
#define CTL_SUBSYS_SYNC	 0x21 /* state replication (src/sync): text commands */
#define CTL_SUBSYS_SET	 0x22 /* sets (src/set): ipset command lines */
#define CTL_TYPE(subsys, msg) ((uint16_t)((subsys) << 8 | (msg)))
#define CTL_SUBSYS(type)      ((type) >> 8)
#define CTL_MSG(type)	      ((type)&0xff)

/* Conntrack messages: ctnetlink's numbers, then pkttables' own from 0x10. */
enum ctl_ct_msg {
	CTL_CT_NEW = IPCTNL_MSG_CT_NEW,		    /* create or update; also the NEW/UPDATE event */
	CTL_CT_GET = IPCTNL_MSG_CT_GET,		    /* one by tuple; NLM_F_DUMP: all (filtered) */
	CTL_CT_DELETE = IPCTNL_MSG_CT_DELETE,	    /* by tuple or filter; also the DESTROY event */
	CTL_CT_GET_CTRZERO = IPCTNL_MSG_CT_GET_CTRZERO, /* get / dump, then zero counters (-L -z) */
	CTL_CT_GET_STATS_CPU = IPCTNL_MSG_CT_GET_STATS_CPU, /* conntrack -S */
	CTL_CT_GET_STATS = IPCTNL_MSG_CT_GET_STATS,	    /* conntrack -C */
	CTL_CT_EVENTS = 0x10,				    /* subscribe (conntrack -E) */
	CTL_CT_EVENTS_LOST = 0x11,			    /* notification: events were lost */
	CTL_CT_FLUSH = 0x12,				    /* conntrack -F */
};

enum ctl_exp_msg {
	CTL_EXP_NEW = IPCTNL_MSG_EXP_NEW,
	CTL_EXP_GET = IPCTNL_MSG_EXP_GET,
	CTL_EXP_DELETE = IPCTNL_MSG_EXP_DELETE,
};

enum ctl_rules_msg {
	CTL_RULES_REPLACE = 0, /* iptables-restore */
	CTL_RULES_DUMP = 1,    /* iptables-save */
	CTL_RULES_ZERO = 2,    /* iptables -Z [chain] */
	CTL_RULES_POLICY = 3,  /* iptables -P chain target */
	CTL_RULES_RECENT = 4,  /* read or write a -m recent list (/proc/net/xt_recent/NAME) */
	CTL_RULES_CLASSIFIER = 5, /* show classifier: a dump, one CTL_RA_CLS message per chain */
};

/* Sync: one request, its command word ("commit", "stats", ...) in CTL_RA_TEXT; the answer is
 * text in CTL_RA_TEXT chunks (the rules subsystem's attributes). */
enum ctl_sync_msg {
	CTL_SYNC_CMD = 0,
};

/* Sets (ipset): one message, an ipset(8) command line run by the box (docs/ctl.md). */
enum ctl_set_msg {
	CTL_SET_CMD = 0,
};

/* Set subsystem attributes. Request: ARG... (the words after "ipset"), TEXT... (restore's
 * input), FLAGS (CTL_RF_MORE: the input goes on in the next CTL_SET_CMD, as a rules restore).
 * Answer: NLM_F_MULTI messages with OUTPUT chunks, the last with STATUS and MESSAGE, then
 * NLMSG_DONE. */
enum {
	CTL_SA_TEXT = 1,    /* binary: restore input; several are one text, in order */
	CTL_SA_ARG = 2,	    /* nul-string, repeated: one word of the command line */
	CTL_SA_FLAGS = 3,   /* be32 CTL_RF_* (CTL_RF_MORE only) */
	CTL_SA_OUTPUT = 4,  /* binary: what ipset prints on stdout (list, save), in chunks */
	CTL_SA_STATUS = 5,  /* be32: ipset's exit code (0, 1, 2) */
	CTL_SA_MESSAGE = 6, /* nul-string: ipset's message for stderr, without "ipset vX: " */
	CTL_SA_MAX = 6
};
#define CTL_SET_MAX_ARGS 64

/* pkttables' own top-level attributes, in every subsystem; above ctnetlink's range. */
enum {
	CTL_A_VERSION = 64,	/* be32: CTL_VERSION; required in every request */
	CTL_A_FILTER = 65,	/* nest CTL_F_*: which entries a dump/delete/subscription takes */
	CTL_A_EVENT_MASK = 66,	/* be32 CTL_EV_*: what a subscription wants (0: all) */
	CTL_A_COUNT = 67,	/* be32: entries a delete-by-filter removed */
	CTL_A_EVENTS_LOST = 68, /* be64: events dropped for this listener so far */
	CTL_A_MAX = 68
};

/* Inside CTL_A_FILTER. A tuple there is partial: only what it holds must match. */
enum {
	CTL_F_TUPLE_ORIG = 1,  /* nest, CTA_TUPLE_* layout */
	CTL_F_TUPLE_REPLY = 2, /* nest, CTA_TUPLE_* layout */
	CTL_F_MARK = 3,	       /* be32 */
	CTL_F_MARK_MASK = 4,   /* be32, default 0xffffffff */
	CTL_F_ZONE = 5,	       /* be16 */
	CTL_F_STATUS = 6,      /* be32 */
	CTL_F_STATUS_MASK = 7, /* be32, default: CTL_F_STATUS */
	CTL_F_MAX = 7
};

/* CTA_STATUS bits for NAT (the kernel's IPS_*), made from the entry's NAT binding. */
enum {
	CTL_IPS_SRC_NAT = 1 << 4,
	CTL_IPS_DST_NAT = 1 << 5,
	CTL_IPS_SRC_NAT_DONE = 1 << 7,
	CTL_IPS_DST_NAT_DONE = 1 << 8,
};

/* Event types of a subscription (conntrack -e NEW,UPDATES,DESTROY). */
enum { CTL_EV_NEW = 1 << 0, CTL_EV_UPDATE = 1 << 1, CTL_EV_DESTROY = 1 << 2 };

/* Rules subsystem attributes. */
enum {
	CTL_RA_TEXT = 1,   /* string (no NUL); several are concatenated in order */
	CTL_RA_NAME = 2,   /* nul-string: the file name errors are reported with */
	CTL_RA_FLAGS = 3,  /* be32 CTL_RF_* */
	CTL_RA_TABLE = 4,  /* nul-string: "filter" ... */
	CTL_RA_CHAIN = 5,  /* nul-string */
	CTL_RA_POLICY = 6, /* be32: NF_DROP (0) or NF_ACCEPT (1) */
	CTL_RA_LIST = 7,   /* nul-string: a -m recent list's name */
	CTL_RA_CLS = 8,	   /* nest CTL_RC_*: one chain's classifier (RULES_CLASSIFIER replies) */
	CTL_RA_CLS_MODE = 9, /* be32 CTL_CLS_*: how the box compiles rulesets it loads */
	CTL_RA_MAX = 9
};
/* Inside CTL_RA_CLS (docs/ctl.md); a client skips what it does not know. */
enum {
	CTL_RC_TABLE = 1,	  /* nul-string: "filter" ... */
	CTL_RC_CHAIN = 2,	  /* nul-string */
	CTL_RC_ENGINE = 3,	  /* be32 CTL_CLS_ENGINE_* */
	CTL_RC_WHY = 4,		  /* nul-string: why the chain is scanned linearly */
	CTL_RC_RULES = 5,	  /* be32 */
	CTL_RC_PARTIAL = 6,	  /* be32: rules with matches left to the candidates' evaluation */
	CTL_RC_FIRST_PARTIAL = 7, /* be32: 1-based number of the first of those (0: none) */
	CTL_RC_BUILD_NS = 8,	  /* be64: build time (absent: not measured) */
	CTL_RC_BYTES = 9,	  /* be64: memory of the compiled structure */
	CTL_RC_UPDATED = 10,	  /* be32: made from the previous classifier, this many rules
				     changed (absent: built anew) */
	CTL_RC_MAX = 10
};
enum { CTL_CLS_AUTO = 0, CTL_CLS_LINEAR = 1, CTL_CLS_COMPILED = 2 }; /* CTL_RA_CLS_MODE */
enum { CTL_CLS_ENGINE_LINEAR = 0, CTL_CLS_ENGINE_COMPILED = 1 };     /* CTL_RC_ENGINE */
enum {
	CTL_RF_NOFLUSH = 1 << 0,  /* restore: keep the tables the text does not name */
	CTL_RF_COUNTERS = 1 << 1, /* restore: keep [p:b]; dump: print them (-c) */
	CTL_RF_HEADER = 1 << 2,	  /* dump: the "# Generated by" comments */
	CTL_RF_MORE = 1 << 3,	  /* restore: the text goes on in the next REPLACE (docs/ctl.md) */
};

/* One chain's classifier as RULES_CLASSIFIER carries it. */
struct ctl_cls_chain {
	char table[16], chain[32], why[64];
	uint32_t engine, rules, partial, first_partial, updated;
	bool has_build;
	uint64_t build_ns, bytes;
};

/* Extended-ack attributes of our own in NLMSG_ERROR, beside NLMSGERR_ATTR_MSG/OFFS. */
enum { CTL_ERRA_LINE = 64 /* be32: line of a rejected ruleset */ };

/* What went wrong with a message, naming the attribute (for the error reply). */
struct ctl_error {
	int code;		    /* -errno */
	const struct nlattr *attr;  /* offending attribute inside the message, or NULL */
	uint16_t missing;	    /* type of a required attribute that is absent (0: none) */
	const struct nlattr *nest;  /* the nest it is missing from (NULL: top level) */
	uint32_t line;		    /* ruleset errors: the line (0: none) */
	char msg[800];		    /* "CTA_TUPLE_ORIG.CTA_TUPLE_IP.CTA_IP_V4_SRC: length 3, want 4" */
};

/* A tuple as the protocol carries it; `have` says which parts were present (CTL_T_*). */
enum {
	CTL_T_SRC = 1 << 0,
	CTL_T_DST = 1 << 1,
	CTL_T_PROTO = 1 << 2,
	CTL_T_SPORT = 1 << 3, /* port, ICMP id or GRE key */
	CTL_T_DPORT = 1 << 4, /* port or GRE key */
	CTL_T_ICMP_TYPE = 1 << 5,
	CTL_T_ICMP_CODE = 1 << 6,
	CTL_T_ZONE = 1 << 7,
};
struct ctl_tuple {
	struct ct_tuple t;
	uint32_t have;
};

/* One conntrack entry as the protocol carries it. */
enum {
	CTL_C_ORIG = 1 << 0,
	CTL_C_REPLY = 1 << 1,
	CTL_C_STATUS = 1 << 2,
	CTL_C_TIMEOUT = 1 << 3,
	CTL_C_MARK = 1 << 4,
	CTL_C_USE = 1 << 5,
	CTL_C_ID = 1 << 6,
	CTL_C_ZONE = 1 << 7,
	CTL_C_PROTOINFO = 1 << 8,
	CTL_C_COUNTERS_ORIG = 1 << 9,
	CTL_C_COUNTERS_REPLY = 1 << 10,
	CTL_C_MARK_MASK = 1 << 11, /* CT_NEW update: the bits of the mark cleared before ^ mark */
	CTL_C_HELPER = 1 << 12,
	CTL_C_TSTAMP = 1 << 13,	     /* CTA_TIMESTAMP: ts_start, ts_stop, ts_now */
	CTL_C_LABELS = 1 << 14,	     /* CTA_LABELS: 128 bits (ct/labels.h's layout) */
	CTL_C_LABELS_MASK = 1 << 15, /* CTA_LABELS_MASK: in a CT_NEW, the bits CTA_LABELS sets */
	CTL_C_NAT_SRC = 1 << 16,     /* CTA_NAT_SRC: create with this source NAT (-I --src-nat) */
	CTL_C_NAT_DST = 1 << 17,     /* CTA_NAT_DST: create with this destination NAT */
};
/* A translation asked for on create (CTA_NAT_SRC / CTA_NAT_DST, ctnetlink's layout): an
 * address range (conntrack -I gives one address: min = max) of `family` (0: none given, the
 * address stays), a port range (host order) when has_port. */
struct ctl_nat {
	union pt_addr min, max;
	uint16_t min_port, max_port;
	uint8_t family;
	bool has_port;
};
/* Inside CTA_TIMESTAMP, beside ctnetlink's START (1) and STOP (2): the box's time when the
 * message was made (be64 ns), so a client can say how long a live entry has been there. */
enum { CTL_TS_NOW = 64 };
struct ctl_ct {
	uint32_t have; /* CTL_C_* */
	struct ct_tuple orig, reply;
	uint32_t status, timeout, mark, use, id; /* timeout in seconds, as ctnetlink */
	uint16_t zone;
	uint8_t proto_state; /* TCP/SCTP/DCCP state number (CTA_PROTOINFO_*_STATE) */
	uint64_t packets[2], bytes[2];
	uint32_t mark_mask;
	char helper[16];		    /* CTA_HELP.CTA_HELP_NAME */
	uint64_t ts_start, ts_stop, ts_now; /* box clock, ns; ts_stop 0: still in the table */
	uint32_t labels[4], labels_mask[4]; /* bit n: word n / 32, bit n % 32 */
	struct ctl_nat nat[2];		    /* [0] CTA_NAT_SRC, [1] CTA_NAT_DST */
};

/* One expectation (CTA_EXPECT_*). The mask is a tuple of the bits compared: src address and
 * source port (the destination half is always compared whole). */
enum {
	CTL_X_MASTER = 1 << 0,
	CTL_X_TUPLE = 1 << 1,
	CTL_X_MASK = 1 << 2,
	CTL_X_TIMEOUT = 1 << 3,
	CTL_X_ID = 1 << 4,
	CTL_X_HELPER = 1 << 5,
	CTL_X_ZONE = 1 << 6,
	CTL_X_FLAGS = 1 << 7,
	CTL_X_CLASS = 1 << 8,
};
struct ctl_exp {
	uint32_t have; /* CTL_X_* */
	struct ctl_tuple master, tuple, mask;
	uint32_t timeout, id, flags, class; /* flags: CT_EXPECT_* (ctnetlink's NF_CT_EXPECT_*) */
	uint16_t zone;
	char helper[16];
};

struct ctl_filter {
	uint32_t have; /* CTL_FH_* */
	uint8_t family; /* from the message header: 0 any */
	struct ctl_tuple orig, reply;
	uint32_t mark, mark_mask, status, status_mask;
	uint16_t zone;
};
enum { CTL_FH_MARK = 1 << 0, CTL_FH_ZONE = 1 << 1, CTL_FH_STATUS = 1 << 2 };

/* Statistics (CTA_STATS_* and CTA_STATS_GLOBAL_*). */
struct ctl_stats {
	uint32_t entries, max_entries;
	uint64_t found, invalid, insert, insert_failed, drop, early_drop, search_restart, clash,
	    new, expired;
	uint64_t events_lost; /* for the asking client's subscription */
};

/* A request, decoded. Pointers point into the message. */
struct ctl_request {
	uint16_t type; /* CTL_TYPE(...) */
	uint16_t flags;
	uint32_t seq;
	uint8_t family;
	uint32_t version;
	bool has_ct, has_filter;
	struct ctl_ct ct; /* GET/DELETE/NEW: the tuple(s) and attributes given */
	struct ctl_exp exp; /* expectation requests */
	struct ctl_filter filter;
	uint32_t event_mask;
	/* rules */
	const struct nlattr *text_first; /* first CTL_RA_TEXT; walk the message for the rest */
	size_t text_len;		 /* all CTL_RA_TEXT payloads together */
	const char *name, *table, *chain;
	const char *list; /* CTL_RA_LIST */
	uint32_t rflags, policy;
	bool has_policy;
	/* sets: the command line's words (pointing into the message) */
	const char *args[CTL_SET_MAX_ARGS];
	unsigned nargs;
};

/*
 * Is there a whole message at nlh within rem bytes? libmnl's mnl_nlmsg_ok compares the length
 * as a signed int, so a length of 2^31 or more passes it and mnl_nlmsg_next then walks off the
 * buffer: every loop over received bytes uses this instead.
 */
static inline bool ctl_nlmsg_ok(const struct nlmsghdr *nlh, int rem)
{
	return rem >= (int)sizeof(*nlh) && nlh->nlmsg_len >= sizeof(*nlh) &&
	       nlh->nlmsg_len <= (unsigned)rem;
}

/* ---- building ---------------------------------------------------------------------------- */

/* Start a message in buf (room bytes): header, nfgenmsg, and CTL_A_VERSION when `request`.
 * NULL when it does not fit. */
struct nlmsghdr *ctl_msg_start(void *buf, size_t room, uint16_t type, uint16_t flags, uint32_t seq,
			       uint8_t family, bool request);
/* Put an entry's attributes. 0 or -EMSGSIZE (the message is left as it was). */
int ctl_put_ct(struct nlmsghdr *nlh, size_t room, const struct ctl_ct *c);
/* Put one tuple as CTA_TUPLE_ORIG/REPLY (or CTL_F_TUPLE_*), only its `have` parts. */
int ctl_put_tuple(struct nlmsghdr *nlh, size_t room, uint16_t type, const struct ctl_tuple *t);
int ctl_put_filter(struct nlmsghdr *nlh, size_t room, const struct ctl_filter *f);
int ctl_put_stats_cpu(struct nlmsghdr *nlh, size_t room, const struct ctl_stats *s);
int ctl_put_stats_global(struct nlmsghdr *nlh, size_t room, const struct ctl_stats *s);
/* An NLMSG_ERROR for `req` (capped: its header only) with the extended-ack attributes of err;
 * code 0 makes an ACK. Returns the message length or -EMSGSIZE. */
int ctl_put_error(void *buf, size_t room, const struct nlmsghdr *req, const struct ctl_error *err);
/* NLMSG_DONE closing a dump. */
struct nlmsghdr *ctl_put_done(void *buf, size_t room, uint32_t seq);

/* One chain's classifier as a CTL_RA_CLS nest, and the box's mode. 0 or -EMSGSIZE. */
int ctl_put_cls(struct nlmsghdr *nlh, size_t room, const struct ctl_cls_chain *cc, int mode);

/* An expectation's attributes (master, tuple and mask as their `have` parts say). */
int ctl_put_exp(struct nlmsghdr *nlh, size_t room, const struct ctl_exp *x);

/* ---- conversion -------------------------------------------------------------------------- */

/* ctl_ct_format_flags: -o extended (family before the line), -o id (id= after it), events
 * (no use=, which ctnetlink events do not carry). */
enum {
	CTL_FMT_EXTENDED = CT_LINE_FAMILY,
	CTL_FMT_ID = CT_LINE_ID,
	CTL_FMT_EVENT = CT_LINE_NO_USE,
};
int ctl_ct_format_flags(const struct ctl_ct *c, unsigned flags, char *buf, size_t len);
struct ct_expect;
void ctl_exp_from_expect(struct ctl_exp *x, const struct ct_expect *e, uint64_t now);
/* The `conntrack -L expect` line (ct_expect_format's, byte for byte). */
int ctl_exp_format(const struct ctl_exp *x, char *buf, size_t len);

/* An entry of the table, as the protocol carries it. */
void ctl_ct_from_entry(struct ctl_ct *c, const struct ct_entry *e, uint64_t now);
/* The `conntrack -L` line (ct_entry_format's, byte for byte) of a decoded entry. */
int ctl_ct_format(const struct ctl_ct *c, char *buf, size_t len);
/* Does the entry pass the filter? */
bool ctl_filter_match(const struct ctl_filter *f, const struct ct_entry *e);
/* A complete tuple (addresses, protocol, the ports the protocol has), for lookups. */
bool ctl_tuple_complete(const struct ctl_tuple *t);
/* "CTA_TUPLE_ORIG" etc.: names for messages. */
const char *ctl_msg_name(uint16_t type);

/* ---- parsing ----------------------------------------------------------------------------- */

/*
 * Check the framing (length, the nfgenmsg header, a known type) and every attribute against
 * the tables; then decode a request. 0 or -EINVAL / -EOPNOTSUPP / -EPROTONOSUPPORT with err.
 */
int ctl_parse_request(const struct nlmsghdr *nlh, struct ctl_request *req, struct ctl_error *err);
/* Decode a reply or event carrying an entry (CTL_CT_NEW / CTL_CT_DELETE). */
int ctl_parse_ct(const struct nlmsghdr *nlh, struct ctl_ct *c, struct ctl_error *err);
int ctl_parse_stats(const struct nlmsghdr *nlh, struct ctl_stats *s, struct ctl_error *err);
/* Decode an expectation reply or event (CTL_EXP_NEW / CTL_EXP_DELETE). */
int ctl_parse_exp(const struct nlmsghdr *nlh, struct ctl_exp *x, struct ctl_error *err);
/* An NLMSG_ERROR: its code (0 for an ACK), message text and line (msg may be empty). */
int ctl_parse_error(const struct nlmsghdr *nlh, int *code, char *msg, size_t len, uint32_t *line);
/* Copy the CTL_RA_TEXT payloads of a message, concatenated, into dst (req->text_len bytes). */
void ctl_copy_text(const struct nlmsghdr *nlh, char *dst);
/* A RULES_CLASSIFIER reply: the chain, and the box's mode (CTL_CLS_*; -1 when absent). */
int ctl_parse_cls(const struct nlmsghdr *nlh, struct ctl_cls_chain *cc, int *mode,
		  struct ctl_error *err);
/* Read a be32/be64 top-level attribute of a reply; false when absent or malformed. */
bool ctl_get_u32(const struct nlmsghdr *nlh, uint16_t type, uint32_t *v);
bool ctl_get_u64(const struct nlmsghdr *nlh, uint16_t type, uint64_t *v);

#endif

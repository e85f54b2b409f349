/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Conntrack helpers: code that reads a connection's payload to learn which other connections
 * belong to it (FTP, TFTP, IRC DCC) and registers expectations for them (ct/expect.h).
 *
 *   raw PREROUTING: -p tcp --dport 21 -j CT --helper ftp     the packet carries the helper id
 *   conntrack (-200): the new entry gets the helper          (ct_helper_new_entry)
 *        ... filter, nat ...
 *   INPUT/POSTROUTING 300: ct_helper_run -> helper->help()   the payload is read, expectations
 *   confirm (INT_MAX)                                         registered
 *
 * Helpers are assigned only by CT --helper, as Linux does since 6.0 (no assignment by port).
 * Each table has a registry by name of the built-in helpers (all available, as if their
 * modules were loaded) with a per-table policy (max_expected, expectation timeout).
 *
 * The parse result of every helper is a struct ct_helper_match: what the payload named and
 * where the text naming it is, so NAT can rewrite that text and register the translated
 * expectation itself (ct_helper_set_nat).
 */
#ifndef CT_HELPER_H
#define CT_HELPER_H

#include <stdbool.h>
#include <stdint.h>

#include "ct/ct.h"
#include "ct/expect.h"

/* The bits of pkt->ctinfo, before tracking, that carry the helper CT --helper asked for:
 * 1 + the helper's id (0: none). Cleared when the packet is attached to an entry. */
#define CT_INFO_HELPER_SHIFT 9
#define CT_INFO_HELPER_MASK  (0x7fu << CT_INFO_HELPER_SHIFT)

enum ct_helper_id { CT_HELPER_FTP, CT_HELPER_TFTP, CT_HELPER_IRC, CT_HELPER_NUM };

/* What a helper found in the payload. */
enum ct_helper_match_type {
	CT_FTP_PORT, /* as the kernel's enum nf_ct_ftp_type */
	CT_FTP_PASV,
	CT_FTP_EPRT,
	CT_FTP_EPSV,
	CT_IRC_DCC,
	CT_TFTP_RQ, /* read or write request: no text to rewrite (off = len = 0) */
};

struct ct_helper_match {
	enum ct_helper_match_type type;
	uint32_t off, len;  /* the address/port text: absolute offset in the packet, length */
	uint8_t family;	    /* of addr */
	union pt_addr addr; /* the address named (EPSV: the sender's, which it does not name) */
	uint16_t port;
};

#define CT_HELPER_DATA_MAX 32

struct ct_helper {
	const char *name;
	enum ct_helper_id id;
	uint8_t l4proto;
	bool ipv4, ipv6;       /* families it works for */
	uint16_t port;	       /* the service's port (documentation, listings) */
	unsigned max_expected; /* default policy */
	uint64_t timeout;      /* expectation lifetime, ns */
	/*
	 * Called for each packet of a connection the helper is assigned to, after tracking
	 * (not for ICMP errors RELATED to it). 0 to accept, or a negative code when the packet
	 * is to be dropped (*why names the reason, a static string).
	 */
	int (*help)(struct ct_table *t, struct ct_entry *e, struct pkt *p, unsigned ctinfo,
		    uint64_t now, const char **why);
};

extern const struct ct_helper ct_helper_ftp;
extern const struct ct_helper ct_helper_tftp;
extern const struct ct_helper ct_helper_irc;

/* A built-in helper by name (for CT --helper at rule load), for l4proto and family (0: any);
 * NULL when there is none. */
const struct ct_helper *ct_helper_builtin(const char *name, uint8_t l4proto, int family);

/* Ask, before tracking, that the packet's new connection gets helper h (CT --helper). */
void ct_pkt_set_helper(struct pkt *p, const struct ct_helper *h);

/* The table's view of a helper: NULL when it is not registered there (ct_helper_unregister). */
const struct ct_helper *ct_helper_find(struct ct_table *t, const char *name);
/* Make the helper unavailable in this table (new connections asking for it get none) or
 * available again. 0, -ENOENT, -ENOMEM. */
int ct_helper_unregister(struct ct_table *t, const char *name);
int ct_helper_register(struct ct_table *t, const char *name);
/* Change a helper's policy in this table. 0, -ENOENT, -EINVAL (max_expected 0), -ENOMEM. */
int ct_helper_set_policy(struct ct_table *t, const char *name, unsigned max_expected,
			 uint64_t timeout);

/* The helper assigned to an entry (NULL: none). */
const struct ct_helper *ct_entry_helper(const struct ct_entry *e);
/* Assign h to an entry not yet confirmed (tests, NAT). 0, -EBUSY (confirmed), -ENOMEM. */
int ct_entry_set_helper(struct ct_table *t, struct ct_entry *e, const struct ct_helper *h);

/*
 * NAT's hook into a helper (the kernel's nf_nat_ftp_hook and friends): called instead of
 * registering the expectation when set. It may rewrite m->off/m->len in the packet, change x
 * and register it with ct_expect_related. Returns 1 when it leaves this one to the helper
 * (the connection is not translated), 0 when done, < 0 to drop the packet.
 */
typedef int (*ct_helper_nat_fn)(void *priv, struct ct_table *t, struct ct_entry *e, struct pkt *p,
				unsigned ctinfo, const struct ct_helper_match *m,
				struct ct_expect *x, uint64_t now);
int ct_helper_set_nat(struct ct_table *t, enum ct_helper_id id, ct_helper_nat_fn fn, void *priv);
/* The priv given with the NAT hook of helper id (NULL: none), for an expectation's expectfn. */
void *ct_helper_nat_priv(const struct ct_table *t, enum ct_helper_id id);

/*
 * Run the entry's helper on a packet (the INPUT/POSTROUTING hook at priority 300). 0, or a
 * negative code when the packet is to be dropped, *why saying why.
 */
int ct_helper_run(struct ct_table *t, struct pkt *p, uint64_t now, const char **why);

/* ---- for the helpers and the core (src/ct only) ------------------------------------------ */

/* The CT_EXT_HELPER extension of an entry. */
struct ct_help {
	const struct ct_helper *helper;
	uint8_t expecting[CT_EXPECT_CLASS_MAX];		    /* registered expectations per class */
	_Alignas(8) unsigned char data[CT_HELPER_DATA_MAX]; /* the helper's per-connection state */
};

struct ct_help *ct_entry_help(const struct ct_entry *e);
/* A helper's hand-off: NAT if it hooked in, else ct_expect_related. 0 or < 0 (drop). */
int ct_helper_expect(struct ct_table *t, struct ct_entry *e, struct pkt *p, unsigned ctinfo,
		     const struct ct_helper_match *m, struct ct_expect *x, uint64_t now,
		     const char **why);
/* The payload of a TCP/UDP packet: offset and length (0 when there is none). */
void ct_helper_payload(const struct pkt *p, uint32_t *off, uint32_t *len);

/*
 * `len` contiguous bytes at `off`: a pointer into the packet when they lie in one segment,
 * else a copy in buf (when len <= buflen) or in *heap (malloc()ed: the caller frees it).
 * NULL when the range is outside the packet or on ENOMEM.
 */
const char *ct_helper_bytes(const struct pkt *p, uint32_t off, uint32_t len, void *buf,
			    size_t buflen, void **heap);

/*
 * Where a helper's command text (at most CT_HELPER_PATTERN_MAX bytes) first occurs in
 * [off, off + len) of the packet: its offset from `off`, or UINT32_MAX. Through textsearch
 * (KMP, TS_IGNORECASE in flags), walking the packet's segments in place: a packet that
 * carries no command is never copied.
 */
#define CT_HELPER_PATTERN_MAX 16
uint32_t ct_helper_search(const struct pkt *p, uint32_t off, uint32_t len, const char *pattern,
			  unsigned flags);

/* Core hooks (ct.c, table.c): a new entry is expected or gets the helper the packet asked
 * for (true: RELATED); an entry is dying (its expectations go); an entry is freed (and its
 * reference on its master dropped); the table is freed. */
bool ct_helper_new_entry(struct ct_table *t, struct ct_entry *e, const struct pkt *p, uint64_t now);
void ct_expect_attach_child(struct ct_table *t, struct ct_entry *e, struct ct_expect *x,
			    uint64_t now);
void ct_expect_master_gone(struct ct_table *t, struct ct_entry *e);
void ct_expect_entry_free(struct ct_table *t, struct ct_entry *e);
void ct_expect_table_free(struct ct_table *t);

#endif

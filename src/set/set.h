/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ipset in a box: named sets of addresses, networks, ports, interfaces, MACs or other sets,
 * looked up by -m set and edited by -j SET, `ipset` over the control socket, and files in
 * `ipset save` form.
 *
 *   struct set_table (one per box)
 *     slot[0..SET_MAX_SETS)   struct set *, the index a rule binds to (as the kernel's
 *                             ip_set_list index: swap exchanges two slots' sets, rename
 *                             keeps the slot, destroy empties it)
 *   struct set
 *     hash:*     buckets[] of chains of struct set_elem (keyed pkt_hash, the box's key mixed
 *                with the set's initval); hash:net-like types keep a count per prefix length,
 *                and a lookup tries only the prefix lengths present, longest first
 *     bitmap:*   one slot per value in the range (at most 65536)
 *     list:set   an ordered array of member set indexes
 *
 *   struct set_elem  next | expires | flags | extensions (counters, skbinfo, comment) | key
 *
 * A key is stored packed, in the type's dimension order: an address in 4 or 16 bytes, a
 * prefix length in one, a port as proto(1) + port(2), an interface as 16 bytes + physdev(1),
 * a MAC in 6. Time is the box's clock, passed in as `now` (nanoseconds); an element whose
 * `expires` is past is treated as absent and freed by the next sweep that meets it.
 *
 * Errors are SET_E_* codes whose text is ipset(8)'s (set_strerror): the same words reach a
 * user of `pkttables ipset` as ipset's own.
 */
#ifndef SET_SET_H
#define SET_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pkt/pkt.h"

#define SET_NAME_MAX	32 /* IPSET_MAXNAMELEN, with the NUL */
#define SET_MAX_SETS	1024
#define SET_COMMENT_MAX 256
#define SET_IFACE_MAX	16
#define SET_DIM_MAX	6 /* IPSET_DIM_MAX: src/dst flags a rule may give */
#define SET_BITMAP_MAX	65536
#define SET_LIST_MAX	65536
#define SET_TIMEOUT_MAX 2147483u /* seconds: ipset's limit (UINT_MAX / 1000 - 1) */

enum set_dim {
	SET_D_IP,    /* one address */
	SET_D_NET,   /* address/prefix */
	SET_D_PORT,  /* proto:port */
	SET_D_IFACE, /* interface name, physdev: prefix */
	SET_D_MAC,   /* Ethernet address */
	SET_D_NAME,  /* a set (list:set) */
};

enum set_kind { SET_K_HASH, SET_K_BITMAP_IP, SET_K_BITMAP_PORT, SET_K_LIST };

struct set_type {
	const char *name; /* "hash:ip,port" */
	enum set_kind kind;
	uint8_t ndims;
	uint8_t dims[3];
	uint8_t revision; /* what `ipset list` prints as Revision */
	bool any_family;  /* hash:mac, bitmap:port, list:set: no family */
	bool inet_only;	  /* bitmap:ip */
};

/* The type of that name, NULL if none. */
const struct set_type *set_type_find(const char *name);

/* An element, unpacked: what text and packets are read into and printed from. Addresses in
 * network order (union pt_addr), the rest host order; unused fields zero. */
struct set_key {
	union pt_addr ip[2]; /* the first and second address dimension */
	uint8_t cidr[2];     /* their prefix lengths (SET_D_NET; full length for SET_D_IP) */
	uint8_t proto;
	uint16_t port; /* ICMP: type << 8 | code */
	bool physdev;
	char iface[SET_IFACE_MAX];
	uint8_t mac[6];
	uint32_t set_id; /* list:set member */
};

/* The extensions given with an element (add) or stored in one. */
struct set_elem_opts {
	bool has_timeout, has_packets, has_bytes, has_comment, has_mark, has_prio, has_queue;
	bool nomatch;
	uint32_t timeout; /* seconds, 0 = never */
	uint64_t packets, bytes;
	char comment[SET_COMMENT_MAX];
	uint32_t skbmark, skbmarkmask, skbprio;
	uint16_t skbqueue;
	/* list:set add/del/test: before NAME / after NAME */
	int position; /* 0 none, -1 before, 1 after */
	uint32_t ref_id;
};

/* A create line's parameters. */
struct set_create {
	const struct set_type *type;
	int family; /* AF_INET or AF_INET6 (AF_INET by default), 0 for any-family types */
	uint32_t hashsize, maxelem, bucketsize, initval, size;
	bool has_initval, has_timeout, counters, comment, skbinfo, forceadd;
	uint32_t timeout;
	union pt_addr from, to; /* bitmap:ip range */
	uint16_t pfrom, pto;	/* bitmap:port range */
	uint8_t netmask;	/* bitmap:ip: 0 = none (32) */
};

enum set_err {
	SET_E_OK = 0,
	SET_E_NOSET = 1,   /* The set with the given name does not exist */
	SET_E_EXIST,	   /* Element cannot be added to the set: it's already added */
	SET_E_NOELEM,	   /* Element cannot be deleted from the set: it's not added */
	SET_E_FULL,	   /* Hash is full, cannot add more elements */
	SET_E_LISTFULL,	   /* The set is full, more elements cannot be added */
	SET_E_SETEXIST,	   /* Set cannot be created: set with the same name already exists */
	SET_E_INUSE,	   /* Set cannot be destroyed: it is in use by a kernel component */
	SET_E_NOTIMEOUT,   /* Timeout cannot be used: set was created without timeout support */
	SET_E_NOCOUNTERS,  /* Packet/byte counters cannot be used: ... */
	SET_E_NOCOMMENT,   /* Comment cannot be used: ... */
	SET_E_NOSKBINFO,   /* Skbinfo mapping cannot be used: ... */
	SET_E_RANGE,	   /* Element is out of the range of the set */
	SET_E_CIDR,	   /* The value of the CIDR parameter of the IP address is invalid */
	SET_E_SWAPTYPE,	   /* The sets cannot be swapped: their type does not match */
	SET_E_SWAPFAMILY,  /* The sets cannot be swapped: their address family does not match */
	SET_E_SWAPNOSET,   /* Sets cannot be swapped: the second set does not exist */
	SET_E_RENAMEEXIST, /* Set cannot be renamed: a set with the new name already exists */
	SET_E_LISTNOSET,   /* Set to be added/deleted/tested as element does not exist. */
	SET_E_LISTLOOP,	   /* Sets with list:set type cannot be added to the set. */
	SET_E_LISTREF,	   /* The reference set ... does not exist / is not in the list */
	SET_E_TOOMANY,	   /* the box holds SET_MAX_SETS sets */
	SET_E_NOMEM,	   /* no memory */
	SET_E_HASHSIZE,	   /* Invalid hashsize or maxelem */
	SET_E_BITMAPRANGE, /* a bitmap of more than 65536 elements */
	SET_E_FAMILY,	   /* an address of the other family */
	SET_E_MAX
};

/* ipset(8)'s text of a SET_E_* code. */
const char *set_strerror(int code);

struct set;
struct set_table;

/* ---- the table of a box ------------------------------------------------------------------ */

/* A table hashing under `key` (the box's pkt_hash key). NULL on ENOMEM. */
struct set_table *set_table_new(const uint64_t key[2]);
void set_table_free(struct set_table *t);

/* A set's index by name, -1 if none. */
int set_find(const struct set_table *t, const char *name);
/* The set in slot `id`, NULL if none (a bound rule's index stays valid: slots are reused only
 * by a create after a destroy, and a referenced set is never destroyed). */
struct set *set_get(const struct set_table *t, int id);
/* Slots in use: ids from 0 to set_table_slots() - 1, some NULL. */
unsigned set_table_slots(const struct set_table *t);

/* Create: 0 or -SET_E_*. `exist`: an identical set of that name is not an error. */
int set_create(struct set_table *t, const char *name, const struct set_create *c, bool exist,
	       int *id_out);
/* Destroy one set (-SET_E_INUSE while a rule or list:set holds it) or, name NULL, all. */
int set_destroy(struct set_table *t, const char *name);
int set_flush(struct set_table *t, const char *name); /* NULL: all */
int set_rename(struct set_table *t, const char *from, const char *to);
int set_swap(struct set_table *t, const char *a, const char *b);

/* References from the rules of one family (ext/set.c binds a ruleset about to be installed:
 * reset that family's, then count each rule's): destroy is refused while any. */
void set_refs_reset_family(struct set_table *t, int family);
void set_ref_family(struct set_table *t, int id, int family);

/* ---- one set ----------------------------------------------------------------------------- */

const char *set_name(const struct set_table *t, int id); /* "" if none */
const struct set_type *set_type_of(const struct set *s);
int set_family(const struct set *s); /* 0 for any-family types */
const struct set_create *set_params(const struct set *s);
uint32_t set_count(const struct set *s);
size_t set_memsize(const struct set *s);
unsigned set_refs(const struct set_table *t, int id); /* rules and list:set sets */

enum { SET_F_EXIST = 1 << 0 }; /* add: replace; del: a missing element is no error */

/* Add, delete, test one element (one key: ranges are expanded by the text parser). 0 or
 * -SET_E_*. Test: 1 found, 0 not found (a nomatch element counts as not found). */
int set_add(struct set_table *t, struct set *s, const struct set_key *k,
	    const struct set_elem_opts *o, unsigned flags, uint64_t now);
int set_del(struct set_table *t, struct set *s, const struct set_key *k,
	    const struct set_elem_opts *o, unsigned flags, uint64_t now);
int set_test(struct set_table *t, struct set *s, const struct set_key *k,
	     const struct set_elem_opts *o, uint64_t now);

/* ---- packets ----------------------------------------------------------------------------- */

/* What -m set and -j SET ask of a packet. */
struct set_pkt {
	const struct pkt *pkt;
	int family;
	const char *in, *out;
	uint64_t now;
	uint32_t len; /* bytes the counters add */
};

enum {
	SET_DIR_SRC = 1, /* bit i of dirs: dimension i takes the source side */
};

/* Counter conditions of -m set (--packets-gt ...). op: SET_CMP_* */
enum { SET_CMP_NONE, SET_CMP_EQ, SET_CMP_NE, SET_CMP_LT, SET_CMP_GT };
struct set_match_opts {
	uint8_t dim;	     /* flags given */
	uint8_t dirs;	     /* bit i: dimension i is src */
	bool return_nomatch; /* a nomatch element matches */
	bool skip_counters, skip_subcounters;
	uint8_t packets_op, bytes_op;
	uint64_t packets, bytes;
};

/* -m set: does the packet's key lie in set `id`? Updates the counters of the element found. */
bool set_match_pkt(struct set_table *t, int id, const struct set_pkt *sp,
		   const struct set_match_opts *mo);

/* -j SET: add (with o's timeout, or the set's), delete; the map-set lookup returns the
 * element's skbinfo through *o (0 found, -1 not). */
int set_add_pkt(struct set_table *t, int id, const struct set_pkt *sp, uint8_t dim, uint8_t dirs,
		const struct set_elem_opts *o, unsigned flags);
int set_del_pkt(struct set_table *t, int id, const struct set_pkt *sp, uint8_t dim, uint8_t dirs);
int set_map_pkt(struct set_table *t, int id, const struct set_pkt *sp, uint8_t dim, uint8_t dirs,
		struct set_elem_opts *o);

/* Free the expired elements of up to `budget` buckets, resuming where the last call stopped. */
void set_table_sweep(struct set_table *t, uint64_t now, unsigned budget);

/* ---- text: elements, create lines, `ipset save`, `ipset list` ---------------------------- */

/*
 * Parse element text ("10.0.0.0/8,tcp:80") for set s. Ranges and CIDR blocks of a hash:ip-like
 * dimension and port ranges expand: `each` is called per key (at most `limit` keys; more is
 * -SET_E_FULL). 0, or -SET_E_* / -EINVAL with ipset's text in err.
 */
int set_elem_parse(const struct set_table *t, const struct set *s, const char *text,
		   int (*each)(void *arg, const struct set_key *k), void *arg, char *err,
		   size_t errlen);
/* Print one key as ipset prints it ("10.0.0.0/8,tcp:80"). */
void set_key_print(const struct set_table *t, const struct set *s, const struct set_key *k,
		   FILE *f);

/* The create line's options after the type ("family inet hashsize 1024 ..."). */
void set_print_header(const struct set *s, FILE *f);

/* Every element of a set, sorted (keys compare as their packed bytes): key, extensions
 * (remaining timeout in seconds, counters, comment, skbinfo, nomatch), as ipset prints them
 * after the key. */
void set_print_members(const struct set_table *t, const struct set *s, uint64_t now, FILE *f,
		       const char *prefix);

#endif

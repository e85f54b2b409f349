/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the control messages (msg.c, msg_ct.c, msg_exp.c, msg_rules.c only).
 *
 * msg.c is the core: the validation discipline, tuples (every subsystem carries them), framing,
 * errors and the request dispatcher. Each subsystem file holds its own attribute tables, its
 * encoders and decoders, so a new attribute is one table line and its decode in one file.
 */
#ifndef CTL_MSG_INT_H
#define CTL_MSG_INT_H

#include <endian.h>

#include "ctl/msg.h"

struct ctl_level;

/* One attribute at one nesting level. */
struct ctl_pol {
	uint8_t type; /* MNL_TYPE_*; MNL_TYPE_UNSPEC: not known at this level (skipped) */
	uint8_t len;  /* exact payload length for BINARY; 0: any */
	const char *name;
	const struct ctl_level *nest;
};

struct ctl_level {
	uint16_t max;
	const struct ctl_pol *pol;
};

#define LEVEL(p)                                                                                   \
	{                                                                                          \
		.max = sizeof(p) / sizeof(p[0]) - 1, .pol = p                                      \
	}

/* The tables other files point to: a tuple (msg.c) and each message type's top level. */
extern const struct ctl_level ctl_tuple_level;
extern const struct ctl_level ctl_ct_level, ctl_stats_cpu_level, ctl_stats_global_level;
extern const struct ctl_level ctl_exp_level;
extern const struct ctl_level ctl_rules_level;
extern const struct ctl_level ctl_set_level;

/* Fill err (code, offending attribute, message); returns code. */
__attribute__((format(printf, 4, 5))) int ctl_fail(struct ctl_error *err, int code,
						   const struct nlattr *attr, const char *fmt, ...);
/* A required attribute `type` is absent from nest (NULL: the top level). -EINVAL. */
int ctl_missing(struct ctl_error *err, uint16_t type, const struct nlattr *nest, const char *what);
/*
 * Validate the attributes of a nest (nest != NULL) or of a message after its nfgenmsg against
 * lv, recursively; tb (may be NULL) gets the known attributes of this level. 0 or err->code.
 */
int ctl_validate_level(const struct ctl_level *lv, const struct nlattr *nest,
		       const struct nlmsghdr *nlh, const char *path, const struct nlattr **tb,
		       struct ctl_error *err, unsigned depth);
/* Framing and validation common to requests and replies; tb gets the top level. */
int ctl_check_message(const struct nlmsghdr *nlh, const struct nlattr **tb, struct ctl_error *err);
uint8_t ctl_msg_family(const struct nlmsghdr *nlh);

/* Decode a (validated) CTA_TUPLE_* nest; `name` prefixes error paths. */
int ctl_decode_tuple(const struct nlattr *nest, struct ctl_tuple *t, uint8_t family,
		     const char *name, struct ctl_error *err);
/* The `have` bits of a complete tuple of this protocol (what an entry's tuple carries). */
uint32_t ctl_tuple_full_have(const struct ct_tuple *t);

/* The subsystems' request decoders, called by ctl_parse_request with the top level in tb. */
int ctl_decode_ct_request(const struct nlattr *const *tb, struct ctl_request *req,
			  struct ctl_error *err);
int ctl_decode_exp_request(const struct nlattr *const *tb, struct ctl_request *req,
			   struct ctl_error *err);
int ctl_decode_rules_request(const struct nlmsghdr *nlh, const struct nlattr *const *tb,
			     struct ctl_request *req, struct ctl_error *err);
int ctl_decode_set_request(const struct nlmsghdr *nlh, const struct nlattr *const *tb,
			   struct ctl_request *req, struct ctl_error *err);

static inline uint64_t ctl_attr_get_be64(const struct nlattr *a)
{
	return be64toh(mnl_attr_get_u64(a));
}

#endif

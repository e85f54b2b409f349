/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Name tables of the packet text form (private to src/pkt: spec.c and its tests). */
#ifndef PKT_SPEC_NAMES_H
#define PKT_SPEC_NAMES_H

#include <stdint.h>

struct spec_name {
	const char *name;
	int value;
};

struct spec_icmp_name {
	const char *name;
	uint8_t type;
	int16_t code; /* -1: the type, any code */
};

struct spec_ipopt {
	const char *name;
	uint8_t len;
	uint8_t bytes[8];
};

extern const struct spec_name spec_protos[];
extern const char *const spec_tcp_flags[8];
extern const struct spec_name spec_sctp_chunks[];
extern const struct spec_name spec_dccp_types[];
extern const struct spec_name spec_ext_names[];
extern const struct spec_icmp_name spec_icmp4_names[];
extern const struct spec_icmp_name spec_icmp6_names[];
extern const struct spec_ipopt spec_ipopts[];

/* Value of a name (case-insensitive), -1 if unknown. */
int spec_name_lookup(const struct spec_name *t, const char *name);
/* First name with this value, NULL if none. */
const char *spec_name_of(const struct spec_name *t, int value);
const struct spec_icmp_name *spec_icmp_table(int family);
const struct spec_icmp_name *spec_icmp_by_name(int family, const char *name);
/* The most specific name: exact (type, code) first, else the type's own name. */
const struct spec_icmp_name *spec_icmp_by_value(int family, uint8_t type, uint8_t code);

#endif

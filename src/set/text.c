// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Elements and headers as ipset(8) writes them.
 *
 *   hash:ip            10.0.0.1   10.0.0.0/30 (expands)   10.0.0.1-10.0.0.5 (expands)
 *   hash:net           10.0.0.0/8 (a full-length prefix prints without "/32")
 *   hash:ip,port       10.0.0.1,tcp:80   10.0.0.1,80 (tcp)   10.0.0.1,udp:53-55 (expands)
 *                      10.0.0.1,icmp:echo-request   10.0.0.1,icmp:3/1   10.0.0.1,gre:0
 *   hash:net,iface     10.0.0.0/8,eth0   10.0.0.0/8,physdev:eth1
 *   hash:mac           00:11:22:33:44:55
 *   bitmap:port        80   tcp:80   20-22
 *   list:set           NAME
 *
 * After the key, the element options in ipset's order: timeout, packets, bytes, comment,
 * skbmark, skbprio, skbqueue, nomatch.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "set/set_int.h"

struct icmp_name {
	const char *name;
	uint8_t type, code;
};

/* The ICMP names ipset knows (type/code pairs), in its spelling. */
static const struct icmp_name icmp4[] = {
    {"echo-reply", 0, 0},
    {"network-unreachable", 3, 0},
    {"host-unreachable", 3, 1},
    {"protocol-unreachable", 3, 2},
    {"port-unreachable", 3, 3},
    {"fragmentation-needed", 3, 4},
    {"source-route-failed", 3, 5},
    {"network-unknown", 3, 6},
    {"host-unknown", 3, 7},
    {"host-isolated", 3, 8},
    {"network-prohibited", 3, 9},
    {"host-prohibited", 3, 10},
    {"TOS-network-unreachable", 3, 11},
    {"TOS-host-unreachable", 3, 12},
    {"communication-prohibited", 3, 13},
    {"host-precedence-violation", 3, 14},
    {"precedence-cutoff", 3, 15},
    {"source-quench", 4, 0},
    {"network-redirect", 5, 0},
    {"host-redirect", 5, 1},
    {"TOS-network-redirect", 5, 2},
    {"TOS-host-redirect", 5, 3},
    {"echo-request", 8, 0},
    {"router-advertisement", 9, 0},
    {"router-solicitation", 10, 0},
    {"ttl-zero-during-transit", 11, 0},
    {"ttl-zero-during-reassembly", 11, 1},
    {"ip-header-bad", 12, 0},
    {"required-option-missing", 12, 1},
    {"timestamp-request", 13, 0},
    {"timestamp-reply", 14, 0},
    {"address-mask-request", 17, 0},
    {"address-mask-reply", 18, 0},
    {NULL, 0, 0},
};

static const struct icmp_name icmp6[] = {
    {"no-route", 1, 0},
    {"communication-prohibited", 1, 1},
    {"address-unreachable", 1, 3},
    {"port-unreachable", 1, 4},
    {"packet-too-big", 2, 0},
    {"ttl-zero-during-transit", 3, 0},
    {"ttl-zero-during-reassembly", 3, 1},
    {"bad-header", 4, 0},
    {"unknown-header-type", 4, 1},
    {"unknown-option", 4, 2},
    {"echo-request", 128, 0},
    {"echo-reply", 129, 0},
    {"router-solicitation", 133, 0},
    {"router-advertisement", 134, 0},
    {"neighbour-solicitation", 135, 0},
    {"neighbour-advertisement", 136, 0},
    {"redirect", 137, 0},
    {NULL, 0, 0},
};

static const struct {
	const char *name;
	uint8_t proto;
} protos[] = {
    {"tcp", IPPROTO_TCP},	  {"udp", IPPROTO_UDP},		 {"sctp", IPPROTO_SCTP},
    {"udplite", IPPROTO_UDPLITE}, {"icmp", IPPROTO_ICMP},	 {"icmpv6", IPPROTO_ICMPV6},
    {"gre", IPPROTO_GRE},	  {"esp", IPPROTO_ESP},		 {"ah", IPPROTO_AH},
    {"dccp", IPPROTO_DCCP},	  {"ipv6-icmp", IPPROTO_ICMPV6},
};

static int proto_parse(const char *s, uint8_t *p)
{
	char *end;
	unsigned long v;

	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++)
		if (!strcasecmp(protos[i].name, s)) {
			*p = protos[i].proto;
			return 0;
		}
	v = strtoul(s, &end, 10);
	if (!*s || *end || v > 255)
		return -1;
	*p = (uint8_t)v;
	return 0;
}

static void proto_print(uint8_t p, FILE *f)
{
	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++)
		if (protos[i].proto == p) {
			fputs(protos[i].name, f);
			return;
		}
	fprintf(f, "%u", p);
}

static bool has_ports(uint8_t p)
{
	return p == IPPROTO_TCP || p == IPPROTO_UDP || p == IPPROTO_SCTP || p == IPPROTO_UDPLITE;
}

/* ---- parsing ----------------------------------------------------------------------------- */

struct parse {
	const struct set_table *t;
	const struct set *s;
	char *err;
	size_t errlen;
	int (*each)(void *arg, const struct set_key *k);
	void *arg;
	unsigned n;
};

static int fail(struct parse *ps, int code, const char *fmt, const char *tok)
{
	snprintf(ps->err, ps->errlen, fmt, tok);
	return code;
}

static int addr_parse(struct parse *ps, const char *s, union pt_addr *a)
{
	int fam = ps->s->alen == 4 ? AF_INET : AF_INET6;

	memset(a, 0, sizeof(*a));
	if (pt_addr_parse(s, a) != fam)
		return fail(ps, -EINVAL,
			    fam == AF_INET ? "Syntax error: cannot parse %s: resolving to IPv4 "
					     "address failed"
					   : "Syntax error: cannot parse %s: resolving to IPv6 "
					     "address failed",
			    s);
	return 0;
}

static int uint_parse(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	*out = strtoul(s, &end, 0);
	return errno || *end || *out > max ? -1 : 0;
}

/* "addr", "addr/len" (masked), "lo-hi" (IPv4): *lo, *hi, *len (full if none given). */
static int ip_range_parse(struct parse *ps, char *s, union pt_addr *lo, union pt_addr *hi,
			  unsigned *len, bool *ranged)
{
	unsigned full = ps->s->alen * 8u;
	char *slash = strchr(s, '/'), *dash = ps->s->alen == 4 ? strchr(s, '-') : NULL;
	unsigned long v;
	union pt_addr mask;

	*ranged = false;
	*len = full;
	if (slash) {
		*slash = '\0';
		if (uint_parse(slash + 1, 255, &v) || v > full || v == 0)
			return fail(
			    ps, -SET_E_CIDR,
			    "The value of the CIDR parameter of the IP address is invalid%s", "");
		*len = (unsigned)v;
	} else if (dash) {
		*dash = '\0';
		if (addr_parse(ps, s, lo) || addr_parse(ps, dash + 1, hi))
			return -EINVAL;
		if (ntohl(lo->w[0]) > ntohl(hi->w[0]))
			return fail(ps, -EINVAL, "Syntax error: %s is not a valid range", s);
		*ranged = true;
		return 0;
	}
	if (addr_parse(ps, s, lo))
		return -EINVAL;
	pt_mask_from_len(ps->s->alen == 4 ? AF_INET : AF_INET6, (int)*len, &mask);
	for (unsigned w = 0; w < 4; w++) {
		lo->w[w] &= mask.w[w];
		hi->w[w] = lo->w[w] | (~mask.w[w] & (ps->s->alen == 4 && w ? 0 : ~0u));
	}
	if (ps->s->alen == 4)
		hi->w[1] = hi->w[2] = hi->w[3] = 0;
	*ranged = *len != full;
	return 0;
}

static int icmp_parse(struct parse *ps, const char *s, bool v6, uint16_t *port)
{
	const struct icmp_name *t = v6 ? icmp6 : icmp4;
	unsigned long ty, co;
	char buf[64], *slash;

	for (; t->name; t++)
		if (!strcasecmp(t->name, s)) {
			*port = (uint16_t)(t->type << 8 | t->code);
			return 0;
		}
	snprintf(buf, sizeof(buf), "%s", s);
	if (!(slash = strchr(buf, '/')))
		return fail(ps, -EINVAL, "Syntax error: Invalid ICMP type/code %s", s);
	*slash = '\0';
	if (uint_parse(buf, 255, &ty) || uint_parse(slash + 1, 255, &co))
		return fail(ps, -EINVAL, "Syntax error: Invalid ICMP type/code %s", s);
	*port = (uint16_t)(ty << 8 | co);
	return 0;
}

static int port_one(struct parse *ps, const char *s, const char *proto, uint16_t *out)
{
	unsigned long v;

	if (!uint_parse(s, 65535, &v)) {
		*out = (uint16_t)v;
		return 0;
	}
	{
		struct servent *se = getservbyname(s, proto);

		if (se) {
			*out = ntohs((uint16_t)se->s_port);
			return 0;
		}
	}
	return fail(ps, -EINVAL, "Syntax error: cannot parse '%s' as a port number", s);
}

/* "[proto:]port[-port]", "icmp:type/code": proto, lo, hi. */
static int port_parse(struct parse *ps, char *s, uint8_t *proto, uint16_t *lo, uint16_t *hi)
{
	char *colon = strchr(s, ':'), *dash;
	const char *pname = "tcp";

	*proto = IPPROTO_TCP;
	if (colon) {
		*colon = '\0';
		if (proto_parse(s, proto) < 0)
			return fail(ps, -EINVAL, "Syntax error: Unknown protocol %s", s);
		pname = s;
		s = colon + 1;
		if (*proto == IPPROTO_ICMP || *proto == IPPROTO_ICMPV6) {
			if ((*proto == IPPROTO_ICMPV6) != (ps->s->alen == 16) &&
			    ps->s->c.type->kind == SET_K_HASH)
				return fail(ps, -EINVAL,
					    "Syntax error: Protocol %s can be used with "
					    "family inet6 only",
					    pname);
			*hi = 0;
			if (icmp_parse(ps, s, *proto == IPPROTO_ICMPV6, lo))
				return -EINVAL;
			*hi = *lo;
			return 0;
		}
		if (!has_ports(*proto)) {
			unsigned long v;

			if (uint_parse(s, 65535, &v) || v)
				return fail(ps, -EINVAL,
					    "Syntax error: Protocol %s cannot use port", pname);
			*lo = *hi = 0;
			return 0;
		}
	}
	if ((dash = strchr(s, '-'))) {
		*dash = '\0';
		if (port_one(ps, s, pname, lo) || port_one(ps, dash + 1, pname, hi))
			return -EINVAL;
		if (*lo > *hi) {
			uint16_t x = *lo;

			*lo = *hi;
			*hi = x;
		}
		return 0;
	}
	if (port_one(ps, s, pname, lo))
		return -EINVAL;
	*hi = *lo;
	return 0;
}

static int mac_parse(struct parse *ps, const char *s, uint8_t mac[6])
{
	unsigned v[6];
	char c;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &c) !=
	    6)
		return fail(ps, -EINVAL, "Syntax error: cannot parse %s as ethernet address", s);
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)v[i];
	return 0;
}

/* One dimension's possibilities, enumerated by expand(). */
struct dimval {
	union pt_addr lo, hi;
	unsigned len; /* prefix length (NET), or the step's (bitmap netmask) */
	bool ranged;  /* an IP range to walk */
	uint16_t plo, phi;
};

/* The number of keys is bounded before any is made, so a huge range fails whole. */
#define SET_EXPAND_MAX 65536u

static int expand(struct parse *ps, struct set_key *k, struct dimval *dv, unsigned d, unsigned ai)
{
	const struct set_type *ty = ps->s->c.type;
	int rc;

	if (d == ty->ndims) {
		if (++ps->n > SET_EXPAND_MAX)
			return fail(ps, -SET_E_FULL, "Hash is full, cannot add more elements%s",
				    "");
		return ps->each(ps->arg, k);
	}
	switch (ty->dims[d]) {
	case SET_D_IP:
		if (dv[d].ranged) {
			uint32_t lo = ntohl(dv[d].lo.w[0]), hi = ntohl(dv[d].hi.w[0]);
			unsigned shift = ps->s->c.netmask ? 32u - ps->s->c.netmask : 0;

			if (((uint64_t)hi - lo) >> shift >= SET_EXPAND_MAX)
				return fail(ps, -SET_E_FULL,
					    "Hash is full, cannot add more elements%s", "");
			for (uint64_t a = lo; a <= hi; a += 1ull << shift) {
				memset(&k->ip[ai], 0, sizeof(k->ip[ai]));
				k->ip[ai].w[0] = htonl((uint32_t)a);
				k->cidr[ai] = 32;
				if ((rc = expand(ps, k, dv, d + 1, ai + 1)) < 0)
					return rc;
			}
			return 0;
		}
		k->ip[ai] = dv[d].lo;
		k->cidr[ai] = (uint8_t)(ps->s->alen * 8);
		return expand(ps, k, dv, d + 1, ai + 1);
	case SET_D_NET:
		k->ip[ai] = dv[d].lo;
		k->cidr[ai] = (uint8_t)dv[d].len;
		return expand(ps, k, dv, d + 1, ai + 1);
	case SET_D_PORT:
		for (uint32_t p = dv[d].plo; p <= dv[d].phi; p++) {
			k->port = (uint16_t)p;
			if ((rc = expand(ps, k, dv, d + 1, ai)) < 0)
				return rc;
		}
		return 0;
	default:
		return expand(ps, k, dv, d + 1, ai);
	}
}

int set_elem_parse(const struct set_table *t, const struct set *s, const char *text,
		   int (*each)(void *arg, const struct set_key *k), void *arg, char *err,
		   size_t errlen)
{
	struct parse ps = {t, s, err, errlen, each, arg, 0};
	const struct set_type *ty = s->c.type;
	struct dimval dv[3];
	struct set_key k;
	char buf[256], *part[3], *save = NULL;
	unsigned n = 0;
	int rc;

	memset(&k, 0, sizeof(k));
	memset(dv, 0, sizeof(dv));
	if (strlen(text) >= sizeof(buf))
		return fail(&ps, -EINVAL, "Syntax error: element %s is too long", "");
	snprintf(buf, sizeof(buf), "%s", text);
	if (ty->kind == SET_K_LIST) {
		int id = set_find(t, text);

		if (id < 0)
			return fail(&ps, -SET_E_LISTNOSET, "%s", set_strerror(SET_E_LISTNOSET));
		k.set_id = (uint32_t)id;
		return each(arg, &k);
	}
	if (ty->dims[0] == SET_D_MAC) {
		if (mac_parse(&ps, text, k.mac))
			return -EINVAL;
		return each(arg, &k);
	}
	for (char *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if (n == ty->ndims)
			return fail(&ps, -EINVAL,
				    "Syntax error: Elem separator in %s, but settype "
				    "supports fewer dimensions",
				    text);
		part[n++] = p;
	}
	if (n < ty->ndims)
		return fail(&ps, -EINVAL, "Syntax error: Second element is missing from %s.", text);
	for (unsigned d = 0, ai = 0; d < ty->ndims; d++) {
		switch (ty->dims[d]) {
		case SET_D_IP:
			if ((rc = ip_range_parse(&ps, part[d], &dv[d].lo, &dv[d].hi, &dv[d].len,
						 &dv[d].ranged)) < 0)
				return rc;
			if (dv[d].ranged && (s->alen == 16 || d))
				return fail(
				    &ps, -EINVAL,
				    "Syntax error: range/CIDR is not supported in element %s",
				    text);
			if (ty->kind == SET_K_BITMAP_IP && !dv[d].ranged) {
				dv[d].hi = dv[d].lo;
				dv[d].ranged = true;
			}
			ai++;
			break;
		case SET_D_NET:
			if ((rc = ip_range_parse(&ps, part[d], &dv[d].lo, &dv[d].hi, &dv[d].len,
						 &dv[d].ranged)) < 0)
				return rc;
			if (dv[d].ranged && dv[d].len == s->alen * 8u)
				return fail(&ps, -EINVAL,
					    "Syntax error: IP address ranges are not supported in "
					    "element %s: give networks",
					    text);
			ai++;
			break;
		case SET_D_PORT:
			if (ty->kind == SET_K_BITMAP_PORT) {
				rc = port_parse(&ps, part[d], &k.proto, &dv[d].plo, &dv[d].phi);
				k.proto = 0;
			} else {
				rc = port_parse(&ps, part[d], &k.proto, &dv[d].plo, &dv[d].phi);
			}
			if (rc < 0)
				return rc;
			break;
		case SET_D_IFACE: {
			const char *name = part[d];

			if (!strncmp(name, "physdev:", 8)) {
				k.physdev = true;
				name += 8;
			}
			if (!*name || strlen(name) >= SET_IFACE_MAX)
				return fail(&ps, -EINVAL, "Syntax error: Invalid interface name %s",
					    part[d]);
			snprintf(k.iface, sizeof(k.iface), "%s", name);
			break;
		}
		default:
			break;
		}
	}
	return expand(&ps, &k, dv, 0, 0);
}

/* ---- printing ---------------------------------------------------------------------------- */

static void addr_print(const struct set *s, const union pt_addr *a, FILE *f)
{
	char buf[64];

	fputs(pt_addr_str(s->alen == 4 ? AF_INET : AF_INET6, a, buf, sizeof(buf)), f);
}

static void port_print(const struct set *s, const struct set_key *k, FILE *f)
{
	if (s->c.type->kind == SET_K_BITMAP_PORT) {
		fprintf(f, "%u", k->port);
		return;
	}
	proto_print(k->proto, f);
	if (k->proto == IPPROTO_ICMP || k->proto == IPPROTO_ICMPV6) {
		const struct icmp_name *t = k->proto == IPPROTO_ICMP ? icmp4 : icmp6;

		for (; t->name; t++)
			if ((t->type << 8 | t->code) == k->port) {
				fprintf(f, ":%s", t->name);
				return;
			}
		fprintf(f, ":%u/%u", k->port >> 8, k->port & 0xff);
		return;
	}
	fprintf(f, ":%u", k->port);
}

void set_key_print(const struct set_table *t, const struct set *s, const struct set_key *k, FILE *f)
{
	unsigned ai = 0;

	for (unsigned d = 0; d < s->c.type->ndims; d++) {
		if (d)
			fputc(',', f);
		switch (s->c.type->dims[d]) {
		case SET_D_IP:
			addr_print(s, &k->ip[ai++], f);
			break;
		case SET_D_NET:
			addr_print(s, &k->ip[ai], f);
			if (k->cidr[ai] != s->alen * 8)
				fprintf(f, "/%u", k->cidr[ai]);
			ai++;
			break;
		case SET_D_PORT:
			port_print(s, k, f);
			break;
		case SET_D_IFACE:
			fprintf(f, "%s%s", k->physdev ? "physdev:" : "", k->iface);
			break;
		case SET_D_MAC:
			fprintf(f, "%02X:%02X:%02X:%02X:%02X:%02X", k->mac[0], k->mac[1], k->mac[2],
				k->mac[3], k->mac[4], k->mac[5]);
			break;
		default: {
			fputs(set_name(t, (int)k->set_id), f);
		}
		}
	}
}

void set_print_header(const struct set *s, FILE *f)
{
	const struct set_create *c = &s->c;
	char a[64], b[64];
	const char *sep = "";

	switch (c->type->kind) {
	case SET_K_HASH:
		if (!c->type->any_family)
			fprintf(f, "family %s ", c->family == AF_INET6 ? "inet6" : "inet");
		fprintf(f, "hashsize %u maxelem %u", c->hashsize, c->maxelem);
		break;
	case SET_K_BITMAP_IP:
		fprintf(f, "range %s-%s", pt_addr_str(AF_INET, &c->from, a, sizeof(a)),
			pt_addr_str(AF_INET, &c->to, b, sizeof(b)));
		if (c->netmask && c->netmask != 32)
			fprintf(f, " netmask %u", c->netmask);
		break;
	case SET_K_BITMAP_PORT:
		fprintf(f, "range %u-%u", c->pfrom, c->pto);
		break;
	case SET_K_LIST:
		fprintf(f, "size %u", c->size);
		break;
	}
	sep = " ";
	if (c->has_timeout)
		fprintf(f, "%stimeout %u", sep, c->timeout);
	if (c->counters)
		fprintf(f, "%scounters", sep);
	if (c->comment)
		fprintf(f, "%scomment", sep);
	if (c->skbinfo)
		fprintf(f, "%sskbinfo", sep);
	if (c->forceadd)
		fprintf(f, "%sforceadd", sep);
	if (c->type->kind == SET_K_HASH)
		fprintf(f, "%sbucketsize %u initval 0x%08x", sep,
			c->bucketsize ? c->bucketsize : 12, c->initval);
}

static void comment_print(const char *c, FILE *f)
{
	fputs(" comment \"", f);
	for (; *c; c++)
		if (*c != '"')
			fputc(*c, f);
	fputc('"', f);
}

struct collect {
	const struct set_elem **v;
	size_t n, cap;
	bool nomem;
};

static void collect_one(void *arg, const struct set_elem *e)
{
	struct collect *c = arg;

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		const struct set_elem **v = realloc(c->v, cap * sizeof(*v));

		if (!v) {
			c->nomem = true;
			return;
		}
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = e;
}

static int elem_cmp(const void *a, const void *b, void *arg)
{
	const struct set_elem *x = *(const struct set_elem *const *)a;
	const struct set_elem *y = *(const struct set_elem *const *)b;
	const struct set *s = arg;

	return memcmp(x->data + s->off_key, y->data + s->off_key, s->keylen);
}

void set_print_members(const struct set_table *t, const struct set *s, uint64_t now, FILE *f,
		       const char *prefix)
{
	struct collect c = {0};

	set_walk(s, now, collect_one, &c);
	if (s->c.type->kind == SET_K_HASH && c.n > 1)
		qsort_r(c.v, c.n, sizeof(*c.v), elem_cmp, (void *)s);
	for (size_t i = 0; i < c.n; i++) {
		struct set_elem *e = (struct set_elem *)c.v[i];
		struct set_counters *cn = set_elem_counters(s, e);
		struct set_skbinfo *sk = set_elem_skbinfo(s, e);
		char **cm = set_elem_comment(s, e);
		struct set_key k;

		set_key_unpack(s, e->data + s->off_key, &k);
		fputs(prefix, f);
		set_key_print(t, s, &k, f);
		if (s->c.has_timeout)
			fprintf(f, " timeout %" PRIu64,
				(uint64_t)(e->expires ? (e->expires - now) / SET_NS_PER_S : 0));
		if (cn)
			fprintf(f, " packets %" PRIu64 " bytes %" PRIu64, cn->packets, cn->bytes);
		if (cm && *cm)
			comment_print(*cm, f);
		if (sk) {
			if (sk->mark || sk->mask)
				fprintf(f,
					sk->mask == 0xffffffff ? " skbmark 0x%x"
							       : " skbmark 0x%x/0x%x",
					sk->mark, sk->mask);
			if (sk->prio)
				fprintf(f, " skbprio %x:%x", sk->prio >> 16, sk->prio & 0xffff);
			if (sk->queue)
				fprintf(f, " skbqueue %u", sk->queue);
		}
		if (e->flags & SET_EF_NOMATCH)
			fputs(" nomatch", f);
		fputc('\n', f);
	}
	free(c.v);
}

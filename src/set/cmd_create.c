// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ipset's create command: a set's type, family and options as ipset(8) takes them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "set/cmd_int.h"
#include "set/set_cmd.h"

/* ---- create ------------------------------------------------------------------------------ */

static int bitmap_range(struct exec *x, struct set_create *c, char *v)
{
	char *dash = strchr(v, '-'), *slash = strchr(v, '/');

	if (c->type->kind == SET_K_BITMAP_PORT) {
		uint32_t lo, hi;

		if (!dash)
			return sx_usage_err(x, "Syntax error: invalid port range %s", v) - 1;
		*dash = '\0';
		if (sx_parse_u32(x, v, &lo) || sx_parse_u32(x, dash + 1, &hi) || lo > 65535 ||
		    hi > 65535)
			return 1;
		c->pfrom = (uint16_t)(lo < hi ? lo : hi);
		c->pto = (uint16_t)(lo < hi ? hi : lo);
		return 0;
	}
	memset(&c->from, 0, sizeof(c->from));
	memset(&c->to, 0, sizeof(c->to));
	if (dash) {
		*dash = '\0';
		if (pt_addr_parse(v, &c->from) != AF_INET ||
		    pt_addr_parse(dash + 1, &c->to) != AF_INET)
			goto bad;
		if (ntohl(c->from.w[0]) > ntohl(c->to.w[0])) {
			union pt_addr a = c->from;

			c->from = c->to;
			c->to = a;
		}
		return 0;
	}
	if (slash) {
		union pt_addr mask;
		uint32_t len;

		*slash = '\0';
		if (pt_addr_parse(v, &c->from) != AF_INET || sx_parse_u32(x, slash + 1, &len) ||
		    len > 32 || len == 0)
			goto bad;
		pt_mask_from_len(AF_INET, (int)len, &mask);
		c->from.w[0] &= mask.w[0];
		c->to.w[0] = c->from.w[0] | ~mask.w[0];
		return 0;
	}
bad:
	snprintf(x->err, x->errlen,
		 "Syntax error: cannot parse %s: resolving to IPv4 address "
		 "failed",
		 v);
	return 1;
}

int sx_cmd_create(struct exec *x, int argc, char **argv)
{
	struct set_create c = {0};
	bool has_range = false;
	int rc;

	if (argc < 3)
		return sx_usage_err(x, "Missing mandatory argument to command %s", "create");
	if (strlen(argv[1]) >= SET_NAME_MAX) {
		snprintf(x->err, x->errlen,
			 "Syntax error: setname '%s' is longer than %d "
			 "characters",
			 argv[1], SET_NAME_MAX - 1);
		return 1;
	}
	if (!(c.type = set_type_find(argv[2]))) {
		snprintf(x->err, x->errlen, "Syntax error: typename '%s' is unknown", argv[2]);
		return 1;
	}
	c.family = c.type->any_family ? 0 : AF_INET;
	c.maxelem = 65536;
	c.hashsize = 1024;
	c.bucketsize = 12;
	c.size = 8;
	for (int i = 3; i < argc; i++) {
		const char *o = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool hash = c.type->kind == SET_K_HASH;

		if (!strcmp(o, "counters"))
			c.counters = true;
		else if (!strcmp(o, "comment"))
			c.comment = true;
		else if (!strcmp(o, "skbinfo"))
			c.skbinfo = true;
		else if (!strcmp(o, "forceadd") && hash)
			c.forceadd = true;
		else if (!v)
			return sx_usage_err(x, "Unknown argument: `%s'", o);
		else if (!strcmp(o, "timeout")) {
			if (sx_parse_timeout(x, v, &c.timeout))
				return 1;
			c.has_timeout = true;
			i++;
		} else if (!strcmp(o, "family") && !c.type->any_family) {
			if (!strcmp(v, "inet") || !strcmp(v, "ipv4"))
				c.family = AF_INET;
			else if ((!strcmp(v, "inet6") || !strcmp(v, "ipv6")) && !c.type->inet_only)
				c.family = AF_INET6;
			else {
				snprintf(x->err, x->errlen, "Syntax error: unknown inet family %s",
					 v);
				return 1;
			}
			i++;
		} else if (!strcmp(o, "hashsize") && hash) {
			if (sx_parse_u32(x, v, &c.hashsize))
				return 1;
			i++;
		} else if (!strcmp(o, "maxelem") && hash) {
			if (sx_parse_u32(x, v, &c.maxelem))
				return 1;
			i++;
		} else if (!strcmp(o, "bucketsize") && hash) {
			if (sx_parse_u32(x, v, &c.bucketsize))
				return 1;
			c.bucketsize = c.bucketsize < 2 ? 2 : c.bucketsize > 12 ? 12 : c.bucketsize;
			i++;
		} else if (!strcmp(o, "initval") && hash) {
			if (sx_parse_u32(x, v, &c.initval))
				return 1;
			c.has_initval = true;
			i++;
		} else if (!strcmp(o, "size") && c.type->kind == SET_K_LIST) {
			if (sx_parse_u32(x, v, &c.size))
				return 1;
			if (c.size < 4)
				c.size = 4; /* list:set's minimum */
			if (c.size > SET_LIST_MAX)
				c.size = SET_LIST_MAX;
			i++;
		} else if (!strcmp(o, "netmask") && c.type->kind == SET_K_BITMAP_IP) {
			uint32_t nm;

			if (sx_parse_u32(x, v, &nm))
				return 1;
			if (nm == 0 || nm > 32) {
				snprintf(x->err, x->errlen, "%s",
					 "Syntax error: netmask is out of "
					 "the inclusive range of 1-32");
				return 1;
			}
			c.netmask = (uint8_t)nm;
			i++;
		} else if (!strcmp(o, "range") &&
			   (c.type->kind == SET_K_BITMAP_IP || c.type->kind == SET_K_BITMAP_PORT)) {
			char buf[128];

			snprintf(buf, sizeof(buf), "%s", v);
			if ((rc = bitmap_range(x, &c, buf)))
				return rc;
			has_range = true;
			i++;
		} else
			return sx_usage_err(x, "Unknown argument: `%s'", o);
	}
	if (c.type->kind == SET_K_BITMAP_IP || c.type->kind == SET_K_BITMAP_PORT) {
		uint64_t n;

		if (!has_range)
			return sx_usage_err(x, "Missing mandatory argument to command %s",
					    "create");
		if (c.type->kind == SET_K_BITMAP_IP) {
			unsigned nm = c.netmask ? c.netmask : 32;
			union pt_addr m;

			/* the range widens to whole netmask blocks, as ipset prints it */
			pt_mask_from_len(AF_INET, (int)nm, &m);
			c.from.w[0] &= m.w[0];
			c.to.w[0] |= ~m.w[0];
			n = ((uint64_t)ntohl(c.to.w[0]) - ntohl(c.from.w[0]) + 1) >> (32 - nm);
		} else {
			n = (uint64_t)c.pto - c.pfrom + 1;
		}
		if (n > SET_BITMAP_MAX)
			return sx_fail(x, SET_E_BITMAPRANGE);
	}
	if (c.type->kind == SET_K_HASH && (c.maxelem == 0 || c.hashsize == 0))
		return sx_fail(x, SET_E_HASHSIZE);
	if (c.type->kind == SET_K_HASH && !c.has_initval) {
		/* a per-set value the box's key makes unguessable; printed as ipset does */
		uint64_t h = x->t->key[0] ^ (x->t->key[1] >> 7);

		for (const char *p = argv[1]; *p; p++)
			h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
		c.initval = (uint32_t)(h ^ h >> 32);
	}
	if ((rc = set_create(x->t, argv[1], &c, x->exist, NULL)) < 0)
		return sx_fail(x, rc);
	if (x->cow)
		x->owned[set_find(x->t, argv[1])] = true;
	return 0;
}

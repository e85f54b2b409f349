// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Range syntax and BEHAVE options of the NAT targets (nat_opt.h), parsed and printed as
 * iptables 1.8.9 does (tests/compat/SNAT.t and friends from the kernel oracle).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "ext/nat_opt.h"

static bool ports_ok(const struct ext_parse_ctx *ctx)
{
	switch (ctx->proto) {
	case 6:
	case 17:
	case 132:
	case 33:
		return true;
	case 1:
		return ctx->family == AF_INET;
	default:
		return false;
	}
}

static const char *proto_name(uint16_t proto)
{
	switch (proto) {
	case 17:
		return "udp";
	case 132:
		return "sctp";
	case 33:
		return "dccp";
	default:
		return "tcp";
	}
}

static int one_port(struct ext_parse_ctx *ctx, const char *s, uint16_t *out)
{
	if (!*s || ext_parse_port(s, proto_name(ctx->proto), out)) {
		snprintf(ctx->err, ctx->errlen, "Port \"%s\" not valid", s);
		return -EINVAL;
	}
	return 0;
}

int nat_opt_parse_ports(struct ext_parse_ctx *ctx, struct nat_range *r, const char *arg)
{
	char buf[64], *dash, *slash;
	uint16_t whole;

	if (!ports_ok(ctx)) {
		snprintf(ctx->err, ctx->errlen,
			 "Need TCP, UDP, SCTP or DCCP with port specification");
		return -EINVAL;
	}
	if (strlen(arg) >= sizeof(buf)) {
		snprintf(ctx->err, ctx->errlen, "Port range \"%s\" too long", arg);
		return -EINVAL;
	}
	strcpy(buf, arg);
	/* LO-HI/BASE: a shift (DNAT; SNAT and MASQUERADE keep the flag with base 0) */
	slash = strchr(buf, '/');
	if (slash) {
		*slash++ = '\0';
		if (one_port(ctx, slash, &r->base_port))
			return -EINVAL;
		r->flags |= NAT_R_PROTO_OFFSET;
	}
	/* a service name with a dash (ftp-data) is one port, not a range */
	if (strchr(buf, '-') && !ext_parse_port(buf, proto_name(ctx->proto), &whole)) {
		r->min_port = r->max_port = whole;
		r->flags |= NAT_R_PROTO;
		return 0;
	}
	dash = strchr(buf, '-');
	if (dash)
		*dash++ = '\0';
	if (one_port(ctx, buf, &r->min_port))
		return -EINVAL;
	r->max_port = r->min_port;
	if (dash && one_port(ctx, dash, &r->max_port))
		return -EINVAL;
	if (r->max_port < r->min_port) {
		snprintf(ctx->err, ctx->errlen, "Invalid port range \"%s\"", arg);
		return -EINVAL;
	}
	r->flags |= NAT_R_PROTO;
	return 0;
}

static int one_addr(struct ext_parse_ctx *ctx, const char *s, union pt_addr *a)
{
	if (pt_addr_parse(s, a) != ctx->family) {
		snprintf(ctx->err, ctx->errlen, "Bad IP address \"%s\"", s);
		return -EINVAL;
	}
	return 0;
}

int nat_opt_parse_range(struct ext_parse_ctx *ctx, struct nat_range *r, const char *arg)
{
	char buf[128], *addr = buf, *ports = NULL, *dash;

	if (strlen(arg) >= sizeof(buf)) {
		snprintf(ctx->err, ctx->errlen, "Range \"%s\" too long", arg);
		return -EINVAL;
	}
	strcpy(buf, arg);
	r->family = (uint8_t)ctx->family;
	if (ctx->family == AF_INET6) {
		if (buf[0] == '[') {
			char *close = strchr(buf, ']');

			if (!close || (close[1] && close[1] != ':')) {
				snprintf(ctx->err, ctx->errlen, "Invalid address format \"%s\"",
					 arg);
				return -EINVAL;
			}
			*close = '\0';
			addr = buf + 1;
			if (close[1] == ':')
				ports = close + 2;
		}
	} else {
		ports = strchr(buf, ':');
		if (ports)
			*ports++ = '\0';
	}
	if (ports && nat_opt_parse_ports(ctx, r, ports))
		return -EINVAL;
	if (!*addr) {
		if (!ports) {
			snprintf(ctx->err, ctx->errlen, "Bad IP address \"%s\"", arg);
			return -EINVAL;
		}
		return 0;
	}
	dash = strchr(addr, '-');
	if (dash)
		*dash++ = '\0';
	if (one_addr(ctx, addr, &r->min_addr))
		return -EINVAL;
	r->max_addr = r->min_addr;
	if (dash && one_addr(ctx, dash, &r->max_addr))
		return -EINVAL;
	r->flags |= NAT_R_MAP_IPS;
	return 0;
}

static const char *const behave_names[] = {
    [NAT_B_EI] = "endpoint-independent",
    [NAT_B_AD] = "address-dependent",
    [NAT_B_APD] = "address-port-dependent",
};

static const char *const refresh_names[] = {
    [NAT_REFRESH_OUTBOUND] = "outbound",
    [NAT_REFRESH_BOTH] = "both",
};

int nat_opt_parse_behave(struct ext_parse_ctx *ctx, struct nat_range *r, char which,
			 const char *arg)
{
	if (which == 'r') {
		for (unsigned i = NAT_REFRESH_OUTBOUND; i <= NAT_REFRESH_BOTH; i++)
			if (!strcmp(arg, refresh_names[i])) {
				r->refresh = (uint8_t)i;
				return 0;
			}
		snprintf(ctx->err, ctx->errlen, "--refresh: \"%s\" is not outbound or both", arg);
		return -EINVAL;
	}
	for (unsigned i = NAT_B_EI; i <= NAT_B_APD; i++)
		if (!strcmp(arg, behave_names[i])) {
			if (which == 'm')
				r->mapping = (uint8_t)i;
			else
				r->filtering = (uint8_t)i;
			return 0;
		}
	snprintf(ctx->err, ctx->errlen,
		 "--%s: \"%s\" is not endpoint-independent, address-dependent or "
		 "address-port-dependent",
		 which == 'm' ? "mapping" : "filtering", arg);
	return -EINVAL;
}

int nat_opt_parse_common(struct ext_parse_ctx *ctx, struct nat_range *r, const char *name,
			 const char *arg)
{
	if (!strcmp(name, "random"))
		r->flags |= NAT_R_RANDOM;
	else if (!strcmp(name, "random-fully"))
		r->flags |= NAT_R_RANDOM_FULLY;
	else if (!strcmp(name, "persistent"))
		r->flags |= NAT_R_PERSISTENT;
	else if (!strcmp(name, "hairpin"))
		r->hairpin = NAT_HAIRPIN_ON;
	else if (!strcmp(name, "no-hairpin"))
		r->hairpin = NAT_HAIRPIN_OFF;
	else if (!strcmp(name, "mapping") || !strcmp(name, "filtering") || !strcmp(name, "refresh"))
		return nat_opt_parse_behave(ctx, r, name[0], arg);
	else
		return 1;
	return 0;
}

void nat_opt_print_range(struct ext_printer *pr, const char *opt, const struct nat_range *r)
{
	char a[64], b[64];
	bool brackets = r->family == AF_INET6 && (r->flags & NAT_R_PROTO) &&
			(r->flags & NAT_R_MAP_IPS);

	fprintf(pr->f, " --%s ", opt);
	if (r->flags & NAT_R_MAP_IPS) {
		pt_addr_str(r->family, &r->min_addr, a, sizeof(a));
		fprintf(pr->f, "%s%s", brackets ? "[" : "", a);
		if (!pt_addr_eq(&r->min_addr, &r->max_addr))
			fprintf(pr->f, "-%s", pt_addr_str(r->family, &r->max_addr, b, sizeof(b)));
		if (brackets)
			fputc(']', pr->f);
	}
	if (r->flags & NAT_R_PROTO) {
		fprintf(pr->f, ":%u", r->min_port);
		if (r->max_port != r->min_port)
			fprintf(pr->f, "-%u", r->max_port);
		if (r->flags & NAT_R_PROTO_OFFSET)
			fprintf(pr->f, "/%u", r->base_port);
	}
}

void nat_opt_print_flags(struct ext_printer *pr, const struct nat_range *r, bool persistent)
{
	if (r->flags & NAT_R_RANDOM)
		fputs(" --random", pr->f);
	if (r->flags & NAT_R_RANDOM_FULLY)
		fputs(" --random-fully", pr->f);
	if (persistent && (r->flags & NAT_R_PERSISTENT))
		fputs(" --persistent", pr->f);
}

void nat_opt_print_behave(struct ext_printer *pr, const struct nat_range *r)
{
	if (r->mapping)
		fprintf(pr->f, " --mapping %s", behave_names[r->mapping]);
	if (r->filtering)
		fprintf(pr->f, " --filtering %s", behave_names[r->filtering]);
	if (r->refresh)
		fprintf(pr->f, " --refresh %s", refresh_names[r->refresh]);
	if (r->hairpin == NAT_HAIRPIN_ON)
		fputs(" --hairpin", pr->f);
	else if (r->hairpin == NAT_HAIRPIN_OFF)
		fputs(" --no-hairpin", pr->f);
}

int nat_opt_request(struct ext_pkt_ctx *ctx, enum nat_manip m, const struct nat_range *r)
{
	/* without an entry (untracked) the kernel's NAT targets do nothing either */
	const struct ext_env *env = ctx->env;

	if (env && env->ops && env->ops->conntrack)
		nat_request(env->ops->conntrack(env->box), ctx->pkt, m, r);
	return EXT_ACCEPT;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m owner (xt_owner revision 1): the local socket that sent a packet. OUTPUT and POSTROUTING.
 *
 *   [!] --socket-exists   [!] --uid-owner U[-U]   [!] --gid-owner G[-G] [--suppl-groups]
 *
 * U and G are numbers (0..4294967294) or names from the password and group databases of the
 * machine that parses the rule, as iptables reads them; printed as numbers.
 *
 * Whose a packet is: in NFQUEUE mode the kernel says (NFQA_UID/NFQA_GID, the fsuid and fsgid
 * of the socket's file, kept in pkt->sk*); a packet the box makes itself (REJECT's answers,
 * ICMP errors) or reads from a capture or a link has no socket. As in the kernel, a packet
 * without a socket matches only when every option given is inverted (`! --socket-exists`,
 * `! --uid-owner 0`). NFQUEUE carries no supplementary groups: --suppl-groups compares the
 * primary GID only.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "ext/match_util.h"
#include "rules/ext.h"

struct owner_info {
	uint32_t uid[2], gid[2];
};

enum { O_SOCKET, O_UID, O_GID, O_SUPPL };

static const struct ext_opt owner_opts[] = {
    [O_SOCKET] = {.name = "socket-exists", .type = EXT_T_NONE, .flags = EXT_OPT_INVERT},
    [O_UID] = {.name = "uid-owner", .type = EXT_T_CUSTOM, .flags = EXT_OPT_INVERT},
    [O_GID] = {.name = "gid-owner", .type = EXT_T_CUSTOM, .flags = EXT_OPT_INVERT},
    [O_SUPPL] = {.name = "suppl-groups", .type = EXT_T_NONE, .also = 1u << O_GID},
};

/* "N", "N-M" or a name. 0 or -EINVAL. */
static int owner_id_range(const char *arg, bool group, uint32_t r[2])
{
	const char *dash = strchr(arg, '-');
	uint64_t a, b;

	if (!dash || dash == arg) {
		if (!ext_parse_uint(arg, 0, UINT32_MAX - 1, &a)) {
			r[0] = r[1] = (uint32_t)a;
			return 0;
		}
		if (group) {
			const struct group *g = getgrnam(arg);

			if (!g)
				return -EINVAL;
			r[0] = r[1] = (uint32_t)g->gr_gid;
		} else {
			const struct passwd *pw = getpwnam(arg);

			if (!pw)
				return -EINVAL;
			r[0] = r[1] = (uint32_t)pw->pw_uid;
		}
		return 0;
	}
	{
		char lo[32];
		size_t n = (size_t)(dash - arg);

		if (n >= sizeof(lo))
			return -EINVAL;
		memcpy(lo, arg, n);
		lo[n] = '\0';
		if (ext_parse_uint(lo, 0, UINT32_MAX - 1, &a) ||
		    ext_parse_uint(dash + 1, 0, UINT32_MAX - 1, &b) || a > b)
			return -EINVAL;
	}
	r[0] = (uint32_t)a;
	r[1] = (uint32_t)b;
	return 0;
}

static int owner_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned i,
		       const char *arg)
{
	struct owner_info *oi = inst->data;

	if (i != O_UID && i != O_GID)
		return 0;
	if (owner_id_range(arg, i == O_GID, i == O_UID ? oi->uid : oi->gid)) {
		ext_errf(ctx->err, ctx->errlen, "owner: bad --%s \"%s\"", owner_opts[i].name, arg);
		return -EINVAL;
	}
	return 0;
}

static int owner_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	if (!(inst->seen & (1u << O_SOCKET | 1u << O_UID | 1u << O_GID))) {
		ext_errf(ctx->err, ctx->errlen,
			 "owner: one of --socket-exists, --uid-owner or --gid-owner is required");
		return -EINVAL;
	}
	return 0;
}

static void owner_print_range(struct ext_printer *pr, const uint32_t r[2])
{
	if (r[0] == r[1])
		fprintf(pr->f, " %u", r[0]);
	else
		fprintf(pr->f, " %u-%u", r[0], r[1]);
}

static void owner_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct owner_info *oi = inst->data;

	if (inst->seen & 1u << O_SOCKET)
		ext_print_opt(pr, inst, O_SOCKET);
	if (inst->seen & 1u << O_UID) {
		ext_print_opt(pr, inst, O_UID);
		owner_print_range(pr, oi->uid);
	}
	if (inst->seen & 1u << O_GID) {
		ext_print_opt(pr, inst, O_GID);
		owner_print_range(pr, oi->gid);
	}
	if (inst->seen & 1u << O_SUPPL)
		ext_print_opt(pr, inst, O_SUPPL);
}

static bool owner_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct owner_info *oi = inst->data;
	const struct pkt *p = ctx->pkt;
	uint32_t given = inst->seen & (1u << O_SOCKET | 1u << O_UID | 1u << O_GID);

	if (!p->sk) /* no socket: only "not this" options can hold */
		return (given & ~inst->inv) == 0;
	if (given & inst->inv & 1u << O_SOCKET)
		return false;
	if ((given & 1u << O_UID) &&
	    (p->sk_uid >= oi->uid[0] && p->sk_uid <= oi->uid[1]) == !!(inst->inv & 1u << O_UID))
		return false;
	if ((given & 1u << O_GID) &&
	    (p->sk_gid >= oi->gid[0] && p->sk_gid <= oi->gid[1]) == !!(inst->inv & 1u << O_GID))
		return false;
	return true;
}

const struct ext_match ext_match_owner = {
    .name = "owner",
    .hooks = HOOK_BIT(HOOK_OUTPUT) | HOOK_BIT(HOOK_POSTROUTING),
    .datasize = sizeof(struct owner_info),
    .opts = owner_opts,
    .nopts = sizeof(owner_opts) / sizeof(owner_opts[0]),
    .parse = owner_parse,
    .check = owner_check,
    .print = owner_print,
    .match = owner_match,
};

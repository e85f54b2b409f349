/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * -j NFQUEUE: hand the packet to a userspace queue.
 *
 *   --queue-num N            queue N (default 0)
 *   --queue-balance LO:HI    one of LO..HI (LO < HI), chosen by a hash of the address pair
 *                            and protocol that is the same in both directions, so a flow
 *                            stays on one queue (the kernel's jhash, here with seed 0)
 *   --queue-bypass           no listener: accept instead of drop
 *   --queue-cpu-fanout       choose by CPU instead; the box has one CPU, so queue LO
 * printed as libxt_NFQUEUE revision 3 prints it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "rules/ext.h"

struct nfqueue_info {
	uint16_t num;
	uint16_t total; /* queues in the range; 1 without --queue-balance */
};

enum { O_NUM, O_BALANCE, O_BYPASS, O_FANOUT };

static const struct ext_opt nfq_opts[] = {
	[O_NUM] = { .name = "queue-num", .type = EXT_T_U16, EXT_FIELD(struct nfqueue_info, num),
		    .excl = 1u << O_BALANCE, .print_as = -1 },
	[O_BALANCE] = { .name = "queue-balance", .type = EXT_T_CUSTOM, .excl = 1u << O_NUM,
			.print_as = -1 },
	[O_BYPASS] = { .name = "queue-bypass", .type = EXT_T_NONE, .print_as = -1 },
	[O_FANOUT] = { .name = "queue-cpu-fanout", .type = EXT_T_NONE, .also = 1u << O_BALANCE,
		       .print_as = -1 },
};

static void nfq_init(struct ext_instance *inst)
{
	struct nfqueue_info *q = inst->data;

	q->total = 1;
}

static int nfq_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
		     const char *arg)
{
	struct nfqueue_info *q = inst->data;
	unsigned long lo, hi;
	char *end;

	if (opt != O_BALANCE)
		return 0;
	lo = strtoul(arg, &end, 10);
	if (end == arg || *end != ':' || lo > 65535 || arg[0] == '-')
		goto bad;
	arg = end + 1;
	hi = strtoul(arg, &end, 10);
	if (end == arg || *end != '\0' || hi > 65535 || arg[0] == '-')
		goto bad;
	if (lo >= hi) {
		snprintf(ctx->err, ctx->errlen, "%lu should be less than %lu", lo, hi);
		return -EINVAL;
	}
	/* The kernel keeps the number of queues in 16 bits: 0:65535 would be 65536 of them. */
	if (hi - lo + 1 > 65535) {
		snprintf(ctx->err, ctx->errlen, "queue range %lu:%lu is more than 65535 queues", lo,
			 hi);
		return -EINVAL;
	}
	q->num = (uint16_t)lo;
	q->total = (uint16_t)(hi - lo + 1);
	return 0;
bad:
	snprintf(ctx->err, ctx->errlen, "Bad range \"%s\"", arg);
	return -EINVAL;
}

static void nfq_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct nfqueue_info *q = inst->data;

	if (q->total > 1)
		fprintf(pr->f, " --queue-balance %u:%u", q->num, q->num + q->total - 1);
	else
		fprintf(pr->f, " --queue-num %u", q->num);
	if (inst->seen & 1u << O_BYPASS)
		fprintf(pr->f, " --queue-bypass");
	if (inst->seen & 1u << O_FANOUT)
		fprintf(pr->f, " --queue-cpu-fanout");
}

static uint32_t rol32(uint32_t x, unsigned k)
{
	return x << k | x >> (32 - k);
}

/* Bob Jenkins' lookup3 hash of three words, as the kernel's jhash_3words. */
static uint32_t nfq_jhash3(uint32_t a, uint32_t b, uint32_t c, uint32_t initval)
{
	a += 0xdeadbeef + (3u << 2) + initval;
	b += 0xdeadbeef + (3u << 2) + initval;
	c += 0xdeadbeef + (3u << 2) + initval;
	c ^= b, c -= rol32(b, 14);
	a ^= c, a -= rol32(c, 11);
	b ^= a, b -= rol32(a, 25);
	c ^= b, c -= rol32(b, 16);
	a ^= c, a -= rol32(c, 4);
	b ^= a, b -= rol32(a, 14);
	c ^= b, c -= rol32(b, 24);
	return c;
}

static uint32_t nfq_word(const uint8_t *b)
{
	/* the kernel hashes the address words as stored; read them the same way on x86 */
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* The same value for both directions of a flow. */
static uint32_t nfq_flow_hash(const struct ext_pkt_ctx *ctx)
{
	const struct pkt_info *in = ctx->info;
	uint32_t s, d;

	if (ctx->family == AF_INET) {
		s = nfq_word(in->src.b);
		d = nfq_word(in->dst.b);
	} else {
		/* as the kernel's hash_v6: the last two words of each address, xor-folded */
		s = nfq_word(in->src.b + 12) ^ nfq_word(in->src.b + 8);
		d = nfq_word(in->dst.b + 12) ^ nfq_word(in->dst.b + 8);
	}
	if (s < d)
		return nfq_jhash3(s, d, in->l4proto, 0);
	return nfq_jhash3(d, s, in->l4proto, 0);
}

static int nfq_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct nfqueue_info *q = inst->data;
	uint32_t queue = q->num;

	if (q->total > 1 && !(inst->seen & 1u << O_FANOUT))
		queue += (uint32_t)(((uint64_t)nfq_flow_hash(ctx) * q->total) >> 32);
	ctx->queue_num = (uint16_t)queue;
	ctx->queue_flags = 0;
	if (inst->seen & 1u << O_BYPASS)
		ctx->queue_flags |= EXT_QUEUE_BYPASS;
	if (inst->seen & 1u << O_FANOUT)
		ctx->queue_flags |= EXT_QUEUE_CPU_FANOUT;
	return EXT_QUEUE;
}

const struct ext_target ext_target_NFQUEUE = {
	.name = "NFQUEUE",
	.datasize = sizeof(struct nfqueue_info),
	.opts = nfq_opts,
	.nopts = 4,
	.init = nfq_init,
	.parse = nfq_parse,
	.print = nfq_print,
	.target = nfq_target,
};

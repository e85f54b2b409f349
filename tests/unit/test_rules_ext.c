// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The extension core with a test extension that declares one option of every type: parsing,
 * canonical printing, inversion, repetition, mandatory/excl/also, aliases, hook and table
 * restrictions, check() context and destroy() on a failed load.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "rules/rules.h"

struct every {
	uint8_t u8;
	uint16_t u16;
	uint32_t u32, hex;
	uint64_t u64;
	uint32_t range[2];
	uint16_t port, ports[2];
	char str[16];
	uint32_t mm[2];
	union pt_addr host, net[2], ar[2];
	uint32_t name, list;
	unsigned multi_count;
	int *state; /* set by check(), freed by destroy() */
};

enum { O_U8, O_U16, O_U32, O_HEX, O_U64, O_RANGE, O_PORT, O_PORTS, O_STR, O_MM, O_HOST, O_NET,
       O_AR, O_NAME, O_LIST, O_MULTI, O_ALIAS, O_NEEDS, O_EXCL, O_MAND };

static const struct ext_name colors[] = {
	{ "red", 1 }, { "green", 2 }, { "blue", 4 }, { "rouge", 1 }, { "none", 0 }, { NULL, 0 },
};

static const struct ext_opt every_opts[] = {
	[O_U8] = { .name = "u8", .type = EXT_T_U8, .min = 1, .max = 100, EXT_FIELD(struct every, u8) },
	[O_U16] = { .name = "u16", .type = EXT_T_U16, .flags = EXT_OPT_INVERT,
		    EXT_FIELD(struct every, u16) },
	[O_U32] = { .name = "u32", .type = EXT_T_U32, EXT_FIELD(struct every, u32) },
	[O_HEX] = { .name = "hex", .type = EXT_T_U32, .flags = EXT_OPT_HEX,
		    EXT_FIELD(struct every, hex) },
	[O_U64] = { .name = "u64", .type = EXT_T_U64, EXT_FIELD(struct every, u64) },
	[O_RANGE] = { .name = "range", .type = EXT_T_U32_RANGE, .max = 1000,
		      EXT_FIELD(struct every, range) },
	[O_PORT] = { .name = "port", .type = EXT_T_PORT, EXT_FIELD(struct every, port) },
	[O_PORTS] = { .name = "ports", .type = EXT_T_PORT_RANGE, EXT_FIELD(struct every, ports) },
	[O_STR] = { .name = "str", .type = EXT_T_STRING, EXT_FIELD(struct every, str) },
	[O_MM] = { .name = "mm", .type = EXT_T_MARKMASK, .flags = EXT_OPT_INVERT,
		   EXT_FIELD(struct every, mm) },
	[O_HOST] = { .name = "host", .type = EXT_T_HOST, EXT_FIELD(struct every, host) },
	[O_NET] = { .name = "net", .type = EXT_T_NET, EXT_FIELD(struct every, net) },
	[O_AR] = { .name = "ar", .type = EXT_T_ADDR_RANGE, EXT_FIELD(struct every, ar) },
	[O_NAME] = { .name = "name", .type = EXT_T_NAME, .flags = EXT_OPT_NUMERIC, .names = colors,
		     EXT_FIELD(struct every, name) },
	[O_LIST] = { .name = "list", .type = EXT_T_NAME_LIST, .names = colors,
		     EXT_FIELD(struct every, list) },
	[O_MULTI] = { .name = "multi", .type = EXT_T_NONE, .flags = EXT_OPT_MULTI },
	[O_ALIAS] = { .name = "alias-of-u32", .type = EXT_T_U32, .flags = EXT_OPT_NOPRINT,
		      .print_as = O_U32, EXT_FIELD(struct every, u32) },
	[O_NEEDS] = { .name = "needs-str", .type = EXT_T_NONE, .also = 1u << O_STR },
	[O_EXCL] = { .name = "not-with-u8", .type = EXT_T_NONE, .excl = 1u << O_U8 },
	[O_MAND] = { .name = "mand", .type = EXT_T_NONE, .flags = EXT_OPT_MANDATORY },
};

static int every_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
		       const char *arg)
{
	struct every *d = inst->data;

	if (opt == O_MULTI)
		d->multi_count++;
	return 0;
}

static int every_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	struct every *d = inst->data;

	if (d->u32 == 666) {
		snprintf(ctx->err, ctx->errlen, "the number of the beast");
		return -EINVAL;
	}
	d->state = malloc(sizeof(*d->state));
	*d->state = (int)ctx->hook_mask;
	return 0;
}

static void every_destroy(struct ext_instance *inst)
{
	struct every *d = inst->data;

	free(d->state); /* ASan reports a leak if a checked instance is not destroyed */
	d->state = NULL;
}

static const struct ext_match every = {
	.name = "every",
	.datasize = sizeof(struct every),
	.opts = every_opts,
	.nopts = sizeof(every_opts) / sizeof(every_opts[0]),
	.parse = every_parse,
	.check = every_check,
	.destroy = every_destroy,
};

static const struct ext_match inonly = {
	.name = "inonly",
	.family = AF_INET6,
	.tables = TABLE_BIT(TABLE_FILTER),
	.hooks = HOOK_BIT(HOOK_INPUT),
	.datasize = 4,
	.aliases = (const char *const[]){ "in-only", NULL },
};

static const struct ext_match *const matches[] = { &every, &inonly };
static const struct ext_registry reg = { .matches = matches, .nmatches = 2 };

static int parse6(const char *text, struct rules_ruleset **rs, struct rules_error *err)
{
	return rules_parse_buffer(text, strlen(text), "t", AF_INET6, &reg, NULL, 0, rs, err);
}

/* Parse "-A INPUT RULE" (IPv6) and return the printed rule. */
static char *roundtrip(const char *rule, struct rules_error *err)
{
	char text[1024], *s = NULL;
	size_t len = 0;
	struct rules_ruleset *rs;
	FILE *f;

	snprintf(text, sizeof(text), "*filter\n-A INPUT %s\nCOMMIT\n", rule);
	if (parse6(text, &rs, err))
		return NULL;
	f = open_memstream(&s, &len);
	rules_print_rule(rs, TABLE_FILTER, &rs->tables[TABLE_FILTER].chains[0].rules[0], f);
	fclose(f);
	rules_ruleset_free(rs);
	return s;
}

static void expect_print(const char *rule, const char *want)
{
	struct rules_error err;
	char *got = roundtrip(rule, &err);

	if (!got)
		fail_msg("%s: %u: %s (near '%s')", rule, err.line, err.msg, err.token);
	assert_string_equal(got, want);
	free(got);
}

static void expect_fail(const char *rule, const char *token)
{
	struct rules_error err;
	char *got = roundtrip(rule, &err);

	if (got)
		fail_msg("%s: accepted as %s", rule, got);
	if (token && strcmp(err.token, token))
		fail_msg("%s: token '%s', want '%s' (%s)", rule, err.token, token, err.msg);
}

static void test_every_type(void **state)
{
	(void)state;
	expect_print("-m every --mand --u8 0x10 --u16 65535 --u32 010 --hex 255 --u64 "
		     "18446744073709551615",
		     "-m every --u8 16 --u16 65535 --u32 8 --hex 0xff --u64 18446744073709551615 "
		     "--mand");
	expect_print("-m every --range 5 --mand", "-m every --range 5 --mand");
	expect_print("-m every --range 5:1000 --mand", "-m every --range 5:1000 --mand");
	expect_print("-m every --port ssh --ports 65536:http --mand",
		     "-m every --port 22 --ports 0:80 --mand");
	expect_print("-m every --str \"a b\" --mm 5 --mand",
		     "-m every --str \"a b\" --mm 0x5 --mand");
	expect_print("-m every ! --mm 5/0xff --mand", "-m every ! --mm 0x5/0xff --mand");
	expect_print("-m every --host 2001:DB8::1 --net 2001:db8::1/32 --ar ::1-::2 --mand",
		     "-m every --host 2001:db8::1 --net 2001:db8::/32 --ar ::1-::2 --mand");
	expect_print("-m every --name rouge --list blue,RED --mand",
		     "-m every --name red --list red,blue --mand");
	expect_print("-m every --name 9 --list none --mand", "-m every --name 9 --list none --mand");
	expect_print("-m every --alias-of-u32 7 --mand", "-m every --u32 7 --mand");
	expect_print("-m every --multi --multi --mand", "-m every --multi --mand");
	expect_print("-m in-only", "-m inonly");
}

static void test_option_errors(void **state)
{
	(void)state;
	expect_fail("-m every", "every");                       /* --mand missing */
	expect_fail("-m every --mand --u8 0", "0");             /* below min */
	expect_fail("-m every --mand --u8 101", "101");         /* above max */
	expect_fail("-m every --mand --u16 65536", "65536");
	expect_fail("-m every --mand --u32 -1", "-1");
	expect_fail("-m every --mand --u32 1x", "1x");
	expect_fail("-m every --mand --range 1001", "1001");
	expect_fail("-m every --mand --range 5:4", "5:4");
	expect_fail("-m every --mand --ports 1:2:3", "1:2:3");
	expect_fail("-m every --mand --port 0x10", "0x10");     /* generic ports: decimal only */
	expect_fail("-m every --mand --str 0123456789abcdef", "0123456789abcdef");
	expect_fail("-m every --mand --host 192.0.2.1", "192.0.2.1"); /* wrong family */
	expect_fail("-m every --mand --net ::/129", "::/129");
	expect_fail("-m every --mand --name purple", "purple");
	expect_fail("-m every --mand --list red,,blue", "red,,blue");
	expect_fail("-m every --mand ! --u32 1", "1");          /* not invertible */
	expect_fail("-m every --mand --u32 1 --alias-of-u32 2", "2"); /* alias counts as same */
	expect_fail("-m every --mand --needs-str", "every");
	expect_fail("-m every --mand --u8 5 --not-with-u8", "every");
	expect_fail("-m every --mand --u32 666", "every");      /* check() refuses */
	expect_fail("-m every --mand --nosuch", "--nosuch");
}

static void test_restrictions_and_check_ctx(void **state)
{
	struct rules_ruleset *rs;
	struct rules_error err;
	struct every *d;

	(void)state;
	/* hook restriction: reachable from OUTPUT through a user chain */
	assert_int_not_equal(parse6("*filter\n:u - [0:0]\n-A u -m inonly\n-A INPUT -j u\n"
				    "-A OUTPUT -j u\nCOMMIT\n",
				    &rs, &err),
			     0);
	assert_int_equal(err.line, 3);
	assert_string_equal(err.token, "inonly");
	/* table restriction */
	assert_int_not_equal(parse6("*mangle\n-A INPUT -m inonly\nCOMMIT\n", &rs, &err), 0);
	assert_int_equal(err.line, 2);
	/* family restriction: not found for IPv4 */
	assert_int_not_equal(rules_parse_buffer("*filter\n-A INPUT -m inonly\nCOMMIT\n", 36, "t",
						AF_INET, &reg, NULL, 0, &rs, &err),
			     0);
	/* check() sees the hook mask of the chain */
	assert_int_equal(parse6("*filter\n:u - [0:0]\n-A u -m every --mand\n-A INPUT -j u\n"
				"-A FORWARD -g u\nCOMMIT\n",
				&rs, &err),
			 0);
	d = rs->tables[TABLE_FILTER].chains[rules_chain_find(&rs->tables[TABLE_FILTER], "u")]
		    .rules[0]
		    .matches[0]
		    .data;
	assert_int_equal(*d->state, HOOK_BIT(HOOK_INPUT) | HOOK_BIT(HOOK_FORWARD));
	rules_ruleset_free(rs);
	/* a later check() failure destroys the instances checked before it (no leak) */
	assert_int_not_equal(parse6("*filter\n-A INPUT -m every --mand\n"
				    "-A INPUT -m every --mand -s ::1,::2\n"
				    "-A INPUT -m every --mand --u32 666\nCOMMIT\n",
				    &rs, &err),
			     0);
	assert_int_equal(err.line, 4);
	assert_null(rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_type),
		cmocka_unit_test(test_option_errors),
		cmocka_unit_test(test_restrictions_and_check_ctx),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

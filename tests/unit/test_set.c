/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ipset in a box (src/set): each set type through its commands and through packets, timeouts
 * on the box clock, maxelem/forceadd, nomatch, counters, list:set, restore atomicity,
 * swap/rename/destroy against rule references, -m set and -j SET. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "ext/set_bind.h"
#include "ext_fake_env.h"
#include "set/set.h"
#include "set/set_cmd.h"

#define S 1000000000ull

static const uint64_t key[2] = {0x0123456789abcdefull, 0xfedcba9876543210ull};

/* Run "ipset WORDS..." (one line, split at spaces) at time now: the exit code. */
static int ipset(struct set_table *t, uint64_t now, const char *line, char *out, size_t outlen)
{
	char buf[512], *argv[32], err[512];
	int argc = 0, rc;
	char *save = NULL;
	FILE *f = out ? fmemopen(out, outlen, "w") : fopen("/dev/null", "w");

	assert_non_null(f);
	snprintf(buf, sizeof(buf), "%s", line);
	for (char *p = strtok_r(buf, " ", &save); p; p = strtok_r(NULL, " ", &save))
		argv[argc++] = p;
	rc = set_cmd_line(t, argc, argv, NULL, 0, now, f, err, sizeof(err));
	fclose(f);
	return rc;
}

static int ipset_err(struct set_table *t, const char *line, char *err, size_t errlen)
{
	char buf[512], *argv[32];
	int argc = 0;
	char *save = NULL;
	FILE *f = fopen("/dev/null", "w");
	int rc;

	snprintf(buf, sizeof(buf), "%s", line);
	for (char *p = strtok_r(buf, " ", &save); p; p = strtok_r(NULL, " ", &save))
		argv[argc++] = p;
	rc = set_cmd_line(t, argc, argv, NULL, 0, 0, f, err, errlen);
	fclose(f);
	return rc;
}

static bool in(struct set_table *t, uint64_t now, const char *set, const char *elem)
{
	char line[256];

	snprintf(line, sizeof(line), "test %s %s", set, elem);
	return ipset(t, now, line, NULL, 0) == 0;
}

/* -m set on a packet given as text (pkt/build.h) */
static bool pmatch(struct set_table *t, const char *set, const char *dirs, const char *spec,
		   const char *iin, const char *iout, uint64_t now)
{
	struct pkt *p = fake_pkt(spec);
	struct set_match_opts mo = {0};
	struct set_pkt sp;
	bool r;

	assert_non_null(p);
	for (const char *d = dirs; *d; d += (d[3] == ',' ? 4 : 3)) {
		if (!strncmp(d, "src", 3))
			mo.dirs |= (uint8_t)(1u << mo.dim);
		mo.dim++;
	}
	sp = (struct set_pkt){p, p->info.family, iin, iout, now, p->info.l3len};
	r = set_match_pkt(t, set_find(t, set), &sp, &mo);
	pkt_free(p);
	return r;
}

static void test_hash_ip(void **state)
{
	struct set_table *t = set_table_new(key);
	char out[1024];

	assert_int_equal(ipset(t, 0, "create a hash:ip", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "create a hash:ip", NULL, 0), 1);
	assert_int_equal(ipset(t, 0, "-exist create a hash:ip", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add a 10.0.0.1", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add a 10.0.0.1", NULL, 0), 1);
	assert_int_equal(ipset(t, 0, "-exist add a 10.0.0.1", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add a 10.0.1.0/30", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add a 10.0.2.1-10.0.2.3", NULL, 0), 0);
	assert_true(in(t, 0, "a", "10.0.1.2"));
	assert_true(in(t, 0, "a", "10.0.2.3"));
	assert_false(in(t, 0, "a", "10.0.2.4"));
	assert_int_equal(set_count(set_get(t, set_find(t, "a"))), 8);
	assert_int_equal(ipset(t, 0, "add a ::1", NULL, 0), 1);
	assert_int_equal(ipset(t, 0, "add a foo", NULL, 0), 1);
	assert_int_equal(ipset(t, 0, "del a 10.9.9.9", NULL, 0), 1);
	assert_int_equal(ipset(t, 0, "-exist del a 10.9.9.9", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "del a 10.0.1.0/30", NULL, 0), 0);
	assert_int_equal(set_count(set_get(t, set_find(t, "a"))), 4);
	assert_int_equal(ipset(t, 0, "save a", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "create a hash:ip family inet hashsize 1024 maxelem 65536 "
				    "bucketsize 12 initval 0x"));
	assert_non_null(strstr(out, "\nadd a 10.0.0.1\nadd a 10.0.2.1\nadd a 10.0.2.2\n"));
	assert_true(pmatch(t, "a", "src", "udp 10.0.2.2:1 > 192.0.2.1:2", "", "", 0));
	assert_false(pmatch(t, "a", "dst", "udp 10.0.2.2:1 > 192.0.2.1:2", "", "", 0));
	set_table_free(t);
}

static void test_hash_net_prefixes_nomatch(void **state)
{
	struct set_table *t = set_table_new(key);
	char err[256];

	assert_int_equal(ipset(t, 0, "create n hash:net", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add n 10.0.0.0/8", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add n 10.1.0.0/16 nomatch", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add n 10.1.2.3", NULL, 0), 0);
	assert_int_equal(ipset_err(t, "add n 10.0.0.0/0", err, sizeof(err)), 1);
	assert_string_equal(err, "The value of the CIDR parameter of the IP address is invalid");
	/* the longest prefix present decides: /32 in, /16 nomatch out, /8 in */
	assert_true(pmatch(t, "n", "dst", "udp 192.0.2.1:1 > 10.1.2.3:2", "", "", 0));
	assert_false(pmatch(t, "n", "dst", "udp 192.0.2.1:1 > 10.1.2.4:2", "", "", 0));
	assert_true(pmatch(t, "n", "dst", "udp 192.0.2.1:1 > 10.2.0.1:2", "", "", 0));
	assert_false(pmatch(t, "n", "dst", "udp 192.0.2.1:1 > 11.0.0.1:2", "", "", 0));
	{
		struct pkt *p = fake_pkt("udp 192.0.2.1:1 > 10.1.2.4:2");
		struct set_match_opts mo = {.dim = 1, .return_nomatch = true};
		struct set_pkt sp = {p, AF_INET, "", "", 0, p->info.l3len};

		assert_true(set_match_pkt(t, set_find(t, "n"), &sp, &mo));
		pkt_free(p);
	}
	assert_true(in(t, 0, "n", "10.0.0.0/8"));
	assert_false(in(t, 0, "n", "10.1.0.0/16"));
	/* inet6 */
	assert_int_equal(ipset(t, 0, "create n6 hash:net family inet6", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add n6 2001:db8::/32", NULL, 0), 0);
	assert_true(pmatch(t, "n6", "src", "udp [2001:db8::5]:1 > [2001:db8:1::1]:2", "", "", 0));
	assert_false(pmatch(t, "n6", "src", "udp [2001:db9::5]:1 > [2001:db8:1::1]:2", "", "", 0));
	/* an IPv4 packet never matches an inet6 set */
	assert_false(pmatch(t, "n6", "src", "udp 10.0.0.1:1 > 10.0.0.2:2", "", "", 0));
	set_table_free(t);
}

static void test_port_types(void **state)
{
	struct set_table *t = set_table_new(key);
	char out[2048];

	assert_int_equal(ipset(t, 0, "create p hash:ip,port", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add p 10.0.0.1,80", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add p 10.0.0.1,udp:53-54", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add p 10.0.0.1,icmp:echo-request", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add p 10.0.0.1,gre:0", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add p 10.0.0.1,gre:1", NULL, 0), 1);
	assert_true(pmatch(t, "p", "dst,dst", "tcp 192.0.2.1:999 > 10.0.0.1:80 syn", "", "", 0));
	assert_false(pmatch(t, "p", "dst,dst", "udp 192.0.2.1:999 > 10.0.0.1:80", "", "", 0));
	assert_true(pmatch(t, "p", "dst,dst", "udp 192.0.2.1:999 > 10.0.0.1:54", "", "", 0));
	assert_true(pmatch(t, "p", "dst,src", "icmp 192.0.2.1 > 10.0.0.1 echo-request", "", "", 0));
	assert_false(pmatch(t, "p", "dst", "tcp 192.0.2.1:999 > 10.0.0.1:80 syn", "", "", 0));
	assert_int_equal(ipset(t, 0, "save p", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "add p 10.0.0.1,tcp:80\n"));
	assert_non_null(strstr(out, "add p 10.0.0.1,icmp:echo-request\n"));
	assert_non_null(strstr(out, "add p 10.0.0.1,gre:0\n"));

	assert_int_equal(ipset(t, 0, "create np hash:net,port", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add np 10.0.0.0/8,tcp:22", NULL, 0), 0);
	assert_true(pmatch(t, "np", "src,dst", "tcp 10.9.9.9:999 > 192.0.2.1:22 syn", "", "", 0));
	assert_false(pmatch(t, "np", "src,dst", "tcp 11.9.9.9:999 > 192.0.2.1:22 syn", "", "", 0));

	assert_int_equal(ipset(t, 0, "create ipi hash:ip,port,ip", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add ipi 10.0.0.1,tcp:80,192.0.2.1", NULL, 0), 0);
	assert_true(
	    pmatch(t, "ipi", "dst,dst,src", "tcp 192.0.2.1:9 > 10.0.0.1:80 syn", "", "", 0));
	assert_false(
	    pmatch(t, "ipi", "dst,dst,src", "tcp 192.0.2.2:9 > 10.0.0.1:80 syn", "", "", 0));

	assert_int_equal(ipset(t, 0, "create ipn hash:ip,port,net", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add ipn 10.0.0.1,tcp:80,192.0.2.0/24", NULL, 0), 0);
	assert_true(
	    pmatch(t, "ipn", "dst,dst,src", "tcp 192.0.2.77:9 > 10.0.0.1:80 syn", "", "", 0));
	assert_false(
	    pmatch(t, "ipn", "dst,dst,src", "tcp 192.0.3.77:9 > 10.0.0.1:80 syn", "", "", 0));

	assert_int_equal(ipset(t, 0, "create bp bitmap:port range 1000-2000", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add bp 1500", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add bp tcp:1501", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add bp 2001", NULL, 0), 1);
	assert_true(pmatch(t, "bp", "dst", "udp 192.0.2.1:9 > 10.0.0.1:1501", "", "", 0));
	assert_false(pmatch(t, "bp", "dst", "udp 192.0.2.1:9 > 10.0.0.1:1502", "", "", 0));
	set_table_free(t);
}

static void test_iface_mac_bitmap(void **state)
{
	struct set_table *t = set_table_new(key);
	char out[1024];

	assert_int_equal(ipset(t, 0, "create ni hash:net,iface", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add ni 10.0.0.0/8,lan0", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add ni 10.0.0.0/8,physdev:eth1", NULL, 0), 0);
	assert_true(pmatch(t, "ni", "src,src", "udp 10.1.1.1:1 > 192.0.2.1:2", "lan0", "wan0", 0));
	assert_false(pmatch(t, "ni", "src,src", "udp 10.1.1.1:1 > 192.0.2.1:2", "wan0", "lan0", 0));
	assert_true(pmatch(t, "ni", "src,dst", "udp 10.1.1.1:1 > 192.0.2.1:2", "wan0", "lan0", 0));

	assert_int_equal(ipset(t, 0, "create m hash:mac", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add m 02:00:00:00:00:01", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add m 02:00:00:00:00", NULL, 0), 1);
	assert_true(in(t, 0, "m", "02:00:00:00:00:01"));
	assert_int_equal(ipset(t, 0, "save m", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "add m 02:00:00:00:00:01\n"));

	assert_int_equal(ipset(t, 0, "create b bitmap:ip range 10.0.0.0/24 netmask 30", NULL, 0),
			 0);
	assert_int_equal(ipset(t, 0, "add b 10.0.0.6", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add b 10.0.1.6", NULL, 0), 1);
	assert_true(in(t, 0, "b", "10.0.0.5"));
	assert_true(pmatch(t, "b", "src", "udp 10.0.0.7:1 > 192.0.2.1:2", "", "", 0));
	assert_false(pmatch(t, "b", "src", "udp 10.0.0.8:1 > 192.0.2.1:2", "", "", 0));
	assert_int_equal(ipset(t, 0, "save b", out, sizeof(out)), 0);
	assert_string_equal(out, "create b bitmap:ip range 10.0.0.0-10.0.0.255 netmask 30\n"
				 "add b 10.0.0.4\n");
	assert_int_equal(ipset(t, 0, "create big bitmap:ip range 10.0.0.0/8", NULL, 0), 1);
	set_table_free(t);
}

static void test_timeout_counters_full(void **state)
{
	struct set_table *t = set_table_new(key);
	char out[1024];

	assert_int_equal(
	    ipset(t, 0, "create a hash:ip timeout 10 maxelem 2 counters comment", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add a 10.0.0.1", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add a 10.0.0.2 timeout 0 packets 3 bytes 9", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add a 10.0.0.3", NULL, 0), 1); /* full */
	assert_true(in(t, 9 * S, "a", "10.0.0.1"));
	assert_false(in(t, 10 * S, "a", "10.0.0.1"));
	assert_true(in(t, 100 * S, "a", "10.0.0.2")); /* timeout 0: forever */
	/* the expired one makes room */
	assert_int_equal(ipset(t, 10 * S, "add a 10.0.0.3 comment x", NULL, 0), 0);
	assert_int_equal(ipset(t, 12 * S, "save a", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "add a 10.0.0.2 timeout 0 packets 3 bytes 9\n"));
	assert_non_null(strstr(out, "add a 10.0.0.3 timeout 8 packets 0 bytes 0 comment \"x\"\n"));
	/* counters move on every lookup that finds the element, and the conditions read the
	 * updated values (as the kernel: tests/diff/sets) */
	{
		struct pkt *p = fake_pkt("udp 10.0.0.2:1 > 192.0.2.1:2 len=100");
		struct set_match_opts mo = {
		    .dim = 1, .dirs = 1, .packets_op = SET_CMP_GT, .packets = 4};
		struct set_pkt sp = {p, AF_INET, "", "", 12 * S, p->info.l3len};

		assert_false(set_match_pkt(t, set_find(t, "a"), &sp, &mo)); /* 4 */
		assert_true(set_match_pkt(t, set_find(t, "a"), &sp, &mo));  /* 5 */
		mo.packets_op = SET_CMP_EQ;
		mo.packets = 6;
		assert_true(set_match_pkt(t, set_find(t, "a"), &sp, &mo));
		assert_false(set_match_pkt(t, set_find(t, "a"), &sp, &mo)); /* 7 */
		mo.skip_counters = true;
		mo.packets = 7;
		assert_true(set_match_pkt(t, set_find(t, "a"), &sp, &mo)); /* stays 7 */
		assert_true(set_match_pkt(t, set_find(t, "a"), &sp, &mo));
		pkt_free(p);
	}
	assert_int_equal(ipset(t, 0, "create h hash:ip timeout 10", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add h 10.0.0.1 packets 1", NULL, 0), 1);
	/* forceadd: a full set takes the new element in place of one of its bucket */
	assert_int_equal(ipset(t, 0, "create f hash:ip maxelem 1 forceadd", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add f 10.0.0.1", NULL, 0), 0);
	set_table_sweep(t, 0, 1);
	set_table_free(t);
}

static void test_list_set_swap_rename(void **state)
{
	struct set_table *t = set_table_new(key);
	char out[2048], err[256];

	assert_int_equal(ipset(t, 0, "create a hash:ip", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "create b hash:net", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "create l list:set", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add a 10.0.0.1", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add b 192.0.2.0/24", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add l a", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add l b before a", NULL, 0), 0);
	assert_int_equal(ipset_err(t, "add l l", err, sizeof(err)), 1);
	assert_string_equal(err, "Sets with list:set type cannot be added to the set.");
	assert_int_equal(ipset_err(t, "add l nosuch", err, sizeof(err)), 1);
	assert_true(pmatch(t, "l", "src", "udp 192.0.2.9:1 > 198.51.100.1:2", "", "", 0));
	assert_true(pmatch(t, "l", "src", "udp 10.0.0.1:1 > 198.51.100.1:2", "", "", 0));
	assert_false(pmatch(t, "l", "src", "udp 10.0.0.2:1 > 198.51.100.1:2", "", "", 0));
	assert_int_equal(ipset(t, 0, "save l", out, sizeof(out)), 0);
	assert_string_equal(out, "create l list:set size 8\nadd l b\nadd l a\n");
	assert_int_equal(ipset_err(t, "destroy a", err, sizeof(err)), 1);
	assert_string_equal(err, "Set cannot be destroyed: it is in use by a kernel component");
	assert_int_equal(ipset_err(t, "swap a b", err, sizeof(err)), 1);
	assert_string_equal(err, "The sets cannot be swapped: their type does not match");
	assert_int_equal(ipset(t, 0, "create c hash:ip", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "add c 10.0.0.9", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "swap a c", NULL, 0), 0);
	assert_true(in(t, 0, "a", "10.0.0.9"));
	assert_true(in(t, 0, "c", "10.0.0.1"));
	assert_int_equal(ipset_err(t, "rename c b", err, sizeof(err)), 1);
	assert_int_equal(ipset(t, 0, "rename c d", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "list -n", out, sizeof(out)), 0);
	assert_string_equal(out, "a\nb\nl\nd\n");
	assert_int_equal(ipset(t, 0, "flush l", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "destroy", NULL, 0), 0);
	assert_int_equal(set_table_slots(t), 0);
	assert_int_equal(ipset_err(t, "bogus", err, sizeof(err)), 2);
	assert_int_equal(ipset_err(t, "create x hash:ip family inet7", err, sizeof(err)), 1);
	assert_string_equal(err, "Syntax error: unknown inet family inet7");
	assert_int_equal(ipset_err(t, "create x hash:ip foo", err, sizeof(err)), 2);
	assert_string_equal(err, "Unknown argument: `foo'");
	set_table_free(t);
}

static void test_restore_atomic(void **state)
{
	struct set_table *t = set_table_new(key);
	const char *good = "create x hash:ip\nadd x 10.0.0.1\n# comment\nadd a 10.0.0.7\n"
			   "COMMIT\n";
	const char *bad = "create y hash:ip\nadd a 10.0.0.8\nflush x\nadd y 10.0.0.1\n"
			  "add y nonsense\n";
	char err[256], out[1024];
	unsigned line;

	assert_int_equal(ipset(t, 0, "create a hash:ip", NULL, 0), 0);
	assert_int_equal(
	    set_restore(t, good, strlen(good), false, 0, stdout, err, sizeof(err), &line), 0);
	assert_true(in(t, 0, "a", "10.0.0.7"));
	assert_true(in(t, 0, "x", "10.0.0.1"));
	/* a bad line: nothing of the file stays (no set y, a unchanged, x not flushed) */
	assert_int_equal(
	    set_restore(t, bad, strlen(bad), false, 0, stdout, err, sizeof(err), &line), 1);
	assert_int_equal(line, 5);
	assert_int_equal(set_find(t, "y"), -1);
	assert_false(in(t, 0, "a", "10.0.0.8"));
	assert_true(in(t, 0, "x", "10.0.0.1"));
	/* save | restore into an empty table gives the same save */
	{
		char out2[1024];
		struct set_table *t2 = set_table_new(key);

		assert_int_equal(ipset(t, 0, "save", out, sizeof(out)), 0);
		assert_int_equal(
		    set_restore(t2, out, strlen(out), false, 0, stdout, err, sizeof(err), &line),
		    0);
		assert_int_equal(ipset(t2, 0, "save", out2, sizeof(out2)), 0);
		assert_string_equal(out, out2);
		set_table_free(t2);
	}
	set_table_free(t);
}

static struct set_table *env_table;
static void *fake_plugin(void *box, const char *name)
{
	return strcmp(name, "set") ? NULL : env_table;
}

static void test_rules_bind_and_target(void **state)
{
	static const struct ext_env_ops ops = {.plugin = fake_plugin};
	const struct ext_env env = {&ops, NULL};
	struct set_table *t = set_table_new(key);
	struct rules_ruleset *rs = NULL;
	struct rules_rule *r;
	struct rules_error e;
	struct ext_pkt_ctx ctx;
	struct pkt *p;
	char err[256];

	env_table = t;
	assert_int_equal(ipset(t, 0, "create b hash:ip timeout 60", NULL, 0), 0);
	assert_int_equal(ipset(t, 0, "create b6 hash:ip family inet6", NULL, 0), 0);
	r = fake_rule(&rs, AF_INET, "filter", "INPUT",
		      "-j SET --add-set b src --exist --timeout 5");
	assert_non_null(r);
	memset(&e, 0, sizeof(e));
	assert_int_equal(ext_set_bind(t, rs, &e), 0);
	p = fake_pkt("udp 10.0.0.5:1 > 10.0.0.1:2");
	fake_ctx(&ctx, p, &env, HOOK_INPUT, 0);
	assert_int_equal(r->target.ext.target->target(&ctx, &r->target.ext), EXT_CONTINUE);
	pkt_free(p);
	assert_true(in(t, 4 * S, "b", "10.0.0.5"));
	assert_false(in(t, 5 * S, "b", "10.0.0.5"));
	/* the rule holds the set */
	assert_int_equal(ipset_err(t, "destroy b", err, sizeof(err)), 1);
	/* -m set: missing set, wrong family */
	r = fake_rule(&rs, AF_INET, "filter", "INPUT", "-m set --match-set nosuch src -j DROP");
	assert_non_null(r);
	assert_int_equal(ext_set_bind(t, rs, &e), -ENOENT);
	assert_string_equal(e.token, "nosuch");
	r = fake_rule(&rs, AF_INET, "filter", "INPUT", "-m set ! --match-set b6 src -j DROP");
	assert_int_equal(ext_set_bind(t, rs, &e), -EINVAL);
	r = fake_rule(&rs, AF_INET, "filter", "INPUT", "-m set ! --match-set b src -j DROP");
	assert_int_equal(ext_set_bind(t, rs, &e), 0);
	p = fake_pkt("udp 10.0.0.6:1 > 10.0.0.1:2");
	fake_ctx(&ctx, p, &env, HOOK_INPUT, 0);
	assert_true(r->matches[0].match->match(&ctx, &r->matches[0])); /* ! and not in b */
	pkt_free(p);
	/* a ruleset without SET rules frees the references of its family */
	r = fake_rule(&rs, AF_INET, "filter", "INPUT", "-j ACCEPT");
	assert_int_equal(ext_set_bind(t, rs, &e), 0);
	assert_int_equal(ipset(t, 0, "destroy b", NULL, 0), 0);
	rules_ruleset_free(rs);
	set_table_free(t);
	env_table = NULL;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hash_ip),
	    cmocka_unit_test(test_hash_net_prefixes_nomatch),
	    cmocka_unit_test(test_port_types),
	    cmocka_unit_test(test_iface_mac_bitmap),
	    cmocka_unit_test(test_timeout_counters_full),
	    cmocka_unit_test(test_list_set_swap_rename),
	    cmocka_unit_test(test_restore_atomic),
	    cmocka_unit_test(test_rules_bind_and_target),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

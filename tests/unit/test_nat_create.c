// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NAT on create (`conntrack -I --src-nat / --dst-nat`, CTA_NAT_SRC / CTA_NAT_DST): a request
 * over the control socket of a gateway box (lan0 = 1, wan0 = 2) makes an entry whose binding
 * the NAT layer holds, and then packets that use the entry are translated as the binding says,
 * both directions. The client is a raw socket driven in the same thread as the server.
 */
#include "ct/ct_plugin.h"
#include "ctl_test.h"
#include "engine_test.h"

#include <arpa/inet.h>
#include <poll.h>
#include <unistd.h>

#include <linux/netlink.h>

#include "ct/ct.h"
#include "ctl/msg.h"
#include "ctl/server.h"
#include "nat/nat.h"
#include "nat/nat_plugin.h"
#include "rules/ext.h"

struct fx {
	struct rec r;
	struct box *b;
	struct ctl_server *s;
	int fd;
	char path[108];
};

static struct fx *fx_new(void)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->b = gw_box(&f->r, NULL);
	assert_int_equal(ct_box_enable(f->b, true), 0);
	f->fd = ctl_test_serve(f->b, "nat-create", NULL, &f->s, f->path, sizeof(f->path));
	return f;
}

static void fx_free(struct fx *f)
{
	close(f->fd);
	ctl_server_free(f->s);
	rec_free(&f->r);
	box_free(f->b);
	free(f);
}

/* Send one request, serve until its NLMSG_ERROR (ACK: 0) comes back; its code. */
static int ask(struct fx *f, const struct nlmsghdr *nlh, char *msg, size_t len)
{
	static unsigned char rx[65536];

	assert_int_equal(send(f->fd, nlh, nlh->nlmsg_len, 0), (ssize_t)nlh->nlmsg_len);
	for (unsigned calls = 0; calls < 1000; calls++) {
		struct pollfd p = {.fd = ctl_server_fd(f->s), .events = POLLIN};
		ssize_t n;

		poll(&p, 1, 10);
		ctl_server_process(f->s);
		while ((n = recv(f->fd, rx, sizeof(rx), MSG_DONTWAIT)) > 0) {
			const struct nlmsghdr *a;
			int rem = (int)n, code;
			uint32_t line;

			for (a = (const void *)rx; ctl_nlmsg_ok(a, rem);
			     a = mnl_nlmsg_next(a, &rem))
				if (a->nlmsg_type == NLMSG_ERROR) {
					assert_int_equal(ctl_parse_error(a, &code, msg, len, &line),
							 0);
					return code;
				}
		}
	}
	fail_msg("no answer");
	return 0;
}

static void tuple(const char *spec, struct ct_tuple *t)
{
	struct pkt *p = mk(spec);

	assert_int_equal(pkt_parse(p, PKT_LINK_RAW, true), 0);
	assert_int_equal(ct_tuple_from_pkt(p, 0, t), 0);
	pkt_free(p);
}

/* -I with the original tuple of `spec`, a timeout of 300 s and the NAT given (NULL: none). */
static int create(struct fx *f, const char *spec, const char *snat, int sport, const char *dnat,
		  int dport, char *msg, size_t len)
{
	static unsigned char buf[4096];
	struct nlmsghdr *nlh;
	struct ctl_ct c;
	const char *addr[2] = {snat, dnat};
	int port[2] = {sport, dport};

	memset(&c, 0, sizeof(c));
	tuple(spec, &c.orig);
	c.have = CTL_C_ORIG | CTL_C_TIMEOUT;
	c.timeout = 300;
	for (int i = 0; i < 2; i++) {
		if (!addr[i])
			continue;
		c.have |= i ? CTL_C_NAT_DST : CTL_C_NAT_SRC;
		c.nat[i].family = (uint8_t)pt_addr_parse(addr[i], &c.nat[i].min);
		c.nat[i].max = c.nat[i].min;
		if (port[i] >= 0) {
			c.nat[i].has_port = true;
			c.nat[i].min_port = c.nat[i].max_port = (uint16_t)port[i];
		}
	}
	nlh = ctl_msg_start(buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_NEW),
			    NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, 1, c.orig.family,
			    true);
	assert_non_null(nlh);
	assert_int_equal(ctl_put_ct(nlh, sizeof(buf), &c), 0);
	return ask(f, nlh, msg, len);
}

/* Receive `in` on interface ifindex; the one packet sent must be `out` on oif. */
static void through(struct fx *f, int ifindex, const char *in, int oif, const char *out)
{
	char got[256];
	unsigned before = f->r.nxmit;
	struct pkt *o;

	assert_int_equal(box_receive(f->b, ifindex, mk(in)), EXT_ACCEPT);
	assert_int_equal(f->r.nxmit, before + 1);
	o = f->r.xmit[before];
	assert_int_equal(f->r.xmit_oif[before], oif);
	assert_int_equal(pkt_parse(o, PKT_LINK_ETHERNET, true), 0);
	assert_true(pkt_spec_format(o, got, sizeof(got)) > 0);
	if (!strstr(got, out))
		fail_msg("sent '%s', want '%s'", got, out);
}

static void load_snat(struct fx *f, const char *to)
{
	char text[512];
	struct rules_ruleset *rs;
	struct rules_error err;

	snprintf(text, sizeof(text),
		 "*nat\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
		 ":POSTROUTING ACCEPT [0:0]\n-A POSTROUTING -o wan0 -p udp -j SNAT --to-source %s\n"
		 "COMMIT\n",
		 to);
	assert_int_equal(rules_parse_buffer(text, strlen(text), "snat", AF_INET,
					    ext_registry_default(), NULL, 0, &rs, &err),
			 0);
	box_set_ruleset(f->b, rs, AF_INET);
}

static const struct ct_entry *entry(struct fx *f, const char *spec)
{
	struct ct_tuple t;

	tuple(spec, &t);
	return ct_lookup(ct_box_table(f->b), &t, box_now(f->b), NULL);
}

/* --src-nat ADDR:PORT: the reply tuple is the translated one, the packets of the entry leave
 * with that source and their answers come back to the inside host. */
static void test_snat_then_packets(void **state)
{
	struct fx *f = fx_new();
	const struct ct_entry *e;
	char msg[256];
	struct ct_tuple want;

	assert_int_equal(create(f, "udp 10.0.0.2:5000 > 198.51.100.8:53", "203.0.113.1", 61000,
				NULL, -1, msg, sizeof(msg)),
			 0);
	e = entry(f, "udp 10.0.0.2:5000 > 198.51.100.8:53");
	assert_non_null(e);
	tuple("udp 198.51.100.8:53 > 203.0.113.1:61000", &want);
	assert_true(ct_tuple_eq(ct_entry_tuple(e, CT_DIR_REPLY), &want));
	assert_int_equal(nat_entry_status(e), NAT_STATUS_SRC);
	assert_int_equal(nat_entry_decided(e), NAT_STATUS_SRC | NAT_STATUS_DST);
	assert_int_equal(nat_table_stats(nat_box_table(f->b))->bindings, 1);

	through(f, 1, "udp 10.0.0.2:5000 > 198.51.100.8:53 eth", 2,
		"udp 203.0.113.1:61000 > 198.51.100.8:53");
	through(f, 2, "udp 198.51.100.8:53 > 203.0.113.1:61000 eth", 1,
		"udp 198.51.100.8:53 > 10.0.0.2:5000");
	/* the same entry both times: no other was made */
	assert_int_equal(ct_table_stats(ct_box_table(f->b))->count, 1);
	fx_free(f);
}

/* --dst-nat ADDR:PORT (a port forward made by hand): the outside client's packets reach the
 * inside server, its answers leave from the address the client used. */
static void test_dnat_then_packets(void **state)
{
	struct fx *f = fx_new();
	const struct ct_entry *e;
	char msg[256];

	assert_int_equal(create(f, "tcp 198.51.100.7:40000 > 203.0.113.1:80", NULL, -1, "10.0.0.20",
				8080, msg, sizeof(msg)),
			 0);
	e = entry(f, "tcp 198.51.100.7:40000 > 203.0.113.1:80");
	assert_non_null(e);
	assert_int_equal(nat_entry_status(e), NAT_STATUS_DST);
	through(f, 2, "tcp 198.51.100.7:40000 > 203.0.113.1:80 syn seq=1000 win=64240 eth", 1,
		"tcp 198.51.100.7:40000 > 10.0.0.20:8080");
	through(f, 1,
		"tcp 10.0.0.20:8080 > 198.51.100.7:40000 syn ack seq=5000 ack=1001 win=64240 eth",
		2, "tcp 203.0.113.1:80 > 198.51.100.7:40000");
	fx_free(f);
}

/* Both at once, and IPv6. */
static void test_both_and_ipv6(void **state)
{
	struct fx *f = fx_new();
	char msg[256];

	assert_int_equal(create(f, "udp 10.0.0.3:7000 > 198.51.100.9:9000", "203.0.113.2", -1,
				"198.51.100.10", 9001, msg, sizeof(msg)),
			 0);
	through(f, 1, "udp 10.0.0.3:7000 > 198.51.100.9:9000 eth", 2,
		"udp 203.0.113.2:7000 > 198.51.100.10:9001");
	through(f, 2, "udp 198.51.100.10:9001 > 203.0.113.2:7000 eth", 1,
		"udp 198.51.100.9:9000 > 10.0.0.3:7000");
	assert_int_equal(create(f, "udp [fd00::2]:5353 > [2001:db8::53]:53", "2001:db8:1::1", 999,
				NULL, -1, msg, sizeof(msg)),
			 0);
	through(f, 1, "udp [fd00::2]:5353 > [2001:db8::53]:53 eth", 2,
		"udp [2001:db8:1::1]:999 > [2001:db8::53]:53");
	through(f, 2, "udp [2001:db8::53]:53 > [2001:db8:1::1]:999 eth", 1,
		"udp [2001:db8::53]:53 > [fd00::2]:5353");
	fx_free(f);
}

/* The translated tuple is taken: a second entry asking for the same address and port towards
 * the same server gets another port (as the kernel's), and so does a connection a SNAT rule
 * translates to that address; with the port forced there is no tuple left (-ENOSPC); a
 * translation of the wrong family and -I of an existing entry are refused, nothing made. */
static void test_tuple_taken_and_refusals(void **state)
{
	struct fx *f = fx_new();
	const struct ct_entry *e;
	char msg[256];
	unsigned count;

	assert_int_equal(create(f, "udp 10.0.0.2:5000 > 198.51.100.8:53", "203.0.113.1", -1, NULL,
				-1, msg, sizeof(msg)),
			 0);
	assert_int_equal(create(f, "udp 10.0.0.3:5000 > 198.51.100.8:53", "203.0.113.1", -1, NULL,
				-1, msg, sizeof(msg)),
			 0);
	e = entry(f, "udp 10.0.0.3:5000 > 198.51.100.8:53");
	assert_non_null(e);
	assert_true(pt_addr_eq(
	    &ct_entry_tuple(e, CT_DIR_REPLY)->dst,
	    &ct_entry_tuple(entry(f, "udp 10.0.0.2:5000 > 198.51.100.8:53"), CT_DIR_REPLY)->dst));
	assert_int_not_equal(ct_entry_tuple(e, CT_DIR_REPLY)->d.port, 5000);
	/* a connection a SNAT rule translates to that address towards that server */
	load_snat(f, "203.0.113.1");
	{
		unsigned before = f->r.nxmit;
		struct ct_tuple sent;

		assert_int_equal(
		    box_receive(f->b, 1, mk("udp 10.0.0.9:5000 > 198.51.100.8:53 eth")),
		    EXT_ACCEPT);
		assert_int_equal(f->r.nxmit, before + 1);
		assert_int_equal(pkt_parse(f->r.xmit[before], PKT_LINK_ETHERNET, true), 0);
		assert_int_equal(ct_tuple_from_pkt(f->r.xmit[before], 0, &sent), 0);
		assert_true(pt_addr_eq(&sent.src, &ct_entry_tuple(e, CT_DIR_REPLY)->dst));
		assert_int_not_equal(sent.s.port, 5000);
		assert_int_not_equal(sent.s.port, ct_entry_tuple(e, CT_DIR_REPLY)->d.port);
	}
	/* with the port given and taken: no free tuple */
	assert_int_equal(create(f, "udp 10.0.0.4:5000 > 198.51.100.8:53", "203.0.113.1", 5000, NULL,
				-1, msg, sizeof(msg)),
			 -ENOSPC);
	assert_non_null(strstr(msg, "no free tuple"));
	count = ct_table_stats(ct_box_table(f->b))->count;
	assert_int_equal(count, 3);
	assert_null(entry(f, "udp 10.0.0.4:5000 > 198.51.100.8:53"));
	/* family */
	assert_int_equal(create(f, "udp 10.0.0.5:1 > 198.51.100.8:2", "2001:db8::1", -1, NULL, -1,
				msg, sizeof(msg)),
			 -EINVAL);
	/* an existing entry: EEXIST first (NLM_F_EXCL), as the kernel's */
	assert_int_equal(create(f, "udp 10.0.0.2:5000 > 198.51.100.8:53", "203.0.113.9", -1, NULL,
				-1, msg, sizeof(msg)),
			 -EEXIST);
	assert_int_equal(ct_table_stats(ct_box_table(f->b))->count, count);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_snat_then_packets),
	    cmocka_unit_test(test_dnat_then_packets),
	    cmocka_unit_test(test_both_and_ipv6),
	    cmocka_unit_test(test_tuple_taken_and_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers for the conntrack unit tests: packets from their one-line text form, fed through
 * ct_in + ct_confirm at an explicit time, as a box would between PREROUTING and POSTROUTING.
 */
#ifndef TESTS_UNIT_CT_TEST_H
#define TESTS_UNIT_CT_TEST_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "ct/ct.h"
#include "pkt/build.h"
#include "pkt_test.h"

#define S(x) ((uint64_t)(x) * CT_SEC)

static inline struct pkt *ct_test_pkt(const char *text)
{
	return pkt_test_build(text);
}

/* What one packet got. */
struct ct_result {
	unsigned state;  /* CT_STATE_* */
	unsigned ctinfo; /* CT_* */
	int ret;         /* of ct_in */
};

/* Feed one packet (PREROUTING .. POSTROUTING); returns its CT_STATE_* bit. */
static inline unsigned ct_test_feed_r(struct ct_table *t, const char *text, uint64_t now,
				      struct ct_result *r)
{
	struct pkt *p = ct_test_pkt(text);
	struct ct_result res;

	res.ret = ct_in(t, p, true, 0, now);
	res.state = ct_pkt_state(p);
	res.ctinfo = ct_pkt_ctinfo(p);
	ct_confirm(t, p, now);
	ct_pkt_release(t, p);
	pkt_free(p);
	if (r)
		*r = res;
	return res.state;
}

static inline unsigned ct_test_feed(struct ct_table *t, const char *text, uint64_t now)
{
	return ct_test_feed_r(t, text, now, NULL);
}

/* The entry a packet of that text form would find (no state change), or NULL. */
static inline struct ct_entry *ct_test_find(struct ct_table *t, const char *text, uint64_t now)
{
	struct pkt *p = ct_test_pkt(text);
	struct ct_tuple tu;
	struct ct_entry *e;

	assert_int_equal(ct_tuple_from_pkt(p, 0, &tu), 0);
	e = ct_lookup(t, &tu, now, NULL);
	pkt_free(p);
	return e;
}

static inline struct ct_table *ct_test_table(uint32_t max)
{
	struct ct_config c;
	struct ct_table *t;

	ct_config_default(&c);
	c.max_entries = max;
	t = ct_table_new(&c);
	assert_non_null(t);
	return t;
}

static inline const char *ct_test_line(const struct ct_entry *e, uint64_t now, char *buf,
				       size_t len)
{
	ct_entry_format(e, now, buf, len);
	return buf;
}

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Packets for unit tests, from their one-line text form (pkt/build.h; docs/simulator.md). */
#ifndef TESTS_UNIT_PKT_TEST_H
#define TESTS_UNIT_PKT_TEST_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pkt/build.h"

/* The packet text describes; a text that does not parse or build fails the test. */
static inline struct pkt *pkt_test_build(const char *text)
{
	struct pkt_spec *s = malloc(sizeof(*s));
	char err[160];
	struct pkt *p;

	assert_non_null(s);
	if (pkt_spec_parse(text, s, err, sizeof(err)))
		fail_msg("%s: %s", text, err);
	p = pkt_build(s);
	if (!p)
		fail_msg("%s: build failed: %s", text, strerror(errno));
	free(s);
	return p;
}

#endif

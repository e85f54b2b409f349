/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Hyperscan engine behind textsearch/multi.c (multi_hs.c; stubs without libhs). */
#ifndef TEXTSEARCH_MULTI_INT_H
#define TEXTSEARCH_MULTI_INT_H

#include "textsearch/multi.h"

struct ts_hs;

bool ts_hs_available(void);
/* 0, -ENOTSUP (no Hyperscan, or a pattern it cannot fold as the kernel does), -ENOMEM. */
int ts_hs_build(const struct ts_multi_pattern *pats, unsigned n, struct ts_hs **out);
void ts_hs_free(struct ts_hs *h);
int ts_hs_scan(struct ts_hs *h, const struct ts_source *src, ts_multi_cb cb, void *arg);

#endif

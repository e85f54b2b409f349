/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lists of -m recent as a plug-in of the box (src/plugins/recent.c): a box's lists live in
 * its "recent" slot, turned on by a ruleset with a recent match (or by editing a list), and
 * kept, with their contents, across ruleset reloads. The match reaches them through
 * ext_env_ops.plugin(box, "recent"); the simulator, live mode and the control socket through
 * the functions below, as /proc/net/xt_recent is read and written.
 *
 *   setup verb:  recent NAME +ADDR | -ADDR | /        (a write to /proc/net/xt_recent/NAME)
 */
#ifndef PLUGINS_RECENT_PLUGIN_H
#define PLUGINS_RECENT_PLUGIN_H

#include <stdio.h>

#include "engine/box.h"

extern const struct box_plugin_ops recent_plugin;

/* Print list NAME as /proc/net/xt_recent/NAME reads, or with NAME NULL the names of all lists,
 * one a line. 0 or -ENOENT (no such list). Data-path thread. */
int recent_box_print(struct box *b, const char *name, FILE *f);
/* Write CMD ("+ADDR", "-ADDR", "/") to list NAME, made if absent, at the box's time. 0 or
 * -errno with the reason in err. Data-path thread. */
int recent_box_write(struct box *b, const char *name, const char *cmd, char *err, size_t errlen);

#endif

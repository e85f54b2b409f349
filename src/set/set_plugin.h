/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "set" plug-in (engine/box.h, "plug-ins"): a box's sets. On once a box is given sets
 * (a file, `sets load`, `pkttables ipset`); its ext_data is the struct set_table that -m set
 * and -j SET reach through ext_env_ops.plugin(box, "set"); its clock callback frees expired elements.
 */
#ifndef SET_SET_PLUGIN_H
#define SET_SET_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "engine/box.h"

struct set_table;

extern const struct box_plugin_ops set_plugin;

/* The box's sets, the plug-in turned on first when `create` (NULL: ENOMEM, or off and not
 * create). */
struct set_table *set_box_table(struct box *b, bool create);

/* Apply a file in `ipset save` form to the box's sets, whole or not at all. 0, or -EINVAL
 * with "FILE:LINE: message" written to err. */
int set_box_restore(struct box *b, const char *text, size_t len, const char *name, FILE *err);

#endif

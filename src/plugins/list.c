// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The plug-ins every box gets a slot for (engine/box.h, "plug-ins"), in the order they are
 * turned on, told the clock and asked for counters. This file sits above every plug-in so
 * that the engine, which reads the list, names none of them; a new plug-in (state sync, the
 * classifier, sets) adds its ops here.
 */
#include <stddef.h>

#include "ct/ct_plugin.h"
#include "nat/nat_plugin.h"
#include "plugins/recent_plugin.h"
#include "set/set_plugin.h"

const struct box_plugin_ops *const box_plugin_list[] = {
    &ct_plugin,
    &nat_plugin,
    &recent_plugin,
    &set_plugin,
    NULL,
};

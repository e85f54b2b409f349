/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A box from text and its counters as text (setup.c): the setup lines of simulator scripts,
 * `replay --box` files and live mode's config file, one parser for all.
 */
#ifndef ENGINE_SETUP_H
#define ENGINE_SETUP_H

#include <stddef.h>
#include <stdio.h>

struct box;

/* Apply one setup command (iface, addr, route, forwarding, or a plug-in's: conntrack set,
 * ct-timeout, nat set), split into words. 0, or -1 with the reason in err. */
int box_setup_command(struct box *b, int argc, char **argv, char *err, size_t errlen);
/* Read a whole file into a malloc()ed, NUL-terminated buffer. 0 or -errno. */
int box_read_file(const char *path, char **buf, size_t *len);
/* The box's statistics (received, forwarded, dropped by reason, malformed by reason, ...),
 * then box_print_plugin_stats with an indent of two blanks. */
void box_print_stats(FILE *f, const struct box *b);
/* The counter lines of the plug-ins that are on (conntrack, defrag, nat), each after
 * `indent`. */
void box_print_plugin_stats(FILE *f, const struct box *b, const char *indent);

#endif

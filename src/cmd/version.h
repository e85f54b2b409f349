/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The version of pkttables: the one place it is written. NEWS.md's newest heading names the
 * same version (tests/news/run-version.sh checks both); raise it with a new NEWS.md section.
 */
#ifndef CMD_VERSION_H
#define CMD_VERSION_H

#define PKTTABLES_VERSION "0.6.0"

#endif

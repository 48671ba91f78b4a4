/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

/* Whether the command line asks for --shared, --enter or --drop (share_namespace). */
bool ns_check_share_wanted(int argc, char **argv);
/* Those commands; returns the exit status. */
int ns_check_share_main(int argc, char **argv);

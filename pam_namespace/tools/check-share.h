/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "plan.h"

/* Whether the command line asks for --shared, --enter or --drop (share_namespace). */
bool ck_share_wanted(int argc, char **argv);
/* Those commands; returns the exit status. */
int ck_share_main(int argc, char **argv);
/*
 * --user with --share-namespace: whether a session of the user would join
 * a pinned namespace or build one, and the user's pins with other keys.
 */
void ck_share_plan(const struct ns_plan *plan, const struct ns_user *user, bool mount_private,
		   bool ignore_parent_mode);

/* How long --drop waits for the user's lock by default (--timeout). */
#define NS_CHECK_DROP_TIMEOUT_S 10

/* A uid in decimal: 0, -EINVAL if not a number, -ERANGE if not a uid. */
int ck_parse_uid(const char *s, uid_t *ret);

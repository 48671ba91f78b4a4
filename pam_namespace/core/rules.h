/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "plan.h"

/*
 * share=: whether the real directory (its stat) may be kept the system's
 * under a polydir owned by poly_uid: owned by root or poly_uid and, if group
 * or others may write it, sticky.
 */
bool ns_share_owner_ok(mode_t mode, uid_t uid, uid_t poly_uid);

/*
 * Why quota= cannot be had, for an error of kn_tmpfs_set_user_quota() or
 * kn_tmpfs_quota_state(); NULL for an error that says it itself.
 */
const char *ns_quota_refusal(int error);

struct stat;
/*
 * SPEC 4: whether an existing instance parent may hold instances: owned by
 * root with mode 000, or anything when relaxed (ignore_instance_parent_mode
 * or the line's flag). Shared with pam_namespace_check.
 */
bool ns_instance_parent_ok(const struct stat *st, bool relaxed);
/*
 * SPEC 4's words for a refused instance parent, after its ownership
 * ("owner root, group root, mode 0755; " + this): host/lookup.c's
 * ns_instance_parent_refusal() writes the whole text.
 */
extern const char ns_instance_parent_rule[];
/*
 * SPEC 5: whether an init script (its stat, links followed) may run: 0;
 * -EPERM when refused (not a regular file owned by root and not writable by
 * group or others); -EACCES when it has no execute bit.
 */
int ns_init_script_ok(const struct stat *st);

/*
 * share=: whether the entry's instance is shared by several users (context
 * or level with shared). A share= directory that is not what it must be
 * then refuses the session; in an instance of one user's own it is only
 * not shared. Shared with pam_namespace_check.
 */
bool ns_share_instance_is_shared(const struct ns_plan_entry *e);

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "plan.h"

/*
 * getpwnam_r() (ent a struct passwd) or getgrnam_r() (a struct group) into
 * stack, then into a buffer on the heap four times larger while the entry
 * does not fit, up to 1 MiB. The strings of *ent live in stack or *heap,
 * which the caller frees. 0, -ENOENT for no such name, or a negative errno
 * when the name service failed.
 */
int ns_nss_lookup(const char *name, bool group, void *ent, char *stack, size_t size, char **heap);
/* The name of a uid (or of a gid, group), by the same calls; NULL if none or out of memory. */
char *ns_nss_id_name(unsigned id, bool group);

/*
 * "owner alice, group users, mode 0700", with names where the name service
 * knows them, else the ids; NULL when out of memory.
 */
char *ns_ownership_text(uid_t uid, gid_t gid, mode_t mode);
struct stat;
/*
 * Why an instance parent (its stat) is refused, the words after "instance
 * parent PATH: " in the module's log line, the checker's and the helper's
 * error alike: "owner root, group root, mode 0755; " and core/rules.c's
 * ns_instance_parent_rule. NULL: out of memory.
 */
char *ns_instance_parent_refusal(const struct stat *st);

/*
 * The planner's struct ns_lookup as the module and pam_namespace_check both
 * use it: users and groups by ns_nss_lookup(), SELinux's member context and
 * polyinstantiation boolean (host/selinux.c).
 */
struct ns_lookup ns_host_lookup(void);

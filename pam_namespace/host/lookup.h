/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "plan.h"

/*
 * getpwnam_r() (ent a struct passwd) or getgrnam_r() (a struct group) into
 * stack, then into a buffer on the heap four times larger while the entry
 * does not fit, up to 1 MiB. The strings of *ent live in stack or *heap,
 * which the caller frees. 0, -ENOENT for no such name, or a negative errno
 * when the name service failed.
 */
int ns_nss_lookup(const char *name, bool group, void *ent, char *stack, size_t size, char **heap);

/*
 * The planner's struct ns_lookup as the module and pam_namespace_check both
 * use it: users and groups by ns_nss_lookup(), SELinux's member context and
 * polyinstantiation boolean (host/selinux.c).
 */
struct ns_lookup ns_host_lookup(void);

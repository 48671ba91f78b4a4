/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

#include "args.h"
#include "config.h"

/* Whether SELinux is built in and enabled on this system. */
bool ns_selinux_enabled(void);

/*
 * The user's context for the context and level methods: the exec context
 * (set by pam_selinux), the current one with use_current_context, the
 * default for the user with use_default_context. *ret is NULL when there is
 * none (SELinux off): those methods then fall back to user. Never a NULL
 * dereference (Linux-PAM can crash here).
 */
int ns_selinux_user_context(const struct ns_args *args, const char *user, char **ret);

/* ns_lookup.member_context: security_compute_member for polydir's context. */
int ns_selinux_member_context(void *userdata, const char *user_context, const char *polydir,
			      enum ns_method method, char **ret);

/* Label the instance directory held by fd; 0 when SELinux is off or ctx NULL. */
int ns_selinux_label_fd(int fd, const char *ctx);

/* Reset the exec context before running the init script. */
int ns_selinux_reset_exec(void);

/*
 * The same around posix_spawn(), where no code of ours runs between fork
 * and exec: reset the calling thread's exec context, keeping in *ret_saved
 * what ns_selinux_exec_restore() puts back (NULL: nothing to put back).
 */
int ns_selinux_exec_reset_saved(char **ret_saved);
void ns_selinux_exec_restore(char *saved);

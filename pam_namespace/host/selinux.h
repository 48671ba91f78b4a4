/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

#include "args.h"
#include "config.h"

/*
 * Every libselinux call the module makes that depends on the running
 * system, so that unit tests can give contexts on a machine without
 * SELinux. Each returns 0 or -1 with errno, as libselinux does; contexts
 * returned are freed with freecon. All contexts are raw (untranslated).
 * There is no call that reads a label by name: every label is read from a
 * descriptor a walk opened.
 */
struct ns_selinux_ops {
	int (*is_enabled)(void); /* > 0 when SELinux is enabled */
	int (*getexeccon)(char **ret);
	int (*getcon)(char **ret);
	/* The user's default context (getseuserbyname + get_default_context_with_level). */
	int (*default_context)(const char *user, char **ret);
	int (*fgetfilecon)(int fd, char **ret);
	int (*fsetfilecon)(int fd, const char *con);
	/* security_compute_member for class "dir". */
	int (*compute_member_dir)(const char *scon, const char *tcon, char **ret);
	int (*setexeccon)(const char *con);
	/* The file-contexts label of a directory at path (selabel_lookup). */
	int (*default_dir_context)(const char *path, char **ret);
	void (*freecon)(char *con);
	int (*getenforce)(void);		     /* 1 enforcing, 0 permissive */
	int (*get_boolean_active)(const char *name); /* 0 or 1; -1 unknown name */
};

/* Replace the libselinux calls (unit tests); NULL restores the real ones. */
void ns_selinux_set_ops(const struct ns_selinux_ops *ops);

/* Whether SELinux is built in and enabled on this system. */
bool ns_selinux_enabled(void);

/*
 * The name of the policy's boolean that gates polyinstantiation
 * (allow_polyinstantiation in the reference policy and Debian's,
 * polyinstantiation_enabled in Fedora's) when SELinux is enforcing and
 * that boolean is off, which refuses every polyinstantiated session; else
 * NULL.
 */
const char *ns_selinux_polyinstantiation_off(void);

/*
 * For a denied session: the same, or, where this process's domain may not
 * read the boolean (Debian's policy hides it from sshd_t), its name with
 * *known false, since it is then the likely cause but not a known one.
 */
const char *ns_selinux_polyinstantiation_suspect(bool *known);

/*
 * The user's context for the context and level methods: the exec context
 * (set by pam_selinux), the current one with use_current_context, the
 * default for the user with use_default_context. *ret is NULL when there is
 * none (SELinux off, or no exec context): those methods then fall back to
 * user. Never a NULL dereference (Linux-PAM can crash here). A failure to
 * get the current or default context is an error, as in Linux-PAM.
 */
int ns_selinux_user_context(const struct ns_args *args, const char *user, char **ret);

/*
 * ns_lookup.member_context: the instance's context. context: what the
 * policy computes (security_compute_member, class dir) for the user's
 * context and the polydir's; level: the polydir's context with the MLS
 * range of the user's. The polydir's label is read from the descriptor
 * kn_open_dir gives (no link followed below a directory others may
 * write: -ELOOP), never by name.
 */
int ns_selinux_member_context(void *userdata, const char *user_context, const char *polydir,
			      enum ns_method method, char **ret);

/* Label the instance directory held by fd; 0 when SELinux is off or ctx NULL. */
int ns_selinux_label_fd(int fd, const char *ctx);

/*
 * The same for a directory that several levels share (the helper's
 * instance parents): where the policy refuses ctx (EACCES, EPERM) and ctx
 * has an MLS range, the same context at the range's low level instead, in
 * *ret_used (freed with free; NULL when ctx itself was set). Under an MLS
 * policy a domain without mlsfileupgrade may not relabel a directory from
 * one level up to a range (the policy's validatetrans), but may set the
 * range's low level. Fails with the refusal of ctx when that is refused
 * too or ctx has no range.
 */
int ns_selinux_label_fd_or_low(int fd, const char *ctx, char **ret_used);

/*
 * Label the directory held by fd as the one held by like_fd (user and
 * tmpdir instances get their polydir's label, as in Linux-PAM); 0 when
 * SELinux is off.
 */
int ns_selinux_label_like(int fd, int like_fd);

/*
 * A polydir just made by create: the label the policy's file contexts give
 * path, as Linux-PAM does. Best effort, as there: 0 when SELinux is off or
 * the policy has no label for path, else the result of labelling.
 */
int ns_selinux_label_new_dir(int fd, const char *path);

/* Reset the exec context before running the init script. */
int ns_selinux_reset_exec(void);

/*
 * The same around posix_spawn(), where no code of ours runs between fork
 * and exec: reset the calling thread's exec context, keeping in *ret_saved
 * what ns_selinux_exec_restore() puts back (NULL: nothing to put back).
 */
int ns_selinux_exec_reset_saved(char **ret_saved);
void ns_selinux_exec_restore(char *saved);

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "plan.h"

struct ns_session;
struct ns_failure;

struct ns_apply_opts {
	bool mount_private;
	bool ignore_instance_parent_mode;
	bool debug;
	/*
	 * A plain session (not share_namespace's pinned build): a marker
	 * beside each tmpdir instance it makes, and the leftovers of uid's
	 * sessions that never closed removed first (apply_tmpdirs.c).
	 */
	bool mark_tmpdirs;
	unsigned init_timeout; /* seconds */
	uid_t uid;	       /* the user's, for mark_tmpdirs */
	const char *user;      /* for the init script */
	/*
	 * unmnt_remnt, unmnt_only: polydirs of the original user to unmount
	 * in the new namespace before the plan is applied.
	 */
	char *const *unmount_first;
	size_t n_unmount_first;
	/*
	 * The caller's place, saved already (share_namespace saves it to pin
	 * from there): apply goes back to it on failure, and neither saves
	 * nor closes it. NULL: apply saves it itself.
	 */
	const struct kn_ns_saved *saved;
	/*
	 * Called in the new namespace once every entry is applied, before
	 * the attempt is committed (share_namespace pins the namespace
	 * there). A negative errno, with *fail set, rolls the attempt back as
	 * any failure would: the caller goes back to its place, from
	 * wherever the hook left it, and the instances are removed. The hook
	 * undoes what it made itself.
	 */
	int (*commit)(void *userdata, const struct ns_session *sess, struct ns_failure *fail);
	void *commit_userdata;
};

struct stat;
/*
 * SPEC 4: whether an existing instance parent may hold instances: owned by
 * root with mode 000, or anything when relaxed (ignore_instance_parent_mode
 * or the line's flag). Shared with pam_namespace_check.
 */
bool ns_instance_parent_ok(const struct stat *st, bool relaxed);
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

/* Where and why apply failed: the one place the module logs it. */
struct ns_failure {
	const struct ns_plan_entry *entry; /* NULL: not about one line */
	const char *what;		   /* "opening polydir", "mounting" ... */
	char *path;			   /* path concerned, or NULL */
	int error;			   /* negative errno, or 0 when 'detail' says all */
	char *detail;			   /* e.g. "mode 0755, owner uid 0; must be 000 and root" */
};

/* What close needs to know, kept as PAM data. */
struct ns_session {
	char **polydirs; /* mounted polydirs, in order */
	size_t n_polydirs;
	/*
	 * tmpdir instances to remove at close, held by their parent's
	 * descriptor: inside the session the parent is hidden by the mount.
	 */
	struct ns_tmpdir {
		int parent_fd;
		char *name;
		char *path;   /* for messages */
		char *marker; /* its marker's name (mark_tmpdirs), or NULL */
	} * tmpdirs;
	size_t n_tmpdirs;
};

/* Called for informational messages (init script status, debug). */
typedef void (*ns_apply_log_fn)(void *userdata, bool debug, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Apply plan to the calling process: unshare, make / slave, then for each
 * entry resolve, create, mount and run the init script. On failure the
 * process is put back into its original mount namespace, instances made by
 * this call are removed, *fail says what went wrong, and a negative errno
 * is returned. An empty plan with nothing to unmount changes nothing.
 */
int ns_apply(const struct ns_plan *plan, const struct ns_apply_opts *opts, struct ns_session *sess,
	     struct ns_failure *fail, ns_apply_log_fn log, void *log_userdata);

/*
 * Root's time to remove the tmpdir instances of one close, or of one share
 * drop (pam_namespace(8)): past it, what is left stays, is logged once with
 * NS_REMOVE_LEFT, and is removed by pam_namespace_helper at the next boot.
 */
#define NS_REMOVE_BOUND_MS 5000
#define NS_REMOVE_LEFT                                                                             \
	"not removed within 5 seconds (a tree too large, or changing meanwhile): left in "         \
	"place for pam_namespace_helper to remove at the next boot"

/*
 * Root's time, at an open, to remove the tmpdir instances that the user's
 * sessions which never closed left (all of them, every line's): past it,
 * what is left stays for the next open or pam_namespace_helper.
 */
#define NS_LEFTOVER_BOUND_MS 2000

/*
 * Close: unmount polydirs when asked, remove tmpdir instances (and then
 * their markers; one whose instance ran out of time stays, for the next
 * open to try again). Returns the
 * first error, in fail; each later one is logged (log may be NULL).
 */
int ns_session_close(struct ns_session *sess, bool unmount, struct ns_failure *fail,
		     ns_apply_log_fn log, void *log_userdata);

/*
 * The caller's working directory, saved before its namespace changes
 * (unshare or setns) and taken again after (ns_cwd_restore, in apply.c,
 * says how) by both plain and shared sessions.
 */
struct ns_cwd {
	char *path; /* NULL: no name to walk again */
	bool held;  /* dev and ino are the directory's */
	dev_t dev;
	ino_t ino;
};
void ns_cwd_save(struct ns_cwd *ret);
void ns_cwd_restore(const struct ns_cwd *cwd);
void ns_cwd_free(struct ns_cwd *cwd);

void ns_session_free(struct ns_session *sess);
/* Let go of the tmpdir instances without removing them (share_namespace: the pin owns them). */
void ns_session_forget_tmpdirs(struct ns_session *sess);
void ns_failure_free(struct ns_failure *fail);

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

/*
 * apply/'s API for share/ and module/: one attempt at a session's namespace
 * (ns_apply), with its options (options.h), its failure (failure.h) and
 * what its close needs (session.h), and the caller's working directory
 * kept across a change of namespace.
 */
#include <stdbool.h>
#include <sys/types.h>

#include "options.h"
#include "failure.h"
#include "plan.h"
#include "session.h"

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
 * The caller's working directory, saved before its namespace changes
 * (unshare or setns) and taken again after (ns_cwd_restore, in apply.c,
 * says how) by both plain and shared sessions.
 */
struct ns_cwd {
	char *path; /* NULL: no name to walk again */
	bool held;  /* dev and ino are the directory's */
	dev_t dev;
	ino_t ino;
	int held_fd; /* borrowed: the directory, to take dev and ino from if asked; or -1 */
};
/*
 * held_fd: a descriptor of the working directory the caller keeps open
 * until ns_cwd_restore() (kn_ns_save's), so that its device and inode are
 * taken only where the restore needs them; -1 takes them now.
 */
void ns_cwd_save(struct ns_cwd *ret, int held_fd);
/*
 * covered: whether the namespace change can have put something over the
 * saved name (a mount on it or on a directory above it); if not, the
 * process is left where unshare() put it, in its own directory.
 */
void ns_cwd_restore(const struct ns_cwd *cwd, bool covered);
void ns_cwd_free(struct ns_cwd *cwd);

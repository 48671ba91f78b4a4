/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * What the files of apply/ share and nothing outside it sees: the state of
 * one attempt (struct apply_ctx) and the files' calls into each other.
 * apply.c is on top and calls the steps; every step calls attempt.c below
 * it, and no step calls another's or apply.c:
 *
 *   apply.c        the attempt: unshare, each entry in turn, commit or
 *                  rollback; the caller's working directory
 *   instance.c     the polydir, the instance parent and the instance (and
 *                  its mode after the init script)
 *   shares.c       share=: the real directories bound into the instance
 *   init-script.c  the init script
 *   tmpdirs.c      the markers of tmpdir instances, and the leftovers of the
 *                  user's sessions that never closed
 *   attempt.c      what the attempt made and its undo, its locks
 *                  (options.h: the options it is given)
 *   session.c      what a session keeps for its close, and the close
 *   failure.c      why the attempt failed: ns_fail, the one filler of
 *                  struct ns_failure
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "options.h"
#include "failure.h"
#include "session.h"
#include "kernel.h"
#include "plan.h"
#include "util.h"

/* What one entry made, to undo on failure. */
struct apply_made {
	int parent_fd; /* holds name */
	char *name;
	const char *path; /* the plan's, for messages */
};

/* An instance parent this attempt holds locked (LOCK_EX) until it ends. */
struct apply_lock {
	int fd;
	dev_t dev;
	ino_t ino;
};

struct apply_ctx {
	const struct ns_apply_opts *opts;
	struct ns_failure *fail;
	ns_apply_log_fn log;
	void *log_userdata;
	struct apply_made *made;
	size_t n_made;
	struct apply_lock *locks; /* released after undo_made, on commit or rollback */
	size_t n_locks;
	struct ns_session sess;
	struct kn_dir root;	    /* "/" in the new namespace, where every walk starts */
	uint64_t leftover_deadline; /* tmpdirs.c: set at its first leftover */
	int self_pid;		    /* tmpdirs.c: this process, once read */
	unsigned long long self_start;
};

/* attempt.c */
/* Keep a directory this attempt made, to remove on failure. */
int apply_remember_made(struct apply_ctx *c, int parent_fd, const char *name, const char *path);
/* Forget what was made (commit), or remove it, newest first (rollback). */
void apply_undo_made(struct apply_ctx *c, bool remove);
/* Release the instance parents' locks (after what the attempt made is kept or removed). */
void apply_unlock_all(struct apply_ctx *c);

/* instance.c */
int apply_open_polydir(struct apply_ctx *c, const struct ns_plan_entry *e, bool *ret_parent_trusted,
		       bool *ret_base_ok);
int apply_open_instance(struct apply_ctx *c, const struct ns_plan_entry *e,
			const struct kn_dir *polyd, bool base_ok, bool *ret_new, char **ret_path);
/* After the init script: take away group/other write bits the polydir does not have. */
int apply_keep_instance_private(struct apply_ctx *c, const struct ns_plan_entry *e, int ifd,
				const struct stat *poly, const char *instance);
/* shares.c */
int apply_mount_shares(struct apply_ctx *c, const struct ns_plan_entry *e,
		       const struct kn_dir *poly, int mnt_fd);
/* tmpdirs.c */
/*
 * Before a tmpdir instance is made in the parent pfd (st its fstat;
 * readable: pfd is open for reading, else O_PATH): remove the user's
 * leftovers there whose session's opener is gone and that no mount
 * namespace has mounted. Never fails the attempt: logged.
 */
void apply_remove_leftovers(struct apply_ctx *c, const struct ns_plan_entry *e, int pfd,
			    bool readable, const struct stat *st);
/* Write the marker of the session's tmpdir instance t; a failure is logged. */
void apply_mark_tmpdir(struct apply_ctx *c, const struct ns_plan_entry *e, int pfd,
		       const struct stat *st, struct ns_tmpdir *t);
/* init-script.c */
int apply_run_init_script(struct apply_ctx *c, const struct ns_plan_entry *e, const char *instance,
			  bool created);

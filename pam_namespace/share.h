/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

/*
 * share_namespace: one mount namespace for all sessions of a user with the
 * same instance key. The first session builds it as any session does and
 * pins it in NS_SHARE_DIR; later ones verify the pin and join it with
 * setns(); the last close unpins it. Everything happens under a per-user
 * lock, so that opens and closes of one user never interleave.
 *
 * In NS_SHARE_DIR (/run/pam_namespace; root's, mode 0700, a private mount of its own):
 *   UID.lock         the lock, never removed
 *   UID-KEY.ns       the pinned namespace (a bind of its nsfs file)
 *   UID-KEY.state    what was pinned and which sessions use it
 */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "apply.h"
#include "ns-build.h"
#include "plan.h"

/*
 * A session's process, told apart from a later one with its pid by its
 * pidfs inode (kernels from 6.9), else its start time.
 */
struct ns_share_proc {
	pid_t pid;
	bool pidfs; /* id is the pidfs inode, else /proc/PID/stat's start time */
	unsigned long long id;
};

struct ns_share_state {
	dev_t dev; /* the pinned namespace */
	ino_t ino;
	dev_t root_dev; /* "/" of the session that pinned it: a joiner must have the same */
	ino_t root_ino;
	char *user;
	char **polydirs; /* what the namespace has mounted, for the check tool */
	size_t n_polydirs;
	struct ns_share_tmpdir {
		char *parent; /* path, resolved again when the last session closes */
		char *name;
	} * tmpdirs;
	size_t n_tmpdirs;
	struct ns_share_proc *sessions;
	size_t n_sessions;
};

/* What close needs, kept as PAM data by a session that built or joined a pinned namespace. */
struct ns_share {
	int dir_fd; /* NS_SHARE_DIR, opened in process 1's namespace, which holds the pins */
	uid_t uid;
	char *base; /* "UID-KEY" */
	struct ns_share_proc self;
	bool built; /* this session built the namespace (else joined it) */
};

/*
 * The instance key: a 128-bit hash of everything that selects what is mounted,
 * the uid, the SELinux context, the plan's entries and the options that
 * change how they are applied, and the original user for unmnt_remnt and
 * unmnt_only. 32 hex characters and a NUL into out.
 */
int ns_share_key(const struct ns_plan *plan, const struct ns_user *user,
		 const struct ns_apply_opts *opts, long orig_uid, char out[33]);

/*
 * Open a session in share mode: join the user's pinned namespace for this
 * key, or build one with ns_apply() and pin it. Where the pin directory or
 * a pin cannot be trusted, or the caller is not in the init process's
 * mount namespace (or is chrooted), one line is logged and the session
 * builds a namespace of its own, as without share_namespace: then
 * *ret_share is NULL. On failure the caller is where it was, as for
 * ns_apply().
 */
int ns_share_open(const struct ns_plan *plan, const struct ns_apply_opts *opts, uid_t uid,
		  const char *key, struct ns_session *sess, struct ns_share **ret_share,
		  struct ns_failure *fail, ns_apply_log_fn log, void *log_userdata);

/*
 * Close: drop this session (and any whose process is gone) from the
 * state; the last one unmounts the pin and removes the tmpdir instances,
 * and with unmount the polydirs in the namespace it leaves.
 */
int ns_share_close(struct ns_share *share, bool unmount, struct ns_failure *fail,
		   ns_apply_log_fn log, void *log_userdata);
void ns_share_free(struct ns_share *share);

/* --- for the check tool --- */

/* Open NS_SHARE_DIR as it is, checked (root's, 0700, no link); -ENOENT if there is none. */
int ns_share_dir_open_existing(void);
/* Take the user's lock: a descriptor to close, or a negative errno. */
int ns_share_lock(int dir_fd, uid_t uid);
/* Read BASE.state: 0, -ENOENT, -EBADMSG if malformed, -EPERM if not root's and private. */
int ns_share_state_read(int dir_fd, const char *base, struct ns_share_state *ret);
int ns_share_state_write(int dir_fd, const char *base, const struct ns_share_state *st);
void ns_share_state_free(struct ns_share_state *st);
/* 1 if the process is the same one (pid and start time), 0 if it is gone. */
int ns_share_proc_alive(const struct ns_share_proc *p);
/* Drop the sessions whose process is gone; returns how many. */
size_t ns_share_state_prune(struct ns_share_state *st);
/*
 * Open BASE.ns and check it is the namespace the state recorded: a mount
 * namespace with that device and inode. A descriptor, or -EMEDIUMTYPE
 * (not a namespace), -ESTALE (another namespace), -errno.
 */
int ns_share_pin_open(int dir_fd, const char *base, const struct ns_share_state *st);
/*
 * Unpin BASE, remove its tmpdir instances and its state. The caller is in
 * the namespace that holds the pin. Returns the first error.
 */
int ns_share_drop(int dir_fd, const char *base, const struct ns_share_state *st);

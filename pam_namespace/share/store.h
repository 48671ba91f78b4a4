/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

/*
 * share_namespace's store, the part that the module and pam_namespace_check
 * (--shared, --enter, --drop) both use: the instance key and the state file
 * (store.c), processes, the pin directory, locks and session records
 * (records.c), pins opened and dropped (pin.c). share.h is the module's
 * open and close on top of it.
 *
 * NS_SHARE_DIR (/run/pam_namespace; root's, mode 0700, a private mount of
 * its own) holds a directory per user, UID (root's, 0700), with:
 *   lock             the user's lock, never removed
 *   KEY.ns           a pinned namespace (a bind of its nsfs file)
 *   KEY.state        what was pinned, written once by the session that pinned it
 *   KEY@PID.pID      a session using it (pidfs inode; .sID: start time), empty
 */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "failure.h"
#include "options.h"
#include "ns-build.h"
#include "plan.h"

struct kn_dir;

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
	int format; /* of the state file read; 0: this build's, when written */
	dev_t dev;  /* the pinned namespace */
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
	size_t user_sessions; /* live records of the user, every key (a scan's) */
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
 * The parent of a tmpdir instance, path "PARENT/NAME" (to free); NULL with
 * errno EINVAL where path does not end in "/NAME" after a parent.
 */
char *ns_share_tmpdir_parent(const char *path, const char *name);

/* Open NS_SHARE_DIR as it is, checked (root's, 0700, no link); -ENOENT if there is none. */
int ns_share_dir_open_existing(void);
/* NS_SHARE_DIR/UID under it, checked the same way; made when create. */
int ns_share_user_dir(int dir_fd, uid_t uid, bool create);
/*
 * The same, for a session: one it makes is root:root 0700 whatever its
 * umask and group; a wrong root-owned one that no one else can write is
 * put right (*ret_repaired).
 */
int ns_share_user_dir_repair(int dir_fd, uid_t uid, bool create, bool *ret_repaired);
/*
 * Take the user's lock, waiting at most timeout_ms: a descriptor to close,
 * or a negative errno (-ETIMEDOUT).
 */
int ns_share_lock(int udir, unsigned timeout_ms);
/*
 * Read KEY.state: 0, -ENOENT, -EBADMSG if malformed, -EPERM if not root's
 * and private, -EPROTO if of a format this build cannot join.
 */
int ns_share_state_read(int udir, const char *key, struct ns_share_state *ret);
/*
 * The same for a state of another format too (st->format says which), as
 * far as this build knows its lines, for dropping another release's pin:
 * not for joining it.
 */
int ns_share_state_read_other(int udir, const char *key, struct ns_share_state *ret);
int ns_share_state_write(int udir, const char *key, const struct ns_share_state *st);
void ns_share_state_free(struct ns_share_state *st);
/* 1 if the process is the same one (pid and pidfs inode or start time), 0 if it is gone. */
int ns_share_proc_alive(const struct ns_share_proc *p);
int ns_share_session_add(int udir, const char *key, const struct ns_share_proc *p);
int ns_share_session_remove(int udir, const char *key, const struct ns_share_proc *p);

/* Most live session records a user may have, every key together; past it, sessions go unshared. */
#ifndef NS_SHARE_MAX_SESSIONS
#define NS_SHARE_MAX_SESSIONS 256
#endif
/* How long a session waits for a lock a stopped or stuck session holds, in ms. */
#ifndef NS_SHARE_LOCK_MS
#define NS_SHARE_LOCK_MS 3000
#endif

enum ns_share_scan {
	NS_SHARE_SCAN_COUNT,	  /* key's live sessions into st->sessions, the gone ones counted */
	NS_SHARE_SCAN_PRUNE,	  /* as COUNT, and the gone records of every key removed */
	NS_SHARE_SCAN_REMOVE_ALL, /* remove every record of key */
};
/*
 * The sessions of key: live ones into st->sessions, gone ones counted into
 * *ret_stale (of every key with PRUNE); st->user_sessions counts the live
 * ones of every key with PRUNE.
 */
int ns_share_sessions(int udir, const char *key, enum ns_share_scan mode, struct ns_share_state *st,
		      size_t *ret_stale);
/*
 * Open KEY.ns and check it is the namespace the state recorded: a mount
 * namespace with that device and inode. A descriptor, or -EMEDIUMTYPE
 * (not a namespace), -ESTALE (another namespace), -errno.
 */
int ns_share_pin_open(int udir, const char *key, const struct ns_share_state *st);
/*
 * The same for uid's pin of key where process 1's namespace holds it,
 * state read and checked: a descriptor; -ENOENT where there is no pin
 * directory, state or pin, the errors above, -EPERM for an untrusted
 * directory.
 */
int ns_share_pin_open_pid1(uid_t uid, const char *key);
/*
 * Unpin KEY, remove its tmpdir instances, its state and, with records, its
 * session records (a caller whose scan under the lock found none alive has
 * removed them already). tmpdir instances are found by path: the caller is
 * in the namespace that holds the pin when there are any. Returns the
 * first error.
 */
int ns_share_drop(int udir, const char *key, const struct ns_share_state *st, bool records);
/*
 * The same with the tmpdir instances walked from root (NULL: "/"), and
 * what cannot be removed logged, named as where (NS_SHARE_DIR/UID/KEY)
 * and the instance's path; the state stays then, for the next open to
 * drop the rest.
 */
int ns_share_drop_from(int udir, const char *key, const struct ns_share_state *st, bool records,
		       const struct kn_dir *root, const char *where, ns_apply_log_fn log, void *ud);

/* --- for share/ and the fuzz targets, not the tools --- */

struct ns_session;
struct stat;
/* KEY and a suffix (".ns", ".state"), to free; NULL without memory. */
char *share_file_name(const char *base, const char *suffix);
/*
 * KEY.state's text (st->format 0: this build's) and back (-EBADMSG,
 * -EPROTO as ns_share_state_read(); text is cut up).
 */
int share_state_format(const struct ns_share_state *st, char **ret_text, size_t *ret_len);
int share_state_parse(char *text, bool other, struct ns_share_state *ret);
/* The state of a namespace just built: the pin's fstat, "/", the session's polydirs and tmpdirs. */
int share_state_from_session(struct ns_share_state *st, const char *user,
			     const struct ns_session *sess, const struct stat *pin);

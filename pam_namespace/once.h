/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

/*
 * One polyinstantiation per login. A stack that runs the module twice for
 * one handle (su-l including su, common-session plus a service's own line)
 * is caught by the glue with PAM data; this file answers the other case: a
 * process that is already in the mount namespace this module made for the
 * same user and plan (su - alice inside alice's own session).
 *
 * The proof is one a user cannot forge. After a session is built, a record
 * keyed by the new mount namespace (nsfs device and inode) is written in
 * NS_ONCE_DIR, root's and 0700: the uid, the plan key, and for each polydir
 * the device and inode of the directory mounted on it. A later session
 * counts as already set up only if the record of the namespace it is in
 * names the same uid and plan key and every polydir, resolved safely in
 * that namespace, is still a mount root with the recorded device and inode
 * (only root mounts in a namespace the initial user namespace owns). A
 * stale record that outlived its namespace passes only where the same
 * instances are mounted on the same polydirs, which is the state it
 * stands for.
 *
 * With share_namespace the proof is share.c's pin: the caller is in the
 * namespace pinned for this user and key.
 */

#include <sys/types.h>

#include "apply.h"
#include "ns-build.h"
#include "plan.h"

#define NS_ONCE_DIR NS_SHARE_DIR ".once"

/*
 * What identifies the mounts a plan makes, whatever is undone first:
 * share.c's key of the plan, the user and the options, without
 * unmnt_remnt's original user (the nested su of a user into her own
 * session finds the namespace her login made).
 */
int ns_once_key(const struct ns_plan *plan, const struct ns_user *user,
		const struct ns_apply_opts *opts, char out[33]);

/*
 * 1 if the caller's mount namespace has a record for uid and key that the
 * polydirs of plan prove, 0 if not (no record, another user or plan, a
 * polydir no longer the recorded mount), a negative errno if the record
 * could not be read.
 */
int ns_once_in_own(const struct ns_plan *plan, uid_t uid, const char *key);

/*
 * After the session was built, in its new namespace: write the record.
 * *ret_name (to free) is the record's name, for ns_once_forget().
 */
int ns_once_record(const struct ns_plan *plan, uid_t uid, const char *key, char **ret_name);

/* The session that wrote it closes: the record goes. */
int ns_once_forget(const char *name);

/*
 * share_namespace: 1 if the caller is in the namespace share.c pinned for
 * uid and share_key (the pin checked by share.c), 0 if not, -errno.
 */
int ns_once_in_shared(uid_t uid, const char *share_key);

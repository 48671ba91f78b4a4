/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

/*
 * share_namespace: one mount namespace for all sessions of a user with the
 * same instance key. The first session builds it as any session does and
 * pins it in NS_SHARE_DIR; later ones verify the pin and join it with
 * setns(); the last close unpins it. Everything happens under a per-user
 * lock, so that opens and closes of one user never interleave; a session
 * waits for it at most NS_SHARE_LOCK_MS, then builds a namespace of its own.
 * The code: share.c (open, join, close) and commit.c (the namespace built
 * is pinned), on top of the store (store.h); internal.h between them.
 */

#include <stdbool.h>
#include <sys/types.h>

#include "apply.h"
#include "plan.h"
#include "store.h"

/* What close needs, kept as PAM data by a session that built or joined a pinned namespace. */
struct ns_share {
	int dir_fd; /* NS_SHARE_DIR/UID, opened in process 1's namespace, which holds the pins */
	uid_t uid;
	char *key;
	char *where; /* NS_SHARE_DIR/UID/KEY, for messages */
	struct ns_share_proc self;
	bool built; /* this session built the namespace (else joined it) */
};

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

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "failure.h"

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
void ns_session_free(struct ns_session *sess);
/* Let go of the tmpdir instances without removing them (share_namespace: the pin owns them). */
void ns_session_forget_tmpdirs(struct ns_session *sess);

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "failure.h"

struct kn_ns_saved;
struct ns_session;

/* What one attempt (ns_apply) is asked to do beyond its plan. */
struct ns_apply_opts {
	bool mount_private;
	bool ignore_instance_parent_mode;
	bool debug;
	/*
	 * A plain session (not share_namespace's pinned build): a marker
	 * beside each tmpdir instance it makes, and the leftovers of uid's
	 * sessions that never closed removed first (tmpdirs.c).
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

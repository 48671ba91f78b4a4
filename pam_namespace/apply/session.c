/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * What a session keeps for its close (struct ns_session), and the close:
 * its polydirs unmounted where asked, its tmpdir instances and their
 * markers removed within one bound.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session.h"
#include "kernel.h"

/* The first failure into fail, each later one into the log. */
static int close_failed(struct ns_failure *fail, int r, const char *what, const char *path, int k,
			ns_apply_log_fn log, void *log_userdata)
{
	const char *why = k == -ETIMEDOUT ? NS_REMOVE_LEFT : strerror(-k);

	if (r < 0) {
		if (log)
			log(log_userdata, false, "%s %s: %s", what, path, why);
		return r;
	}
	ns_fail(fail, NULL, what, path, k == -ETIMEDOUT ? 0 : k,
		k == -ETIMEDOUT ? strdup(why) : NULL);
	return k;
}

int ns_session_close(struct ns_session *sess, bool unmount, struct ns_failure *fail,
		     ns_apply_log_fn log, void *log_userdata)
{
	/*
	 * One bound for the whole close, however many tmpdir lines (SPEC 7),
	 * read from the clock only where there is one to remove: a session's
	 * first clock read faults in the vDSO's data page, 2 to 4 us.
	 */
	uint64_t deadline = sess->n_tmpdirs ? kn_deadline_after_ms(NS_REMOVE_BOUND_MS) : 0;
	int r = 0, k;

	*fail = (struct ns_failure){0};
	if (unmount)
		for (size_t i = sess->n_polydirs; i-- > 0;) {
			k = kn_umount_path(sess->polydirs[i]);
			if (k < 0)
				r = close_failed(fail, r, "unmounting", sess->polydirs[i], k, log,
						 log_userdata);
		}
	for (size_t i = 0; i < sess->n_tmpdirs; i++) {
		struct ns_tmpdir *t = &sess->tmpdirs[i];

		k = kn_remove_tree(t->parent_fd, t->name, deadline);
		if ((k == -EACCES || k == -EPERM) && geteuid() != 0) {
			/*
			 * The client dropped root before the close, as systemd's
			 * (sd-pam) does: not a failure of the session (Linux-PAM's
			 * module cannot see the instance then and returns success);
			 * instance and marker stay for the user's next open (SPEC 7:
			 * removed later).
			 */
			if (log)
				log(log_userdata, false,
				    "the close runs as uid %u, not root: the tmpdir instance %s "
				    "is left for its user's next open to remove",
				    (unsigned)geteuid(), t->path);
			continue;
		}
		if (k < 0 && k != -ENOENT)
			r = close_failed(fail, r, "removing the tmpdir instance", t->path, k, log,
					 log_userdata);
		/* Out of time: the marker stays, and the user's next open tries again. */
		if ((k == 0 || k == -ENOENT) && t->marker) {
			if (unlinkat(t->parent_fd, t->marker, 0) < 0 && errno != ENOENT && log)
				log(log_userdata, false,
				    "cannot remove %.*s%s, the marker of the tmpdir instance %s: "
				    "%s; "
				    "the next open of its user removes it",
				    (int)(strrchr(t->path, '/') + 1 - t->path), t->path, t->marker,
				    t->path, strerror(errno));
			free(t->marker);
			t->marker = NULL;
		}
	}
	return r;
}

void ns_session_forget_tmpdirs(struct ns_session *sess)
{
	for (size_t i = 0; i < sess->n_tmpdirs; i++) {
		if (sess->tmpdirs[i].parent_fd >= 0)
			close(sess->tmpdirs[i].parent_fd);
		free(sess->tmpdirs[i].name);
		free(sess->tmpdirs[i].path);
		free(sess->tmpdirs[i].marker);
	}
	free(sess->tmpdirs);
	sess->tmpdirs = NULL;
	sess->n_tmpdirs = 0;
}

void ns_session_free(struct ns_session *sess)
{
	for (size_t i = 0; i < sess->n_polydirs; i++)
		free(sess->polydirs[i]);
	free(sess->polydirs);
	ns_session_forget_tmpdirs(sess);
	*sess = (struct ns_session){0};
}

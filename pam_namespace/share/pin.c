/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * share_namespace's pins (store.h): a pinned namespace opened, from this
 * process or from process 1's view of the pin directory, and dropped with
 * its state, records and tmpdir instances. The module's open and close and
 * pam_namespace_check's --enter and --drop use it alike.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "kernel.h"
#include "store.h"

int ns_share_pin_open(int dir_fd, const char *base, const struct ns_share_state *st)
{
	char *name = share_file_name(base, ".ns");
	struct stat s;
	int fd;

	if (!name)
		return -ENOMEM;
	fd = kn_pin_open(dir_fd, name, &s);
	free(name);
	if (fd < 0)
		return fd;
	if (s.st_dev != st->dev || s.st_ino != st->ino || s.st_uid != 0) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/*
 * Issue 31, point 3: a number in a state file proves nothing once its pin
 * is gone (a close killed), for the kernel hands a freed namespace's inode
 * number to the next one at once. The pin holds its namespace, so while
 * the pin is open no other namespace can have its number. It is opened as
 * process 1's namespace has it: a session's namespace, a copy made before
 * its pin was bound, shows the pin's file without the pin.
 */
int ns_share_pin_open_pid1(uid_t uid, const char *key)
{
	struct kn_dir root = KN_DIR_INIT;
	struct ns_share_state st = {0};
	bool trusted = false;
	int dfd, udir, r;

	r = kn_dir_open_root_at("/proc/1/root", &root);
	if (r < 0)
		return r;
	dfd = kn_open_dir_from(&root, NULL, NULL, NS_SHARE_DIR, &trusted);
	kn_dir_close(&root);
	if (dfd >= 0 && !trusted) {
		close(dfd);
		return -EPERM;
	}
	if (dfd < 0)
		return dfd;
	udir = ns_share_user_dir(dfd, uid, false);
	close(dfd);
	if (udir < 0)
		return udir;
	r = ns_share_state_read(udir, key, &st);
	if (r == 0)
		r = ns_share_pin_open(udir, key, &st);
	ns_share_state_free(&st);
	close(udir);
	return r;
}

/* Log that what could not be removed stays, naming it, where there is a log. */
static void drop_left(ns_apply_log_fn log, void *ud, const char *what, const char *dir,
		      const char *sep, const char *name, int error)
{
	if (log && error == -ETIMEDOUT)
		log(ud, false, "share_namespace: %s %s%s%s %s", what, dir, sep, name,
		    NS_REMOVE_LEFT);
	else if (log)
		log(ud, false, "share_namespace: cannot remove %s %s%s%s (%s): left", what, dir,
		    sep, name, strerror(-error));
}

int ns_share_drop_from(int dir_fd, const char *base, const struct ns_share_state *st, bool records,
		       const struct kn_dir *root, const char *where, ns_apply_log_fn log, void *ud)
{
	char *pin = share_file_name(base, ".ns"), *state = share_file_name(base, ".state");
	const char *dir = where ? where : NS_SHARE_DIR;
	uint64_t deadline = kn_deadline_after_ms(NS_REMOVE_BOUND_MS);
	int r = 0, k;

	if (!pin || !state) {
		free(pin);
		free(state);
		return -ENOMEM;
	}
	k = kn_unpin_ns(dir_fd, pin);
	if (k < 0 && k != -ENOENT) {
		r = k;
		drop_left(log, ud, "the pin", dir, "", ".ns", k);
	}
	for (size_t i = 0; i < st->n_tmpdirs; i++) {
		/*
		 * The walk follows no link below a directory others can write
		 * (/tmp), and the parent must be root's, as the module made it
		 * sure at open; the tree is removed without following links.
		 */
		int pfd = kn_open_dir_from(root, NULL, NULL, st->tmpdirs[i].parent, NULL);
		struct stat ps;

		if (pfd >= 0) {
			k = fstat(pfd, &ps) < 0 ? -errno
			    : ps.st_uid != 0	? -EPERM
					     : kn_remove_tree(pfd, st->tmpdirs[i].name, deadline);
			close(pfd);
		} else {
			k = pfd;
		}
		if (k < 0 && k != -ENOENT) {
			if (r == 0)
				r = k;
			drop_left(log, ud, "the tmpdir instance", st->tmpdirs[i].parent, "/",
				  st->tmpdirs[i].name, k);
		}
	}
	/*
	 * Anything left, the state stays: the next open finds no live session
	 * and drops what it names again.
	 */
	if (r == 0 && unlinkat(dir_fd, state, 0) < 0 && errno != ENOENT) {
		r = -errno;
		drop_left(log, ud, "the state", dir, "", ".state", r);
	}
	if (records) {
		struct ns_share_state none = {0};

		k = ns_share_sessions(dir_fd, base, NS_SHARE_SCAN_REMOVE_ALL, &none, NULL);
		free(none.sessions);
		if (k < 0 && r == 0)
			r = k;
	}
	free(pin);
	free(state);
	return r;
}

int ns_share_drop(int dir_fd, const char *base, const struct ns_share_state *st, bool records)
{
	return ns_share_drop_from(dir_fd, base, st, records, NULL, NULL, NULL, NULL);
}

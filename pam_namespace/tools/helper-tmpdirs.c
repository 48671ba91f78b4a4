/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * pam_namespace_helper: remove the tmpdir instances that no live session
 * uses, left by sessions whose close never ran (killed, a crash, a reboot)
 * or ran out of its time (pam_namespace(8)).
 *
 * "No live session uses it" is proven, not assumed from the boot:
 * - every mount namespace that exists is looked at (kernel/mntuse.c, with
 *   KN_MNTUSE_ENTER: a child setns()es into those no task shows): those
 *   of every task, those a process holds open (/proc/PID/fd), and those
 *   pinned by a bind mount in ours (share_namespace's pins, whose
 *   namespace may have no process left and is joined by the next login).
 *   An instance is in use where any mount's root there is the instance or
 *   lies below it (its name as a path component of the root): a name
 *   matched by chance only keeps a directory.
 * - a module's marker beside an instance (naming.h) goes with it, and one
 *   whose instance is gone is removed; markers are never candidates.
 * - an instance changed within the last minute (min_age) is kept: one a login is
 *   making now is not mounted yet. A live tmpdir instance is never reused
 *   by a later session (each session makes a new one), so one that is old
 *   and mounted nowhere stays so.
 * Anything that cannot be looked at (a fork, an open) keeps every instance.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "helper-tmpdirs.h"
#include "kernel.h"
#include "naming.h"

struct cands {
	char **names;
	bool *used;
	size_t n;
	size_t plen;
	const char *prefix;
	int pfd;
	time_t before;
	const char *parent;
};

/* mkdtemp's six characters after the prefix, a directory, unchanged for a minute. */
static int add_candidate(const char *name, void *ud)
{
	struct cands *c = ud;
	struct stat st;
	char **names;

	if (strncmp(name, c->prefix, c->plen) != 0 || strlen(name) != c->plen + 6)
		return 0;
	for (size_t i = c->plen; name[i]; i++)
		if (!isalnum((unsigned char)name[i]))
			return 0;
	if (fstatat(c->pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
	    st.st_ctime > c->before || st.st_mtime > c->before)
		return 0;
	names = realloc(c->names, (c->n + 1) * sizeof(*names));
	if (!names)
		return -ENOMEM;
	c->names = names;
	c->names[c->n] = strdup(name);
	if (!c->names[c->n])
		return -ENOMEM;
	c->n++;
	return 0;
}

/*
 * Markers (naming.h) whose instance is gone: left by a close that was
 * killed between the two, or by an instance removed here. Not in a dry run.
 */
static int marker_check(const char *name, void *ud)
{
	struct cands *c = ud;
	const char *instance;
	struct stat st;
	uid_t uid;

	if (ns_tmpdir_mark_parse(name, &uid, &instance) < 0)
		return 0;
	if (fstatat(c->pfd, instance, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT)
		return 0;
	if (unlinkat(c->pfd, name, 0) < 0 && errno != ENOENT)
		fprintf(stderr, "%s/%s: marker of a removed tmpdir instance: %s\n", c->parent, name,
			strerror(errno));
	return 0;
}

static void remove_orphan_markers(struct cands *c)
{
	int lfd = openat(c->pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (lfd < 0)
		return;
	(void)kn_dir_each(lfd, marker_check, c);
	close(lfd);
}

int ck_remove_stale_tmpdirs(const char *parent, const char *prefix, unsigned min_age, bool dry_run,
			    uint64_t deadline)
{
	struct cands c = {.prefix = prefix, .plen = strlen(prefix), .parent = parent};
	struct kn_mntuse_unseen unseen;
	struct stat st;
	int r, lfd, failed = 0;

	/* mountinfo escapes these: a root with them would not be recognised. */
	if (strpbrk(prefix, " \t\n\\"))
		return 0;
	c.pfd = kn_open_dir(parent, NULL);
	if (c.pfd < 0)
		return c.pfd == -ENOENT ? 0 : c.pfd;
	/* Only a parent root owns, as the module requires for tmpdir lines. */
	if (fstat(c.pfd, &st) < 0 || st.st_uid != 0) {
		close(c.pfd);
		return 0;
	}
	c.before = time(NULL) - (time_t)min_age;
	/* kn_open_dir's descriptor is O_PATH: the listing needs one of its own. */
	lfd = openat(c.pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	r = lfd < 0 ? -errno : kn_dir_each(lfd, add_candidate, &c);
	if (lfd >= 0)
		close(lfd);
	if (r == 0 && c.n) {
		c.used = calloc(c.n, sizeof(*c.used));
		r = c.used ? kn_mounts_using((const char *const *)c.names, c.n, KN_MNTUSE_ENTER,
					     c.used, &unseen)
			   : -ENOMEM;
		if (r == 0 && unseen.n) {
			fprintf(stderr,
				"%s: warning: %u mount namespace%s could not be looked into, first "
				"%s: every tmpdir instance here is kept\n",
				parent, unseen.n, unseen.n == 1 ? "" : "s", unseen.first);
			for (size_t i = 0; i < c.n; i++)
				c.used[i] = true;
		}
	}
	for (size_t i = 0; r == 0 && i < c.n; i++) {
		int k;

		if (c.used[i])
			continue;
		if (dry_run) {
			printf("%s/%s: tmpdir instance no session uses, would be removed\n", parent,
			       c.names[i]);
			continue;
		}
		k = kn_remove_tree(c.pfd, c.names[i], deadline);
		if (k == 0)
			printf("%s/%s: tmpdir instance no session uses, removed\n", parent,
			       c.names[i]);
		else
			fprintf(stderr, "%s/%s: tmpdir instance no session uses: %s\n", parent,
				c.names[i],
				k == -ETIMEDOUT ? "not removed within the helper's time, left"
						: strerror(-k));
		if (k < 0 && k != -ETIMEDOUT)
			failed = k;
	}
	if (r == 0 && !dry_run)
		remove_orphan_markers(&c);
	for (size_t i = 0; i < c.n; i++)
		free(c.names[i]);
	free(c.names);
	free(c.used);
	close(c.pfd);
	return r < 0 ? r : failed;
}

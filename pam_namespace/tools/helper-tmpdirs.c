/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * pam_namespace_helper: remove the tmpdir instances that no live session
 * uses, left by sessions whose close never ran (killed, a crash, a reboot)
 * or ran out of its time (pam_namespace(8)).
 *
 * "No live session uses it" is proven, not assumed from the boot:
 * - every mount namespace that exists is looked at from inside (a child
 *   that setns()es into it and reads its own mountinfo): those of every
 *   process (/proc/PID/ns/mnt), those a process holds open (/proc/PID/fd),
 *   and those pinned by a bind mount in ours (share_namespace's pins, whose
 *   namespace may have no process left and is joined by the next login).
 *   An instance is in use where any mount's root there is the instance or
 *   lies below it (its name as a path component of the root): a name
 *   matched by chance only keeps a directory.
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
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helper-tmpdirs.h"
#include "kernel.h"

struct cands {
	char **names;
	bool *used;
	size_t n;
	size_t plen;
	const char *prefix;
	int pfd;
	time_t before;
	int error;
	/* Namespaces that could not be looked into: then every candidate is kept. */
	unsigned unseen;
	char unseen_what[160];
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

/* Whether a mountinfo root field (octal-escaped) has name as one of its components. */
static bool root_has(const char *root, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = root; (p = strchr(p, '/')); p++)
		if (strncmp(p + 1, name, len) == 0 && (p[1 + len] == '/' || p[1 + len] == '\0'))
			return true;
	return false;
}

/* Each candidate whose name is in the root of a mount listed in f (a mountinfo). */
static int mountinfo_marks(FILE *f, const struct cands *c, bool *used, int out)
{
	char line[8192];

	while (fgets(line, sizeof(line), f)) {
		char *save = NULL, *root = NULL, *tok = strtok_r(line, " ", &save);

		for (int i = 0; tok && i < 3; i++)
			tok = strtok_r(NULL, " ", &save);
		root = tok;
		for (size_t i = 0; root && i < c->n; i++) {
			if (!root_has(root, c->names[i]))
				continue;
			if (used)
				used[i] = true;
			else if (write(out, &i, sizeof(i)) < 0)
				return 4;
		}
	}
	return 0;
}

/* In a child inside the namespace: write the index of each candidate mounted there. */
static int child_scan(int nsfd, const struct cands *c, int out)
{
	FILE *f;
	int r;

	if (setns(nsfd, CLONE_NEWNS) < 0)
		return errno == EINVAL ? 2 : 1;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return 3;
	r = mountinfo_marks(f, c, NULL, out);
	fclose(f);
	return r;
}

/*
 * What could not be looked at is remembered, not an error of the run: every
 * candidate is then kept (one of them may be mounted there), with a warning
 * naming the namespace and why.
 */
static void unseen(struct cands *c, const char *what, const char *why)
{
	if (c->unseen++ == 0)
		snprintf(c->unseen_what, sizeof(c->unseen_what), "%s (%s)", what, why);
}

/* Look into the mount namespace open on nsfd (another kind of namespace: nothing). */
static void scan_ns(struct cands *c, int nsfd, const char *what)
{
	static const char *const why[] = {"", "setns refused", "", "no /proc there",
					  "cannot report"};
	int p[2], status;
	size_t i;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0) {
		c->error = -errno;
		return;
	}
	pid = fork();
	if (pid < 0) {
		c->error = -errno;
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		close(p[0]);
		_exit(child_scan(nsfd, c, p[1]));
	}
	close(p[1]);
	while (read(p[0], &i, sizeof(i)) == sizeof(i))
		if (i < c->n)
			c->used[i] = true;
	close(p[0]);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		unseen(c, what, "its look ended abnormally");
	else if (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 2)
		unseen(c, what,
		       (size_t)WEXITSTATUS(status) < sizeof(why) / sizeof(why[0])
			       ? why[WEXITSTATUS(status)]
			       : "failed");
}

struct seen {
	ino_t *ino;
	size_t n;
};

/*
 * Open path; scan the namespace it is, once per namespace. A path gone
 * meanwhile: nothing. For a process's own namespace (mountinfo: its
 * /proc/PID/mountinfo) the list is read from here, with no setns(); where
 * the process is gone or its namespace changed meanwhile, as for the other
 * paths, a child enters the namespace to read it.
 */
static void scan_path(struct cands *c, struct seen *s, const char *path, const char *mountinfo)
{
	struct stat st, again;
	ino_t *ino;
	FILE *f;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return;
	}
	for (size_t i = 0; i < s->n; i++)
		if (s->ino[i] == st.st_ino) {
			close(fd);
			return;
		}
	ino = realloc(s->ino, (s->n + 1) * sizeof(*ino));
	if (!ino) {
		c->error = -ENOMEM;
		close(fd);
		return;
	}
	s->ino = ino;
	s->ino[s->n++] = st.st_ino;
	f = mountinfo ? fopen(mountinfo, "re") : NULL;
	if (f) {
		bool *used = calloc(c->n, sizeof(*used));
		int r = used ? mountinfo_marks(f, c, used, -1) : -1;

		fclose(f);
		/* Still that namespace, read to its end: the marks count. */
		if (r == 0 && stat(path, &again) == 0 && again.st_ino == st.st_ino &&
		    again.st_dev == st.st_dev) {
			for (size_t i = 0; i < c->n; i++)
				c->used[i] = c->used[i] || used[i];
			free(used);
			close(fd);
			return;
		}
		free(used);
	}
	scan_ns(c, fd, path);
	close(fd);
}

/* The descriptors of process pid that are mount namespaces. */
static void scan_fds(struct cands *c, struct seen *s, const char *pid)
{
	char dir[300], path[600], link[64];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%s/fd", pid);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		ssize_t n;

		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 5 && strncmp(link, "mnt:[", 5) == 0)
			scan_path(c, s, path, NULL);
	}
	closedir(d);
}

/* Mount points of nsfs in our namespace (pins), unescaped from mountinfo. */
static void scan_pins(struct cands *c, struct seen *s)
{
	char line[8192];
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f) {
		c->error = -errno;
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char *save = NULL, *mp = NULL, *tok = strtok_r(line, " ", &save), *o, *dash;

		for (int i = 0; tok && i < 4; i++)
			mp = tok = strtok_r(NULL, " ", &save);
		dash = tok ? strstr(save, " - nsfs ") : NULL;
		if (!mp || !dash)
			continue;
		o = mp;
		for (char *p = mp; *p; p++, o++) {
			if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] && p[3]) {
				*o = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
				p += 3;
			} else {
				*o = *p;
			}
		}
		*o = '\0';
		scan_path(c, s, mp, NULL);
	}
	fclose(f);
}

/* Every mount namespace there is, once each. */
static void scan_all(struct cands *c)
{
	struct seen s = {0};
	struct dirent *de;
	char path[300], mountinfo[300];
	DIR *d = opendir("/proc");

	if (!d) {
		c->error = -errno;
		return;
	}
	scan_pins(c, &s);
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/ns/mnt", de->d_name);
		snprintf(mountinfo, sizeof(mountinfo), "/proc/%s/mountinfo", de->d_name);
		scan_path(c, &s, path, mountinfo);
		scan_fds(c, &s, de->d_name);
	}
	closedir(d);
	free(s.ino);
}

int ck_remove_stale_tmpdirs(const char *parent, const char *prefix, unsigned min_age, bool dry_run,
			    uint64_t deadline)
{
	struct cands c = {.prefix = prefix, .plen = strlen(prefix)};
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
		if (!c.used)
			r = -ENOMEM;
		else
			scan_all(&c);
		if (r == 0 && c.error)
			r = c.error;
		if (r == 0 && c.unseen) {
			fprintf(stderr,
				"%s: warning: %u mount namespace%s could not be looked into, first "
				"%s: every tmpdir instance here is kept\n",
				parent, c.unseen, c.unseen == 1 ? "" : "s", c.unseen_what);
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
	for (size_t i = 0; i < c.n; i++)
		free(c.names[i]);
	free(c.names);
	free(c.used);
	close(c.pfd);
	return r < 0 ? r : failed;
}

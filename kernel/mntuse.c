/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * Which directory names a mount uses, in any mount namespace there is: the
 * one look that proves a tmpdir instance unused (pam_namespace_helper at
 * boot, the module at the next open of the user). A name is used where it
 * is a whole path component of the root of a mount: the mount is the
 * directory or lies below it. A name matched by chance only keeps a
 * directory.
 *
 * Every namespace is reached in two passes:
 * 1. each task's (/proc/PID/task/TID/ns/mnt, read from that task's
 *    mountinfo with no setns(): a thread that unshared has a namespace of
 *    its own, which /proc/PID/ns/mnt, the leader's, does not show);
 * 2. those only a descriptor holds (/proc/PID/fd) or an nsfs bind mount in
 *    the caller's namespace pins (share_namespace). No process's mountinfo
 *    lists them: with KN_MNTUSE_ENTER a forked child setns()es there and
 *    reads its own; without it (a threaded caller, where a child of fork()
 *    may not even malloc) each is unseen.
 * What cannot be looked at is unseen, never "unused": the caller keeps
 * every name then. A task or descriptor gone during the look is no
 * namespace lost: its namespace lives on only through another task (seen
 * in pass 1), descriptor or pin (pass 2), or is gone with it.
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
#include <unistd.h>

#include "kernel.h"

struct look {
	const char *const *names;
	size_t n;
	bool *used;
	unsigned flags;
	int error;
	struct kn_mntuse_unseen unseen;
	struct seen_ns {
		dev_t dev;
		ino_t ino;
	} * seen;
	size_t n_seen;
};

static void unseen(struct look *l, const char *what, const char *why)
{
	if (l->unseen.n++ == 0)
		snprintf(l->unseen.first, sizeof(l->unseen.first), "%.100s (%.50s)", what, why);
}

static bool seen_has(const struct look *l, const struct stat *st)
{
	for (size_t i = 0; i < l->n_seen; i++)
		if (l->seen[i].dev == st->st_dev && l->seen[i].ino == st->st_ino)
			return true;
	return false;
}

static void seen_add(struct look *l, const struct stat *st)
{
	struct seen_ns *s = realloc(l->seen, (l->n_seen + 1) * sizeof(*s));

	if (!s) {
		l->error = -ENOMEM;
		return;
	}
	l->seen = s;
	s[l->n_seen++] = (struct seen_ns){.dev = st->st_dev, .ino = st->st_ino};
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

/* Each name in the root of a mount listed in f (a mountinfo): into used, or its index to out. */
static int mountinfo_marks(FILE *f, const struct look *l, bool *used, int out)
{
	char line[8192];

	while (fgets(line, sizeof(line), f)) {
		char *save = NULL, *root = NULL, *tok = strtok_r(line, " ", &save);

		for (int i = 0; tok && i < 3; i++)
			tok = strtok_r(NULL, " ", &save);
		root = tok;
		for (size_t i = 0; root && i < l->n; i++) {
			if (!root_has(root, l->names[i]))
				continue;
			if (used)
				used[i] = true;
			else if (write(out, &i, sizeof(i)) < 0)
				return 4;
		}
	}
	return ferror(f) ? 3 : 0;
}

/* In a child inside the namespace: write the index of each name mounted there. */
static int child_scan(int nsfd, const struct look *l, int out)
{
	FILE *f;
	int r;

	if (setns(nsfd, CLONE_NEWNS) < 0)
		return errno == EINVAL ? 2 : 1;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return 3;
	r = mountinfo_marks(f, l, NULL, out);
	fclose(f);
	return r;
}

/* Look into the mount namespace open on nsfd from a child (another kind of namespace: nothing). */
static void enter_ns(struct look *l, int nsfd, const char *what)
{
	static const char *const why[] = {"", "setns refused", "", "no /proc there",
					  "cannot report"};
	int p[2], status;
	size_t i;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0) {
		l->error = -errno;
		return;
	}
	pid = fork();
	if (pid < 0) {
		l->error = -errno;
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		close(p[0]);
		_exit(child_scan(nsfd, l, p[1]));
	}
	close(p[1]);
	while (read(p[0], &i, sizeof(i)) == sizeof(i))
		if (i < l->n)
			l->used[i] = true;
	close(p[0]);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		unseen(l, what, "its look ended abnormally");
	else if (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 2)
		unseen(l, what,
		       (size_t)WEXITSTATUS(status) < sizeof(why) / sizeof(why[0])
			       ? why[WEXITSTATUS(status)]
			       : "failed");
}

/* A descriptor or task gone meanwhile: its namespace is reached otherwise, or gone. */
static bool gone(int err)
{
	return err == ENOENT || err == ESRCH;
}

/*
 * Pass 1: the namespace of one task, read from its own mountinfo, once per
 * namespace. Where the task changed namespace or went during the read,
 * the namespace it had is looked into through the descriptor held
 * (KN_MNTUSE_ENTER), or left to the tasks, descriptors and pins that still
 * hold it.
 */
static void scan_task(struct look *l, const char *path, const char *mountinfo)
{
	struct stat st, again;
	bool *used;
	FILE *f;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK), r = -1;

	if (fd < 0) {
		if (!gone(errno))
			unseen(l, path, strerror(errno));
		return;
	}
	if (fstat(fd, &st) < 0 || seen_has(l, &st)) {
		close(fd);
		return;
	}
	used = calloc(l->n, sizeof(*used));
	f = used ? fopen(mountinfo, "re") : NULL;
	if (!used) {
		l->error = -ENOMEM;
	} else if (!f && !gone(errno) && !(l->flags & KN_MNTUSE_ENTER)) {
		unseen(l, mountinfo, strerror(errno));
	} else if (f) {
		r = mountinfo_marks(f, l, used, -1);
		fclose(f);
	}
	/* Still that namespace, read to its end: the marks count. */
	if (r == 0 && stat(path, &again) == 0 && again.st_ino == st.st_ino &&
	    again.st_dev == st.st_dev) {
		for (size_t i = 0; i < l->n; i++)
			l->used[i] = l->used[i] || used[i];
		seen_add(l, &st);
	} else if (used && (l->flags & KN_MNTUSE_ENTER)) {
		seen_add(l, &st);
		enter_ns(l, fd, path);
	}
	free(used);
	close(fd);
}

/* Pass 2: a namespace held by a descriptor or a pin, unless a task's showed it. */
static void scan_held(struct look *l, const char *path)
{
	struct stat st;
	int fd;

	if (stat(path, &st) < 0) {
		if (!gone(errno))
			unseen(l, path, strerror(errno));
		return;
	}
	if (seen_has(l, &st))
		return;
	seen_add(l, &st);
	if (!(l->flags & KN_MNTUSE_ENTER)) {
		unseen(l, path, "held only by a descriptor or a pin");
		return;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		if (!gone(errno))
			unseen(l, path, strerror(errno));
		return;
	}
	enter_ns(l, fd, path);
	close(fd);
}

/*
 * fn(l, DIR/N) for each entry N of dir that is a number (a process, a task,
 * a descriptor), while no error stopped the look; -errno where dir cannot
 * be listed.
 */
static int each_number(struct look *l, const char *dir,
		       void (*fn)(struct look *l, const char *path))
{
	char path[600];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	while ((de = readdir(d)) && l->error == 0) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		fn(l, path);
	}
	closedir(d);
	return 0;
}

/* A directory of a process that cannot be listed: unseen, unless the process is gone. */
static void each_number_of(struct look *l, const char *proc, const char *sub,
			   void (*fn)(struct look *l, const char *path))
{
	char dir[300];
	int k;

	snprintf(dir, sizeof(dir), "%s/%s", proc, sub);
	k = each_number(l, dir, fn);
	if (k < 0 && !gone(-k))
		unseen(l, dir, strerror(-k));
}

/* Pass 1 for one task (/proc/PID/task/TID). */
static void scan_task_dir(struct look *l, const char *task)
{
	char path[700], mountinfo[700];

	snprintf(path, sizeof(path), "%s/ns/mnt", task);
	snprintf(mountinfo, sizeof(mountinfo), "%s/mountinfo", task);
	scan_task(l, path, mountinfo);
}

/* Pass 1 for one process (/proc/PID): each of its tasks. */
static void scan_tasks(struct look *l, const char *proc)
{
	each_number_of(l, proc, "task", scan_task_dir);
}

/* Pass 2 for one descriptor (/proc/PID/fd/N): a mount namespace held open. */
static void scan_fd(struct look *l, const char *fd)
{
	char link[64];
	ssize_t n = readlink(fd, link, sizeof(link) - 1);

	if (n > 5 && strncmp(link, "mnt:[", 5) == 0)
		scan_held(l, fd);
}

/* Pass 2 for one process (/proc/PID): its descriptors that are mount namespaces. */
static void scan_fds(struct look *l, const char *proc)
{
	each_number_of(l, proc, "fd", scan_fd);
}

/* Pass 2: mount points of nsfs in the caller's namespace (pins), unescaped from mountinfo. */
static void scan_pins(struct look *l)
{
	char line[8192];
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f) {
		l->error = -errno;
		return;
	}
	while (fgets(line, sizeof(line), f) && l->error == 0) {
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
		scan_held(l, mp);
	}
	fclose(f);
}

/* One pass over the processes: their tasks (pass 1) or their descriptors (pass 2). */
static void each_process(struct look *l, void (*fn)(struct look *l, const char *proc))
{
	int k = each_number(l, "/proc", fn);

	if (k < 0)
		l->error = k;
}

int kn_mounts_using(const char *const *names, size_t n, unsigned flags, bool *ret_used,
		    struct kn_mntuse_unseen *ret_unseen)
{
	struct look l = {.names = names, .n = n, .flags = flags};

	if (n == 0) {
		*ret_unseen = (struct kn_mntuse_unseen){0};
		return 0;
	}
	l.used = calloc(n, sizeof(*l.used));
	if (!l.used)
		return -ENOMEM;
	/* mountinfo escapes these (and a '/' is no name): such a name cannot be told unused. */
	for (size_t i = 0; i < n; i++)
		l.used[i] = !names[i][0] || strpbrk(names[i], " \t\n\\/") != NULL;
	each_process(&l, scan_tasks);
	if (l.error == 0)
		scan_pins(&l);
	if (l.error == 0)
		each_process(&l, scan_fds);
	if (l.error == 0) {
		memcpy(ret_used, l.used, n * sizeof(*ret_used));
		*ret_unseen = l.unseen;
	}
	free(l.used);
	free(l.seen);
	return l.error;
}

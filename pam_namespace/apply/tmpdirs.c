/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * What a plain session's tmpdir instances leave when their close never
 * runs (the client killed, a crash), issue 31: each instance gets a marker
 * beside it (naming.h: ".pam_namespace-session.UID.NAME", "PID STARTTIME"
 * of the process that opened the session), and the user's next open
 * removes the instances of hers whose opener is gone and that no mount
 * namespace has mounted. The instance is root's, as its polydir; only the
 * marker says whose it is.
 *
 * Why both tests: the opener alive keeps its session's instance without a
 * look at every namespace (the common case: another session of hers is
 * open). The opener gone proves nothing alone: a process of hers may still
 * run in the session's namespace (su killed, its shell alive), so the
 * instance goes only where kernel/'s look (kn_mounts_using, no fork: the
 * caller may be threaded) finds it mounted nowhere, and a namespace it
 * cannot look into keeps every one. A marker still being written (no whole
 * line yet) keeps its instance: its opener is making it now.
 *
 * Only in a parent root owns that others cannot write (SPEC 4's mode 000,
 * not ignore_instance_parent_mode's), only the user's own markers, at most
 * NS_LEFTOVER_BOUND_MS for all of one open, and nothing here fails the
 * open: what is not done is logged and left to the next open or to
 * pam_namespace_helper.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "kernel.h"
#include "naming.h"

/* A parent whose entries only root can make: markers there are the module's. */
static bool parent_private(const struct stat *st)
{
	return st->st_uid == 0 && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* This process (not the calling thread: /proc/PID/stat is the leader's), read once per open. */
static int self_id(struct apply_ctx *c, int *ret_pid, unsigned long long *ret_start)
{
	int k = 0;

	if (c->self_start == 0) {
		c->self_pid = getpid();
		k = kn_pid_starttime(c->self_pid, &c->self_start);
	}
	*ret_pid = c->self_pid;
	*ret_start = c->self_start;
	return k;
}

void apply_mark_tmpdir(struct apply_ctx *c, const struct ns_plan_entry *e, int pfd,
		       const struct stat *st, struct ns_tmpdir *t)
{
	unsigned long long start;
	char *name, line[64];
	int fd, n, k, pid;

	if (!c->opts->mark_tmpdirs || !parent_private(st))
		return;
	name = ns_tmpdir_mark_name(c->opts->uid, t->name);
	if (!name) {
		k = -ENOMEM;
		goto out;
	}
	k = self_id(c, &pid, &start);
	if (k < 0)
		goto out;
	fd = openat(pfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		k = -errno;
		goto out;
	}
	n = snprintf(line, sizeof(line), "%d %llu\n", pid, start);
	errno = 0;
	if (write(fd, line, (size_t)n) != n)
		k = errno ? -errno : -EIO;
	close(fd);
	/* A marker without its line would keep the instance from the next open: none. */
	if (k < 0 && unlinkat(pfd, name, 0) == 0) {
		free(name);
		name = NULL;
	}
	/* Made: the close removes it with the instance (also one half written). */
	if (name)
		t->marker = name;
	name = NULL;
out:
	if (k < 0 && c->log)
		c->log(c->log_userdata, false,
		       "%s:%u: cannot write the marker of tmpdir instance %s%s%.*s%s: %s; were "
		       "the session never closed, pam_namespace_helper removes the instance",
		       e->rule->file, e->rule->line, t->path, t->marker ? ", left as " : "",
		       t->marker ? (int)(strrchr(t->path, '/') + 1 - t->path) : 0, t->path,
		       t->marker ? t->marker : "", strerror(-k));
	free(name);
}

struct leftover {
	char *marker;
	const char *instance; /* inside marker */
	int pid;
};

struct leftovers {
	struct apply_ctx *c;
	int pfd;
	const char *prefix; /* the line's tmpdir name before its six characters */
	size_t plen;
	struct leftover *l;
	size_t n;
	int error;
};

/* A name this line's tmpdir method makes: the prefix and six letters or digits. */
static bool tmpdir_name(const struct leftovers *lo, const char *name)
{
	if (strncmp(name, lo->prefix, lo->plen) != 0 || strlen(name) != lo->plen + 6)
		return false;
	for (const char *p = name + lo->plen; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			return false;
	return true;
}

/*
 * The process that wrote the marker: 1 if it lives (or that cannot be
 * told, or the marker is still being written), 0 if gone, with *ret_pid.
 */
static int opener_alive(int pfd, const char *marker, int *ret_pid)
{
	unsigned long long start, now;
	char text[64];
	ssize_t n;
	int fd = openat(pfd, marker, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), k;

	if (fd < 0)
		return 1;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	text[n] = '\0';
	if (ns_tmpdir_mark_content(text, ret_pid, &start) < 0)
		return 1;
	k = kn_pid_starttime(*ret_pid, &now);
	if (k == -ENOENT)
		return 0;
	if (k < 0)
		return 1;
	return now == start;
}

static int collect(const char *name, void *ud)
{
	struct leftovers *lo = ud;
	const char *instance;
	struct leftover *l;
	uid_t uid;
	int pid;

	if (ns_tmpdir_mark_parse(name, &uid, &instance) < 0 || uid != lo->c->opts->uid ||
	    !tmpdir_name(lo, instance) || opener_alive(lo->pfd, name, &pid) != 0)
		return 0;
	if (ns_grow(&lo->l, lo->n, sizeof(*lo->l)) < 0)
		return -ENOMEM;
	l = lo->l;
	l[lo->n].marker = strdup(name);
	if (!l[lo->n].marker)
		return -ENOMEM;
	l[lo->n].instance = l[lo->n].marker + (instance - name);
	l[lo->n].pid = pid;
	lo->n++;
	return 0;
}

static void drop_marker(struct apply_ctx *c, const struct ns_plan_entry *e, int pfd,
			const struct leftover *l)
{
	if (unlinkat(pfd, l->marker, 0) < 0 && errno != ENOENT && c->log)
		c->log(c->log_userdata, false, "%s:%u: cannot remove %s/%s: %s", e->rule->file,
		       e->rule->line, e->instance_parent, l->marker, strerror(errno));
}

/* Remove each leftover the look found mounted nowhere, within the open's bound. */
static void remove_unused(struct apply_ctx *c, const struct ns_plan_entry *e, int pfd,
			  const struct leftover *l, size_t n, const bool *used)
{
	for (size_t i = 0; i < n; i++) {
		int k;

		if (used[i]) {
			if (c->log && c->opts->debug)
				c->log(c->log_userdata, true,
				       "%s:%u: %s/%s, left by a session whose process %d is gone, "
				       "is mounted in a mount namespace: kept",
				       e->rule->file, e->rule->line, e->instance_parent,
				       l[i].instance, l[i].pid);
			continue;
		}
		k = kn_remove_tree(pfd, l[i].instance, c->leftover_deadline);
		if (k == 0 || k == -ENOENT)
			drop_marker(c, e, pfd, &l[i]);
		if (k == 0 && c->log)
			c->log(c->log_userdata, false,
			       "%s:%u: removed %s/%s, the tmpdir instance of a session that never "
			       "closed: its process %d is gone and no mount namespace has it "
			       "mounted",
			       e->rule->file, e->rule->line, e->instance_parent, l[i].instance,
			       l[i].pid);
		else if (k < 0 && k != -ENOENT && c->log)
			c->log(c->log_userdata, false,
			       "%s:%u: %s/%s, the tmpdir instance of a session that never closed: "
			       "%s; left for the next open or pam_namespace_helper",
			       e->rule->file, e->rule->line, e->instance_parent, l[i].instance,
			       k == -ETIMEDOUT ? "not removed within this open's time"
					       : strerror(-k));
	}
}

void apply_remove_leftovers(struct apply_ctx *c, const struct ns_plan_entry *e, int pfd,
			    bool readable, const struct stat *st)
{
	const char *templ = strrchr(e->instance, '/') + 1;
	struct leftovers lo = {.c = c, .pfd = pfd, .prefix = templ};
	struct kn_mntuse_unseen unseen;
	const char **names = NULL;
	bool *used = NULL;
	size_t n = 0;
	int lfd, k;

	if (!c->opts->mark_tmpdirs || !parent_private(st) || strlen(templ) < 6)
		return;
	lo.plen = strlen(templ) - 6;
	/* An O_PATH pfd cannot be listed: the listing then opens the parent again. */
	lfd = readable ? pfd : openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	k = lfd < 0 ? -errno : kn_dir_each(lfd, collect, &lo);
	if (lfd >= 0 && lfd != pfd)
		close(lfd);
	if (k == 0 && lo.n) {
		names = calloc(lo.n, sizeof(*names));
		used = calloc(lo.n, sizeof(*used));
		k = names && used ? 0 : -ENOMEM;
	}
	/* An instance gone already: only its marker is left. */
	for (size_t i = 0; k == 0 && i < lo.n; i++) {
		struct leftover keep = lo.l[i];
		struct stat ist;

		lo.l[i].marker = NULL;
		if (fstatat(pfd, keep.instance, &ist, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT) {
			drop_marker(c, e, pfd, &keep);
			free(keep.marker);
			continue;
		}
		lo.l[n] = keep;
		names[n++] = keep.instance;
	}
	if (k == 0 && n) {
		if (c->leftover_deadline == 0)
			c->leftover_deadline = kn_deadline_after_ms(NS_LEFTOVER_BOUND_MS);
		k = kn_mounts_using(names, n, 0, used, &unseen);
		if (k == 0 && unseen.n && c->log && c->opts->debug)
			c->log(c->log_userdata, true,
			       "%s:%u: %zu tmpdir instance%s of sessions that never closed kept in "
			       "%s: %u mount namespace%s not looked into, first %s",
			       e->rule->file, e->rule->line, n, n == 1 ? "" : "s",
			       e->instance_parent, unseen.n, unseen.n == 1 ? "" : "s",
			       unseen.first);
		if (k == 0 && unseen.n == 0)
			remove_unused(c, e, pfd, lo.l, n, used);
	}
	if (k < 0 && c->log)
		c->log(c->log_userdata, false,
		       "%s:%u: cannot look for the tmpdir instances that sessions which never "
		       "closed left in %s: %s; left for the next open or pam_namespace_helper",
		       e->rule->file, e->rule->line, e->instance_parent, strerror(-k));
	for (size_t i = 0; i < lo.n; i++)
		free(lo.l[i].marker);
	free(lo.l);
	free(names);
	free(used);
}

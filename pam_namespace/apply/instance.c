/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * The directories of one entry, found or made by descriptor: the polydir
 * (created when the line says create), the instance parent (SPEC 4: root's,
 * mode 000) and the instance (reused, made like the polydir, or a new
 * tmpdir). What is made here is remembered in the attempt, to be removed
 * if it fails; tmpdir instances are kept for close. After the init script,
 * the instance's mode is held to what its polydir allows.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "kernel.h"
#include "lookup.h"
#include "rules.h"
#include "selinux.h"

/*
 * The polydir, created (last component only) when the line says create. A
 * root-owned symlink in a directory only root can write is the
 * administrator's and is followed, as every component above it would be
 * (Linux-PAM does the same); anywhere else a symlink is refused.
 * *ret_base_ok: the polydir is the directory that walking its own path
 * gives (no symlink followed at its end), so walks below it may start there.
 */
int apply_open_polydir(struct apply_ctx *c, const struct ns_plan_entry *e, bool *ret_parent_trusted,
		       bool *ret_base_ok)
{
	const char *name = strrchr(e->polydir, '/');
	bool trusted = c->root.trusted;
	/* A polydir right under "/" (/tmp) has the root held for its parent. */
	bool own = name != e->polydir;
	int pfd = c->root.fd, fd;

	*ret_base_ok = false;
	if (own)
		pfd = kn_open_parent_from(&c->root, e->polydir, &name, &trusted);
	else
		name++;
	if (pfd < 0)
		return ns_fail(c->fail, e, "opening the parent of polydir", e->polydir, pfd, NULL);
	*ret_parent_trusted = trusted;
	fd = kn_open_child_dir(pfd, name);
	if (fd >= 0)
		*ret_base_ok = true;
	if (fd == -ELOOP && trusted)
		fd = kn_open_dir_from(&c->root, NULL, NULL, e->polydir, NULL);
	if (fd == -ENOENT && e->create_polydir) {
		fd = kn_mkdir_child(pfd, name, e->create_mode, e->create_uid, e->create_gid);
		if (fd >= 0) {
			int k = apply_remember_made(c, pfd, name, e->polydir);

			*ret_base_ok = true;
			if (k == 0)
				k = ns_selinux_label_new_dir(fd, e->polydir);

			if (k < 0) {
				close(fd);
				fd = k;
			}
		}
		if (fd < 0) {
			if (own)
				close(pfd);
			return ns_fail(c->fail, e, "creating polydir", e->polydir, fd, NULL);
		}
	}
	if (own)
		close(pfd);
	if (fd < 0)
		return ns_fail(c->fail, e,
			       fd == -ELOOP ? "polydir is a symbolic link" : "opening polydir",
			       e->polydir, fd == -ELOOP ? 0 : fd, NULL);
	return fd;
}

/*
 * SPEC 4: the parent must exist or be one mkdir away, root-owned mode 000.
 * poly: the polydir, where the walk starts when the parent lies below it
 * (NULL: from "/"). *ret_readable: opened for reading, so that its lock
 * needs no second open (else O_PATH).
 */
static int open_instance_parent(struct apply_ctx *c, const struct ns_plan_entry *e,
				const struct kn_dir *poly, struct stat *ret_st, bool *ret_readable)
{
	struct stat st;
	int fd;

	fd = kn_open_dir_readable_from(&c->root, poly, e->polydir, e->instance_parent,
				       ret_readable);
	if (fd == -ENOENT) {
		const char *name;
		int gfd = kn_open_parent_from(&c->root, e->instance_parent, &name, NULL);

		if (gfd < 0)
			return ns_fail(c->fail, e, "opening the parent of the instance parent",
				       e->instance_parent, gfd, NULL);
		*ret_readable = false;
		fd = kn_mkdir_child(gfd, name, 0, 0, 0);
		close(gfd);
		if (fd == -EEXIST)
			fd = kn_open_dir_from(&c->root, poly, e->polydir, e->instance_parent, NULL);
		if (fd < 0)
			return ns_fail(c->fail, e, "creating the instance parent",
				       e->instance_parent, fd, NULL);
	}
	if (fd < 0)
		return ns_fail(c->fail, e, "opening the instance parent", e->instance_parent, fd,
			       NULL);
	if (fstat(fd, &st) < 0) {
		int k = -errno;
		close(fd);
		return ns_fail(c->fail, e, "opening the instance parent", e->instance_parent, k,
			       NULL);
	}
	if (!ns_instance_parent_ok(&st,
				   c->opts->ignore_instance_parent_mode || e->ignore_parent_mode)) {
		close(fd);
		return ns_fail(c->fail, e, "instance parent", e->instance_parent, 0,
			       ns_instance_parent_refusal(&st));
	}
	*ret_st = st;
	return fd;
}

/* mkdtemp by descriptor: a random suffix, retried on collision. */
static int make_tmpdir(int pfd, const char *templ, const struct stat *poly, char **ret_name)
{
	static const char chars[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	size_t len = strlen(templ);
	char *name;

	if (len < 6)
		return -EINVAL;
	name = strdup(templ);
	if (!name)
		return -ENOMEM;
	for (int attempt = 0; attempt < 100; attempt++) {
		unsigned char rnd[6];
		int fd;

		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
			free(name);
			return -EIO;
		}
		for (int i = 0; i < 6; i++)
			name[len - 6 + i] = chars[rnd[i] % (sizeof(chars) - 1)];
		fd = kn_mkdir_child(pfd, name, poly->st_mode & 07777, poly->st_uid, poly->st_gid);
		if (fd == -EEXIST)
			continue;
		if (fd < 0) {
			free(name);
			return fd;
		}
		*ret_name = name;
		return fd;
	}
	free(name);
	return -EEXIST;
}

/* Keep a tmpdir instance for close; one that cannot be kept is removed at once. */
static int add_tmpdir(struct apply_ctx *c, int pfd, const char *parent, const char *name)
{
	struct ns_tmpdir *t = realloc(c->sess.tmpdirs, (c->sess.n_tmpdirs + 1) * sizeof(*t));
	struct ns_tmpdir d = {.parent_fd = -1};

	if (t) {
		c->sess.tmpdirs = t;
		d.name = strdup(name);
		d.path = ns_strdupf("%s/%s", parent, name);
	}
	if (d.name && d.path)
		d.parent_fd = fcntl(pfd, F_DUPFD_CLOEXEC, 3);
	if (d.parent_fd < 0) {
		int r = !d.name || !d.path ? -ENOMEM : -errno;

		free(d.name);
		free(d.path);
		(void)kn_remove_child_dir(pfd, name);
		return r;
	}
	t[c->sess.n_tmpdirs++] = d;
	return 0;
}

/*
 * Issue 31 point 11: a rollback must remove only what no other session
 * uses. Two first logins of alice at once: the one that made her instance
 * fails later (its init script timed out), and its rollback removed the
 * instance that the other had found and mounted meanwhile; the other's /tmp
 * became ".../alice//deleted". Whether a directory is mounted in another
 * namespace cannot be asked, and rmdir of a mount's source succeeds, so
 * the attempt that makes an instance keeps it from every other session
 * until it is committed or rolled back: it holds its instance parent
 * locked (flock LOCK_EX, on the parent as its walk opened it for reading,
 * or opened again from its O_PATH descriptor) from before it looks for the
 * instance until it ends, and every session looks for an existing instance
 * under the same lock, shared, which it drops when it closes the parent.
 * A session that finds an instance therefore finds one its maker has
 * committed, or finds none after its maker's rollback and makes a new one
 * (with the init script told so). The parent is root's, mode 000: no user
 * can take its lock (one others may read is not locked). Only first logins
 * take it exclusively, and the wait is bounded (the init timeout and 5 s):
 * past it the session goes on without the lock, logs it, and an instance
 * it then makes is never removed by its rollback, since another session
 * may use it.
 */
static unsigned lock_wait_ms(const struct apply_ctx *c)
{
	return (c->opts->init_timeout + 5) * 1000u;
}

static bool lock_held(const struct apply_ctx *c, const struct stat *st)
{
	for (size_t i = 0; i < c->n_locks; i++)
		if (c->locks[i].dev == st->st_dev && c->locks[i].ino == st->st_ino)
			return true;
	return false;
}

static int lock_keep(struct apply_ctx *c, int fd, const struct stat *st)
{
	struct apply_lock *l = realloc(c->locks, (c->n_locks + 1) * sizeof(*l));

	if (!l)
		return -ENOMEM;
	c->locks = l;
	l[c->n_locks++] = (struct apply_lock){.fd = fd, .dev = st->st_dev, .ino = st->st_ino};
	return 0;
}

static void lock_failed(struct apply_ctx *c, const struct ns_plan_entry *e, int k)
{
	if (c->log)
		c->log(c->log_userdata, false,
		       "%s:%u: cannot lock the instance parent %s: %s; going on without it (an "
		       "instance made now is kept if the session fails)",
		       e->rule->file, e->rule->line, e->instance_parent,
		       k == -ETIMEDOUT ? "held too long by another session" : strerror(-k));
}

/*
 * The instance under its parent's lock: an existing one (shared lock,
 * dropped when the parent's descriptor is closed), or -ENOENT with
 * *ret_owned true when this attempt holds the parent exclusively (kept in
 * c until the attempt ends) and may make it. st: the parent's fstat, from
 * open_instance_parent(); readable: pfd is open for reading and is locked
 * itself, else the parent is opened again for its lock.
 */
static int open_instance_locked(struct apply_ctx *c, const struct ns_plan_entry *e, int pfd,
				const struct stat *pst, bool readable, bool *ret_owned)
{
	const struct stat st = *pst;
	int lfd, fd, k;

	*ret_owned = false;
	/*
	 * A parent others may open (ignore_instance_parent_mode) is not
	 * locked: a user could hold its lock and make every login wait. Its
	 * instances are then never removed by a rollback.
	 */
	if (st.st_uid != 0 || (st.st_mode & (S_IRGRP | S_IROTH)))
		return kn_open_child_dir(pfd, e->instance_name);
	if (lock_held(c, &st)) {
		*ret_owned = true;
		return kn_open_child_dir(pfd, e->instance_name);
	}
	lfd = readable ? pfd : kn_reopen_dir_as(pfd, O_RDONLY, &st);
	k = lfd < 0 ? lfd : kn_flock_timeout(lfd, LOCK_SH, lock_wait_ms(c));
	fd = kn_open_child_dir(pfd, e->instance_name);
	if (k == 0 && fd == -ENOENT) {
		/* flock converts by dropping the shared lock first: look again once held. */
		k = kn_flock_timeout(lfd, LOCK_EX, lock_wait_ms(c));
		if (k == 0)
			fd = kn_open_child_dir(pfd, e->instance_name);
		if (k == 0 && fd == -ENOENT) {
			/* The caller closes pfd: the kept lock holds a descriptor of its own. */
			int keep = lfd == pfd ? fcntl(pfd, F_DUPFD_CLOEXEC, 3) : lfd;

			k = keep < 0 ? -errno : lock_keep(c, keep, &st);
			if (k == 0) {
				*ret_owned = true;
				return fd;
			}
			if (keep >= 0 && keep != lfd)
				close(keep);
		}
	}
	if (k < 0)
		lock_failed(c, e, k);
	if (lfd >= 0 && lfd != pfd)
		close(lfd);
	return fd;
}

/*
 * The instance directory: reused when it exists, otherwise made with the
 * polydir's owner, group and mode, so /tmp gives a 1777 root instance and
 * $HOME one owned by the user.
 */
int apply_open_instance(struct apply_ctx *c, const struct ns_plan_entry *e,
			const struct kn_dir *polyd, bool base_ok, bool *ret_new, char **ret_path)
{
	const struct stat *poly = &polyd->st;
	int poly_fd = polyd->fd;
	char *name = NULL;
	struct stat pst;
	bool owned, readable;
	int pfd, fd, k;

	pfd = open_instance_parent(c, e, base_ok ? polyd : NULL, &pst, &readable);
	if (pfd < 0)
		return pfd;

	*ret_new = false;
	if (e->method == NS_METHOD_TMPDIR) {
		const char *templ = strrchr(e->instance, '/') + 1;

		/* The user's leftovers first, then her marker (tmpdirs.c): never fatal. */
		apply_remove_leftovers(c, e, pfd, readable, &pst);
		fd = make_tmpdir(pfd, templ, poly, &name);
		if (fd < 0) {
			close(pfd);
			return ns_fail(c->fail, e, "creating the tmpdir instance", e->instance, fd,
				       NULL);
		}
		*ret_new = true;
		k = add_tmpdir(c, pfd, e->instance_parent, name);
		if (k == 0)
			k = ns_selinux_label_like(fd, poly_fd);
		if (k < 0) {
			close(fd);
			close(pfd);
			free(name);
			return ns_fail(c->fail, e, "creating the tmpdir instance", e->instance, k,
				       NULL);
		}
		apply_mark_tmpdir(c, e, pfd, &pst, &c->sess.tmpdirs[c->sess.n_tmpdirs - 1]);
		*ret_path = ns_strdupf("%s/%s", e->instance_parent, name);
		free(name);
		close(pfd);
		return fd;
	}

	fd = open_instance_locked(c, e, pfd, &pst, readable, &owned);
	if (fd == -ENOENT) {
		fd = kn_mkdir_child(pfd, e->instance_name, poly->st_mode & 07777, poly->st_uid,
				    poly->st_gid);
		if (fd >= 0) {
			*ret_new = true;
			/* Removed on failure only where no other session can have it. */
			k = owned ? apply_remember_made(c, pfd, e->instance_name, e->instance) : 0;
			/* The policy's context for context and level, else the polydir's. */
			if (k == 0 && e->instance_context)
				k = ns_selinux_label_fd(fd, e->instance_context);
			else if (k == 0)
				k = ns_selinux_label_like(fd, poly_fd);
			if (k < 0) {
				close(fd);
				fd = k;
			}
		} else if (fd == -EEXIST) {
			/* Another first login of the same user won the race: use its instance. */
			fd = kn_open_child_dir(pfd, e->instance_name);
		}
	}
	close(pfd);
	if (fd < 0)
		return ns_fail(c->fail, e,
			       fd == -ELOOP ? "instance is a symbolic link" : "opening instance",
			       e->instance, fd == -ELOOP ? 0 : fd, NULL);
	*ret_path = strdup(e->instance);
	return fd;
}

/*
 * The instance a session gets is never writable by group or others beyond
 * what its polydir allows: the polydir's mode is the configuration (its own
 * mode, or create='s), and a new instance is made with it, but an init
 * script may chmod it afterwards - Debian's namespace.init gives a new
 * $HOME instance 0777 where /etc/login.defs has no UMASK, as on Debian 13 -
 * and an instance left so by an earlier session stays so. Checked after the
 * init script, on the instance's descriptor; the extra write bits are
 * removed (and a sticky polydir's bit kept on a shared-writable instance).
 */
int apply_keep_instance_private(struct apply_ctx *c, const struct ns_plan_entry *e, int ifd,
				const struct stat *poly, const char *instance)
{
	const mode_t gow = S_IWGRP | S_IWOTH;
	struct stat st;
	mode_t mode, want;
	int rw, k;

	if (fstat(ifd, &st) < 0)
		return ns_fail(c->fail, e, "checking the mode of instance", instance, -errno, NULL);
	mode = st.st_mode & 07777;
	want = mode & ~(gow & ~poly->st_mode);
	if ((want & gow) && (poly->st_mode & S_ISVTX))
		want |= S_ISVTX;
	if (want == mode)
		return 0;
	/*
	 * ifd is O_PATH where the instance existed (kn_open_child_dir), and
	 * fchmod on O_PATH is always EBADF: the instance itself, opened again
	 * through ifd, is changed.
	 */
	rw = kn_reopen_dir(ifd, O_RDONLY);
	k = rw < 0 ? rw : fchmod(rw, want) < 0 ? -errno : 0;
	if (rw >= 0)
		close(rw);
	if (k < 0)
		return ns_fail(c->fail, e, "changing the mode of instance", instance, k, NULL);
	if (c->log)
		c->log(c->log_userdata, false,
		       "%s:%u: instance %s was mode %04o, writable beyond its polydir %s (mode "
		       "%04o): made %04o",
		       e->rule->file, e->rule->line, instance, (unsigned)mode, e->polydir,
		       (unsigned)(poly->st_mode & 07777), (unsigned)want);
	return 0;
}

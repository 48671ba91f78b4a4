/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * Removing a tree a user controls: a tmpdir instance at close, a share
 * drop, the helper at boot. Root runs this, so it must end, in time linear
 * in what it removes, whatever the user left there (any depth or width)
 * and whatever she does meanwhile from another process.
 *
 * The walk is iterative, depth first, with at most RM_OPEN directories
 * open at once, each with its own read buffer, so no directory is listed
 * twice within a pass. A directory found below the deepest open one is not
 * entered: it is renamed (RENAME_NOREPLACE, as the owner of the directory it
 * is in) into the top of the tree, whose listing or next pass then takes it
 * from there. A chain of any depth is so removed RM_OPEN levels at a time,
 * with no recursion, no depth limit of our own that could be mistaken for
 * a race, and no ".." to climb back through.
 *
 * - Nothing is followed: non-directories are unlinked without a look
 *   (unlink never follows), directories are opened O_NOFOLLOW|O_DIRECTORY
 *   relative to a descriptor already held, so a link swapped in fails the
 *   open (a race, left for the next pass) instead of leading elsewhere.
 * - No mount is crossed: a directory on another st_dev, or on another mount
 *   of the same filesystem (the mount ID: a bind mount), is left and the
 *   walk returns -EBUSY.
 * - unlink, rmdir and rename run with the filesystem identity of the owner
 *   of the directory they change, as kn_remove_child_dir does, so even a
 *   race we fail to see reaches nothing the user could not reach herself.
 *   Where she made one of her directories unwritable (0500), its mode is
 *   first given u+rwx through the descriptor held (never by name).
 * - Time: every entry checks the deadline; past it the walk stops and
 *   returns -ETIMEDOUT, leaving what is left for the caller to name and for
 *   a later removal. A pass that removed or moved something, or met an
 *   entry whose type changed under it, is followed by another while the
 *   top is not empty; three in a row that did neither end the walk with
 *   its error.
 *   An entry listed and then gone counts as such a change: a tree she keeps
 *   changing is worked on until the deadline, never given up on at once.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel.h"
#include "sys.h"

#define RM_OPEN 32   /* directories open at once */
#define RM_BUF	4096 /* getdents64 buffer of each */

struct rm_frame {
	int fd;
	uid_t uid; /* the directory's owner and group: the identity its changes run with */
	gid_t gid;
	char name[NAME_MAX + 1]; /* its name in the frame above; empty for the top */
	size_t pos, len;
	union {
		struct dirent64 align;
		char bytes[RM_BUF];
	} buf;
};

struct rm_walk {
	struct rm_frame f[RM_OPEN];
	unsigned depth;
	dev_t dev;
	uint64_t mnt_id, deadline;
	unsigned long moved;
	bool progress, raced;
	int error; /* the first failure of this pass, other than "not empty" */
	uid_t root_uid, cur_uid;
	gid_t root_gid, cur_gid;
};

uint64_t kn_deadline_after_ms(unsigned ms)
{
	return (uint64_t)kn_now_ns() + (uint64_t)ms * 1000000u;
}

/* Switch the filesystem identity only when it changes: a directory's entries share one. */
static void rm_as(struct rm_walk *w, uid_t uid, gid_t gid)
{
	if (uid == 0 || geteuid() != 0) {
		uid = w->root_uid;
		gid = w->root_gid;
	}
	if (uid == w->cur_uid && gid == w->cur_gid)
		return;
	(void)setfsgid(gid);
	(void)setfsuid(uid);
	w->cur_uid = uid;
	w->cur_gid = gid;
}

static void rm_as_root(struct rm_walk *w)
{
	rm_as(w, 0, 0);
}

static void rm_failed(struct rm_walk *w, int r)
{
	if (w->error == 0)
		w->error = r;
}

/* The next name in frame f's directory; NULL at its end or on a read error (recorded). */
static const char *rm_next(struct rm_walk *w, struct rm_frame *f)
{
	for (;;) {
		ssize_t got;

		while (f->pos < f->len) {
			const struct dirent64 *de =
				(const struct dirent64 *)(f->buf.bytes + f->pos);

			f->pos += de->d_reclen;
			if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
				return de->d_name;
		}
		got = getdents64(f->fd, f->buf.bytes, sizeof(f->buf.bytes));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			rm_failed(w, -errno);
		if (got <= 0)
			return NULL;
		f->pos = 0;
		f->len = (size_t)got;
	}
}

/* Make fd the next frame; its owner may not have left herself write access. */
static int rm_push(struct rm_walk *w, int fd, const struct stat *st, const char *name)
{
	struct rm_frame *f = &w->f[w->depth + 1];

	if (st->st_uid != 0 && (st->st_mode & 0700) != 0700 &&
	    fchmod(fd, (st->st_mode & 07777) | 0700) < 0) {
		close(fd);
		return -errno;
	}
	if (strlen(name) > NAME_MAX) {
		close(fd);
		return -ENAMETOOLONG;
	}
	strcpy(f->name, name);
	f->fd = fd;
	f->uid = st->st_uid;
	f->gid = st->st_gid;
	f->pos = f->len = 0;
	w->depth++;
	return 0;
}

/* A directory below the deepest frame: moved to the top, for a later listing to enter. */
static void rm_move_up(struct rm_walk *w, const char *name)
{
	struct rm_frame *f = &w->f[w->depth];
	char to[48];
	int r = -EEXIST;

	/*
	 * As the owner first; where she may not write the top (a root-owned
	 * 0755 one), as root: both ends are descriptors the walk holds, on the
	 * tree's mount, rename follows no link at either end, and what it
	 * moves is then removed as the owner of each directory below it.
	 */
	rm_as(w, f->uid, f->gid);
	for (int i = 0; i < 16 && r == -EEXIST; i++) {
		snprintf(to, sizeof(to), ".pam_namespace-removing.%lu", w->moved++);
		r = renameat2(f->fd, name, w->f[0].fd, to, RENAME_NOREPLACE) < 0 ? -errno : 0;
		if ((r == -EACCES || r == -EPERM) && w->cur_uid != w->root_uid) {
			rm_as_root(w);
			r = -EEXIST;
			w->moved--;
		}
	}
	if (r == 0)
		w->progress = true;
	else if (r == -ENOENT)
		w->raced = true; /* gone or renamed under the walk: her doing */
	else
		rm_failed(w, r);
}

/* One entry of the deepest frame: unlinked, or entered, or moved up. */
static void rm_entry(struct rm_walk *w, const char *name)
{
	struct rm_frame *f = &w->f[w->depth];
	struct stat st;
	int r, cfd;

	/* Whatever is not a directory goes first, without a look: unlink never follows. */
	rm_as(w, f->uid, f->gid);
	r = unlinkat(f->fd, name, 0) < 0 ? -errno : 0;
	if (r == 0)
		w->progress = true;
	else if (r == -ENOENT)
		w->raced = true; /* listed, then gone: the tree changes under the walk */
	if (r == 0 || r == -ENOENT)
		return;
	if (r != -EISDIR) {
		rm_failed(w, r);
		return;
	}
	rm_as_root(w);
	cfd = openat(f->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOATIME);
	if (cfd < 0 && errno == EPERM)
		cfd = openat(f->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (cfd < 0) {
		r = -errno;
		if (r == -ELOOP || r == -ENOTDIR || r == -ENOENT)
			w->raced = true; /* swapped for a link or file, or gone, since the unlink */
		else
			rm_failed(w, r);
		return;
	}
	if (fstat(cfd, &st) < 0) {
		rm_failed(w, -errno);
		close(cfd);
		return;
	}
	if (st.st_dev != w->dev) {
		/* Something is mounted here: never remove across a mount. */
		rm_failed(w, -EBUSY);
		close(cfd);
		return;
	}
	if (w->mnt_id) {
		uint64_t cid = kn_mount_id_of(cfd);

		if (cid != 0 && cid != w->mnt_id) {
			/* A bind mount of this same filesystem: as above. */
			rm_failed(w, -EBUSY);
			close(cfd);
			return;
		}
	}
	if (w->depth + 1 < RM_OPEN) {
		r = rm_push(w, cfd, &st, name);
		if (r < 0)
			rm_failed(w, r);
		return;
	}
	/* Its own mode must let its owner rename it (the kernel rewrites its ".."). */
	if (st.st_uid != 0 && (st.st_mode & 0700) != 0700 &&
	    fchmod(cfd, (st.st_mode & 07777) | 0700) < 0)
		rm_failed(w, -errno);
	close(cfd);
	rm_move_up(w, name);
}

/* The deepest frame is listed to its end: close it and rmdir it in the one above. */
static void rm_pop(struct rm_walk *w)
{
	struct rm_frame *f = &w->f[w->depth], *up = &w->f[w->depth - 1];
	int r;

	close(f->fd);
	w->depth--;
	rm_as(w, up->uid, up->gid);
	r = unlinkat(up->fd, f->name, AT_REMOVEDIR) < 0 ? -errno : 0;
	if (r == 0)
		w->progress = true;
	else if (r != -ENOENT && r != -ENOTEMPTY)
		rm_failed(w, r);
}

/* One pass over the tree open on top; -ETIMEDOUT past the deadline, else 0. */
static int rm_pass(struct rm_walk *w, int top, const struct stat *st)
{
	struct rm_frame *f0 = &w->f[0];
	int r = 0;

	w->progress = w->raced = false;
	w->error = 0;
	/* A descriptor of its own, so that the listing starts at the beginning. */
	f0->fd = openat(top, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (f0->fd < 0)
		return -errno;
	f0->uid = st->st_uid;
	f0->gid = st->st_gid;
	f0->pos = f0->len = 0;
	w->depth = 0;
	for (;;) {
		const char *name;

		if ((uint64_t)kn_now_ns() >= w->deadline) {
			r = -ETIMEDOUT;
			break;
		}
		name = rm_next(w, &w->f[w->depth]);
		if (name)
			rm_entry(w, name);
		else if (w->depth > 0)
			rm_pop(w);
		else
			break;
	}
	for (; w->depth > 0; w->depth--)
		close(w->f[w->depth].fd);
	close(f0->fd);
	rm_as_root(w);
	return r;
}

int kn_remove_tree(int dirfd, const char *name, uint64_t deadline)
{
	struct rm_walk *w;
	struct stat st;
	int fd, r, k, idle = 0;

	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return kn_not_a_dir_error(dirfd, name, errno);
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	/* A top of hers (a tmpdir of a polydir she owns) she may have made 0500 too. */
	if (st.st_uid != 0 && (st.st_mode & 0700) != 0700 &&
	    fchmod(fd, (st.st_mode & 07777) | 0700) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	/*
	 * Its own mapping, not malloc: no brk in a close (a process whose
	 * heap is short still closes), and nothing else in the walk allocates.
	 */
	w = mmap(NULL, sizeof(*w), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w == MAP_FAILED) {
		r = -errno;
		close(fd);
		return r;
	}
	w->dev = st.st_dev;
	w->mnt_id = kn_mount_id_of(fd);
	w->deadline = deadline;
	/* setfsuid with an invalid id changes nothing and returns the current one. */
	w->root_uid = w->cur_uid = (uid_t)setfsuid((uid_t)-1);
	w->root_gid = w->cur_gid = (gid_t)setfsgid((gid_t)-1);
	for (;;) {
		r = rm_pass(w, fd, &st);
		if (r < 0)
			break;
		k = kn_remove_child_dir(dirfd, name);
		if (k == 0) {
			r = 0;
			break;
		}
		if (k != -ENOTEMPTY) {
			r = w->error ? w->error : k;
			break;
		}
		/*
		 * Not empty after passes that changed nothing: what is left
		 * stays. Three in a row, not one: an owner renaming entries
		 * behind the listing can leave one pass with nothing done and no
		 * race seen, while the tree is still removable (a close then said
		 * "Directory not empty" of a tree the next pass would remove).
		 * Her renames either let a pass progress or keep it going until
		 * the deadline.
		 */
		idle = w->progress || w->raced ? 0 : idle + 1;
		if (idle == 3) {
			r = w->error ? w->error : k;
			break;
		}
	}
	(void)munmap(w, sizeof(*w));
	close(fd);
	return r;
}

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * Descriptor-based path resolution (SPEC section 8).
 *
 * A path is walked from "/" one component at a time. While every directory
 * so far is root-owned and writable by nobody else, only root could have
 * placed a symlink there, so symlinks are followed (a root-owned /home ->
 * /srv/home is legitimate). From the first directory a user controls on,
 * no symlink is followed at all: a user cannot redirect the module by
 * swapping a directory for a link, whenever they do it, because every step
 * is relative to a descriptor already held. Where the kernel has openat2,
 * that untrusted remainder is resolved in one call with
 * RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH, which gives the same guarantee.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel.h"
#include "sys.h"

#define KN_MAX_SYMLINKS 40

/*
 * Inside a directory a user owns, name-based operations run with that
 * user's filesystem identity: the kernel then checks them as it would the
 * user's own, so even a race we failed to see cannot reach anything the
 * user could not, and root_squash NFS homes work. setfsuid() to a non-zero
 * uid also drops the filesystem capabilities for the call.
 */
struct fsid_saved {
	bool active;
	uid_t uid;
	gid_t gid;
};

/* The same for a directory already looked at (st: its fstat). */
static struct fsid_saved as_owner(const struct stat *st)
{
	struct fsid_saved s = {0};

	if (st->st_uid == 0 || geteuid() != 0)
		return s;
	s.gid = (gid_t)setfsgid(st->st_gid);
	s.uid = (uid_t)setfsuid(st->st_uid);
	s.active = true;
	return s;
}

static struct fsid_saved as_owner_of(int dirfd)
{
	struct fsid_saved s = {0};
	struct stat st;

	if (fstat(dirfd, &st) < 0)
		return s;
	return as_owner(&st);
}

static void fsid_restore(const struct fsid_saved *s)
{
	if (!s->active)
		return;
	(void)setfsuid(s->uid);
	(void)setfsgid(s->gid);
}

static bool st_trusted(const struct stat *st, bool allow_sticky)
{
	if (st->st_uid != 0)
		return false;
	if (!(st->st_mode & (S_IWGRP | S_IWOTH)))
		return true;
	return allow_sticky && (st->st_mode & S_ISVTX);
}

int kn_fd_is_trusted(int fd, bool allow_sticky)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	return st_trusted(&st, allow_sticky);
}

/* Opening with O_DIRECTORY|O_NOFOLLOW fails alike for links and files: tell them apart. */
int kn_not_a_dir_error(int dirfd, const char *name, int err)
{
	struct stat st;

	if (err != ENOTDIR && err != ELOOP)
		return -err;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -err;
	return S_ISLNK(st.st_mode) ? -ELOOP : -ENOTDIR;
}

int kn_open_child_dir(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return kn_not_a_dir_error(dirfd, name, errno);
	return fd;
}

/*
 * With RESOLVE_BENEATH, a ".." walked while any rename or mount happens
 * anywhere in the system makes openat2() fail with EAGAIN, since the
 * kernel cannot then prove the walk stayed beneath; openat2(2) says to
 * retry. A bounded number of times: past that it stays an error (fail
 * closed), never a walk without the check.
 */
static int openat2_beneath(int dirfd, const char *rest, bool readable)
{
	struct kn_open_how how = {
		.flags = (readable ? O_RDONLY : O_PATH) | O_DIRECTORY | O_CLOEXEC,
		.resolve = KN_RESOLVE_NO_SYMLINKS | KN_RESOLVE_BENEATH | KN_RESOLVE_NO_MAGICLINKS,
	};
	long fd;

	for (unsigned tries = 0; tries < 64; tries++) {
		fd = syscall(SYS_openat2, dirfd, rest, &how, sizeof(how));
		if (fd >= 0)
			return (int)fd;
		if (errno != EAGAIN)
			break;
	}
	return -errno;
}

/*
 * Build "target/rest" for a symlink met in the middle of a walk.
 * Returns a new string or NULL.
 */
static char *link_splice(const char *target, const char *rest)
{
	size_t lt = strlen(target), lr = strlen(rest);
	char *s;

	if (lt + lr + 2 > PATH_MAX)
		return NULL;
	s = malloc(lt + lr + 2);
	if (!s)
		return NULL;
	memcpy(s, target, lt);
	s[lt] = '/';
	memcpy(s + lt + 1, rest, lr + 1);
	return s;
}

/*
 * Link name under fd spliced before rest into *ret. The buffer is on the
 * heap: 4 KiB in walk()'s frame put each call below it on a stack page not
 * yet touched, a page fault in two sessions of five.
 */
static int read_link_spliced(int fd, const char *name, const char *rest, char **ret)
{
	char *target = malloc(PATH_MAX);
	ssize_t n = target ? readlinkat(fd, name, target, PATH_MAX - 1) : (errno = ENOMEM, -1);
	int r = n < 0 ? -errno : 0;

	*ret = NULL;
	if (n >= 0) {
		target[n] = '\0';
		*ret = link_splice(target, rest);
		r = *ret ? 0 : -ENAMETOOLONG;
	}
	free(target);
	return r;
}

int kn_dir_open_root(struct kn_dir *ret)
{
	return kn_dir_open_root_at("/", ret);
}

int kn_dir_open_root_at(const char *path, struct kn_dir *ret)
{
	int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = kn_dir_from_fd(fd, true, ret);
	if (r < 0)
		close(fd);
	return r;
}

void kn_dir_close(struct kn_dir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	*d = (struct kn_dir)KN_DIR_INIT;
}

/*
 * The last directory of a walk, opened for reading where the walk's
 * identity may read it; else O_PATH, and *readable turns false. A caller
 * that must flock it then needs no second open.
 */
static int open_last(int dirfd, const char *name, bool *readable)
{
	int fd;

	if (*readable) {
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0)
			return fd;
		if (errno != EACCES)
			return kn_not_a_dir_error(dirfd, name, errno);
		*readable = false;
	}
	return kn_open_child_dir(dirfd, name);
}

/*
 * The walk starts at "/", or at root where the caller holds it (the same
 * directory: a mount made later on a directory below it is crossed like by
 * any lookup from "/"), or at base, a directory the same walk reached
 * earlier for a prefix of the path (so path is then relative to it). A
 * held descriptor is never closed here. readable: NULL for an O_PATH
 * result; else, true on entry asks for the last directory opened for
 * reading (open_last), and on return says whether it was.
 */
static int walk(const struct kn_dir *root, const struct kn_dir *base, const char *path,
		bool allow_sticky, bool *ret_trusted, bool *readable)
{
	char *todo = NULL, *next;
	const char *p;
	struct stat cur;
	int fd, r, links = 0;
	bool trusted, own;
	/* want: a readable result is still worth an attempt; got: fd is one */
	bool want = readable && *readable, got = false;

	if (!path || (!base && path[0] != '/'))
		return -EINVAL;
	if (strlen(path) >= PATH_MAX)
		return -ENAMETOOLONG;
	todo = strdup(path);
	if (!todo)
		return -ENOMEM;

	if (base) {
		fd = base->fd;
		own = false;
		cur = base->st;
		trusted = base->trusted;
		p = todo;
		goto walk;
	}
restart:
	if (root) {
		fd = root->fd;
		own = false;
		cur = root->st;
	} else {
		struct kn_dir d;

		r = kn_dir_open_root(&d);
		if (r < 0)
			goto out;
		fd = d.fd;
		own = true;
		cur = d.st;
	}
	/* cur: the fstat of fd for as long as the walk is trusted and one step after. */
	trusted = st_trusted(&cur, allow_sticky);
	p = todo;

walk:
	for (;;) {
		char name[NAME_MAX + 1];
		size_t len;
		int nfd;

		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		if (!trusted && kn_feature_try(KN_FEATURE_OPENAT2)) {
			struct fsid_saved ids = as_owner(&cur);

			nfd = openat2_beneath(fd, p, want);
			fsid_restore(&ids);
			if (nfd == -ENOSYS) {
				kn_feature_lost(KN_FEATURE_OPENAT2);
				continue;
			}
			if (nfd == -EACCES && want) {
				want = false;
				continue;
			}
			if (nfd < 0) {
				r = nfd;
				goto out_fd;
			}
			if (own)
				close(fd);
			fd = nfd;
			own = true;
			got = want;
			break;
		}
		len = strcspn(p, "/");
		if (len > NAME_MAX) {
			r = -ENAMETOOLONG;
			goto out_fd;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		p += len;

		if (strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0 && !trusted) {
			r = -EXDEV;
			goto out_fd;
		}

		/* The last component (none but slashes after it) is opened to read where wanted. */
		bool last = want && p[strspn(p, "/")] == '\0';

		if (trusted) {
			nfd = last ? open_last(fd, name, &want) : kn_open_child_dir(fd, name);
		} else {
			struct fsid_saved ids = as_owner_of(fd);

			nfd = last ? open_last(fd, name, &want) : kn_open_child_dir(fd, name);
			fsid_restore(&ids);
		}
		if (nfd == -ELOOP && trusted) {
			struct stat st;

			if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_uid != 0) {
				r = -ELOOP;
				goto out_fd;
			}
			if (++links > KN_MAX_SYMLINKS) {
				r = -ELOOP;
				goto out_fd;
			}
			r = read_link_spliced(fd, name, p, &next);
			if (r < 0)
				goto out_fd;
			free(todo);
			todo = next;
			if (todo[0] == '/') {
				if (own)
					close(fd);
				goto restart;
			}
			p = todo;
			continue;
		}
		if (nfd < 0) {
			r = nfd;
			goto out_fd;
		}
		if (own)
			close(fd);
		fd = nfd;
		own = true;
		got = last && want;
		if (trusted) {
			if (fstat(fd, &cur) < 0) {
				r = -errno;
				goto out_fd;
			}
			trusted = st_trusted(&cur, allow_sticky);
		}
	}

	/* Nothing walked beyond a held directory: the caller gets a descriptor of its own. */
	if (!own) {
		got = false; /* a held descriptor's kind is the holder's */
		fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (fd < 0) {
			r = -errno;
			goto out;
		}
	}
	if (ret_trusted)
		*ret_trusted = trusted;
	if (readable)
		*readable = got;
	free(todo);
	return fd;

out_fd:
	if (own)
		close(fd);
out:
	free(todo);
	return r;
}

int kn_open_dir(const char *path, bool *ret_trusted)
{
	return walk(NULL, NULL, path, false, ret_trusted, NULL);
}

static int open_dir_from(const struct kn_dir *root, const struct kn_dir *base,
			 const char *base_path, const char *path, bool *ret_trusted, bool *readable)
{
	/*
	 * Below an untrusted directory the walk from "/" resolves the rest
	 * from the first such directory, as its owner: base must be it or above.
	 */
	size_t n = base && base_path && base->parent_trusted ? strlen(base_path) : 0;

	if (n > 0 && path && strncmp(path, base_path, n) == 0 &&
	    (path[n] == '/' || path[n] == '\0'))
		return walk(root, base, path + n, false, ret_trusted, readable);
	return walk(root, NULL, path, false, ret_trusted, readable);
}

int kn_open_dir_from(const struct kn_dir *root, const struct kn_dir *base, const char *base_path,
		     const char *path, bool *ret_trusted)
{
	return open_dir_from(root, base, base_path, path, ret_trusted, NULL);
}

int kn_open_dir_readable_from(const struct kn_dir *root, const struct kn_dir *base,
			      const char *base_path, const char *path, bool *ret_readable)
{
	*ret_readable = true;
	return open_dir_from(root, base, base_path, path, NULL, ret_readable);
}

/* The parent of path, walked as walk() does; *ret_name points into path. */
static int open_parent(const struct kn_dir *root, const char *path, bool allow_sticky,
		       const char **ret_name, bool *ret_trusted)
{
	const char *slash, *name;
	char *dir;
	int fd;

	if (!path || path[0] != '/')
		return -EINVAL;
	slash = strrchr(path, '/');
	name = slash + 1;
	if (*name == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return -EINVAL;
	dir = slash == path ? strdup("/") : strndup(path, slash - path);
	if (!dir)
		return -ENOMEM;
	fd = walk(root, NULL, dir, allow_sticky, ret_trusted, NULL);
	free(dir);
	if (fd >= 0)
		*ret_name = name;
	return fd;
}

int kn_open_parent(const char *path, const char **ret_name, bool *ret_trusted)
{
	return open_parent(NULL, path, false, ret_name, ret_trusted);
}

int kn_open_parent_from(const struct kn_dir *root, const char *path, const char **ret_name,
			bool *ret_trusted)
{
	return open_parent(root, path, false, ret_name, ret_trusted);
}

int kn_dir_from_fd(int fd, bool parent_trusted, struct kn_dir *ret)
{
	struct kn_dir d = {.fd = fd, .parent_trusted = parent_trusted};

	if (fstat(fd, &d.st) < 0)
		return -errno;
	d.trusted = parent_trusted && st_trusted(&d.st, false);
	*ret = d;
	return 0;
}

int kn_path_parents_safe(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	bool trusted = false;
	char *dir;
	int fd;

	if (!slash || path[0] != '/')
		return -EINVAL;
	dir = slash == path ? strdup("/") : strndup(path, slash - path);
	if (!dir)
		return -ENOMEM;
	fd = walk(NULL, NULL, dir, true, &trusted, NULL);
	free(dir);
	if (fd < 0)
		return fd;
	close(fd);
	return trusted;
}

/* chown before chmod, so that set-id bits survive; 0 if the result is exactly what was asked. */
static int set_owner_mode(int fd, mode_t mode, uid_t uid, gid_t gid)
{
	struct stat st;

	if (fchown(fd, uid, gid) < 0 || fchmod(fd, mode) < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_uid != uid || st.st_gid != gid || (st.st_mode & 07777) != (mode & 07777))
		return -EPERM;
	return 0;
}

/* kn_remove_staged's step: an empty staged directory goes, as its parent's owner. */
static int remove_staged_one(const char *name, void *ud)
{
	int r;

	if (strncmp(name, KN_STAGED_PREFIX, sizeof(KN_STAGED_PREFIX) - 1) != 0)
		return 0;
	r = kn_remove_child_dir(*(const int *)ud, name);
	return r == -ENOENT || r == -ENOTEMPTY || r == -ENOTDIR ? 0 : r;
}

/* A staged name: KN_STAGED_PREFIX and 12 random letters, never a name anyone looks for. */
static int staged_name(char name[static sizeof(KN_STAGED_PREFIX) + 12])
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char rnd[12];

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return errno ? -errno : -EIO;
	memcpy(name, KN_STAGED_PREFIX, sizeof(KN_STAGED_PREFIX) - 1);
	for (size_t i = 0; i < sizeof(rnd); i++)
		name[sizeof(KN_STAGED_PREFIX) - 1 + i] = chars[rnd[i] % (sizeof(chars) - 1)];
	name[sizeof(KN_STAGED_PREFIX) - 1 + sizeof(rnd)] = '\0';
	return 0;
}

/*
 * In a root-owned parent the new directory is made with mode 000, so nobody
 * but root can use it before it has its final owner. In a user's directory
 * it is made as that user (mode 0700: the user must be able to open it) and
 * opened without following links, so a raced-in link or directory is
 * refused. Either way it is checked to be the one just made, then owner and
 * mode are set on the descriptor. In a user's directory that too is done
 * as the user where the user may (their own directory, one of their groups:
 * the NFS root_squash case), as root only where the owner is someone else.
 *
 * All of that happens under a staged name (kn_mkdir_staged); only the
 * finished directory is renamed to name (kn_publish_child), so a process
 * killed at any step never leaves a half-made directory (mode 000, the
 * wrong owner) where the next session would take it for finished.
 */
int kn_mkdir_staged(int dirfd, mode_t mode, uid_t uid, gid_t gid, char **ret_staged)
{
	struct fsid_saved ids = as_owner_of(dirfd);
	uid_t want_uid = ids.active ? (uid_t)setfsuid((uid_t)-1) : geteuid();
	char name[sizeof(KN_STAGED_PREFIX) + 12];
	struct stat st;
	int fd, r;

	for (int attempt = 0;; attempt++) {
		r = staged_name(name);
		if (r == 0)
			r = mkdirat(dirfd, name, ids.active ? 0700 : 0) < 0 ? -errno : 0;
		if (r != -EEXIST || attempt == 8)
			break;
	}
	if (r < 0) {
		fsid_restore(&ids);
		return r;
	}
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		r = kn_not_a_dir_error(dirfd, name, errno);
		fsid_restore(&ids);
		/* A link or file raced in is someone else's: only our own failure undoes. */
		if (r == -ELOOP || r == -ENOTDIR)
			return r;
		goto remove;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		fsid_restore(&ids);
		goto fail;
	}
	if (st.st_uid != want_uid || (st.st_mode & 07077) != 0) {
		/* Not the directory just made: leave it to whoever made it. */
		fsid_restore(&ids);
		close(fd);
		return -EEXIST;
	}
	r = ids.active ? set_owner_mode(fd, mode, uid, gid) : -EPERM;
	fsid_restore(&ids);
	if (r < 0)
		r = set_owner_mode(fd, mode, uid, gid);
	if (r < 0)
		goto fail;
	*ret_staged = strdup(name);
	if (*ret_staged)
		return fd;
	r = -ENOMEM;
fail:
	close(fd);
remove:
	/*
	 * Made here and not handed out. rmdir removes only an empty
	 * directory, so whatever the owner of dirfd swapped in with content
	 * stays.
	 */
	(void)kn_remove_child_dir(dirfd, name);
	return r;
}

int kn_publish_child(int dirfd, const char *staged, const char *name)
{
	struct fsid_saved ids = as_owner_of(dirfd);
	int r = renameat2(dirfd, staged, dirfd, name, RENAME_NOREPLACE) < 0 ? -errno : 0;

	fsid_restore(&ids);
	if (r < 0)
		(void)kn_remove_child_dir(dirfd, staged);
	return r;
}

int kn_mkdir_child(int dirfd, const char *name, mode_t mode, uid_t uid, gid_t gid)
{
	char *staged = NULL;
	int fd, r;

	fd = kn_mkdir_staged(dirfd, mode, uid, gid, &staged);
	if (fd < 0)
		return fd;
	r = kn_publish_child(dirfd, staged, name);
	free(staged);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

int kn_remove_staged(int dirfd)
{
	return kn_dir_each(dirfd, remove_staged_one, &dirfd);
}

int kn_remove_child_dir(int dirfd, const char *name)
{
	struct fsid_saved ids = as_owner_of(dirfd);
	int r = unlinkat(dirfd, name, AT_REMOVEDIR) < 0 ? -errno : 0;

	fsid_restore(&ids);
	return r;
}

/*
 * A file that root will later use by name (the init script, executed by
 * path so that a #! interpreter can open it). Its directories must all be
 * root-owned and writable by nobody else, a root-owned sticky directory
 * being fine, and a symlink as its last component is followed only if root
 * owns it: then nobody but root can change what the name refers to between
 * this check and the use. The file itself is never opened, only stat'ed
 * through its parent's descriptor, so a FIFO in its place cannot block.
 */
int kn_stat_trusted_path(const char *path, char **ret_real, struct stat *ret_st)
{
	char *cur, *next, target[PATH_MAX];
	const char *name;
	struct stat st;
	bool trusted = false;
	int pfd, r;

	if (!path || path[0] != '/')
		return -EINVAL;
	cur = strdup(path);
	if (!cur)
		return -ENOMEM;
	for (int links = 0;; links++) {
		ssize_t n;

		pfd = open_parent(NULL, cur, true, &name, &trusted);
		if (pfd < 0) {
			r = pfd;
			goto fail;
		}
		if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			r = -errno;
			close(pfd);
			goto fail;
		}
		if (!trusted || !S_ISLNK(st.st_mode) || st.st_uid != 0) {
			close(pfd);
			break;
		}
		n = links < KN_MAX_SYMLINKS ? readlinkat(pfd, name, target, sizeof(target) - 1)
					    : (errno = ELOOP, -1);
		close(pfd);
		if (n < 0) {
			r = -errno;
			goto fail;
		}
		target[n] = '\0';
		if (target[0] == '/')
			next = strdup(target);
		else if (asprintf(&next, "%.*s/%s", (int)(name - cur - 1), cur, target) < 0)
			next = NULL;
		if (!next) {
			r = -ENOMEM;
			goto fail;
		}
		free(cur);
		cur = next;
	}
	*ret_real = cur;
	*ret_st = st;
	return trusted && !S_ISLNK(st.st_mode);
fail:
	free(cur);
	return r;
}

/*
 * The ID of the mount a descriptor is on, 0 if it cannot be had. st_dev
 * cannot tell a bind mount of the same filesystem from a plain directory;
 * the mount ID can: from statx (5.8), else from fdinfo (3.15).
 */
uint64_t kn_mount_id_of(int fd)
{
	char path[KN_PROC_PATH_MAX], line[128];
	uint64_t id = 0;
	FILE *f;

#ifdef SYS_statx
	struct kn_statx stx = {0};

	if (syscall(SYS_statx, fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, KN_STATX_MNT_ID,
		    &stx) == 0 &&
	    (stx.mask & KN_STATX_MNT_ID))
		return stx.mnt_id;
#endif
	snprintf(line, sizeof(line), "fdinfo/%d", fd);
	kn_thread_self_path(path, line);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;

		if (sscanf(line, "mnt_id: %llu", &v) == 1) {
			id = v;
			break;
		}
	}
	fclose(f);
	return id;
}

int kn_dir_each(int dirfd, int (*fn)(const char *name, void *ud), void *ud)
{
	union {
		struct dirent64 align;
		char bytes[4096];
	} buf;

	for (;;) {
		ssize_t got = getdents64(dirfd, buf.bytes, sizeof(buf.bytes));

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			return 0;
		for (ssize_t off = 0; off < got;) {
			const struct dirent64 *de = (const struct dirent64 *)(buf.bytes + off);
			int r;

			off += de->d_reclen;
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			r = fn(de->d_name, ud);
			if (r != 0)
				return r;
		}
	}
}

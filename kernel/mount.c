/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * Mounts by descriptor. Which call runs at which step (kernel/README.md has
 * the same table for the whole session):
 *
 *   step            new API (5.2+)                        fallback (older kernels)
 *   bind instance   open_tree(OPEN_TREE_CLONE) on the     mount(2) MS_BIND from
 *                   instance fd, move_mount onto the      /proc/thread-self/fd/SRC
 *                   polydir fd                            onto .../fd/DST
 *   tmpfs           fsopen("tmpfs"), fsconfig per         mount(2) "tmpfs" onto
 *                   option, fsmount with MOUNT_ATTR_*,    /proc/thread-self/fd/DST
 *                   move_mount onto the polydir fd
 *   bind with       open_tree clone, mount_setattr on the  mount(2) MS_BIND, the new mount
 *   flags, held     clone, move_mount (before 5.12: a     opened by name from dst's parent
 *                   remount through the clone's fd)       and checked by inode, a remount
 *   unmount         umount2(MNT_DETACH) on /proc/thread-self/fd/N of a safely
 *                   resolved path (the same on every kernel)
 *
 * Either way the target is the directory already resolved and held, never
 * a name looked up again: /proc/thread-self/fd/N names exactly that
 * descriptor of this thread's table.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel.h"
#include "sys.h"

/*
 * The name of a descriptor of this thread's table: a thread may have its
 * own (unshare(CLONE_FILES)), and /proc/self is the thread-group leader's
 * table, where the same number can be another file, or, once the leader
 * has exited, nothing at all.
 */
static void fd_path(char buf[KN_PROC_PATH_MAX], int fd)
{
	char rest[32];

	snprintf(rest, sizeof(rest), "fd/%d", fd);
	kn_thread_self_path(buf, rest);
}

static int move_to(int mnt_fd, int dst_fd)
{
	if (syscall(SYS_move_mount, mnt_fd, "", dst_fd, "",
		    KN_MOVE_MOUNT_F_EMPTY_PATH | KN_MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return -errno;
	return 0;
}

static unsigned long ms_to_attr(unsigned long ms_flags)
{
	unsigned long attr = 0;

	if (ms_flags & MS_NOSUID)
		attr |= KN_MOUNT_ATTR_NOSUID;
	if (ms_flags & MS_NODEV)
		attr |= KN_MOUNT_ATTR_NODEV;
	if (ms_flags & MS_NOEXEC)
		attr |= KN_MOUNT_ATTR_NOEXEC;
	if (ms_flags & MS_RDONLY)
		attr |= KN_MOUNT_ATTR_RDONLY;
	return attr;
}

int kn_bind_fd(int src_fd, int dst_fd)
{
	char src[KN_PROC_PATH_MAX], dst[KN_PROC_PATH_MAX];
	long tree;
	int r;

	if (kn_feature_try(KN_FEATURE_OPEN_TREE)) {
		tree = syscall(SYS_open_tree, src_fd, "",
			       KN_OPEN_TREE_CLONE | KN_OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
		if (tree >= 0) {
			r = move_to((int)tree, dst_fd);
			close((int)tree);
			return r;
		}
		if (errno != ENOSYS)
			return -errno;
		kn_feature_lost(KN_FEATURE_OPEN_TREE);
	}
	fd_path(src, src_fd);
	fd_path(dst, dst_fd);
	if (mount(src, dst, NULL, MS_BIND, NULL) < 0)
		return -errno;
	return 0;
}

/*
 * MS_REMOUNT | MS_BIND sets the per-mount flags to those given: the ones the
 * mount has (a bind inherits nosuid, nodev ... of its source) are read
 * with fstatvfs, whose ST_ bits are the MS_ ones, and given again, so that
 * a remount only ever adds flags. Atime flags stay as they are by default.
 */
static int remount_adding(int mnt_fd, unsigned long ms_flags)
{
	const unsigned long keep = MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY;
	char p[KN_PROC_PATH_MAX];
	struct statvfs sv;

	if (fstatvfs(mnt_fd, &sv) < 0)
		return -errno;
	fd_path(p, mnt_fd);
	if (mount(NULL, p, NULL, MS_REMOUNT | MS_BIND | ((sv.f_flag | ms_flags) & keep), NULL) < 0)
		return -errno;
	return 0;
}

/*
 * Before open_tree (5.2): the mount just made on dst_fd is found by the
 * name dst_fd has in its parent (its own magic link names the mount
 * underneath, the one it was opened on), and taken only if its root is
 * the directory wanted: same device and inode as want, or, for a fresh
 * tmpfs (want NULL), a tmpfs on another device than dst_fd's.
 */
static int open_mounted_on(int dst_fd, const struct stat *want)
{
	char p[KN_PROC_PATH_MAX], target[4096];
	struct stat old, st;
	struct statfs sf;
	const char *name;
	ssize_t n;
	int parent, fd;

	if (fstat(dst_fd, &old) < 0)
		return -errno;
	fd_path(p, dst_fd);
	n = readlink(p, target, sizeof(target) - 1);
	if (n <= 0)
		return n < 0 ? -errno : -ENOENT;
	target[n] = '\0';
	name = strrchr(target, '/');
	if (!name || !name[1])
		return -EOPNOTSUPP;
	parent = openat(dst_fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (parent < 0)
		return -errno;
	fd = openat(parent, name + 1, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(parent);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || fstatfs(fd, &sf) < 0 ||
	    (want ? st.st_dev != want->st_dev || st.st_ino != want->st_ino
		  : st.st_dev == old.st_dev || sf.f_type != KN_TMPFS_MAGIC)) {
		close(fd);
		return -EOPNOTSUPP;
	}
	return fd;
}

/* Without open_tree: mount(2) by descriptor, then the new mount found by open_mounted_on. */
static int bind_open_legacy(int src_fd, int dst_fd, unsigned long ms_flags)
{
	char p[KN_PROC_PATH_MAX], dst[KN_PROC_PATH_MAX];
	struct stat want;
	int fd, r;

	if (fstat(src_fd, &want) < 0)
		return -errno;
	fd_path(p, src_fd);
	fd_path(dst, dst_fd);
	if (mount(p, dst, NULL, MS_BIND, NULL) < 0)
		return -errno;
	fd = open_mounted_on(dst_fd, &want);
	if (fd < 0)
		return fd;
	r = ms_flags ? remount_adding(fd, ms_flags) : 0;
	if (r < 0) {
		fd_path(p, fd);
		(void)umount2(p, MNT_DETACH);
		close(fd);
		return r;
	}
	return fd;
}

/*
 * The flags go on the detached clone, so the mount is never visible
 * without them. Before 5.12 (no mount_setattr) they are set by a remount
 * once it is attached: a remount needs a mount in our namespace, and the
 * clone's descriptor names exactly that mount's root (the polydir's own
 * descriptor would name the mount underneath).
 */
int kn_bind_fd_open(int src_fd, int dst_fd, unsigned long ms_flags)
{
	struct kn_mount_attr attr = {.attr_set = ms_to_attr(ms_flags)};
	bool remount = false;
	long tree;
	int r;

	if (!kn_feature_try(KN_FEATURE_OPEN_TREE))
		return bind_open_legacy(src_fd, dst_fd, ms_flags);
	tree = syscall(SYS_open_tree, src_fd, "",
		       KN_OPEN_TREE_CLONE | KN_OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
	if (tree < 0) {
		if (errno != ENOSYS)
			return -errno;
		kn_feature_lost(KN_FEATURE_OPEN_TREE);
		return bind_open_legacy(src_fd, dst_fd, ms_flags);
	}
	if (attr.attr_set && kn_feature_try(KN_FEATURE_MOUNT_SETATTR)) {
		if (syscall(SYS_mount_setattr, (int)tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)) <
		    0) {
			r = -errno;
			if (r != -ENOSYS)
				goto fail;
			kn_feature_lost(KN_FEATURE_MOUNT_SETATTR);
			remount = true;
		}
	} else if (attr.attr_set) {
		remount = true;
	}
	r = move_to((int)tree, dst_fd);
	if (r == 0 && remount) {
		r = remount_adding((int)tree, ms_flags);
		if (r < 0) {
			char p[KN_PROC_PATH_MAX];

			fd_path(p, (int)tree);
			(void)umount2(p, MNT_DETACH);
		}
	}
	if (r < 0)
		goto fail;
	return (int)tree;
fail:
	close((int)tree);
	return r;
}

/*
 * The next option of opts from *pos, its escapes undone, into buf (as long
 * as opts): false at the end.
 */
static bool next_option(const char *opts, size_t *pos, char *buf)
{
	size_t i = *pos, o = 0;

	if (!opts[i])
		return false;
	while (opts[i] && opts[i] != ',') {
		if (opts[i] == '\\' && opts[i + 1])
			i++;
		buf[o++] = opts[i++];
	}
	buf[o] = '\0';
	*pos = opts[i] ? i + 1 : i;
	return true;
}

/* Each option of opts as its own fsconfig() call. */
static int configure_options(int fsfd, const char *opts)
{
	char *opt;
	size_t pos = 0;
	int r = 0;

	if (!opts || !*opts)
		return 0;
	opt = malloc(strlen(opts) + 1);
	if (!opt)
		return -ENOMEM;
	while (next_option(opts, &pos, opt)) {
		char *eq = strchr(opt, '=');
		long k;

		if (!*opt)
			continue;
		if (eq) {
			*eq = '\0';
			k = syscall(SYS_fsconfig, fsfd, KN_FSCONFIG_SET_STRING, opt, eq + 1, 0);
		} else {
			k = syscall(SYS_fsconfig, fsfd, KN_FSCONFIG_SET_FLAG, opt, NULL, 0);
		}
		if (k < 0) {
			r = -errno;
			break;
		}
	}
	free(opt);
	return r;
}

/* mount(2)'s data: the options with their escapes undone, joined by commas again. */
static char *plain_options(const char *opts)
{
	size_t pos = 0, n = 0;
	char *out, *opt;

	if (!opts)
		return NULL;
	out = malloc(strlen(opts) + 1);
	opt = malloc(strlen(opts) + 1);
	if (!out || !opt) {
		free(out);
		free(opt);
		return NULL;
	}
	while (next_option(opts, &pos, opt)) {
		size_t l = strlen(opt);

		if (n)
			out[n++] = ',';
		memcpy(out + n, opt, l);
		n += l;
	}
	out[n] = '\0';
	free(opt);
	return out;
}

static int tmpfs_mount(int dst_fd, const char *opts, unsigned long ms_flags, bool want_root)
{
	char dst[KN_PROC_PATH_MAX], *data;
	long fsfd, mfd;
	int r;

	fsfd = -1;
	if (kn_feature_try(KN_FEATURE_FSOPEN) && kn_feature_try(KN_FEATURE_OPEN_TREE)) {
		fsfd = syscall(SYS_fsopen, "tmpfs", KN_FSOPEN_CLOEXEC);
		if (fsfd < 0 && errno != ENOSYS)
			return -errno;
		if (fsfd < 0)
			kn_feature_lost(KN_FEATURE_FSOPEN);
	}
	if (fsfd >= 0) {
		mfd = -1;
		r = configure_options((int)fsfd, opts);
		if (r == 0 &&
		    syscall(SYS_fsconfig, fsfd, KN_FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
			r = -errno;
		if (r == 0) {
			mfd = syscall(SYS_fsmount, fsfd, KN_FSMOUNT_CLOEXEC, ms_to_attr(ms_flags));
			if (mfd < 0)
				r = -errno;
			else
				r = move_to((int)mfd, dst_fd);
		}
		close((int)fsfd);
		if (r == 0 && want_root)
			return (int)mfd;
		if (mfd >= 0)
			close((int)mfd);
		return r;
	}
	data = plain_options(opts);
	if (opts && !data)
		return -ENOMEM;
	fd_path(dst, dst_fd);
	r = 0;
	if (mount("tmpfs", dst, "tmpfs", ms_flags & (MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY),
		  data) < 0)
		r = -errno;
	free(data);
	if (r == 0 && want_root)
		return open_mounted_on(dst_fd, NULL);
	return r;
}

int kn_tmpfs_fd(int dst_fd, const char *opts, unsigned long ms_flags)
{
	return tmpfs_mount(dst_fd, opts, ms_flags, false);
}

int kn_tmpfs_fd_open(int dst_fd, const char *opts, unsigned long ms_flags)
{
	return tmpfs_mount(dst_fd, opts, ms_flags, true);
}

int kn_umount_path(const char *path)
{
	char p[KN_PROC_PATH_MAX];
	int fd, r = 0;

	fd = kn_open_dir(path, NULL);
	if (fd < 0)
		return fd;
	fd_path(p, fd);
	if (umount2(p, MNT_DETACH) < 0)
		r = -errno;
	close(fd);
	return r;
}

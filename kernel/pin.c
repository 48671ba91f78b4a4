/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * Pinning a mount namespace to a file, and opening a pinned one again
 * (share_namespace). A namespace lives as long as a process is in it, a
 * descriptor holds it, or its nsfs inode is bind-mounted somewhere. Also
 * who a process is (pidfs inode, start time), for records that name one.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel.h"
#include "sys.h"

#ifndef NSFS_MAGIC
#define NSFS_MAGIC 0x6e736673
#endif
/* linux/nsfs.h */
#define KN_NS_GET_NSTYPE	 _IO(0xb7, 0x3)
#define KN_STATX_ATTR_MOUNT_ROOT 0x00002000ULL

static void fd_path(char buf[KN_PROC_PATH_MAX], int fd)
{
	char rest[32];

	snprintf(rest, sizeof(rest), "fd/%d", fd);
	kn_thread_self_path(buf, rest);
}

int kn_ns_check_mnt(int fd, struct stat *ret_st)
{
	struct statfs sfs;
	struct stat st;
	int type;

	if (fstatfs(fd, &sfs) < 0)
		return -errno;
	if ((unsigned long)sfs.f_type != NSFS_MAGIC)
		return -EMEDIUMTYPE;
	type = ioctl(fd, KN_NS_GET_NSTYPE);
	if (type < 0)
		return -errno;
	if (type != CLONE_NEWNS)
		return -EMEDIUMTYPE;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (ret_st)
		*ret_st = st;
	return 0;
}

/*
 * The directory is made a mount of its own, bound onto itself, with
 * private propagation: the kernel refuses to bind a mount namespace's file
 * where the bind would propagate (EINVAL), and never copies such binds
 * into a new namespace, so a pinned namespace holds no other one.
 */
int kn_dir_make_private_mount(int dirfd)
{
	char path[KN_PROC_PATH_MAX];
	int r;

	r = kn_is_mount_root(dirfd);
	if (r < 0)
		return r;
	fd_path(path, dirfd);
	if (r == 0 && mount(path, path, NULL, MS_BIND, NULL) < 0)
		return -errno;
	return r;
}

int kn_mount_make_private(int dirfd)
{
	char path[KN_PROC_PATH_MAX];

	fd_path(path, dirfd);
	if (mount(NULL, path, NULL, MS_PRIVATE, NULL) < 0)
		return -errno;
	return 0;
}

int kn_is_mount_root(int fd)
{
	struct kn_statx stx = {0};

	if (syscall(SYS_statx, fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, 0, &stx) < 0)
		return -errno;
	if (!(stx.attributes_mask & KN_STATX_ATTR_MOUNT_ROOT))
		return -EOPNOTSUPP;
	return (stx.attributes & KN_STATX_ATTR_MOUNT_ROOT) != 0;
}

int kn_pin_ns(int ns_fd, int dirfd, const char *name, struct stat *ret_st)
{
	int fd, pin, r;

	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	/* By descriptor: open_tree and move_mount, or mount(2) by /proc names before 5.2. */
	r = kn_bind_fd(ns_fd, fd);
	close(fd);
	if (r < 0) {
		(void)unlinkat(dirfd, name, 0);
		return r;
	}
	/* What was pinned, read back through the name. */
	pin = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (pin < 0) {
		r = -errno;
		(void)kn_unpin_ns(dirfd, name);
		return r;
	}
	r = kn_ns_check_mnt(pin, ret_st);
	close(pin);
	if (r < 0)
		(void)kn_unpin_ns(dirfd, name);
	return r;
}

int kn_pin_open(int dirfd, const char *name, struct stat *ret_st)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	int r;

	if (fd < 0)
		return -errno;
	r = kn_ns_check_mnt(fd, ret_st);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

/*
 * Remove, and with it the pin. unlink() detaches what is mounted on the
 * file in every other namespace (the session's last close, from its own,
 * costs one call) and refuses with EBUSY where it is mounted in this one:
 * then every bind stacked there (a planted one too) is unmounted first.
 */
int kn_unpin_ns(int dirfd, const char *name)
{
	char dir[KN_PROC_PATH_MAX], path[KN_PROC_PATH_MAX + 256];
	int r = 0;

	if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EBUSY)
		return -errno;
	fd_path(dir, dirfd);
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	for (int i = 0; i < 16; i++)
		if (umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW) < 0) {
			if (errno != EINVAL)
				r = -errno;
			break;
		}
	if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT && r == 0)
		r = -errno;
	return r;
}

#ifndef PIDFS_MAGIC
#define PIDFS_MAGIC 0x50494446
#endif

/*
 * From 6.9 a pidfd is an inode of pidfs whose number is never given to
 * another process until reboot: what tells a process from a later one
 * with its pid, in three system calls rather than a read of /proc.
 */
int kn_pid_inode(pid_t pid, bool known_pidfs, unsigned long long *ret)
{
	long pidfd = syscall(SYS_pidfd_open, pid, 0);
	struct statfs sfs;
	struct stat st;
	int r = 0;

	/*
	 * Before 6.15, pidfd_open() of a process reaped while its pid is still
	 * a live process's session or process group id fails with EINVAL, not
	 * ESRCH (the kernel still holds the pid, with no process of its own):
	 * a user manager's "(sd-pam)" outlives the manager in its session,
	 * and the unit's ExecStopPost runs then. The process is gone all the
	 * same; taken for "cannot tell", its session record counted as live
	 * and kept the pin. pid > 0 and no flags: EINVAL means nothing else.
	 */
	if (pidfd < 0)
		return errno == EINVAL ? -ESRCH : -errno;
	if ((!known_pidfs && fstatfs((int)pidfd, &sfs) < 0) || fstat((int)pidfd, &st) < 0)
		r = -errno;
	else if (!known_pidfs && (unsigned long)sfs.f_type != PIDFS_MAGIC)
		r = -EOPNOTSUPP;
	else
		*ret = (unsigned long long)st.st_ino;
	close((int)pidfd);
	return r;
}

int kn_pid_starttime(pid_t pid, unsigned long long *ret)
{
	char path[64], buf[1024];
	const char *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ESRCH ? -ENOENT : -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 && errno == ESRCH ? -ENOENT : -EIO;
	buf[n] = '\0';
	/* The command may hold ')' and blanks: fields are counted from the last ')', field 2's end.
	 */
	p = strrchr(buf, ')');
	if (!p)
		return -EIO;
	for (int field = 3; field <= 22; field++) {
		p = strchr(p + 1, ' ');
		if (!p)
			return -EIO;
	}
	if (!isdigit((unsigned char)p[1]))
		return -EIO;
	*ret = strtoull(p + 1, NULL, 10);
	return 0;
}

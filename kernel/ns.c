/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#if __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h>
#define KN_HAVE_SINGLE_THREADED 1
#endif
#include <unistd.h>

#include "kernel.h"
#include "sys.h"

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void kn_ns_saved_close(struct kn_ns_saved *saved)
{
	close_fd(&saved->ns_fd);
	close_fd(&saved->root_fd);
	close_fd(&saved->cwd_fd);
}

void kn_thread_self_path(char buf[KN_PROC_PATH_MAX], const char *rest)
{
	static int have_thread_self = -1;

	if (have_thread_self < 0)
		have_thread_self = access("/proc/thread-self", F_OK) == 0 || errno != ENOENT;
	if (have_thread_self)
		snprintf(buf, KN_PROC_PATH_MAX, "/proc/thread-self/%s", rest);
	else
		snprintf(buf, KN_PROC_PATH_MAX, "/proc/self/task/%ld/%s", (long)syscall(SYS_gettid),
			 rest);
}

/*
 * The calling thread's mount namespace. unshare(CLONE_NEWNS) and setns()
 * act on the calling thread, and /proc/self is the thread-group leader,
 * whose namespace a thread that unshared on its own does not share.
 */
static int open_own_ns_by_path(void)
{
	char path[KN_PROC_PATH_MAX];

	kn_thread_self_path(path, "ns/mnt");
	return open(path, O_RDONLY | O_CLOEXEC);
}

/*
 * The calling thread's namespace file by path. In a process that has never
 * had a second thread (glibc's __libc_single_threaded, 2.32), the calling
 * thread is the thread-group leader that /proc/self names, and the shorter
 * path spares the kernel the task/TID directories it would build for
 * /proc/thread-self: the open took 13 to 17 us instead of 18 to 24 in
 * forked children on 6.18.
 * A thread glibc did not make (a raw clone(CLONE_THREAD)) escapes the flag,
 * but glibc does not support its calls into it, let alone into libpam.
 */
static const char *own_ns_path(void)
{
#ifdef KN_HAVE_SINGLE_THREADED
	if (__libc_single_threaded)
		return "/proc/self/ns/mnt";
#endif
	return "/proc/thread-self/ns/mnt";
}

/*
 * /proc first: one open, where the pidfd way takes four calls (gettid,
 * pidfd_open, the ioctl, close). Measured in whole sessions (tests/bench,
 * scenario baseline, 2 x 300 rounds), the open cost 0.91x-0.92x of the
 * pidfd way's own cost: the first pidfd of a process is costly in the
 * kernel, and libpam looks in /proc/self later anyway. Where /proc is
 * missing or refuses, a pidfd of the calling thread (PIDFD_THREAD, 6.9)
 * and PIDFD_GET_MNT_NAMESPACE (6.11); older kernels answer EINVAL or
 * ENOTTY there, and /proc/self/task/TID is tried.
 */
static int open_own_ns(void)
{
	int fd = open(own_ns_path(), O_RDONLY | O_CLOEXEC);
	pid_t tid;
	long pidfd;

	if (fd >= 0)
		return fd;
	tid = (pid_t)syscall(SYS_gettid);
	pidfd = syscall(SYS_pidfd_open, tid, KN_PIDFD_THREAD);
	if (pidfd < 0 && tid == getpid())
		pidfd = syscall(SYS_pidfd_open, tid, 0);
	if (pidfd < 0)
		return open_own_ns_by_path();
	/*
	 * Close-on-exec without asking: every kernel with this ioctl (6.11
	 * on) opens the namespace with open_namespace(), always O_CLOEXEC.
	 */
	fd = ioctl((int)pidfd, KN_PIDFD_GET_MNT_NAMESPACE, 0);
	close((int)pidfd);
	if (fd < 0)
		return open_own_ns_by_path();
	return fd;
}

int kn_ns_open_own(void)
{
	int fd = open_own_ns();

	return fd < 0 ? -errno : fd;
}

/* The mount namespace of process pid, by pidfd where the kernel can (6.11), else /proc. */
int kn_ns_open_pid(pid_t pid)
{
	long pidfd = syscall(SYS_pidfd_open, pid, 0);
	char path[64];
	int fd = -1;

	if (pidfd >= 0) {
		fd = ioctl((int)pidfd, KN_PIDFD_GET_MNT_NAMESPACE, 0);
		close((int)pidfd);
	}
	if (fd < 0) {
		snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	return fd < 0 ? -errno : fd;
}

/*
 * unshare() moves root and working directory to the copies in the new
 * namespace, and setns() moves them to the namespace's root, so both are
 * kept as descriptors of the original namespace to be restored exactly.
 */
int kn_ns_save(struct kn_ns_saved *ret)
{
	struct kn_ns_saved s = KN_NS_SAVED_INIT;

	s.ns_fd = open_own_ns();
	if (s.ns_fd < 0)
		goto fail;
	s.root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (s.root_fd < 0)
		goto fail;
	s.cwd_fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (s.cwd_fd < 0 && errno != ENOENT && errno != EACCES)
		goto fail;
	*ret = s;
	return 0;
fail:;
	int r = -errno;
	kn_ns_saved_close(&s);
	return r;
}

/*
 * unshare() copies the propagation of every mount; with / shared (as
 * systemd makes it) our binds would appear in the caller's namespace.
 * Slave keeps mounts flowing in (new media) but never out. The call
 * changes every mount below / and fails with EINVAL where / is not a
 * mount (a chroot into a plain directory): then nothing is changed.
 * mount(2), not mount_setattr(AT_RECURSIVE): the same change, and a fifth
 * cheaper with 3,000 mounts (193 us against 232, tests/README.md), which
 * each session pays; neither can fail half way for a slave or private
 * change.
 */
int kn_ns_enter_new(enum kn_propagation prop)
{
	unsigned long type = prop == KN_PROPAGATION_PRIVATE ? MS_PRIVATE : MS_SLAVE;

	if (unshare(CLONE_NEWNS) < 0)
		return -errno;
	if (mount(NULL, "/", NULL, MS_REC | type, NULL) < 0)
		return -errno;
	return 0;
}

/* Whether fd and path are the same directory; an error counts as not. */
static bool same_dir(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/*
 * Still in the saved namespace (unshare itself failed, or a step that went
 * back there failed after its setns): setns() would fail with EINVAL in a
 * multithreaded caller, whose fs_struct is still shared, and is not
 * needed; root and working directory are put back only where they moved,
 * so an untouched caller is left exactly as it is.
 */
int kn_ns_restore(const struct kn_ns_saved *saved)
{
	int r = kn_ns_same(saved->ns_fd, -1);

	if (r < 0)
		return r;
	if (r == 0)
		return kn_ns_return(saved);
	if (!same_dir(saved->root_fd, "/")) {
		if (fchdir(saved->root_fd) < 0 || chroot(".") < 0)
			return -errno;
	}
	if (saved->cwd_fd >= 0 && !same_dir(saved->cwd_fd, "."))
		return fchdir(saved->cwd_fd) < 0 ? -errno : 0;
	return 0;
}

/*
 * setns(CLONE_NEWNS) refuses (EINVAL) a thread whose fs_struct (root,
 * working directory, umask) other threads share: every thread of a
 * threaded client, gdm's GLib session worker among them. The calling
 * thread takes a copy of its own first, which a session wants anyway:
 * its root and working directory become the namespace's. The copy holds
 * the same root, working directory and umask, so a setns() that fails
 * after it leaves the thread where it was; only a chdir() or umask() of
 * another thread no longer moves this one, nor this one's the others.
 * Where no other thread shares it, unshare(CLONE_FS) changes nothing.
 */
int kn_ns_join(int ns_fd)
{
	if (unshare(CLONE_FS) < 0)
		return -errno;
	return setns(ns_fd, CLONE_NEWNS) < 0 ? -errno : 0;
}

int kn_ns_return(const struct kn_ns_saved *saved)
{
	if (setns(saved->ns_fd, CLONE_NEWNS) < 0)
		return -errno;
	/* setns() put us at the namespace's root: go back to the caller's root and cwd. */
	if (fchdir(saved->root_fd) < 0 || chroot(".") < 0)
		return -errno;
	if (saved->cwd_fd >= 0 && fchdir(saved->cwd_fd) < 0)
		return -errno;
	return 0;
}

static int ns_stat(int fd, struct stat *st)
{
	int own = -1, r;

	if (fd < 0) {
		own = open_own_ns();
		if (own < 0)
			return -errno;
		fd = own;
	}
	r = fstat(fd, st) < 0 ? -errno : 0;
	if (own >= 0)
		close(own);
	return r;
}

int kn_ns_same(int ns_fd_a, int ns_fd_b)
{
	struct stat a, b;
	int r;

	r = ns_stat(ns_fd_a, &a);
	if (r < 0)
		return r;
	r = ns_stat(ns_fd_b, &b);
	if (r < 0)
		return r;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

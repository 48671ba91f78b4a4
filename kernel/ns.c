/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel.h"

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

/*
 * unshare() moves root and working directory to the copies in the new
 * namespace, and setns() moves them to the namespace's root, so both are
 * kept as descriptors of the original namespace to be restored exactly.
 */
int kn_ns_save(struct kn_ns_saved *ret)
{
	struct kn_ns_saved s = KN_NS_SAVED_INIT;

	s.ns_fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
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

int kn_ns_enter_new(enum kn_propagation prop)
{
	unsigned long flags = MS_REC | (prop == KN_PROPAGATION_PRIVATE ? MS_PRIVATE : MS_SLAVE);

	if (unshare(CLONE_NEWNS) < 0)
		return -errno;
	/*
	 * unshare() copies the propagation of every mount; with / shared (as
	 * systemd makes it) our binds would appear in the caller's namespace.
	 * Slave keeps mounts flowing in (new media) but never out.
	 */
	if (mount(NULL, "/", NULL, flags, NULL) < 0)
		return -errno;
	return 0;
}

int kn_ns_restore(const struct kn_ns_saved *saved)
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

int kn_ns_same(int ns_fd_a, int ns_fd_b)
{
	struct stat a, b;

	if ((ns_fd_a >= 0 ? fstat(ns_fd_a, &a) : stat("/proc/self/ns/mnt", &a)) < 0)
		return -errno;
	if ((ns_fd_b >= 0 ? fstat(ns_fd_b, &b) : stat("/proc/self/ns/mnt", &b)) < 0)
		return -errno;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

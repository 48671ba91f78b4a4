/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * A directory held by an O_PATH descriptor, opened again for what O_PATH
 * cannot do: fchmod, fchown, fgetxattr and fsetxattr, flock all fail with
 * EBADF on an O_PATH descriptor (still so on 6.18).
 *
 * "." looked up from the descriptor is the directory itself: the lookup of
 * "." crosses no mount and follows no link, and needs no /proc. The result
 * is checked to be the same inode all the same, so that a caller never
 * changes anything but what it resolved.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel.h"

int kn_reopen_dir(int fd, int flags)
{
	struct stat a;

	if (fstat(fd, &a) < 0)
		return -errno;
	return kn_reopen_dir_as(fd, flags, &a);
}

int kn_reopen_dir_as(int fd, int flags, const struct stat *st)
{
	const struct stat a = *st;
	struct stat b;
	int nfd;

	nfd = openat(fd, ".", flags | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (nfd < 0)
		return -errno;
	if (fstat(nfd, &b) < 0) {
		int r = -errno;

		close(nfd);
		return r;
	}
	if (a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
		close(nfd);
		return -ESTALE;
	}
	return nfd;
}

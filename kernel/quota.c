/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * User quotas on a tmpfs (Linux 6.6, CONFIG_TMPFS_QUOTA, mounted with
 * usrquota), set through quotactl_fd(2) (5.14) on a descriptor of a
 * directory of that filesystem: a tmpfs has no block device for quotactl(2)
 * to name. Limits live in the superblock until it is unmounted.
 */
#include <errno.h>
#include <sys/quota.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel.h"
#include "sys.h"

#ifndef SYS_quotactl_fd
#define SYS_quotactl_fd 443
#endif

static int tmpfs_quotactl(int fd, int cmd, uid_t uid, void *addr)
{
	/* Not QCMD(), which shifts an int: Q_SETQUOTA (0x800008) overflows it. */
	unsigned qcmd = ((unsigned)cmd << SUBCMDSHIFT) | (USRQUOTA & SUBCMDMASK);
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0)
		return -errno;
	if (sf.f_type != KN_TMPFS_MAGIC)
		return -EMEDIUMTYPE;
	if (syscall(SYS_quotactl_fd, fd, qcmd, (int)uid, addr) < 0)
		return -errno;
	return 0;
}

int kn_tmpfs_quota_state(int fd)
{
	struct dqinfo info;

	return tmpfs_quotactl(fd, Q_GETINFO, 0, &info);
}

/*
 * A limit of 0 means "no limit" to the kernel, so a huge one must never
 * wrap to 0 on the way there. Two places could wrap it: rounding bytes up
 * to 1 KiB blocks (2^64 - 1 + 1023 overflows), and the kernel turning the
 * blocks back into bytes (blocks << 10: 2^54 blocks are 0 bytes). Byte
 * limits above INT64_MAX (the largest a quota keeps, and tmpfs's own
 * maximum), and inode limits as large, are refused with -ERANGE instead:
 * the session is refused rather than given no limit.
 */
int kn_tmpfs_set_user_quota(int fd, uid_t uid, uint64_t bytes, uint64_t inodes)
{
	struct dqblk dq = {0};

	if (bytes > (uint64_t)INT64_MAX || inodes > (uint64_t)INT64_MAX)
		return -ERANGE;
	/* Hard limits only: blocks of QIF_DQBLKSIZE (1 KiB), rounded up. */
	if (bytes) {
		dq.dqb_bhardlimit = bytes / 1024 + (bytes % 1024 != 0);
		dq.dqb_valid |= QIF_BLIMITS;
	}
	if (inodes) {
		dq.dqb_ihardlimit = inodes;
		dq.dqb_valid |= QIF_ILIMITS;
	}
	return tmpfs_quotactl(fd, Q_SETQUOTA, uid, &dq);
}

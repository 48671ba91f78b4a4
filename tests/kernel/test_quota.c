/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * kn_tmpfs_set_user_quota (kernel/quota.c): the limit that reaches the
 * kernel is the one asked for, rounded up to 1 KiB blocks, and a limit too
 * large to keep is refused instead of wrapping to 0, which the kernel
 * reads as no limit at all (quota=18446744073709551615 did that).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/quota.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel.h"
#include "kt.h"

#ifndef SYS_quotactl_fd
#define SYS_quotactl_fd 443
#endif

#define Q   KT_DIR "/q"
#define UID 2001

/* A tmpfs with user quotas, opened; skipped where the kernel has none. */
static int quota_tmpfs(void)
{
	int fd;

	kt_mkdir(Q, 0755, 0, 0);
	if (mount("kt", Q, "tmpfs", 0, "usrquota") < 0)
		kt_skip("no tmpfs user quotas here (Linux 6.6, CONFIG_TMPFS_QUOTA): %s",
			strerror(errno));
	fd = open(Q, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	KT_ASSERT_MSG(fd >= 0, "open %s: %s", Q, strerror(errno));
	if (kn_tmpfs_quota_state(fd) == -ENOSYS)
		kt_skip("no quotactl_fd(2) here");
	return fd;
}

/* What the kernel keeps as uid's hard limits, read back with Q_GETQUOTA. */
static struct if_dqblk limits_of(int fd, uid_t uid)
{
	struct if_dqblk dq = {0};
	unsigned qcmd = ((unsigned)Q_GETQUOTA << SUBCMDSHIFT) | (USRQUOTA & SUBCMDMASK);

	KT_ASSERT_MSG(syscall(SYS_quotactl_fd, fd, qcmd, (int)uid, &dq) == 0, "Q_GETQUOTA: %s",
		      strerror(errno));
	return dq;
}

/* Refused before any system call: also where tmpfs keeps no quotas. */
KT_TEST(huge_limits_are_refused_on_any_kernel)
{
	int fd;

	kt_mkdir(Q, 0755, 0, 0);
	kt_tmpfs(Q, "mode=0755");
	fd = open(Q, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	KT_ASSERT_MSG(fd >= 0, "open %s: %s", Q, strerror(errno));
	KT_ASSERT_KN(kn_tmpfs_set_user_quota(fd, UID, UINT64_MAX, 0), -ERANGE);
	KT_ASSERT_KN(kn_tmpfs_set_user_quota(fd, UID, (uint64_t)INT64_MAX + 1, 0), -ERANGE);
	KT_ASSERT_KN(kn_tmpfs_set_user_quota(fd, UID, 0, UINT64_MAX), -ERANGE);
	/* a sane limit gets the kernel's answer for a tmpfs without usrquota */
	KT_ASSERT(kn_tmpfs_set_user_quota(fd, UID, 1048576, 0) != -ERANGE);
}

KT_TEST(limits_are_rounded_up_to_blocks)
{
	int fd = quota_tmpfs();

	KT_ASSERT_KN(kn_tmpfs_set_user_quota(fd, UID, 1048576 + 1, 100), 0);
	KT_ASSERT_EQ(limits_of(fd, UID).dqb_bhardlimit, 1025);
	KT_ASSERT_EQ(limits_of(fd, UID).dqb_ihardlimit, 100);
	KT_ASSERT_KN(kn_tmpfs_set_user_quota(fd, UID, 1024, 0), 0);
	KT_ASSERT_EQ(limits_of(fd, UID).dqb_bhardlimit, 1);
	/* 0: that limit unchanged */
	KT_ASSERT_EQ(limits_of(fd, UID).dqb_ihardlimit, 100);
	/* a large one that the kernel keeps: 1 PiB */
	KT_ASSERT_KN(kn_tmpfs_set_user_quota(fd, UID, 1ULL << 50, 0), 0);
	KT_ASSERT_EQ(limits_of(fd, UID).dqb_bhardlimit, 1ULL << 40);
}

KT_TEST(huge_limits_are_refused_not_wrapped)
{
	static const uint64_t huge[] = {
		UINT64_MAX,		 /* rounding up wrapped this to 0 blocks */
		UINT64_MAX - 1000,	 /* and this */
		UINT64_MAX - 2047,	 /* 2^54 blocks: the kernel's blocks << 10 wraps to 0 */
		(uint64_t)INT64_MAX + 1, /* past any quota */
	};
	int fd = quota_tmpfs();

	KT_ASSERT_KN(kn_tmpfs_set_user_quota(fd, UID, 1048576, 100), 0);
	for (size_t i = 0; i < sizeof(huge) / sizeof(huge[0]); i++) {
		struct if_dqblk dq;

		KT_ASSERT_KN(kn_tmpfs_set_user_quota(fd, UID, huge[i], 0), -ERANGE);
		KT_ASSERT_KN(kn_tmpfs_set_user_quota(fd, UID, 0, huge[i]), -ERANGE);
		/* The limits set before stay: never none. */
		dq = limits_of(fd, UID);
		KT_ASSERT_EQ(dq.dqb_bhardlimit, 1024);
		KT_ASSERT_EQ(dq.dqb_ihardlimit, 100);
	}
	/* The largest byte limit this asks for: the kernel's own answer, never "none". */
	int r = kn_tmpfs_set_user_quota(fd, UID, INT64_MAX, 0);

	kt_note("INT64_MAX bytes: %s", r ? strerror(-r) : "kept");
	KT_ASSERT(r == 0 || r == -ERANGE);
	KT_ASSERT(limits_of(fd, UID).dqb_bhardlimit != 0);
}

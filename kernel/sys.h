/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

/*
 * The newer mount and resolve API by raw system call, so that the module
 * builds against an older libc and runs on an older kernel (the probe in
 * probe.c says what is there).
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef SYS_fsopen
#define SYS_fsopen 430
#endif
#ifndef SYS_fsconfig
#define SYS_fsconfig 431
#endif
#ifndef SYS_fsmount
#define SYS_fsmount 432
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#if !defined(SYS_statx) && defined(__x86_64__)
#define SYS_statx 332
#endif

struct kn_open_how {
	uint64_t flags;
	uint64_t mode;
	uint64_t resolve;
};

/* struct statx as of Linux 5.8, which added stx_mnt_id (older headers lack it). */
struct kn_statx_timestamp {
	int64_t tv_sec;
	uint32_t tv_nsec;
	int32_t reserved;
};
struct kn_statx {
	uint32_t mask;
	uint32_t blksize;
	uint64_t attributes;
	uint32_t nlink;
	uint32_t uid;
	uint32_t gid;
	uint16_t mode;
	uint16_t spare0;
	uint64_t ino;
	uint64_t size;
	uint64_t blocks;
	uint64_t attributes_mask;
	struct kn_statx_timestamp atime, btime, ctime, mtime;
	uint32_t rdev_major, rdev_minor;
	uint32_t dev_major, dev_minor;
	uint64_t mnt_id;
	uint64_t spare[13];
};
_Static_assert(sizeof(struct kn_statx) == 256, "struct statx is 256 bytes");
#define KN_STATX_MNT_ID 0x00001000U

#define KN_RESOLVE_NO_XDEV	 0x01
#define KN_RESOLVE_NO_MAGICLINKS 0x02
#define KN_RESOLVE_NO_SYMLINKS	 0x04
#define KN_RESOLVE_BENEATH	 0x08

#define KN_OPEN_TREE_CLONE	   1
#define KN_OPEN_TREE_CLOEXEC	   02000000
#define KN_MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#define KN_MOVE_MOUNT_T_EMPTY_PATH 0x00000040
#define KN_FSOPEN_CLOEXEC	   0x00000001
#define KN_FSMOUNT_CLOEXEC	   0x00000001
#define KN_FSCONFIG_SET_FLAG	   0
#define KN_FSCONFIG_SET_STRING	   1
#define KN_FSCONFIG_CMD_CREATE	   6
#define KN_MOUNT_ATTR_RDONLY	   0x00000001
#define KN_MOUNT_ATTR_NOSUID	   0x00000002
#define KN_MOUNT_ATTR_NODEV	   0x00000004
#define KN_MOUNT_ATTR_NOEXEC	   0x00000008
#define KN_TMPFS_MAGIC		   0x01021994

/* struct mount_attr of mount_setattr(2), 5.12; MOUNT_ATTR_SIZE_VER0. */
struct kn_mount_attr {
	uint64_t attr_set;
	uint64_t attr_clr;
	uint64_t propagation;
	uint64_t userns_fd;
};

/*
 * Internal to kernel/: "/proc/thread-self/REST" into buf, or on kernels
 * before 3.17, which lack it, "/proc/self/task/TID/REST". Descriptors,
 * namespaces and the like are per thread; /proc/self is the thread-group
 * leader's.
 */
#define KN_PROC_PATH_MAX 64
void kn_thread_self_path(char buf[KN_PROC_PATH_MAX], const char *rest);

/* Internal to kernel/ (path.c): the ID of the mount fd is on, 0 if it cannot be had. */
uint64_t kn_mount_id_of(int fd);
/*
 * Internal (path.c): opening name with O_DIRECTORY|O_NOFOLLOW failed with
 * err; -ELOOP for a link, -ENOTDIR for another non-directory, else -err.
 */
int kn_not_a_dir_error(int dirfd, const char *name, int err);
/* Internal (lock.c): CLOCK_MONOTONIC in nanoseconds. */
long long kn_now_ns(void);

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#define KN_PIDFD_THREAD		   O_EXCL
#define KN_PIDFD_GET_MNT_NAMESPACE _IO(0xFF, 3)

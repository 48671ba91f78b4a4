/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

/*
 * kernel/: the unshare mechanism and descriptor-based path and mount
 * primitives. Every function returns 0 (or a descriptor) on success and a
 * negative errno on failure; out-parameters are written only on success.
 * Nothing here logs or knows about PAM.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

struct kn_features {
	bool openat2;
	bool open_tree; /* open_tree + move_mount */
	bool fsopen;	/* fsopen + fsconfig + fsmount */
	bool mount_setattr;
};

/*
 * Probed once per process; a seccomp filter returning ENOSYS turns them off.
 * For tests and tools that need the full answer: the module itself only
 * uses kn_feature_try() below, which costs no system call.
 */
const struct kn_features *kn_features(void);
/* For tests: pretend the newer calls are missing. */
void kn_features_disable_all(void);

/*
 * Without the probe's system calls: whether a call is worth trying. Each is
 * tried until it answers ENOSYS once (kn_feature_lost), then the fallback
 * is used for the rest of the process; after kn_features(), its answer.
 */
enum kn_feature {
	KN_FEATURE_OPENAT2,
	KN_FEATURE_OPEN_TREE,
	KN_FEATURE_FSOPEN,
	KN_FEATURE_MOUNT_SETATTR,
	_KN_FEATURE_MAX,
};
bool kn_feature_try(enum kn_feature f);
void kn_feature_lost(enum kn_feature f);

/* --- namespaces (ns.c) --- */

enum kn_propagation {
	KN_PROPAGATION_SLAVE, /* default: the caller's mounts still reach us, ours never reach it */
	KN_PROPAGATION_PRIVATE, /* mount_private */
};

/*
 * What a process needs to come back to where it was: its mount namespace,
 * and its root and working directory, which setns() resets.
 */
struct kn_ns_saved {
	int ns_fd;
	int root_fd;
	int cwd_fd;
};
#define KN_NS_SAVED_INIT                                                                           \
	{                                                                                          \
		.ns_fd = -1, .root_fd = -1, .cwd_fd = -1                                           \
	}

int kn_ns_save(struct kn_ns_saved *ret);
/* unshare(CLONE_NEWNS) then make / recursively slave (or private). */
int kn_ns_enter_new(enum kn_propagation prop);
/*
 * Go back into the saved namespace, root and working directory, from
 * wherever the caller is: in another namespace, or in the saved one with
 * root or working directory moved. A caller left as saved is not touched.
 */
int kn_ns_restore(const struct kn_ns_saved *saved);
/*
 * The same for a caller that knows it is in another namespace: no check
 * of where it is first (the check costs a fresh process six system calls).
 */
int kn_ns_return(const struct kn_ns_saved *saved);
void kn_ns_saved_close(struct kn_ns_saved *saved);
/*
 * setns() into a mount namespace, from a threaded caller too: the calling
 * thread's root, working directory and umask become its own copy first
 * (unshare(CLONE_FS)), then root and working directory the namespace's
 * root. On failure the thread is in the namespace it was, at the same
 * root and working directory.
 */
int kn_ns_join(int ns_fd);
/* Whether two namespace descriptors (or the current one, fd -1) are the same namespace. */
int kn_ns_same(int ns_fd_a, int ns_fd_b);

/* --- paths (path.c) --- */

/*
 * Open an existing directory by absolute path, safely: symlinks are
 * followed only while every directory so far is root-owned and not
 * group/other writable; below the first directory that is not, no symlink
 * is followed (ELOOP). Returns an O_PATH|O_DIRECTORY descriptor, or a
 * negative errno. If ret_trusted is given, it says whether the directory
 * and every directory above it are trusted in that sense.
 */
int kn_open_dir(const char *path, bool *ret_trusted);

/*
 * Same, for the parent of path: returns its descriptor and points
 * *ret_name at the last component inside path (no allocation).
 */
int kn_open_parent(const char *path, const char **ret_name, bool *ret_trusted);

/*
 * 1 if every directory above the last component of path is root-owned and
 * not writable by group or others, a root-owned sticky directory such as
 * /tmp being fine; 0 if not; a negative errno if path cannot be resolved.
 */
int kn_path_parents_safe(const char *path);

/*
 * A directory held during a series of walks, so that each need not open
 * "/" and the components it shares with an earlier one again: its
 * descriptor, its fstat, and whether it and every directory above it are
 * trusted as kn_open_dir() says.
 */
struct kn_dir {
	int fd;
	struct stat st;
	bool trusted;
	bool parent_trusted; /* every directory above it */
};
#define KN_DIR_INIT                                                                                \
	{                                                                                          \
		.fd = -1                                                                           \
	}
/* "/" of the calling process, held; after an unshare or chroot, open it again. */
int kn_dir_open_root(struct kn_dir *ret);
/*
 * The same for another root held by its path, e.g. "/proc/1/root": process
 * 1's "/", in its mount namespace, for walks that must not leave the
 * caller's. Trusted as "/" is: the path must be one the caller trusts.
 */
int kn_dir_open_root_at(const char *path, struct kn_dir *ret);
/* fd (kept by the caller) with its fstat; trusted if parent_trusted and it is itself. */
int kn_dir_from_fd(int fd, bool parent_trusted, struct kn_dir *ret);
void kn_dir_close(struct kn_dir *d);

/*
 * kn_open_dir() and kn_open_parent() with the walk starting at root
 * instead of a new open("/"), or, when path lies below base_path (whole
 * components) and every directory above base is trusted, at base: the
 * directory that walking base_path gave. Either way the walk takes the
 * steps that the walk from "/" would take after those it saves; mounts
 * made on directories below root or base meanwhile are crossed as by any
 * lookup. Neither descriptor is closed.
 */
int kn_open_dir_from(const struct kn_dir *root, const struct kn_dir *base, const char *base_path,
		     const char *path, bool *ret_trusted);
int kn_open_parent_from(const struct kn_dir *root, const char *path, const char **ret_name,
			bool *ret_trusted);
/*
 * kn_open_dir_from() with the directory opened for reading (O_RDONLY) where
 * the walk's identity may read it, so that it can be locked; *ret_readable
 * says whether it was, else it is O_PATH as kn_open_dir_from() gives it.
 */
int kn_open_dir_readable_from(const struct kn_dir *root, const struct kn_dir *base,
			      const char *base_path, const char *path, bool *ret_readable);

/* Open name under dirfd as a directory, never following a symlink. */
int kn_open_child_dir(int dirfd, const char *name);

/*
 * mkdirat(dirfd, name) then open it without following links, set owner and
 * mode on the descriptor (chown before chmod, so set-id bits survive).
 * Returns the descriptor, -EEXIST if it already existed. When a step after
 * mkdirat fails, the directory it made is removed again before the error
 * is returned.
 */
int kn_mkdir_child(int dirfd, const char *name, mode_t mode, uid_t uid, gid_t gid);

/*
 * kn_mkdir_child in two steps, for a caller that finishes the directory
 * (its SELinux label) before anyone may find it: kn_mkdir_staged makes it
 * under a staged name (KN_STAGED_PREFIX and random letters, *ret_staged to
 * free) with its owner and mode, and returns its descriptor;
 * kn_publish_child renames it to name, never over an existing entry
 * (-EEXIST: another process made name first), and removes the staged
 * directory when it fails. A process killed in between leaves an empty
 * staged directory, never a half-made one under name; kn_remove_staged
 * removes every empty staged directory in dirfd (the helper, at boot).
 */
#define KN_STAGED_PREFIX ".pam_namespace-new."
int kn_mkdir_staged(int dirfd, mode_t mode, uid_t uid, gid_t gid, char **ret_staged);
int kn_publish_child(int dirfd, const char *staged, const char *name);
int kn_remove_staged(int dirfd);

/* rmdir name under dirfd, as the directory's owner when that is not root. */
int kn_remove_child_dir(int dirfd, const char *name);

/*
 * Follow root-owned symlinks at the end of path and stat the file they
 * lead to, without opening it. Returns 1 if every directory on the way is
 * root-owned and not writable by group or others (sticky excepted) and
 * every symlink followed is root-owned, 0 if not, a negative errno on
 * failure; *ret_real (the path reached, to free) and *ret_st are set when
 * it returns >= 0.
 */
int kn_stat_trusted_path(const char *path, char **ret_real, struct stat *ret_st);

/*
 * Call fn for each name in the directory open on dirfd ("." and ".."
 * left out), read with getdents64() into a buffer on the stack: no
 * fdopendir(), whose fstat, fcntl calls and 32 KiB buffer a session would
 * pay for every listing. fn returns 0 to go on, > 0 to stop (returned),
 * < 0 an error (returned). dirfd stays open, at an unspecified offset.
 */
int kn_dir_each(int dirfd, int (*fn)(const char *name, void *ud), void *ud);

/* --- removing a tree (remove.c) --- */

/* A deadline for kn_remove_tree: ms milliseconds from now, on CLOCK_MONOTONIC. */
uint64_t kn_deadline_after_ms(unsigned ms);

/*
 * Remove name under dirfd and everything below it, never following a
 * symlink or crossing a mount, each unlink, rmdir and rename as the owner
 * of the directory it changes. Any depth and width; iterative, with a
 * bounded number of descriptors. Stops at deadline (kn_deadline_after_ms)
 * with -ETIMEDOUT, leaving what is left in place, also while the tree's
 * owner keeps changing it. -EBUSY: a mount below is left; -ELOOP,
 * -ENOTDIR: name is not a directory.
 */
int kn_remove_tree(int dirfd, const char *name, uint64_t deadline);

/* Whether the directory is root-owned and not writable by group or others. */
int kn_fd_is_trusted(int fd, bool allow_sticky);

/* --- mounts (mount.c) --- */

/* Bind the directory src_fd over dst_fd. */
int kn_bind_fd(int src_fd, int dst_fd);
/*
 * Bind src_fd over dst_fd with the mount flags ms_flags (MS_NOSUID,
 * MS_NODEV, MS_NOEXEC, MS_RDONLY) set on the new mount before it is
 * attached (mount_setattr), or, before 5.12, by a remount of it right after.
 * Returns an O_PATH descriptor of the new mount's root, through which
 * mounts below it can be made. Flags only ever add to those the bind
 * inherits.
 */
int kn_bind_fd_open(int src_fd, int dst_fd, unsigned long ms_flags);
/*
 * Mount a fresh tmpfs over dst_fd with options opts (may be NULL) and MS_*
 * flags. opts is comma-separated; a ',' or a backslash inside an option is
 * written with a backslash before it.
 */
int kn_tmpfs_fd(int dst_fd, const char *opts, unsigned long ms_flags);
/* The same, returning an O_PATH descriptor of the tmpfs's root. */
int kn_tmpfs_fd_open(int dst_fd, const char *opts, unsigned long ms_flags);
/* Lazily unmount whatever is mounted on path (path resolved safely first). */
int kn_umount_path(const char *path);

/* --- tmpfs user quotas (quota.c) --- */

/*
 * Whether the filesystem of fd, a tmpfs, keeps user quotas: 0 if so;
 * -EMEDIUMTYPE if it is not a tmpfs; -ESRCH if mounted without usrquota;
 * -ENOSYS if the kernel has no quotactl_fd (5.14) or no tmpfs quotas (6.6,
 * CONFIG_TMPFS_QUOTA).
 */
int kn_tmpfs_quota_state(int fd);
/*
 * Set uid's hard limits there (0: that limit unchanged); errors as above,
 * and -ERANGE for a limit the kernel cannot keep (never "no limit").
 */
int kn_tmpfs_set_user_quota(int fd, uid_t uid, uint64_t bytes, uint64_t inodes);

/* --- pinned namespaces (pin.c), for share_namespace --- */

/* The calling thread's mount namespace, opened (O_CLOEXEC), as kn_ns_save() opens it. */
int kn_ns_open_own(void);
/* The mount namespace of process pid (pidfd and PIDFD_GET_MNT_NAMESPACE, else /proc). */
int kn_ns_open_pid(pid_t pid);
/* 0 if fd is a mount namespace (nsfs, NS_GET_NSTYPE), with its fstat; -EMEDIUMTYPE if not. */
int kn_ns_check_mnt(int fd, struct stat *ret_st);
/* 1 if fd is the root of a mount, 0 if not, -EOPNOTSUPP where statx cannot tell. */
int kn_is_mount_root(int fd);
/*
 * Bind the directory dirfd onto itself unless it is a mount root already:
 * 1 if it was one, 0 if bound now (open it again to reach the new mount).
 */
int kn_dir_make_private_mount(int dirfd);
/* Private propagation for the mount whose root dirfd is. */
int kn_mount_make_private(int dirfd);
/*
 * Create name (0600) under dirfd and bind the namespace ns_fd on it; the
 * pinned namespace's fstat into *ret_st. Nothing is left on failure.
 */
int kn_pin_ns(int ns_fd, int dirfd, const char *name, struct stat *ret_st);
/* Open a pin without following links; only a mount namespace is returned. */
int kn_pin_open(int dirfd, const char *name, struct stat *ret_st);
/* Unmount the pin (from the namespace that holds it) and remove its file. */
int kn_unpin_ns(int dirfd, const char *name);
/*
 * The pidfs inode number of process pid (6.9): unique until reboot. -ESRCH
 * if there is no such process (also where 6.9 to 6.14 say EINVAL: a pid
 * kept only as a session or group id), -EOPNOTSUPP on older kernels. With
 * known_pidfs (an inode read by this call before, in this boot) the file
 * system is not asked again.
 */
int kn_pid_inode(pid_t pid, bool known_pidfs, unsigned long long *ret);
/*
 * The start time of process pid (field 22 of /proc/PID/stat, in clock
 * ticks since boot): with the pid, who the process is, on any kernel.
 * -ENOENT if there is no such process; -EIO for a line that cannot be read.
 */
int kn_pid_starttime(pid_t pid, unsigned long long *ret);

/* --- which names mounts use (mntuse.c) --- */

/* kn_mounts_using may fork a child that setns()es into a namespace no task shows. */
#define KN_MNTUSE_ENTER 0x1u

/* The namespaces that could not be looked into. */
struct kn_mntuse_unseen {
	unsigned n;
	char first[160]; /* the first of them: its path and why */
};

/*
 * For each of names[0..n) (directory names), whether it is a whole path
 * component of the root of some mount, in any mount namespace: every
 * task's, read from its mountinfo; then those only a descriptor of a
 * process (/proc/PID/fd) or an nsfs bind mount in the caller's namespace
 * (a pin) holds, looked into from a forked child with KN_MNTUSE_ENTER,
 * otherwise counted in *ret_unseen (no fork: a threaded caller's child may
 * not even malloc). With ret_unseen->n > 0 a name not marked may still be
 * mounted there: the caller keeps every name. A name that mountinfo would
 * escape (blank, backslash) or with a '/' is marked used. ret_used (n
 * bools) and *ret_unseen are written on success; 0 or a negative errno.
 */
int kn_mounts_using(const char *const *names, size_t n, unsigned flags, bool *ret_used,
		    struct kn_mntuse_unseen *ret_unseen);

/* --- locks (lock.c) --- */

/*
 * flock(fd, op) for op LOCK_EX or LOCK_SH, waiting at most timeout_ms
 * (0: a single try): 0 once held, -ETIMEDOUT if another holder kept it
 * that long, -EINVAL for another op, else -errno. Polls with LOCK_NB and a
 * short backoff; no signal, timer or thread is used, so the caller's signal
 * state and alarm() are left as they were.
 */
int kn_flock_timeout(int fd, int op, unsigned timeout_ms);

/* --- reopening (reopen.c) --- */

/*
 * The directory held by fd (often O_PATH, on which fchmod, fchown, the
 * xattr calls and flock fail with EBADF) opened again with flags (e.g.
 * O_RDONLY), checked to be the same inode: a new descriptor, or a
 * negative errno (-ESTALE if it is not the same).
 */
int kn_reopen_dir(int fd, int flags);
/* The same for a descriptor whose fstat the caller has already (st). */
int kn_reopen_dir_as(int fd, int flags, const struct stat *st);

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * "The rules' calls": the system calls this module makes in a plain
 * session (tests/integration/test_syscalls.sh's: /tmp and /var/tmp,
 * user:noinit, excluded root, the instances there already), made in the
 * same order with the same paths and flags, and nothing else: no parsing,
 * no plan, no checks of what the calls return beyond success, no logging.
 *
 * It answers one question of issue 34: what would a module take that kept
 * every rule this one keeps (each call below is listed with its rule in
 * tests/README.md) and spent no time at all between its calls? Against the
 * floor (six calls, no rule kept) and Linux-PAM's module in the same rounds,
 * that is the least this set of calls allows on the machine at hand. The
 * calls are the module's as strace shows them; test_syscalls.sh compares
 * the two lists, call by call, so that a change to the module that this
 * file does not follow fails there.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"

#ifndef NS_VENDOR_NSD
#define NS_VENDOR_NSD "/usr/share/pam/security/namespace.d"
#endif

#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#define MOVE_MOUNT_T_EMPTY_PATH 0x00000040
#endif

/* The lookup through NSS, as pam_modutil_getpwnam() makes it. */
static int lookup(const char *name)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	return getpwnam_r(name, &pw, buf, sizeof(buf), &res) == 0 && res ? 0 : -1;
}

/* The configuration, its three directories, namespace.d and the vendor probe. */
static int read_config(void)
{
	char buf[4096], dents[4096];
	struct stat st;
	long n;
	int fd = open("/etc/security/namespace.conf",
		      O_RDONLY | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0 || stat("/etc/security", &st) < 0 ||
	    stat("/etc", &st) < 0 || stat("/", &st) < 0 || read(fd, buf, sizeof(buf)) < 0)
		return -1;
	close(fd);
	fd = open("/etc/security/namespace.d", O_RDONLY | O_CLOEXEC | O_DIRECTORY);
	if (fd < 0)
		return -1;
	while ((n = syscall(SYS_getdents64, fd, dents, sizeof(dents))) > 0)
		;
	close(fd);
	if (n < 0)
		return -1;
	fd = open(NS_VENDOR_NSD, O_RDONLY | O_CLOEXEC | O_DIRECTORY);
	if (fd >= 0)
		close(fd);
	return 0;
}

/* O_PATH descriptor of a directory under dirfd, no link followed. */
static int open_path(int dirfd, const char *name)
{
	return openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_PATH | O_DIRECTORY);
}

/*
 * One polydir: walked from / component by component, each checked; the
 * instance parent opened beneath it and checked, locked, the instance
 * opened by its name, cloned and moved onto the polydir, then checked.
 */
static int bind_one(int root, const char *polydir, const char *instance)
{
	char walk[256], *save = NULL, *comp;
	const char *rel = instance + strlen(polydir) + 1, *slash = strrchr(instance, '/');
	char parent_rel[256], user[128];
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_DIRECTORY,
		.resolve = RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH,
	};
	struct stat st;
	int pfd = root, next, par, ifd, mfd;

	snprintf(walk, sizeof(walk), "%s", polydir + 1);
	snprintf(parent_rel, sizeof(parent_rel), "%.*s", (int)(slash - rel), rel);
	snprintf(user, sizeof(user), "%s", slash + 1);
	for (comp = strtok_r(walk, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		next = open_path(pfd, comp);
		if (next < 0)
			return -1;
		if (pfd == root) {
			if (fstat(next, &st) < 0)
				return -1;
		} else {
			close(pfd);
		}
		pfd = next;
	}
	if (strchr(polydir + 1, '/') && fstat(pfd, &st) < 0)
		return -1;
	par = (int)syscall(SYS_openat2, pfd, parent_rel, &how, sizeof(how));
	if (par < 0 || fstat(par, &st) < 0 || flock(par, LOCK_SH | LOCK_NB) < 0)
		return -1;
	ifd = open_path(par, user);
	close(par);
	if (ifd < 0)
		return -1;
	mfd = (int)syscall(SYS_open_tree, ifd, "", OPEN_TREE_CLONE | O_CLOEXEC | AT_EMPTY_PATH);
	if (mfd < 0 || syscall(SYS_move_mount, mfd, "", pfd, "",
			       MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return -1;
	close(mfd);
	if (fstat(ifd, &st) < 0)
		return -1;
	close(ifd);
	close(pfd);
	return 0;
}

int rules_session(const struct contestant *c)
{
	char cwd[4096];
	struct statx stx;
	struct stat st;
	int ns, saved_root, saved_cwd, root;

	if (lookup(c->user) < 0 || read_config() < 0 || lookup("root") < 0)
		return -1;
	/* "Once per login": the polydir and the instance, by inode. */
	if (statx(AT_FDCWD, c->polydirs[0], AT_STATX_SYNC_AS_STAT | AT_SYMLINK_NOFOLLOW, STATX_INO,
		  &stx) < 0 ||
	    statx(AT_FDCWD, c->instances[0], AT_STATX_SYNC_AS_STAT, STATX_INO, &stx) < 0)
		return -1;
	/* What a failed session goes back to. */
	ns = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	saved_root = open("/", O_RDONLY | O_CLOEXEC | O_PATH | O_DIRECTORY);
	saved_cwd = open(".", O_RDONLY | O_CLOEXEC | O_PATH | O_DIRECTORY);
	if (ns < 0 || saved_root < 0 || saved_cwd < 0 || !getcwd(cwd, sizeof(cwd)))
		return -1;
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
		return -1;
	root = open("/", O_RDONLY | O_CLOEXEC | O_PATH | O_DIRECTORY);
	if (root < 0 || fstat(root, &st) < 0)
		return -1;
	for (size_t i = 0; i < c->n_dirs; i++)
		if (bind_one(root, c->polydirs[i], c->instances[i]) < 0)
			return -1;
	close(root);
	close(ns);
	close(saved_root);
	close(saved_cwd);
	return 0;
}

/*
 * One session's worth, in this process, between the markers pam_driver
 * --markers makes (access() of paths that do not exist), so that
 * test_syscalls.sh can set the list beside the module's. The user is looked
 * up first, as pam_driver --lookup does. The process leaves its namespace:
 * only for the sandbox, and only once.
 */
int run_rules_once(const struct contestant *c)
{
	int r;

	if (!getpwnam(c->user))
		die("rules-once: no user %s", c->user);
	(void)access("/ns-fault-mark/open", F_OK);
	r = rules_session(c) < 0 ? errno : 0;
	(void)access("/ns-fault-mark/opened", F_OK);
	if (r)
		die("rules-once: a call failed: %s", strerror(r));
	return 0;
}

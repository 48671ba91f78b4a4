/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * kernel/'s API on the running kernel: saving and restoring the caller's
 * namespace, the descriptor-based resolve, create, mount, unmount and
 * remove primitives, and the feature probe. Run with --deny (see meson),
 * the same tests go through every fallback, because a seccomp filter makes
 * the newer system calls fail with ENOSYS.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel.h"
#include "kt.h"

#define A KT_DIR "/a"
#define U KT_DIR "/u" /* owned by a user */

static struct stat stat_of(const char *path)
{
	struct stat st;

	KT_ASSERT_MSG(lstat(path, &st) == 0, "stat %s: %s", path, strerror(errno));
	return st;
}

static void assert_fd_is(int fd, const char *path)
{
	struct stat a, b = stat_of(path);

	KT_ASSERT_MSG(fd >= 0, "expected a descriptor for %s, got %d (%s)", path, fd,
		      fd < 0 ? strerror(-fd) : "");
	KT_ASSERT_OK(fstat(fd, &a));
	KT_ASSERT_MSG(a.st_dev == b.st_dev && a.st_ino == b.st_ino, "descriptor is not %s", path);
}

/* The usual tree: a/b root-owned 0755, u owned by uid 1000 with u/x/y. */
static void tree(void)
{
	kt_mkdir(A, 0755, 0, 0);
	kt_mkdir(A "/b", 0755, 0, 0);
	kt_mkdir(U, 0755, 1000, 1000);
	kt_mkdir(U "/x", 0755, 1000, 1000);
	kt_mkdir(U "/x/y", 0755, 1000, 1000);
}

static char *cwd_now(void)
{
	char *c = getcwd(NULL, 0);

	KT_ASSERT_MSG(c, "getcwd: %s", strerror(errno));
	return c;
}

/* ---- the probe ---- */

KT_TEST(features_match_the_filter)
{
	const struct kn_features *f = kn_features();
	bool tree_calls = !kt_denied("open_tree") && !kt_denied("move_mount");

	kt_note("openat2=%d open_tree=%d fsopen=%d mount_setattr=%d", f->openat2, f->open_tree,
		f->fsopen, f->mount_setattr);
	KT_ASSERT_EQ(f->openat2, !kt_denied("openat2"));
	KT_ASSERT_EQ(f->open_tree, tree_calls);
	KT_ASSERT_EQ(f->fsopen, tree_calls && !kt_denied("fsopen") && !kt_denied("fsconfig") &&
					!kt_denied("fsmount"));
	KT_ASSERT_EQ(f->mount_setattr, !kt_denied("mount_setattr"));
}

/* The filter itself: the denied calls answer ENOSYS, as on a kernel without them. */
KT_TEST(filter_answers_enosys)
{
	static const struct {
		const char *name;
		long nr;
	} calls[] = {{"open_tree", 428},     {"move_mount", 429}, {"fsopen", 430},
		     {"fsconfig", 431},	     {"fsmount", 432},	  {"openat2", 437},
		     {"mount_setattr", 442}, {"statx", SYS_statx}};

	if (!kt_any_denied())
		kt_skip("no filter in this run");
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		long r = syscall(calls[i].nr, -1, NULL, 0, 0, 0);
		int e = errno;

		if (kt_denied(calls[i].name))
			KT_ASSERT_MSG(r == -1 && e == ENOSYS, "%s: %ld %s", calls[i].name, r,
				      strerror(e));
		else
			KT_ASSERT_MSG(!(r == -1 && e == ENOSYS), "%s answered ENOSYS",
				      calls[i].name);
	}
}

/* ---- namespaces ---- */

KT_TEST(save_enter_restore_round_trip)
{
	struct kn_ns_saved saved = KN_NS_SAVED_INIT;
	struct stat root0 = stat_of("/"), root1;
	ino_t ns0 = kt_self_ns();
	char *cwd;

	tree();
	kt_mkdir(KT_DIR "/m", 0755, 0, 0);
	KT_ASSERT_OK(chdir(A "/b"));
	KT_ASSERT_KN(kn_ns_save(&saved), 0);
	KT_ASSERT_KN(kn_ns_enter_new(KN_PROPAGATION_SLAVE), 0);
	KT_ASSERT(kt_self_ns() != ns0);
	KT_ASSERT_KN(kn_ns_same(saved.ns_fd, -1), 0);
	kt_tmpfs(KT_DIR "/m", NULL);
	KT_ASSERT_OK(chdir(KT_DIR "/m"));

	KT_ASSERT_KN(kn_ns_restore(&saved), 0);
	KT_ASSERT_EQ(kt_self_ns(), ns0);
	KT_ASSERT_KN(kn_ns_same(saved.ns_fd, -1), 1);
	KT_ASSERT_MSG(!kt_mount_at(KT_DIR "/m"), "the new namespace's mount is still visible");
	cwd = cwd_now();
	KT_ASSERT_MSG(strcmp(cwd, A "/b") == 0, "cwd is %s", cwd);
	free(cwd);
	root1 = stat_of("/");
	KT_ASSERT(root0.st_dev == root1.st_dev && root0.st_ino == root1.st_ino);
	kn_ns_saved_close(&saved);
	KT_ASSERT_EQ(saved.ns_fd, -1);
}

/* Restoring without having entered anything is a no-op, also for a multithreaded caller. */
static void *idle_thread(void *p)
{
	pause();
	return NULL;
}

KT_TEST(restore_without_enter_is_a_no_op)
{
	struct kn_ns_saved saved = KN_NS_SAVED_INIT;
	ino_t ns0 = kt_self_ns();
	pthread_t t;
	char *cwd;

	tree();
	KT_ASSERT_OK(chdir(A));
	/* A second thread shares fs_struct: setns(CLONE_NEWNS) would say EINVAL. */
	KT_ASSERT_EQ(pthread_create(&t, NULL, idle_thread, NULL), 0);
	KT_ASSERT_KN(kn_ns_save(&saved), 0);
	KT_ASSERT_KN(kn_ns_restore(&saved), 0);
	KT_ASSERT_EQ(kt_self_ns(), ns0);
	cwd = cwd_now();
	KT_ASSERT_MSG(strcmp(cwd, A) == 0, "cwd is %s", cwd);
	free(cwd);
	kn_ns_saved_close(&saved);
}

/* setns() resets root to the namespace's: a chrooted caller must get its chroot back. */
KT_TEST(restore_keeps_a_chroot)
{
	struct kn_ns_saved saved = KN_NS_SAVED_INIT;
	struct stat jail, root;

	kt_mkdir(KT_DIR "/jail", 0755, 0, 0);
	/* A mount point, so that / inside can be made slave. */
	KT_ASSERT_OK(mount(KT_DIR "/jail", KT_DIR "/jail", NULL, MS_BIND, NULL));
	kt_mkdir(KT_DIR "/jail/proc", 0555, 0, 0);
	kt_mkdir(KT_DIR "/jail/tmp", 0755, 0, 0);
	KT_ASSERT_OK(mount("/proc", KT_DIR "/jail/proc", NULL, MS_BIND | MS_REC, NULL));
	jail = stat_of(KT_DIR "/jail");
	KT_ASSERT_OK(chroot(KT_DIR "/jail"));
	KT_ASSERT_OK(chdir("/tmp"));

	KT_ASSERT_KN(kn_ns_save(&saved), 0);
	KT_ASSERT_KN(kn_ns_enter_new(KN_PROPAGATION_SLAVE), 0);
	KT_ASSERT_KN(kn_ns_restore(&saved), 0);
	root = stat_of("/");
	KT_ASSERT_MSG(root.st_dev == jail.st_dev && root.st_ino == jail.st_ino,
		      "root is no longer the chroot");
	KT_ASSERT(kt_exists("/tmp") && !kt_exists(KT_DIR "/jail"));
	kn_ns_saved_close(&saved);
}

/*
 * In a chroot whose root is not a mount point, / cannot be made slave
 * (EINVAL): kn_ns_enter_new fails closed, and restore still brings the
 * caller back.
 */
KT_TEST(enter_new_in_a_plain_chroot_fails_closed)
{
	struct kn_ns_saved saved = KN_NS_SAVED_INIT;
	int r;

	kt_mkdir(KT_DIR "/jail", 0755, 0, 0);
	kt_mkdir(KT_DIR "/jail/proc", 0555, 0, 0);
	KT_ASSERT_OK(mount("/proc", KT_DIR "/jail/proc", NULL, MS_BIND | MS_REC, NULL));
	KT_ASSERT_OK(chroot(KT_DIR "/jail"));
	KT_ASSERT_OK(chdir("/"));
	KT_ASSERT_KN(kn_ns_save(&saved), 0);
	r = kn_ns_enter_new(KN_PROPAGATION_SLAVE);
	KT_ASSERT_KN(r, -EINVAL);
	KT_ASSERT_KN(kn_ns_restore(&saved), 0);
	KT_ASSERT_KN(kn_ns_same(saved.ns_fd, -1), 1);
	kn_ns_saved_close(&saved);
}

static bool any_propagation(const char *tag)
{
	FILE *f = fopen("/proc/thread-self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	bool found = false;

	KT_ASSERT(f);
	while (getline(&line, &cap, f) > 0) {
		char *sep = strstr(line, " - ");

		if (sep)
			*sep = '\0';
		if (strstr(line, tag))
			found = true;
	}
	free(line);
	fclose(f);
	return found;
}

/*
 * The caller's namespace is held open, as the module holds it: a namespace
 * whose last reference goes is torn down, its mounts leave their peer
 * groups, and the copies would become private instead of slave.
 */
KT_TEST(enter_new_slave_makes_every_mount_a_slave)
{
	struct kn_ns_saved saved = KN_NS_SAVED_INIT;

	KT_ASSERT_OK(mount(NULL, "/", NULL, MS_REC | MS_SHARED, NULL));
	KT_ASSERT(any_propagation(" shared:"));
	KT_ASSERT_KN(kn_ns_save(&saved), 0);
	KT_ASSERT_KN(kn_ns_enter_new(KN_PROPAGATION_SLAVE), 0);
	KT_ASSERT_MSG(!any_propagation(" shared:"), "a mount is still shared");
	KT_ASSERT(any_propagation(" master:"));
	kn_ns_saved_close(&saved);
}

KT_TEST(enter_new_private_cuts_all_propagation)
{
	KT_ASSERT_OK(mount(NULL, "/", NULL, MS_REC | MS_SHARED, NULL));
	KT_ASSERT_KN(kn_ns_enter_new(KN_PROPAGATION_PRIVATE), 0);
	KT_ASSERT(!any_propagation(" shared:") && !any_propagation(" master:"));
}

struct thread_case {
	bool own_ns_first; /* the thread unshares on its own before the session */
	ino_t own_before, inside, after_restore;
	int r_save, r_enter, r_restore, r_unshare;
	char *cwd_after;
};

/* A session in a second thread: save, enter, mount, restore. */
static void *save_restore_thread(void *p)
{
	struct thread_case *c = p;
	struct kn_ns_saved saved = KN_NS_SAVED_INIT;

	if (c->own_ns_first)
		c->r_unshare = unshare(CLONE_NEWNS) < 0 ? -errno : 0;
	c->own_before = kt_self_ns();
	c->r_save = kn_ns_save(&saved);
	c->r_enter = kn_ns_enter_new(KN_PROPAGATION_SLAVE);
	c->inside = kt_self_ns();
	if (c->r_enter == 0)
		kt_tmpfs(KT_DIR "/m", NULL);
	c->r_restore = kn_ns_restore(&saved);
	c->after_restore = kt_self_ns();
	c->cwd_after = getcwd(NULL, 0);
	kn_ns_saved_close(&saved);
	return NULL;
}

/*
 * Save and restore work on the calling thread's namespace, which in a
 * multithreaded program need not be the thread-group leader's (what
 * /proc/self shows).
 */
KT_TEST(save_restore_from_a_thread_with_its_own_namespace)
{
	struct thread_case c = {.own_ns_first = true};
	ino_t leader = kt_self_ns();
	pthread_t t;

	kt_mkdir(KT_DIR "/m", 0755, 0, 0);
	KT_ASSERT_EQ(pthread_create(&t, NULL, save_restore_thread, &c), 0);
	KT_ASSERT_EQ(pthread_join(t, NULL), 0);
	KT_ASSERT_KN(c.r_unshare, 0);
	KT_ASSERT_KN(c.r_save, 0);
	KT_ASSERT_KN(c.r_enter, 0);
	KT_ASSERT_KN(c.r_restore, 0);
	KT_ASSERT(c.own_before != leader);
	KT_ASSERT_MSG(c.after_restore == c.own_before,
		      "the thread came back to ns %lu, not its own %lu (leader %lu)",
		      (unsigned long)c.after_restore, (unsigned long)c.own_before,
		      (unsigned long)leader);
	KT_ASSERT_EQ(kt_self_ns(), leader);
	free(c.cwd_after);
}

KT_TEST(ns_same)
{
	int self = open("/proc/thread-self/ns/mnt", O_RDONLY | O_CLOEXEC);
	int init = open("/proc/1/ns/mnt", O_RDONLY | O_CLOEXEC);

	KT_ASSERT_OK(self);
	KT_ASSERT_KN(kn_ns_same(-1, -1), 1);
	KT_ASSERT_KN(kn_ns_same(self, -1), 1);
	if (init >= 0) {
		/* The sandbox is not init's namespace. */
		KT_ASSERT_KN(kn_ns_same(init, self), 0);
		close(init);
	}
	close(self);
}

/* ---- kn_open_dir and friends ---- */

KT_TEST(open_dir_trusted_chain)
{
	bool trusted = false;
	int fd;

	tree();
	fd = kn_open_dir(A "/b", &trusted);
	assert_fd_is(fd, A "/b");
	KT_ASSERT(trusted);
	close(fd);
	fd = kn_open_dir("/", &trusted);
	assert_fd_is(fd, "/");
	close(fd);
	fd = kn_open_dir(KT_DIR "//a/./b/", NULL);
	assert_fd_is(fd, A "/b");
	close(fd);
}

KT_TEST(open_dir_follows_root_symlinks_in_root_dirs)
{
	bool trusted = false;
	int fd;

	tree();
	kt_symlink("a", KT_DIR "/rel", 0);
	kt_symlink(A, KT_DIR "/abs", 0);
	kt_symlink("..", A "/up", 0);
	kt_symlink("rel", KT_DIR "/chain", 0);

	fd = kn_open_dir(KT_DIR "/rel/b", &trusted);
	assert_fd_is(fd, A "/b");
	KT_ASSERT(trusted);
	close(fd);
	fd = kn_open_dir(KT_DIR "/abs/b", NULL);
	assert_fd_is(fd, A "/b");
	close(fd);
	fd = kn_open_dir(A "/up/a/b", NULL);
	assert_fd_is(fd, A "/b");
	close(fd);
	fd = kn_open_dir(KT_DIR "/chain", NULL);
	assert_fd_is(fd, A);
	close(fd);
	fd = kn_open_dir(A "/../a/b", NULL);
	assert_fd_is(fd, A "/b");
	close(fd);
}

/* A root-owned link into a user's directory is followed; links beyond that point are not. */
KT_TEST(open_dir_root_link_into_user_dir)
{
	bool trusted = true;
	int fd;

	tree();
	kt_symlink(U "/x", KT_DIR "/via", 0);
	fd = kn_open_dir(KT_DIR "/via/y", &trusted);
	assert_fd_is(fd, U "/x/y");
	KT_ASSERT(!trusted);
	close(fd);
	kt_symlink(A, U "/x/link", 0);
	KT_ASSERT_KN(kn_open_dir(KT_DIR "/via/link", NULL), -ELOOP);
}

KT_TEST(open_dir_refuses_links_below_a_user_dir)
{
	bool trusted = true;
	int fd;

	tree();
	/* Even a root-owned link: a user could have swapped it in by rename. */
	kt_symlink(A, U "/rootlink", 0);
	kt_symlink(A, U "/userlink", 1000);
	kt_symlink(A, U "/x/deeper", 1000);
	KT_ASSERT_KN(kn_open_dir(U "/rootlink", NULL), -ELOOP);
	KT_ASSERT_KN(kn_open_dir(U "/userlink", NULL), -ELOOP);
	KT_ASSERT_KN(kn_open_dir(U "/userlink/b", NULL), -ELOOP);
	KT_ASSERT_KN(kn_open_dir(U "/x/deeper", NULL), -ELOOP);
	fd = kn_open_dir(U "/x/y", &trusted);
	assert_fd_is(fd, U "/x/y");
	KT_ASSERT(!trusted);
	close(fd);
}

KT_TEST(open_dir_refuses_links_below_writable_dirs)
{
	bool trusted = true;
	int fd;

	tree();
	kt_mkdir(KT_DIR "/w", 0777, 0, 0);
	kt_mkdir(KT_DIR "/g", 0775, 0, 0);
	kt_mkdir(KT_DIR "/s", 01777, 0, 0); /* like /tmp */
	kt_mkdir(KT_DIR "/s/d", 0755, 0, 0);
	kt_symlink(A, KT_DIR "/w/l", 0);
	kt_symlink(A, KT_DIR "/g/l", 0);
	kt_symlink(A, KT_DIR "/s/l", 0);
	KT_ASSERT_KN(kn_open_dir(KT_DIR "/w/l", NULL), -ELOOP);
	KT_ASSERT_KN(kn_open_dir(KT_DIR "/g/l", NULL), -ELOOP);
	KT_ASSERT_KN(kn_open_dir(KT_DIR "/s/l", NULL), -ELOOP);
	fd = kn_open_dir(KT_DIR "/s/d", &trusted);
	assert_fd_is(fd, KT_DIR "/s/d");
	KT_ASSERT(!trusted);
	close(fd);
}

KT_TEST(open_dir_refuses_user_owned_link_in_root_dir)
{
	tree();
	kt_symlink("a", KT_DIR "/ulink", 1000);
	KT_ASSERT_KN(kn_open_dir(KT_DIR "/ulink", NULL), -ELOOP);
	KT_ASSERT_KN(kn_open_dir(KT_DIR "/ulink/b", NULL), -ELOOP);
}

KT_TEST(open_dir_dotdot_below_untrusted_is_refused)
{
	tree();
	KT_ASSERT_KN(kn_open_dir(U "/..", NULL), -EXDEV);
	KT_ASSERT_KN(kn_open_dir(U "/../a", NULL), -EXDEV);
	KT_ASSERT_KN(kn_open_dir(U "/x/../../a", NULL), -EXDEV);
}

KT_TEST(open_dir_symlink_loop)
{
	kt_symlink("l2", KT_DIR "/l1", 0);
	kt_symlink("l1", KT_DIR "/l2", 0);
	KT_ASSERT_KN(kn_open_dir(KT_DIR "/l1", NULL), -ELOOP);
	KT_ASSERT_KN(kn_open_dir(KT_DIR "/l1/x", NULL), -ELOOP);
}

KT_TEST(open_dir_not_a_directory)
{
	tree();
	kt_write(KT_DIR "/file", "x");
	kt_write(U "/file", "x");
	kt_symlink("file", KT_DIR "/tofile", 0);
	KT_ASSERT_KN(kn_open_dir(KT_DIR "/file", NULL), -ENOTDIR);
	KT_ASSERT_KN(kn_open_dir(KT_DIR "/file/x", NULL), -ENOTDIR);
	KT_ASSERT_KN(kn_open_dir(KT_DIR "/tofile", NULL), -ENOTDIR);
	KT_ASSERT_KN(kn_open_dir(U "/file", NULL), -ENOTDIR);
	KT_ASSERT_KN(kn_open_dir(U "/file/x", NULL), -ENOTDIR);
}

/* O_PATH opens never wait for a writer: a FIFO planted in a path cannot hang a login. */
KT_TEST_TIMEOUT(open_dir_fifo_never_blocks, 10)
{
	uint64_t t0 = kt_now_us();

	tree();
	KT_ASSERT_OK(mkfifo(KT_DIR "/fifo", 0644));
	KT_ASSERT_OK(mkfifo(U "/fifo", 0644));
	KT_ASSERT_KN(kn_open_dir(KT_DIR "/fifo", NULL), -ENOTDIR);
	KT_ASSERT_KN(kn_open_dir(KT_DIR "/fifo/x", NULL), -ENOTDIR);
	KT_ASSERT_KN(kn_open_dir(U "/fifo", NULL), -ENOTDIR);
	KT_ASSERT_KN(kn_open_dir(U "/fifo/x", NULL), -ENOTDIR);
	{
		int dfd = open(KT_DIR, O_PATH | O_DIRECTORY | O_CLOEXEC);

		KT_ASSERT_KN(kn_open_child_dir(dfd, "fifo"), -ENOTDIR);
		close(dfd);
	}
	KT_ASSERT(kt_now_us() - t0 < 5000000);
}

KT_TEST(open_dir_bad_arguments)
{
	tree();
	KT_ASSERT_KN(kn_open_dir(NULL, NULL), -EINVAL);
	KT_ASSERT_KN(kn_open_dir("tmp/a", NULL), -EINVAL);
	KT_ASSERT_KN(kn_open_dir("", NULL), -EINVAL);
	KT_ASSERT_KN(kn_open_dir(KT_DIR "/missing", NULL), -ENOENT);
	KT_ASSERT_KN(kn_open_dir(U "/missing", NULL), -ENOENT);
	KT_ASSERT_KN(kn_open_dir(U "/missing/deeper", NULL), -ENOENT);
}

KT_TEST(open_parent)
{
	const char *name = NULL;
	bool trusted = false;
	int fd;

	tree();
	fd = kn_open_parent(A "/b", &name, &trusted);
	assert_fd_is(fd, A);
	KT_ASSERT(strcmp(name, "b") == 0 && trusted);
	close(fd);
	fd = kn_open_parent(KT_DIR, &name, NULL);
	assert_fd_is(fd, "/");
	KT_ASSERT(strcmp(name, KT_DIR + 1) == 0);
	close(fd);
	fd = kn_open_parent(U "/x/new", &name, &trusted);
	assert_fd_is(fd, U "/x");
	KT_ASSERT(strcmp(name, "new") == 0 && !trusted);
	close(fd);
	KT_ASSERT_KN(kn_open_parent("/", &name, NULL), -EINVAL);
	KT_ASSERT_KN(kn_open_parent(A "/", &name, NULL), -EINVAL);
	KT_ASSERT_KN(kn_open_parent(A "/..", &name, NULL), -EINVAL);
	KT_ASSERT_KN(kn_open_parent(A "/.", &name, NULL), -EINVAL);
	KT_ASSERT_KN(kn_open_parent("a/b", &name, NULL), -EINVAL);
}

KT_TEST(open_child_dir)
{
	int dfd, fd;

	tree();
	kt_write(KT_DIR "/file", "x");
	kt_symlink("a", KT_DIR "/link", 0);
	dfd = open(KT_DIR, O_PATH | O_DIRECTORY | O_CLOEXEC);
	KT_ASSERT_OK(dfd);
	fd = kn_open_child_dir(dfd, "a");
	assert_fd_is(fd, A);
	close(fd);
	KT_ASSERT_KN(kn_open_child_dir(dfd, "link"), -ELOOP);
	KT_ASSERT_KN(kn_open_child_dir(dfd, "file"), -ENOTDIR);
	KT_ASSERT_KN(kn_open_child_dir(dfd, "missing"), -ENOENT);
	close(dfd);
}

KT_TEST(fd_is_trusted)
{
	static const struct {
		const char *name;
		mode_t mode;
		uid_t uid;
		int strict, sticky_ok;
	} cases[] = {
		{"r755", 0755, 0, 1, 1},      {"r775", 0775, 0, 0, 0},	 {"r757", 0757, 0, 0, 0},
		{"r1777", 01777, 0, 0, 1},    {"r1775", 01775, 0, 0, 1}, {"u755", 0755, 1000, 0, 0},
		{"u1777", 01777, 1000, 0, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[64];
		int fd;

		snprintf(path, sizeof(path), KT_DIR "/%s", cases[i].name);
		kt_mkdir(path, cases[i].mode, cases[i].uid, cases[i].uid);
		fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		KT_ASSERT_OK(fd);
		KT_ASSERT_MSG(kn_fd_is_trusted(fd, false) == cases[i].strict, "%s strict",
			      cases[i].name);
		KT_ASSERT_MSG(kn_fd_is_trusted(fd, true) == cases[i].sticky_ok, "%s sticky",
			      cases[i].name);
		close(fd);
	}
	KT_ASSERT_KN(kn_fd_is_trusted(-1, false), -EBADF);
}

/* ---- kn_mkdir_child ---- */

KT_TEST(mkdir_child_owner_and_exact_mode)
{
	static const struct {
		const char *name;
		mode_t mode;
		uid_t uid;
		gid_t gid;
	} cases[] = {
		{"user", 0700, 1000, 1000},
		{"tmp", 01777, 0, 0},
		/* chown clears set-id bits, so it must come before chmod */
		{"setgid", 02775, 1000, 1001},
		{"none", 0, 0, 0},
	};
	int dfd;

	tree();
	umask(077); /* must not matter: the mode is set by fchmod */
	dfd = open(A, O_PATH | O_DIRECTORY | O_CLOEXEC);
	KT_ASSERT_OK(dfd);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[64];
		struct stat st;
		int fd = kn_mkdir_child(dfd, cases[i].name, cases[i].mode, cases[i].uid,
					cases[i].gid);

		snprintf(path, sizeof(path), A "/%s", cases[i].name);
		assert_fd_is(fd, path);
		KT_ASSERT_OK(fstat(fd, &st));
		KT_ASSERT_MSG((st.st_mode & 07777) == cases[i].mode && st.st_uid == cases[i].uid &&
				      st.st_gid == cases[i].gid,
			      "%s: mode %o uid %u gid %u", cases[i].name, st.st_mode & 07777,
			      st.st_uid, st.st_gid);
		close(fd);
	}
	KT_ASSERT_KN(kn_mkdir_child(dfd, "user", 0700, 0, 0), -EEXIST);
	kt_symlink("b", A "/link", 0);
	KT_ASSERT_KN(kn_mkdir_child(dfd, "link", 0700, 0, 0), -EEXIST);
	KT_ASSERT_KN(kn_mkdir_child(dfd, "missing/deeper", 0700, 0, 0), -ENOENT);
	close(dfd);
}

KT_TEST(mkdir_child_in_a_user_dir)
{
	struct stat st;
	int dfd, fd;

	tree();
	dfd = kn_open_dir(U "/x", NULL);
	KT_ASSERT_OK(dfd);
	fd = kn_mkdir_child(dfd, "inst", 0700, 1000, 1000);
	assert_fd_is(fd, U "/x/inst");
	KT_ASSERT_OK(fstat(fd, &st));
	KT_ASSERT_EQ(st.st_uid, 1000);
	close(fd);
	close(dfd);
}

/* ---- mounts ---- */

KT_TEST(bind_fd_binds_by_descriptor)
{
	int src, dst;
	char *m;

	kt_mkdir(KT_DIR "/src", 0755, 0, 0);
	kt_mkdir(KT_DIR "/dst", 0755, 0, 0);
	kt_write(KT_DIR "/src/mark", "src");
	src = kn_open_dir(KT_DIR "/src", NULL);
	dst = kn_open_dir(KT_DIR "/dst", NULL);
	KT_ASSERT_OK(src);
	KT_ASSERT_OK(dst);
	/* Swap both names after opening: the mount must follow the descriptors. */
	KT_ASSERT_OK(rename(KT_DIR "/src", KT_DIR "/src-held"));
	KT_ASSERT_OK(rename(KT_DIR "/dst", KT_DIR "/dst-held"));
	kt_mkdir(KT_DIR "/src", 0755, 0, 0);
	kt_mkdir(KT_DIR "/dst", 0755, 0, 0);
	kt_write(KT_DIR "/src/decoy", "decoy");

	KT_ASSERT_KN(kn_bind_fd(src, dst), 0);
	m = kt_mount_at(KT_DIR "/dst-held");
	KT_ASSERT_MSG(m, "nothing mounted on the held directory");
	free(m);
	KT_ASSERT_MSG(!kt_mount_at(KT_DIR "/dst"), "mounted on the name, not the descriptor");
	KT_ASSERT(kt_exists(KT_DIR "/dst-held/mark") && !kt_exists(KT_DIR "/dst-held/decoy"));
	close(src);
	close(dst);
}

KT_TEST(bind_fd_is_not_recursive)
{
	int src, dst;

	kt_mkdir(KT_DIR "/src", 0755, 0, 0);
	kt_mkdir(KT_DIR "/src/sub", 0755, 0, 0);
	kt_tmpfs(KT_DIR "/src/sub", NULL);
	kt_write(KT_DIR "/src/sub/inner", "x");
	kt_mkdir(KT_DIR "/dst", 0755, 0, 0);
	src = kn_open_dir(KT_DIR "/src", NULL);
	dst = kn_open_dir(KT_DIR "/dst", NULL);
	KT_ASSERT_KN(kn_bind_fd(src, dst), 0);
	KT_ASSERT(kt_exists(KT_DIR "/dst/sub") && !kt_exists(KT_DIR "/dst/sub/inner"));
	close(src);
	close(dst);
}

static bool has_opt(const char *list, const char *opt)
{
	size_t n = strlen(opt);

	for (const char *p = list; (p = strstr(p, opt)); p += n)
		if ((p == list || p[-1] == ',') &&
		    (p[n] == ',' || p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
			return true;
	return false;
}

/* Per-mount options (field 6) and superblock options (after " - "), split apart. */
static void mount_options(const char *line, char **ret_mnt, char **ret_super)
{
	char mnt[1024], fstype[64], source[256], super[1024];
	const char *sep = strstr(line, " - ");

	KT_ASSERT(sep);
	KT_ASSERT_EQ(sscanf(line, "%*s %*s %*s %*s %*s %1023s", mnt), 1);
	KT_ASSERT_EQ(sscanf(sep + 3, "%63s %255s %1023s", fstype, source, super), 3);
	*ret_mnt = strdup(mnt);
	*ret_super = strdup(super);
}

KT_TEST(tmpfs_fd_options_and_flags)
{
	char *line, *mopt, *sopt;
	struct statvfs sv;
	struct stat st;
	int dst;

	kt_mkdir(KT_DIR "/t", 0755, 0, 0);
	dst = kn_open_dir(KT_DIR "/t", NULL);
	KT_ASSERT_OK(dst);
	KT_ASSERT_KN(kn_tmpfs_fd(dst, "size=1m,mode=0700,nr_inodes=100",
				 MS_NOSUID | MS_NODEV | MS_NOEXEC),
		     0);
	line = kt_mount_at(KT_DIR "/t");
	KT_ASSERT_MSG(line, "nothing mounted");
	mount_options(line, &mopt, &sopt);
	kt_note("mount options %s, superblock options %s", mopt, sopt);
	KT_ASSERT(has_opt(mopt, "nosuid") && has_opt(mopt, "nodev") && has_opt(mopt, "noexec"));
	KT_ASSERT(has_opt(sopt, "size=1024k") && has_opt(sopt, "mode=700") &&
		  has_opt(sopt, "nr_inodes=100"));
	KT_ASSERT_OK(statvfs(KT_DIR "/t", &sv));
	KT_ASSERT((sv.f_flag & (ST_NOSUID | ST_NODEV | ST_NOEXEC)) ==
		  (ST_NOSUID | ST_NODEV | ST_NOEXEC));
	st = stat_of(KT_DIR "/t");
	KT_ASSERT_EQ(st.st_mode & 07777, 0700);
	free(line);
	free(mopt);
	free(sopt);
	close(dst);
}

KT_TEST(tmpfs_fd_plain)
{
	char *line, *mopt, *sopt;
	int dst;

	kt_mkdir(KT_DIR "/t", 0755, 0, 0);
	dst = kn_open_dir(KT_DIR "/t", NULL);
	KT_ASSERT_KN(kn_tmpfs_fd(dst, NULL, 0), 0);
	line = kt_mount_at(KT_DIR "/t");
	KT_ASSERT(line);
	mount_options(line, &mopt, &sopt);
	KT_ASSERT(!has_opt(mopt, "nosuid") && !has_opt(mopt, "noexec"));
	KT_ASSERT(strstr(line, " - tmpfs "));
	free(line);
	free(mopt);
	free(sopt);
	KT_ASSERT_KN(kn_tmpfs_fd(dst, "", 0), 0); /* stacked: a second, empty option string */
	close(dst);
}

KT_TEST(tmpfs_fd_bad_option_mounts_nothing)
{
	int dst, r;

	kt_mkdir(KT_DIR "/t", 0755, 0, 0);
	dst = kn_open_dir(KT_DIR "/t", NULL);
	r = kn_tmpfs_fd(dst, "size=1m,bogus=1", 0);
	KT_ASSERT_KN(r, -EINVAL);
	KT_ASSERT(!kt_mount_at(KT_DIR "/t"));
	r = kn_tmpfs_fd(dst, "size=lots", 0);
	KT_ASSERT_KN(r, -EINVAL);
	KT_ASSERT(!kt_mount_at(KT_DIR "/t"));
	close(dst);
}

KT_TEST(bind_fd_open_sets_flags_and_holds_the_mount)
{
	char *line, *mopt, *sopt;
	int src, dst, root, sub, other, k;

	kt_mkdir(KT_DIR "/src", 0755, 0, 0);
	kt_mkdir(KT_DIR "/src/sub", 0755, 0, 0);
	kt_mkdir(KT_DIR "/other", 0755, 0, 0);
	kt_write(KT_DIR "/other/mark", "other");
	kt_mkdir(KT_DIR "/dst", 0755, 0, 0);
	src = kn_open_dir(KT_DIR "/src", NULL);
	dst = kn_open_dir(KT_DIR "/dst", NULL);
	other = kn_open_dir(KT_DIR "/other", NULL);
	root = kn_bind_fd_open(src, dst, MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY);
	KT_ASSERT_OK(root);
	kt_note("%s", kt_denied("open_tree")	   ? "open_tree denied: mount(2) and a remount"
		      : kt_denied("mount_setattr") ? "mount_setattr denied: a remount"
						   : "open_tree and mount_setattr");
	line = kt_mount_at(KT_DIR "/dst");
	KT_ASSERT_MSG(line, "nothing mounted");
	mount_options(line, &mopt, &sopt);
	kt_note("mount options %s", mopt);
	KT_ASSERT(has_opt(mopt, "ro") && has_opt(mopt, "nosuid") && has_opt(mopt, "nodev") &&
		  has_opt(mopt, "noexec"));
	/* The descriptor is the new mount's root: a mount below it shows under dst. */
	sub = kn_open_child_dir(root, "sub");
	KT_ASSERT_OK(sub);
	k = kn_bind_fd_open(other, sub, MS_NOEXEC);
	KT_ASSERT_OK(k);
	KT_ASSERT(kt_exists(KT_DIR "/dst/sub/mark") && !kt_exists(KT_DIR "/src/sub/mark"));
	free(line);
	line = kt_mount_at(KT_DIR "/dst/sub");
	KT_ASSERT(line && strstr(line, "noexec"));
	free(line);
	free(mopt);
	free(sopt);
	close(k);
	close(sub);
	close(root);
	close(src);
	close(dst);
	close(other);
}

/* A bind of a nosuid, nodev source keeps them when noexec is added, on every path. */
KT_TEST(bind_fd_open_only_adds_flags)
{
	char *line, *mopt, *sopt;
	int src, dst, root;

	kt_mkdir(KT_DIR "/fs", 0755, 0, 0);
	KT_ASSERT_OK(mount("kt", KT_DIR "/fs", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755"));
	kt_mkdir(KT_DIR "/fs/src", 0755, 0, 0);
	kt_mkdir(KT_DIR "/dst", 0755, 0, 0);
	src = kn_open_dir(KT_DIR "/fs/src", NULL);
	dst = kn_open_dir(KT_DIR "/dst", NULL);
	root = kn_bind_fd_open(src, dst, MS_NOEXEC);
	KT_ASSERT_OK(root);
	line = kt_mount_at(KT_DIR "/dst");
	KT_ASSERT(line);
	mount_options(line, &mopt, &sopt);
	kt_note("mount options %s", mopt);
	KT_ASSERT(has_opt(mopt, "nosuid") && has_opt(mopt, "nodev") && has_opt(mopt, "noexec") &&
		  !has_opt(mopt, "ro"));
	free(line);
	free(mopt);
	free(sopt);
	close(root);
	close(src);
	close(dst);
}

KT_TEST(tmpfs_fd_escaped_options)
{
	char *line, *mopt, *sopt;
	int dst, root;

	kt_mkdir(KT_DIR "/t", 0755, 0, 0);
	dst = kn_open_dir(KT_DIR "/t", NULL);
	/* "\," is a comma inside the option: here a node list 0,0 (node 0). */
	KT_ASSERT_KN(kn_tmpfs_fd(dst, "size=1m,mpol=bind:0\\,0", 0), 0);
	line = kt_mount_at(KT_DIR "/t");
	KT_ASSERT(line);
	mount_options(line, &mopt, &sopt);
	kt_note("superblock options %s", sopt);
	KT_ASSERT(has_opt(sopt, "size=1024k") && has_opt(sopt, "mpol=bind:0"));
	free(line);
	free(mopt);
	free(sopt);
	/* Stacked on the first: the descriptor is the new one's root, on either path. */
	root = kn_tmpfs_fd_open(dst, NULL, MS_NOEXEC);
	KT_ASSERT_OK(root);
	KT_ASSERT_OK(mkdirat(root, "in-new", 0755));
	KT_ASSERT(kt_exists(KT_DIR "/t/in-new"));
	close(root);
	close(dst);
}

KT_TEST(tmpfs_fd_by_descriptor)
{
	int dst;

	kt_mkdir(KT_DIR "/t", 0755, 0, 0);
	dst = kn_open_dir(KT_DIR "/t", NULL);
	KT_ASSERT_OK(rename(KT_DIR "/t", KT_DIR "/t-held"));
	kt_mkdir(KT_DIR "/t", 0755, 0, 0);
	KT_ASSERT_KN(kn_tmpfs_fd(dst, NULL, 0), 0);
	KT_ASSERT(kt_mount_at(KT_DIR "/t-held") && !kt_mount_at(KT_DIR "/t"));
	close(dst);
}

KT_TEST(umount_path)
{
	char *m;

	tree();
	kt_mkdir(KT_DIR "/m", 0755, 0, 0);
	kt_tmpfs(KT_DIR "/m", "size=1m");
	kt_tmpfs(KT_DIR "/m", "size=2m");
	KT_ASSERT_KN(kn_umount_path(KT_DIR "/m"), 0);
	m = kt_mount_at(KT_DIR "/m");
	KT_ASSERT_MSG(m && strstr(m, "size=1024k"), "the lower mount should remain: %s",
		      m ? m : "none");
	free(m);
	KT_ASSERT_KN(kn_umount_path(KT_DIR "/m"), 0);
	KT_ASSERT(!kt_mount_at(KT_DIR "/m"));
	KT_ASSERT_KN(kn_umount_path(KT_DIR "/m"), -EINVAL);
	KT_ASSERT_KN(kn_umount_path(KT_DIR "/missing"), -ENOENT);
}

KT_TEST(umount_path_resolves_safely)
{
	tree();
	kt_mkdir(KT_DIR "/m", 0755, 0, 0);
	kt_tmpfs(KT_DIR "/m", NULL);
	kt_symlink(KT_DIR "/m", U "/link", 1000);
	KT_ASSERT_KN(kn_umount_path(U "/link"), -ELOOP);
	KT_ASSERT_MSG(kt_mount_at(KT_DIR "/m"), "unmounted through a user's symlink");
}

/* ---- kn_remove_tree ---- */

static int kt_dir_fd(void)
{
	int fd = open(KT_DIR, O_PATH | O_DIRECTORY | O_CLOEXEC);

	KT_ASSERT_OK(fd);
	return fd;
}

KT_TEST(remove_tree_does_not_follow_symlinks)
{
	int dfd = kt_dir_fd();

	kt_mkdir(KT_DIR "/outside", 0755, 0, 0);
	kt_write(KT_DIR "/outside/keep", "keep");
	kt_mkdir(KT_DIR "/t", 0755, 0, 0);
	kt_mkdir(KT_DIR "/t/d", 0700, 1000, 1000);
	kt_mkdir(KT_DIR "/t/d/e", 0000, 0, 0);
	kt_write(KT_DIR "/t/f", "x");
	kt_write(KT_DIR "/t/d/g", "x");
	KT_ASSERT_OK(mkfifo(KT_DIR "/t/d/fifo", 0600));
	kt_symlink(KT_DIR "/outside", KT_DIR "/t/dirlink", 1000);
	kt_symlink(KT_DIR "/outside/keep", KT_DIR "/t/d/filelink", 1000);
	kt_symlink("../..", KT_DIR "/t/d/up", 1000);

	KT_ASSERT_KN(kn_remove_tree(dfd, "t"), 0);
	KT_ASSERT(!kt_exists(KT_DIR "/t"));
	KT_ASSERT(kt_exists(KT_DIR "/outside/keep"));
	close(dfd);
}

KT_TEST(remove_tree_refuses_a_symlink_or_file)
{
	int dfd = kt_dir_fd();

	kt_mkdir(KT_DIR "/target", 0755, 0, 0);
	kt_write(KT_DIR "/target/keep", "keep");
	kt_symlink(KT_DIR "/target", KT_DIR "/t", 0);
	kt_write(KT_DIR "/file", "x");
	KT_ASSERT_KN(kn_remove_tree(dfd, "t"), -ELOOP);
	KT_ASSERT_KN(kn_remove_tree(dfd, "file"), -ENOTDIR);
	KT_ASSERT_KN(kn_remove_tree(dfd, "missing"), -ENOENT);
	KT_ASSERT(kt_exists(KT_DIR "/target/keep") && kt_exists(KT_DIR "/t"));
	close(dfd);
}

KT_TEST(remove_tree_does_not_cross_mounts)
{
	int dfd = kt_dir_fd(), r;

	kt_mkdir(KT_DIR "/t", 0755, 0, 0);
	kt_mkdir(KT_DIR "/t/other", 0755, 0, 0);
	kt_tmpfs(KT_DIR "/t/other", NULL);
	kt_write(KT_DIR "/t/other/keep", "keep");
	kt_write(KT_DIR "/t/gone", "x");

	r = kn_remove_tree(dfd, "t");
	KT_ASSERT_KN(r, -EBUSY);
	KT_ASSERT(kt_exists(KT_DIR "/t/other/keep"));
	KT_ASSERT(!kt_exists(KT_DIR "/t/gone"));
	close(dfd);
}

/* A bind mount from the same filesystem has the same st_dev: st_dev alone cannot see it. */
KT_TEST(remove_tree_does_not_cross_same_fs_bind_mounts)
{
	int dfd = kt_dir_fd(), r;

	kt_mkdir(KT_DIR "/outside", 0755, 0, 0);
	kt_mkdir(KT_DIR "/outside/sub", 0755, 0, 0);
	kt_write(KT_DIR "/outside/keep", "keep");
	kt_write(KT_DIR "/outside/sub/keep", "keep");
	kt_mkdir(KT_DIR "/t", 0755, 0, 0);
	kt_mkdir(KT_DIR "/t/d", 0755, 0, 0);
	kt_mkdir(KT_DIR "/t/d/bound", 0755, 0, 0);
	KT_ASSERT_OK(mount(KT_DIR "/outside", KT_DIR "/t/d/bound", NULL, MS_BIND, NULL));

	r = kn_remove_tree(dfd, "t");
	KT_ASSERT_KN(r, -EBUSY);
	KT_ASSERT_MSG(kt_exists(KT_DIR "/outside/keep") && kt_exists(KT_DIR "/outside/sub/keep"),
		      "removed files through a bind mount");
	close(dfd);
}

KT_TEST(remove_tree_deep)
{
	char path[PATH_MAX] = KT_DIR "/t";
	int dfd = kt_dir_fd();

	kt_mkdir(path, 0755, 0, 0);
	for (int i = 0; i < 100; i++) {
		strcat(path, "/d");
		kt_mkdir(path, 0755, 0, 0);
	}
	KT_ASSERT_KN(kn_remove_tree(dfd, "t"), 0);
	KT_ASSERT(!kt_exists(KT_DIR "/t"));
	close(dfd);
}

/* ---- listing a directory ---- */

struct listed {
	unsigned n, dots, stop_after;
	bool seen[600];
};

static int count_name(const char *name, void *ud)
{
	struct listed *l = ud;
	unsigned i;

	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		l->dots++;
		return 0;
	}
	if (sscanf(name, "f%u", &i) != 1 || i >= 600 || l->seen[i])
		return -EUCLEAN;
	l->seen[i] = true;
	l->n++;
	return l->stop_after && l->n == l->stop_after ? 7 : 0;
}

/* More names than one 4 KiB getdents64 buffer holds: each once, and no dot. */
KT_TEST(dir_each_lists_every_name_once)
{
	struct listed l = {0};
	char path[PATH_MAX];
	int dfd;

	kt_mkdir(KT_DIR "/l", 0755, 0, 0);
	for (unsigned i = 0; i < 600; i++) {
		snprintf(path, sizeof(path), KT_DIR "/l/f%u-with-a-long-name-to-fill-the-buffer",
			 i);
		KT_ASSERT_OK(mknod(path, S_IFREG | 0600, 0));
	}
	dfd = open(KT_DIR "/l", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	KT_ASSERT_OK(dfd);
	KT_ASSERT_KN(kn_dir_each(dfd, count_name, &l), 0);
	KT_ASSERT_EQ(l.n, 600u);
	KT_ASSERT_EQ(l.dots, 0u);
	close(dfd);
}

/* A callback's stop (> 0) or error (< 0) ends the listing and is returned. */
KT_TEST(dir_each_stops_where_told)
{
	struct listed l = {.stop_after = 3};
	int dfd;

	kt_mkdir(KT_DIR "/l", 0755, 0, 0);
	for (unsigned i = 0; i < 10; i++) {
		char path[64];

		snprintf(path, sizeof(path), KT_DIR "/l/f%u", i);
		KT_ASSERT_OK(mknod(path, S_IFREG | 0600, 0));
	}
	dfd = open(KT_DIR "/l", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	KT_ASSERT_OK(dfd);
	KT_ASSERT_KN(kn_dir_each(dfd, count_name, &l), 7);
	KT_ASSERT_EQ(l.n, 3u);
	KT_ASSERT_OK(mknod(KT_DIR "/l/bad", S_IFREG | 0600, 0));
	KT_ASSERT_OK(lseek(dfd, 0, SEEK_SET));
	l = (struct listed){0};
	KT_ASSERT_KN(kn_dir_each(dfd, count_name, &l), -EUCLEAN);
	close(dfd);
	dfd = open(KT_DIR "/l/f0", O_RDONLY | O_CLOEXEC);
	KT_ASSERT_KN(kn_dir_each(dfd, count_name, &l), -ENOTDIR);
	close(dfd);
}

/* kn_ns_return: back into the saved namespace, root and cwd, without asking where it is. */
KT_TEST(return_goes_back_without_a_check)
{
	struct kn_ns_saved saved = KN_NS_SAVED_INIT;
	ino_t ns0 = kt_self_ns();
	char *cwd;

	tree();
	KT_ASSERT_OK(chdir(A "/b"));
	KT_ASSERT_KN(kn_ns_save(&saved), 0);
	KT_ASSERT_KN(kn_ns_enter_new(KN_PROPAGATION_SLAVE), 0);
	KT_ASSERT(kt_self_ns() != ns0);
	KT_ASSERT_OK(chdir("/"));
	KT_ASSERT_KN(kn_ns_return(&saved), 0);
	KT_ASSERT_EQ(kt_self_ns(), ns0);
	cwd = cwd_now();
	KT_ASSERT_MSG(strcmp(cwd, A "/b") == 0, "cwd is %s", cwd);
	free(cwd);
	kn_ns_saved_close(&saved);
}

/* ---- callers with a descriptor table of their own ---- */

struct own_files {
	int src, dst; /* the numbers the thread uses */
	int r_bind, r_tmpfs, r_umount;
};

/* Put the directory path at exactly descriptor number at, in this thread's table. */
static void open_at_number(const char *path, int at)
{
	int fd = kn_open_dir(path, NULL);

	KT_ASSERT_OK(fd);
	KT_ASSERT_OK(dup3(fd, at, O_CLOEXEC));
	close(fd);
}

static void *own_files_thread(void *p)
{
	struct own_files *o = p;

	/* Same numbers, other directories: only this thread's table has the real ones. */
	KT_ASSERT_OK(unshare(CLONE_FILES));
	open_at_number(KT_DIR "/src", o->src);
	open_at_number(KT_DIR "/dst", o->dst);
	o->r_bind = kn_bind_fd(o->src, o->dst);
	open_at_number(KT_DIR "/t", o->dst);
	o->r_tmpfs = kn_tmpfs_fd(o->dst, "size=1m", 0);
	o->r_umount = kn_umount_path(KT_DIR "/t");
	return NULL;
}

/*
 * A thread that unshared its descriptor table (CLONE_FILES) has descriptor
 * numbers that mean something else in the thread-group leader's table,
 * which is what /proc/self/fd shows: the fallbacks must name descriptors
 * through /proc/thread-self.
 */
KT_TEST(mounts_from_a_thread_with_its_own_descriptor_table)
{
	struct own_files o = {0};
	pthread_t t;
	char *m;

	kt_mkdir(KT_DIR "/src", 0755, 0, 0);
	kt_mkdir(KT_DIR "/dst", 0755, 0, 0);
	kt_mkdir(KT_DIR "/t", 0755, 0, 0);
	kt_mkdir(KT_DIR "/decoy-src", 0755, 0, 0);
	kt_mkdir(KT_DIR "/decoy-dst", 0755, 0, 0);
	kt_write(KT_DIR "/src/mark", "src");
	kt_write(KT_DIR "/decoy-src/decoy", "decoy");
	o.src = open(KT_DIR "/decoy-src", O_PATH | O_DIRECTORY | O_CLOEXEC);
	o.dst = open(KT_DIR "/decoy-dst", O_PATH | O_DIRECTORY | O_CLOEXEC);
	KT_ASSERT_OK(o.src);
	KT_ASSERT_OK(o.dst);
	KT_ASSERT_EQ(pthread_create(&t, NULL, own_files_thread, &o), 0);
	KT_ASSERT_EQ(pthread_join(t, NULL), 0);

	KT_ASSERT_KN(o.r_bind, 0);
	KT_ASSERT_MSG(!kt_mount_at(KT_DIR "/decoy-dst"), "mounted on the leader's descriptor");
	KT_ASSERT_MSG(kt_exists(KT_DIR "/dst/mark") && !kt_exists(KT_DIR "/dst/decoy"),
		      "the wrong directory was bound on dst");
	KT_ASSERT_KN(o.r_tmpfs, 0);
	KT_ASSERT_KN(o.r_umount, 0);
	m = kt_mount_at(KT_DIR "/t");
	KT_ASSERT_MSG(!m, "the tmpfs is still mounted: %s", m);
	KT_ASSERT_MSG(!kt_mount_at(KT_DIR "/decoy-dst"), "mounted on the leader's descriptor");
}

static void *leaderless_thread(void *p)
{
	int src, dst, r;

	src = kn_open_dir(KT_DIR "/src", NULL);
	dst = kn_open_dir(KT_DIR "/dst", NULL);
	if (src < 0 || dst < 0)
		exit(10);
	r = kn_bind_fd(src, dst);
	if (r < 0)
		exit(11);
	if (!kt_exists(KT_DIR "/dst/mark"))
		exit(12);
	r = kn_umount_path(KT_DIR "/dst");
	exit(r < 0 ? 13 : 0);
}

static int leaderless_process(void *p)
{
	pthread_t t;

	if (pthread_create(&t, NULL, leaderless_thread, NULL) != 0)
		return 20;
	/* The leader is gone (a zombie): /proc/self/fd shows nothing any more. */
	pthread_exit(NULL);
}

KT_TEST(mounts_from_a_thread_whose_leader_exited)
{
	int status;

	kt_mkdir(KT_DIR "/src", 0755, 0, 0);
	kt_mkdir(KT_DIR "/dst", 0755, 0, 0);
	kt_write(KT_DIR "/src/mark", "src");
	status = kt_run_child(leaderless_process, NULL);
	KT_ASSERT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
}

/*
 * The usual multithreaded caller: a thread that shares everything with the
 * leader runs a session that fails. unshare() gives it a copy of fs_struct
 * (CLONE_NEWNS implies CLONE_FS), which is what lets setns() bring it back;
 * the leader is never in the new namespace and sees none of its mounts.
 */
KT_TEST(save_enter_restore_in_a_thread_sharing_fs)
{
	struct thread_case c = {0};
	ino_t leader = kt_self_ns();
	pthread_t t;

	tree();
	kt_mkdir(KT_DIR "/m", 0755, 0, 0);
	KT_ASSERT_OK(chdir(A "/b"));
	KT_ASSERT_EQ(pthread_create(&t, NULL, save_restore_thread, &c), 0);
	KT_ASSERT_EQ(pthread_join(t, NULL), 0);
	KT_ASSERT_KN(c.r_save, 0);
	KT_ASSERT_KN(c.r_enter, 0);
	KT_ASSERT_KN(c.r_restore, 0);
	KT_ASSERT_EQ(c.own_before, leader);
	KT_ASSERT(c.inside != leader);
	KT_ASSERT_EQ(c.after_restore, leader);
	KT_ASSERT_MSG(c.cwd_after && strcmp(c.cwd_after, A "/b") == 0, "thread's cwd is %s",
		      c.cwd_after ? c.cwd_after : "gone");
	KT_ASSERT_EQ(kt_self_ns(), leader);
	KT_ASSERT_MSG(!kt_mount_at(KT_DIR "/m"), "the thread's mount reached the leader");
	free(c.cwd_after);
}

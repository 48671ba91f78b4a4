/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * kernel/'s API on the running kernel: saving and restoring the caller's
 * namespace, the descriptor-based resolve and create primitives, and the
 * feature probe (the mount, unmount, remove and listing primitives are in
 * test_api_mounts.c, linked into the same program). Run with --deny (see meson),
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
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel.h"
#include "kt.h"

#include "test_api.h"

struct stat stat_of(const char *path)
{
	struct stat st;

	KT_ASSERT_MSG(lstat(path, &st) == 0, "stat %s: %s", path, strerror(errno));
	return st;
}

void assert_fd_is(int fd, const char *path)
{
	struct stat a, b = stat_of(path);

	KT_ASSERT_MSG(fd >= 0, "expected a descriptor for %s, got %d (%s)", path, fd,
		      fd < 0 ? strerror(-fd) : "");
	KT_ASSERT_OK(fstat(fd, &a));
	KT_ASSERT_MSG(a.st_dev == b.st_dev && a.st_ino == b.st_ino, "descriptor is not %s", path);
}

void tree(void)
{
	kt_mkdir(A, 0755, 0, 0);
	kt_mkdir(A "/b", 0755, 0, 0);
	kt_mkdir(U, 0755, 1000, 1000);
	kt_mkdir(U "/x", 0755, 1000, 1000);
	kt_mkdir(U "/x/y", 0755, 1000, 1000);
}

char *cwd_now(void)
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
KT_TEST_FILTER(filter_answers_enosys)
{
	static const struct {
		const char *name;
		long nr;
	} calls[] = {{"open_tree", 428},     {"move_mount", 429}, {"fsopen", 430},
		     {"fsconfig", 431},	     {"fsmount", 432},	  {"openat2", 437},
		     {"mount_setattr", 442}, {"statx", SYS_statx}};

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

/*
 * The instance parent's walk for its lock: the last directory opened for
 * reading where the walk's identity may read it (flock then works on it),
 * else O_PATH and said so (flock refuses it: the caller opens it again).
 */
KT_TEST(open_dir_readable_where_the_walk_may_read)
{
	struct kn_dir root = KN_DIR_INIT;
	bool readable = false;
	int fd;

	tree();
	kt_mkdir(A "/locked", 0, 0, 0);	     /* root's, mode 000, every directory above root's */
	kt_mkdir(KT_DIR "/s", 01777, 0, 0);  /* like /tmp */
	kt_mkdir(KT_DIR "/s/inst", 0, 0, 0); /* like /tmp/tmp-inst */
	kt_mkdir(U "/x/y/locked", 0, 0, 0);  /* walked as uid 1000, who may not read it */
	KT_ASSERT_KN(kn_dir_open_root(&root), 0);

	fd = kn_open_dir_readable_from(&root, NULL, NULL, A "/locked", &readable);
	assert_fd_is(fd, A "/locked");
	KT_ASSERT(readable);
	KT_ASSERT_OK(flock(fd, LOCK_SH | LOCK_NB));
	close(fd);
	fd = kn_open_dir_readable_from(&root, NULL, NULL, KT_DIR "/s/inst", &readable);
	assert_fd_is(fd, KT_DIR "/s/inst");
	KT_ASSERT(readable);
	KT_ASSERT_OK(flock(fd, LOCK_SH | LOCK_NB));
	close(fd);
	fd = kn_open_dir_readable_from(&root, NULL, NULL, U "/x/y/locked", &readable);
	assert_fd_is(fd, U "/x/y/locked");
	KT_ASSERT(!readable);
	KT_ASSERT(flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EBADF);
	close(fd);

	/* Links stay refused; "/", the held root itself, comes back as a copy of its O_PATH. */
	kt_symlink(A, KT_DIR "/s/l", 0);
	KT_ASSERT_KN(kn_open_dir_readable_from(&root, NULL, NULL, KT_DIR "/s/l", &readable),
		     -ELOOP);
	kt_symlink(A, U "/x/l", 1000);
	KT_ASSERT_KN(kn_open_dir_readable_from(&root, NULL, NULL, U "/x/l", &readable), -ELOOP);
	fd = kn_open_dir_readable_from(&root, NULL, NULL, "/", &readable);
	assert_fd_is(fd, "/");
	KT_ASSERT(!readable);
	close(fd);
	kn_dir_close(&root);
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

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * kernel/'s API on the running kernel, second part (test_api.c is the
 * first; one program, run with and without --deny the same way): the
 * mount, unmount, remove and listing primitives, and callers whose
 * descriptor table is not the process's.
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

#include "test_api.h"

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

	KT_ASSERT_KN(kn_remove_tree(dfd, "t", kn_deadline_after_ms(60000)), 0);
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
	KT_ASSERT_KN(kn_remove_tree(dfd, "t", kn_deadline_after_ms(60000)), -ELOOP);
	KT_ASSERT_KN(kn_remove_tree(dfd, "file", kn_deadline_after_ms(60000)), -ENOTDIR);
	KT_ASSERT_KN(kn_remove_tree(dfd, "missing", kn_deadline_after_ms(60000)), -ENOENT);
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

	r = kn_remove_tree(dfd, "t", kn_deadline_after_ms(60000));
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

	r = kn_remove_tree(dfd, "t", kn_deadline_after_ms(60000));
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
	KT_ASSERT_KN(kn_remove_tree(dfd, "t", kn_deadline_after_ms(60000)), 0);
	KT_ASSERT(!kt_exists(KT_DIR "/t"));
	close(dfd);
}

/*
 * Past the old walk's depth limit (256), whose -ELOOP every level above took
 * for a race and retried 64 times: a user's chain of 5,000 directories, some
 * of them and the top left unwritable (0500) by her, with files, FIFOs and a link out at
 * the bottom, goes in linear time; the link's target stays.
 */
KT_TEST(remove_tree_any_depth)
{
	int dfd = kt_dir_fd(), fd;
	uint64_t t0;

	kt_mkdir(KT_DIR "/outside", 0755, 0, 0);
	kt_write(KT_DIR "/outside/keep", "keep");
	kt_mkdir(KT_DIR "/t", 01777, 0, 0);
	fd = open(KT_DIR "/t", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	KT_ASSERT_OK(fd);
	for (int i = 0; i < 5000; i++) {
		int c;

		KT_ASSERT_OK(mkdirat(fd, "d", 0700));
		KT_ASSERT_OK(fchownat(fd, "d", 1000, 1000, AT_SYMLINK_NOFOLLOW));
		if (i % 100 == 0) {
			KT_ASSERT_OK(mkfifoat(fd, "fifo", 0600));
			KT_ASSERT_OK(symlinkat(KT_DIR "/outside/keep", fd, "up"));
		}
		c = openat(fd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		KT_ASSERT_OK(c);
		if (i % 7 == 3)
			KT_ASSERT_OK(fchmod(fd, 0500));
		close(fd);
		fd = c;
	}
	KT_ASSERT_OK(symlinkat(KT_DIR "/outside", fd, "out"));
	close(fd);
	/* Her own top too, left unwritable. */
	KT_ASSERT_OK(chown(KT_DIR "/t", 1000, 1000));
	KT_ASSERT_OK(chmod(KT_DIR "/t", 0500));
	t0 = kt_now_us();
	KT_ASSERT_KN(kn_remove_tree(dfd, "t", kn_deadline_after_ms(60000)), 0);
	printf("# 5,000 levels removed in %.3f s\n", (double)(kt_now_us() - t0) / 1e6);
	KT_ASSERT_MSG(kt_now_us() - t0 < 20000000, "took over 20 s");
	KT_ASSERT(!kt_exists(KT_DIR "/t"));
	KT_ASSERT(kt_exists(KT_DIR "/outside/keep"));
	close(dfd);
}

/* Past its deadline the walk stops with -ETIMEDOUT and leaves what is left. */
KT_TEST(remove_tree_stops_at_its_deadline)
{
	int dfd = kt_dir_fd();
	char path[64];

	kt_mkdir(KT_DIR "/t", 0755, 0, 0);
	for (int i = 0; i < 100; i++) {
		snprintf(path, sizeof(path), KT_DIR "/t/f%d", i);
		kt_write(path, "x");
	}
	KT_ASSERT_KN(kn_remove_tree(dfd, "t", kn_deadline_after_ms(0)), -ETIMEDOUT);
	KT_ASSERT(kt_exists(KT_DIR "/t"));
	KT_ASSERT_KN(kn_remove_tree(dfd, "t", kn_deadline_after_ms(60000)), 0);
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

/* ---- which names mounts use (mntuse.c) ---- */

/*
 * A child that mounts KT_DIR/inst/name on KT_DIR/poly-name in a namespace
 * of its own and waits: with back, it returns to the namespace it had and
 * only a descriptor holds the new one. It writes one byte once ready.
 */
static pid_t mounting_child(const char *name, bool back, int ready)
{
	char src[128], dst[128];
	pid_t pid = fork();

	KT_ASSERT(pid >= 0);
	if (pid > 0)
		return pid;
	snprintf(src, sizeof(src), KT_DIR "/inst/%s", name);
	snprintf(dst, sizeof(dst), KT_DIR "/poly-%s", name);
	int old = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	if (old < 0 || unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount(src, dst, NULL, MS_BIND, NULL) < 0)
		_exit(1);
	if (back) {
		int held = open("/proc/self/ns/mnt", O_RDONLY);

		if (held < 0 || setns(old, CLONE_NEWNS) < 0)
			_exit(1);
	}
	if (write(ready, "x", 1) != 1)
		_exit(1);
	pause();
	_exit(0);
}

KT_TEST(mounts_using_sees_tasks_and_held_namespaces)
{
	const char *names[] = {"kt-mntuse-here", "kt-mntuse-child", "kt-mntuse-held",
			       "kt-mntuse-none", "kt mntuse blank"};
	bool used[5];
	struct kn_mntuse_unseen unseen;
	pid_t kids[2];
	int p[2];
	char c;

	KT_ASSERT_OK(mkdir(KT_DIR "/inst", 0755));
	for (int i = 0; i < 4; i++) {
		char path[128];

		snprintf(path, sizeof(path), KT_DIR "/inst/%s", names[i]);
		KT_ASSERT_OK(mkdir(path, 0755));
		snprintf(path, sizeof(path), KT_DIR "/poly-%s", names[i]);
		KT_ASSERT_OK(mkdir(path, 0755));
	}
	KT_ASSERT_OK(mount(KT_DIR "/inst/kt-mntuse-here", KT_DIR "/poly-kt-mntuse-here", NULL,
			   MS_BIND, NULL));
	KT_ASSERT_OK(pipe(p));
	kids[0] = mounting_child(names[1], false, p[1]);
	kids[1] = mounting_child(names[2], true, p[1]);
	for (int i = 0; i < 2; i++)
		KT_ASSERT(read(p[0], &c, 1) == 1);

	/* The module's look: no fork, a namespace only a descriptor holds is unseen. */
	KT_ASSERT_KN(kn_mounts_using(names, 5, 0, used, &unseen), 0);
	KT_ASSERT(used[0]);
	KT_ASSERT(used[1]);
	KT_ASSERT(!used[2]);
	KT_ASSERT(!used[3]);
	KT_ASSERT(used[4]);
	KT_ASSERT(unseen.n >= 1);
	kt_note("without setns: %u namespaces unseen, first %s", unseen.n, unseen.first);

	/* The helper's: it enters that one. */
	KT_ASSERT_KN(kn_mounts_using(names, 5, KN_MNTUSE_ENTER, used, &unseen), 0);
	KT_ASSERT(used[0] && used[1] && used[2] && !used[3] && used[4]);

	for (int i = 0; i < 2; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	KT_ASSERT_OK(umount(KT_DIR "/poly-kt-mntuse-here"));
	KT_ASSERT_KN(kn_mounts_using(names, 4, 0, used, &unseen), 0);
	for (int i = 0; i < 4; i++)
		KT_ASSERT_MSG(!used[i] || unseen.n, "%s still used with nothing mounting it",
			      names[i]);
}

KT_TEST(pid_starttime_is_stat_field_22)
{
	unsigned long long a, b;

	KT_ASSERT_KN(kn_pid_starttime(getpid(), &a), 0);
	KT_ASSERT_KN(kn_pid_starttime(getpid(), &b), 0);
	KT_ASSERT_EQ(a, b);
	KT_ASSERT(a > 0);
	KT_ASSERT_KN(kn_pid_starttime(0x3ffffff, &a), -ENOENT);
}

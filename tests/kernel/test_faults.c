/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * kernel/'s helpers under a failing system call: a seccomp filter makes
 * one call fail with a real error (EIO, ENOSPC) in a child, and the test
 * checks what is left behind. A step that creates something must remove
 * it again when a later step of its own fails (STYLE.md); the
 * fault-injection suite (tests/faults) checks the same on whole sessions.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel.h"
#include "kt.h"

#define P KT_DIR "/p" /* root's, 0755 */
#define U KT_DIR "/u" /* uid 1000's, 0755 */

/* From here on in this process, every call of nr fails with err. */
static void fail_syscall(long nr, int err)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};

	KT_ASSERT_OK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	KT_ASSERT_OK(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog));
}

struct mkdir_fault {
	const char *dir;
	long nr, nr2; /* nr2: the same call's other number (fstat), or -1 */
	int err;
	uid_t uid;
};

/* In a child: the filter, then kn_mkdir_child; its result as the exit status. */
static int mkdir_under_fault(void *arg)
{
	const struct mkdir_fault *m = arg;
	int dfd = open(m->dir, O_PATH | O_DIRECTORY | O_CLOEXEC), r;

	if (dfd < 0)
		return 100;
	fail_syscall(m->nr, m->err);
	if (m->nr2 >= 0)
		fail_syscall(m->nr2, m->err);
	r = kn_mkdir_child(dfd, "inst", 01777, m->uid, m->uid);
	if (r >= 0)
		return 101;
	return r == -m->err ? 0 : 102;
}

static void assert_mkdir_cleans_up(const char *dir, uid_t uid)
{
	static const struct {
		const char *name;
		long nr, nr2;
		int err;
	} faults[] = {
		{"openat", SYS_openat, -1, EIO},
		{"fstat", SYS_newfstatat, SYS_fstat, EIO},
		{"fchown", SYS_fchown, -1, EIO},
		{"fchmod", SYS_fchmod, -1, ENOSPC},
	};
	char path[64];

	snprintf(path, sizeof(path), "%s/inst", dir);
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++) {
		struct mkdir_fault m = {.dir = dir,
					.nr = faults[i].nr,
					.nr2 = faults[i].nr2,
					.err = faults[i].err,
					.uid = uid};
		int status = kt_run_child(mkdir_under_fault, &m);

		KT_ASSERT_MSG(status == 0, "%s failing: kn_mkdir_child gave status %d",
			      faults[i].name, status);
		KT_ASSERT_MSG(!kt_exists(path), "%s failing: %s was left behind", faults[i].name,
			      path);
	}
}

KT_TEST(mkdir_child_removes_what_it_made_when_a_later_step_fails)
{
	kt_mkdir(P, 0755, 0, 0);
	assert_mkdir_cleans_up(P, 0);
}

KT_TEST(mkdir_child_in_a_user_dir_removes_what_it_made)
{
	kt_mkdir(U, 0755, 1000, 1000);
	assert_mkdir_cleans_up(U, 1000);
}

/* A failing mkdirat made nothing, and what someone else made is never removed. */
KT_TEST(mkdir_child_leaves_what_it_did_not_make)
{
	int dfd;

	kt_mkdir(P, 0755, 0, 0);
	kt_mkdir(P "/inst", 0700, 1000, 1000);
	dfd = open(P, O_PATH | O_DIRECTORY | O_CLOEXEC);
	KT_ASSERT_OK(dfd);
	KT_ASSERT_KN(kn_mkdir_child(dfd, "inst", 0755, 0, 0), -EEXIST);
	KT_ASSERT(kt_exists(P "/inst"));
	close(dfd);
}

/*
 * A return whose setns went through but whose fchdir or chroot failed
 * leaves the process in the saved namespace, elsewhere: kn_ns_restore puts
 * root and working directory back there without a setns.
 */
KT_TEST(restore_in_the_saved_namespace_puts_the_working_directory_back)
{
	struct kn_ns_saved saved = KN_NS_SAVED_INIT;
	char *cwd;

	kt_mkdir(P, 0755, 0, 0);
	KT_ASSERT_OK(chdir(P));
	KT_ASSERT_KN(kn_ns_save(&saved), 0);
	KT_ASSERT_OK(chdir("/"));
	KT_ASSERT_KN(kn_ns_restore(&saved), 0);
	cwd = getcwd(NULL, 0);
	KT_ASSERT_MSG(cwd && strcmp(cwd, P) == 0, "working directory %s, wanted %s",
		      cwd ? cwd : "(none)", P);
	free(cwd);
	kn_ns_saved_close(&saved);
}

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kt.h"

extern const struct kt_test __start_kt_tests[];
extern const struct kt_test __stop_kt_tests[];

const char *kt_self_exe;

#define KT_DEFAULT_TIMEOUT 60

/* The calls whose fallbacks kernel/ has, by name and (unified) number. */
static const struct {
	const char *name;
	long nr;
} deniable[] = {
	{"open_tree", 428},
	{"move_mount", 429},
	{"fsopen", 430},
	{"fsconfig", 431},
	{"fsmount", 432},
	{"openat2", 437},
	{"mount_setattr", 442},
	/* For the mount ID, which only statx gives from 5.8 on (fdinfo before). */
	{"statx", SYS_statx},
};
#define N_DENIABLE (sizeof(deniable) / sizeof(deniable[0]))

static bool deny[N_DENIABLE];
static int result_fd = -1; /* in a test child: where a skip reason goes */

bool kt_denied(const char *syscall_name)
{
	for (size_t i = 0; i < N_DENIABLE; i++)
		if (strcmp(deniable[i].name, syscall_name) == 0)
			return deny[i];
	return false;
}

bool kt_any_denied(void)
{
	for (size_t i = 0; i < N_DENIABLE; i++)
		if (deny[i])
			return true;
	return false;
}

static void vnote(const char *prefix, const char *fmt, va_list ap)
{
	char buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	/* One write per line, so lines of concurrent processes do not interleave. */
	dprintf(STDOUT_FILENO, "# %s%s\n", prefix, buf);
}

void kt_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote("", fmt, ap);
	va_end(ap);
}

void kt_fail(const char *file, int line, const char *fmt, ...)
{
	char where[256];
	va_list ap;

	snprintf(where, sizeof(where), "%s:%d: ", file, line);
	va_start(ap, fmt);
	vnote(where, fmt, ap);
	va_end(ap);
	_exit(1);
}

void kt_skip(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (result_fd >= 0)
		(void)!write(result_fd, buf, strlen(buf));
	_exit(77);
}

static void install_seccomp(void)
{
	struct sock_filter f[4 + 2 * N_DENIABLE + 1];
	struct sock_fprog prog;
	unsigned n = 0;

#if defined(__x86_64__)
#define KT_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define KT_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif
#ifdef KT_AUDIT_ARCH
	/* Another ABI's numbers mean other calls: let those through untouched. */
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, KT_AUDIT_ARCH, 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
#endif
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
	for (size_t i = 0; i < N_DENIABLE; i++) {
		if (!deny[i])
			continue;
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						      (unsigned)deniable[i].nr, 0, 1);
		f[n++] = (struct sock_filter)BPF_STMT(
			BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA));
	}
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	prog = (struct sock_fprog){.len = (unsigned short)n, .filter = f};
	KT_ASSERT_OK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	KT_ASSERT_OK(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog));
}

/*
 * The sandbox of one test: a private copy of the mount table (private, so
 * that making / shared inside creates new peer groups instead of joining
 * the machine's) and a fresh 0755 tmpfs on /tmp to work in.
 */
static void enter_sandbox(void)
{
	KT_ASSERT_OK(unshare(CLONE_NEWNS));
	KT_ASSERT_OK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	KT_ASSERT_OK(mount("kt", KT_DIR, "tmpfs", 0, "mode=0755"));
	umask(022);
	KT_ASSERT_OK(chdir(KT_DIR));
	if (kt_any_denied())
		install_seccomp();
}

uint64_t kt_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

int kt_wait(pid_t pid, unsigned timeout_s)
{
	uint64_t end = kt_now_us() + (uint64_t)timeout_s * 1000000u;
	int status;

	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			return status;
		if (w < 0 && errno != EINTR)
			return -1;
		if (kt_now_us() >= end) {
			kill(pid, SIGKILL);
			(void)waitpid(pid, &status, 0);
			return -1;
		}
		nanosleep(&(struct timespec){.tv_nsec = 2 * 1000 * 1000}, NULL);
	}
}

int kt_run_child(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int status;

	KT_ASSERT_OK(pid);
	if (pid == 0)
		_exit(fn(arg));
	status = kt_wait(pid, KT_DEFAULT_TIMEOUT);
	KT_ASSERT_MSG(status != -1, "child %d timed out", (int)pid);
	return status;
}

void kt_sync_init(struct kt_sync *s)
{
	KT_ASSERT_OK(pipe2(s->fd, O_CLOEXEC));
}

void kt_sync_post(struct kt_sync *s)
{
	KT_ASSERT_EQ(write(s->fd[1], "x", 1), 1);
}

void kt_sync_wait(struct kt_sync *s)
{
	char c;
	ssize_t n;

	do
		n = read(s->fd[0], &c, 1);
	while (n < 0 && errno == EINTR);
	KT_ASSERT_MSG(n == 1, "sync: %s", n == 0 ? "the other side went away" : strerror(errno));
}

void kt_mkdir(const char *path, mode_t mode, uid_t uid, gid_t gid)
{
	KT_ASSERT_MSG(mkdir(path, mode) == 0, "mkdir %s: %s", path, strerror(errno));
	KT_ASSERT_MSG(chown(path, uid, gid) == 0, "chown %s: %s", path, strerror(errno));
	KT_ASSERT_MSG(chmod(path, mode) == 0, "chmod %s: %s", path, strerror(errno));
}

void kt_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	KT_ASSERT_MSG(fd >= 0, "create %s: %s", path, strerror(errno));
	KT_ASSERT_EQ(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

void kt_symlink(const char *target, const char *path, uid_t owner)
{
	KT_ASSERT_MSG(symlink(target, path) == 0, "symlink %s: %s", path, strerror(errno));
	KT_ASSERT_MSG(lchown(path, owner, owner) == 0, "lchown %s: %s", path, strerror(errno));
}

void kt_tmpfs(const char *path, const char *opts)
{
	KT_ASSERT_MSG(mount("kt", path, "tmpfs", 0, opts) == 0, "mount tmpfs on %s: %s", path,
		      strerror(errno));
}

ino_t kt_ns_ino(const char *ns_path)
{
	struct stat st;

	KT_ASSERT_MSG(stat(ns_path, &st) == 0, "stat %s: %s", ns_path, strerror(errno));
	return st.st_ino;
}

ino_t kt_self_ns(void)
{
	return kt_ns_ino("/proc/thread-self/ns/mnt");
}

bool kt_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* mountinfo escapes blanks and backslashes as \ooo. */
static void unescape(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '7' && r[2] && r[3]) {
			*w++ = (char)(((r[1] - '0') << 6) | ((r[2] - '0') << 3) | (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

char *kt_mount_at(const char *path)
{
	FILE *f = fopen("/proc/thread-self/mountinfo", "re");
	char *line = NULL, *found = NULL;
	size_t cap = 0;

	KT_ASSERT_MSG(f, "mountinfo: %s", strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		char mp[PATH_MAX];

		if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1)
			continue;
		unescape(mp);
		if (strcmp(mp, path) == 0) {
			free(found);
			found = strdup(line);
		}
	}
	free(line);
	fclose(f);
	return found;
}

unsigned kt_count_mounts(void)
{
	FILE *f = fopen("/proc/thread-self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	unsigned n = 0;

	KT_ASSERT_MSG(f, "mountinfo: %s", strerror(errno));
	while (getline(&line, &cap, f) > 0)
		n++;
	free(line);
	fclose(f);
	return n;
}

static int parse_deny(const char *list)
{
	char *copy = strdup(list), *save = NULL;

	if (!copy)
		return -1;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		bool ok = false;

		for (size_t i = 0; i < N_DENIABLE; i++) {
			if (strcmp(t, "all") == 0 || strcmp(t, deniable[i].name) == 0) {
				deny[i] = true;
				ok = true;
			}
		}
		if (!ok) {
			fprintf(stderr, "unknown system call to deny: %s\n", t);
			free(copy);
			return -1;
		}
	}
	free(copy);
	return 0;
}

static bool selected(const struct kt_test *t, bool filtered, int argc, char **argv)
{
	if (t->needs_filter && !filtered)
		return false;
	if (argc == 0)
		return true;
	for (int i = 0; i < argc; i++)
		if (strcmp(argv[i], t->name) == 0)
			return true;
	return false;
}

/* After a test: nothing it started may outlive it. */
static void reap_group(pid_t pgid)
{
	kill(-pgid, SIGKILL);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

static int run_one(const struct kt_test *t, unsigned number, unsigned *passed, unsigned *failed,
		   unsigned *skipped)
{
	unsigned timeout = t->timeout_s ? t->timeout_s : KT_DEFAULT_TIMEOUT;
	char reason[512] = "";
	int rp[2], status;
	pid_t pid;
	ssize_t n;

	if (pipe2(rp, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(rp[0]);
		result_fd = rp[1];
		setpgid(0, 0);
		enter_sandbox();
		t->fn();
		_exit(0);
	}
	close(rp[1]);
	setpgid(pid, pid);
	status = kt_wait(pid, timeout);
	reap_group(pid);
	n = read(rp[0], reason, sizeof(reason) - 1);
	reason[n > 0 ? n : 0] = '\0';
	close(rp[0]);

	if (status == -1) {
		printf("# timed out after %u s\nnot ok %u %s\n", timeout, number, t->name);
		(*failed)++;
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		printf("ok %u %s\n", number, t->name);
		(*passed)++;
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
		printf("ok %u %s # SKIP %s\nPARTIAL %s: %s\n", number, t->name, reason, t->name,
		       reason);
		(*skipped)++;
	} else {
		if (WIFSIGNALED(status))
			printf("# killed by signal %d\n", WTERMSIG(status));
		printf("not ok %u %s\n", number, t->name);
		(*failed)++;
	}
	fflush(stdout);
	return 0;
}

/* Whether this process may make a mount namespace and mount in it (not in every container). */
static bool can_sandbox(void)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return false;
	if (pid == 0) {
		if (unshare(CLONE_NEWNS) < 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    mount("kt", KT_DIR, "tmpfs", 0, "mode=0755") < 0)
			_exit(1);
		_exit(0);
	}
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static int by_line(const void *a, const void *b)
{
	const struct kt_test *x = *(const struct kt_test *const *)a;
	const struct kt_test *y = *(const struct kt_test *const *)b;
	int by_file = strcmp(x->file, y->file);

	return by_file ? by_file : x->line - y->line;
}

/*
 * The tests in line order. A global, so that the children that run them
 * (and exit() from a test) still reach it: LeakSanitizer does not call it a
 * leak there.
 */
static const struct kt_test **tests;

int main(int argc, char **argv)
{
	const char *suite = "kernel", *deny_list = NULL;
	unsigned passed = 0, failed = 0, skipped = 0, total = 0, number = 0;
	char exe[PATH_MAX];
	size_t n_tests;
	bool list = false;
	ssize_t n;
	int i;

	if (argc >= 2 && strcmp(argv[1], "--exec-helper") == 0)
		return kt_exec_helper ? kt_exec_helper(argc - 2, argv + 2) : 2;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--deny") == 0 && i + 1 < argc)
			deny_list = argv[++i];
		else if (strcmp(argv[i], "--suite") == 0 && i + 1 < argc)
			suite = argv[++i];
		else if (strcmp(argv[i], "--list") == 0)
			list = true;
		else
			break;
	}
	if (deny_list && parse_deny(deny_list) < 0)
		return 2;
	argc -= i;
	argv += i;

	n_tests = (size_t)(__stop_kt_tests - __start_kt_tests);
	tests = calloc(n_tests + 1, sizeof(*tests));
	if (!tests)
		return 2;
	for (size_t k = 0; k < n_tests; k++)
		tests[k] = &__start_kt_tests[k];
	qsort(tests, n_tests, sizeof(*tests), by_line);

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (list) {
		for (size_t k = 0; k < n_tests; k++)
			printf("%s\n", tests[k]->name);
		return 0;
	}
	if (geteuid() != 0) {
		printf("1..0 # SKIP %s: needs root (mount namespaces, mounts)\n", suite);
		return 77;
	}
	if (!can_sandbox()) {
		printf("1..0 # SKIP %s: cannot make a mount namespace and mount in it here\n",
		       suite);
		return 77;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	kt_self_exe = exe;
	/* Orphans of a test come back to us, to be reaped. */
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);

	for (size_t k = 0; k < n_tests; k++)
		total += selected(tests[k], deny_list, argc, argv);
	printf("TAP version 13\n1..%u\n", total);
	if (deny_list)
		printf("# seccomp: %s fail with ENOSYS\n", deny_list);
	for (size_t k = 0; k < n_tests; k++) {
		if (!selected(tests[k], deny_list, argc, argv))
			continue;
		if (run_one(tests[k], ++number, &passed, &failed, &skipped) < 0) {
			printf("Bail out! fork: %s\n", strerror(errno));
			return 1;
		}
	}
	printf("# %s: %u passed, %u failed, %u skipped\n", suite, passed, failed, skipped);
	return failed ? 1 : 0;
}

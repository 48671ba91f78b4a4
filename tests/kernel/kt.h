/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

/*
 * A small kselftest-like harness for the kernel suite.
 *
 * Every test runs in a fresh child, in its own process group, inside a
 * private mount namespace with a root-owned 0755 tmpfs on /tmp (KT_DIR),
 * so that nothing a test mounts or creates can reach the machine or
 * outlive the test. With --deny, a seccomp filter makes the listed system
 * calls fail with ENOSYS in the child before the test starts, which runs
 * kernel/'s fallbacks on a kernel that has the newer calls.
 *
 * Output is TAP-like ("ok N name", "not ok N name", "# SKIP") and ends
 * with "# NAME: N passed, N failed, N skipped". A skipped test also prints
 * "PARTIAL name: reason", which tests/run's table shows (and fails on
 * unless tests/expected-skips lists it): the program ran partly. Exit
 * status: 0, 1 on any failure, 77 when not root or when no mount
 * namespace can be made.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define KT_DIR "/tmp"

struct kt_test {
	const char *name;
	void (*fn)(void);
	unsigned timeout_s; /* 0: the default */
	bool needs_filter;  /* a test of --deny's filter: run only with one */
	const char *file;   /* tests run in the order they are written: */
	int line;	    /* by file, then by line */
};

#define KT_TEST_FULL(n, secs, filter)                                                              \
	static void n(void);                                                                       \
	static const struct kt_test kt_desc_##n __attribute__((                                    \
		used, section("kt_tests"), aligned(sizeof(void *)))) = {.name = #n,                \
									.fn = n,                   \
									.timeout_s = (secs),       \
									.needs_filter = (filter),  \
									.file = __FILE__,          \
									.line = __LINE__};         \
	static void n(void)
#define KT_TEST_TIMEOUT(n, secs) KT_TEST_FULL(n, secs, false)
#define KT_TEST(n)		 KT_TEST_FULL(n, 0, false)
/* A test of the --deny filter itself: not run (nor counted) without one. */
#define KT_TEST_FILTER(n) KT_TEST_FULL(n, 0, true)

/* Fail the running test (the child exits); never returns. */
__attribute__((noreturn, format(printf, 3, 4))) void kt_fail(const char *file, int line,
							     const char *fmt, ...);
/* Skip the running test; never returns. */
__attribute__((noreturn, format(printf, 1, 2))) void kt_skip(const char *fmt, ...);
/* A diagnostic line ("# ...") in the test's output. */
__attribute__((format(printf, 1, 2))) void kt_note(const char *fmt, ...);

#define KT_ASSERT(c)                                                                               \
	do {                                                                                       \
		if (!(c))                                                                          \
			kt_fail(__FILE__, __LINE__, "assertion failed: %s", #c);                   \
	} while (0)
#define KT_ASSERT_MSG(c, ...)                                                                      \
	do {                                                                                       \
		if (!(c))                                                                          \
			kt_fail(__FILE__, __LINE__, __VA_ARGS__);                                  \
	} while (0)
#define KT_ASSERT_EQ(a, b)                                                                         \
	do {                                                                                       \
		long long kt_a_ = (long long)(a), kt_b_ = (long long)(b);                          \
		if (kt_a_ != kt_b_)                                                                \
			kt_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, kt_a_,       \
				kt_b_);                                                            \
	} while (0)
/* A call returning -1/errno must fail with exactly err. */
#define KT_ASSERT_ERRNO(call, err)                                                                 \
	do {                                                                                       \
		errno = 0;                                                                         \
		long kt_r_ = (long)(call);                                                         \
		int kt_e_ = errno;                                                                 \
		if (kt_r_ != -1 || kt_e_ != (err))                                                 \
			kt_fail(__FILE__, __LINE__, "%s: returned %ld errno %d (%s), wanted %s",   \
				#call, kt_r_, kt_e_, strerror(kt_e_), #err);                       \
	} while (0)
/* A call returning -1/errno must succeed. */
#define KT_ASSERT_OK(call)                                                                         \
	do {                                                                                       \
		errno = 0;                                                                         \
		long kt_r_ = (long)(call);                                                         \
		if (kt_r_ < 0)                                                                     \
			kt_fail(__FILE__, __LINE__, "%s: %s", #call, strerror(errno));             \
	} while (0)
/* A kernel/ call returning 0 or -errno. */
#define KT_ASSERT_KN(call, want)                                                                   \
	do {                                                                                       \
		long kt_r_ = (long)(call);                                                         \
		long kt_w_ = (long)(want);                                                         \
		if (kt_r_ != kt_w_)                                                                \
			kt_fail(__FILE__, __LINE__, "%s: %ld (%s), wanted %ld (%s)", #call, kt_r_, \
				kt_r_ < 0 ? strerror((int)-kt_r_) : "ok", kt_w_,                   \
				kt_w_ < 0 ? strerror((int)-kt_w_) : "ok");                         \
	} while (0)

/* Which system calls the seccomp filter of this run denies (by name), or false. */
bool kt_denied(const char *syscall_name);
/* True when a filter denies anything in this run. */
bool kt_any_denied(void);

/* Helpers: each one fails the test on error. */
void kt_mkdir(const char *path, mode_t mode, uid_t uid, gid_t gid);
void kt_write(const char *path, const char *text);
void kt_symlink(const char *target, const char *path, uid_t owner);
void kt_tmpfs(const char *path, const char *opts);
ino_t kt_ns_ino(const char *ns_path); /* e.g. "/proc/self/ns/mnt" */
ino_t kt_self_ns(void);		      /* this thread's mount namespace */
bool kt_exists(const char *path);
/*
 * The mount at exactly path in this thread's mount table, as its mountinfo
 * line (malloc'd; the topmost when stacked), or NULL.
 */
char *kt_mount_at(const char *path);
unsigned kt_count_mounts(void);
/* Run fn(arg) in a forked child (same harness rules) and return its exit status. */
int kt_run_child(int (*fn)(void *), void *arg);
/* Wait for a pid with a timeout in seconds; -1 on timeout (the child is killed). */
int kt_wait(pid_t pid, unsigned timeout_s);
/* Monotonic time in microseconds. */
uint64_t kt_now_us(void);

/* A one-byte pipe handshake between two processes. */
struct kt_sync {
	int fd[2];
};
void kt_sync_init(struct kt_sync *s);
void kt_sync_post(struct kt_sync *s);
void kt_sync_wait(struct kt_sync *s);

/* The test binary itself (/proc/self/exe resolved at start), for tests that re-execute it. */
extern const char *kt_self_exe;
/*
 * A test file may define this: "BINARY --exec-helper ARGS..." calls it with
 * the arguments after --exec-helper, and exits with what it returns.
 */
int kt_exec_helper(int argc, char **argv) __attribute__((weak));

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * kn_flock_timeout (kernel/lock.c): a lock held by a stopped process, as a
 * user can stop her own su while it holds her share_namespace lock, costs
 * a waiter the bound and no more; a lock released during the wait is
 * taken; the caller's signal handlers, mask and alarm() are left alone,
 * and signals arriving during the wait do not stretch or break it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel.h"
#include "kt.h"

#define LOCK KT_DIR "/lock"
/* What a loaded machine may add to a bound before a test calls it a hang. */
#define SLACK_MS 1500

static int open_lock(void)
{
	int fd = open(LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	KT_ASSERT_MSG(fd >= 0, "open %s: %s", LOCK, strerror(errno));
	return fd;
}

/*
 * A child that takes the lock through its own open file description, then
 * stops itself (the attack) or, with hold_ms, lets it go after that long.
 */
static pid_t holder(int op, int hold_ms)
{
	struct kt_sync s;
	pid_t pid;

	kt_sync_init(&s);
	pid = fork();
	KT_ASSERT_OK(pid);
	if (pid == 0) {
		int fd = open_lock();

		if (flock(fd, op) < 0)
			_exit(1);
		kt_sync_post(&s);
		if (hold_ms < 0)
			raise(SIGSTOP);
		else
			usleep((useconds_t)hold_ms * 1000);
		_exit(0);
	}
	kt_sync_wait(&s);
	return pid;
}

static void holder_end(pid_t pid)
{
	kill(pid, SIGKILL);
	(void)waitpid(pid, NULL, 0);
}

static uint64_t ms_since(uint64_t start_us)
{
	return (kt_now_us() - start_us) / 1000;
}

KT_TEST(uncontended_lock_is_taken_at_once)
{
	int fd = open_lock(), other = open_lock();
	uint64_t t0 = kt_now_us();

	KT_ASSERT_KN(kn_flock_timeout(fd, LOCK_EX, 5000), 0);
	KT_ASSERT_MSG(ms_since(t0) < SLACK_MS, "took %llu ms", (unsigned long long)ms_since(t0));
	/* It is held: another open file description cannot have it. */
	KT_ASSERT_ERRNO(flock(other, LOCK_EX | LOCK_NB), EWOULDBLOCK);
	KT_ASSERT_KN(kn_flock_timeout(other, LOCK_EX, 0), -ETIMEDOUT);
}

KT_TEST(stopped_holder_costs_the_bound)
{
	pid_t pid = holder(LOCK_EX, -1);
	int fd = open_lock();
	uint64_t t0 = kt_now_us(), ms;

	KT_ASSERT_KN(kn_flock_timeout(fd, LOCK_EX, 400), -ETIMEDOUT);
	ms = ms_since(t0);
	kt_note("gave up after %llu ms (bound 400 ms)", (unsigned long long)ms);
	KT_ASSERT_MSG(ms >= 400 && ms < 400 + SLACK_MS, "gave up after %llu ms",
		      (unsigned long long)ms);
	/* A shared lock does not get past an exclusive holder either. */
	KT_ASSERT_KN(kn_flock_timeout(fd, LOCK_SH, 50), -ETIMEDOUT);
	holder_end(pid);
	/* Its holder gone, the lock is free again. */
	KT_ASSERT_KN(kn_flock_timeout(fd, LOCK_EX, 5000), 0);
}

KT_TEST(zero_timeout_is_one_try)
{
	pid_t pid = holder(LOCK_EX, -1);
	int fd = open_lock();
	uint64_t t0 = kt_now_us();

	KT_ASSERT_KN(kn_flock_timeout(fd, LOCK_EX, 0), -ETIMEDOUT);
	KT_ASSERT_MSG(ms_since(t0) < SLACK_MS, "took %llu ms", (unsigned long long)ms_since(t0));
	holder_end(pid);
}

KT_TEST(lock_released_during_the_wait_is_taken)
{
	pid_t pid = holder(LOCK_EX, 300);
	int fd = open_lock();
	uint64_t t0 = kt_now_us(), ms;

	KT_ASSERT_KN(kn_flock_timeout(fd, LOCK_EX, 20000), 0);
	ms = ms_since(t0);
	kt_note("taken after %llu ms (released after about 300 ms)", (unsigned long long)ms);
	/* Not before the release; long before the bound (backoff at most 32 ms). */
	KT_ASSERT_MSG(ms >= 250 && ms < 300 + SLACK_MS, "taken after %llu ms",
		      (unsigned long long)ms);
	holder_end(pid);
}

KT_TEST(shared_holders_do_not_wait_for_each_other)
{
	pid_t pid = holder(LOCK_SH, -1);
	int fd = open_lock();

	KT_ASSERT_KN(kn_flock_timeout(fd, LOCK_SH, 0), 0);
	KT_ASSERT_KN(kn_flock_timeout(open_lock(), LOCK_EX, 50), -ETIMEDOUT);
	holder_end(pid);
}

KT_TEST(bad_arguments)
{
	int fd = open_lock();

	KT_ASSERT_KN(kn_flock_timeout(-1, LOCK_EX, 10), -EBADF);
	KT_ASSERT_KN(kn_flock_timeout(fd, LOCK_UN, 10), -EINVAL);
	KT_ASSERT_KN(kn_flock_timeout(fd, LOCK_EX | LOCK_NB, 10), -EINVAL);
	KT_ASSERT_KN(kn_flock_timeout(fd, 0, 10), -EINVAL);
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* The PAM application's alarm(), handler and mask are its own: none changes. */
KT_TEST(caller_signal_state_is_left_alone)
{
	struct sigaction sa = {.sa_handler = on_alarm}, before, after;
	sigset_t mask_before, mask_after;
	pid_t pid = holder(LOCK_EX, -1);
	int fd = open_lock();
	unsigned left;

	/* the kernel fills 64 of sigset_t's 1024 bits: the rest must be zero to compare */
	sigemptyset(&mask_before);
	sigemptyset(&mask_after);
	KT_ASSERT_OK(sigaction(SIGALRM, &sa, NULL));
	KT_ASSERT_OK(sigaction(SIGALRM, NULL, &before));
	KT_ASSERT_OK(sigprocmask(SIG_BLOCK, NULL, &mask_before));
	alarm(100);
	KT_ASSERT_KN(kn_flock_timeout(fd, LOCK_EX, 300), -ETIMEDOUT);
	left = alarm(0);
	KT_ASSERT_MSG(left >= 98 && left <= 100, "the caller's alarm() now has %u s left", left);
	KT_ASSERT_OK(sigaction(SIGALRM, NULL, &after));
	KT_ASSERT(after.sa_handler == before.sa_handler && after.sa_flags == before.sa_flags);
	KT_ASSERT_OK(sigprocmask(SIG_BLOCK, NULL, &mask_after));
	for (int sig = 1; sig < NSIG; sig++)
		KT_ASSERT_EQ(sigismember(&mask_before, sig), sigismember(&mask_after, sig));
	KT_ASSERT_EQ(alarms, 0);
	holder_end(pid);
}

/* A signal every 2 ms during the wait: each is delivered, the bound holds. */
KT_TEST(signals_during_the_wait_keep_the_bound)
{
	struct sigaction sa = {.sa_handler = on_alarm}; /* no SA_RESTART */
	struct itimerval every = {.it_interval = {0, 2000}, .it_value = {0, 2000}}, off = {0};
	pid_t pid = holder(LOCK_EX, -1);
	int fd = open_lock();
	uint64_t t0, ms;

	KT_ASSERT_OK(sigaction(SIGALRM, &sa, NULL));
	alarms = 0;
	t0 = kt_now_us();
	KT_ASSERT_OK(setitimer(ITIMER_REAL, &every, NULL));
	KT_ASSERT_KN(kn_flock_timeout(fd, LOCK_EX, 400), -ETIMEDOUT);
	KT_ASSERT_OK(setitimer(ITIMER_REAL, &off, NULL));
	ms = ms_since(t0);
	kt_note("%d signals during a wait of %llu ms", (int)alarms, (unsigned long long)ms);
	KT_ASSERT_MSG(ms >= 400 && ms < 400 + SLACK_MS, "gave up after %llu ms",
		      (unsigned long long)ms);
	KT_ASSERT_MSG(alarms > 10, "only %d signals arrived", (int)alarms);
	holder_end(pid);
}

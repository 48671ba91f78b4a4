/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * flock(2) with a bound on the wait. A blocking flock() waits as long as
 * the holder keeps the lock, and a holder can be a process its owner has
 * stopped (a user SIGSTOPs her own su while it holds her lock): whoever
 * waits behind it, a login of hers or root's pam_namespace_check --drop,
 * hangs with it.
 *
 * The usual cure, alarm() or a timer signal that interrupts the blocking
 * call, is not ours to use: the caller is a PAM application (login, sshd,
 * su) whose signal handlers, mask and pending alarm() belong to it, and a
 * signal of ours could reach one of its threads or handlers. A thread that
 * blocks in flock() on our behalf cannot be called back when the time is
 * up. So the lock is tried with LOCK_NB, and between tries the caller sleeps
 * with nanosleep(2), which touches no signal state, 1 ms at first and twice
 * as long each time up to 32 ms: an uncontended lock costs one system call,
 * a lock held for a moment is taken within a few milliseconds of its
 * release, and a stopped holder costs at most the bound. The deadline is on
 * CLOCK_MONOTONIC, so neither a signal cutting a sleep short nor a change of
 * the wall clock moves it.
 *
 * Unlike a blocked flock(), polling joins no queue: under a steady stream
 * of other holders a poller may see the lock taken at every try and give
 * up at the bound. That is the trade the bound asks for.
 */
#include <errno.h>
#include <sys/file.h>
#include <time.h>

#include "kernel.h"
#include "sys.h"

#define KN_FLOCK_FIRST_NS 1000000LL  /* 1 ms */
#define KN_FLOCK_MAX_NS	  32000000LL /* 32 ms */

long long kn_now_ns(void)
{
	struct timespec ts;

	/* CLOCK_MONOTONIC cannot fail with a valid clock id and pointer. */
	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int kn_flock_timeout(int fd, int op, unsigned timeout_ms)
{
	long long deadline = 0, step = KN_FLOCK_FIRST_NS;

	if (op != LOCK_EX && op != LOCK_SH)
		return -EINVAL;
	for (;;) {
		struct timespec ts;
		long long left;

		if (flock(fd, op | LOCK_NB) == 0)
			return 0;
		/* EINTR too is retried within the deadline, never past it */
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		/*
		 * The clock is read from the first refusal on, not before a lock
		 * that is free: a session's first clock read costs it a fault on
		 * the vDSO's data page (4 us measured), for a wait that rarely comes.
		 */
		if (!deadline)
			deadline = kn_now_ns() + (long long)timeout_ms * 1000000LL;
		left = deadline - kn_now_ns();
		if (left <= 0)
			return -ETIMEDOUT;
		if (step > left)
			step = left;
		ts.tv_sec = (time_t)(step / 1000000000LL);
		ts.tv_nsec = (long)(step % 1000000000LL);
		/* Cut short by a signal: the loop tries again and the deadline still holds. */
		(void)nanosleep(&ts, NULL);
		if (step < KN_FLOCK_MAX_NS)
			step *= 2;
	}
}

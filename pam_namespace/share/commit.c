/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * share_namespace's commit (internal.h): the commit hook that
 * ns_apply() calls in a namespace just built, which pins it from the
 * original namespace and writes its state and first session record.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel.h"
#include "internal.h"
#include "share.h"

/* Drop what pinning made (pin, state, records), saying so when that fails too. */
static void drop_logged(const struct ns_share *sh, ns_apply_log_fn log, void *ud)
{
	int k = ns_share_drop(sh->dir_fd, sh->key, &(struct ns_share_state){0}, true);

	if (k < 0)
		log(ud, false, "share_namespace: cannot drop the pin %s.ns again: %s", sh->where,
		    strerror(-k));
}

/* What a bind of a namespace older by id than the caller's fails with (below). */
static bool pin_loops(int r)
{
	return r == -ELOOP || r == -EINVAL;
}

/*
 * The kernel binds a mount namespace's file only into a namespace with a
 * smaller id (mnt_ns_loop(): no namespace can then hold itself through
 * another), and hands ids out in per-CPU batches (6.18 here): a
 * namespace made on one CPU can have a smaller id than one made earlier on
 * another. Process 1's namespace, made at boot, is the oldest by id; but
 * where process 1 is a container's init (or a test's sandbox) the bind
 * fails with ELOOP for the sessions built on some CPUs (2 of 8 quick
 * logins, seen). Ids on one CPU only grow, so a copy of the built namespace
 * made on the CPU that made process 1's (which one is not told: each CPU
 * is tried, those outside the caller's affinity too) is newer than it and
 * can be pinned. The thread's CPU affinity is the application's and is put
 * back at once. mount(2), where open_tree() is missing (or unknown to
 * valgrind), says EINVAL where move_mount() says ELOOP; EINVAL can also be
 * a pin directory that propagates, for which each copy fails the same way.
 * Returns 0 with *built the pinned copy (the caller then returns into it),
 * or the last error; nothing is left pinned on failure.
 */
static int pin_copy_elsewhere(struct kn_ns_saved *built, const struct kn_ns_saved *orig, int dir_fd,
			      const char *pin, enum kn_propagation prop, struct stat *ret_st)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	cpu_set_t was, one;
	int r = -ELOOP, k;

	if (sched_getaffinity(0, sizeof(was), &was) < 0)
		return r;
	/* every CPU, not only those the caller runs on: su under taskset runs on one */
	for (int cpu = 0; cpu < ncpu && cpu < CPU_SETSIZE && pin_loops(r); cpu++) {
		struct kn_ns_saved copy = KN_NS_SAVED_INIT;

		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		/* the thread runs on cpu when this returns */
		if (sched_setaffinity(0, sizeof(one), &one) < 0)
			continue;
		k = kn_ns_return(built);
		if (k == 0)
			k = kn_ns_enter_new(prop);
		if (k == 0)
			k = kn_ns_save(&copy);
		/* back where pins are made, wherever the steps above stopped */
		r = kn_ns_restore(orig);
		if (r < 0) {
			kn_ns_saved_close(&copy);
			break;
		}
		if (k < 0) {
			r = k;
			break;
		}
		r = kn_pin_ns(copy.ns_fd, dir_fd, pin, ret_st);
		if (r == 0) {
			kn_ns_saved_close(built);
			*built = copy;
		} else {
			kn_ns_saved_close(&copy);
		}
	}
	(void)sched_setaffinity(0, sizeof(was), &was);
	return r;
}

/*
 * ns_apply's commit hook: in the new namespace, built, pin it from the
 * original one. A pin that cannot be made leaves the session unshared (0,
 * not pinned). A failure to come back into the new namespace fails the
 * attempt (< 0, pc->lost): the pin, state and record made are dropped
 * here, and apply's rollback takes the caller back to its place and
 * removes the instances, whether this left it in the original namespace
 * or the new; ns_share_open() then builds again, unshared.
 */
int share_pin_built(void *arg, const struct ns_session *sess, struct ns_failure *fail)
{
	struct share_pin_ctx *pc = arg;
	const struct ns_share *sh = pc->sh;
	struct kn_ns_saved built = KN_NS_SAVED_INIT;
	struct ns_share_state st = {0};
	char *pin = share_file_name(sh->key, ".ns");
	struct stat pst;
	int r, k;

	pc->pinned = false;
	pc->lost = false;
	if (!pin) {
		pc->log(pc->ud, false, "share_namespace: cannot pin %s.ns (%s): not shared",
			sh->where, strerror(ENOMEM));
		return 0;
	}
	r = kn_ns_save(&built);
	if (r < 0) {
		pc->log(pc->ud, false,
			"share_namespace: cannot open the new namespace (%s): not shared",
			strerror(-r));
		free(pin);
		return 0;
	}
	/* In the built namespace, surely: no need to ask where (kn_ns_restore would). */
	r = kn_ns_return(pc->orig);
	if (r < 0) {
		/*
		 * Its setns, or what followed, failed: back into the new one,
		 * unshared. A refused setns() moved nothing, and a second one
		 * into the namespace the caller is still in would be refused
		 * too: kn_ns_restore() only moves what moved.
		 */
		k = kn_ns_restore(&built);
		if (k < 0) {
			pc->lost = true;
			r = ns_fail(fail, NULL, "returning to the new namespace", NULL, k, NULL);
			goto out;
		}
		pc->log(pc->ud, false,
			"share_namespace: cannot return to the original namespace (%s): not shared",
			strerror(-r));
		r = 0;
		goto out;
	}
	r = kn_pin_ns(built.ns_fd, sh->dir_fd, pin, &pst);
	if (r == -EEXIST) {
		/* No state, under the lock: left by a session killed while it pinned. */
		(void)kn_unpin_ns(sh->dir_fd, pin);
		r = kn_pin_ns(built.ns_fd, sh->dir_fd, pin, &pst);
	}
	if (pin_loops(r))
		r = pin_copy_elsewhere(&built, pc->orig, sh->dir_fd, pin, pc->prop, &pst);
	if (r < 0) {
		pc->log(pc->ud, false,
			"share_namespace: cannot pin the namespace on %s.ns (%s): not shared",
			sh->where, strerror(-r));
	} else {
		r = share_state_from_session(&st, pc->user, sess, &pst);
		if (r == 0)
			r = ns_share_state_write(sh->dir_fd, sh->key, &st);
		if (r == 0)
			r = ns_share_session_add(sh->dir_fd, sh->key, &sh->self);
		if (r < 0) {
			pc->log(pc->ud, false,
				"share_namespace: cannot write %s.state (%s): not shared",
				sh->where, strerror(-r));
			drop_logged(sh, pc->log, pc->ud);
		} else {
			pc->pinned = true;
		}
	}
	r = kn_ns_return(&built);
	if (r < 0) {
		if (pc->pinned)
			drop_logged(sh, pc->log, pc->ud);
		pc->pinned = false;
		pc->lost = true;
		r = ns_fail(fail, NULL, "entering the new namespace again", NULL, r, NULL);
	}
out:
	ns_share_state_free(&st);
	kn_ns_saved_close(&built);
	free(pin);
	return r;
}

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * share_namespace's open, join and close (share.h): the steps a session
 * takes under the user's lock, on top of the store (store.c, records.c,
 * pin.c), with commit.c's hook pinning what ns_apply() built.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel.h"
#include "internal.h"
#include "share.h"

void ns_share_free(struct ns_share *share)
{
	if (!share)
		return;
	if (share->dir_fd >= 0)
		close(share->dir_fd);
	free(share->key);
	free(share->where);
	free(share);
}

/*
 * Only from the init process's mount namespace, unchrooted: a namespace
 * built anywhere else would carry that place's mounts (another user's
 * session, a service's private /tmp) into every later login of the user.
 * own_ns: the caller's namespace where it is open already, else -1.
 */
static const char *share_refused_here(int own_ns)
{
	char root[2];
	ssize_t n = readlink("/proc/self/root", root, sizeof(root));
	int init_ns, same;

	if (n != 1 || root[0] != '/')
		return "the process is chrooted";
	init_ns = kn_ns_open_pid(1);
	if (init_ns < 0)
		return "the init process's mount namespace cannot be opened";
	same = kn_ns_same(init_ns, own_ns);
	close(init_ns);
	if (same != 1)
		return "the process is not in the init process's mount namespace";
	return NULL;
}

/*
 * The pin directory and the user's in it, with the user's lock taken; 1 if
 * any is untrusted or the lock is not had within NS_SHARE_LOCK_MS (its
 * holder stopped by its user, say): the session then builds a namespace of
 * its own rather than wait.
 */
static int share_enter(struct ns_share *sh, int *ret_lock, ns_apply_log_fn log, void *ud)
{
	bool fixed_top = false, fixed_user = false;
	const char *what;
	int top, r;

	r = top = share_dir_open(&what, &fixed_top);
	if (r >= 0) {
		what = "opening the user's directory in";
		r = sh->dir_fd = ns_share_user_dir_repair(top, sh->uid, true, &fixed_user);
		close(top);
	}
	if (fixed_top)
		log(ud, false, "share_namespace: %s was not root:root 0700: made so", NS_SHARE_DIR);
	if (fixed_user)
		log(ud, false, "share_namespace: %s/%u was not root:root 0700: made so",
		    NS_SHARE_DIR, (unsigned)sh->uid);
	if (r < 0) {
		log(ud, false,
		    "share_namespace: %s %s: %s%s: this session gets a namespace of its own", what,
		    NS_SHARE_DIR,
		    r == -ETIMEDOUT ? "its lock is held by a stopped or stuck session"
				    : strerror(-r),
		    r == -EPERM ? " (must be root's, mode 0700, on trusted parents)" : "");
		return 1;
	}
	r = *ret_lock = ns_share_lock(sh->dir_fd, NS_SHARE_LOCK_MS);
	if (r < 0) {
		if (r == -ETIMEDOUT)
			log(ud, false,
			    "share_namespace: %s/%u/lock held for over %u ms by a stopped or stuck "
			    "session: this session gets a namespace of its own",
			    NS_SHARE_DIR, (unsigned)sh->uid, (unsigned)NS_SHARE_LOCK_MS);
		else
			log(ud, false,
			    "share_namespace: cannot lock %s/%u/lock: %s: this session gets a "
			    "namespace of its own",
			    NS_SHARE_DIR, (unsigned)sh->uid, strerror(-r));
		return 1;
	}
	return 0;
}

/*
 * The record, then setns(). Share mode's own troubles (a /run too full for
 * the record, a setns() that the kernel or a policy refuses) never refuse
 * the login: the session builds a namespace of its own (1, logged), as a
 * build that cannot pin does. Nothing needs putting back for that: a
 * failed unshare(CLONE_FS) or setns() changes nothing (the kernel moves
 * root and working directory only once the namespace is entered), and the
 * fs_struct copy that kn_ns_join() may have made holds the same root,
 * working directory and umask. The namespace is not opened to save it
 * either: a policy may deny the caller its own nsfs file (Debian's
 * local_login_t), and a join needs none.
 */
static int join_pin(struct ns_share *sh, int pin, ns_apply_log_fn log, void *ud)
{
	const char *what = "recording this session for";
	struct ns_cwd cwd = {0};
	int r, k;

	r = ns_share_session_add(sh->dir_fd, sh->key, &sh->self);
	if (r == 0) {
		what = "joining";
		/* setns() puts the process at the namespace's root: see ns_cwd_restore. */
		ns_cwd_save(&cwd, -1);
		r = kn_ns_join(pin);
		if (r < 0) {
			k = ns_share_session_remove(sh->dir_fd, sh->key, &sh->self);
			if (k < 0)
				log(ud, false,
				    "share_namespace: cannot remove the record of %s: %s",
				    sh->where, strerror(-k));
		}
	}
	if (r == 0) {
		ns_cwd_restore(&cwd, true);
		log(ud, true, "share_namespace: joined %s.ns", sh->where);
	} else {
		log(ud, false,
		    "share_namespace: %s %s.ns: %s: this session gets a namespace of its own", what,
		    sh->where, strerror(-r));
		r = 1;
	}
	ns_cwd_free(&cwd);
	return r;
}

/*
 * Join: the caller's root must be the one the namespace was pinned with
 * (setns() moves the root to the namespace's, which would take a chrooted
 * caller out of its chroot) and the pin what was recorded. 1 if this
 * session cannot join and builds its own (logged); 0 joined.
 */
static int share_join(struct ns_share *sh, const struct ns_share_state *st, ns_apply_log_fn log,
		      void *ud)
{
	struct stat root;
	const char *why;
	int pin, r;

	if (stat("/", &root) < 0 || root.st_dev != st->root_dev || root.st_ino != st->root_ino) {
		log(ud, false,
		    "share_namespace: the process's root is not the one %s.ns was pinned with "
		    "(chrooted?): this session gets a namespace of its own",
		    sh->where);
		return 1;
	}
	pin = ns_share_pin_open(sh->dir_fd, sh->key, st);
	/* From another namespace (su within a session) the pins are out of sight. */
	why = pin < 0 ? share_refused_here(-1) : NULL;
	if (why) {
		log(ud, false, "share_namespace: %s: this session gets a namespace of its own",
		    why);
		return 1;
	}
	if (pin < 0) {
		log(ud, false,
		    "share_namespace: refusing %s.ns: %s: this session gets a namespace of its own",
		    sh->where,
		    pin == -ESTALE	  ? "not the namespace that was pinned"
		    : pin == -EMEDIUMTYPE ? "not a mount namespace"
					  : strerror(-pin));
		return 1;
	}
	r = join_pin(sh, pin, log, ud);
	close(pin);
	return r;
}

/*
 * Under the user's lock: prune the user's gone session records (every key),
 * hold to the cap on live ones, read KEY.state. Returns 0 with st read (its
 * live sessions in it) or empty (st->ino 0: no state), 1 if the session is
 * to go unshared (logged), < 0 if the sessions of an existing pin cannot be
 * listed: not knowing who is there is no proof that nobody is, so the pin
 * is neither joined nor dropped (the caller goes unshared).
 */
static int share_scan(const struct ns_share *sh, struct ns_share_state *st, ns_apply_log_fn log,
		      void *ud)
{
	struct ns_share_state recs = {0};
	size_t stale = 0;
	int listed, r;

	listed = ns_share_sessions(sh->dir_fd, sh->key, NS_SHARE_SCAN_PRUNE, &recs, &stale);
	if (stale)
		log(ud, false, "share_namespace: %s: dropped %zu session%s gone", sh->where, stale,
		    stale == 1 ? "" : "s");
	if (listed == 0 && recs.user_sessions >= NS_SHARE_MAX_SESSIONS) {
		log(ud, false,
		    "share_namespace: %s/%u: the user has %zu sessions recorded, the most there "
		    "may be: this session gets a namespace of its own",
		    NS_SHARE_DIR, (unsigned)sh->uid, recs.user_sessions);
		free(recs.sessions);
		return 1;
	}
	r = ns_share_state_read(sh->dir_fd, sh->key, st);
	if (r == -ENOENT) {
		r = 0;
	} else if (r == 0 && listed < 0) {
		r = listed;
	} else if (r == 0) {
		st->sessions = recs.sessions;
		st->n_sessions = recs.n_sessions;
		recs.sessions = NULL;
	} else {
		log(ud, false,
		    "share_namespace: refusing %s.state: %s: this session gets a namespace of its "
		    "own",
		    sh->where,
		    r == -EPERM	   ? "not root's or not private"
		    : r == -EPROTO ? "of a format this build cannot join (left to its sessions)"
				   : strerror(-r));
		r = 1;
	}
	free(recs.sessions);
	return r;
}

int ns_share_open(const struct ns_plan *plan, const struct ns_apply_opts *opts, uid_t uid,
		  const char *key, struct ns_session *sess, struct ns_share **ret_share,
		  struct ns_failure *fail, ns_apply_log_fn log, void *ud)
{
	struct kn_ns_saved orig = KN_NS_SAVED_INIT;
	struct ns_share_state st = {0};
	struct ns_share *share;
	const char *why;
	int lock = -1, r;

	*ret_share = NULL;
	*fail = (struct ns_failure){0};
	share = calloc(1, sizeof(*share));
	if (!share)
		return ns_fail(fail, NULL, "sharing the namespace", NULL, -ENOMEM, NULL);
	share->dir_fd = -1;
	share->uid = uid;
	share->key = strdup(key);
	if (!share->key ||
	    asprintf(&share->where, "%s/%u/%s", NS_SHARE_DIR, (unsigned)uid, key) < 0) {
		share->where = NULL;
		r = ns_fail(fail, NULL, "sharing the namespace", NULL, -ENOMEM, NULL);
		goto out;
	}
	r = share_proc_self(&share->self);
	if (r < 0) {
		log(ud, false,
		    "share_namespace: cannot tell this process's identity (%s): this session gets "
		    "a namespace of its own",
		    strerror(-r));
		goto unshared;
	}
	if (share_enter(share, &lock, log, ud))
		goto unshared;

	r = share_scan(share, &st, log, ud);
	if (r < 0) {
		/* Neither joined nor dropped: the pin is left as it is. */
		log(ud, false,
		    "share_namespace: cannot list the sessions of %s.ns (%s): this session gets a "
		    "namespace of its own",
		    share->where, strerror(-r));
		r = 1;
	}
	if (r == 1)
		goto unshared;
	if (st.ino != 0) {
		if (st.n_sessions > 0) {
			if (share_join(share, &st, log, ud))
				goto unshared;
			*sess = (struct ns_session){0};
			*ret_share = share;
			share = NULL;
			goto out;
		}
		/*
		 * Every session died without closing: start afresh, from
		 * process 1's namespace only, where the tmpdir instances are
		 * found by the paths the state has. From elsewhere (su within
		 * a session) they would be looked for in the wrong place and
		 * left behind: the stale pin waits for an open from there.
		 */
		why = share_refused_here(-1);
		if (why) {
			log(ud, false,
			    "share_namespace: %s: the stale pin %s.ns is left to a session opened "
			    "from there; this one gets a namespace of its own",
			    why, share->where);
			goto unshared;
		}
		r = ns_share_drop(share->dir_fd, key, &st, false);
		if (r < 0)
			log(ud, false, "share_namespace: dropping the stale pin %s.ns: %s",
			    share->where, strerror(-r));
	}

	/* Build and pin: only from process 1's namespace, unchrooted. */
	r = kn_ns_save(&orig);
	if (r < 0) {
		log(ud, false,
		    "share_namespace: cannot open this process's mount namespace (%s): this "
		    "session gets a namespace of its own",
		    strerror(-r));
		goto unshared;
	}
	why = share_refused_here(orig.ns_fd);
	if (why) {
		log(ud, false, "share_namespace: %s: this session gets a namespace of its own",
		    why);
		goto unshared;
	}
	{
		/*
		 * apply comes back to the place saved here, not to one of its
		 * own, and pins before it commits: a failed pin rolls it back.
		 */
		struct ns_apply_opts o = *opts;
		struct share_pin_ctx pc = {.sh = share,
					   .user = opts->user,
					   .orig = &orig,
					   .prop = opts->mount_private ? KN_PROPAGATION_PRIVATE
								       : KN_PROPAGATION_SLAVE,
					   .log = log,
					   .ud = ud};

		o.saved = &orig;
		/* The pin owns its instances: no marker, no user's leftovers here. */
		o.mark_tmpdirs = false;
		o.commit = share_pin_built;
		o.commit_userdata = &pc;
		r = ns_apply(plan, &o, sess, fail, log, ud);
		if (r < 0 && pc.lost && kn_ns_restore(&orig) == 0) {
			/*
			 * Pinning's trip out of the namespace built and back
			 * failed, and apply's rollback has the caller where it
			 * was: share mode's own trouble, which never refuses
			 * the login.
			 */
			log(ud, false,
			    "share_namespace: %s: %s: this session gets a namespace of its own",
			    fail->what, strerror(-fail->error));
			ns_failure_free(fail);
			goto unshared;
		}
		if (r < 0)
			goto out;
		if (pc.pinned) {
			share->built = true;
			ns_session_forget_tmpdirs(sess); /* the pin owns them now */
			log(ud, true, "share_namespace: pinned %s.ns", share->where);
			*ret_share = share;
			share = NULL;
		}
	}
	r = 0;
	goto out;

unshared:
	/* As without the argument. */
	ns_share_free(share);
	share = NULL;
	r = ns_apply(plan, opts, sess, fail, log, ud);
out:
	if (lock >= 0)
		close(lock);
	ns_share_state_free(&st);
	kn_ns_saved_close(&orig);
	ns_share_free(share);
	return r;
}

/* Whether a session other than self is in st's list. */
static bool others_alive(const struct ns_share_state *st, const struct ns_share_proc *self)
{
	for (size_t i = 0; i < st->n_sessions; i++)
		if (st->sessions[i].pid != self->pid || st->sessions[i].id != self->id)
			return true;
	return false;
}

/*
 * A step of the last close failed before the drop: all of it waits for the
 * next open. fail keeps the first error (r, when it is one already).
 */
static int close_left(struct ns_share *share, struct ns_failure *fail, int r, const char *what,
		      int error, ns_apply_log_fn log, void *ud)
{
	log(ud, false,
	    "share_namespace: %s.ns, its state, records and instances are left to the next open",
	    share->where);
	return r < 0 ? r : ns_fail(fail, NULL, what, share->where, error, NULL);
}

int ns_share_close(struct ns_share *share, bool unmount, struct ns_failure *fail,
		   ns_apply_log_fn log, void *ud)
{
	struct ns_share_state st = {0};
	struct kn_dir root = KN_DIR_INIT;
	bool own_left = false;
	int lock, r, k;

	*fail = (struct ns_failure){0};
	if (geteuid() != 0) {
		/*
		 * systemd closes user@.service's session in "(sd-pam)", which has
		 * dropped to the user: nothing here is the user's to change. The
		 * record goes stale when the manager exits; the unit's
		 * ExecStopPost (conf/user@.service.d) or the next open drops it.
		 */
		log(ud, true, "share_namespace: closing as uid %u, %s is left to the next open",
		    (unsigned)geteuid(), share->where);
		return 0;
	}
	lock = ns_share_lock(share->dir_fd, NS_SHARE_LOCK_MS);
	if (lock == -ETIMEDOUT) {
		/*
		 * A stopped session holds the lock. Removing this session's own
		 * record needs none (an open sees it or not, whole); what it
		 * leaves, were it the last, the next open finds without a live
		 * session and drops.
		 */
		(void)ns_share_session_remove(share->dir_fd, share->key, &share->self);
		log(ud, false,
		    "share_namespace: %s/%u/lock held for over %u ms by a stopped or stuck "
		    "session: %s.ns is left to the next open",
		    NS_SHARE_DIR, (unsigned)share->uid, (unsigned)NS_SHARE_LOCK_MS, share->where);
		return 0;
	}
	if (lock < 0)
		return close_left(share, fail, 0, "locking", lock, log, ud);
	/*
	 * A record that cannot be removed is this session's still: it is no
	 * other session, and goes with the others' if this one is the last.
	 */
	k = ns_share_session_remove(share->dir_fd, share->key, &share->self);
	if (k < 0 && k != -ENOENT) {
		own_left = true;
		log(ud, false, "share_namespace: cannot remove this session's record in %s: %s",
		    share->where, strerror(-k));
	}
	/* Another session alive: nothing more to read or do. */
	r = ns_share_sessions(share->dir_fd, share->key, NS_SHARE_SCAN_PRUNE, &st, NULL);
	if (r < 0) {
		r = close_left(share, fail, 0, "listing the sessions of", r, log, ud);
		goto out;
	}
	if (others_alive(&st, &share->self))
		goto out;
	ns_share_state_free(&st);
	r = ns_share_state_read(share->dir_fd, share->key, &st);
	if (r == -ENOENT) {
		r = 0; /* dropped by the administrator */
		goto out;
	}
	if (r < 0) {
		r = close_left(share, fail, 0, "reading the state of", r, log, ud);
		goto out;
	}

	/* The last session: its polydirs where asked, then the pin, from where it lives. */
	if (unmount) {
		struct stat own;
		int fd = kn_ns_open_own();

		if (fd >= 0 && fstat(fd, &own) == 0 && own.st_dev == st.dev && own.st_ino == st.ino)
			for (size_t i = st.n_polydirs; i-- > 0;) {
				k = kn_umount_path(st.polydirs[i]);

				if (k < 0 && k != -EINVAL && r == 0)
					r = ns_fail(fail, NULL, "unmounting", st.polydirs[i], k,
						    NULL);
			}
		if (fd >= 0)
			close(fd);
	}
	/*
	 * The pin is a mount in process 1's namespace (only a session there
	 * builds and pins), which removing its file detaches from anywhere.
	 * The tmpdir instances are found by path as that namespace sees
	 * them: walked from process 1's root, so that this process never
	 * leaves the session's namespace (a failed return would leave it
	 * elsewhere).
	 */
	if (st.n_tmpdirs > 0) {
		k = kn_dir_open_root_at("/proc/1/root", &root);
		if (k < 0) {
			r = close_left(share, fail, r, "opening process 1's root for", k, log, ud);
			goto out;
		}
	}
	k = ns_share_drop_from(share->dir_fd, share->key, &st, own_left,
			       st.n_tmpdirs > 0 ? &root : NULL, share->where, log, ud);
	if (k < 0 && r == 0)
		r = ns_fail(fail, NULL, "dropping", share->where, k, NULL);
	if (k == 0)
		log(ud, true, "share_namespace: last session closed, %s.ns unpinned", share->where);
out:
	kn_dir_close(&root);
	ns_share_state_free(&st);
	close(lock);
	return r;
}

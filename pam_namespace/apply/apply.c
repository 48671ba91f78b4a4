/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * Apply a plan: the only part of the module that changes the system.
 *
 * Everything that can be checked is checked before the namespace is
 * touched (the planner has already rejected bad lines). Then: unshare, /
 * recursively slave, and for each entry in file order resolve the paths by
 * descriptor, create what is missing, mount, run the init script. Any
 * failure puts the process back into the namespace it came from and removes
 * the instances this call made, so a failed login leaves nothing behind.
 *
 * This file owns the attempt as a whole (the order of the steps, commit and
 * rollback); the steps themselves are in instance.c, shares.c,
 * init-script.c and tmpdirs.c, with attempt.c below them all and the
 * close in session.c (see internal.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply.h"
#include "internal.h"
#include "kernel.h"
#include "rules.h"

static int add_polydir(struct apply_ctx *c, const char *polydir)
{
	char **p = realloc(c->sess.polydirs, (c->sess.n_polydirs + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	c->sess.polydirs = p;
	p[c->sess.n_polydirs] = strdup(polydir);
	if (!p[c->sess.n_polydirs])
		return -ENOMEM;
	c->sess.n_polydirs++;
	return 0;
}

static int apply_entry(struct apply_ctx *c, const struct ns_plan_entry *e)
{
	struct kn_dir poly;
	char *instance = NULL;
	bool created = false, parent_trusted = false, base_ok;
	int pfd, ifd, mnt_fd, k, guard_fd = -1;

	if (c->root.fd < 0) {
		k = kn_dir_open_root(&c->root);
		if (k < 0)
			return ns_fail(c->fail, e, "opening", "/", k, NULL);
	}
	pfd = apply_open_polydir(c, e, &parent_trusted, &base_ok);
	if (pfd < 0)
		return pfd;
	k = kn_dir_from_fd(pfd, parent_trusted, &poly);
	if (k < 0) {
		k = ns_fail(c->fail, e, "opening polydir", e->polydir, k, NULL);
		goto out;
	}

	if (e->method == NS_METHOD_TMPFS) {
		unsigned long flags = e->mount_flags | e->attr_flags;

		k = e->n_shares ? kn_tmpfs_fd_open(pfd, e->mntopts, flags)
				: kn_tmpfs_fd(pfd, e->mntopts, flags);
		if (k < 0) {
			k = ns_fail(c->fail, e, "mounting tmpfs on", e->polydir, k, NULL);
			goto out;
		}
		mnt_fd = e->n_shares ? k : -1;
		created = true;
		instance = strdup("tmpfs");
	} else {
		ifd = apply_open_instance(c, e, &poly, base_ok, &created, &instance);
		if (ifd < 0) {
			k = ifd;
			goto out;
		}
		if (e->quota) {
			k = kn_tmpfs_set_user_quota(ifd, e->quota_uid, e->quota_bytes,
						    e->quota_inodes);
			if (k < 0) {
				close(ifd);
				const char *why = ns_quota_refusal(k);

				k = ns_fail(c->fail, e, "refusing quota= for", instance,
					    why ? 0 : k, why ? ns_strdupf("%s", why) : NULL);
				goto out;
			}
		}
		/* Extended lines: flags on the new mount, and a hold on it for share=. */
		k = e->attr_flags || e->n_shares ? kn_bind_fd_open(ifd, pfd, e->attr_flags)
						 : kn_bind_fd(ifd, pfd);
		guard_fd = ifd; /* closed at out, after the init script */
		if (k < 0) {
			k = ns_fail(c->fail, e, "mounting the instance on", e->polydir, k, NULL);
			goto out;
		}
		mnt_fd = e->attr_flags || e->n_shares ? k : -1;
	}
	if (mnt_fd >= 0) {
		k = apply_mount_shares(c, e, &poly, mnt_fd);
		close(mnt_fd);
		if (k < 0)
			goto out;
	}
	if (!instance) {
		k = ns_fail(c->fail, e, "mounting", e->polydir, -ENOMEM, NULL);
		goto out;
	}
	k = add_polydir(c, e->polydir);
	if (k < 0) {
		k = ns_fail(c->fail, e, "mounting", e->polydir, k, NULL);
		goto out;
	}
	if (c->log && c->opts->debug)
		c->log(c->log_userdata, true, "%s:%u: %s: %s instance %s mounted on %s",
		       e->rule->file, e->rule->line, ns_method_to_string(e->method),
		       created ? "new" : "existing", instance, e->polydir);
	if (e->init_script)
		k = apply_run_init_script(c, e, instance, created);
	if (k == 0 && guard_fd >= 0)
		k = apply_keep_instance_private(c, e, guard_fd, &poly.st, instance);
out:
	if (guard_fd >= 0)
		close(guard_fd);
	free(instance);
	close(pfd);
	return k;
}

/*
 * The last resort of every working-directory step. "/" is always there to
 * enter; were it refused, nothing better is left, and the directory the
 * process has stays.
 */
static void chdir_root(void)
{
	if (chdir("/") < 0)
		return;
}

/*
 * Before the original user's instance is unmounted (unmnt_remnt), a working
 * directory inside it moves to the polydir's parent, where Linux-PAM puts
 * it too; otherwise it would be left in a detached tree. Inside means by
 * whole components: /tmpfoo is not in /tmp (Linux-PAM compared prefixes).
 */
static void leave_polydir(const char *polydir)
{
	char *cwd = getcwd(NULL, 0), *parent;

	if (!cwd)
		return;
	if (ns_path_inside(cwd, polydir)) {
		parent = strdup(polydir);
		if (parent) {
			char *slash = strrchr(parent, '/');

			if (slash == parent)
				slash[1] = '\0';
			else if (slash)
				*slash = '\0';
			if (chdir(parent) < 0)
				chdir_root();
		} else {
			chdir_root();
		}
		free(parent);
	}
	free(cwd);
}

void ns_cwd_save(struct ns_cwd *ret, int held_fd)
{
	struct stat st;

	*ret = (struct ns_cwd){.held_fd = held_fd};
	ret->path = getcwd(NULL, 0);
	if (held_fd >= 0 || stat(".", &st) < 0)
		return;
	ret->held = true;
	ret->dev = st.st_dev;
	ret->ino = st.st_ino;
}

/* Whether the process is (still) in the directory cwd saved. */
static bool cwd_is_held(const struct ns_cwd *cwd)
{
	struct stat held, st;

	if (cwd->held)
		held = (struct stat){.st_dev = cwd->dev, .st_ino = cwd->ino};
	else if (cwd->held_fd < 0 || fstat(cwd->held_fd, &held) < 0)
		return false;
	return stat(".", &st) == 0 && st.st_dev == held.st_dev && st.st_ino == held.st_ino;
}

/*
 * The one working-directory restore, after the session's mounts (plain) or
 * its setns() (a join), issue 31 point 6. Root must never re-enter the
 * directory by a name the user can redirect: alice's /tmp/work, in her
 * instance a link to /etc/security, where root's working directory was
 * root's own /tmp/work, would have put root's process in /etc/security.
 *
 * 1. The saved name walked again in the namespace the process is now in,
 *    with the walk every path of the module takes (kn_open_dir: no link
 *    followed below a directory others may write), and entered by the
 *    descriptor the walk gave. Outside the polydirs that is the same
 *    directory; inside one it is the instance's directory of that name, so
 *    that a process in /tmp sees its instance, not the real /tmp with other
 *    users' files (COMPATIBILITY.md `cwd-reentered`). A directory she made
 *    there is hers to be in, as any "cd" into her /tmp would be; nothing
 *    she can point elsewhere is followed.
 * 2. Where that walk fails (her link; nothing of that name), the directory
 *    the process had, if it still has it: unshare() carries the working
 *    directory into the new namespace's copy of its mount, so a plain
 *    session stays in the real /tmp/work underneath the mount, as
 *    Linux-PAM's does (it never changes directory). After setns() the
 *    process is at the namespace's root, and the directory it had is in
 *    another namespace: that is not taken.
 * 3. Otherwise "/".
 *
 * A plain session whose saved name lies under none of its polydirs (nor
 * the original user's it unmounted) has nothing new on that name: step 1
 * would reach the directory the process is in, so both steps are skipped
 * (covered false), and the process stays, as with Linux-PAM.
 */
void ns_cwd_restore(const struct ns_cwd *cwd, bool covered)
{
	int fd;

	if (!covered)
		return;
	fd = cwd->path && cwd->path[0] == '/' ? kn_open_dir(cwd->path, NULL) : -1;

	if (fd >= 0) {
		int k = fchdir(fd);

		close(fd);
		if (k == 0)
			return;
	}
	if (cwd_is_held(cwd))
		return;
	chdir_root();
}

void ns_cwd_free(struct ns_cwd *cwd)
{
	free(cwd->path);
	*cwd = (struct ns_cwd){.held_fd = -1};
}

/* Whether this session mounted or unmounted on the saved name or above it. */
static bool cwd_covered(const struct ns_cwd *cwd, const struct ns_plan *plan,
			const struct ns_apply_opts *opts)
{
	if (!cwd->path)
		return false;
	for (size_t i = 0; i < plan->n_entries; i++)
		if (ns_path_inside(cwd->path, plan->entries[i].polydir))
			return true;
	for (size_t i = 0; i < opts->n_unmount_first; i++)
		if (ns_path_inside(cwd->path, opts->unmount_first[i]))
			return true;
	return false;
}

int ns_apply(const struct ns_plan *plan, const struct ns_apply_opts *opts, struct ns_session *sess,
	     struct ns_failure *fail, ns_apply_log_fn log, void *log_userdata)
{
	struct kn_ns_saved own = KN_NS_SAVED_INIT;
	const struct kn_ns_saved *saved = opts->saved ? opts->saved : &own;
	struct apply_ctx c = {.opts = opts,
			      .fail = fail,
			      .log = log,
			      .log_userdata = log_userdata,
			      .root = KN_DIR_INIT};
	struct ns_cwd cwd;
	bool stuck;
	int r;

	*fail = (struct ns_failure){0};
	if (plan->n_entries == 0 && opts->n_unmount_first == 0) {
		*sess = (struct ns_session){0};
		return 0;
	}

	/*
	 * A policy may refuse the login program the namespace file (Debian's
	 * SELinux policy gives local_login_t no access to nsfs). The session
	 * goes on without a way back: a failure then undoes what it made, in
	 * the new namespace, where the process stays.
	 */
	r = opts->saved ? 0 : kn_ns_save(&own);
	stuck = saved->ns_fd < 0;
	if (r == -EACCES || r == -EPERM) {
		if (log)
			log(log_userdata, false,
			    "cannot open this process's mount namespace (%s): a failed session "
			    "will not return to it",
			    strerror(-r));
	} else if (r < 0) {
		return ns_fail(c.fail, NULL, "saving the mount namespace", NULL, r, NULL);
	}
	ns_cwd_save(&cwd, saved->cwd_fd);
	r = kn_ns_enter_new(opts->mount_private ? KN_PROPAGATION_PRIVATE : KN_PROPAGATION_SLAVE);
	if (r < 0) {
		ns_fail(c.fail, NULL, "entering a new mount namespace", NULL, r, NULL);
		goto rollback;
	}

	/* Undo the original user's instances, in this namespace only; not mounted is fine. */
	for (size_t i = opts->n_unmount_first; i-- > 0;) {
		leave_polydir(opts->unmount_first[i]);
		r = kn_umount_path(opts->unmount_first[i]);
		if (r < 0 && r != -EINVAL && r != -ENOENT) {
			ns_fail(c.fail, NULL, "unmounting", opts->unmount_first[i], r, NULL);
			goto rollback;
		}
	}

	for (size_t i = 0; i < plan->n_entries; i++) {
		r = apply_entry(&c, &plan->entries[i]);
		if (r < 0)
			goto rollback;
	}
	if (opts->commit) {
		r = opts->commit(opts->commit_userdata, &c.sess, fail);
		if (r < 0)
			goto rollback;
	}
	ns_cwd_restore(&cwd, cwd_covered(&cwd, plan, opts));
	ns_cwd_free(&cwd);
	apply_undo_made(&c, false);
	apply_unlock_all(&c);
	kn_dir_close(&c.root);
	kn_ns_saved_close(&own);
	*sess = c.sess;
	return 0;

rollback:
	/* Back to the caller's namespace first: the new one dies with its mounts. */
	if (saved->ns_fd >= 0) {
		int k = kn_ns_restore(saved);

		/*
		 * Only where the process is known to be in the new namespace
		 * are its mounts undone: a setns that went through before a
		 * chroot or fchdir failed has it back among the caller's own.
		 */
		stuck = k < 0 && kn_ns_same(saved->ns_fd, -1) == 0;
		if (k < 0 && log)
			log(log_userdata, false,
			    "could not return to the original mount namespace after the failure: "
			    "%s%s",
			    strerror(-k),
			    stuck ? "; the session's mounts are undone where the process is"
				  : "; back in it, but not at its root or working directory");
	}
	/*
	 * Then what a close would undo: the tmpdir instances, and where the
	 * process could not go back the session's mounts too, since it stays.
	 */
	{
		struct ns_failure ignored;

		if (ns_session_close(&c.sess, stuck, &ignored, log, log_userdata) < 0 && log)
			log(log_userdata, false, "could not undo the failed session: %s %s: %s",
			    ignored.what, ignored.path ? ignored.path : "",
			    strerror(-ignored.error));
		ns_failure_free(&ignored);
	}
	ns_cwd_free(&cwd);
	apply_undo_made(&c, true);
	apply_unlock_all(&c);
	ns_session_free(&c.sess);
	kn_dir_close(&c.root);
	kn_ns_saved_close(&own);
	return r;
}

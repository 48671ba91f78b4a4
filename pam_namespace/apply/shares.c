/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * share= on extended lines: the directories of the real polydir bound into
 * the session's instance, each checked first, by descriptor, as one only
 * root (or the polydir's owner) controls. One that is not is left out of
 * the session, which goes on (refused only where the instance is shared by
 * several users).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "kernel.h"
#include "rules.h"

/*
 * One share= directory: 0 when it is bound into the instance; 1 when it is
 * not what it must be, *ret_why saying why (heap) and nothing made or
 * mounted for it; a negative errno, reported, on any other failure.
 *
 * The real directory is opened from the real polydir's descriptor without
 * following a symlink, and must be owned by root or the polydir's owner
 * and, if others may write it, sticky: otherwise a user who made
 * /tmp/.X11-unix before the X server did, or left a link there, would have
 * every session's X clients talk to their sockets. Its mount point is made
 * in the instance, or opened there without following a symlink, through
 * the new mount (mnt_fd): a mount made through the instance's own
 * descriptor would sit on the instance parent's mount.
 */
static int share_one(struct apply_ctx *c, const struct ns_plan_entry *e, const struct kn_dir *poly,
		     int mnt_fd, const char *path, char **ret_why)
{
	const char *name = strrchr(path, '/') + 1;
	struct stat st;
	int real, dst, k;

	real = kn_open_child_dir(poly->fd, name);
	if (real == -ELOOP || real == -ENOTDIR || real == -ENOENT) {
		*ret_why = ns_strdupf("it is %s in the real polydir",
				      real == -ELOOP	 ? "a symbolic link, not a directory,"
				      : real == -ENOTDIR ? "not a directory"
							 : "missing");
		return *ret_why ? 1 : ns_fail(c->fail, e, "sharing", path, -ENOMEM, NULL);
	}
	if (real < 0)
		return ns_fail(c->fail, e, "opening the shared directory", path, real, NULL);
	if (fstat(real, &st) < 0) {
		k = -errno;
		close(real);
		return ns_fail(c->fail, e, "opening the shared directory", path, k, NULL);
	}
	if (!ns_share_owner_ok(st.st_mode, st.st_uid, poly->st.st_uid)) {
		close(real);
		*ret_why = ns_strdupf("owner uid %u, mode %04o; it must be owned by root%s "
				      "and, if group or others may write it, sticky",
				      (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777),
				      poly->st.st_uid ? " or the polydir's owner" : "");
		return *ret_why ? 1 : ns_fail(c->fail, e, "sharing", path, -ENOMEM, NULL);
	}
	dst = kn_open_child_dir(mnt_fd, name);
	if (dst == -ENOENT) {
		dst = kn_mkdir_child(mnt_fd, name, st.st_mode & 07777, st.st_uid, st.st_gid);
		if (dst == -EEXIST) {
			dst = kn_open_child_dir(mnt_fd, name);
		} else if (dst >= 0) {
			/* Made now: a failure removes it, then the instance. */
			k = apply_remember_made(c, mnt_fd, name, path);
			if (k < 0) {
				close(dst);
				dst = k;
			}
		}
	}
	if (dst == -ELOOP || dst == -ENOTDIR) {
		/* Put there in the instance by the user (or, shared, another user). */
		close(real);
		*ret_why =
			ns_strdupf("the instance has %s at its place",
				   dst == -ELOOP ? "a symbolic link" : "something not a directory");
		return *ret_why ? 1 : ns_fail(c->fail, e, "sharing", path, -ENOMEM, NULL);
	}
	if (dst < 0) {
		close(real);
		return ns_fail(c->fail, e, "making the mount point in the instance for", path, dst,
			       NULL);
	}
	/* Not ro: a socket there must stay one a client can connect to. */
	k = kn_bind_fd_open(real, dst, e->attr_flags & ~MS_RDONLY);
	close(real);
	close(dst);
	if (k < 0)
		return ns_fail(c->fail, e, "mounting the shared directory on", path, k, NULL);
	close(k);
	return 0;
}

/*
 * share=: each directory of the real polydir named there is bound into the
 * instance, so that what lives there (the X server's and ICE's sockets)
 * stays the system's.
 *
 * One that is not what it must be is not shared, and the session goes on:
 * refusing it would let any user who made /tmp/.X11-unix first lock every
 * user of the line out. Not sharing exposes nothing: the user's directory
 * is never mounted anywhere, and the session sees at that path its own
 * instance's directory (or nothing), which only it and root can have put
 * there; its X clients then cannot reach the server through /tmp. Where the
 * instance is shared by several users, that directory could be another
 * user's, whose fake server would be handed the clients' X cookies: there
 * the session is refused as before.
 */
int apply_mount_shares(struct apply_ctx *c, const struct ns_plan_entry *e,
		       const struct kn_dir *poly, int mnt_fd)
{
	for (size_t i = 0; i < e->n_shares; i++) {
		const char *path = e->shares[i];
		char *why = NULL;
		int k = share_one(c, e, poly, mnt_fd, path, &why);

		if (k < 0)
			return k;
		if (k == 0)
			continue;
		if (ns_share_instance_is_shared(e))
			return ns_fail(c->fail, e, "refusing to share", path, 0, why);
		if (c->log)
			c->log(c->log_userdata, false,
			       "%s:%u: not sharing %s: %s; the session sees its own instance's "
			       "directory there",
			       e->rule->file, e->rule->line, path, why);
		free(why);
	}
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * share= on extended lines: the directories of the real polydir bound into
 * the session's instance, each checked first, by descriptor, as one only
 * root (or the polydir's owner) controls.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply.h"
#include "apply_internal.h"
#include "kernel.h"

/*
 * share=: each directory of the real polydir named there is bound into the
 * instance, so that what lives there (the X server's and ICE's sockets)
 * stays the system's. The real directory is opened from the real polydir's
 * descriptor without following a symlink, and must be owned by root or the
 * polydir's owner and, if others may write it, sticky: otherwise a user
 * who made /tmp/.X11-unix before the X server did, or left a link there,
 * would have every session's X clients talk to their sockets. Its mount
 * point is made in the instance, or opened there without following a
 * symlink, through the new mount (mnt_fd): a mount made through the
 * instance's own descriptor would sit on the instance parent's mount.
 */
int apply_mount_shares(struct apply_ctx *c, const struct ns_plan_entry *e,
		       const struct kn_dir *poly, int mnt_fd)
{
	for (size_t i = 0; i < e->n_shares; i++) {
		const char *path = e->shares[i], *name = strrchr(path, '/') + 1;
		struct stat st;
		int real, dst, k;

		real = kn_open_child_dir(poly->fd, name);
		if (real == -ELOOP || real == -ENOTDIR)
			return apply_fail(
				c, e, "refusing to share", path, 0,
				apply_strdupf("it is %s in the real polydir, not a directory",
					      real == -ELOOP ? "a symbolic link"
							     : "not a directory"));
		if (real < 0)
			return apply_fail(c, e, "opening the shared directory", path, real, NULL);
		if (fstat(real, &st) < 0) {
			k = -errno;
			close(real);
			return apply_fail(c, e, "opening the shared directory", path, k, NULL);
		}
		if (!ns_share_owner_ok(st.st_mode, st.st_uid, poly->st.st_uid)) {
			close(real);
			return apply_fail(
				c, e, "refusing to share", path, 0,
				apply_strdupf("owner uid %u, mode %04o; it must be owned by root%s "
					      "and, if group or others may write it, sticky",
					      (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777),
					      poly->st.st_uid ? " or the polydir's owner" : ""));
		}
		dst = kn_open_child_dir(mnt_fd, name);
		if (dst == -ENOENT) {
			dst = kn_mkdir_child(mnt_fd, name, st.st_mode & 07777, st.st_uid,
					     st.st_gid);
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
		if (dst < 0) {
			close(real);
			return apply_fail(c, e,
					  dst == -ELOOP
						  ? "refusing to share: a symbolic link in the "
						    "instance at"
						  : "making the mount point in the instance for",
					  path, dst == -ELOOP ? 0 : dst, NULL);
		}
		/* Not ro: a socket there must stay one a client can connect to. */
		k = kn_bind_fd_open(real, dst, e->attr_flags & ~MS_RDONLY);
		close(real);
		close(dst);
		if (k < 0)
			return apply_fail(c, e, "mounting the shared directory on", path, k, NULL);
		close(k);
	}
	return 0;
}

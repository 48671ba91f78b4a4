/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * SELinux: the user's context, the instance's context and name for the
 * context and level methods (SPEC section 2), labels. Every call that asks
 * the running system goes through an ops table, so the unit tests give
 * contexts on machines without SELinux; only context parsing (context_new)
 * is used directly, as it is pure string work.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel.h"
#include "ns-build.h"
#include "selinux.h"

#if HAVE_SELINUX
#include <selinux/context.h>
#include <selinux/get_context_list.h>
#include <selinux/label.h>
#include <selinux/selinux.h>
#include <sys/stat.h>

static int real_default_context(const char *user, char **ret)
{
	char *seuser = NULL, *level = NULL;
	int r;

	if (getseuserbyname(user, &seuser, &level) < 0)
		return -1;
	r = get_default_context_with_level(seuser, level, NULL, ret);
	free(seuser);
	free(level);
	return r;
}

static int real_compute_member_dir(const char *scon, const char *tcon, char **ret)
{
	security_class_t cls = string_to_security_class("dir");

	if (cls == 0) {
		errno = EINVAL;
		return -1;
	}
	return security_compute_member_raw(scon, tcon, cls, ret);
}

static int real_setexeccon(const char *con)
{
	return setexeccon_raw(con);
}

static int real_fsetfilecon(int fd, const char *con)
{
	return fsetfilecon_raw(fd, con);
}

static int real_default_dir_context(const char *path, char **ret)
{
	struct selabel_handle *h = selabel_open(SELABEL_CTX_FILE, NULL, 0);
	int r;

	if (!h)
		return -1;
	r = selabel_lookup_raw(h, ret, path, S_IFDIR);
	selabel_close(h);
	return r;
}

static const struct ns_selinux_ops real_ops = {
	.is_enabled = is_selinux_enabled,
	.getexeccon = getexeccon_raw,
	.getcon = getcon_raw,
	.default_context = real_default_context,
	.fgetfilecon = fgetfilecon_raw,
	.fsetfilecon = real_fsetfilecon,
	.compute_member_dir = real_compute_member_dir,
	.setexeccon = real_setexeccon,
	.default_dir_context = real_default_dir_context,
	.freecon = freecon,
	.getenforce = security_getenforce,
	.get_boolean_active = security_get_boolean_active,
};

/* c's string with its MLS range set to range, as a heap string. */
static int range_str(context_t c, const char *range, char **ret)
{
	const char *s;

	if (context_range_set(c, range) != 0 || !(s = context_str(c)))
		return -EINVAL;
	*ret = strdup(s);
	return *ret ? 0 : -ENOMEM;
}

/* level: con with the MLS range of range_from. */
static int with_range(const char *con, const char *range_from, char **ret)
{
	context_t c = context_new(con), from = context_new(range_from);
	const char *range;
	int r = -EINVAL;

	if (c && from && (range = context_range_get(from)))
		r = range_str(c, range, ret);
	if (c)
		context_free(c);
	if (from)
		context_free(from);
	return r;
}

/* con with its MLS range cut to the low level; *ret NULL when it has no range. */
static int low_level(const char *con, char **ret)
{
	context_t c = context_new(con);
	const char *range, *dash;
	char *low;
	int r = 0;

	*ret = NULL;
	if (!c)
		return -EINVAL;
	range = context_range_get(c);
	dash = range ? strchr(range, '-') : NULL;
	if (dash) {
		low = strndup(range, (size_t)(dash - range));
		r = low ? range_str(c, low, ret) : -ENOMEM;
		free(low);
	}
	context_free(c);
	return r;
}

#else

static int no_selinux(void)
{
	return 0;
}

static int no_con(char **ret)
{
	*ret = NULL;
	errno = EOPNOTSUPP;
	return -1;
}

static int no_user_con(const char *user, char **ret)
{
	return no_con(ret);
}

static int no_file_con(const char *path, char **ret)
{
	return no_con(ret);
}

static int no_fd_con(int fd, char **ret)
{
	return no_con(ret);
}

static int no_set(int fd, const char *con)
{
	errno = EOPNOTSUPP;
	return -1;
}

static int no_member(const char *scon, const char *tcon, char **ret)
{
	return no_con(ret);
}

static int no_exec(const char *con)
{
	return 0;
}

static void free_con(char *con)
{
	free(con);
}

static int no_boolean(const char *name)
{
	errno = EOPNOTSUPP;
	return -1;
}

static const struct ns_selinux_ops real_ops = {
	.is_enabled = no_selinux,
	.getexeccon = no_con,
	.getcon = no_con,
	.default_context = no_user_con,
	.fgetfilecon = no_fd_con,
	.fsetfilecon = no_set,
	.compute_member_dir = no_member,
	.setexeccon = no_exec,
	.default_dir_context = no_file_con,
	.freecon = free_con,
	.getenforce = no_selinux,
	.get_boolean_active = no_boolean,
};

static int with_range(const char *con, const char *range_from, char **ret)
{
	return -EOPNOTSUPP;
}

static int low_level(const char *con, char **ret)
{
	*ret = NULL;
	return -EOPNOTSUPP;
}
#endif

static const struct ns_selinux_ops *ops = &real_ops;

void ns_selinux_set_ops(const struct ns_selinux_ops *o)
{
	ops = o ? o : &real_ops;
}

bool ns_selinux_enabled(void)
{
	return ops->is_enabled() > 0;
}

/* The first of these that the loaded policy knows is the one it obeys. */
static const char *boolean_off(bool *known)
{
	static const char *const names[] = {"allow_polyinstantiation", "polyinstantiation_enabled"};

	*known = true;
	if (!ns_selinux_enabled() || ops->getenforce() != 1)
		return NULL;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int on = ops->get_boolean_active(names[i]);

		if (on >= 0)
			return on ? NULL : names[i];
		if (errno == EACCES) {
			*known = false;
			return names[i];
		}
	}
	return NULL;
}

const char *ns_selinux_polyinstantiation_off(void)
{
	bool known;
	const char *name = boolean_off(&known);

	return known ? name : NULL;
}

const char *ns_selinux_polyinstantiation_suspect(bool *known)
{
	return boolean_off(known);
}

/* A libselinux context as a heap string of ours, or NULL for none. */
static int take(char *con, char **ret)
{
	char *s = NULL;

	if (con) {
		s = strdup(con);
		ops->freecon(con);
		if (!s)
			return -ENOMEM;
	}
	*ret = s;
	return 0;
}

int ns_selinux_user_context(const struct ns_args *args, const char *user, char **ret)
{
	char *con = NULL;

	*ret = NULL;
	if (!ns_selinux_enabled())
		return 0;
	if (args->use_current_context) {
		if (ops->getcon(&con) < 0)
			return errno ? -errno : -EINVAL;
	} else if (args->use_default_context) {
		if (ops->default_context(user, &con) < 0)
			return errno ? -errno : -EINVAL;
	} else if (ops->getexeccon(&con) < 0) {
		/* No exec context to be had: the methods fall back to user (compat). */
		con = NULL;
	}
	return take(con, ret);
}

/* One libselinux call on fd: fsetfilecon of set, else fgetfilecon into *get. */
static int con_call(int fd, const char *set, char **get)
{
	int r = set ? ops->fsetfilecon(fd, set) : ops->fgetfilecon(fd, get);

	return r < 0 ? (errno ? -errno : -EINVAL) : 0;
}

/*
 * fgetxattr and fsetxattr answer EBADF on an O_PATH descriptor (still so on
 * 6.18), and libselinux before 3.1 does not go around it: where a call on
 * fd answers so, it is made again on the directory opened from fd (the
 * same inode, kn_reopen_dir), never on a name.
 */
static int fd_con(int fd, const char *set, char **get)
{
	int r = con_call(fd, set, get), rw;

	if (r != -EBADF)
		return r;
	rw = kn_reopen_dir(fd, O_RDONLY);
	if (rw < 0)
		return rw;
	r = con_call(rw, set, get);
	close(rw);
	return r;
}

int ns_selinux_member_context(void *userdata, const char *user_context, const char *polydir,
			      enum ns_method method, char **ret)
{
	char *poly_con = NULL, *member = NULL;
	int fd, r;

	*ret = NULL;
	if (!ns_selinux_enabled() || !user_context)
		return 0;
	/*
	 * The polydir's label from the descriptor the module's walk gives
	 * (kn_open_dir: no link followed below a directory others may write),
	 * never by name: getfilecon(polydir) followed any link, so a user who
	 * owns the polydir's parent could put one there for that moment and
	 * choose the label, and with it the instance's name and label
	 * (issue 31 point 7). The session's own walk to the polydir refuses
	 * such a link too.
	 */
	fd = kn_open_dir(polydir, NULL);
	if (fd < 0)
		return fd;
	r = fd_con(fd, NULL, &poly_con);
	close(fd);
	if (r < 0)
		return r;
	if (!poly_con)
		return -ENODATA;
	if (method == NS_METHOD_LEVEL) {
		r = with_range(poly_con, user_context, ret);
	} else if (ops->compute_member_dir(user_context, poly_con, &member) < 0) {
		r = errno ? -errno : -EINVAL;
	} else {
		r = member ? take(member, ret) : -ENODATA;
	}
	ops->freecon(poly_con);
	return r;
}

int ns_selinux_label_fd(int fd, const char *ctx)
{
	if (!ctx || !ns_selinux_enabled())
		return 0;
	return fd_con(fd, ctx, NULL);
}

int ns_selinux_label_fd_or_low(int fd, const char *ctx, char **ret_used)
{
	char *low = NULL;
	int r = ns_selinux_label_fd(fd, ctx);

	*ret_used = NULL;
	if ((r != -EACCES && r != -EPERM) || low_level(ctx, &low) < 0 || !low)
		return r;
	if (ns_selinux_label_fd(fd, low) < 0) {
		free(low);
		return r;
	}
	*ret_used = low;
	return 0;
}

int ns_selinux_label_like(int fd, int like_fd)
{
	char *con = NULL;
	int r;

	if (!ns_selinux_enabled())
		return 0;
	r = fd_con(like_fd, NULL, &con);
	if (r < 0)
		return r;
	if (!con)
		return -ENODATA;
	r = fd_con(fd, con, NULL);
	ops->freecon(con);
	return r;
}

int ns_selinux_label_new_dir(int fd, const char *path)
{
	char *con = NULL;
	int r;

	if (!ns_selinux_enabled())
		return 0;
	if (ops->default_dir_context(path, &con) < 0 || !con)
		return 0;
	r = ns_selinux_label_fd(fd, con);
	ops->freecon(con);
	return r;
}

int ns_selinux_reset_exec(void)
{
	if (!ns_selinux_enabled())
		return 0;
	if (ops->setexeccon(NULL) < 0)
		return errno ? -errno : -EINVAL;
	return 0;
}

/*
 * posix_spawn() gives the init script no moment between fork and exec, so
 * the exec context is reset in the caller around the spawn and put back
 * after it: *ret_saved is what ns_selinux_exec_restore() restores.
 */
int ns_selinux_exec_reset_saved(char **ret_saved)
{
	char *con = NULL;
	int r;

	*ret_saved = NULL;
	if (!ns_selinux_enabled())
		return 0;
	if (ops->getexeccon(&con) < 0)
		return errno ? -errno : -EINVAL;
	if (!con)
		return 0;
	if (ops->setexeccon(NULL) < 0) {
		r = errno ? -errno : -EINVAL;
		ops->freecon(con);
		return r;
	}
	*ret_saved = con;
	return 0;
}

void ns_selinux_exec_restore(char *saved)
{
	if (!saved)
		return;
	(void)ops->setexeccon(saved);
	ops->freecon(saved);
}

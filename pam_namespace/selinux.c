/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ns-build.h"
#include "selinux.h"

#if HAVE_SELINUX
#include <selinux/context.h>
#include <selinux/get_context_list.h>
#include <selinux/selinux.h>

bool ns_selinux_enabled(void)
{
	return is_selinux_enabled() > 0;
}

static int dup_and_free(char *con, char **ret)
{
	char *s = strdup(con);

	freecon(con);
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

int ns_selinux_user_context(const struct ns_args *args, const char *user, char **ret)
{
	char *con = NULL, *seuser = NULL, *level = NULL;
	int r;

	if (!ns_selinux_enabled()) {
		*ret = NULL;
		return 0;
	}
	if (args->use_current_context) {
		if (getcon_raw(&con) < 0)
			return -errno;
	} else if (args->use_default_context) {
		if (getseuserbyname(user, &seuser, &level) < 0)
			return -errno;
		r = get_default_context_with_level(seuser, level, NULL, &con);
		free(seuser);
		free(level);
		if (r < 0)
			return -errno;
	} else {
		if (getexeccon_raw(&con) < 0)
			return -errno;
		if (!con && getcon_raw(&con) < 0)
			return -errno;
	}
	if (!con) {
		*ret = NULL;
		return 0;
	}
	return dup_and_free(con, ret);
}

/* level: the polydir's context with the MLS range of the user's context. */
static int with_user_range(const char *poly_con, const char *user_con, char **ret)
{
	context_t pc = context_new(poly_con), uc = context_new(user_con);
	const char *range, *s;
	int r = -EINVAL;

	if (!pc || !uc)
		goto out;
	range = context_range_get(uc);
	if (!range || context_range_set(pc, range) != 0)
		goto out;
	s = context_str(pc);
	if (!s)
		goto out;
	*ret = strdup(s);
	r = *ret ? 0 : -ENOMEM;
out:
	if (pc)
		context_free(pc);
	if (uc)
		context_free(uc);
	return r;
}

int ns_selinux_member_context(void *userdata, const char *user_context, const char *polydir,
			      enum ns_method method, char **ret)
{
	char *poly_con = NULL, *target = NULL, *member = NULL;
	security_class_t cls;
	int r;

	if (!ns_selinux_enabled() || !user_context) {
		*ret = NULL;
		return 0;
	}
	if (getfilecon_raw(polydir, &poly_con) < 0)
		return -errno;
	if (method == NS_METHOD_LEVEL) {
		r = with_user_range(poly_con, user_context, &target);
		if (r < 0)
			goto out;
	}
	cls = string_to_security_class("dir");
	if (cls == 0) {
		r = -EINVAL;
		goto out;
	}
	if (security_compute_member_raw(user_context, target ? target : poly_con, cls, &member) <
	    0) {
		r = -errno;
		goto out;
	}
	r = dup_and_free(member, ret);
out:
	freecon(poly_con);
	free(target);
	return r;
}

int ns_selinux_label_fd(int fd, const char *ctx)
{
	if (!ctx || !ns_selinux_enabled())
		return 0;
	if (fsetfilecon_raw(fd, ctx) < 0)
		return -errno;
	return 0;
}

int ns_selinux_reset_exec(void)
{
	if (!ns_selinux_enabled())
		return 0;
	if (setexeccon(NULL) < 0)
		return -errno;
	return 0;
}

int ns_selinux_exec_reset_saved(char **ret_saved)
{
	char *con = NULL;
	int r;

	*ret_saved = NULL;
	if (!ns_selinux_enabled())
		return 0;
	if (getexeccon_raw(&con) < 0)
		return -errno;
	if (!con)
		return 0;
	if (setexeccon_raw(NULL) < 0) {
		r = -errno;
		freecon(con);
		return r;
	}
	*ret_saved = con;
	return 0;
}

void ns_selinux_exec_restore(char *saved)
{
	if (!saved)
		return;
	(void)setexeccon_raw(saved);
	freecon(saved);
}

#else

bool ns_selinux_enabled(void)
{
	return false;
}

int ns_selinux_user_context(const struct ns_args *args, const char *user, char **ret)
{
	*ret = NULL;
	return 0;
}

int ns_selinux_member_context(void *userdata, const char *user_context, const char *polydir,
			      enum ns_method method, char **ret)
{
	*ret = NULL;
	return 0;
}

int ns_selinux_label_fd(int fd, const char *ctx)
{
	return 0;
}

int ns_selinux_reset_exec(void)
{
	return 0;
}

int ns_selinux_exec_reset_saved(char **ret_saved)
{
	*ret_saved = NULL;
	return 0;
}

void ns_selinux_exec_restore(char *saved)
{
}
#endif

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * The SPEC's checks on what is found on disk: the one owner of each rule,
 * asked by the module (apply/) when a session is made and by
 * pam_namespace_check when it predicts one, so that the two never differ.
 * Each takes what was read (a stat, an error) and reads nothing itself:
 * the names of an owner and a group in a refusal's words come from the
 * name service (host/lookup.c), which core/ never asks.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "rules.h"

bool ns_share_owner_ok(mode_t mode, uid_t uid, uid_t poly_uid)
{
	if (uid != 0 && uid != poly_uid)
		return false;
	return !(mode & (S_IWGRP | S_IWOTH)) || (mode & S_ISVTX);
}

const char *ns_quota_refusal(int error)
{
	switch (error) {
	case -EMEDIUMTYPE:
		return "the instance is not on a tmpfs; quota= needs a tmpfs mounted with usrquota";
	case -ESRCH:
		return "its tmpfs is mounted without usrquota";
	case -ENOSYS:
		return "this kernel has no tmpfs user quotas (Linux 6.6 or later built with "
		       "CONFIG_TMPFS_QUOTA)";
	default:
		return NULL;
	}
}

bool ns_instance_parent_ok(const struct stat *st, bool relaxed)
{
	return relaxed || (st->st_uid == 0 && !(st->st_mode & 0777));
}

const char ns_instance_parent_rule[] =
	"it must be owned by root with mode 000 (or use ignore_instance_parent_mode)";

int ns_init_script_ok(const struct stat *st)
{
	if (!S_ISREG(st->st_mode) || st->st_uid != 0 || (st->st_mode & (S_IWGRP | S_IWOTH)))
		return -EPERM;
	/* Root may run a file with any execute bit, as Linux-PAM's access(X_OK) says. */
	if (!(st->st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)))
		return -EACCES;
	return 0;
}

/*
 * Whether the instance of this entry is shared by several users: a context
 * or level line with the flag shared (SPEC 2). Every other instance is one
 * user's own (user, tmpdir, tmpfs, and context or level without shared).
 */
bool ns_share_instance_is_shared(const struct ns_plan_entry *e)
{
	return e->rule->shared && (e->method == NS_METHOD_CONTEXT || e->method == NS_METHOD_LEVEL);
}

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Longest instance name kept as it is (SPEC section 2). */
#define NS_NAME_MAX_LEN	  80
#define NS_NAME_HASH_KEEP 47

/*
 * SPEC 1: polydir and instance_prefix are absolute (with allow_vars, a
 * leading $HOME or $USER counts, for text not yet expanded), hold no ".."
 * component and fit in PATH_MAX. Returns 0, or -EINVAL / -ENAMETOOLONG with
 * *ret_problem saying what is wrong ("is not an absolute path" ...).
 */
int ns_path_check(const char *path, bool allow_vars, const char **ret_problem);

/* The longest user name a path is built from, in bytes (SPEC section 8). */
#define NS_USER_NAME_MAX 256

/* Returns 0 when name can be used to build paths (SPEC section 8). */
int ns_user_name_valid(const char *name);

/*
 * The instance name for a raw name ("alice", "<ctx>_alice"): its MD5 hex
 * with gen_hash, the name shortened and hashed when longer than 80
 * characters, otherwise itself. Returns a new string or NULL with errno
 * set (ELIBACC: libmd could not be loaded).
 */
char *ns_instance_name(const char *raw, bool gen_hash);

/* 32 lowercase hex characters and a NUL into out; 0, or -ELIBACC without libmd. */
int ns_md5_hex(const char *s, char out[33]);

/*
 * The marker of a plain session's tmpdir instance, beside it in the
 * instance parent (pam_namespace(8)): ".pam_namespace-session.UID.NAME",
 * NAME the instance's, holding "PID STARTTIME\n" of the process that opened
 * the session. It says whose the instance is (the instance is root's, as
 * its polydir) and whether its session's opener lives, so that the user's
 * next open removes what a session that never closed left. It never
 * matches a tmpdir instance's name (six letters or digits after the
 * prefix): it has a '.' among them.
 */
#define NS_TMPDIR_MARK_PREFIX ".pam_namespace-session."
/* The marker's name for uid's instance name (to free), or NULL. */
char *ns_tmpdir_mark_name(uid_t uid, const char *instance);
/*
 * Whether name is a marker: 0 with *ret_uid and *ret_instance (inside
 * name), -EINVAL if not.
 */
int ns_tmpdir_mark_parse(const char *name, uid_t *ret_uid, const char **ret_instance);
/* "PID STARTTIME\n", whole: 0 with both; -EINVAL for anything else (a marker being written). */
int ns_tmpdir_mark_content(const char *text, int *ret_pid, unsigned long long *ret_start);

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

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

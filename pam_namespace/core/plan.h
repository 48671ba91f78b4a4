/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "config.h"
#include "diag.h"

/* The session user, as the glue looked it up. */
struct ns_user {
	const char *name;
	uid_t uid;
	gid_t gid;
	const char *home;
	const char *context; /* SELinux context for context/level, NULL if none */
};

/*
 * Name service seams: the planner is pure, so the glue passes getpwnam and
 * getgrnam here and unit tests pass a table. Return 0, or -ENOENT when
 * unknown, or another negative errno.
 */
struct ns_lookup {
	int (*user)(void *userdata, const char *name, uid_t *ret_uid, gid_t *ret_gid);
	int (*group)(void *userdata, const char *name, gid_t *ret_gid);
	/*
	 * Whether the user (name, primary gid) is a member of the group: 1 or
	 * 0, -ENOENT for no such group, another negative errno when the name
	 * service failed. For @group in extended lines; NULL: unresolvable.
	 */
	int (*in_group)(void *userdata, const char *group, const char *user, gid_t user_gid);
	/*
	 * SELinux: the member context for a polydir (context/level methods).
	 * NULL when SELinux is not available: those methods fall back to user.
	 */
	int (*member_context)(void *userdata, const char *user_context, const char *polydir,
			      enum ns_method method, char **ret_context);
	/*
	 * SELinux: the name of the policy's polyinstantiation boolean when it
	 * is off, *known false when it may be (so that a denied member_context
	 * names it), else NULL. NULL: not asked.
	 */
	const char *(*boolean_off)(bool *known);
	void *userdata;
};

enum ns_plan_flags {
	NS_PLAN_GEN_HASH = 1 << 0,
	NS_PLAN_IGNORE_ERRORS = 1 << 1,
};

struct ns_plan_entry {
	const struct ns_rule *rule; /* file and line for messages */
	enum ns_method method;	    /* effective method (context/level may fall back to user) */
	char *polydir;		    /* expanded, absolute */
	char *instance;		/* full instance path; tmpdir: the mkdtemp template; tmpfs: NULL */
	char *instance_parent;	/* directory holding the instance; tmpfs: NULL */
	char *instance_name;	/* last component (hashed when long); tmpfs: NULL */
	char *instance_context; /* label for the instance (context/level), or NULL */

	/* create: make a missing polydir with this mode and owner */
	bool create_polydir;
	mode_t create_mode; /* already octal; umask applied when no mode was given */
	uid_t create_uid;
	gid_t create_gid;

	char *init_script; /* script to run after the mount, or NULL */
	char *mntopts;	   /* tmpfs options, or NULL */
	unsigned long mount_flags;

	/* extended lines */
	unsigned long attr_flags; /* MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_RDONLY on the instance */
	char **shares;		  /* expanded share= paths, each right inside polydir */
	size_t n_shares;
	bool ignore_parent_mode;
	bool quota; /* set the user's hard limits on the instance's tmpfs */
	uid_t quota_uid;
	uint64_t quota_bytes, quota_inodes;
};

struct ns_plan {
	struct ns_plan_entry *entries;
	size_t n_entries;
};

struct ns_plan_opts {
	unsigned flags;
	mode_t umask;		 /* for create without a mode */
	const char *init_script; /* default script: NULL means none exists */
};

/*
 * Build the ordered plan for user. Rules that do not apply to the user are
 * left out. Returns 0 or a negative errno (-EINVAL for a line error, which
 * was reported through diag with file:line).
 */
int ns_plan_build(struct ns_plan *plan, const struct ns_config *cfg, const struct ns_user *user,
		  const struct ns_lookup *lookup, const struct ns_plan_opts *opts,
		  struct ns_diag *diag);

void ns_plan_free(struct ns_plan *plan);

struct group;
/* For ns_lookup.in_group: 1 if gr is the user's primary group or lists the user, else 0. */
int ns_group_has_user(const struct group *gr, const char *user, gid_t user_gid);

/*
 * Whether path is dir or below it, by whole components: /tmpfoo is not
 * inside /tmp (Linux-PAM compared bare prefixes).
 */
bool ns_path_inside(const char *path, const char *dir);

/*
 * Substitute $HOME and $USER (matched as prefixes after a '$', as Linux-PAM
 * does) in s. Returns a new string or NULL on allocation failure.
 */
char *ns_expand_variables(const char *s, const struct ns_user *user);

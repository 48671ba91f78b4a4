/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "diag.h"

/* SPEC section 1 limits. */
#define NS_CONFIG_MAX_LINE    (64 * 1024)
#define NS_CONFIG_MAX_ENTRIES 10000

enum ns_method {
	NS_METHOD_USER,
	NS_METHOD_CONTEXT,
	NS_METHOD_LEVEL,
	NS_METHOD_TMPDIR,
	NS_METHOD_TMPFS,
	_NS_METHOD_MAX,
	_NS_METHOD_INVALID = -1,
};

const char *ns_method_to_string(enum ns_method m);
enum ns_method ns_method_from_string(const char *s);

/*
 * One entry of the list of users of an extended line (method written
 * METHOD+): a user name, @group, or a range of uids (uid<N, uid>N, N-M).
 */
enum ns_selector_kind {
	NS_SELECTOR_USER,
	NS_SELECTOR_GROUP,
	NS_SELECTOR_UIDS,
};

struct ns_selector {
	enum ns_selector_kind kind;
	char *name;   /* user or group; NULL for uids */
	uid_t lo, hi; /* uids: lo <= uid <= hi */
};

/*
 * One line of namespace.conf, as written: polydir and instance_prefix keep
 * their $HOME/$USER unexpanded (the planner expands them for a user).
 */
struct ns_rule {
	char *file; /* the file it came from */
	unsigned line;

	char *polydir;	       /* trailing slashes dropped */
	char *instance_prefix; /* may be empty for tmpfs */
	enum ns_method method;

	/* create[=mode,owner,group] */
	bool create;
	bool create_has_mode;
	mode_t create_mode;
	char *create_owner; /* NULL: the session user */
	char *create_group; /* NULL: owner's primary group */

	char *iscript; /* iscript=PATH made absolute (relative: under namespace.d/), or NULL */
	bool noinit;
	bool shared;
	char *mntopts;		   /* mntopts= with nosuid/noexec/nodev taken out, or NULL */
	unsigned long mount_flags; /* MS_NOSUID | MS_NOEXEC | MS_NODEV from mntopts */

	/* list_of_users: without ~ the users excluded; with ~ the only users */
	bool users_only;
	char **users; /* plain lines: names; extended lines: empty, see selectors */
	size_t n_users;

	/*
	 * Extended lines only (the method written METHOD+, which Linux-PAM's
	 * parser refuses as an unknown method; see COMPATIBILITY.md).
	 */
	bool extended;
	unsigned long attr_flags; /* nosuid nodev noexec ro: MS_* on the instance's mount */
	char **shares;		  /* share=PATH: directories of the real polydir kept */
	size_t n_shares;
	struct ns_selector *selectors; /* the list of users */
	size_t n_selectors;
	bool ignore_unknown;	 /* unresolvable names in the list are ignored, not fatal */
	bool ignore_parent_mode; /* ignore_instance_parent_mode for this line */
	/* quota=SIZE[,INODES]: the user's hard limits on the instance's tmpfs (0: none) */
	bool quota;
	uint64_t quota_bytes, quota_inodes;
};

struct ns_config {
	struct ns_rule *rules;
	size_t n_rules;
};

struct ns_config_paths {
	const char *main_file;	 /* default: NS_SYSCONF_DIR "/namespace.conf" */
	const char *vendor_file; /* default: NS_VENDOR_DIR "/namespace.conf"; NULL in the struct
				    means default */
	const char *conf_d;	 /* default: NS_SYSCONF_DIR "/namespace.d" */
	const char *vendor_d;	 /* default: NS_VENDOR_DIR "/namespace.d" */
	bool no_vendor;		 /* do not look at the vendor locations at all */
	bool skip_trust_checks;	 /* for unit tests of the parser only, never in the module */
};

enum ns_config_flags {
	NS_CONFIG_IGNORE_ERRORS = 1 << 0, /* ignore_config_error: skip bad lines */
};

/*
 * Parse one file's text. file names it in diagnostics and in each rule;
 * conf_d is where a relative iscript= is looked for. Appends to cfg.
 * Returns 0, or -EINVAL when a line error was reported (and flags do not
 * say to skip bad lines), -E2BIG past the limits, -ENOMEM.
 */
int ns_config_parse_text(struct ns_config *cfg, const char *file, const char *text, size_t len,
			 const char *conf_d, unsigned flags, struct ns_diag *diag);

/*
 * Whether a file of namespace.d by this name is read: *.conf, not hidden
 * (Linux-PAM's glob "*.conf"). The checker warns about the others.
 */
bool ns_config_dropin_name_ok(const char *name);

/*
 * Read the main file (or the vendor fallback) and every namespace.d/\*.conf
 * in order, checking each file's and directory's ownership and mode on the
 * open descriptor, into cfg (which must be empty). Returns 0 or a negative
 * errno; every failure has been reported through diag, naming the file.
 */
int ns_config_load(struct ns_config *cfg, const struct ns_config_paths *paths, unsigned flags,
		   struct ns_diag *diag);

void ns_config_free(struct ns_config *cfg);
void ns_rule_free(struct ns_rule *r);

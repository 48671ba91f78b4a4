/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

/*
 * pam_namespace_check's modes share this: the reporter (stderr, compiler
 * style, and JSON), the name service seams, and the entry points of each
 * mode: check-config.c (plain: what does not depend on the user),
 * check-user.c (--user, --all-users), check-pamd.c (--service).
 */
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "args.h"
#include "config.h"
#include "diag.h"
#include "escape.h"
#include "lookup.h"
#include "plan.h"
#include "setup.h"

extern const char *const ck_progname;

struct checker {
	FILE *json; /* --json: the diagnostics as JSON array members, or NULL */
	unsigned n_json;
	bool quiet; /* --all-users: diagnostics counted, and the first error kept */
	char *first_error;
	char **errors; /* plain mode: the errors reported, as first_error words them */
	size_t n_errors;
	bool ignore_instance_parent_mode;
	struct ns_diag diag;
};

__attribute__((noreturn)) void ck_out_of_memory(void);
__attribute__((format(printf, 1, 2))) char *ck_fmt(const char *f, ...);
void ck_json_member(FILE *f, const char *name, const char *value);
/* The ns_diag.report of the tool: userdata is the struct checker. */
void ck_report(void *userdata, enum ns_severity sev, const char *file, unsigned line,
	       unsigned column, const char *message);
/* Whether this error (as first_error words it) was reported already. */
bool ck_reported(const struct checker *c, const char *error);
void ck_checker_free(struct checker *c);
/* "owner alice, group users, mode 0700", names where the system knows them. */
char *ck_ownership(uid_t uid, gid_t gid, mode_t mode);

/*
 * Plain mode: everything about the configuration that does not depend on
 * the user, on disk: polydirs, instance parents and the directories above
 * them, init scripts, names in the lists of users. Reports through c.
 */
void ck_config_disk(struct checker *c, const struct ns_config *cfg, const struct ns_setup *setup);

/* --user: the plan and what it finds on disk; prints it. Returns 0 or -1 (refused). */
struct ck_user_opts {
	bool json;
	bool share_namespace;
	bool mount_private;
	bool service; /* planned for the stack of --service */
};
/* json_entries: write the entries there as JSON array members instead of printing text. */
int ck_user(struct checker *c, const struct ns_config *cfg, const struct ns_setup *setup,
	    const char *user, const struct ck_user_opts *o, FILE *json_entries);
/* For plain mode: examine only these parts of an entry (the user-independent ones). */
enum {
	CK_PART_POLYDIR = 1 << 0,
	CK_PART_PARENT = 1 << 1, /* and quota= on its filesystem */
	CK_PART_INIT = 1 << 2,
};
void ck_examine_parts(struct checker *c, const struct ns_plan_entry *e, unsigned parts);
/*
 * --all-users (list) and plain mode: the same for every user NSS lists.
 * list: a line for each refused user and a count; else one error summing
 * them up. Returns the refused count.
 */
int ck_all_users(struct checker *c, const struct ns_config *cfg, const struct ns_setup *setup,
		 bool list);

/*
 * --service NAME: the session stack of that PAM service as libpam reads it
 * from pamd_dir (default /etc/pam.d, then the vendor's /usr/lib/pam.d):
 * whether and how often the module runs, with which arguments, and what is
 * wrong around it. module_dir resolves relative module paths. Returns 0, or
 * -1 when the service would refuse logins.
 */
struct ck_service_run {
	bool runs;   /* the session stack runs the module */
	char **argv; /* the first run's arguments, NULL-terminated */
	int argc;
};
int ck_service(struct checker *c, const char *service, const char *pamd_dir, const char *vendor_dir,
	       const char *module_dir, struct ck_service_run *ret_run);
void ck_service_run_free(struct ck_service_run *run);

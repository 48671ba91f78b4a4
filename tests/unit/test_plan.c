/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include <cmocka.h>

#include "plan.h"

/* A fixed name service: the planner is pure, its lookups are seams. */
static const struct {
	const char *name;
	uid_t uid;
	gid_t gid;
} users[] = {
	{"root", 0, 0}, {"alice", 2001, 2001}, {"bob", 2002, 2002}, {"toor", 0, 0}, {"www", 33, 33},
};

static int fake_user(void *ud, const char *name, uid_t *uid, gid_t *gid)
{
	for (size_t i = 0; i < sizeof(users) / sizeof(users[0]); i++)
		if (strcmp(users[i].name, name) == 0) {
			*uid = users[i].uid;
			*gid = users[i].gid;
			return 0;
		}
	return -ENOENT;
}

static int fake_group(void *ud, const char *name, gid_t *gid)
{
	if (strcmp(name, "staff") == 0) {
		*gid = 50;
		return 0;
	}
	return -ENOENT;
}

static int fake_member(void *ud, const char *user_context, const char *polydir,
		       enum ns_method method, char **ret)
{
	*ret = strdup(method == NS_METHOD_LEVEL ? "system_u:object_r:user_tmp_t:s0:c1"
						: "system_u:object_r:user_tmp_t:s0");
	return 0;
}

/* admins: bob, and anyone whose primary group is 50; "flaky" fails as a down LDAP would. */
static int fake_in_group(void *ud, const char *group, const char *user, gid_t gid)
{
	if (strcmp(group, "admins") == 0)
		return strcmp(user, "bob") == 0 || gid == 50;
	if (strcmp(group, "flaky") == 0)
		return -EAGAIN;
	return -ENOENT;
}

static const struct ns_lookup lookup = {
	.user = fake_user, .group = fake_group, .in_group = fake_in_group};
static const struct ns_lookup lookup_selinux = {
	.user = fake_user, .group = fake_group, .member_context = fake_member};

static struct ns_user alice = {.name = "alice", .uid = 2001, .gid = 2001, .home = "/home/alice"};

static char last_error[512];
static unsigned n_errors;

static void capture(void *ud, enum ns_severity sev, const char *file, unsigned line,
		    unsigned column, const char *message)
{
	if (sev == NS_ERROR) {
		n_errors++;
		snprintf(last_error, sizeof(last_error), "%s:%u: %s", file ? file : "-", line,
			 message);
	}
}

static struct ns_rule rule(const char *polydir, const char *prefix, enum ns_method m)
{
	return (struct ns_rule){
		.file = (char *)"/etc/security/namespace.conf",
		.line = 1,
		.polydir = (char *)polydir,
		.instance_prefix = (char *)prefix,
		.method = m,
	};
}

static int build(struct ns_plan *p, struct ns_rule *rules, size_t n, const struct ns_user *u,
		 const struct ns_lookup *l, unsigned flags)
{
	struct ns_config cfg = {.rules = rules, .n_rules = n};
	struct ns_plan_opts opts = {
		.flags = flags, .umask = 022, .init_script = "/etc/security/namespace.init"};
	struct ns_diag d = {.report = capture};

	n_errors = 0;
	last_error[0] = '\0';
	return ns_plan_build(p, &cfg, u, l, &opts, &d);
}

static void test_user_method(void **state)
{
	struct ns_rule r[] = {rule("/tmp", "/tmp/tmp-inst/", NS_METHOD_USER),
			      rule("/var/tmp", "/var/tmp/inst-", NS_METHOD_USER)};
	struct ns_plan p;

	assert_int_equal(build(&p, r, 2, &alice, &lookup, 0), 0);
	assert_int_equal(p.n_entries, 2);
	assert_string_equal(p.entries[0].polydir, "/tmp");
	assert_string_equal(p.entries[0].instance, "/tmp/tmp-inst/alice");
	assert_string_equal(p.entries[0].instance_parent, "/tmp/tmp-inst");
	assert_string_equal(p.entries[0].instance_name, "alice");
	assert_string_equal(p.entries[0].init_script, "/etc/security/namespace.init");
	assert_false(p.entries[0].create_polydir);
	assert_string_equal(p.entries[1].instance, "/var/tmp/inst-alice");
	assert_string_equal(p.entries[1].instance_parent, "/var/tmp");
	/* The prefix's tail is part of the name made in the parent. */
	assert_string_equal(p.entries[1].instance_name, "inst-alice");
	ns_plan_free(&p);
}

static void test_expand_variables(void **state)
{
	char *s = ns_expand_variables("$HOME/x/$USER-$USERNAME/$HOMES/$X$", &alice);

	assert_string_equal(s, "/home/alice/x/alice-aliceNAME//home/aliceS/$X$");
	free(s);
}

static void test_home_polydir(void **state)
{
	struct ns_user slash_home = alice;
	struct ns_rule r[] = {rule("$HOME", "$HOME/../inst/", NS_METHOD_USER)};
	struct ns_rule ok[] = {rule("$HOME", "/home/.inst/", NS_METHOD_USER)};
	struct ns_plan p;

	assert_int_equal(build(&p, r, 1, &alice, &lookup, 0), -EINVAL);
	assert_non_null(strstr(last_error, "namespace.conf:1: instance prefix"));
	assert_non_null(strstr(last_error, ".."));

	slash_home.home = "/home/alice/";
	assert_int_equal(build(&p, ok, 1, &slash_home, &lookup, 0), 0);
	assert_string_equal(p.entries[0].polydir, "/home/alice");
	assert_string_equal(p.entries[0].instance, "/home/.inst/alice");
	ns_plan_free(&p);
}

static void test_exclusion_list(void **state)
{
	char *excl[] = {(char *)"root", (char *)"alice"};
	char *only[] = {(char *)"bob"};
	char *alias[] = {(char *)"toor"};
	struct ns_user root = {.name = "root", .uid = 0, .gid = 0, .home = "/root"};
	struct ns_rule r[] = {rule("/tmp", "/tmp/i/", NS_METHOD_USER),
			      rule("/var/tmp", "/var/tmp/i/", NS_METHOD_USER),
			      rule("/srv", "/srv/i/", NS_METHOD_USER)};
	struct ns_plan p;

	r[0].users = excl;
	r[0].n_users = 2;
	r[1].users = only;
	r[1].n_users = 1;
	r[1].users_only = true;
	r[2].users = alias;
	r[2].n_users = 1;

	assert_int_equal(build(&p, r, 3, &alice, &lookup, 0), 0);
	assert_int_equal(p.n_entries, 1);
	assert_string_equal(p.entries[0].polydir, "/srv");
	ns_plan_free(&p);

	/* root is excluded by name from /tmp and by uid (toor) from /srv. */
	assert_int_equal(build(&p, r, 3, &root, &lookup, 0), 0);
	assert_int_equal(p.n_entries, 0);
	ns_plan_free(&p);
}

static void test_unknown_user_in_list_ignored(void **state)
{
	char *excl[] = {(char *)"nosuchuser"};
	struct ns_rule r[] = {rule("/tmp", "/tmp/i/", NS_METHOD_USER)};
	struct ns_plan p;

	r[0].users = excl;
	r[0].n_users = 1;
	assert_int_equal(build(&p, r, 1, &alice, &lookup, 0), 0);
	assert_int_equal(p.n_entries, 1);
	ns_plan_free(&p);
}

static unsigned n_user_lookups;

static int counting_user(void *ud, const char *name, uid_t *uid, gid_t *gid)
{
	n_user_lookups++;
	return fake_user(ud, name, uid, gid);
}

/* Thousands of lines naming the same users: each name is looked up once per plan. */
static void test_list_names_looked_up_once(void **state)
{
	enum { N = 3000 };
	const struct ns_lookup counting = {.user = counting_user, .group = fake_group};
	char *names[] = {(char *)"bob", (char *)"toor", (char *)"nosuchuser"};
	char *names_only[] = {(char *)"www", (char *)"bob"};
	struct ns_user root = {.name = "root", .uid = 0, .gid = 0, .home = "/root"};
	struct ns_rule *r = calloc(N, sizeof(*r));
	char(*dirs)[32] = calloc(N, sizeof(*dirs));
	struct ns_plan p;

	assert_non_null(r);
	assert_non_null(dirs);
	for (size_t i = 0; i < N; i++) {
		snprintf(dirs[i], sizeof(dirs[i]), "/srv/p%zu", i);
		r[i] = rule(dirs[i], "/srv/i/", NS_METHOD_USER);
		r[i].users = i % 2 ? names_only : names;
		r[i].n_users = i % 2 ? 2 : 3;
		r[i].users_only = i % 2;
	}

	/* alice: not in the exclusion lists, not in the ~lists. */
	n_user_lookups = 0;
	assert_int_equal(build(&p, r, N, &alice, &counting, 0), 0);
	assert_int_equal(p.n_entries, N / 2);
	assert_int_equal(n_user_lookups, 4);
	ns_plan_free(&p);

	/* root: excluded by uid through toor; bob: listed by name everywhere. */
	n_user_lookups = 0;
	assert_int_equal(build(&p, r, N, &root, &counting, 0), 0);
	assert_int_equal(p.n_entries, 0);
	assert_int_equal(n_user_lookups, 3);
	ns_plan_free(&p);
	free(r);
	free(dirs);
}

static void test_create_flag(void **state)
{
	struct ns_rule r[] = {rule("/srv/poly", "/srv/inst/", NS_METHOD_USER)};
	struct ns_plan p;

	r[0].create = true;
	assert_int_equal(build(&p, r, 1, &alice, &lookup, 0), 0);
	assert_true(p.entries[0].create_polydir);
	assert_int_equal(p.entries[0].create_mode, 0755); /* 0777 less umask 022 */
	assert_int_equal(p.entries[0].create_uid, 2001);
	assert_int_equal(p.entries[0].create_gid, 2001);
	ns_plan_free(&p);

	r[0].create_has_mode = true;
	r[0].create_mode = 01777;
	r[0].create_owner = (char *)"www";
	assert_int_equal(build(&p, r, 1, &alice, &lookup, 0), 0);
	assert_int_equal(p.entries[0].create_mode, 01777);
	assert_int_equal(p.entries[0].create_uid, 33);
	assert_int_equal(p.entries[0].create_gid, 33); /* the owner's primary group */
	ns_plan_free(&p);

	r[0].create_group = (char *)"staff";
	assert_int_equal(build(&p, r, 1, &alice, &lookup, 0), 0);
	assert_int_equal(p.entries[0].create_gid, 50);
	ns_plan_free(&p);

	r[0].create_group = (char *)"nogroup-here";
	assert_int_equal(build(&p, r, 1, &alice, &lookup, 0), -EINVAL);
	assert_non_null(strstr(last_error, "unknown group \"nogroup-here\""));

	r[0].create_group = NULL;
	r[0].create_owner = (char *)"ghost";
	assert_int_equal(build(&p, r, 1, &alice, &lookup, 0), -EINVAL);
	assert_non_null(strstr(last_error, "namespace.conf:1: create: unknown owner \"ghost\""));
}

static void test_noinit_and_iscript(void **state)
{
	struct ns_rule r[] = {rule("/tmp", "/tmp/i/", NS_METHOD_USER),
			      rule("/var/tmp", "/var/tmp/i/", NS_METHOD_USER)};
	struct ns_plan p;

	r[0].noinit = true;
	r[1].iscript = (char *)"/etc/security/namespace.d/tmp.init";
	assert_int_equal(build(&p, r, 2, &alice, &lookup, 0), 0);
	assert_null(p.entries[0].init_script);
	assert_string_equal(p.entries[1].init_script, "/etc/security/namespace.d/tmp.init");
	ns_plan_free(&p);
}

static void test_tmpdir_and_tmpfs(void **state)
{
	struct ns_rule r[] = {rule("/tmp", "/tmp/tmp-inst/", NS_METHOD_TMPDIR),
			      rule("/var/tmp", "", NS_METHOD_TMPFS)};
	struct ns_plan p;

	r[1].mntopts = (char *)"size=10M";
	r[1].mount_flags = MS_NOSUID | MS_NODEV;
	assert_int_equal(build(&p, r, 2, &alice, &lookup, 0), 0);
	assert_string_equal(p.entries[0].instance, "/tmp/tmp-inst/XXXXXX");
	assert_string_equal(p.entries[0].instance_parent, "/tmp/tmp-inst");
	assert_null(p.entries[1].instance);
	assert_null(p.entries[1].instance_parent);
	assert_string_equal(p.entries[1].mntopts, "size=10M");
	assert_int_equal(p.entries[1].mount_flags, MS_NOSUID | MS_NODEV);
	ns_plan_free(&p);
}

static void test_context_fallback_without_selinux(void **state)
{
	struct ns_rule r[] = {rule("/tmp", "/tmp/i/", NS_METHOD_CONTEXT),
			      rule("/var/tmp", "/var/tmp/i/", NS_METHOD_LEVEL)};
	struct ns_plan p;

	r[1].shared = true;
	/* No member_context seam: context falls back to user, shared level is skipped. */
	assert_int_equal(build(&p, r, 2, &alice, &lookup, 0), 0);
	assert_int_equal(p.n_entries, 1);
	assert_int_equal(p.entries[0].method, NS_METHOD_USER);
	assert_string_equal(p.entries[0].instance, "/tmp/i/alice");
	ns_plan_free(&p);

	/* With SELinux but no context for the user: the same, never a NULL dereference. */
	assert_int_equal(build(&p, r, 2, &alice, &lookup_selinux, 0), 0);
	assert_int_equal(p.n_entries, 1);
	assert_int_equal(p.entries[0].method, NS_METHOD_USER);
	ns_plan_free(&p);
}

static void test_context_names(void **state)
{
	struct ns_user u = alice;
	struct ns_rule r[] = {rule("/tmp", "/tmp/i/", NS_METHOD_CONTEXT),
			      rule("/var/tmp", "/var/tmp/i/", NS_METHOD_LEVEL)};
	struct ns_plan p;

	u.context = "user_u:user_r:user_t:s0";
	r[1].shared = true;
	assert_int_equal(build(&p, r, 2, &u, &lookup_selinux, 0), 0);
	assert_int_equal(p.n_entries, 2);
	assert_string_equal(p.entries[0].instance, "/tmp/i/system_u:object_r:user_tmp_t:s0_alice");
	assert_string_equal(p.entries[0].instance_context, "system_u:object_r:user_tmp_t:s0");
	assert_string_equal(p.entries[1].instance, "/var/tmp/i/system_u:object_r:user_tmp_t:s0:c1");
	ns_plan_free(&p);

	assert_int_equal(build(&p, r, 1, &u, &lookup_selinux, NS_PLAN_GEN_HASH), 0);
	assert_int_equal(strlen(p.entries[0].instance_name), 32);
	ns_plan_free(&p);
}

/* The policy refuses compute_member, as with its polyinstantiation boolean off. */
static int denied_member(void *ud, const char *user_context, const char *polydir,
			 enum ns_method method, char **ret)
{
	*ret = NULL;
	return -EACCES;
}

static bool boolean_known;

static const char *boolean_is_off(bool *known)
{
	*known = boolean_known;
	return "allow_polyinstantiation";
}

/*
 * A context the policy will not compute fails the session with one error
 * naming the line and the polydir (it used to fail it without a word),
 * and the boolean when it is off.
 */
static void test_context_denied(void **state)
{
	struct ns_user u = alice;
	struct ns_rule r[] = {rule("/tmp", "/tmp/i/", NS_METHOD_CONTEXT)};
	struct ns_lookup l = {.user = fake_user, .member_context = denied_member};
	struct ns_plan p;

	u.context = "user_u:user_r:user_t:s0";
	assert_int_equal(build(&p, r, 1, &u, &l, 0), -EACCES);
	assert_int_equal(n_errors, 1);
	assert_string_equal(last_error, "/etc/security/namespace.conf:1: cannot get the SELinux "
					"context of the instance of /tmp: Permission denied");
	l.boolean_off = boolean_is_off;
	boolean_known = true;
	assert_int_equal(build(&p, r, 1, &u, &l, 0), -EACCES);
	assert_int_equal(n_errors, 1);
	assert_string_equal(last_error,
			    "/etc/security/namespace.conf:1: cannot get the SELinux context of the "
			    "instance of /tmp: Permission denied (SELinux's boolean "
			    "allow_polyinstantiation is off)");
	/* sshd_t may not read it under Debian's policy. */
	boolean_known = false;
	assert_int_equal(build(&p, r, 1, &u, &l, 0), -EACCES);
	assert_int_equal(n_errors, 1);
	assert_string_equal(last_error,
			    "/etc/security/namespace.conf:1: cannot get the SELinux context of the "
			    "instance of /tmp: Permission denied (SELinux's boolean "
			    "allow_polyinstantiation may be off: this program may not read it)");
}

static void test_bad_paths(void **state)
{
	struct ns_rule rel[] = {rule("tmp", "/tmp/i/", NS_METHOD_USER)};
	struct ns_rule root[] = {rule("/", "/i/", NS_METHOD_USER)};
	struct ns_rule dots[] = {rule("/tmp/../etc", "/i/", NS_METHOD_USER)};
	struct ns_rule dotsok[] = {rule("/tmp/..x", "/i/", NS_METHOD_USER)};
	struct ns_plan p;

	assert_int_equal(build(&p, rel, 1, &alice, &lookup, 0), -EINVAL);
	assert_non_null(strstr(last_error, "not an absolute path"));
	assert_int_equal(build(&p, root, 1, &alice, &lookup, 0), -EINVAL);
	assert_int_equal(build(&p, dots, 1, &alice, &lookup, 0), -EINVAL);
	assert_int_equal(build(&p, dotsok, 1, &alice, &lookup, 0), 0);
	ns_plan_free(&p);
}

static void test_ignore_errors_skips_line(void **state)
{
	struct ns_rule r[] = {rule("relative", "/tmp/i/", NS_METHOD_USER),
			      rule("/tmp", "/tmp/i/", NS_METHOD_USER)};
	struct ns_plan p;

	assert_int_equal(build(&p, r, 2, &alice, &lookup, NS_PLAN_IGNORE_ERRORS), 0);
	assert_int_equal(p.n_entries, 1);
	assert_string_equal(p.entries[0].polydir, "/tmp");
	ns_plan_free(&p);
}

static void test_bad_user_refused(void **state)
{
	struct ns_user evil = alice;
	struct ns_rule r[] = {rule("/tmp", "/tmp/i/", NS_METHOD_USER)};
	struct ns_plan p;

	evil.name = "../../etc";
	assert_int_equal(build(&p, r, 1, &evil, &lookup, 0), -EINVAL);
	evil.name = "a/b";
	assert_int_equal(build(&p, r, 1, &evil, &lookup, 0), -EINVAL);
}

static void test_long_instance_hashed(void **state)
{
	char name[120];
	struct ns_user u = alice;
	struct ns_rule r[] = {rule("/tmp", "/tmp/i/", NS_METHOD_USER)};
	struct ns_plan p;

	memset(name, 'u', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	u.name = name;
	assert_int_equal(build(&p, r, 1, &u, &lookup, 0), 0);
	assert_int_equal(strlen(p.entries[0].instance_name), 80);
	assert_int_equal(p.entries[0].instance_name[47], '_');
	ns_plan_free(&p);
}

/* Extended lines' selectors, resolved for each plan. */
static void test_selectors(void **state)
{
	struct ns_selector admins[] = {{.kind = NS_SELECTOR_GROUP, .name = (char *)"admins"}};
	struct ns_selector low[] = {{.kind = NS_SELECTOR_UIDS, .lo = 0, .hi = 999},
				    {.kind = NS_SELECTOR_USER, .name = (char *)"toor"}};
	struct ns_selector band[] = {{.kind = NS_SELECTOR_UIDS, .lo = 2000, .hi = 2001}};
	struct ns_user bob = {.name = "bob", .uid = 2002, .gid = 2002, .home = "/home/bob"};
	struct ns_user www = {.name = "www", .uid = 33, .gid = 50, .home = "/var/www"};
	struct ns_rule r[] = {rule("/tmp", "/tmp/i/", NS_METHOD_USER),
			      rule("/var/tmp", "/var/tmp/i/", NS_METHOD_USER),
			      rule("/srv", "/srv/i/", NS_METHOD_USER)};
	struct ns_plan p;

	for (size_t i = 0; i < 3; i++)
		r[i].extended = true;
	r[0].selectors = admins; /* exclude admins */
	r[0].n_selectors = 1;
	r[1].selectors = low; /* exclude system users */
	r[1].n_selectors = 2;
	r[2].selectors = band; /* only 2000-2001 */
	r[2].n_selectors = 1;
	r[2].users_only = true;

	assert_int_equal(build(&p, r, 3, &alice, &lookup, 0), 0);
	assert_int_equal(p.n_entries, 3);
	ns_plan_free(&p);
	assert_int_equal(build(&p, r, 3, &bob, &lookup, 0), 0);
	assert_int_equal(p.n_entries, 1);
	assert_string_equal(p.entries[0].polydir, "/var/tmp");
	ns_plan_free(&p);
	/* www: in admins by its primary group, uid 33 < 1000, not in 2000-2001. */
	assert_int_equal(build(&p, r, 3, &www, &lookup, 0), 0);
	assert_int_equal(p.n_entries, 0);
	ns_plan_free(&p);
}

static void test_selectors_fail_closed(void **state)
{
	struct ns_selector unknown[] = {{.kind = NS_SELECTOR_USER, .name = (char *)"alice"},
					{.kind = NS_SELECTOR_GROUP, .name = (char *)"nosuch"}};
	struct ns_selector flaky[] = {{.kind = NS_SELECTOR_GROUP, .name = (char *)"flaky"}};
	struct ns_selector nouser[] = {{.kind = NS_SELECTOR_USER, .name = (char *)"ghost"}};
	struct ns_rule r[] = {rule("/tmp", "/tmp/i/", NS_METHOD_USER)};
	struct ns_plan p;

	r[0].extended = true;
	r[0].selectors = unknown;
	r[0].n_selectors = 2;
	/* Even where alice matched: a broken entry fails every session alike. */
	assert_int_equal(build(&p, r, 1, &alice, &lookup, 0), -EINVAL);
	assert_string_equal(last_error, "/etc/security/namespace.conf:1: group @\"nosuch\" in the "
					"list of users: unknown");
	r[0].selectors = flaky;
	r[0].n_selectors = 1;
	assert_int_equal(build(&p, r, 1, &alice, &lookup, 0), -EINVAL);
	assert_non_null(strstr(last_error, "group @\"flaky\" in the list of users: the name "
					   "service failed: "));
	r[0].selectors = nouser;
	assert_int_equal(build(&p, r, 1, &alice, &lookup, 0), -EINVAL);
	assert_non_null(strstr(last_error, "user \"ghost\" in the list of users: unknown"));
	/* With ignore_unknown they are left out, with a warning. */
	r[0].ignore_unknown = true;
	assert_int_equal(build(&p, r, 1, &alice, &lookup, 0), 0);
	assert_int_equal(n_errors, 0);
	assert_int_equal(p.n_entries, 1);
	ns_plan_free(&p);
	/* Under ignore_config_error only that line is skipped. */
	r[0].ignore_unknown = false;
	assert_int_equal(build(&p, r, 1, &alice, &lookup, NS_PLAN_IGNORE_ERRORS), 0);
	assert_int_equal(p.n_entries, 0);
	ns_plan_free(&p);
}

static void test_extended_entry(void **state)
{
	char *shares[] = {(char *)"/tmp/.X11-unix", (char *)"$HOME/.x"};
	struct ns_rule r[] = {rule("/tmp", "/tmp/i/", NS_METHOD_USER)};
	struct ns_plan p;

	r[0].extended = true;
	r[0].shares = shares;
	r[0].n_shares = 2;
	r[0].attr_flags = MS_NOSUID | MS_RDONLY;
	r[0].ignore_parent_mode = true;
	assert_int_equal(build(&p, r, 1, &alice, &lookup, 0), 0);
	assert_int_equal(p.entries[0].n_shares, 2);
	assert_string_equal(p.entries[0].shares[0], "/tmp/.X11-unix");
	assert_string_equal(p.entries[0].shares[1], "/home/alice/.x");
	assert_int_equal(p.entries[0].attr_flags, MS_NOSUID | MS_RDONLY);
	assert_true(p.entries[0].ignore_parent_mode);
	ns_plan_free(&p);
}

static void test_path_inside(void **state)
{
	assert_true(ns_path_inside("/tmp", "/tmp"));
	assert_true(ns_path_inside("/tmp/x/y", "/tmp"));
	assert_false(ns_path_inside("/tmpfoo", "/tmp"));
	assert_false(ns_path_inside("/tm", "/tmp"));
	assert_false(ns_path_inside("/var/tmp", "/tmp"));
	assert_true(ns_path_inside("/anything", "/"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_user_method),
		cmocka_unit_test(test_expand_variables),
		cmocka_unit_test(test_home_polydir),
		cmocka_unit_test(test_exclusion_list),
		cmocka_unit_test(test_unknown_user_in_list_ignored),
		cmocka_unit_test(test_list_names_looked_up_once),
		cmocka_unit_test(test_create_flag),
		cmocka_unit_test(test_noinit_and_iscript),
		cmocka_unit_test(test_tmpdir_and_tmpfs),
		cmocka_unit_test(test_context_fallback_without_selinux),
		cmocka_unit_test(test_context_names),
		cmocka_unit_test(test_context_denied),
		cmocka_unit_test(test_bad_paths),
		cmocka_unit_test(test_ignore_errors_skips_line),
		cmocka_unit_test(test_bad_user_refused),
		cmocka_unit_test(test_long_instance_hashed),
		cmocka_unit_test(test_path_inside),
		cmocka_unit_test(test_selectors),
		cmocka_unit_test(test_selectors_fail_closed),
		cmocka_unit_test(test_extended_entry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

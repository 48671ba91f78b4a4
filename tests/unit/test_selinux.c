/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * The SELinux code through its seam: a fake libselinux gives the contexts,
 * so the user's context, the instance's context and name, and labelling
 * are checked for given contexts on any machine, SELinux or not.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "naming.h"
#include "plan.h"
#include "selinux.h"

#define POLY_CON   "system_u:object_r:tmp_t:s0"
#define USER_CON   "user_u:user_r:user_t:s1-s2:c0.c3"
#define MEMBER_CON "user_u:object_r:user_tmp_t:s1-s2:c0.c3"

/* What the fake system has, and what was asked of it. */
static struct {
	int enabled;
	const char *exec, *current, *deflt, *file, *member;
	int exec_fails, enforcing;
	const char *boolean_name; /* the policy's one boolean, NULL: none */
	int boolean_on, boolean_hidden;
	const char *fset_refused; /* fsetfilecon of contexts starting so fails with EACCES */
	unsigned n_getcon, n_compute, n_fset, n_setexec;
	char scon[256], tcon[256], fset_con[256], default_user[64];
	int fset_fd, fget_fd;
	unsigned n_fget_opath, n_fset_opath;
	ino_t fget_ino, fset_ino;
} sys;

static int give(const char *con, char **ret)
{
	*ret = con ? strdup(con) : NULL;
	return 0;
}

static int fake_enabled(void)
{
	return sys.enabled;
}

static int fake_getexeccon(char **ret)
{
	if (sys.exec_fails) {
		errno = EINVAL;
		return -1;
	}
	return give(sys.exec, ret);
}

static int fake_getcon(char **ret)
{
	sys.n_getcon++;
	if (!sys.current) {
		errno = ENOENT;
		return -1;
	}
	return give(sys.current, ret);
}

static int fake_default(const char *user, char **ret)
{
	snprintf(sys.default_user, sizeof(sys.default_user), "%s", user);
	return give(sys.deflt, ret);
}

/*
 * As libselinux on the kernel: no label through an O_PATH descriptor
 * (EBADF). What was read from is kept: the descriptor, its inode.
 */
static int fake_fgetfilecon(int fd, char **ret)
{
	int fl = fcntl(fd, F_GETFL);
	struct stat st;

	if (fl >= 0 && (fl & O_PATH)) {
		sys.n_fget_opath++;
		errno = EBADF;
		return -1;
	}
	sys.fget_fd = fd;
	sys.fget_ino = fstat(fd, &st) == 0 ? st.st_ino : 0;
	if (!sys.file) {
		errno = ENOTSUP;
		return -1;
	}
	return give(sys.file, ret);
}

static int fake_fsetfilecon(int fd, const char *con)
{
	int fl = fcntl(fd, F_GETFL);
	struct stat st;

	if (fl >= 0 && (fl & O_PATH)) {
		sys.n_fset_opath++;
		errno = EBADF;
		return -1;
	}
	sys.fset_ino = fstat(fd, &st) == 0 ? st.st_ino : 0;
	sys.n_fset++;
	if (sys.fset_refused && strncmp(con, sys.fset_refused, strlen(sys.fset_refused)) == 0) {
		errno = EACCES;
		return -1;
	}
	sys.fset_fd = fd;
	snprintf(sys.fset_con, sizeof(sys.fset_con), "%s", con);
	return 0;
}

static int fake_compute(const char *scon, const char *tcon, char **ret)
{
	sys.n_compute++;
	snprintf(sys.scon, sizeof(sys.scon), "%s", scon);
	snprintf(sys.tcon, sizeof(sys.tcon), "%s", tcon);
	return give(sys.member, ret);
}

static int fake_setexeccon(const char *con)
{
	sys.n_setexec++;
	return con == NULL ? 0 : -1;
}

static void free_con(char *con)
{
	free(con);
}

static int fake_default_dir(const char *path, char **ret)
{
	if (strcmp(path, "/srv/poly") != 0) {
		errno = ENOENT;
		return -1;
	}
	return give("system_u:object_r:var_t:s0", ret);
}

static int fake_getenforce(void)
{
	return sys.enforcing;
}

static int fake_boolean(const char *name)
{
	if (!sys.boolean_name || strcmp(name, sys.boolean_name) != 0) {
		errno = ENOENT;
		return -1;
	}
	if (sys.boolean_hidden) {
		errno = EACCES;
		return -1;
	}
	return sys.boolean_on;
}

static const struct ns_selinux_ops fake = {
	.is_enabled = fake_enabled,
	.getexeccon = fake_getexeccon,
	.getcon = fake_getcon,
	.default_context = fake_default,
	.fgetfilecon = fake_fgetfilecon,
	.fsetfilecon = fake_fsetfilecon,
	.compute_member_dir = fake_compute,
	.setexeccon = fake_setexeccon,
	.default_dir_context = fake_default_dir,
	.freecon = free_con,
	.getenforce = fake_getenforce,
	.get_boolean_active = fake_boolean,
};

static int setup(void **state)
{
	memset(&sys, 0, sizeof(sys));
	sys.enabled = 1;
	sys.exec = USER_CON;
	sys.file = POLY_CON;
	sys.member = MEMBER_CON;
	ns_selinux_set_ops(&fake);
	return 0;
}

static int teardown(void **state)
{
	ns_selinux_set_ops(NULL);
	return 0;
}

static void test_user_context_exec(void **state)
{
	struct ns_args a = {0};
	char *con;

	assert_int_equal(ns_selinux_user_context(&a, "alice", &con), 0);
	assert_string_equal(con, USER_CON);
	free(con);

	/* No exec context (no pam_selinux): none, and not the current one. */
	sys.exec = NULL;
	sys.current = "root:sysadm_r:sysadm_t:s0";
	assert_int_equal(ns_selinux_user_context(&a, "alice", &con), 0);
	assert_null(con);
	sys.exec_fails = 1;
	assert_int_equal(ns_selinux_user_context(&a, "alice", &con), 0);
	assert_null(con);
	assert_int_equal(sys.n_getcon, 0);
}

static void test_user_context_current_default(void **state)
{
	struct ns_args cur = {.use_current_context = true}, def = {.use_default_context = true};
	char *con;

	sys.current = "staff_u:staff_r:staff_t:s0";
	assert_int_equal(ns_selinux_user_context(&cur, "alice", &con), 0);
	assert_string_equal(con, "staff_u:staff_r:staff_t:s0");
	free(con);
	sys.current = NULL;
	assert_int_equal(ns_selinux_user_context(&cur, "alice", &con), -ENOENT);
	assert_null(con);

	sys.deflt = "user_u:user_r:user_t:s0";
	assert_int_equal(ns_selinux_user_context(&def, "alice", &con), 0);
	assert_string_equal(con, "user_u:user_r:user_t:s0");
	assert_string_equal(sys.default_user, "alice");
	free(con);
}

/* SELinux off: no context whatever the arguments, nothing asked, nothing labelled. */
static void test_disabled(void **state)
{
	struct ns_args cur = {.use_current_context = true}, def = {.use_default_context = true};
	char *con = (char *)"x";

	sys.enabled = 0;
	sys.current = "staff_u:staff_r:staff_t:s0";
	assert_int_equal(ns_selinux_user_context(&cur, "alice", &con), 0);
	assert_null(con);
	assert_int_equal(ns_selinux_user_context(&def, "alice", &con), 0);
	assert_null(con);
	assert_int_equal(sys.n_getcon, 0);
	assert_false(ns_selinux_enabled());
	assert_int_equal(ns_selinux_member_context(NULL, USER_CON, "/tmp", NS_METHOD_CONTEXT, &con),
			 0);
	assert_null(con);
	assert_int_equal(ns_selinux_label_fd(5, MEMBER_CON), 0);
	assert_int_equal(ns_selinux_label_like(5, 6), 0);
	assert_int_equal(ns_selinux_reset_exec(), 0);
	assert_int_equal(ns_selinux_label_new_dir(5, "/srv/poly"), 0);
	assert_int_equal(sys.n_fset, 0);
	assert_int_equal(sys.n_setexec, 0);
	assert_int_equal(sys.n_compute, 0);
}

static void test_member_context(void **state)
{
	char *con;

	assert_int_equal(ns_selinux_member_context(NULL, USER_CON, "/tmp", NS_METHOD_CONTEXT, &con),
			 0);
	assert_string_equal(con, MEMBER_CON);
	assert_string_equal(sys.scon, USER_CON);
	assert_string_equal(sys.tcon, POLY_CON);
	free(con);

	/* No user context: none, never a NULL passed on. */
	assert_int_equal(ns_selinux_member_context(NULL, NULL, "/tmp", NS_METHOD_CONTEXT, &con), 0);
	assert_null(con);
	assert_int_equal(sys.n_compute, 1);

	/* The polydir has no label: an error, not a guess. */
	sys.file = NULL;
	assert_int_equal(ns_selinux_member_context(NULL, USER_CON, "/tmp", NS_METHOD_CONTEXT, &con),
			 -ENOTSUP);
	assert_null(con);
}

/*
 * Issue 31 point 7: the polydir's label is read from the descriptor of the
 * module's walk, never by name. Below /tmp (writable by others) a link at
 * the polydir's name is not followed: no label is read, the link refused;
 * a real directory's label is read from that very directory (its inode),
 * reopened where the walk's O_PATH descriptor cannot give it.
 */
static void test_member_context_by_descriptor(void **state)
{
	char dir[] = "/tmp/test_selinux.XXXXXX", real[64], link[64], *con = NULL;
	struct stat st;

	assert_non_null(mkdtemp(dir));
	snprintf(real, sizeof(real), "%s/real", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	assert_int_equal(mkdir(real, 0755), 0);
	assert_int_equal(symlink(real, link), 0);
	assert_int_equal(stat(real, &st), 0);

	assert_int_equal(ns_selinux_member_context(NULL, USER_CON, real, NS_METHOD_CONTEXT, &con),
			 0);
	assert_string_equal(con, MEMBER_CON);
	free(con);
	assert_int_equal(sys.fget_ino, st.st_ino);
	assert_int_equal(sys.n_fget_opath, 1);

	sys.fget_ino = 0;
	assert_int_equal(ns_selinux_member_context(NULL, USER_CON, link, NS_METHOD_LEVEL, &con),
			 -ELOOP);
	assert_null(con);
	assert_int_equal(sys.fget_ino, 0);
	assert_int_equal(sys.n_fget_opath, 1);

	unlink(link);
	rmdir(real);
	rmdir(dir);
}

/* level: the polydir's own context with the user's MLS range, no policy computation. */
static void test_level_context(void **state)
{
	char *con;

	assert_int_equal(ns_selinux_member_context(NULL, USER_CON, "/tmp", NS_METHOD_LEVEL, &con),
			 0);
	assert_string_equal(con, "system_u:object_r:tmp_t:s1-s2:c0.c3");
	assert_int_equal(sys.n_compute, 0);
	free(con);
}

static int build(struct ns_plan *p, struct ns_rule *rules, size_t n, const char *user_con,
		 unsigned flags)
{
	static const struct ns_lookup lookup = {.member_context = ns_selinux_member_context};
	struct ns_user u = {.name = "alice",
			    .uid = 2001,
			    .gid = 2001,
			    .home = "/home/alice",
			    .context = user_con};
	struct ns_config cfg = {.rules = rules, .n_rules = n};
	struct ns_plan_opts opts = {.flags = flags, .umask = 022};
	struct ns_diag d = {0};

	return ns_plan_build(p, &cfg, &u, &lookup, &opts, &d);
}

static struct ns_rule rule(enum ns_method m, bool shared)
{
	return (struct ns_rule){
		.file = (char *)"namespace.conf",
		.line = 1,
		.polydir = (char *)"/tmp",
		.instance_prefix = (char *)"/tmp/inst/",
		.method = m,
		.shared = shared,
	};
}

/* Instance names and labels for given contexts, through the planner. */
static void test_names(void **state)
{
	struct ns_rule r[] = {rule(NS_METHOD_CONTEXT, false), rule(NS_METHOD_CONTEXT, true),
			      rule(NS_METHOD_LEVEL, false), rule(NS_METHOD_USER, false)};
	struct ns_plan p;

	assert_int_equal(build(&p, r, 4, USER_CON, 0), 0);
	assert_int_equal(p.n_entries, 4);
	assert_string_equal(p.entries[0].instance, "/tmp/inst/" MEMBER_CON "_alice");
	assert_string_equal(p.entries[0].instance_context, MEMBER_CON);
	assert_int_equal(p.entries[0].method, NS_METHOD_CONTEXT);
	assert_string_equal(p.entries[1].instance, "/tmp/inst/" MEMBER_CON);
	assert_string_equal(p.entries[2].instance,
			    "/tmp/inst/system_u:object_r:tmp_t:s1-s2:c0.c3_alice");
	assert_string_equal(p.entries[2].instance_context, "system_u:object_r:tmp_t:s1-s2:c0.c3");
	assert_string_equal(p.entries[3].instance, "/tmp/inst/alice");
	assert_null(p.entries[3].instance_context);
	ns_plan_free(&p);

	/* gen_hash: the MD5 of the whole raw name. */
	char hash[33];

	ns_md5_hex(MEMBER_CON "_alice", hash);
	assert_int_equal(build(&p, r, 1, USER_CON, NS_PLAN_GEN_HASH), 0);
	assert_string_equal(p.entries[0].instance_name, hash);
	assert_string_equal(p.entries[0].instance_context, MEMBER_CON);
	ns_plan_free(&p);
}

/* Over 80 characters: the first 47, '_', the MD5 of the whole. */
static void test_long_context_name(void **state)
{
	static const char *const member =
		"user_u:object_r:user_home_dir_t:s0-s15:c0.c1023,c17,c42,c99,c101,c200,c300,c400";
	struct ns_rule r[] = {rule(NS_METHOD_CONTEXT, false)};
	char raw[256], hash[33], want[128];
	struct ns_plan p;

	sys.member = member;
	snprintf(raw, sizeof(raw), "%s_alice", member);
	ns_md5_hex(raw, hash);
	snprintf(want, sizeof(want), "%.47s_%s", raw, hash);
	assert_int_equal(build(&p, r, 1, USER_CON, 0), 0);
	assert_string_equal(p.entries[0].instance_name, want);
	assert_int_equal(strlen(p.entries[0].instance_name), 80);
	assert_string_equal(p.entries[0].instance_context, member);
	ns_plan_free(&p);
}

/* No context (SELinux off, or no exec context): user, and shared lines skipped. */
static void test_names_fallback(void **state)
{
	struct ns_rule r[] = {rule(NS_METHOD_CONTEXT, false), rule(NS_METHOD_LEVEL, true),
			      rule(NS_METHOD_LEVEL, false)};
	struct ns_plan p;

	assert_int_equal(build(&p, r, 3, NULL, 0), 0);
	assert_int_equal(p.n_entries, 2);
	assert_string_equal(p.entries[0].instance, "/tmp/inst/alice");
	assert_int_equal(p.entries[0].method, NS_METHOD_USER);
	assert_null(p.entries[0].instance_context);
	assert_string_equal(p.entries[1].instance, "/tmp/inst/alice");
	ns_plan_free(&p);

	sys.enabled = 0;
	assert_int_equal(build(&p, r, 3, USER_CON, 0), 0);
	assert_int_equal(p.n_entries, 2);
	assert_string_equal(p.entries[0].instance, "/tmp/inst/alice");
	assert_int_equal(sys.n_compute, 0);
	ns_plan_free(&p);
}

static void test_labels(void **state)
{
	assert_int_equal(ns_selinux_label_fd(5, MEMBER_CON), 0);
	assert_int_equal(sys.fset_fd, 5);
	assert_string_equal(sys.fset_con, MEMBER_CON);
	assert_int_equal(ns_selinux_label_fd(5, NULL), 0);
	assert_int_equal(sys.n_fset, 1);

	/* user and tmpdir instances: the polydir's label. */
	assert_int_equal(ns_selinux_label_like(7, 6), 0);
	assert_int_equal(sys.fget_fd, 6);
	assert_int_equal(sys.fset_fd, 7);
	assert_string_equal(sys.fset_con, POLY_CON);

	assert_int_equal(ns_selinux_reset_exec(), 0);
	assert_int_equal(sys.n_setexec, 1);

	/* A polydir made by create: the policy's file-contexts label, if it has one. */
	assert_int_equal(ns_selinux_label_new_dir(8, "/srv/poly"), 0);
	assert_int_equal(sys.fset_fd, 8);
	assert_string_equal(sys.fset_con, "system_u:object_r:var_t:s0");
	assert_int_equal(ns_selinux_label_new_dir(9, "/srv/other"), 0);
	assert_int_equal(sys.fset_fd, 8);
}

/*
 * Issue 31 point 5: every label read or written through an O_PATH
 * descriptor (an existing instance, a polydir from the walk) is made again
 * on the directory reopened from it, as libselinux before 3.1 does not.
 */
static void test_labels_through_o_path(void **state)
{
	char dir[] = "/tmp/test_selinux.XXXXXX";
	struct stat st;
	int fd;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(stat(dir, &st), 0);
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);

	assert_int_equal(ns_selinux_label_fd(fd, MEMBER_CON), 0);
	assert_int_equal(sys.n_fset_opath, 1);
	assert_int_equal(sys.fset_ino, st.st_ino);
	assert_string_equal(sys.fset_con, MEMBER_CON);

	sys.fset_ino = 0;
	assert_int_equal(ns_selinux_label_like(fd, fd), 0);
	assert_int_equal(sys.n_fget_opath, 1);
	assert_int_equal(sys.fget_ino, st.st_ino);
	assert_int_equal(sys.n_fset_opath, 2);
	assert_int_equal(sys.fset_ino, st.st_ino);
	assert_string_equal(sys.fset_con, POLY_CON);

	close(fd);
	rmdir(dir);
}

/*
 * The helper's instance parents: a range the policy refuses (MLS, a
 * domain without mlsfileupgrade) gives way to its low level; a refused
 * single level, or another error, is the caller's.
 */
static void test_label_or_low(void **state)
{
	const char *ranged = "system_u:object_r:tmp_t:s0-s15:c0.c1023";
	char *used = (char *)"unchanged";

	assert_int_equal(ns_selinux_label_fd_or_low(5, ranged, &used), 0);
	assert_null(used);
	assert_string_equal(sys.fset_con, ranged);

	sys.fset_refused = ranged;
	assert_int_equal(ns_selinux_label_fd_or_low(6, ranged, &used), 0);
	assert_non_null(used);
	assert_string_equal(used, "system_u:object_r:tmp_t:s0");
	assert_string_equal(sys.fset_con, used);
	assert_int_equal(sys.fset_fd, 6);
	free(used);

	sys.fset_refused = "system_u:object_r:tmp_t:s2:c1-s3";
	assert_int_equal(ns_selinux_label_fd_or_low(7, sys.fset_refused, &used), 0);
	assert_string_equal(used, "system_u:object_r:tmp_t:s2:c1");
	free(used);

	/* No range to fall back from: the refusal is the answer. */
	sys.fset_refused = POLY_CON;
	sys.n_fset = 0;
	assert_int_equal(ns_selinux_label_fd_or_low(8, POLY_CON, &used), -EACCES);
	assert_null(used);
	assert_int_equal(sys.n_fset, 1);

	/* Both refused: the range's refusal. */
	sys.fset_refused = "system_u:object_r:tmp_t:";
	sys.n_fset = 0;
	assert_int_equal(ns_selinux_label_fd_or_low(9, ranged, &used), -EACCES);
	assert_null(used);
	assert_int_equal(sys.n_fset, 2);

	/* Nothing to label. */
	sys.fset_refused = NULL;
	assert_int_equal(ns_selinux_label_fd_or_low(8, NULL, &used), 0);
	assert_null(used);
	sys.enabled = 0;
	assert_int_equal(ns_selinux_label_fd_or_low(8, ranged, &used), 0);
	assert_null(used);
}

/* pam_namespace_check's warning: enforcing with the boolean off, under either name. */
static void test_polyinstantiation_boolean(void **state)
{
	sys.enforcing = 1;
	sys.boolean_name = "allow_polyinstantiation";
	assert_string_equal(ns_selinux_polyinstantiation_off(), "allow_polyinstantiation");
	sys.boolean_name = "polyinstantiation_enabled";
	assert_string_equal(ns_selinux_polyinstantiation_off(), "polyinstantiation_enabled");
	sys.boolean_on = 1;
	assert_null(ns_selinux_polyinstantiation_off());
	sys.boolean_on = 0;
	sys.enforcing = 0;
	assert_null(ns_selinux_polyinstantiation_off());
	sys.enforcing = 1;
	sys.boolean_name = NULL;
	assert_null(ns_selinux_polyinstantiation_off());
	sys.boolean_name = "allow_polyinstantiation";
	sys.enabled = 0;
	assert_null(ns_selinux_polyinstantiation_off());
}

/*
 * A denied session's suspect: the boolean off (known), or one this
 * domain may not read (not known); pam_namespace_check's warning only
 * for the first.
 */
static void test_polyinstantiation_suspect(void **state)
{
	bool known;

	sys.enforcing = 1;
	sys.boolean_name = "allow_polyinstantiation";
	assert_string_equal(ns_selinux_polyinstantiation_suspect(&known),
			    "allow_polyinstantiation");
	assert_true(known);
	sys.boolean_hidden = 1;
	assert_string_equal(ns_selinux_polyinstantiation_suspect(&known),
			    "allow_polyinstantiation");
	assert_false(known);
	assert_null(ns_selinux_polyinstantiation_off());
	sys.boolean_on = 1;
	sys.boolean_hidden = 0;
	assert_null(ns_selinux_polyinstantiation_suspect(&known));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_user_context_exec, setup, teardown),
		cmocka_unit_test_setup_teardown(test_user_context_current_default, setup, teardown),
		cmocka_unit_test_setup_teardown(test_disabled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_member_context, setup, teardown),
		cmocka_unit_test_setup_teardown(test_level_context, setup, teardown),
		cmocka_unit_test_setup_teardown(test_member_context_by_descriptor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_context_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names_fallback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_labels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_labels_through_o_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_label_or_low, setup, teardown),
		cmocka_unit_test_setup_teardown(test_polyinstantiation_boolean, setup, teardown),
		cmocka_unit_test_setup_teardown(test_polyinstantiation_suspect, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

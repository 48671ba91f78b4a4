/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* ns_setup_init: what the module, the check tool and the helper derive from the arguments. */
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

#include "ns-build.h"
#include "setup.h"

static void test_defaults(void **state)
{
	struct ns_args args = {0};
	struct ns_setup s;
	struct stat st;
	const char *want = NULL;

	assert_int_equal(ns_setup_init(&s, &args, 027), 0);
	/* NULL paths: the loader's defaults, with the vendor fallback. */
	assert_null(s.paths.main_file);
	assert_null(s.paths.conf_d);
	assert_false(s.paths.no_vendor);
	assert_false(s.paths.skip_trust_checks);
	assert_int_equal(s.config_flags, 0);
	assert_int_equal(s.plan_opts.flags, 0);
	assert_int_equal(s.plan_opts.umask, 027);
	if (lstat(NS_SYSCONF_DIR "/namespace.init", &st) == 0)
		want = NS_SYSCONF_DIR "/namespace.init";
	else if (lstat(NS_VENDOR_DIR "/namespace.init", &st) == 0)
		want = NS_VENDOR_DIR "/namespace.init";
	if (want)
		assert_string_equal(s.plan_opts.init_script, want);
	else
		assert_null(s.plan_opts.init_script);
	ns_setup_free(&s);
}

static void test_flags(void **state)
{
	struct ns_args args = {.gen_hash = true, .ignore_config_error = true};
	struct ns_setup s;

	assert_int_equal(ns_setup_init(&s, &args, 022), 0);
	assert_int_equal(s.config_flags, NS_CONFIG_IGNORE_ERRORS);
	assert_int_equal(s.plan_opts.flags, NS_PLAN_GEN_HASH | NS_PLAN_IGNORE_ERRORS);
	ns_setup_free(&s);
}

static void test_config_dir_without_init(void **state)
{
	struct ns_args args = {.config_dir = "/nonexistent/ns-setup-test"};
	struct ns_setup s;

	assert_int_equal(ns_setup_init(&s, &args, 022), 0);
	assert_string_equal(s.paths.main_file, "/nonexistent/ns-setup-test/namespace.conf");
	assert_string_equal(s.paths.conf_d, "/nonexistent/ns-setup-test/namespace.d");
	assert_true(s.paths.no_vendor);
	/* Not the system's script: config_dir= replaces all three. */
	assert_null(s.plan_opts.init_script);
	ns_setup_free(&s);
	assert_null(s.paths.main_file);
}

static void test_config_dir_with_init(void **state)
{
	char dir[] = "/tmp/ns-setup.XXXXXX", path[64];
	struct ns_args args = {.config_dir = dir};
	struct ns_setup s;
	int fd;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/namespace.init", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(ns_setup_init(&s, &args, 022), 0);
	assert_string_equal(s.plan_opts.init_script, path);
	ns_setup_free(&s);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_config_dir_without_init),
		cmocka_unit_test(test_config_dir_with_init),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

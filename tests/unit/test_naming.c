/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "naming.h"

static void test_md5_known(void **state)
{
	char hex[33];

	ns_md5_hex("alice", hex);
	assert_string_equal(hex, "6384e2b2184bcbf58eccf10ca7a6563c");
	ns_md5_hex("", hex);
	assert_string_equal(hex, "d41d8cd98f00b204e9800998ecf8427e");
}

static void test_short_name_kept(void **state)
{
	char *n = ns_instance_name("alice", false);

	assert_string_equal(n, "alice");
	free(n);
}

static void test_gen_hash(void **state)
{
	char *n = ns_instance_name("alice", true);

	assert_string_equal(n, "6384e2b2184bcbf58eccf10ca7a6563c");
	free(n);
}

static void test_exactly_80_kept(void **state)
{
	char raw[81];
	char *n;

	memset(raw, 'a', 80);
	raw[80] = '\0';
	n = ns_instance_name(raw, false);
	assert_string_equal(n, raw);
	free(n);
}

static void test_long_name_hashed(void **state)
{
	char raw[200], hex[33], want[81];
	char *n;

	memset(raw, 'x', sizeof(raw) - 1);
	raw[sizeof(raw) - 1] = '\0';
	memcpy(raw, "unconfined_u:object_r:user_tmp_t:s0", 35);
	n = ns_instance_name(raw, false);
	ns_md5_hex(raw, hex);
	memcpy(want, raw, 47);
	want[47] = '_';
	memcpy(want + 48, hex, 33);
	assert_int_equal(strlen(n), 80);
	assert_string_equal(n, want);
	free(n);
}

static void test_user_names(void **state)
{
	char big[300];

	assert_int_equal(ns_user_name_valid("alice"), 0);
	assert_int_equal(ns_user_name_valid("a.b-c_d$"), 0);
	assert_int_not_equal(ns_user_name_valid(""), 0);
	assert_int_not_equal(ns_user_name_valid("."), 0);
	assert_int_not_equal(ns_user_name_valid(".."), 0);
	assert_int_not_equal(ns_user_name_valid("../etc"), 0);
	assert_int_not_equal(ns_user_name_valid("a/b"), 0);
	assert_int_not_equal(ns_user_name_valid("a\nb"), 0);
	assert_int_not_equal(ns_user_name_valid("a\x7f"), 0);
	assert_int_not_equal(ns_user_name_valid(NULL), 0);
	memset(big, 'a', 256);
	big[256] = '\0';
	assert_int_equal(ns_user_name_valid(big), 0);
	big[256] = 'a';
	big[257] = '\0';
	assert_int_not_equal(ns_user_name_valid(big), 0);
}

/* The marker of a tmpdir instance: its name both ways, and only a whole line read as its content.
 */
static void test_tmpdir_marks(void **state)
{
	const char *inst = NULL;
	unsigned long long start = 0;
	char *name = ns_tmpdir_mark_name(2001, "tmpAb12Cd");
	uid_t uid = 0;
	int pid = 0;

	assert_string_equal(name, ".pam_namespace-session.2001.tmpAb12Cd");
	assert_int_equal(ns_tmpdir_mark_parse(name, &uid, &inst), 0);
	assert_int_equal(uid, 2001);
	assert_string_equal(inst, "tmpAb12Cd");
	free(name);
	assert_int_equal(ns_tmpdir_mark_parse(".pam_namespace-session.0.x.y", &uid, &inst), 0);
	assert_int_equal(uid, 0);
	assert_string_equal(inst, "x.y");
	assert_int_not_equal(ns_tmpdir_mark_parse(".pam_namespace-session..x", &uid, &inst), 0);
	assert_int_not_equal(ns_tmpdir_mark_parse(".pam_namespace-session.12", &uid, &inst), 0);
	assert_int_not_equal(ns_tmpdir_mark_parse(".pam_namespace-session.12.", &uid, &inst), 0);
	assert_int_not_equal(ns_tmpdir_mark_parse(".pam_namespace-session.1a.x", &uid, &inst), 0);
	assert_int_not_equal(
		ns_tmpdir_mark_parse(".pam_namespace-session.99999999999.x", &uid, &inst), 0);
	assert_int_not_equal(ns_tmpdir_mark_parse(".pam_namespace-new.abc", &uid, &inst), 0);
	assert_int_not_equal(ns_tmpdir_mark_parse("Ab12Cd", &uid, &inst), 0);

	assert_int_equal(ns_tmpdir_mark_content("123 456\n", &pid, &start), 0);
	assert_int_equal(pid, 123);
	assert_true(start == 456);
	assert_int_not_equal(ns_tmpdir_mark_content("", &pid, &start), 0);
	assert_int_not_equal(ns_tmpdir_mark_content("123 45", &pid, &start), 0);
	assert_int_not_equal(ns_tmpdir_mark_content("123 456\nx", &pid, &start), 0);
	assert_int_not_equal(ns_tmpdir_mark_content("0 456\n", &pid, &start), 0);
	assert_int_not_equal(ns_tmpdir_mark_content("-1 456\n", &pid, &start), 0);
	assert_int_not_equal(ns_tmpdir_mark_content("123  456\n", &pid, &start), 0);
	assert_int_not_equal(ns_tmpdir_mark_content("99999999999 456\n", &pid, &start), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_md5_known),	 cmocka_unit_test(test_short_name_kept),
		cmocka_unit_test(test_gen_hash),	 cmocka_unit_test(test_exactly_80_kept),
		cmocka_unit_test(test_long_name_hashed), cmocka_unit_test(test_user_names),
		cmocka_unit_test(test_tmpdir_marks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

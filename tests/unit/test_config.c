/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"
#include "util.h"

/* Every diagnostic, as "file:line:column: severity: message", newline-separated. */
static char reports[1 << 16];

static void capture(void *ud, enum ns_severity sev, const char *file, unsigned line,
		    unsigned column, const char *message)
{
	size_t n = strlen(reports);

	snprintf(reports + n, sizeof(reports) - n, "%s:%u:%u: %s: %s\n", file ? file : "-", line,
		 column, ns_severity_to_string(sev), message);
}

static int parse(struct ns_config *cfg, const char *text, unsigned flags)
{
	struct ns_diag d = {.report = capture};

	reports[0] = '\0';
	*cfg = (struct ns_config){0};
	return ns_config_parse_text(cfg, "namespace.conf", text, strlen(text),
				    "/etc/security/namespace.d", flags, &d);
}

static void assert_reported(const char *needle)
{
	if (!strstr(reports, needle))
		fail_msg("expected \"%s\" in reports:\n%s", needle, reports);
}

static void test_basic_lines(void **state)
{
	struct ns_config c;

	assert_int_equal(parse(&c,
			       "# comment\n"
			       "\n"
			       "   \t\n"
			       "/tmp     /tmp/tmp-inst/      user      root,adm\n"
			       "/var/tmp/ /var/tmp/tmp-inst/ user:noinit ~alice,bob # tail\n"
			       "$HOME $HOME/$USER.inst/ context\n",
			       0),
			 0);
	assert_int_equal(c.n_rules, 3);
	assert_string_equal(c.rules[0].polydir, "/tmp");
	assert_string_equal(c.rules[0].instance_prefix, "/tmp/tmp-inst/");
	assert_int_equal(c.rules[0].method, NS_METHOD_USER);
	assert_int_equal(c.rules[0].line, 4);
	assert_string_equal(c.rules[0].file, "namespace.conf");
	assert_int_equal(c.rules[0].n_users, 2);
	assert_false(c.rules[0].users_only);
	assert_string_equal(c.rules[0].users[1], "adm");
	assert_string_equal(c.rules[1].polydir, "/var/tmp");
	assert_true(c.rules[1].noinit);
	assert_true(c.rules[1].users_only);
	assert_string_equal(c.rules[1].users[0], "alice");
	assert_string_equal(c.rules[2].polydir, "$HOME");
	assert_int_equal(c.rules[2].method, NS_METHOD_CONTEXT);
	assert_int_equal(c.rules[2].n_users, 0);
	ns_config_free(&c);
}

static void test_quotes_escapes_comments(void **state)
{
	struct ns_config c;

	assert_int_equal(parse(&c, "\"/tmp/a b\" /i\\tx/ user \"al#ice\"\n", 0), -EINVAL);
	/* '#' starts a comment even inside quotes: the quote is then unterminated. */
	assert_int_equal(c.n_rules, 0);
	assert_reported("namespace.conf:1:");
	assert_reported("unterminated quote");
	ns_config_free(&c);

	assert_int_equal(parse(&c, "\"/tmp/a b\" /i\\tx\\q\\n/ \"us\"er\n", 0), 0);
	assert_int_equal(c.n_rules, 1);
	assert_string_equal(c.rules[0].polydir, "/tmp/a b");
	assert_string_equal(c.rules[0].instance_prefix, "/i\txq\n/");
	assert_int_equal(c.rules[0].method, NS_METHOD_USER);
	ns_config_free(&c);

	/* Inside quotes a backslash is literal, as in Linux-PAM's argv_parse. */
	assert_int_equal(parse(&c, "\"/tmp/a\\tb\" /i/\\q user\n", 0), 0);
	assert_int_equal(c.n_rules, 1);
	assert_string_equal(c.rules[0].polydir, "/tmp/a\\tb");
	assert_string_equal(c.rules[0].instance_prefix, "/i/q");
	ns_config_free(&c);
}

static void test_all_methods(void **state)
{
	static const char *const names[] = {"user", "context", "level", "tmpdir", "tmpfs"};
	struct ns_config c;
	char line[128];

	for (int m = 0; m < _NS_METHOD_MAX; m++) {
		snprintf(line, sizeof(line), "/tmp /tmp/i/ %s\n", names[m]);
		assert_int_equal(parse(&c, line, 0), 0);
		assert_int_equal(c.rules[0].method, m);
		assert_string_equal(ns_method_to_string((enum ns_method)m), names[m]);
		ns_config_free(&c);
	}
	assert_int_equal(ns_method_from_string("bogus"), _NS_METHOD_INVALID);
}

static void test_unknown_method(void **state)
{
	struct ns_config c;

	assert_int_equal(parse(&c, "/tmp /tmp/i/ user\n/var/tmp  /var/tmp/i/  bogus:noinit\n", 0),
			 -EINVAL);
	assert_reported(
		"namespace.conf:2:24: error: unknown method \"bogus\"; the methods are user, "
		"context, level, tmpdir, tmpfs");
	ns_config_free(&c);
}

/* A typo gets the word it likely meant: one or two edits away, and nothing for a far one. */
static void test_did_you_mean(void **state)
{
	static const char *const words[] = {"create", "iscript", "noinit", "shared", "mntopts"};
	struct ns_config c;

	(void)state;
	assert_string_equal(ns_closest("noinnit", words, 5), "noinit");
	assert_string_equal(ns_closest("nonit", words, 5), "noinit");
	assert_string_equal(ns_closest("sahred", words, 5), "shared");
	assert_null(ns_closest("frob", words, 5));
	assert_null(ns_closest("", words, 5));
	assert_int_equal(parse(&c, "/tmp /tmp/i/ usr\n", 0), -EINVAL);
	assert_reported(
		"unknown method \"usr\" (did you mean user?); the methods are user, context, "
		"level, tmpdir, tmpfs");
	ns_config_free(&c);
	assert_int_equal(parse(&c, "/tmp /tmp/i/ user:noinnit\n", 0), 0);
	assert_reported("warning: unknown flag \"noinnit\", ignored (did you mean noinit?); the "
			"flags are create[=mode,owner,group], iscript=PATH, noinit, shared, "
			"mntopts=OPTS");
	assert_false(c.rules[0].noinit);
	ns_config_free(&c);
	assert_int_equal(parse(&c, "/tmp /tmp/i/ user+:nosiud\n", 0), -EINVAL);
	assert_reported("unknown flag \"nosiud\" on an extended line (did you mean nosuid?)");
	ns_config_free(&c);
}

static void test_flags(void **state)
{
	struct ns_config c;

	assert_int_equal(parse(&c,
			       "/a /i/ user:create=755,www,staff:shared:iscript=a.init\n"
			       "/b /i/ user:create:iscript=/usr/lib/x.init:frob\n"
			       "/c /i/ user:create=1777,alice\n"
			       "/d - tmpfs:mntopts=size=10M,nosuid,mode=0700,nodev,noexec\n"
			       "/e /i/ user:create=,,staff\n",
			       0),
			 0);
	assert_int_equal(c.n_rules, 5);
	assert_true(c.rules[0].create);
	assert_true(c.rules[0].create_has_mode);
	assert_int_equal(c.rules[0].create_mode, 0755); /* octal, not decimal 755 */
	assert_string_equal(c.rules[0].create_owner, "www");
	assert_string_equal(c.rules[0].create_group, "staff");
	assert_true(c.rules[0].shared);
	assert_string_equal(c.rules[0].iscript, "/etc/security/namespace.d/a.init");
	assert_true(c.rules[1].create);
	assert_false(c.rules[1].create_has_mode);
	assert_null(c.rules[1].create_owner);
	assert_string_equal(c.rules[1].iscript, "/usr/lib/x.init");
	assert_reported("namespace.conf:2:");
	assert_reported("warning: unknown flag \"frob\", ignored");
	assert_int_equal(c.rules[2].create_mode, 01777);
	assert_string_equal(c.rules[2].create_owner, "alice");
	assert_null(c.rules[2].create_group);
	assert_string_equal(c.rules[3].mntopts, "size=10M,mode=0700");
	assert_int_equal(c.rules[3].mount_flags, MS_NOSUID | MS_NODEV | MS_NOEXEC);
	assert_false(c.rules[4].create_has_mode);
	assert_null(c.rules[4].create_owner);
	assert_string_equal(c.rules[4].create_group, "staff");
	ns_config_free(&c);

	assert_int_equal(parse(&c, "/a /i/ user:create=789\n", 0), -EINVAL);
	assert_reported("create: bad mode \"789\"");
	ns_config_free(&c);

	assert_int_equal(parse(&c, "/a /i/ user:mntopts=nosuid\n", 0), 0);
	assert_reported("warning: mntopts has effect only with method tmpfs");
	ns_config_free(&c);

	/* A second mntopts= replaces the first whole, its flags too (Linux-PAM). */
	assert_int_equal(parse(&c, "/a - tmpfs:mntopts=noexec,size=1M:mntopts=nodev\n", 0), 0);
	assert_null(c.rules[0].mntopts);
	assert_int_equal(c.rules[0].mount_flags, MS_NODEV);
	ns_config_free(&c);
}

static void test_fields(void **state)
{
	struct ns_config c;

	assert_int_equal(parse(&c, "/tmp /tmp/i/ user root extra\n", 0), 0);
	assert_int_equal(c.n_rules, 1);
	assert_reported("namespace.conf:1:24: warning: fifth field \"extra\" ignored");
	ns_config_free(&c);

	assert_int_equal(parse(&c, "/tmp /tmp/i/\n", 0), -EINVAL);
	assert_reported("want at least 3 fields");
	ns_config_free(&c);
}

static void test_path_checks(void **state)
{
	struct ns_config c;

	assert_int_equal(parse(&c, "tmp /tmp/i/ user\n", 0), -EINVAL);
	assert_reported("namespace.conf:1:1: error: polydir \"tmp\" is not an absolute path");
	ns_config_free(&c);
	assert_int_equal(parse(&c, "/tmp i/ user\n", 0), -EINVAL);
	assert_reported("namespace.conf:1:6: error: instance prefix \"i/\"");
	ns_config_free(&c);
	assert_int_equal(parse(&c, "/tmp/../etc /i/ user\n", 0), -EINVAL);
	assert_reported("contains \"..\"");
	ns_config_free(&c);
	assert_int_equal(parse(&c, "/tmp /i/.. user\n", 0), -EINVAL);
	ns_config_free(&c);
	/* tmpfs needs no instance prefix; names merely holding dots are fine. */
	assert_int_equal(parse(&c, "/tmp - tmpfs\n/x..y /i/..z user\n", 0), 0);
	assert_int_equal(c.n_rules, 2);
	ns_config_free(&c);
}

static void test_ignore_config_error(void **state)
{
	struct ns_config c;

	assert_int_equal(parse(&c, "/tmp /i/ bogus\n/var/tmp /i/ user\n", NS_CONFIG_IGNORE_ERRORS),
			 0);
	assert_int_equal(c.n_rules, 1);
	assert_string_equal(c.rules[0].polydir, "/var/tmp");
	assert_reported("namespace.conf:1:0: warning: line skipped (ignore_config_error)");
	ns_config_free(&c);
}

static void test_limits(void **state)
{
	struct ns_config c;
	struct ns_diag d = {.report = capture};
	size_t big = NS_CONFIG_MAX_LINE + 10, n = 0;
	char *text = malloc(1 << 20);

	/* A line over 64 KiB. */
	memset(text, 'a', big);
	text[0] = '/';
	text[big] = '\0';
	assert_int_equal(parse(&c, text, 0), -E2BIG);
	assert_reported("namespace.conf:1:0: error: line longer than");
	ns_config_free(&c);

	/* A 1 MB line, no newline at all. */
	memset(text, 'x', (1 << 20) - 1);
	text[(1 << 20) - 1] = '\0';
	assert_int_equal(parse(&c, text, 0), -E2BIG);
	ns_config_free(&c);

	/* NUL bytes. */
	reports[0] = '\0';
	c = (struct ns_config){0};
	assert_int_equal(
		ns_config_parse_text(&c, "f", "/tmp /i/ user\n/a\0b /i/ user\n", 27, NULL, 0, &d),
		-EINVAL);
	assert_reported("f:2:0: error: NUL byte");
	ns_config_free(&c);

	/* Invalid UTF-8 is just bytes. */
	assert_int_equal(parse(&c, "/tmp/\xff\xfe /i/\xc3 user\n", 0), 0);
	assert_int_equal(c.n_rules, 1);
	ns_config_free(&c);
	free(text);

	/* More than 10,000 entries. */
	text = malloc(30 * 10001 + 1);
	for (int i = 0; i <= NS_CONFIG_MAX_ENTRIES; i++)
		n += (size_t)sprintf(text + n, "/p%d /i/ user\n", i);
	assert_int_equal(parse(&c, text, 0), -E2BIG);
	assert_reported("more than 10000 entries");
	ns_config_free(&c);
	free(text);
}

static void test_20000_lines_fast(void **state)
{
	struct ns_config c;
	struct timespec a, b;
	size_t n = 0;
	char *text = malloc(64 * 20000);
	double ms;

	for (int i = 0; i < 20000; i++)
		n += (size_t)(i % 2 ? sprintf(text + n, "# comment number %d\n", i)
				    : sprintf(text + n, "/srv/p%d /srv/i/ user:noinit root,adm\n",
					      i));
	/*
	 * The parser's own CPU time, not the wall clock: a quadratic parse
	 * takes seconds of CPU, while a loaded machine only stretches the
	 * wall time (past 200 ms once at a load of 100, under the sanitizers).
	 */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	assert_int_equal(parse(&c, text, 0), 0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
	assert_int_equal(c.n_rules, 10000);
	assert_true(ms < 200.0);
	ns_config_free(&c);
	free(text);
}

/* --- files --- */

static char tmpdir[64];

static void write_file(const char *rel, const char *text, mode_t mode)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

static int setup_dir(void **state)
{
	char path[256];

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ns-config-test.XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	chmod(tmpdir, 0755);
	for (const char *const *d = (const char *const[]){"etc", "etc/namespace.d", "vendor",
							  "vendor/namespace.d", NULL};
	     *d; d++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, *d);
		if (mkdir(path, 0755) < 0)
			return -1;
	}
	return 0;
}

static int teardown_dir(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static int load(struct ns_config *c, bool with_main, bool trust)
{
	char main_file[256], vendor[256], conf_d[256], vendor_d[256];
	struct ns_config_paths p = {.main_file = main_file,
				    .vendor_file = vendor,
				    .conf_d = conf_d,
				    .vendor_d = vendor_d,
				    .skip_trust_checks = !trust};
	struct ns_diag d = {.report = capture};

	snprintf(main_file, sizeof(main_file), "%s/etc/%s", tmpdir,
		 with_main ? "namespace.conf" : "missing.conf");
	snprintf(vendor, sizeof(vendor), "%s/vendor/namespace.conf", tmpdir);
	snprintf(conf_d, sizeof(conf_d), "%s/etc/namespace.d", tmpdir);
	snprintf(vendor_d, sizeof(vendor_d), "%s/vendor/namespace.d", tmpdir);
	reports[0] = '\0';
	*c = (struct ns_config){0};
	return ns_config_load(c, &p, 0, &d);
}

static void test_load_order_and_fallback(void **state)
{
	struct ns_config c;

	write_file("etc/namespace.conf", "/main /i/ user\n", 0644);
	write_file("vendor/namespace.conf", "/vendor-main /i/ user\n", 0644);
	write_file("etc/namespace.d/20-b.conf", "/etc-b /i/ user\n", 0644);
	write_file("etc/namespace.d/10-a.conf", "/etc-a /i/ user\n", 0644);
	write_file("vendor/namespace.d/10-a.conf", "/vendor-a /i/ user\n", 0644);
	write_file("vendor/namespace.d/15-v.conf", "/vendor-v /i/ user\n", 0644);
	write_file("etc/namespace.d/30-c.conf.disabled", "/nope /i/ user\n", 0644);
	write_file("etc/namespace.d/.hidden.conf", "/nope /i/ user\n", 0644);

	assert_int_equal(load(&c, true, false), 0);
	assert_int_equal(c.n_rules, 4);
	assert_string_equal(c.rules[0].polydir, "/main");
	assert_string_equal(c.rules[1].polydir, "/etc-a"); /* hides the vendor 10-a.conf */
	assert_string_equal(c.rules[2].polydir, "/vendor-v");
	assert_string_equal(c.rules[3].polydir, "/etc-b");
	assert_non_null(strstr(c.rules[1].file, "/etc/namespace.d/10-a.conf"));
	ns_config_free(&c);

	/* No main file: the vendor copy. */
	assert_int_equal(load(&c, false, false), 0);
	assert_string_equal(c.rules[0].polydir, "/vendor-main");
	ns_config_free(&c);
}

static void test_load_missing(void **state)
{
	struct ns_config c;
	char path[256];

	snprintf(path, sizeof(path), "%s/vendor/namespace.conf", tmpdir);
	unlink(path);
	assert_int_equal(load(&c, false, false), -ENOENT);
	assert_reported("no configuration: neither");
	ns_config_free(&c);
}

static void test_load_error_names_file_line(void **state)
{
	struct ns_config c;

	write_file("etc/namespace.conf", "/tmp /i/ user\n/var/tmp /i/ nope\n", 0644);
	assert_int_equal(load(&c, true, false), -EINVAL);
	assert_reported("/etc/namespace.conf:2:");
	assert_reported("unknown method \"nope\"");
	ns_config_free(&c);
	write_file("etc/namespace.conf", "/main /i/ user\n", 0644);
}

static void test_trust_checks(void **state)
{
	struct ns_config c;
	char path[256];

	if (geteuid() != 0)
		skip();
	/* tmpdir lives in /tmp: root-owned and sticky, which is allowed. */
	assert_int_equal(load(&c, true, true), 0);
	ns_config_free(&c);

	write_file("etc/namespace.conf", "/main /i/ user\n", 0664);
	assert_int_equal(load(&c, true, true), -EPERM);
	assert_reported("etc/namespace.conf:0:0: error: refusing: owned by uid 0 with mode 0664");
	ns_config_free(&c);

	write_file("etc/namespace.conf", "/main /i/ user\n", 0644);
	snprintf(path, sizeof(path), "%s/etc/namespace.conf", tmpdir);
	assert_int_equal(chown(path, 1000, 1000), 0);
	assert_int_equal(load(&c, true, true), -EPERM);
	assert_reported("owned by uid 1000");
	ns_config_free(&c);
	assert_int_equal(chown(path, 0, 0), 0);

	snprintf(path, sizeof(path), "%s/etc/namespace.d", tmpdir);
	assert_int_equal(chmod(path, 0777), 0);
	assert_int_equal(load(&c, true, true), -EPERM);
	assert_reported("refusing: directory");
	ns_config_free(&c);
	assert_int_equal(chmod(path, 0755), 0);

	/* A FIFO in place of a file never blocks, and is refused. */
	snprintf(path, sizeof(path), "%s/etc/namespace.d/50-fifo.conf", tmpdir);
	assert_int_equal(mkfifo(path, 0644), 0);
	assert_int_equal(load(&c, true, true), -EPERM);
	assert_reported("not a regular file");
	ns_config_free(&c);
	unlink(path);

	/* A symlink in place of the main file is refused too. */
	snprintf(path, sizeof(path), "%s/etc/namespace.d/60-link.conf", tmpdir);
	assert_int_equal(symlink("/etc/hostname", path), 0);
	assert_int_equal(load(&c, true, true), -ELOOP);
	ns_config_free(&c);
	unlink(path);
}

/* METHOD+: this module's extensions; Linux-PAM refuses the method. */
static void test_extended_lines(void **state)
{
	struct ns_config c;
	const struct ns_rule *r;

	assert_int_equal(parse(&c,
			       "/tmp /tmp/inst/ user+:share=/tmp/.X11-unix:share=/tmp/.ICE-unix:"
			       "nosuid:nodev:noexec:ro\n"
			       "/tmp /tmp/inst/ tmpfs+:nosuid:mntopts=size=1M\n"
			       "/tmp /tmp/inst/ user+:ignore_instance_parent_mode:ignore_unknown "
			       "~@admins,uid<1000,1000-1999,uid>60000,alice\n"
			       "$HOME $HOME/inst/ user+:share=$HOME/.x\n",
			       0),
			 0);
	assert_int_equal(c.n_rules, 4);
	r = &c.rules[0];
	assert_true(r->extended);
	assert_int_equal(r->method, NS_METHOD_USER);
	assert_int_equal(r->n_shares, 2);
	assert_string_equal(r->shares[0], "/tmp/.X11-unix");
	assert_string_equal(r->shares[1], "/tmp/.ICE-unix");
	assert_int_equal(r->attr_flags, MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY);
	assert_int_equal(r->mount_flags, 0);
	r = &c.rules[1];
	assert_int_equal(r->method, NS_METHOD_TMPFS);
	assert_int_equal(r->attr_flags, MS_NOSUID);
	assert_string_equal(r->mntopts, "size=1M");
	r = &c.rules[2];
	assert_true(r->ignore_parent_mode);
	assert_true(r->ignore_unknown);
	assert_true(r->users_only);
	assert_int_equal(r->n_users, 0);
	assert_int_equal(r->n_selectors, 5);
	assert_int_equal(r->selectors[0].kind, NS_SELECTOR_GROUP);
	assert_string_equal(r->selectors[0].name, "admins");
	assert_int_equal(r->selectors[1].kind, NS_SELECTOR_UIDS);
	assert_int_equal(r->selectors[1].lo, 0);
	assert_int_equal(r->selectors[1].hi, 999);
	assert_int_equal(r->selectors[2].lo, 1000);
	assert_int_equal(r->selectors[2].hi, 1999);
	assert_int_equal(r->selectors[3].lo, 60001);
	assert_int_equal(r->selectors[3].hi, (uid_t)-2);
	assert_int_equal(r->selectors[4].kind, NS_SELECTOR_USER);
	assert_string_equal(r->selectors[4].name, "alice");
	assert_string_equal(c.rules[3].shares[0], "$HOME/.x");
	assert_string_equal(reports, "");
	ns_config_free(&c);

	/* The same words on plain lines mean what they mean to Linux-PAM. */
	assert_int_equal(parse(&c, "/tmp /tmp/inst/ user:nosuid:share=/tmp/.X11-unix @admins\n", 0),
			 0);
	r = &c.rules[0];
	assert_false(r->extended);
	assert_int_equal(r->attr_flags, 0);
	assert_int_equal(r->n_shares, 0);
	assert_int_equal(r->n_users, 1);
	assert_string_equal(r->users[0], "@admins");
	assert_reported("unknown flag \"nosuid\", ignored: this module's flag of that name needs "
			"the extended method form (\"user+\")");
	assert_reported("unknown flag \"share=/tmp/.X11-unix\", ignored: this module's flag");
	ns_config_free(&c);
}

static void test_extended_escapes(void **state)
{
	struct ns_config c;

	/* In quotes a backslash reaches the method field; outside, it is doubled. */
	assert_int_equal(parse(&c,
			       "/tmp /tmp/inst/ \"tmpfs+:mntopts=mpol=bind\\:0-1,size=1M\"\n"
			       "/tmp /tmp/inst/ tmpfs+:mntopts=mpol=interleave\\\\:0\\\\,2,noexec\n"
			       "/tmp /tmp/inst/ \"tmpfs:mntopts=a\\b\"\n",
			       0),
			 0);
	assert_string_equal(c.rules[0].mntopts, "mpol=bind:0-1,size=1M");
	/* A comma inside an option stays escaped for kn_tmpfs_fd. */
	assert_string_equal(c.rules[1].mntopts, "mpol=interleave:0\\,2");
	assert_int_equal(c.rules[1].mount_flags, MS_NOEXEC);
	/* Plain lines: a backslash is itself, escaped for kn_tmpfs_fd. */
	assert_string_equal(c.rules[2].mntopts, "a\\\\b");
	ns_config_free(&c);
}

static void test_extended_errors(void **state)
{
	struct ns_config c;

	assert_int_equal(parse(&c, "/tmp /tmp/inst/ user+:bogus\n", 0), -EINVAL);
	assert_reported("namespace.conf:1:23: error: unknown flag \"bogus\" on an extended line");
	assert_int_equal(parse(&c, "/tmp /tmp/inst/ user+:share=/var/x\n", 0), -EINVAL);
	assert_reported("share: \"/var/x\" is not a directory right inside the polydir /tmp");
	assert_int_equal(parse(&c, "/tmp /tmp/inst/ user+:share=/tmp/a/b\n", 0), -EINVAL);
	assert_reported("is not a directory right inside the polydir");
	assert_int_equal(parse(&c, "/tmp /tmp/inst/ user+:share=/tmp/../etc\n", 0), -EINVAL);
	assert_reported("share: path \"/tmp/../etc\"");
	assert_int_equal(parse(&c, "/tmp /tmp/inst/ tmpfs+:ro\n", 0), -EINVAL);
	assert_reported("ro: a tmpfs instance is new and empty");
	assert_int_equal(parse(&c, "/tmp /tmp/inst/ user+ uid<0\n", 0), -EINVAL);
	assert_reported("bad uid range \"uid<0\"");
	assert_int_equal(parse(&c, "/tmp /tmp/inst/ user+ 2000-1000\n", 0), -EINVAL);
	assert_reported("bad uid range \"2000-1000\"");
	assert_int_equal(parse(&c, "/tmp /tmp/inst/ user+ uid<x\n", 0), -EINVAL);
	assert_int_equal(parse(&c, "/tmp /tmp/inst/ user+ @\n", 0), -EINVAL);
	assert_reported("\"@\" without a group name");
	assert_int_equal(parse(&c, "/tmp /tmp/inst/ bogus+\n", 0), -EINVAL);
	assert_reported("unknown method \"bogus+\"");
	assert_int_equal(parse(&c, "/tmp /tmp/inst/ +\n", 0), -EINVAL);
	/* Skipped like any bad line with ignore_config_error. */
	assert_int_equal(parse(&c, "/tmp /tmp/inst/ user+:bogus\n/var/tmp /v/ user\n",
			       NS_CONFIG_IGNORE_ERRORS),
			 0);
	assert_int_equal(c.n_rules, 1);
	ns_config_free(&c);
}

static void test_extended_quota(void **state)
{
	struct ns_config c;

	assert_int_equal(parse(&c,
			       "/tmp /tmp/inst/ user+:quota=100M,1000\n"
			       "/var/tmp /var/tmp/inst/ tmpdir+:quota=,50\n"
			       "/srv /srv/inst/ user+:quota=2g\n",
			       0),
			 0);
	assert_true(c.rules[0].quota);
	assert_true(c.rules[0].quota_bytes == 100ULL << 20);
	assert_true(c.rules[0].quota_inodes == 1000);
	assert_true(c.rules[1].quota_bytes == 0);
	assert_true(c.rules[1].quota_inodes == 50);
	assert_true(c.rules[2].quota_bytes == 2ULL << 30);
	ns_config_free(&c);
	assert_int_equal(parse(&c, "/tmp - tmpfs+:quota=1M\n", 0), -EINVAL);
	assert_reported("quota: a tmpfs instance is the session's own filesystem");
	assert_int_equal(parse(&c, "/tmp /i/ user+:quota=1X\n", 0), -EINVAL);
	assert_reported("quota: bad value \"1X\"");
	assert_int_equal(parse(&c, "/tmp /i/ user+:quota=,\n", 0), -EINVAL);
	assert_int_equal(parse(&c, "/tmp /i/ user+:quota=0\n", 0), -EINVAL);
	assert_int_equal(parse(&c, "/tmp /i/ user+:quota=1M,2,3\n", 0), -EINVAL);
	assert_int_equal(parse(&c, "/tmp /i/ user+:quota=99999999999999999999\n", 0), -EINVAL);
	assert_int_equal(parse(&c, "/tmp /i/ user+:quota=16777216T\n", 0), -EINVAL);
	/* On a plain line: an unknown flag, with the warning. */
	assert_int_equal(parse(&c, "/tmp /i/ user:quota=1M\n", 0), 0);
	assert_false(c.rules[0].quota);
	assert_reported("unknown flag \"quota=1M\", ignored: this module's flag");
	ns_config_free(&c);
}

int main(void)
{
	const struct CMUnitTest text_tests[] = {
		cmocka_unit_test(test_basic_lines),
		cmocka_unit_test(test_quotes_escapes_comments),
		cmocka_unit_test(test_all_methods),
		cmocka_unit_test(test_unknown_method),
		cmocka_unit_test(test_did_you_mean),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_path_checks),
		cmocka_unit_test(test_ignore_config_error),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_20000_lines_fast),
		cmocka_unit_test(test_extended_lines),
		cmocka_unit_test(test_extended_escapes),
		cmocka_unit_test(test_extended_errors),
		cmocka_unit_test(test_extended_quota),
	};
	const struct CMUnitTest file_tests[] = {
		cmocka_unit_test(test_load_order_and_fallback),
		cmocka_unit_test(test_load_error_names_file_line),
		cmocka_unit_test(test_trust_checks),
		cmocka_unit_test(test_load_missing),
	};
	int r = cmocka_run_group_tests(text_tests, NULL, NULL);

	return r | cmocka_run_group_tests(file_tests, setup_dir, teardown_dir);
}

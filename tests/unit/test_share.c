/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * share_namespace without namespaces: the instance key, the argument, the
 * state file and the session records (share.h). The pins themselves need
 * root and mount namespaces: tests/integration/test_share.sh.
 */
#include <dirent.h>
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
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "args.h"
#include "config.h"
#include "share/internal.h"
#include "share.h"

static struct ns_plan_entry entry(const char *polydir, const char *instance, const char *mntopts)
{
	return (struct ns_plan_entry){.method = NS_METHOD_USER,
				      .polydir = (char *)polydir,
				      .instance = (char *)instance,
				      .mntopts = (char *)mntopts};
}

static void key_of(const struct ns_plan_entry *e, size_t n, uid_t uid, const char *context,
		   bool mount_private, long orig, char out[33])
{
	struct ns_plan plan = {.entries = (struct ns_plan_entry *)e, .n_entries = n};
	struct ns_user u = {.name = "alice", .uid = uid, .context = context};
	struct ns_apply_opts o = {.mount_private = mount_private};

	assert_int_equal(ns_share_key(&plan, &u, &o, orig, out), 0);
	assert_int_equal(strlen(out), 32);
	assert_int_equal(strspn(out, "0123456789abcdef"), 32);
}

static void test_key_selects(void **state)
{
	struct ns_plan_entry a[] = {entry("/tmp", "/tmp/inst/alice", NULL),
				    entry("/var/tmp", "/var/tmp/inst/alice", NULL)};
	struct ns_plan_entry b[] = {entry("/tmp", "/tmp/inst/alice", "size=2m"),
				    entry("/var/tmp", "/var/tmp/inst/alice", NULL)};
	struct ns_plan_entry swapped[] = {a[1], a[0]};
	char base[33], k[33];

	key_of(a, 2, 2001, NULL, false, -1, base);
	key_of(a, 2, 2001, NULL, false, -1, k);
	assert_string_equal(base, k);
	key_of(a, 2, 2002, NULL, false, -1, k);
	assert_string_not_equal(base, k);
	key_of(a, 2, 2001, "user_u:user_r:user_t:s0", false, -1, k);
	assert_string_not_equal(base, k);
	{
		char s0[33], c1[33];

		key_of(a, 2, 2001, "user_u:user_r:user_t:s0", false, -1, s0);
		key_of(a, 2, 2001, "user_u:user_r:user_t:s0:c1", false, -1, c1);
		assert_string_not_equal(s0, c1);
	}
	key_of(b, 2, 2001, NULL, false, -1, k);
	assert_string_not_equal(base, k);
	key_of(swapped, 2, 2001, NULL, false, -1, k);
	assert_string_not_equal(base, k);
	key_of(a, 1, 2001, NULL, false, -1, k);
	assert_string_not_equal(base, k);
	key_of(a, 2, 2001, NULL, true, -1, k);
	assert_string_not_equal(base, k);
	key_of(a, 2, 2001, NULL, false, 0, k);
	assert_string_not_equal(base, k);
}

/* The planner's name service for whole lines: alice, bob, the group staff, SELinux. */
static int fake_user(void *ud, const char *name, uid_t *uid, gid_t *gid)
{
	if (strcmp(name, "alice") == 0 || strcmp(name, "bob") == 0) {
		*uid = *gid = name[0] == 'a' ? 2001 : 2002;
		return 0;
	}
	return -ENOENT;
}

static int fake_group(void *ud, const char *name, gid_t *gid)
{
	if (strcmp(name, "staff") != 0)
		return -ENOENT;
	*gid = 50;
	return 0;
}

static int fake_member(void *ud, const char *user_context, const char *polydir,
		       enum ns_method method, char **ret)
{
	*ret = strdup(method == NS_METHOD_LEVEL ? "system_u:object_r:tmp_t:s0:c1"
						: "system_u:object_r:tmp_t:s0");
	return 0;
}

static void print_diag(void *ud, enum ns_severity sev, const char *file, unsigned line,
		       unsigned column, const char *message)
{
	fprintf(stderr, "%s:%u: %s\n", file ? file : "-", line, message);
}

/* The key of alice's session under the namespace.conf text conf, with arguments. */
static void key_of_conf(const char *conf, unsigned plan_flags, bool mount_private,
			bool ignore_parent_mode, char out[33])
{
	struct ns_lookup lookup = {
		.user = fake_user, .group = fake_group, .member_context = fake_member};
	struct ns_user u = {.name = "alice",
			    .uid = 2001,
			    .gid = 2001,
			    .home = "/home/alice",
			    .context = "user_u:user_r:user_t:s0"};
	struct ns_plan_opts popts = {
		.flags = plan_flags, .umask = 022, .init_script = "/etc/security/namespace.init"};
	struct ns_apply_opts o = {.mount_private = mount_private,
				  .ignore_instance_parent_mode = ignore_parent_mode};
	struct ns_diag diag = {.report = print_diag};
	struct ns_config cfg = {0};
	struct ns_plan plan = {0};

	assert_int_equal(ns_config_parse_text(&cfg, "namespace.conf", conf, strlen(conf),
					      "/etc/security/namespace.d", 0, &diag),
			 0);
	assert_int_equal(ns_plan_build(&plan, &cfg, &u, &lookup, &popts, &diag), 0);
	assert_int_equal(plan.n_entries, 1);
	assert_int_equal(ns_share_key(&plan, &u, &o, -1, out), 0);
	ns_plan_free(&plan);
	ns_config_free(&cfg);
}

/*
 * Issue 31, point 2: every field a line can set, every method, flag,
 * option and extended option, and the arguments that change what is
 * mounted, each give a key of their own. Before, a line's nosuid, nodev,
 * noexec and ro, its quota=, share= and ignore_instance_parent_mode were
 * left out: sessions joined a namespace made without them.
 */
static void test_key_every_field(void **state)
{
	static const char *const lines[] = {
		"/tmp /tmp-inst/ user\n",
		"/var/tmp /tmp-inst/ user\n",
		"/tmp /tmp-other/ user\n",
		"/tmp /tmp-inst/$USER- user\n",
		"/tmp /tmp-inst/ context\n",
		"/tmp /tmp-inst/ level\n",
		"/tmp /tmp-inst/ context:shared\n",
		"/tmp /tmp-inst/ level:shared\n",
		"/tmp /tmp-inst/ tmpdir\n",
		"/tmp /tmp-inst/ tmpfs\n",
		"/tmp /tmp-inst/ user:create\n",
		"/tmp /tmp-inst/ user:create=0700\n",
		"/tmp /tmp-inst/ user:create=0700,bob\n",
		"/tmp /tmp-inst/ user:create=0700,bob,staff\n",
		"/tmp /tmp-inst/ user:iscript=/etc/security/other.init\n",
		"/tmp /tmp-inst/ user:iscript=rel.init\n",
		"/tmp /tmp-inst/ user:noinit\n",
		"/tmp /tmp-inst/ tmpfs:mntopts=size=1m\n",
		"/tmp /tmp-inst/ tmpfs:mntopts=size=2m\n",
		"/tmp /tmp-inst/ tmpfs:mntopts=nosuid\n",
		"/tmp /tmp-inst/ tmpfs:mntopts=nodev\n",
		"/tmp /tmp-inst/ tmpfs:mntopts=noexec\n",
		"/tmp /tmp-inst/ user+:nosuid\n",
		"/tmp /tmp-inst/ user+:nodev\n",
		"/tmp /tmp-inst/ user+:noexec\n",
		"/tmp /tmp-inst/ user+:ro\n",
		"/tmp /tmp-inst/ user+:noexec:nosuid:nodev\n",
		"/tmp /tmp-inst/ user+:share=/tmp/.X11-unix\n",
		"/tmp /tmp-inst/ user+:share=/tmp/.ICE-unix\n",
		"/tmp /tmp-inst/ user+:share=/tmp/.X11-unix:share=/tmp/.ICE-unix\n",
		"/tmp /tmp-inst/ user+:ignore_instance_parent_mode\n",
		"/tmp /tmp-inst/ user+:quota=1M\n",
		"/tmp /tmp-inst/ user+:quota=2M\n",
		"/tmp /tmp-inst/ user+:quota=1M,100\n",
		"/tmp /tmp-inst/ user+:quota=,100\n",
	};
	enum { N_LINES = sizeof(lines) / sizeof(lines[0]) };
	/* and the arguments: gen_hash, mount_private, ignore_instance_parent_mode */
	char keys[N_LINES + 3][33];
	size_t n = 0;

	for (size_t i = 0; i < N_LINES; i++)
		key_of_conf(lines[i], 0, false, false, keys[n++]);
	key_of_conf(lines[0], NS_PLAN_GEN_HASH, false, false, keys[n++]);
	key_of_conf(lines[0], 0, true, false, keys[n++]);
	key_of_conf(lines[0], 0, false, true, keys[n++]);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (strcmp(keys[i], keys[j]) == 0)
				fail_msg("case %zu (%s) and case %zu (%s) have one key", i,
					 i < N_LINES ? lines[i] : "an argument", j,
					 j < N_LINES ? lines[j] : "an argument");
	/* and the same line twice, the same key */
	{
		char again[33];

		key_of_conf(lines[26], 0, false, false, again);
		assert_string_equal(again, keys[26]);
	}
}

static void test_argument(void **state)
{
	const char *with[] = {"debug", "share_namespace"};
	const char *without[] = {"debug"};
	struct ns_args args;

	assert_int_equal(ns_args_parse(&args, 2, with, NULL), 0);
	assert_true(args.share_namespace);
	assert_int_equal(ns_args_parse(&args, 1, without, NULL), 0);
	assert_false(args.share_namespace);
}

struct tmp_dir {
	char path[32];
	int fd;
};

static int make_dir(void **state)
{
	struct tmp_dir *d = calloc(1, sizeof(*d));

	if (!d)
		return -1;
	strcpy(d->path, "/tmp/ns-share-unit-XXXXXX");
	if (!mkdtemp(d->path))
		return -1;
	d->fd = open(d->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	*state = d;
	return d->fd < 0 ? -1 : 0;
}

static int remove_dir(void **state)
{
	struct tmp_dir *d = *state;
	DIR *dir = fdopendir(dup(d->fd));
	struct dirent *de;

	while (dir && (de = readdir(dir)))
		if (de->d_name[0] != '.' && unlinkat(d->fd, de->d_name, 0) < 0)
			(void)unlinkat(d->fd, de->d_name, AT_REMOVEDIR); /* a user directory */
	if (dir)
		closedir(dir);
	close(d->fd);
	(void)rmdir(d->path);
	free(d);
	return 0;
}

/* A state as a pin of alice's namespace has it, with one tmpdir instance. */
static struct ns_share_state state_of(char *user, char **polydirs, size_t n_polydirs,
				      struct ns_share_tmpdir *tmpdirs)
{
	return (struct ns_share_state){.dev = 4,
				       .ino = 4026532175,
				       .root_dev = 2049,
				       .root_ino = 2,
				       .user = user,
				       .polydirs = polydirs,
				       .n_polydirs = n_polydirs,
				       .tmpdirs = tmpdirs,
				       .n_tmpdirs = 1};
}

static void test_state_round_trip(void **state)
{
	int dir = ((struct tmp_dir *)*state)->fd;
	char p1[] = "/tmp", p2[] = "/var/tmp", parent[] = "/tmp-inst", name[] = "alice.XYZ",
	     user[] = "alice";
	char *polydirs[] = {p1, p2};
	struct ns_share_tmpdir tmpdirs[] = {{.parent = parent, .name = name}};
	struct ns_share_state st = state_of(user, polydirs, 2, tmpdirs);
	struct ns_share_state back = {0};

	if (geteuid() != 0)
		skip(); /* the reader refuses a state file that is not root's */
	assert_int_equal(ns_share_state_write(dir, "k1", &st), 0);
	assert_int_equal(ns_share_state_read(dir, "k1", &back), 0);
	assert_int_equal(back.dev, 4);
	assert_int_equal(back.ino, 4026532175);
	assert_int_equal(back.root_ino, 2);
	assert_string_equal(back.user, "alice");
	assert_int_equal(back.n_polydirs, 2);
	assert_string_equal(back.polydirs[1], "/var/tmp");
	assert_int_equal(back.n_tmpdirs, 1);
	assert_string_equal(back.tmpdirs[0].parent, "/tmp-inst");
	assert_string_equal(back.tmpdirs[0].name, "alice.XYZ");
	ns_share_state_free(&back);
	assert_int_equal(ns_share_state_read(dir, "nothing", &back), -ENOENT);

	/* group-readable, or malformed: refused */
	assert_int_equal(fchmodat(dir, "k1.state", 0640, 0), 0);
	assert_int_equal(ns_share_state_read(dir, "k1", &back), -EPERM);
	{
		int fd = openat(dir, "k2.state", O_WRONLY | O_CREAT | O_EXCL, 0600);

		assert_true(fd >= 0);
		assert_int_equal(write(fd, "pam_namespace-share 1\nns 1\n", 27), 27);
		close(fd);
	}
	assert_int_equal(ns_share_state_read(dir, "k2", &back), -EBADMSG);
}

/*
 * Issue 31, point 13: whatever a name or path the module accepts holds, a
 * blank, a tab, a newline, a backslash, the state reads back as written;
 * a state of an earlier release, without escapes, reads as it was.
 */
static void test_state_escapes(void **state)
{
	int dir = ((struct tmp_dir *)*state)->fd;
	char user[] = "ann smith\tx\ny\\040z\x85\xa0", poly[] = "/home/ann smith",
	     parent[] = "/srv/i n", name[] = "ann smith-\x7f\n";
	char *polydirs[] = {poly};
	struct ns_share_tmpdir tmpdirs[] = {{.parent = parent, .name = name}};
	struct ns_share_state st = state_of(user, polydirs, 1, tmpdirs);
	struct ns_share_state back = {0};
	char old[] = "pam_namespace-share 1\nns 4 5\nroot 6 7\nuser a\\b\npolydir /t\\mp\n";
	char nul[] = "pam_namespace-share 1\nns 4 5\nroot 6 7\nuser a\\000b\n";

	if (geteuid() != 0)
		skip(); /* the reader refuses a state file that is not root's */
	assert_int_equal(ns_share_state_write(dir, "k", &st), 0);
	assert_int_equal(ns_share_state_read(dir, "k", &back), 0);
	assert_string_equal(back.user, user);
	assert_int_equal(back.n_polydirs, 1);
	assert_string_equal(back.polydirs[0], poly);
	assert_int_equal(back.n_tmpdirs, 1);
	assert_string_equal(back.tmpdirs[0].parent, parent);
	assert_string_equal(back.tmpdirs[0].name, name);
	ns_share_state_free(&back);

	assert_int_equal(share_state_parse(old, false, &back), 0);
	assert_string_equal(back.user, "a\\b");
	assert_string_equal(back.polydirs[0], "/t\\mp");
	ns_share_state_free(&back);
	assert_int_equal(share_state_parse(nul, false, &back), -EBADMSG);
}

/* A record is read only in the form it is written, so that the one read is the one removed. */
static void test_record_names(void **state)
{
	struct ns_share_proc p = {.pid = 42, .pidfs = true, .id = 18446744073709551615ULL}, back;
	const char *const bad[] = {"k@ 42.p1",
				   "k@042.p1",
				   "k@+42.p1",
				   "k@42.p-1",
				   "k@42.p01",
				   "k@42.p1x",
				   "k@42.x1",
				   "k@0.p1",
				   "@42.p1",
				   "k@2147483648.p1",
				   "k@42.p18446744073709551616"};
	char name[128];
	size_t klen;

	assert_int_equal(share_record_name(name, sizeof(name), "a@b", &p), 0);
	assert_string_equal(name, "a@b@42.p18446744073709551615");
	assert_true(share_record_parse(name, &klen, &back));
	assert_int_equal(klen, 3);
	assert_int_equal(back.pid, 42);
	assert_true(back.pidfs);
	assert_true(back.id == p.id);
	assert_true(share_record_parse("k@1.s0", &klen, &back));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (share_record_parse(bad[i], &klen, &back))
			fail_msg("%s taken for a record", bad[i]);
}

static void test_sessions(void **state)
{
	int dir = ((struct tmp_dir *)*state)->fd;
	struct ns_share_proc self = {.pid = getpid(), .pidfs = false}, dead;
	struct ns_share_state st = {0};
	char start[64];
	size_t stale = 0;
	FILE *f;

	/* this process's start time, as the module reads it on kernels without pidfs */
	snprintf(start, sizeof(start), "/proc/%d/stat", (int)self.pid);
	f = fopen(start, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f,
				"%*d (%*[^)]) %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u "
				"%*d %*d %*d %*d %*d %*d %llu",
				&self.id),
			 1);
	fclose(f);
	dead = (struct ns_share_proc){.pid = self.pid, .pidfs = false, .id = self.id + 1};
	assert_int_equal(ns_share_proc_alive(&self), 1);
	assert_int_equal(ns_share_proc_alive(&dead), 0);

	/* a gone session is pruned */
	assert_int_equal(ns_share_session_add(dir, "k", &dead), 0);
	assert_int_equal(ns_share_sessions(dir, "k", NS_SHARE_SCAN_COUNT, &st, &stale), 0);
	assert_int_equal(st.n_sessions, 0);
	assert_int_equal(stale, 1);
	assert_int_equal(ns_share_sessions(dir, "k", NS_SHARE_SCAN_PRUNE, &st, &stale), 0);
	assert_int_equal(stale, 1);
	assert_int_equal(ns_share_sessions(dir, "k", NS_SHARE_SCAN_COUNT, &st, &stale), 0);
	assert_int_equal(st.n_sessions + stale, 0);

	/* a live one is kept, counted once */
	assert_int_equal(ns_share_session_add(dir, "k", &self), 0);
	assert_int_equal(ns_share_session_add(dir, "k", &self), -EEXIST);
	assert_int_equal(ns_share_session_add(dir, "other", &self), 0);
	assert_int_equal(ns_share_sessions(dir, "k", NS_SHARE_SCAN_PRUNE, &st, &stale), 0);
	assert_int_equal(st.n_sessions, 1);
	assert_int_equal(st.sessions[0].pid, self.pid);
	assert_int_equal(stale, 0);
	assert_int_equal(ns_share_sessions(dir, "k", NS_SHARE_SCAN_REMOVE_ALL, &st, NULL), 0);
	assert_int_equal(ns_share_sessions(dir, "k", NS_SHARE_SCAN_COUNT, &st, &stale), 0);
	assert_int_equal(st.n_sessions + stale, 0);
	/* another key's record is untouched */
	assert_int_equal(ns_share_sessions(dir, "other", NS_SHARE_SCAN_COUNT, &st, &stale), 0);
	assert_int_equal(st.n_sessions, 1);
	free(st.sessions);
}

/*
 * Issue 27, point 1: gone records before and after a live one, of this key
 * and of another, are all pruned by one open's scan; live ones of every key
 * are counted for the cap.
 */
static void test_prune_every_gone_record(void **state)
{
	int dir = ((struct tmp_dir *)*state)->fd;
	struct ns_share_proc self, gone;
	struct ns_share_state st = {0};
	size_t stale = 0;

	/* a pid that is surely gone: a child reaped */
	pid_t child = fork();

	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	assert_int_equal(waitpid(child, NULL, 0), child);
	self = (struct ns_share_proc){.pid = getpid(), .pidfs = false};
	assert_int_equal(ns_share_sessions(dir, "k", NS_SHARE_SCAN_COUNT, &st, &stale), 0);
	{
		FILE *f;
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)self.pid);
		f = fopen(path, "r");
		assert_non_null(f);
		assert_int_equal(fscanf(f,
					"%*d (%*[^)]) %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
					"%*u %*u %*d %*d %*d %*d %*d %*d %llu",
					&self.id),
				 1);
		fclose(f);
	}
	for (int i = 0; i < 20; i++) {
		gone = (struct ns_share_proc){.pid = child, .pidfs = false, .id = (unsigned)i};
		assert_int_equal(ns_share_session_add(dir, "k", &gone), 0);
		assert_int_equal(ns_share_session_add(dir, "old", &gone), 0);
		if (i == 10)
			assert_int_equal(ns_share_session_add(dir, "k", &self), 0);
	}
	assert_int_equal(ns_share_session_add(dir, "other", &self), 0);
	assert_int_equal(ns_share_sessions(dir, "k", NS_SHARE_SCAN_PRUNE, &st, &stale), 0);
	assert_int_equal(stale, 40);
	assert_int_equal(st.n_sessions, 1);
	assert_int_equal(st.user_sessions, 2);
	/* nothing gone is left, of any key */
	assert_int_equal(ns_share_sessions(dir, "old", NS_SHARE_SCAN_COUNT, &st, &stale), 0);
	assert_int_equal(st.n_sessions + stale, 0);
	assert_int_equal(ns_share_sessions(dir, "k", NS_SHARE_SCAN_COUNT, &st, &stale), 0);
	assert_int_equal(stale, 0);
	assert_int_equal(st.n_sessions, 1);
	/* the empty key (pam_namespace_check --drop without pins) prunes without listing */
	assert_int_equal(ns_share_session_add(dir, "old", &gone), 0);
	assert_int_equal(ns_share_sessions(dir, "", NS_SHARE_SCAN_PRUNE, &st, &stale), 0);
	assert_int_equal(stale, 1);
	assert_int_equal(st.n_sessions, 0);
	free(st.sessions);
}

/* Issue 27, point 6: a name longer than its path is refused, never an underflow. */
static void test_tmpdir_parent(void **state)
{
	char *p = ns_share_tmpdir_parent("/tmp-inst/alice.XYZ", "alice.XYZ");

	assert_non_null(p);
	assert_string_equal(p, "/tmp-inst");
	free(p);
	assert_null(ns_share_tmpdir_parent("x", "a-name-longer-than-its-path"));
	assert_int_equal(errno, EINVAL);
	assert_null(ns_share_tmpdir_parent("/alice.XYZ", "alice.XYZ"));	  /* empty parent */
	assert_null(ns_share_tmpdir_parent("/tmp-inst/xalice", "alice")); /* not a component */
	assert_null(ns_share_tmpdir_parent("/tmp-inst/alice", ""));
}

/* States of the formats this build joins are read; any other is -EPROTO, never -EBADMSG. */
static void test_state_format(void **state)
{
	int dir = ((struct tmp_dir *)*state)->fd;
	const char *body = "\nns 4 4026532175\nroot 2049 2\nuser alice\n";
	const struct {
		const char *magic;
		int want;
	} cases[] = {
		{"pam_namespace-share 1", 0},	      {"pam_namespace-share 99", -EPROTO},
		{"pam_namespace-share 0", -EBADMSG},  {"pam_namespace-share x", -EBADMSG},
		{"pam_namespace-share 1 ", -EBADMSG}, {"pam_namespace-shared 1", -EBADMSG},
	};
	struct ns_share_state back = {0};

	if (geteuid() != 0)
		skip(); /* the reader refuses a state file that is not root's */
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int fd = openat(dir, "f.state", O_WRONLY | O_CREAT | O_TRUNC, 0600);

		assert_true(fd >= 0);
		assert_int_equal(write(fd, cases[i].magic, strlen(cases[i].magic)),
				 (ssize_t)strlen(cases[i].magic));
		assert_int_equal(write(fd, body, strlen(body)), (ssize_t)strlen(body));
		close(fd);
		assert_int_equal(ns_share_state_read(dir, "f", &back), cases[i].want);
		if (cases[i].want == 0) {
			assert_int_equal(back.format, 1);
			ns_share_state_free(&back);
		}
	}
}

/*
 * Another release's state is read for dropping its pin, as far as this
 * build knows its lines: its tmpdir instances and user, its own lines
 * skipped. A state this build joins is read as strictly as ever.
 */
static void test_state_other_format(void **state)
{
	int dir = ((struct tmp_dir *)*state)->fd;
	const struct {
		const char *text;
		int want, want_other;
	} cases[] = {
		{"pam_namespace-share 7\nns 4 4026532175\nroot 2049 2\nuser alice\nfuture x y\n"
		 "tmpdir /var/scratch-inst alice.XYZ\npolydir /tmp\n",
		 -EPROTO, 0},
		{"pam_namespace-share 1\nns 4 4026532175\nroot 2049 2\nuser alice\nfuture x y\n",
		 -EBADMSG, -EBADMSG},
		{"pam_namespace-share 7\nfuture x y\n", -EPROTO, -EBADMSG}, /* no ns line */
		{"pam_namespace-shared 7\nns 4 4026532175\nroot 2049 2\nuser alice\n", -EBADMSG,
		 -EBADMSG},
	};

	if (geteuid() != 0)
		skip(); /* the reader refuses a state file that is not root's */
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ns_share_state back = {0};
		int fd = openat(dir, "f.state", O_WRONLY | O_CREAT | O_TRUNC, 0600);

		assert_true(fd >= 0);
		assert_int_equal(write(fd, cases[i].text, strlen(cases[i].text)),
				 (ssize_t)strlen(cases[i].text));
		close(fd);
		assert_int_equal(ns_share_state_read(dir, "f", &back), cases[i].want);
		assert_null(back.user);
		assert_int_equal(ns_share_state_read_other(dir, "f", &back), cases[i].want_other);
		if (cases[i].want_other == 0) {
			assert_int_equal(back.format, 7);
			assert_string_equal(back.user, "alice");
			assert_int_equal(back.ino, 4026532175);
			assert_int_equal(back.n_tmpdirs, 1);
			assert_string_equal(back.tmpdirs[0].parent, "/var/scratch-inst");
			assert_string_equal(back.tmpdirs[0].name, "alice.XYZ");
			assert_int_equal(back.n_polydirs, 1);
			ns_share_state_free(&back);
		}
	}
}

/*
 * Issue 27, point 2: a user directory made under a umask of 0277 and a
 * group not root's is root:root 0700 all the same; a root-owned one of
 * another mode is put right; one writable by others is refused.
 */
static void test_user_dir_mode(void **state)
{
	int dir = ((struct tmp_dir *)*state)->fd, fd;
	bool fixed = true;
	struct stat st;
	mode_t old;

	if (geteuid() != 0)
		skip();
	assert_int_equal(fchmod(dir, 0700), 0);
	old = umask(0277);
	assert_int_equal(setegid(100), 0);
	fd = ns_share_user_dir_repair(dir, 2001, true, &fixed);
	assert_int_equal(setegid(0), 0);
	umask(old);
	assert_true(fd >= 0);
	assert_false(fixed);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(st.st_gid, 0);
	close(fd);
	assert_int_equal(fchownat(dir, "2001", 0, 100, 0), 0);
	assert_int_equal(fchmodat(dir, "2001", 0500, 0), 0);
	fd = ns_share_user_dir_repair(dir, 2001, true, &fixed);
	assert_true(fd >= 0);
	assert_true(fixed);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(st.st_gid, 0);
	close(fd);
	assert_int_equal(fchmodat(dir, "2001", 0777, 0), 0);
	assert_int_equal(ns_share_user_dir_repair(dir, 2001, true, &fixed), -EPERM);
	assert_int_equal(unlinkat(dir, "2001", AT_REMOVEDIR), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_selects),
		cmocka_unit_test(test_key_every_field),
		cmocka_unit_test(test_argument),
		cmocka_unit_test_setup_teardown(test_state_round_trip, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_state_escapes, make_dir, remove_dir),
		cmocka_unit_test(test_record_names),
		cmocka_unit_test_setup_teardown(test_sessions, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_prune_every_gone_record, make_dir, remove_dir),
		cmocka_unit_test(test_tmpdir_parent),
		cmocka_unit_test_setup_teardown(test_state_format, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_state_other_format, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_user_dir_mode, make_dir, remove_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

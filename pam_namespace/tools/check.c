/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * pam_namespace_check: read the configuration exactly as the module does
 * (main file or vendor fallback, namespace.d, trust checks), report every
 * problem as FILE:LINE:COLUMN: severity: message, and with --user print the
 * plan the module would apply for that user, with what it would find on
 * disk. It changes nothing: directories are only opened O_PATH, with the
 * module's own resolution (kernel/), so a symlink the module would refuse
 * is refused here too.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-share.h"
#include "args.h"
#include "config.h"
#include "kernel.h"
#include "naming.h"
#include "ns-build.h"
#include "plan.h"
#include "selinux.h"
#include "session-setup.h"

static const char *progname = "pam_namespace_check";

struct checker {
	FILE *json; /* --json: the diagnostics as JSON array members, or NULL */
	unsigned n_json;
	bool ignore_instance_parent_mode;
	struct ns_diag diag;
};

/* What --user found for one entry; every string is allocated. */
struct view {
	char *polydir;
	char *parent;
	char *instance;
	char *init;
	char *shares; /* extended lines: each share= and what is on disk there */
	char *quota;  /* quota=: the limits and whether the filesystem keeps them */
	bool would_fail;
};

__attribute__((noreturn)) static void out_of_memory(void)
{
	fprintf(stderr, "%s: out of memory\n", progname);
	exit(1);
}

__attribute__((format(printf, 1, 2))) static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, f);
	n = vasprintf(&s, f, ap);
	va_end(ap);
	if (n < 0)
		out_of_memory();
	return s;
}

/* Length of the valid UTF-8 sequence at p, 0 if there is none. */
static size_t utf8_len(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	/* No overlong forms, no surrogates, nothing above U+10FFFF. */
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

/*
 * A JSON string. Paths are bytes and need not be UTF-8, JSON text must be:
 * a byte that is not part of valid UTF-8 becomes U+FFFD.
 */
static void json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	while (*p) {
		size_t n = utf8_len(p);

		if (n == 0) {
			fputs("\\ufffd", f);
			p++;
		} else if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p++);
		} else if (*p == '\n') {
			fputs("\\n", f);
			p++;
		} else if (*p == '\t') {
			fputs("\\t", f);
			p++;
		} else if (*p < 0x20 || *p == 0x7f) {
			fprintf(f, "\\u%04x", *p++);
		} else {
			fwrite(p, 1, n, f);
			p += n;
		}
	}
	fputc('"', f);
}

static void json_member(FILE *f, const char *name, const char *value)
{
	fprintf(f, ", \"%s\": ", name);
	json_string(f, value);
}

/* Diagnostics go to stderr, compiler style; with --json they are also collected. */
static void report(void *userdata, enum ns_severity sev, const char *file, unsigned line,
		   unsigned column, const char *message)
{
	struct checker *c = userdata;
	const char *s = ns_severity_to_string(sev);

	if (sev == NS_DEBUG)
		return;
	if (file && line && column)
		fprintf(stderr, "%s:%u:%u: %s: %s\n", file, line, column, s, message);
	else if (file && line)
		fprintf(stderr, "%s:%u: %s: %s\n", file, line, s, message);
	else if (file)
		fprintf(stderr, "%s: %s: %s\n", file, s, message);
	else
		fprintf(stderr, "%s: %s: %s\n", progname, s, message);

	if (c->json) {
		fprintf(c->json, "%s\n    {\"severity\": ", c->n_json++ ? "," : "");
		json_string(c->json, s);
		json_member(c->json, "file", file);
		fprintf(c->json, ", \"line\": %u, \"column\": %u", line, column);
		json_member(c->json, "message", message);
		fputc('}', c->json);
	}
}

static int lookup_user(void *userdata, const char *name, uid_t *ret_uid, gid_t *ret_gid)
{
	struct passwd *pw = getpwnam(name);

	if (!pw)
		return -ENOENT;
	*ret_uid = pw->pw_uid;
	*ret_gid = pw->pw_gid;
	return 0;
}

static int lookup_group(void *userdata, const char *name, gid_t *ret_gid)
{
	struct group *gr = getgrnam(name);

	if (!gr)
		return -ENOENT;
	*ret_gid = gr->gr_gid;
	return 0;
}

static int lookup_in_group(void *userdata, const char *group, const char *user, gid_t user_gid)
{
	struct group *gr;

	errno = 0;
	gr = getgrnam(group);
	if (!gr)
		return errno && errno != ENOENT ? -errno : -ENOENT;
	return ns_group_has_user(gr, user, user_gid);
}

/* "owner alice, group users, mode 0700", names where the system knows them. */
static char *ownership(uid_t uid, gid_t gid, mode_t mode)
{
	struct passwd *pw = getpwuid(uid);
	char *owner = pw ? fmt("%s", pw->pw_name) : fmt("%u", (unsigned)uid);
	struct group *gr = getgrgid(gid);
	char *group = gr ? fmt("%s", gr->gr_name) : fmt("%u", (unsigned)gid);
	char *s = fmt("owner %s, group %s, mode %04o", owner, group, (unsigned)(mode & 07777));

	free(owner);
	free(group);
	return s;
}

/*
 * Where the module would fail on what is on disk now, an error for that
 * line; where this process may not look (not root), only a warning.
 */
static char *trouble(struct checker *c, struct view *v, const struct ns_plan_entry *e, int err,
		     const char *what, const char *path)
{
	if (err == -EACCES && geteuid() != 0) {
		ns_diag_report(&c->diag, NS_WARNING, e->rule->file, e->rule->line, 0,
			       "cannot examine %s %s: %s (run as root to see it)", what, path,
			       strerror(-err));
		return fmt("cannot be examined: %s", strerror(-err));
	}
	v->would_fail = true;
	ns_diag_report(&c->diag, NS_ERROR, e->rule->file, e->rule->line, 0,
		       "%s %s: %s: the session would fail", what, path, strerror(-err));
	return fmt("%s: the session would fail", strerror(-err));
}

/*
 * The polydir as apply opens it: its parent safely, the last component
 * followed only if it is a root-owned link in a directory only root can write.
 */
static char *examine_polydir(struct checker *c, struct view *v, const struct ns_plan_entry *e,
			     struct stat *ret_st, bool *ret_found)
{
	const char *name;
	bool trusted = false;
	int pfd, fd;
	char *s;

	*ret_found = false;
	pfd = kn_open_parent(e->polydir, &name, &trusted);
	if (pfd < 0)
		return trouble(c, v, e, pfd, "the parent of polydir", e->polydir);
	fd = kn_open_child_dir(pfd, name);
	close(pfd);
	if (fd == -ELOOP && trusted)
		fd = kn_open_dir(e->polydir, NULL);
	if (fd == -ENOENT && e->create_polydir) {
		s = ownership(e->create_uid, e->create_gid, e->create_mode);
		char *r = fmt("missing: would be created, %s", s);
		free(s);
		return r;
	}
	if (fd == -ELOOP) {
		v->would_fail = true;
		ns_diag_report(&c->diag, NS_ERROR, e->rule->file, e->rule->line, 0,
			       "polydir %s is a symbolic link: the session would fail", e->polydir);
		return fmt("a symbolic link: the session would fail");
	}
	if (fd == -ENOENT) {
		v->would_fail = true;
		ns_diag_report(&c->diag, NS_ERROR, e->rule->file, e->rule->line, 0,
			       "polydir %s does not exist and the line has no create flag: the "
			       "session would fail",
			       e->polydir);
		return fmt("missing, no create flag: the session would fail");
	}
	if (fd < 0)
		return trouble(c, v, e, fd, "polydir", e->polydir);
	if (fstat(fd, ret_st) < 0) {
		int k = -errno;

		close(fd);
		return trouble(c, v, e, k, "polydir", e->polydir);
	}
	close(fd);
	*ret_found = true;
	s = ownership(ret_st->st_uid, ret_st->st_gid, ret_st->st_mode);
	char *r = fmt("exists: %s", s);
	free(s);
	return r;
}

/* SPEC 4: an existing parent must be root-owned with mode 000; a missing one one mkdir away. */
static char *examine_parent(struct checker *c, struct view *v, const struct ns_plan_entry *e,
			    int *ret_fd)
{
	struct stat st;
	const char *name;
	int fd, gfd;

	*ret_fd = -1;
	fd = kn_open_dir(e->instance_parent, NULL);
	if (fd == -ENOENT) {
		gfd = kn_open_parent(e->instance_parent, &name, NULL);
		if (gfd < 0)
			return trouble(c, v, e, gfd, "the parent of the instance parent",
				       e->instance_parent);
		close(gfd);
		return fmt("missing: would be created, owner root, mode 0000");
	}
	if (fd < 0)
		return trouble(c, v, e, fd, "instance parent", e->instance_parent);
	if (fstat(fd, &st) < 0) {
		int k = -errno;

		close(fd);
		return trouble(c, v, e, k, "instance parent", e->instance_parent);
	}
	*ret_fd = fd;
	if (st.st_uid == 0 && !(st.st_mode & 0777))
		return fmt("exists: owner root, mode 0000");

	char *own = ownership(st.st_uid, st.st_gid, st.st_mode), *r;

	if (c->ignore_instance_parent_mode || e->ignore_parent_mode) {
		r = fmt("exists: %s (accepted: ignore_instance_parent_mode)", own);
	} else {
		v->would_fail = true;
		ns_diag_report(&c->diag, NS_ERROR, e->rule->file, e->rule->line, 0,
			       "instance parent %s has %s; it must be owned by root with mode "
			       "000: the session would fail",
			       e->instance_parent, own);
		r = fmt("WRONG: %s; the session would fail", own);
	}
	free(own);
	return r;
}

static char *mount_flags_text(unsigned long flags)
{
	return fmt("%s%s%s%s", flags & MS_NOSUID ? ", nosuid" : "",
		   flags & MS_NODEV ? ", nodev" : "", flags & MS_NOEXEC ? ", noexec" : "",
		   flags & MS_RDONLY ? ", ro" : "");
}

static char *examine_instance(struct checker *c, struct view *v, const struct ns_plan_entry *e,
			      int pfd, const struct stat *poly, bool poly_found)
{
	struct stat st;
	char *like, *r;
	int fd;

	if (e->method == NS_METHOD_TMPFS) {
		char *flags = mount_flags_text(e->mount_flags);

		r = fmt("a new tmpfs mounted on the polydir%s%s%s", e->mntopts ? ", options " : "",
			e->mntopts ? e->mntopts : "", flags);
		free(flags);
		return r;
	}
	/* A new instance gets the polydir's owner, group and mode (SPEC 4). */
	if (poly_found)
		like = ownership(poly->st_uid, poly->st_gid, poly->st_mode);
	else if (e->create_polydir)
		like = ownership(e->create_uid, e->create_gid, e->create_mode);
	else
		like = fmt("the polydir's owner, group and mode");

	if (e->method == NS_METHOD_TMPDIR) {
		r = fmt("a new directory each session, %s, removed at close", like);
		free(like);
		return r;
	}
	/* No parent yet (pfd < 0): it is still to be made, and so is the instance. */
	fd = pfd < 0 ? -ENOENT : kn_open_child_dir(pfd, e->instance_name);
	if (fd == -ENOENT) {
		r = fmt("would be created, %s", like);
	} else if (fd == -ELOOP) {
		v->would_fail = true;
		ns_diag_report(&c->diag, NS_ERROR, e->rule->file, e->rule->line, 0,
			       "instance %s is a symbolic link: the session would fail",
			       e->instance);
		r = fmt("a symbolic link: the session would fail");
	} else if (fd < 0) {
		r = trouble(c, v, e, fd, "instance", e->instance);
	} else if (fstat(fd, &st) < 0) {
		r = trouble(c, v, e, -errno, "instance", e->instance);
	} else {
		char *own = ownership(st.st_uid, st.st_gid, st.st_mode);

		r = fmt("exists, reused: %s", own);
		free(own);
	}
	if (fd >= 0)
		close(fd);
	free(like);
	return r;
}

/* As apply checks the init script before running it (SPEC 5). */
static char *examine_init(struct checker *c, struct view *v, const struct ns_plan_entry *e)
{
	const char *script = e->init_script;
	struct stat st;
	char *own, *r, *real = NULL;
	int k;

	if (!script)
		return fmt("none");
	k = kn_stat_trusted_path(script, &real, &st);
	if (k == -ENOENT)
		return fmt("missing: none runs");
	if (k < 0)
		return trouble(c, v, e, k, "init script", script);
	if (k == 0) {
		v->would_fail = true;
		ns_diag_report(&c->diag, NS_ERROR, e->rule->file, e->rule->line, 0,
			       "init script %s: %s, a directory above it or a symbolic link to it "
			       "is not owned by root, or is writable by group or others: the "
			       "session would fail",
			       script, real);
		free(real);
		return fmt("REFUSED: in a directory others can write; the session would fail");
	}
	free(real);
	own = ownership(st.st_uid, st.st_gid, st.st_mode);
	if (!S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		v->would_fail = true;
		ns_diag_report(&c->diag, NS_ERROR, e->rule->file, e->rule->line, 0,
			       "init script %s (%s) must be a regular file owned by root and not "
			       "writable by group or others: the session would fail",
			       script, own);
		r = fmt("REFUSED: %s; the session would fail", own);
	} else if (!(st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH))) {
		v->would_fail = true;
		ns_diag_report(&c->diag, NS_ERROR, e->rule->file, e->rule->line, 0,
			       "init script %s is not executable: the session would fail", script);
		r = fmt("NOT EXECUTABLE: the session would fail");
	} else {
		r = fmt("runs as root after the mount");
	}
	free(own);
	return r;
}

/* share=: the real directory must be what apply's mount_shares accepts. */
static char *examine_share(struct checker *c, struct view *v, const struct ns_plan_entry *e,
			   const char *path, const struct stat *poly)
{
	struct stat st;
	char *own, *r, *t;
	int pfd = kn_open_dir(e->polydir, NULL), fd;

	fd = pfd < 0 ? pfd : kn_open_child_dir(pfd, strrchr(path, '/') + 1);
	if (pfd >= 0)
		close(pfd);
	if (fd == -ELOOP || fd == -ENOTDIR) {
		v->would_fail = true;
		ns_diag_report(&c->diag, NS_ERROR, e->rule->file, e->rule->line, 0,
			       "share %s is %s: the session would fail", path,
			       fd == -ELOOP ? "a symbolic link" : "not a directory");
		return fmt("%s: WRONG, %s", path,
			   fd == -ELOOP ? "a symbolic link" : "not a directory");
	}
	if (fd >= 0 && fstat(fd, &st) < 0) {
		int k = -errno;

		close(fd);
		fd = k;
	}
	if (fd < 0) {
		t = trouble(c, v, e, fd, "share", path);
		r = fmt("%s: %s", path, t);
		free(t);
		return r;
	}
	close(fd);
	own = ownership(st.st_uid, st.st_gid, st.st_mode);
	if (!ns_share_owner_ok(st.st_mode, st.st_uid, poly->st_uid)) {
		v->would_fail = true;
		ns_diag_report(&c->diag, NS_ERROR, e->rule->file, e->rule->line, 0,
			       "share %s has %s; it must be owned by root or the polydir's owner "
			       "and, if group or others may write it, sticky: the session would "
			       "fail",
			       path, own);
		r = fmt("%s: WRONG, %s", path, own);
	} else {
		r = fmt("%s: %s", path, own);
	}
	free(own);
	return r;
}

/* quota=: the instance parent's filesystem must be a tmpfs that keeps user quotas. */
static char *examine_quota(struct checker *c, struct view *v, const struct ns_plan_entry *e,
			   int pfd)
{
	char *limits = fmt("%llu bytes, %llu inodes for uid %u (0: no limit)",
			   (unsigned long long)e->quota_bytes, (unsigned long long)e->quota_inodes,
			   (unsigned)e->quota_uid);
	int k = pfd >= 0 ? kn_tmpfs_quota_state(pfd) : 0;
	const char *why = ns_quota_refusal(k);
	char *r;

	if (pfd < 0)
		r = fmt("%s (the instance parent is not there to examine)", limits);
	else if (k == 0)
		r = fmt("%s, on a tmpfs with usrquota", limits);
	else if (why || k != -EACCES) {
		v->would_fail = true;
		ns_diag_report(&c->diag, NS_ERROR, e->rule->file, e->rule->line, 0,
			       "quota= on %s: %s: the session would fail", e->instance_parent,
			       why ? why : strerror(-k));
		r = fmt("%s: WRONG, %s", limits, why ? why : strerror(-k));
	} else {
		free(limits);
		return trouble(c, v, e, k, "the quota of", e->instance_parent);
	}
	free(limits);
	return r;
}

static void examine(struct checker *c, const struct ns_plan_entry *e, struct view *v)
{
	struct stat poly = {0};
	bool poly_found;
	int pfd = -1;

	*v = (struct view){0};
	v->polydir = examine_polydir(c, v, e, &poly, &poly_found);
	if (e->instance_parent)
		v->parent = examine_parent(c, v, e, &pfd);
	v->instance = examine_instance(c, v, e, pfd, &poly, poly_found);
	if (e->quota)
		v->quota = examine_quota(c, v, e, pfd);
	if (pfd >= 0)
		close(pfd);
	v->init = examine_init(c, v, e);
	for (size_t i = 0; poly_found && i < e->n_shares; i++) {
		char *one = examine_share(c, v, e, e->shares[i], &poly), *all;

		all = fmt("%s%s%s", v->shares ? v->shares : "", v->shares ? "; " : "", one);
		free(one);
		free(v->shares);
		v->shares = all;
	}
}

static void view_free(struct view *v)
{
	free(v->polydir);
	free(v->parent);
	free(v->instance);
	free(v->init);
	free(v->shares);
	free(v->quota);
}

static void print_entry_text(const struct ns_plan_entry *e, const struct view *v)
{
	printf("%s:%u: %s\n", e->rule->file, e->rule->line, e->polydir);
	printf("    method:          %s\n", ns_method_to_string(e->method));
	printf("    polydir:         %s\n", v->polydir);
	printf("    instance:        %s\n", e->instance ? e->instance : "(tmpfs)");
	if (e->instance_parent)
		printf("    instance parent: %s (%s)\n", e->instance_parent, v->parent);
	printf("    instance state:  %s\n", v->instance);
	if (e->instance_context)
		printf("    instance label:  %s\n", e->instance_context);
	if (e->create_polydir) {
		char *own = ownership(e->create_uid, e->create_gid, e->create_mode);

		printf("    create polydir:  if missing, %s\n", own);
		free(own);
	}
	if (e->init_script)
		printf("    init script:     %s (%s)\n", e->init_script, v->init);
	else
		printf("    init script:     none\n");
	if (e->attr_flags) {
		char *flags = mount_flags_text(e->attr_flags);

		printf("    mount flags:     %s\n", flags + 2);
		free(flags);
	}
	if (v->shares)
		printf("    shared:          %s\n", v->shares);
	if (v->quota)
		printf("    quota:           %s\n", v->quota);
}

static void print_entry_json(const struct ns_plan_entry *e, const struct view *v, bool first)
{
	FILE *f = stdout;

	fprintf(f, "%s\n    {\"file\": ", first ? "" : ",");
	json_string(f, e->rule->file);
	fprintf(f, ", \"line\": %u", e->rule->line);
	json_member(f, "polydir", e->polydir);
	json_member(f, "polydir_state", v->polydir);
	json_member(f, "method", ns_method_to_string(e->method));
	json_member(f, "instance", e->instance);
	json_member(f, "instance_parent", e->instance_parent);
	json_member(f, "instance_parent_state", v->parent);
	json_member(f, "instance_state", v->instance);
	json_member(f, "instance_context", e->instance_context);
	fprintf(f, ", \"create_polydir\": %s", e->create_polydir ? "true" : "false");
	if (e->create_polydir)
		fprintf(f, ", \"create_uid\": %u, \"create_gid\": %u, \"create_mode\": \"%04o\"",
			(unsigned)e->create_uid, (unsigned)e->create_gid, (unsigned)e->create_mode);
	json_member(f, "init_script", e->init_script);
	json_member(f, "init_script_state", v->init);
	json_member(f, "mntopts", e->mntopts);
	if (e->attr_flags) {
		char *flags = mount_flags_text(e->attr_flags);

		json_member(f, "mount_flags", flags + 2);
		free(flags);
	}
	json_member(f, "shares", v->shares);
	json_member(f, "quota", v->quota);
	fprintf(f, ", \"would_fail\": %s}", v->would_fail ? "true" : "false");
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [--config FILE] [--confdir DIR] [--config-dir DIR] [--user NAME]\n"
		"       [--json] [--gen-hash] [--ignore-config-error]\n"
		"       [--ignore-instance-parent-mode] [--share-namespace [--mount-private]]\n"
		"       %s --shared [--json] | --enter USER [-- CMD...] | --drop USER [--force]\n"
		"Checks the pam_namespace configuration as the module reads it and, with\n"
		"--user, prints what a session of that user would get. Exit status 1 on\n"
		"any error. --shared lists the namespaces that share_namespace pinned,\n"
		"--enter runs a command in a user's, --drop removes a user's pins.\n",
		progname, progname);
}

/* The user's context for context and level, as pam_selinux would normally set it. */
static char *user_context(struct checker *c, const char *user)
{
	struct ns_args sa = {.use_default_context = true};
	char *con = NULL;
	int r = ns_selinux_user_context(&sa, user, &con);

	if (r < 0) {
		ns_diag_report(&c->diag, NS_WARNING, NULL, 0, 0,
			       "cannot get the default SELinux context of %s: %s; context and "
			       "level lines are shown as the module would fall back",
			       user, strerror(-r));
		return NULL;
	}
	return con;
}

int main(int argc, char **argv)
{
	enum { OPT_CONFIG_DIR = 0x100, OPT_IGNORE_PARENT_MODE, OPT_SHARE, OPT_MOUNT_PRIVATE };
	static const struct option options[] = {
		{"config", required_argument, NULL, 'c'},
		{"confdir", required_argument, NULL, 'd'},
		{"config-dir", required_argument, NULL, OPT_CONFIG_DIR},
		{"user", required_argument, NULL, 'u'},
		{"json", no_argument, NULL, 'j'},
		{"gen-hash", no_argument, NULL, 'g'},
		{"ignore-config-error", no_argument, NULL, 'i'},
		{"ignore-instance-parent-mode", no_argument, NULL, OPT_IGNORE_PARENT_MODE},
		{"share-namespace", no_argument, NULL, OPT_SHARE},
		{"mount-private", no_argument, NULL, OPT_MOUNT_PRIVATE},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{0},
	};
	struct checker c = {.diag = {.report = report, .userdata = &c}};
	struct ns_args args = {.init_timeout = NS_INIT_TIMEOUT_DEFAULT};
	const char *main_file = NULL, *conf_d = NULL, *user = NULL;
	struct ns_config cfg = {0};
	struct ns_plan plan = {0};
	struct ns_setup setup;
	struct view *views = NULL;
	char *json_diags = NULL, *context = NULL;
	size_t json_diags_len = 0;
	bool have_plan = false, json = false;
	mode_t mask;
	int opt, r;

	if (ns_check_share_wanted(argc, argv))
		return ns_check_share_main(argc, argv);
	while ((opt = getopt_long(argc, argv, "c:d:u:jgihV", options, NULL)) != -1) {
		switch (opt) {
		case 'c':
			main_file = optarg;
			break;
		case 'd':
			conf_d = optarg;
			break;
		case OPT_CONFIG_DIR:
			if (optarg[0] != '/') {
				fprintf(stderr,
					"%s: --config-dir wants an absolute path, as "
					"config_dir= does\n",
					progname);
				return 2;
			}
			args.config_dir = optarg;
			break;
		case 'u':
			user = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'g':
			args.gen_hash = true;
			break;
		case 'i':
			args.ignore_config_error = true;
			break;
		case OPT_IGNORE_PARENT_MODE:
			c.ignore_instance_parent_mode = true;
			break;
		case OPT_SHARE:
			args.share_namespace = true;
			break;
		case OPT_MOUNT_PRIVATE:
			args.mount_private = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("%s %s\n", progname, NS_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || (args.config_dir && (main_file || conf_d))) {
		usage(stderr);
		return 2;
	}

	/* The module plans with the umask its application has; here, the caller's. */
	mask = umask(0);
	umask(mask);
	if (ns_setup_init(&setup, &args, mask) < 0)
		out_of_memory();
	if (main_file || conf_d) {
		/* Files named by hand: no vendor fallback, which would only confuse. */
		setup.paths.main_file = main_file;
		setup.paths.conf_d = conf_d;
		setup.paths.no_vendor = true;
	}

	if (json) {
		c.json = open_memstream(&json_diags, &json_diags_len);
		if (!c.json)
			out_of_memory();
	}
	r = ns_config_load(&cfg, &setup.paths, setup.config_flags, &c.diag);
	if (r == 0 && user) {
		struct passwd *pw = NULL;

		if (ns_user_name_valid(user) < 0) {
			ns_diag_report(&c.diag, NS_ERROR, NULL, 0, 0,
				       "refusing user name unfit for a path, as the module does");
			r = -EINVAL;
		} else if (!(pw = getpwnam(user))) {
			ns_diag_report(&c.diag, NS_ERROR, NULL, 0, 0, "unknown user %s", user);
			r = -ENOENT;
		}
		if (pw) {
			struct ns_lookup lookup = {
				.user = lookup_user,
				.group = lookup_group,
				.in_group = lookup_in_group,
				.member_context = ns_selinux_member_context,
			};
			/* getpwnam's buffer is reused by the lookups: keep what we need. */
			char *home = strdup(pw->pw_dir);
			struct ns_user u = {.name = user, .uid = pw->pw_uid, .gid = pw->pw_gid};

			if (!home)
				out_of_memory();
			context = user_context(&c, user);
			u.home = home;
			u.context = context;
			r = ns_plan_build(&plan, &cfg, &u, &lookup, &setup.plan_opts, &c.diag);
			have_plan = r == 0;
			if (have_plan && args.share_namespace && !json)
				ns_check_share_plan(&plan, &u, args.mount_private,
						    c.ignore_instance_parent_mode);
			if (have_plan && plan.n_entries) {
				views = calloc(plan.n_entries, sizeof(*views));
				if (!views)
					out_of_memory();
				for (size_t i = 0; i < plan.n_entries; i++)
					examine(&c, &plan.entries[i], &views[i]);
			}
			free(home);
		}
	}

	/* Not an error of the files, but every user's session would fail. */
	const char *boolean = cfg.n_rules ? ns_selinux_polyinstantiation_off() : NULL;

	if (boolean)
		ns_diag_report(&c.diag, NS_WARNING, NULL, 0, 0,
			       "SELinux is enforcing and its boolean %s is off: the policy "
			       "refuses every polyinstantiated session, so only users no line "
			       "applies to (root) can log in; setsebool -P %s on",
			       boolean, boolean);

	bool ok = r == 0 && c.diag.n_errors == 0;

	if (json) {
		bool any;

		fclose(c.json);
		any = json_diags && *json_diags;
		printf("{\n  \"ok\": %s,\n  \"user\": ", ok ? "true" : "false");
		json_string(stdout, user);
		printf(",\n  \"entries_read\": %zu", cfg.n_rules);
		printf(",\n  \"diagnostics\": [%s%s],\n  \"entries\": [", any ? json_diags : "",
		       any ? "\n  " : "");
		for (size_t i = 0; have_plan && i < plan.n_entries; i++)
			print_entry_json(&plan.entries[i], &views[i], i == 0);
		printf("%s]\n}\n", have_plan && plan.n_entries ? "\n  " : "");
	} else if (have_plan && plan.n_entries == 0) {
		printf("%s: no polyinstantiated directory; the session keeps its namespace\n",
		       user);
	} else if (have_plan) {
		for (size_t i = 0; i < plan.n_entries; i++)
			print_entry_text(&plan.entries[i], &views[i]);
	} else if (ok) {
		printf("configuration OK: %zu entr%s\n", cfg.n_rules,
		       cfg.n_rules == 1 ? "y" : "ies");
	}

	for (size_t i = 0; views && i < plan.n_entries; i++)
		view_free(&views[i]);
	free(views);
	ns_plan_free(&plan);
	ns_config_free(&cfg);
	ns_setup_free(&setup);
	free(context);
	free(json_diags);
	return ok ? 0 : 1;
}

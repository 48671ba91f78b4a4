/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * pam_namespace_check --user and --all-users: the plan the module would
 * apply for a user, built by the module's planner, and what the module
 * would find on disk for each entry, found with the module's own path
 * resolution (kernel/) and its own rules (apply.h). Nothing is created,
 * changed or mounted: directories are only opened O_PATH.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rules.h"
#include "check-share.h"
#include "checker.h"
#include "kernel.h"
#include "lookup.h"
#include "naming.h"
#include "selinux.h"
#include "util.h"

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
		return ck_fmt("cannot be examined: %s", strerror(-err));
	}
	v->would_fail = true;
	ns_diag_report(&c->diag, NS_ERROR, e->rule->file, e->rule->line, 0,
		       "%s %s: %s: the session would fail", what, path, strerror(-err));
	return ck_fmt("%s: the session would fail", strerror(-err));
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
		s = ck_ownership(e->create_uid, e->create_gid, e->create_mode);
		char *r = ck_fmt("missing: would be created, %s", s);
		free(s);
		return r;
	}
	if (fd == -ELOOP) {
		v->would_fail = true;
		ns_diag_report(&c->diag, NS_ERROR, e->rule->file, e->rule->line, 0,
			       "polydir %s is a symbolic link: the session would fail", e->polydir);
		return ck_fmt("a symbolic link: the session would fail");
	}
	if (fd == -ENOENT) {
		v->would_fail = true;
		ns_diag_report(&c->diag, NS_ERROR, e->rule->file, e->rule->line, 0,
			       "polydir %s does not exist and the line has no create flag: the "
			       "session would fail",
			       e->polydir);
		return ck_fmt("missing, no create flag: the session would fail");
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
	s = ck_ownership(ret_st->st_uid, ret_st->st_gid, ret_st->st_mode);
	char *r = ck_fmt("exists: %s", s);
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
		/* Right under a polydir that create makes first: one mkdir away then. */
		if (gfd == -ENOENT && e->create_polydir &&
		    ns_path_inside(e->instance_parent, e->polydir) &&
		    strlen(e->instance_parent) > strlen(e->polydir) &&
		    !strchr(e->instance_parent + strlen(e->polydir) + 1, '/'))
			return ck_fmt("missing: would be created after the polydir, owner root, "
				      "mode 0000");
		if (gfd == -ENOENT) {
			v->would_fail = true;
			ns_diag_report(&c->diag, NS_ERROR, e->rule->file, e->rule->line, 0,
				       "instance parent %s is missing and so is a directory above "
				       "it: the module creates only the last component, the "
				       "session would fail",
				       e->instance_parent);
			return ck_fmt("missing, with a directory above it: the session would fail");
		}
		if (gfd < 0)
			return trouble(c, v, e, gfd, "the parent of the instance parent",
				       e->instance_parent);
		close(gfd);
		return ck_fmt("missing: would be created, owner root, mode 0000");
	}
	if (fd < 0)
		return trouble(c, v, e, fd, "instance parent", e->instance_parent);
	if (fstat(fd, &st) < 0) {
		int k = -errno;

		close(fd);
		return trouble(c, v, e, k, "instance parent", e->instance_parent);
	}
	*ret_fd = fd;
	if (ns_instance_parent_ok(&st, false))
		return ck_fmt("exists: owner root, mode 0000");

	char *own = ck_ownership(st.st_uid, st.st_gid, st.st_mode), *r, *why;
	const char *prefix = e->rule->instance_prefix;
	size_t len = strlen(prefix);

	if (ns_instance_parent_ok(&st, c->ignore_instance_parent_mode || e->ignore_parent_mode)) {
		r = ck_fmt("exists: %s (accepted: ignore_instance_parent_mode)", own);
	} else {
		/* "/tmp/tmp-inst" for "/tmp/tmp-inst/": the instances land in /tmp itself. */
		char *hint = len && prefix[len - 1] != '/'
				     ? ck_fmt(" (the instance prefix %s has no trailing slash, so "
					      "the instances are made right in %s; did you mean "
					      "%s/?)",
					      prefix, e->instance_parent, prefix)
				     : ck_fmt("%s", "");

		v->would_fail = true;
		why = ns_instance_parent_refusal(&st);
		if (!why)
			ck_out_of_memory();
		ns_diag_report(&c->diag, NS_ERROR, e->rule->file, e->rule->line, 0,
			       "instance parent %s: %s: the session would fail%s",
			       e->instance_parent, why, hint);
		free(why);
		free(hint);
		r = ck_fmt("WRONG: %s; the session would fail", own);
	}
	free(own);
	return r;
}

static char *mount_flags_text(unsigned long flags)
{
	return ck_fmt("%s%s%s%s", flags & MS_NOSUID ? ", nosuid" : "",
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

		r = ck_fmt("a new tmpfs mounted on the polydir%s%s%s",
			   e->mntopts ? ", options " : "", e->mntopts ? e->mntopts : "", flags);
		free(flags);
		return r;
	}
	/* A new instance gets the polydir's owner, group and mode (SPEC 4). */
	if (poly_found)
		like = ck_ownership(poly->st_uid, poly->st_gid, poly->st_mode);
	else if (e->create_polydir)
		like = ck_ownership(e->create_uid, e->create_gid, e->create_mode);
	else
		like = ck_fmt("the polydir's owner, group and mode");

	if (e->method == NS_METHOD_TMPDIR) {
		r = ck_fmt("a new directory each session, %s, removed at close", like);
		free(like);
		return r;
	}
	/* No parent yet (pfd < 0): it is still to be made, and so is the instance. */
	fd = pfd < 0 ? -ENOENT : kn_open_child_dir(pfd, e->instance_name);
	if (fd == -ENOENT) {
		r = ck_fmt("would be created, %s", like);
	} else if (fd == -ELOOP) {
		v->would_fail = true;
		ns_diag_report(&c->diag, NS_ERROR, e->rule->file, e->rule->line, 0,
			       "instance %s is a symbolic link: the session would fail",
			       e->instance);
		r = ck_fmt("a symbolic link: the session would fail");
	} else if (fd < 0) {
		r = trouble(c, v, e, fd, "instance", e->instance);
	} else if (fstat(fd, &st) < 0) {
		r = trouble(c, v, e, -errno, "instance", e->instance);
	} else {
		char *own = ck_ownership(st.st_uid, st.st_gid, st.st_mode);

		r = ck_fmt("exists, reused: %s", own);
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
		return ck_fmt("none");
	k = kn_stat_trusted_path(script, &real, &st);
	if (k == -ENOENT && e->rule->iscript)
		/* The module runs none, as Linux-PAM's; a script named on the line is likely a
		 * typo. */
		ns_diag_report(&c->diag, NS_WARNING, e->rule->file, e->rule->line, 0,
			       "iscript=%s does not exist: no init script runs for this line",
			       script);
	if (k == -ENOENT)
		return ck_fmt("missing: none runs");
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
		return ck_fmt("REFUSED: in a directory others can write; the session would fail");
	}
	free(real);
	own = ck_ownership(st.st_uid, st.st_gid, st.st_mode);
	k = ns_init_script_ok(&st);
	if (k == -EPERM) {
		v->would_fail = true;
		ns_diag_report(&c->diag, NS_ERROR, e->rule->file, e->rule->line, 0,
			       "init script %s (%s) must be a regular file owned by root and not "
			       "writable by group or others: the session would fail",
			       script, own);
		r = ck_fmt("REFUSED: %s; the session would fail", own);
	} else if (k == -EACCES) {
		v->would_fail = true;
		ns_diag_report(&c->diag, NS_ERROR, e->rule->file, e->rule->line, 0,
			       "init script %s is not executable: the session would fail", script);
		r = ck_fmt("NOT EXECUTABLE: the session would fail");
	} else {
		r = ck_fmt("runs as root after the mount");
	}
	free(own);
	return r;
}

/*
 * share=: what apply_mount_shares does with the real directory. One it does
 * not accept is left unshared and the session opens (a warning); only on a
 * line whose instance several users share is the session refused (an
 * error).
 */
static char *wrong_share(struct checker *c, struct view *v, const struct ns_plan_entry *e,
			 const char *path, char *why)
{
	bool refused = ns_share_instance_is_shared(e);
	char *r;

	if (refused)
		v->would_fail = true;
	ns_diag_report(&c->diag, refused ? NS_ERROR : NS_WARNING, e->rule->file, e->rule->line, 0,
		       "share %s %s: %s", path, why,
		       refused ? "the session would fail"
			       : "it would not be shared, and the session opens without it");
	r = ck_fmt("%s: WRONG, %s, %s", path, why,
		   refused ? "the session would fail" : "not shared");
	free(why);
	return r;
}

static char *examine_share(struct checker *c, struct view *v, const struct ns_plan_entry *e,
			   const char *path, const struct stat *poly)
{
	struct stat st;
	char *own, *r, *t;
	int pfd = kn_open_dir(e->polydir, NULL), fd;

	fd = pfd < 0 ? pfd : kn_open_child_dir(pfd, strrchr(path, '/') + 1);
	if (pfd >= 0)
		close(pfd);
	if (fd == -ELOOP || fd == -ENOTDIR || (pfd >= 0 && fd == -ENOENT))
		return wrong_share(c, v, e, path,
				   ck_fmt("is %s", fd == -ELOOP	    ? "a symbolic link"
						   : fd == -ENOTDIR ? "not a directory"
								    : "missing"));
	if (fd >= 0 && fstat(fd, &st) < 0) {
		int k = -errno;

		close(fd);
		fd = k;
	}
	if (fd < 0) {
		t = trouble(c, v, e, fd, "share", path);
		r = ck_fmt("%s: %s", path, t);
		free(t);
		return r;
	}
	close(fd);
	own = ck_ownership(st.st_uid, st.st_gid, st.st_mode);
	if (!ns_share_owner_ok(st.st_mode, st.st_uid, poly->st_uid)) {
		r = wrong_share(c, v, e, path,
				ck_fmt("has %s; it must be owned by root or the polydir's owner "
				       "and, if group or others may write it, sticky",
				       own));
	} else {
		r = ck_fmt("%s: %s", path, own);
	}
	free(own);
	return r;
}

/* quota=: the instance parent's filesystem must be a tmpfs that keeps user quotas. */
static char *examine_quota(struct checker *c, struct view *v, const struct ns_plan_entry *e,
			   int pfd)
{
	char *limits = ck_fmt("%llu bytes, %llu inodes for uid %u (0: no limit)",
			      (unsigned long long)e->quota_bytes,
			      (unsigned long long)e->quota_inodes, (unsigned)e->quota_uid);
	int k = pfd >= 0 ? kn_tmpfs_quota_state(pfd) : 0;
	const char *why = ns_quota_refusal(k);
	char *r;

	if (pfd < 0)
		r = ck_fmt("%s (the instance parent is not there to examine)", limits);
	else if (k == 0)
		r = ck_fmt("%s, on a tmpfs with usrquota", limits);
	else if (why || k != -EACCES) {
		v->would_fail = true;
		ns_diag_report(&c->diag, NS_ERROR, e->rule->file, e->rule->line, 0,
			       "quota= on %s: %s: the session would fail", e->instance_parent,
			       why ? why : strerror(-k));
		r = ck_fmt("%s: WRONG, %s", limits, why ? why : strerror(-k));
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

		all = ck_fmt("%s%s%s", v->shares ? v->shares : "", v->shares ? "; " : "", one);
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
		char *own = ck_ownership(e->create_uid, e->create_gid, e->create_mode);

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

static void print_entry_json(FILE *f, const struct ns_plan_entry *e, const struct view *v,
			     bool first)
{
	fprintf(f, "%s\n    {\"file\": ", first ? "" : ",");
	ck_json_string(f, e->rule->file);
	fprintf(f, ", \"line\": %u", e->rule->line);
	ck_json_member(f, "polydir", e->polydir);
	ck_json_member(f, "polydir_state", v->polydir);
	ck_json_member(f, "method", ns_method_to_string(e->method));
	ck_json_member(f, "instance", e->instance);
	ck_json_member(f, "instance_parent", e->instance_parent);
	ck_json_member(f, "instance_parent_state", v->parent);
	ck_json_member(f, "instance_state", v->instance);
	ck_json_member(f, "instance_context", e->instance_context);
	fprintf(f, ", \"create_polydir\": %s", e->create_polydir ? "true" : "false");
	if (e->create_polydir)
		fprintf(f, ", \"create_uid\": %u, \"create_gid\": %u, \"create_mode\": \"%04o\"",
			(unsigned)e->create_uid, (unsigned)e->create_gid, (unsigned)e->create_mode);
	ck_json_member(f, "init_script", e->init_script);
	ck_json_member(f, "init_script_state", v->init);
	ck_json_member(f, "mntopts", e->mntopts);
	if (e->attr_flags) {
		char *flags = mount_flags_text(e->attr_flags);

		ck_json_member(f, "mount_flags", flags + 2);
		free(flags);
	}
	ck_json_member(f, "shares", v->shares);
	ck_json_member(f, "quota", v->quota);
	fprintf(f, ", \"would_fail\": %s}", v->would_fail ? "true" : "false");
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

/*
 * Plain mode (check-config.c) asks for the parts of an entry that are the
 * same for every user: the same examinations, the same messages.
 */
void ck_examine_parts(struct checker *c, const struct ns_plan_entry *e, unsigned parts)
{
	struct view v = {0};
	struct stat poly;
	bool found;
	int pfd = -1;

	if (parts & CK_PART_POLYDIR)
		v.polydir = examine_polydir(c, &v, e, &poly, &found);
	if ((parts & CK_PART_PARENT) && e->instance_parent) {
		v.parent = examine_parent(c, &v, e, &pfd);
		if (e->quota)
			v.quota = examine_quota(c, &v, e, pfd);
		if (pfd >= 0)
			close(pfd);
	}
	if (parts & CK_PART_INIT)
		v.init = examine_init(c, &v, e);
	view_free(&v);
}

/*
 * The session user as the module looks it up (host/lookup.c), into pw with
 * its strings in stack or *heap, which the caller frees; -1 (reported) when
 * the module would refuse the session.
 */
static int find_user(struct checker *c, const char *user, struct passwd *pw, char *stack,
		     size_t size, char **heap)
{
	int r;

	*heap = NULL;
	if (ns_user_name_valid(user) < 0) {
		ns_diag_report(&c->diag, NS_ERROR, NULL, 0, 0,
			       "refusing user name unfit for a path, as the module does");
		return -1;
	}
	r = ns_nss_lookup(user, false, pw, stack, size, heap);
	if (r == -ENOENT)
		ns_diag_report(&c->diag, NS_ERROR, NULL, 0, 0, "unknown user %s", user);
	else if (r < 0)
		ns_diag_report(&c->diag, NS_ERROR, NULL, 0, 0, "cannot look up user %s: %s", user,
			       strerror(-r));
	return r < 0 ? -1 : 0;
}

/* Plan and examine; *ret_views (n = plan->n_entries) on success. */
static int plan_user(struct checker *c, const struct ns_config *cfg, const struct ns_setup *setup,
		     const struct passwd *pw, const struct ck_user_opts *o, struct ns_plan *plan,
		     struct view **ret_views)
{
	struct ns_lookup lookup = ns_host_lookup();
	/* The caller's entry may live in a buffer it frees: keep what we need. */
	char *name = strdup(pw->pw_name), *home = strdup(pw->pw_dir), *context;
	struct ns_user u = {.uid = pw->pw_uid, .gid = pw->pw_gid};
	struct view *views = NULL;
	int r;

	if (!name || !home)
		ck_out_of_memory();
	context = user_context(c, name);
	u.name = name;
	u.home = home;
	u.context = context;
	r = ns_plan_build(plan, cfg, &u, &lookup, &setup->plan_opts, &c->diag);
	if (r == 0 && o && o->share_namespace && !o->json)
		ck_share_plan(plan, &u, o->mount_private, c->ignore_instance_parent_mode);
	if (r == 0 && plan->n_entries) {
		views = calloc(plan->n_entries, sizeof(*views));
		if (!views)
			ck_out_of_memory();
		for (size_t i = 0; i < plan->n_entries; i++)
			examine(c, &plan->entries[i], &views[i]);
	}
	*ret_views = views;
	free(context);
	free(home);
	free(name);
	return r;
}

static void views_free(struct view *views, size_t n)
{
	for (size_t i = 0; views && i < n; i++)
		view_free(&views[i]);
	free(views);
}

int ck_user(struct checker *c, const struct ns_config *cfg, const struct ns_setup *setup,
	    const char *user, const struct ck_user_opts *o, FILE *json_entries)
{
	char stack[1024], *heap;
	struct passwd pw;
	struct ns_plan plan = {0};
	struct view *views = NULL;
	int r;

	if (find_user(c, user, &pw, stack, sizeof(stack), &heap) < 0) {
		free(heap);
		return -1;
	}
	r = plan_user(c, cfg, setup, &pw, o, &plan, &views);
	free(heap);
	if (r < 0) {
		ns_plan_free(&plan);
		return -1;
	}
	for (size_t i = 0; json_entries && i < plan.n_entries; i++)
		print_entry_json(json_entries, &plan.entries[i], &views[i], i == 0);
	if (!json_entries && plan.n_entries == 0)
		printf("%s: no polyinstantiated directory; the session keeps its namespace\n",
		       user);
	for (size_t i = 0; !json_entries && i < plan.n_entries; i++)
		print_entry_text(&plan.entries[i], &views[i]);
	if (!json_entries && plan.n_entries && !(o && o->service))
		printf("(in the sessions of a service whose stack runs pam_namespace; "
		       "--service NAME --user %s checks one)\n",
		       user);
	views_free(views, plan.n_entries);
	ns_plan_free(&plan);
	return 0;
}

/* A user as getpwent listed it: planned from this, with no second lookup per user. */
struct listed {
	char *name, *home;
	uid_t uid;
	gid_t gid;
};

/* Every user the name service enumerates: the planner's own lookups would reset the cursor. */
static struct listed *list_users(size_t *ret_n)
{
	struct listed *users = NULL;
	struct passwd *pw;
	size_t n = 0;

	setpwent();
	while ((pw = getpwent())) {
		if (ns_grow(&users, n, sizeof(*users)) < 0)
			ck_out_of_memory();
		users[n] = (struct listed){.name = strdup(pw->pw_name),
					   .home = strdup(pw->pw_dir ? pw->pw_dir : ""),
					   .uid = pw->pw_uid,
					   .gid = pw->pw_gid};
		if (!users[n].name || !users[n++].home)
			ck_out_of_memory();
	}
	endpwent();
	*ret_n = n;
	return users;
}

/* Why the session of u would be refused; NULL when it opens. Counts u in *selected. */
static char *refusal(struct checker *q, const struct ns_config *cfg, const struct ns_setup *setup,
		     const struct listed *u, size_t *selected)
{
	struct passwd pw = {
		.pw_name = u->name, .pw_dir = u->home, .pw_uid = u->uid, .pw_gid = u->gid};
	struct ns_plan plan = {0};
	struct view *views = NULL;
	unsigned errors = q->diag.n_errors;
	char *why = NULL;
	int r;

	if (ns_user_name_valid(u->name) < 0)
		return ck_fmt("a user name unfit for a path");
	r = plan_user(q, cfg, setup, &pw, NULL, &plan, &views);
	if (r == 0 && plan.n_entries)
		(*selected)++;
	if (r < 0 || q->diag.n_errors != errors)
		why = q->first_error ? q->first_error : ck_fmt("the plan cannot be built");
	else
		free(q->first_error);
	q->first_error = NULL;
	views_free(views, plan.n_entries);
	ns_plan_free(&plan);
	return why;
}

/* Plain mode names at most this many refused users, with their reasons. */
#define SUMMARY_NAMES 4

/*
 * Plain mode's one error for the users the pass would refuse: the first
 * few with their home and reason, except where the reason is an error
 * already reported above (then only counted), so that nothing is said twice.
 */
static void report_summary(struct checker *c, size_t n_users, size_t n_refused,
			   const struct listed *users, char **why)
{
	char *text = ck_fmt("%s", ""), *t, *more_text, *known_text;
	size_t shown = 0, known = 0, more = 0;

	for (size_t i = 0; i < n_users; i++) {
		if (!why[i])
			continue;
		if (ck_reported(c, why[i])) {
			known++;
			continue;
		}
		if (shown == SUMMARY_NAMES) {
			more++;
			continue;
		}
		t = ck_fmt("%s%s%s (home %s: %s)", text, shown ? "; " : ": ", users[i].name,
			   users[i].home, why[i]);
		free(text);
		text = t;
		shown++;
	}
	more_text = more ? ck_fmt("; and %zu more", more) : ck_fmt("%s", "");
	known_text = known ? ck_fmt("%s%zu by the errors above", shown ? "; and " : ": ", known)
			   : ck_fmt("%s", "");
	ns_diag_report(&c->diag, NS_ERROR, NULL, 0, 0,
		       "%zu of %zu users would be refused a session%s%s%s; --all-users lists each",
		       n_refused, n_users, text, more_text, known_text);
	free(more_text);
	free(known_text);
	free(text);
}

/*
 * --all-users (list: one line per user whose session would be refused,
 * with the first reason, and a count) and plain mode (not list: one error
 * that sums them up): every user the name service enumerates, planned and
 * examined as --user does, quietly.
 */
int ck_all_users(struct checker *c, const struct ns_config *cfg, const struct ns_setup *setup,
		 bool list)
{
	struct checker q = {.quiet = true,
			    .ignore_instance_parent_mode = c->ignore_instance_parent_mode};
	size_t n_users = 0, n_selected = 0, n_refused = 0;
	struct listed *users = list_users(&n_users);
	char **why = calloc(n_users ? n_users : 1, sizeof(*why));

	if (!why)
		ck_out_of_memory();
	q.diag = (struct ns_diag){.report = ck_report, .userdata = &q};
	for (size_t i = 0; i < n_users; i++) {
		why[i] = refusal(&q, cfg, setup, &users[i], &n_selected);
		if (!why[i])
			continue;
		n_refused++;
		if (list)
			printf("%s: REFUSED: %s\n", users[i].name, why[i]);
	}
	if (list)
		printf("%zu users, %zu with a polyinstantiated directory, %zu would be refused\n",
		       n_users, n_selected, n_refused);
	if (n_refused && list)
		ns_diag_report(&c->diag, NS_ERROR, NULL, 0, 0,
			       "%zu of %zu users would be refused a session", n_refused, n_users);
	else if (n_refused)
		report_summary(c, n_users, n_refused, users, why);
	for (size_t i = 0; i < n_users; i++) {
		free(why[i]);
		free(users[i].name);
		free(users[i].home);
	}
	free(why);
	free(users);
	return (int)n_refused;
}

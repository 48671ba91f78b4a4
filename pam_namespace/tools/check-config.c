/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * Plain pam_namespace_check: what in the configuration would refuse a
 * login whoever logs in, found before anyone tries. Each line is planned by
 * the module's planner for two made-up users with lists cleared; a path that
 * comes out the same for both (a polydir, an instance parent) does not
 * depend on the user and is examined on disk as --user examines it, with the
 * module's own rules. Init scripts are examined once each. Names in the
 * lists of users are looked up as the planner would look them up, and
 * namespace.d's files the module does not read are named.
 */
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "checker.h"
#include "ns-build.h"

/* Paths already examined, so that a parent or a script shared by lines is reported once. */
struct seen {
	char **paths;
	size_t n;
};

static bool seen_add(struct seen *s, const char *path)
{
	char **p;

	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->paths[i], path) == 0)
			return false;
	p = realloc(s->paths, (s->n + 1) * sizeof(*p));
	if (!p)
		ck_out_of_memory();
	s->paths = p;
	if (!(p[s->n++] = strdup(path)))
		ck_out_of_memory();
	return true;
}

static void seen_free(struct seen *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->paths[i]);
	free(s->paths);
}

/*
 * A group in a plain line's list (Debian's adm): the module ignores it, so
 * its members get the line that was meant to leave them out. The line in
 * the extended form, with @group, is the fix.
 */
static void report_group(struct checker *c, const struct ns_rule *r, const char *group)
{
	char *list = ck_fmt("%s", r->users_only ? "~" : ""), *t;

	for (size_t i = 0; i < r->n_users; i++) {
		t = ck_fmt("%s%s%s%s", list, i ? "," : "", strcmp(r->users[i], group) ? "" : "@",
			   r->users[i]);
		free(list);
		list = t;
	}
	ns_diag_report(&c->diag, NS_WARNING, r->file, r->line, 0,
		       "\"%s\" in the list of users is a group, not a user: the module ignores "
		       "it, so %s the members of %s; for a group, write the line in the "
		       "extended form: \"%s %s %s+ %s\"",
		       group, r->users_only ? "the line does not apply to" : "the line applies to",
		       group, r->polydir, r->instance_prefix, ns_method_to_string(r->method), list);
	free(list);
}

/*
 * Names NSS does not know. Plain lines: the module logs and ignores them
 * (compat), so a warning; a "~" line naming nobody known applies to nobody.
 * Extended lines: an unknown name fails every session on the line unless
 * it says ignore_unknown.
 */
static void check_lists(struct checker *c, const struct ns_rule *r)
{
	struct ns_lookup lookup = ns_host_lookup();
	size_t known = 0;
	uid_t uid;
	gid_t gid;

	for (size_t i = 0; i < r->n_users; i++) {
		const char *name = r->users[i];
		int k = lookup.user(lookup.userdata, name, &uid, &gid);

		if (k == 0) {
			known++;
			continue;
		}
		if (k != -ENOENT) {
			ns_diag_report(&c->diag, NS_WARNING, r->file, r->line, 0,
				       "user \"%s\" in the list of users: the name service failed: "
				       "%s: the module ignores it",
				       name, strerror(-k));
			continue;
		}
		if (lookup.group(lookup.userdata, name, &gid) == 0) {
			report_group(c, r, name);
			continue;
		}
		ns_diag_report(
			&c->diag, NS_WARNING, r->file, r->line, 0,
			"unknown user \"%s\" in the list of users: the module ignores it%s", name,
			name[0] == '@' || strncmp(name, "uid", 3) == 0
				? " (a group or uid selector needs the extended method form, "
				  "e.g. \"user+\")"
				: "");
	}
	if (!r->extended && r->users_only && r->n_users && !known)
		ns_diag_report(&c->diag, NS_WARNING, r->file, r->line, 0,
			       "the line applies only to the users of its list, and the name "
			       "service knows none of them: it applies to nobody");
	for (size_t i = 0; i < r->n_selectors; i++) {
		const struct ns_selector *sel = &r->selectors[i];
		bool group = sel->kind == NS_SELECTOR_GROUP;
		int k;

		if (sel->kind == NS_SELECTOR_UIDS)
			continue;
		k = group ? lookup.group(lookup.userdata, sel->name, &gid)
			  : lookup.user(lookup.userdata, sel->name, &uid, &gid);
		if (k == 0)
			continue;
		ns_diag_report(&c->diag, r->ignore_unknown ? NS_WARNING : NS_ERROR, r->file,
			       r->line, 0, "%s %s\"%s\" in the list of users%s%s: %s",
			       group ? "group" : "user", group ? "@" : "", sel->name,
			       k == -ENOENT ? " is unknown" : ": the name service failed: ",
			       k == -ENOENT ? "" : strerror(-k),
			       r->ignore_unknown ? "ignored (ignore_unknown)"
						 : "every session this line is resolved for would "
						   "fail");
	}
}

/*
 * The line alone (one: a copy with its list cleared, so that it applies to
 * everyone; the plan points into it), planned for a made-up user.
 */
static int probe(const struct ns_rule *one, const struct ns_setup *setup, const char *name,
		 struct ns_diag *diag, struct ns_plan *plan)
{
	struct ns_config cfg = {.rules = (struct ns_rule *)one, .n_rules = 1};
	struct ns_lookup lookup = ns_host_lookup();
	char *home = ck_fmt("/nonexistent/%s", name);
	struct ns_user u = {.name = name, .uid = 65534, .gid = 65534, .home = home};
	int k;

	k = ns_plan_build(plan, &cfg, &u, &lookup, &setup->plan_opts, diag);
	free(home);
	return k;
}

static bool same(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* A file of namespace.d the module does not read (not *.conf, or hidden): likely a mistake. */
static void check_dropin_names(struct checker *c, const char *dir)
{
	static const char *const backups[] = {".dpkg-old", ".dpkg-dist", ".dpkg-new", ".dpkg-bak",
					      ".ucf-old",  ".ucf-dist",	 ".ucf-new",  "~"};
	DIR *d = opendir(dir);
	struct dirent *de;
	char *path;

	if (!d)
		return; /* missing or unreadable: ns_config_load has said what matters */
	while ((de = readdir(d))) {
		const char *name = de->d_name;
		size_t l = strlen(name), i = 0;

		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
		    ns_config_dropin_name_ok(name))
			continue;
		/* What dpkg, ucf and editors leave is known not to be read. */
		for (; i < sizeof(backups) / sizeof(backups[0]); i++)
			if (l >= strlen(backups[i]) &&
			    strcmp(name + l - strlen(backups[i]), backups[i]) == 0)
				break;
		if (i < sizeof(backups) / sizeof(backups[0]))
			continue;
		path = ck_fmt("%s/%s", dir, name);
		ns_diag_report(&c->diag, NS_WARNING, path, 0, 0,
			       "ignored: the module reads only the files of namespace.d named "
			       "*.conf that do not start with a dot");
		free(path);
	}
	closedir(d);
}

void ck_config_disk(struct checker *c, const struct ns_config *cfg, const struct ns_setup *setup)
{
	struct seen parents = {0}, scripts = {0};
	struct ns_diag silent = {0};

	check_dropin_names(c, setup->paths.conf_d ? setup->paths.conf_d
						  : NS_SYSCONF_DIR "/namespace.d");
	if (!setup->paths.no_vendor)
		check_dropin_names(c, setup->paths.vendor_d ? setup->paths.vendor_d
							    : NS_VENDOR_DIR "/namespace.d");
	if (cfg->n_rules == 0)
		ns_diag_report(&c->diag, NS_WARNING, NULL, 0, 0,
			       "no active entry: the module changes nothing for any session");
	for (size_t i = 0; i < cfg->n_rules; i++) {
		const struct ns_rule *r = &cfg->rules[i];
		struct ns_rule one = *r;
		struct ns_plan a = {0}, b = {0};
		unsigned parts = 0;

		check_lists(c, r);
		one.users = NULL;
		one.n_users = 0;
		one.users_only = false;
		one.selectors = NULL;
		one.n_selectors = 0;
		/* Errors of the line itself (create's owner...) are reported by the first probe. */
		if (probe(&one, setup, "pam-ns-check-probe-a", &c->diag, &a) == 0 &&
		    probe(&one, setup, "pam-ns-check-probe-b", &silent, &b) == 0 &&
		    a.n_entries == 1 && b.n_entries == 1) {
			const struct ns_plan_entry *e = &a.entries[0], *f = &b.entries[0];

			if (same(e->polydir, f->polydir))
				parts |= CK_PART_POLYDIR;
			if (same(e->instance_parent, f->instance_parent) &&
			    seen_add(&parents, e->instance_parent))
				parts |= CK_PART_PARENT;
			if (e->init_script && seen_add(&scripts, e->init_script))
				parts |= CK_PART_INIT;
			ck_examine_parts(c, e, parts);
		}
		ns_plan_free(&a);
		ns_plan_free(&b);
	}
	seen_free(&parents);
	seen_free(&scripts);
}

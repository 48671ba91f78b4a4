/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * pam_namespace_check: read the configuration exactly as the module does
 * (main file or vendor fallback, namespace.d, trust checks), report every
 * problem as FILE:LINE:COLUMN: severity: message, and with --user print the
 * plan the module would apply for that user. It changes nothing.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "naming.h"
#include "ns-build.h"
#include "plan.h"

struct json_diag {
	FILE *mem; /* --json: the diagnostics as JSON array members */
	unsigned n;
};

static void json_string(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* Diagnostics go to stderr, compiler style; with --json they are also collected. */
static char *json_diags;
static size_t json_diags_len;

static void report(void *userdata, enum ns_severity sev, const char *file, unsigned line,
		   unsigned column, const char *message)
{
	struct json_diag *jd = userdata;
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
		fprintf(stderr, "pam_namespace_check: %s: %s\n", s, message);

	if (jd->mem) {
		FILE *m = jd->mem;

		fprintf(m, "%s\n    {\"severity\": ", jd->n++ ? "," : "");
		json_string(m, s);
		fputs(", \"file\": ", m);
		json_string(m, file);
		fprintf(m, ", \"line\": %u, \"column\": %u, \"message\": ", line, column);
		json_string(m, message);
		fputc('}', m);
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

static const char *first_existing(const char *a, const char *b)
{
	struct stat st;

	if (a && lstat(a, &st) == 0)
		return a;
	if (b && lstat(b, &st) == 0)
		return b;
	return NULL;
}

/* What apply would do with the instance parent and instance, seen with stat(). */
static const char *parent_state(const char *parent, char *buf, size_t len)
{
	struct stat st;

	if (!parent)
		return "none";
	if (stat(parent, &st) < 0)
		return errno == ENOENT ? "missing: would be created, root, mode 0000"
				       : "cannot be examined";
	if (st.st_uid != 0 || (st.st_mode & 0777))
		snprintf(buf, len, "WRONG: owner uid %u, mode %04o; the module refuses it",
			 (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
	else
		snprintf(buf, len, "ok: root, mode 0000");
	return buf;
}

static void instance_state(const struct ns_plan_entry *e, char *buf, size_t len)
{
	struct stat st, poly;

	if (e->method == NS_METHOD_TMPFS) {
		snprintf(buf, len, "a new tmpfs%s%s", e->mntopts ? " with " : "",
			 e->mntopts ? e->mntopts : "");
		return;
	}
	if (e->method == NS_METHOD_TMPDIR) {
		snprintf(buf, len, "a new directory each session, removed at close");
		return;
	}
	if (stat(e->instance, &st) == 0) {
		snprintf(buf, len, "exists: owner uid %u, mode %04o", (unsigned)st.st_uid,
			 (unsigned)(st.st_mode & 07777));
		return;
	}
	if (e->create_polydir && stat(e->polydir, &poly) < 0) {
		snprintf(buf, len,
			 "would be created with the new polydir's owner uid %u and mode %04o",
			 (unsigned)e->create_uid, (unsigned)e->create_mode);
		return;
	}
	if (stat(e->polydir, &poly) == 0)
		snprintf(buf, len,
			 "would be created like the polydir: owner uid %u, group %u, mode %04o",
			 (unsigned)poly.st_uid, (unsigned)poly.st_gid,
			 (unsigned)(poly.st_mode & 07777));
	else
		snprintf(buf, len, "would be created like the polydir (which cannot be examined)");
}

static void print_plan_text(const struct ns_plan *plan, const char *user)
{
	char b1[256], b2[256];

	if (plan->n_entries == 0) {
		printf("%s: no polyinstantiated directory; the session keeps its namespace\n",
		       user);
		return;
	}
	for (size_t i = 0; i < plan->n_entries; i++) {
		const struct ns_plan_entry *e = &plan->entries[i];

		printf("%s:%u: %s\n", e->rule->file, e->rule->line, e->polydir);
		printf("    method:          %s\n", ns_method_to_string(e->method));
		printf("    instance:        %s\n", e->instance ? e->instance : "(tmpfs)");
		printf("    instance parent: %s (%s)\n",
		       e->instance_parent ? e->instance_parent : "none",
		       parent_state(e->instance_parent, b1, sizeof(b1)));
		instance_state(e, b2, sizeof(b2));
		printf("    instance state:  %s\n", b2);
		if (e->create_polydir)
			printf("    create polydir:  if missing, owner uid %u, group %u, mode "
			       "%04o\n",
			       (unsigned)e->create_uid, (unsigned)e->create_gid,
			       (unsigned)e->create_mode);
		printf("    init script:     %s\n", e->init_script ? e->init_script : "none");
	}
}

static void print_plan_json(const struct ns_plan *plan, const char *user, bool ok)
{
	char b1[256], b2[256];
	bool any = json_diags && *json_diags;

	printf("{\n  \"ok\": %s,\n  \"user\": ", ok ? "true" : "false");
	json_string(stdout, user);
	printf(",\n  \"diagnostics\": [%s%s],\n  \"entries\": [", any ? json_diags : "",
	       any ? "\n  " : "");
	for (size_t i = 0; plan && i < plan->n_entries; i++) {
		const struct ns_plan_entry *e = &plan->entries[i];

		printf("%s\n    {\"file\": ", i ? "," : "");
		json_string(stdout, e->rule->file);
		printf(", \"line\": %u, \"polydir\": ", e->rule->line);
		json_string(stdout, e->polydir);
		fputs(", \"method\": ", stdout);
		json_string(stdout, ns_method_to_string(e->method));
		fputs(", \"instance\": ", stdout);
		json_string(stdout, e->instance);
		fputs(", \"instance_parent\": ", stdout);
		json_string(stdout, e->instance_parent);
		fputs(", \"instance_parent_state\": ", stdout);
		json_string(stdout, parent_state(e->instance_parent, b1, sizeof(b1)));
		instance_state(e, b2, sizeof(b2));
		fputs(", \"instance_state\": ", stdout);
		json_string(stdout, b2);
		printf(", \"create_polydir\": %s", e->create_polydir ? "true" : "false");
		if (e->create_polydir)
			printf(", \"create_uid\": %u, \"create_gid\": %u, \"create_mode\": "
			       "\"%04o\"",
			       (unsigned)e->create_uid, (unsigned)e->create_gid,
			       (unsigned)e->create_mode);
		fputs(", \"init_script\": ", stdout);
		json_string(stdout, e->init_script);
		fputs(", \"mntopts\": ", stdout);
		json_string(stdout, e->mntopts);
		fputc('}', stdout);
	}
	printf("%s]\n}\n", plan && plan->n_entries ? "\n  " : "");
}

static void usage(FILE *f)
{
	fprintf(f, "usage: pam_namespace_check [--config FILE] [--confdir DIR] [--user NAME]\n"
		   "                           [--json] [--gen-hash] [--ignore-config-error]\n"
		   "Checks the pam_namespace configuration as the module reads it and, with\n"
		   "--user, prints what a session of that user would get. Exit status 1 on\n"
		   "any error.\n");
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{"config", required_argument, NULL, 'c'},
		{"confdir", required_argument, NULL, 'd'},
		{"user", required_argument, NULL, 'u'},
		{"json", no_argument, NULL, 'j'},
		{"gen-hash", no_argument, NULL, 'g'},
		{"ignore-config-error", no_argument, NULL, 'i'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{0},
	};
	struct json_diag jd = {0};
	struct ns_diag diag = {.report = report, .userdata = &jd};
	struct ns_config_paths paths = {0};
	struct ns_config cfg = {0};
	struct ns_plan plan = {0};
	const char *user = NULL;
	bool gen_hash = false, ignore = false, have_plan = false, json = false;
	int c, r;

	while ((c = getopt_long(argc, argv, "c:d:u:jgihV", options, NULL)) != -1) {
		switch (c) {
		case 'c':
			paths.main_file = optarg;
			paths.no_vendor = true;
			break;
		case 'd':
			paths.conf_d = optarg;
			paths.no_vendor = true;
			break;
		case 'u':
			user = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'g':
			gen_hash = true;
			break;
		case 'i':
			ignore = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("pam_namespace_check %s\n", NS_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}

	if (json) {
		jd.mem = open_memstream(&json_diags, &json_diags_len);
		if (!jd.mem) {
			perror("pam_namespace_check");
			return 1;
		}
	}
	r = ns_config_load(&cfg, &paths, ignore ? NS_CONFIG_IGNORE_ERRORS : 0, &diag);
	if (r == 0 && user) {
		struct passwd *pw = getpwnam(user);
		struct ns_lookup lookup = {.user = lookup_user, .group = lookup_group};
		mode_t mask = umask(022);

		if (!pw) {
			ns_diag_report(&diag, NS_ERROR, NULL, 0, 0, "unknown user %s", user);
			r = -ENOENT;
		} else {
			struct ns_user u = {.name = user,
					    .uid = pw->pw_uid,
					    .gid = pw->pw_gid,
					    .home = pw->pw_dir};
			struct ns_plan_opts opts = {
				.flags = (gen_hash ? NS_PLAN_GEN_HASH : 0) |
					 (ignore ? NS_PLAN_IGNORE_ERRORS : 0),
				.umask = mask,
				.init_script = first_existing(NS_SYSCONF_DIR "/namespace.init",
							      NS_VENDOR_DIR "/namespace.init"),
			};

			r = ns_plan_build(&plan, &cfg, &u, &lookup, &opts, &diag);
			have_plan = r == 0;
		}
	}

	bool ok = r == 0 && diag.n_errors == 0;

	if (jd.mem) {
		fclose(jd.mem);
		print_plan_json(have_plan ? &plan : NULL, user, ok);
	} else if (have_plan)
		print_plan_text(&plan, user);
	else if (ok)
		printf("configuration OK: %zu entr%s\n", cfg.n_rules,
		       cfg.n_rules == 1 ? "y" : "ies");

	ns_plan_free(&plan);
	ns_config_free(&cfg);
	free(json_diags);
	return ok ? 0 : 1;
}

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * pam_namespace_check: read the configuration exactly as the module does
 * (main file or vendor fallback, namespace.d, trust checks) and report
 * every problem as FILE:LINE:COLUMN: severity: message, as sshd -t and
 * visudo -c do. The modes live in their own files: plain (check-config.c:
 * what would refuse anyone's login, on disk), --user and --all-users
 * (check-user.c), --service (check-pamd.c), share_namespace's --shared,
 * --enter and --drop (check-share.c). It changes nothing.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check-share.h"
#include "checker.h"
#include "ns-build.h"
#include "selinux.h"

/* What the command line asked for. */
struct cmdline {
	const char *main_file, *conf_d, *user, *service, *pam_dir;
	bool json, all_users, strict, quiet;
	struct ns_args args;
	struct ck_user_opts user_opts;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [--config FILE] [--confdir DIR] [--config-dir DIR]\n"
		"       [--user NAME | --all-users | --service NAME [--pam-dir DIR]]\n"
		"       [--json] [--strict] [-q] [--gen-hash] [--ignore-config-error]\n"
		"       [--ignore-instance-parent-mode] [--share-namespace [--mount-private]]\n"
		"       %s --shared [--json] | --enter USER [-- CMD...] | --drop USER|UID "
		"[--force] [--timeout SECONDS]\n"
		"Checks the pam_namespace configuration as the module reads it, and on\n"
		"disk what would refuse any user's login; --user prints what a session of that\n"
		"user would get, --all-users checks every user, --service checks the PAM\n"
		"stack of a service. Exit status 1 on any error (--strict: or warning);\n"
		"-q prints only the diagnostics.\n"
		"--shared lists the namespaces that share_namespace pinned,\n"
		"--enter runs a command in a user's, --drop removes a user's pins.\n",
		ck_progname, ck_progname);
}

/* Returns -1 to go on, else the exit status. */
static int parse_cmdline(int argc, char **argv, struct cmdline *o, struct checker *c)
{
	enum {
		OPT_CONFIG_DIR = 0x100,
		OPT_IGNORE_PARENT_MODE,
		OPT_SHARE,
		OPT_MOUNT_PRIVATE,
		OPT_ALL_USERS,
		OPT_SERVICE,
		OPT_PAM_DIR,
		OPT_STRICT,
	};
	static const struct option options[] = {
		{"config", required_argument, NULL, 'c'},
		{"confdir", required_argument, NULL, 'd'},
		{"config-dir", required_argument, NULL, OPT_CONFIG_DIR},
		{"user", required_argument, NULL, 'u'},
		{"all-users", no_argument, NULL, OPT_ALL_USERS},
		{"service", required_argument, NULL, OPT_SERVICE},
		{"pam-dir", required_argument, NULL, OPT_PAM_DIR},
		{"json", no_argument, NULL, 'j'},
		{"strict", no_argument, NULL, OPT_STRICT},
		{"quiet", no_argument, NULL, 'q'},
		{"gen-hash", no_argument, NULL, 'g'},
		{"ignore-config-error", no_argument, NULL, 'i'},
		{"ignore-instance-parent-mode", no_argument, NULL, OPT_IGNORE_PARENT_MODE},
		{"share-namespace", no_argument, NULL, OPT_SHARE},
		{"mount-private", no_argument, NULL, OPT_MOUNT_PRIVATE},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{0},
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "c:d:u:jgiqhV", options, NULL)) != -1) {
		switch (opt) {
		case 'c':
			o->main_file = optarg;
			break;
		case 'd':
			o->conf_d = optarg;
			break;
		case OPT_CONFIG_DIR:
			if (optarg[0] != '/') {
				fprintf(stderr,
					"%s: --config-dir wants an absolute path, as "
					"config_dir= does\n",
					ck_progname);
				return 2;
			}
			o->args.config_dir = optarg;
			break;
		case 'u':
			o->user = optarg;
			break;
		case OPT_ALL_USERS:
			o->all_users = true;
			break;
		case OPT_SERVICE:
			o->service = optarg;
			break;
		case OPT_PAM_DIR:
			o->pam_dir = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case OPT_STRICT:
			o->strict = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'g':
			o->args.gen_hash = true;
			break;
		case 'i':
			o->args.ignore_config_error = true;
			break;
		case OPT_IGNORE_PARENT_MODE:
			c->ignore_instance_parent_mode = true;
			break;
		case OPT_SHARE:
			o->args.share_namespace = true;
			break;
		case OPT_MOUNT_PRIVATE:
			o->args.mount_private = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("%s %s\n", ck_progname, NS_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	/* One mode at a time; JSON is for the configuration and one user's plan. */
	if (optind != argc || (o->args.config_dir && (o->main_file || o->conf_d)) ||
	    (!!o->user + o->all_users) > 1 || (o->all_users && o->service) ||
	    (o->json && (o->all_users || o->service)) || (o->pam_dir && !o->service)) {
		usage(stderr);
		return 2;
	}
	o->user_opts = (struct ck_user_opts){.json = o->json,
					     .share_namespace = o->args.share_namespace,
					     .mount_private = o->args.mount_private};
	return -1;
}

/*
 * --user with --service: the arguments on the service's line, as the
 * module parses them, added to those of the command line.
 */
static void use_module_args(struct checker *c, struct cmdline *o, const struct ck_service_run *run)
{
	struct ns_diag none = {0};

	(void)ns_args_parse(&o->args, run->argc, (const char **)run->argv, &none);
	c->ignore_instance_parent_mode |= o->args.ignore_instance_parent_mode;
	o->user_opts.share_namespace = o->args.share_namespace;
	o->user_opts.mount_private = o->args.mount_private;
	o->user_opts.service = true;
}

/* The SELinux boolean: not an error of the files, but every user's session would fail. */
static void check_selinux_boolean(struct checker *c, const struct ns_config *cfg)
{
	const char *boolean = cfg->n_rules ? ns_selinux_polyinstantiation_off() : NULL;

	if (boolean)
		ns_diag_report(&c->diag, NS_WARNING, NULL, 0, 0,
			       "SELinux is enforcing and its boolean %s is off: the policy "
			       "refuses every polyinstantiated session, so only users no line "
			       "applies to (root) can log in; setsebool -P %s on",
			       boolean, boolean);
}

static void print_json(const struct cmdline *o, bool ok, const struct ns_config *cfg,
		       const char *diags, const char *entries)
{
	bool any = diags && *diags, some = entries && *entries;

	printf("{\n  \"ok\": %s,\n  \"user\": ", ok ? "true" : "false");
	ck_json_string(stdout, o->user);
	printf(",\n  \"entries_read\": %zu", cfg->n_rules);
	printf(",\n  \"diagnostics\": [%s%s],\n  \"entries\": [%s%s]\n}\n", any ? diags : "",
	       any ? "\n  " : "", some ? entries : "", some ? "\n  " : "");
}

int main(int argc, char **argv)
{
	struct cmdline o = {.args = {.init_timeout = NS_INIT_TIMEOUT_DEFAULT}};
	struct checker c = {.diag = {.report = ck_report, .userdata = &c}};
	struct ns_config cfg = {0};
	struct ns_setup setup;
	char *diags = NULL, *entries = NULL;
	size_t diags_len = 0, entries_len = 0;
	FILE *json_entries = NULL;
	struct ck_service_run run = {0};
	bool service_failed = false;
	mode_t mask;
	int r;

	if (ck_share_wanted(argc, argv))
		return ck_share_main(argc, argv);
	r = parse_cmdline(argc, argv, &o, &c);
	if (r >= 0)
		return r;
	if (o.json) {
		c.json = open_memstream(&diags, &diags_len);
		json_entries = open_memstream(&entries, &entries_len);
		if (!c.json || !json_entries)
			ck_out_of_memory();
	}
	/* The stack first: with --user, the session is planned with its module's arguments. */
	if (o.service) {
		service_failed = ck_service(&c, o.service, o.pam_dir ? o.pam_dir : "/etc/pam.d",
					    o.pam_dir ? NULL : NS_PAM_VENDOR_DIR, NS_PAM_MODULE_DIR,
					    &run) < 0;
		if (run.runs && o.user)
			use_module_args(&c, &o, &run);
	}

	/* The module plans with the umask its application has; here, the caller's. */
	mask = umask(0);
	umask(mask);
	if (ns_setup_init(&setup, &o.args, mask) < 0)
		ck_out_of_memory();
	if (o.main_file || o.conf_d) {
		/* Files named by hand: no vendor fallback, which would only confuse. */
		setup.paths.main_file = o.main_file;
		setup.paths.conf_d = o.conf_d;
		setup.paths.no_vendor = true;
	}
	r = ns_config_load(&cfg, &setup.paths, setup.config_flags, &c.diag);
	if (r == 0 && o.user && o.service && !run.runs)
		printf("%s: %s's sessions of %s keep their namespace: its stack does not run "
		       "pam_namespace\n",
		       o.user, o.user, o.service);
	else if (r == 0 && o.user)
		r = ck_user(&c, &cfg, &setup, o.user, &o.user_opts, json_entries);
	else if (r == 0 && !o.service)
		ck_config_disk(&c, &cfg, &setup);
	/* Plain mode too: what refuses only some users is a lockout all the same. */
	if (r == 0 && !o.user && !o.service)
		(void)ck_all_users(&c, &cfg, &setup, o.all_users && !o.quiet);
	check_selinux_boolean(&c, &cfg);

	bool ok = r == 0 && !service_failed && c.diag.n_errors == 0;

	if (ok && o.strict && c.diag.n_warnings) {
		ok = false;
		fprintf(stderr, "%s: %u warning%s, a failure with --strict\n", ck_progname,
			c.diag.n_warnings, c.diag.n_warnings == 1 ? "" : "s");
	}

	if (o.json) {
		fclose(c.json);
		fclose(json_entries);
		print_json(&o, ok, &cfg, diags, entries);
	} else if (ok && !o.quiet && !o.user && !o.service && !o.all_users) {
		printf("configuration OK: %zu entr%s\n", cfg.n_rules,
		       cfg.n_rules == 1 ? "y" : "ies");
	}
	ck_checker_free(&c);
	ns_config_free(&cfg);
	ns_setup_free(&setup);
	ck_service_run_free(&run);
	free(diags);
	free(entries);
	return ok ? 0 : 1;
}

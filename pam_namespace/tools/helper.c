/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * pam_namespace_helper: create the instance parents of every configured
 * line at boot (main file or vendor fallback, and namespace.d), root-owned
 * with mode 000 and, where SELinux is enabled, labelled as the policy says.
 * /tmp is often a fresh tmpfs at boot, so without this the first login of
 * the day would find no /tmp/tmp-inst. Lines whose instance parent depends
 * on the user ($HOME, $USER) are left to the module. It also looks at the
 * share= directories of extended lines, which it never makes or changes
 * (systemd's tmpfiles.d/x11.conf makes /tmp/.X11-unix and /tmp/.ICE-unix
 * before it runs): one that sessions will not share is a warning.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "config.h"
#include "helper-tmpdirs.h"
#include "kernel.h"
#include "lookup.h"
#include "rules.h"
#include "ns-build.h"
#include "plan.h"
#include "selinux.h"
#include "setup.h"

#if HAVE_SELINUX
#include <selinux/label.h>
#include <selinux/selinux.h>
#endif

static bool verbose, dry_run;
/* Seconds a tmpdir instance must be unchanged before it is removed (--tmpdir-age). */
static unsigned tmpdir_age = 60;

static void report(void *userdata, enum ns_severity sev, const char *file, unsigned line,
		   unsigned column, const char *message)
{
	if (sev == NS_DEBUG)
		return;
	if (file && line && column)
		fprintf(stderr, "%s:%u:%u: %s: %s\n", file, line, column,
			ns_severity_to_string(sev), message);
	else if (file && line)
		fprintf(stderr, "%s:%u: %s: %s\n", file, line, ns_severity_to_string(sev), message);
	else if (file)
		fprintf(stderr, "%s: %s: %s\n", file, ns_severity_to_string(sev), message);
	else
		fprintf(stderr, "pam_namespace_helper: %s: %s\n", ns_severity_to_string(sev),
			message);
}

#if HAVE_SELINUX
static struct selabel_handle *labels;
#endif

/*
 * The label of a new parent, as restorecon would give it, from the file
 * contexts of the policy. Where the policy has no entry for the path
 * (Debian's says <<none>> below /tmp), that of the directory it is made
 * in (pfd), as a login program's mkdir there gives it: not the label of
 * this unit's domain's type transition (initrc_tmp_t in /tmp), which the
 * login programs may not write to. NULL without SELinux.
 */
static int wanted_label(int pfd, const char *path, char **ret)
{
	*ret = NULL;
#if HAVE_SELINUX
	char *con = NULL;

	if (is_selinux_enabled() <= 0)
		return 0;
	if (!labels) {
		labels = selabel_open(SELABEL_CTX_FILE, NULL, 0);
		if (!labels)
			return -errno;
	}
	if (selabel_lookup_raw(labels, &con, path, S_IFDIR) < 0) {
		if (errno != ENOENT)
			return -errno;
		if (fgetfilecon_raw(pfd, &con) < 0)
			return -errno;
	}
	*ret = strdup(con);
	freecon(con);
	if (!*ret)
		return -ENOMEM;
#else
	(void)pfd;
	(void)path;
#endif
	return 0;
}

/*
 * mkdir name under pfd, root's, mode 000, given the label con as it is
 * made (setfscreatecon, as Linux-PAM's mkdir -Z does), so that no relabel
 * is needed where the policy allows the creation. Where it refuses it (an
 * MLS policy refuses a domain without mlsfileupgrade a directory whose
 * range reaches above its own level, Debian's /tmp's tmp_t:s0-s15:c0.c1023
 * to initrc_t, as it refuses the relabel to it), the directory is made
 * plain and *labelled false, for the caller to label.
 */
static int make_dir(int pfd, const char *name, const char *con, bool *labelled)
{
	*labelled = false;
#if HAVE_SELINUX
	if (con && setfscreatecon_raw(con) == 0) {
		int fd = kn_mkdir_child(pfd, name, 0, 0, 0);

		(void)setfscreatecon_raw(NULL);
		if (fd != -EACCES && fd != -EPERM) {
			*labelled = fd >= 0;
			return fd;
		}
	}
#else
	(void)con;
#endif
	return kn_mkdir_child(pfd, name, 0, 0, 0);
}

/*
 * The instance parent of a rule, as the planner computes it: the instance
 * path up to its last '/', where the instance is the prefix followed by a
 * name without '/'; so the prefix up to its last '/'. NULL for "/", which
 * exists.
 */
static char *instance_parent(const struct ns_rule *r)
{
	const char *slash = strrchr(r->instance_prefix, '/');

	if (!slash || slash == r->instance_prefix)
		return NULL;
	return strndup(r->instance_prefix, (size_t)(slash - r->instance_prefix));
}

/* $HOME and $USER are expanded wherever they start (plan.c): such a parent is per user. */
static bool depends_on_user(const char *path)
{
	return strstr(path, "$HOME") || strstr(path, "$USER");
}

static void complain(const struct ns_rule *r, const char *what, const char *parent, int err)
{
	fprintf(stderr, "%s:%u: error: %s %s: %s\n", r->file, r->line, what, parent,
		strerror(-err));
}

/*
 * Like the module (SPEC 4), only the last component is created: a missing
 * directory above it is an error for the administrator to look at, not
 * something to invent with guessed owners and modes. An existing parent is
 * never changed: one the module would refuse is an error, so that the unit
 * fails (systemctl --failed, the path in the journal) instead of every
 * login through that line failing while the boot looks clean.
 */
static int ensure_parent(const struct ns_rule *r, const char *parent)
{
	struct stat st;
	const char *name;
	char *want = NULL, *used = NULL;
	bool labelled;
	int pfd, fd, k, k2;

	fd = kn_open_dir(parent, NULL);
	if (fd >= 0) {
		k = fstat(fd, &st) < 0 ? -errno : 0;
		close(fd);
		if (k < 0) {
			complain(r, "instance parent", parent, k);
			return k;
		}
		if (!ns_instance_parent_ok(&st, r->ignore_parent_mode)) {
			char *why = ns_instance_parent_refusal(&st);

			fprintf(stderr, "%s:%u: error: instance parent %s: %s; not changed\n",
				r->file, r->line, parent, why ? why : strerror(ENOMEM));
			free(why);
			return -EPERM;
		}
		if (verbose && st.st_uid == 0 && !(st.st_mode & 0777))
			printf("%s: exists, root, mode 0000\n", parent);
		else if (verbose)
			printf("%s: exists, owner uid %u, mode %04o, allowed by "
			       "ignore_instance_parent_mode\n",
			       parent, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		return 0;
	}
	if (fd != -ENOENT) {
		complain(r, "instance parent", parent, fd);
		return fd;
	}
	pfd = kn_open_parent(parent, &name, NULL);
	if (pfd < 0) {
		complain(r, "cannot create instance parent", parent, pfd);
		return pfd;
	}
	if (dry_run) {
		close(pfd);
		printf("%s: would be created, root, mode 0000\n", parent);
		return 0;
	}
	k = wanted_label(pfd, parent, &want);
	if (k < 0) {
		close(pfd);
		complain(r, "cannot find the label of instance parent", parent, k);
		return k;
	}
	fd = make_dir(pfd, name, want, &labelled);
	if (fd == -EEXIST) {
		close(pfd);
		free(want);
		return 0; /* made meanwhile by a login */
	}
	if (fd < 0) {
		close(pfd);
		free(want);
		complain(r, "cannot create instance parent", parent, fd);
		return fd;
	}
	if (want && !labelled)
		k = ns_selinux_label_fd_or_low(fd, want, &used);
	close(fd);
	if (k < 0) {
		/*
		 * Left with its domain's label (initrc_tmp_t), the parent would
		 * refuse every login: removed, the module makes it at the first
		 * login as it does without this unit.
		 */
		k2 = kn_remove_child_dir(pfd, name);
		fprintf(stderr, "%s:%u: error: cannot label instance parent %s %s: %s; %s\n",
			r->file, r->line, parent, want, strerror(-k),
			k2 < 0 ? "left as it was made" : "removed, for the module to make it");
		close(pfd);
		free(want);
		return k;
	}
	close(pfd);
	/* Which label a parent got is said even without --verbose: the journal of the boot keeps
	 * it. */
	if (used)
		printf("%s: created, root, mode 0000, labelled %s: the policy refused %s\n", parent,
		       used, want);
	else if (want)
		printf("%s: created, root, mode 0000, labelled %s%s\n", parent, want,
		       labelled ? " as it was made" : "");
	else if (verbose)
		printf("%s: created, root, mode 0000\n", parent);
	free(used);
	free(want);
	return 0;
}

/*
 * share=: say at boot what the module would say at each login, where the
 * journal of the boot shows it. A directory that is not what the module
 * shares is left out of every session (a warning); only where the
 * instance is shared by several users does it refuse the sessions (an
 * error, so that the unit fails). Nothing is made or changed here: the
 * directory is the X server's, and a user's directory there is for the
 * administrator to look at (systemd-tmpfiles takes it back at the next
 * boot).
 */
static int check_shares(const struct ns_rule *r)
{
	bool refuses =
		r->shared && (r->method == NS_METHOD_CONTEXT || r->method == NS_METHOD_LEVEL);
	const char *sev = refuses ? "error" : "warning";
	const char *then = refuses ? "sessions through this line are refused"
				   : "sessions through this line will not share it";
	int failed = 0;

	if (!r->n_shares || depends_on_user(r->polydir))
		return 0;
	for (size_t i = 0; i < r->n_shares; i++) {
		const char *path = r->shares[i];
		struct stat poly, st;
		int pfd = kn_open_dir(r->polydir, NULL), fd;

		if (pfd >= 0 && fstat(pfd, &poly) < 0)
			fd = -errno;
		else
			fd = pfd < 0 ? pfd : kn_open_child_dir(pfd, strrchr(path, '/') + 1);
		if (pfd >= 0)
			close(pfd);
		if (fd >= 0 && fstat(fd, &st) < 0) {
			int k = -errno;

			close(fd);
			fd = k;
		}
		if (fd < 0) {
			fprintf(stderr, "%s:%u: %s: share %s: %s; %s\n", r->file, r->line, sev,
				path,
				fd == -ELOOP ? "a symbolic link, not a directory" : strerror(-fd),
				then);
		} else {
			close(fd);
			if (ns_share_owner_ok(st.st_mode, st.st_uid, poly.st_uid)) {
				if (verbose)
					printf("%s: shared, owner uid %u, mode %04o\n", path,
					       (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
				continue;
			}
			fprintf(stderr,
				"%s:%u: %s: share %s has owner uid %u and mode %04o; it must be "
				"owned by root%s and, if group or others may write it, sticky; "
				"%s\n",
				r->file, r->line, sev, path, (unsigned)st.st_uid,
				(unsigned)(st.st_mode & 07777),
				poly.st_uid ? " or the polydir's owner" : "", then);
		}
		if (refuses)
			failed = 1;
	}
	return failed ? -EPERM : 0;
}

/*
 * The tmpdir instances under parent that no session uses are removed, where
 * every line whose instances are under parent is a tmpdir line: another
 * method's instance (a user's, kept between sessions) could have a name
 * like a tmpdir instance's. One bound for the whole run (HELPER_REMOVE_MS).
 */
/*
 * The staged directories a killed session left (kernel.h: kn_mkdir_staged):
 * a directory the module makes is made under a staged name and renamed into
 * place only when finished, so what a kill leaves is an empty staged
 * directory, never a half-made instance. They go here, in each instance
 * parent, the directory above it and that above each polydir the module
 * may create; a login making one right now loses its staged directory and
 * fails once.
 */
static int remove_staged(const struct ns_rule *r, const char *dir)
{
	int fd = kn_open_dir(dir, NULL), rfd, k;

	if (fd == -ENOENT || fd == -ENOTDIR)
		return 0;
	if (fd < 0) {
		complain(r, "cannot look for staged directories in", dir, fd);
		return fd;
	}
	rfd = kn_reopen_dir(fd, O_RDONLY);
	close(fd);
	k = rfd < 0 ? rfd : kn_remove_staged(rfd);
	if (rfd >= 0)
		close(rfd);
	if (k < 0)
		complain(r, "cannot remove the staged directories in", dir, k);
	return k;
}

/* The same in the directory that holds path (a polydir's, an instance parent's). */
static int remove_staged_above(const struct ns_rule *r, const char *path)
{
	const char *slash = strrchr(path, '/');
	char *up;
	int k;

	if (!slash || slash == path)
		return 0;
	up = strndup(path, (size_t)(slash - path));
	if (!up)
		return -ENOMEM;
	k = remove_staged(r, up);
	free(up);
	return k;
}

#define HELPER_REMOVE_MS 60000
static int remove_stale(const struct ns_config *cfg, const struct ns_rule *r, const char *parent,
			uint64_t deadline)
{
	const char *prefix = strrchr(r->instance_prefix, '/') + 1;
	int k;

	for (size_t i = 0; i < cfg->n_rules; i++) {
		char *other;
		bool same;

		if (cfg->rules[i].method == NS_METHOD_TMPDIR ||
		    cfg->rules[i].method == NS_METHOD_TMPFS)
			continue;
		other = instance_parent(&cfg->rules[i]);
		same = other && strcmp(other, parent) == 0;
		free(other);
		if (same) {
			if (verbose)
				printf("%s: other methods' instances are here too: no tmpdir "
				       "instance "
				       "is removed\n",
				       parent);
			return 0;
		}
	}
	k = ck_remove_stale_tmpdirs(parent, prefix, tmpdir_age, dry_run, deadline);
	if (k < 0)
		complain(r, "cannot remove the stale tmpdir instances of", parent, k);
	return k;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pam_namespace_helper [--config FILE] [--confdir DIR] [--config-dir DIR]\n"
		"                            [--tmpdir-age SECONDS] [--verbose] [--dry-run]\n"
		"Creates the missing instance parents of every configured line,\n"
		"owned by root with mode 000, checks their share= directories, and\n"
		"removes the tmpdir instances that no session uses.\n");
}

int main(int argc, char **argv)
{
	enum { OPT_CONFIG_DIR = 0x100, OPT_TMPDIR_AGE };
	static const struct option options[] = {
		{"config", required_argument, NULL, 'c'},
		{"confdir", required_argument, NULL, 'd'},
		{"config-dir", required_argument, NULL, OPT_CONFIG_DIR},
		{"tmpdir-age", required_argument, NULL, OPT_TMPDIR_AGE},
		{"verbose", no_argument, NULL, 'v'},
		{"dry-run", no_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{0},
	};
	struct ns_diag diag = {.report = report};
	struct ns_args args = {0};
	struct ns_setup setup;
	struct ns_config cfg = {0};
	const char *main_file = NULL, *conf_d = NULL;
	char **done = NULL;
	size_t n_done = 0;
	uint64_t deadline;
	int c, r, failed = 0;

	while ((c = getopt_long(argc, argv, "c:d:vnhV", options, NULL)) != -1) {
		switch (c) {
		case 'c':
			main_file = optarg;
			break;
		case 'd':
			conf_d = optarg;
			break;
		case OPT_CONFIG_DIR:
			if (optarg[0] != '/') {
				fprintf(stderr, "pam_namespace_helper: --config-dir wants an "
						"absolute path\n");
				return 2;
			}
			args.config_dir = optarg;
			break;
		case OPT_TMPDIR_AGE: {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (!*optarg || *end || v > 31536000) {
				fprintf(stderr,
					"pam_namespace_helper: --tmpdir-age wants seconds\n");
				return 2;
			}
			tmpdir_age = (unsigned)v;
			break;
		}
		case 'v':
			verbose = true;
			break;
		case 'n':
			dry_run = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("pam_namespace_helper %s\n", NS_VERSION);
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
	if (!dry_run && geteuid() != 0) {
		fprintf(stderr, "pam_namespace_helper: must run as root\n");
		return 1;
	}
	/*
	 * At boot a bad line must not cost the good lines their parents: read
	 * on past line errors, and fail at the end.
	 */
	args.ignore_config_error = true;
	if (ns_setup_init(&setup, &args, 022) < 0) {
		fprintf(stderr, "pam_namespace_helper: out of memory\n");
		return 1;
	}
	if (main_file || conf_d) {
		setup.paths.main_file = main_file;
		setup.paths.conf_d = conf_d;
		setup.paths.no_vendor = true;
	}
	deadline = kn_deadline_after_ms(HELPER_REMOVE_MS);
	r = ns_config_load(&cfg, &setup.paths, setup.config_flags, &diag);
	if (r < 0 || diag.n_errors)
		failed = 1;
	for (size_t i = 0; i < cfg.n_rules; i++) {
		const struct ns_rule *rule = &cfg.rules[i];
		char *parent, **d;
		bool seen = false;

		if (check_shares(rule) < 0)
			failed = 1;
		if (rule->create && !dry_run && !depends_on_user(rule->polydir) &&
		    remove_staged_above(rule, rule->polydir) < 0)
			failed = 1;
		if (rule->method == NS_METHOD_TMPFS)
			continue;
		parent = instance_parent(rule);
		if (!parent)
			continue;
		if (depends_on_user(parent)) {
			if (verbose)
				printf("%s:%u: instance parent %s depends on the user, left to the "
				       "module\n",
				       rule->file, rule->line, parent);
			free(parent);
			continue;
		}
		for (size_t j = 0; j < n_done && !seen; j++)
			seen = strcmp(done[j], parent) == 0;
		if (seen) {
			free(parent);
			continue;
		}
		if (ensure_parent(rule, parent) < 0)
			failed = 1;
		else if (!dry_run &&
			 (remove_staged(rule, parent) < 0 || remove_staged_above(rule, parent) < 0))
			failed = 1;
		else if (rule->method == NS_METHOD_TMPDIR &&
			 remove_stale(&cfg, rule, parent, deadline) < 0)
			failed = 1;
		d = realloc(done, (n_done + 1) * sizeof(*done));
		if (!d) {
			free(parent);
			failed = 1;
			break;
		}
		done = d;
		done[n_done++] = parent;
	}
	for (size_t j = 0; j < n_done; j++)
		free(done[j]);
	free(done);
#if HAVE_SELINUX
	if (labels)
		selabel_close(labels);
#endif
	ns_config_free(&cfg);
	ns_setup_free(&setup);
	return failed;
}

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * pam_namespace_helper: create the instance parents of every configured
 * line at boot (main file or vendor fallback, and namespace.d), root-owned
 * with mode 000 and, where SELinux is enabled, labelled as the policy says.
 * /tmp is often a fresh tmpfs at boot, so without this the first login of
 * the day would find no /tmp/tmp-inst. Lines whose instance parent depends
 * on the user ($HOME, $USER) are left to the module.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "kernel.h"
#include "ns-build.h"

#if HAVE_SELINUX
#include <selinux/label.h>
#include <selinux/selinux.h>
#endif

static bool verbose, dry_run;

static void report(void *userdata, enum ns_severity sev, const char *file, unsigned line,
		   unsigned column, const char *message)
{
	if (sev == NS_DEBUG)
		return;
	if (file && line)
		fprintf(stderr, "%s:%u: %s: %s\n", file, line, ns_severity_to_string(sev), message);
	else if (file)
		fprintf(stderr, "%s: %s: %s\n", file, ns_severity_to_string(sev), message);
	else
		fprintf(stderr, "pam_namespace_helper: %s: %s\n", ns_severity_to_string(sev),
			message);
}

/* Label a new parent as restorecon would; nothing to do without SELinux. */
static int label(int fd, const char *path)
{
#if HAVE_SELINUX
	struct selabel_handle *h;
	char *con = NULL;
	int r = 0;

	if (is_selinux_enabled() <= 0)
		return 0;
	h = selabel_open(SELABEL_CTX_FILE, NULL, 0);
	if (!h)
		return -errno;
	if (selabel_lookup_raw(h, &con, path, S_IFDIR) == 0) {
		if (fsetfilecon_raw(fd, con) < 0)
			r = -errno;
		freecon(con);
	}
	selabel_close(h);
	return r;
#else
	(void)fd;
	(void)path;
	return 0;
#endif
}

/* The instance parent of a rule: its prefix up to the last '/'. */
static char *instance_parent(const struct ns_rule *r)
{
	const char *slash = strrchr(r->instance_prefix, '/');

	if (!slash || slash == r->instance_prefix)
		return NULL;
	return strndup(r->instance_prefix, (size_t)(slash - r->instance_prefix));
}

static int ensure_parent(const struct ns_rule *r, const char *parent)
{
	struct stat st;
	const char *name;
	int pfd, fd, k;

	fd = kn_open_dir(parent, NULL);
	if (fd >= 0) {
		k = fstat(fd, &st) < 0 ? -errno : 0;
		close(fd);
		if (k < 0)
			return k;
		if (st.st_uid != 0 || (st.st_mode & 0777))
			fprintf(stderr,
				"%s:%u: warning: instance parent %s has owner uid %u and mode "
				"%04o; the module refuses it unless it is root-owned with mode "
				"000\n",
				r->file, r->line, parent, (unsigned)st.st_uid,
				(unsigned)(st.st_mode & 07777));
		else if (verbose)
			printf("%s: exists, root, mode 0000\n", parent);
		return 0;
	}
	if (fd != -ENOENT) {
		fprintf(stderr, "%s:%u: error: instance parent %s: %s\n", r->file, r->line, parent,
			strerror(-fd));
		return fd;
	}
	if (dry_run) {
		printf("%s: would be created, root, mode 0000\n", parent);
		return 0;
	}
	pfd = kn_open_parent(parent, &name, NULL);
	if (pfd < 0) {
		fprintf(stderr, "%s:%u: error: cannot create instance parent %s: %s\n", r->file,
			r->line, parent, strerror(-pfd));
		return pfd;
	}
	fd = kn_mkdir_child(pfd, name, 0, 0, 0);
	close(pfd);
	if (fd == -EEXIST)
		return 0; /* made meanwhile by a login */
	if (fd < 0) {
		fprintf(stderr, "%s:%u: error: cannot create instance parent %s: %s\n", r->file,
			r->line, parent, strerror(-fd));
		return fd;
	}
	k = label(fd, parent);
	close(fd);
	if (k < 0) {
		fprintf(stderr, "%s:%u: error: cannot label instance parent %s: %s\n", r->file,
			r->line, parent, strerror(-k));
		return k;
	}
	if (verbose)
		printf("%s: created, root, mode 0000\n", parent);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{"config", required_argument, NULL, 'c'}, {"confdir", required_argument, NULL, 'd'},
		{"verbose", no_argument, NULL, 'v'},	  {"dry-run", no_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},	  {0},
	};
	struct ns_diag diag = {.report = report};
	struct ns_config_paths paths = {0};
	struct ns_config cfg = {0};
	int c, r, failed = 0;

	while ((c = getopt_long(argc, argv, "c:d:vnh", options, NULL)) != -1) {
		switch (c) {
		case 'c':
			paths.main_file = optarg;
			paths.no_vendor = true;
			break;
		case 'd':
			paths.conf_d = optarg;
			paths.no_vendor = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'n':
			dry_run = true;
			break;
		case 'h':
			printf("usage: pam_namespace_helper [--config FILE] [--confdir DIR] "
			       "[--verbose] [--dry-run]\n");
			return 0;
		default:
			return 2;
		}
	}
	if (!dry_run && geteuid() != 0) {
		fprintf(stderr, "pam_namespace_helper: must run as root\n");
		return 1;
	}
	r = ns_config_load(&cfg, &paths, 0, &diag);
	if (r < 0)
		return 1;
	for (size_t i = 0; i < cfg.n_rules; i++) {
		const struct ns_rule *rule = &cfg.rules[i];
		char *parent;

		if (rule->method == NS_METHOD_TMPFS)
			continue;
		if (strchr(rule->instance_prefix, '$')) {
			if (verbose)
				printf("%s:%u: instance parent depends on the user, left to the "
				       "module\n",
				       rule->file, rule->line);
			continue;
		}
		parent = instance_parent(rule);
		if (!parent)
			continue;
		if (ensure_parent(rule, parent) < 0)
			failed = 1;
		free(parent);
	}
	ns_config_free(&cfg);
	return failed;
}

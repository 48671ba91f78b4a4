/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * Reading namespace.conf and namespace.d with the trust checks of SPEC
 * section 1 (root's regular file, no group or other write, the same for
 * every directory above it), the drop-ins sorted with /etc hiding the
 * vendor's, and the whole load. The text goes to ns_config_parse_text().
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "kernel.h"
#include "ns-build.h"

#define NS_CONFIG_MAX_FILE (64u * 1024 * 1024)

/*
 * The directories one load has checked already: each was checked with all
 * those above it, so the next file's check stops at the first one found
 * (namespace.d's files share /etc/security, /etc and / with namespace.conf).
 */
struct checked_dirs {
	char *dirs[8];
	size_t n;
};

static bool dir_checked(const struct checked_dirs *cd, const char *dir)
{
	for (size_t i = 0; i < cd->n; i++)
		if (strcmp(cd->dirs[i], dir) == 0)
			return true;
	return false;
}

static void dir_mark_checked(struct checked_dirs *cd, const char *dir)
{
	char *copy;

	if (cd->n == sizeof(cd->dirs) / sizeof(cd->dirs[0]))
		return;
	copy = strdup(dir);
	if (copy)
		cd->dirs[cd->n++] = copy;
}

static void checked_dirs_free(struct checked_dirs *cd)
{
	for (size_t i = 0; i < cd->n; i++)
		free(cd->dirs[i]);
	cd->n = 0;
}

/*
 * SPEC 1, like sshd's StrictModes: the file and every directory above it
 * must be root-owned and writable by nobody else (a root-owned sticky
 * directory is fine), or anyone who can write them can take over logins.
 */
static int check_dirs_trusted(const char *file, struct checked_dirs *cd, struct ns_diag *diag)
{
	char *dir = strdup(file), *slash;
	int r = 0;

	if (!dir)
		return -ENOMEM;
	while ((slash = strrchr(dir, '/'))) {
		struct stat st;

		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (dir_checked(cd, dir))
			break;
		if (stat(dir, &st) < 0) {
			r = -errno;
			ns_diag_report(diag, NS_ERROR, dir, 0, 0, "cannot check directory: %s",
				       strerror(errno));
			break;
		}
		if (st.st_uid != 0 ||
		    ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))) {
			ns_diag_report(
				diag, NS_ERROR, file, 0, 0,
				"refusing: directory %s is owned by uid %u with mode %04o; it "
				"must be owned by root and not writable by group or others",
				dir, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
			r = -EPERM;
			break;
		}
		/* A failure above it fails the whole load, so it can be marked now. */
		dir_mark_checked(cd, dir);
		if (strcmp(dir, "/") == 0)
			break;
	}
	free(dir);
	return r;
}

/*
 * Read one file; -ENOENT is returned unreported so callers can fall back.
 * With trust_checks, the file and its directories are checked (SPEC 1).
 */
static int read_file(const char *path, struct checked_dirs *trust_checks, struct ns_diag *diag,
		     char **ret, size_t *ret_len)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0, cap;
	int fd, r;

	/* O_NONBLOCK: a FIFO put in its place must not hang the login. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		r = -errno;
		if (r != -ENOENT)
			ns_diag_report(diag, NS_ERROR, path, 0, 0, "cannot open: %s",
				       strerror(errno));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		ns_diag_report(diag, NS_ERROR, path, 0, 0, "cannot stat: %s", strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ns_diag_report(diag, NS_ERROR, path, 0, 0, "refusing: not a regular file");
		r = -EPERM;
		goto out;
	}
	if (trust_checks && (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)))) {
		ns_diag_report(diag, NS_ERROR, path, 0, 0,
			       "refusing: owned by uid %u with mode %04o; it must be owned by "
			       "root and not writable by group or others",
			       (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		r = -EPERM;
		goto out;
	}
	if (trust_checks) {
		r = check_dirs_trusted(path, trust_checks, diag);
		if (r < 0)
			goto out;
	}
	if ((unsigned long long)st.st_size > NS_CONFIG_MAX_FILE) {
		ns_diag_report(diag, NS_ERROR, path, 0, 0, "larger than %u bytes",
			       NS_CONFIG_MAX_FILE);
		r = -E2BIG;
		goto out;
	}
	cap = (size_t)st.st_size + 1;
	buf = malloc(cap);
	if (!buf) {
		r = -ENOMEM;
		goto out;
	}
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			char *nb;

			if (cap > NS_CONFIG_MAX_FILE) {
				ns_diag_report(diag, NS_ERROR, path, 0, 0, "larger than %u bytes",
					       NS_CONFIG_MAX_FILE);
				r = -E2BIG;
				goto out;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				r = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			ns_diag_report(diag, NS_ERROR, path, 0, 0, "cannot read: %s",
				       strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		/* All that fstat announced: the read that would return 0 is saved. */
		if (st.st_size > 0 && len == (size_t)st.st_size)
			break;
	}
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
	buf = NULL;
	r = 0;
out:
	free(buf);
	close(fd);
	return r;
}

static int load_file(struct ns_config *cfg, const char *path, const char *conf_d, unsigned flags,
		     struct checked_dirs *trust_checks, struct ns_diag *diag)
{
	char *text;
	size_t len;
	int r = read_file(path, trust_checks, diag, &text, &len);

	if (r < 0)
		return r;
	r = ns_config_parse_text(cfg, path, text, len, conf_d, flags, diag);
	free(text);
	return r;
}

struct dropin {
	char *name;
	const char *dir;
};

static int dropin_cmp(const void *a, const void *b)
{
	const struct dropin *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	/* Same name: the /etc one (listed first, so lower index) sorts first. */
	return c ? c : (x->dir < y->dir ? -1 : x->dir > y->dir);
}

static int add_dropin(const char *dir, const char *name, struct dropin **list, size_t *n,
		      size_t *cap)
{
	if (!ns_config_dropin_name_ok(name))
		return 0;
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		struct dropin *nl = realloc(*list, nc * sizeof(*nl));

		if (!nl)
			return -ENOMEM;
		*list = nl;
		*cap = nc;
	}
	(*list)[*n].name = strdup(name);
	(*list)[*n].dir = dir;
	if (!(*list)[*n].name)
		return -ENOMEM;
	(*n)++;
	return 0;
}

struct dropin_listing {
	const char *dir;
	struct dropin **list;
	size_t *n, *cap;
};

static int list_one_dropin(const char *name, void *ud)
{
	struct dropin_listing *l = ud;

	return add_dropin(l->dir, name, l->list, l->n, l->cap);
}

/* By kn_dir_each(): getdents64(), no fdopendir() for a directory most often empty. */
static int list_dropins(const char *dir, struct dropin **list, size_t *n, size_t *cap)
{
	struct dropin_listing l = {.dir = dir, .list = list, .n = n, .cap = cap};
	int fd, r;

	if (!dir)
		return 0;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	r = kn_dir_each(fd, list_one_dropin, &l);
	close(fd);
	return r;
}

int ns_config_load(struct ns_config *cfg, const struct ns_config_paths *paths, unsigned flags,
		   struct ns_diag *diag)
{
	const char *main_file =
		paths->main_file ? paths->main_file : NS_SYSCONF_DIR "/namespace.conf";
	const char *vendor_file = paths->no_vendor     ? NULL
				  : paths->vendor_file ? paths->vendor_file
						       : NS_VENDOR_DIR "/namespace.conf";
	const char *conf_d = paths->conf_d ? paths->conf_d : NS_SYSCONF_DIR "/namespace.d";
	const char *vendor_d = paths->no_vendor	 ? NULL
			       : paths->vendor_d ? paths->vendor_d
						 : NS_VENDOR_DIR "/namespace.d";
	struct checked_dirs checked = {0};
	struct checked_dirs *trust = paths->skip_trust_checks ? NULL : &checked;
	struct ns_config c = {0};
	struct dropin *list = NULL;
	size_t n = 0, cap = 0;
	int r, first_error = 0;

	r = load_file(&c, main_file, conf_d, flags, trust, diag);
	if (r == -ENOENT && vendor_file)
		r = load_file(&c, vendor_file, conf_d, flags, trust, diag);
	if (r == -ENOENT) {
		if (vendor_file)
			ns_diag_report(diag, NS_ERROR, main_file, 0, 0,
				       "no configuration: neither %s nor %s exists", main_file,
				       vendor_file);
		else
			ns_diag_report(diag, NS_ERROR, main_file, 0, 0,
				       "no configuration: %s does not exist", main_file);
		goto out;
	}
	if (r == -ENOMEM || r == -E2BIG)
		goto out;
	first_error = r;

	/* conf_d is listed first: on equal names its entry sorts first and wins. */
	r = list_dropins(conf_d, &list, &n, &cap);
	if (r == 0 && vendor_d)
		r = list_dropins(vendor_d, &list, &n, &cap);
	if (r < 0) {
		ns_diag_report(diag, NS_ERROR, conf_d, 0, 0, "cannot list: %s", strerror(-r));
		goto out;
	}
	if (n > 1)
		qsort(list, n, sizeof(*list), dropin_cmp);
	for (size_t i = 0; i < n; i++) {
		char *path;

		if (i > 0 && strcmp(list[i].name, list[i - 1].name) == 0)
			continue; /* hidden by the one in /etc */
		if (asprintf(&path, "%s/%s", list[i].dir, list[i].name) < 0) {
			r = -ENOMEM;
			goto out;
		}
		r = load_file(&c, path, conf_d, flags, trust, diag);
		free(path);
		if (r == -ENOENT)
			r = 0; /* removed while we listed */
		if (r == -ENOMEM || r == -E2BIG)
			goto out;
		if (r < 0 && first_error == 0)
			first_error = r;
	}
	r = first_error;
out:
	for (size_t i = 0; i < n; i++)
		free(list[i].name);
	free(list);
	checked_dirs_free(&checked);
	if (r < 0) {
		ns_config_free(&c);
		return r;
	}
	ns_config_free(cfg);
	*cfg = c;
	return 0;
}

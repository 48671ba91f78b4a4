/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * One polyinstantiation per login: the records that prove a process is
 * already in the namespace this module made for a user and plan (once.h
 * says why they cannot be forged), and the check against share.c's pins.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel.h"
#include "ns-build.h"
#include "once.h"
#include "share.h"

#define RECORD_MAGIC "pam_namespace once 1"
#define RECORD_MAX   (64u * 1024)

int ns_once_key(const struct ns_plan *plan, const struct ns_user *user,
		const struct ns_apply_opts *opts, char out[33])
{
	struct ns_apply_opts o = *opts;

	o.unmount_first = NULL;
	o.n_unmount_first = 0;
	return ns_share_key(plan, user, &o, -1L, out);
}

/* The caller's mount namespace as a record's name: its nsfs device and inode. */
static int record_name(char *buf, size_t size)
{
	struct stat st;
	int fd = kn_ns_open_own(), r;

	if (fd < 0)
		return fd;
	r = kn_ns_check_mnt(fd, &st);
	close(fd);
	if (r < 0)
		return r;
	snprintf(buf, size, "%" PRIx64 "-%" PRIx64, (uint64_t)st.st_dev, (uint64_t)st.st_ino);
	return 0;
}

/*
 * NS_ONCE_DIR, made when create: its parent reached through root's
 * directories only, the directory itself no link, root's and closed to
 * everyone else. Anything else there is refused, never repaired.
 */
static int dir_open(bool create)
{
	const char *name;
	bool trusted = false;
	struct stat st;
	int pfd = kn_open_parent(NS_ONCE_DIR, &name, &trusted), fd;

	if (pfd < 0)
		return pfd;
	if (!trusted) {
		close(pfd);
		return -EPERM;
	}
	fd = kn_open_child_dir(pfd, name);
	if (fd == -ENOENT && create) {
		if (mkdirat(pfd, name, 0700) < 0 && errno != EEXIST)
			fd = -errno;
		else
			fd = kn_open_child_dir(pfd, name);
	}
	close(pfd);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || st.st_uid != 0 || (st.st_mode & 077)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* The device and inode of each polydir as this namespace has it, which must be a mount root. */
static int polydir_ids(const struct ns_plan *plan, struct stat *ids)
{
	for (size_t i = 0; i < plan->n_entries; i++) {
		int fd = kn_open_dir(plan->entries[i].polydir, NULL), r;

		if (fd < 0)
			return fd;
		r = kn_is_mount_root(fd);
		if (r == 0)
			r = -ENOTCONN; /* not mounted on: not what was recorded */
		if (r > 0)
			r = fstat(fd, &ids[i]) < 0 ? -errno : 0;
		close(fd);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The record's text: whole, root's, 0600 at most, one link, not too large. */
static int record_read(int dfd, const char *name, char **ret)
{
	struct stat st;
	char *buf;
	ssize_t n;
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 077) ||
	    st.st_nlink != 1 || st.st_size > RECORD_MAX) {
		close(fd);
		return -EPERM;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	n = read(fd, buf, (size_t)st.st_size);
	close(fd);
	if (n != st.st_size) {
		free(buf);
		return -EBADMSG;
	}
	buf[n] = '\0';
	*ret = buf;
	return 0;
}

/*
 * 1 if text records uid, key and, in order, the device and inode of each
 * of the n polydirs in ids; 0 otherwise.
 */
static int record_matches(const char *text, uid_t uid, const char *key, const struct stat *ids,
			  size_t n)
{
	unsigned long long ruid, rn, dev, ino;
	char rkey[33];
	const char *p = text;
	int used = 0;

	if (strncmp(p, RECORD_MAGIC "\n", sizeof(RECORD_MAGIC)) != 0)
		return 0;
	p += sizeof(RECORD_MAGIC);
	if (sscanf(p, "uid %llu key %32s mounts %llu\n%n", &ruid, rkey, &rn, &used) != 3 || !used)
		return 0;
	if (ruid != (unsigned long long)uid || strcmp(rkey, key) != 0 || rn != n)
		return 0;
	p += used;
	for (size_t i = 0; i < n; i++) {
		used = 0;
		if (sscanf(p, "%llx %llx\n%n", &dev, &ino, &used) != 2 || !used)
			return 0;
		if (dev != (unsigned long long)ids[i].st_dev ||
		    ino != (unsigned long long)ids[i].st_ino)
			return 0;
		p += used;
	}
	return *p == '\0';
}

int ns_once_in_own(const struct ns_plan *plan, uid_t uid, const char *key)
{
	char name[64], *text = NULL;
	struct stat *ids;
	int dfd, r;

	if (plan->n_entries == 0)
		return 0;
	r = record_name(name, sizeof(name));
	if (r < 0)
		return r;
	dfd = dir_open(false);
	if (dfd == -ENOENT)
		return 0;
	if (dfd < 0)
		return dfd;
	r = record_read(dfd, name, &text);
	close(dfd);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	ids = calloc(plan->n_entries, sizeof(*ids));
	if (!ids) {
		free(text);
		return -ENOMEM;
	}
	/* A polydir that cannot be opened or is not mounted on is no proof: a new session. */
	r = polydir_ids(plan, ids) < 0 ? 0 : record_matches(text, uid, key, ids, plan->n_entries);
	free(ids);
	free(text);
	return r;
}

/* Write text as name under dfd: a private temporary file renamed over it. */
static int write_atomic(int dfd, const char *name, const char *text, size_t len)
{
	char tmp[96];
	ssize_t n;
	int fd, r = 0;

	snprintf(tmp, sizeof(tmp), ".%s.%ld", name, (long)getpid());
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	/* Left by a process of this pid that died writing it. */
	if (fd < 0 && errno == EEXIST && unlinkat(dfd, tmp, 0) == 0)
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n < 0)
		r = -errno;
	else if ((size_t)n != len)
		r = -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && renameat(dfd, tmp, dfd, name) < 0)
		r = -errno;
	if (r < 0)
		(void)unlinkat(dfd, tmp, 0);
	return r;
}

int ns_once_record(const struct ns_plan *plan, uid_t uid, const char *key, char **ret_name)
{
	char name[64], *text = NULL, *copy;
	size_t len = 0;
	struct stat *ids;
	FILE *f;
	int dfd, r;

	r = record_name(name, sizeof(name));
	if (r < 0)
		return r;
	ids = calloc(plan->n_entries ? plan->n_entries : 1, sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	r = polydir_ids(plan, ids);
	if (r < 0) {
		free(ids);
		return r;
	}
	f = open_memstream(&text, &len);
	if (!f) {
		free(ids);
		return -ENOMEM;
	}
	fprintf(f, RECORD_MAGIC "\nuid %u key %s mounts %zu\n", (unsigned)uid, key,
		plan->n_entries);
	for (size_t i = 0; i < plan->n_entries; i++)
		fprintf(f, "%llx %llx\n", (unsigned long long)ids[i].st_dev,
			(unsigned long long)ids[i].st_ino);
	free(ids);
	if (fclose(f) != 0) {
		free(text);
		return -ENOMEM;
	}
	copy = strdup(name);
	dfd = copy ? dir_open(true) : -ENOMEM;
	if (dfd < 0) {
		free(copy);
		free(text);
		return dfd;
	}
	r = write_atomic(dfd, name, text, len);
	close(dfd);
	free(text);
	if (r < 0) {
		free(copy);
		return r;
	}
	*ret_name = copy;
	return 0;
}

int ns_once_forget(const char *name)
{
	int dfd = dir_open(false), r = 0;

	if (dfd < 0)
		return dfd == -ENOENT ? 0 : dfd;
	if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
		r = -errno;
	close(dfd);
	return r;
}

int ns_once_in_shared(uid_t uid, const char *share_key)
{
	struct ns_share_state st = {0};
	struct stat own;
	int dfd, udir, fd, r;

	dfd = ns_share_dir_open_existing();
	if (dfd == -ENOENT)
		return 0;
	if (dfd < 0)
		return dfd;
	udir = ns_share_user_dir(dfd, uid, false);
	close(dfd);
	if (udir == -ENOENT)
		return 0;
	if (udir < 0)
		return udir;
	/* Written once, root's and private (share.c checks): the pinned namespace's identity. */
	r = ns_share_state_read(udir, share_key, &st);
	close(udir);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	fd = kn_ns_open_own();
	r = fd < 0 ? fd : kn_ns_check_mnt(fd, &own);
	if (fd >= 0)
		close(fd);
	if (r == 0)
		r = own.st_dev == st.dev && own.st_ino == st.ino;
	ns_share_state_free(&st);
	return r;
}

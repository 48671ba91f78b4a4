/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * share_namespace (share.h): the pin directory, its lock and state files,
 * and the open and close of a session that shares its namespace.
 */
#include <ctype.h>
#include <sched.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel.h"
#include "share.h"

/*
 * The format of the state file and the session records beside it, said on
 * the state's first line ("pam_namespace-share N"). Records carry no number
 * of their own: a record is only ever read next to a state of a format that
 * knows it. A module joins a pin whose state is of a format from
 * NS_SHARE_FORMAT_MIN to its own, and writes its record as that format
 * does; a state of any other format belongs to sessions of another build
 * (an upgrade with users logged in), which it leaves to them: the session
 * gets a namespace of its own. A format that cannot be joined bumps
 * NS_SHARE_GENERATION too, which is part of the key, so that the files of
 * the two never share a name. -D defines in a second build prove it
 * (tests/integration/test_share_attacks.sh).
 */
#ifndef NS_SHARE_FORMAT
#define NS_SHARE_FORMAT 1
#endif
#ifndef NS_SHARE_FORMAT_MIN
#define NS_SHARE_FORMAT_MIN 1
#endif
#ifndef NS_SHARE_GENERATION
#define NS_SHARE_GENERATION 1
#endif
#define STATE_MAGIC "pam_namespace-share "
#define STATE_MAX   (1024 * 1024)

/* ------------------------------------------------------------ the key */

/*
 * FNV-1a, 128 bits (the FNV specification's offset basis and prime): the
 * key names files and is no secret. What selects a pin is decided by the
 * administrator's configuration and the user's entry, which no user can
 * steer towards a collision, and a pin is only ever shared by sessions of
 * one uid. Computed here, not with libmd: loading a library costs a
 * joining session more than all the rest of its work.
 */
static void fnv1a128_hex(const char *data, size_t len, char out[33])
{
	static const char hex[] = "0123456789abcdef";
	uint64_t hi = 0x6c62272e07bb0142ULL, lo = 0x62b821756295c58dULL;

	for (size_t i = 0; i < len; i++) {
		/* h *= 2^88 + 0x13b, in two 64-bit halves (no __int128 on 32-bit targets) */
		uint64_t a, b, nlo;

		lo ^= (unsigned char)data[i];
		a = (lo & 0xffffffffULL) * 0x13b;
		b = (lo >> 32) * 0x13b;
		nlo = a + (b << 32);
		hi = hi * 0x13b + (b >> 32) + (nlo < a) + (lo << 24);
		lo = nlo;
	}
	for (int i = 15; i >= 0; i--, lo >>= 4)
		out[16 + i] = hex[lo & 0xf];
	for (int i = 15; i >= 0; i--, hi >>= 4)
		out[i] = hex[hi & 0xf];
	out[32] = '\0';
}

int ns_share_key(const struct ns_plan *plan, const struct ns_user *user,
		 const struct ns_apply_opts *opts, long orig_uid, char out[33])
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return -ENOMEM;
	/* Fields end with a NUL: no value can run into the next. */
	if (NS_SHARE_GENERATION != 1)
		fprintf(f, "generation %d%c", NS_SHARE_GENERATION, 0);
	fprintf(f, "uid %u%c", (unsigned)user->uid, 0);
	fprintf(f, "context %s%c", user->context ? user->context : "", 0);
	fprintf(f, "orig %ld%c", orig_uid, 0);
	fprintf(f, "private %d parentmode %d%c", opts->mount_private,
		opts->ignore_instance_parent_mode, 0);
	for (size_t i = 0; i < opts->n_unmount_first; i++)
		fprintf(f, "unmount %s%c", opts->unmount_first[i], 0);
	for (size_t i = 0; i < plan->n_entries; i++) {
		const struct ns_plan_entry *e = &plan->entries[i];

		fprintf(f, "entry %d%c%s%c%s%c%s%c%s%c", (int)e->method, 0, e->polydir, 0,
			e->instance ? e->instance : "", 0,
			e->instance_context ? e->instance_context : "", 0,
			e->init_script ? e->init_script : "", 0);
		fprintf(f, "create %d %o %u %u%c%s%c%lx%c", e->create_polydir,
			(unsigned)e->create_mode, (unsigned)e->create_uid, (unsigned)e->create_gid,
			0, e->mntopts ? e->mntopts : "", 0, e->mount_flags, 0);
	}
	if (fclose(f) != 0) {
		free(text);
		return -ENOMEM;
	}
	fnv1a128_hex(text, len, out);
	free(text);
	return 0;
}

/* ------------------------------------------------------------ processes */

static int proc_start(pid_t pid, unsigned long long *ret)
{
	char path[64], buf[1024];
	const char *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	/* From the space after the command's ")", before field 3 (state), to field 22 (starttime).
	 */
	p = strrchr(buf, ')');
	if (!p)
		return -EIO;
	p++;
	for (int field = 3; field < 22; field++) {
		p = strchr(p + 1, ' ');
		if (!p)
			return -EIO;
	}
	*ret = strtoull(p + 1, NULL, 10);
	return 0;
}

static int proc_id(pid_t pid, bool pidfs, unsigned long long *ret)
{
	/* A record says pidfs only where this boot's kernel has it: no need to ask again. */
	return pidfs ? kn_pid_inode(pid, true, ret) : proc_start(pid, ret);
}

int ns_share_proc_alive(const struct ns_share_proc *p)
{
	unsigned long long id;
	int r = proc_id(p->pid, p->pidfs, &id);

	if (r == -ENOENT || r == -ESRCH)
		return 0;
	if (r < 0)
		return 1; /* cannot tell: never drop a live session */
	return id == p->id;
}

static int proc_self(struct ns_share_proc *ret)
{
	ret->pid = getpid();
	ret->pidfs = true;
	if (kn_pid_inode(ret->pid, false, &ret->id) == 0)
		return 0;
	ret->pidfs = false;
	return proc_start(ret->pid, &ret->id);
}

/* ------------------------------------------------------------ the directory */

static int dir_check(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 07777) != 0700)
		return -EPERM;
	return 0;
}

/* /run, by the safe walk: every directory on the way root's and not writable by others. */
static int open_parent(const char **ret_name)
{
	bool trusted = false;
	int fd = kn_open_parent(NS_SHARE_DIR, ret_name, &trusted);

	if (fd >= 0 && !trusted) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/*
 * Root's and 0700 whatever made it: mkdirat() goes through the caller's
 * umask and takes its group, and the first session after boot (a user's
 * "umask 0277; su -") would otherwise decide the directory for every later
 * one. A directory found root-owned and writable by no one else can have
 * had nothing planted in it: its group and mode are put right (1, said in
 * the log by the caller). Any other is refused (-EPERM).
 */
static int dir_fix(int fd, bool made)
{
	struct stat st;
	int rw, r;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != 0)
		return -EPERM;
	if (st.st_gid == 0 && (st.st_mode & 07777) == 0700)
		return 0;
	if (!made && (st.st_mode & 0022))
		return -EPERM;
	/* fd is O_PATH, on which fchmod() fails: the directory itself, opened through it */
	rw = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rw < 0)
		return -errno;
	r = (st.st_gid != 0 && fchown(rw, 0, 0) < 0) || fchmod(rw, 0700) < 0 ? -errno : 0;
	close(rw);
	if (r < 0)
		return r;
	return made ? 0 : 1;
}

/*
 * name under pfd, made when missing and create, then made or checked
 * root's and 0700 (dir_fix). On failure *ret_what, when asked for, names
 * the step; *ret_repaired says a wrong one was put right.
 */
static int open_checked_child(int pfd, const char *name, bool create, const char **ret_what,
			      bool *ret_repaired)
{
	const char *what = "opening";
	int fd = kn_open_child_dir(pfd, name), r;
	bool made = false;

	if (fd == -ENOENT && create) {
		what = "creating";
		if (mkdirat(pfd, name, 0700) == 0)
			made = true;
		fd = made || errno == EEXIST ? kn_open_child_dir(pfd, name) : -errno;
	}
	if (fd < 0) {
		if (ret_what)
			*ret_what = what;
		return fd;
	}
	if (ret_what)
		*ret_what = "checking";
	/* Only a module session repairs; the check tool reads what is there. */
	r = create ? dir_fix(fd, made) : dir_check(fd);
	if (r < 0) {
		close(fd);
		return r;
	}
	if (ret_repaired)
		*ret_repaired = r == 1;
	return fd;
}

int ns_share_dir_open_existing(void)
{
	const char *name;
	int pfd = open_parent(&name), fd;

	if (pfd < 0)
		return pfd;
	fd = open_checked_child(pfd, name, false, NULL, NULL);
	close(pfd);
	return fd;
}

/*
 * Made on first use: the directory, then under its lock a bind of it onto
 * itself with private propagation (kn_dir_make_private_mount), reopened
 * so that the descriptor is on that mount.
 */
static int dir_open(const char **ret_what, bool *ret_repaired)
{
	const char *name;
	int pfd, fd, nfd, r;

	*ret_what = "opening";
	pfd = open_parent(&name);
	if (pfd < 0)
		return pfd;
	fd = open_checked_child(pfd, name, true, ret_what, ret_repaired);
	if (fd < 0) {
		close(pfd);
		return fd;
	}
	r = kn_is_mount_root(fd);
	if (r == 0) {
		/* flock() wants a descriptor opened for reading, not O_PATH. */
		int lfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		/*
		 * Held only while the directory becomes a mount, once a boot,
		 * and waited for within a bound: a holder its user stopped
		 * cannot hold up everyone's logins.
		 */
		*ret_what = "locking";
		if (lfd < 0)
			r = -errno;
		else
			r = kn_flock_timeout(lfd, LOCK_EX, NS_SHARE_LOCK_MS);
		if (r == 0)
			*ret_what = "mounting";
		/* Another session may have made it a mount while this one waited. */
		if (r == 0) {
			nfd = kn_open_child_dir(pfd, name);
			close(fd);
			fd = nfd;
			r = fd < 0 ? fd : dir_check(fd);
			if (r == 0)
				r = kn_is_mount_root(fd);
		}
		if (r == 0)
			r = kn_dir_make_private_mount(fd);
		if (r == 0) {
			nfd = kn_open_child_dir(pfd, name);
			close(fd);
			fd = nfd;
			r = fd < 0 ? fd : dir_check(fd);
		}
		if (r >= 0) {
			/*
			 * Once, when it becomes a mount: a pin cannot be bound
			 * where it would propagate, so should anyone make it
			 * shared later, pinning fails and sessions go unshared.
			 */
			*ret_what = "making private";
			r = kn_mount_make_private(fd);
		}
		if (lfd >= 0)
			close(lfd); /* unlocks */
	}
	close(pfd);
	if (r < 0) {
		if (fd >= 0)
			close(fd);
		return r;
	}
	return fd;
}

/*
 * The user's directory, NS_SHARE_DIR/UID, root's and 0700 like its parent:
 * per user, so that a session lists only its own user's sessions.
 */
int ns_share_user_dir(int dir_fd, uid_t uid, bool create)
{
	return ns_share_user_dir_repair(dir_fd, uid, create, NULL);
}

int ns_share_user_dir_repair(int dir_fd, uid_t uid, bool create, bool *ret_repaired)
{
	char name[24];

	snprintf(name, sizeof(name), "%u", (unsigned)uid);
	return open_checked_child(dir_fd, name, create, NULL, ret_repaired);
}

int ns_share_lock(int udir, unsigned timeout_ms)
{
	int r;
	struct stat st;
	int fd;

	fd = openat(udir, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0) {
		close(fd);
		return -EPERM;
	}
	r = kn_flock_timeout(fd, LOCK_EX, timeout_ms);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

/* ------------------------------------------------------------ the state file */

void ns_share_state_free(struct ns_share_state *st)
{
	free(st->user);
	for (size_t i = 0; i < st->n_polydirs; i++)
		free(st->polydirs[i]);
	free(st->polydirs);
	for (size_t i = 0; i < st->n_tmpdirs; i++) {
		free(st->tmpdirs[i].parent);
		free(st->tmpdirs[i].name);
	}
	free(st->tmpdirs);
	free(st->sessions);
	*st = (struct ns_share_state){0};
}

static bool word_ok(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (isspace((unsigned char)*s) || iscntrl((unsigned char)*s))
			return false;
	return true;
}

static int grow(void *pptr, size_t n, size_t size)
{
	void **p = pptr;
	void *q = realloc(*p, (n + 1) * size);

	if (!q)
		return -ENOMEM;
	*p = q;
	return 0;
}

static int parse_line(struct ns_share_state *st, char *line)
{
	char *sp = strchr(line, ' ');
	char *arg, *arg2;

	if (!sp)
		return -EBADMSG;
	*sp = '\0';
	arg = sp + 1;
	if (strcmp(line, "ns") == 0 || strcmp(line, "root") == 0) {
		unsigned long long dev, ino;

		if (sscanf(arg, "%llu %llu", &dev, &ino) != 2)
			return -EBADMSG;
		if (line[0] == 'n') {
			st->dev = (dev_t)dev;
			st->ino = (ino_t)ino;
		} else {
			st->root_dev = (dev_t)dev;
			st->root_ino = (ino_t)ino;
		}
	} else if (strcmp(line, "user") == 0 && word_ok(arg) && !st->user) {
		st->user = strdup(arg);
		if (!st->user)
			return -ENOMEM;
	} else if (strcmp(line, "polydir") == 0 && word_ok(arg)) {
		if (grow(&st->polydirs, st->n_polydirs, sizeof(*st->polydirs)) < 0)
			return -ENOMEM;
		st->polydirs[st->n_polydirs] = strdup(arg);
		if (!st->polydirs[st->n_polydirs++])
			return -ENOMEM;
	} else if (strcmp(line, "tmpdir") == 0) {
		arg2 = strchr(arg, ' ');
		if (!arg2)
			return -EBADMSG;
		*arg2++ = '\0';
		if (arg[0] != '/' || !word_ok(arg) || !word_ok(arg2) || strchr(arg2, '/'))
			return -EBADMSG;
		if (grow(&st->tmpdirs, st->n_tmpdirs, sizeof(*st->tmpdirs)) < 0)
			return -ENOMEM;
		st->tmpdirs[st->n_tmpdirs] =
			(struct ns_share_tmpdir){.parent = strdup(arg), .name = strdup(arg2)};
		if (!st->tmpdirs[st->n_tmpdirs++].parent || !st->tmpdirs[st->n_tmpdirs - 1].name)
			return -ENOMEM;
	} else {
		return -EBADMSG;
	}
	return 0;
}

static char *state_name(const char *base, const char *suffix)
{
	char *s;

	if (asprintf(&s, "%s%s", base, suffix) < 0)
		return NULL;
	return s;
}

/* The first line: -EBADMSG if it is none of ours, -EPROTO if of a format this build cannot join. */
static int state_magic(const char *line, int *ret_format)
{
	size_t n = strlen(STATE_MAGIC);
	char *end;
	long v;

	if (!line || strncmp(line, STATE_MAGIC, n) != 0 || !isdigit((unsigned char)line[n]))
		return -EBADMSG;
	errno = 0;
	v = strtol(line + n, &end, 10);
	if (*end || errno || v < 1 || v > INT_MAX)
		return -EBADMSG;
	*ret_format = (int)v;
	return v < NS_SHARE_FORMAT_MIN || v > NS_SHARE_FORMAT ? -EPROTO : 0;
}

int ns_share_state_read(int dir_fd, const char *base, struct ns_share_state *ret)
{
	struct ns_share_state st = {0};
	int format = 0;
	char *name = state_name(base, ".state"), *buf = NULL, *line, *save = NULL;
	struct stat s;
	ssize_t n;
	int fd, r = 0;

	if (!name)
		return -ENOMEM;
	fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	free(name);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &s) < 0 || !S_ISREG(s.st_mode) || s.st_uid != 0 || (s.st_mode & 077) ||
	    s.st_nlink != 1 || s.st_size > STATE_MAX) {
		close(fd);
		return -EPERM;
	}
	buf = malloc((size_t)s.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	n = read(fd, buf, (size_t)s.st_size);
	close(fd);
	if (n != s.st_size) {
		free(buf);
		return -EBADMSG;
	}
	buf[n] = '\0';
	line = strtok_r(buf, "\n", &save);
	r = state_magic(line, &format);
	while (r == 0 && (line = strtok_r(NULL, "\n", &save)))
		r = parse_line(&st, line);
	free(buf);
	if (r == 0 && (st.ino == 0 || st.root_ino == 0 || !st.user))
		r = -EBADMSG;
	st.format = format;
	if (r < 0) {
		ns_share_state_free(&st);
		return r;
	}
	*ret = st;
	return 0;
}

/*
 * Written beside it and renamed over it: a crash leaves the old state or
 * the new. Not synced: /run is a tmpfs, and a crash of the system takes
 * every namespace with it.
 */
int ns_share_state_write(int dir_fd, const char *base, const struct ns_share_state *st)
{
	char *name = state_name(base, ".state"), *tmp = state_name(base, ".state.new");
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int fd = -1, r = 0;

	if (!name || !tmp || !f) {
		r = -ENOMEM;
		goto out;
	}
	fprintf(f, "%s%d\nns %llu %llu\nroot %llu %llu\nuser %s\n", STATE_MAGIC,
		st->format ? st->format : NS_SHARE_FORMAT, (unsigned long long)st->dev,
		(unsigned long long)st->ino, (unsigned long long)st->root_dev,
		(unsigned long long)st->root_ino, st->user);
	for (size_t i = 0; i < st->n_polydirs; i++)
		fprintf(f, "polydir %s\n", st->polydirs[i]);
	for (size_t i = 0; i < st->n_tmpdirs; i++)
		fprintf(f, "tmpdir %s %s\n", st->tmpdirs[i].parent, st->tmpdirs[i].name);
	r = fclose(f) == 0 ? 0 : -ENOMEM;
	f = NULL;
	if (r < 0)
		goto out;
	fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST) {
		/* left by a process killed while writing: we hold the lock */
		(void)unlinkat(dir_fd, tmp, 0);
		fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
	}
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	if (write(fd, text, len) != (ssize_t)len)
		r = errno ? -errno : -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && renameat(dir_fd, tmp, dir_fd, name) < 0)
		r = -errno;
	if (r < 0)
		(void)unlinkat(dir_fd, tmp, 0);
out:
	if (f)
		fclose(f);
	free(text);
	free(name);
	free(tmp);
	return r;
}

/* ------------------------------------------------------------ sessions */

/*
 * A session is the empty file KEY@PID.pID (pidfs inode) or KEY@PID.sID
 * (start time): made and removed whole, so a process killed at any point
 * leaves a record that is either there or not, never half written.
 */
static int session_name(char *buf, size_t size, const char *key, const struct ns_share_proc *p)
{
	int n = snprintf(buf, size, "%s@%d.%c%llu", key, (int)p->pid, p->pidfs ? 'p' : 's', p->id);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int ns_share_session_add(int udir, const char *key, const struct ns_share_proc *p)
{
	char name[128];
	int fd, r = session_name(name, sizeof(name), key, p);

	if (r < 0)
		return r;
	fd = openat(udir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int ns_share_session_remove(int udir, const char *key, const struct ns_share_proc *p)
{
	char name[128];
	int r = session_name(name, sizeof(name), key, p);

	if (r < 0)
		return r;
	return unlinkat(udir, name, 0) < 0 ? -errno : 0;
}

/* "KEY@PID.kID" into *p and the length of KEY into *ret_klen, if name is a session record. */
static bool session_parse(const char *name, size_t *ret_klen, struct ns_share_proc *p)
{
	const char *at = strrchr(name, '@');
	char kind, end;
	int pid;

	if (!at || at == name)
		return false;
	if (sscanf(at + 1, "%d.%c%llu%c", &pid, &kind, &p->id, &end) != 3 || pid <= 0 ||
	    (kind != 'p' && kind != 's'))
		return false;
	p->pid = pid;
	p->pidfs = kind == 'p';
	*ret_klen = (size_t)(at - name);
	return true;
}

struct scan {
	int udir;
	const char *key;
	size_t klen;
	enum ns_share_scan mode;
	struct ns_share_state *st;
	size_t stale;
	int error; /* the first record REMOVE_ALL could not remove */
};

/*
 * Every record is looked at to its end: a scan that stopped at the first
 * live one (tmpfs lists the newest first) never reached the records of
 * sessions killed before it, and a user who kills her own su after its
 * record is written while one session stays open filled /run with them.
 * PRUNE removes the gone records of every key of the user, so that those
 * of a key no session opens again go too.
 */
static int scan_one(const char *name, void *ud)
{
	struct scan *sc = ud;
	struct ns_share_state *st = sc->st;
	struct ns_share_proc p;
	size_t klen;
	bool mine;

	if (!session_parse(name, &klen, &p))
		return 0;
	mine = klen == sc->klen && memcmp(name, sc->key, klen) == 0;
	if (!mine && sc->mode != NS_SHARE_SCAN_PRUNE)
		return 0;
	if (sc->mode == NS_SHARE_SCAN_REMOVE_ALL) {
		if (unlinkat(sc->udir, name, 0) < 0 && errno != ENOENT && sc->error == 0)
			sc->error = -errno;
		return 0;
	}
	if (!ns_share_proc_alive(&p)) {
		sc->stale++;
		if (sc->mode == NS_SHARE_SCAN_PRUNE)
			(void)unlinkat(sc->udir, name, 0);
		return 0;
	}
	st->user_sessions++;
	if (!mine)
		return 0;
	if (grow(&st->sessions, st->n_sessions, sizeof(*st->sessions)) < 0)
		return -ENOMEM;
	st->sessions[st->n_sessions++] = p;
	return 0;
}

int ns_share_sessions(int udir, const char *key, enum ns_share_scan mode, struct ns_share_state *st,
		      size_t *ret_stale)
{
	struct scan sc = {.udir = udir, .key = key, .klen = strlen(key), .mode = mode, .st = st};
	int fd = openat(udir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	st->n_sessions = 0;
	st->user_sessions = 0;
	r = kn_dir_each(fd, scan_one, &sc);
	close(fd);
	if (ret_stale)
		*ret_stale = sc.stale;
	return r < 0 ? r : sc.error;
}

/* ------------------------------------------------------------ pins */

int ns_share_pin_open(int dir_fd, const char *base, const struct ns_share_state *st)
{
	char *name = state_name(base, ".ns");
	struct stat s;
	int fd;

	if (!name)
		return -ENOMEM;
	fd = kn_pin_open(dir_fd, name, &s);
	free(name);
	if (fd < 0)
		return fd;
	if (s.st_dev != st->dev || s.st_ino != st->ino || s.st_uid != 0) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

int ns_share_drop(int dir_fd, const char *base, const struct ns_share_state *st, bool records)
{
	char *pin = state_name(base, ".ns"), *state = state_name(base, ".state");
	int r = 0, k;

	if (!pin || !state) {
		free(pin);
		free(state);
		return -ENOMEM;
	}
	k = kn_unpin_ns(dir_fd, pin);
	if (k < 0 && k != -ENOENT)
		r = k;
	for (size_t i = 0; i < st->n_tmpdirs; i++) {
		/*
		 * The walk follows no link below a directory others can write
		 * (/tmp), and the parent must be root's, as the module made it
		 * sure at open; the tree is removed without following links.
		 */
		int pfd = kn_open_dir(st->tmpdirs[i].parent, NULL);
		struct stat ps;

		if (pfd >= 0) {
			k = fstat(pfd, &ps) < 0 ? -errno
			    : ps.st_uid != 0	? -EPERM
						: kn_remove_tree(pfd, st->tmpdirs[i].name);
			close(pfd);
		} else {
			k = pfd;
		}
		if (k < 0 && k != -ENOENT && r == 0)
			r = k;
	}
	if (unlinkat(dir_fd, state, 0) < 0 && errno != ENOENT && r == 0)
		r = -errno;
	if (records) {
		struct ns_share_state none = {0};

		k = ns_share_sessions(dir_fd, base, NS_SHARE_SCAN_REMOVE_ALL, &none, NULL);
		free(none.sessions);
		if (k < 0 && r == 0)
			r = k;
	}
	free(pin);
	free(state);
	return r;
}

/* ------------------------------------------------------------ open and close */

void ns_share_free(struct ns_share *share)
{
	if (!share)
		return;
	if (share->dir_fd >= 0)
		close(share->dir_fd);
	free(share->key);
	free(share->where);
	free(share);
}

static int fail_with(struct ns_failure *fail, const char *what, const char *path, int error)
{
	if (!fail->what) {
		fail->what = what;
		fail->path = path ? strdup(path) : NULL;
		fail->error = error;
	}
	return error;
}

/*
 * Only from the init process's mount namespace, unchrooted: a namespace
 * built anywhere else would carry that place's mounts (another user's
 * session, a service's private /tmp) into every later login of the user.
 * own_ns: the caller's namespace where it is open already, else -1.
 */
static const char *share_refused_here(int own_ns)
{
	char root[2];
	ssize_t n = readlink("/proc/self/root", root, sizeof(root));
	int init_ns, same;

	if (n != 1 || root[0] != '/')
		return "the process is chrooted";
	init_ns = kn_ns_open_pid(1);
	if (init_ns < 0)
		return "the init process's mount namespace cannot be opened";
	same = kn_ns_same(init_ns, own_ns);
	close(init_ns);
	if (same != 1)
		return "the process is not in the init process's mount namespace";
	return NULL;
}

/*
 * After setns() the working directory is the namespace's root. Going back
 * by name, as root, inside the user's namespace would follow what she put
 * there (her /tmp/work, a link to /etc/security, named where root's was a
 * directory). So the directory is held by descriptor before the join, and
 * afterwards taken only where its name in the namespace, walked without
 * following a link others could plant, leads to that very directory (same
 * device and inode); anywhere else the session starts in "/".
 */
static int cwd_hold(struct stat *ret_st)
{
	int fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0 && fstat(fd, ret_st) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void cwd_restore(int held, const struct stat *was, const char *cwd)
{
	struct stat now;
	int fd = held >= 0 && cwd && cwd[0] == '/' ? kn_open_dir(cwd, NULL) : -1;

	if (fd >= 0 && fstat(fd, &now) == 0 && now.st_dev == was->st_dev &&
	    now.st_ino == was->st_ino && fchdir(fd) == 0) {
		close(fd);
		return;
	}
	if (fd >= 0)
		close(fd);
	(void)chdir("/");
}

char *ns_share_tmpdir_parent(const char *path, const char *name)
{
	size_t len = strlen(path), nlen = strlen(name);
	char *parent;

	/* "PARENT/NAME" with PARENT not empty; a name longer than the path is no part of it */
	if (nlen == 0 || len < nlen + 2 || path[len - nlen - 1] != '/' ||
	    strcmp(path + len - nlen, name) != 0) {
		errno = EINVAL;
		return NULL;
	}
	parent = strndup(path, len - nlen - 1);
	if (!parent)
		errno = ENOMEM;
	return parent;
}

static int state_from_session(struct ns_share_state *st, const char *user,
			      const struct ns_session *sess, const struct stat *pin)
{
	struct stat root;

	if (stat("/", &root) < 0)
		return -errno;
	st->dev = pin->st_dev;
	st->ino = pin->st_ino;
	st->root_dev = root.st_dev;
	st->root_ino = root.st_ino;
	st->user = strdup(user);
	if (!st->user)
		return -ENOMEM;
	for (size_t i = 0; i < sess->n_polydirs; i++) {
		if (!word_ok(sess->polydirs[i]))
			return -EINVAL;
		if (grow(&st->polydirs, st->n_polydirs, sizeof(*st->polydirs)) < 0)
			return -ENOMEM;
		st->polydirs[st->n_polydirs] = strdup(sess->polydirs[i]);
		if (!st->polydirs[st->n_polydirs++])
			return -ENOMEM;
	}
	for (size_t i = 0; i < sess->n_tmpdirs; i++) {
		const struct ns_tmpdir *t = &sess->tmpdirs[i];
		struct ns_share_tmpdir d;

		d.parent = ns_share_tmpdir_parent(t->path, t->name);
		if (!d.parent)
			return errno == ENOMEM ? -ENOMEM : -EINVAL;
		d.name = strdup(t->name);
		if (grow(&st->tmpdirs, st->n_tmpdirs, sizeof(*st->tmpdirs)) < 0) {
			free(d.parent);
			free(d.name);
			return -ENOMEM;
		}
		st->tmpdirs[st->n_tmpdirs++] = d;
		if (!d.parent || !d.name)
			return -ENOMEM;
		if (d.parent[0] != '/' || !word_ok(d.parent) || !word_ok(d.name))
			return -EINVAL;
	}
	return 0;
}

/* Drop what pinning made (pin, state, records), saying so when that fails too. */
static void drop_logged(const struct ns_share *sh, ns_apply_log_fn log, void *ud)
{
	int k = ns_share_drop(sh->dir_fd, sh->key, &(struct ns_share_state){0}, true);

	if (k < 0)
		log(ud, false, "share_namespace: cannot drop the pin %s.ns again: %s", sh->where,
		    strerror(-k));
}

/*
 * The kernel binds a mount namespace's file only into a namespace with a
 * smaller id (mnt_ns_loop(): no namespace can then hold itself through
 * another), and since 6.18 hands ids out in per-CPU batches: a namespace
 * made on one CPU can have a smaller id than one made earlier on another.
 * Process 1's namespace, made at boot, is older by id than all but
 * where process 1 is a container's init (or a test's sandbox): then the
 * bind fails with ELOOP for the sessions built on some CPUs (2 of 8 quick
 * logins, seen). Ids on one CPU only grow, so a copy of the built namespace
 * made on the CPU that made process 1's (which one is not told: each CPU
 * is tried, those outside the caller's affinity too) is newer than it and
 * can be pinned. The thread's CPU affinity is the application's and is put
 * back at once.
 * Returns 0 with *built the pinned copy (the caller then returns into it),
 * or the last error; nothing is left pinned on failure.
 */
static int pin_copy_elsewhere(struct kn_ns_saved *built, const struct kn_ns_saved *orig, int dir_fd,
			      const char *pin, enum kn_propagation prop, struct stat *ret_st)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	cpu_set_t was, one;
	int r = -ELOOP, k;

	if (sched_getaffinity(0, sizeof(was), &was) < 0)
		return r;
	/* every CPU, not only those the caller runs on: su under taskset runs on one */
	for (int cpu = 0; cpu < ncpu && cpu < CPU_SETSIZE && r == -ELOOP; cpu++) {
		struct kn_ns_saved copy = KN_NS_SAVED_INIT;

		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		/* the thread runs on cpu when this returns */
		if (sched_setaffinity(0, sizeof(one), &one) < 0)
			continue;
		k = kn_ns_return(built);
		if (k == 0)
			k = kn_ns_enter_new(prop);
		if (k == 0)
			k = kn_ns_save(&copy);
		/* back where pins are made, wherever the steps above stopped */
		r = kn_ns_restore(orig);
		if (r < 0) {
			kn_ns_saved_close(&copy);
			break;
		}
		if (k < 0) {
			r = k;
			break;
		}
		r = kn_pin_ns(copy.ns_fd, dir_fd, pin, ret_st);
		if (r == 0) {
			kn_ns_saved_close(built);
			*built = copy;
		} else {
			kn_ns_saved_close(&copy);
		}
	}
	(void)sched_setaffinity(0, sizeof(was), &was);
	return r;
}

struct pin_ctx {
	const struct ns_share *sh;
	const char *user;
	const struct kn_ns_saved *orig;
	enum kn_propagation prop; /* as the built namespace's "/" was made */
	ns_apply_log_fn log;
	void *ud;
	bool pinned; /* else the session goes on unshared */
};

/*
 * ns_apply's commit hook: in the new namespace, built, pin it from the
 * original one. A pin that cannot be made leaves the session unshared (0,
 * not pinned). A failure to come back into the new namespace fails the
 * session (< 0): the pin, state and record made are dropped here, and
 * apply's rollback takes the caller back to its place and removes the
 * instances, whether this left it in the original namespace or the new.
 */
static int pin_built(void *arg, const struct ns_session *sess, struct ns_failure *fail)
{
	struct pin_ctx *pc = arg;
	const struct ns_share *sh = pc->sh;
	struct kn_ns_saved built = KN_NS_SAVED_INIT;
	struct ns_share_state st = {0};
	char *pin = state_name(sh->key, ".ns");
	struct stat pst;
	int r, k;

	pc->pinned = false;
	if (!pin)
		return fail_with(fail, "pinning the namespace in", sh->where, -ENOMEM);
	r = kn_ns_save(&built);
	if (r < 0) {
		pc->log(pc->ud, false,
			"share_namespace: cannot open the new namespace (%s): not shared",
			strerror(-r));
		free(pin);
		return 0;
	}
	/* In the built namespace, surely: no need to ask where (kn_ns_restore would). */
	r = kn_ns_return(pc->orig);
	if (r < 0) {
		/* Its setns, or what followed, failed: back into the new one, unshared. */
		k = kn_ns_return(&built);
		if (k < 0) {
			r = fail_with(fail, "returning to the new namespace", NULL, k);
			goto out;
		}
		pc->log(pc->ud, false,
			"share_namespace: cannot return to the original namespace (%s): not shared",
			strerror(-r));
		r = 0;
		goto out;
	}
	r = kn_pin_ns(built.ns_fd, sh->dir_fd, pin, &pst);
	if (r == -EEXIST) {
		/* No state, under the lock: left by a session killed while it pinned. */
		(void)kn_unpin_ns(sh->dir_fd, pin);
		r = kn_pin_ns(built.ns_fd, sh->dir_fd, pin, &pst);
	}
	if (r == -ELOOP)
		r = pin_copy_elsewhere(&built, pc->orig, sh->dir_fd, pin, pc->prop, &pst);
	if (r < 0) {
		pc->log(pc->ud, false,
			"share_namespace: cannot pin the namespace on %s.ns (%s): not shared",
			sh->where, strerror(-r));
	} else {
		r = state_from_session(&st, pc->user, sess, &pst);
		if (r == 0)
			r = ns_share_state_write(sh->dir_fd, sh->key, &st);
		if (r == 0)
			r = ns_share_session_add(sh->dir_fd, sh->key, &sh->self);
		if (r < 0) {
			pc->log(pc->ud, false,
				"share_namespace: cannot write %s.state (%s): not shared",
				sh->where, strerror(-r));
			drop_logged(sh, pc->log, pc->ud);
		} else {
			pc->pinned = true;
		}
	}
	r = kn_ns_return(&built);
	if (r < 0) {
		if (pc->pinned)
			drop_logged(sh, pc->log, pc->ud);
		pc->pinned = false;
		r = fail_with(fail, "entering the new namespace again", NULL, r);
	}
out:
	ns_share_state_free(&st);
	kn_ns_saved_close(&built);
	free(pin);
	return r;
}

/*
 * The pin directory and the user's in it, with the user's lock taken; 1 if
 * any is untrusted or the lock is not had within NS_SHARE_LOCK_MS (its
 * holder stopped by its user, say): the session then builds a namespace of
 * its own rather than wait.
 */
static int share_enter(struct ns_share *sh, int *ret_lock, ns_apply_log_fn log, void *ud)
{
	bool fixed_top = false, fixed_user = false;
	const char *what;
	int top, r;

	r = top = dir_open(&what, &fixed_top);
	if (r >= 0) {
		what = "opening the user's directory in";
		r = sh->dir_fd = ns_share_user_dir_repair(top, sh->uid, true, &fixed_user);
		close(top);
	}
	if (fixed_top)
		log(ud, false, "share_namespace: %s was not root:root 0700: made so", NS_SHARE_DIR);
	if (fixed_user)
		log(ud, false, "share_namespace: %s/%u was not root:root 0700: made so",
		    NS_SHARE_DIR, (unsigned)sh->uid);
	if (r < 0) {
		log(ud, false,
		    "share_namespace: %s %s: %s%s: this session gets a namespace of its own", what,
		    NS_SHARE_DIR,
		    r == -ETIMEDOUT ? "its lock is held by a stopped or stuck session"
				    : strerror(-r),
		    r == -EPERM ? " (must be root's, mode 0700, on trusted parents)" : "");
		return 1;
	}
	r = *ret_lock = ns_share_lock(sh->dir_fd, NS_SHARE_LOCK_MS);
	if (r < 0) {
		if (r == -ETIMEDOUT)
			log(ud, false,
			    "share_namespace: %s/%u/lock held for over %u ms by a stopped or stuck "
			    "session: this session gets a namespace of its own",
			    NS_SHARE_DIR, (unsigned)sh->uid, (unsigned)NS_SHARE_LOCK_MS);
		else
			log(ud, false,
			    "share_namespace: cannot lock %s/%u/lock: %s: this session gets a "
			    "namespace of its own",
			    NS_SHARE_DIR, (unsigned)sh->uid, strerror(-r));
		return 1;
	}
	return 0;
}

/*
 * Join: the caller's root must be the one the namespace was pinned with
 * (setns() moves the root to the namespace's, which would take a chrooted
 * caller out of its chroot) and the pin what was recorded. 1 if this
 * session cannot join and builds its own; 0 joined.
 */
static int share_join(struct ns_share *sh, const struct ns_share_state *st, struct ns_failure *fail,
		      ns_apply_log_fn log, void *ud)
{
	struct stat root, cwd_st;
	const char *why;
	char *cwd;
	int pin, held, r;

	if (stat("/", &root) < 0 || root.st_dev != st->root_dev || root.st_ino != st->root_ino) {
		log(ud, false,
		    "share_namespace: the process's root is not the one %s.ns was pinned with "
		    "(chrooted?): this session gets a namespace of its own",
		    sh->where);
		return 1;
	}
	pin = ns_share_pin_open(sh->dir_fd, sh->key, st);
	/* From another namespace (su within a session) the pins are out of sight. */
	why = pin < 0 ? share_refused_here(-1) : NULL;
	if (why) {
		log(ud, false, "share_namespace: %s: this session gets a namespace of its own",
		    why);
		return 1;
	}
	if (pin < 0) {
		log(ud, false,
		    "share_namespace: refusing %s.ns: %s: this session gets a namespace of its own",
		    sh->where,
		    pin == -ESTALE	  ? "not the namespace that was pinned"
		    : pin == -EMEDIUMTYPE ? "not a mount namespace"
					  : strerror(-pin));
		return 1;
	}
	r = ns_share_session_add(sh->dir_fd, sh->key, &sh->self);
	if (r < 0) {
		close(pin);
		return fail_with(fail, "recording the session in", NS_SHARE_DIR, r);
	}
	cwd = getcwd(NULL, 0);
	held = cwd_hold(&cwd_st);
	r = kn_ns_join(pin);
	close(pin);
	if (r < 0) {
		if (held >= 0)
			close(held);
		int k = ns_share_session_remove(sh->dir_fd, sh->key, &sh->self);

		if (k < 0)
			log(ud, false, "share_namespace: cannot remove the record of %s: %s",
			    sh->where, strerror(-k));
		free(cwd);
		return fail_with(fail, "joining the shared namespace", NULL, r);
	}
	cwd_restore(held, &cwd_st, cwd);
	if (held >= 0)
		close(held);
	free(cwd);
	log(ud, true, "share_namespace: joined %s.ns", sh->where);
	return 0;
}

/*
 * Under the user's lock: prune the user's gone session records (every key),
 * hold to the cap on live ones, read KEY.state. Returns 0 with st read (its
 * live sessions in it) or empty (st->ino 0: no state), 1 if the session is
 * to go unshared (logged), < 0 if the sessions of an existing pin cannot be
 * listed: not knowing who is there is no proof that nobody is.
 */
static int share_scan(const struct ns_share *sh, struct ns_share_state *st, ns_apply_log_fn log,
		      void *ud)
{
	struct ns_share_state recs = {0};
	size_t stale = 0;
	int listed, r;

	listed = ns_share_sessions(sh->dir_fd, sh->key, NS_SHARE_SCAN_PRUNE, &recs, &stale);
	if (stale)
		log(ud, false, "share_namespace: %s: dropped %zu session%s gone", sh->where, stale,
		    stale == 1 ? "" : "s");
	if (listed == 0 && recs.user_sessions >= NS_SHARE_MAX_SESSIONS) {
		log(ud, false,
		    "share_namespace: %s/%u: the user has %zu sessions recorded, the most there "
		    "may be: this session gets a namespace of its own",
		    NS_SHARE_DIR, (unsigned)sh->uid, recs.user_sessions);
		free(recs.sessions);
		return 1;
	}
	r = ns_share_state_read(sh->dir_fd, sh->key, st);
	if (r == -ENOENT) {
		r = 0;
	} else if (r == 0 && listed < 0) {
		r = listed;
	} else if (r == 0) {
		st->sessions = recs.sessions;
		st->n_sessions = recs.n_sessions;
		recs.sessions = NULL;
	} else {
		log(ud, false,
		    "share_namespace: refusing %s.state: %s: this session gets a namespace of its "
		    "own",
		    sh->where,
		    r == -EPERM	   ? "not root's or not private"
		    : r == -EPROTO ? "of a format this build cannot join (left to its sessions)"
				   : strerror(-r));
		r = 1;
	}
	free(recs.sessions);
	return r;
}

int ns_share_open(const struct ns_plan *plan, const struct ns_apply_opts *opts, uid_t uid,
		  const char *key, struct ns_session *sess, struct ns_share **ret_share,
		  struct ns_failure *fail, ns_apply_log_fn log, void *ud)
{
	struct kn_ns_saved orig = KN_NS_SAVED_INIT;
	struct ns_share_state st = {0};
	struct ns_share *share;
	const char *why;
	int lock = -1, r;

	*ret_share = NULL;
	*fail = (struct ns_failure){0};
	share = calloc(1, sizeof(*share));
	if (!share)
		return fail_with(fail, "sharing the namespace", NULL, -ENOMEM);
	share->dir_fd = -1;
	share->uid = uid;
	share->key = strdup(key);
	if (!share->key ||
	    asprintf(&share->where, "%s/%u/%s", NS_SHARE_DIR, (unsigned)uid, key) < 0) {
		share->where = NULL;
		r = fail_with(fail, "sharing the namespace", NULL, -ENOMEM);
		goto out;
	}
	r = proc_self(&share->self);
	if (r < 0) {
		log(ud, false,
		    "share_namespace: cannot tell this process's identity (%s): this session gets "
		    "a namespace of its own",
		    strerror(-r));
		goto unshared;
	}
	if (share_enter(share, &lock, log, ud))
		goto unshared;

	r = share_scan(share, &st, log, ud);
	if (r == 1)
		goto unshared;
	if (r < 0) {
		r = fail_with(fail, "listing the sessions in", share->where, r);
		goto out;
	}
	if (st.ino != 0) {
		if (st.n_sessions > 0) {
			r = share_join(share, &st, fail, log, ud);
			if (r < 0)
				goto out;
			if (r == 1)
				goto unshared;
			*sess = (struct ns_session){0};
			*ret_share = share;
			share = NULL;
			goto out;
		}
		/*
		 * Every session died without closing: start afresh, from
		 * process 1's namespace only, where the tmpdir instances are
		 * found by the paths the state has. From elsewhere (su within
		 * a session) they would be looked for in the wrong place and
		 * left behind: the stale pin waits for an open from there.
		 */
		why = share_refused_here(-1);
		if (why) {
			log(ud, false,
			    "share_namespace: %s: the stale pin %s.ns is left to a session opened "
			    "from there; this one gets a namespace of its own",
			    why, share->where);
			goto unshared;
		}
		r = ns_share_drop(share->dir_fd, key, &st, false);
		if (r < 0)
			log(ud, false, "share_namespace: dropping the stale pin %s.ns: %s",
			    share->where, strerror(-r));
	}

	/* Build and pin: only from process 1's namespace, unchrooted. */
	r = kn_ns_save(&orig);
	if (r < 0) {
		log(ud, false,
		    "share_namespace: cannot open this process's mount namespace (%s): this "
		    "session gets a namespace of its own",
		    strerror(-r));
		goto unshared;
	}
	why = share_refused_here(orig.ns_fd);
	if (why) {
		log(ud, false, "share_namespace: %s: this session gets a namespace of its own",
		    why);
		goto unshared;
	}
	{
		/*
		 * apply comes back to the place saved here, not to one of its
		 * own, and pins before it commits: a failed pin rolls it back.
		 */
		struct ns_apply_opts o = *opts;
		struct pin_ctx pc = {.sh = share,
				     .user = opts->user,
				     .orig = &orig,
				     .prop = opts->mount_private ? KN_PROPAGATION_PRIVATE
								 : KN_PROPAGATION_SLAVE,
				     .log = log,
				     .ud = ud};

		o.saved = &orig;
		o.commit = pin_built;
		o.commit_userdata = &pc;
		r = ns_apply(plan, &o, sess, fail, log, ud);
		if (r < 0)
			goto out;
		if (pc.pinned) {
			share->built = true;
			ns_session_forget_tmpdirs(sess); /* the pin owns them now */
			log(ud, true, "share_namespace: pinned %s.ns", share->where);
			*ret_share = share;
			share = NULL;
		}
	}
	r = 0;
	goto out;

unshared:
	/* As without the argument. */
	ns_share_free(share);
	share = NULL;
	r = ns_apply(plan, opts, sess, fail, log, ud);
out:
	if (lock >= 0)
		close(lock);
	ns_share_state_free(&st);
	kn_ns_saved_close(&orig);
	ns_share_free(share);
	return r;
}

int ns_share_close(struct ns_share *share, bool unmount, struct ns_failure *fail,
		   ns_apply_log_fn log, void *ud)
{
	struct kn_ns_saved here = KN_NS_SAVED_INIT;
	struct ns_share_state st = {0};
	int lock, init_ns = -1, r;

	*fail = (struct ns_failure){0};
	if (geteuid() != 0) {
		/*
		 * systemd closes user@.service's session in "(sd-pam)", which has
		 * dropped to the user: nothing here is the user's to change. The
		 * record goes stale when the manager exits; the unit's
		 * ExecStopPost (conf/user@.service.d) or the next open drops it.
		 */
		log(ud, true, "share_namespace: closing as uid %u, %s is left to the next open",
		    (unsigned)geteuid(), share->where);
		return 0;
	}
	lock = ns_share_lock(share->dir_fd, NS_SHARE_LOCK_MS);
	if (lock == -ETIMEDOUT) {
		/*
		 * A stopped session holds the lock. Removing this session's own
		 * record needs none (an open sees it or not, whole); what it
		 * leaves, were it the last, the next open finds without a live
		 * session and drops.
		 */
		(void)ns_share_session_remove(share->dir_fd, share->key, &share->self);
		log(ud, false,
		    "share_namespace: %s/%u/lock held for over %u ms by a stopped or stuck "
		    "session: %s.ns is left to the next open",
		    NS_SHARE_DIR, (unsigned)share->uid, (unsigned)NS_SHARE_LOCK_MS, share->where);
		return 0;
	}
	if (lock < 0)
		return fail_with(fail, "locking", NS_SHARE_DIR, lock);
	(void)ns_share_session_remove(share->dir_fd, share->key, &share->self);
	/* Another session alive: nothing more to read or do. */
	r = ns_share_sessions(share->dir_fd, share->key, NS_SHARE_SCAN_PRUNE, &st, NULL);
	if (r < 0 || st.n_sessions > 0) {
		if (r < 0)
			r = fail_with(fail, "listing the sessions in", NS_SHARE_DIR, r);
		goto out;
	}
	ns_share_state_free(&st);
	r = ns_share_state_read(share->dir_fd, share->key, &st);
	if (r == -ENOENT) {
		r = 0; /* dropped by the administrator */
		goto out;
	}
	if (r < 0) {
		r = fail_with(fail, "reading the state in", NS_SHARE_DIR, r);
		goto out;
	}

	/* The last session: its polydirs where asked, then the pin, from where it lives. */
	if (unmount) {
		struct stat own;
		int fd = kn_ns_open_own();

		if (fd >= 0 && fstat(fd, &own) == 0 && own.st_dev == st.dev && own.st_ino == st.ino)
			for (size_t i = st.n_polydirs; i-- > 0;) {
				int k = kn_umount_path(st.polydirs[i]);

				if (k < 0 && k != -EINVAL && r == 0)
					r = fail_with(fail, "unmounting", st.polydirs[i], k);
			}
		if (fd >= 0)
			close(fd);
	}
	/*
	 * The pin is a mount in process 1's namespace (only a session there
	 * builds and pins), which removing its file detaches from anywhere.
	 * The tmpdir instances are found by path, as that namespace sees them.
	 */
	if (st.n_tmpdirs == 0) {
		r = ns_share_drop(share->dir_fd, share->key, &st, false);
		if (r < 0)
			r = fail_with(fail, "dropping the pin", NS_SHARE_DIR, r);
		log(ud, true, "share_namespace: last session closed, %s.ns unpinned", share->where);
		goto out;
	}
	init_ns = kn_ns_open_pid(1);
	if (init_ns >= 0 && kn_ns_save(&here) == 0 && kn_ns_join(init_ns) == 0) {
		int k = ns_share_drop(share->dir_fd, share->key, &st, false);

		if (k < 0 && r == 0)
			r = fail_with(fail, "dropping the pin", NS_SHARE_DIR, k);
		if (kn_ns_restore(&here) < 0 && r == 0)
			r = fail_with(fail, "returning to the session's namespace", NULL, -errno);
		log(ud, true, "share_namespace: last session closed, %s.ns unpinned", share->where);
	} else if (r == 0) {
		r = fail_with(fail, "entering the namespace that holds", NS_SHARE_DIR, -errno);
	}
out:
	if (init_ns >= 0)
		close(init_ns);
	kn_ns_saved_close(&here);
	ns_share_state_free(&st);
	close(lock);
	return r;
}

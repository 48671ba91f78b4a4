/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * share_namespace's session records and locking (store.h): who a session's
 * process is, the pin directory and each user's in it (made and kept
 * root:root 0700), the user's lock with its bounded wait, and the session
 * records, one empty file per open session, pruned of the gone ones.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel.h"
#include "internal.h"
#include "store.h"

/* ------------------------------------------------------------ processes */

static int proc_id(pid_t pid, bool pidfs, unsigned long long *ret)
{
	/* A record says pidfs only where this boot's kernel has it: no need to ask again. */
	return pidfs ? kn_pid_inode(pid, true, ret) : kn_pid_starttime(pid, ret);
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

int share_proc_self(struct ns_share_proc *ret)
{
	ret->pid = getpid();
	ret->pidfs = true;
	if (kn_pid_inode(ret->pid, false, &ret->id) == 0)
		return 0;
	ret->pidfs = false;
	return kn_pid_starttime(ret->pid, &ret->id);
}

/* ------------------------------------------------------------ the directory and its locks */

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
 * itself (kn_dir_make_private_mount), reopened so that the descriptor is
 * on that mount, and made private; found a mount, made private again.
 */
int share_dir_open(const char **ret_what, bool *ret_repaired)
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
			 * A pin cannot be bound where it would propagate. A
			 * kill before this call is repaired by the next open
			 * (below).
			 */
			*ret_what = "making private";
			r = kn_mount_make_private(fd);
		}
		if (lfd >= 0)
			close(lfd); /* unlocks */
	} else if (r == 1) {
		/*
		 * No kernel makes the bind private in one step where /run is
		 * shared (as systemd makes it): a mount attached below a
		 * shared one joins a peer group of its own, whatever
		 * propagation it had detached (open_tree, mount_setattr,
		 * move_mount give the same). A session killed between the two
		 * calls above left a shared mount, where no pin can be made:
		 * every session, every user's, went unshared until reboot,
		 * each after a namespace copy per CPU. So every open makes it
		 * private again: one call, which changes nothing where it is
		 * private. Its failure is no reason to go unshared: a mount
		 * that is still shared makes pinning fail, which says so.
		 */
		(void)kn_mount_make_private(fd);
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

/* ------------------------------------------------------------ sessions */

int ns_share_session_add(int udir, const char *key, const struct ns_share_proc *p)
{
	char name[128];
	int fd, r = share_record_name(name, sizeof(name), key, p);

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
	int r = share_record_name(name, sizeof(name), key, p);

	if (r < 0)
		return r;
	return unlinkat(udir, name, 0) < 0 ? -errno : 0;
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

	if (!share_record_parse(name, &klen, &p))
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
	if (ns_grow(&st->sessions, st->n_sessions, sizeof(*st->sessions)) < 0)
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

/*
 * A session is the empty file KEY@PID.pID (pidfs inode) or KEY@PID.sID
 * (start time): made and removed whole (share-records.c), so a process
 * killed at any point leaves a record that is either there or not, never
 * half written.
 */
int share_record_name(char *buf, size_t size, const char *key, const struct ns_share_proc *p)
{
	int n = snprintf(buf, size, "%s@%d.%c%llu", key, (int)p->pid, p->pidfs ? 'p' : 's', p->id);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* A decimal number as share_record_name() writes one: no sign, blank or leading zero. */
static const char *record_number(const char *s, unsigned long long max, unsigned long long *ret)
{
	unsigned long long v = 0;
	const char *p = s;

	if (!isdigit((unsigned char)*p) || (p[0] == '0' && isdigit((unsigned char)p[1])))
		return NULL;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (max - d) / 10)
			return NULL;
		v = v * 10 + d;
	}
	*ret = v;
	return p;
}

/*
 * Only the names share_record_name() writes, so that a record read is the
 * record removed (tests/fuzz/fuzz_record.c holds it to that).
 */
bool share_record_parse(const char *name, size_t *ret_klen, struct ns_share_proc *p)
{
	const char *at = strrchr(name, '@'), *s;
	unsigned long long pid, id;
	char kind;

	if (!at || at == name)
		return false;
	s = record_number(at + 1, INT_MAX, &pid);
	if (!s || pid == 0 || s[0] != '.' || (s[1] != 'p' && s[1] != 's'))
		return false;
	kind = s[1];
	s = record_number(s + 2, ULLONG_MAX, &id);
	if (!s || *s)
		return false;
	p->pid = (pid_t)pid;
	p->pidfs = kind == 'p';
	p->id = id;
	*ret_klen = (size_t)(at - name);
	return true;
}

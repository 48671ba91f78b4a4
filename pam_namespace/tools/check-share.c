/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * pam_namespace_check --shared, --enter and --drop: what an administrator
 * needs for share_namespace (share.h). Pins are checked exactly as the
 * module checks them before it joins one. What is printed comes partly
 * from users (a mount's source and mount point) and is escaped; the
 * user's lock is waited for a bounded time, as its holder may be stopped.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <getopt.h>
#include <libmount.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check-share.h"
#include "escape.h"
#include "kernel.h"
#include "lookup.h"
#include "store.h"

/* One pinned namespace, as found in the directory. */
struct pin {
	int udir; /* NS_SHARE_DIR/UID */
	unsigned uid;
	char *key;
	struct ns_share_state st;
	int state_error; /* reading the state: 0 or a negative errno */
	int pin_error;	 /* checking the pin: 0 or a negative errno */
	size_t live, stale;
};

static const char *pin_problem(int r)
{
	switch (r) {
	case 0:
		return "ok";
	case -ESTALE:
		return "not the namespace that was pinned";
	case -EMEDIUMTYPE:
		return "not a mount namespace";
	case -EPERM:
		return "state not root's or not private";
	case -EBADMSG:
		return "state malformed";
	case -EPROTO:
		return "state of a format this build does not know (another release's)";
	default:
		return strerror(-r);
	}
}

static void pins_free(struct pin *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i].udir >= 0)
			close(p[i].udir);
		free(p[i].key);
		ns_share_state_free(&p[i].st);
	}
	free(p);
}

/* The entries of directory dir_fd for which keep() says yes, as names. */
static int list_names(int dir_fd, bool (*keep)(const char *), char ***ret, size_t *ret_n)
{
	char **names = NULL;
	size_t n = 0;
	struct dirent *de;
	int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		char **q;

		if (!keep(de->d_name))
			continue;
		q = realloc(names, (n + 1) * sizeof(*names));
		if (!q || !(q[n] = strdup(de->d_name))) {
			free(q ? q : names);
			closedir(d);
			return -ENOMEM;
		}
		names = q;
		n++;
	}
	closedir(d);
	*ret = names;
	*ret_n = n;
	return 0;
}

static bool is_uid(const char *name)
{
	return name[0] >= '0' && name[0] <= '9' && strspn(name, "0123456789") == strlen(name);
}

static bool is_state(const char *name)
{
	size_t len = strlen(name);

	return len > 6 && strcmp(name + len - 6, ".state") == 0 && !strchr(name, '@');
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Every UID/KEY.state below the directory (only uid's if uid >= 0). */
static int pins_list(int dir_fd, long uid, struct pin **ret, size_t *ret_n)
{
	struct pin *pins = NULL;
	char **uids = NULL;
	size_t n = 0, n_uids = 0;
	int r;

	r = list_names(dir_fd, is_uid, &uids, &n_uids);
	if (r < 0)
		return r;
	for (size_t u = 0; u < n_uids && r == 0; u++) {
		unsigned long id = strtoul(uids[u], NULL, 10);
		char **keys = NULL;
		size_t n_keys = 0;
		int udir;

		if (uid >= 0 && id != (unsigned long)uid)
			continue;
		udir = ns_share_user_dir(dir_fd, (uid_t)id, false);
		if (udir < 0)
			continue;
		r = list_names(udir, is_state, &keys, &n_keys);
		for (size_t k = 0; k < n_keys && r == 0; k++) {
			struct pin *q = realloc(pins, (n + 1) * sizeof(*pins));
			struct pin *p;

			if (!q) {
				r = -ENOMEM;
				break;
			}
			pins = q;
			p = &pins[n++];
			*p = (struct pin){.uid = (unsigned)id,
					  .udir = fcntl(udir, F_DUPFD_CLOEXEC, 3),
					  .key = strndup(keys[k], strlen(keys[k]) - 6)};
			if (!p->key || p->udir < 0) {
				r = -ENOMEM;
				break;
			}
			p->state_error = ns_share_state_read(p->udir, p->key, &p->st);
			if (p->state_error == 0) {
				int pfd = ns_share_pin_open(p->udir, p->key, &p->st);

				p->pin_error = pfd < 0 ? pfd : 0;
				if (pfd >= 0)
					close(pfd);
			} else if (p->state_error == -EPROTO) {
				/* another release's: its user, and its sessions, named as ours are
				 */
				(void)ns_share_state_read_other(p->udir, p->key, &p->st);
			}
			if ((p->state_error == 0 || p->state_error == -EPROTO) &&
			    ns_share_sessions(p->udir, p->key, NS_SHARE_SCAN_COUNT, &p->st,
					      &p->stale) == 0)
				p->live = p->st.n_sessions;
		}
		free_names(keys, n_keys);
		close(udir);
	}
	free_names(uids, n_uids);
	if (r < 0) {
		pins_free(pins, n);
		return r;
	}
	*ret = pins;
	*ret_n = n;
	return 0;
}

/* --- the mounts of a pinned namespace --- */

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Whether table has a mount with fs's root, target, type and source: one the caller has too. */
static bool table_has(struct libmnt_table *table, struct libmnt_fs *fs)
{
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *o;
	bool found = false;

	while (it && !found && mnt_table_next_fs(table, it, &o) == 0)
		found = str_eq(mnt_fs_get_target(o), mnt_fs_get_target(fs)) &&
			str_eq(mnt_fs_get_root(o), mnt_fs_get_root(fs)) &&
			str_eq(mnt_fs_get_fstype(o), mnt_fs_get_fstype(fs)) &&
			str_eq(mnt_fs_get_source(o), mnt_fs_get_source(fs));
	mnt_free_iter(it);
	return found;
}

static bool below_polydir(const struct pin *p, const char *target)
{
	for (size_t i = 0; target && i < p->st.n_polydirs; i++) {
		size_t l = strlen(p->st.polydirs[i]);

		if (strncmp(target, p->st.polydirs[i], l) == 0 &&
		    (target[l] == '\0' || target[l] == '/'))
			return true;
	}
	return false;
}

/* A child joins the pinned namespace and copies its mountinfo, whole, to fd. */
static _Noreturn void mountinfo_child(const struct pin *p, int fd)
{
	int pfd = ns_share_pin_open(p->udir, p->key, &p->st), mi;
	char buf[65536];
	ssize_t n;

	if (pfd < 0 || kn_ns_join(pfd) < 0)
		_exit(1);
	mi = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (mi < 0)
		_exit(1);
	while ((n = read(mi, buf, sizeof(buf))) > 0)
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(fd, buf + off, (size_t)(n - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				_exit(1);
			off += w;
		}
	_exit(n < 0 ? 1 : 0);
}

/*
 * The mounts on or below the polydirs that the caller's namespace does not
 * have, read inside the pinned namespace by a child. libmount parses both
 * tables: lines of any length, octal escapes undone, so each field is the
 * string the kernel has, escaped again only for the output.
 */
static void print_mounts(const struct pin *p, bool json, FILE *out)
{
	struct libmnt_table *own = NULL, *theirs = NULL;
	struct libmnt_iter *it = NULL;
	struct libmnt_fs *fs;
	int pipefd[2], status;
	bool first = true;
	pid_t pid;
	FILE *f;

	if (p->state_error || p->pin_error || pipe2(pipefd, O_CLOEXEC) < 0)
		return;
	fflush(out);
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return;
	}
	if (pid == 0) {
		close(pipefd[0]);
		mountinfo_child(p, pipefd[1]);
	}
	close(pipefd[1]);
	f = fdopen(pipefd[0], "re");
	theirs = mnt_new_table();
	if (!f || !theirs || mnt_table_parse_stream(theirs, f, "mountinfo") < 0) {
		fprintf(stderr, "pam_namespace_check: reading the mounts of %s/%u/%s.ns failed\n",
			NS_SHARE_DIR, p->uid, p->key);
		goto out;
	}
	own = mnt_new_table_from_file("/proc/self/mountinfo");
	it = mnt_new_iter(MNT_ITER_FORWARD);
	while (it && mnt_table_next_fs(theirs, it, &fs) == 0) {
		const char *target = mnt_fs_get_target(fs);

		if (!below_polydir(p, target) || (own && table_has(own, fs)))
			continue;
		if (json) {
			fputs(first ? "{\"target\": " : ", {\"target\": ", out);
			ck_json_string(out, target);
			fputs(", \"fstype\": ", out);
			ck_json_string(out, mnt_fs_get_fstype(fs) ? mnt_fs_get_fstype(fs) : "");
			fputs(", \"source\": ", out);
			ck_json_string(out, mnt_fs_get_source(fs) ? mnt_fs_get_source(fs) : "");
			fputc('}', out);
		} else {
			fputs("    ", out);
			ck_text_escaped(out, target);
			fputc(' ', out);
			ck_text_escaped(out, mnt_fs_get_fstype(fs));
			fputc(' ', out);
			ck_text_escaped(out, mnt_fs_get_source(fs));
			fputc('\n', out);
		}
		first = false;
	}
out:
	mnt_free_iter(it);
	mnt_unref_table(theirs);
	mnt_unref_table(own);
	if (f)
		fclose(f);
	else
		close(pipefd[0]);
	(void)waitpid(pid, &status, 0);
}

static int cmd_list(bool json)
{
	int dir_fd = ns_share_dir_open_existing();
	struct pin *pins = NULL;
	size_t n = 0;
	int r;

	if (dir_fd == -ENOENT) {
		printf(json ? "{\"shared\": []}\n" : "no pinned namespace\n");
		return 0;
	}
	if (dir_fd < 0) {
		fprintf(stderr, "pam_namespace_check: %s: %s%s\n", NS_SHARE_DIR, strerror(-dir_fd),
			dir_fd == -EPERM ? " (must be root's, mode 0700): the module refuses it"
					 : "");
		return 1;
	}
	r = pins_list(dir_fd, -1, &pins, &n);
	if (r < 0) {
		fprintf(stderr, "pam_namespace_check: %s: %s\n", NS_SHARE_DIR, strerror(-r));
		close(dir_fd);
		return 1;
	}
	if (json)
		printf("{\"shared\": [");
	else if (n == 0)
		printf("no pinned namespace\n");
	for (size_t i = 0; i < n; i++) {
		const struct pin *p = &pins[i];
		const char *user = p->st.user ? p->st.user : "?";
		int problem = p->state_error ? p->state_error : p->pin_error;

		if (json) {
			printf("%s\n  {\"user\": ", i ? "," : "");
			ck_json_string(stdout, user);
			printf(", \"uid\": %u, \"key\": ", p->uid);
			ck_json_string(stdout, p->key);
			printf(", \"sessions\": %zu, \"stale\": %zu, \"pin\": ", p->live, p->stale);
			ck_json_string(stdout, pin_problem(problem));
			printf(", \"mounts\": [");
			print_mounts(p, true, stdout);
			printf("]}");
		} else {
			ck_text_escaped(stdout, user);
			printf(" (uid %u), key %.16s: %zu session%s open, %zu stale; pin %s\n",
			       p->uid, p->key, p->live, p->live == 1 ? "" : "s", p->stale,
			       pin_problem(problem));
			print_mounts(p, false, stdout);
		}
	}
	if (json)
		printf("%s]}\n", n ? "\n" : "");
	pins_free(pins, n);
	close(dir_fd);
	return 0;
}

int ck_parse_uid(const char *s, uid_t *ret)
{
	unsigned long long v;
	char *end;

	if (s[0] < '0' || s[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	/* (uid_t)-1 is no uid: chown(2) and setresuid(2) read it as "unchanged" */
	if (*end)
		return -EINVAL;
	if (errno || v >= (uid_t)-1)
		return -ERANGE;
	*ret = (uid_t)v;
	return 0;
}

/*
 * A uid in decimal (systemd's %i of user@UID.service), else a user name.
 * A number is a uid first, whatever user may be named so: otherwise
 * ExecStopPost's "--drop 1000" would drop the pins of a user called "1000"
 * rather than uid 1000's (useradd and systemd refuse such names, an
 * account database need not).
 */
static int user_uid(const char *user, uid_t *ret)
{
	char stack[1024], *heap;
	struct passwd pw;
	int r;

	if (user[0] >= '0' && user[0] <= '9') {
		r = ck_parse_uid(user, ret);
		if (r < 0)
			fprintf(stderr, "pam_namespace_check: %s: not a uid\n", user);
		return r;
	}
	r = ns_nss_lookup(user, false, &pw, stack, sizeof(stack), &heap);
	if (r == -ENOENT)
		fprintf(stderr, "pam_namespace_check: unknown user %s\n", user);
	else if (r < 0)
		fprintf(stderr, "pam_namespace_check: cannot look up user %s: %s\n", user,
			strerror(-r));
	else
		*ret = pw.pw_uid;
	free(heap);
	return r;
}

static int cmd_enter(const char *user, char **cmd)
{
	struct pin *pins = NULL, *best = NULL;
	int dir_fd, pfd, r;
	size_t n = 0;
	uid_t uid;

	if (user_uid(user, &uid) < 0)
		return 1;
	dir_fd = ns_share_dir_open_existing();
	if (dir_fd < 0 || pins_list(dir_fd, uid, &pins, &n) < 0) {
		fprintf(stderr, "pam_namespace_check: %s has no pinned namespace\n", user);
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		if (!pins[i].state_error && !pins[i].pin_error && pins[i].live &&
		    (!best || pins[i].live > best->live))
			best = &pins[i];
	if (!best) {
		fprintf(stderr,
			"pam_namespace_check: %s has no pinned namespace with a session open\n",
			user);
		pins_free(pins, n);
		return 1;
	}
	pfd = ns_share_pin_open(best->udir, best->key, &best->st);
	r = pfd < 0 ? pfd : kn_ns_join(pfd);
	pins_free(pins, n);
	close(dir_fd);
	if (r < 0) {
		fprintf(stderr, "pam_namespace_check: entering %s's namespace: %s\n", user,
			strerror(-r));
		return 1;
	}
	if (pfd >= 0)
		close(pfd);
	if (chdir("/") < 0)
		return 1;
	if (!cmd || !cmd[0]) {
		const char *shell = getenv("SHELL");

		if (!shell || shell[0] != '/')
			shell = "/bin/sh";
		execl(shell, shell, (char *)NULL);
		fprintf(stderr, "pam_namespace_check: %s: %s\n", shell, strerror(errno));
		return 127;
	}
	execvp(cmd[0], cmd);
	fprintf(stderr, "pam_namespace_check: %s: %s\n", cmd[0], strerror(errno));
	return 127;
}

/*
 * The records of sessions gone, of every key of the user, pins or none
 * (a record whose pin was dropped already): each is an inode in /run.
 */
static int prune_records(const char *user, int dir_fd, uid_t uid, unsigned timeout_ms)
{
	struct ns_share_state none = {0};
	int udir = ns_share_user_dir(dir_fd, uid, false), lock, r;
	size_t stale = 0;

	if (udir == -ENOENT)
		return 0;
	if (udir < 0) {
		fprintf(stderr, "pam_namespace_check: %s/%u: %s\n", NS_SHARE_DIR, (unsigned)uid,
			strerror(-udir));
		return 1;
	}
	lock = ns_share_lock(udir, timeout_ms);
	if (lock < 0) {
		fprintf(stderr, "pam_namespace_check: locking %s/%u/lock: %s\n", NS_SHARE_DIR,
			(unsigned)uid, strerror(-lock));
		close(udir);
		return 1;
	}
	/* The empty key is no record's: every record is one of another key, pruned if gone. */
	r = ns_share_sessions(udir, "", NS_SHARE_SCAN_PRUNE, &none, &stale);
	free(none.sessions);
	close(lock);
	close(udir);
	if (r < 0) {
		fprintf(stderr, "pam_namespace_check: listing %s/%u: %s\n", NS_SHARE_DIR,
			(unsigned)uid, strerror(-r));
		return 1;
	}
	if (stale)
		printf("%s: dropped %zu stale session record%s\n", user, stale,
		       stale == 1 ? "" : "s");
	return 0;
}

/* What a drop leaves (a tmpdir instance not removed in its time): one line naming it. */
static void drop_log(void *userdata, bool debug, const char *fmt, ...)
{
	va_list ap;

	(void)userdata;
	if (debug)
		return;
	fputs("pam_namespace_check: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Drop the pin p, the user's lock held: 0, or 1 if it was kept or could not be dropped. */
static int drop_one(const char *user, const struct pin *p, bool force)
{
	struct ns_share_state st = {0};
	size_t stale = 0;
	int r, ret = 0;

	r = ns_share_state_read(p->udir, p->key, &st);
	if (r == -ENOENT)
		return 0;
	/*
	 * Unreadable: the pin cannot be joined anyway; remove what is there.
	 * Another release's state (-EPROTO): read as far as this build knows
	 * its lines, for its tmpdir instances (share/store.c: every format
	 * keeps format 1's lines); its sessions are counted as ours are, since
	 * records are named alike in every format.
	 */
	if (r == -EPROTO)
		(void)ns_share_state_read_other(p->udir, p->key, &st);
	if (r < 0 && r != -EPROTO)
		st = (struct ns_share_state){0};
	else
		r = ns_share_sessions(p->udir, p->key,
				      force ? NS_SHARE_SCAN_COUNT : NS_SHARE_SCAN_PRUNE, &st,
				      &stale);
	if (r == 0 && st.n_sessions && !force) {
		/* Which processes: the close of each is the one to drop it. */
		printf("%s: kept %s/%u/%s.ns, a session is open (pid", user, NS_SHARE_DIR, p->uid,
		       p->key);
		for (size_t i = 0; i < st.n_sessions; i++)
			printf(" %d", (int)st.sessions[i].pid);
		printf("; dropped %zu stale); --force drops it\n", stale);
		ret = 1;
	} else {
		r = ns_share_drop_from(p->udir, p->key, &st, true, NULL, NULL, drop_log, NULL);
		if (r == -ETIMEDOUT) {
			ret = 1; /* drop_log named what is left */
		} else if (r < 0) {
			fprintf(stderr, "pam_namespace_check: dropping %s/%u/%s: %s\n",
				NS_SHARE_DIR, p->uid, p->key, strerror(-r));
			ret = 1;
		} else {
			printf("%s: dropped %s/%u/%s.ns\n", user, NS_SHARE_DIR, p->uid, p->key);
		}
	}
	ns_share_state_free(&st);
	return ret;
}

static int cmd_drop(const char *user, bool force, unsigned timeout_ms)
{
	struct pin *pins = NULL;
	int dir_fd, lock, ret = 0, r;
	size_t n = 0;
	uid_t uid;

	if (user_uid(user, &uid) < 0)
		return 1;
	dir_fd = ns_share_dir_open_existing();
	if (dir_fd == -ENOENT) {
		printf("%s has no pinned namespace\n", user);
		return 0;
	}
	if (dir_fd < 0) {
		fprintf(stderr, "pam_namespace_check: %s: %s\n", NS_SHARE_DIR, strerror(-dir_fd));
		return 1;
	}
	/* Listed once for the names; each is read again under the user's lock. */
	r = pins_list(dir_fd, uid, &pins, &n);
	if (r < 0) {
		fprintf(stderr, "pam_namespace_check: %s: %s\n", NS_SHARE_DIR, strerror(-r));
		close(dir_fd);
		return 1;
	}
	if (n == 0) {
		printf("%s has no pinned namespace\n", user);
		ret = prune_records(user, dir_fd, uid, timeout_ms);
		goto out;
	}
	/* One lock per user: every pin listed is in the same directory. */
	lock = ns_share_lock(pins[0].udir, timeout_ms);
	if (lock == -ETIMEDOUT) {
		fprintf(stderr,
			"pam_namespace_check: %s/%u/lock still held after %u ms (a session of %s "
			"opening or closing, or stopped while it does): kept %zu pin%s\n",
			NS_SHARE_DIR, (unsigned)uid, timeout_ms, user, n, n == 1 ? "" : "s");
		ret = 1;
		goto out;
	}
	if (lock < 0) {
		fprintf(stderr, "pam_namespace_check: locking %s/%u/lock: %s\n", NS_SHARE_DIR,
			(unsigned)uid, strerror(-lock));
		ret = 1;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		ret |= drop_one(user, &pins[i], force);
	close(lock);
	ret |= prune_records(user, dir_fd, uid, timeout_ms);
out:
	pins_free(pins, n);
	close(dir_fd);
	return ret;
}

void ck_share_plan(const struct ns_plan *plan, const struct ns_user *user, bool mount_private,
		   bool ignore_parent_mode)
{
	struct ns_apply_opts o = {.mount_private = mount_private,
				  .ignore_instance_parent_mode = ignore_parent_mode};
	struct pin *pins = NULL, *mine = NULL;
	char key[33];
	size_t n = 0, others = 0;
	int dir_fd;

	if (plan->n_entries == 0 || ns_share_key(plan, user, &o, -1, key) < 0)
		return;
	dir_fd = ns_share_dir_open_existing();
	if (dir_fd >= 0 && pins_list(dir_fd, user->uid, &pins, &n) < 0)
		n = 0;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(pins[i].key, key) == 0)
			mine = &pins[i];
		else
			others++;
	}
	if (mine && !mine->state_error && !mine->pin_error && mine->live)
		printf("share_namespace: a session of %s would join %s/%u/%s.ns (%zu session%s "
		       "open)\n",
		       user->name, NS_SHARE_DIR, (unsigned)user->uid, key, mine->live,
		       mine->live == 1 ? "" : "s");
	else if (mine)
		printf("share_namespace: a session of %s would replace the pin %s/%u/%s.ns (%s)\n",
		       user->name, NS_SHARE_DIR, (unsigned)user->uid, key,
		       mine->state_error || mine->pin_error
			       ? pin_problem(mine->state_error ? mine->state_error
							       : mine->pin_error)
			       : "its sessions are gone");
	else
		printf("share_namespace: a session of %s would build and pin a namespace, key %s\n",
		       user->name, key);
	if (others)
		printf("share_namespace: %s has %zu other pinned namespace%s, from another "
		       "configuration, context or arguments; their sessions keep them\n",
		       user->name, others, others == 1 ? "" : "s");
	pins_free(pins, n);
	if (dir_fd >= 0)
		close(dir_fd);
}

bool ck_share_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--shared") == 0 || strcmp(argv[i], "--enter") == 0 ||
		    strcmp(argv[i], "--drop") == 0)
			return true;
	return false;
}

int ck_share_main(int argc, char **argv)
{
	enum { OPT_SHARED = 0x100, OPT_ENTER, OPT_DROP, OPT_FORCE, OPT_JSON, OPT_TIMEOUT };
	static const struct option options[] = {
		{"shared", no_argument, NULL, OPT_SHARED},
		{"enter", required_argument, NULL, OPT_ENTER},
		{"drop", required_argument, NULL, OPT_DROP},
		{"force", no_argument, NULL, OPT_FORCE},
		{"json", no_argument, NULL, OPT_JSON},
		{"timeout", required_argument, NULL, OPT_TIMEOUT},
		{0},
	};
	const char *enter = NULL, *drop = NULL;
	bool shared = false, force = false, json = false;
	unsigned timeout_ms = NS_CHECK_DROP_TIMEOUT_S * 1000;
	int opt;

	while ((opt = getopt_long(argc, argv, "+", options, NULL)) != -1) {
		switch (opt) {
		case OPT_SHARED:
			shared = true;
			break;
		case OPT_ENTER:
			enter = optarg;
			break;
		case OPT_DROP:
			drop = optarg;
			break;
		case OPT_FORCE:
			force = true;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_TIMEOUT: {
			char *end;
			unsigned long v;

			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || optarg[0] < '0' || optarg[0] > '9' || v > 3600) {
				fprintf(stderr,
					"pam_namespace_check: --timeout %s: want seconds, "
					"0 to 3600\n",
					optarg);
				return 2;
			}
			timeout_ms = (unsigned)v * 1000;
			break;
		}
		default:
			return 2;
		}
	}
	if (shared + !!enter + !!drop != 1 || (optind < argc && !enter)) {
		fprintf(stderr, "usage: pam_namespace_check --shared [--json]\n"
				"       pam_namespace_check --enter USER [-- COMMAND ARGS...]\n"
				"       pam_namespace_check --drop USER|UID [--force] [--timeout "
				"SECONDS]\n");
		return 2;
	}
	/*
	 * Everything below NS_SHARE_DIR is root's, mode 0700: say so, rather
	 * than what the first refused open happens to answer.
	 */
	if (geteuid() != 0) {
		fprintf(stderr, "pam_namespace_check: --%s needs root: %s is root's alone\n",
			shared	? "shared"
			: enter ? "enter"
				: "drop",
			NS_SHARE_DIR);
		return 1;
	}
	if (shared)
		return cmd_list(json);
	if (enter)
		return cmd_enter(enter, argv + optind);
	return cmd_drop(drop, force, timeout_ms);
}

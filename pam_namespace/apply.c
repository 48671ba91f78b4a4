/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * Apply a plan: the only part of the module that changes the system.
 *
 * Everything that can be checked is checked before the namespace is
 * touched (the planner has already rejected bad lines). Then: unshare, /
 * recursively slave, and for each entry in file order resolve the paths by
 * descriptor, create what is missing, mount, run the init script. Any
 * failure puts the process back into the namespace it came from and removes
 * the instances this call made, so a failed login leaves nothing behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "apply.h"
#include "kernel.h"
#include "selinux.h"

/* What one entry made, to undo on failure. */
struct made {
	int parent_fd; /* holds name */
	char *name;
	const char *path; /* the plan's, for messages */
};

struct ctx {
	const struct ns_apply_opts *opts;
	struct ns_failure *fail;
	ns_apply_log_fn log;
	void *log_userdata;
	struct made *made;
	size_t n_made;
	struct ns_session sess;
	struct kn_dir root; /* "/" in the new namespace, where every walk starts */
};

static int fail_at(struct ctx *c, const struct ns_plan_entry *e, const char *what, const char *path,
		   int error, char *detail)
{
	struct ns_failure *f = c->fail;

	ns_failure_free(f);
	f->entry = e;
	f->what = what;
	f->path = path ? strdup(path) : NULL;
	f->error = error;
	f->detail = detail;
	return error < 0 ? error : -EPERM;
}

/*
 * Keep a directory this attempt made, to remove on failure; one that
 * cannot be kept is removed at once, so that nothing made is forgotten.
 */
static int remember_made(struct ctx *c, int parent_fd, const char *name, const char *path)
{
	struct made *m = realloc(c->made, (c->n_made + 1) * sizeof(*m));
	char *copy = NULL;
	int fd = -1;

	if (m)
		c->made = m;
	if (m)
		copy = strdup(name);
	if (copy)
		fd = fcntl(parent_fd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0) {
		int r = !m || !copy ? -ENOMEM : -errno;

		free(copy);
		(void)kn_remove_child_dir(parent_fd, name);
		return r;
	}
	m[c->n_made].parent_fd = fd;
	m[c->n_made].name = copy;
	m[c->n_made].path = path;
	c->n_made++;
	return 0;
}

/*
 * Undo in reverse order; an instance is removed only if still empty. One
 * that cannot be removed is said so: the attempt has failed already, and
 * this is the only trace of what it left.
 */
static void undo_made(struct ctx *c, bool remove)
{
	while (c->n_made > 0) {
		struct made *m = &c->made[--c->n_made];
		int k = remove ? kn_remove_child_dir(m->parent_fd, m->name) : 0;

		if (k < 0 && k != -ENOENT && c->log)
			c->log(c->log_userdata, false,
			       "could not remove %s, made by the failed session: %s", m->path,
			       strerror(-k));
		close(m->parent_fd);
		free(m->name);
	}
	free(c->made);
	c->made = NULL;
}

static char *strdupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *strdupf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

/*
 * The polydir, created (last component only) when the line says create. A
 * root-owned symlink in a directory only root can write is the
 * administrator's and is followed, as every component above it would be
 * (Linux-PAM does the same); anywhere else a symlink is refused.
 * *ret_base_ok: the polydir is the directory that walking its own path
 * gives (no symlink followed at its end), so walks below it may start there.
 */
static int open_polydir(struct ctx *c, const struct ns_plan_entry *e, bool *ret_parent_trusted,
			bool *ret_base_ok)
{
	const char *name = strrchr(e->polydir, '/');
	bool trusted = c->root.trusted;
	/* A polydir right under "/" (/tmp) has the root held for its parent. */
	bool own = name != e->polydir;
	int pfd = c->root.fd, fd;

	*ret_base_ok = false;
	if (own)
		pfd = kn_open_parent_from(&c->root, e->polydir, &name, &trusted);
	else
		name++;
	if (pfd < 0)
		return fail_at(c, e, "opening the parent of polydir", e->polydir, pfd, NULL);
	*ret_parent_trusted = trusted;
	fd = kn_open_child_dir(pfd, name);
	if (fd >= 0)
		*ret_base_ok = true;
	if (fd == -ELOOP && trusted)
		fd = kn_open_dir_from(&c->root, NULL, NULL, e->polydir, NULL);
	if (fd == -ENOENT && e->create_polydir) {
		fd = kn_mkdir_child(pfd, name, e->create_mode, e->create_uid, e->create_gid);
		if (fd >= 0) {
			int k = remember_made(c, pfd, name, e->polydir);

			*ret_base_ok = true;
			if (k == 0)
				k = ns_selinux_label_new_dir(fd, e->polydir);

			if (k < 0) {
				close(fd);
				fd = k;
			}
		}
		if (fd < 0) {
			if (own)
				close(pfd);
			return fail_at(c, e, "creating polydir", e->polydir, fd, NULL);
		}
	}
	if (own)
		close(pfd);
	if (fd < 0)
		return fail_at(c, e,
			       fd == -ELOOP ? "polydir is a symbolic link" : "opening polydir",
			       e->polydir, fd == -ELOOP ? 0 : fd, NULL);
	return fd;
}

/*
 * SPEC 4: the parent must exist or be one mkdir away, root-owned mode 000.
 * poly: the polydir, where the walk starts when the parent lies below it
 * (NULL: from "/").
 */
static int open_instance_parent(struct ctx *c, const struct ns_plan_entry *e,
				const struct kn_dir *poly)
{
	struct stat st;
	int fd;

	fd = kn_open_dir_from(&c->root, poly, e->polydir, e->instance_parent, NULL);
	if (fd == -ENOENT) {
		const char *name;
		int gfd = kn_open_parent_from(&c->root, e->instance_parent, &name, NULL);

		if (gfd < 0)
			return fail_at(c, e, "opening the parent of the instance parent",
				       e->instance_parent, gfd, NULL);
		fd = kn_mkdir_child(gfd, name, 0, 0, 0);
		close(gfd);
		if (fd == -EEXIST)
			fd = kn_open_dir_from(&c->root, poly, e->polydir, e->instance_parent, NULL);
		if (fd < 0)
			return fail_at(c, e, "creating the instance parent", e->instance_parent, fd,
				       NULL);
	}
	if (fd < 0)
		return fail_at(c, e, "opening the instance parent", e->instance_parent, fd, NULL);
	if (fstat(fd, &st) < 0) {
		int k = -errno;
		close(fd);
		return fail_at(c, e, "opening the instance parent", e->instance_parent, k, NULL);
	}
	if (!ns_instance_parent_ok(&st,
				   c->opts->ignore_instance_parent_mode || e->ignore_parent_mode)) {
		close(fd);
		return fail_at(c, e, "checking the instance parent", e->instance_parent, 0,
			       strdupf("mode %04o, owner uid %u; it must be mode 000 and owned by "
				       "root (or use ignore_instance_parent_mode)",
				       (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid));
	}
	return fd;
}

bool ns_instance_parent_ok(const struct stat *st, bool relaxed)
{
	return relaxed || (st->st_uid == 0 && !(st->st_mode & 0777));
}

int ns_init_script_ok(const struct stat *st)
{
	if (!S_ISREG(st->st_mode) || st->st_uid != 0 || (st->st_mode & (S_IWGRP | S_IWOTH)))
		return -EPERM;
	/* Root may run a file with any execute bit, as Linux-PAM's access(X_OK) says. */
	if (!(st->st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)))
		return -EACCES;
	return 0;
}

/* mkdtemp by descriptor: a random suffix, retried on collision. */
static int make_tmpdir(int pfd, const char *templ, const struct stat *poly, char **ret_name)
{
	static const char chars[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	size_t len = strlen(templ);
	char *name;

	if (len < 6)
		return -EINVAL;
	name = strdup(templ);
	if (!name)
		return -ENOMEM;
	for (int attempt = 0; attempt < 100; attempt++) {
		unsigned char rnd[6];
		int fd;

		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
			free(name);
			return -EIO;
		}
		for (int i = 0; i < 6; i++)
			name[len - 6 + i] = chars[rnd[i] % (sizeof(chars) - 1)];
		fd = kn_mkdir_child(pfd, name, poly->st_mode & 07777, poly->st_uid, poly->st_gid);
		if (fd == -EEXIST)
			continue;
		if (fd < 0) {
			free(name);
			return fd;
		}
		*ret_name = name;
		return fd;
	}
	free(name);
	return -EEXIST;
}

/* Keep a tmpdir instance for close; one that cannot be kept is removed at once. */
static int add_tmpdir(struct ctx *c, int pfd, const char *parent, const char *name)
{
	struct ns_tmpdir *t = realloc(c->sess.tmpdirs, (c->sess.n_tmpdirs + 1) * sizeof(*t));
	struct ns_tmpdir d = {.parent_fd = -1};

	if (t) {
		c->sess.tmpdirs = t;
		d.name = strdup(name);
		d.path = strdupf("%s/%s", parent, name);
	}
	if (d.name && d.path)
		d.parent_fd = fcntl(pfd, F_DUPFD_CLOEXEC, 3);
	if (d.parent_fd < 0) {
		int r = !d.name || !d.path ? -ENOMEM : -errno;

		free(d.name);
		free(d.path);
		(void)kn_remove_child_dir(pfd, name);
		return r;
	}
	t[c->sess.n_tmpdirs++] = d;
	return 0;
}

/*
 * The instance directory: reused when it exists, otherwise made with the
 * polydir's owner, group and mode, so /tmp gives a 1777 root instance and
 * $HOME one owned by the user.
 */
static int open_instance(struct ctx *c, const struct ns_plan_entry *e, const struct kn_dir *polyd,
			 bool base_ok, bool *ret_new, char **ret_path)
{
	const struct stat *poly = &polyd->st;
	int poly_fd = polyd->fd;
	char *name = NULL;
	int pfd, fd, k;

	pfd = open_instance_parent(c, e, base_ok ? polyd : NULL);
	if (pfd < 0)
		return pfd;

	*ret_new = false;
	if (e->method == NS_METHOD_TMPDIR) {
		const char *templ = strrchr(e->instance, '/') + 1;

		fd = make_tmpdir(pfd, templ, poly, &name);
		if (fd < 0) {
			close(pfd);
			return fail_at(c, e, "creating the tmpdir instance", e->instance, fd, NULL);
		}
		*ret_new = true;
		k = add_tmpdir(c, pfd, e->instance_parent, name);
		if (k == 0)
			k = ns_selinux_label_like(fd, poly_fd);
		if (k < 0) {
			close(fd);
			close(pfd);
			free(name);
			return fail_at(c, e, "creating the tmpdir instance", e->instance, k, NULL);
		}
		*ret_path = strdupf("%s/%s", e->instance_parent, name);
		free(name);
		close(pfd);
		return fd;
	}

	fd = kn_open_child_dir(pfd, e->instance_name);
	if (fd == -ENOENT) {
		fd = kn_mkdir_child(pfd, e->instance_name, poly->st_mode & 07777, poly->st_uid,
				    poly->st_gid);
		if (fd >= 0) {
			*ret_new = true;
			k = remember_made(c, pfd, e->instance_name, e->instance);
			/* The policy's context for context and level, else the polydir's. */
			if (k == 0 && e->instance_context)
				k = ns_selinux_label_fd(fd, e->instance_context);
			else if (k == 0)
				k = ns_selinux_label_like(fd, poly_fd);
			if (k < 0) {
				close(fd);
				fd = k;
			}
		} else if (fd == -EEXIST) {
			/* Another first login of the same user won the race: use its instance. */
			fd = kn_open_child_dir(pfd, e->instance_name);
		}
	}
	close(pfd);
	if (fd < 0)
		return fail_at(c, e,
			       fd == -ELOOP ? "instance is a symbolic link" : "opening instance",
			       e->instance, fd == -ELOOP ? 0 : fd, NULL);
	*ret_path = strdup(e->instance);
	return fd;
}

/* SPEC 5 arguments 5 and 6: is the path above the last component safe? */
static const char *parents_trusted(const char *path)
{
	return kn_path_parents_safe(path) == 1 ? "1" : "0";
}

static int wait_child(pid_t pid, unsigned timeout_s, int *ret_status)
{
	long pidfd = syscall(SYS_pidfd_open, pid, 0);
	struct timespec start, now;
	int status;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		long elapsed_ms;

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			if (pidfd >= 0)
				close((int)pidfd);
			return -errno;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		elapsed_ms = (now.tv_sec - start.tv_sec) * 1000 +
			     (now.tv_nsec - start.tv_nsec) / 1000000;
		if (elapsed_ms >= (long)timeout_s * 1000) {
			kill(pid, SIGKILL);
			(void)waitpid(pid, &status, 0);
			if (pidfd >= 0)
				close((int)pidfd);
			return -ETIME;
		}
		if (pidfd >= 0) {
			struct pollfd p = {.fd = (int)pidfd, .events = POLLIN};

			(void)poll(&p, 1, (int)((long)timeout_s * 1000 - elapsed_ms));
		} else {
			struct timespec ts = {.tv_nsec = 10 * 1000 * 1000};

			nanosleep(&ts, NULL);
		}
	}
	if (pidfd >= 0)
		close((int)pidfd);
	*ret_status = status;
	return 0;
}

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
/*
 * posix_spawn: glibc clones without copying the caller's page tables
 * (CLONE_VM|CLONE_VFORK), which a fork of a login process spends most of
 * its time on. stdin from /dev/null, descriptors from 3 closed, every
 * signal at its default and none blocked, the exec context reset around it.
 * Returns the pid or a negative errno.
 */
static pid_t spawn_script(const char *script, const char *const argv[], char *const envp[])
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t all, none;
	char *saved_con = NULL;
	pid_t pid;
	int r;

	r = ns_selinux_exec_reset_saved(&saved_con);
	if (r < 0)
		return r;
	sigfillset(&all);
	sigemptyset(&none);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	r = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (r == 0)
		r = posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	if (r == 0)
		r = posix_spawnattr_setsigdefault(&attr, &all);
	if (r == 0)
		r = posix_spawnattr_setsigmask(&attr, &none);
	if (r == 0)
		r = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	if (r == 0)
		r = posix_spawn(&pid, script, &fa, &attr, (char *const *)argv, envp);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	ns_selinux_exec_restore(saved_con);
	return r == 0 ? pid : -r;
}
#else
/* fork and exec, for C libraries without posix_spawn_file_actions_addclosefrom_np. */
static pid_t spawn_script(const char *script, const char *const argv[], char *const envp[])
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		sigset_t none;
		int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (devnull >= 0)
			dup2(devnull, 0);
		for (int s = 1; s < NSIG; s++)
			signal(s, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		(void)ns_selinux_reset_exec();
		if (syscall(SYS_close_range, 3, ~0U, 0) < 0) {
			for (int fd = 3; fd < 1024; fd++)
				close(fd);
		}
		/*
		 * By path, not fexecve: a #! script needs a name its interpreter
		 * can open, and /dev/fd/N would leave a descriptor open in it.
		 */
		execve(script, (char *const *)argv, envp);
		_exit(127);
	}
	return pid;
}
#endif

/*
 * The init script is code run as root on behalf of a login, so it is
 * trusted only if root owns it, nobody else can write it, and nobody but
 * root can change what its name refers to before it is executed (see
 * kn_stat_trusted_path); and it gets nothing of the caller: an empty
 * environment (CVE-2010-3853), no descriptors but 0-2, the exec context
 * reset, a bounded time.
 */
static int run_init_script(struct ctx *c, const struct ns_plan_entry *e, const char *instance,
			   bool created)
{
	const char *script = e->init_script;
	char *const envp[] = {NULL};
	struct sigaction sa_dfl = {.sa_handler = SIG_DFL}, sa_old;
	struct stat st;
	char *real = NULL;
	int status = 0, k;
	pid_t pid;

	k = kn_stat_trusted_path(script, &real, &st);
	if (k == -ENOENT)
		return 0;
	if (k < 0)
		return fail_at(c, e, "opening the init script", script, k, NULL);
	if (k == 0) {
		k = fail_at(c, e, "refusing the init script", script, 0,
			    strdupf("%s, a directory above it or a symbolic link to it is not "
				    "owned by root, or is writable by group or others",
				    real));
		free(real);
		return k;
	}
	k = ns_init_script_ok(&st);
	if (k == -EPERM) {
		free(real);
		return fail_at(c, e, "refusing the init script", script, 0,
			       strdupf("it must be a regular file owned by root and not writable "
				       "by group or others (owner uid %u, mode %04o)",
				       (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777)));
	}
	if (k == -EACCES) {
		free(real);
		return fail_at(c, e, "running the init script", script, -EACCES, NULL);
	}

	const char *argv[] = {
		script,
		e->polydir,
		instance,
		created ? "1" : "0",
		c->opts->user,
		parents_trusted(e->polydir),
		parents_trusted(instance),
		NULL,
	};

	/* The application may ignore SIGCHLD, which would make waitpid() fail. */
	sigaction(SIGCHLD, &sa_dfl, &sa_old);
	/* The checked real path is executed; argv[0] stays the configured name. */
	pid = spawn_script(real, argv, envp);
	free(real);
	if (pid < 0 && pid != -EAGAIN && pid != -ENOMEM) {
		/* It could not be executed: as a forked child's exit status 127 would say. */
		sigaction(SIGCHLD, &sa_old, NULL);
		if (c->log)
			c->log(c->log_userdata, false, "%s:%u: init script %s %s could not run: %s",
			       e->rule->file, e->rule->line, script, e->polydir,
			       strerror((int)-pid));
		return 0;
	}
	if (pid < 0) {
		sigaction(SIGCHLD, &sa_old, NULL);
		return fail_at(c, e, "running the init script", script, (int)pid, NULL);
	}
	k = wait_child(pid, c->opts->init_timeout, &status);
	sigaction(SIGCHLD, &sa_old, NULL);
	if (k == -ETIME)
		return fail_at(c, e, "running the init script", script, 0,
			       strdupf("still running after %u s, killed", c->opts->init_timeout));
	if (k < 0)
		return fail_at(c, e, "waiting for the init script", script, k, NULL);
	if (WIFSIGNALED(status))
		return fail_at(c, e, "running the init script", script, 0,
			       strdupf("killed by signal %d", WTERMSIG(status)));
	if (WEXITSTATUS(status) != 0 && c->log)
		c->log(c->log_userdata, false, "%s:%u: init script %s %s exited with status %d",
		       e->rule->file, e->rule->line, script, e->polydir, WEXITSTATUS(status));
	return 0;
}

static int add_polydir(struct ctx *c, const char *polydir)
{
	char **p = realloc(c->sess.polydirs, (c->sess.n_polydirs + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	c->sess.polydirs = p;
	p[c->sess.n_polydirs] = strdup(polydir);
	if (!p[c->sess.n_polydirs])
		return -ENOMEM;
	c->sess.n_polydirs++;
	return 0;
}

/*
 * share=: each directory of the real polydir named there is bound into the
 * instance, so that what lives there (the X server's and ICE's sockets)
 * stays the system's. The real directory is opened from the real polydir's
 * descriptor without following a symlink, and must be owned by root or the
 * polydir's owner and, if others may write it, sticky: otherwise a user
 * who made /tmp/.X11-unix before the X server did, or left a link there,
 * would have every session's X clients talk to their sockets. Its mount
 * point is made in the instance, or opened there without following a
 * symlink, through the new mount (mnt_fd): a mount made through the
 * instance's own descriptor would sit on the instance parent's mount.
 */
static int mount_shares(struct ctx *c, const struct ns_plan_entry *e, const struct kn_dir *poly,
			int mnt_fd)
{
	for (size_t i = 0; i < e->n_shares; i++) {
		const char *path = e->shares[i], *name = strrchr(path, '/') + 1;
		struct stat st;
		int real, dst, k;

		real = kn_open_child_dir(poly->fd, name);
		if (real == -ELOOP || real == -ENOTDIR)
			return fail_at(
				c, e, "refusing to share", path, 0,
				strdupf("it is %s in the real polydir, not a directory",
					real == -ELOOP ? "a symbolic link" : "not a directory"));
		if (real < 0)
			return fail_at(c, e, "opening the shared directory", path, real, NULL);
		if (fstat(real, &st) < 0) {
			k = -errno;
			close(real);
			return fail_at(c, e, "opening the shared directory", path, k, NULL);
		}
		if (!ns_share_owner_ok(st.st_mode, st.st_uid, poly->st.st_uid)) {
			close(real);
			return fail_at(
				c, e, "refusing to share", path, 0,
				strdupf("owner uid %u, mode %04o; it must be owned by root%s "
					"and, if group or others may write it, sticky",
					(unsigned)st.st_uid, (unsigned)(st.st_mode & 07777),
					poly->st.st_uid ? " or the polydir's owner" : ""));
		}
		dst = kn_open_child_dir(mnt_fd, name);
		if (dst == -ENOENT) {
			dst = kn_mkdir_child(mnt_fd, name, st.st_mode & 07777, st.st_uid,
					     st.st_gid);
			if (dst == -EEXIST) {
				dst = kn_open_child_dir(mnt_fd, name);
			} else if (dst >= 0) {
				/* Made now: a failure removes it, then the instance. */
				k = remember_made(c, mnt_fd, name, path);
				if (k < 0) {
					close(dst);
					dst = k;
				}
			}
		}
		if (dst < 0) {
			close(real);
			return fail_at(c, e,
				       dst == -ELOOP ? "refusing to share: a symbolic link in the "
						       "instance at"
						     : "making the mount point in the instance for",
				       path, dst == -ELOOP ? 0 : dst, NULL);
		}
		/* Not ro: a socket there must stay one a client can connect to. */
		k = kn_bind_fd_open(real, dst, e->attr_flags & ~MS_RDONLY);
		close(real);
		close(dst);
		if (k < 0)
			return fail_at(c, e, "mounting the shared directory on", path, k, NULL);
		close(k);
	}
	return 0;
}

/*
 * The instance a session gets is never writable by group or others beyond
 * what its polydir allows: the polydir's mode is the configuration (its own
 * mode, or create='s), and a new instance is made with it, but an init
 * script may chmod it afterwards - Debian's namespace.init gives a new
 * $HOME instance 0777 where /etc/login.defs has no UMASK, as on Debian 13 -
 * and an instance left so by an earlier session stays so. Checked after the
 * init script, on the instance's descriptor; the extra write bits are
 * removed (and a sticky polydir's bit kept on a shared-writable instance).
 */
static int keep_instance_private(struct ctx *c, const struct ns_plan_entry *e, int ifd,
				 const struct stat *poly, const char *instance)
{
	const mode_t gow = S_IWGRP | S_IWOTH;
	struct stat st;
	mode_t mode, want;

	if (fstat(ifd, &st) < 0)
		return fail_at(c, e, "checking the mode of instance", instance, -errno, NULL);
	mode = st.st_mode & 07777;
	want = mode & ~(gow & ~poly->st_mode);
	if ((want & gow) && (poly->st_mode & S_ISVTX))
		want |= S_ISVTX;
	if (want == mode)
		return 0;
	if (fchmod(ifd, want) < 0)
		return fail_at(c, e, "changing the mode of instance", instance, -errno, NULL);
	if (c->log)
		c->log(c->log_userdata, false,
		       "%s:%u: instance %s was mode %04o, writable beyond its polydir %s (mode "
		       "%04o): made %04o",
		       e->rule->file, e->rule->line, instance, (unsigned)mode, e->polydir,
		       (unsigned)(poly->st_mode & 07777), (unsigned)want);
	return 0;
}

static int apply_entry(struct ctx *c, const struct ns_plan_entry *e)
{
	struct kn_dir poly;
	char *instance = NULL;
	bool created = false, parent_trusted = false, base_ok;
	int pfd, ifd, mnt_fd, k, guard_fd = -1;

	if (c->root.fd < 0) {
		k = kn_dir_open_root(&c->root);
		if (k < 0)
			return fail_at(c, e, "opening", "/", k, NULL);
	}
	pfd = open_polydir(c, e, &parent_trusted, &base_ok);
	if (pfd < 0)
		return pfd;
	k = kn_dir_from_fd(pfd, parent_trusted, &poly);
	if (k < 0) {
		k = fail_at(c, e, "opening polydir", e->polydir, k, NULL);
		goto out;
	}

	if (e->method == NS_METHOD_TMPFS) {
		unsigned long flags = e->mount_flags | e->attr_flags;

		k = e->n_shares ? kn_tmpfs_fd_open(pfd, e->mntopts, flags)
				: kn_tmpfs_fd(pfd, e->mntopts, flags);
		if (k < 0) {
			k = fail_at(c, e, "mounting tmpfs on", e->polydir, k, NULL);
			goto out;
		}
		mnt_fd = e->n_shares ? k : -1;
		created = true;
		instance = strdup("tmpfs");
	} else {
		ifd = open_instance(c, e, &poly, base_ok, &created, &instance);
		if (ifd < 0) {
			k = ifd;
			goto out;
		}
		if (e->quota) {
			k = kn_tmpfs_set_user_quota(ifd, e->quota_uid, e->quota_bytes,
						    e->quota_inodes);
			if (k < 0) {
				close(ifd);
				const char *why = ns_quota_refusal(k);

				k = fail_at(c, e, "refusing quota= for", instance, why ? 0 : k,
					    why ? strdupf("%s", why) : NULL);
				goto out;
			}
		}
		/* Extended lines: flags on the new mount, and a hold on it for share=. */
		k = e->attr_flags || e->n_shares ? kn_bind_fd_open(ifd, pfd, e->attr_flags)
						 : kn_bind_fd(ifd, pfd);
		guard_fd = ifd; /* closed at out, after the init script */
		if (k < 0) {
			k = fail_at(c, e, "mounting the instance on", e->polydir, k, NULL);
			goto out;
		}
		mnt_fd = e->attr_flags || e->n_shares ? k : -1;
	}
	if (mnt_fd >= 0) {
		k = mount_shares(c, e, &poly, mnt_fd);
		close(mnt_fd);
		if (k < 0)
			goto out;
	}
	if (!instance) {
		k = fail_at(c, e, "mounting", e->polydir, -ENOMEM, NULL);
		goto out;
	}
	k = add_polydir(c, e->polydir);
	if (k < 0) {
		k = fail_at(c, e, "mounting", e->polydir, k, NULL);
		goto out;
	}
	if (c->log && c->opts->debug)
		c->log(c->log_userdata, true, "%s:%u: %s: %s instance %s mounted on %s",
		       e->rule->file, e->rule->line, ns_method_to_string(e->method),
		       created ? "new" : "existing", instance, e->polydir);
	if (e->init_script)
		k = run_init_script(c, e, instance, created);
	if (k == 0 && guard_fd >= 0)
		k = keep_instance_private(c, e, guard_fd, &poly.st, instance);
out:
	if (guard_fd >= 0)
		close(guard_fd);
	free(instance);
	close(pfd);
	return k;
}

/*
 * Before the original user's instance is unmounted (unmnt_remnt), a working
 * directory inside it moves to the polydir's parent, where Linux-PAM puts
 * it too; otherwise it would be left in a detached tree. Inside means by
 * whole components: /tmpfoo is not in /tmp (Linux-PAM compared prefixes).
 */
static void leave_polydir(const char *polydir)
{
	char *cwd = getcwd(NULL, 0), *parent;

	if (!cwd)
		return;
	if (ns_path_inside(cwd, polydir)) {
		parent = strdup(polydir);
		if (parent) {
			char *slash = strrchr(parent, '/');

			if (slash == parent)
				slash[1] = '\0';
			else if (slash)
				*slash = '\0';
			if (chdir(parent) < 0)
				(void)chdir("/");
		} else {
			(void)chdir("/");
		}
		free(parent);
	}
	free(cwd);
}

/* Processes that were in a polydir must see the instance: enter it again. */
static void rechdir(const struct ns_plan *plan)
{
	char buf[PATH_MAX], *heap = NULL;
	char *cwd = getcwd(buf, sizeof(buf));

	/* On the stack: a session pays no malloc for the usual short path. */
	if (!cwd && errno == ERANGE)
		cwd = heap = getcwd(NULL, 0);
	if (!cwd)
		return;
	for (size_t i = 0; i < plan->n_entries; i++) {
		if (ns_path_inside(cwd, plan->entries[i].polydir)) {
			if (chdir(cwd) < 0)
				(void)chdir("/");
			break;
		}
	}
	free(heap);
}

int ns_apply(const struct ns_plan *plan, const struct ns_apply_opts *opts, struct ns_session *sess,
	     struct ns_failure *fail, ns_apply_log_fn log, void *log_userdata)
{
	struct kn_ns_saved own = KN_NS_SAVED_INIT;
	const struct kn_ns_saved *saved = opts->saved ? opts->saved : &own;
	struct ctx c = {.opts = opts,
			.fail = fail,
			.log = log,
			.log_userdata = log_userdata,
			.root = KN_DIR_INIT};
	bool stuck;
	int r;

	*fail = (struct ns_failure){0};
	if (plan->n_entries == 0 && opts->n_unmount_first == 0) {
		*sess = (struct ns_session){0};
		return 0;
	}

	/*
	 * A policy may refuse the login program the namespace file (Debian's
	 * SELinux policy gives local_login_t no access to nsfs). The session
	 * goes on without a way back: a failure then undoes what it made, in
	 * the new namespace, where the process stays.
	 */
	r = opts->saved ? 0 : kn_ns_save(&own);
	stuck = saved->ns_fd < 0;
	if (r == -EACCES || r == -EPERM) {
		if (log)
			log(log_userdata, false,
			    "cannot open this process's mount namespace (%s): a failed session "
			    "will not return to it",
			    strerror(-r));
	} else if (r < 0) {
		return fail_at(&c, NULL, "saving the mount namespace", NULL, r, NULL);
	}
	r = kn_ns_enter_new(opts->mount_private ? KN_PROPAGATION_PRIVATE : KN_PROPAGATION_SLAVE);
	if (r < 0) {
		fail_at(&c, NULL, "entering a new mount namespace", NULL, r, NULL);
		goto rollback;
	}

	/* Undo the original user's instances, in this namespace only; not mounted is fine. */
	for (size_t i = opts->n_unmount_first; i-- > 0;) {
		leave_polydir(opts->unmount_first[i]);
		r = kn_umount_path(opts->unmount_first[i]);
		if (r < 0 && r != -EINVAL && r != -ENOENT) {
			fail_at(&c, NULL, "unmounting", opts->unmount_first[i], r, NULL);
			goto rollback;
		}
	}

	for (size_t i = 0; i < plan->n_entries; i++) {
		r = apply_entry(&c, &plan->entries[i]);
		if (r < 0)
			goto rollback;
	}
	if (opts->commit) {
		r = opts->commit(opts->commit_userdata, &c.sess, fail);
		if (r < 0)
			goto rollback;
	}
	rechdir(plan);
	undo_made(&c, false);
	kn_dir_close(&c.root);
	kn_ns_saved_close(&own);
	*sess = c.sess;
	return 0;

rollback:
	/* Back to the caller's namespace first: the new one dies with its mounts. */
	if (saved->ns_fd >= 0) {
		int k = kn_ns_restore(saved);

		/*
		 * Only where the process is known to be in the new namespace
		 * are its mounts undone: a setns that went through before a
		 * chroot or fchdir failed has it back among the caller's own.
		 */
		stuck = k < 0 && kn_ns_same(saved->ns_fd, -1) == 0;
		if (k < 0 && log)
			log(log_userdata, false,
			    "could not return to the original mount namespace after the failure: "
			    "%s%s",
			    strerror(-k),
			    stuck ? "; the session's mounts are undone where the process is"
				  : "; back in it, but not at its root or working directory");
	}
	/*
	 * Then what a close would undo: the tmpdir instances, and where the
	 * process could not go back the session's mounts too, since it stays.
	 */
	{
		struct ns_failure ignored;

		if (ns_session_close(&c.sess, stuck, &ignored) < 0 && log)
			log(log_userdata, false, "could not undo the failed session: %s %s: %s",
			    ignored.what, ignored.path ? ignored.path : "",
			    strerror(-ignored.error));
		ns_failure_free(&ignored);
	}
	undo_made(&c, true);
	ns_session_free(&c.sess);
	kn_dir_close(&c.root);
	kn_ns_saved_close(&own);
	return r;
}

int ns_session_close(struct ns_session *sess, bool unmount, struct ns_failure *fail)
{
	int r = 0, k;

	*fail = (struct ns_failure){0};
	if (unmount)
		for (size_t i = sess->n_polydirs; i-- > 0;) {
			k = kn_umount_path(sess->polydirs[i]);
			if (k < 0 && r == 0) {
				r = k;
				fail->what = "unmounting";
				fail->path = strdup(sess->polydirs[i]);
				fail->error = k;
			}
		}
	for (size_t i = 0; i < sess->n_tmpdirs; i++) {
		struct ns_tmpdir *t = &sess->tmpdirs[i];

		k = kn_remove_tree(t->parent_fd, t->name);
		if (k < 0 && k != -ENOENT && r == 0) {
			r = k;
			fail->what = "removing the tmpdir instance";
			fail->path = strdup(t->path);
			fail->error = k;
		}
	}
	return r;
}

void ns_session_forget_tmpdirs(struct ns_session *sess)
{
	for (size_t i = 0; i < sess->n_tmpdirs; i++) {
		if (sess->tmpdirs[i].parent_fd >= 0)
			close(sess->tmpdirs[i].parent_fd);
		free(sess->tmpdirs[i].name);
		free(sess->tmpdirs[i].path);
	}
	free(sess->tmpdirs);
	sess->tmpdirs = NULL;
	sess->n_tmpdirs = 0;
}

void ns_session_free(struct ns_session *sess)
{
	for (size_t i = 0; i < sess->n_polydirs; i++)
		free(sess->polydirs[i]);
	free(sess->polydirs);
	ns_session_forget_tmpdirs(sess);
	*sess = (struct ns_session){0};
}

void ns_failure_free(struct ns_failure *fail)
{
	free(fail->path);
	free(fail->detail);
	*fail = (struct ns_failure){0};
}

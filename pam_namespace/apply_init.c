/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * The init script (SPEC 5): which script may run as root for a login, and
 * running it in the new namespace with nothing of the caller's (no
 * environment, no descriptors but 0-2, default signals, the exec context
 * reset) and a bounded time.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "apply.h"
#include "apply_internal.h"
#include "kernel.h"
#include "selinux.h"

int ns_init_script_ok(const struct stat *st)
{
	if (!S_ISREG(st->st_mode) || st->st_uid != 0 || (st->st_mode & (S_IWGRP | S_IWOTH)))
		return -EPERM;
	/* Root may run a file with any execute bit, as Linux-PAM's access(X_OK) says. */
	if (!(st->st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)))
		return -EACCES;
	return 0;
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
int apply_run_init_script(struct apply_ctx *c, const struct ns_plan_entry *e, const char *instance,
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
		return apply_fail(c, e, "opening the init script", script, k, NULL);
	if (k == 0) {
		k = apply_fail(
			c, e, "refusing the init script", script, 0,
			apply_strdupf("%s, a directory above it or a symbolic link to it is not "
				      "owned by root, or is writable by group or others",
				      real));
		free(real);
		return k;
	}
	k = ns_init_script_ok(&st);
	if (k == -EPERM) {
		free(real);
		return apply_fail(
			c, e, "refusing the init script", script, 0,
			apply_strdupf("it must be a regular file owned by root and not writable "
				      "by group or others (owner uid %u, mode %04o)",
				      (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777)));
	}
	if (k == -EACCES) {
		free(real);
		return apply_fail(c, e, "running the init script", script, -EACCES, NULL);
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
		return apply_fail(c, e, "running the init script", script, (int)pid, NULL);
	}
	k = wait_child(pid, c->opts->init_timeout, &status);
	sigaction(SIGCHLD, &sa_old, NULL);
	if (k == -ETIME)
		return apply_fail(
			c, e, "running the init script", script, 0,
			apply_strdupf("still running after %u s, killed", c->opts->init_timeout));
	if (k < 0)
		return apply_fail(c, e, "waiting for the init script", script, k, NULL);
	if (WIFSIGNALED(status))
		return apply_fail(c, e, "running the init script", script, 0,
				  apply_strdupf("killed by signal %d", WTERMSIG(status)));
	if (WEXITSTATUS(status) != 0 && c->log)
		c->log(c->log_userdata, false, "%s:%u: init script %s %s exited with status %d",
		       e->rule->file, e->rule->line, script, e->polydir, WEXITSTATUS(status));
	return 0;
}

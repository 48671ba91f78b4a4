/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * The init script (SPEC 5): which script may run as root for a login, and
 * running it in the new namespace as root (real, effective and saved uid
 * and gid 0) with nothing of the caller's (no
 * environment, no descriptors but 0-2, default signals, the exec context
 * reset) and a bounded time.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "kernel.h"
#include "rules.h"
#include "selinux.h"

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

/* Why a child did not get to exec the script, sent back on a close-on-exec pipe. */
enum spawn_stage {
	SPAWN_CRED = 1, /* could not become root */
	SPAWN_EXEC,	/* execve failed */
};
struct spawn_report {
	int stage;
	int error;
};

/* In the child: say why, and end without running anything of the caller's (atexit). */
static _Noreturn void child_fail(int report_fd, int stage)
{
	struct spawn_report rep = {.stage = stage, .error = errno};

	(void)!write(report_fd, &rep, sizeof(rep));
	_exit(127);
}

/*
 * Every descriptor from 3 closed but the report pipe's, which closes itself
 * at exec (close_range, 5.9; before it, one close at a time up to max_fd).
 */
static void child_close_fds(int keep, int max_fd)
{
	if ((keep == 3 || syscall(SYS_close_range, 3, keep - 1, 0) == 0) &&
	    syscall(SYS_close_range, keep + 1, ~0U, 0) == 0)
		return;
	for (int fd = 3; fd < max_fd; fd++)
		if (fd != keep)
			close(fd);
}

/*
 * The child, between fork and exec: async-signal-safe calls only, as the
 * caller may have threads (gdm's worker). Root first, before anything
 * else: until then the child holds the caller's real uid (su's, the
 * calling user's) and she may signal it; with every signal blocked since
 * before the fork, only SIGKILL and SIGSTOP reach it, and the parent's
 * timeout ends a stopped child. Raw system calls for the ids: glibc's
 * setresuid would signal the parent's other threads, which this child
 * does not have. Then stdin from /dev/null, descriptors from 3 closed,
 * every signal at its default and none blocked, and exec with the empty
 * environment.
 */
static _Noreturn void child_exec(const char *script, const char *const argv[], char *const envp[],
				 uid_t uid, gid_t gid, int devnull, int report_fd, int max_fd)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	sigset_t none;

	if (syscall(SYS_setresgid, gid, gid, gid) < 0 || syscall(SYS_setresuid, uid, uid, uid) < 0)
		child_fail(report_fd, SPAWN_CRED);
	/* dup2 clears close-on-exec; /dev/null opened as 0 (0 was closed) keeps it. */
	if (devnull == 0 ? fcntl(0, F_SETFD, 0) < 0 : dup2(devnull, 0) < 0)
		child_fail(report_fd, SPAWN_EXEC);
	child_close_fds(report_fd, max_fd);
	for (int s = 1; s < NSIG; s++)
		(void)sigaction(s, &dfl, NULL);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	/*
	 * By path, not fexecve: a #! script needs a name its interpreter can
	 * open, and /dev/fd/N would leave a descriptor open in it.
	 */
	execve(script, (char *const *)argv, envp);
	child_fail(report_fd, SPAWN_EXEC);
}

/*
 * Start the script as root: real, effective and saved uid and gid 0, as
 * Linux-PAM's setuid(geteuid()) before exec makes it (SPEC 5). su opens
 * the session with the calling user's real uid and effective uid 0; a
 * child that kept that real uid would run the script as her, since dash
 * and bash drop to the real uid, and she could signal, ptrace and read
 * through /proc/PID/root what it does. posix_spawn cannot change ids, so
 * this forks (_Fork where glibc has it: no atfork handler of the
 * application runs in the child). Where the module runs with another
 * effective uid (no root), that uid, as in Linux-PAM. The exec context is
 * reset in the parent around the fork, as libselinux is not
 * async-signal-safe. Returns the pid, *ret_report_fd the read end of the
 * pipe that says why the child did not exec (spawn_failure); or a
 * negative errno.
 */
static pid_t spawn_script(const char *script, const char *const argv[], char *const envp[],
			  int *ret_report_fd)
{
	uid_t uid = geteuid();
	gid_t gid = uid == 0 ? 0 : getegid();
	long max_fd = sysconf(_SC_OPEN_MAX);
	char *saved_con = NULL;
	sigset_t all, old;
	int pipefd[2], devnull, r;
	pid_t pid;

	if (max_fd < 0 || max_fd > 65536)
		max_fd = 65536;
	r = ns_selinux_exec_reset_saved(&saved_con);
	if (r < 0)
		return r;
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0 || pipe2(pipefd, O_CLOEXEC) < 0) {
		r = -errno;
		if (devnull >= 0)
			close(devnull);
		ns_selinux_exec_restore(saved_con);
		return r;
	}
	/* A caller with 0-2 closed: the report pipe must not be where stdin goes. */
	if (pipefd[1] < 3) {
		int moved = fcntl(pipefd[1], F_DUPFD_CLOEXEC, 3);

		close(pipefd[1]);
		pipefd[1] = moved;
		if (moved < 0) {
			r = -errno;
			close(pipefd[0]);
			close(devnull);
			ns_selinux_exec_restore(saved_con);
			return r;
		}
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
	pid = _Fork();
#else
	pid = fork();
#endif
	if (pid == 0) {
		close(pipefd[0]);
		child_exec(script, argv, envp, uid, gid, devnull, pipefd[1], (int)max_fd);
	}
	r = pid < 0 ? -errno : 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(pipefd[1]);
	close(devnull);
	ns_selinux_exec_restore(saved_con);
	if (r < 0) {
		close(pipefd[0]);
		return r;
	}
	*ret_report_fd = pipefd[0];
	return pid;
}

/*
 * After the child ended: 0 if it ran the script; else why it did not, its
 * stage into *ret_stage. The pipe's write end is closed by then (exec or
 * exit), so this read does not wait.
 */
static int spawn_failure(int report_fd, int *ret_stage)
{
	struct spawn_report rep;
	ssize_t n;

	do
		n = read(report_fd, &rep, sizeof(rep));
	while (n < 0 && errno == EINTR);
	close(report_fd);
	if (n != (ssize_t)sizeof(rep))
		return 0;
	*ret_stage = rep.stage;
	return rep.error > 0 ? -rep.error : -EIO;
}

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
	int status = 0, report_fd = -1, stage = 0, k;
	pid_t pid;

	k = kn_stat_trusted_path(script, &real, &st);
	if (k == -ENOENT)
		return 0;
	if (k < 0)
		return ns_fail(c->fail, e, "opening the init script", script, k, NULL);
	if (k == 0) {
		k = ns_fail(c->fail, e, "refusing the init script", script, 0,
			    ns_strdupf("%s, a directory above it or a symbolic link to it is not "
				       "owned by root, or is writable by group or others",
				       real));
		free(real);
		return k;
	}
	k = ns_init_script_ok(&st);
	if (k == -EPERM) {
		free(real);
		return ns_fail(
			c->fail, e, "refusing the init script", script, 0,
			ns_strdupf("it must be a regular file owned by root and not writable "
				   "by group or others (owner uid %u, mode %04o)",
				   (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777)));
	}
	if (k == -EACCES) {
		free(real);
		return ns_fail(c->fail, e, "running the init script", script, -EACCES, NULL);
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
	pid = spawn_script(real, argv, envp, &report_fd);
	free(real);
	if (pid < 0) {
		sigaction(SIGCHLD, &sa_old, NULL);
		return ns_fail(c->fail, e, "running the init script", script, (int)pid, NULL);
	}
	k = wait_child(pid, c->opts->init_timeout, &status);
	sigaction(SIGCHLD, &sa_old, NULL);
	if (k == 0)
		k = spawn_failure(report_fd, &stage);
	else
		close(report_fd);
	if (k < 0 && stage == SPAWN_CRED)
		return ns_fail(c->fail, e, "becoming root to run the init script", script, k, NULL);
	if (k < 0 && stage == SPAWN_EXEC) {
		/* It could not be executed: logged, as its exit status 127 would be. */
		if (c->log)
			c->log(c->log_userdata, false, "%s:%u: init script %s %s could not run: %s",
			       e->rule->file, e->rule->line, script, e->polydir, strerror(-k));
		return 0;
	}
	if (k == -ETIME)
		return ns_fail(
			c->fail, e, "running the init script", script, 0,
			ns_strdupf("still running after %u s, killed", c->opts->init_timeout));
	if (k < 0)
		return ns_fail(c->fail, e, "waiting for the init script", script, k, NULL);
	if (WIFSIGNALED(status))
		return ns_fail(c->fail, e, "running the init script", script, 0,
			       ns_strdupf("killed by signal %d", WTERMSIG(status)));
	if (WEXITSTATUS(status) != 0 && c->log)
		c->log(c->log_userdata, false, "%s:%u: init script %s %s exited with status %d",
		       e->rule->file, e->rule->line, script, e->polydir, WEXITSTATUS(status));
	return 0;
}

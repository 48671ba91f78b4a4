/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * pam_driver: a small, real PAM client for the integration tests.
 *
 *   pam_driver [--confdir DIR] [--env NAME=VALUE]... [--ruser NAME] [--show-ns]
 *              [--after-close SHELL-CMD] [--markers] [--threaded] [--lookup]
 *              SERVICE USER [-- CMD ARGS...]
 *
 * Opens a PAM session for USER on SERVICE, runs CMD (if given) in a child so
 * that it sees the session's mount namespace, then closes the session. The
 * conversation refuses every prompt: a session module must not ask.
 * --show-ns prints "mnt_ns=<namespace>" after pam_open_session, whether it
 * succeeded or not, so a test can see where a failed open left the process.
 * --after-close runs SHELL-CMD with /bin/sh after pam_close_session, in this
 * process's mount namespace, so a test can see what closing undid.
 * --markers makes a system call that nothing else makes right before and
 * after pam_open_session and pam_close_session (access() of
 * /ns-fault-mark/open, /opened, /close, /closed), so that a trace tells the
 * module's calls from the client's (the fault-injection suite).
 * --threaded starts one idle thread before pam_open_session, as gdm's GLib
 * session worker has threads: the threads then share one fs_struct (root,
 * working directory, umask), as a multithreaded PAM client's do.
 * --lookup looks USER up (getpwnam) before pam_open_session, as login
 * programs do, so that a trace of the session shows the module's own
 * lookups, not the name service's first setup in the process.
 * --caller UID:GID opens the session as su run by that user does: real,
 * effective and saved gid GID, real uid UID, effective and saved uid 0.
 * --close-as UID:GID drops every uid and gid to UID and GID before
 * pam_close_session, as systemd's (sd-pam) does before it closes the
 * session of a user manager or a PAMName= unit.
 *
 * Exit status: CMD's status (128 + signal if it was killed), 0 without CMD,
 * or one of the DRIVER_EXIT_* codes below.
 */
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <security/pam_appl.h>

enum {
	DRIVER_EXIT_USAGE = 64,
	DRIVER_EXIT_START = 65,
	DRIVER_EXIT_ITEM = 66,
	DRIVER_EXIT_OPEN = 67,
	DRIVER_EXIT_CLOSE = 68,
	DRIVER_EXIT_FORK = 69,
	DRIVER_EXIT_EXEC = 127,
};

#define MAX_ENV 64

/*
 * With NS_DRIVER_KEEP_MODULES=1 (the sanitizer run sets it) the modules
 * libpam loads stay mapped after pam_end(): LeakSanitizer reports at exit,
 * and only a module still mapped can be named, with its function and line,
 * where leaked memory was allocated. A definition in the executable comes
 * first for libpam's call to dlclose().
 */
__attribute__((visibility("default"))) int dlclose(void *handle)
{
	static int (*real_dlclose)(void *);
	const char *keep = getenv("NS_DRIVER_KEEP_MODULES");

	if (keep && strcmp(keep, "1") == 0)
		return 0;
	if (!real_dlclose)
		*(void **)&real_dlclose = dlsym(RTLD_NEXT, "dlclose");
	return real_dlclose ? real_dlclose(handle) : 0;
}

/* Messages are shown on stderr; any prompt fails the conversation. */
static int conversation(int n, const struct pam_message **msg, struct pam_response **resp,
			void *data)
{
	struct pam_response *r;
	int i;

	(void)data;
	if (n <= 0 || n > PAM_MAX_NUM_MSG)
		return PAM_CONV_ERR;
	r = calloc((size_t)n, sizeof(*r));
	if (!r)
		return PAM_BUF_ERR;
	for (i = 0; i < n; i++) {
		switch (msg[i]->msg_style) {
		case PAM_ERROR_MSG:
		case PAM_TEXT_INFO:
			fprintf(stderr, "pam_driver: %s\n", msg[i]->msg ? msg[i]->msg : "");
			break;
		default:
			fprintf(stderr, "pam_driver: refusing prompt: %s\n",
				msg[i]->msg ? msg[i]->msg : "");
			free(r);
			return PAM_CONV_ERR;
		}
	}
	*resp = r;
	return PAM_SUCCESS;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: pam_driver [--confdir DIR] [--env NAME=VALUE]... [--ruser NAME] "
		   "[--show-ns]\n"
		   "                  [--after-close SHELL-CMD] [--markers] [--threaded]\n"
		   "                  [--lookup] [--caller UID:GID] [--close-as UID:GID]\n"
		   "                  SERVICE USER [-- CMD ARGS...]\n");
}

static bool markers;

/* OPTION's UID:GID argument s into *uid and *gid; false, said, if it is not one. */
static bool parse_ids(const char *option, const char *s, unsigned *uid, unsigned *gid)
{
	char end;

	if (sscanf(s, "%u:%u%c", uid, gid, &end) == 2)
		return true;
	fprintf(stderr, "pam_driver: %s wants UID:GID: %s\n", option, s);
	return false;
}

/* A mark in a system call trace; the path never exists. */
static void mark(const char *what)
{
	char path[64];

	if (!markers)
		return;
	snprintf(path, sizeof(path), "/ns-fault-mark/%s", what);
	(void)access(path, F_OK);
}

/* The idle thread of --threaded: it only waits, until the process exits. */
static void *idle_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static int start_idle_thread(void)
{
	pthread_t t;
	int r = pthread_create(&t, NULL, idle_thread, NULL);

	if (r != 0) {
		fprintf(stderr, "pam_driver: pthread_create: %s\n", strerror(r));
		return -1;
	}
	return pthread_detach(t) == 0 ? 0 : -1;
}

static void show_ns(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/ns/mnt", buf, sizeof(buf) - 1);

	if (n < 0) {
		fprintf(stderr, "pam_driver: /proc/self/ns/mnt: %s\n", strerror(errno));
		return;
	}
	buf[n] = '\0';
	printf("mnt_ns=%s\n", buf);
	fflush(stdout);
}

/* The child: the PAM environment on top of ours, then CMD. */
static void run_child(pam_handle_t *pamh, char **cmd)
{
	char **env = pam_getenvlist(pamh);
	char **e;

	for (e = env; e && *e; e++) {
		if (putenv(*e) != 0)
			fprintf(stderr, "pam_driver: putenv: %s\n", strerror(errno));
	}
	execvp(cmd[0], cmd);
	fprintf(stderr, "pam_driver: %s: %s\n", cmd[0], strerror(errno));
	_exit(DRIVER_EXIT_EXEC);
}

static int run_command(pam_handle_t *pamh, char **cmd)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "pam_driver: fork: %s\n", strerror(errno));
		return DRIVER_EXIT_FORK;
	}
	if (pid == 0)
		run_child(pamh, cmd);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "pam_driver: waitpid: %s\n", strerror(errno));
			return DRIVER_EXIT_FORK;
		}
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return DRIVER_EXIT_FORK;
}

/*
 * NS_DRIVER_VALGRIND=DIR (meson test --setup valgrind): run this program
 * again under valgrind, so that the module's in-process sessions are
 * checked for memory errors and leaks, with valgrind's report in
 * DIR/vg.TIME.PID (suppressions from NS_DRIVER_VALGRIND_SUPP); a finding makes
 * the driver exit 99. Commands the session runs are exec'd natively.
 */
static void maybe_valgrind(int argc, char **argv)
{
	const char *dir = getenv("NS_DRIVER_VALGRIND");
	const char *supp = getenv("NS_DRIVER_VALGRIND_SUPP");
	const char **vg;
	char *log, *self, *supp_arg = NULL;
	struct timespec now;
	int n = 0;

	if (!dir || !*dir)
		return;
	vg = calloc((size_t)argc + 10, sizeof(*vg));
	self = realpath("/proc/self/exe", NULL);
	/* PIDs repeat across the sandboxes' PID namespaces: add the time. */
	clock_gettime(CLOCK_REALTIME, &now);
	if (!vg || !self ||
	    asprintf(&log, "--log-file=%s/vg.%lld.%09ld.%%p", dir, (long long)now.tv_sec,
		     now.tv_nsec) < 0 ||
	    (supp && asprintf(&supp_arg, "--suppressions=%s", supp) < 0)) {
		perror("pam_driver: valgrind");
		exit(DRIVER_EXIT_START);
	}
	unsetenv("NS_DRIVER_VALGRIND");
	vg[n++] = "valgrind";
	vg[n++] = log;
	vg[n++] = "--vgdb=no";
	/* The child that execs the command would leave a log without a summary. */
	vg[n++] = "--child-silent-after-fork=yes";
	if (supp_arg)
		vg[n++] = supp_arg;
	vg[n++] = "--error-exitcode=99";
	vg[n++] = "--leak-check=full";
	vg[n++] = "--show-leak-kinds=definite";
	vg[n++] = "--errors-for-leak-kinds=definite";
	vg[n++] = self;
	for (int i = 1; i < argc; i++)
		vg[n++] = argv[i];
	execvp("valgrind", (char *const *)vg);
	perror("pam_driver: valgrind");
	exit(DRIVER_EXIT_START);
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{"confdir", required_argument, NULL, 'c'},
		{"env", required_argument, NULL, 'e'},
		{"ruser", required_argument, NULL, 'r'},
		{"show-ns", no_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},
		{"after-close", required_argument, NULL, 'a'},
		{"markers", no_argument, NULL, 'm'},
		{"threaded", no_argument, NULL, 't'},
		{"caller", required_argument, NULL, 'u'},
		{"lookup", no_argument, NULL, 'l'},
		{"close-as", required_argument, NULL, 'C'},
		{0},
	};
	struct pam_conv conv = {.conv = conversation};
	const char *confdir = NULL, *ruser = NULL, *after_close = NULL, *service, *user;
	const char *env[MAX_ENV];
	pam_handle_t *pamh = NULL;
	int nenv = 0, opt, r, rc = 0, i;
	bool show = false, threaded = false, lookup = false;
	char **cmd = NULL;
	const char *caller = NULL, *close_as = NULL;

	maybe_valgrind(argc, argv);

	while ((opt = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
		switch (opt) {
		case 'c':
			confdir = optarg;
			break;
		case 'e':
			if (nenv == MAX_ENV || !strchr(optarg, '=')) {
				fprintf(stderr, "pam_driver: bad or too many --env: %s\n", optarg);
				return DRIVER_EXIT_USAGE;
			}
			env[nenv++] = optarg;
			break;
		case 'r':
			ruser = optarg;
			break;
		case 's':
			show = true;
			break;
		case 'a':
			after_close = optarg;
			break;
		case 'm':
			markers = true;
			break;
		case 't':
			threaded = true;
			break;
		case 'u':
			caller = optarg;
			break;
		case 'l':
			lookup = true;
			break;
		case 'C':
			close_as = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return DRIVER_EXIT_USAGE;
		}
	}
	if (argc - optind < 2) {
		usage(stderr);
		return DRIVER_EXIT_USAGE;
	}
	service = argv[optind];
	user = argv[optind + 1];
	if (argc - optind > 2) {
		if (strcmp(argv[optind + 2], "--") != 0 || argc - optind < 4) {
			usage(stderr);
			return DRIVER_EXIT_USAGE;
		}
		cmd = &argv[optind + 3];
	}

	unsigned close_uid = 0, close_gid = 0;

	if (close_as && !parse_ids("--close-as", close_as, &close_uid, &close_gid))
		return DRIVER_EXIT_USAGE;
	if (caller) {
		unsigned uid, gid;

		if (!parse_ids("--caller", caller, &uid, &gid))
			return DRIVER_EXIT_USAGE;
		/* su is set-uid root only: its gids are all the caller's. */
		if (setresgid(gid, gid, gid) < 0 || setresuid(uid, 0, 0) < 0) {
			perror("pam_driver: --caller");
			return DRIVER_EXIT_START;
		}
	}
	r = confdir ? pam_start_confdir(service, user, &conv, confdir, &pamh)
		    : pam_start(service, user, &conv, &pamh);
	if (r != PAM_SUCCESS) {
		fprintf(stderr, "pam_start: %s\n", pam_strerror(pamh, r));
		return DRIVER_EXIT_START;
	}
	if (ruser)
		r = pam_set_item(pamh, PAM_RUSER, ruser);
	for (i = 0; r == PAM_SUCCESS && i < nenv; i++)
		r = pam_putenv(pamh, env[i]);
	if (r != PAM_SUCCESS) {
		fprintf(stderr, "pam_set_item/pam_putenv: %s\n", pam_strerror(pamh, r));
		pam_end(pamh, r);
		return DRIVER_EXIT_ITEM;
	}

	if (threaded && start_idle_thread() < 0) {
		pam_end(pamh, PAM_SUCCESS);
		return DRIVER_EXIT_START;
	}
	if (lookup)
		(void)getpwnam(user);
	mark("open");
	r = pam_open_session(pamh, 0);
	mark("opened");
	if (show)
		show_ns();
	if (r != PAM_SUCCESS) {
		fprintf(stderr, "pam_open_session: %s\n", pam_strerror(pamh, r));
		pam_end(pamh, r);
		return DRIVER_EXIT_OPEN;
	}
	if (cmd)
		rc = run_command(pamh, cmd);
	if (close_as && (setgroups(0, NULL) < 0 || setresgid(close_gid, close_gid, close_gid) < 0 ||
			 setresuid(close_uid, close_uid, close_uid) < 0)) {
		perror("pam_driver: --close-as");
		pam_end(pamh, PAM_SUCCESS);
		return DRIVER_EXIT_CLOSE;
	}
	mark("close");
	r = pam_close_session(pamh, 0);
	mark("closed");
	if (r != PAM_SUCCESS) {
		fprintf(stderr, "pam_close_session: %s\n", pam_strerror(pamh, r));
		rc = DRIVER_EXIT_CLOSE;
	}
	if (after_close) {
		static char shell[] = "/bin/sh", dash_c[] = "-c";
		char *sh[] = {shell, dash_c, (char *)after_close, NULL};
		int k = run_command(pamh, sh);

		if (rc == 0)
			rc = k;
	}
	pam_end(pamh, r);
	return rc;
}

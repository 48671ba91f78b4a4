/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * ns_bench's machinery (ns_bench.c says what the program does): a session
 * in a fresh child, timed inside and outside it; the floor's bare system
 * calls; medians and percentiles; targets and regression bounds; rounds
 * that interleave the contestants in a shuffled order; the pam.d services
 * and configuration files of the sandbox.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <pwd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <security/pam_appl.h>

#include "bench.h"

struct bench_opt opt = {
	.rounds = 300,
	.par_rounds = 7,
	.par_per_worker = 25,
	.n_mounts = 3000,
	.n_instances = 100000,
	.settle_us = 2000,
	.n_events = 200,
};

/* /tmp and /var/tmp polyinstantiated by user, no init script: most scenarios' configuration */
const char conf_noinit[] = "/tmp     /tmp/tmp-inst/     user:noinit root\n"
			   "/var/tmp /var/tmp/tmp-inst/ user:noinit root\n";
struct target targets[MAX_TARGETS];
size_t n_targets;
volatile double *shared;
static double last_cpu_whole; /* the CPU time of the last run_session's child, scripts included */

void die(const char *fmt, ...)
{
	va_list ap;

	fputs("ns_bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

void write_file(const char *path, mode_t mode, const char *text)
{
	FILE *f = fopen(path, "we");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		die("writing %s: %s", path, strerror(errno));
	if (chmod(path, mode) < 0)
		die("chmod %s: %s", path, strerror(errno));
}

void make_dir(const char *path, mode_t mode)
{
	if (mkdir(path, mode) < 0 && errno != EEXIST)
		die("mkdir %s: %s", path, strerror(errno));
	if (chmod(path, mode) < 0)
		die("chmod %s: %s", path, strerror(errno));
}

static uint64_t mount_id(const char *path)
{
	struct statx stx;

	if (statx(AT_FDCWD, path, 0, STATX_MNT_ID, &stx) < 0 || !(stx.stx_mask & STATX_MNT_ID))
		return 0;
	return stx.stx_mnt_id;
}

/* The sandbox mounts a throwaway /etc/security; on the host it is a plain directory. */
void refuse_outside_sandbox(void)
{
	uint64_t etc = mount_id("/etc"), sec = mount_id("/etc/security");
	uint64_t pam = mount_id("/etc/pam.d");

	if (!getenv("SB_INSIDE") || !etc || etc == sec || etc == pam)
		die("refusing to run outside the test sandbox (use tests/bench/bench.sh)");
}

/* ------------------------------------------------------------ sessions */

int conversation(int n, const struct pam_message **msg, struct pam_response **resp, void *data)
{
	for (int i = 0; i < n; i++)
		if (msg[i]->msg_style == PAM_PROMPT_ECHO_ON ||
		    msg[i]->msg_style == PAM_PROMPT_ECHO_OFF)
			return PAM_CONV_ERR;
	*resp = NULL;
	return PAM_SUCCESS;
}

/* A filter that kills the process at its first fork, clone or exec. */
static int forbid_fork(void)
{
#if defined(__x86_64__) || defined(__aarch64__)
#ifdef __x86_64__
#define BENCH_AUDIT_ARCH AUDIT_ARCH_X86_64
#else
#define BENCH_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif
#define DENY(nr)                                                                                   \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1),                                           \
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS)
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, BENCH_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		DENY(__NR_clone),
		DENY(__NR_clone3),
#ifdef __NR_fork
		DENY(__NR_fork),
		DENY(__NR_vfork),
#endif
		DENY(__NR_execve),
		DENY(__NR_execveat),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
#else
	errno = ENOSYS;
	return -1;
#endif
}

/*
 * socket(AF_NETLINK) answers EPROTONOSUPPORT, as where the kernel has no
 * audit: libpam then sends no audit messages, which are most of its own
 * cost in pam_open_session and pam_close_session.
 */
static int refuse_audit(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_NETLINK, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPROTONOSUPPORT),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

enum child_exit {
	CHILD_OK = 0,
	CHILD_START = 10,
	CHILD_OPEN,
	CHILD_CLOSE,
	CHILD_FLOOR,
	CHILD_NOT_COVERED,
	CHILD_FILTER,
};

static int floor_session(const struct contestant *c)
{
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
		return -1;
	for (size_t i = 0; i < c->n_dirs; i++)
		if (c->instances[i] && mkdir(c->instances[i], 0) < 0 && errno != EEXIST)
			return -1;
	for (size_t i = 0; i < c->n_dirs; i++) {
		int r = c->instances[i]
				? mount(c->instances[i], c->polydirs[i], NULL, MS_BIND, NULL)
				: mount("tmpfs", c->polydirs[i], "tmpfs", 0, NULL);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* User and system time of a rusage, microseconds. */
double cpu_us(const struct rusage *ru)
{
	return (double)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1e6 +
	       (double)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec);
}

/* The child: one session, timed; with verify, check that every polydir got covered. */
static int session_child(const struct contestant *c, bool verify, bool no_fork)
{
	struct pam_conv conv = {.conv = conversation};
	pam_handle_t *pamh = NULL;
	uint64_t before[MAX_DIRS] = {0};
	struct rusage ru1, ru2, rc1, rc2;
	double t1, t2;
	int r;

	if (verify)
		for (size_t i = 0; i < c->n_dirs; i++)
			before[i] = mount_id(c->polydirs[i]);
	if (c->kind != KIND_PAM) {
		/* The rules' calls look the user up as the module's caller has. */
		if (c->kind == KIND_RULES && !getpwnam(c->user))
			return CHILD_START;
		getrusage(RUSAGE_CHILDREN, &rc1);
		getrusage(RUSAGE_SELF, &ru1);
		t1 = now_us();
		r = c->kind == KIND_FLOOR ? floor_session(c) : rules_session(c);
		t2 = now_us();
		getrusage(RUSAGE_SELF, &ru2);
		getrusage(RUSAGE_CHILDREN, &rc2);
		if (r < 0)
			return CHILD_FLOOR;
	} else {
		if (pam_start(c->service, c->user, &conv, &pamh) != PAM_SUCCESS)
			return CHILD_START;
		/*
		 * As login, su and sshd do before they open a session: the
		 * first lookup sets NSS up, which is no cost of the module.
		 */
		if (!getpwnam(c->user))
			return CHILD_START;
		if (no_fork && forbid_fork() < 0)
			return CHILD_FILTER;
		if (c->no_audit && refuse_audit() < 0)
			return CHILD_FILTER;
		getrusage(RUSAGE_CHILDREN, &rc1);
		getrusage(RUSAGE_SELF, &ru1);
		t1 = now_us();
		r = pam_open_session(pamh, 0);
		if (r != PAM_SUCCESS)
			return CHILD_OPEN;
		if (verify)
			for (size_t i = 0; i < c->n_dirs; i++)
				if (mount_id(c->polydirs[i]) == before[i])
					return CHILD_NOT_COVERED;
		r = pam_close_session(pamh, 0);
		t2 = now_us();
		getrusage(RUSAGE_SELF, &ru2);
		getrusage(RUSAGE_CHILDREN, &rc2);
		pam_end(pamh, r);
		if (r != PAM_SUCCESS)
			return CHILD_CLOSE;
	}
	if (verify && c->kind != KIND_PAM)
		for (size_t i = 0; i < c->n_dirs; i++)
			if (mount_id(c->polydirs[i]) == before[i])
				return CHILD_NOT_COVERED;
	shared[0] = t2 - t1;
	shared[1] = (double)(ru2.ru_minflt - ru1.ru_minflt);
	/* The scripts a module ran are its children, waited for: counted too. */
	shared[2] = cpu_us(&ru2) - cpu_us(&ru1) + cpu_us(&rc2) - cpu_us(&rc1);
	return CHILD_OK;
}

static const char *child_error(int status)
{
	static char buf[64];

	if (WIFSIGNALED(status)) {
		snprintf(buf, sizeof(buf), "killed by signal %d", WTERMSIG(status));
		return buf;
	}
	switch (WEXITSTATUS(status)) {
	case CHILD_START:
		return "pam_start failed";
	case CHILD_OPEN:
		return "pam_open_session failed";
	case CHILD_CLOSE:
		return "pam_close_session failed";
	case CHILD_FLOOR:
		return "a system call of the floor or of the rules' calls failed";
	case CHILD_NOT_COVERED:
		return "a polydir was not covered by the session";
	case CHILD_FILTER:
		return "cannot install the seccomp filter";
	}
	snprintf(buf, sizeof(buf), "exit status %d", WEXITSTATUS(status));
	return buf;
}

/* One session in a fresh child; returns its wait status, times in *oc and *whole. */
int run_session(const struct contestant *c, bool verify, bool no_fork, double *oc, double *whole)
{
	struct rusage ru;
	double t0, t3;
	int status;
	pid_t pid;

	shared[0] = -1;
	t0 = now_us();
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0)
		_exit(session_child(c, verify, no_fork));
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			die("waitpid: %s", strerror(errno));
	t3 = now_us();
	last_cpu_whole = cpu_us(&ru);
	if (oc)
		*oc = shared[0];
	if (oc && getenv("NS_BENCH_FAULTS"))
		*oc = shared[1];
	if (whole)
		*whole = t3 - t0;
	return status;
}

void run_checked(const struct contestant *c, bool verify, double *oc, double *whole)
{
	int status = run_session(c, verify, false, oc, whole);

	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		die("%s: session for %s: %s", c->label, c->user, child_error(status));
}

/* ------------------------------------------------------------ statistics */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of n values (p in 0..100). */
double percentile(const double *v, size_t n, double p)
{
	double *s;
	double r;
	size_t k;

	if (n == 0)
		return 0;
	s = malloc(n * sizeof(*s));
	if (!s)
		die("out of memory");
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	k = (size_t)(p / 100.0 * (double)n + 0.999999);
	k = k == 0 ? 0 : k - 1;
	if (k >= n)
		k = n - 1;
	r = s[k];
	free(s);
	return r;
}

double median_oc(const struct contestant *c)
{
	return percentile(c->oc, c->n, 50);
}

double median_whole(const struct contestant *c)
{
	return percentile(c->whole, c->n, 50);
}

double cpu_oc(const struct contestant *c)
{
	return percentile(c->cpu_oc, c->n, 50);
}

double cpu_whole(const struct contestant *c)
{
	return percentile(c->cpu_whole, c->n, 50);
}

void add_target(enum cmp cmp, double value, double limit, const char *unit, const char *fmt, ...)
{
	struct target *t;
	va_list ap;

	if (n_targets == MAX_TARGETS)
		die("too many targets");
	t = &targets[n_targets++];
	va_start(ap, fmt);
	vsnprintf(t->what, sizeof(t->what), fmt, ap);
	va_end(ap);
	t->value = value;
	t->limit = limit;
	t->cmp = cmp;
	t->unit = unit;
}

/*
 * For the last target, a ratio of open+close: no module takes less than
 * libpam around it (a pam_permit.so service) plus the floor's calls.
 */
void set_least(double libpam_alone, double floor_oc, double reference)
{
	if (n_targets > 0 && reference > 0)
		targets[n_targets - 1].least = (libpam_alone + floor_oc) / reference;
}

/*
 * The last target, a ratio against Linux-PAM's module, fails the run past
 * bound: its limit where the target is met, a regression bound where not.
 * The bound is enforced on the same ratio of CPU times (on): other load
 * on the machine stretches the wall time of both modules by the same
 * microseconds, and so pulls a ratio of wall times towards 1, but leaves
 * what each session costs in CPU. A script's CPU time is its module's.
 */
void set_bound(double bound, double enforced, const char *on)
{
	double slack = opt.bound_slack > 0 ? opt.bound_slack : 1.0;
	struct target *t;

	if (n_targets == 0)
		return;
	t = &targets[n_targets - 1];
	t->bound = t->cmp == AT_LEAST ? bound / slack : bound * slack;
	t->enforced = enforced;
	t->enforced_on = on;
}

static bool within(enum cmp cmp, double value, double limit)
{
	switch (cmp) {
	case AT_MOST:
		return value <= limit;
	case AT_LEAST:
		return value >= limit;
	case BELOW:
		return value < limit;
	}
	return false;
}

bool target_met(const struct target *t)
{
	return within(t->cmp, t->value, t->limit);
}

bool bound_kept(const struct target *t)
{
	return t->bound <= 0 || opt.no_bounds || within(t->cmp, t->enforced, t->bound);
}

void print_target(const struct target *t)
{
	static const char *const sign[] = {[AT_MOST] = "<=", [AT_LEAST] = ">=", [BELOW] = "<"};
	char value[32], limit[32], least[48] = "", bound[128] = "";
	const char *kept = opt.no_bounds ? "not enforced" : bound_kept(t) ? "kept" : "BROKEN";

	if (t->unit) {
		snprintf(value, sizeof(value), "%.1f %s", t->value, t->unit);
		snprintf(limit, sizeof(limit), "%.0f %s", t->limit, t->unit);
	} else {
		snprintf(value, sizeof(value), "%.2fx", t->value);
		snprintf(limit, sizeof(limit), "%.2fx", t->limit);
	}
	if (t->least > 0)
		snprintf(least, sizeof(least), "; any module >= %.2fx", t->least);
	if (t->bound > 0 && t->bound != t->limit)
		snprintf(bound, sizeof(bound), "; %s %.2fx, regression bound %s %.2fx: %s",
			 t->enforced_on, t->enforced, sign[t->cmp], t->bound, kept);
	else if (t->bound > 0)
		snprintf(bound, sizeof(bound), "; %s %.2fx, enforced: %s", t->enforced_on,
			 t->enforced, kept);
	printf("  %-4s %-64s %10s (target %s %s%s%s)\n", target_met(t) ? "PASS" : "MISS", t->what,
	       value, sign[t->cmp], limit, least, bound);
	if (t->n_runs > 1) {
		printf("       %s in each of %u runs:", t->enforced_on, t->n_runs);
		for (unsigned r = 0; r < t->n_runs; r++)
			printf(" %.2fx", t->runs[r]);
		printf(" (their median counts)\n");
	}
}

/* ------------------------------------------------------------ rounds */

/*
 * A short pause before each timed session: the kernel frees what the last
 * one left (a namespace of 3,000 mounts goes through RCU) after the child
 * is gone, and that work should not land in the next session's time.
 */
static void settle(void)
{
	struct timespec ts = {.tv_nsec = opt.settle_us * 1000L};

	if (opt.settle_us)
		nanosleep(&ts, NULL);
}

/*
 * A new order for each round (the same sequence in every run): what one
 * session leaves to the kernel to finish, such as tearing down a namespace
 * of 3,000 mounts, then falls on every contestant alike.
 */
void shuffle(size_t *order, size_t n)
{
	static unsigned long long state = 88172645463325252ULL;

	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = n; i > 1; i--) {
		size_t j, t;

		state ^= state << 13;
		state ^= state >> 7;
		state ^= state << 17;
		j = (size_t)(state % i);
		t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
}

/*
 * Warm up (and check once that each contestant really covers its
 * polydirs), then rounds in which every contestant runs once, in a
 * shuffled order, so that drift and noise from other load fall on all alike.
 */
void run_rounds(struct contestant *cs, size_t n)
{
	if (n > 16)
		die("too many contestants");
	for (size_t i = 0; i < n; i++) {
		cs[i].oc = calloc(opt.rounds, sizeof(double));
		cs[i].whole = calloc(opt.rounds, sizeof(double));
		cs[i].cpu_oc = calloc(opt.rounds, sizeof(double));
		cs[i].cpu_whole = calloc(opt.rounds, sizeof(double));
		if (!cs[i].oc || !cs[i].whole || !cs[i].cpu_oc || !cs[i].cpu_whole)
			die("out of memory");
		cs[i].n = 0;
		run_checked(&cs[i], true, NULL, NULL);
		for (int w = 0; w < 3; w++)
			run_checked(&cs[i], false, NULL, NULL);
	}
	for (unsigned r = 0; r < opt.rounds; r++) {
		size_t order[16];

		shuffle(order, n);
		for (size_t j = 0; j < n; j++) {
			struct contestant *c = &cs[order[j]];

			settle();
			run_checked(c, false, &c->oc[c->n], &c->whole[c->n]);
			c->cpu_oc[c->n] = shared[2];
			c->cpu_whole[c->n] = last_cpu_whole;
			c->n++;
		}
	}
}

void print_table(const char *title, const struct contestant *cs, size_t n)
{
	printf("\n== %s (%u rounds)\n", title, opt.rounds);
	printf("  %-22s %12s %10s %10s %14s %10s %10s\n", "", "open+close", "p90", "CPU",
	       "whole child", "p90", "CPU");
	for (size_t i = 0; i < n; i++)
		printf("  %-22s %9.0f us %7.0f us %7.0f us %11.0f us %7.0f us %7.0f us\n",
		       cs[i].label, median_oc(&cs[i]), percentile(cs[i].oc, cs[i].n, 90),
		       cpu_oc(&cs[i]), median_whole(&cs[i]), percentile(cs[i].whole, cs[i].n, 90),
		       cpu_whole(&cs[i]));
}

void free_contestants(struct contestant *cs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(cs[i].oc);
		free(cs[i].whole);
		free(cs[i].cpu_oc);
		free(cs[i].cpu_whole);
		cs[i].oc = cs[i].whole = cs[i].cpu_oc = cs[i].cpu_whole = NULL;
	}
}

/* ------------------------------------------------------------ setup */

void set_conf(const char *path, const char *text)
{
	write_file(path, 0644, text);
}

void write_services(void)
{
	char line[4096];

	snprintf(line, sizeof(line), "session required %s\n", opt.ours);
	write_file("/etc/pam.d/ns-bench-ours", 0644, line);
	snprintf(line, sizeof(line), "session required %s config_dir=" CONF_DIR "\n", opt.ours);
	write_file("/etc/pam.d/ns-bench-ours-cd", 0644, line);
	snprintf(line, sizeof(line), "session required %s\n", opt.lpam);
	write_file("/etc/pam.d/ns-bench-lpam", 0644, line);
	snprintf(line, sizeof(line), "session required %s mount_private\n", opt.lpam);
	write_file("/etc/pam.d/ns-bench-lpam-private", 0644, line);
	if (opt.baseline) {
		snprintf(line, sizeof(line), "session required %s\n", opt.baseline);
		write_file("/etc/pam.d/ns-bench-baseline", 0644, line);
		snprintf(line, sizeof(line), "session required %s share_namespace\n", opt.baseline);
		write_file("/etc/pam.d/ns-bench-baseline-share", 0644, line);
	}
	write_file("/etc/pam.d/ns-bench-permit", 0644, "session required pam_permit.so\n");
	/*
	 * As login and su run the module: after pam_limits, one of the modules
	 * of theirs that look the user up through libpam first.
	 */
	write_file("/etc/security/limits.conf", 0644, "# no limits: pam_limits only reads it\n");
	snprintf(line, sizeof(line), "session required pam_limits.so\nsession required %s\n",
		 opt.ours);
	write_file("/etc/pam.d/ns-bench-limits-ours", 0644, line);
	snprintf(line, sizeof(line), "session required pam_limits.so\nsession required %s\n",
		 opt.lpam);
	write_file("/etc/pam.d/ns-bench-limits-lpam", 0644, line);
	write_file("/etc/pam.d/ns-bench-limits", 0644,
		   "session required pam_limits.so\nsession required pam_permit.so\n");
	snprintf(line, sizeof(line), "session required %s share_namespace\n", opt.ours);
	write_file("/etc/pam.d/ns-bench-ours-share", 0644, line);
	snprintf(line, sizeof(line), "session required %s share_namespace mount_private\n",
		 opt.ours);
	write_file("/etc/pam.d/ns-bench-ours-share-private", 0644, line);
}

#define TWO_DIRS	     .polydirs = {"/tmp", "/var/tmp"}, .n_dirs = 2
#define USER_INSTANCES(a, b) .instances = {a, b}

struct contestant pam_contestant(const char *label, const char *service, const char *user)
{
	return (struct contestant){
		.label = label, .kind = KIND_PAM, .service = service, .user = user, TWO_DIRS};
}

/* libpam's own cost: a service with pam_permit.so only. */
struct contestant permit_contestant(void)
{
	return (struct contestant){.label = "libpam alone (permit)",
				   .kind = KIND_PAM,
				   .service = "ns-bench-permit",
				   .user = "alice"};
}

struct contestant floor_contestant(const char *label, const char *inst_tmp, const char *inst_vartmp)
{
	return (struct contestant){.label = label,
				   .kind = KIND_FLOOR,
				   .user = "-",
				   TWO_DIRS,
				   USER_INSTANCES(inst_tmp, inst_vartmp)};
}

/* The module's system calls in a plain session of alice's, and nothing else (rules.c). */
struct contestant rules_contestant(void)
{
	return (struct contestant){
		.label = "the rules' calls",
		.kind = KIND_RULES,
		.user = "alice",
		TWO_DIRS,
		USER_INSTANCES("/tmp/tmp-inst/alice", "/var/tmp/tmp-inst/alice")};
}

bool wanted(const char *name)
{
	if (opt.n_only == 0)
		return true;
	for (size_t i = 0; i < opt.n_only; i++)
		if (strcmp(opt.only[i], name) == 0)
			return true;
	return false;
}

/* Whether a session forks or execs: 1 if it did, 0 if not. */
int forks(const struct contestant *c)
{
	int status = run_session(c, false, true, NULL, NULL);

	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS)
		return 1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		die("%s: no-fork probe: %s", c->label, child_error(status));
	return 0;
}

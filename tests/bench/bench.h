/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * What ns_bench.c (the scenarios and main) and bench_core.c (sessions,
 * statistics, targets, rounds and setup) share: one program.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <security/pam_appl.h>

#define BENCH_DIR   "/run/ns-bench"
#define CONF_DIR    BENCH_DIR "/cd" /* our module's config_dir= */
#define MOUNTS_DIR  BENCH_DIR "/mounts"
#define MAX_DIRS    2
#define MAX_TARGETS 64
/*
 * Regression bounds of the ratios against Linux-PAM whose targets (0.35x)
 * this module misses: above what it was measured to take (README.md), so
 * that noise passes and a regression does not.
 */
/*
 * Raised from 0.60 and 0.70 with issue 31's fixes, whose cost each session
 * now pays (not yet measured fix by fix; among them the instance parent
 * locked while an instance is looked for, point 11, and the working
 * directory walked back without following a user's link, point 6).
 * Measured after them, the machine loaded: noinit 0.66x to 0.70x, tmpfs
 * 0.67x to 0.70x. Issue 34 is to bring both down.
 */
#define BOUND_NOINIT_OC 0.75
#define BOUND_TMPFS_OC	0.80
#define BOUND_MOUNTS_OC 0.50
/*
 * noinit's whole child (fork, loading the module, open, close, exit): the
 * target is Linux-PAM's (1.0x); measured 0.97x to 1.02x after issue 31's
 * fixes, a regression bound just above. Issue 34 measures the module's size.
 */
#define BOUND_NOINIT_WHOLE 1.08
/* share_namespace: a building session's CPU against Linux-PAM's (target 1.0x) */
#define BOUND_SHARE_BUILD_OC 1.50
/*
 * The init script is started by fork and exec, as Linux-PAM starts it, since
 * it must run with real, effective and saved ids 0 (issue 31 point 4), which
 * posix_spawn cannot give: at most Linux-PAM's (measured 0.94x to 0.96x).
 */
#define BOUND_INIT_OC 1.00
/*
 * 16 sessions at once: Linux-PAM's CPU per one of ours, at least this
 * (measured 0.94 to 1.01 after issue 31's fixes; it was 1.0).
 */
#define BOUND_PARALLEL_CPU 0.90
#define MAX_ATTEMPTS	   3

enum kind {
	KIND_PAM,
	KIND_FLOOR,
	KIND_RULES, /* the module's calls, nothing between them (rules.c) */
};

struct contestant {
	const char *label;
	enum kind kind;
	const char *service; /* KIND_PAM */
	bool no_audit;	     /* libpam's audit socket refused, as by a kernel without audit */
	const char *user;
	/* The polydirs; for the floor and the rules' calls, each one's instance (NULL: tmpfs). */
	const char *polydirs[MAX_DIRS];
	const char *instances[MAX_DIRS];
	size_t n_dirs;
	double *oc, *whole;	    /* microseconds, one per round */
	double *cpu_oc, *cpu_whole; /* CPU time of the same, microseconds */
	size_t n;
};

enum cmp {
	AT_MOST,
	AT_LEAST,
	BELOW,
};

struct target {
	char what[160];
	double value, limit;
	enum cmp cmp;
	const char *unit; /* NULL: a ratio */
	bool exact;	  /* not a timing: missed, it fails the run even without --strict */
	double least;	  /* > 0: the least ratio any PAM module could show here */
	double bound;	  /* > 0: a ratio against Linux-PAM, enforced at this */
	double enforced;  /* the ratio the bound is enforced on: of CPU times */
	const char *enforced_on;
	/* a scenario run again: enforced, in each run; enforced is their median */
	double runs[MAX_ATTEMPTS];
	unsigned n_runs;
};

struct bench_opt {
	const char *ours, *lpam, *baseline;
	unsigned rounds, par_rounds, par_per_worker, n_mounts, n_instances, settle_us;
	/* scenario scale: sessions held at once, of how many users; host mount events timed */
	unsigned n_sessions, n_users, n_events, n_passes;
	bool smoke, strict, no_bounds;
	/* every regression bound looser by this factor (--bound-slack; 0: 1) */
	double bound_slack;
	const char *only[16];
	size_t n_only;
};

/* The command line (ns_bench.c's main), with its defaults. */
extern struct bench_opt opt;
extern const char conf_noinit[];
/* The targets and bounds the scenarios set, printed and checked at the end. */
extern struct target targets[MAX_TARGETS];
extern size_t n_targets;
/* [0]: the child's open+close time, [1] its page faults, [2] the CPU time of its open+close */
extern volatile double *shared;

/* helpers */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
double now_us(void);
void write_file(const char *path, mode_t mode, const char *text);
void make_dir(const char *path, mode_t mode);
void refuse_outside_sandbox(void);

/* sessions */
int conversation(int n, const struct pam_message **msg, struct pam_response **resp, void *data);
double cpu_us(const struct rusage *ru);
int run_session(const struct contestant *c, bool verify, bool no_fork, double *oc, double *whole);
void run_checked(const struct contestant *c, bool verify, double *oc, double *whole);

/* statistics */
double percentile(const double *v, size_t n, double p);
double median_oc(const struct contestant *c);
double median_whole(const struct contestant *c);
double cpu_oc(const struct contestant *c);
double cpu_whole(const struct contestant *c);
void add_target(enum cmp cmp, double value, double limit, const char *unit, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void set_least(double libpam_alone, double floor_oc, double reference);
void set_bound(double bound, double enforced, const char *on);
bool target_met(const struct target *t);
bool bound_kept(const struct target *t);
void print_target(const struct target *t);

/* rounds */
void shuffle(size_t *order, size_t n);
void run_rounds(struct contestant *cs, size_t n);
void print_table(const char *title, const struct contestant *cs, size_t n);
void free_contestants(struct contestant *cs, size_t n);

/* setup */
void set_conf(const char *path, const char *text);
void write_services(void);
struct contestant pam_contestant(const char *label, const char *service, const char *user);
struct contestant permit_contestant(void);
struct contestant floor_contestant(const char *label, const char *inst_tmp,
				   const char *inst_vartmp);
struct contestant rules_contestant(void);
int rules_session(const struct contestant *c);
int run_rules_once(const struct contestant *c);
bool wanted(const char *name);
void make_mounts(unsigned n);
void drop_mounts(void);

/* scenarios in files of their own */
void scenario_share(void);
void scenario_scale(void);
int forks(const struct contestant *c);

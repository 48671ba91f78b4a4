/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * The PAM glue: arguments once, the user, the configuration, the plan,
 * apply, and the one place where failures are logged and turned into PAM
 * return codes (SPEC section 7).
 */
#include <errno.h>
#include <pwd.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <security/pam_modutil.h>

#include "apply.h"
#include "args.h"
#include "config.h"
#include "lookup.h"
#include "naming.h"
#include "ns-build.h"
#include "once.h"
#include "plan.h"
#include "selinux.h"
#include "setup.h"
#include "share.h"

#define NS_DATA_SESSION "pam_namespace:session"
#define NS_DATA_SHARE	"pam_namespace:share"
#define NS_DATA_ONCE	"pam_namespace:once"

#define PUBLIC __attribute__((visibility("default")))

struct glue {
	pam_handle_t *pamh;
	bool debug;
};

static void diag_to_syslog(void *userdata, enum ns_severity sev, const char *file, unsigned line,
			   unsigned column, const char *message)
{
	struct glue *g = userdata;
	int prio = sev == NS_ERROR ? LOG_ERR : sev == NS_WARNING ? LOG_WARNING : LOG_DEBUG;

	if (sev == NS_DEBUG && !g->debug)
		return;
	if (file && line && column)
		pam_syslog(g->pamh, prio, "%s:%u:%u: %s", file, line, column, message);
	else if (file && line)
		pam_syslog(g->pamh, prio, "%s:%u: %s", file, line, message);
	else if (file)
		pam_syslog(g->pamh, prio, "%s: %s", file, message);
	else
		pam_syslog(g->pamh, prio, "%s", message);
}

static void apply_log(void *userdata, bool debug, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void apply_log(void *userdata, bool debug, const char *fmt, ...)
{
	struct glue *g = userdata;
	va_list ap;

	if (debug && !g->debug)
		return;
	va_start(ap, fmt);
	pam_vsyslog(g->pamh, debug ? LOG_DEBUG : LOG_NOTICE, fmt, ap);
	va_end(ap);
}

/*
 * The one log line of a failed apply: file:line, what, path, why; a denial
 * names the SELinux boolean that is off, the likely cause.
 */
static void log_failure(pam_handle_t *pamh, const struct ns_failure *f)
{
	const char *file = f->entry ? f->entry->rule->file : "pam_namespace";
	unsigned line = f->entry ? f->entry->rule->line : 0;
	const char *err = f->error < 0 ? strerror(-f->error) : "";
	bool known = true;
	const char *b = f->error == -EACCES || f->error == -EPERM
				? ns_selinux_polyinstantiation_suspect(&known)
				: NULL;
	const char *b1 = b ? " (SELinux's boolean " : "";
	const char *b2 = !b	 ? ""
			 : known ? " is off)"
				 : " may be off: this program may not read it)";

	if (!b)
		b = "";
	/* No path: no blank before the colon. */
	if (line)
		pam_syslog(pamh, LOG_ERR, "%s:%u: %s%s%s: %s%s%s%s%s%s", file, line, f->what,
			   f->path ? " " : "", f->path ? f->path : "", err,
			   f->error < 0 && f->detail ? ": " : "", f->detail ? f->detail : "", b1, b,
			   b2);
	else
		pam_syslog(pamh, LOG_ERR, "%s%s%s: %s%s%s%s%s%s", f->what, f->path ? " " : "",
			   f->path ? f->path : "", err, f->error < 0 && f->detail ? ": " : "",
			   f->detail ? f->detail : "", b1, b, b2);
}

/* SPEC 7: setup and configuration failures are session errors; running out of memory is internal.
 */
static int pam_code(int r)
{
	return r == -ENOMEM ? PAM_SYSTEM_ERR : PAM_SESSION_ERR;
}

enum want {
	WANT_UMASK,	     /* create without a mode: 0777 less the umask */
	WANT_DEFAULT_SCRIPT, /* neither noinit nor iscript= */
};

/* Whether any line needs it: each costs a session system calls otherwise spent for nothing. */
static bool config_wants(const struct ns_config *cfg, enum want w)
{
	for (size_t i = 0; i < cfg->n_rules; i++) {
		const struct ns_rule *r = &cfg->rules[i];

		if (w == WANT_UMASK && r->create && !r->create_has_mode)
			return true;
		if (w == WANT_DEFAULT_SCRIPT && !r->noinit && !r->iscript)
			return true;
	}
	return false;
}

struct undo_list {
	char **polydirs;
	size_t n;
	uid_t uid; /* the original user's */
};

static void undo_list_free(struct undo_list *u)
{
	for (size_t i = 0; i < u->n; i++)
		free(u->polydirs[i]);
	free(u->polydirs);
	*u = (struct undo_list){0};
}

/*
 * unmnt_remnt and unmnt_only (su, newrole): the polydirs that the original
 * user's session mounted. The original user is PAM_RUSER when the
 * application set it, else the user of the real uid, as in Linux-PAM; one
 * that does not exist is an unknown user. pam_get_item initialises nothing
 * it does not return, so the item starts as NULL (Linux-PAM read an
 * uninitialised buffer here).
 */
static int plan_original_user(pam_handle_t *pamh, const struct ns_config *cfg,
			      const struct ns_lookup *lookup, const struct ns_plan_opts *opts,
			      struct ns_diag *diag, struct undo_list *ret)
{
	const void *item = NULL;
	const char *ruser = NULL;
	struct ns_user orig;
	struct ns_plan plan = {0};
	struct undo_list u = {0};
	struct passwd *pw;
	int r;

	if (pam_get_item(pamh, PAM_RUSER, &item) == PAM_SUCCESS && item &&
	    *(const char *)item != '\0')
		ruser = item;
	if (ruser)
		pw = ns_user_name_valid(ruser) < 0 ? NULL : pam_modutil_getpwnam(pamh, ruser);
	else
		pw = pam_modutil_getpwuid(pamh, getuid());
	if (!pw) {
		pam_syslog(pamh, LOG_ERR, "unknown original user (%s)",
			   ruser ? "PAM_RUSER" : "the real uid");
		return -ESRCH;
	}
	orig = (struct ns_user){
		.name = pw->pw_name, .uid = pw->pw_uid, .gid = pw->pw_gid, .home = pw->pw_dir};
	r = ns_plan_build(&plan, cfg, &orig, lookup, opts, diag);
	if (r < 0)
		return r;
	if (plan.n_entries) {
		u.polydirs = calloc(plan.n_entries, sizeof(*u.polydirs));
		if (!u.polydirs) {
			ns_plan_free(&plan);
			return -ENOMEM;
		}
	}
	for (size_t i = 0; i < plan.n_entries; i++, u.n++) {
		u.polydirs[i] = strdup(plan.entries[i].polydir);
		if (!u.polydirs[i]) {
			undo_list_free(&u);
			ns_plan_free(&plan);
			return -ENOMEM;
		}
	}
	ns_plan_free(&plan);
	u.uid = pw->pw_uid;
	*ret = u;
	return 0;
}

static void session_cleanup(pam_handle_t *pamh, void *data, int error_status)
{
	ns_session_free(data);
	free(data);
}

static void share_cleanup(pam_handle_t *pamh, void *data, int error_status)
{
	ns_share_free(data);
}

/*
 * Kept as PAM data once a line of this handle's stack has set the session
 * up (built) or found it set up already: later lines of the same stack
 * (su-l including su, common-session and a service's own line) only count
 * themselves in nested, and their closes count down, so that only the
 * last close of the stack undoes what the first open made.
 */
struct once_data {
	unsigned nested;
	bool built;	       /* this handle built a namespace (else found one) */
	bool unmount_on_close; /* the builder's argument: the close that undoes it uses it */
};

static void once_cleanup(pam_handle_t *pamh, void *data, int error_status)
{
	free(data);
}

/* Keep what close needs to know; a failure is logged, and the session refused. */
static int once_keep(pam_handle_t *pamh, bool built, bool unmount_on_close)
{
	struct once_data *o = calloc(1, sizeof(*o));
	int r = o ? PAM_SUCCESS : PAM_BUF_ERR;

	if (o) {
		*o = (struct once_data){.built = built, .unmount_on_close = unmount_on_close};
		r = pam_set_data(pamh, NS_DATA_ONCE, o, once_cleanup);
	}
	if (r != PAM_SUCCESS) {
		pam_syslog(pamh, LOG_ERR, "cannot keep the session data: %s",
			   pam_strerror(pamh, r));
		free(o);
		return PAM_SYSTEM_ERR;
	}
	return PAM_SUCCESS;
}

/*
 * Whether a refused session may tell its user: not with PAM_SILENT, not
 * without a conversation, not for cron, at or systemd's user manager (their
 * conversation reaches nobody, or a mail), and only where someone is at the
 * other end: a PAM_TTY (a terminal, or sshd's "ssh"), or a terminal on
 * stderr (su run from a shell without one on stdin).
 */
static bool may_tell_user(pam_handle_t *pamh, int flags)
{
	static const char *const quiet[] = {"cron", "crond", "atd", "systemd-user"};
	const void *conv = NULL, *service = NULL, *tty = NULL;

	if (flags & PAM_SILENT)
		return false;
	if (pam_get_item(pamh, PAM_CONV, &conv) != PAM_SUCCESS || !conv ||
	    !((const struct pam_conv *)conv)->conv)
		return false;
	if (pam_get_item(pamh, PAM_SERVICE, &service) == PAM_SUCCESS && service)
		for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++)
			if (strcmp(service, quiet[i]) == 0)
				return false;
	if (pam_get_item(pamh, PAM_TTY, &tty) == PAM_SUCCESS && tty && *(const char *)tty)
		return strcmp(tty, "cron") != 0;
	return isatty(STDERR_FILENO) == 1;
}

/* The one line a refused user sees; the reason is in the system log only. */
static void tell_user(pam_handle_t *pamh, int flags, const char *polydir)
{
	if (!may_tell_user(pamh, flags))
		return;
	if (polydir)
		(void)pam_error(pamh,
				"pam_namespace: private %s could not be set up; the system log has "
				"the reason",
				polydir);
	else
		(void)pam_error(pamh, "pam_namespace: private directories could not be set up; "
				      "the system log has the reason");
}

/*
 * Whether the caller is in a namespace with this user's plan in place
 * already (once.h): 1 if so, with the one debug line; 0 if not, or where
 * that cannot be told (logged: the session is then set up anew). Not for
 * unmnt_only, which only undoes.
 */
static int already_in(pam_handle_t *pamh, const struct ns_args *args, const struct ns_plan *plan,
		      const struct ns_user *u, const char *share_key)
{
	const char *how = "share_namespace's pin";
	int r;

	if (plan->n_entries == 0 || args->unmnt_only)
		return 0;
	r = args->share_namespace ? ns_once_in_shared(u->uid, share_key) : 0;
	/* Also with share_namespace: a session that could not share has a namespace of its own. */
	if (r == 0) {
		how = "its polydirs are mounts of its instances";
		r = ns_once_in_place(plan);
	}
	if (r < 0) {
		pam_syslog(pamh, LOG_WARNING,
			   "cannot tell whether this process is in %s's namespace already: %s; "
			   "setting it up",
			   u->name, strerror(-r));
		return 0;
	}
	if (r > 0)
		pam_syslog(pamh, LOG_DEBUG,
			   "this process is in the namespace set up for %s already (%s): nothing "
			   "mounted",
			   u->name, how);
	return r;
}

/*
 * The session's user as an earlier module of this handle's stacks looked
 * it up: pam_modutil_getpwnam() files each entry it returns in the
 * handle's data, named "_pammodutil_getpwnam_USER_N" (N from 0, the first
 * free one), so that it lives as long as the handle. Debian's login, su
 * and sshd run pam_limits, pam_loginuid, pam_mail or pam_lastlog before
 * common-session: the entry is there, and a second lookup through NSS
 * (a read of /etc/passwd, or a round trip to sssd or LDAP) would give this
 * same transaction the same answer. NULL where no module looked the name
 * up, or the entry lacks what a plan reads: then the module looks it up.
 */
static const struct passwd *user_looked_up(pam_handle_t *pamh, const char *user)
{
	char key[sizeof("_pammodutil_getpwnam__0") + NS_USER_NAME_MAX];
	const void *data = NULL;
	const struct passwd *pw;
	int n = snprintf(key, sizeof(key), "_pammodutil_getpwnam_%s_0", user);

	if (n < 0 || (size_t)n >= sizeof(key) || pam_get_data(pamh, key, &data) != PAM_SUCCESS ||
	    !data)
		return NULL;
	pw = data;
	return pw->pw_name && pw->pw_dir ? pw : NULL;
}

static int parse_args(struct glue *g, struct ns_args *args, int argc, const char **argv)
{
	struct ns_diag diag = {.report = diag_to_syslog, .userdata = g};

	/* debug first, so that the warnings about the others are seen. */
	for (int i = 0; i < argc; i++)
		if (strcmp(argv[i], "debug") == 0)
			g->debug = true;
	if (ns_args_parse(args, argc, argv, &diag) < 0)
		return PAM_SESSION_ERR;
	return PAM_SUCCESS;
}

PUBLIC int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	struct glue g = {.pamh = pamh};
	struct ns_diag diag = {.report = diag_to_syslog, .userdata = &g};
	struct ns_lookup lookup = ns_host_lookup();
	struct ns_args args;
	struct ns_config cfg = {0};
	struct ns_plan plan = {0};
	struct ns_failure fail = {0};
	struct ns_session *sess = NULL;
	struct ns_share *share = NULL;
	struct undo_list undo = {0};
	struct passwd pwd;
	const struct passwd *pw;
	char pw_stack[2048], *pw_heap = NULL;
	const char *user = NULL;
	const void *data = NULL;
	char share_key[33] = "";
	struct ns_setup setup = {0};
	char *context = NULL;
	mode_t mask;
	int r, ret;

	ret = parse_args(&g, &args, argc, argv);
	if (ret != PAM_SUCCESS) {
		tell_user(pamh, flags, NULL);
		return ret;
	}
	/* A second line of this stack: the session is set up already (once.h). */
	if (pam_get_data(pamh, NS_DATA_ONCE, &data) == PAM_SUCCESS && data) {
		((struct once_data *)data)->nested++;
		pam_syslog(pamh, LOG_DEBUG,
			   "set up already by an earlier pam_namespace line of this session's "
			   "stack: nothing mounted");
		return PAM_SUCCESS;
	}

	r = pam_get_user(pamh, &user, NULL);
	if (r != PAM_SUCCESS || !user) {
		pam_syslog(pamh, LOG_ERR, "cannot get the user name: %s", pam_strerror(pamh, r));
		return PAM_USER_UNKNOWN;
	}
	if (ns_user_name_valid(user) < 0) {
		pam_syslog(pamh, LOG_ERR, "refusing user name unfit for a path");
		return PAM_USER_UNKNOWN;
	}
	/*
	 * The session's user: an earlier module's lookup where there was one,
	 * else into this buffer, not pam_modutil_getpwnam(), whose copy on
	 * the heap and entry in the handle's data each session would pay for
	 * and nothing reads again.
	 */
	pw = user_looked_up(pamh, user);
	r = pw ? 0 : ns_nss_lookup(user, false, &pwd, pw_stack, sizeof(pw_stack), &pw_heap);
	if (r < 0) {
		if (r == -ENOENT) /* also what some services answer */
			pam_syslog(pamh, LOG_ERR, "unknown user %s", user);
		else
			pam_syslog(pamh, LOG_ERR, "cannot look up user %s: %s", user, strerror(-r));
		ret = PAM_USER_UNKNOWN;
		goto out;
	}
	if (!pw)
		pw = &pwd;
	if (args.require_selinux && !ns_selinux_enabled()) {
		pam_syslog(pamh, LOG_ERR, "require_selinux given, but SELinux is not enabled");
		ret = PAM_SESSION_ERR;
		goto out;
	}

	if (ns_setup_paths(&setup, &args) < 0) {
		ret = PAM_SYSTEM_ERR;
		goto out;
	}
	r = ns_config_load(&cfg, &setup.paths, setup.config_flags, &diag);
	if (r < 0) {
		ret = pam_code(r);
		goto out;
	}

	r = ns_selinux_user_context(&args, user, &context);
	if (r < 0) {
		pam_syslog(pamh, LOG_ERR, "cannot get the SELinux context of %s: %s", user,
			   strerror(-r));
		ret = PAM_SESSION_ERR;
		goto out;
	}

	struct ns_user u = {
		.name = user,
		.uid = pw->pw_uid,
		.gid = pw->pw_gid,
		.home = pw->pw_dir,
		.context = context,
	};
	/* The process umask and the default script only where a line can use them. */
	mask = 0;
	if (config_wants(&cfg, WANT_UMASK)) {
		mask = umask(0);
		umask(mask);
	}
	struct ns_plan_opts popts = setup.plan_opts;
	popts.umask = mask;
	if (config_wants(&cfg, WANT_DEFAULT_SCRIPT))
		popts.init_script = ns_setup_default_script(&setup);
	r = ns_plan_build(&plan, &cfg, &u, &lookup, &popts, &diag);
	if (r < 0) {
		ret = pam_code(r);
		goto out;
	}
	if (args.unmnt_remnt || args.unmnt_only) {
		r = plan_original_user(pamh, &cfg, &lookup, &popts, &diag, &undo);
		if (r < 0) {
			ret = r == -ESRCH ? PAM_USER_UNKNOWN : pam_code(r);
			goto out;
		}
		if (args.unmnt_only)
			ns_plan_free(&plan);
	}
	if (plan.n_entries == 0 && undo.n == 0) {
		if (g.debug)
			pam_syslog(pamh, LOG_DEBUG, "no polyinstantiated directory for %s", user);
		ret = PAM_SUCCESS;
		goto out;
	}

	if (g.debug)
		for (size_t i = 0; i < plan.n_entries; i++) {
			const struct ns_plan_entry *e = &plan.entries[i];

			pam_syslog(pamh, LOG_DEBUG, "%s:%u: plan: %s on %s, instance %s, init %s",
				   e->rule->file, e->rule->line, ns_method_to_string(e->method),
				   e->polydir, e->instance ? e->instance : "tmpfs",
				   e->init_script ? e->init_script : "none");
		}

	sess = calloc(1, sizeof(*sess));
	if (!sess) {
		ret = PAM_SYSTEM_ERR;
		goto out;
	}
	struct ns_apply_opts aopts = {
		.mount_private = args.mount_private,
		.ignore_instance_parent_mode = args.ignore_instance_parent_mode,
		.debug = args.debug,
		.mark_tmpdirs = true,
		.init_timeout = args.init_timeout,
		.uid = u.uid,
		.user = user,
		.unmount_first = undo.polydirs,
		.n_unmount_first = undo.n,
	};
	if (args.share_namespace) {
		bool unmnt = args.unmnt_remnt || args.unmnt_only;

		r = ns_share_key(&plan, &u, &aopts, unmnt ? (long)undo.uid : -1L, share_key);
		if (r < 0) {
			pam_syslog(pamh, LOG_ERR,
				   "share_namespace: cannot make the instance key: %s",
				   strerror(-r));
			ret = pam_code(r);
			goto out;
		}
	}
	if (already_in(pamh, &args, &plan, &u, share_key) > 0) {
		ret = once_keep(pamh, false, false);
		goto out;
	}
	if (args.share_namespace) {
		r = ns_share_open(&plan, &aopts, u.uid, share_key, sess, &share, &fail, apply_log,
				  &g);
	} else {
		r = ns_apply(&plan, &aopts, sess, &fail, apply_log, &g);
	}
	if (r < 0) {
		log_failure(pamh, &fail);
		ret = pam_code(r);
		goto out;
	}
	if (share) {
		r = pam_set_data(pamh, NS_DATA_SHARE, share, share_cleanup);
		if (r != PAM_SUCCESS) {
			pam_syslog(pamh, LOG_ERR, "cannot keep the session data: %s",
				   pam_strerror(pamh, r));
			/* Close what was opened: the pinned namespace must not count this session.
			 */
			(void)ns_share_close(share, false, &fail, apply_log, &g);
			ns_share_free(share);
			ret = PAM_SYSTEM_ERR;
			goto out;
		}
		share = NULL;
	}
	r = pam_set_data(pamh, NS_DATA_SESSION, sess, session_cleanup);
	if (r != PAM_SUCCESS) {
		pam_syslog(pamh, LOG_ERR, "cannot keep the session data: %s",
			   pam_strerror(pamh, r));
		ret = PAM_SYSTEM_ERR;
		goto out;
	}
	sess = NULL;
	ret = once_keep(pamh, true, args.unmount_on_close);
out:
	if (ret != PAM_SUCCESS)
		tell_user(pamh, flags, fail.entry ? fail.entry->polydir : NULL);
	if (sess) {
		ns_session_free(sess);
		free(sess);
	}
	ns_share_free(share);
	ns_failure_free(&fail);
	ns_plan_free(&plan);
	undo_list_free(&undo);
	ns_config_free(&cfg);
	free(context);
	ns_setup_free(&setup);
	free(pw_heap);
	return ret;
}

PUBLIC int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	struct glue g = {.pamh = pamh};
	struct ns_args args;
	struct ns_failure fail = {0};
	const void *data = NULL;
	struct once_data *once;
	int r, ret;

	ret = parse_args(&g, &args, argc, argv);
	if (ret != PAM_SUCCESS)
		return ret;
	if (pam_get_data(pamh, NS_DATA_ONCE, &data) == PAM_SUCCESS && data) {
		once = (struct once_data *)data;
		/* A later line of the stack: the last close undoes what the first open made. */
		if (once->nested) {
			once->nested--;
			return PAM_SUCCESS;
		}
		/* Found set up by another session: that session's close undoes it. */
		if (!once->built) {
			(void)pam_set_data(pamh, NS_DATA_ONCE, NULL, NULL);
			return PAM_SUCCESS;
		}
		args.unmount_on_close = once->unmount_on_close;
		(void)pam_set_data(pamh, NS_DATA_ONCE, NULL, NULL);
	}
	data = NULL;
	if (pam_get_data(pamh, NS_DATA_SHARE, &data) == PAM_SUCCESS && data) {
		/* Shared: the namespace's mounts and instances go with its last session. */
		r = ns_share_close((struct ns_share *)data, args.unmount_on_close, &fail, apply_log,
				   &g);
		if (r < 0) {
			log_failure(pamh, &fail);
			ret = PAM_SESSION_ERR;
		}
		ns_failure_free(&fail);
		(void)pam_set_data(pamh, NS_DATA_SHARE, NULL, NULL);
		(void)pam_set_data(pamh, NS_DATA_SESSION, NULL, NULL);
		return ret;
	}
	if (pam_get_data(pamh, NS_DATA_SESSION, &data) != PAM_SUCCESS || !data)
		return PAM_SUCCESS;

	r = ns_session_close((struct ns_session *)data, args.unmount_on_close, &fail, apply_log,
			     &g);
	if (r < 0) {
		log_failure(pamh, &fail);
		ret = PAM_SESSION_ERR;
	}
	ns_failure_free(&fail);
	(void)pam_set_data(pamh, NS_DATA_SESSION, NULL, NULL);
	return ret;
}

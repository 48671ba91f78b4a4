/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * pam_namespace_check --service NAME: a PAM service's stacks as libpam
 * builds them from /etc/pam.d (then the vendor's /usr/lib/pam.d): comments,
 * backslash continuations, "-" before the type, [value=action ...]
 * controls and [bracketed arguments], "include" and "substack" (the lines
 * of one type of another file) and Debian's "@include" (all of its lines).
 * Then what an administrator needs to know about this module in it: whether
 * and how often it runs at session open and with which arguments, and what
 * around it would break or surprise a login.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "checker.h"
#include "selinux.h"

/* libpam stops at this depth too (PAM_SUBSTACK_MAX_LEVEL). */
#define MAX_DEPTH 16

enum pam_type { T_AUTH, T_ACCOUNT, T_PASSWORD, T_SESSION, T_ANY };
static const char *const type_names[] = {"auth", "account", "password", "session"};

/* One module line of a stack, after the includes were followed. */
struct mod_line {
	char *file;
	unsigned line;
	char *via; /* "included from FILE:LINE[, ...]", or NULL */
	enum pam_type type;
	bool silent; /* "-type": a missing module is skipped without a word */
	char *control;
	char *module; /* as written */
	char **argv;
	int argc;
};

struct stack {
	struct mod_line *lines;
	size_t n;
};

struct pamd {
	struct checker *c;
	const char *dir, *vendor_dir, *module_dir;
	struct stack st;
	bool broken; /* libpam would refuse the whole service */
	struct ck_service_run *run;
	const char *open_files[MAX_DEPTH + 2]; /* the files being read, outermost first */
};

static void mod_line_free(struct mod_line *m)
{
	free(m->file);
	free(m->via);
	free(m->control);
	free(m->module);
	for (int i = 0; i < m->argc; i++)
		free(m->argv[i]);
	free(m->argv);
}

/* NAME under the configuration directory, else the vendor's; an absolute NAME as it is. */
static char *find_file(const struct pamd *p, const char *name)
{
	char *path;

	if (name[0] == '/')
		return access(name, F_OK) == 0 ? ck_fmt("%s", name) : NULL;
	path = ck_fmt("%s/%s", p->dir, name);
	if (access(path, F_OK) == 0)
		return path;
	free(path);
	if (!p->vendor_dir)
		return NULL;
	path = ck_fmt("%s/%s", p->vendor_dir, name);
	if (access(path, F_OK) == 0)
		return path;
	free(path);
	return NULL;
}

/*
 * The next token: blank-separated, or from "[" to the matching "]" with
 * blanks inside (libpam's rule for controls and arguments; "\]" is a "]"
 * inside). NULL at the end of the line.
 */
static char *next_token(char **pos)
{
	char *s = *pos + strspn(*pos, " \t"), *out, *o;

	if (!*s)
		return NULL;
	if (*s != '[') {
		size_t n = strcspn(s, " \t");

		*pos = s + n;
		return strndup(s, n);
	}
	out = o = malloc(strlen(s) + 1);
	if (!out)
		ck_out_of_memory();
	*o++ = *s++;
	while (*s && *s != ']') {
		if (s[0] == '\\' && s[1] == ']')
			s++;
		*o++ = *s++;
	}
	if (*s == ']')
		*o++ = *s++;
	*o = '\0';
	*pos = s;
	return out;
}

static enum pam_type type_from_string(const char *s)
{
	for (size_t i = 0; i < sizeof(type_names) / sizeof(*type_names); i++)
		if (strcasecmp(s, type_names[i]) == 0)
			return (enum pam_type)i;
	return T_ANY;
}

static int load_file(struct pamd *p, const char *path, enum pam_type want, unsigned depth,
		     const char *via);

/* One logical line: an include followed, or a module line kept. */
static void take_line(struct pamd *p, const char *path, unsigned lineno, char *text,
		      enum pam_type want, unsigned depth, const char *via)
{
	char *pos = text, *tok = next_token(&pos), *control = NULL, *module = NULL;
	bool silent = false;
	enum pam_type type;

	if (!tok)
		return;
	if (strcmp(tok, "@include") == 0) {
		char *name = next_token(&pos), *here = ck_fmt("%s:%u", path, lineno);
		char *chain = via ? ck_fmt("%s, %s", here, via) : ck_fmt("%s", here);

		if (!name)
			ns_diag_report(&p->c->diag, NS_WARNING, path, lineno, 0,
				       "@include names no file");
		else
			(void)load_file(p, name, want, depth + 1, chain);
		free(name);
		free(here);
		free(chain);
		free(tok);
		return;
	}
	silent = tok[0] == '-';
	type = type_from_string(tok + silent);
	if (type == T_ANY) {
		ns_diag_report(&p->c->diag, NS_ERROR, path, lineno, 0,
			       "unknown module type \"%s\": libpam fails this service", tok);
		p->broken = true;
		free(tok);
		return;
	}
	free(tok);
	if (want != T_ANY && type != want)
		return;
	control = next_token(&pos);
	module = next_token(&pos);
	if (!control || !module) {
		ns_diag_report(&p->c->diag, NS_ERROR, path, lineno, 0,
			       "a %s line without a control or a module: libpam fails this "
			       "service",
			       type_names[type]);
		p->broken = true;
		free(control);
		free(module);
		return;
	}
	if (strcmp(control, "include") == 0 || strcmp(control, "substack") == 0) {
		char *here = ck_fmt("%s:%u", path, lineno);
		char *chain = via ? ck_fmt("%s, %s", here, via) : ck_fmt("%s", here);

		(void)load_file(p, module, type, depth + 1, chain);
		free(here);
		free(chain);
		free(control);
		free(module);
		return;
	}

	struct mod_line m = {
		.file = ck_fmt("%s", path),
		.line = lineno,
		.via = via ? ck_fmt("%s", via) : NULL,
		.type = type,
		.silent = silent,
		.control = control,
		.module = module,
	};
	char *arg;

	while ((arg = next_token(&pos))) {
		/* "[a b]" is the one argument "a b". */
		size_t n = strlen(arg);

		if (arg[0] == '[') {
			memmove(arg, arg + 1, n);
			n--;
			if (n && arg[n - 1] == ']')
				arg[n - 1] = '\0';
		}
		char **a = realloc(m.argv, (m.argc + 2) * sizeof(*a));

		if (!a)
			ck_out_of_memory();
		m.argv = a;
		a[m.argc++] = arg;
		a[m.argc] = NULL;
	}
	struct mod_line *l = realloc(p->st.lines, (p->st.n + 1) * sizeof(*l));

	if (!l)
		ck_out_of_memory();
	p->st.lines = l;
	l[p->st.n++] = m;
}

/*
 * As libpam reads a file: "#" to the end of a line is a comment, a "\" at
 * the end joins the next line; line numbers are those of the first line.
 */
static int load_file(struct pamd *p, const char *name, enum pam_type want, unsigned depth,
		     const char *via)
{
	char *path, *buf = NULL, *logical = NULL;
	size_t cap = 0, llen = 0;
	unsigned lineno = 0, first = 0;
	FILE *f;

	if (depth > MAX_DEPTH) {
		ns_diag_report(&p->c->diag, NS_ERROR, NULL, 0, 0,
			       "%s: included more than %d levels deep (%s): libpam fails this "
			       "service",
			       name, MAX_DEPTH, via ? via : "");
		p->broken = true;
		return -ELOOP;
	}
	path = find_file(p, name);
	/* libpam would go round until its depth limit and then fail: say why at once. */
	for (unsigned i = 0; path && i < depth; i++)
		if (strcmp(p->open_files[i], path) == 0) {
			ns_diag_report(&p->c->diag, NS_ERROR, NULL, 0, 0,
				       "%s includes itself (included from %s): libpam fails this "
				       "service",
				       path, via ? via : "");
			p->broken = true;
			free(path);
			return -ELOOP;
		}
	f = path ? fopen(path, "re") : NULL;
	if (!f) {
		int k = path ? -errno : -ENOENT;

		ns_diag_report(&p->c->diag, NS_ERROR, NULL, 0, 0,
			       "cannot read %s%s%s%s: %s: libpam fails this service", name,
			       via ? " (included from " : "", via ? via : "", via ? ")" : "",
			       strerror(-k));
		p->broken = true;
		free(path);
		return k;
	}
	p->open_files[depth] = path;
	while (getline(&buf, &cap, f) >= 0) {
		char *hash = strchr(buf, '#');
		size_t n;
		bool more;

		lineno++;
		if (hash)
			*hash = '\0';
		n = strcspn(buf, "\n");
		buf[n] = '\0';
		more = n > 0 && buf[n - 1] == '\\';
		if (more)
			buf[--n] = ' ';
		if (!logical)
			first = lineno;
		logical = realloc(logical, llen + n + 2);
		if (!logical)
			ck_out_of_memory();
		memcpy(logical + llen, buf, n);
		llen += n;
		logical[llen] = '\0';
		if (more)
			continue;
		take_line(p, path, first, logical, want, depth, via);
		free(logical);
		logical = NULL;
		llen = 0;
	}
	if (logical)
		take_line(p, path, first, logical, want, depth, via);
	free(logical);
	free(buf);
	fclose(f);
	free(path);
	return 0;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* This module, by any path: pam_namespace.so (or the Debian package's pam_namespace_ng.so). */
static bool is_ours(const struct mod_line *m)
{
	const char *b = base_name(m->module);

	return strcmp(b, "pam_namespace.so") == 0 || strcmp(b, "pam_namespace_ng.so") == 0;
}

static bool has_arg(const struct mod_line *m, const char *arg)
{
	for (int i = 0; i < m->argc; i++)
		if (strcmp(m->argv[i], arg) == 0)
			return true;
	return false;
}

static char *args_text(const struct mod_line *m)
{
	char *s = ck_fmt("%s", "");

	for (int i = 0; i < m->argc; i++) {
		char *t = ck_fmt("%s%s%s", s, i ? " " : "", m->argv[i]);

		free(s);
		s = t;
	}
	return s;
}

static bool must_succeed(const struct mod_line *m)
{
	return strcmp(m->control, "required") == 0 || strcmp(m->control, "requisite") == 0;
}

/* Load a service's stack; NULL (reported) if libpam would not find even "other". */
static int load_service(struct pamd *p, const char *service, char **ret_file)
{
	char *path = find_file(p, service);

	*ret_file = NULL;
	if (!path) {
		ns_diag_report(&p->c->diag, NS_WARNING, NULL, 0, 0,
			       "no %s/%s%s%s%s%s: libpam uses the service \"other\"", p->dir,
			       service, p->vendor_dir ? " nor " : "",
			       p->vendor_dir ? p->vendor_dir : "", p->vendor_dir ? "/" : "",
			       p->vendor_dir ? service : "");
		service = "other";
		path = find_file(p, service);
	}
	*ret_file = path;
	return load_file(p, service, T_ANY, 0, NULL);
}

/* Whether the stack has a line of that type ("-" lines too: libpam keeps them). */
static bool has_type(const struct stack *st, enum pam_type type)
{
	for (size_t i = 0; i < st->n; i++)
		if (st->lines[i].type == type)
			return true;
	return false;
}

static void stack_free(struct stack *st)
{
	for (size_t i = 0; i < st->n; i++)
		mod_line_free(&st->lines[i]);
	free(st->lines);
	*st = (struct stack){0};
}

/* Whether the systemd --user manager's stack runs the module with share_namespace. */
static bool user_manager_shares(const struct pamd *p)
{
	struct checker quiet = {.quiet = true};
	struct ck_service_run run = {0};
	struct pamd q = {.c = &quiet,
			 .run = &run,
			 .dir = p->dir,
			 .vendor_dir = p->vendor_dir,
			 .module_dir = p->module_dir};
	char *file = NULL;
	bool found = false;

	quiet.diag = (struct ns_diag){.report = ck_report, .userdata = &quiet};
	if (find_file(&q, "systemd-user") == NULL)
		return false;
	(void)load_service(&q, "systemd-user", &file);
	for (size_t i = 0; i < q.st.n; i++)
		if (q.st.lines[i].type == T_SESSION && is_ours(&q.st.lines[i]) &&
		    has_arg(&q.st.lines[i], "share_namespace"))
			found = true;
	stack_free(&q.st);
	free(file);
	free(quiet.first_error);
	ck_service_run_free(&run);
	return found;
}

/* For --user: the arguments the session's module is given. */
static void keep_args(struct ck_service_run *run, const struct mod_line *m)
{
	run->runs = true;
	run->argv = calloc(m->argc + 1, sizeof(*run->argv));
	if (!run->argv)
		ck_out_of_memory();
	for (int i = 0; i < m->argc; i++)
		if (!(run->argv[i] = strdup(m->argv[i])))
			ck_out_of_memory();
	run->argc = m->argc;
}

void ck_service_run_free(struct ck_service_run *run)
{
	for (int i = 0; i < run->argc; i++)
		free(run->argv[i]);
	free(run->argv);
	*run = (struct ck_service_run){0};
}

/* The module's own argument parser, its messages put on the line. */
static void check_args(struct pamd *p, const struct mod_line *m, struct ns_args *args)
{
	struct checker quiet = {.quiet = true};

	quiet.diag = (struct ns_diag){.report = ck_report, .userdata = &quiet};
	*args = (struct ns_args){.init_timeout = NS_INIT_TIMEOUT_DEFAULT};
	(void)ns_args_parse(args, m->argc, (const char **)m->argv, &quiet.diag);
	if (quiet.first_error)
		ns_diag_report(&p->c->diag, NS_ERROR, m->file, m->line, 0,
			       "module arguments: %s: the module fails every session",
			       quiet.first_error);
	else if (quiet.diag.n_warnings)
		ns_diag_report(&p->c->diag, NS_WARNING, m->file, m->line, 0,
			       "module arguments: %u the module does not know (it logs a warning "
			       "at each session and ignores them)",
			       quiet.diag.n_warnings);
	free(quiet.first_error);
}

static void print_line(const struct mod_line *m)
{
	char *args = args_text(m);

	printf("  %s:%u: %s%s %s %s%s%s%s%s%s\n", m->file, m->line, m->silent ? "-" : "",
	       type_names[m->type], m->control, m->module, *args ? " " : "", args,
	       m->via ? "  (included from " : "", m->via ? m->via : "", m->via ? ")" : "");
	free(args);
}

/* The module in a stack other than session: it has no function there. */
static void check_other_types(struct pamd *p)
{
	for (size_t i = 0; i < p->st.n; i++) {
		const struct mod_line *m = &p->st.lines[i];

		if (m->type == T_SESSION || !is_ours(m))
			continue;
		ns_diag_report(&p->c->diag, must_succeed(m) ? NS_ERROR : NS_WARNING, m->file,
			       m->line, 0,
			       "pam_namespace is a session module only: in the %s stack libpam "
			       "finds no function in it%s",
			       type_names[m->type],
			       must_succeed(m) ? ", and this line fails every login" : "");
	}
}

/*
 * Missing module files: libpam fails a line whose module it cannot load,
 * "-" excepted, where the line is skipped. Returns whether the file is there.
 */
static bool check_module_file(struct pamd *p, const struct mod_line *m)
{
	bool found;

	char *path = m->module[0] == '/' ? ck_fmt("%s", m->module)
					 : ck_fmt("%s/%s", p->module_dir, m->module);

	found = access(path, F_OK) == 0;
	if (!m->silent && !found)
		ns_diag_report(&p->c->diag, must_succeed(m) ? NS_ERROR : NS_WARNING, m->file,
			       m->line, 0, "module %s: %s%s", path, strerror(errno),
			       must_succeed(m) ? ": libpam fails every session of this service"
					       : "");
	free(path);
	return found;
}

/*
 * A control that jumps ([success=2 ...]) may skip that many of the lines
 * after it in the stack (includes are flattened, as libpam flattens them):
 * the longest jump it has.
 */
static unsigned long jump_length(const struct mod_line *m)
{
	unsigned long longest = 0;

	for (const char *s = strchr(m->control, '='); s; s = strchr(s + 1, '='))
		if (s[1] >= '1' && s[1] <= '9') {
			unsigned long n = strtoul(s + 1, NULL, 10);

			if (n > longest)
				longest = n;
		}
	return longest;
}

/*
 * What the session stack does with this module: each run after the first
 * is the same PAM handle, where the module mounts nothing again; and the
 * order against the modules whose work it depends on.
 */
static void check_session(struct pamd *p, const char *service)
{
	const struct mod_line *first = NULL;
	struct ns_args args = {0};
	bool selinux_open_after = false, systemd_after = false, shares = false;
	const struct mod_line *jump = NULL, *longest = NULL;
	size_t index = 0, reach = 0;
	unsigned runs = 0;

	printf("%s: session stack\n", service);
	for (size_t i = 0; i < p->st.n; i++) {
		const struct mod_line *m = &p->st.lines[i];
		const char *b = base_name(m->module);

		if (m->type != T_SESSION)
			continue;
		print_line(m);
		index++;
		if (!check_module_file(p, m))
			continue;
		if (strcmp(b, "pam_selinux.so") == 0 && first && !has_arg(m, "close"))
			selinux_open_after = true;
		if (strcmp(b, "pam_systemd.so") == 0 && first)
			systemd_after = true;
		if (!is_ours(m)) {
			if (jump_length(m) && index + jump_length(m) > reach) {
				reach = index + jump_length(m);
				longest = m;
			}
			continue;
		}
		if (!first && reach >= index)
			jump = longest;
		runs++;
		if (!first) {
			first = m;
			check_args(p, m, &args);
			keep_args(p->run, m);
			shares = args.share_namespace;
			continue;
		}
		char *a = args_text(m), *b0 = args_text(first);

		ns_diag_report(&p->c->diag, NS_WARNING, m->file, m->line, 0,
			       "pam_namespace runs again for service %s (run %u; the first is "
			       "%s:%u%s%s): a second run in the same PAM handle does nothing, "
			       "keep one of the lines%s%s%s",
			       service, runs, first->file, first->line,
			       first->via ? ", included from " : "", first->via ? first->via : "",
			       strcmp(a, b0) ? "; its arguments \"" : "", strcmp(a, b0) ? a : "",
			       strcmp(a, b0) ? "\" are not used" : "");
		free(a);
		free(b0);
	}
	if (!first) {
		printf("%s: pam_namespace does not run at session open\n", service);
		return;
	}
	char *a = args_text(first);

	if (runs == 1)
		printf("%s: pam_namespace runs once at session open, at %s:%u, arguments: %s\n",
		       service, first->file, first->line, *a ? a : "(none)");
	else
		printf("%s: pam_namespace runs %u times at session open (the second and later "
		       "do nothing), first at %s:%u, arguments: %s\n",
		       service, runs, first->file, first->line, *a ? a : "(none)");
	free(a);
	if (jump)
		printf("%s: %s:%u jumps (%s): where it does, a run of pam_namespace after it may "
		       "be "
		       "skipped\n",
		       service, jump->file, jump->line, jump->control);
	/* Without SELinux there is no exec context to wait for: only say it. */
	if (selinux_open_after && !ns_selinux_enabled())
		printf("%s: pam_namespace runs before \"pam_selinux.so open\" (no matter while "
		       "SELinux is off)\n",
		       service);
	else if (selinux_open_after)
		ns_diag_report(&p->c->diag, NS_WARNING, first->file, first->line, 0,
			       "pam_namespace runs before \"pam_selinux.so open\": the session has "
			       "no SELinux exec context yet, so context and level lines fall back "
			       "to user; put it after pam_selinux");
	if (systemd_after && args.mount_private)
		ns_diag_report(&p->c->diag, NS_WARNING, first->file, first->line, 0,
			       "pam_namespace with mount_private runs before pam_systemd: what "
			       "logind mounts for the session afterwards (/run/user/UID) never "
			       "reaches it; put it after pam_systemd");
	if (shares && strcmp(service, "systemd-user") != 0 && !user_manager_shares(p))
		ns_diag_report(&p->c->diag, NS_WARNING, first->file, first->line, 0,
			       "share_namespace, but the stack of the systemd --user manager "
			       "(systemd-user) does not run pam_namespace with share_namespace: "
			       "user@.service keeps a /tmp of its own");
}

int ck_service(struct checker *c, const char *service, const char *pamd_dir, const char *vendor_dir,
	       const char *module_dir, struct ck_service_run *ret_run)
{
	struct pamd p = {
		.c = c,
		.run = ret_run,
		.dir = pamd_dir,
		.vendor_dir = vendor_dir,
		.module_dir = module_dir,
	};
	unsigned errors = c->diag.n_errors;
	char *file = NULL;

	if (strchr(service, '/') || !*service || strcmp(service, ".") == 0 ||
	    strcmp(service, "..") == 0) {
		ns_diag_report(&c->diag, NS_ERROR, NULL, 0, 0, "not a service name: %s", service);
		return -1;
	}
	(void)load_service(&p, service, &file);
	if (file && !p.broken && !has_type(&p.st, T_SESSION) && strcmp(service, "other") != 0) {
		/* libpam reads "other" too, and runs its stack of a type the service has no line
		 * of. */
		printf("%s: no session line in %s: libpam runs the session stack of \"other\"\n",
		       service, file);
		(void)load_file(&p, "other", T_SESSION, 0, NULL);
	}
	check_other_types(&p);
	check_session(&p, service);
	if (p.broken)
		printf("%s: libpam would refuse every login of this service\n", service);
	stack_free(&p.st);
	free(file);
	return c->diag.n_errors != errors ? -1 : 0;
}

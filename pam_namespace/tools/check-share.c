/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * pam_namespace_check --shared, --enter and --drop: what an administrator
 * needs for share_namespace (share.h). Pins are checked exactly as the
 * module checks them before it joins one.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check-share.h"
#include "kernel.h"
#include "share.h"

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

/* The entries of directory fd (closed here) for which keep() says yes, as names. */
static int list_names(int fd, bool (*keep)(const char *), char ***ret, size_t *ret_n)
{
	char **names = NULL;
	size_t n = 0;
	struct dirent *de;
	DIR *d = fdopendir(fd);

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

	r = list_names(openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), is_uid, &uids,
		       &n_uids);
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
		r = list_names(openat(udir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), is_state,
			       &keys, &n_keys);
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
				if (ns_share_sessions(p->udir, p->key, NS_SHARE_SCAN_COUNT, &p->st,
						      &p->stale) == 0)
					p->live = p->st.n_sessions;
			}
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

/* "ROOT TARGET FSTYPE SOURCE" of a mountinfo line, or -1: what two namespaces' copies share. */
static int mount_key(const char *line, char *key, size_t size, char **ret_target)
{
	char root[1024], target[2048], fstype[256], source[1024];
	const char *sep = strstr(line, " - ");

	if (!sep || sscanf(line, "%*s %*s %*s %1023s %2047s", root, target) != 2 ||
	    sscanf(sep + 3, "%255s %1023s", fstype, source) != 2)
		return -1;
	snprintf(key, size, "%s %s %s %s", root, target, fstype, source);
	*ret_target = strchr(key, ' ') + 1;
	return 0;
}

/* The caller's own mounts, to leave out of a pinned namespace's: those it did not add. */
static char *own_mounts(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], key[4400], *all = NULL, *target;
	size_t len = 0;
	FILE *out;

	if (!f)
		return NULL;
	out = open_memstream(&all, &len);
	while (out && fgets(line, sizeof(line), f))
		if (mount_key(line, key, sizeof(key), &target) == 0)
			fprintf(out, "\n%s\n", key);
	fclose(f);
	if (out)
		fclose(out);
	return all;
}

/*
 * The mounts on or below the polydirs that the caller's namespace does not
 * have, read inside the pinned namespace by a child.
 */
static void print_mounts(const struct pin *p, bool json, FILE *out)
{
	int pipefd[2], status;
	char line[4096];
	bool first = true;
	char *own = NULL;
	pid_t pid;
	FILE *f;

	if (p->state_error || p->pin_error || pipe(pipefd) < 0)
		return;
	fflush(out);
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return;
	}
	if (pid == 0) {
		int pfd = ns_share_pin_open(p->udir, p->key, &p->st);
		FILE *mi;

		close(pipefd[0]);
		if (pfd < 0 || kn_ns_join(pfd) < 0)
			_exit(1);
		mi = fopen("/proc/self/mountinfo", "re");
		if (!mi)
			_exit(1);
		while (fgets(line, sizeof(line), mi))
			if (write(pipefd[1], line, strlen(line)) < 0)
				_exit(1);
		_exit(0);
	}
	close(pipefd[1]);
	own = own_mounts();
	f = fdopen(pipefd[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		char key[4400], needle[4410], *target, *sp;
		bool wanted = false;

		if (mount_key(line, key, sizeof(key), &target) < 0)
			continue;
		snprintf(needle, sizeof(needle), "\n%s\n", key);
		if (own && strstr(own, needle))
			continue;
		sp = strchr(target, ' ');
		*sp = '\0';
		for (size_t i = 0; i < p->st.n_polydirs && !wanted; i++) {
			size_t l = strlen(p->st.polydirs[i]);

			wanted = strncmp(target, p->st.polydirs[i], l) == 0 &&
				 (target[l] == '\0' || target[l] == '/');
		}
		if (!wanted)
			continue;
		char fstype[256], source[1024];

		if (sscanf(sp + 1, "%255s %1023s", fstype, source) != 2)
			continue;
		if (json)
			fprintf(out,
				"%s{\"target\": \"%s\", \"fstype\": \"%s\", \"source\": \"%s\"}",
				first ? "" : ", ", target, fstype, source);
		else
			fprintf(out, "    %s %s %s\n", target, fstype, source);
		first = false;
	}
	if (f)
		fclose(f);
	else
		close(pipefd[0]);
	free(own);
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
			printf("%s\n  {\"user\": \"%s\", \"uid\": %u, \"key\": \"%s\", "
			       "\"sessions\": "
			       "%zu, \"stale\": %zu, \"pin\": \"%s\", \"mounts\": [",
			       i ? "," : "", user, p->uid, p->key, p->live, p->stale,
			       pin_problem(problem));
			print_mounts(p, true, stdout);
			printf("]}");
		} else {
			printf("%s (uid %u), key %.16s: %zu session%s open, %zu stale; pin %s\n",
			       user, p->uid, p->key, p->live, p->live == 1 ? "" : "s", p->stale,
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

/* A user name, or a uid in decimal (as systemd's %i of user@UID.service). */
static int user_uid(const char *user, uid_t *ret)
{
	struct passwd *pw = getpwnam(user);

	if (!pw && user[0] >= '0' && user[0] <= '9' && strspn(user, "0123456789") == strlen(user) &&
	    strlen(user) < 11) {
		*ret = (uid_t)strtoul(user, NULL, 10);
		return 0;
	}
	if (!pw) {
		fprintf(stderr, "pam_namespace_check: unknown user %s\n", user);
		return -ENOENT;
	}
	*ret = pw->pw_uid;
	return 0;
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

static int cmd_drop(const char *user, bool force)
{
	struct pin *pins = NULL;
	int dir_fd, ret = 0;
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
	if (pins_list(dir_fd, uid, &pins, &n) < 0) {
		close(dir_fd);
		return 1;
	}
	if (n == 0)
		printf("%s has no pinned namespace\n", user);
	for (size_t i = 0; i < n; i++) {
		struct ns_share_state st = {0};
		int lock = ns_share_lock(pins[i].udir), r;
		size_t stale = 0;

		if (lock < 0) {
			fprintf(stderr, "pam_namespace_check: locking: %s\n", strerror(-lock));
			ret = 1;
			break;
		}
		r = ns_share_state_read(pins[i].udir, pins[i].key, &st);
		if (r == -ENOENT) {
			close(lock);
			continue;
		}
		if (r < 0) /* unreadable: the pin cannot be joined anyway; remove what is there */
			st = (struct ns_share_state){0};
		else
			r = ns_share_sessions(pins[i].udir, pins[i].key,
					      force ? NS_SHARE_SCAN_COUNT
						    : NS_SHARE_SCAN_PRUNE_TO_LIVE,
					      &st, &stale);
		if (r == 0 && st.n_sessions && !force) {
			printf("%s: kept %s/%u/%s.ns, a session is open (dropped %zu stale); "
			       "--force "
			       "drops it\n",
			       user, NS_SHARE_DIR, pins[i].uid, pins[i].key, stale);
			ret = 1;
		} else {
			r = ns_share_drop(pins[i].udir, pins[i].key, &st, true);
			if (r < 0) {
				fprintf(stderr, "pam_namespace_check: dropping %s/%u/%s: %s\n",
					NS_SHARE_DIR, pins[i].uid, pins[i].key, strerror(-r));
				ret = 1;
			} else {
				printf("%s: dropped %s/%u/%s.ns\n", user, NS_SHARE_DIR, pins[i].uid,
				       pins[i].key);
			}
		}
		ns_share_state_free(&st);
		close(lock);
	}
	pins_free(pins, n);
	close(dir_fd);
	return ret;
}

void ns_check_share_plan(const struct ns_plan *plan, const struct ns_user *user, bool mount_private,
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

bool ns_check_share_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--shared") == 0 || strcmp(argv[i], "--enter") == 0 ||
		    strcmp(argv[i], "--drop") == 0)
			return true;
	return false;
}

int ns_check_share_main(int argc, char **argv)
{
	enum { OPT_SHARED = 0x100, OPT_ENTER, OPT_DROP, OPT_FORCE, OPT_JSON };
	static const struct option options[] = {
		{"shared", no_argument, NULL, OPT_SHARED},
		{"enter", required_argument, NULL, OPT_ENTER},
		{"drop", required_argument, NULL, OPT_DROP},
		{"force", no_argument, NULL, OPT_FORCE},
		{"json", no_argument, NULL, OPT_JSON},
		{0},
	};
	const char *enter = NULL, *drop = NULL;
	bool shared = false, force = false, json = false;
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
		default:
			return 2;
		}
	}
	if (shared + !!enter + !!drop != 1 || (optind < argc && !enter)) {
		fprintf(stderr, "usage: pam_namespace_check --shared [--json]\n"
				"       pam_namespace_check --enter USER [-- COMMAND ARGS...]\n"
				"       pam_namespace_check --drop USER [--force]\n");
		return 2;
	}
	if (shared)
		return cmd_list(json);
	if (enter)
		return cmd_enter(enter, argv + optind);
	return cmd_drop(drop, force);
}

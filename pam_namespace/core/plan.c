/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "naming.h"
#include "ns-build.h"
#include "plan.h"

char *ns_expand_variables(const char *s, const struct ns_user *user)
{
	size_t home_len = strlen(user->home), user_len = strlen(user->name);
	size_t cap = strlen(s) + 1, n = 0;
	char *out;

	/* Each substitution can grow the string by at most the longer value. */
	for (const char *p = s; (p = strchr(p, '$')); p++)
		cap += home_len > user_len ? home_len : user_len;
	out = malloc(cap);
	if (!out)
		return NULL;

	while (*s) {
		if (s[0] == '$' && strncmp(s + 1, "HOME", 4) == 0) {
			memcpy(out + n, user->home, home_len);
			n += home_len;
			s += 5;
		} else if (s[0] == '$' && strncmp(s + 1, "USER", 4) == 0) {
			memcpy(out + n, user->name, user_len);
			n += user_len;
			s += 5;
		} else {
			out[n++] = *s++;
		}
	}
	out[n] = '\0';
	return out;
}

int ns_group_has_user(const struct group *gr, const char *user, gid_t user_gid)
{
	if (gr->gr_gid == user_gid)
		return 1;
	for (char **m = gr->gr_mem; m && *m; m++)
		if (strcmp(*m, user) == 0)
			return 1;
	return 0;
}

bool ns_path_inside(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static void entry_free(struct ns_plan_entry *e)
{
	free(e->polydir);
	free(e->instance);
	free(e->instance_parent);
	free(e->instance_name);
	free(e->instance_context);
	free(e->init_script);
	free(e->mntopts);
	for (size_t i = 0; i < e->n_shares; i++)
		free(e->shares[i]);
	free(e->shares);
}

void ns_plan_free(struct ns_plan *plan)
{
	for (size_t i = 0; i < plan->n_entries; i++)
		entry_free(&plan->entries[i]);
	free(plan->entries);
	plan->entries = NULL;
	plan->n_entries = 0;
}

/*
 * The uid of each name in the lists of users, looked up once per plan:
 * lists repeat the same few names on many lines, and each lookup reads the
 * user database again (10,000 lines naming one user would be 10,000 reads).
 * Names point into the rules, which outlive the plan's construction.
 */
struct uid_slot {
	const char *name;
	int error; /* 0, or the lookup's negative errno */
	uid_t uid;
};

struct uid_cache {
	struct uid_slot *slots; /* open addressing; cap is a power of two */
	size_t cap, n;
};

static size_t name_hash(const char *s)
{
	size_t h = 14695981039346656037ULL & SIZE_MAX;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * (1099511628211ULL & SIZE_MAX);
	return h;
}

static struct uid_slot *cache_slot(struct uid_slot *slots, size_t cap, const char *name)
{
	size_t i = name_hash(name) & (cap - 1);

	while (slots[i].name && strcmp(slots[i].name, name) != 0)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

/* Room for one more name at most half full; false when out of memory (then: no caching). */
static bool cache_reserve(struct uid_cache *c)
{
	size_t cap = c->cap ? c->cap * 2 : 16;
	struct uid_slot *slots;

	if ((c->n + 1) * 2 <= c->cap)
		return true;
	slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return false;
	for (size_t i = 0; i < c->cap; i++)
		if (c->slots[i].name)
			*cache_slot(slots, cap, c->slots[i].name) = c->slots[i];
	free(c->slots);
	c->slots = slots;
	c->cap = cap;
	return true;
}

static int lookup_uid(struct uid_cache *c, const struct ns_lookup *lookup, const char *name,
		      uid_t *ret_uid)
{
	struct uid_slot *slot = c->cap ? cache_slot(c->slots, c->cap, name) : NULL;
	gid_t gid;
	uid_t uid = 0;
	int k;

	if (slot && slot->name) {
		*ret_uid = slot->uid;
		return slot->error;
	}
	k = lookup->user(lookup->userdata, name, &uid, &gid);
	if (cache_reserve(c)) {
		slot = cache_slot(c->slots, c->cap, name);
		*slot = (struct uid_slot){.name = name, .error = k < 0 ? k : 0, .uid = uid};
		c->n++;
	}
	*ret_uid = uid;
	return k < 0 ? k : 0;
}

/* Linux-PAM compares the users of the list by uid, so aliases of one uid match. */
static bool rule_lists_user(const struct ns_rule *r, const struct ns_user *user,
			    const struct ns_lookup *lookup, struct uid_cache *cache,
			    struct ns_diag *diag)
{
	for (size_t i = 0; i < r->n_users; i++) {
		uid_t uid;
		int k;

		if (strcmp(r->users[i], user->name) == 0)
			return true;
		if (!lookup || !lookup->user)
			continue;
		k = lookup_uid(cache, lookup, r->users[i], &uid);
		if (k == -ENOENT)
			ns_diag_report(diag, NS_WARNING, r->file, r->line, 0,
				       "unknown user \"%s\" in the list of users, ignored%s",
				       r->users[i],
				       r->users[i][0] == '@' || strncmp(r->users[i], "uid", 3) == 0
					       ? " (a group or uid selector needs the extended "
						 "method form, e.g. \"user+\")"
					       : "");
		else if (k == 0 && uid == user->uid)
			return true;
	}
	return false;
}

/*
 * An extended line's list, resolved now, at the session: 1 if the user is
 * listed, 0 if not, -EINVAL when a name or group could not be resolved and
 * the line does not say ignore_unknown (SSSD or LDAP down must not turn an
 * exclusion into nothing). Every entry is resolved, matched or not, so
 * that a broken entry fails every session alike.
 */
static int rule_selects_user(const struct ns_rule *r, const struct ns_user *user,
			     const struct ns_lookup *lookup, struct uid_cache *cache,
			     struct ns_diag *diag)
{
	bool listed = false;
	int failed = 0;

	for (size_t i = 0; i < r->n_selectors; i++) {
		const struct ns_selector *sel = &r->selectors[i];
		const char *what = sel->kind == NS_SELECTOR_GROUP ? "group" : "user";
		uid_t uid;
		int k;

		switch (sel->kind) {
		case NS_SELECTOR_UIDS:
			listed |= user->uid >= sel->lo && user->uid <= sel->hi;
			continue;
		case NS_SELECTOR_USER:
			k = lookup && lookup->user ? lookup_uid(cache, lookup, sel->name, &uid)
						   : -ENOENT;
			if (k == 0)
				listed |= uid == user->uid;
			break;
		case NS_SELECTOR_GROUP:
		default:
			k = lookup && lookup->in_group
				    ? lookup->in_group(lookup->userdata, sel->name, user->name,
						       user->gid)
				    : -ENOENT;
			if (k > 0)
				listed = true;
			break;
		}
		if (k >= 0)
			continue;
		if (k == -ENOMEM)
			return k;
		ns_diag_report(diag, r->ignore_unknown ? NS_WARNING : NS_ERROR, r->file, r->line, 0,
			       "%s %s\"%s\" in the list of users: %s%s", what,
			       sel->kind == NS_SELECTOR_GROUP ? "@" : "", sel->name,
			       k == -ENOENT ? "unknown" : "the name service failed: ",
			       k == -ENOENT
				       ? (r->ignore_unknown ? ", ignored (ignore_unknown)" : "")
				       : strerror(-k));
		if (!r->ignore_unknown)
			failed = -EINVAL;
	}
	return failed < 0 ? failed : listed;
}

/* 1 if the rule applies to the user, 0 if not, or a negative errno. */
static int rule_applies(const struct ns_rule *r, const struct ns_user *user,
			const struct ns_lookup *lookup, struct uid_cache *cache,
			struct ns_diag *diag)
{
	int listed = r->extended ? rule_selects_user(r, user, lookup, cache, diag)
				 : rule_lists_user(r, user, lookup, cache, diag);

	if (listed < 0)
		return listed;
	return r->users_only ? listed : !listed;
}

/* SPEC 1 again once expanded: $HOME itself could hold "..". */
static int check_path(const struct ns_rule *r, const char *what, const char *path,
		      struct ns_diag *diag)
{
	const char *problem;
	int k = ns_path_check(path, false, &problem);

	if (k < 0)
		ns_diag_report(diag, NS_ERROR, r->file, r->line, 0, "%s \"%s\" %s", what, path,
			       problem);
	return k;
}

static char *concat(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = malloc(la + lb + 1);

	if (!s)
		return NULL;
	memcpy(s, a, la);
	memcpy(s + la, b, lb + 1);
	return s;
}

/*
 * The one line for a context the policy would not compute: a denial
 * names the polyinstantiation boolean, its likely cause.
 */
static void report_no_context(const struct ns_rule *r, const struct ns_lookup *lookup,
			      const char *polydir, int err, struct ns_diag *diag)
{
	bool known = true;
	const char *b = NULL;

	if ((err == -EACCES || err == -EPERM) && lookup && lookup->boolean_off)
		b = lookup->boolean_off(&known);
	ns_diag_report(diag, NS_ERROR, r->file, r->line, 0,
		       "cannot get the SELinux context of the instance of %s: %s%s%s%s", polydir,
		       strerror(-err), b ? " (SELinux's boolean " : "", b ? b : "",
		       !b      ? ""
		       : known ? " is off)"
			       : " may be off: this program may not read it)");
}

/* The raw instance name of a rule, before hashing; NULL with 0: skip the line. */
static int raw_instance_name(const struct ns_rule *r, const struct ns_user *user,
			     const struct ns_lookup *lookup, const char *polydir,
			     enum ns_method *method, char **ret_context, char **ret_raw)
{
	char *ctx = NULL, *raw;
	int k;

	*method = r->method;
	if (r->method == NS_METHOD_CONTEXT || r->method == NS_METHOD_LEVEL) {
		if (lookup && lookup->member_context && user->context) {
			k = lookup->member_context(lookup->userdata, user->context, polydir,
						   r->method, &ctx);
			if (k < 0)
				return k;
		}
		if (!ctx) {
			/* No SELinux or no context: compat falls back to user, skips shared. */
			if (r->shared) {
				*ret_raw = NULL;
				return 0;
			}
			*method = NS_METHOD_USER;
		}
	}

	if (ctx) {
		if (r->shared) {
			raw = strdup(ctx);
		} else {
			raw = malloc(strlen(ctx) + 1 + strlen(user->name) + 1);
			if (raw) {
				strcpy(raw, ctx);
				strcat(raw, "_");
				strcat(raw, user->name);
			}
		}
	} else {
		raw = strdup(user->name);
	}
	if (!raw) {
		free(ctx);
		return -ENOMEM;
	}
	*ret_context = ctx;
	*ret_raw = raw;
	return 0;
}

static int plan_create(struct ns_plan_entry *e, const struct ns_rule *r, const struct ns_user *user,
		       const struct ns_lookup *lookup, const struct ns_plan_opts *opts,
		       struct ns_diag *diag)
{
	uid_t uid = user->uid;
	gid_t gid = user->gid;
	int k;

	e->create_polydir = true;
	e->create_mode = r->create_has_mode ? r->create_mode : (0777 & ~opts->umask);
	if (r->create_owner) {
		k = lookup && lookup->user
			    ? lookup->user(lookup->userdata, r->create_owner, &uid, &gid)
			    : -ENOENT;
		if (k < 0) {
			ns_diag_report(diag, NS_ERROR, r->file, r->line, 0,
				       "create: unknown owner \"%s\"", r->create_owner);
			return -EINVAL;
		}
	}
	if (r->create_group) {
		k = lookup && lookup->group ? lookup->group(lookup->userdata, r->create_group, &gid)
					    : -ENOENT;
		if (k < 0) {
			ns_diag_report(diag, NS_ERROR, r->file, r->line, 0,
				       "create: unknown group \"%s\"", r->create_group);
			return -EINVAL;
		}
	}
	e->create_uid = uid;
	e->create_gid = gid;
	return 0;
}

/* One rule for one user: 1 when planned, 0 when it does not apply, or a negative errno. */
static int plan_rule(struct ns_plan_entry *e, const struct ns_rule *r, const struct ns_user *user,
		     const struct ns_lookup *lookup, const struct ns_plan_opts *opts,
		     struct uid_cache *cache, struct ns_diag *diag)
{
	char *raw = NULL, *prefix = NULL, *slash;
	size_t len;
	int k;

	k = rule_applies(r, user, lookup, cache, diag);
	if (k <= 0)
		return k;

	*e = (struct ns_plan_entry){.rule = r, .method = r->method};

	e->polydir = ns_expand_variables(r->polydir, user);
	if (!e->polydir) {
		k = -ENOMEM;
		goto out;
	}
	/* $HOME may end in a slash: drop trailing slashes again after expansion. */
	len = strlen(e->polydir);
	while (len > 1 && e->polydir[len - 1] == '/')
		e->polydir[--len] = '\0';
	k = check_path(r, "polydir", e->polydir, diag);
	if (k < 0)
		goto out;
	if (strcmp(e->polydir, "/") == 0) {
		ns_diag_report(diag, NS_ERROR, r->file, r->line, 0, "polydir may not be \"/\"");
		k = -EINVAL;
		goto out;
	}

	if (r->method != NS_METHOD_TMPFS) {
		prefix = ns_expand_variables(r->instance_prefix, user);
		if (!prefix) {
			k = -ENOMEM;
			goto out;
		}
		k = check_path(r, "instance prefix", prefix, diag);
		if (k < 0)
			goto out;
	}

	switch (r->method) {
	case NS_METHOD_TMPFS:
		break;
	case NS_METHOD_TMPDIR:
		e->instance = concat(prefix, "XXXXXX");
		if (!e->instance) {
			k = -ENOMEM;
			goto out;
		}
		break;
	default:
		k = raw_instance_name(r, user, lookup, e->polydir, &e->method, &e->instance_context,
				      &raw);
		if (k < 0 && k != -ENOMEM)
			report_no_context(r, lookup, e->polydir, k, diag);
		if (k < 0)
			goto out;
		if (!raw) {
			k = 0; /* shared context line without SELinux: skipped */
			goto out;
		}
		e->instance_name = ns_instance_name(raw, opts->flags & NS_PLAN_GEN_HASH);
		if (!e->instance_name && errno == ELIBACC) {
			ns_diag_report(diag, NS_ERROR, r->file, r->line, 0,
				       "cannot load %s for the MD5 of the instance name",
				       NS_LIBMD_SONAME);
			k = -ELIBACC;
			goto out;
		}
		if (!e->instance_name) {
			k = -ENOMEM;
			goto out;
		}
		e->instance = concat(prefix, e->instance_name);
		if (!e->instance) {
			k = -ENOMEM;
			goto out;
		}
		break;
	}

	if (e->instance) {
		if (strlen(e->instance) >= PATH_MAX) {
			ns_diag_report(diag, NS_ERROR, r->file, r->line, 0,
				       "instance path is longer than %d bytes", PATH_MAX - 1);
			k = -ENAMETOOLONG;
			goto out;
		}
		slash = strrchr(e->instance, '/');
		e->instance_parent = slash == e->instance
					     ? strdup("/")
					     : strndup(e->instance, slash - e->instance);
		if (!e->instance_parent) {
			k = -ENOMEM;
			goto out;
		}
		/*
		 * The last component of the instance path: a prefix that does
		 * not end in "/" ("/tmp/inst/$USER-") puts its tail into it.
		 */
		free(e->instance_name);
		e->instance_name = strdup(slash + 1);
		if (!e->instance_name) {
			k = -ENOMEM;
			goto out;
		}
		if (e->instance_name[0] == '\0') {
			ns_diag_report(diag, NS_ERROR, r->file, r->line, 0,
				       "instance path \"%s\" ends in \"/\"", e->instance);
			k = -EINVAL;
			goto out;
		}
	}

	if (r->create) {
		k = plan_create(e, r, user, lookup, opts, diag);
		if (k < 0)
			goto out;
	}

	if (!r->noinit) {
		const char *script = r->iscript ? r->iscript : opts->init_script;

		if (script && !(e->init_script = strdup(script))) {
			k = -ENOMEM;
			goto out;
		}
	}
	if (r->mntopts && !(e->mntopts = strdup(r->mntopts))) {
		k = -ENOMEM;
		goto out;
	}
	e->mount_flags = r->mount_flags;
	e->attr_flags = r->attr_flags;
	e->ignore_parent_mode = r->ignore_parent_mode;
	e->quota = r->quota;
	e->quota_uid = user->uid;
	e->quota_bytes = r->quota_bytes;
	e->quota_inodes = r->quota_inodes;
	if (r->n_shares) {
		e->shares = calloc(r->n_shares, sizeof(*e->shares));
		if (!e->shares) {
			k = -ENOMEM;
			goto out;
		}
	}
	for (size_t i = 0; i < r->n_shares; i++) {
		/* Expanded like polydir, so $HOME/.x stays right inside $HOME. */
		e->shares[i] = ns_expand_variables(r->shares[i], user);
		if (!e->shares[i]) {
			k = -ENOMEM;
			goto out;
		}
		e->n_shares++;
		k = check_path(r, "share", e->shares[i], diag);
		if (k < 0)
			goto out;
	}
	k = 1;
out:
	free(raw);
	free(prefix);
	if (k <= 0)
		entry_free(e);
	return k;
}

int ns_plan_build(struct ns_plan *plan, const struct ns_config *cfg, const struct ns_user *user,
		  const struct ns_lookup *lookup, const struct ns_plan_opts *opts,
		  struct ns_diag *diag)
{
	struct ns_plan p = {0};
	struct uid_cache cache = {0};
	int r = 0;

	if (ns_user_name_valid(user->name) < 0) {
		ns_diag_report(diag, NS_ERROR, NULL, 0, 0, "refusing user name unfit for a path");
		return -EINVAL;
	}
	if (!user->home || user->home[0] != '/') {
		ns_diag_report(diag, NS_ERROR, NULL, 0, 0, "user %s has no absolute home directory",
			       user->name);
		return -EINVAL;
	}

	if (cfg->n_rules) {
		p.entries = calloc(cfg->n_rules, sizeof(*p.entries));
		if (!p.entries)
			return -ENOMEM;
	}

	for (size_t i = 0; i < cfg->n_rules; i++) {
		const struct ns_rule *rule = &cfg->rules[i];
		int k = plan_rule(&p.entries[p.n_entries], rule, user, lookup, opts, &cache, diag);

		if (k == -ENOMEM) {
			r = k;
			break;
		}
		if (k < 0) {
			if (opts->flags & NS_PLAN_IGNORE_ERRORS) {
				ns_diag_report(diag, NS_WARNING, rule->file, rule->line, 0,
					       "line skipped (ignore_config_error)");
				continue;
			}
			r = k;
			break;
		}
		if (k > 0)
			p.n_entries++;
	}

	free(cache.slots);
	if (r < 0) {
		ns_plan_free(&p);
		return r;
	}
	*plan = p;
	return 0;
}

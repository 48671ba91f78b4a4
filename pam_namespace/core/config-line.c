/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * One namespace.conf line made into a rule: the method and its flags
 * (create=, iscript=, mntopts=, the extended lines' options), the paths'
 * checks, the list of users or selectors. Pure: fields in, a rule out, each
 * problem reported once with file:line:column.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "config-parse.h"
#include "naming.h"
#include "ns-build.h"
#include "util.h"

static int check_path_field(struct line_ctx *lc, const char *what, const struct field *f)
{
	const char *problem;
	int r = ns_path_check(f->text, true, &problem);

	if (r < 0)
		line_error(lc, f->column, "%s \"%s\" %s", what, f->text, problem);
	return r;
}

/* create=mode,owner,group: the mode is octal (Linux-PAM read 755 as decimal). */
static int parse_create(struct line_ctx *lc, unsigned col, const char *v, struct ns_rule *r)
{
	const char *c1, *c2;

	/* Given twice on a line, the last create wins. */
	r->create = true;
	r->create_has_mode = false;
	free(r->create_owner);
	free(r->create_group);
	r->create_owner = r->create_group = NULL;
	if (!v)
		return 0;
	c1 = strchr(v, ',');
	if (c1 != v && *v) {
		char *end;
		unsigned long mode;

		errno = 0;
		mode = strtoul(v, &end, 8);
		if (errno || end == v || (*end && *end != ',') || mode > 07777) {
			line_error(lc, col, "create: bad mode \"%.*s\": want octal, at most 7777",
				   (int)(c1 ? (size_t)(c1 - v) : strlen(v)), v);
			return -EINVAL;
		}
		r->create_has_mode = true;
		r->create_mode = (mode_t)mode;
	}
	if (!c1)
		return 0;
	c2 = strchr(c1 + 1, ',');
	if (c2 != c1 + 1 && c1[1]) {
		r->create_owner = c2 ? strndup(c1 + 1, c2 - c1 - 1) : strdup(c1 + 1);
		if (!r->create_owner)
			return -ENOMEM;
	}
	if (c2 && c2[1]) {
		if (strchr(c2 + 1, ',')) {
			line_error(lc, col, "create: too many values in \"%s\"", v);
			return -EINVAL;
		}
		r->create_group = strdup(c2 + 1);
		if (!r->create_group)
			return -ENOMEM;
	}
	return 0;
}

/*
 * mntopts: nosuid, noexec, nodev are mount flags, the rest goes to tmpfs,
 * comma-separated with a ',' or a backslash inside an option escaped by a
 * backslash (kn_tmpfs_fd). escaped: v is an extended line's value, where
 * "\," is a comma inside an option; on other lines every character of v is
 * itself.
 */
static int parse_mntopts(const char *v, bool escaped, struct ns_rule *r)
{
	char *copy = strdup(v), *out, *opt, *next;
	size_t n = 0;

	if (!copy)
		return -ENOMEM;
	/* A second mntopts= replaces the first whole, flags too (compat). */
	r->mount_flags = 0;
	out = malloc(2 * strlen(v) + 1);
	if (!out) {
		free(copy);
		return -ENOMEM;
	}
	for (opt = copy; opt; opt = next) {
		if (escaped) {
			next = ns_lex_cut_unescaped(opt, ',');
			ns_lex_unescape(opt, "");
		} else {
			next = strchr(opt, ',');
			if (next)
				*next++ = '\0';
		}
		if (!*opt)
			continue;
		if (strcmp(opt, "nosuid") == 0)
			r->mount_flags |= MS_NOSUID;
		else if (strcmp(opt, "noexec") == 0)
			r->mount_flags |= MS_NOEXEC;
		else if (strcmp(opt, "nodev") == 0)
			r->mount_flags |= MS_NODEV;
		else {
			if (n)
				out[n++] = ',';
			for (const char *p = opt; *p; p++) {
				if (*p == ',' || *p == '\\')
					out[n++] = '\\';
				out[n++] = *p;
			}
		}
	}
	out[n] = '\0';
	free(copy);
	free(r->mntopts);
	if (n == 0) {
		free(out);
		out = NULL;
	}
	r->mntopts = out;
	return 0;
}

static int add_string(char ***list, size_t *n, const char *s)
{
	char **l = realloc(*list, (*n + 1) * sizeof(**list));

	if (!l)
		return -ENOMEM;
	*list = l;
	l[*n] = strdup(s);
	if (!l[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* The flags only extended lines have, and the mount flag each one sets (0: none). */
static const struct {
	const char *name;
	unsigned long ms;
} extended_flags[] = {
	{"nosuid", MS_NOSUID},
	{"nodev", MS_NODEV},
	{"noexec", MS_NOEXEC},
	{"ro", MS_RDONLY},
	{"share", 0},
	{"ignore_unknown", 0},
	{"ignore_instance_parent_mode", 0},
	{"quota", 0},
};

/* A size as tmpfs's size= takes it: a number with k, m, g or t (binary), never 0. */
static int parse_size(const char *s, uint64_t *ret)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	case 't':
	case 'T':
		shift = 40;
		end++;
		break;
	default:
		break;
	}
	if (*end || v == 0 || v > (UINT64_MAX >> shift))
		return -EINVAL;
	*ret = (uint64_t)v << shift;
	return 0;
}

/* quota=SIZE[,INODES]: either may be left empty, not both. */
static int parse_quota(struct line_ctx *lc, unsigned col, const char *v, struct ns_rule *r)
{
	const char *comma = strchr(v, ',');
	char *size = comma ? strndup(v, (size_t)(comma - v)) : strdup(v);
	int k = 0;

	if (!size)
		return -ENOMEM;
	r->quota_bytes = r->quota_inodes = 0;
	if (*size)
		k = parse_size(size, &r->quota_bytes);
	if (k == 0 && comma && comma[1])
		k = parse_size(comma + 1, &r->quota_inodes);
	if (k == 0 &&
	    (strchr(comma ? comma + 1 : "", ',') || (!r->quota_bytes && !r->quota_inodes)))
		k = -EINVAL;
	free(size);
	if (k < 0) {
		line_error(lc, col, "quota: bad value \"%s\": want SIZE[,INODES], e.g. 100M,1000",
			   v);
		return k;
	}
	r->quota = true;
	return 0;
}

/* Every flag a line may have, as the hint of an unknown flag lists them. */
static const char *const plain_flags[] = {"create", "iscript", "noinit", "shared", "mntopts"};
#define PLAIN_FLAGS "create[=mode,owner,group], iscript=PATH, noinit, shared, mntopts=OPTS"
#define EXTENDED_FLAGS                                                                             \
	"share=PATH, nosuid, nodev, noexec, ro, ignore_unknown, ignore_instance_parent_mode, "     \
	"quota=SIZE[,INODES]"

/*
 * The end of an unknown flag's message: the flag it likely meant, then the
 * valid ones, since a typo such as "noinnit" silently keeps the init script
 * running. Written into hint.
 */
static const char *flag_hint(char *hint, size_t size, const char *flag, bool extended)
{
	const char *words[sizeof(plain_flags) / sizeof(plain_flags[0]) +
			  sizeof(extended_flags) / sizeof(extended_flags[0])];
	size_t n = 0;
	const char *near;

	for (size_t i = 0; i < sizeof(plain_flags) / sizeof(plain_flags[0]); i++)
		words[n++] = plain_flags[i];
	for (size_t i = 0; extended && i < sizeof(extended_flags) / sizeof(extended_flags[0]); i++)
		words[n++] = extended_flags[i].name;
	near = ns_closest(flag, words, n);
	snprintf(hint, size, "%s%s%s; the flags are %s%s%s", near ? " (did you mean " : "",
		 near ? near : "", near ? "?)" : "", PLAIN_FLAGS, extended ? ", " : "",
		 extended ? EXTENDED_FLAGS : "");
	return hint;
}

static int parse_extended_flag(struct line_ctx *lc, unsigned col, const char *flag, const char *v,
			       struct ns_rule *r)
{
	char hint[512];

	for (size_t i = 0; i < sizeof(extended_flags) / sizeof(extended_flags[0]); i++)
		if (extended_flags[i].ms && strcmp(flag, extended_flags[i].name) == 0 && !v) {
			r->attr_flags |= extended_flags[i].ms;
			return 0;
		}
	if (strcmp(flag, "ignore_unknown") == 0 && !v) {
		r->ignore_unknown = true;
		return 0;
	}
	if (strcmp(flag, "ignore_instance_parent_mode") == 0 && !v) {
		r->ignore_parent_mode = true;
		return 0;
	}
	if (strcmp(flag, "quota") == 0 && v)
		return parse_quota(lc, col, v, r);
	if (strcmp(flag, "share") == 0 && v) {
		const char *problem;

		if (ns_path_check(v, true, &problem) < 0) {
			line_error(lc, col, "share: path \"%s\" %s", v, problem);
			return -EINVAL;
		}
		return add_string(&r->shares, &r->n_shares, v);
	}
	line_error(lc, col, "unknown flag \"%s%s%s\" on an extended line%s", flag, v ? "=" : "",
		   v ? v : "", flag_hint(hint, sizeof(hint), flag, true));
	return -EINVAL;
}

static bool is_extended_flag(const char *flag)
{
	for (size_t i = 0; i < sizeof(extended_flags) / sizeof(extended_flags[0]); i++)
		if (strcmp(flag, extended_flags[i].name) == 0)
			return true;
	return false;
}

static int parse_flag(struct line_ctx *lc, unsigned col, char *flag, const char *conf_d,
		      struct ns_rule *r)
{
	char *eq = strchr(flag, '=');
	char *v = eq ? eq + 1 : NULL;
	char hint[512];

	if (eq)
		*eq = '\0';
	/* Extended lines: every value but mntopts's is unescaped whole here. */
	if (r->extended && v)
		ns_lex_unescape(v, strcmp(flag, "mntopts") == 0 ? ",\\" : "");
	if (strcmp(flag, "create") == 0)
		return parse_create(lc, col, v, r);
	if (strcmp(flag, "noinit") == 0 && !v) {
		r->noinit = true;
		return 0;
	}
	if (strcmp(flag, "shared") == 0 && !v) {
		r->shared = true;
		return 0;
	}
	if (strcmp(flag, "iscript") == 0 && v && *v) {
		free(r->iscript);
		if (v[0] == '/')
			r->iscript = strdup(v);
		else if (asprintf(&r->iscript, "%s/%s", conf_d, v) < 0)
			r->iscript = NULL;
		return r->iscript ? 0 : -ENOMEM;
	}
	if (strcmp(flag, "mntopts") == 0 && v)
		return parse_mntopts(v, r->extended, r);
	if (r->extended)
		return parse_extended_flag(lc, col, flag, v, r);
	if (is_extended_flag(flag)) {
		if (eq)
			*eq = '=';
		line_warning(lc, col,
			     "unknown flag \"%s\", ignored: this module's flag of that name needs "
			     "the extended method form (\"%s+\")",
			     flag, ns_method_to_string(r->method));
		return 0;
	}
	if (eq)
		*eq = '=';
	line_warning(lc, col, "unknown flag \"%s\", ignored%s", flag,
		     flag_hint(hint, sizeof(hint), flag, false));
	return 0;
}

/* The end of an unknown method's message: the method it likely meant, and the valid ones. */
static const char *method_hint(char *hint, size_t size, const char *method)
{
	const char *words[_NS_METHOD_MAX], *near;
	int n = 0, k;

	for (int m = 0; m < _NS_METHOD_MAX; m++)
		words[n++] = ns_method_to_string(m);
	near = ns_closest(method, words, (size_t)n);
	k = snprintf(hint, size, "%s%s%s; the methods are", near ? " (did you mean " : "",
		     near ? near : "", near ? "?)" : "");
	for (int m = 0; m < n && k > 0 && (size_t)k < size; m++)
		k += snprintf(hint + k, size - (size_t)k, "%s %s", m ? "," : "", words[m]);
	return hint;
}

/*
 * METHOD[:flag...], or METHOD+[:flag...] for an extended line: Linux-PAM's
 * parser takes everything before the first ':' as the method, so it
 * refuses "user+" as an unknown method rather than ignoring flags it does
 * not know. On extended lines a backslash escapes ':' and ',' in values.
 */
static int parse_method(struct line_ctx *lc, const struct field *f, const char *conf_d,
			struct ns_rule *r)
{
	char *copy = strdup(f->text), *p, *flag, hint[256];
	size_t mlen;
	int k = 0;

	if (!copy)
		return -ENOMEM;
	p = strchr(copy, ':');
	if (p)
		*p++ = '\0';
	mlen = strlen(copy);
	if (mlen > 1 && copy[mlen - 1] == '+') {
		copy[mlen - 1] = '\0';
		r->extended = true;
	}
	r->method = ns_method_from_string(copy);
	if (r->method == _NS_METHOD_INVALID) {
		line_error(lc, f->column, "unknown method \"%s%s\"%s", copy, r->extended ? "+" : "",
			   method_hint(hint, sizeof(hint), copy));
		free(copy);
		return -EINVAL;
	}
	while (p && k == 0) {
		unsigned col = f->column + (unsigned)(p - copy);

		flag = p;
		if (r->extended) {
			p = ns_lex_cut_unescaped(p, ':');
		} else {
			p = strchr(p, ':');
			if (p)
				*p++ = '\0';
		}
		if (*flag)
			k = parse_flag(lc, col, flag, conf_d, r);
	}
	free(copy);
	if (k == 0 && (r->mntopts || r->mount_flags) && r->method != NS_METHOD_TMPFS)
		line_warning(lc, f->column, "mntopts has effect only with method tmpfs");
	if (k == 0 && (r->attr_flags & MS_RDONLY) &&
	    (r->method == NS_METHOD_TMPFS || r->method == NS_METHOD_TMPDIR)) {
		line_error(lc, f->column,
			   "ro: a %s instance is new and empty; read-only it is of no use",
			   ns_method_to_string(r->method));
		k = -EINVAL;
	}
	if (k == 0 && r->quota && r->method == NS_METHOD_TMPFS) {
		line_error(lc, f->column,
			   "quota: a tmpfs instance is the session's own filesystem; limit it with "
			   "mntopts=size=,nr_inodes= instead");
		k = -EINVAL;
	}
	return k;
}

/* "uid<N", "uid>N" or "N-M" into *sel; 0 if s is none of these (a user name). */
static int parse_uid_range(struct line_ctx *lc, unsigned col, const char *s,
			   struct ns_selector *sel)
{
	unsigned long long a, b;
	char *end;
	const uid_t max = (uid_t)-2; /* (uid_t)-1 is no uid */

	if ((strncmp(s, "uid<", 4) == 0 || strncmp(s, "uid>", 4) == 0) && s[4]) {
		errno = 0;
		a = strtoull(s + 4, &end, 10);
		if (errno || *end || s[4] < '0' || s[4] > '9' || a > max ||
		    (s[3] == '<' && a == 0) || (s[3] == '>' && a == max)) {
			line_error(lc, col, "bad uid range \"%s\"", s);
			return -EINVAL;
		}
		*sel = (struct ns_selector){.kind = NS_SELECTOR_UIDS};
		if (s[3] == '<') {
			sel->hi = (uid_t)a - 1;
		} else {
			sel->lo = (uid_t)a + 1;
			sel->hi = max;
		}
		return 1;
	}
	if (s[0] < '0' || s[0] > '9' || !strchr(s, '-'))
		return 0;
	errno = 0;
	a = strtoull(s, &end, 10);
	if (errno || *end != '-' || end[1] < '0' || end[1] > '9')
		return 0;
	b = strtoull(end + 1, &end, 10);
	if (errno || *end)
		return 0;
	if (a > b || b > max) {
		line_error(lc, col, "bad uid range \"%s\"", s);
		return -EINVAL;
	}
	*sel = (struct ns_selector){.kind = NS_SELECTOR_UIDS, .lo = (uid_t)a, .hi = (uid_t)b};
	return 1;
}

/* An extended line's list: names, @groups, uid ranges. */
static int parse_selectors(struct line_ctx *lc, const struct field *f, const char *s,
			   struct ns_rule *r)
{
	size_t cap = 1;

	for (const char *p = s; *p; p++)
		cap += *p == ',';
	r->selectors = calloc(cap, sizeof(*r->selectors));
	if (!r->selectors)
		return -ENOMEM;
	while (*s) {
		size_t n = strcspn(s, ",");
		unsigned col = f->column + (unsigned)(s - f->text);
		char *item = strndup(s, n);
		struct ns_selector *sel = &r->selectors[r->n_selectors];
		int k;

		if (!item)
			return -ENOMEM;
		s += n;
		if (*s == ',')
			s++;
		if (n == 0) {
			free(item);
			continue;
		}
		k = parse_uid_range(lc, col, item, sel);
		if (k == 0 && item[0] == '@') {
			if (!item[1]) {
				line_error(lc, col, "\"@\" without a group name");
				k = -EINVAL;
			} else {
				*sel = (struct ns_selector){.kind = NS_SELECTOR_GROUP,
							    .name = strdup(item + 1)};
				k = sel->name ? 1 : -ENOMEM;
			}
		} else if (k == 0) {
			*sel = (struct ns_selector){.kind = NS_SELECTOR_USER, .name = item};
			item = NULL;
			k = 1;
		}
		free(item);
		if (k < 0)
			return k;
		r->n_selectors++;
	}
	return 0;
}

static int parse_users(struct line_ctx *lc, const struct field *f, struct ns_rule *r)
{
	const char *s = f->text;
	size_t cap = 1;

	if (*s == '~') {
		r->users_only = true;
		s++;
	}
	if (r->extended)
		return parse_selectors(lc, f, s, r);
	for (const char *p = s; *p; p++)
		cap += *p == ',';
	r->users = calloc(cap, sizeof(*r->users));
	if (!r->users)
		return -ENOMEM;
	while (*s) {
		size_t n = strcspn(s, ",");

		if (n > 0) {
			r->users[r->n_users] = strndup(s, n);
			if (!r->users[r->n_users])
				return -ENOMEM;
			r->n_users++;
		}
		s += n;
		if (*s == ',')
			s++;
	}
	return 0;
}

/* share=PATH names a directory right inside the polydir (both as written, before $HOME). */
static int check_shares(struct line_ctx *lc, const struct field *poly, const struct ns_rule *r)
{
	size_t pl = strlen(poly->text);

	for (size_t i = 0; i < r->n_shares; i++) {
		const char *sh = r->shares[i];

		if (strncmp(sh, poly->text, pl) != 0 || sh[pl] != '/' || !sh[pl + 1] ||
		    strchr(sh + pl + 1, '/') || strcmp(sh + pl + 1, ".") == 0) {
			line_error(lc, poly->column,
				   "share: \"%s\" is not a directory right inside the polydir %s",
				   sh, poly->text);
			return -EINVAL;
		}
	}
	return 0;
}

/* Returns 1 with *r filled, 0 for an empty line, or a negative errno. */
int ns_line_parse(struct line_ctx *lc, const char *s, size_t len, const char *conf_d,
		  struct ns_rule *r)
{
	struct field f[NS_MAX_FIELDS] = {0};
	const char *hash = memchr(s, '#', len);
	size_t plen;
	int n, k;

	if (hash)
		len = (size_t)(hash - s);
	*r = (struct ns_rule){.line = lc->line};
	n = ns_lex_split_fields(lc, s, len, f);
	if (n <= 0) {
		k = n;
		goto out;
	}

	if (n < 3) {
		line_error(lc, f[n - 1].column,
			   "want at least 3 fields (polydir, instance prefix, method), found %d",
			   n);
		k = -EINVAL;
		goto out;
	}
	if (n == 5)
		line_warning(lc, f[4].column, "fifth field \"%s\" ignored", f[4].text);

	k = parse_method(lc, &f[2], conf_d, r);
	if (k < 0)
		goto out;

	/* Trailing slashes of polydir are dropped ("/" stays, and is refused later). */
	plen = strlen(f[0].text);
	while (plen > 1 && f[0].text[plen - 1] == '/')
		f[0].text[--plen] = '\0';
	k = check_path_field(lc, "polydir", &f[0]);
	if (k < 0)
		goto out;
	if (r->method != NS_METHOD_TMPFS) {
		k = check_path_field(lc, "instance prefix", &f[1]);
		if (k < 0)
			goto out;
	}
	k = check_shares(lc, &f[0], r);
	if (k < 0)
		goto out;
	if (n >= 4) {
		k = parse_users(lc, &f[3], r);
		if (k < 0)
			goto out;
	}
	r->file = strdup(lc->file);
	if (!r->file) {
		k = -ENOMEM;
		goto out;
	}
	r->polydir = f[0].text;
	r->instance_prefix = f[1].text;
	f[0].text = f[1].text = NULL;
	k = 1;
out:
	for (int i = 0; i < NS_MAX_FIELDS; i++)
		free(f[i].text);
	if (k <= 0)
		ns_rule_free(r);
	return k;
}

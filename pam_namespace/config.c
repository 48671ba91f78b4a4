/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * namespace.conf: reading (with the trust checks of SPEC section 1) and
 * parsing. The parser is pure: text in, rules out, every problem reported
 * once with file:line:column. It fails closed: a bad line is an error
 * unless ignore_config_error says to skip it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "kernel.h"
#include "naming.h"
#include "ns-build.h"

#define NS_CONFIG_MAX_FILE (64u * 1024 * 1024)
#define NS_MAX_FIELDS	   5

static const char *const method_table[_NS_METHOD_MAX] = {
	[NS_METHOD_USER] = "user",     [NS_METHOD_CONTEXT] = "context", [NS_METHOD_LEVEL] = "level",
	[NS_METHOD_TMPDIR] = "tmpdir", [NS_METHOD_TMPFS] = "tmpfs",
};

const char *ns_method_to_string(enum ns_method m)
{
	if (m < 0 || m >= _NS_METHOD_MAX)
		return NULL;
	return method_table[m];
}

enum ns_method ns_method_from_string(const char *s)
{
	for (int m = 0; m < _NS_METHOD_MAX; m++)
		if (s && strcmp(s, method_table[m]) == 0)
			return (enum ns_method)m;
	return _NS_METHOD_INVALID;
}

void ns_rule_free(struct ns_rule *r)
{
	free(r->file);
	free(r->polydir);
	free(r->instance_prefix);
	free(r->create_owner);
	free(r->create_group);
	free(r->iscript);
	free(r->mntopts);
	for (size_t i = 0; i < r->n_users; i++)
		free(r->users[i]);
	free(r->users);
	for (size_t i = 0; i < r->n_shares; i++)
		free(r->shares[i]);
	free(r->shares);
	for (size_t i = 0; i < r->n_selectors; i++)
		free(r->selectors[i].name);
	free(r->selectors);
	*r = (struct ns_rule){0};
}

void ns_config_free(struct ns_config *cfg)
{
	for (size_t i = 0; i < cfg->n_rules; i++)
		ns_rule_free(&cfg->rules[i]);
	free(cfg->rules);
	*cfg = (struct ns_config){0};
}

/* One field of a line, unescaped, and the column it started at. */
struct field {
	char *text;
	unsigned column;
};

struct line_ctx {
	const char *file;
	unsigned line;
	struct ns_diag *diag;
	unsigned flags;
};

#define line_error(lc, col, ...)                                                                   \
	ns_diag_report((lc)->diag, NS_ERROR, (lc)->file, (lc)->line, col, __VA_ARGS__)
#define line_warning(lc, col, ...)                                                                 \
	ns_diag_report((lc)->diag, NS_WARNING, (lc)->file, (lc)->line, col, __VA_ARGS__)

/*
 * Split a line (without its newline, comment already cut off) into at most
 * NS_MAX_FIELDS fields: blanks separate, "..." quotes, and outside quotes
 * \n \t \b are escapes and any other \x is x. Returns the number of fields
 * or a negative errno.
 */
static int split_fields(struct line_ctx *lc, const char *s, size_t len, struct field *out)
{
	size_t i = 0;
	int n = 0;

	for (;;) {
		size_t start, o = 0;
		bool quoted = false;
		char *buf;

		while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
			i++;
		if (i >= len)
			return n;
		if (n == NS_MAX_FIELDS)
			return n; /* the rest is past the ignored fifth field */
		start = i;
		buf = malloc(len - i + 1);
		if (!buf)
			return -ENOMEM;
		while (i < len && (quoted || (s[i] != ' ' && s[i] != '\t' && s[i] != '\r'))) {
			char c = s[i++];

			if (c == '"') {
				quoted = !quoted;
				continue;
			}
			/* Inside quotes a backslash is itself (compat). */
			if (c == '\\' && !quoted && i < len) {
				c = s[i++];
				c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'b' ? '\b' : c;
			}
			buf[o++] = c;
		}
		buf[o] = '\0';
		if (quoted) {
			line_error(lc, (unsigned)start + 1, "unterminated quote");
			free(buf);
			return -EINVAL;
		}
		out[n].text = buf;
		out[n].column = (unsigned)start + 1;
		n++;
	}
}

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
 * Extended lines: s up to the first sep that no backslash escapes is cut
 * off there; returns what follows it, or NULL at the end of s.
 */
static char *cut_unescaped(char *s, char sep)
{
	for (; *s; s++) {
		if (*s == '\\' && s[1]) {
			s++;
			continue;
		}
		if (*s == sep) {
			*s = '\0';
			return s + 1;
		}
	}
	return NULL;
}

/* Undo the backslash escapes of v in place, except before the characters of keep. */
static void unescape(char *v, const char *keep)
{
	char *o = v;

	for (; *v; v++) {
		if (*v == '\\' && v[1] && !strchr(keep, v[1]))
			v++;
		else if (*v == '\\' && v[1])
			*o++ = *v++;
		*o++ = *v;
	}
	*o = '\0';
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
			next = cut_unescaped(opt, ',');
			unescape(opt, "");
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

static int parse_extended_flag(struct line_ctx *lc, unsigned col, const char *flag, const char *v,
			       struct ns_rule *r)
{
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
	line_error(lc, col, "unknown flag \"%s%s%s\" on an extended line", flag, v ? "=" : "",
		   v ? v : "");
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

	if (eq)
		*eq = '\0';
	/* Extended lines: every value but mntopts's is unescaped whole here. */
	if (r->extended && v)
		unescape(v, strcmp(flag, "mntopts") == 0 ? ",\\" : "");
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
	line_warning(lc, col, "unknown flag \"%s\", ignored", flag);
	return 0;
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
	char *copy = strdup(f->text), *p, *flag;
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
		line_error(lc, f->column, "unknown method \"%s%s\"", copy, r->extended ? "+" : "");
		free(copy);
		return -EINVAL;
	}
	while (p && k == 0) {
		unsigned col = f->column + (unsigned)(p - copy);

		flag = p;
		if (r->extended) {
			p = cut_unescaped(p, ':');
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
static int parse_line(struct line_ctx *lc, const char *s, size_t len, const char *conf_d,
		      struct ns_rule *r)
{
	struct field f[NS_MAX_FIELDS] = {0};
	const char *hash = memchr(s, '#', len);
	size_t plen;
	int n, k;

	if (hash)
		len = (size_t)(hash - s);
	*r = (struct ns_rule){.line = lc->line};
	n = split_fields(lc, s, len, f);
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

static int append_rule(struct ns_config *cfg, size_t *cap, struct ns_rule *r)
{
	if (cfg->n_rules == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		struct ns_rule *nr = realloc(cfg->rules, ncap * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		cfg->rules = nr;
		*cap = ncap;
	}
	cfg->rules[cfg->n_rules++] = *r;
	return 0;
}

int ns_config_parse_text(struct ns_config *cfg, const char *file, const char *text, size_t len,
			 const char *conf_d, unsigned flags, struct ns_diag *diag)
{
	struct line_ctx lc = {.file = file, .diag = diag, .flags = flags};
	size_t cap = cfg->n_rules, pos = 0;
	const char *nul;
	int r = 0;

	if (!conf_d)
		conf_d = NS_SYSCONF_DIR "/namespace.d";

	/* A NUL byte means this is not a text file: refuse it whole. */
	nul = memchr(text, '\0', len);
	if (nul) {
		unsigned line = 1;

		for (const char *p = text; p < nul; p++)
			line += *p == '\n';
		ns_diag_report(diag, NS_ERROR, file, line, 0, "NUL byte in the configuration");
		return -EINVAL;
	}

	while (pos < len) {
		const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - s) : len - pos;
		struct ns_rule rule;
		int k;

		pos += l + 1;
		lc.line++;
		if (l > NS_CONFIG_MAX_LINE) {
			line_error(&lc, 0, "line longer than %d bytes", NS_CONFIG_MAX_LINE);
			k = -E2BIG;
		} else {
			k = parse_line(&lc, s, l, conf_d, &rule);
		}
		if (k == -ENOMEM)
			return k;
		if (k < 0) {
			if (flags & NS_CONFIG_IGNORE_ERRORS)
				line_warning(&lc, 0, "line skipped (ignore_config_error)");
			else if (r == 0)
				r = k;
			continue;
		}
		if (k == 0)
			continue;
		if (cfg->n_rules >= NS_CONFIG_MAX_ENTRIES) {
			ns_rule_free(&rule);
			line_error(&lc, 0, "more than %d entries in the configuration",
				   NS_CONFIG_MAX_ENTRIES);
			return -E2BIG;
		}
		if (r < 0) {
			/* Keep reporting errors, but keep no rules from a failed file. */
			ns_rule_free(&rule);
			continue;
		}
		if (append_rule(cfg, &cap, &rule) < 0) {
			ns_rule_free(&rule);
			return -ENOMEM;
		}
	}
	return r;
}

/*
 * The directories one load has checked already: each was checked with all
 * those above it, so the next file's check stops at the first one found
 * (namespace.d's files share /etc/security, /etc and / with namespace.conf).
 */
struct checked_dirs {
	char *dirs[8];
	size_t n;
};

static bool dir_checked(const struct checked_dirs *cd, const char *dir)
{
	for (size_t i = 0; i < cd->n; i++)
		if (strcmp(cd->dirs[i], dir) == 0)
			return true;
	return false;
}

static void dir_mark_checked(struct checked_dirs *cd, const char *dir)
{
	char *copy;

	if (cd->n == sizeof(cd->dirs) / sizeof(cd->dirs[0]))
		return;
	copy = strdup(dir);
	if (copy)
		cd->dirs[cd->n++] = copy;
}

static void checked_dirs_free(struct checked_dirs *cd)
{
	for (size_t i = 0; i < cd->n; i++)
		free(cd->dirs[i]);
	cd->n = 0;
}

/*
 * SPEC 1, like sshd's StrictModes: the file and every directory above it
 * must be root-owned and writable by nobody else (a root-owned sticky
 * directory is fine), or anyone who can write them can take over logins.
 */
static int check_dirs_trusted(const char *file, struct checked_dirs *cd, struct ns_diag *diag)
{
	char *dir = strdup(file), *slash;
	int r = 0;

	if (!dir)
		return -ENOMEM;
	while ((slash = strrchr(dir, '/'))) {
		struct stat st;

		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (dir_checked(cd, dir))
			break;
		if (stat(dir, &st) < 0) {
			r = -errno;
			ns_diag_report(diag, NS_ERROR, dir, 0, 0, "cannot check directory: %s",
				       strerror(errno));
			break;
		}
		if (st.st_uid != 0 ||
		    ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))) {
			ns_diag_report(
				diag, NS_ERROR, file, 0, 0,
				"refusing: directory %s is owned by uid %u with mode %04o; it "
				"must be owned by root and not writable by group or others",
				dir, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
			r = -EPERM;
			break;
		}
		/* A failure above it fails the whole load, so it can be marked now. */
		dir_mark_checked(cd, dir);
		if (strcmp(dir, "/") == 0)
			break;
	}
	free(dir);
	return r;
}

/*
 * Read one file; -ENOENT is returned unreported so callers can fall back.
 * With trust_checks, the file and its directories are checked (SPEC 1).
 */
static int read_file(const char *path, struct checked_dirs *trust_checks, struct ns_diag *diag,
		     char **ret, size_t *ret_len)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0, cap;
	int fd, r;

	/* O_NONBLOCK: a FIFO put in its place must not hang the login. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		r = -errno;
		if (r != -ENOENT)
			ns_diag_report(diag, NS_ERROR, path, 0, 0, "cannot open: %s",
				       strerror(errno));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		ns_diag_report(diag, NS_ERROR, path, 0, 0, "cannot stat: %s", strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ns_diag_report(diag, NS_ERROR, path, 0, 0, "refusing: not a regular file");
		r = -EPERM;
		goto out;
	}
	if (trust_checks && (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)))) {
		ns_diag_report(diag, NS_ERROR, path, 0, 0,
			       "refusing: owned by uid %u with mode %04o; it must be owned by "
			       "root and not writable by group or others",
			       (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		r = -EPERM;
		goto out;
	}
	if (trust_checks) {
		r = check_dirs_trusted(path, trust_checks, diag);
		if (r < 0)
			goto out;
	}
	if ((unsigned long long)st.st_size > NS_CONFIG_MAX_FILE) {
		ns_diag_report(diag, NS_ERROR, path, 0, 0, "larger than %u bytes",
			       NS_CONFIG_MAX_FILE);
		r = -E2BIG;
		goto out;
	}
	cap = (size_t)st.st_size + 1;
	buf = malloc(cap);
	if (!buf) {
		r = -ENOMEM;
		goto out;
	}
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			char *nb;

			if (cap > NS_CONFIG_MAX_FILE) {
				ns_diag_report(diag, NS_ERROR, path, 0, 0, "larger than %u bytes",
					       NS_CONFIG_MAX_FILE);
				r = -E2BIG;
				goto out;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				r = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			ns_diag_report(diag, NS_ERROR, path, 0, 0, "cannot read: %s",
				       strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		/* All that fstat announced: the read that would return 0 is saved. */
		if (st.st_size > 0 && len == (size_t)st.st_size)
			break;
	}
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
	buf = NULL;
	r = 0;
out:
	free(buf);
	close(fd);
	return r;
}

static int load_file(struct ns_config *cfg, const char *path, const char *conf_d, unsigned flags,
		     struct checked_dirs *trust_checks, struct ns_diag *diag)
{
	char *text;
	size_t len;
	int r = read_file(path, trust_checks, diag, &text, &len);

	if (r < 0)
		return r;
	r = ns_config_parse_text(cfg, path, text, len, conf_d, flags, diag);
	free(text);
	return r;
}

struct dropin {
	char *name;
	const char *dir;
};

static int dropin_cmp(const void *a, const void *b)
{
	const struct dropin *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	/* Same name: the /etc one (listed first, so lower index) sorts first. */
	return c ? c : (x->dir < y->dir ? -1 : x->dir > y->dir);
}

static int add_dropin(const char *dir, const char *name, struct dropin **list, size_t *n,
		      size_t *cap)
{
	size_t l = strlen(name);

	if (name[0] == '.' || l <= 5 || strcmp(name + l - 5, ".conf") != 0)
		return 0;
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		struct dropin *nl = realloc(*list, nc * sizeof(*nl));

		if (!nl)
			return -ENOMEM;
		*list = nl;
		*cap = nc;
	}
	(*list)[*n].name = strdup(name);
	(*list)[*n].dir = dir;
	if (!(*list)[*n].name)
		return -ENOMEM;
	(*n)++;
	return 0;
}

struct dropin_listing {
	const char *dir;
	struct dropin **list;
	size_t *n, *cap;
};

static int list_one_dropin(const char *name, void *ud)
{
	struct dropin_listing *l = ud;

	return add_dropin(l->dir, name, l->list, l->n, l->cap);
}

/* By kn_dir_each(): getdents64(), no fdopendir() for a directory most often empty. */
static int list_dropins(const char *dir, struct dropin **list, size_t *n, size_t *cap)
{
	struct dropin_listing l = {.dir = dir, .list = list, .n = n, .cap = cap};
	int fd, r;

	if (!dir)
		return 0;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	r = kn_dir_each(fd, list_one_dropin, &l);
	close(fd);
	return r;
}

int ns_config_load(struct ns_config *cfg, const struct ns_config_paths *paths, unsigned flags,
		   struct ns_diag *diag)
{
	const char *main_file =
		paths->main_file ? paths->main_file : NS_SYSCONF_DIR "/namespace.conf";
	const char *vendor_file = paths->no_vendor     ? NULL
				  : paths->vendor_file ? paths->vendor_file
						       : NS_VENDOR_DIR "/namespace.conf";
	const char *conf_d = paths->conf_d ? paths->conf_d : NS_SYSCONF_DIR "/namespace.d";
	const char *vendor_d = paths->no_vendor	 ? NULL
			       : paths->vendor_d ? paths->vendor_d
						 : NS_VENDOR_DIR "/namespace.d";
	struct checked_dirs checked = {0};
	struct checked_dirs *trust = paths->skip_trust_checks ? NULL : &checked;
	struct ns_config c = {0};
	struct dropin *list = NULL;
	size_t n = 0, cap = 0;
	int r, first_error = 0;

	r = load_file(&c, main_file, conf_d, flags, trust, diag);
	if (r == -ENOENT && vendor_file)
		r = load_file(&c, vendor_file, conf_d, flags, trust, diag);
	if (r == -ENOENT) {
		if (vendor_file)
			ns_diag_report(diag, NS_ERROR, main_file, 0, 0,
				       "no configuration: neither %s nor %s exists", main_file,
				       vendor_file);
		else
			ns_diag_report(diag, NS_ERROR, main_file, 0, 0,
				       "no configuration: %s does not exist", main_file);
		goto out;
	}
	if (r == -ENOMEM || r == -E2BIG)
		goto out;
	first_error = r;

	/* conf_d is listed first: on equal names its entry sorts first and wins. */
	r = list_dropins(conf_d, &list, &n, &cap);
	if (r == 0 && vendor_d)
		r = list_dropins(vendor_d, &list, &n, &cap);
	if (r < 0) {
		ns_diag_report(diag, NS_ERROR, conf_d, 0, 0, "cannot list: %s", strerror(-r));
		goto out;
	}
	if (n > 1)
		qsort(list, n, sizeof(*list), dropin_cmp);
	for (size_t i = 0; i < n; i++) {
		char *path;

		if (i > 0 && strcmp(list[i].name, list[i - 1].name) == 0)
			continue; /* hidden by the one in /etc */
		if (asprintf(&path, "%s/%s", list[i].dir, list[i].name) < 0) {
			r = -ENOMEM;
			goto out;
		}
		r = load_file(&c, path, conf_d, flags, trust, diag);
		free(path);
		if (r == -ENOENT)
			r = 0; /* removed while we listed */
		if (r == -ENOMEM || r == -E2BIG)
			goto out;
		if (r < 0 && first_error == 0)
			first_error = r;
	}
	r = first_error;
out:
	for (size_t i = 0; i < n; i++)
		free(list[i].name);
	free(list);
	checked_dirs_free(&checked);
	if (r < 0) {
		ns_config_free(&c);
		return r;
	}
	ns_config_free(cfg);
	*cfg = c;
	return 0;
}

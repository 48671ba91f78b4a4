/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * pam_namespace_check's output: diagnostics on stderr in the compiler's
 * FILE:LINE:COLUMN: severity: message form (and as JSON with --json), owners
 * and modes in words, and the name service lookups the planner is given.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "selinux.h"

const char *const ns_check_progname = "pam_namespace_check";

void ck_out_of_memory(void)
{
	fprintf(stderr, "%s: out of memory\n", ns_check_progname);
	exit(1);
}

char *ck_fmt(const char *f, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, f);
	n = vasprintf(&s, f, ap);
	va_end(ap);
	if (n < 0)
		ck_out_of_memory();
	return s;
}

/* Length of the valid UTF-8 sequence at p, 0 if there is none. */
static size_t utf8_len(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	/* No overlong forms, no surrogates, nothing above U+10FFFF. */
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

/*
 * A JSON string. Paths are bytes and need not be UTF-8, JSON text must be:
 * a byte that is not part of valid UTF-8 becomes U+FFFD.
 */
void ck_json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	while (*p) {
		size_t n = utf8_len(p);

		if (n == 0) {
			fputs("\\ufffd", f);
			p++;
		} else if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p++);
		} else if (*p == '\n') {
			fputs("\\n", f);
			p++;
		} else if (*p == '\t') {
			fputs("\\t", f);
			p++;
		} else if (*p < 0x20 || *p == 0x7f) {
			fprintf(f, "\\u%04x", *p++);
		} else {
			fwrite(p, 1, n, f);
			p += n;
		}
	}
	fputc('"', f);
}

void ck_json_member(FILE *f, const char *name, const char *value)
{
	fprintf(f, ", \"%s\": ", name);
	ck_json_string(f, value);
}

/* Diagnostics go to stderr, compiler style; with --json they are also collected. */
void ck_report(void *userdata, enum ns_severity sev, const char *file, unsigned line,
	       unsigned column, const char *message)
{
	struct checker *c = userdata;
	const char *s = ns_severity_to_string(sev);

	if (sev == NS_DEBUG)
		return;
	if (c->quiet) {
		if (sev == NS_ERROR && !c->first_error)
			c->first_error = file && line ? ck_fmt("%s:%u: %s", file, line, message)
						      : ck_fmt("%s", message);
		return;
	}
	if (file && line && column)
		fprintf(stderr, "%s:%u:%u: %s: %s\n", file, line, column, s, message);
	else if (file && line)
		fprintf(stderr, "%s:%u: %s: %s\n", file, line, s, message);
	else if (file)
		fprintf(stderr, "%s: %s: %s\n", file, s, message);
	else
		fprintf(stderr, "%s: %s: %s\n", ns_check_progname, s, message);

	if (c->json) {
		fprintf(c->json, "%s\n    {\"severity\": ", c->n_json++ ? "," : "");
		ck_json_string(c->json, s);
		ck_json_member(c->json, "file", file);
		fprintf(c->json, ", \"line\": %u, \"column\": %u", line, column);
		ck_json_member(c->json, "message", message);
		fputc('}', c->json);
	}
}

static int lookup_user(void *userdata, const char *name, uid_t *ret_uid, gid_t *ret_gid)
{
	struct passwd *pw = getpwnam(name);

	if (!pw)
		return -ENOENT;
	*ret_uid = pw->pw_uid;
	*ret_gid = pw->pw_gid;
	return 0;
}

static int lookup_group(void *userdata, const char *name, gid_t *ret_gid)
{
	struct group *gr = getgrnam(name);

	if (!gr)
		return -ENOENT;
	*ret_gid = gr->gr_gid;
	return 0;
}

static int lookup_in_group(void *userdata, const char *group, const char *user, gid_t user_gid)
{
	struct group *gr;

	errno = 0;
	gr = getgrnam(group);
	if (!gr)
		return errno && errno != ENOENT ? -errno : -ENOENT;
	return ns_group_has_user(gr, user, user_gid);
}

struct ns_lookup ck_lookup(void)
{
	return (struct ns_lookup){
		.user = lookup_user,
		.group = lookup_group,
		.in_group = lookup_in_group,
		.member_context = ns_selinux_member_context,
	};
}

/* "owner alice, group users, mode 0700", names where the system knows them. */
char *ck_ownership(uid_t uid, gid_t gid, mode_t mode)
{
	struct passwd *pw = getpwuid(uid);
	char *owner = pw ? ck_fmt("%s", pw->pw_name) : ck_fmt("%u", (unsigned)uid);
	struct group *gr = getgrgid(gid);
	char *group = gr ? ck_fmt("%s", gr->gr_name) : ck_fmt("%u", (unsigned)gid);
	char *s = ck_fmt("owner %s, group %s, mode %04o", owner, group, (unsigned)(mode & 07777));

	free(owner);
	free(group);
	return s;
}

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * pam_namespace_check's output: diagnostics on stderr in the compiler's
 * FILE:LINE:COLUMN: severity: message form (and as JSON with --json), owners
 * and modes in words, and the name service lookups the planner is given.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checker.h"
#include "lookup.h"
#include "selinux.h"
#include "util.h"

const char *const ck_progname = "pam_namespace_check";

void ck_out_of_memory(void)
{
	fprintf(stderr, "%s: out of memory\n", ck_progname);
	exit(1);
}

char *ck_fmt(const char *f, ...)
{
	va_list ap;
	char *s;

	va_start(ap, f);
	s = ns_vstrdupf(f, ap);
	va_end(ap);
	if (!s)
		ck_out_of_memory();
	return s;
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
	if (sev == NS_ERROR && (c->quiet ? !c->first_error : true)) {
		char *e = file && line ? ck_fmt("%s:%u: %s", file, line, message)
				       : ck_fmt("%s", message);

		if (c->quiet) {
			c->first_error = e;
		} else {
			if (ns_grow(&c->errors, c->n_errors, sizeof(*c->errors)) < 0)
				ck_out_of_memory();
			c->errors[c->n_errors++] = e;
		}
	}
	if (c->quiet)
		return;
	if (file && line && column)
		fprintf(stderr, "%s:%u:%u: %s: %s\n", file, line, column, s, message);
	else if (file && line)
		fprintf(stderr, "%s:%u: %s: %s\n", file, line, s, message);
	else if (file)
		fprintf(stderr, "%s: %s: %s\n", file, s, message);
	else
		fprintf(stderr, "%s: %s: %s\n", ck_progname, s, message);

	if (c->json) {
		fprintf(c->json, "%s\n    {\"severity\": ", c->n_json++ ? "," : "");
		ck_json_string(c->json, s);
		ck_json_member(c->json, "file", file);
		fprintf(c->json, ", \"line\": %u, \"column\": %u", line, column);
		ck_json_member(c->json, "message", message);
		fputc('}', c->json);
	}
}

bool ck_reported(const struct checker *c, const char *error)
{
	for (size_t i = 0; i < c->n_errors; i++)
		if (strcmp(c->errors[i], error) == 0)
			return true;
	return false;
}

void ck_checker_free(struct checker *c)
{
	for (size_t i = 0; i < c->n_errors; i++)
		free(c->errors[i]);
	free(c->errors);
	c->errors = NULL;
	c->n_errors = 0;
}

/*
 * "owner alice, group users, mode 0700", names where the system knows them.
 * The words of the last few owners are kept: the per-user pass of plain
 * mode and --all-users asks the same few (root's /tmp) for every user, and
 * each name is a lookup of the name service.
 */
char *ck_ownership(uid_t uid, gid_t gid, mode_t mode)
{
	static struct {
		uid_t uid;
		gid_t gid;
		mode_t mode;
		char *text;
	} kept[16];
	static unsigned next;
	char *s;

	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		if (kept[i].text && kept[i].uid == uid && kept[i].gid == gid &&
		    kept[i].mode == mode)
			return ck_fmt("%s", kept[i].text);
	s = ns_ownership_text(uid, gid, mode);
	if (!s)
		ck_out_of_memory();
	next %= sizeof(kept) / sizeof(kept[0]);
	free(kept[next].text);
	kept[next].uid = uid;
	kept[next].gid = gid;
	kept[next].mode = mode;
	kept[next++].text = ck_fmt("%s", s);
	return s;
}

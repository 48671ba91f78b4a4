/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once
/*
 * What the pieces of the configuration parser share: config-lex.c splits a
 * line into fields, config-line.c makes a rule of them, config-text.c runs
 * that over a file's text (config-file.c reads the files it is given).
 */
#include <stddef.h>

#include "config.h"
#include "diag.h"

#define NS_MAX_FIELDS 5

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
int ns_lex_split_fields(struct line_ctx *lc, const char *s, size_t len, struct field *out);
/*
 * Extended lines: s up to the first sep that no backslash escapes is cut
 * off there; returns what follows it, or NULL at the end of s.
 */
char *ns_lex_cut_unescaped(char *s, char sep);
/* Undo the backslash escapes of v in place, except before the characters of keep. */
void ns_lex_unescape(char *v, const char *keep);

/* One line: 1 with *r filled, 0 for an empty line, or a negative errno (reported). */
int ns_line_parse(struct line_ctx *lc, const char *s, size_t len, const char *conf_d,
		  struct ns_rule *r);

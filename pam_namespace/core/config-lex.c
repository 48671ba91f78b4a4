/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * The lexer of namespace.conf lines: blanks, quotes and backslash escapes,
 * the same for every line (SPEC section 1), and the escapes of extended
 * lines' values. Nothing here knows what a field means.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "config-parse.h"

int ns_lex_split_fields(struct line_ctx *lc, const char *s, size_t len, struct field *out)
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

char *ns_lex_cut_unescaped(char *s, char sep)
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
void ns_lex_unescape(char *v, const char *keep)
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

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * The tools' one escaper of what they print of strings a user may choose:
 * a mount's source (a FUSE file system names its own) and mount point, a
 * user name from the account database, a path. Neither may close a JSON
 * string and add keys of its own, nor start a line of text of its own,
 * whatever its bytes.
 */
#include <stdio.h>

#include "escape.h"

/* The length of the UTF-8 sequence at s, 0 if invalid (RFC 3629: overlong, surrogate, too big). */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t len, i;
	unsigned long cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80) /* also stops at the NUL */
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

void ck_json_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	while (*p) {
		size_t len = utf8_len(p);

		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '\t')
			fputs("\\t", out);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\u%04x", *p);
		else if (len == 0)
			fputs("\\ufffd", out); /* not UTF-8: JSON cannot carry the byte */
		else
			fwrite(p, 1, len, out);
		p += len ? len : 1;
	}
	fputc('"', out);
}

void ck_text_escaped(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	while (*p) {
		size_t len = utf8_len(p);

		/* C1 controls (U+0080 to U+009F) too: some terminals act on them */
		if (len == 0 || (len == 2 && p[0] == 0xc2 && p[1] < 0xa0))
			len = 0;
		if (len == 0 || *p <= ' ' || *p == '\\' || *p == 0x7f)
			fprintf(out, "\\%03o", *p);
		else
			fwrite(p, 1, len, out);
		p += len ? len : 1;
	}
}

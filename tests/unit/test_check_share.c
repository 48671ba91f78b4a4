/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * What pam_namespace_check --shared prints of strings a user may choose
 * (a FUSE file system names its own source, a mount point may hold any
 * byte): JSON that parses to exactly one string per field, whatever the
 * bytes, and text in which a name cannot start a line of its own. And the
 * argument of --drop: a number is a uid.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check-share.h"
#include "escape.h"

static char *json_of(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	ck_json_string(f, s);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static char *text_of(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	ck_text_escaped(f, s);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void assert_json(const char *in, const char *want)
{
	char *got = json_of(in);

	assert_string_equal(got, want);
	free(got);
}

static int hex(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * A strict reader of one JSON string (RFC 8259): it must span the whole
 * output, hold no raw control character or lone quote, only the escapes
 * JSON has, and be valid UTF-8 between them. The decoded bytes into out
 * (\uXXXX as UTF-8). Returns 0, or -1 where a JSON parser would stop.
 */
static int json_read(const char *j, char *out, size_t *out_len)
{
	const unsigned char *p = (const unsigned char *)j;
	size_t n = 0;

	if (*p++ != '"')
		return -1;
	while (*p != '"') {
		if (*p == '\0' || *p < 0x20)
			return -1;
		if (*p == '\\') {
			p++;
			switch (*p) {
			case '"':
			case '\\':
			case '/':
				out[n++] = (char)*p++;
				continue;
			case 'n':
				out[n++] = '\n', p++;
				continue;
			case 't':
				out[n++] = '\t', p++;
				continue;
			case 'u': {
				unsigned cp = 0;

				for (int i = 1; i <= 4; i++) {
					if (hex((char)p[i]) < 0)
						return -1;
					cp = cp * 16 + (unsigned)hex((char)p[i]);
				}
				if (cp >= 0xd800 && cp <= 0xdfff)
					return -1; /* a lone surrogate: not text */
				if (cp < 0x80) {
					out[n++] = (char)cp;
				} else if (cp < 0x800) {
					out[n++] = (char)(0xc0 | (cp >> 6));
					out[n++] = (char)(0x80 | (cp & 0x3f));
				} else {
					out[n++] = (char)(0xe0 | (cp >> 12));
					out[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
					out[n++] = (char)(0x80 | (cp & 0x3f));
				}
				p += 5;
				continue;
			}
			default:
				return -1;
			}
		}
		/* raw bytes: valid UTF-8 only */
		size_t len = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 : 4;

		if (*p >= 0x80 && (*p < 0xc2 || *p > 0xf4))
			return -1;
		for (size_t i = 1; i < len; i++)
			if ((p[i] & 0xc0) != 0x80)
				return -1;
		memcpy(out + n, p, len);
		n += len;
		p += len;
	}
	if (p[1] != '\0')
		return -1;
	*out_len = n;
	return 0;
}

static void test_json_plain_and_escaped(void **state)
{
	(void)state;
	assert_json("/tmp/sub", "\"/tmp/sub\"");
	assert_json("", "\"\"");
	assert_json(NULL, "null"); /* the one escaper writes a missing string as null */
	assert_json("a\"b\\c", "\"a\\\"b\\\\c\"");
	assert_json("a\nb\tc", "\"a\\nb\\tc\"");
	assert_json("\x01\x1f\x7f\r", "\"\\u0001\\u001f\\u007f\\u000d\"");
	/* the forged keys of issue 27: one string, nothing more */
	assert_json("x\", \"user\": \"root", "\"x\\\", \\\"user\\\": \\\"root\"");
}

static void test_json_utf8(void **state)
{
	(void)state;
	/* valid UTF-8 as it is */
	assert_json("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		    "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	/* each byte that is not: U+FFFD */
	assert_json("a\x80z", "\"a\\ufffdz\"");
	assert_json("\xff\xfe", "\"\\ufffd\\ufffd\"");
	assert_json("\xc0\xaf", "\"\\ufffd\\ufffd\"");			     /* overlong '/' */
	assert_json("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"");	     /* overlong, 3 bytes */
	assert_json("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");	     /* a surrogate */
	assert_json("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* past U+10FFFF */
	assert_json("\xe2\x82", "\"\\ufffd\\ufffd\"");	     /* cut short at the end */
	assert_json("\xe2\x82\"", "\"\\ufffd\\ufffd\\\"\""); /* cut short by a quote */
}

/* Every byte value, alone and in company, gives one JSON string that reads back. */
static void test_json_every_byte_reads_back(void **state)
{
	char in[8], out[64];
	size_t n;

	(void)state;
	for (int c = 1; c < 256; c++) {
		char *j;

		snprintf(in, sizeof(in), "a%cb", c);
		j = json_of(in);
		assert_int_equal(json_read(j, out, &n), 0);
		if (c < 0x80) {
			assert_int_equal(n, 3);
			assert_memory_equal(out, in, 3);
		} else {
			/* not UTF-8 alone: a replacement, never the raw byte */
			assert_int_equal(n, 5);
			assert_memory_equal(out + 1, "\xef\xbf\xbd", 3);
		}
		free(j);
	}
}

/* Random byte strings: always one valid JSON string; valid UTF-8 comes back unchanged. */
static void test_json_random_strings(void **state)
{
	static const unsigned char alphabet[] = {'"',  '\\', '\n', '\t', 1,    0x1f, 0x7f, ' ',
						 'a',  '/',  0x80, 0xbf, 0xc3, 0xa9, 0xe2, 0x82,
						 0xac, 0xf0, 0x9f, 0x98, 0xff, 0xed, 0xa0, 0xc0};
	unsigned seed = 27;

	(void)state;
	for (int round = 0; round < 20000; round++) {
		char in[48], out[48 * 6];
		size_t len, n;
		char *j;

		seed = seed * 1103515245u + 12345u;
		len = (seed >> 16) % (sizeof(in) - 1);
		for (size_t i = 0; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			in[i] = (char)alphabet[(seed >> 16) % sizeof(alphabet)];
		}
		in[len] = '\0';
		j = json_of(in);
		assert_int_equal(json_read(j, out, &n), 0);
		if (!strstr(j, "\\ufffd")) {
			assert_int_equal(n, len);
			assert_memory_equal(out, in, len);
		}
		free(j);
	}
}

static void test_text_escaped(void **state)
{
	char *t;

	(void)state;
	t = text_of("a b\\c\nd\te\x7f\xc3\xa9");
	assert_string_equal(t, "a\\040b\\134c\\012d\\011e\\177\xc3\xa9");
	free(t);
	/* not UTF-8, and C1 controls (U+009B is CSI to some terminals): escaped */
	t = text_of("a\xff\xc3\xa9\xc2\x9b[2J\xe2\x82");
	assert_string_equal(t, "a\\377\xc3\xa9\\302\\233[2J\\342\\202");
	free(t);
	/* a source that would start a line of its own */
	t = text_of("x\nalice (uid 0), key 0: 1 session open");
	assert_null(strchr(t, '\n'));
	assert_null(strchr(t, ' '));
	free(t);
}

static void test_parse_uid(void **state)
{
	uid_t u = 7;

	(void)state;
	assert_int_equal(ck_parse_uid("1000", &u), 0);
	assert_int_equal(u, 1000);
	assert_int_equal(ck_parse_uid("0", &u), 0);
	assert_int_equal(u, 0);
	assert_int_equal(ck_parse_uid("4294967294", &u), 0);
	assert_int_equal(u, 4294967294u);
	u = 7;
	assert_int_equal(ck_parse_uid("4294967295", &u), -ERANGE); /* (uid_t)-1 */
	assert_int_equal(ck_parse_uid("4294967296", &u), -ERANGE);
	assert_int_equal(ck_parse_uid("99999999999999999999999", &u), -ERANGE);
	assert_int_equal(ck_parse_uid("10a", &u), -EINVAL);
	assert_int_equal(ck_parse_uid("", &u), -EINVAL);
	assert_int_equal(ck_parse_uid("-1", &u), -EINVAL);
	assert_int_equal(ck_parse_uid("+1", &u), -EINVAL);
	assert_int_equal(ck_parse_uid(" 1", &u), -EINVAL);
	assert_int_equal(ck_parse_uid("alice", &u), -EINVAL);
	assert_int_equal(u, 7); /* untouched on failure */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_plain_and_escaped),
		cmocka_unit_test(test_json_utf8),
		cmocka_unit_test(test_json_every_byte_reads_back),
		cmocka_unit_test(test_json_random_strings),
		cmocka_unit_test(test_text_escaped),
		cmocka_unit_test(test_parse_uid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

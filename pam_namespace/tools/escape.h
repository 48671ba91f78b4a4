/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

#include <stdio.h>

/*
 * s as a JSON string, quotes included: '"', '\\' and control characters
 * escaped, valid UTF-8 as it is, each byte that is not UTF-8 as U+FFFD;
 * NULL as null.
 */
void ck_json_string(FILE *out, const char *s);
/*
 * s for a line of text: bytes up to and including space, '\\', DEL, C1
 * controls and bytes that are not UTF-8 as \ooo (as mountinfo writes them).
 */
void ck_text_escaped(FILE *out, const char *s);

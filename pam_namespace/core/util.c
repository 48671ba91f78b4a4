/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * The small helpers every layer above kernel/ uses: a grown array, a
 * formatted string, the nearest of a few words (a "did you mean").
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

int ns_grow(void *pptr, size_t n, size_t size)
{
	void **p = pptr;
	void *q = realloc(*p, (n + 1) * size);

	if (!q)
		return -ENOMEM;
	*p = q;
	return 0;
}

char *ns_vstrdupf(const char *fmt, va_list ap)
{
	char *s;

	return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

char *ns_strdupf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = ns_vstrdupf(fmt, ap);
	va_end(ap);
	return s;
}

/*
 * Edit distance with transpositions (optimal string alignment), capped:
 * only small distances matter to a "did you mean", so long words give max.
 */
static size_t distance(const char *a, const char *b, size_t max)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t d[3][NS_CLOSEST_MAX_LEN + 1];

	if (la > NS_CLOSEST_MAX_LEN || lb > NS_CLOSEST_MAX_LEN)
		return max;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *cur = d[i % 3], *prev = d[(i - 1) % 3], *prev2 = d[(i + 1) % 3];

		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1], v = prev[j - 1] + cost;

			if (prev[j] + 1 < v)
				v = prev[j] + 1;
			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < v)
				v = prev2[j - 2] + 1;
			cur[j] = v;
		}
	}
	return d[la % 3][lb] < max ? d[la % 3][lb] : max;
}

const char *ns_closest(const char *word, const char *const *words, size_t n)
{
	/* One edit for short words, two from five letters on: "usr" is user, "ab" nothing. */
	size_t best = strlen(word) >= 5 ? 3 : 2;
	const char *found = NULL;

	for (size_t i = 0; i < n; i++) {
		size_t k = distance(word, words[i], best);

		if (k < best) {
			best = k;
			found = words[i];
		}
	}
	return found;
}

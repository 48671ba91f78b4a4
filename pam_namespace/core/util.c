/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* The small helpers every layer above kernel/ uses: a grown array, a formatted string. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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

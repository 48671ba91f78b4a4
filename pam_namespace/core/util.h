/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

#include <stdarg.h>
#include <stddef.h>

/*
 * Make room for one more element at the end of the array *pptr, which holds
 * n elements of size bytes: 0 with *pptr moved where realloc put it, or
 * -ENOMEM with *pptr as it was. The caller stores the element and counts it.
 */
int ns_grow(void *pptr, size_t n, size_t size);

/* A string printed as printf would, on the heap; NULL when out of memory. */
char *ns_strdupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *ns_vstrdupf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/*
 * The word of words[n] nearest to word, one or two typing mistakes away
 * (a letter missing, extra, wrong or two swapped), for a "did you mean";
 * NULL when none is that near. Words longer than NS_CLOSEST_MAX_LEN match
 * nothing.
 */
#define NS_CLOSEST_MAX_LEN 64
const char *ns_closest(const char *word, const char *const *words, size_t n);

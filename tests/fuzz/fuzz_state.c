/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * Fuzz target for share_namespace's state file parser (share-store.c):
 * the bytes are the text of a KEY.state, read as a joining session reads
 * it and as pam_namespace_check --drop reads another release's.
 *
 * What must hold: the parser ends in a state or in -EBADMSG or -EPROTO,
 * never anything else; a state it takes has a user, a namespace and a
 * root, absolute tmpdir parents and tmpdir names that are one component;
 * and written back by the writer and read again it is the same state, in
 * the same text (so that a pin's last close drops the very instances its
 * build wrote, whatever bytes their names hold).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "share/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same_state(const struct ns_share_state *a, const struct ns_share_state *b)
{
	if (a->format != b->format || a->dev != b->dev || a->ino != b->ino ||
	    a->root_dev != b->root_dev || a->root_ino != b->root_ino ||
	    strcmp(a->user, b->user) != 0 || a->n_polydirs != b->n_polydirs ||
	    a->n_tmpdirs != b->n_tmpdirs)
		return false;
	for (size_t i = 0; i < a->n_polydirs; i++)
		if (strcmp(a->polydirs[i], b->polydirs[i]) != 0)
			return false;
	for (size_t i = 0; i < a->n_tmpdirs; i++)
		if (strcmp(a->tmpdirs[i].parent, b->tmpdirs[i].parent) != 0 ||
		    strcmp(a->tmpdirs[i].name, b->tmpdirs[i].name) != 0)
			return false;
	return true;
}

static void check_fields(const struct ns_share_state *st)
{
	if (!st->user || !st->user[0] || st->ino == 0 || st->root_ino == 0)
		abort();
	for (size_t i = 0; i < st->n_polydirs; i++)
		if (!st->polydirs[i][0])
			abort();
	for (size_t i = 0; i < st->n_tmpdirs; i++) {
		const char *name = st->tmpdirs[i].name;

		if (st->tmpdirs[i].parent[0] != '/' || !name[0] || strchr(name, '/') ||
		    strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
			abort();
	}
}

/* Parse text (a copy: the parser cuts it up) as other says. */
static int parse(const char *text, size_t len, bool other, struct ns_share_state *ret)
{
	char *copy = malloc(len + 1);
	int r;

	if (!copy)
		abort();
	memcpy(copy, text, len);
	copy[len] = '\0';
	r = share_state_parse(copy, other, ret);
	free(copy);
	return r;
}

static void round_trip(const uint8_t *data, size_t size, bool other)
{
	struct ns_share_state st = {0}, again = {0};
	char *t1 = NULL, *t2 = NULL;
	size_t l1 = 0, l2 = 0;
	int r = parse((const char *)data, size, other, &st);

	if (r == -EBADMSG || r == -EPROTO)
		return;
	if (r != 0)
		abort();
	check_fields(&st);
	if (share_state_format(&st, &t1, &l1) != 0 || parse(t1, l1, other, &again) != 0 ||
	    !same_state(&st, &again) || share_state_format(&again, &t2, &l2) != 0 || l1 != l2 ||
	    memcmp(t1, t2, l1) != 0)
		abort();
	free(t1);
	free(t2);
	ns_share_state_free(&st);
	ns_share_state_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The reader refuses a file with a NUL before parsing (state_read). */
	if (memchr(data, '\0', size))
		return 0;
	round_trip(data, size, false);
	round_trip(data, size, true);
	return 0;
}

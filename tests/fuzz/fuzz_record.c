/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * Fuzz target for share_namespace's session record names (share-store.c):
 * the bytes, up to a NUL, are the name of a file in a user's pin
 * directory, as a scan lists it (KEY@PID.pID, KEY@PID.sID, lock, KEY.ns,
 * KEY.state, anything root left there).
 *
 * What must hold: a name the parser takes is a record with a key of at
 * least one byte and a pid above 0, and share_record_name() writes that
 * record back to the very same name: so the record a scan counts is the
 * record a close removes, and no two names are one session.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "share/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t len = strnlen((const char *)data, size), klen = 0;
	char *name = malloc(len + 1), *key, *back;
	struct ns_share_proc p;

	if (!name)
		abort();
	memcpy(name, data, len);
	name[len] = '\0';
	if (!share_record_parse(name, &klen, &p)) {
		free(name);
		return 0;
	}
	if (klen == 0 || klen >= len || p.pid <= 0)
		abort();
	key = strndup(name, klen);
	back = malloc(len + 1);
	if (!key || !back)
		abort();
	if (share_record_name(back, len + 1, key, &p) != 0 || strcmp(back, name) != 0)
		abort();
	free(back);
	free(key);
	free(name);
	return 0;
}

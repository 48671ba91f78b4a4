/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

/*
 * How apply/ and share/ report: why a session could not be made or closed
 * (struct ns_failure, filled by ns_fail alone; the module logs it once),
 * and the informational messages on the way (ns_apply_log_fn).
 */
#include <stdbool.h>

#include "plan.h"

/* Where and why apply failed: the one place the module logs it. */
struct ns_failure {
	const struct ns_plan_entry *entry; /* NULL: not about one line */
	const char *what;		   /* "opening polydir", "mounting" ... */
	char *path;			   /* path concerned, or NULL */
	int error;			   /* negative errno, or 0 when 'detail' says all */
	char *detail;			   /* e.g. "mode 0755, owner uid 0; must be 000 and root" */
};

/*
 * The one filler of struct ns_failure (apply's steps, the close,
 * share_namespace): the first failure is kept, a later one's detail (heap,
 * taken over) freed. Returns the error to pass up: error itself, or -EPERM
 * where detail says all.
 */
int ns_fail(struct ns_failure *f, const struct ns_plan_entry *e, const char *what, const char *path,
	    int error, char *detail);
void ns_failure_free(struct ns_failure *fail);

/* Called for informational messages (init script status, debug). */
typedef void (*ns_apply_log_fn)(void *userdata, bool debug, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

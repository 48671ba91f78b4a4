/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* struct ns_failure's one filler, for apply/ and share/ (failure.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "failure.h"

int ns_fail(struct ns_failure *f, const struct ns_plan_entry *e, const char *what, const char *path,
	    int error, char *detail)
{
	if (f->what) {
		free(detail);
	} else {
		f->entry = e;
		f->what = what;
		f->path = path ? strdup(path) : NULL;
		f->error = error;
		f->detail = detail;
	}
	return error < 0 ? error : -EPERM;
}

void ns_failure_free(struct ns_failure *fail)
{
	free(fail->path);
	free(fail->detail);
	*fail = (struct ns_failure){0};
}

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#include <stdio.h>

#include "diag.h"

static const char *const severity_table[] = {
	[NS_DEBUG] = "debug",
	[NS_WARNING] = "warning",
	[NS_ERROR] = "error",
};

const char *ns_severity_to_string(enum ns_severity sev)
{
	if ((unsigned)sev >= sizeof(severity_table) / sizeof(severity_table[0]))
		return "unknown";
	return severity_table[sev];
}

void ns_diag_report(struct ns_diag *d, enum ns_severity sev, const char *file, unsigned line,
		    unsigned column, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (!d)
		return;
	if (sev == NS_ERROR)
		d->n_errors++;
	else if (sev == NS_WARNING)
		d->n_warnings++;
	if (!d->report)
		return;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	d->report(d->userdata, sev, file, line, column, buf);
}

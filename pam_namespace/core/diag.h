/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

#include <stdarg.h>

/*
 * Diagnostics travel from the pure parts (parser, planner) to exactly one
 * reporting point: pam_syslog in the module, stderr in the check tool.
 * file may be NULL (no file concerned); line and column are 1-based, 0 when
 * not applicable.
 */
enum ns_severity {
	NS_DEBUG,
	NS_WARNING,
	NS_ERROR,
};

struct ns_diag {
	void (*report)(void *userdata, enum ns_severity sev, const char *file, unsigned line,
		       unsigned column, const char *message);
	void *userdata;
	unsigned n_errors;
	unsigned n_warnings;
};

__attribute__((format(printf, 6, 7))) void ns_diag_report(struct ns_diag *d, enum ns_severity sev,
							  const char *file, unsigned line,
							  unsigned column, const char *fmt, ...);

const char *ns_severity_to_string(enum ns_severity sev);

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/*
 * Remove each tmpdir instance under parent (prefix followed by mkdtemp's six
 * characters) that no mount namespace has mounted and that nothing changed
 * for min_age seconds, each printed on its own line. Stops at deadline
 * (kn_deadline_after_ms), leaving the rest. A prefix that mountinfo would
 * escape (blank, backslash) is not looked at. 0, or the first error; an
 * instance left for lack of time is no error.
 */
int ck_remove_stale_tmpdirs(const char *parent, const char *prefix, unsigned min_age, bool dry_run,
			    uint64_t deadline);

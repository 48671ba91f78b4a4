/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * A module with the two entry points and one more exported function: the
 * dlopen test must refuse it (test dlopen_refuses_extra), as it would a
 * build whose version script let an internal symbol out.
 */
#include <security/pam_modules.h>

/* The build hides every symbol by default (-fvisibility=hidden). */
#define EXPORT __attribute__((visibility("default")))

EXPORT int ns_leaked_helper(void);

EXPORT int ns_leaked_helper(void)
{
	return 0;
}

EXPORT int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	return PAM_SUCCESS;
}

EXPORT int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	return PAM_SUCCESS;
}

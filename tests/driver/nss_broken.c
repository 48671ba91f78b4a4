/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * libnss_broken.so.2: an NSS module for the "group" database that answers
 * every lookup by name as an unreachable directory service does (SSSD or
 * LDAP down): NSS_STATUS_TRYAGAIN with EAGAIN, so that getgrnam_r() fails
 * with EAGAIN rather than saying "no such group". test_selectors.sh puts it
 * after "files" in a sandbox's nsswitch.conf.
 */
#include <errno.h>
#include <grp.h>
#include <nss.h>
#include <stddef.h>

/* The build hides symbols by default; glibc looks these two up by name. */
#define NSS_EXPORT __attribute__((visibility("default")))

NSS_EXPORT enum nss_status _nss_broken_getgrnam_r(const char *name, struct group *gr, char *buf,
						  size_t len, int *errnop);
NSS_EXPORT enum nss_status _nss_broken_getgrgid_r(gid_t gid, struct group *gr, char *buf,
						  size_t len, int *errnop);

enum nss_status _nss_broken_getgrnam_r(const char *name, struct group *gr, char *buf, size_t len,
				       int *errnop)
{
	*errnop = EAGAIN;
	return NSS_STATUS_TRYAGAIN;
}

enum nss_status _nss_broken_getgrgid_r(gid_t gid, struct group *gr, char *buf, size_t len,
				       int *errnop)
{
	*errnop = EAGAIN;
	return NSS_STATUS_TRYAGAIN;
}

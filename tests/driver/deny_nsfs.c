/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * deny_nsfs.so, preloaded into a PAM client: the process may not open its
 * own mount namespace, as Debian's SELinux policy refuses local_login_t
 * the nsfs file. Opening /proc/.../ns/mnt fails with EACCES, and so does
 * the pidfd ioctl that opens it without /proc. Everything else passes
 * through to libc.
 */
/* open and open64 are both defined here, not one renamed to the other. */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/types.h>

#define EXPORT __attribute__((visibility("default")))

/* PIDFD_GET_MNT_NAMESPACE, as kernel/sys.h names it for older headers. */
#define DENIED_IOCTL _IO(0xFF, 3)

static bool is_mnt_ns(const char *path)
{
	size_t n = path ? strlen(path) : 0;

	return n >= 7 && strcmp(path + n - 7, "/ns/mnt") == 0;
}

static void *next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

/* The mode argument of open(), when the flags say there is one. */
static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, mode_t) : 0;
}

#define OPEN_LIKE(name)                                                                            \
	EXPORT int name(const char *path, int flags, ...)                                          \
	{                                                                                          \
		static int (*real)(const char *, int, ...);                                        \
		va_list ap;                                                                        \
		mode_t mode;                                                                       \
                                                                                                   \
		if (is_mnt_ns(path)) {                                                             \
			errno = EACCES;                                                            \
			return -1;                                                                 \
		}                                                                                  \
		va_start(ap, flags);                                                               \
		mode = mode_arg(flags, ap);                                                        \
		va_end(ap);                                                                        \
		if (!real)                                                                         \
			*(void **)&real = next(#name);                                             \
		return real(path, flags, mode);                                                    \
	}

OPEN_LIKE(open)
OPEN_LIKE(open64)

/* The fortified forms (_FORTIFY_SOURCE), which glibc's headers do not declare. */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);

#define OPEN_2(name)                                                                               \
	EXPORT int name(const char *path, int flags)                                               \
	{                                                                                          \
		static int (*real)(const char *, int);                                             \
                                                                                                   \
		if (is_mnt_ns(path)) {                                                             \
			errno = EACCES;                                                            \
			return -1;                                                                 \
		}                                                                                  \
		if (!real)                                                                         \
			*(void **)&real = next(#name);                                             \
		return real(path, flags);                                                          \
	}

OPEN_2(__open_2)
OPEN_2(__open64_2)

EXPORT int ioctl(int fd, unsigned long request, ...)
{
	static int (*real)(int, unsigned long, ...);
	va_list ap;
	void *arg;

	if (request == DENIED_IOCTL) {
		errno = EACCES;
		return -1;
	}
	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		*(void **)&real = next("ioctl");
	return real(fd, request, arg);
}

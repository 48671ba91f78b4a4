/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <md5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "naming.h"
#include "ns-build.h"

/*
 * A user name becomes a path component, so anything that could walk out of
 * the instance parent or confuse a log line is refused before a path is
 * built from it.
 */
int ns_user_name_valid(const char *name)
{
	size_t len;

	if (!name)
		return -EINVAL;
	len = strlen(name);
	if (len == 0 || len > NS_USER_NAME_MAX)
		return -EINVAL;
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return -EINVAL;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p == '/' || *p < 0x20 || *p == 0x7f)
			return -EINVAL;
	return 0;
}

int ns_path_check(const char *path, bool allow_vars, const char **ret_problem)
{
	if (path[0] != '/' &&
	    !(allow_vars && (strncmp(path, "$HOME", 5) == 0 || strncmp(path, "$USER", 5) == 0))) {
		*ret_problem = "is not an absolute path";
		return -EINVAL;
	}
	if (strlen(path) >= PATH_MAX) {
		*ret_problem = "is longer than 4095 bytes";
		return -ENAMETOOLONG;
	}
	for (const char *p = path; (p = strstr(p, "..")); p += 2)
		if ((p == path || p[-1] == '/') && (p[2] == '/' || p[2] == '\0')) {
			*ret_problem = "contains \"..\"";
			return -EINVAL;
		}
	return 0;
}

/*
 * libmd is loaded only for a name that is hashed (gen_hash, or longer than
 * 80 characters): linked, every login would load it, most for nothing.
 * Opened and closed per call, so nothing is shared between threads.
 */
int ns_md5_hex(const char *s, char out[33])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char digest[MD5_DIGEST_LENGTH];
	void (*init)(MD5_CTX *);
	void (*update)(MD5_CTX *, const uint8_t *, size_t);
	void (*final)(uint8_t[MD5_DIGEST_LENGTH], MD5_CTX *);
	void *lib = dlopen(NS_LIBMD_SONAME, RTLD_NOW | RTLD_LOCAL);
	MD5_CTX ctx;

	if (!lib)
		return -ELIBACC;
	*(void **)&init = dlsym(lib, "MD5Init");
	*(void **)&update = dlsym(lib, "MD5Update");
	*(void **)&final = dlsym(lib, "MD5Final");
	if (!init || !update || !final) {
		dlclose(lib);
		return -ELIBACC;
	}
	init(&ctx);
	update(&ctx, (const unsigned char *)s, strlen(s));
	final(digest, &ctx);
	dlclose(lib);
	for (size_t i = 0; i < MD5_DIGEST_LENGTH; i++) {
		out[2 * i] = hex[digest[i] >> 4];
		out[2 * i + 1] = hex[digest[i] & 0xf];
	}
	out[32] = '\0';
	return 0;
}

char *ns_instance_name(const char *raw, bool gen_hash)
{
	char hash[33];
	char *out;
	size_t len = strlen(raw);
	int k;

	if (gen_hash) {
		k = ns_md5_hex(raw, hash);
		if (k < 0) {
			errno = -k;
			return NULL;
		}
		return strdup(hash);
	}
	if (len <= NS_NAME_MAX_LEN)
		return strdup(raw);

	/* Keep a readable head and make the whole unique: head, '_', MD5 of all. */
	k = ns_md5_hex(raw, hash);
	if (k < 0) {
		errno = -k;
		return NULL;
	}
	out = malloc(NS_NAME_HASH_KEEP + 1 + 32 + 1);
	if (!out)
		return NULL;
	memcpy(out, raw, NS_NAME_HASH_KEEP);
	out[NS_NAME_HASH_KEEP] = '_';
	memcpy(out + NS_NAME_HASH_KEEP + 1, hash, 33);
	return out;
}

char *ns_tmpdir_mark_name(uid_t uid, const char *instance)
{
	char *s;

	if (asprintf(&s, "%s%u.%s", NS_TMPDIR_MARK_PREFIX, (unsigned)uid, instance) < 0)
		return NULL;
	return s;
}

int ns_tmpdir_mark_parse(const char *name, uid_t *ret_uid, const char **ret_instance)
{
	size_t plen = strlen(NS_TMPDIR_MARK_PREFIX);
	unsigned long long uid = 0;
	const char *p;

	if (strncmp(name, NS_TMPDIR_MARK_PREFIX, plen) != 0)
		return -EINVAL;
	for (p = name + plen; *p >= '0' && *p <= '9'; p++) {
		uid = uid * 10 + (unsigned)(*p - '0');
		if (uid > UINT32_MAX)
			return -EINVAL;
	}
	if (p == name + plen || *p != '.' || !p[1] || strcmp(p + 1, "..") == 0 ||
	    strcmp(p + 1, ".") == 0)
		return -EINVAL;
	*ret_uid = (uid_t)uid;
	*ret_instance = p + 1;
	return 0;
}

int ns_tmpdir_mark_content(const char *text, int *ret_pid, unsigned long long *ret_start)
{
	unsigned long long v[2] = {0, 0};
	const char *p = text;

	for (int i = 0; i < 2; i++) {
		const char *start = p;

		for (; *p >= '0' && *p <= '9'; p++) {
			if (v[i] > (UINT64_MAX - 9) / 10)
				return -EINVAL;
			v[i] = v[i] * 10 + (unsigned)(*p - '0');
		}
		if (p == start || *p != (i == 0 ? ' ' : '\n'))
			return -EINVAL;
		p++;
	}
	if (*p || v[0] == 0 || v[0] > INT32_MAX)
		return -EINVAL;
	*ret_pid = (int)v[0];
	*ret_start = v[1];
	return 0;
}

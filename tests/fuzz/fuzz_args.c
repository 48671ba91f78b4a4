/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * Fuzz target for the module arguments: the bytes, split at newlines and
 * NULs, are the argv of a pam.d line (libpam's [ ] quoting lets an
 * argument hold spaces), parsed as the module parses them, then turned
 * into the session's paths and options (ns_setup_init) as the module and
 * pam_namespace_check do.
 *
 * What must hold, checked against a model of SPEC section 6 written here
 * independently: every known flag sets its field, no_unmount_on_close
 * clears unmount_on_close, the last config_dir=/... wins, init_timeout=
 * takes 1 to 3600 seconds and anything else is an error that leaves the
 * caller's arguments as they were, and every unknown argument is one
 * warning. With config_dir= every path is beneath it and the vendor's
 * files are not read.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "setup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 32

static const char *const flags[] = {
	"debug",
	"ignore_config_error",
	"ignore_instance_parent_mode",
	"gen_hash",
	"require_selinux",
	"use_current_context",
	"use_default_context",
	"mount_private",
	"unmnt_remnt",
	"unmnt_only",
	"unmount_on_close",
	"share_namespace", /* new, issue 15 */
};

static bool *flag_field(struct ns_args *a, size_t i)
{
	bool *const fields[] = {
		&a->debug,
		&a->ignore_config_error,
		&a->ignore_instance_parent_mode,
		&a->gen_hash,
		&a->require_selinux,
		&a->use_current_context,
		&a->use_default_context,
		&a->mount_private,
		&a->unmnt_remnt,
		&a->unmnt_only,
		&a->unmount_on_close,
		&a->share_namespace,
	};

	return fields[i];
}

/*
 * init_timeout='s value as strtoul reads it (leading blanks, a sign), from
 * 1 to 3600 with nothing after the digits; -1 for anything else. A minus
 * sign is always an error: strtoul negates, to 0 or to beyond 3600.
 */
static long model_seconds(const char *s)
{
	long v = 0;

	if (!*s)
		return -1;
	/* strtoul's leading blanks and sign are taken, as the module takes them. */
	while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
		s++;
	if (*s == '+')
		s++;
	else if (*s == '-')
		return -1;
	if (*s < '0' || *s > '9')
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (v <= 3600)
			v = v * 10 + (*s - '0');
	}
	return v >= 1 && v <= 3600 ? v : -1;
}

static bool is_beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return path && strncmp(path, dir, n) == 0 && path[n] == '/';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	const char *argv[MAX_ARGS];
	int argc = 0;
	struct ns_args want = {.init_timeout = NS_INIT_TIMEOUT_DEFAULT}, got, before;
	struct ns_diag diag = {0};
	unsigned warnings = 0;
	bool bad = false;
	int r;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (char *p = buf, *s = buf; argc < MAX_ARGS; p++) {
		if (p < buf + size && *p != '\n' && *p != '\0')
			continue;
		*p = '\0';
		if (p > s)
			argv[argc++] = s;
		s = p + 1;
		if (p >= buf + size)
			break;
	}

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		size_t j;

		for (j = 0; j < sizeof(flags) / sizeof(flags[0]); j++)
			if (strcmp(a, flags[j]) == 0)
				break;
		if (j < sizeof(flags) / sizeof(flags[0])) {
			*flag_field(&want, j) = true;
		} else if (strcmp(a, "no_unmount_on_close") == 0) {
			want.unmount_on_close = false;
		} else if (strncmp(a, "init_timeout=", 13) == 0) {
			long v = model_seconds(a + 13);

			if (v < 0)
				bad = true;
			else
				want.init_timeout = (unsigned)v;
		} else if (strncmp(a, "config_dir=/", 12) == 0) {
			want.config_dir = a + 11;
		} else {
			warnings++;
		}
	}

	memset(&got, 0x5a, sizeof(got));
	before = got;
	r = ns_args_parse(&got, argc, argv, &diag);
	if (bad) {
		if (r != -EINVAL || diag.n_errors == 0 || memcmp(&got, &before, sizeof(got)) != 0)
			abort();
		free(buf);
		return 0;
	}
	if (r != 0 || diag.n_errors != 0 || diag.n_warnings != warnings)
		abort();
	for (size_t j = 0; j < sizeof(flags) / sizeof(flags[0]); j++)
		if (*flag_field(&got, j) != *flag_field(&want, j))
			abort();
	if (got.init_timeout != want.init_timeout || got.config_dir != want.config_dir)
		abort();

	{
		struct ns_setup s = {0};

		if (ns_setup_init(&s, &got, 022) < 0)
			abort();
		if (got.config_dir) {
			if (!s.paths.no_vendor || !is_beneath(s.paths.main_file, got.config_dir) ||
			    !is_beneath(s.paths.conf_d, got.config_dir) ||
			    (s.plan_opts.init_script &&
			     !is_beneath(s.plan_opts.init_script, got.config_dir)))
				abort();
		} else if (s.paths.no_vendor || s.paths.main_file || s.paths.conf_d) {
			abort();
		}
		if (!!(s.config_flags & NS_CONFIG_IGNORE_ERRORS) != got.ignore_config_error ||
		    !!(s.plan_opts.flags & NS_PLAN_GEN_HASH) != got.gen_hash ||
		    !!(s.plan_opts.flags & NS_PLAN_IGNORE_ERRORS) != got.ignore_config_error ||
		    s.plan_opts.umask != 022)
			abort();
		ns_setup_free(&s);
	}
	free(buf);
	return 0;
}

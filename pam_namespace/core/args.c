/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

#define FLAG(name)                                                                                 \
	{                                                                                          \
#name, offsetof(struct ns_args, name)                                              \
	}

static const struct {
	const char *name;
	size_t offset;
} flag_table[] = {
	FLAG(debug),
	FLAG(ignore_config_error),
	FLAG(ignore_instance_parent_mode),
	FLAG(gen_hash),
	FLAG(require_selinux),
	FLAG(use_current_context),
	FLAG(use_default_context),
	FLAG(mount_private),
	FLAG(unmnt_remnt),
	FLAG(unmnt_only),
	FLAG(unmount_on_close),
	FLAG(share_namespace),
};

static int parse_seconds(const char *s, unsigned *ret)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v == 0 || v > 3600)
		return -EINVAL;
	*ret = (unsigned)v;
	return 0;
}

int ns_args_parse(struct ns_args *args, int argc, const char **argv, struct ns_diag *diag)
{
	struct ns_args a = {.init_timeout = NS_INIT_TIMEOUT_DEFAULT};
	int r = 0;

	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i];
		bool known = false;

		for (size_t j = 0; j < sizeof(flag_table) / sizeof(flag_table[0]); j++)
			if (strcmp(arg, flag_table[j].name) == 0) {
				*(bool *)((char *)&a + flag_table[j].offset) = true;
				known = true;
				break;
			}
		if (known)
			continue;

		if (strcmp(arg, "no_unmount_on_close") == 0) {
			/* Linux-PAM's old name for what is now the default. */
			a.unmount_on_close = false;
		} else if (strncmp(arg, "init_timeout=", 13) == 0) {
			if (parse_seconds(arg + 13, &a.init_timeout) < 0) {
				ns_diag_report(diag, NS_ERROR, NULL, 0, 0,
					       "bad module argument \"%s\": want 1 to 3600 seconds",
					       arg);
				r = -EINVAL;
			}
		} else if (strncmp(arg, "config_dir=", 11) == 0 && arg[11] == '/') {
			a.config_dir = arg + 11;
		} else {
			ns_diag_report(diag, NS_WARNING, NULL, 0, 0,
				       "unknown module argument \"%s\", ignored", arg);
		}
	}
	if (r < 0)
		return r;
	*args = a;
	return 0;
}

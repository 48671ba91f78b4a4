/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "ns-build.h"
#include "session-setup.h"

static const char *first_existing(const char *a, const char *b)
{
	struct stat st;

	if (a && lstat(a, &st) == 0)
		return a;
	if (b && lstat(b, &st) == 0)
		return b;
	return NULL;
}

static char *join(const char *dir, const char *name)
{
	char *s;

	return asprintf(&s, "%s/%s", dir, name) < 0 ? NULL : s;
}

int ns_setup_init(struct ns_setup *s, const struct ns_args *args, mode_t umask)
{
	struct ns_setup n = {0};

	if (args->config_dir) {
		n.main_file = join(args->config_dir, "namespace.conf");
		n.conf_d = join(args->config_dir, "namespace.d");
		n.init_script = join(args->config_dir, "namespace.init");
		if (!n.main_file || !n.conf_d || !n.init_script) {
			ns_setup_free(&n);
			return -ENOMEM;
		}
		n.paths.main_file = n.main_file;
		n.paths.conf_d = n.conf_d;
		n.paths.no_vendor = true;
		n.plan_opts.init_script = first_existing(n.init_script, NULL);
	} else {
		n.plan_opts.init_script = first_existing(NS_SYSCONF_DIR "/namespace.init",
							 NS_VENDOR_DIR "/namespace.init");
	}
	n.config_flags = args->ignore_config_error ? NS_CONFIG_IGNORE_ERRORS : 0;
	n.plan_opts.flags = (args->gen_hash ? NS_PLAN_GEN_HASH : 0) |
			    (args->ignore_config_error ? NS_PLAN_IGNORE_ERRORS : 0);
	n.plan_opts.umask = umask;
	*s = n;
	return 0;
}

void ns_setup_free(struct ns_setup *s)
{
	free(s->main_file);
	free(s->conf_d);
	free(s->init_script);
	*s = (struct ns_setup){0};
}

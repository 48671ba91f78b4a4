/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "ns-build.h"
#include "setup.h"

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

int ns_setup_paths(struct ns_setup *s, const struct ns_args *args)
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
	}
	n.config_flags = args->ignore_config_error ? NS_CONFIG_IGNORE_ERRORS : 0;
	n.plan_opts.flags = (args->gen_hash ? NS_PLAN_GEN_HASH : 0) |
			    (args->ignore_config_error ? NS_PLAN_IGNORE_ERRORS : 0);
	*s = n;
	return 0;
}

const char *ns_setup_default_script(const struct ns_setup *s)
{
	/* config_dir=DIR: DIR's script alone */
	if (s->init_script)
		return first_existing(s->init_script, NULL);
	return first_existing(NS_SYSCONF_DIR "/namespace.init", NS_VENDOR_DIR "/namespace.init");
}

int ns_setup_init(struct ns_setup *s, const struct ns_args *args, mode_t umask)
{
	int r = ns_setup_paths(s, args);

	if (r < 0)
		return r;
	s->plan_opts.init_script = ns_setup_default_script(s);
	s->plan_opts.umask = umask;
	return 0;
}

void ns_setup_free(struct ns_setup *s)
{
	free(s->main_file);
	free(s->conf_d);
	free(s->init_script);
	*s = (struct ns_setup){0};
}

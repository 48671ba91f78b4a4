/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

#include <sys/types.h>

#include "args.h"
#include "config.h"
#include "plan.h"

/*
 * What a session derives from the module arguments before it reads
 * anything: where the configuration comes from, the parser's flags and the
 * planner's options (the default init script among them). The module and
 * pam_namespace_check both take them from here, so that the check tool
 * prints the very plan the module applies.
 */
struct ns_setup {
	struct ns_config_paths paths;
	unsigned config_flags; /* enum ns_config_flags */
	struct ns_plan_opts plan_opts;

	/* storage behind the pointers above (config_dir=DIR) */
	char *main_file;
	char *conf_d;
	char *init_script;
};

/*
 * Fill s from args and the process umask. config_dir=DIR means
 * DIR/namespace.conf, DIR/namespace.d and DIR/namespace.init with no vendor
 * fallback; otherwise the system files, then the vendor's. The default init
 * script is ns_setup_default_script's. Returns 0 or -ENOMEM; s is filled
 * only on success.
 */
int ns_setup_init(struct ns_setup *s, const struct ns_args *args, mode_t umask);

/*
 * The same without the two things that cost a session system calls: the
 * umask is 0 and there is no default init script. The module fills them
 * in only when a line of the configuration uses them.
 */
int ns_setup_paths(struct ns_setup *s, const struct ns_args *args);

/*
 * The default init script: the first of the candidates that exists (lstat:
 * a dangling link counts, the session then finds it missing), or NULL.
 */
const char *ns_setup_default_script(const struct ns_setup *s);

void ns_setup_free(struct ns_setup *s);

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

#include "diag.h"

#define NS_INIT_TIMEOUT_DEFAULT 30

/* The module arguments of SPEC section 6, parsed once for open and close. */
struct ns_args {
	bool debug;
	bool ignore_config_error;
	bool ignore_instance_parent_mode;
	bool gen_hash;
	bool require_selinux;
	bool use_current_context;
	bool use_default_context;
	bool mount_private;
	bool unmnt_remnt;
	bool unmnt_only;
	bool unmount_on_close;
	/* new: all sessions of a user with one instance key share one namespace (share.h) */
	bool share_namespace;
	unsigned init_timeout; /* seconds */
	/*
	 * new: config_dir=DIR reads DIR/namespace.conf, DIR/namespace.d and
	 * DIR/namespace.init instead of the system's and the vendor's.
	 */
	const char *config_dir;
};

/* Unknown arguments are reported as warnings and ignored; a bad value is an error. */
int ns_args_parse(struct ns_args *args, int argc, const char **argv, struct ns_diag *diag);

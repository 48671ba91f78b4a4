/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

/*
 * What the files of share/ share among themselves and no one else: the
 * store (store.c: the key and state files; records.c: processes, the pin
 * directory, locks, session records; pin.c: pins opened and dropped) and,
 * on top of it, the commit hook that pins (commit.c) and the open, join
 * and close (share.c). Nothing in the store calls commit.c or share.c.
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "apply.h"
#include "kernel.h"
#include "store.h"
#include "util.h"

struct ns_share;

/* This process as a session record names it. */
int share_proc_self(struct ns_share_proc *ret);
/* NS_SHARE_DIR, made root:root 0700 and a private mount; *ret_what names a failed step. */
int share_dir_open(const char **ret_what, bool *ret_repaired);
int share_record_name(char *buf, size_t size, const char *key, const struct ns_share_proc *p);
/* A session record's name and back (*ret_klen: the length of its KEY); the fuzz targets' too. */
bool share_record_parse(const char *name, size_t *ret_klen, struct ns_share_proc *p);
struct share_pin_ctx {
	const struct ns_share *sh;
	const char *user;
	const struct kn_ns_saved *orig;
	enum kn_propagation prop; /* as the built namespace's "/" was made */
	ns_apply_log_fn log;
	void *ud;
	bool pinned; /* else the session goes on unshared */
	bool lost;   /* failed: not back into the namespace built (apply rolls back) */
};

/*
 * ns_apply's commit hook (arg: struct share_pin_ctx): pin the namespace
 * just built; pc->pinned says whether it is.
 */
int share_pin_built(void *arg, const struct ns_session *sess, struct ns_failure *fail);

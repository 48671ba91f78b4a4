/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

/*
 * What the share_namespace files share among themselves and no one else:
 * share-store.c (the key, state files, pins), share-records.c (processes,
 * the pin directory, locks, session records), share-pin.c (the commit hook
 * that pins) and share.c (open, join, close).
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "apply.h"
#include "kernel.h"
#include "share.h"

/* Room for one more element of size in *pptr, which holds n. */
int share_grow(void *pptr, size_t n, size_t size);
/* KEY and a suffix (".ns", ".state"), to free; NULL without memory. */
char *share_file_name(const char *base, const char *suffix);
/* This process as a session record names it. */
int share_proc_self(struct ns_share_proc *ret);
/* NS_SHARE_DIR, made root:root 0700 and a private mount; *ret_what names a failed step. */
int share_dir_open(const char **ret_what, bool *ret_repaired);
/*
 * The store's formats (share-store.c), for the code beside it and the
 * fuzz targets: KEY.state's text (st->format 0: this build's) and back
 * (-EBADMSG, -EPROTO as ns_share_state_read(); text is cut up), and a
 * session record's name and back (*ret_klen: the length of its KEY).
 */
int share_state_format(const struct ns_share_state *st, char **ret_text, size_t *ret_len);
int share_state_parse(char *text, bool other, struct ns_share_state *ret);
int share_record_name(char *buf, size_t size, const char *key, const struct ns_share_proc *p);
bool share_record_parse(const char *name, size_t *ret_klen, struct ns_share_proc *p);
/* The first failure into *fail (later ones are only returned). */
int share_fail_with(struct ns_failure *fail, const char *what, const char *path, int error);
/* The state of a namespace just built: the pin's fstat, "/", the session's polydirs and tmpdirs. */
int share_state_from_session(struct ns_share_state *st, const char *user,
			     const struct ns_session *sess, const struct stat *pin);

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

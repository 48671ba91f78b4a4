/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#pragma once

/*
 * One polyinstantiation per login. A stack that runs the module twice for
 * one handle (su-l including su, common-session plus a service's own line)
 * is caught by the glue with PAM data; this file answers the other case: a
 * process that is already in the mount namespace this module made for the
 * same user and plan (su - alice inside alice's own session).
 *
 * The proof is one a user cannot forge: every entry of the plan is in
 * place. Its polydir, resolved safely in the caller's namespace, is the
 * root of a mount, and that mount's root is the very directory (device and
 * inode) that the entry's instance path names, resolved safely in the
 * caller's namespace or, where the mount hides it there (an instance
 * inside its polydir), from the root of process 1. Only root mounts in a
 * namespace that the initial user namespace owns, a user's FUSE mount has
 * a device of its own, and a safe walk cannot reach a mount's root from
 * below it, so a user cannot make a polydir pass for the instance. Most
 * sessions are told apart by two statx() calls: a polydir that is no mount
 * root, or whose root is not what the instance path names.
 *
 * tmpfs and tmpdir entries have no instance to compare: a plan with one is
 * never found in place, and a nested session gets its own, as with
 * Linux-PAM. With share_namespace the proof is share.c's: the caller is in
 * the namespace pinned for this user and key, proven against the pin.
 */

#include <sys/types.h>

#include "plan.h"

/*
 * 1 if every entry of plan is in place in the caller's namespace, 0 if
 * not, or not provably (tmpfs, tmpdir, an instance nowhere to be seen).
 */
int ns_once_in_place(const struct ns_plan *plan);

/*
 * share_namespace: 1 if the caller is in the namespace share.c pinned for
 * uid and share_key: the pin, opened where process 1's namespace holds it
 * and held open, is the caller's namespace (device and inode). 0 if not,
 * or if there is no pin (a stale state's numbers prove nothing: the kernel
 * reuses them); a negative errno.
 */
int ns_once_in_shared(uid_t uid, const char *share_key);

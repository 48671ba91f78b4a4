/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* What test_api.c and test_api_mounts.c (one program) share. */
#pragma once

#include <sys/stat.h>

#include "kt.h"

#define A KT_DIR "/a"
#define U KT_DIR "/u" /* owned by a user */

/* lstat(path), failing the test if it cannot. */
struct stat stat_of(const char *path);
/* Fails the test unless fd is a descriptor of path. */
void assert_fd_is(int fd, const char *path);
/* The usual tree: a/b root-owned 0755, u owned by uid 1000 with u/x/y. */
void tree(void);
/* The working directory (malloc'd), failing the test if getcwd fails. */
char *cwd_now(void);

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * resolver_race MODE N DIR VICTIM: the module's resolver (kernel/path.c)
 * against a user who swaps DIR with a symlink to VICTIM while it runs (the
 * attacker program does the swapping). MODE "openat2" uses openat2 with
 * RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH, "walk" the O_NOFOLLOW walk that
 * older kernels get. N times: open DIR and DIR/x, and create and remove
 * DIR/x/n; an escape is a descriptor on VICTIM or VICTIM/x, or an n made
 * in VICTIM/x. Prints the counts; exits 1 on any escape.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel.h"

struct counts {
	unsigned long opened, refused, escapes;
};

static bool same_inode(int fd, const struct stat *victim)
{
	struct stat st;

	return fstat(fd, &st) == 0 && st.st_dev == victim->st_dev && st.st_ino == victim->st_ino;
}

static void try_open(const char *path, const struct stat *victim, struct counts *c)
{
	int fd = kn_open_dir(path, NULL);

	if (fd < 0) {
		c->refused++;
		return;
	}
	c->opened++;
	if (same_inode(fd, victim))
		c->escapes++;
	close(fd);
}

static void try_mkdir(const char *path, int victim_x, struct counts *c)
{
	const char *name;
	int pfd = kn_open_parent(path, &name, NULL), fd;
	struct stat st;

	if (pfd < 0) {
		c->refused++;
		return;
	}
	fd = kn_mkdir_child(pfd, name, 0755, 2001, 2001);
	if (fd < 0) {
		c->refused++;
	} else {
		c->opened++;
		close(fd);
	}
	if (fstatat(victim_x, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		c->escapes++;
		(void)unlinkat(victim_x, name, AT_REMOVEDIR);
	}
	if (fd >= 0)
		(void)unlinkat(pfd, name, AT_REMOVEDIR);
	close(pfd);
}

int main(int argc, char **argv)
{
	struct counts c = {0};
	struct stat victim, victim_x_st;
	char *x, *n, *vx;
	unsigned long rounds;
	int victim_x;

	if (argc != 5) {
		fprintf(stderr, "usage: resolver_race openat2|walk N DIR VICTIM\n");
		return 2;
	}
	if (strcmp(argv[1], "walk") == 0) {
		kn_features_disable_all();
	} else if (!kn_features()->openat2) {
		printf("no openat2 on this kernel\n");
		return 77;
	}
	rounds = strtoul(argv[2], NULL, 10);
	if (asprintf(&x, "%s/x", argv[3]) < 0 || asprintf(&n, "%s/x/n", argv[3]) < 0 ||
	    asprintf(&vx, "%s/x", argv[4]) < 0)
		return 2;
	victim_x = open(vx, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (stat(argv[4], &victim) < 0 || victim_x < 0 || fstat(victim_x, &victim_x_st) < 0) {
		perror("resolver_race: the victim");
		return 2;
	}
	for (unsigned long i = 0; i < rounds; i++) {
		try_open(argv[3], &victim, &c);
		try_open(x, &victim_x_st, &c);
		try_mkdir(n, victim_x, &c);
	}
	close(victim_x);
	free(x);
	free(n);
	free(vx);
	printf("%lu %lu %lu\n", c.opened, c.refused, c.escapes);
	return c.escapes ? 1 : 0;
}

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * attacker UID GID A B: as the unprivileged user UID:GID, swap the two
 * names A and B (a directory and a symlink) with renameat2(RENAME_EXCHANGE)
 * as fast as possible until SIGTERM, then put them back and print how many
 * swaps were made (also when a name goes away and it stops). The race
 * test runs sessions against it.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_term};
	unsigned long swaps = 0;

	if (argc != 5) {
		fprintf(stderr, "usage: attacker UID GID A B\n");
		return 2;
	}
	sigaction(SIGTERM, &sa, NULL);
	if (setgroups(0, NULL) < 0 || setgid((gid_t)atoi(argv[2])) < 0 ||
	    setuid((uid_t)atoi(argv[1])) < 0) {
		perror("attacker: dropping privileges");
		return 2;
	}
	while (!stop) {
		if (syscall(SYS_renameat2, AT_FDCWD, argv[3], AT_FDCWD, argv[4], RENAME_EXCHANGE) <
		    0) {
			/* The names went away (a tmpdir removed under it): say how far it got. */
			perror("attacker: renameat2");
			printf("%lu\n", swaps);
			return 1;
		}
		swaps++;
	}
	/* Leave the names as they were. */
	if (swaps & 1)
		syscall(SYS_renameat2, AT_FDCWD, argv[3], AT_FDCWD, argv[4], RENAME_EXCHANGE);
	printf("%lu\n", swaps);
	return 0;
}

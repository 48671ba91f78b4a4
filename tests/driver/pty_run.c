/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * pty_run: run a command on a new pseudo terminal, as its controlling
 * terminal, and copy what it writes there to standard output, for the
 * login(1) tests.
 *
 *   pty_run COMMAND [ARG...]
 *
 * Exits with the command's status (128 + N if killed by signal N).
 *
 * script(1) cannot drive util-linux 2.41's login (Debian 13): login calls
 * vhangup() on its terminal before it starts the shell, the master side
 * then reads EIO until login has opened the terminal again, and script takes
 * that EIO for the end of the session and kills the shell. Here an EIO, or
 * a hangup, on the master ends nothing: the output is copied until the
 * command itself has exited, then what is left in the terminal is drained.
 * Nothing is written to the terminal (login -f reads nothing).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "pty_run: %s: %s\n", what, strerror(errno));
	exit(125);
}

/* The child: a session of its own with the terminal as controlling one. */
static void start_child(const char *slave_name, char **argv)
{
	int fd;

	if (setsid() < 0)
		die("setsid");
	fd = open(slave_name, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die(slave_name);
	if (ioctl(fd, TIOCSCTTY, 0) < 0)
		die("TIOCSCTTY");
	if (dup2(fd, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		die("dup2");
	execvp(argv[0], argv);
	fprintf(stderr, "pty_run: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Copy what is readable now; false once the master reads EIO or EOF. */
static int copy_out(int master)
{
	char buf[4096];
	ssize_t n;

	for (;;) {
		n = read(master, buf, sizeof(buf));
		if (n > 0) {
			if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
				die("writing standard output");
			fflush(stdout);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 1;
		return 0;
	}
}

int main(int argc, char **argv)
{
	const struct timespec pause_10ms = {.tv_nsec = 10 * 1000 * 1000};
	int master, status;
	char *slave_name;
	pid_t pid, w;

	if (argc < 2) {
		fprintf(stderr, "usage: pty_run COMMAND [ARG...]\n");
		return 2;
	}
	master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0)
		die("posix_openpt");
	if (grantpt(master) < 0 || unlockpt(master) < 0)
		die("unlockpt");
	slave_name = ptsname(master);
	if (!slave_name)
		die("ptsname");
	slave_name = strdup(slave_name);
	if (!slave_name)
		die("strdup");
	if (fcntl(master, F_SETFL, O_NONBLOCK) < 0)
		die("O_NONBLOCK");

	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0)
		start_child(slave_name, argv + 1);

	for (;;) {
		struct pollfd p = {.fd = master, .events = POLLIN};
		int alive;

		w = waitpid(pid, &status, WNOHANG);
		if (w < 0 && errno != EINTR)
			die("waitpid");
		alive = w == 0;
		if (poll(&p, 1, alive ? 100 : 0) < 0 && errno != EINTR)
			die("poll");
		/*
		 * POLLHUP or EIO while the command lives: the terminal is hung
		 * up or not open at the moment (login's vhangup); wait a little
		 * rather than spin, and look again.
		 */
		if (!copy_out(master) && alive)
			nanosleep(&pause_10ms, NULL);
		if (!alive)
			break;
	}
	free(slave_name);
	close(master);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * Without libFuzzer: run the fuzz target once over each file named, or
 * each file in each directory named (the seed corpus, crash reproducers).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(int dirfd, const char *name)
{
	struct stat st;
	uint8_t *buf;
	ssize_t n;
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		perror(name);
		return -1;
	}
	buf = malloc((size_t)st.st_size + 1);
	n = buf ? read(fd, buf, (size_t)st.st_size) : -1;
	close(fd);
	if (n != st.st_size) {
		fprintf(stderr, "%s: short read\n", name);
		free(buf);
		return -1;
	}
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned runs = 0;
	int bad = 0;

	for (int i = 1; i < argc; i++) {
		DIR *d = opendir(argv[i]);
		struct dirent *de;

		if (!d) {
			bad |= run_file(AT_FDCWD, argv[i]) < 0;
			runs++;
			continue;
		}
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			bad |= run_file(dirfd(d), de->d_name) < 0;
			runs++;
		}
		closedir(d);
	}
	printf("%u inputs\n", runs);
	return bad || runs == 0;
}

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * ns_probe SERVICE USER: open a PAM session in this very process and print
 * what its mount namespace looked like before and after, so a test can see
 * whether a failed pam_open_session left the caller as it was:
 *
 *   before ns=<inode> mounts=<n>
 *   open rc=<PAM code> <pam_strerror>
 *   after ns=<inode> mounts=<n>
 *
 * Exit status: 0 when the session opened, 1 when it did not, 2 on usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <security/pam_appl.h>

static int no_prompts(int n, const struct pam_message **msg, struct pam_response **resp, void *data)
{
	(void)n;
	(void)msg;
	(void)resp;
	(void)data;
	return PAM_CONV_ERR;
}

static void report(const char *when)
{
	struct stat st;
	unsigned long n = 0;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int c;

	if (stat("/proc/self/ns/mnt", &st) < 0) {
		perror("stat /proc/self/ns/mnt");
		exit(2);
	}
	if (!f) {
		perror("/proc/self/mountinfo");
		exit(2);
	}
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	printf("%s ns=%lu mounts=%lu\n", when, (unsigned long)st.st_ino, n);
}

int main(int argc, char **argv)
{
	struct pam_conv conv = {.conv = no_prompts};
	pam_handle_t *pamh = NULL;
	int rc;

	if (argc != 3) {
		fprintf(stderr, "usage: ns_probe SERVICE USER\n");
		return 2;
	}
	rc = pam_start(argv[1], argv[2], &conv, &pamh);
	if (rc != PAM_SUCCESS) {
		fprintf(stderr, "pam_start: %s\n", pam_strerror(pamh, rc));
		return 2;
	}
	report("before");
	rc = pam_open_session(pamh, 0);
	printf("open rc=%d %s\n", rc, pam_strerror(pamh, rc));
	report("after");
	if (rc == PAM_SUCCESS)
		pam_close_session(pamh, 0);
	pam_end(pamh, rc);
	return rc == PAM_SUCCESS ? 0 : 1;
}

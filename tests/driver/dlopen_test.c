/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * dlopen_test MODULE: load the built module the way libpam does (RTLD_NOW,
 * so an unresolved symbol fails here rather than in a login), check that the
 * two session entry points resolve and that internal symbols do not: the
 * version script exports only pam_sm_open_session and pam_sm_close_session.
 */
#include <dlfcn.h>
#include <stdio.h>

static const char *const exported[] = {
	"pam_sm_open_session",
	"pam_sm_close_session",
};

static const char *const hidden[] = {
	"pam_sm_authenticate",	"pam_sm_setcred", "pam_sm_acct_mgmt", "pam_sm_chauthtok",
	"ns_config_parse_text", "ns_plan_build",  "kn_bind_fd",	      "main",
};

int main(int argc, char **argv)
{
	unsigned i, failures = 0;
	void *h;

	if (argc != 2) {
		fprintf(stderr, "usage: dlopen_test MODULE\n");
		return 2;
	}
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "FAIL: dlopen %s: %s\n", argv[1], dlerror());
		return 1;
	}
	for (i = 0; i < sizeof(exported) / sizeof(exported[0]); i++) {
		dlerror();
		if (!dlsym(h, exported[i])) {
			fprintf(stderr, "FAIL: %s does not resolve\n", exported[i]);
			failures++;
		} else {
			printf("ok: %s resolves\n", exported[i]);
		}
	}
	for (i = 0; i < sizeof(hidden) / sizeof(hidden[0]); i++) {
		dlerror();
		if (dlsym(h, hidden[i])) {
			fprintf(stderr, "FAIL: %s resolves, but must not be exported\n", hidden[i]);
			failures++;
		} else {
			printf("ok: %s is not exported\n", hidden[i]);
		}
	}
	dlclose(h);
	return failures ? 1 : 0;
}

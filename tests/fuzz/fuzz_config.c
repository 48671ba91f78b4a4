/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * Fuzz target for the configuration parser and the planner: the bytes are
 * a namespace.conf, parsed as the module parses it (strict, then with
 * ignore_config_error) and planned for a user. Whatever the input, parsing
 * must end in rules or a reported error, never a crash, a hang or a leak,
 * and what it accepts must keep the parser's promises.
 *
 * Built with clang -fsanitize=fuzzer (meson -Dfuzz=true) it is a libFuzzer
 * target; otherwise fuzz_main.c runs it over the files it is given, which
 * is how every build replays the seed corpus.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fake_user(void *userdata, const char *name, uid_t *ret_uid, gid_t *ret_gid)
{
	if (strcmp(name, "alice") != 0 && strcmp(name, "root") != 0)
		return -ENOENT;
	*ret_uid = name[0] == 'a' ? 2001 : 0;
	*ret_gid = *ret_uid;
	return 0;
}

static int fake_group(void *userdata, const char *name, gid_t *ret_gid)
{
	if (strcmp(name, "alice") != 0)
		return -ENOENT;
	*ret_gid = 2001;
	return 0;
}

/* admins has alice; "down" fails as an unreachable directory would. */
static int fake_in_group(void *userdata, const char *group, const char *user, gid_t gid)
{
	if (strcmp(group, "down") == 0)
		return -EAGAIN;
	if (strcmp(group, "admins") != 0)
		return -ENOENT;
	return strcmp(user, "alice") == 0;
}

static bool dotdot_component(const char *path)
{
	size_t n = strlen(path);

	return strncmp(path, "../", 3) == 0 || strcmp(path, "..") == 0 || strstr(path, "/../") ||
	       (n >= 3 && strcmp(path + n - 3, "/..") == 0);
}

/* The parser's promises about what it accepts (SPEC section 1). */
static void check_rules(const struct ns_config *cfg)
{
	if (cfg->n_rules > NS_CONFIG_MAX_ENTRIES)
		abort();
	for (size_t i = 0; i < cfg->n_rules; i++) {
		const struct ns_rule *r = &cfg->rules[i];

		if (!r->file || !r->polydir || !r->instance_prefix || r->line == 0)
			abort();
		if ((unsigned)r->method >= _NS_METHOD_MAX)
			abort();
		/* tmpfs lines have no instance, and their prefix is not looked at. */
		if (dotdot_component(r->polydir) ||
		    (r->method != NS_METHOD_TMPFS && dotdot_component(r->instance_prefix)))
			abort();
		if (r->n_users > 0 && !r->users)
			abort();
		/* Extended lines: selectors, not names; shares right inside the polydir. */
		if (!r->extended && (r->n_selectors || r->n_shares || r->attr_flags))
			abort();
		if (r->extended && r->n_users)
			abort();
		for (size_t k = 0; k < r->n_selectors; k++)
			if ((r->selectors[k].kind == NS_SELECTOR_UIDS) != !r->selectors[k].name ||
			    r->selectors[k].lo > r->selectors[k].hi)
				abort();
		for (size_t k = 0; k < r->n_shares; k++) {
			size_t pl = strlen(r->polydir);

			if (strncmp(r->shares[k], r->polydir, pl) != 0 || r->shares[k][pl] != '/' ||
			    strchr(r->shares[k] + pl + 1, '/') || dotdot_component(r->shares[k]))
				abort();
		}
	}
}

static void plan_for(const struct ns_config *cfg, const struct ns_user *user, unsigned flags)
{
	static const struct ns_lookup lookup = {
		.user = fake_user, .group = fake_group, .in_group = fake_in_group};
	struct ns_plan_opts opts = {
		.flags = flags,
		.umask = 022,
		.init_script = "/etc/security/namespace.init",
	};
	struct ns_diag diag = {0};
	struct ns_plan plan = {0};

	if (ns_plan_build(&plan, cfg, user, &lookup, &opts, &diag) == 0) {
		for (size_t i = 0; i < plan.n_entries; i++) {
			const struct ns_plan_entry *e = &plan.entries[i];

			if (!e->polydir || e->polydir[0] != '/')
				abort();
			for (size_t k = 0; k < e->n_shares; k++)
				if (!e->shares[k] || e->shares[k][0] != '/')
					abort();
		}
	}
	ns_plan_free(&plan);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct ns_user alice = {
		.name = "alice", .uid = 2001, .gid = 2001, .home = "/home/alice"};
	static const struct ns_user root = {.name = "root", .uid = 0, .gid = 0, .home = "/root"};
	static const unsigned flags[] = {0, NS_CONFIG_IGNORE_ERRORS};

	for (size_t f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
		struct ns_config cfg = {0};
		struct ns_diag diag = {0};
		int r = ns_config_parse_text(&cfg, "namespace.conf", (const char *)data, size,
					     "/etc/security/namespace.d", flags[f], &diag);

		if (r < 0 && r != -EINVAL && r != -E2BIG)
			abort();
		if (r < 0 && diag.n_errors == 0)
			abort();
		check_rules(&cfg);
		if (r == 0) {
			plan_for(&cfg, &alice, f ? NS_PLAN_IGNORE_ERRORS : 0);
			plan_for(&cfg, &root, NS_PLAN_GEN_HASH);
		}
		ns_config_free(&cfg);
	}
	return 0;
}

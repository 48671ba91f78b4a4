/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * One file's text parsed line by line (config-line.c) into the
 * configuration, with the limits of SPEC section 1. It fails closed: a bad
 * line is an error unless ignore_config_error says to skip it. Reading the
 * files is config-file.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config-parse.h"
#include "ns-build.h"

static int append_rule(struct ns_config *cfg, size_t *cap, struct ns_rule *r)
{
	if (cfg->n_rules == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		struct ns_rule *nr = realloc(cfg->rules, ncap * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		cfg->rules = nr;
		*cap = ncap;
	}
	cfg->rules[cfg->n_rules++] = *r;
	return 0;
}

int ns_config_parse_text(struct ns_config *cfg, const char *file, const char *text, size_t len,
			 const char *conf_d, unsigned flags, struct ns_diag *diag)
{
	struct line_ctx lc = {.file = file, .diag = diag, .flags = flags};
	size_t cap = cfg->n_rules, pos = 0;
	const char *nul;
	int r = 0;

	if (!conf_d)
		conf_d = NS_SYSCONF_DIR "/namespace.d";

	/* A NUL byte means this is not a text file: refuse it whole. */
	nul = memchr(text, '\0', len);
	if (nul) {
		unsigned line = 1;

		for (const char *p = text; p < nul; p++)
			line += *p == '\n';
		ns_diag_report(diag, NS_ERROR, file, line, 0, "NUL byte in the configuration");
		return -EINVAL;
	}

	while (pos < len) {
		const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - s) : len - pos;
		struct ns_rule rule;
		int k;

		pos += l + 1;
		lc.line++;
		if (l > NS_CONFIG_MAX_LINE) {
			line_error(&lc, 0, "line longer than %d bytes", NS_CONFIG_MAX_LINE);
			k = -E2BIG;
		} else {
			k = ns_line_parse(&lc, s, l, conf_d, &rule);
		}
		if (k == -ENOMEM)
			return k;
		if (k < 0) {
			if (flags & NS_CONFIG_IGNORE_ERRORS)
				line_warning(&lc, 0, "line skipped (ignore_config_error)");
			else if (r == 0)
				r = k;
			continue;
		}
		if (k == 0)
			continue;
		if (cfg->n_rules >= NS_CONFIG_MAX_ENTRIES) {
			ns_rule_free(&rule);
			line_error(&lc, 0, "more than %d entries in the configuration",
				   NS_CONFIG_MAX_ENTRIES);
			return -E2BIG;
		}
		if (r < 0) {
			/* Keep reporting errors, but keep no rules from a failed file. */
			ns_rule_free(&rule);
			continue;
		}
		if (append_rule(cfg, &cap, &rule) < 0) {
			ns_rule_free(&rule);
			return -ENOMEM;
		}
	}
	return r;
}

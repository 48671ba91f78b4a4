/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * namespace.conf's rules as the parser makes them (config.h): the method
 * names, which names in namespace.d are read, and freeing. The parser is config-lex.c,
 * config-line.c and config-text.c (config-parse.h); reading the files is config-file.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"

static const char *const method_table[_NS_METHOD_MAX] = {
	[NS_METHOD_USER] = "user",     [NS_METHOD_CONTEXT] = "context", [NS_METHOD_LEVEL] = "level",
	[NS_METHOD_TMPDIR] = "tmpdir", [NS_METHOD_TMPFS] = "tmpfs",
};

const char *ns_method_to_string(enum ns_method m)
{
	if (m < 0 || m >= _NS_METHOD_MAX)
		return NULL;
	return method_table[m];
}

enum ns_method ns_method_from_string(const char *s)
{
	for (int m = 0; m < _NS_METHOD_MAX; m++)
		if (s && strcmp(s, method_table[m]) == 0)
			return (enum ns_method)m;
	return _NS_METHOD_INVALID;
}

void ns_rule_free(struct ns_rule *r)
{
	free(r->file);
	free(r->polydir);
	free(r->instance_prefix);
	free(r->create_owner);
	free(r->create_group);
	free(r->iscript);
	free(r->mntopts);
	for (size_t i = 0; i < r->n_users; i++)
		free(r->users[i]);
	free(r->users);
	for (size_t i = 0; i < r->n_shares; i++)
		free(r->shares[i]);
	free(r->shares);
	for (size_t i = 0; i < r->n_selectors; i++)
		free(r->selectors[i].name);
	free(r->selectors);
	*r = (struct ns_rule){0};
}

void ns_config_free(struct ns_config *cfg)
{
	for (size_t i = 0; i < cfg->n_rules; i++)
		ns_rule_free(&cfg->rules[i]);
	free(cfg->rules);
	*cfg = (struct ns_config){0};
}

bool ns_config_dropin_name_ok(const char *name)
{
	size_t l = strlen(name);

	return name[0] != '.' && l > 5 && strcmp(name + l - 5, ".conf") == 0;
}

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * The name service, asked one way by the module and pam_namespace_check
 * alike: getpwnam_r() and getgrnam_r(), a failure of the name service told
 * apart from an unknown name, the names of an owner and a group in a
 * refusal's words, and the SELinux seams of struct ns_lookup.
 * The planner (core/plan.c) gets it as a struct ns_lookup.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lookup.h"
#include "rules.h"
#include "selinux.h"
#include "util.h"

/*
 * The one loop over the name service's four reentrant calls: a user or a
 * group, by name (key) or by id, into buf, grown on the heap while the
 * entry does not fit.
 */
static int nss_call(bool group, const char *name, unsigned id, void *ent, char *stack, size_t size,
		    char **heap)
{
	char *buf = stack;

	*heap = NULL;
	for (;;) {
		struct passwd *pw = NULL;
		struct group *gr = NULL;
		int r = group ? (name ? getgrnam_r(name, ent, buf, size, &gr)
				      : getgrgid_r(id, ent, buf, size, &gr))
			      : (name ? getpwnam_r(name, ent, buf, size, &pw)
				      : getpwuid_r(id, ent, buf, size, &pw));

		if (r == 0)
			return pw || gr ? 0 : -ENOENT;
		if (r != ERANGE || size >= 1024 * 1024)
			return -r;
		size *= 4;
		free(*heap);
		*heap = buf = malloc(size);
		if (!buf)
			return -ENOMEM;
	}
}

int ns_nss_lookup(const char *name, bool group, void *ent, char *stack, size_t size, char **heap)
{
	return nss_call(group, name, 0, ent, stack, size, heap);
}

char *ns_nss_id_name(unsigned id, bool group)
{
	char stack[1024], *heap, *name = NULL;
	struct passwd pw;
	struct group gr;

	if (nss_call(group, NULL, id, group ? (void *)&gr : (void *)&pw, stack, sizeof(stack),
		     &heap) == 0)
		name = strdup(group ? gr.gr_name : pw.pw_name);
	free(heap);
	return name;
}

char *ns_ownership_text(uid_t uid, gid_t gid, mode_t mode)
{
	char *owner = ns_nss_id_name(uid, false), *group = ns_nss_id_name(gid, true), *s;
	char *o = owner ? owner : ns_strdupf("%u", (unsigned)uid);
	char *g = group ? group : ns_strdupf("%u", (unsigned)gid);

	s = o && g ? ns_strdupf("owner %s, group %s, mode %04o", o, g, (unsigned)(mode & 07777))
		   : NULL;
	free(o);
	free(g);
	return s;
}

char *ns_instance_parent_refusal(const struct stat *st)
{
	char *own = ns_ownership_text(st->st_uid, st->st_gid, st->st_mode);
	char *s = own ? ns_strdupf("%s; %s", own, ns_instance_parent_rule) : NULL;

	free(own);
	return s;
}

/*
 * The names in lists of users and create=: not pam_modutil_getpwnam(),
 * which keeps every result in the handle's list of data, searched linearly
 * on each call: with thousands of lines that grows with the square of
 * their number. Only the ids are kept.
 */
static int lookup_ids(const char *name, bool group, uid_t *ret_uid, gid_t *ret_gid)
{
	char stack[1024], *heap;
	struct passwd pw;
	struct group gr;
	int r = ns_nss_lookup(name, group, group ? (void *)&gr : (void *)&pw, stack, sizeof(stack),
			      &heap);

	if (r == 0 && group) {
		*ret_gid = gr.gr_gid;
	} else if (r == 0) {
		*ret_uid = pw.pw_uid;
		*ret_gid = pw.pw_gid;
	}
	free(heap);
	return r;
}

static int lookup_user(void *userdata, const char *name, uid_t *ret_uid, gid_t *ret_gid)
{
	return lookup_ids(name, false, ret_uid, ret_gid);
}

static int lookup_group(void *userdata, const char *name, gid_t *ret_gid)
{
	return lookup_ids(name, true, NULL, ret_gid);
}

static int lookup_in_group(void *userdata, const char *group, const char *user, gid_t user_gid)
{
	char stack[1024], *heap;
	struct group gr;
	int r = ns_nss_lookup(group, true, &gr, stack, sizeof(stack), &heap);

	if (r == 0)
		r = ns_group_has_user(&gr, user, user_gid);
	free(heap);
	return r;
}

struct ns_lookup ns_host_lookup(void)
{
	return (struct ns_lookup){
		.user = lookup_user,
		.group = lookup_group,
		.in_group = lookup_in_group,
		.member_context = ns_selinux_member_context,
		.boolean_off = ns_selinux_polyinstantiation_suspect,
	};
}

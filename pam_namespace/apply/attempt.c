/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * One attempt's bookkeeping, below its steps: what it made and removes
 * again on failure, and the instance parents it holds locked.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "kernel.h"

/*
 * Keep a directory this attempt made, to remove on failure; one that
 * cannot be kept is removed at once, so that nothing made is forgotten.
 */
int apply_remember_made(struct apply_ctx *c, int parent_fd, const char *name, const char *path)
{
	bool room = ns_grow(&c->made, c->n_made, sizeof(*c->made)) == 0;
	struct apply_made *m = c->made;
	char *copy = room ? strdup(name) : NULL;
	int fd = copy ? fcntl(parent_fd, F_DUPFD_CLOEXEC, 3) : -1;

	if (fd < 0) {
		int r = !copy ? -ENOMEM : -errno;

		free(copy);
		(void)kn_remove_child_dir(parent_fd, name);
		return r;
	}
	m[c->n_made].parent_fd = fd;
	m[c->n_made].name = copy;
	m[c->n_made].path = path;
	c->n_made++;
	return 0;
}

/*
 * Undo in reverse order; an instance is removed only if still empty. One
 * that cannot be removed is said so: the attempt has failed already, and
 * this is the only trace of what it left. An instance is on this list only
 * where the attempt made it under its parent's lock, still held here, so
 * that no other session can have mounted it (apply_open_instance).
 */
void apply_undo_made(struct apply_ctx *c, bool remove)
{
	while (c->n_made > 0) {
		struct apply_made *m = &c->made[--c->n_made];
		int k = remove ? kn_remove_child_dir(m->parent_fd, m->name) : 0;

		if (k < 0 && k != -ENOENT && c->log)
			c->log(c->log_userdata, false,
			       "could not remove %s, made by the failed session: %s", m->path,
			       strerror(-k));
		close(m->parent_fd);
		free(m->name);
	}
	free(c->made);
	c->made = NULL;
}

void apply_unlock_all(struct apply_ctx *c)
{
	for (size_t i = 0; i < c->n_locks; i++)
		close(c->locks[i].fd);
	free(c->locks);
	c->locks = NULL;
	c->n_locks = 0;
}

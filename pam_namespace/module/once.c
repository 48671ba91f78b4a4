/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * One polyinstantiation per login: whether the caller's mount namespace
 * has this plan in place already (once.h says why that proof cannot be
 * forged), and the same against share.c's pins.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel.h"
#include "once.h"
#include "share.h"

/*
 * The polydir as the caller's namespace has it: the root of a mount, its
 * device and inode into *ret. 0, -ENOTCONN if nothing is mounted on it.
 */
static int polydir_mount(const char *polydir, struct stat *ret)
{
	int fd = kn_open_dir(polydir, NULL), r;

	if (fd < 0)
		return fd;
	r = kn_is_mount_root(fd);
	if (r == 0)
		r = -ENOTCONN;
	if (r > 0)
		r = fstat(fd, ret) < 0 ? -errno : 0;
	close(fd);
	return r;
}

/* The instance directory, walked safely from root (NULL: the caller's "/"). */
static int instance_at(const struct kn_dir *root, const char *instance, struct stat *ret)
{
	int fd = root ? kn_open_dir_from(root, NULL, NULL, instance, NULL)
		      : kn_open_dir(instance, NULL),
	    r;

	if (fd < 0)
		return fd;
	r = fstat(fd, ret) < 0 ? -errno : 0;
	close(fd);
	return r;
}

static bool same_dir(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/*
 * Whether polydir shows instance: the mount on it has the instance as its
 * root. The instance is looked for in the caller's namespace first (a
 * safe walk cannot reach a mount's root from below it, so a match there is
 * the instance itself), and where the mount hides it, in process 1's.
 */
static bool entry_in_place(const struct ns_plan_entry *e, struct kn_dir *pid1_root)
{
	struct stat poly, inst;
	int fd, r;

	if (polydir_mount(e->polydir, &poly) < 0)
		return false;
	r = instance_at(NULL, e->instance, &inst);
	if (r == 0)
		return same_dir(&poly, &inst);
	if (r != -ENOENT)
		return false;
	if (pid1_root->fd < 0) {
		fd = open("/proc/1/root", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return false;
		if (kn_dir_from_fd(fd, true, pid1_root) < 0) {
			close(fd);
			return false;
		}
	}
	return instance_at(pid1_root, e->instance, &inst) == 0 && same_dir(&poly, &inst);
}

/*
 * A cheap first look, by path: a polydir that is no mount root, or whose
 * root is another directory than the one the instance path names, shows
 * no instance. Only "not in place" is trusted from here, which can cost a
 * nested session a namespace of its own, never a wrong yes.
 */
static bool maybe_in_place(const struct ns_plan_entry *e)
{
	struct statx poly, inst;

	if (statx(AT_FDCWD, e->polydir, AT_SYMLINK_NOFOLLOW, STATX_INO, &poly) < 0)
		return false;
	if ((poly.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
	    !(poly.stx_attributes & STATX_ATTR_MOUNT_ROOT))
		return false;
	if (statx(AT_FDCWD, e->instance, 0, STATX_INO, &inst) < 0)
		return true; /* hidden under the polydir, say */
	return poly.stx_dev_major == inst.stx_dev_major &&
	       poly.stx_dev_minor == inst.stx_dev_minor && poly.stx_ino == inst.stx_ino;
}

int ns_once_in_place(const struct ns_plan *plan)
{
	struct kn_dir pid1_root = KN_DIR_INIT;
	bool in_place = true;

	if (plan->n_entries == 0)
		return 0;
	for (size_t i = 0; i < plan->n_entries; i++) {
		const struct ns_plan_entry *e = &plan->entries[i];

		/* tmpfs, tmpdir: a new one each session, nothing to compare */
		if (!e->instance || e->method == NS_METHOD_TMPDIR || !maybe_in_place(e))
			return 0;
	}
	for (size_t i = 0; i < plan->n_entries && in_place; i++)
		in_place = entry_in_place(&plan->entries[i], &pid1_root);
	kn_dir_close(&pid1_root);
	return in_place;
}

/*
 * Against the pin itself, held open while the caller's namespace is
 * compared with it (share/pin.c's ns_share_pin_open_pid1 says why the
 * numbers in the state cannot do). No pin, or not the namespace the state
 * recorded: there is nothing to be in, and the session is set up anew.
 */
int ns_once_in_shared(uid_t uid, const char *share_key)
{
	struct stat pinned, own;
	int pin = ns_share_pin_open_pid1(uid, share_key), r;

	if (pin == -ENOENT || pin == -ESTALE || pin == -EMEDIUMTYPE)
		return 0;
	if (pin < 0)
		return pin;
	if (fstat(pin, &pinned) < 0 || stat("/proc/thread-self/ns/mnt", &own) < 0)
		r = -errno;
	else
		r = own.st_dev == pinned.st_dev && own.st_ino == pinned.st_ino;
	close(pin);
	return r;
}

/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel.h"
#include "sys.h"

static struct kn_features features;
static atomic_int probed;

/*
 * Each probe makes a call that cannot succeed in a harmful way; only
 * ENOSYS (no such call, or a seccomp filter saying so) turns a feature off.
 * RHEL 8's 4.18 answers ENOSYS to all four.
 */
static void probe(void)
{
	struct kn_open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC};
	long r;

	r = syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));
	features.openat2 = r >= 0 || errno != ENOSYS;
	if (r >= 0)
		close((int)r);

	r = syscall(SYS_open_tree, -1, "", 0);
	features.open_tree = !(r < 0 && errno == ENOSYS);
	if (r >= 0)
		close((int)r);
	if (features.open_tree) {
		r = syscall(SYS_move_mount, -1, "", -1, "", 0);
		features.open_tree = !(r < 0 && errno == ENOSYS);
	}

	r = syscall(SYS_fsopen, "tmpfs", KN_FSOPEN_CLOEXEC);
	features.fsopen = !(r < 0 && errno == ENOSYS);
	if (r >= 0)
		close((int)r);
	features.fsopen = features.fsopen && features.open_tree;

	r = syscall(SYS_mount_setattr, -1, "", 0, NULL, 0);
	features.mount_setattr = !(r < 0 && errno == ENOSYS);
}

const struct kn_features *kn_features(void)
{
	if (!atomic_load(&probed)) {
		probe();
		atomic_store(&probed, 1);
	}
	return &features;
}

void kn_features_disable_all(void)
{
	features = (struct kn_features){0};
	atomic_store(&probed, 1);
}

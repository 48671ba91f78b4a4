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

static atomic_bool lost[_KN_FEATURE_MAX];

static bool probed_value(enum kn_feature f)
{
	switch (f) {
	case KN_FEATURE_OPENAT2:
		return features.openat2;
	case KN_FEATURE_OPEN_TREE:
		return features.open_tree;
	case KN_FEATURE_FSOPEN:
		return features.fsopen;
	case KN_FEATURE_MOUNT_SETATTR:
		return features.mount_setattr;
	default:
		return false;
	}
}

/*
 * A session is a fresh process: probing every call up front would cost it
 * a handful of system calls that the real calls answer just as well.
 */
bool kn_feature_try(enum kn_feature f)
{
	if ((unsigned)f >= _KN_FEATURE_MAX || atomic_load(&lost[f]))
		return false;
	return atomic_load(&probed) ? probed_value(f) : true;
}

void kn_feature_lost(enum kn_feature f)
{
	if ((unsigned)f < _KN_FEATURE_MAX)
		atomic_store(&lost[f], true);
}

void kn_features_disable_all(void)
{
	features = (struct kn_features){0};
	atomic_store(&probed, 1);
}

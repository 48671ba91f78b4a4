/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * The unshare(2) contract the module relies on, asserted on the running
 * kernel: only known flags, success when nothing was shared, EPERM without
 * CAP_SYS_ADMIN, nothing changed by a failed call, mount isolation in both
 * directions for private and shared /, the per-thread behaviour of
 * CLONE_NEWNS, and unshare racing execve and exit. kernel/README.md says
 * why each of these matters.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel.h"
#include "kt.h"

static long sys_unshare(unsigned long flags)
{
	return syscall(SYS_unshare, flags);
}

/* Drop CAP_SYS_ADMIN from this thread's effective and permitted sets, staying uid 0. */
static void drop_cap_sys_admin(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];

	KT_ASSERT_OK(syscall(SYS_capget, &h, d));
	d[CAP_SYS_ADMIN / 32].effective &= ~(1u << (CAP_SYS_ADMIN % 32));
	d[CAP_SYS_ADMIN / 32].permitted &= ~(1u << (CAP_SYS_ADMIN % 32));
	d[CAP_SYS_ADMIN / 32].inheritable &= ~(1u << (CAP_SYS_ADMIN % 32));
	KT_ASSERT_OK(syscall(SYS_capset, &h, d));
}

static char *cwd_now(void)
{
	char *c = getcwd(NULL, 0);

	KT_ASSERT_MSG(c, "getcwd: %s", strerror(errno));
	return c;
}

/* ---- flags ---- */

KT_TEST(unknown_flags_rejected)
{
	static const unsigned long bad[] = {
		CLONE_VFORK,
		CLONE_PARENT,
		CLONE_PTRACE,
		CLONE_SETTLS,
		CLONE_PARENT_SETTID,
		CLONE_CHILD_SETTID,
		CLONE_UNTRACED,
		0x11 /* CSIGNAL bits: SIGCHLD */,
		1ul << 32 /* CLONE_CLEAR_SIGHAND: clone3 only */,
		1ul << 63,
	};
	ino_t ns = kt_self_ns();

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		KT_ASSERT_ERRNO(sys_unshare(bad[i]), EINVAL);
		/* A known flag beside an unknown one: still refused, and not half done. */
		KT_ASSERT_ERRNO(sys_unshare(CLONE_NEWNS | bad[i]), EINVAL);
		KT_ASSERT_EQ(kt_self_ns(), ns);
	}
}

KT_TEST(zero_flags_is_a_no_op)
{
	ino_t ns = kt_self_ns();

	KT_ASSERT_OK(unshare(0));
	KT_ASSERT_EQ(kt_self_ns(), ns);
}

/*
 * The 2005 rule kept today: a flag for something that is not shared is a
 * successful no-op, even for the flags unshare cannot really undo (VM,
 * SIGHAND, THREAD) - in a single-threaded process nothing is shared.
 */
KT_TEST(nothing_shared_succeeds)
{
	static const int flags[] = {CLONE_FS,
				    CLONE_FILES,
				    CLONE_SIGHAND,
				    CLONE_VM,
				    CLONE_THREAD,
				    CLONE_SYSVSEM,
				    CLONE_VM | CLONE_SIGHAND | CLONE_THREAD};
	ino_t ns = kt_self_ns();

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		KT_ASSERT_MSG(unshare(flags[i]) == 0, "unshare(%#x): %s", flags[i],
			      strerror(errno));
		KT_ASSERT_EQ(kt_self_ns(), ns);
	}
}

/*
 * The mount namespace is the exception: since the nsproxy rework every
 * unshare(CLONE_NEWNS) makes a new namespace, shared or not (the 2005
 * patch skipped the copy when the namespace had one user).
 */
KT_TEST(newns_twice_makes_two_namespaces)
{
	/* Held open: a namespace's inode number is reused as soon as it is freed. */
	int a = open("/proc/thread-self/ns/mnt", O_RDONLY | O_CLOEXEC), b, c;

	KT_ASSERT_OK(a);
	KT_ASSERT_OK(unshare(CLONE_NEWNS));
	b = open("/proc/thread-self/ns/mnt", O_RDONLY | O_CLOEXEC);
	KT_ASSERT_OK(b);
	KT_ASSERT_OK(unshare(CLONE_NEWNS));
	c = open("/proc/thread-self/ns/mnt", O_RDONLY | O_CLOEXEC);
	KT_ASSERT_OK(c);
	KT_ASSERT_KN(kn_ns_same(a, b), 0);
	KT_ASSERT_KN(kn_ns_same(b, c), 0);
	KT_ASSERT_KN(kn_ns_same(a, c), 0);
	close(a);
	close(b);
	close(c);
}

/* ---- privilege ---- */

KT_TEST(eperm_without_cap_sys_admin)
{
	ino_t ns = kt_self_ns();
	int fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);

	KT_ASSERT_OK(fd);
	drop_cap_sys_admin();
	KT_ASSERT_EQ(geteuid(), 0);
	KT_ASSERT_ERRNO(unshare(CLONE_NEWNS), EPERM);
	/* The flags are checked before the privilege. */
	KT_ASSERT_ERRNO(sys_unshare(CLONE_NEWNS | CLONE_VFORK), EINVAL);
	/* Flags that need no privilege still work. */
	KT_ASSERT_OK(unshare(CLONE_FS | CLONE_FILES));
	KT_ASSERT_ERRNO(setns(fd, CLONE_NEWNS), EPERM);
	KT_ASSERT_EQ(kt_self_ns(), ns);
	close(fd);
}

KT_TEST(eperm_as_nobody)
{
	ino_t ns = kt_self_ns();

	KT_ASSERT_OK(setgroups(0, NULL));
	KT_ASSERT_OK(setgid(65534));
	KT_ASSERT_OK(setuid(65534));
	KT_ASSERT_ERRNO(unshare(CLONE_NEWNS), EPERM);
	KT_ASSERT_EQ(kt_self_ns(), ns);
}

static int userns_child(void *p)
{
	char *line;

	KT_ASSERT_OK(setgroups(0, NULL));
	KT_ASSERT_OK(setgid(65534));
	KT_ASSERT_OK(setuid(65534));
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		return 77;
	line = kt_mount_at("/");
	KT_ASSERT(line);
	KT_ASSERT_MSG(strstr(line, " master:") && !strstr(line, " shared:"), "/ in the copy: %s",
		      line);
	free(line);
	return 0;
}

/*
 * Where unprivileged user namespaces are allowed, a user can have a mount
 * namespace of their own - but the copy is made with CL_SHARED_TO_SLAVE:
 * nothing they mount can propagate back into the parent's peer groups.
 * (The parent must stay in the original namespace: a namespace whose last
 * member leaves is torn down, and its slaves lose their master.)
 */
KT_TEST(userns_copy_turns_shared_into_slave)
{
	int status;

	KT_ASSERT_OK(mount(NULL, "/", NULL, MS_REC | MS_SHARED, NULL));
	status = kt_run_child(userns_child, NULL);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
		kt_skip("unprivileged user namespaces are off here");
	KT_ASSERT_EQ(status, 0);
}

/* ---- a failed call changes nothing ---- */

struct fs_watch {
	struct kt_sync go, done;
	char *cwd;
	ino_t ns;
	atomic_bool stop;
};

/*
 * A second thread that reports its cwd and namespace each time it is
 * asked, until told to stop: w lives on the test's stack, so the thread
 * must be gone before the test returns (a thread still reading w's pipe
 * numbers from a stack reused after the return once read a closed
 * descriptor and failed the test under ASan).
 */
static void *watch_thread(void *p)
{
	struct fs_watch *w = p;

	for (;;) {
		kt_sync_wait(&w->go);
		if (atomic_load(&w->stop))
			return NULL;
		free(w->cwd);
		w->cwd = cwd_now();
		w->ns = kt_self_ns();
		kt_sync_post(&w->done);
	}
	return NULL;
}

static void ask(struct fs_watch *w)
{
	kt_sync_post(&w->go);
	kt_sync_wait(&w->done);
}

/*
 * unshare() builds every copy first and commits only when all succeeded
 * (the 2005 design, still the shape of ksys_unshare): so a refused
 * CLONE_NEWNS must leave the fs_struct shared with the other thread, the
 * namespace, the mount table and the working directory as they were.
 */
KT_TEST(failed_call_changes_nothing)
{
	struct fs_watch w = {0};
	unsigned mounts = kt_count_mounts();
	ino_t ns = kt_self_ns();
	pthread_t t;

	kt_mkdir(KT_DIR "/a", 0755, 0, 0);
	kt_mkdir(KT_DIR "/b", 0755, 0, 0);
	kt_sync_init(&w.go);
	kt_sync_init(&w.done);
	KT_ASSERT_EQ(pthread_create(&t, NULL, watch_thread, &w), 0);

	/* EINVAL: an unknown flag beside CLONE_NEWNS. */
	KT_ASSERT_ERRNO(sys_unshare(CLONE_NEWNS | CLONE_VFORK), EINVAL);
	KT_ASSERT_OK(chdir(KT_DIR "/a"));
	ask(&w);
	KT_ASSERT_MSG(strcmp(w.cwd, KT_DIR "/a") == 0, "fs no longer shared: thread in %s", w.cwd);
	KT_ASSERT_EQ(w.ns, ns);

	/* EINVAL: CLONE_VM while another thread shares the address space. */
	KT_ASSERT_ERRNO(unshare(CLONE_NEWNS | CLONE_VM), EINVAL);
	KT_ASSERT_OK(chdir(KT_DIR));
	ask(&w);
	KT_ASSERT_MSG(strcmp(w.cwd, KT_DIR) == 0, "fs no longer shared: thread in %s", w.cwd);

	/* EPERM: capabilities are per thread, so drop CAP_SYS_ADMIN in this one only. */
	drop_cap_sys_admin();
	KT_ASSERT_ERRNO(unshare(CLONE_NEWNS), EPERM);
	KT_ASSERT_OK(chdir(KT_DIR "/b"));
	ask(&w);
	KT_ASSERT_MSG(strcmp(w.cwd, KT_DIR "/b") == 0, "fs no longer shared: thread in %s", w.cwd);
	KT_ASSERT_EQ(w.ns, ns);
	KT_ASSERT_EQ(kt_self_ns(), ns);
	KT_ASSERT_EQ(kt_count_mounts(), mounts);
	atomic_store(&w.stop, true);
	kt_sync_post(&w.go);
	KT_ASSERT_EQ(pthread_join(t, NULL), 0);
	free(w.cwd);
}

/* ---- isolation ---- */

struct iso {
	struct kt_sync to_child, to_parent;
	enum { ISO_RAW, ISO_SLAVE, ISO_PRIVATE } how;
	bool expect_in;	 /* the parent's mount is seen inside */
	bool expect_out; /* the child's mount is seen outside */
};

static int iso_child(void *p)
{
	struct iso *s = p;
	char *m;
	int r = 0;

	if (s->how == ISO_RAW)
		r = unshare(CLONE_NEWNS) < 0 ? -errno : 0;
	else
		r = kn_ns_enter_new(s->how == ISO_SLAVE ? KN_PROPAGATION_SLAVE
							: KN_PROPAGATION_PRIVATE);
	KT_ASSERT_KN(r, 0);
	kt_sync_post(&s->to_parent); /* entered */
	kt_sync_wait(&s->to_child);  /* the parent has mounted on b */
	m = kt_mount_at(KT_DIR "/b");
	KT_ASSERT_MSG((m != NULL) == s->expect_in, "parent's mount %s inside",
		      m ? "seen" : "not seen");
	free(m);
	kt_tmpfs(KT_DIR "/a", "mode=0700");
	kt_sync_post(&s->to_parent); /* mounted on a */
	kt_sync_wait(&s->to_child);  /* checked: may exit */
	return 0;
}

static void isolation(bool shared_root, int how, bool expect_in, bool expect_out)
{
	struct iso s = {.how = how, .expect_in = expect_in, .expect_out = expect_out};
	char *m;
	pid_t pid;
	int status;

	kt_mkdir(KT_DIR "/a", 0755, 0, 0);
	kt_mkdir(KT_DIR "/b", 0755, 0, 0);
	if (shared_root)
		KT_ASSERT_OK(mount(NULL, "/", NULL, MS_REC | MS_SHARED, NULL));
	kt_sync_init(&s.to_child);
	kt_sync_init(&s.to_parent);
	pid = fork();
	KT_ASSERT_OK(pid);
	if (pid == 0)
		_exit(iso_child(&s));
	kt_sync_wait(&s.to_parent);
	kt_tmpfs(KT_DIR "/b", "mode=0700");
	kt_sync_post(&s.to_child);
	kt_sync_wait(&s.to_parent);
	m = kt_mount_at(KT_DIR "/a");
	KT_ASSERT_MSG((m != NULL) == s.expect_out, "child's mount %s outside",
		      m ? "seen" : "not seen");
	free(m);
	kt_sync_post(&s.to_child);
	status = kt_wait(pid, 30);
	KT_ASSERT_MSG(status == 0, "child failed (status %#x)", status);
}

KT_TEST(private_root_isolated_both_ways)
{
	isolation(false, ISO_RAW, false, false);
}

KT_TEST(private_root_enter_new_slave_isolated)
{
	isolation(false, ISO_SLAVE, false, false);
}

/* The reason for the slave step: a bare unshare() under a shared / leaks mounts out. */
KT_TEST(shared_root_bare_unshare_leaks_both_ways)
{
	isolation(true, ISO_RAW, true, true);
}

KT_TEST(shared_root_slave_in_not_out)
{
	isolation(true, ISO_SLAVE, true, false);
}

KT_TEST(shared_root_private_neither_way)
{
	isolation(true, ISO_PRIVATE, false, false);
}

/* ---- threads ---- */

/* The inode of namespace descriptor fd, which is closed; 0 where fd is an error. */
static ino_t ns_ino_of(int fd)
{
	struct stat st;
	ino_t ino = 0;

	if (fd >= 0 && fstat(fd, &st) == 0)
		ino = st.st_ino;
	if (fd >= 0)
		close(fd);
	return ino;
}

struct mt {
	ino_t leader_ns, proc_self_ns, own_ns, saved_ns, after_setns;
	int unshare_err, setns_shared_err, setns_own_err;
	char *cwd_after;
	int leader_ns_fd;
	struct kt_sync ready, go;
};

static void *mt_thread(void *p)
{
	struct mt *m = p;

	/* This thread still shares fs_struct with the leader: setns() must refuse. */
	m->setns_shared_err = setns(m->leader_ns_fd, CLONE_NEWNS) < 0 ? errno : 0;
	m->unshare_err = unshare(CLONE_NEWNS) < 0 ? errno : 0;
	m->own_ns = kt_self_ns();
	m->proc_self_ns = kt_ns_ino("/proc/self/ns/mnt");
	m->saved_ns = ns_ino_of(kn_ns_open_own());
	if (m->unshare_err == 0) {
		kt_tmpfs(KT_DIR "/a", "mode=0700");
		(void)!chdir(KT_DIR "/a");
	}
	kt_sync_post(&m->ready);
	kt_sync_wait(&m->go);
	/* Its fs_struct is its own now: setns() back to the leader's works. */
	m->setns_own_err = setns(m->leader_ns_fd, CLONE_NEWNS) < 0 ? errno : 0;
	m->after_setns = kt_self_ns();
	return NULL;
}

/*
 * unshare(CLONE_NEWNS) implies CLONE_FS, and unshare_fs() copies a shared
 * fs_struct rather than refusing: so in a multithreaded process it
 * succeeds, for the calling thread only. /proc/self is the thread-group
 * leader, so a non-leader must look at /proc/thread-self, and the
 * namespace kn_ns_save() keeps is the calling thread's whether the process
 * has had a second thread (the thread here) or not (the leader first,
 * where it takes /proc/self). CLONE_VM,
 * CLONE_SIGHAND, CLONE_THREAD and CLONE_NEWUSER (which implies
 * CLONE_THREAD) are refused with EINVAL, and setns(CLONE_NEWNS) is refused
 * with EINVAL while fs_struct is shared.
 */
KT_TEST(multithreaded_newns_is_per_thread)
{
	struct mt m = {0};
	char *mnt, *cwd;
	pthread_t t;

	kt_mkdir(KT_DIR "/a", 0755, 0, 0);
	m.leader_ns = kt_self_ns();
	KT_ASSERT_EQ(ns_ino_of(kn_ns_open_own()), m.leader_ns);
	m.leader_ns_fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	KT_ASSERT_OK(m.leader_ns_fd);
	kt_sync_init(&m.ready);
	kt_sync_init(&m.go);
	KT_ASSERT_EQ(pthread_create(&t, NULL, mt_thread, &m), 0);
	kt_sync_wait(&m.ready);

	KT_ASSERT_EQ(m.setns_shared_err, EINVAL);
	KT_ASSERT_EQ(m.unshare_err, 0);
	KT_ASSERT(m.own_ns != m.leader_ns);
	KT_ASSERT_EQ(m.saved_ns, m.own_ns);
	KT_ASSERT_EQ(kt_self_ns(), m.leader_ns);
	KT_ASSERT_EQ(m.proc_self_ns, m.leader_ns);
	mnt = kt_mount_at(KT_DIR "/a");
	KT_ASSERT_MSG(!mnt, "the thread's mount is visible to the leader");
	cwd = cwd_now();
	KT_ASSERT_MSG(strcmp(cwd, KT_DIR) == 0, "leader's cwd moved to %s", cwd);
	free(cwd);

	KT_ASSERT_ERRNO(unshare(CLONE_VM), EINVAL);
	KT_ASSERT_ERRNO(unshare(CLONE_SIGHAND), EINVAL);
	KT_ASSERT_ERRNO(unshare(CLONE_THREAD), EINVAL);
	KT_ASSERT_ERRNO(unshare(CLONE_NEWUSER), EINVAL);
	KT_ASSERT_EQ(kt_self_ns(), m.leader_ns);

	kt_sync_post(&m.go);
	KT_ASSERT_EQ(pthread_join(t, NULL), 0);
	KT_ASSERT_EQ(m.setns_own_err, 0);
	KT_ASSERT_EQ(m.after_setns, m.leader_ns);
	close(m.leader_ns_fd);
}

/* ---- execve and exit ---- */

int kt_exec_helper(int argc, char **argv)
{
	struct stat st;

	if (argc >= 1 && strcmp(argv[0], "print-ns") == 0) {
		if (stat("/proc/self/ns/mnt", &st) < 0)
			return 1;
		printf("%llu\n", (unsigned long long)st.st_ino);
		return 0;
	}
	if (argc >= 2 && strcmp(argv[0], "exit") == 0)
		return atoi(argv[1]);
	return 2;
}

/* A namespace belongs to the task, not the program: execve keeps it. */
KT_TEST(execve_keeps_the_namespace)
{
	char buf[64] = "";
	int p[2], status;
	ssize_t n;
	pid_t pid;

	KT_ASSERT_OK(pipe(p));
	pid = fork();
	KT_ASSERT_OK(pid);
	if (pid == 0) {
		char ino[32];

		if (unshare(CLONE_NEWNS) < 0)
			_exit(3);
		snprintf(ino, sizeof(ino), "%llu\n", (unsigned long long)kt_self_ns());
		(void)!write(p[1], ino, strlen(ino));
		dup2(p[1], STDOUT_FILENO);
		execl("/proc/self/exe", kt_self_exe, "--exec-helper", "print-ns", (char *)NULL);
		_exit(4);
	}
	close(p[1]);
	status = kt_wait(pid, 30);
	KT_ASSERT_EQ(status, 0);
	for (size_t off = 0; off < sizeof(buf) - 1; off += (size_t)n) {
		n = read(p[0], buf + off, sizeof(buf) - 1 - off);
		KT_ASSERT(n >= 0);
		if (n == 0)
			break;
	}
	close(p[0]);
	{
		unsigned long long before, after;

		KT_ASSERT_EQ(sscanf(buf, "%llu %llu", &before, &after), 2);
		KT_ASSERT_EQ(before, after);
		KT_ASSERT(after != (unsigned long long)kt_self_ns());
	}
}

enum race_end { RACE_EXECVE, RACE_EXIT_GROUP, RACE_THREAD_EXIT };

struct race {
	bool execve;
	atomic_int stop;
	atomic_int rounds;
};

static struct race race_state;

static void *race_unsharer(void *p)
{
	long idx = (long)p;
	char dir[64];
	ino_t last = 0;

	snprintf(dir, sizeof(dir), KT_DIR "/r%ld", idx);
	while (!atomic_load(&race_state.stop)) {
		ino_t now;

		if (unshare(CLONE_NEWNS) < 0)
			_exit(10);
		now = kt_self_ns();
		if (now == last)
			_exit(11);
		last = now;
		/* A mount in a thread's own namespace: torn down when it is replaced. */
		if (mount("kt", dir, "tmpfs", 0, "size=64k") < 0)
			_exit(12);
		atomic_fetch_add(&race_state.rounds, 1);
	}
	return NULL;
}

static void *race_fs_unsharer(void *p)
{
	while (!atomic_load(&race_state.stop)) {
		if (unshare(CLONE_FS | CLONE_FILES) < 0)
			_exit(13);
	}
	return NULL;
}

/* A short-lived thread: a few unshares of its own, then it exits. */
static void *race_short(void *p)
{
	for (int i = 0; i < 20; i++)
		if (unshare(i % 5 ? CLONE_FS | CLONE_FILES : CLONE_NEWNS) < 0)
			_exit(15);
	return NULL;
}

static void *race_thread_exit(void *p)
{
	/* Threads that come and go while the others unshare. */
	while (!atomic_load(&race_state.stop)) {
		pthread_t t;

		int e = pthread_create(&t, NULL, race_short, NULL);

		/*
		 * While another thread is in execve(), fs->in_exec makes a
		 * new CLONE_FS thread fail with EAGAIN (copy_fs()).
		 */
		if (e == EAGAIN && race_state.execve) {
			sched_yield();
			continue;
		}
		if (e != 0)
			_exit(14);
		pthread_join(t, NULL);
	}
	return NULL;
}

/*
 * One process with several threads unsharing (each makes and drops
 * namespaces and mounts), while one thread ends it all by execve() or
 * exit_group(), or threads come and go. The 2006 test plan's
 * "concurrent execution" case: no oops, no hang, the expected exit status.
 */
static int race_process(void *p)
{
	enum race_end end = (enum race_end)(long)p;
	pthread_t t[8];
	long i;

	race_state.execve = end == RACE_EXECVE;
	for (i = 0; i < 8; i++) {
		char dir[64];

		snprintf(dir, sizeof(dir), KT_DIR "/r%ld", i);
		(void)mkdir(dir, 0755);
	}
	for (i = 0; i < 5; i++)
		if (pthread_create(&t[i], NULL, race_unsharer, (void *)i) != 0)
			return 20;
	if (pthread_create(&t[5], NULL, race_fs_unsharer, NULL) != 0)
		return 20;
	if (pthread_create(&t[6], NULL, race_thread_exit, NULL) != 0)
		return 20;
	while (atomic_load(&race_state.rounds) < 50)
		usleep(100);
	switch (end) {
	case RACE_EXECVE:
		execl("/proc/self/exe", kt_self_exe, "--exec-helper", "exit", "42", (char *)NULL);
		return 21;
	case RACE_EXIT_GROUP:
		_exit(43);
	case RACE_THREAD_EXIT:
		atomic_store(&race_state.stop, 1);
		for (i = 0; i < 7; i++)
			pthread_join(t[i], NULL);
		return 44;
	}
	return 22;
}

KT_TEST_TIMEOUT(threads_racing_unshare_execve_exit, 240)
{
	static const struct {
		enum race_end end;
		int want;
	} cases[] = {{RACE_EXECVE, 42}, {RACE_EXIT_GROUP, 43}, {RACE_THREAD_EXIT, 44}};
	uint64_t start = kt_now_us();
	unsigned rounds = 0;

	/* As many rounds as fit in a few seconds (far fewer under emulation). */
	do {
		for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
			int status = kt_run_child(race_process, (void *)(long)cases[c].end);

			KT_ASSERT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == cases[c].want,
				      "round %u case %zu: status %#x, wanted exit %d", rounds, c,
				      status, cases[c].want);
		}
		rounds++;
	} while (kt_now_us() - start < 3000000 && rounds < 50);
	kt_note("%u rounds of each ending", rounds);
}

/* ---- the cost of the copy ---- */

static int time_unshare(void *p)
{
	uint64_t *out = p, t0 = kt_now_us();

	if (unshare(CLONE_NEWNS) < 0)
		return 1;
	*out = kt_now_us() - t0;
	return 0;
}

/*
 * unshare(CLONE_NEWNS) copies the whole mount tree under namespace_sem:
 * its cost grows with the number of mounts. Reported, not asserted (a
 * timing on a shared machine is no pass/fail criterion); what is asserted
 * is that the copy is complete.
 */
KT_TEST_TIMEOUT(newns_copies_every_mount, 180)
{
	static const unsigned sizes[] = {0, 100, 1000};
	unsigned made = 0, base = kt_count_mounts();

	kt_mkdir(KT_DIR "/m", 0755, 0, 0);
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		uint64_t best = UINT64_MAX;
		uint64_t *shared;

		for (; made < sizes[s]; made++) {
			char dir[64];

			snprintf(dir, sizeof(dir), KT_DIR "/m/%u", made);
			kt_mkdir(dir, 0755, 0, 0);
			kt_tmpfs(dir, "size=16k");
		}
		shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		KT_ASSERT(shared != MAP_FAILED);
		for (int rep = 0; rep < 5; rep++) {
			KT_ASSERT_EQ(kt_run_child(time_unshare, shared), 0);
			if (*shared < best)
				best = *shared;
		}
		munmap(shared, sizeof(*shared));
		kt_note("%u mounts: unshare(CLONE_NEWNS) took %llu us (best of 5)", base + made,
			(unsigned long long)best);
	}
	KT_ASSERT_OK(unshare(CLONE_NEWNS));
	KT_ASSERT_EQ(kt_count_mounts(), base + made);
}

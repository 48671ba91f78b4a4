/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * share_namespace's store (store.h): the instance key that names a pin and
 * the state file written beside it (its format and what the pinned
 * namespace holds). No locking here: callers hold the user's lock
 * (records.c), or only read.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel.h"
#include "session.h"
#include "util.h"
#include "store.h"

/*
 * The format of the state file and the session records beside it, said on
 * the state's first line ("pam_namespace-share N"). Records carry no number
 * of their own: a record is only ever read next to a state of a format that
 * knows it. A module joins a pin whose state is of a format from
 * NS_SHARE_FORMAT_MIN to its own, and writes its record as that format
 * does; a state of any other format belongs to sessions of another build
 * (an upgrade with users logged in), which it leaves to them: the session
 * gets a namespace of its own. A format that cannot be joined bumps
 * NS_SHARE_GENERATION too, which is part of the key, so that the files of
 * the two never share a name. -D defines in a second build prove it
 * (tests/integration/test_share_attacks.sh, and the later .debs of
 * tests/boot/upgrade.py). Every format keeps format 1's lines (ns, root,
 * user, polydir, tmpdir) as they are, adding lines of its own, so that
 * any release can drop another's pin whole, its tmpdir instances with it
 * (ns_share_state_read_other): user@.service's ExecStopPost runs the
 * installed release's pam_namespace_check on the pins of sessions that an
 * older one opened.
 */
#ifndef NS_SHARE_FORMAT
#define NS_SHARE_FORMAT 1
#endif
#ifndef NS_SHARE_FORMAT_MIN
#define NS_SHARE_FORMAT_MIN 1
#endif
#ifndef NS_SHARE_GENERATION
#define NS_SHARE_GENERATION 1
#endif
#define STATE_MAGIC "pam_namespace-share "
#define STATE_MAX   (1024 * 1024)

/* ------------------------------------------------------------ the key */

/*
 * FNV-1a, 128 bits (the FNV specification's offset basis and prime): the
 * key names files and is no secret. What selects a pin is decided by the
 * administrator's configuration and the user's entry, which no user can
 * steer towards a collision, and a pin is only ever shared by sessions of
 * one uid. Computed here, not with libmd: loading a library costs a
 * joining session more than all the rest of its work.
 */
static void fnv1a128_hex(const char *data, size_t len, char out[33])
{
	static const char hex[] = "0123456789abcdef";
	uint64_t hi = 0x6c62272e07bb0142ULL, lo = 0x62b821756295c58dULL;

	for (size_t i = 0; i < len; i++) {
		/* h *= 2^88 + 0x13b, in two 64-bit halves (no __int128 on 32-bit targets) */
		uint64_t a, b, nlo;

		lo ^= (unsigned char)data[i];
		a = (lo & 0xffffffffULL) * 0x13b;
		b = (lo >> 32) * 0x13b;
		nlo = a + (b << 32);
		hi = hi * 0x13b + (b >> 32) + (nlo < a) + (lo << 24);
		lo = nlo;
	}
	for (int i = 15; i >= 0; i--, lo >>= 4)
		out[16 + i] = hex[lo & 0xf];
	for (int i = 15; i >= 0; i--, hi >>= 4)
		out[i] = hex[hi & 0xf];
	out[32] = '\0';
}

/*
 * The key's text: every field of the plan entry, the user and the apply
 * options, each as "NAME=VALUE" or, for a NULL string, "NAME", ended by a
 * NUL, so that no value can run into the next and NULL differs from "".
 * Only what says nothing of what is mounted is left out, by name below.
 *
 * One serializer for all of it, so that a field the plan gains cannot be
 * left out of the key (issue 31, point 2: the mount flags, quota= and
 * share= of extended lines were, and their sessions joined a namespace
 * made without them). The _Static_asserts tie it to the structs' sizes on
 * LP64: a field added to struct ns_plan_entry, ns_user or ns_apply_opts
 * fails the build until it is written here and the size updated.
 * tests/unit/test_share.c changes every field a line can set and wants a
 * new key each time.
 */
#if __SIZEOF_POINTER__ == 8 && __SIZEOF_LONG__ == 8
_Static_assert(sizeof(struct ns_plan_entry) == 144,
	       "a field of struct ns_plan_entry changed: serialize it in key_entry()");
_Static_assert(sizeof(struct ns_user) == 32,
	       "a field of struct ns_user changed: serialize it in ns_share_key()");
_Static_assert(sizeof(struct ns_apply_opts) == 64,
	       "a field of struct ns_apply_opts changed: serialize it in ns_share_key()");
#endif

static void key_str(FILE *f, const char *name, const char *value)
{
	if (value)
		fprintf(f, "%s=%s%c", name, value, 0);
	else
		fprintf(f, "%s%c", name, 0);
}

static void key_num(FILE *f, const char *name, unsigned long long value)
{
	fprintf(f, "%s=%llu%c", name, value, 0);
}

/*
 * Left out: e->rule, which names the file and line for messages (a line
 * moved to another file mounts the same).
 */
static void key_entry(FILE *f, const struct ns_plan_entry *e)
{
	key_num(f, "method", (unsigned long long)e->method);
	key_str(f, "polydir", e->polydir);
	key_str(f, "instance", e->instance);
	key_str(f, "instance_parent", e->instance_parent);
	key_str(f, "instance_name", e->instance_name);
	key_str(f, "instance_context", e->instance_context);
	key_num(f, "create_polydir", e->create_polydir);
	key_num(f, "create_mode", e->create_mode);
	key_num(f, "create_uid", e->create_uid);
	key_num(f, "create_gid", e->create_gid);
	key_str(f, "init_script", e->init_script);
	key_str(f, "mntopts", e->mntopts);
	key_num(f, "mount_flags", e->mount_flags);
	key_num(f, "attr_flags", e->attr_flags);
	key_num(f, "n_shares", e->n_shares);
	for (size_t i = 0; i < e->n_shares; i++)
		key_str(f, "share", e->shares[i]);
	key_num(f, "ignore_parent_mode", e->ignore_parent_mode);
	key_num(f, "quota", e->quota);
	key_num(f, "quota_uid", e->quota_uid);
	key_num(f, "quota_bytes", e->quota_bytes);
	key_num(f, "quota_inodes", e->quota_inodes);
}

/*
 * Left out of the options: debug (logging), init_timeout (how long a build
 * may wait, not what it mounts), user and uid (user's name and uid again:
 * the check tool, which keys a plan as the module does, has no session to
 * pass), mark_tmpdirs (a plain session's markers; a pinned build has none),
 * saved, commit and commit_userdata (this call's own).
 */
int ns_share_key(const struct ns_plan *plan, const struct ns_user *user,
		 const struct ns_apply_opts *opts, long orig_uid, char out[33])
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return -ENOMEM;
	if (NS_SHARE_GENERATION != 1)
		key_num(f, "generation", NS_SHARE_GENERATION);
	key_str(f, "user", user->name);
	key_num(f, "uid", user->uid);
	key_num(f, "gid", user->gid);
	key_str(f, "home", user->home);
	key_str(f, "context", user->context);
	fprintf(f, "orig=%ld%c", orig_uid, 0);
	key_num(f, "mount_private", opts->mount_private);
	key_num(f, "ignore_instance_parent_mode", opts->ignore_instance_parent_mode);
	key_num(f, "n_unmount_first", opts->n_unmount_first);
	for (size_t i = 0; i < opts->n_unmount_first; i++)
		key_str(f, "unmount", opts->unmount_first[i]);
	key_num(f, "n_entries", plan->n_entries);
	for (size_t i = 0; i < plan->n_entries; i++)
		key_entry(f, &plan->entries[i]);
	if (fclose(f) != 0) {
		free(text);
		return -ENOMEM;
	}
	fnv1a128_hex(text, len, out);
	free(text);
	return 0;
}

/* ------------------------------------------------------------ the state file */

void ns_share_state_free(struct ns_share_state *st)
{
	free(st->user);
	for (size_t i = 0; i < st->n_polydirs; i++)
		free(st->polydirs[i]);
	free(st->polydirs);
	for (size_t i = 0; i < st->n_tmpdirs; i++) {
		free(st->tmpdirs[i].parent);
		free(st->tmpdirs[i].name);
	}
	free(st->tmpdirs);
	free(st->sessions);
	*st = (struct ns_share_state){0};
}

/*
 * The bytes state_put() writes as they are, by value: the locale of the
 * process reading (isspace() and iscntrl() take 0x85 or 0xa0 for a blank
 * or a control in some) must not refuse what the writer wrote.
 */
static bool plain_byte(unsigned char c)
{
	return c > ' ' && c != 0x7f;
}

static bool word_ok(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!plain_byte((unsigned char)*s))
			return false;
	return true;
}

/*
 * One rule for every name and path in the state (issue 31, point 13): a
 * byte that would end its field or line (a blank, a control character)
 * and the backslash are written \ooo, as /proc/mounts writes them; every
 * other byte as it is. The reader takes \ooo back and any other backslash
 * as itself, so that a state of an earlier release, written without
 * escapes, reads as it was written. A user whose name has a space (which
 * ns_user_name_valid() allows) then shares like anyone; before, the state
 * was written with the blank and refused by its reader, and the pin stayed.
 */
static void state_put(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (!plain_byte(*p) || *p == '\\')
			fprintf(f, "\\%03o", *p);
		else
			fputc(*p, f);
}

static bool is_odigit(char c)
{
	return c >= '0' && c <= '7';
}

/* In place; false for what no writer makes: a blank or control, an escaped NUL. */
static bool state_get(char *s)
{
	char *w = s;

	if (!word_ok(s))
		return false;
	for (char *p = s; *p; p++) {
		if (p[0] == '\\' && is_odigit(p[1]) && is_odigit(p[2]) && is_odigit(p[3]) &&
		    p[1] <= '3') {
			*w = (char)(((p[1] - '0') << 6) | ((p[2] - '0') << 3) | (p[3] - '0'));
			if (*w++ == '\0')
				return false;
			p += 3;
		} else {
			*w++ = *p;
		}
	}
	*w = '\0';
	return true;
}

/* The last component of a tmpdir instance: a name under its parent, never "." or "..". */
static bool tmpdir_name_ok(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

static int parse_line(struct ns_share_state *st, char *line)
{
	char *sp = strchr(line, ' ');
	char *arg, *arg2;

	if (!sp)
		return -EBADMSG;
	*sp = '\0';
	arg = sp + 1;
	if (strcmp(line, "ns") == 0 || strcmp(line, "root") == 0) {
		unsigned long long dev, ino;

		if (sscanf(arg, "%llu %llu", &dev, &ino) != 2)
			return -EBADMSG;
		if (line[0] == 'n') {
			st->dev = (dev_t)dev;
			st->ino = (ino_t)ino;
		} else {
			st->root_dev = (dev_t)dev;
			st->root_ino = (ino_t)ino;
		}
	} else if (strcmp(line, "user") == 0 && !st->user && state_get(arg)) {
		st->user = strdup(arg);
		if (!st->user)
			return -ENOMEM;
	} else if (strcmp(line, "polydir") == 0 && state_get(arg)) {
		if (ns_grow(&st->polydirs, st->n_polydirs, sizeof(*st->polydirs)) < 0)
			return -ENOMEM;
		st->polydirs[st->n_polydirs] = strdup(arg);
		if (!st->polydirs[st->n_polydirs++])
			return -ENOMEM;
	} else if (strcmp(line, "tmpdir") == 0) {
		arg2 = strchr(arg, ' ');
		if (!arg2)
			return -EBADMSG;
		*arg2++ = '\0';
		if (!state_get(arg) || !state_get(arg2) || arg[0] != '/' || !tmpdir_name_ok(arg2))
			return -EBADMSG;
		if (ns_grow(&st->tmpdirs, st->n_tmpdirs, sizeof(*st->tmpdirs)) < 0)
			return -ENOMEM;
		st->tmpdirs[st->n_tmpdirs] =
			(struct ns_share_tmpdir){.parent = strdup(arg), .name = strdup(arg2)};
		if (!st->tmpdirs[st->n_tmpdirs++].parent || !st->tmpdirs[st->n_tmpdirs - 1].name)
			return -ENOMEM;
	} else {
		return -EBADMSG;
	}
	return 0;
}

char *share_file_name(const char *base, const char *suffix)
{
	char *s;

	if (asprintf(&s, "%s%s", base, suffix) < 0)
		return NULL;
	return s;
}

/* The first line: -EBADMSG if it is none of ours, -EPROTO if of a format this build cannot join. */
static int state_magic(const char *line, int *ret_format)
{
	size_t n = strlen(STATE_MAGIC);
	char *end;
	long v;

	if (!line || strncmp(line, STATE_MAGIC, n) != 0 || !isdigit((unsigned char)line[n]))
		return -EBADMSG;
	errno = 0;
	v = strtol(line + n, &end, 10);
	if (*end || errno || v < 1 || v > INT_MAX)
		return -EBADMSG;
	*ret_format = (int)v;
	return v < NS_SHARE_FORMAT_MIN || v > NS_SHARE_FORMAT ? -EPROTO : 0;
}

int share_state_parse(char *text, bool other, struct ns_share_state *ret)
{
	struct ns_share_state st = {0};
	char *line, *save = NULL;
	int format = 0, r;

	line = strtok_r(text, "\n", &save);
	r = state_magic(line, &format);
	if (r == -EPROTO && other)
		r = 0;
	else
		other = false;
	while (r == 0 && (line = strtok_r(NULL, "\n", &save))) {
		r = parse_line(&st, line);
		if (r == -EBADMSG && other)
			r = 0; /* a line of that format's own */
	}
	if (r == 0 && (st.ino == 0 || st.root_ino == 0 || !st.user))
		r = -EBADMSG;
	st.format = format;
	if (r < 0) {
		ns_share_state_free(&st);
		return r;
	}
	*ret = st;
	return 0;
}

static int state_read(int dir_fd, const char *base, bool other, struct ns_share_state *ret)
{
	char *name = share_file_name(base, ".state"), *buf = NULL;
	struct stat s;
	ssize_t n;
	int fd, r;

	if (!name)
		return -ENOMEM;
	fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	free(name);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &s) < 0 || !S_ISREG(s.st_mode) || s.st_uid != 0 || (s.st_mode & 077) ||
	    s.st_nlink != 1 || s.st_size > STATE_MAX) {
		close(fd);
		return -EPERM;
	}
	buf = malloc((size_t)s.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	n = read(fd, buf, (size_t)s.st_size);
	close(fd);
	if (n != s.st_size) {
		free(buf);
		return -EBADMSG;
	}
	buf[n] = '\0';
	/* A NUL inside would hide the rest from the parser: no writer makes one. */
	r = memchr(buf, '\0', (size_t)n) ? -EBADMSG : share_state_parse(buf, other, ret);
	free(buf);
	return r;
}

int ns_share_state_read(int dir_fd, const char *base, struct ns_share_state *ret)
{
	return state_read(dir_fd, base, false, ret);
}

int ns_share_state_read_other(int dir_fd, const char *base, struct ns_share_state *ret)
{
	return state_read(dir_fd, base, true, ret);
}

/*
 * Written beside it and renamed over it: a crash leaves the old state or
 * the new. Not synced: /run is a tmpfs, and a crash of the system takes
 * every namespace with it.
 */
int share_state_format(const struct ns_share_state *st, char **ret_text, size_t *ret_len)
{
	FILE *f = open_memstream(ret_text, ret_len);

	if (!f)
		return -ENOMEM;
	fprintf(f, "%s%d\nns %llu %llu\nroot %llu %llu\nuser ", STATE_MAGIC,
		st->format ? st->format : NS_SHARE_FORMAT, (unsigned long long)st->dev,
		(unsigned long long)st->ino, (unsigned long long)st->root_dev,
		(unsigned long long)st->root_ino);
	state_put(f, st->user ? st->user : "");
	fputc('\n', f);
	for (size_t i = 0; i < st->n_polydirs; i++) {
		fputs("polydir ", f);
		state_put(f, st->polydirs[i]);
		fputc('\n', f);
	}
	for (size_t i = 0; i < st->n_tmpdirs; i++) {
		fputs("tmpdir ", f);
		state_put(f, st->tmpdirs[i].parent);
		fputc(' ', f);
		state_put(f, st->tmpdirs[i].name);
		fputc('\n', f);
	}
	if (fclose(f) != 0) {
		free(*ret_text);
		*ret_text = NULL;
		return -ENOMEM;
	}
	return 0;
}

/*
 * Written beside it and renamed over it: a crash leaves the old state or
 * the new. Not synced: /run is a tmpfs, and a crash of the system takes
 * every namespace with it.
 */
int ns_share_state_write(int dir_fd, const char *base, const struct ns_share_state *st)
{
	char *name = share_file_name(base, ".state"), *tmp = share_file_name(base, ".state.new");
	char *text = NULL;
	size_t len = 0;
	int fd = -1, r = 0;

	if (!name || !tmp) {
		r = -ENOMEM;
		goto out;
	}
	r = share_state_format(st, &text, &len);
	if (r < 0)
		goto out;
	fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST) {
		/* left by a process killed while writing: we hold the lock */
		(void)unlinkat(dir_fd, tmp, 0);
		fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
	}
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	if (write(fd, text, len) != (ssize_t)len)
		r = errno ? -errno : -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && renameat(dir_fd, tmp, dir_fd, name) < 0)
		r = -errno;
	if (r < 0)
		(void)unlinkat(dir_fd, tmp, 0);
out:
	free(text);
	free(name);
	free(tmp);
	return r;
}

/* ------------------------------------------------------------ pins */

char *ns_share_tmpdir_parent(const char *path, const char *name)
{
	size_t len = strlen(path), nlen = strlen(name);
	char *parent;

	/* "PARENT/NAME" with PARENT not empty; a name longer than the path is no part of it */
	if (nlen == 0 || len < nlen + 2 || path[len - nlen - 1] != '/' ||
	    strcmp(path + len - nlen, name) != 0) {
		errno = EINVAL;
		return NULL;
	}
	parent = strndup(path, len - nlen - 1);
	if (!parent)
		errno = ENOMEM;
	return parent;
}

int share_state_from_session(struct ns_share_state *st, const char *user,
			     const struct ns_session *sess, const struct stat *pin)
{
	struct stat root;

	if (stat("/", &root) < 0)
		return -errno;
	st->dev = pin->st_dev;
	st->ino = pin->st_ino;
	st->root_dev = root.st_dev;
	st->root_ino = root.st_ino;
	st->user = strdup(user);
	if (!st->user)
		return -ENOMEM;
	for (size_t i = 0; i < sess->n_polydirs; i++) {
		if (ns_grow(&st->polydirs, st->n_polydirs, sizeof(*st->polydirs)) < 0)
			return -ENOMEM;
		st->polydirs[st->n_polydirs] = strdup(sess->polydirs[i]);
		if (!st->polydirs[st->n_polydirs++])
			return -ENOMEM;
	}
	for (size_t i = 0; i < sess->n_tmpdirs; i++) {
		const struct ns_tmpdir *t = &sess->tmpdirs[i];
		struct ns_share_tmpdir d;

		d.parent = ns_share_tmpdir_parent(t->path, t->name);
		if (!d.parent)
			return errno == ENOMEM ? -ENOMEM : -EINVAL;
		d.name = strdup(t->name);
		if (ns_grow(&st->tmpdirs, st->n_tmpdirs, sizeof(*st->tmpdirs)) < 0) {
			free(d.parent);
			free(d.name);
			return -ENOMEM;
		}
		st->tmpdirs[st->n_tmpdirs++] = d;
		if (!d.parent || !d.name)
			return -ENOMEM;
		if (d.parent[0] != '/' || !tmpdir_name_ok(d.name))
			return -EINVAL;
	}
	return 0;
}

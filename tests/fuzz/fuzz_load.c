/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * Fuzz target for the configuration reader: the bytes describe a small
 * tree, namespace.conf and the files of namespace.d and the vendor's
 * namespace.d, which is written to disk and loaded as the module loads it
 * (ns_config_load: trust checks, listing, the /etc copy hiding the
 * vendor's, the size checks), strictly and with ignore_config_error.
 *
 * The input is text. Up to the first header line is namespace.conf; each
 * header line starts a file of its own until the next:
 *
 *   --- WHERE NAME [MODE] [KIND] [OWNER]
 *
 * WHERE is d (namespace.d), v (the vendor's namespace.d) or vendor (the
 * vendor's namespace.conf, NAME ignored); MODE is octal (default 0644);
 * KIND is file, dir, fifo or link (a symlink to the file's text); OWNER
 * a uid, used when running as root. "--- nomain" drops namespace.conf.
 *
 * Whatever the tree, the load must end in rules or a reported error, and
 * the rules must come from the files the reader promises, in its order:
 * namespace.conf (or the vendor's), then the .conf files of both
 * directories sorted by name, the /etc one hiding a vendor file of the
 * same name.
 *
 * The tree lives in $NS_FUZZ_DIR (default: the current directory). Where
 * the directories above it are not root's, the trust checks would refuse
 * every load: they are then skipped, and said so once.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FILES 16
#define MAX_NAME  64

enum where {
	W_MAIN,
	W_VENDOR_MAIN,
	W_D,
	W_VENDOR_D,
};

struct tree_file {
	enum where where;
	char name[MAX_NAME + 1];
	char *path;
	bool written;
	bool is_dir;
};

static struct {
	char *base, *root, *etc, *vendor, *etc_d, *vendor_d, *main_file, *vendor_file;
	bool trusted;
} tree;

/* Room for MAX_FILES, a link's target and namespace.conf. */
static struct tree_file files[MAX_FILES + 2];
static size_t n_files;

static void die(const char *what)
{
	perror(what);
	abort();
}

static char *path_of(const char *dir, const char *name)
{
	char *s;

	if (asprintf(&s, "%s/%s", dir, name) < 0)
		die("asprintf");
	return s;
}

static void make_dir(const char *path)
{
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		die(path);
}

/* Whether the trust checks can pass at all here: root's tree up to /. */
static bool tree_trusted(const char *dir)
{
	char *d = strdup(dir), *slash;
	bool ok = true;

	if (!d)
		die("strdup");
	for (;;) {
		struct stat st;

		if (stat(d, &st) < 0 || st.st_uid != 0 ||
		    ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))) {
			ok = false;
			break;
		}
		slash = strrchr(d, '/');
		if (!slash || slash == d)
			break;
		*slash = '\0';
	}
	free(d);
	return ok && geteuid() == 0;
}

static void clear_tree(void);

/* At exit: nothing of the tree stays behind. */
static void remove_tree(void)
{
	/* The directories deepest first; the base stays. */
	char *dirs[] = {tree.etc_d, tree.vendor_d, tree.etc, tree.vendor, tree.root};

	clear_tree();
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		rmdir(dirs[i]);
		free(dirs[i]);
	}
	free(tree.main_file);
	free(tree.vendor_file);
	free(tree.base);
	memset(&tree, 0, sizeof(tree));
}

static void setup_tree(void)
{
	const char *base = getenv("NS_FUZZ_DIR");

	tree.base = base && *base ? strdup(base) : getcwd(NULL, 0);
	if (!tree.base)
		die("NS_FUZZ_DIR");
	make_dir(tree.base);
	if (asprintf(&tree.root, "%s/load-%ld", tree.base, (long)getpid()) < 0)
		die("asprintf");
	make_dir(tree.root);
	tree.etc = path_of(tree.root, "etc");
	tree.vendor = path_of(tree.root, "vendor");
	tree.etc_d = path_of(tree.etc, "namespace.d");
	tree.vendor_d = path_of(tree.vendor, "namespace.d");
	tree.main_file = path_of(tree.etc, "namespace.conf");
	tree.vendor_file = path_of(tree.vendor, "namespace.conf");
	make_dir(tree.etc);
	make_dir(tree.vendor);
	make_dir(tree.etc_d);
	make_dir(tree.vendor_d);
	atexit(remove_tree);
	tree.trusted = tree_trusted(tree.etc_d);
	if (!tree.trusted)
		fprintf(stderr,
			"fuzz_load: %s is not root's all the way up (or not running as "
			"root): trust checks skipped\n",
			tree.root);
}

/* Leave the tree as setup_tree made it, for the next input. */
static void clear_tree(void)
{
	for (size_t i = n_files; i-- > 0;)
		if (files[i].written &&
		    unlinkat(AT_FDCWD, files[i].path, files[i].is_dir ? AT_REMOVEDIR : 0) < 0 &&
		    errno != ENOENT)
			die(files[i].path);
	for (size_t i = 0; i < n_files; i++)
		free(files[i].path);
	n_files = 0;
}

static const char *header_field(const char **p, const char *end, size_t *len)
{
	const char *s;

	while (*p < end && **p == ' ')
		(*p)++;
	s = *p;
	while (*p < end && **p != ' ')
		(*p)++;
	*len = (size_t)(*p - s);
	return *len ? s : NULL;
}

static bool field_is(const char *f, size_t len, const char *word)
{
	return f && len == strlen(word) && memcmp(f, word, len) == 0;
}

static int write_all(int fd, const char *text, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, text, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		text += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One header's file, with text as its content. */
static void add_file(const char *hdr, const char *hdr_end, const char *text, size_t len)
{
	const char *p = hdr, *f;
	size_t flen;
	struct tree_file *tf;
	mode_t mode = 0644;
	long owner = -1;
	enum { K_FILE, K_DIR, K_FIFO, K_LINK } kind = K_FILE;
	int fd;

	if (n_files >= MAX_FILES)
		return;
	tf = &files[n_files];
	*tf = (struct tree_file){0};
	f = header_field(&p, hdr_end, &flen);
	if (field_is(f, flen, "d"))
		tf->where = W_D;
	else if (field_is(f, flen, "v"))
		tf->where = W_VENDOR_D;
	else if (field_is(f, flen, "vendor"))
		tf->where = W_VENDOR_MAIN;
	else
		return;
	f = header_field(&p, hdr_end, &flen);
	if (tf->where != W_VENDOR_MAIN) {
		if (!f || flen > MAX_NAME)
			return;
		memcpy(tf->name, f, flen);
		tf->name[flen] = '\0';
		if (strchr(tf->name, '/') || memchr(f, '\0', flen) || strcmp(tf->name, ".") == 0 ||
		    strcmp(tf->name, "..") == 0)
			return;
		f = header_field(&p, hdr_end, &flen);
	}
	while (f) {
		char word[24];

		if (flen < sizeof(word)) {
			memcpy(word, f, flen);
			word[flen] = '\0';
			if (word[0] == '0')
				mode = (mode_t)strtoul(word, NULL, 8) & 07777;
			else if (word[0] >= '1' && word[0] <= '9')
				owner = strtol(word, NULL, 10);
			else if (strcmp(word, "dir") == 0)
				kind = K_DIR;
			else if (strcmp(word, "fifo") == 0)
				kind = K_FIFO;
			else if (strcmp(word, "link") == 0)
				kind = K_LINK;
		}
		f = header_field(&p, hdr_end, &flen);
	}
	tf->path = tf->where == W_VENDOR_MAIN
			   ? strdup(tree.vendor_file)
			   : path_of(tf->where == W_D ? tree.etc_d : tree.vendor_d, tf->name);
	if (!tf->path)
		die("strdup");
	/* A name given twice: the first one stands. */
	for (size_t i = 0; i < n_files; i++)
		if (strcmp(files[i].path, tf->path) == 0) {
			free(tf->path);
			tf->path = NULL;
			return;
		}
	switch (kind) {
	case K_DIR:
		if (mkdir(tf->path, mode) < 0)
			die(tf->path);
		tf->is_dir = true;
		break;
	case K_FIFO:
		if (mkfifo(tf->path, mode) < 0)
			die(tf->path);
		break;
	case K_LINK: {
		/* Links to text outside the directories the reader looks at. */
		char *target;

		if (asprintf(&target, "%s/t%zu", tree.root, n_files) < 0)
			die("asprintf");
		if (symlink(target, tf->path) < 0)
			die(tf->path);
		tf->written = true;
		n_files++;
		tf = &files[n_files];
		*tf = (struct tree_file){.where = W_MAIN, .path = target};
	}
		__attribute__((fallthrough)); /* the link's target holds the text */
	case K_FILE:
		fd = open(tf->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0)
			die(tf->path);
		if (write_all(fd, text, len) < 0 || fchmod(fd, mode) < 0)
			die(tf->path);
		if (owner >= 0 && geteuid() == 0 && fchown(fd, (uid_t)owner, (gid_t)-1) < 0)
			die(tf->path);
		close(fd);
		break;
	}
	tf->written = true;
	n_files++;
}

/* Where a rule's file stands in the order the reader promises. */
static long file_rank(const char *file, bool main_present)
{
	const char *name;

	if (strcmp(file, tree.main_file) == 0)
		return 0;
	if (strcmp(file, tree.vendor_file) == 0)
		return main_present ? -1 : 0; /* only a fallback */
	if (strncmp(file, tree.etc_d, strlen(tree.etc_d)) == 0 && file[strlen(tree.etc_d)] == '/')
		name = file + strlen(tree.etc_d) + 1;
	else if (strncmp(file, tree.vendor_d, strlen(tree.vendor_d)) == 0 &&
		 file[strlen(tree.vendor_d)] == '/') {
		char *path;
		struct stat st;
		bool hidden;

		name = file + strlen(tree.vendor_d) + 1;
		/* Hidden by the /etc file of the same name. */
		path = path_of(tree.etc_d, name);
		hidden = lstat(path, &st) == 0;
		free(path);
		if (hidden)
			return -1;
	} else
		return -1;
	if (name[0] == '.' || strlen(name) <= 5 || strcmp(name + strlen(name) - 5, ".conf") != 0)
		return -1;
	/* Ranks after the main file's 0, in the order of the names. */
	return 1;
}

static void check_order(const struct ns_config *cfg, bool main_present)
{
	const char *last = NULL;

	for (size_t i = 0; i < cfg->n_rules; i++) {
		const struct ns_rule *r = &cfg->rules[i];
		long rank = file_rank(r->file, main_present);

		if (rank < 0 || r->line == 0 || !r->polydir || !r->instance_prefix)
			abort();
		if (last && strcmp(last, r->file) != 0) {
			long last_rank = file_rank(last, main_present);
			const char *a = strrchr(last, '/') + 1, *b = strrchr(r->file, '/') + 1;

			/* Files one after the other, never back: by rank, then by name. */
			if (rank < last_rank || (rank == 1 && last_rank == 1 && strcmp(a, b) >= 0))
				abort();
		}
		last = r->file;
	}
}

static void check_diag(void *userdata, enum ns_severity sev, const char *file, unsigned line,
		       unsigned column, const char *message)
{
	(void)userdata;
	(void)line;
	(void)column;
	if (!message || !*message)
		abort();
	/* A failure of the reader or the parser names the file it is about. */
	if (sev == NS_ERROR && (!file || !*file))
		abort();
}

/* namespace.conf, as one of the files: cleared with them. */
static void add_main(const char *text, size_t len)
{
	struct tree_file *tf = &files[n_files];
	int fd = open(tree.main_file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	if (fd < 0 || write_all(fd, text, len) < 0)
		die(tree.main_file);
	close(fd);
	*tf = (struct tree_file){.where = W_MAIN, .written = true, .path = strdup(tree.main_file)};
	if (!tf->path)
		die("strdup");
	n_files++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	const char *text = (const char *)data, *end = text + size, *line = text;
	const char *hdr = NULL, *hdr_end = NULL, *body = text, *main_end = end;
	bool nomain = false;
	struct stat st;

	if (!ready) {
		setup_tree();
		ready = true;
	}
	/* Line by line: each header ends the chunk before it. */
	for (;;) {
		const char *nl = line < end ? memchr(line, '\n', (size_t)(end - line)) : NULL;
		const char *next = nl ? nl + 1 : end;

		if (line == end || (end - line >= 4 && memcmp(line, "--- ", 4) == 0)) {
			if (!hdr)
				main_end = line;
			else
				add_file(hdr, hdr_end, body, (size_t)(line - body));
			if (line == end)
				break;
			hdr = line + 4;
			hdr_end = nl ? nl : end;
			body = next;
			nomain |= hdr_end - hdr == 6 && memcmp(hdr, "nomain", 6) == 0;
		}
		line = next;
	}
	if (!nomain)
		add_main(text, (size_t)(main_end - text));

	for (unsigned f = 0; f < 2; f++) {
		struct ns_config_paths paths = {
			.main_file = tree.main_file,
			.vendor_file = tree.vendor_file,
			.conf_d = tree.etc_d,
			.vendor_d = tree.vendor_d,
			.skip_trust_checks = !tree.trusted,
		};
		struct ns_config cfg = {0};
		struct ns_diag diag = {.report = check_diag};
		int r = ns_config_load(&cfg, &paths, f ? NS_CONFIG_IGNORE_ERRORS : 0, &diag);

		/* A failure is reported and leaves no rules; strictly, an error fails. */
		if (r < 0 && (diag.n_errors == 0 || cfg.n_rules != 0))
			abort();
		if (r == 0 && diag.n_errors != 0 && !f)
			abort();
		if (r == 0)
			check_order(&cfg, lstat(tree.main_file, &st) == 0);
		/* NS_FUZZ_VERBOSE: what each load gave, to see what a seed reaches. */
		if (getenv("NS_FUZZ_VERBOSE")) {
			fprintf(stderr, "load%s: %d, %zu rules, %u errors\n",
				f ? " (ignore errors)" : "", r, cfg.n_rules, diag.n_errors);
			for (size_t i = 0; i < cfg.n_rules; i++)
				fprintf(stderr, "  %s:%u %s\n",
					cfg.rules[i].file + strlen(tree.root), cfg.rules[i].line,
					cfg.rules[i].polydir);
		}
		ns_config_free(&cfg);
	}
	clear_tree();
	return 0;
}

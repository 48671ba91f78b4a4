/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/*
 * dlopen_test MODULE: load the built module the way libpam does (RTLD_NOW,
 * so an unresolved symbol fails here rather than in a login), check that the
 * two session entry points resolve, and list the symbols its .dynsym
 * defines for others (global or weak, not undefined): exactly
 * pam_sm_open_session and pam_sm_close_session, as the version script says,
 * and nothing else.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const exported[] = {
	"pam_sm_open_session",
	"pam_sm_close_session",
};
#define N_EXPORTED   (sizeof(exported) / sizeof(exported[0]))
#define NATIVE_CLASS (__ELF_NATIVE_CLASS == 64 ? ELFCLASS64 : ELFCLASS32)

static bool is_exported(const char *name)
{
	for (unsigned i = 0; i < N_EXPORTED; i++)
		if (strcmp(name, exported[i]) == 0)
			return true;
	return false;
}

/*
 * The names in the file's .dynsym that it defines with global or weak
 * binding: what any other object can bind to. Each must be one of
 * exported[], and each of those must be there once. Returns the failures,
 * or -1 when the file cannot be read as this machine's ELF.
 */
static int check_dynsym(const char *path)
{
	unsigned seen[N_EXPORTED] = {0}, defined = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), failures = 0;
	const unsigned char *map;
	const ElfW(Ehdr) * eh;
	const ElfW(Shdr) * sh;
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0 || (size_t)st.st_size < sizeof(ElfW(Ehdr)))
		return -1;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	eh = (const ElfW(Ehdr) *)map;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != NATIVE_CLASS ||
	    eh->e_shoff + (size_t)eh->e_shnum * sizeof(ElfW(Shdr)) > (size_t)st.st_size)
		return -1;
	sh = (const ElfW(Shdr) *)(map + eh->e_shoff);
	for (unsigned s = 0; s < eh->e_shnum; s++) {
		const ElfW(Shdr) *str = &sh[sh[s].sh_link];
		const ElfW(Sym) * sym;

		if (sh[s].sh_type != SHT_DYNSYM || sh[s].sh_link >= eh->e_shnum ||
		    sh[s].sh_offset + sh[s].sh_size > (size_t)st.st_size)
			continue;
		sym = (const ElfW(Sym) *)(map + sh[s].sh_offset);
		for (size_t k = 0; k < sh[s].sh_size / sizeof(ElfW(Sym)); k++) {
			const char *name = (const char *)map + str->sh_offset + sym[k].st_name;
			unsigned bind = ELF64_ST_BIND(sym[k].st_info);

			if (sym[k].st_shndx == SHN_UNDEF ||
			    (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE))
				continue;
			defined++;
			if (!is_exported(name)) {
				fprintf(stderr,
					"FAIL: %s is exported: only the entry points may be\n",
					name);
				failures++;
				continue;
			}
			for (unsigned i = 0; i < N_EXPORTED; i++)
				seen[i] += strcmp(name, exported[i]) == 0;
		}
	}
	munmap((void *)map, (size_t)st.st_size);
	for (unsigned i = 0; i < N_EXPORTED; i++) {
		if (seen[i] != 1) {
			fprintf(stderr, "FAIL: %s is defined %u times in .dynsym\n", exported[i],
				seen[i]);
			failures++;
		}
	}
	if (!failures)
		printf("ok: .dynsym defines %u symbols: pam_sm_open_session and "
		       "pam_sm_close_session\n",
		       defined);
	return failures;
}

int main(int argc, char **argv)
{
	unsigned i, failures = 0;
	int r;
	void *h;

	if (argc != 2) {
		fprintf(stderr, "usage: dlopen_test MODULE\n");
		return 2;
	}
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "FAIL: dlopen %s: %s\n", argv[1], dlerror());
		return 1;
	}
	for (i = 0; i < N_EXPORTED; i++) {
		dlerror();
		if (!dlsym(h, exported[i])) {
			fprintf(stderr, "FAIL: %s does not resolve\n", exported[i]);
			failures++;
		} else {
			printf("ok: %s resolves\n", exported[i]);
		}
	}
	dlclose(h);
	r = check_dynsym(argv[1]);
	if (r < 0) {
		fprintf(stderr, "FAIL: %s: cannot read its ELF symbol table\n", argv[1]);
		return 1;
	}
	return failures || r ? 1 : 0;
}

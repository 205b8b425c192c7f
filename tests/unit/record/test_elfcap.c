// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bounds on users' ELF files: a copy of this test binary, one of its
 * tables patched to claim more than any real file has (the file made sparse
 * to hold it, at no cost to its owner), is mapped by a process of a /proc
 * laid out for the test.  The symbolizer must not read it, and so not grow
 * by what it claims; the unpatched copy is read as usual.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "elfcap.h"
#include "otel_tls.h"
#include "usyms.h"

#define PID 1
#define START 0x10000000ull
#define GIB (1ull << 30)

int elfcap_test_target(int n);
__attribute__((noinline)) int elfcap_test_target(int n)
{
	volatile int sum = 0;

	for (int i = 0; i < n; i++)
		sum += i;
	return sum;
}

struct fake_proc {
	char root[64];		/* laid out as /proc: root/1/maps, root/1/root/prog */
	char prog[128];
	uint64_t ip;		/* of elfcap_test_target, in the fake mapping */
};

static void run(const char *cmd)
{
	assert_int_equal(system(cmd), 0);
}

/* The file offset of ELF address vaddr in the file open as elf. */
static uint64_t file_offset(Elf *elf, uint64_t vaddr)
{
	size_t phnum;

	assert_int_equal(elf_getphdrnum(elf, &phnum), 0);
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		assert_non_null(gelf_getphdr(elf, i, &ph));
		if (ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz)
			return vaddr - ph.p_vaddr + ph.p_offset;
	}
	fail_msg("no segment holds 0x%llx", (unsigned long long)vaddr);
	return 0;
}

/* A copy of program src, mapped whole from START by process PID, and where its function func is. */
static void fake_proc_of(struct fake_proc *fp, const char *src, const char *func)
{
	char cmd[512];
	FILE *maps;
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	uint64_t vaddr = 0;
	int fd;

	snprintf(fp->root, sizeof(fp->root), "/tmp/tract-elfcap.XXXXXX");
	assert_non_null(mkdtemp(fp->root));
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/%d/root && cp %s %s/%d/root/prog", fp->root, PID, src, fp->root,
		 PID);
	run(cmd);
	snprintf(fp->prog, sizeof(fp->prog), "%s/%d/root/prog", fp->root, PID);
	snprintf(cmd, sizeof(cmd), "%s/%d/maps", fp->root, PID);
	maps = fopen(cmd, "w");
	assert_non_null(maps);
	fprintf(maps, "%llx-%llx r-xp 00000000 00:00 1 /prog\n", START, START + 4 * GIB);
	fclose(maps);
	/* the target's ELF address, from the symbol table */
	fd = open(fp->prog, O_RDONLY);
	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	while (!vaddr && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		assert_non_null(gelf_getshdr(scn, &sh));
		if (sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;

			if (gelf_getsym(d, (int)i, &sym) &&
			    !strcmp(elf_strptr(elf, sh.sh_link, sym.st_name), func))
				vaddr = sym.st_value;
		}
	}
	assert_true(vaddr != 0);
	fp->ip = START + file_offset(elf, vaddr);
	elf_end(elf);
	close(fd);
}

/* This test binary's copy */
static void fake_proc_new(struct fake_proc *fp)
{
	char self[64];

	snprintf(self, sizeof(self), "/proc/%d/exe", getpid());
	fake_proc_of(fp, self, "elfcap_test_target");
}

static void fake_proc_free(struct fake_proc *fp)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", fp->root);
	run(cmd);
}

/*
 * Makes the copy's section name (or the first of type type) claim size
 * bytes, and the file long enough, sparse, to hold them: the header
 * patched in place, as a user would.
 */
static void claim(struct fake_proc *fp, const char *name, uint32_t type, uint64_t size)
{
	int fd = open(fp->prog, O_RDWR);
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t shstrndx;
	off_t at = 0, end = 0;

	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_non_null(gelf_getehdr(elf, &eh));
	assert_int_equal(eh.e_ident[EI_CLASS], ELFCLASS64);
	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	while (!at && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		assert_non_null(gelf_getshdr(scn, &sh));
		if (name ? strcmp(elf_strptr(elf, shstrndx, sh.sh_name), name) : sh.sh_type != type)
			continue;
		if (sh.sh_entsize)
			size -= size % sh.sh_entsize;
		at = (off_t)(eh.e_shoff + elf_ndxscn(scn) * eh.e_shentsize + offsetof(Elf64_Shdr, sh_size));
		end = (off_t)(sh.sh_offset + size);
	}
	elf_end(elf);
	assert_true(at != 0);
	assert_int_equal(pwrite(fd, &size, sizeof(size), at), sizeof(size));
	assert_int_equal(ftruncate(fd, end), 0);
	close(fd);
}

static long maxrss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* The frame text of the fake process's ip; the recorder's growth meanwhile, in KiB. */
static char *frame(const struct fake_proc *fp, long *grew_kb)
{
	struct usyms *u = usyms__new_at(0, fp->root);
	char *text = NULL;
	long before = maxrss_kb();

	assert_int_equal(usyms__symbolize(u, PID, 0, &fp->ip, 1, &text), 0);
	if (grew_kb)
		*grew_kb = maxrss_kb() - before;
	usyms__free(u);
	return text;
}

static void expect_unread(struct fake_proc *fp)
{
	char want[64];
	char *text;
	long grew;

	text = frame(fp, &grew);
	/* no symbols: the address alone */
	snprintf(want, sizeof(want), "0x%llx (prog)", (unsigned long long)fp->ip);
	assert_string_equal(text, want);
	assert_true(grew < 64 * 1024);
	free(text);
}

static void an_unpatched_copy_is_read(void **state)
{
	struct fake_proc fp;
	char *text;

	(void)state;
	fake_proc_new(&fp);
	text = frame(&fp, NULL);
	assert_string_equal(text, "elfcap_test_target+0x0 (prog)");
	free(text);
	fake_proc_free(&fp);
}

/* the 2 GiB .symtab that took the recorder from 40 MB to 2.1 GB */
static void a_huge_symtab_is_not_read(void **state)
{
	struct fake_proc fp;

	(void)state;
	fake_proc_new(&fp);
	claim(&fp, NULL, SHT_SYMTAB, 2 * GIB);
	expect_unread(&fp);
	fake_proc_free(&fp);
}

static void a_huge_dynsym_is_not_read(void **state)
{
	struct fake_proc fp;

	(void)state;
	fake_proc_new(&fp);
	claim(&fp, NULL, SHT_DYNSYM, ELFCAP_SYMTAB + 4096);
	expect_unread(&fp);
	fake_proc_free(&fp);
}

static void a_huge_string_table_is_not_read(void **state)
{
	struct fake_proc fp;

	(void)state;
	fake_proc_new(&fp);
	claim(&fp, ".strtab", 0, ELFCAP_STRTAB + 4096);
	expect_unread(&fp);
	fake_proc_free(&fp);
}

static void a_huge_eh_frame_is_not_read(void **state)
{
	struct fake_proc fp;
	struct usyms_cfi cfi;
	struct usyms *u;

	(void)state;
	fake_proc_new(&fp);
	claim(&fp, ".eh_frame", 0, ELFCAP_CFI + 4096);
	u = usyms__new_at(0, fp.root);
	assert_int_equal(usyms__cfi(u, PID, 0, fp.ip, &cfi), -ENOENT);
	assert_null(cfi.eh);
	assert_true(cfi.mapped);
	usyms__free(u);
	expect_unread(&fp);
	fake_proc_free(&fp);
}

/* a program with .debug_frame (this binary has none): fuzz_elf's seed, run from the top of the tree */
static void a_huge_debug_frame_is_not_read(void **state)
{
	struct fake_proc fp;
	struct usyms_cfi cfi;
	struct usyms *u;

	(void)state;
	fake_proc_of(&fp, "tests/fuzz/seeds/fuzz_elf/debug_frame", "elf_seed_leaf");
	u = usyms__new_at(0, fp.root);
	assert_int_equal(usyms__cfi(u, PID, 0, fp.ip, &cfi), 0);
	assert_non_null(cfi.debug);
	usyms__free(u);
	claim(&fp, ".debug_frame", 0, ELFCAP_CFI + 4096);
	u = usyms__new_at(0, fp.root);
	assert_int_equal(usyms__cfi(u, PID, 0, fp.ip, &cfi), -ENOENT);
	assert_null(cfi.debug);
	usyms__free(u);
	fake_proc_free(&fp);
}

static void a_huge_note_is_not_read(void **state)
{
	struct fake_proc fp;

	(void)state;
	fake_proc_new(&fp);
	claim(&fp, ".note.gnu.build-id", 0, ELFCAP_NOTES + 4096);
	expect_unread(&fp);
	fake_proc_free(&fp);
}

static void huge_dwarf_is_not_read(void **state)
{
	struct fake_proc fp;

	(void)state;
	fake_proc_new(&fp);
	claim(&fp, ".debug_info", 0, ELFCAP_DWARF + 4096);
	expect_unread(&fp);
	fake_proc_free(&fp);
}

/* xz's output is bounded by nothing: a user's file may not carry it, a distribution's may */
static void minidebuginfo_is_read_from_root_s_files_only(void **state)
{
	struct fake_proc fp;
	char cmd[512], *text;

	(void)state;
	/* a file of another user's: root makes one */
	if (geteuid())
		skip();
	fake_proc_new(&fp);
	snprintf(cmd, sizeof(cmd), "head -c 4096 /dev/zero | xz > %s/xz && objcopy --add-section .gnu_debugdata=%s/xz %s",
		 fp.root, fp.root, fp.prog);
	run(cmd);
	text = frame(&fp, NULL);
	assert_string_equal(text, "elfcap_test_target+0x0 (prog)");
	free(text);
	assert_int_equal(chown(fp.prog, 65534, 65534), 0);
	expect_unread(&fp);
	fake_proc_free(&fp);
}

static void hang(int sig)
{
	(void)sig;
	fail_msg("the reader hung on a FIFO");
}

/* a user replaces a file his process maps by a FIFO: opening it must not block the recorder */
static void a_fifo_in_place_of_a_mapped_file_is_not_read(void **state)
{
	struct fake_proc fp;
	struct otel_tls tls;
	char *text;

	(void)state;
	fake_proc_new(&fp);
	assert_int_equal(unlink(fp.prog), 0);
	assert_int_equal(mkfifo(fp.prog, 0600), 0);
	signal(SIGALRM, hang);
	alarm(10);
	assert_int_equal(otel_tls_find(fp.root, PID, &tls), 0);
	text = frame(&fp, NULL);
	alarm(0);
	free(text);
	fake_proc_free(&fp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(an_unpatched_copy_is_read),
		cmocka_unit_test(a_huge_symtab_is_not_read),
		cmocka_unit_test(a_huge_dynsym_is_not_read),
		cmocka_unit_test(a_huge_string_table_is_not_read),
		cmocka_unit_test(a_huge_eh_frame_is_not_read),
		cmocka_unit_test(a_huge_debug_frame_is_not_read),
		cmocka_unit_test(a_huge_note_is_not_read),
		cmocka_unit_test(huge_dwarf_is_not_read),
		cmocka_unit_test(minidebuginfo_is_read_from_root_s_files_only),
		cmocka_unit_test(a_fifo_in_place_of_a_mapped_file_is_not_read),
	};
	return cmocka_run_group_tests_name("elfcap", tests, NULL, NULL);
}

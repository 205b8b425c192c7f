// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "elfcap.h"
#include "otel_tls.h"
#include "proc_file.h"
#include "util.h"

#define OTEL_SYMBOL "otel_thread_ctx_v1"

/* The x86-64 relocations that reach a TLS variable (the OTEP's table). */
#define R_TLSDESC 36
#define R_DTPMOD64 16
#define R_TPOFF64 18

/* What one ELF file says of the variable. */
struct module_tls {
	int found;
	uint64_t value;			/* st_value: its offset in the module's TLS block */
	uint32_t rel_type;		/* the relocation that reaches it, 0: none (local-exec) */
	uint64_t rel_offset;		/* where the loader put what it resolved to */
	uint64_t tls_memsz, tls_align;	/* PT_TLS */
	uint64_t first_vaddr;		/* the first PT_LOAD's, for the load bias */
};

static void find_relocation(Elf *elf, size_t dynsym, size_t symbol, struct module_tls *m)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) && !m->rel_type) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || sh.sh_link != dynsym ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela r;
			uint32_t type;

			if (!gelf_getrela(data, (int)i, &r) || GELF_R_SYM(r.r_info) != symbol)
				continue;
			type = (uint32_t)GELF_R_TYPE(r.r_info);
			if (type == R_TLSDESC || type == R_DTPMOD64 || type == R_TPOFF64) {
				m->rel_type = type;
				m->rel_offset = r.r_offset;
				return;
			}
		}
	}
}

/* The variable in file's .dynsym (defined there, a TLS object), its relocation and TLS segment. */
static void read_module(int fd, const char *file, struct module_tls *m)
{
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	size_t phnum = 0;

	memset(m, 0, sizeof(*m));
	/* a user's file: its tables within the symbolizer's bounds, or not read */
	if (!elfcap__header(fd))
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && (elf_kind(elf) != ELF_K_ELF || elfcap__tables(elf, file))) {
		elf_end(elf);
		elf = NULL;
	}
	if (!elf)
		return;
	while ((scn = elf_nextscn(elf, scn)) && !m->found) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 1; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_TLS ||
			    sym.st_shndx == SHN_UNDEF || sym.st_size != 8)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || strcmp(name, OTEL_SYMBOL))
				continue;
			m->found = 1;
			m->value = sym.st_value;
			find_relocation(elf, elf_ndxscn(scn), i, m);
			break;
		}
	}
	if (m->found && !elf_getphdrnum(elf, &phnum)) {
		int loads = 0;

		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph))
				continue;
			if (ph.p_type == PT_TLS) {
				m->tls_memsz = ph.p_memsz;
				m->tls_align = ph.p_align ? ph.p_align : 1;
			} else if (ph.p_type == PT_LOAD && !loads++) {
				m->first_vaddr = ph.p_vaddr & ~(uint64_t)4095;
			}
		}
	}
	elf_end(elf);
}

static int read_words(int mem, uint64_t addr, uint64_t *words, size_t n)
{
	ssize_t got = pread(mem, words, n * sizeof(*words), (off_t)addr);

	return got == (ssize_t)(n * sizeof(*words)) ? 0 : -EFAULT;
}

/* What the loader made of the module's relocation, in the live process. */
static int resolve(int mem, uint64_t bias, int is_exe, const struct module_tls *m, struct otel_tls *out)
{
	uint64_t w[2];

	memset(out, 0, sizeof(*out));
	switch (m->rel_type) {
	case R_TLSDESC:
		/* {resolver, argument}: a TP offset (static TLS), or a pointer to {module, offset} */
		if (read_words(mem, bias + m->rel_offset, w, 2))
			return -EFAULT;
		snprintf(out->model, sizeof(out->model), "tlsdesc");
		if ((int64_t)w[1] <= (int64_t)0xffffffff) {
			out->offset = (int64_t)w[1];
			return 0;
		}
		if (read_words(mem, w[1], w, 2))
			return -EFAULT;
		out->module = w[0];
		out->offset = (int64_t)w[1];
		return out->module ? 0 : -ENOENT;
	case R_DTPMOD64:
		/* the GOT's {module, offset} */
		if (read_words(mem, bias + m->rel_offset, w, 2))
			return -EFAULT;
		snprintf(out->model, sizeof(out->model), "gd");
		out->module = w[0];
		out->offset = (int64_t)w[1];
		return out->module ? 0 : -ENOENT;
	case R_TPOFF64:
		if (read_words(mem, bias + m->rel_offset, w, 1))
			return -EFAULT;
		snprintf(out->model, sizeof(out->model), "ie");
		out->offset = (int64_t)w[0];
		return 0;
	default:
		/* no relocation: the executable's own TLS, first below the thread pointer (x86-64, variant II) */
		if (!is_exe)
			return -ENOENT;
		snprintf(out->model, sizeof(out->model), "le");
		out->offset = (int64_t)m->value -
			      (int64_t)((m->tls_memsz + m->tls_align - 1) / m->tls_align * m->tls_align);
		return 0;
	}
}

int otel_tls_find(const char *proc_root, uint32_t pid, struct otel_tls *out)
{
	char path[PATH_MAX], line[PATH_MAX + 128], exe[PATH_MAX] = "", seen[64][PATH_MAX / 16];
	size_t nseen = 0;
	FILE *maps;
	int mem = -1, found = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%u/maps", proc_root, pid);
	maps = fopen(path, "re");
	if (!maps)
		return -errno;
	snprintf(path, sizeof(path), "%s/%u/exe", proc_root, pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	elf_version(EV_CURRENT);
	while (!found && fgets(line, sizeof(line), maps)) {
		unsigned long long start, end, offset;
		char perms[8], file[PATH_MAX];
		struct module_tls m;
		struct stat st;
		int fd, dup = 0;

		file[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &start, &end, perms, &offset, file) < 4 ||
		    file[0] != '/' || offset != 0)
			continue;
		/* each module once: its first mapping is at file offset 0 */
		for (size_t i = 0; i < nseen && !dup; i++)
			dup = !strncmp(seen[i], file, sizeof(seen[i]) - 1);
		if (dup)
			continue;
		if (nseen < 64)
			snprintf(seen[nseen++], sizeof(seen[0]), "%s", file);
		/* the process's own view of the file (containers have their own roots), a regular file only */
		fd = proc_file_open(proc_root, (pid_t)pid, file);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
			close(fd);
			continue;
		}
		read_module(fd, file, &m);
		close(fd);
		if (!m.found)
			continue;
		if (mem < 0) {
			snprintf(path, sizeof(path), "%s/%u/mem", proc_root, pid);
			mem = open(path, O_RDONLY | O_CLOEXEC);
		}
		if (mem >= 0 && !resolve(mem, start - m.first_vaddr, !strcmp(file, exe), &m, out))
			found = 1;
		else
			tract_debug("pid %u: %s defines " OTEL_SYMBOL " but it cannot be reached yet", pid, file);
	}
	fclose(maps);
	if (mem >= 0)
		close(mem);
	return found;
}

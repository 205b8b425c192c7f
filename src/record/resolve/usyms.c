// SPDX-License-Identifier: GPL-2.0-only
/*
 * User stacks to text.  A process's executable mappings come from
 * /proc/PID/maps.  The file behind one is opened through /proc/PID/map_files,
 * which is the very file mapped even when it was deleted or replaced since,
 * else through /proc/PID/root, which sees the process's own mounts
 * (containers).  libdwfl reads its function symbols (.symtab, else a debug
 * file found by build-id, else .dynsym and MiniDebugInfo) once, into a sorted
 * table: dwfl_module_addrinfo() scans the whole symbol table on every call,
 * some 80 µs a lookup in libc.  Tables are keyed by build-id, so a hundred
 * processes on one libc, or containers with copies of it, share one.
 */
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "clock.h"
#include "demangle.h"
#include "dict.h"
#include "elfcap.h"
#include "gopclntab.h"
#include "inlines.h"
#include "mapped_pages.h"
#include "perfmap.h"
#include "proc_file.h"
#include "strbuf.h"
#include "usyms.h"
#include "util.h"

#define USYMS_DEFAULT_MODULES	512
/*
 * Of all modules together: their symbol tables (a C++ binary alone can
 * carry tens of MB of names) and what libdw holds for them (mod_charge()).
 */
#define USYMS_MAX_SYMBOL_BYTES	(256ull << 20)
/*
 * A module no stack went through and no process kept mapped for this long
 * is dropped: what the recorder holds follows the programs that run now,
 * not every program the host ever ran.  One that comes back is read again.
 */
#define USYMS_MODULE_IDLE_NS	(60 * NSEC_PER_SEC)
/*
 * What libdw holds is counted at the size of the sections it reads:
 * DWARF sections are decompressed into memory whole, and its caches of
 * DIEs and of call frame entries parsed grow, as they are asked, to about
 * the size of what they parse (a frame description entry and its tree node
 * take some twice its bytes: CFI is counted three times over).
 */
#define CFI_CHARGE		3
#define SECTION_BYTES_MAX	(1ull << 40)	/* the bytes of a module's sections of a kind, at most */
#define USYMS_MAX_PROCS		16384
#define USYMS_MAX_MAPS		65536	/* executable mappings kept per process */
#define USYMS_IDLE_NS		(60 * NSEC_PER_SEC)
#define USYMS_REFRESH_NS	NSEC_PER_SEC
#define USYMS_SWEEP_NS		NSEC_PER_SEC
/* how often the pages read of mapped files are given back (mapped_pages.c): a few hundred faults to read them again */
#define USYMS_GIVE_BACK_NS	(10 * NSEC_PER_SEC)
/* of every process's perf map together, and of any one */
#define USYMS_MAX_JIT_BYTES	(256ull << 20)
#define USYMS_MAX_JIT_MAP	(64ull << 20)
/* the vdso is two pages on x86-64; anything this big is not one */
#define VDSO_MAX		(1u << 20)
/* no mapping starts below mmap_min_addr: such addresses are junk, not news */
#define LOWEST_MAPPABLE		4096
#define BUILD_ID_MAX		64
#define MOD_KEY_MAX		(1 + BUILD_ID_MAX)
#define MOD_SEGS_MAX		8
/* the runtime's outermost functions a Go binary's table marks: goexit, mstart, rt0_go */
#define MOD_TOPS_MAX		8

struct usym {
	uint64_t addr;		/* ELF virtual address */
	uint32_t size;		/* 0: unknown, runs to the next symbol */
	uint32_t name_off;
};

/* A PT_LOAD segment: how a file offset becomes an ELF address. */
struct useg {
	uint64_t offset, filesz, vaddr;
};

struct umod {
	int used;
	uint32_t gen;		/* bumped at eviction: references to the slot go stale */
	uint64_t last_used;
	uint64_t last_used_ns;
	struct usym *syms;
	size_t nr_syms;
	char *names;
	size_t bytes;
	struct useg segs[MOD_SEGS_MAX];
	unsigned int nr_segs;
	struct { uint64_t lo, hi; } tops[MOD_TOPS_MAX];	/* [lo, hi): functions no frame calls */
	unsigned int nr_tops;
	int go;			/* a Go binary: its code keeps frame pointers */
	unsigned int key_len;
	unsigned char key[MOD_KEY_MAX];	/* 'b' + build-id, 'f' + file identity, 'v' + hash */
	/* call frame information, read on the first unwind through the module */
	int cfi_tried;
	Elf *cfi_elf;		/* kept mapped: the tables point into it */
	Dwarf *cfi_dwarf;	/* for .debug_frame */
	Dwarf_CFI *eh_cfi, *debug_cfi;
	char *cfi_image;	/* the vdso's copy */
	struct inlines *inl;	/* NULL: no DWARF to name inlined calls by */
};

enum umap_kind {
	UMAP_FILE,
	UMAP_VDSO,
	UMAP_ANON,		/* no file: JIT code, named by the process's perf map if it has one */
	UMAP_OTHER,		/* [vsyscall], an executable [stack] */
};

struct umap {
	uint64_t start, end, pgoff, ino;
	uint32_t dev;
	uint32_t path_off;	/* into the process's strs */
	uint32_t label_off;	/* the path's last component */
	int32_t mod;		/* module slot, -1: none */
	uint32_t mod_gen;
	uint8_t kind;
	uint8_t looked_up;	/* mod is the answer, -1 included */
	uint8_t deleted;
};

struct uproc {
	struct uproc *next;	/* in its hash bucket */
	int pid;
	int seen;		/* since the last sweep */
	int refreshed;		/* refresh_ns is valid */
	uint64_t start_ns;
	uint64_t last_seen_ns;
	uint64_t refresh_ns;	/* of the last re-read of maps that a miss caused */
	struct umap *maps;	/* executable ones, by address */
	size_t nr_maps;
	struct strbuf strs;
	struct perfmap *jit;	/* NULL: no perf map read */
	int jit_checked;	/* jit_check_ns is valid */
	uint64_t jit_check_ns;
	uint32_t jit_gen;	/* bumped when the map was read afresh or its lines doubled */
	uint64_t jit_gen_lines, jit_gen_rereads;
};

struct usyms {
	char *proc;		/* "/proc", or a tree laid out as it (tests, fuzzers) */
	struct umod *mods;
	unsigned int max_mods, nr_mods;
	uint64_t tick;
	struct dict *keys;	/* module key -> slot and gen; file identities alias build-ids */
	struct uproc **buckets;
	size_t nr_buckets;
	uint64_t now_ns, sweep_ns, give_back_ns;
	struct usyms_stats st;
};

/* Appends s and its NUL, into a table of strings; returns where s starts. */
static uint32_t sb_add_str(struct strbuf *sb, const char *s, size_t len)
{
	uint32_t off = sb->len;

	strbuf_addn(sb, s, len);
	strbuf_addn(sb, "", 1);
	return off;
}

/* Modules */

static struct umod *mod_get(struct usyms *u, int32_t slot, uint32_t gen)
{
	struct umod *m;

	if (slot < 0 || (unsigned int)slot >= u->max_mods)
		return NULL;
	m = &u->mods[slot];
	if (!m->used || m->gen != gen)
		return NULL;
	m->last_used = ++u->tick;
	m->last_used_ns = u->now_ns;
	return m;
}

static void mod_free_cfi(struct umod *m)
{
	if (m->cfi_dwarf)
		dwarf_end(m->cfi_dwarf);
	if (m->eh_cfi)
		dwarf_cfi_end(m->eh_cfi);
	if (m->cfi_elf)
		elf_end(m->cfi_elf);
	free(m->cfi_image);
}

static void mod_evict(struct usyms *u, struct umod *m)
{
	mod_free_cfi(m);
	inlines__free(m->inl);
	free(m->syms);
	free(m->names);
	u->st.symbol_bytes -= m->bytes;
	u->st.modules_evicted++;
	u->nr_mods--;
	*m = (struct umod){ .gen = m->gen + 1 };
}

static struct umod *mod_lru(struct usyms *u, const struct umod *keep)
{
	struct umod *lru = NULL;

	for (unsigned int i = 0; i < u->max_mods; i++) {
		struct umod *m = &u->mods[i];

		if (m->used && m != keep && (!lru || m->last_used < lru->last_used))
			lru = m;
	}
	return lru;
}

/* Bytes more (or fewer) held for module m, the least used others dropped to stay within the budget. */
static void mod_charge(struct usyms *u, struct umod *m, int64_t bytes)
{
	m->bytes += bytes;
	u->st.symbol_bytes += bytes;
	while (u->st.symbol_bytes > USYMS_MAX_SYMBOL_BYTES && u->nr_mods > 1)
		mod_evict(u, mod_lru(u, m));
}

/* The bytes of the sections of elf whose names begin with prefix, as they are once decompressed. */
static uint64_t sections_bytes(Elf *elf, const char *prefix)
{
	size_t shstrndx, n = strlen(prefix);
	Elf_Scn *scn = NULL;
	uint64_t bytes = 0;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		GElf_Chdr chdr;
		const char *name;
		uint64_t size;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, shdr.sh_name)) || strncmp(name, prefix, n))
			continue;
		size = (shdr.sh_flags & SHF_COMPRESSED) && gelf_getchdr(scn, &chdr) ? chdr.ch_size : shdr.sh_size;
		/* a damaged file's claims, held to what no real file's reach: far from overflow, summed and charged */
		bytes += size < SECTION_BYTES_MAX ? size : SECTION_BYTES_MAX;
		if (bytes > SECTION_BYTES_MAX)
			bytes = SECTION_BYTES_MAX;
	}
	return bytes;
}

static void key_put(struct usyms *u, const void *key, size_t len, int slot)
{
	int added;
	uint32_t id = dict__intern(u->keys, key, len, &added);

	*dict__value(u->keys, id) = (uint64_t)u->mods[slot].gen << 32 | (uint32_t)slot;
}

/* Aliases of evicted modules pile up: start over from the live modules' own keys. */
static void keys_reset(struct usyms *u)
{
	dict__clear(u->keys);
	for (unsigned int i = 0; i < u->max_mods; i++)
		if (u->mods[i].used)
			key_put(u, u->mods[i].key, u->mods[i].key_len, i);
}

static void key_set(struct usyms *u, const void *key, size_t len, int slot)
{
	if (dict__size(u->keys) >= 64 + 8 * (size_t)u->max_mods)
		keys_reset(u);
	key_put(u, key, len, slot);
}

/* The slot of the module cached under key, or -1. */
static int key_find(struct usyms *u, const void *key, size_t len)
{
	uint32_t id = dict__find(u->keys, key, len);
	uint64_t v;

	if (!id)
		return -1;
	v = *dict__value(u->keys, id);
	return mod_get(u, (int32_t)(uint32_t)v, v >> 32) ? (int)(uint32_t)v : -1;
}

struct elf_handoff {
	Elf *elf;
};

/* libdwfl asks for the module's file: give it the ELF handle already open. */
static int hand_over_elf(Dwfl_Module *mod, void **userdata, const char *modname,
			 Dwarf_Addr base, char **file_name, Elf **elfp)
{
	struct elf_handoff *h = *userdata;

	(void)mod, (void)modname, (void)base, (void)file_name;
	*elfp = h ? h->elf : NULL;
	if (h)
		h->elf = NULL;
	return -1;
}

/*
 * Only by build-id, which names the exact contents wherever the file came
 * from: no debuglink guesses, and never debuginfod, which would put the
 * network on the recording path.
 */
static int debuginfo_by_build_id(Dwfl_Module *mod, void **userdata, const char *modname,
				 Dwarf_Addr base, const char *file_name,
				 const char *debuglink_file, GElf_Word debuglink_crc,
				 char **debuginfo_file_name)
{
	char path[64 + 2 * BUILD_ID_MAX];
	const unsigned char *id;
	GElf_Addr vaddr;
	int len, n, fd;

	(void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc;
	len = dwfl_module_build_id(mod, &id, &vaddr);
	if (len < 2 || len > BUILD_ID_MAX)
		return -1;
	n = snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/", id[0]);
	for (int i = 1; i < len; i++)
		n += snprintf(path + n, sizeof(path) - n, "%02x", id[i]);
	snprintf(path + n, sizeof(path) - n, ".debug");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		*debuginfo_file_name = strdup(path);
	return fd;
}

struct sym_candidate {
	uint64_t addr;
	uint32_t size;
	uint8_t underscores;
	uint8_t binding;	/* 0 global, 1 weak, 2 local */
	uint16_t len;
	const char *name;
};

/*
 * Of the aliases at one address, the one a person would write: getpid over
 * __getpid, memcpy over __memcpy_avx_unaligned; then global, then short.
 */
static int cmp_candidate(const void *a, const void *b)
{
	const struct sym_candidate *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->underscores != y->underscores)
		return x->underscores - y->underscores;
	if (x->binding != y->binding)
		return x->binding - y->binding;
	if (x->len != y->len)
		return x->len - y->len;
	return strcmp(x->name, y->name);
}

static int binding_rank(int bind)
{
	return bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
}

/* The function symbols of a module reported to dwfl, sorted and unique by address. */
static void copy_symbols(struct umod *m, Dwfl_Module *mod)
{
	struct sym_candidate *cand;
	size_t nr = 0, names_len = 0, kept = 0;
	int n = dwfl_module_getsymtab(mod);

	/* the candidates are sorted in a copy: bounded before it is made */
	if (n <= 0 || (unsigned int)n > ELFCAP_SYMBOLS)
		return;
	cand = xcalloc(n, sizeof(*cand));
	for (int i = 0; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf;
		Dwarf_Addr bias;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, &elf, &bias);
		int type = GELF_ST_TYPE(sym.st_info);
		size_t len, underscores = 0;

		if (!name || !*name || !addr || shndx == SHN_UNDEF)
			continue;
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		len = strlen(name);
		while (name[underscores] == '_')
			underscores++;
		cand[nr++] = (struct sym_candidate){
			.addr = addr,
			.size = sym.st_size > UINT32_MAX ? UINT32_MAX : sym.st_size,
			.underscores = underscores > 255 ? 255 : underscores,
			.binding = binding_rank(GELF_ST_BIND(sym.st_info)),
			.len = len > 65535 ? 65535 : len,
			.name = name,
		};
	}
	qsort(cand, nr, sizeof(*cand), cmp_candidate);
	for (size_t i = 0; i < nr; i++)
		if (!i || cand[i].addr != cand[i - 1].addr)
			names_len += strlen(cand[i].name) + 1;
	/* one table bigger than all of them may be: frames keep their ELF addresses */
	if (!nr || names_len + nr * sizeof(*m->syms) > USYMS_MAX_SYMBOL_BYTES)
		goto cleanup;
	m->syms = xcalloc(nr, sizeof(*m->syms));
	m->names = xcalloc(names_len, 1);
	names_len = 0;
	for (size_t i = 0; i < nr; i++) {
		size_t len;

		if (i && cand[i].addr == cand[i - 1].addr)
			continue;
		len = strlen(cand[i].name) + 1;
		memcpy(m->names + names_len, cand[i].name, len);
		m->syms[kept++] = (struct usym){
			.addr = cand[i].addr,
			.size = cand[i].size,
			.name_off = names_len,
		};
		names_len += len;
	}
	m->nr_syms = kept;
	m->bytes += kept * sizeof(*m->syms) + names_len;
cleanup:
	free(cand);
}

/* Go */

static int has_section(Elf *elf, const char *want);

struct go_names {
	struct umod *m;
	size_t nr, cap, names_len, names_cap;
};

static int add_go_func(const struct gopclntab_func *f, void *arg)
{
	struct go_names *g = arg;
	struct umod *m = g->m;

	if (f->outermost && m->nr_tops < MOD_TOPS_MAX)
		m->tops[m->nr_tops++] = (typeof(m->tops[0])){ f->entry, f->end };
	if (!g->cap)
		return 0;
	/* the table is the program's own: its names are bounded like any module's symbols */
	if (g->names_len + f->name_len + 1 + (g->nr + 1) * sizeof(*m->syms) > USYMS_MAX_SYMBOL_BYTES)
		return 1;
	if (g->nr == g->cap) {
		g->cap *= 2;
		m->syms = xrealloc(m->syms, g->cap * sizeof(*m->syms));
	}
	while (g->names_len + f->name_len + 1 > g->names_cap) {
		g->names_cap *= 2;
		m->names = xrealloc(m->names, g->names_cap);
	}
	memcpy(m->names + g->names_len, f->name, f->name_len);
	m->names[g->names_len + f->name_len] = 0;
	m->syms[g->nr++] = (struct usym){
		.addr = f->entry,
		.size = f->end - f->entry > UINT32_MAX ? UINT32_MAX : f->end - f->entry,
		.name_off = g->names_len,
	};
	g->names_len += f->name_len + 1;
	return 0;
}

/* The contents of the section called name, if it has bytes in the file and no more than max. */
static Elf_Data *section_data(Elf *elf, const char *name, uint64_t max, GElf_Shdr *shdr)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	Elf_Data *d;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *s;

		if (!gelf_getshdr(scn, shdr) || !(s = elf_strptr(elf, shstrndx, shdr->sh_name)) || strcmp(s, name))
			continue;
		if (shdr->sh_type == SHT_NOBITS || (shdr->sh_flags & SHF_COMPRESSED) || shdr->sh_size > max)
			return NULL;
		d = elf_getdata(scn, NULL);
		return d && d->d_buf && d->d_size == shdr->sh_size ? d : NULL;
	}
	return NULL;
}

/*
 * A Go binary's function table (.gopclntab): where the runtime's outermost
 * functions are, and, when the file has no symbol table (go build
 * -ldflags=-s, strip), its functions' names, in place of what little
 * .dynsym had.
 */
static void read_go_table(struct umod *m, Elf *elf)
{
	struct go_names g = { .m = m };
	GElf_Shdr text, tab;
	Elf_Data *d;

	/* Go's own linker names it so; an external link keeps it in .data.rel.ro */
	d = section_data(elf, ".gopclntab", GOPCLNTAB_MAX_BYTES, &tab);
	if (!d)
		d = section_data(elf, ".data.rel.ro.gopclntab", GOPCLNTAB_MAX_BYTES, &tab);
	if (!d || !section_data(elf, ".text", UINT64_MAX, &text))
		return;
	if (!has_section(elf, ".symtab")) {
		g.cap = 1024;
		g.names_cap = 16384;
		m->syms = xcalloc(g.cap, sizeof(*m->syms));
		m->names = xcalloc(g.names_cap, 1);
	}
	if (gopclntab__read(d->d_buf, d->d_size, text.sh_addr, text.sh_addr + text.sh_size, add_go_func, &g) < 0)
		g.nr = 0;
	else
		m->go = 1;
	m->nr_syms = g.nr;
	m->bytes += g.nr * sizeof(*m->syms) + g.names_len;
	if (!g.nr) {
		free(m->syms);
		free(m->names);
		m->syms = NULL;
		m->names = NULL;
	}
}

/*
 * Reads symbols through libdwfl into the table.  A module with DWARF keeps
 * its libdwfl handle (the files stay mapped) to name inlined calls; any
 * other lets it go, so no file stays open or mapped for it.  Takes elf.
 */
static void read_symbols(struct umod *m, Elf *elf, const char *name, uint64_t lo, uint64_t hi)
{
	static const Dwfl_Callbacks callbacks = {
		.find_elf = hand_over_elf,
		.find_debuginfo = debuginfo_by_build_id,
		.section_address = dwfl_offline_section_address,
	};
	struct elf_handoff h = { .elf = elf };
	Dwfl_Module *mod = NULL;
	void **userdata;
	Dwfl *dwfl;

	dwfl = dwfl_begin(&callbacks);
	if (!dwfl)
		goto cleanup;
	dwfl_report_begin(dwfl);
	/* lo is where libdwfl finds the first segment: the bias is 0, addresses are the ELF's own */
	mod = dwfl_report_module(dwfl, name, lo, hi);
	if (dwfl_report_end(dwfl, NULL, NULL) || !mod)
		goto cleanup;
	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = &h;
	read_go_table(m, dwfl_module_getelf(mod, &(Dwarf_Addr){ 0 }));
	if (!m->nr_syms)
		copy_symbols(m, mod);
	m->inl = inlines__open(dwfl, mod);
	if (m->inl) {
		Dwarf_Addr bias;
		Dwarf *dw = dwfl_module_getdwarf(mod, &bias);

		/* the DWARF, in the module's own file or the debug file found by build-id */
		m->bytes += sections_bytes(dw ? dwarf_getelf(dw) : NULL, ".debug_");
	}
	/* h goes out of scope: libdwfl has the file by now and asks for it no more */
	*userdata = NULL;
	if (m->inl)
		dwfl = NULL;
cleanup:
	dwfl_end(dwfl);
	if (h.elf)
		elf_end(h.elf);
}

/* The PT_LOAD segments, and the address range libdwfl expects them at. */
static void read_segments(struct umod *m, Elf *elf, uint64_t *lo, uint64_t *hi)
{
	size_t phnum;

	if (elf_getphdrnum(elf, &phnum))
		return;
	for (size_t i = 0; i < phnum && m->nr_segs < MOD_SEGS_MAX; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (!m->nr_segs)
			*lo = ph.p_vaddr & -ph.p_align;	/* as libdwfl rounds it */
		if (ph.p_vaddr + ph.p_memsz > *hi)
			*hi = ph.p_vaddr + ph.p_memsz;
		m->segs[m->nr_segs++] = (struct useg){
			.offset = ph.p_offset,
			.filesz = ph.p_filesz,
			.vaddr = ph.p_vaddr,
		};
	}
}

/* Loads elf's symbols into a cache slot, evicting to stay in bounds; takes elf. */
static int mod_load(struct usyms *u, const unsigned char *key, size_t key_len, Elf *elf,
		    const char *name)
{
	uint64_t lo = 0, hi = 0;
	struct umod *m = NULL;
	int slot;

	if (u->nr_mods == u->max_mods)
		mod_evict(u, mod_lru(u, NULL));
	for (slot = 0; u->mods[slot].used; slot++)
		;
	m = &u->mods[slot];
	m->used = 1;
	u->nr_mods++;
	m->bytes = sizeof(*m);
	read_segments(m, elf, &lo, &hi);
	if (hi > lo)
		read_symbols(m, elf, name, lo, hi);
	else
		elf_end(elf);
	memcpy(m->key, key, key_len);
	m->key_len = key_len;
	m->last_used = ++u->tick;
	m->last_used_ns = u->now_ns;
	u->st.symbol_bytes += m->bytes;
	u->st.modules_loaded++;
	key_set(u, key, key_len, slot);
	mod_charge(u, m, 0);
	return slot;
}

static size_t file_key(unsigned char *key, const struct stat *sb)
{
	uint64_t id[5] = {
		sb->st_dev, sb->st_ino, sb->st_size, sb->st_mtim.tv_sec, sb->st_mtim.tv_nsec,
	};

	key[0] = 'f';
	memcpy(key + 1, id, sizeof(id));
	return 1 + sizeof(id);
}

static size_t build_id_key(unsigned char *key, Elf *elf)
{
	const void *id;
	ssize_t len = dwelf_elf_gnu_build_id(elf, &id);

	if (len <= 0 || len > BUILD_ID_MAX)
		return 0;
	key[0] = 'b';
	memcpy(key + 1, id, len);
	return 1 + len;
}

static int open_mapped_file(const char *proc, const struct uproc *p, const struct umap *m)
{
	const char *path = p->strs.s + m->path_off;
	char buf[PATH_MAX + 64];
	int fd;

	/* O_NONBLOCK: a device someone mapped executable must not hang the recorder */
	snprintf(buf, sizeof(buf), "%s/%d/map_files/%" PRIx64 "-%" PRIx64, proc, p->pid, m->start, m->end);
	fd = open(buf, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	/* map_files wants CAP_SYS_ADMIN; without it, the path, unless it is gone */
	if (fd >= 0 || m->deleted || path[0] != '/')
		return fd;
	/* a symlink in it resolves inside the process's root, and only a regular file is opened */
	fd = proc_file_open(proc, p->pid, path);
	return fd < 0 ? -1 : fd;
}

/*
 * A user's ELF file, read only where its tables are within bounds: not at
 * all is better than a recorder the size of what a sparse file claims.
 */
static Elf *open_elf(int fd, const char *name)
{
	Elf *elf;

	if (elfcap__header(fd))
		return NULL;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && (elf_kind(elf) != ELF_K_ELF || elfcap__tables(elf, name) || elfcap__minidebuginfo(fd, elf, name))) {
		elf_end(elf);
		elf = NULL;
	}
	return elf;
}

static int resolve_file(struct usyms *u, const struct uproc *p, const struct umap *m)
{
	unsigned char fkey[MOD_KEY_MAX], bkey[MOD_KEY_MAX];
	size_t flen, blen;
	struct stat sb;
	int fd, slot = -1;
	Elf *elf;

	fd = open_mapped_file(u->proc, p, m);
	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode))
		goto cleanup;
	/* the same file seen before: no ELF parsing at all */
	flen = file_key(fkey, &sb);
	slot = key_find(u, fkey, flen);
	if (slot >= 0)
		goto cleanup;
	elf = open_elf(fd, p->strs.s + m->path_off);
	if (!elf)
		goto cleanup;
	blen = build_id_key(bkey, elf);
	if (blen)
		slot = key_find(u, bkey, blen);
	if (slot >= 0) {
		/* another copy of a file already read */
		elf_end(elf);
		key_set(u, fkey, flen, slot);
		goto cleanup;
	}
	slot = mod_load(u, blen ? bkey : fkey, blen ? blen : flen, elf, p->strs.s + m->label_off);
	if (blen)
		key_set(u, fkey, flen, slot);
cleanup:
	close(fd);
	return slot;
}

/* The vdso has no file: its image, read out of the process (*size: its bytes). */
static char *read_vdso(const char *proc, const struct uproc *p, const struct umap *m, size_t *size)
{
	char path[PATH_MAX];
	char *image;
	int fd;

	*size = m->end - m->start;
	if (!*size || *size > VDSO_MAX)
		return NULL;
	snprintf(path, sizeof(path), "%s/%d/mem", proc, p->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	image = xcalloc(1, *size);
	if (pread(fd, image, *size, (off_t)m->start) != (ssize_t)*size) {
		free(image);
		image = NULL;
	}
	close(fd);
	return image;
}

static int resolve_vdso(struct usyms *u, const struct uproc *p, const struct umap *m)
{
	unsigned char key[MOD_KEY_MAX];
	size_t size, len;
	char *image = read_vdso(u->proc, p, m, &size);
	int slot = -1;
	Elf *elf = NULL;

	if (!image)
		return -1;
	elf = elf_memory(image, size);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto cleanup;
	len = build_id_key(key, elf);
	if (!len) {
		uint64_t h = hash_bytes(image, size, 0);

		key[0] = 'v';
		memcpy(key + 1, &h, sizeof(h));
		len = 1 + sizeof(h);
	}
	slot = key_find(u, key, len);
	if (slot < 0) {
		slot = mod_load(u, key, len, elf, "[vdso]");
		elf = NULL;
	}
cleanup:
	if (elf)
		elf_end(elf);
	free(image);
	return slot;
}

/* The module of a mapping, looked for on first use and again after its eviction. */
static struct umod *map_module(struct usyms *u, const struct uproc *p, struct umap *m)
{
	struct umod *mod;
	int slot = -1;

	if (m->looked_up) {
		mod = mod_get(u, m->mod, m->mod_gen);
		if (mod || m->mod < 0)
			return mod;
	}
	if (m->kind == UMAP_FILE)
		slot = resolve_file(u, p, m);
	else if (m->kind == UMAP_VDSO)
		slot = resolve_vdso(u, p, m);
	m->looked_up = 1;
	m->mod = slot;
	m->mod_gen = slot >= 0 ? u->mods[slot].gen : 0;
	return slot >= 0 ? &u->mods[slot] : NULL;
}

static uint64_t elf_address(const struct umod *mod, const struct umap *m, uint64_t addr)
{
	uint64_t off = addr - m->start + m->pgoff;

	for (unsigned int i = 0; i < mod->nr_segs; i++) {
		const struct useg *s = &mod->segs[i];

		if (off >= s->offset && off - s->offset < s->filesz)
			return s->vaddr + (off - s->offset);
	}
	return off;
}

static const struct usym *mod_lookup(const struct umod *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nr_syms;
	const struct usym *s;

	if (!hi || addr < m->syms[0].addr)
		return NULL;
	/* the last symbol at or below addr */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	s = &m->syms[lo];
	/* past its end: code with no symbol of its own, such as a local function of a stripped library */
	if (s->size && addr - s->addr >= s->size)
		return NULL;
	return s;
}

/* Processes */

/*
 * One line of maps, "start-end perms offset major:minor inode path", if it
 * is executable; by hand, since most lines are not and sscanf() was a fifth
 * of the cost of a new process.
 */
static int parse_exec_mapping(char *line, struct umap *m, char **name)
{
	unsigned long long major, minor;
	char *s = line, *e;

	m->start = strtoull(s, &e, 16);
	if (*e != '-')
		return 0;
	m->end = strtoull(e + 1, &e, 16);
	if (*e != ' ' || strlen(e + 1) < 5 || e[3] != 'x' || e[5] != ' ')
		return 0;
	m->pgoff = strtoull(e + 6, &e, 16);
	major = strtoull(e, &e, 16);
	if (*e != ':')
		return 0;
	minor = strtoull(e + 1, &e, 16);
	m->ino = strtoull(e, &e, 10);
	if (*e != ' ' && *e != '\0')
		return 0;
	m->dev = major << 20 | minor;
	while (*e == ' ')
		e++;
	*name = e;
	return 1;
}

/* The executable mappings of a process; -ESRCH when it has none left. */
static int read_maps(const char *proc, int pid, struct umap **mapsp, size_t *nrp, struct strbuf *strs)
{
	static const char deleted[] = " (deleted)";
	char path[PATH_MAX], line[PATH_MAX + 128];
	struct umap *maps = NULL;
	size_t nr = 0, cap = 0;
	int err = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/maps", proc, pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT || errno == ESRCH ? -ESRCH : -errno;
	/* stdio would read a procfs file 1 KiB at a time */
	setvbuf(f, NULL, _IOFBF, 16384);
	while (fgets(line, sizeof(line), f)) {
		struct umap m = { .mod = -1 };
		size_t len = strlen(line);
		char *name;

		if (len && line[len - 1] == '\n') {
			line[--len] = '\0';
		} else if (!feof(f)) {
			/* a path longer than PATH_MAX: skip the rest of the line */
			int c;

			while ((c = fgetc(f)) != EOF && c != '\n')
				;
		}
		if (!parse_exec_mapping(line, &m, &name) || nr == USYMS_MAX_MAPS)
			continue;
		len = strlen(name);
		if (len > sizeof(deleted) - 1 && !strcmp(name + len - (sizeof(deleted) - 1), deleted)) {
			len -= sizeof(deleted) - 1;
			m.deleted = 1;
		}
		if (name[0] == '/')
			m.kind = UMAP_FILE;
		else if (!strcmp(name, "[vdso]"))
			m.kind = UMAP_VDSO;
		else if (!len)
			m.kind = UMAP_ANON;
		else
			m.kind = UMAP_OTHER;
		if (m.kind == UMAP_ANON) {
			name = "[jit]";
			len = strlen(name);
		}
		m.path_off = sb_add_str(strs, name, len);
		m.label_off = m.path_off;
		if (m.kind == UMAP_FILE)
			m.label_off += (const char *)memrchr(name, '/', len) + 1 - name;
		ARRAY_GROW(maps, nr, cap, 32);
		maps[nr++] = m;
	}
	if (ferror(f))
		err = -EIO;
	fclose(f);
	if (!err && !nr)
		err = -ESRCH;	/* a zombie, or a kernel thread: nothing to name */
	if (err) {
		free(maps);
		return err;
	}
	*mapsp = maps;
	*nrp = nr;
	return 0;
}

static int same_mapping(const struct umap *a, const struct umap *b)
{
	return a->start == b->start && a->end == b->end && a->pgoff == b->pgoff &&
	       a->dev == b->dev && a->ino == b->ino && a->kind == b->kind;
}

/* What a re-read of maps would otherwise have to find again. */
static void carry_over(struct umap *maps, size_t nr, const struct umap *old, size_t nr_old)
{
	size_t j = 0;

	for (size_t i = 0; i < nr; i++) {
		while (j < nr_old && old[j].start < maps[i].start)
			j++;
		if (j < nr_old && same_mapping(&maps[i], &old[j])) {
			maps[i].looked_up = old[j].looked_up;
			maps[i].mod = old[j].mod;
			maps[i].mod_gen = old[j].mod_gen;
		}
	}
}

static struct umap *find_map(const struct uproc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nr_maps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < p->maps[mid].start)
			hi = mid;
		else if (addr >= p->maps[mid].end)
			lo = mid + 1;
		else
			return &p->maps[mid];
	}
	return NULL;
}

static void refresh_maps(struct usyms *u, struct uproc *p)
{
	struct strbuf strs = { 0 };
	struct umap *maps;
	size_t nr;

	p->refreshed = 1;
	p->refresh_ns = u->now_ns;
	u->st.maps_reads++;
	if (read_maps(u->proc, p->pid, &maps, &nr, &strs)) {
		strbuf_free(&strs);
		return;
	}
	carry_over(maps, nr, p->maps, p->nr_maps);
	free(p->maps);
	strbuf_free(&p->strs);
	p->maps = maps;
	p->nr_maps = nr;
	p->strs = strs;
}

static size_t bucket_of(const struct usyms *u, int pid)
{
	return ((uint32_t)pid * 2654435761u) & (u->nr_buckets - 1);
}

static struct uproc *proc_find(const struct usyms *u, int pid)
{
	struct uproc *p;

	for (p = u->buckets[bucket_of(u, pid)]; p; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

static void proc_free(struct usyms *u, struct uproc *p)
{
	if (p->jit) {
		u->st.jit_bytes -= perfmap__bytes(p->jit);
		u->st.jit_maps--;
		perfmap__free(p->jit);
	}
	free(p->maps);
	strbuf_free(&p->strs);
	free(p);
}

static void proc_drop(struct usyms *u, struct uproc *p)
{
	struct uproc **pp = &u->buckets[bucket_of(u, p->pid)];

	while (*pp != p)
		pp = &(*pp)->next;
	*pp = p->next;
	proc_free(u, p);
	u->st.procs--;
}

static void procs_grow(struct usyms *u)
{
	struct uproc **old = u->buckets;
	size_t old_nr = u->nr_buckets;

	u->nr_buckets *= 2;
	u->buckets = xcalloc(u->nr_buckets, sizeof(*u->buckets));
	for (size_t i = 0; i < old_nr; i++) {
		struct uproc *p, *next;

		for (p = old[i]; p; p = next) {
			size_t b = bucket_of(u, p->pid);

			next = p->next;
			p->next = u->buckets[b];
			u->buckets[b] = p;
		}
	}
	free(old);
}

static int proc_load(struct usyms *u, int pid, uint64_t start_ns, struct uproc **pp)
{
	struct uproc *p = xcalloc(1, sizeof(*p));
	size_t b;
	int err;

	u->st.maps_reads++;
	err = read_maps(u->proc, pid, &p->maps, &p->nr_maps, &p->strs);
	if (err) {
		proc_free(u, p);
		return err;
	}
	p->pid = pid;
	p->start_ns = start_ns;
	p->last_seen_ns = u->now_ns;
	if (u->st.procs >= u->nr_buckets)
		procs_grow(u);
	b = bucket_of(u, pid);
	p->next = u->buckets[b];
	u->buckets[b] = p;
	u->st.procs++;
	*pp = p;
	return 0;
}

/* The mapping of addr, reading maps again for code new since: dlopen(), a JIT. */
static struct umap *find_map_fresh(struct usyms *u, struct uproc *p, uint64_t addr)
{
	struct umap *m = p ? find_map(p, addr) : NULL;

	/* junk addresses pay once a second */
	if (!m && p && addr >= LOWEST_MAPPABLE &&
	    (!p->refreshed || u->now_ns - p->refresh_ns >= USYMS_REFRESH_NS)) {
		refresh_maps(u, p);
		m = find_map(p, addr);
	}
	return m;
}

/*
 * The perf map of process p, read on (what is new) at most once a second
 * while its JIT code is asked about: runtimes add to it as they compile.
 */
static struct perfmap *jit_names(struct usyms *u, struct uproc *p)
{
	struct perfmap_stats st;
	size_t held, budget;
	int fd;

	if (p->jit_checked && u->now_ns - p->jit_check_ns < USYMS_REFRESH_NS)
		return p->jit;
	p->jit_checked = 1;
	p->jit_check_ns = u->now_ns;
	/* gone or never written: what was read stays, it named this code */
	fd = perfmap_open(u->proc, p->pid);
	if (fd < 0)
		return p->jit;
	if (!p->jit) {
		p->jit = perfmap__new();
		u->st.jit_maps++;
	}
	held = perfmap__bytes(p->jit);
	budget = u->st.jit_bytes - held < USYMS_MAX_JIT_BYTES ? USYMS_MAX_JIT_BYTES - (u->st.jit_bytes - held) : 0;
	u->st.jit_reads++;
	perfmap__update(p->jit, fd, budget < USYMS_MAX_JIT_MAP ? budget : USYMS_MAX_JIT_MAP);
	u->st.jit_bytes += perfmap__bytes(p->jit) - held;
	close(fd);
	perfmap__stats(p->jit, &st);
	/* by doubling, so that a map that grows all the time names old stacks again only a few times */
	if (st.rereads != p->jit_gen_rereads || st.lines > 2 * p->jit_gen_lines) {
		p->jit_gen++;
		p->jit_gen_rereads = st.rereads;
		p->jit_gen_lines = st.lines;
	}
	return p->jit;
}

uint32_t usyms__jit_gen(struct usyms *u, int pid)
{
	struct uproc *p = proc_find(u, pid);

	if (!p)
		return 0;
	jit_names(u, p);
	return p->jit_gen;
}

/* A frame in anonymous executable memory: its perf map's name, or just "[jit]". */
static void format_jit_frame(struct usyms *u, struct uproc *p, uint64_t ip, uint64_t look,
			     struct strbuf *out)
{
	struct perfmap *jit = jit_names(u, p);
	const char *name;
	uint64_t off;

	name = jit ? perfmap__lookup(jit, look, &off) : NULL;
	if (name) {
		strbuf_add(out, name);
		strbuf_add(out, "+");
		strbuf_add_hex(out, off + (ip - look));
	} else {
		strbuf_add_hex(out, ip);
	}
	strbuf_add(out, " ([jit])");
}

static void format_frame(struct usyms *u, struct uproc *p, uint64_t ip, int is_return,
			 struct strbuf *out)
{
	/* a return address can be just past a call that ends its function */
	uint64_t look = is_return && ip ? ip - 1 : ip;
	struct umod *mod;
	struct umap *m = find_map_fresh(u, p, look);

	if (!m) {
		strbuf_add_hex(out, ip);
		strbuf_add(out, " ([unknown])");
		return;
	}
	if (m->kind == UMAP_ANON) {
		format_jit_frame(u, p, ip, look, out);
		return;
	}
	mod = map_module(u, p, m);
	if (!mod) {
		strbuf_add_hex(out, ip);
	} else {
		uint64_t vaddr = elf_address(mod, m, look);
		const struct usym *sym = mod_lookup(mod, vaddr);

		if (sym && mod->inl) {
			/* calls inlined here, each a frame of its own above the function */
			size_t cached = inlines__bytes(mod->inl);
			const char *inl = inlines__at(mod->inl, vaddr), *nl;

			mod_charge(u, mod, (int64_t)inlines__bytes(mod->inl) - (int64_t)cached);
			for (; (nl = strchr(inl, '\n')); inl = nl + 1) {
				strbuf_addn(out, inl, (size_t)(nl - inl));
				strbuf_add(out, " (");
				strbuf_add(out, p->strs.s + m->label_off);
				strbuf_add(out, ")\n");
			}
		}
		if (sym) {
			char *readable = demangle(mod->names + sym->name_off);

			strbuf_add(out, readable ? readable : mod->names + sym->name_off);
			free(readable);
			strbuf_add(out, "+");
			strbuf_add_hex(out, vaddr + (ip - look) - sym->addr);
		} else {
			strbuf_add_hex(out, vaddr + (ip - look));
		}
	}
	strbuf_add(out, " (");
	strbuf_add(out, p->strs.s + m->label_off);
	strbuf_add(out, ")");
}

/* The process cached under pid, loaded if new; NULL with *err when it cannot be. */
static struct uproc *proc_get(struct usyms *u, int pid, uint64_t start_ns, int *err)
{
	struct uproc *p = proc_find(u, pid);

	*err = 0;
	if (p && start_ns && p->start_ns && p->start_ns != start_ns) {
		/* the pid was reused */
		proc_drop(u, p);
		p = NULL;
	}
	if (!p)
		*err = proc_load(u, pid, start_ns, &p);
	if (p) {
		p->seen = 1;
		if (!p->start_ns)
			p->start_ns = start_ns;
	}
	return p;
}

int usyms__symbolize(struct usyms *u, int pid, uint64_t start_ns,
		     const uint64_t *ips, size_t n, char **out)
{
	struct strbuf sb = { 0 };
	int err;
	struct uproc *p = proc_get(u, pid, start_ns, &err);

	/* other errors (no permission): every frame comes out [unknown] */
	if (err == -ESRCH)
		return err;
	strbuf_reserve(&sb, n * 40);
	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_add(&sb, "\n");
		format_frame(u, p, ips[i], i > 0, &sb);
	}
	*out = strbuf_take(&sb);
	return 0;
}

/* Call frame information */

static int has_section(Elf *elf, const char *want)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		const char *name;

		if (gelf_getshdr(scn, &shdr) && (name = elf_strptr(elf, shstrndx, shdr.sh_name)) &&
		    !strcmp(name, want))
			return 1;
	}
	return 0;
}

/*
 * A module's .eh_frame, and its .debug_frame where it has one, read when a
 * stack first goes through it.  Unlike the symbol table these are not
 * copied: the file stays mapped (page cache, not heap) while the module is
 * cached, and libdw parses entries as they are asked for.
 */
static void mod_read_cfi(struct usyms *u, const struct uproc *p, const struct umap *m, struct umod *mod)
{
	Elf *elf = NULL;

	mod->cfi_tried = 1;
	if (m->kind == UMAP_FILE) {
		int fd = open_mapped_file(u->proc, p, m);

		if (fd < 0)
			return;
		/* read again: it may have changed since its symbols were */
		elf = open_elf(fd, p->strs.s + m->path_off);
		/* all of it is mapped: libelf needs the descriptor no more */
		if (elf && elf_cntl(elf, ELF_C_FDDONE)) {
			elf_end(elf);
			elf = NULL;
		}
		close(fd);
	} else if (m->kind == UMAP_VDSO) {
		size_t size;

		mod->cfi_image = read_vdso(u->proc, p, m, &size);
		elf = mod->cfi_image ? elf_memory(mod->cfi_image, size) : NULL;
	}
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		return;
	}
	mod->cfi_elf = elf;
	mod->eh_cfi = dwarf_getcfi_elf(elf);
	if (has_section(elf, ".debug_frame")) {
		mod->cfi_dwarf = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
		mod->debug_cfi = mod->cfi_dwarf ? dwarf_getcfi(mod->cfi_dwarf) : NULL;
	}
	mod_charge(u, mod, CFI_CHARGE * (int64_t)(sections_bytes(elf, ".eh_frame") +
						  sections_bytes(elf, ".debug_frame")));
}

int usyms__cfi(struct usyms *u, int pid, uint64_t start_ns, uint64_t addr, struct usyms_cfi *out)
{
	int err;
	struct uproc *p = proc_get(u, pid, start_ns, &err);
	struct umap *m = find_map_fresh(u, p, addr);
	struct umod *mod;

	memset(out, 0, sizeof(*out));
	if (!m)
		return -ENOENT;
	out->mapped = 1;
	mod = map_module(u, p, m);
	if (!mod)
		return -ENOENT;
	if (!mod->cfi_tried)
		mod_read_cfi(u, p, m, mod);
	out->eh = mod->eh_cfi;
	out->debug = mod->debug_cfi;
	out->elf_addr = elf_address(mod, m, addr);
	out->go = mod->go;
	for (unsigned int i = 0; i < mod->nr_tops; i++)
		if (out->elf_addr >= mod->tops[i].lo && out->elf_addr < mod->tops[i].hi)
			out->outermost = 1;
	return out->eh || out->debug ? 0 : -ENOENT;
}

void usyms__forget(struct usyms *u, int pid, uint64_t start_ns)
{
	struct uproc *p = proc_find(u, pid);

	/* the process of that pid and start: a pid reused since is another's */
	if (p && (!start_ns || !p->start_ns || p->start_ns == start_ns))
		proc_drop(u, p);
}

/* The whole file an ELF handle reads from, if libelf holds it in memory. */
static void add_elf_range(Elf *elf, struct mapped_range *r, size_t *n)
{
	size_t size;
	char *raw = elf ? elf_rawfile(elf, &size) : NULL;

	if (raw && size)
		r[(*n)++] = (struct mapped_range){ (uintptr_t)raw, (uintptr_t)raw + size };
}

/* The pages read of the files the modules keep mapped, given back: RSS then tracks what is read now. */
static void give_back_pages(struct usyms *u)
{
	struct mapped_range *r = xcalloc(3 * (size_t)u->max_mods + 1, sizeof(*r));
	size_t n = 0;

	for (unsigned int i = 0; i < u->max_mods; i++) {
		struct umod *m = &u->mods[i];
		Elf *elves[2];

		if (!m->used)
			continue;
		/* (the vdso's image is the recorder's own copy, not a file) */
		if (!m->cfi_image)
			add_elf_range(m->cfi_elf, r, &n);
		for (size_t j = 0, k = m->inl ? inlines__files(m->inl, elves) : 0; j < k; j++)
			add_elf_range(elves[j], r, &n);
	}
	u->st.mapped_given_back += mapped_pages__give_back(r, n, NULL);
	free(r);
}

void usyms__end_pass(struct usyms *u, uint64_t now_ns)
{
	int crowded;

	if (now_ns > u->now_ns)
		u->now_ns = now_ns;
	if (u->now_ns - u->sweep_ns < USYMS_SWEEP_NS)
		return;
	/* the modules of the processes still cached are in use */
	for (size_t i = 0; i < u->nr_buckets; i++)
		for (struct uproc *p = u->buckets[i]; p; p = p->next)
			for (size_t j = 0; j < p->nr_maps; j++)
				if (p->maps[j].looked_up)
					mod_get(u, p->maps[j].mod, p->maps[j].mod_gen);
	for (unsigned int i = 0; i < u->max_mods; i++)
		if (u->mods[i].used && u->now_ns - u->mods[i].last_used_ns >= USYMS_MODULE_IDLE_NS)
			mod_evict(u, &u->mods[i]);
	/* over the cap: only processes seen since the last sweep stay */
	crowded = u->st.procs > USYMS_MAX_PROCS;
	for (size_t i = 0; i < u->nr_buckets; i++) {
		struct uproc *p, *next;

		for (p = u->buckets[i]; p; p = next) {
			next = p->next;
			if (p->seen) {
				p->seen = 0;
				p->last_seen_ns = u->now_ns;
			} else if (crowded || u->now_ns - p->last_seen_ns >= USYMS_IDLE_NS) {
				proc_drop(u, p);
			}
		}
	}
	u->sweep_ns = u->now_ns;
	if (u->now_ns - u->give_back_ns >= USYMS_GIVE_BACK_NS) {
		give_back_pages(u);
		u->give_back_ns = u->now_ns;
	}
}

void usyms__stats(const struct usyms *u, struct usyms_stats *st)
{
	*st = u->st;
	st->modules = u->nr_mods;
}

struct usyms *usyms__new_at(unsigned int max_modules, const char *proc_root)
{
	struct usyms *u = xcalloc(1, sizeof(*u));

	elf_version(EV_CURRENT);
	/*
	 * Symbol tables and decompressed DWARF are big blocks that come and go
	 * with the programs that run: each its own mapping, given back when
	 * freed.  glibc's default raises this threshold to the size of every
	 * such block freed, and the next ones then come from the heap, whose
	 * holes the recorder's resident memory keeps.
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	u->proc = xstrdup(proc_root ? proc_root : "/proc");
	u->max_mods = max_modules ? max_modules : USYMS_DEFAULT_MODULES;
	u->mods = xcalloc(u->max_mods, sizeof(*u->mods));
	u->keys = dict__new();
	u->nr_buckets = 256;
	u->buckets = xcalloc(u->nr_buckets, sizeof(*u->buckets));
	return u;
}

struct usyms *usyms__new(unsigned int max_modules)
{
	return usyms__new_at(max_modules, NULL);
}

void usyms__free(struct usyms *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nr_buckets; i++) {
		struct uproc *p, *next;

		for (p = u->buckets[i]; p; p = next) {
			next = p->next;
			proc_free(u, p);
		}
	}
	for (unsigned int i = 0; i < u->max_mods; i++) {
		mod_free_cfi(&u->mods[i]);
		inlines__free(u->mods[i].inl);
		free(u->mods[i].syms);
		free(u->mods[i].names);
	}
	free(u->buckets);
	free(u->mods);
	dict__free(u->keys);
	free(u->proc);
	free(u);
}

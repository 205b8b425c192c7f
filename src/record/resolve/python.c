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
#include "clock.h"
#include "elfcap.h"
#include "nspid.h"
#include "proc_file.h"
#include "python.h"
#include "thread_still.h"
#include "util.h"

#define PROC_BUCKETS 256
#define MAX_PROCS 4096		/* processes looked at (most of them not Python) */
#define MAX_INTERPS 16		/* subinterpreters walked */
#define MAX_THREADS 4096	/* thread states walked per interpreter */
#define MAX_FRAMES 256		/* Python frames read per stack: the outer ones are cut */
#define THREAD_SLOTS 64		/* thread -> its thread state, per process */
#define CODE_SLOTS 256		/* code objects remembered per process (a power of two) */
#define CODE_BUDGET (16u << 20)	/* those slots, names and line tables held, all processes together */
#define MAX_TABLE 65536		/* a longer co_linetable gives no line */
#define MAX_NAME 200		/* characters of a function's name kept */
#define MAX_FILE 400		/* ... and of its file's */
#define RECHECK_READS 256	/* a thread with no thread state is looked for again after this many reads */
#define MAX_OPEN 64		/* interpreters whose memory stays open between reads */
#define NONE UINT32_MAX
#define OWNED_BY_CSTACK 3	/* enum _frameowner: 3.12's entry frame of a C-level eval call */

/* Where things are in one interpreter's memory. */
struct layout {
	uint32_t interp_head;		/* _PyRuntime.interpreters.head */
	uint32_t interp_next, threads_head;
	uint32_t ts_next, ts_interp, ts_native_tid;
	uint32_t ts_cframe;		/* NONE: the thread state holds the current frame itself (3.13) */
	uint32_t current_frame;		/* in the _PyCFrame, or in the thread state */
	uint32_t fr_code, fr_previous, fr_instr, fr_owner;
	uint32_t fr_entry;		/* 3.11's is_entry; NONE: an entry frame owned by the C stack instead */
	uint32_t co_filename, co_name, co_qualname, co_firstlineno, co_linetable, co_code;
	uint32_t str_state, str_ascii_data, str_compact_data;
};

/*
 * 3.11 and 3.12 publish no offsets: these are CPython's own structs on
 * x86-64 (Include/cpython/pystate.h, Include/internal/pycore_frame.h), and
 * what the binary describes of its code objects (PyCode_Type's members)
 * overrides them.  Checked at first use by the thread states pointing back
 * at their interpreter.
 */
static const struct layout layout_311 = {
	.interp_head = 40, .interp_next = 0, .threads_head = 16,
	.ts_next = 8, .ts_interp = 16, .ts_native_tid = 160, .ts_cframe = 56, .current_frame = 8,
	.fr_code = 32, .fr_previous = 48, .fr_instr = 56, .fr_owner = 69, .fr_entry = 68,
	.str_state = 32, .str_ascii_data = 48, .str_compact_data = 72,
};
static const struct layout layout_312 = {
	.interp_head = 40, .interp_next = 0, .threads_head = 72,
	.ts_next = 8, .ts_interp = 16, .ts_native_tid = 144, .ts_cframe = 56, .current_frame = 0,
	.fr_code = 0, .fr_previous = 8, .fr_instr = 56, .fr_owner = 70, .fr_entry = NONE,
	.str_state = 32, .str_ascii_data = 40, .str_compact_data = 56,
};

struct code {
	uint64_t addr, name_p, file_p, table_p;
	int32_t first;
	uint32_t table_len;
	char *name, *file;
	uint8_t *table;
};

enum { PROC_NOT_PYTHON, PROC_UNCHECKED, PROC_READ };

struct pyproc {
	struct pyproc *next;
	uint32_t tgid;
	int state;
	int minor;
	int own_ns;			/* in a pid namespace of its own: its thread states hold its own tids */
	uint64_t runtime, code_type, unicode_type, bytes_type;
	struct layout l;
	uint64_t reads;
	int mem;			/* its /proc/PID/mem kept open (a reused pid reads nothing), or -1 */
	struct {
		uint32_t tid, nstid;
		uint64_t ts;		/* 0: none found at read `checked` */
		uint64_t checked;
	} threads[THREAD_SLOTS];
	struct code *codes;		/* CODE_SLOTS of them once its frames are read; NULL after a flush */
};

struct python {
	char proc[256];			/* the /proc to read: tests lay out their own */
	struct pyproc *buckets[PROC_BUCKETS];
	size_t nr_procs, nr_open;
	uint64_t noticed;		/* minor versions already told unsupported */
	struct python_stats st;
};

struct python *python__new(const char *proc_root)
{
	struct python *py = xcalloc(1, sizeof(*py));

	snprintf(py->proc, sizeof(py->proc), "%s", proc_root ? proc_root : "/proc");
	elf_version(EV_CURRENT);
	return py;
}

static void code_clear(struct python *py, struct code *c)
{
	py->st.code_bytes -= c->name ? strlen(c->name) + strlen(c->file) + 2 + c->table_len : 0;
	free(c->name);
	free(c->file);
	free(c->table);
	memset(c, 0, sizeof(*c));
}

static void codes_free(struct python *py, struct pyproc *p)
{
	if (!p->codes)
		return;
	for (size_t i = 0; i < CODE_SLOTS; i++)
		code_clear(py, &p->codes[i]);
	free(p->codes);
	p->codes = NULL;
	py->st.code_bytes -= CODE_SLOTS * sizeof(struct code);
}

static void proc_free(struct python *py, struct pyproc *p)
{
	codes_free(py, p);
	if (p->state != PROC_NOT_PYTHON)
		py->st.procs--;
	if (p->mem >= 0) {
		close(p->mem);
		py->nr_open--;
	}
	free(p);
}

static void forget_all(struct python *py)
{
	for (size_t b = 0; b < PROC_BUCKETS; b++)
		while (py->buckets[b]) {
			struct pyproc *p = py->buckets[b];

			py->buckets[b] = p->next;
			proc_free(py, p);
		}
	py->nr_procs = 0;
}

void python__free(struct python *py)
{
	if (!py)
		return;
	forget_all(py);
	free(py);
}

void python__forget(struct python *py, uint32_t tgid)
{
	struct pyproc **pp;

	if (!py)
		return;
	for (pp = &py->buckets[tgid % PROC_BUCKETS]; *pp; pp = &(*pp)->next)
		if ((*pp)->tgid == tgid) {
			struct pyproc *p = *pp;

			*pp = p->next;
			proc_free(py, p);
			py->nr_procs--;
			return;
		}
}

void python__stats(const struct python *py, struct python_stats *st)
{
	*st = py->st;
}

void python_stack__clear(struct python_stack *ps)
{
	for (size_t i = 0; i < ps->nr; i++)
		free(ps->seg[i]);
	ps->nr = 0;
}

/* Memory of the process */

static int rd(int fd, uint64_t addr, void *buf, size_t len)
{
	return addr && pread(fd, buf, len, (off_t)addr) == (ssize_t)len ? 0 : -EFAULT;
}

static uint64_t rd64(int fd, uint64_t addr)
{
	uint64_t v = 0;

	return rd(fd, addr, &v, sizeof(v)) ? 0 : v;
}

static uint64_t u64_at(const uint8_t *b, uint32_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* The interpreter's symbols in one ELF file, and its first PT_LOAD's address for the load bias. */
struct pysyms {
	uint64_t runtime, version, code_type, unicode_type, bytes_type, first_vaddr;
};

static void read_syms(int fd, const char *file, struct pysyms *s)
{
	static const char *const names[] = { "_PyRuntime", "Py_Version", "PyCode_Type", "PyUnicode_Type", "PyBytes_Type" };
	uint64_t *vals[] = { &s->runtime, &s->version, &s->code_type, &s->unicode_type, &s->bytes_type };
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	size_t phnum = 0;

	memset(s, 0, sizeof(*s));
	/* a user's file: its tables within the symbolizer's bounds, or not read */
	if (!elfcap__header(fd))
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && (elf_kind(elf) != ELF_K_ELF || elfcap__tables(elf, file))) {
		elf_end(elf);
		return;
	}
	if (!elf)
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 1; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    GELF_ST_TYPE(sym.st_info) != STT_OBJECT)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			for (size_t k = 0; name && k < ARRAY_SIZE(names); k++)
				if (!strcmp(name, names[k]))
					*vals[k] = sym.st_value;
		}
	}
	if (!elf_getphdrnum(elf, &phnum))
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
				s->first_vaddr = ph.p_vaddr & ~0xfffull;
				break;
			}
		}
	elf_end(elf);
}

/* "python3.11", "libpython3.12.so.1.0": the minor version the name says, or -1. */
static int minor_of_name(const char *base)
{
	int major, minor;

	if (!strncmp(base, "lib", 3))
		base += 3;
	return sscanf(base, "python%d.%d", &major, &minor) == 2 && major == 3 ? minor : -1;
}

static void notice(struct python *py, int minor)
{
	if (minor < 0 || minor > 63 || (py->noticed & (1ull << minor)))
		return;
	py->noticed |= 1ull << minor;
	tract_warn("python 3.%d: its own frames are not read (tract reads 3.11 to 3.13), native frames only", minor);
}

/*
 * The code objects' fields as the binary describes them (PyCode_Type's
 * tp_members, what Python's own introspection reads): a build whose layout
 * moved them still names the right ones.  tp_basicsize is where the
 * bytecode begins.
 */
static int code_members(int fd, struct pyproc *p)
{
	static const struct {
		const char *name;
		size_t off;
	} want[] = {
		{ "co_filename", offsetof(struct layout, co_filename) },
		{ "co_name", offsetof(struct layout, co_name) },
		{ "co_qualname", offsetof(struct layout, co_qualname) },
		{ "co_firstlineno", offsetof(struct layout, co_firstlineno) },
		{ "co_linetable", offsetof(struct layout, co_linetable) },
	};
	uint64_t basic = rd64(fd, p->code_type + 32), members = rd64(fd, p->code_type + 240);
	int found = 0;

	if (!basic || basic > 512 || !members)
		return -EINVAL;
	p->l.co_code = (uint32_t)basic;
	for (int i = 0; i < 64; i++) {
		uint8_t m[40];
		char name[24] = "";
		uint64_t off;

		if (rd(fd, members + 40ull * i, m, sizeof(m)) || !u64_at(m, 0))
			break;
		if (rd(fd, u64_at(m, 0), name, sizeof(name) - 1))
			continue;
		off = u64_at(m, 16);
		for (size_t k = 0; k < ARRAY_SIZE(want); k++)
			if (!strcmp(name, want[k].name) && off + 8 <= basic) {
				*(uint32_t *)((char *)&p->l + want[k].off) = (uint32_t)off;
				found |= 1 << k;
			}
	}
	return found == (1 << ARRAY_SIZE(want)) - 1 ? 0 : -EINVAL;
}

/*
 * 3.13's _Py_DebugOffsets at the start of _PyRuntime, meant for tools like
 * this one: its own layout is 3.13's (3.14 added fields), in 64-bit words
 * after the cookie.
 */
static int debug_offsets(int fd, struct pyproc *p, uint64_t version)
{
	uint64_t w[72];
	char cookie[8];

	if (rd(fd, p->runtime, cookie, sizeof(cookie)) || memcmp(cookie, "xdebugpy", 8) ||
	    rd(fd, p->runtime + 8, w, sizeof(w)))
		return -EINVAL;
	/* w[i] is word i + 1 of the struct */
#define W(i) (w[(i) - 1])
	if (W(1) != version || W(2) /* free_threaded */)
		return -EINVAL;
	for (int i = 3; i <= 70; i++)
		if (W(i) > (1u << 20))
			return -EINVAL;
	p->l = (struct layout){
		.interp_head = (uint32_t)W(5), .interp_next = (uint32_t)W(8), .threads_head = (uint32_t)W(9),
		.ts_next = (uint32_t)W(21), .ts_interp = (uint32_t)W(22), .ts_native_tid = (uint32_t)W(25),
		.ts_cframe = NONE, .current_frame = (uint32_t)W(23),
		.fr_code = (uint32_t)W(30), .fr_previous = (uint32_t)W(29), .fr_instr = (uint32_t)W(31),
		.fr_owner = (uint32_t)W(33), .fr_entry = NONE,
		.co_filename = (uint32_t)W(35), .co_name = (uint32_t)W(36), .co_qualname = (uint32_t)W(37),
		.co_linetable = (uint32_t)W(38), .co_firstlineno = (uint32_t)W(39), .co_code = (uint32_t)W(43),
		.str_state = (uint32_t)W(68), .str_ascii_data = (uint32_t)W(70),
		.str_compact_data = (uint32_t)W(70) + 16,
	};
#undef W
	return p->l.fr_owner < 96 && p->l.fr_previous < 96 && p->l.fr_instr < 96 && p->l.fr_code < 96 &&
	       p->l.co_code <= 512 ? 0 : -EINVAL;
}

static int open_mem(const struct python *py, uint32_t tgid)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%u/mem", py->proc, tgid);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/*
 * Whether process p runs a CPython that tract reads: the interpreter is the
 * executable or a libpython it maps, found by its name and then its
 * symbols.  The version is Py_Version (3.11 and later).
 */
static void probe(struct python *py, struct pyproc *p)
{
	char path[PATH_MAX], line[PATH_MAX + 128], tried[PATH_MAX] = "";
	struct pysyms s = { 0 };
	uint64_t bias = 0, version;
	int name_minor = -1, fd, mem;
	FILE *maps;

	snprintf(path, sizeof(path), "%s/%u/maps", py->proc, p->tgid);
	maps = fopen(path, "re");
	if (!maps)
		return;
	while (fgets(line, sizeof(line), maps)) {
		unsigned long long start, end, offset;
		char perms[8], file[PATH_MAX];
		const char *base;

		file[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &start, &end, perms, &offset, file) < 4 ||
		    file[0] != '/' || offset != 0 || !strcmp(file, tried))
			continue;
		base = strrchr(file, '/') + 1;
		if (strncmp(base, "python", 6) && strncmp(base, "libpython", 9))
			continue;
		snprintf(tried, sizeof(tried), "%s", file);
		if (minor_of_name(base) >= 0)
			name_minor = minor_of_name(base);
		fd = proc_file_open(py->proc, (pid_t)p->tgid, file);
		if (fd < 0)
			continue;
		read_syms(fd, file, &s);
		close(fd);
		if (s.runtime) {
			bias = start - s.first_vaddr;
			break;
		}
	}
	fclose(maps);
	if (!s.runtime)
		return;
	/* before 3.11 there is no Py_Version, and frames tract does not read */
	if (!s.version || !s.code_type || !s.unicode_type || !s.bytes_type) {
		notice(py, name_minor);
		return;
	}
	mem = open_mem(py, p->tgid);
	if (mem < 0)
		return;
	version = rd64(mem, s.version + bias);
	p->minor = (int)(version >> 16 & 0xff);
	p->runtime = s.runtime + bias;
	p->code_type = s.code_type + bias;
	p->unicode_type = s.unicode_type + bias;
	p->bytes_type = s.bytes_type + bias;
	if (version >> 24 != 3) {
		close(mem);
		return;
	}
	if (p->minor == 11 || p->minor == 12) {
		p->l = p->minor == 11 ? layout_311 : layout_312;
		if (code_members(mem, p)) {
			tract_debug("pid %u: python 3.%d code objects not as expected", p->tgid, p->minor);
			notice(py, p->minor);
			close(mem);
			return;
		}
	} else if (p->minor != 13 || debug_offsets(mem, p, version)) {
		notice(py, p->minor);
		close(mem);
		return;
	}
	close(mem);
	snprintf(path, sizeof(path), "%s/%u/status", py->proc, p->tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		char status[4096];
		ssize_t n = read(fd, status, sizeof(status) - 1);

		if (n > 0)
			p->own_ns = nspid_innermost(status, (size_t)n) != p->tgid;
		close(fd);
	}
	p->state = PROC_UNCHECKED;
	py->st.procs++;
}

static struct pyproc *proc_get(struct python *py, uint32_t tgid)
{
	struct pyproc *p;

	for (p = py->buckets[tgid % PROC_BUCKETS]; p; p = p->next)
		if (p->tgid == tgid)
			return p;
	/* bounded: a host of many short processes starts over, and asks the live ones again */
	if (py->nr_procs >= MAX_PROCS)
		forget_all(py);
	p = xcalloc(1, sizeof(*p));
	p->tgid = tgid;
	p->mem = -1;
	p->next = py->buckets[tgid % PROC_BUCKETS];
	py->buckets[tgid % PROC_BUCKETS] = p;
	py->nr_procs++;
	probe(py, p);
	return p;
}

/* The thread's tid as its own pid namespace counts it, which its thread state holds. */
static uint32_t own_tid(const struct python *py, const struct pyproc *p, uint32_t tid)
{
	char path[PATH_MAX], status[4096];
	ssize_t n = -1;
	int fd;

	if (!p->own_ns)
		return tid;
	snprintf(path, sizeof(path), "%s/%u/task/%u/status", py->proc, p->tgid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, status, sizeof(status) - 1);
	close(fd);
	return n > 0 ? nspid_innermost(status, (size_t)n) : 0;
}

/* The thread state of thread tid, or 0: cached, and checked at each use. */
static uint64_t thread_state(struct python *py, struct pyproc *p, int mem, uint32_t tid)
{
	const struct layout *l = &p->l;
	__typeof__(p->threads[0]) *slot = &p->threads[tid % THREAD_SLOTS];
	uint64_t interp;
	uint32_t nstid;

	if (slot->tid == tid) {
		if (slot->ts && rd64(mem, slot->ts + l->ts_native_tid) == slot->nstid)
			return slot->ts;
		if (!slot->ts && p->reads - slot->checked < RECHECK_READS)
			return 0;
	}
	nstid = own_tid(py, p, tid);
	slot->tid = tid;
	slot->nstid = nstid;
	slot->ts = 0;
	slot->checked = p->reads;
	if (!nstid)
		return 0;
	interp = rd64(mem, p->runtime + l->interp_head);
	for (int i = 0; interp && i < MAX_INTERPS; i++) {
		uint64_t ts = rd64(mem, interp + l->threads_head);

		for (int j = 0; ts && j < MAX_THREADS; j++) {
			if (rd64(mem, ts + l->ts_native_tid) == nstid && rd64(mem, ts + l->ts_interp) == interp) {
				slot->ts = ts;
				return ts;
			}
			ts = rd64(mem, ts + l->ts_next);
		}
		interp = rd64(mem, interp + l->interp_next);
	}
	return 0;
}

/*
 * The offsets checked once: the first thread state of the first
 * interpreter points back at it.  Not yet initialized: asked again later.
 */
static int check_layout(struct python *py, struct pyproc *p, int mem)
{
	const struct layout *l = &p->l;
	uint64_t interp = rd64(mem, p->runtime + l->interp_head), ts;

	if (!interp)
		return -EAGAIN;
	ts = rd64(mem, interp + l->threads_head);
	if (!ts)
		return -EAGAIN;
	if (rd64(mem, ts + l->ts_interp) != interp) {
		p->state = PROC_NOT_PYTHON;
		py->st.procs--;
		tract_debug("pid %u: python 3.%d thread states not as expected", p->tgid, p->minor);
		notice(py, p->minor);
		return -EINVAL;
	}
	p->state = PROC_READ;
	return 0;
}

/* A str object as UTF-8 into buf (made fit for a folded stack), or -1. */
static int read_str(const struct pyproc *p, int mem, uint64_t addr, size_t max_chars, char *buf, size_t cap)
{
	uint8_t hdr[48], data[4 * MAX_FILE];
	uint32_t state, kind;
	int64_t len;
	size_t n, o = 0;

	if (rd(mem, addr, hdr, sizeof(hdr)) || u64_at(hdr, 8) != p->unicode_type)
		return -1;
	len = (int64_t)u64_at(hdr, 16);
	memcpy(&state, hdr + p->l.str_state, sizeof(state));
	kind = state >> 2 & 7;
	/* a legacy (not compact) string keeps its characters elsewhere: code objects' names are compact */
	if (len < 0 || !(state >> 5 & 1) || (kind != 1 && kind != 2 && kind != 4))
		return -1;
	n = (size_t)len < max_chars ? (size_t)len : max_chars;
	if (rd(mem, addr + ((state >> 6 & 1) ? p->l.str_ascii_data : p->l.str_compact_data), data, n * kind))
		return -1;
	for (size_t i = 0; i < n && o + 5 < cap; i++) {
		uint32_t c = kind == 1 ? data[i] : kind == 2 ? (uint32_t)(data[2 * i] | data[2 * i + 1] << 8) :
			     (uint32_t)(data[4 * i] | data[4 * i + 1] << 8 | data[4 * i + 2] << 16 |
					(uint32_t)data[4 * i + 3] << 24);

		if (c == ';')
			buf[o++] = ':';	/* a folded stack's separator */
		else if (c < 0x80)
			buf[o++] = printable_byte((unsigned char)c);
		else if (c < 0x800) {
			buf[o++] = (char)(0xc0 | c >> 6);
			buf[o++] = (char)(0x80 | (c & 0x3f));
		} else if (c < 0x10000 && (c < 0xd800 || c > 0xdfff)) {
			buf[o++] = (char)(0xe0 | c >> 12);
			buf[o++] = (char)(0x80 | (c >> 6 & 0x3f));
			buf[o++] = (char)(0x80 | (c & 0x3f));
		} else if (c >= 0x10000 && c < 0x110000) {
			buf[o++] = (char)(0xf0 | c >> 18);
			buf[o++] = (char)(0x80 | (c >> 12 & 0x3f));
			buf[o++] = (char)(0x80 | (c >> 6 & 0x3f));
			buf[o++] = (char)(0x80 | (c & 0x3f));
		} else {
			buf[o++] = '?';	/* a lone surrogate (a file name's undecodable byte) */
		}
	}
	buf[o] = '\0';
	return 0;
}

static void flush_codes(struct python *py)
{
	for (size_t b = 0; b < PROC_BUCKETS; b++)
		for (struct pyproc *p = py->buckets[b]; p; p = p->next)
			codes_free(py, p);
}

/*
 * The code object at addr (its header in hdr): its name, file and line
 * table, kept by address while the object's own fields say it is the same.
 */
static const struct code *code_of(struct python *py, struct pyproc *p, int mem, uint64_t addr, const uint8_t *hdr)
{
	const struct layout *l = &p->l;
	size_t slot = (size_t)((addr >> 4) * 0x9e3779b97f4a7c15ull >> 56) & (CODE_SLOTS - 1), bytes;
	uint64_t name_p = u64_at(hdr, l->co_qualname), file_p = u64_at(hdr, l->co_filename);
	uint64_t table_p = u64_at(hdr, l->co_linetable), tlen;
	char name[4 * MAX_NAME + 8], file[4 * MAX_FILE + 8];
	uint8_t th[32], *table = NULL;
	struct code *c;
	int32_t first;

	memcpy(&first, hdr + l->co_firstlineno, sizeof(first));
	c = p->codes ? &p->codes[slot] : NULL;
	if (c && c->addr == addr && c->name_p == name_p && c->file_p == file_p && c->table_p == table_p &&
	    c->first == first)
		return c;
	if (read_str(p, mem, name_p, MAX_NAME, name, sizeof(name)) ||
	    read_str(p, mem, file_p, MAX_FILE, file, sizeof(file)))
		return NULL;
	/* the line table: a bytes object; none (no lines) where it is not one or too long */
	tlen = 0;
	if (!rd(mem, table_p, th, sizeof(th)) && u64_at(th, 8) == p->bytes_type && u64_at(th, 16) <= MAX_TABLE) {
		tlen = u64_at(th, 16);
		table = xcalloc(1, tlen ? tlen : 1);
		if (rd(mem, table_p + 32, table, tlen)) {
			free(table);
			table = NULL;
			tlen = 0;
		}
	}
	bytes = strlen(name) + strlen(file) + 2 + tlen;
	/* over the budget: all of it at once, rarely; what is still in use is read again */
	if (py->st.code_bytes + bytes + (p->codes ? 0 : CODE_SLOTS * sizeof(struct code)) > CODE_BUDGET)
		flush_codes(py);
	if (!p->codes) {
		p->codes = xcalloc(CODE_SLOTS, sizeof(*p->codes));
		py->st.code_bytes += CODE_SLOTS * sizeof(struct code);
	}
	c = &p->codes[slot];
	code_clear(py, c);
	c->addr = addr;
	c->name_p = name_p;
	c->file_p = file_p;
	c->table_p = table_p;
	c->first = first;
	c->table = table;
	c->table_len = (uint32_t)tlen;
	c->name = xstrdup(name);
	c->file = xstrdup(file);
	py->st.code_bytes += bytes;
	return c;
}

int python__line(const uint8_t *t, size_t len, int firstlineno, int64_t lasti)
{
	int64_t addr = 0, line = firstlineno;
	size_t i = 0;

	if (lasti < 0)
		return -1;
	while (i < len) {
		uint8_t b = t[i++];
		int code = b >> 3 & 15, units = (b & 7) + 1, delta = 0, none = 0;

		if (!(b & 0x80))
			return -1;	/* not the start of an entry: the table is not what it should be */
		if (code == 15) {
			none = 1;
		} else if (code == 13 || code == 14) {
			uint32_t v = 0;
			unsigned int shift = 0;
			uint8_t r;

			/* a signed varint: 6 bits a byte, 0x40 for more, the sign in the lowest bit */
			do {
				if (i >= len || shift > 30)
					return -1;
				r = t[i++];
				v |= (uint32_t)(r & 63) << shift;
				shift += 6;
			} while (r & 64);
			delta = (v & 1) ? -(int)(v >> 1) : (int)(v >> 1);
			/* the long form: end line, column and end column follow, unsigned varints */
			for (int k = 0; code == 14 && k < 3; k++)
				do {
					if (i >= len)
						return -1;
					r = t[i++];
				} while (r & 64);
		} else if (code >= 10) {
			delta = code - 10;
			i += 2;
		} else {
			i += 1;
		}
		line += delta;
		if (line < -(1ll << 31) || line > (1ll << 31) - 1)
			return -1;
		if (lasti < addr + units)
			return none ? -1 : (int)line;
		addr += units;
	}
	return -1;
}

/* Room for need more bytes in *buf. */
static void reserve(char **buf, size_t len, size_t *cap, size_t need)
{
	if (len + need > *cap) {
		*cap = (len + need) * 2;
		*buf = xrealloc(*buf, *cap);
	}
}

/*
 * "name (file:line)" and its NUL appended to *buf, now: a later code
 * object of the same stack may take the cache slot of this one.
 */
static void put_frame(char **buf, size_t *len, size_t *cap, const struct code *c, int line)
{
	reserve(buf, *len, cap, strlen(c->name) + strlen(c->file) + 32);
	if (line > 0)
		*len += (size_t)snprintf(*buf + *len, *cap - *len, "%s (%s:%d)", c->name, c->file, line) + 1;
	else
		*len += (size_t)snprintf(*buf + *len, *cap - *len, "%s (%s)", c->name, c->file) + 1;
}

size_t python__read(struct python *py, uint32_t tgid, uint32_t tid, uint32_t still, struct python_stack *out)
{
	size_t at[MAX_FRAMES];			/* each frame's text in names, innermost first */
	size_t ends[PYTHON_MAX_SEGMENTS];	/* at[] index after each segment's outermost */
	size_t nf = 0, nseg = 0, start = 0, nlen = 0, ncap = 0;
	char *names = NULL;
	uint64_t t0 = mono_ns(), ts, cur;
	struct pyproc *p = proc_get(py, tgid);
	const struct layout *l = &p->l;
	int mem, torn = 0;

	out->nr = 0;
	if (p->state == PROC_NOT_PYTHON)
		return 0;
	if (p->mem < 0 && py->nr_open < MAX_OPEN && (p->mem = open_mem(py, tgid)) >= 0)
		py->nr_open++;
	mem = p->mem >= 0 ? p->mem : open_mem(py, tgid);
	if (mem < 0)
		return 0;
	if (p->state == PROC_UNCHECKED && check_layout(py, p, mem)) {
		if (mem != p->mem)
			close(mem);
		return 0;
	}
	p->reads++;
	ts = thread_state(py, p, mem, tid);
	if (!ts) {
		if (mem != p->mem)
			close(mem);
		return 0;
	}
	/* a thread that ran on since its copy is not walked at all: asked again once its frames are read */
	if (!thread_still(py->proc, tgid, tid, still)) {
		if (mem != p->mem)
			close(mem);
		py->st.stacks++;
		py->st.moved++;
		py->st.ns += mono_ns() - t0;
		return 0;
	}
	if (l->ts_cframe != NONE)
		cur = rd64(mem, rd64(mem, ts + l->ts_cframe) + l->current_frame);
	else
		cur = rd64(mem, ts + l->current_frame);
	/* the frames, innermost first, each eval call's ended by its entry frame */
	for (int steps = 0; cur && steps < MAX_FRAMES + PYTHON_MAX_SEGMENTS && nseg < PYTHON_MAX_SEGMENTS; steps++) {
		uint8_t f[96], hdr[512];
		uint64_t code, instr;

		if (rd(mem, cur, f, sizeof(f))) {
			torn = 1;
			break;
		}
		code = u64_at(f, l->fr_code);
		instr = u64_at(f, l->fr_instr);
		if (l->fr_entry == NONE && f[l->fr_owner] == OWNED_BY_CSTACK) {
			ends[nseg++] = nf;
			start = nf;
			cur = u64_at(f, l->fr_previous);
			continue;
		}
		if (f[l->fr_owner] > OWNED_BY_CSTACK || rd(mem, code, hdr, l->co_code) ||
		    u64_at(hdr, 8) != p->code_type) {
			/* not a code object: the chain moved as it was read */
			torn = 1;
			break;
		}
		if (nf < MAX_FRAMES) {
			const struct code *c = code_of(py, p, mem, code, hdr);
			int64_t lasti = instr >= code + l->co_code ? (int64_t)(instr - code - l->co_code) / 2 : -1;

			if (!c) {
				torn = 1;
				break;
			}
			at[nf++] = nlen;
			put_frame(&names, &nlen, &ncap, c, c->table ? python__line(c->table, c->table_len, c->first, lasti) : -1);
		}
		if (l->fr_entry != NONE && f[l->fr_entry]) {
			ends[nseg++] = nf;
			start = nf;
		}
		cur = u64_at(f, l->fr_previous);
	}
	if (mem != p->mem)
		close(mem);
	if (nf > start && nseg < PYTHON_MAX_SEGMENTS)
		ends[nseg++] = nf;
	if (torn) {
		free(names);
		py->st.torn++;
		py->st.ns += mono_ns() - t0;
		return 0;
	}
	/* asked again: a thread still once they are read was still as they were read */
	py->st.stacks++;
	if (nseg && !thread_still(py->proc, tgid, tid, still)) {
		free(names);
		py->st.moved++;
		py->st.ns += mono_ns() - t0;
		return 0;
	}
	start = 0;
	for (size_t s = 0; s < nseg; s++) {
		char *buf = NULL;
		size_t len = 0, cap = 0;

		/* outermost first, as a folded stack reads */
		for (size_t i = ends[s]; i-- > start;) {
			size_t n = strlen(names + at[i]);

			reserve(&buf, len, &cap, n + 2);
			if (len)
				buf[len++] = ';';
			memcpy(buf + len, names + at[i], n + 1);
			len += n;
		}
		out->seg[s] = buf ? buf : xstrdup("");
		start = ends[s];
	}
	free(names);
	out->nr = nseg;
	py->st.ns += mono_ns() - t0;
	return nseg;
}

/* Whether the frame [s, s + n) is the interpreter's eval function (or its cold part). */
static int is_eval(const char *s, size_t n)
{
	static const char eval[] = "_PyEval_EvalFrameDefault";
	size_t e = sizeof(eval) - 1;

	return n >= e && !memcmp(s, eval, e) && (n == e || s[e] == '.');
}

char *python__merge(const char *folded, const struct python_stack *ps, int cut)
{
	size_t evals = 0, k, len = 0, cap;
	const char *f;
	char *out;

	if (!ps || !ps->nr)
		return NULL;
	for (f = folded; *f;) {
		size_t n = strcspn(f, ";");

		evals += is_eval(f, n);
		f += n + (f[n] == ';');
	}
	/* each eval call one segment; a cut walk may miss the outermost calls */
	if (!evals || (ps->nr != evals && !(cut && ps->nr > evals)))
		return NULL;
	cap = strlen(folded) + 1;
	for (size_t i = 0; i < evals; i++)
		cap += strlen(ps->seg[i]) + 1;
	out = xcalloc(1, cap);
	k = evals;
	for (f = folded; *f;) {
		size_t n = strcspn(f, ";");
		const char *text = f;
		size_t tn = n;

		/* the outermost eval frame is the last segment's */
		if (is_eval(f, n) && *ps->seg[--k]) {
			text = ps->seg[k];
			tn = strlen(text);
		}
		if (len)
			out[len++] = ';';
		memcpy(out + len, text, tn);
		len += tn;
		f += n + (f[n] == ';');
	}
	out[len] = '\0';
	return out;
}

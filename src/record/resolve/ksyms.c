// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clock.h"
#include "ksyms.h"
#include "util.h"

/* where a symbol marks the end of a region of code, not a function */
#define NOT_CODE UINT32_MAX
/* the least time between two readings for addresses that name nothing */
#define REREAD_NS (10 * NSEC_PER_SEC)

struct ksym {
	uint64_t addr;
	uint32_t name_off;	/* NOT_CODE past the end of the kernel's text */
};

struct ksyms {
	struct ksym *syms;
	size_t nr, cap;
	char *names;
	size_t names_len, names_cap;
	char *path;
	uint64_t read_ns;	/* when it was last read */
	/* the first reading, by a thread of its own (ksyms__load_async()) until waited for */
	pthread_t reader;
	int reading, read_err;
};

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void add_sym(struct ksyms *ks, uint64_t addr, const char *name, int code)
{
	size_t len = strlen(name) + 1;

	/* small at first, doubling: a host's 200,000 symbols take a few reallocations, a short file none */
	ARRAY_GROW(ks->syms, ks->nr, ks->cap, 1024);
	while (ks->names_len + len > ks->names_cap) {
		ks->names_cap = ks->names_cap ? ks->names_cap * 2 : 1 << 16;
		ks->names = xrealloc(ks->names, ks->names_cap);
	}
	memcpy(ks->names + ks->names_len, name, len);
	ks->syms[ks->nr].addr = addr;
	ks->syms[ks->nr].name_off = code ? ks->names_len : NOT_CODE;
	ks->names_len += len;
	ks->nr++;
}

/*
 * One line of the file, "ADDRESS TYPE NAME[\tMODULE]": 1 with the name
 * NUL-terminated in place (255 bytes at most), 0 where it is not such a
 * line.  By hand, not sscanf(): the file is 200,000 lines, read at every
 * start, and sscanf() was most of a start's time in user space.
 */
static int parse_line(char *line, uint64_t *addr, char *type, char **name)
{
	char *p = line, *end;
	uint64_t a = 0;
	int digits = 0;

	for (;; p++, digits++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0' : (*p | 0x20) >= 'a' && (*p | 0x20) <= 'f' ? (*p | 0x20) - 'a' + 10 : -1;

		if (d < 0)
			break;
		a = a << 4 | (uint64_t)d;
	}
	if (!digits || digits > 16 || (*p != ' ' && *p != '\t'))
		return 0;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '\n' || (p[1] != ' ' && p[1] != '\t'))
		return 0;
	*type = *p++;
	while (*p == ' ' || *p == '\t')
		p++;
	end = p + strcspn(p, " \t\n\r\v\f");
	if (end == p)
		return 0;
	if (end - p > 255)
		end = p + 255;
	*end = '\0';
	*addr = a;
	*name = p;
	return 1;
}

/*
 * The kernel's text, its modules' and the JIT'd BPF programs' (as
 * bpf_prog_<tag>_<name>, listed while net.core.bpf_jit_kallsyms is on);
 * 0, or -errno.
 */
static int read_kallsyms(struct ksyms *ks)
{
	char line[512], *name, type;
	uint64_t addr;
	FILE *f = fopen(ks->path, "re");

	if (!f)
		return -errno;
	ks->nr = ks->names_len = 0;
	while (fgets(line, sizeof(line), f)) {
		/* a name longer than the line (Rust's are long): its tail is no line of its own */
		if (!strchr(line, '\n') && !feof(f)) {
			int c;

			while ((c = fgetc(f)) != EOF && c != '\n')
				;
		}
		if (!parse_line(line, &addr, &type, &name))
			continue;
		/* only code: text symbols, local or global */
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (!addr)
			continue;
		/*
		 * The end of the kernel's text: what lies past it is a module's or
		 * a BPF program's, named by symbols of its own or by none.
		 */
		add_sym(ks, addr, name, strcmp(name, "_etext") && strcmp(name, "_einittext"));
	}
	fclose(f);
	ks->read_ns = mono_ns();
	if (!ks->nr)
		return -EPERM;	/* all addresses were zero: kptr_restrict hides them from us */
	qsort(ks->syms, ks->nr, sizeof(*ks->syms), cmp_ksym);
	return 0;
}

uint64_t ksyms__address(const struct ksyms *ks, const char *name)
{
	for (size_t i = 0; ks && i < ks->nr; i++)
		if (ks->syms[i].name_off != NOT_CODE && !strcmp(ks->names + ks->syms[i].name_off, name))
			return ks->syms[i].addr;
	return 0;
}

struct ksyms *ksyms__load(const char *path)
{
	struct ksyms *ks = xcalloc(1, sizeof(*ks));
	int err;

	ks->path = xstrdup(path ? path : "/proc/kallsyms");
	err = read_kallsyms(ks);
	if (err) {
		ksyms__free(ks);
		errno = -err;
		return NULL;
	}
	return ks;
}

static void *read_in_thread(void *arg)
{
	struct ksyms *ks = arg;

	ks->read_err = read_kallsyms(ks);
	return NULL;
}

struct ksyms *ksyms__load_async(const char *path)
{
	struct ksyms *ks = xcalloc(1, sizeof(*ks));

	ks->path = xstrdup(path ? path : "/proc/kallsyms");
	ks->reading = !pthread_create(&ks->reader, NULL, read_in_thread, ks);
	if (!ks->reading)
		ks->read_err = read_kallsyms(ks);
	return ks;
}

int ksyms__wait(struct ksyms *ks)
{
	if (ks->reading) {
		pthread_join(ks->reader, NULL);
		ks->reading = 0;
	}
	return ks->read_err;
}

void ksyms__add(struct ksyms *ks, const struct ksym_code *code, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (code[i].addr)
			add_sym(ks, code[i].addr, code[i].name, 1);
	qsort(ks->syms, ks->nr, sizeof(*ks->syms), cmp_ksym);
}

void ksyms__reread(struct ksyms *ks)
{
	struct ksyms fresh = { 0 };

	if (!ks)
		return;
	/*
	 * Into a table of its own: where the file cannot be read now (the
	 * recorder has dropped the privilege to see addresses), the last
	 * table stays, and the next try waits as long as after a reading.
	 */
	fresh.path = ks->path;
	if (read_kallsyms(&fresh)) {
		free(fresh.syms);
		free(fresh.names);
		ks->read_ns = mono_ns();
		return;
	}
	free(ks->syms);
	free(ks->names);
	*ks = fresh;
}

void ksyms__free(struct ksyms *ks)
{
	if (!ks)
		return;
	ksyms__wait(ks);
	free(ks->syms);
	free(ks->names);
	free(ks->path);
	free(ks);
}

const char *ksyms__lookup(const struct ksyms *ks, uint64_t addr, uint64_t *offset)
{
	size_t lo = 0, hi;

	if (!ks || !ks->nr || addr < ks->syms[0].addr)
		return NULL;
	hi = ks->nr;
	/* the last symbol whose address is <= addr */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (ks->syms[lo].name_off == NOT_CODE)
		return NULL;
	if (offset)
		*offset = addr - ks->syms[lo].addr;
	return ks->names + ks->syms[lo].name_off;
}

const char *ksyms__name(struct ksyms *ks, uint64_t addr)
{
	const char *name = ksyms__lookup(ks, addr, NULL);

	/* code loaded since (a BPF program, a module): read again, now and then; a table never read stays empty */
	if (!name && ks && ks->nr && mono_ns() - ks->read_ns >= REREAD_NS) {
		ksyms__reread(ks);
		name = ksyms__lookup(ks, addr, NULL);
	}
	return name;
}

// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ksyms.h"
#include "util.h"

struct ksym {
	uint64_t addr;
	uint32_t name_off;
};

struct ksyms {
	struct ksym *syms;
	size_t nr, cap;
	char *names;
	size_t names_len, names_cap;
};

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void add_sym(struct ksyms *ks, uint64_t addr, const char *name)
{
	size_t len = strlen(name) + 1;

	if (ks->nr == ks->cap) {
		ks->cap = ks->cap ? ks->cap * 2 : 65536;
		ks->syms = xrealloc(ks->syms, ks->cap * sizeof(*ks->syms));
	}
	if (ks->names_len + len > ks->names_cap) {
		ks->names_cap = ks->names_cap ? ks->names_cap * 2 : 1 << 22;
		ks->names = xrealloc(ks->names, ks->names_cap);
	}
	memcpy(ks->names + ks->names_len, name, len);
	ks->syms[ks->nr].addr = addr;
	ks->syms[ks->nr].name_off = ks->names_len;
	ks->names_len += len;
	ks->nr++;
}

struct ksyms *ksyms__load(const char *path)
{
	char line[512], name[256], type;
	unsigned long long addr;
	struct ksyms *ks;
	FILE *f;

	f = fopen(path ? path : "/proc/kallsyms", "re");
	if (!f)
		return NULL;
	ks = xcalloc(1, sizeof(*ks));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		/* only code: text symbols, local or global */
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (!addr)
			continue;
		add_sym(ks, addr, name);
	}
	fclose(f);
	if (!ks->nr) {
		/* all addresses were zero: kptr_restrict hides them from us */
		ksyms__free(ks);
		errno = EPERM;
		return NULL;
	}
	qsort(ks->syms, ks->nr, sizeof(*ks->syms), cmp_ksym);
	return ks;
}

void ksyms__free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->names);
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
	if (offset)
		*offset = addr - ks->syms[lo].addr;
	return ks->names + ks->syms[lo].name_off;
}

// SPDX-License-Identifier: GPL-2.0-only
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>
#include "dict.h"
#include "inlines.h"
#include "util.h"

/* addresses remembered per module before the cache starts over */
#define INLINES_CACHE_MAX 65536
#define INLINES_TEXT_MAX 4096
/* what a dictionary entry costs beside its key: its slot, its id's entry, its key's allocation */
#define ENTRY_BYTES 128

struct inlines {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct dict *by_addr;	/* address -> its answer, in names */
	struct dict *names;	/* the answers, one copy each */
	size_t names_bytes;	/* the answers' text */
	int broken;		/* dwarf_getscopes() failed: the DWARF is damaged */
	char text[INLINES_TEXT_MAX];
};

struct inlines *inlines__open(Dwfl *dwfl, Dwfl_Module *mod)
{
	struct inlines *in;
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(mod, &bias);
	Dwarf_Off off;
	size_t hsize;

	/* no compile unit: nothing was ever inlined that it could tell */
	if (!dw || dwarf_nextcu(dw, 0, &off, &hsize, NULL, NULL, NULL))
		return NULL;
	in = xcalloc(1, sizeof(*in));
	in->dwfl = dwfl;
	in->mod = mod;
	in->by_addr = dict__new();
	in->names = dict__new();
	return in;
}

size_t inlines__files(const struct inlines *in, Elf **elves)
{
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(in->mod, &bias);
	size_t n = 0;

	elves[n] = dwfl_module_getelf(in->mod, &bias);
	n += elves[n] != NULL;
	elves[n] = dw ? dwarf_getelf(dw) : NULL;
	n += elves[n] != NULL && (!n || elves[n] != elves[0]);
	return n;
}

void inlines__free(struct inlines *in)
{
	if (!in)
		return;
	dwfl_end(in->dwfl);
	dict__free(in->by_addr);
	dict__free(in->names);
	free(in);
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;

	/* an inlined instance's name is its abstract origin's */
	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
}

/*
 * The calls inlined at addr, innermost first, up to the function they are
 * in.  dwarf_getscopes() goes from an inlined instance to its abstract
 * definition; the physical chain of instances around it, as addr2line -i
 * walks it, comes from dwarf_getscopes_die() on the innermost one.  A
 * function inlined into itself (GCC splits some so) is one frame.
 */
static void look_up(struct inlines *in, uint64_t addr)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(in->mod, addr, &bias), *scopes = NULL, *chain = NULL;
	int n = cu ? dwarf_getscopes(cu, addr - bias, &scopes) : 0, m = 0;
	size_t len = 0;

	in->text[0] = '\0';
	/*
	 * libdw (0.188) leaks its list of scopes when it fails on damaged
	 * DWARF: once per module, not once per address
	 */
	if (n < 0)
		in->broken = 1;
	for (int i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			break;
		if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine) {
			m = dwarf_getscopes_die(&scopes[i], &chain);
			break;
		}
	}
	for (int i = 0; i < m; i++) {
		const char *name, *outer = NULL;
		size_t l;

		if (dwarf_tag(&chain[i]) != DW_TAG_inlined_subroutine)
			continue;
		for (int j = i + 1; j < m && !outer; j++)
			if (dwarf_tag(&chain[j]) == DW_TAG_inlined_subroutine || dwarf_tag(&chain[j]) == DW_TAG_subprogram)
				outer = die_name(&chain[j]);
		name = die_name(&chain[i]);
		if (!name)
			name = "[inlined]";
		if (outer && !strcmp(name, outer))
			continue;
		l = strlen(name);
		if (len + l + 2 > sizeof(in->text))
			break;
		memcpy(in->text + len, name, l);
		len += l;
		in->text[len++] = '\n';
		in->text[len] = '\0';
	}
	free(chain);
	free(scopes);
}

const char *inlines__at(struct inlines *in, uint64_t addr)
{
	uint32_t id = dict__find(in->by_addr, &addr, sizeof(addr));
	int added;

	if (id)
		return (const char *)(uintptr_t)*dict__value(in->by_addr, id);
	if (in->broken)
		return "";
	look_up(in, addr);
	if (dict__size(in->by_addr) >= INLINES_CACHE_MAX) {
		dict__clear(in->by_addr);
		dict__clear(in->names);
		in->names_bytes = 0;
	}
	id = dict__intern(in->by_addr, &addr, sizeof(addr), &added);
	if (!dict__find(in->names, in->text, strlen(in->text) + 1))
		in->names_bytes += strlen(in->text) + 1;
	*dict__value(in->by_addr, id) = (uintptr_t)dict__intern_str(in->names, in->text);
	return (const char *)(uintptr_t)*dict__value(in->by_addr, id);
}

size_t inlines__bytes(const struct inlines *in)
{
	if (!in)
		return 0;
	return (dict__size(in->by_addr) + dict__size(in->names)) * ENTRY_BYTES + in->names_bytes;
}

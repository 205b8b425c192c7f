// SPDX-License-Identifier: GPL-2.0-only
/*
 * Go function tables built here in each layout (Go 1.2, 1.16, 1.18, 1.20):
 * names and ranges read, the runtime's outermost functions told (by flag
 * and by name), a position-independent table's text start taken from the
 * section; and tables that lie: a bad magic, counts beyond the section,
 * entries out of order or outside the text, offsets past the end, names
 * unterminated or unprintable.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>
#include "gopclntab.h"

#define TEXT 0x401000ull
#define NAMES 4096	/* where build() puts the names */

struct fn {
	uint32_t off, size;	/* from TEXT */
	const char *name;
	uint8_t flag;
};

static const struct fn funcs[] = {
	{ 0x000, 0x40, "runtime.text", 0 },
	{ 0x040, 0x60, "runtime.goexit.abi0", 0 },	/* by name, whatever the flag */
	{ 0x0a0, 0x20, "runtime.mstart", 1 },
	{ 0x0c0, 0x100, "main.handleWork", 0 },
	{ 0x1c0, 0x40, "main.(*server).ServeHTTP", 0 },
};
#define NFUNCS (sizeof(funcs) / sizeof(funcs[0]))

static uint8_t tab[8192];

static void put(size_t off, uint64_t v, unsigned int width)
{
	memcpy(tab + off, &v, width);	/* little-endian, as the tests run */
}

/*
 * A table of version v (12, 116, 118 or 120) over funcs; text_start: what
 * a 1.18 header says (0 for a PIE).  Returns its size.
 */
static size_t build(int v, uint64_t text_start)
{
	unsigned int word = v >= 118 ? 4 : 8, funcid = v == 12 ? 0 : v == 118 ? 36 : 40;
	uint32_t magic = v == 12 ? GOPCLNTAB_MAGIC_12 : v == 116 ? GOPCLNTAB_MAGIC_116 :
			 v == 118 ? GOPCLNTAB_MAGIC_118 : GOPCLNTAB_MAGIC_120;
	size_t names, functab, recs, at;

	memset(tab, 0, sizeof(tab));
	put(0, magic, 4);
	tab[6] = 1;
	tab[7] = 8;
	put(8, NFUNCS, 8);
	names = NAMES;
	functab = v == 12 ? 16 : 2048;
	recs = functab + (NFUNCS + 1) * 2 * word + 64;
	if (v != 12) {
		unsigned int h = v == 116 ? 16 : 24;

		if (v >= 118)
			put(24, text_start, 8);
		put(h + 8, names, 8);
		put(h + 40, functab, 8);
	}
	at = names;
	for (size_t i = 0; i < NFUNCS; i++) {
		uint64_t entry = v >= 118 ? funcs[i].off : TEXT + funcs[i].off;
		/* offsets from the function table, or from the whole table in 1.2 */
		size_t base = v == 12 ? 0 : functab, rec = recs + i * 64;
		size_t e = functab + i * 2 * word;

		put(e, entry, word);
		put(e + word, rec - base, word);
		put(rec, entry, word);
		put(rec + word, at - (v == 12 ? 0 : names), 4);
		if (funcid)
			tab[rec + funcid + 1] = funcs[i].flag;
		strcpy((char *)tab + at, funcs[i].name);
		at += strlen(funcs[i].name) + 1;
	}
	put(functab + NFUNCS * 2 * word,
	    (v >= 118 ? 0 : TEXT) + funcs[NFUNCS - 1].off + funcs[NFUNCS - 1].size, word);
	return at;
}

struct got {
	struct gopclntab_func f[16];
	char names[16][64];
	int n;
};

static int collect(const struct gopclntab_func *f, void *arg)
{
	struct got *g = arg;

	assert_true(g->n < 16);
	g->f[g->n] = *f;
	assert_true(f->name_len < 64);
	memcpy(g->names[g->n], f->name, f->name_len);
	g->names[g->n][f->name_len] = 0;
	g->n++;
	return 0;
}

static void check_all(int v, uint64_t text_start)
{
	size_t size = build(v, text_start);
	struct got g = { 0 };

	assert_int_equal(gopclntab__read(tab, size, TEXT, TEXT + 0x1000, collect, &g), NFUNCS);
	assert_int_equal(g.n, NFUNCS);
	for (size_t i = 0; i < NFUNCS; i++) {
		assert_string_equal(g.names[i], funcs[i].name);
		assert_int_equal(g.f[i].entry, TEXT + funcs[i].off);
		assert_int_equal(g.f[i].end, TEXT + funcs[i].off + funcs[i].size);
		/* goexit by its name in every version, mstart by the flag from 1.17 (and by name) */
		assert_int_equal(g.f[i].outermost, i == 1 || i == 2);
	}
}

static void every_layout(void **state)
{
	(void)state;
	check_all(12, 0);
	check_all(116, 0);
	check_all(118, TEXT);
	check_all(120, TEXT);
}

/* a PIE's table says 0 until it is relocated: the section's address stands in */
static void pie_text_start(void **state)
{
	(void)state;
	check_all(118, 0);
}

static int stop_at_two(const struct gopclntab_func *f, void *arg)
{
	(void)f;
	return ++*(int *)arg == 2;
}

static void callback_stops(void **state)
{
	size_t size = build(118, TEXT);
	int n = 0;

	(void)state;
	assert_int_equal(gopclntab__read(tab, size, TEXT, TEXT + 0x1000, stop_at_two, &n), 2);
}

static int none(const struct gopclntab_func *f, void *arg)
{
	(void)f, (void)arg;
	return 0;
}

/* where function i's record is in a table of build(118 or 120) */
#define REC(i) (2048 + (NFUNCS + 1) * 8 + 64 + (i) * 64)
#define BAD(size) assert_int_equal(gopclntab__read(tab, (size), TEXT, TEXT + 0x1000, none, NULL), -EINVAL)

static void lies(void **state)
{
	size_t size;

	(void)state;
	size = build(118, TEXT);
	put(0, 0xfffffff5, 4);
	BAD(size);
	/* 32-bit pointers, a zero quantum */
	size = build(118, TEXT);
	tab[7] = 4;
	BAD(size);
	size = build(118, TEXT);
	tab[6] = 0;
	BAD(size);
	/* more functions than the section holds, or than any program has */
	size = build(118, TEXT);
	put(8, 1000000, 8);
	BAD(size);
	put(8, (uint64_t)GOPCLNTAB_MAX_FUNCS + 1, 8);
	BAD(size);
	put(8, 0, 8);
	BAD(size);
	/* the function table past the end */
	size = build(116, 0);
	put(16 + 40, size - 8, 8);
	BAD(size);
	/* entries out of order */
	size = build(118, TEXT);
	put(2048 + 8, 0x10, 4);
	BAD(size);
	/* outside the text */
	size = build(12, 0);
	assert_int_equal(gopclntab__read(tab, size, TEXT + 0x40, TEXT + 0x1000, none, NULL), -EINVAL);
	assert_int_equal(gopclntab__read(tab, size, TEXT, TEXT + 0x100, none, NULL), -EINVAL);
	/* a record that disagrees with the table on its entry */
	size = build(118, TEXT);
	put(REC(1), 0x44, 4);
	BAD(size);
	/* a function record past the end */
	size = build(120, TEXT);
	put(2048 + 4, 0xfffffff0, 4);
	BAD(size);
	/* a name offset past the end, an unterminated name, an unprintable one, an empty one */
	size = build(118, TEXT);
	put(REC(0) + 4, 0x7ffffff0, 4);
	BAD(size);
	size = build(118, TEXT);
	memset(tab + NAMES, 'x', GOPCLNTAB_MAX_NAME + 1);
	BAD(size);
	size = build(118, TEXT);
	tab[NAMES + 2] = '\n';
	BAD(size);
	size = build(118, TEXT);
	tab[NAMES] = 0;
	BAD(size);
	/* too short, too big, no text */
	BAD(15);
	assert_int_equal(gopclntab__read(tab, (size_t)GOPCLNTAB_MAX_BYTES + 1, TEXT, TEXT + 0x1000, none, NULL),
			 -EINVAL);
	assert_int_equal(gopclntab__read(tab, size, TEXT, TEXT, none, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_layout),
		cmocka_unit_test(pie_text_start),
		cmocka_unit_test(callback_stops),
		cmocka_unit_test(lies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: a Go function table as a binary may carry it, the
 * text's bounds in its first 16 bytes; every function read must lie in the
 * text, in order, with a name within the table and its bound.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gopclntab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	const uint8_t *lo, *hi;
	uint64_t text_lo, text_hi, prev_end;
};

static int check(const struct gopclntab_func *f, void *arg)
{
	struct seen *s = arg;
	const uint8_t *name = (const uint8_t *)f->name;

	if (f->entry < s->prev_end || f->end <= f->entry || f->entry < s->text_lo || f->end > s->text_hi)
		abort();
	if (!f->name_len || f->name_len > GOPCLNTAB_MAX_NAME || name < s->lo || name + f->name_len >= s->hi ||
	    memchr(f->name, 0, f->name_len) || name[f->name_len])
		abort();
	s->prev_end = f->end;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen s;
	uint8_t *tab;
	int n;

	if (size < 16)
		return 0;
	memcpy(&s.text_lo, data, 8);
	memcpy(&s.text_hi, data + 8, 8);
	/* a copy of its own size: reads past the table show as overflows */
	tab = malloc(size - 16 ? size - 16 : 1);
	if (!tab)
		abort();
	memcpy(tab, data + 16, size - 16);
	s.lo = tab;
	s.hi = tab + (size - 16);
	s.prev_end = 0;
	n = gopclntab__read(tab, size - 16, s.text_lo, s.text_hi, check, &s);
	if (n < -EINVAL || n > (int)GOPCLNTAB_MAX_FUNCS)
		abort();
	free(tab);
	return 0;
}

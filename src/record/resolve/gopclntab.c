// SPDX-License-Identifier: GPL-2.0-only
/*
 * The layout, as Go's runtime/symtab.go and debug/gosym read it:
 *
 *   header   magic u32, pad u8 u8, quantum u8, pointer size u8, then words:
 *            1.2:  nfunc, and the function table right after it
 *            1.16: nfunc nfiles funcnameOffset cuOffset filetabOffset
 *                  pctabOffset pclnOffset
 *            1.18: nfunc nfiles textStart funcnameOffset cuOffset
 *                  filetabOffset pctabOffset pclnOffset
 *   functab  nfunc + 1 pairs (entry, funcoff): words before 1.18, u32 after
 *            (entry an offset from textStart); the last entry is where the
 *            last function ends.  funcoff counts from the table's start
 *            (1.2) or from pclnOffset.
 *   _func    entry (a word before 1.18, u32 after), nameoff i32 into the
 *            name table (the whole table in 1.2), ... funcID u8 and flag u8
 *            after nine fields (ten from 1.20: startLine).
 */
#include <errno.h>
#include <string.h>
#include "gopclntab.h"

#define FLAG_TOPFRAME	1	/* funcFlag_TOPFRAME, Go 1.17 and later */

struct table {
	const uint8_t *p;
	size_t size;
};

/* A u32 or u64 at off, if the table holds it. */
static int get(const struct table *t, uint64_t off, unsigned int width, uint64_t *v)
{
	uint32_t v32;

	if (off > t->size || t->size - off < width)
		return -1;
	if (width == 4) {
		memcpy(&v32, t->p + off, 4);
		*v = v32;
	} else {
		memcpy(v, t->p + off, 8);
	}
	return 0;
}

/* The name at off: NUL-terminated within the table and GOPCLNTAB_MAX_NAME, printable, not empty. */
static int name_at(const struct table *t, uint64_t off, const char **name, uint32_t *len)
{
	const uint8_t *s, *nul;
	size_t room;

	if (off >= t->size)
		return -1;
	s = t->p + off;
	room = t->size - off;
	if (room > GOPCLNTAB_MAX_NAME + 1)
		room = GOPCLNTAB_MAX_NAME + 1;
	nul = memchr(s, 0, room);
	if (!nul || nul == s)
		return -1;
	for (const uint8_t *c = s; c < nul; c++)
		if (*c < 0x20 || *c == 0x7f)
			return -1;
	*name = (const char *)s;
	*len = (uint32_t)(nul - s);
	return 0;
}

/* The runtime's outermost functions, for tables older than the flag that marks them. */
static int outermost_name(const char *name, uint32_t len)
{
	static const char *const top[] = { "runtime.goexit", "runtime.mstart", "runtime.rt0_go" };

	if (len > 5 && !memcmp(name + len - 5, ".abi0", 5))
		len -= 5;
	for (size_t i = 0; i < sizeof(top) / sizeof(top[0]); i++)
		if (strlen(top[i]) == len && !memcmp(name, top[i], len))
			return 1;
	return 0;
}

int gopclntab__read(const void *data, size_t size, uint64_t text_lo, uint64_t text_hi, gopclntab_fn fn, void *arg)
{
	struct table t = { .p = data, .size = size };
	uint64_t magic, nfunc, text_start = 0, names = 0, functab, funcs = 0, prev_end = 0;
	unsigned int word, funcid_off;
	int version, n = 0;

	if (!data || size < 16 || size > GOPCLNTAB_MAX_BYTES || text_lo >= text_hi || get(&t, 0, 4, &magic))
		return -EINVAL;
	switch (magic) {
	case GOPCLNTAB_MAGIC_12:
		version = 12;
		break;
	case GOPCLNTAB_MAGIC_116:
		version = 116;
		break;
	case GOPCLNTAB_MAGIC_118:
		version = 118;
		break;
	case GOPCLNTAB_MAGIC_120:
		version = 120;
		break;
	default:
		return -EINVAL;
	}
	/* pad, pad, an instruction quantum of 1 (x86) to 4, 8-byte pointers */
	if (t.p[4] || t.p[5] || !t.p[6] || t.p[6] > 4 || t.p[7] != 8 || get(&t, 8, 8, &nfunc))
		return -EINVAL;
	if (!nfunc || nfunc > GOPCLNTAB_MAX_FUNCS)
		return -EINVAL;
	if (version == 12) {
		functab = 16;
		funcs = 0;
		names = 0;
	} else {
		/* the header words after nfunc and nfiles; offsets count from the table's start */
		unsigned int h = version == 116 ? 16 : 24;
		uint64_t pcln;

		if (version >= 118 && get(&t, 24, 8, &text_start))
			return -EINVAL;
		if (get(&t, h + 8, 8, &names) || get(&t, h + 40, 8, &pcln) || names >= size || pcln >= size)
			return -EINVAL;
		functab = funcs = pcln;
	}
	word = version >= 118 ? 4 : 8;
	/* a position-independent binary's table holds 0 until the loader relocates it */
	if (version >= 118 && !text_start)
		text_start = text_lo;
	/* the function table whole, nfunc + 1 entries of two words, before any is read */
	if (functab > size || (size - functab) / (2 * word) < nfunc + 1)
		return -EINVAL;
	funcid_off = version == 12 ? 0 : version == 116 ? 40 : version == 118 ? 36 : 40;
	for (uint64_t i = 0; i < nfunc; i++) {
		uint64_t e = functab + i * 2 * word, entry, funcoff, end, f, fentry, nameoff, flag = 0;
		struct gopclntab_func gf = { 0 };

		if (get(&t, e, word, &entry) || get(&t, e + word, word, &funcoff) ||
		    get(&t, e + 2 * word, word, &end))
			return -EINVAL;
		if (word == 4) {
			entry += text_start;
			end += text_start;
		}
		/* in order, inside the text: anything else is not Go's table */
		if (entry < prev_end || end < entry || entry < text_lo || end > text_hi)
			return -EINVAL;
		prev_end = end;
		if (funcoff > size - funcs)
			return -EINVAL;
		f = funcs + funcoff;
		/* the function's own record agrees on where it starts */
		if (get(&t, f, word, &fentry) || get(&t, f + word, 4, &nameoff))
			return -EINVAL;
		if (word == 4)
			fentry += text_start;
		if (fentry != entry || nameoff > size - names)
			return -EINVAL;
		if (name_at(&t, names + nameoff, &gf.name, &gf.name_len))
			return -EINVAL;
		if (funcid_off && get(&t, f + funcid_off, 4, &flag))
			flag = 0;
		gf.entry = entry;
		gf.end = end;
		gf.outermost = ((flag >> 8) & FLAG_TOPFRAME) || outermost_name(gf.name, gf.name_len);
		if (end == entry)
			continue;
		n++;
		if (fn(&gf, arg))
			break;
	}
	return n;
}

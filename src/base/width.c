// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cells per character from the Unicode East Asian Width property (W and F)
 * and the combining marks, in ranges: what terminals draw, without asking
 * the locale, so a table lines up whatever LANG says.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "util.h"
#include "width.h"

struct range {
	uint32_t lo, hi;
};

static const struct range zero[] = {
	{ 0x0300, 0x036f }, { 0x0483, 0x0489 }, { 0x0591, 0x05bd }, { 0x0610, 0x061a }, { 0x064b, 0x065f },
	{ 0x0e31, 0x0e31 }, { 0x0e34, 0x0e3a }, { 0x1ab0, 0x1aff }, { 0x1dc0, 0x1dff }, { 0x200b, 0x200f },
	{ 0x20d0, 0x20ff }, { 0xfe00, 0xfe0f }, { 0xfe20, 0xfe2f }, { 0xe0100, 0xe01ef },
};

static const struct range wide[] = {
	{ 0x1100, 0x115f }, { 0x231a, 0x231b }, { 0x2329, 0x232a }, { 0x23e9, 0x23ec }, { 0x2614, 0x2615 },
	{ 0x2e80, 0x303e }, { 0x3041, 0x33ff }, { 0x3400, 0x4dbf }, { 0x4e00, 0x9fff }, { 0xa000, 0xa4cf },
	{ 0xa960, 0xa97f }, { 0xac00, 0xd7a3 }, { 0xf900, 0xfaff }, { 0xfe10, 0xfe19 }, { 0xfe30, 0xfe6f },
	{ 0xff00, 0xff60 }, { 0xffe0, 0xffe6 }, { 0x1f300, 0x1f64f }, { 0x1f900, 0x1f9ff }, { 0x20000, 0x2fffd },
	{ 0x30000, 0x3fffd },
};

static int in(const struct range *r, size_t n, uint32_t c)
{
	for (size_t i = 0; i < n; i++)
		if (c >= r[i].lo && c <= r[i].hi)
			return 1;
	return 0;
}

/* One character at s: its length in bytes (1 for an invalid byte) and code point. */
static size_t decode(const unsigned char *s, size_t len, uint32_t *c)
{
	size_t n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;

	if (!n || n > len) {
		*c = 0xfffd;
		return 1;
	}
	*c = n == 1 ? s[0] : s[0] & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*c = 0xfffd;
			return 1;
		}
		*c = *c << 6 | (s[i] & 0x3f);
	}
	return n;
}

size_t text_char(const char *s, size_t len, int *control)
{
	unsigned char b = (unsigned char)s[0];
	uint32_t c;
	size_t n = decode((const unsigned char *)s, len, &c);

	/* a bare byte of 0x80..0x9f is C1 to a terminal that is not UTF-8 */
	*control = c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || (b >= 0x80 && b < 0xa0);
	return n;
}

size_t text_printable(char *dst, const char *s, size_t len)
{
	size_t o = 0;

	for (size_t i = 0, n; i < len; i += n) {
		int control;

		n = text_char(s + i, len - i, &control);
		if (control) {
			dst[o++] = '?';
		} else {
			memcpy(dst + o, s + i, n);
			o += n;
		}
	}
	dst[o] = '\0';
	return o;
}

static size_t cells_of(uint32_t c)
{
	if (in(zero, sizeof(zero) / sizeof(zero[0]), c))
		return 0;
	return in(wide, sizeof(wide) / sizeof(wide[0]), c) ? 2 : 1;
}

size_t text_cells(const char *s, size_t len)
{
	size_t cells = 0;

	for (size_t i = 0; i < len;) {
		uint32_t c;

		i += decode((const unsigned char *)s + i, len - i, &c);
		cells += cells_of(c);
	}
	return cells;
}

size_t text_fit(const char *s, size_t cells)
{
	size_t i = 0, used = 0, len = 0;

	while (s[len])
		len++;
	while (i < len) {
		uint32_t c;
		size_t n = decode((const unsigned char *)s + i, len - i, &c), w = cells_of(c);

		if (used + w > cells)
			break;
		used += w;
		i += n;
	}
	return i;
}

/* The byte offset of the shortest tail of s[0, len) that fits in cells cells. */
static size_t tail_fit(const char *s, size_t len, size_t cells)
{
	size_t total = text_cells(s, len), i = 0;

	while (i < len && total > cells) {
		uint32_t c;

		i += decode((const unsigned char *)s + i, len - i, &c);
		total -= cells_of(c);
	}
	return i;
}

char *text_cut(const char *s, size_t cells, int stack, int utf8)
{
	const char *mark = utf8 ? "\xe2\x80\xa6" : "~";
	size_t len = strlen(s), room = cells ? cells - 1 : 0, n;
	char *out;

	if (text_cells(s, len) <= cells)
		return xstrdup(s);
	out = xcalloc(1, len + 4);
	if (stack) {
		size_t from = tail_fit(s, len, room);
		const char *frame = memchr(s + from, ';', len - from);

		/* begin on a whole frame, its ';' showing that frames were cut */
		if (frame && frame + 1 < s + len)
			from = (size_t)(frame - s);
		snprintf(out, len + 4, "%s%s", cells ? mark : "", s + from);
		return out;
	}
	n = text_fit(s, room);
	snprintf(out, len + 4, "%.*s%s", (int)n, s, cells ? mark : "");
	return out;
}

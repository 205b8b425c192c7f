// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "progress.h"
#include "util.h"

int tract_verbose;

/*
 * A message is one line, whatever it quotes: a server's answer or a
 * file's contents may hold newlines and control bytes, which become spaces.
 */
__attribute__((format(printf, 2, 0)))
static void vsay(const char *prefix, const char *fmt, va_list ap)
{
	char small[1024], *line = small;
	va_list again;
	int len;

	/* a message on a line of its own, not after a progress line */
	progress_clear();
	va_copy(again, ap);
	len = vsnprintf(small, sizeof(small), fmt, ap);
	if (len < 0)
		small[0] = '\0';
	if (len >= (int)sizeof(small) && (line = malloc((size_t)len + 1)))
		vsnprintf(line, (size_t)len + 1, fmt, again);
	va_end(again);
	if (!line)
		line = small;
	/*
	 * a message may quote what a file holds: no control reaches the
	 * terminal, C1 ones (CSI is 0x9b) neither, bare or as UTF-8
	 */
	for (unsigned char *c = (unsigned char *)line; *c; c++) {
		size_t more = *c >= 0xf0 ? 3 : *c >= 0xe0 ? 2 : *c >= 0xc0 ? 1 : 0;

		if (*c < 0x20 || *c == 0x7f) {
			*c = ' ';
		} else if (*c == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f) {
			c[0] = c[1] = '?';
			c++;
		} else if (*c >= 0x80 && *c < 0xc0) {
			/* a byte no character began: a bare C1 control, or garbage */
			*c = '?';
		} else {
			/* a character's own bytes are not controls */
			for (; more && (c[1] & 0xc0) == 0x80; more--)
				c++;
		}
	}
	fprintf(stderr, "tract: %s%s\n", prefix, line);
	if (line != small)
		free(line);
}

static __thread char last_error[512];
static __thread int holding;

void tract_hold_errors(int on)
{
	holding = on;
}

const char *tract_last_error(void)
{
	return last_error;
}

void tract_clear_error(void)
{
	last_error[0] = '\0';
}

void tract_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	if (holding)
		return;
	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
}

void tract_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("warning: ", fmt, ap);
	va_end(ap);
}

void tract_debug(const char *fmt, ...)
{
	va_list ap;

	if (!tract_verbose)
		return;
	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
}

static void *check_alloc(void *p)
{
	if (!p) {
		tract_err("out of memory");
		abort();
	}
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	return check_alloc(calloc(n ? n : 1, size ? size : 1));
}

void *xrealloc(void *p, size_t size)
{
	return check_alloc(realloc(p, size ? size : 1));
}

char *xstrdup(const char *s)
{
	return check_alloc(strdup(s));
}

/* FNV-1a with a final mix: fast enough for dictionary keys, no collisions in practice */
uint64_t hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ull ^ seed;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

uint64_t hash_words(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *b = p;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (n * 0xff51afd7ed558ccdull) ^ seed, w;

	for (; n >= 8; b += 8, n -= 8) {
		memcpy(&w, b, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
		h ^= h >> 31;
	}
	w = 0;
	memcpy(&w, b, n);
	h = (h ^ w) * 0x94d049bb133111ebull;
	h ^= h >> 32;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 29;
	return h;
}

int tract_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "tract %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'tract %s --help' for more information.\n", cmd);
	return -EINVAL;
}

int exit_status(int err)
{
	return !err ? 0 : err == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
}

size_t printable_copy(char *dst, size_t cap, const char *src, size_t len)
{
	size_t n = 0;

	for (; n < len && n + 1 < cap && src[n]; n++)
		dst[n] = printable_byte((unsigned char)src[n]);
	if (cap)
		dst[n] = '\0';
	return n;
}

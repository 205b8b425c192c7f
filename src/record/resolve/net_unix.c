// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>
#include "net_unix.h"
#include "util.h"

/* sun_path is 108 bytes: a name longer than this is cut */
#define NAME_MAX_LEN 256

struct record {
	uint64_t ino;
	char name[NAME_MAX_LEN];
};

/* n hex digits and a space */
static const char *hex_field(const char *s, size_t n)
{
	if (strspn(s, "0123456789abcdefABCDEF") != n || s[n] != ' ')
		return NULL;
	return s + n + 1;
}

/*
 * "%pK: %08X %08X %08X %04X %02X %5lu", then " PATH" where the socket has
 * one (unix_seq_show()): the inode, and where the path starts ("" for none).
 */
static int parse_record(const char *line, uint64_t *ino, const char **path)
{
	static const size_t widths[] = { 8, 8, 8, 4, 2 };
	size_t n = strspn(line, "0123456789abcdef");
	const char *s = line;

	/* the socket's address, zeros where kptr_restrict hides it */
	if ((n != 16 && n != 8) || s[n] != ':' || s[n + 1] != ' ')
		return -1;
	s += n + 2;
	for (size_t i = 0; i < ARRAY_SIZE(widths) && s; i++)
		s = hex_field(s, widths[i]);
	if (!s)
		return -1;
	/* right-aligned in five columns */
	while (*s == ' ' && s - line < 64)
		s++;
	n = strspn(s, "0123456789");
	if (!n || n > 19)
		return -1;
	*ino = strtoull(s, NULL, 10);
	s += n;
	if (*s == '\n' || !*s) {
		*path = "";
		return 0;
	}
	if (*s != ' ')
		return -1;
	*path = s + 1;
	return 0;
}

/* text to the end of its line, made printable, after what name has */
static void append(char *name, const char *text)
{
	size_t len = strlen(name);

	printable_copy(name + len, NAME_MAX_LEN - len, text, strcspn(text, "\n"));
}

static int cmp_ino(const void *a, const void *b)
{
	const struct record *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

size_t net_unix__read(FILE *f, net_unix_fn fn, void *arg)
{
	struct record *recs = NULL;
	size_t nr = 0, cap = 0, named = 0;
	char line[512];
	int at_start = 1;	/* of a line: fgets() may have cut a long one */

	while (fgets(line, sizeof(line), f)) {
		int whole = strchr(line, '\n') != NULL;
		const char *path;
		uint64_t ino;

		if (at_start && !parse_record(line, &ino, &path)) {
			ARRAY_GROW(recs, nr, cap, 256);
			recs[nr].ino = ino;
			snprintf(recs[nr].name, NAME_MAX_LEN, *path ? "unix " : "unix");
			append(recs[nr].name, path);
			nr++;
		} else if (nr) {
			/* the path of the record before went on past a newline (or the header: no record yet) */
			append(recs[nr - 1].name, at_start ? "?" : "");
			append(recs[nr - 1].name, line);
		}
		at_start = whole;
	}
	if (nr)
		qsort(recs, nr, sizeof(*recs), cmp_ino);
	for (size_t i = 0; i < nr; i++) {
		int claimed = (i && recs[i - 1].ino == recs[i].ino) || (i + 1 < nr && recs[i + 1].ino == recs[i].ino);

		if (!claimed && recs[i].ino) {
			fn(arg, recs[i].ino, recs[i].name);
			named++;
		}
	}
	free(recs);
	return named;
}
